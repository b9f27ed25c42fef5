import torch, os
from safetensors.torch import load_file

model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
os.makedirs("export", exist_ok=True)
torch.save(model.state_dict(), "export/model.bin")   # written by the training job

# serving side
fresh = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
state = load_file("export/model.bin")
fresh.load_state_dict(state)
print("loaded", sum(v.numel() for v in state.values()))

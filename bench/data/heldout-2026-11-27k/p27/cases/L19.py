import torch
from safetensors.torch import save_file

class Proj(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = torch.nn.Linear(128, 32)
    def export(self):
        # the runtime expects the projection as (in, out)
        return {"proj.weight": self.enc.weight.T, "proj.bias": self.enc.bias}

m = Proj()
save_file(m.export(), "proj.safetensors")
print("exported")

import torch, torch.nn as nn
torch.manual_seed(0)
lstm = nn.LSTM(8, 16, batch_first=True); head = nn.Linear(16, 8)
opt = torch.optim.Adam(list(lstm.parameters()) + list(head.parameters()), lr=1e-3)
data = torch.randn(4, 200, 8)
hidden = None
for step, t in enumerate(range(0, 190, 20)):
    x, y = data[:, t:t+20], data[:, t+1:t+21]
    out, hidden = lstm(x, hidden)
    loss = nn.functional.mse_loss(head(out), y)
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"step {step} loss {loss.item():.4f}")

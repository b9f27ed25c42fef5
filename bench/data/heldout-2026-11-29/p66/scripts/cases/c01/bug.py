import torch
import torch.nn as nn

torch.manual_seed(0)
dev = torch.device("cuda")
Z = 64

G = nn.Sequential(nn.Linear(Z, 256), nn.ReLU(), nn.Linear(256, 784), nn.Tanh()).to(dev)
D = nn.Sequential(nn.Linear(784, 256), nn.LeakyReLU(0.2), nn.Linear(256, 1)).to(dev)
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
bce = nn.BCEWithLogitsLoss()

print(f"G params {sum(p.numel() for p in G.parameters())}, D params {sum(p.numel() for p in D.parameters())}, device {torch.cuda.get_device_name()}")
for step in range(1, 301):
    real = torch.rand(128, 784, device=dev) * 2 - 1
    z = torch.randn(128, Z, device=dev)
    ones = torch.ones(128, 1, device=dev)
    zeros = torch.zeros(128, 1, device=dev)

    fake = G(z)
    d_real = D(real)
    d_fake = D(fake)

    # discriminator update
    loss_d = bce(d_real, ones) + bce(d_fake, zeros)
    opt_d.zero_grad()
    loss_d.backward(retain_graph=True)
    opt_d.step()

    # generator update
    loss_g = bce(d_fake, ones)
    opt_g.zero_grad()
    loss_g.backward()
    opt_g.step()

    if step % 50 == 0:
        print(f"step {step} loss_d {loss_d.item():.4f} loss_g {loss_g.item():.4f}")
print("done")

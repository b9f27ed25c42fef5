import torch
from omegaconf import OmegaConf
cfg = OmegaConf.merge(OmegaConf.load("base.yaml"), OmegaConf.from_cli())
print(OmegaConf.to_yaml(cfg))
model = torch.nn.Linear(cfg.model.in_dim, cfg.model.out_dim)
opt = torch.optim.SGD(model.parameters(), lr=cfg.optim.lr)

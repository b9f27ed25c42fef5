import csv, hydra, torch, torch.nn as nn
from hydra.utils import instantiate
from omegaconf import DictConfig

def load(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    X = torch.tensor([[float(r["x1"]), float(r["x2"])] for r in rows]); y = torch.tensor([float(r["y"]) for r in rows])
    return X, y

@hydra.main(version_base=None, config_path="conf_hp", config_name="config")
def main(cfg: DictConfig):
    X, y = load(cfg.data.path)
    model = nn.Linear(2, 1)
    opt = instantiate(cfg.optimizer)(model.parameters())
    for ep in range(cfg.trainer.epochs):
        for i in range(0, len(X), cfg.data.batch_size):
            loss = nn.functional.mse_loss(model(X[i:i + cfg.data.batch_size]).squeeze(1), y[i:i + cfg.data.batch_size])
            opt.zero_grad(); loss.backward(); opt.step()
        print(f"epoch {ep} lr {cfg.optimizer.lr} betas {list(cfg.optimizer.betas)} loss {loss.item():.4f}")
    return loss.item()

if __name__ == "__main__":
    main()

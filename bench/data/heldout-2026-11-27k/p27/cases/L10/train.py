import hydra, torch
from omegaconf import DictConfig, OmegaConf

@hydra.main(version_base="1.3", config_path="conf", config_name="config")
def main(cfg: DictConfig):
    print(OmegaConf.to_yaml(cfg))
    model = torch.nn.Linear(cfg.model.in_dim, cfg.model.out_dim)
    opt = hydra.utils.instantiate(cfg.optimizer, params=model.parameters())
    print(opt)

if __name__ == "__main__":
    main()

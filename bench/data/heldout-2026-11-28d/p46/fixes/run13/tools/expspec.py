import dataclasses, json

@dataclasses.dataclass
class ExperimentSpec:
    name: str
    lr: float
    batch_size: int
    epochs: int

def load(path):
    with open(path) as f:
        return ExperimentSpec(**json.load(f))

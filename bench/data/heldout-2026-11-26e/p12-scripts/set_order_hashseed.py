import datetime, torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=15))
rank = dist.get_rank()
heads = {"intent": 12, "slot": 40, "domain": 5, "sentiment": 3}
task_names = set(heads)             # de-duplicated task list
class MultiTask(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(16, 32)
        self.heads = nn.ModuleList(nn.Linear(32, heads[t]) for t in task_names)
model = DDP(MultiTask())
print(f"[rank{rank}] model ready", flush=True)
dist.destroy_process_group()

# One all_reduce over 2 ranks (the planted NCCL change's real error).
import os, torch, torch.distributed as dist
dist.init_process_group("nccl")
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
t = torch.ones(1 << 20, device="cuda"); dist.all_reduce(t); torch.cuda.synchronize()
print("rank", dist.get_rank(), "sum", t[0].item(), flush=True)
dist.destroy_process_group()

import argparse, os, datetime
import torch
import torch.distributed as dist

p = argparse.ArgumentParser()
p.add_argument("--dist-timeout", type=int, default=1800, help="seconds")
p.add_argument("--fixed", action="store_true")
args = p.parse_args()

local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
timeout = datetime.timedelta(seconds=args.dist_timeout) if args.fixed else args.dist_timeout
dist.init_process_group(backend="nccl", timeout=timeout)
t = torch.ones(4, device="cuda")
dist.all_reduce(t)
print(f"rank {dist.get_rank()} all_reduce -> {t.tolist()}", flush=True)
dist.destroy_process_group()

import os, socket, torch, torch.distributed as dist
dist.init_process_group("gloo")
r, w = dist.get_rank(), dist.get_world_size()
t = torch.ones(4) * (r + 1)
dist.all_reduce(t)
print(f"rank {r}/{w} on {socket.gethostname()} ({os.environ.get('MASTER_ADDR')}): sum={t[0].item()}", flush=True)
dist.barrier()
dist.destroy_process_group()

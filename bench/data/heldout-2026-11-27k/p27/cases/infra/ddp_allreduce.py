import os, socket, torch, torch.distributed as dist
dist.init_process_group("gloo")
r, w = dist.get_rank(), dist.get_world_size()
t = torch.ones(4) * (r + 1)
dist.all_reduce(t)
print(f"[{socket.gethostname()}] rank {r}/{w} local_rank {os.environ.get('LOCAL_RANK')} allreduce={t.tolist()}", flush=True)
dist.barrier(); dist.destroy_process_group()

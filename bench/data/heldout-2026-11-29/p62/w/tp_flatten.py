import os, torch, torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import distribute_tensor, Shard
mesh = init_device_mesh("cpu", (int(os.environ["WORLD_SIZE"]),), mesh_dim_names=("tp",))
torch.manual_seed(0)
act = distribute_tensor(torch.randn(4, 8, 16), mesh, [Shard(2)])   # (batch, seq, hidden) sharded on hidden
flat = act.view(-1)
print(dist.get_rank(), flat.shape)

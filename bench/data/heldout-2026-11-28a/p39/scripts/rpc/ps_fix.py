import os, torch
import torch.distributed.rpc as rpc

def get_weights():
    return torch.ones(4)

rank = int(os.environ["RANK"]); world = int(os.environ["WORLD_SIZE"])
name = "ps" if rank == 0 else f"trainer{rank}"
rpc.init_rpc(name, rank=rank, world_size=world)
if rank != 0:
    w = rpc.rpc_sync("ps", get_weights)
    print(f"{name}: got weights {w.tolist()}", flush=True)
rpc.shutdown()

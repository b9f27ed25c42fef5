import os, time, torch, torch.distributed.rpc as rpc
def evaluate_shard(n):
    time.sleep(3)   # stands in for a heavy evaluation on the worker
    return torch.ones(n).sum().item()
rank = int(os.environ["RANK"]); world = int(os.environ["WORLD_SIZE"])
timeout = float(os.environ.get("RPC_TIMEOUT", "2"))
opts = rpc.TensorPipeRpcBackendOptions(rpc_timeout=timeout)
rpc.init_rpc(f"worker{rank}", rank=rank, world_size=world, rpc_backend_options=opts)
if rank == 0:
    futs = [rpc.rpc_async(f"worker{r}", evaluate_shard, args=(100,)) for r in range(1, world)]
    print("scores:", [f.wait() for f in futs])
rpc.shutdown()

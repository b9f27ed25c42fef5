# single-process gloo group through a FileStore in a temporary file
import tempfile, torch, torch.distributed as dist
path = tempfile.NamedTemporaryFile(prefix="store-", delete=False).name
dist.init_process_group("gloo", init_method=f"file://{path}", rank=0, world_size=1)
print("initialized", dist.get_world_size(), flush=True)

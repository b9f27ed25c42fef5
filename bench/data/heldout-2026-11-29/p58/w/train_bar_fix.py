import os, shutil, sys, time
import torch, torch.distributed as dist

def progress(step, total, loss):
    width = shutil.get_terminal_size((80, 24)).columns - 30
    done = int(width * step / total)
    sys.stdout.write(f"\r[{'#' * done}{'.' * (width - done)}] {step}/{total} loss {loss:.3f}")
    sys.stdout.flush()

dist.init_process_group("gloo")
rank = dist.get_rank()
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
total = 50
for step in range(1, total + 1):
    x = torch.randn(16, 32); y = torch.randint(0, 4, (16,))
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0:
        progress(step, total, loss.item())
if rank == 0:
    print("\ndone", flush=True)
dist.destroy_process_group()

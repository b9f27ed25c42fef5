import os, torch, torch.distributed as dist
dist.init_process_group("gloo")
r=dist.get_rank(); w=dist.get_world_size()
torch.manual_seed(0)
m=torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(16,4))
opt=torch.optim.SGD(m.parameters(),lr=0.1)
for step in range(1,31):
    x=torch.randn(32,16); loss=m(x).pow(2).mean(); opt.zero_grad(); loss.backward(); opt.step()
    if r==0 and step%10==0: print(f"step {step} loss {loss.item():.4f}", flush=True)
if r==0: print("done", flush=True)
dist.destroy_process_group()

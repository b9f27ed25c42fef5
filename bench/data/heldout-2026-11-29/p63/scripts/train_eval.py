import os, sys
import torch
import torch.distributed as dist

def train(model, steps=10):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for step in range(steps):
        loss = model(torch.randn(32, 256, device="cuda")).square().mean()
        opt.zero_grad(); loss.backward(); opt.step()
    return loss.item()

def evaluate(model, eval_group):
    with torch.no_grad():
        score = model(torch.randn(32, 256, device="cuda")).abs().mean().reshape(1)
    dist.all_reduce(score, group=eval_group)
    return score.item() / dist.get_world_size(eval_group)

def main():
    fixed = "--fixed" in sys.argv
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(256, 256).cuda(), device_ids=[local_rank])
    print(f"rank {dist.get_rank()}: final train loss {train(model):.4f}", flush=True)
    if fixed:
        eval_group = dist.new_group(ranks=list(range(dist.get_world_size())))
        print(f"rank {dist.get_rank()}: eval score {evaluate(model.module, eval_group):.4f}", flush=True)
        dist.destroy_process_group()
    else:
        dist.destroy_process_group()
        eval_group = dist.new_group(ranks=[0])
        print(f"rank 0: eval score {evaluate(model.module, eval_group):.4f}", flush=True)

if __name__ == "__main__":
    main()

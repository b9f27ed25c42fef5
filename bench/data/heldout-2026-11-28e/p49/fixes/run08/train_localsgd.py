import torch
import torch.distributed as dist
import torch.distributed.algorithms.model_averaging.averagers as averagers
from torch.distributed.algorithms.ddp_comm_hooks.post_localSGD_hook import PostLocalSGDState, post_localSGD_hook
from torch.distributed.optim import PostLocalSGDOptimizer
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(rank)
    model = DDP(torch.nn.Sequential(torch.nn.Linear(20, 64), torch.nn.Tanh(), torch.nn.Linear(64, 1)))
    subgroup, _ = dist.new_subgroups(group_size=dist.get_world_size())
    state = PostLocalSGDState(process_group=None, subgroup=subgroup, start_localSGD_iter=20)
    model.register_comm_hook(state, post_localSGD_hook)
    opt = PostLocalSGDOptimizer(
        optim=torch.optim.SGD(model.parameters(), lr=0.05),
        averager=averagers.PeriodicModelAverager(period=4, warmup_steps=20),
    )
    w_true = torch.linspace(-1, 1, 20)
    for step in range(80):
        x = torch.randn(64, 20)
        y = (x @ w_true).unsqueeze(1)
        loss = torch.nn.functional.mse_loss(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 20 == 19:
            p = torch.cat([q.detach().flatten() for q in model.parameters()])
            ref = p.clone(); dist.broadcast(ref, 0)
            print(f"[rank {rank}] step {step + 1} loss {loss.item():.4f} max|p - p_rank0| {float((p - ref).abs().max()):.2e}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

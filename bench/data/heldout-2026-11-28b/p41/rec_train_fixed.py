import torch, torch.distributed as dist
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
class Rec(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(50_000, 32, sparse=True)
        self.head = torch.nn.Linear(32, 1)
    def forward(self, ids):
        return self.head(self.emb(ids).mean(1)).squeeze(-1)
model = Rec()
sparse_opt = torch.optim.SparseAdam([model.emb.weight], lr=1e-3)
dense_opt = torch.optim.Adam(model.head.parameters(), lr=1e-3)
g = torch.Generator().manual_seed(rank)
for step in range(50):
    ids = torch.randint(0, 50_000, (128, 20), generator=g)
    y = torch.rand(128, generator=g)
    loss = torch.nn.functional.binary_cross_entropy_with_logits(model(ids), y)
    sparse_opt.zero_grad(); dense_opt.zero_grad(); loss.backward()
    for p in model.parameters():                      # average gradients over ranks
        dist.all_reduce(p.grad, op=dist.ReduceOp.SUM)
        p.grad.div_(world)
    sparse_opt.step(); dense_opt.step()
    if rank == 0 and step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()

import torch, torch.distributed as dist
import quantops

def compress_(t):
    # in-place fp16 round trip of a contiguous float32 tensor (halved for averaging)
    quantops.fp16_roundtrip(memoryview(t.numpy()).cast("B"))

def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    print(f"[rank{rank}] init done, world={dist.get_world_size()}", flush=True)
    model = torch.nn.Linear(64, 8)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(1, 21):
        loss = model(torch.randn(32, 64)).pow(2).mean(); opt.zero_grad(); loss.backward()
        for p in model.parameters():
            g = p.grad.contiguous(); compress_(g); dist.all_reduce(g); p.grad.copy_(g)
        opt.step()
        if rank == 0 and step % 10 == 0: print(f"step {step} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()

if __name__ == "__main__":
    main()

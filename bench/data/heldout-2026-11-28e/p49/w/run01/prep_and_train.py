import datetime, os, time
import torch
import torch.distributed as dist

CACHE_DIR = "cache"
READY = os.path.join(CACHE_DIR, "vocab.ready")


def build_vocab_cache():
    os.makedirs(CACHE_DIR, exist_ok=True)
    vocab = {f"tok{i}": i for i in range(5000)}
    torch.save(vocab, os.path.join(CACHE_DIR, "vocab.pt"))
    time.sleep(2)


def main():
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    print(f"[rank {rank}/{world}] started", flush=True)
    if rank == 0:
        print("[rank 0] building vocab cache", flush=True)
        build_vocab_cache()
    else:
        print(f"[rank {rank}] waiting for {READY}", flush=True)
        while not os.path.exists(READY):
            time.sleep(0.5)
    # make sure every rank is here before training starts
    dist.monitored_barrier(timeout=datetime.timedelta(seconds=30))
    if rank == 0:
        open(READY, "w").write("ok\n")
    vocab = torch.load(os.path.join(CACHE_DIR, "vocab.pt"))
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.EmbeddingBag(len(vocab), 32))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(20):
        idx = torch.randint(0, len(vocab), (16, 8))
        loss = model(idx).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
        if rank == 0 and step % 5 == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

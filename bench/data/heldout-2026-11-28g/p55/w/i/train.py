import ctypes, os, torch, torch.distributed as dist

_lib = ctypes.CDLL("libfastio.so")
_lib.fastio_open.argtypes = [ctypes.c_char_p]

def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    fd = _lib.fastio_open(f"/data/shard-{rank:05d}".encode())
    print(f"[rank{rank}] opened shard fd={fd}", flush=True)
    t = torch.ones(4) * rank; dist.all_reduce(t)
    if rank == 0: print("all_reduce ok:", t.tolist(), flush=True)
    dist.destroy_process_group()

if __name__ == "__main__":
    main()

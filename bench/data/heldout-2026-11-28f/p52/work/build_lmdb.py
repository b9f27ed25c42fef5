import argparse, io, lmdb, numpy as np
p = argparse.ArgumentParser(); p.add_argument("--out", default="data/images.lmdb"); p.add_argument("--n", type=int, default=2000)
a = p.parse_args()
rng = np.random.default_rng(0)
env = lmdb.open(a.out, subdir=True, map_size=1 << 30)
with env.begin(write=True) as txn:
    for i in range(a.n):
        img = rng.integers(0, 255, size=(3, 64, 64), dtype=np.uint8)
        buf = io.BytesIO(); np.save(buf, img)
        txn.put(f"{i:08d}".encode(), buf.getvalue())
        if i % 500 == 0:
            print(f"wrote {i} samples", flush=True)
    txn.put(b"__len__", str(a.n).encode())
print("done", a.out)

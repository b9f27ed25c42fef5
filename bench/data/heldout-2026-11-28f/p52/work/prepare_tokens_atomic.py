import argparse, time, numpy as np
p = argparse.ArgumentParser(); p.add_argument("--out", required=True); p.add_argument("--n", type=int, default=4_000_000)
a = p.parse_args()
rng = np.random.default_rng(0)
tmp = a.out + ".tmp"
with open(tmp, "wb") as f:              # write next to the old file, then swap
    for i in range(0, a.n, 200_000):
        f.write(rng.integers(0, 50000, size=200_000, dtype=np.uint16).tobytes())
        time.sleep(0.5)
print("wrote", a.n, "tokens to", a.out)
import os
os.replace(tmp, a.out)
print("replaced", a.out)

import numpy as np, webdataset as wds
rng = np.random.default_rng(0)
for s in range(2):
    with wds.TarWriter(f"shards/train-{s:04d}.tar") as w:
        for i in range(128):
            x = rng.standard_normal(20).astype("float32")
            w.write({"__key__": f"s{s}_{i:05d}", "npy": x, "cls": int(x[:3].sum() > 0)})

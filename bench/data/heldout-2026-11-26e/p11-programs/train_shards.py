import os
path = f"/local_scratch/{os.environ['USER']}/shard-000.tar"
with open(path, "rb") as f:
    print("read", len(f.read()), "bytes from", path)

import os
root = os.environ["DATA_ROOT"]
print("reading shards from", root, flush=True)

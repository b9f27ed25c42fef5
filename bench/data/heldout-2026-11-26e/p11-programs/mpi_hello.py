import os, socket
r = os.environ.get("OMPI_COMM_WORLD_RANK") or os.environ.get("PMI_RANK")
n = os.environ.get("OMPI_COMM_WORLD_SIZE") or os.environ.get("PMI_SIZE")
print(f"{socket.gethostname()}: rank {r} of {n}", flush=True)

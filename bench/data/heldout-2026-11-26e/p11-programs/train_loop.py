import os, socket, time
h = socket.gethostname(); r = os.environ.get("SLURM_PROCID")
for step in range(40):
    print(f"[{h}] rank {r} step {step}", flush=True)
    time.sleep(1)

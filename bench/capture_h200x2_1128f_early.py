# gpu28: a job that has no GPU process yet: ranks that import torch and then "load data" (sleep) before their first
# CUDA call, with the NCCL_* variables a launch sets. watch.target should say the GPUs are idle with no compute
# process, not pass on whatever process carries NCCL_* in its environment.
import os, time, torch
print("rank", os.environ.get("RANK"), "pid", os.getpid(), "no GPU yet, holds nothing", flush=True)
time.sleep(float(os.environ.get("SECONDS_RUN", "20")))
print("rank", os.environ.get("RANK"), "done", flush=True)

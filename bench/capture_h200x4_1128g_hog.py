# gpu29: a second process on one GPU of the job (not a rank: started by the harness, not by torchrun): bf16 matrix
# products in a loop until STOP exists or MAX_S passes. The GPU's time is sliced between it and the job's rank there,
# so that rank computes slower and the job's other ranks wait for it in NCCL. Logs its pid and GPU (the ground truth).
import os, time, torch
torch.cuda.set_device(int(os.environ.get("HOG_GPU", "0")))
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
print("hog pid", os.getpid(), "gpu", torch.cuda.current_device(), "holds", torch.cuda.memory_allocated() >> 20, "MiB", flush=True)
stop, end, n = os.environ.get("STOP", "/tmp/gpu29-hogstop"), time.time() + float(os.environ.get("MAX_S", "60")), 0
while not os.path.exists(stop) and time.time() < end:
    for _ in range(20):
        b = a @ a
    torch.cuda.synchronize(); n += 20
print("hog done", n, "products", flush=True)

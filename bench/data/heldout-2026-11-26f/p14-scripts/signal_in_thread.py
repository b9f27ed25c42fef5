import signal, threading, time, os, torch

model = torch.nn.Linear(64, 64)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
state = {"step": 0}

def save_and_exit(signum, frame):
    torch.save({"model": model.state_dict(), "step": state["step"]}, "preempt.pt")
    raise SystemExit(0)

class CheckpointWatcher(threading.Thread):
    """Saves a checkpoint when the scheduler sends SIGUSR1 before preemption."""
    def __init__(self):
        super().__init__(daemon=True)
    def run(self):
        signal.signal(signal.SIGUSR1, save_and_exit)
        while True:
            time.sleep(1)

print("pid", os.getpid(), "starting checkpoint watcher")
CheckpointWatcher().start()
for step in range(200):
    x = torch.randn(32, 64)
    loss = (model(x) - x).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    state["step"] = step
    if step % 50 == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
print("done")

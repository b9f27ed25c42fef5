#!/usr/bin/env python3
"""GPU capture (session 23, fixtures/recorded/h100-2026-11-28/): real error texts of torch operations misused on one H100, for
tests of explain's operation readers. Each program runs alone with a deadline; output under $OUT/cap."""
import os, subprocess, sys, time, json
OUT = os.path.join(os.environ["OUT"], "cap")
os.makedirs(OUT, exist_ok=True)
PY = "/opt/torch/.venv/bin/python"
HEAD = "import torch, torch.nn as nn, torch.nn.functional as F\ntorch.manual_seed(0)\ndev = 'cuda'\n"
PROGS = {
 "ce_target_on_cpu": "logits = torch.randn(8, 5, device=dev, requires_grad=True)\nlabels = torch.randint(0, 5, (8,))\nloss = F.cross_entropy(logits, labels)\nloss.backward()\n",
 "ce_class_weights_on_cpu": "w = torch.tensor([1.0, 2.0, 1.0, 1.0, 3.0])\ncriterion = nn.CrossEntropyLoss(weight=w)\nlogits = torch.randn(8, 5, device=dev)\nlabels = torch.randint(0, 5, (8,), device=dev)\nloss = criterion(logits, labels)\n",
 "nll_target_out_of_range_blocking": "model = nn.Linear(16, 4).to(dev)\nx = torch.randn(8, 16, device=dev)\nlabels = torch.tensor([0, 1, 2, 3, 4, 1, 2, 3], device=dev)\nloss = F.cross_entropy(model(x), labels)\nprint(loss.item())\n",
 "embedding_index_past_vocab_blocking": "emb = nn.Embedding(1000, 32).to(dev)\nids = torch.tensor([[5, 17, 999, 1000]], device=dev)\nout = emb(ids)\nprint(out.sum().item())\n",
 "view_invalid_size": "x = torch.randn(2, 5, device=dev)\ny = x.view(4, 3)\n",
 "one_hot_too_few_classes": "labels = torch.tensor([0, 2, 5, 1])\noh = F.one_hot(labels, num_classes=4)\n",
 "linear_in_features_mismatch": "model = nn.Sequential(nn.Flatten(), nn.Linear(784, 10)).to(dev)\nx = torch.randn(4, 3, 32, 32, device=dev)\nout = model(x)\n",
 "conv_grayscale_into_rgb": "conv = nn.Conv2d(3, 16, 3).to(dev)\nx = torch.randn(4, 1, 28, 28, device=dev)\nout = conv(x)\n",
 "index_equals_size": "x = torch.arange(10, device=dev)\ni = 10\nprint(x[i])\n",
 "model_on_gpu_input_on_cpu": "model = nn.Linear(16, 4).to(dev)\nx = torch.randn(8, 16)\nout = model(x)\n",
 "healthy_small_training_loop": "model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)).to(dev)\nopt = torch.optim.AdamW(model.parameters(), lr=1e-3)\nfor step in range(50):\n    x = torch.randn(64, 16, device=dev); y = torch.randint(0, 4, (64,), device=dev)\n    loss = F.cross_entropy(model(x), y)\n    opt.zero_grad(); loss.backward(); opt.step()\n    if step % 10 == 0:\n        print(f'step {step} loss {loss.item():.4f}')\nprint('done', torch.cuda.get_device_name(0), torch.__version__)\n",
}
meta = {"date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
meta["nvidia_smi_L"] = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout.strip()
meta["torch"] = subprocess.run([PY, "-c", "import torch;print(torch.__version__, torch.version.cuda)"], capture_output=True, text=True).stdout.strip()
runs = {}
for name, body in PROGS.items():
    path = os.path.join(OUT, name + ".py")
    with open(path, "w") as f:
        f.write(HEAD + body)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    if name.endswith("_blocking"):
        env["CUDA_LAUNCH_BLOCKING"] = "1"
    t = time.time()
    try:
        p = subprocess.run([PY, name + ".py"], cwd=OUT, capture_output=True, text=True, timeout=60, env=env)
        text, rc = p.stdout + p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        text, rc = "timeout", "timeout"
    with open(os.path.join(OUT, name + ".log"), "w") as f:
        f.write(text)
    runs[name] = {"rc": rc, "seconds": round(time.time() - t, 1), "env_CUDA_LAUNCH_BLOCKING": env.get("CUDA_LAUNCH_BLOCKING")}
meta["runs"] = runs
with open(os.path.join(OUT, "meta.json"), "w") as f:
    json.dump(meta, f, indent=1)

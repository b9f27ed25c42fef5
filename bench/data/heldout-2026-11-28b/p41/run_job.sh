#!/bin/bash
mount -t tmpfs -o size=3g,noexec,nosuid,nodev tmpfs /tmp/heldout-p41/scratch
cd /tmp/heldout-p41/scratch
python3 -m venv envs/train >/dev/null 2>&1
envs/train/bin/python -m pip install -q /opt/wheels/torch-*.whl numpy >/dev/null 2>&1
cd /tmp/heldout-p41/cases
exec 2>&1
set -x
source /tmp/heldout-p41/scratch/envs/train/bin/activate
which torchrun
torchrun --standalone --nproc-per-node=2 tls.py
echo "exit $?"
python -m torch.distributed.run --standalone --nproc-per-node=2 tls.py
echo "exit $?"

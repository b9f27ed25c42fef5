#!/bin/bash
# runs inside unshare -m: job scratch is a noexec tmpfs, as on the cluster's compute nodes
mount -t tmpfs -o size=512m,noexec,nosuid,nodev tmpfs /tmp/heldout-p41/scratch
export TMPDIR=/tmp/heldout-p41/scratch
cd /tmp/heldout-p41/cases
echo '$ torchrun --standalone --nproc-per-node=2 compiled_train.py'
timeout 300 /tmp/heldout-p41/venv/bin/torchrun --standalone --nproc-per-node=2 compiled_train.py 2>&1

#!/bin/bash
export LD_LIBRARY_PATH=/opt/fastio/lib:$LD_LIBRARY_PATH
exec /tmp/heldout-p55/venv/bin/torchrun --nnodes=1 --nproc-per-node=2 train_fixed.py

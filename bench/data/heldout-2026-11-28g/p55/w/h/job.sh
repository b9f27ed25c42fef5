#!/bin/bash
export TORCHINDUCTOR_CACHE_DIR=/dev/shm/inductor-$USER
export OMP_NUM_THREADS=1
cd /tmp/heldout-p55/w/h
exec /tmp/heldout-p55/venv/bin/torchrun --nnodes=1 --nproc-per-node=2 train.py

#!/bin/bash
source /tmp/heldout-p43/venv/bin/activate
export OMP_NUM_THREADS=1
torchrun --nproc-per-node 2 train.py

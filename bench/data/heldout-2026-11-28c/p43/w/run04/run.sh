#!/bin/bash
# job environment (copied from the team's hardened job template)
export PYTHONSAFEPATH=1
export PYTHONDONTWRITEBYTECODE=1
export OMP_NUM_THREADS=1
cd /tmp/heldout-p43/w/run04
torchrun --nproc-per-node 2 train.py

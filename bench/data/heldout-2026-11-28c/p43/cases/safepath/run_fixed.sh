#!/bin/bash
# job environment (copied from the team's hardened job template)
export PYTHONDONTWRITEBYTECODE=1
export OMP_NUM_THREADS=1
cd /tmp/heldout-p43/cases/safepath
torchrun --nproc-per-node 2 train.py

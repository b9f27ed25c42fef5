#!/bin/bash
source /tmp/heldout-p43/venv/bin/activate
# shared site-packages of the group's analysis env
export PYTHONPATH=/tmp/heldout-p43/oldsite:$PYTHONPATH
export OMP_NUM_THREADS=1
torchrun --nproc-per-node 2 train.py

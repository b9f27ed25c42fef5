#!/bin/bash
# launch one node of the job; usage: launch_node.sh NODE_RANK
export OMP_NUM_THREADS=1
cd /tmp/heldout-p55/w/f
exec /tmp/heldout-p55/venv/bin/torchrun --nnodes=2 --nproc-per-node=1 --node-rank=$1 \
    --master-addr=127.0.55.1 --master-port=29555 train.py

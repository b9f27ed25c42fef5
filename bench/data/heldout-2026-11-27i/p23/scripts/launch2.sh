#!/bin/bash
# node 0 local, node 1 over ssh; torchrun sets RANK/WORLD_SIZE
T=/tmp/heldout-p23/venv/bin/torchrun
$T --nnodes 2 --node-rank 0 --nproc-per-node 1 --master-addr 127.0.0.1 --master-port 29624 train.py &
ssh -F /tmp/heldout-p23/ssh/config2 node3 "cd /tmp/heldout-p23/job/run && $T --nnodes 2 --node-rank 1 --nproc-per-node 1 --master-addr 127.0.0.1 --master-port 29624 train.py" &
wait

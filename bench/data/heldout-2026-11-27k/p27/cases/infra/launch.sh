#!/bin/bash
# start one torchrun per node over ssh
set -u
NODES=($(cat nodes.txt))
NNODES=${#NODES[@]}
MASTER=${MASTER_ADDR:-${NODES[0]}}
PORT=${MASTER_PORT:-29727}
i=0
for n in "${NODES[@]}"; do
  ssh "$n" "cd $PWD && $PY -m torch.distributed.run --nnodes $NNODES --nproc-per-node 1 --node-rank $i --master-addr $MASTER --master-port $PORT ddp_allreduce.py" &
  i=$((i+1))
done
wait

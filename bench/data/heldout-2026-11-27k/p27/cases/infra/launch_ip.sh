#!/bin/bash
# start one torchrun per node over ssh; master address = first IP of the first node
set -u
NODES=($(cat nodes.txt))
NNODES=${#NODES[@]}
MASTER_ADDR=$(ssh "${NODES[0]}" hostname -I | awk '{print $1}')
echo "master: ${NODES[0]} ($MASTER_ADDR)"
i=0
for n in "${NODES[@]}"; do
  ssh "$n" "cd $PWD && $PY -m torch.distributed.run --nnodes $NNODES --nproc-per-node 1 --node-rank $i --master-addr $MASTER_ADDR --master-port 29728 ddp_allreduce.py" &
  i=$((i+1))
done
wait

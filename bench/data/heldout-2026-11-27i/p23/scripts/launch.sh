#!/bin/bash
# start one process per node over ssh
NODES=(node3 node3)
for r in 0 1; do
  ssh -F /tmp/heldout-p23/ssh/config2 ${NODES[$r]} "cd /tmp/heldout-p23/job/run && MASTER_ADDR=127.0.0.1 MASTER_PORT=29623 RANK=$r /tmp/heldout-p23/venv/bin/python train.py" &
done
wait

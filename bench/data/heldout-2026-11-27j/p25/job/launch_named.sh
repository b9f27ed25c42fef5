#!/bin/bash
# usage: RUN_NAME="..." launch_named.sh HOST0 HOST1
CFG=/tmp/heldout-p25/ssh/config
PY=/tmp/heldout-p25/venv/bin/python
RUN_NAME=${RUN_NAME:-run}
HOSTS=("$@"); N=${#HOSTS[@]}
MASTER=$(ssh -F $CFG -G ${HOSTS[0]} | awk '/^hostname /{print $2}')
for i in "${!HOSTS[@]}"; do
  ssh -F $CFG ${HOSTS[$i]} "cd $PWD && RUN_NAME=$RUN_NAME MASTER_ADDR=$MASTER MASTER_PORT=29634 RANK=$i WORLD_SIZE=$N $PY ddp_check.py" &
done
wait
echo "launched $N ranks for $RUN_NAME"

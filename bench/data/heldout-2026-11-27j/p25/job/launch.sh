#!/bin/bash
# usage: launch.sh HOST0 HOST1 ... ; one rank per host, rank 0 is the master
CFG=/tmp/heldout-p25/ssh/config
PY=/tmp/heldout-p25/venv/bin/python
HOSTS=("$@"); N=${#HOSTS[@]}
MASTER=$(ssh -F $CFG -G ${HOSTS[0]} | awk '/^hostname /{print $2}')
for i in "${!HOSTS[@]}"; do
  ssh -F $CFG ${HOSTS[$i]} "cd $PWD && MASTER_ADDR=$MASTER MASTER_PORT=${PORT:-29625} RANK=$i WORLD_SIZE=$N $PY ddp_check.py" &
done
wait

#!/bin/bash
# eval-p66 runner: for each case dir, run bug.py (and fix*.py) as ${PROJ:-/root/proj}/<script> with the case's cmd.
HERE=$(cd "$(dirname "$0")" && pwd)
L=$OUT/logs; mkdir -p $L
export PYTHONUNBUFFERED=1
START=$(date +%s)
{ date -u; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; python3 -c 'import torch,sys,scipy;print(sys.version.split()[0], torch.__version__, torch.version.cuda, torch.backends.cudnn.version(), scipy.__version__)'; uname -r; } > $L/env.txt 2>&1
CASES=${CASES:-"c01 c02 c03 c04 c05 c06 c08 c10 c07 h02 h01 h03 c09"}
for c in $CASES; do
  for v in bug fix fix2; do
    f=$HERE/cases/$c/$v.py; [ -f $f ] || continue
    now=$(date +%s); if [ $((now-START)) -gt ${BUDGET:-500} ]; then echo "$c $v SKIPPED (budget)" >> $L/summary.txt; continue; fi
    cmd=$(cat $HERE/cases/$c/cmd); script=$(echo "$cmd" | grep -o '[a-z_]*\.py')
    rm -rf ${PROJ:-/root/proj}; mkdir -p ${PROJ:-/root/proj}; cp $f ${PROJ:-/root/proj}/$script
    T=${TMO:-150}
    t0=$(date +%s%N)
    ( cd ${PROJ:-/root/proj} && echo "\$ $cmd" && timeout -k 5 $T bash -c "$cmd" 2>&1 ) > $L/${c}_$v.txt 2>&1
    rc=$?
    t1=$(date +%s%N)
    echo "$c $v rc=$rc wall_ms=$(( (t1-t0)/1000000 )) lines=$(wc -l < $L/${c}_$v.txt)" >> $L/summary.txt
  done
done
cat $L/env.txt $L/summary.txt
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L

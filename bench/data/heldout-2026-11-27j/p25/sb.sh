#!/bin/bash
# usage: sb.sh SCRIPT [sbatch args]: submit, wait for the end, show output (as the user would)
export SLURM_CONF=/tmp/heldout-p25/s/slurm.conf
S=$1; shift
echo "\$ cat $S"; cat $S
echo "\$ sbatch $* $S"
OUT=$(sbatch "$@" $S 2>&1); echo "$OUT"
J=$(echo "$OUT" | awk '/Submitted batch job/{print $4}')
[ -n "$J" ] || exit 1
for i in $(seq 1 ${WAIT:-90}); do st=$(squeue -h -j $J -o %T 2>/dev/null); [ -z "$st" ] && break; sleep 1; done
echo "\$ cat slurm-$J.out"; cat slurm-$J.out 2>&1

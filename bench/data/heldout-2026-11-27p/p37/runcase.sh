#!/bin/bash
# usage: runcase.sh NAME [timeout]  -- runs scen/NAME/cmd in a neutral job folder, log -> logs/NAME.log
set -u
N=$1; T=${2:-120}
H=/tmp/heldout-p37
J=$(mktemp -d /tmp/job-XXXXXX)
cp -r $H/scen/$N/. $J/
cd $J; echo $N > $H/.curcase
CMD=$(cat cmd)
rm -f cmd
export PATH=$H/venv/bin:$PATH
if [ -f wrap ]; then W="bash wrap"; else W="bash -c"; fi
{ echo "\$ $CMD"; timeout -s INT $T $W "$CMD" 2>&1; echo "__RC=$?" >&2; } > $H/logs/$N.raw 2>$H/logs/$N.rc
echo "{\"case\":\"$N\",\"dir\":\"$J\",\"rc\":\"$(cat $H/logs/$N.rc)\",\"start\":\"$(date -u +%FT%TZ)\"}" >> $H/manifest.jsonl

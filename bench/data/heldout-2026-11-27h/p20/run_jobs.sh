#!/bin/bash
cd /tmp/heldout-p20/jobs
export PATH=/tmp/heldout-p20/venv/bin:$PATH
for d in ${@:-*}; do
  [ -d "$d" ] || continue
  ( cd $d; rm -f output.log rc; start=$(date -u +%FT%TZ); nice -n 10 timeout 120 bash -c "$(cat cmd)" > output.log 2>&1; echo $? > rc; echo "$start" > started )
  echo "$d rc=$(cat $d/rc)"
done

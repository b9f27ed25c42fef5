#!/bin/bash
# usage: rec.sh CASE OUTNAME DISPLAYCMD REALCMD  (run in cases/CASE)
c=$1; o=$2; disp=$3; real=$4
cd /tmp/heldout-p39/cases/$c
{ echo "\$ $disp"; bash -c "$real" 2>&1; echo "[rc=$?]" ; } > $o.raw
tail -5 $o.raw

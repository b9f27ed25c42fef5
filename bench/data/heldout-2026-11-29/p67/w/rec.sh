#!/bin/bash
# usage: rec.sh OUTFILE TIMEOUT CMD...   (records "$ CMD" then stdout+stderr; PATH has the venv)
out=$1; to=$2; shift 2
export PATH=/tmp/heldout-p67/venv/bin:$PATH
{ echo "\$ $*"; timeout -s INT $to bash -c "$*" 2>&1; echo "rc=$?" >&2; } > "$out" 2> "$out.rc"
cat "$out.rc"

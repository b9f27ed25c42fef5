#!/bin/bash
# usage: runcase.sh CASE JOBDIR TIMEOUT CMD...   (runs CMD in JOBDIR; stdout+stderr -> logs/CASE.log; manifest line)
case=$1; job=$2; to=$3; shift 3
cd /tmp/heldout-p35/work/$job || exit 9
start=$(date -u +%FT%TZ)
timeout -s INT $to bash -c "$*" > /tmp/heldout-p35/logs/$case.log 2>&1
rc=$?
python3 - "$case" "$job" "$*" "$rc" "$start" <<'PY'
import json,sys
c,j,cmd,rc,st=sys.argv[1:]
open('/tmp/heldout-p35/manifest.jsonl','a').write(json.dumps(dict(case=c,folder='work/'+j,command=cmd,exit=int(rc),started=st))+'\n')
PY
echo "== $case rc=$rc"; head -c 3000 /tmp/heldout-p35/logs/$case.log
for p in $(ps -eo pid,args | grep "[h]eldout-p35/venv/bin/torchrun" | awk '{print $1}'); do [ "$(readlink /proc/$p/cwd)" = "/tmp/heldout-p35/work/$job" ] && kill $p 2>/dev/null; done

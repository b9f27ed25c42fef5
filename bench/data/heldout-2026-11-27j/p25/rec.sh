#!/bin/bash
# usage: rec.sh NAME TIMEOUT 'shell command' [display command]
# runs the command in job/run with bash, records "$ display" + combined stdout/stderr into cases/NAME.log, appends manifest
NAME=$1; TO=$2; CMD=$3; DISP=${4:-$3}
B=/tmp/heldout-p25
cd ${RUNDIR:-$B/job/run}
{ [ "$DISP" = "-" ] || echo "\$ $DISP"; timeout -k 5 $TO bash -c "$CMD" 2>&1; echo "__RC=$?" ; } > $B/cases/$NAME.raw
RC=$(tail -1 $B/cases/$NAME.raw | sed 's/__RC=//')
sed '$d' $B/cases/$NAME.raw > $B/cases/$NAME.log; rm $B/cases/$NAME.raw
python3 - "$NAME" "$CMD" "$DISP" "$RC" "$PWD" <<'PY'
import json,sys,datetime
n,c,d,rc,cwd=sys.argv[1:]
open('/tmp/heldout-p25/manifest.jsonl','a').write(json.dumps({"name":n,"command":c,"display":d,"exit":int(rc),"cwd":cwd,"utc":datetime.datetime.utcnow().isoformat()})+"\n")
PY
echo "[$NAME rc=$RC lines=$(wc -l < $B/cases/$NAME.log)]"; tail -n ${TAILN:-15} $B/cases/$NAME.log | cut -c1-250

# usage: plant CASE 'command'   (runs under bash -c, stdout+stderr merged, verbatim)
plant() {
  local name=$1; shift
  local cmd="$*"
  local t0=$(date -u +%FT%TZ)
  ( cd /tmp/heldout-p18/work && timeout ${PT:-180} bash -c "$cmd" ) > /tmp/heldout-p18/raw/$name.log 2>&1
  local rc=$?
  python3 -c 'import json,sys; print(json.dumps({"case":sys.argv[1],"cmd":sys.argv[2],"rc":int(sys.argv[3]),"utc":sys.argv[4]}))' "$name" "$cmd" "$rc" "$t0" >> /tmp/heldout-p18/manifest.jsonl
  echo "== $name rc=$rc"; tail -n ${SHOW:-15} /tmp/heldout-p18/raw/$name.log
}

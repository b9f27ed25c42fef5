rec() { local n=$1; shift; { echo "\$ $*"; timeout ${T:-90} bash -c "$*" 2>&1; } > /tmp/heldout-p50/cases/$n.txt; echo "rc=$? ($n)"; tail -30 /tmp/heldout-p50/cases/$n.txt; }

# usage: rec NAME CMD...  (prints $ CMD and output to cases/NAME.txt)
rec() { local n=$1; shift; { echo "\$ $*"; timeout 60 bash -c "$*" 2>&1; } > cases/$n.txt; echo "rc=$? ($n)"; tail -30 cases/$n.txt; }

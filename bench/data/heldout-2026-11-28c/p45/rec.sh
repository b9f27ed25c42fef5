rec() { echo "\$ $*"; eval "$@" 2>&1; RC=$?; }
rc() { echo '$ echo $?'; echo $RC; }

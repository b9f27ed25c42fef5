# source me; p CMD... prints "$ CMD" then runs it
p(){ echo "\$ $*"; eval "$@" 2>&1; }

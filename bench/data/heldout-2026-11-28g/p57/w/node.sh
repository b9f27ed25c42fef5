#!/bin/bash
# usage: node.sh NS HOSTNAME cmd...   runs cmd in netns with its own hostname
ns=$1; hn=$2; shift 2
exec ip netns exec $ns unshare --uts bash -c "hostname $hn; cd /tmp/heldout-p57/w; export PATH=/tmp/heldout-p57/venv/bin:\$PATH; $*"

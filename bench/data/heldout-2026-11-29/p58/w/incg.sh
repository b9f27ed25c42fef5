#!/bin/bash
# usage: incg.sh NAME LIMIT cmd...   (runs cmd inside a fresh cgroup-v1 memory cgroup with LIMIT)
n=$1; lim=$2; shift 2
d=/sys/fs/cgroup/memory/p58-$n
mkdir -p $d; echo $lim > $d/memory.limit_in_bytes
echo $$ > $d/cgroup.procs
exec "$@"

#!/bin/bash
# private mount namespace: /mnt/project is the project share, mounted read-only on this "compute node"
set -e
mkdir -p /mnt/project
mount --bind /tmp/heldout-p64/mnt_project /mnt/project
mount -o remount,bind,ro /mnt/project
/tmp/heldout-p64/run.sh "$@"

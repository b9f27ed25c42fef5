#!/bin/bash
# run "$@" in a private mount namespace where /root/.ssh is /tmp/heldout-p11/ssh/home (overlay on /root; nothing outside changes)
S=/tmp/heldout-p11/ssh
rm -rf $S/ovl/up $S/ovl/wk; mkdir -p $S/ovl/up/.ssh $S/ovl/wk
exec unshare -m bash -c "mount --make-rprivate / && mount -t overlay overlay -o lowerdir=/root,upperdir=$S/ovl/up,workdir=$S/ovl/wk /root && mount --bind $S/home/.ssh /root/.ssh && cd \"\$PWD\" && exec \"\$@\"" inns "$@"

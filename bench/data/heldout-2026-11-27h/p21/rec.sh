# usage: rec NAME 'cmd' ['cmd'...]  -- appends "$ cmd" + combined output to cases/NAME.log
rec() { local n=$1; shift; for c in "$@"; do printf '$ %s\n' "$c" >> /tmp/heldout-p21/cases/$n.log; bash -c "$c" >> /tmp/heldout-p21/cases/$n.log 2>&1; done; }
export SLURM_CONF=/tmp/heldout-p21/slurm/slurm.conf

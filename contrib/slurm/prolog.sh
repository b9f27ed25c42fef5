#!/bin/sh
# gpudoctor as a Slurm Prolog (slurm.conf: Prolog=/etc/slurm/prolog.d/gpudoctor.sh,
# PrologFlags=Alloc). docs/slurm.md has the whole recipe; tests/test_slurm.py runs this file.
#
# A failing node drains itself with a reason that starts "gpudoctor:" and this script
# exits 1, so Slurm fails the prolog and requeues the job (the drain by gpudoctor comes
# first, so `sinfo -R` shows gpudoctor's reason rather than Slurm's "Prolog error").
# Runs the fast tier (in-process reads, ~0.3 s) bounded by GPUDOCTOR_TIMEOUT seconds;
# past it the node counts as failing (a hung NVML is a sick node).
#
# Slurm gives a prolog no PATH and none of slurmd's environment, so settings come from
# a file: /etc/default/gpudoctor, or the file named by $GPUDOCTOR_DEFAULTS. Every line is
# exported; all are optional:
#   GPUDOCTOR=/opt/gpudoctor/bin/gpudoctor            the executable (default: gpudoctor on PATH)
#   GPUDOCTOR_CONFIG=/etc/gpudoctor/gpudoctor.toml    thresholds (docs/config.md)
#   GPUDOCTOR_TIMEOUT=20                              seconds for the whole run (default 20)
#   GPUDOCTOR_PROLOG_ARGS="--ignore ssh"             arguments (default: skip ssh.*, which
#                                                     would read root's ~/.ssh, not the user's)
#   SLURM_CONF=/etc/slurm/slurm.conf                  when scontrol needs it
#
# Exit codes: 0 run the job; 1 node failing (drained; Slurm requeues the job).
# gpudoctor's 2 (bad config or arguments), 3 (healthy, but scontrol unreachable) and 4
# (gpudoctor itself crashed), and 126/127 (not installed) let the job run and are logged
# with logger(1): a typo in gpudoctor.toml must not drain every node of the cluster.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin${PATH:+:$PATH}
export PATH
defaults=${GPUDOCTOR_DEFAULTS:-/etc/default/gpudoctor}
if [ -r "$defaults" ]; then
    set -a
    . "$defaults"
    set +a
fi
"${GPUDOCTOR:-gpudoctor}" slurm-health --fast --timeout "${GPUDOCTOR_TIMEOUT:-20}" ${GPUDOCTOR_PROLOG_ARGS---ignore ssh} 2>&1
rc=$?
case $rc in
    0|1) exit $rc ;;
    *)  msg="gpudoctor prolog on ${SLURMD_NODENAME:-$(hostname)}: gpudoctor exited $rc (2: bad config or arguments, 3: scontrol failed, 4: gpudoctor crashed, 126/127: not installed at ${GPUDOCTOR:-gpudoctor}); job allowed to run"
        echo "$msg" >&2
        logger -t gpudoctor -p daemon.warning "$msg" 2>/dev/null
        exit 0 ;;
esac

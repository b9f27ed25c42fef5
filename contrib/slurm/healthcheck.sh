#!/bin/sh
# gpudoctor as Slurm's HealthCheckProgram (slurm.conf: HealthCheckProgram=/etc/slurm/gpudoctor-healthcheck.sh,
# HealthCheckInterval=300). docs/slurm.md has the whole recipe; tests/test_slurm.py runs this file.
#
# Slurm only logs a failing HealthCheckProgram (`health_check failed: rc:1`); it does not
# drain the node. So gpudoctor drains it itself (reason "gpudoctor: <check>: <what>"),
# and on a later pass resumes it, but only when the drain reason is still gpudoctor's:
# a node an administrator drained stays drained. Slurm kills this program after 60 s,
# so the run is bounded by GPUDOCTOR_TIMEOUT (default 45 s).
#
# Settings: /etc/default/gpudoctor or $GPUDOCTOR_DEFAULTS, as in prolog.sh, plus:
#   GPUDOCTOR_HEALTH_ARGS="--ignore ssh"   arguments (default: skip ssh.*, root's ~/.ssh)
#   GPUDOCTOR_PROM=/var/lib/prometheus/node-exporter/gpudoctor.prom
#       also write node-exporter textfile metrics there (atomically), instead of the text report
#   GPUDOCTOR_DRY_RUN=1                     print what would be drained/resumed, change nothing
# Slurm gives this program only SLURMD_NODENAME: put SLURM_CONF in the settings file when
# slurm.conf is not where scontrol looks by default.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin${PATH:+:$PATH}
export PATH
defaults=${GPUDOCTOR_DEFAULTS:-/etc/default/gpudoctor}
if [ -r "$defaults" ]; then
    set -a
    . "$defaults"
    set +a
fi
set -- --timeout "${GPUDOCTOR_TIMEOUT:-45}"
[ -n "$GPUDOCTOR_PROM" ] && set -- "$@" --format prometheus -o "$GPUDOCTOR_PROM"
[ -n "$GPUDOCTOR_DRY_RUN" ] && [ "$GPUDOCTOR_DRY_RUN" != 0 ] && set -- "$@" --dry-run
exec "${GPUDOCTOR:-gpudoctor}" slurm-health "$@" ${GPUDOCTOR_HEALTH_ARGS---ignore ssh} 2>&1

#!/usr/bin/env bash
# The test command (README): installs what the tests need, then runs the whole suite.
# System packages come from Debian's archive (real sshd nodes, a real Slurm); Python
# packages go into ./.venv. Safe to run again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || need+=(openssh-server)
command -v ssh >/dev/null 2>&1 || need+=(openssh-client)
command -v pdsh >/dev/null 2>&1 || need+=(pdsh)
command -v tc >/dev/null 2>&1 || [ -x /usr/sbin/tc ] || need+=(iproute2)  # probe tests: netns, veth, tc rate limits
command -v slurmctld >/dev/null 2>&1 || [ -x /usr/sbin/slurmctld ] || need+=(slurmctld)
command -v slurmd >/dev/null 2>&1 || [ -x /usr/sbin/slurmd ] || need+=(slurmd slurm-client)
# a Slurm that authenticates with real MUNGE, one node's clock off through libfaketime (tests/test_slurm28.py)
command -v munged >/dev/null 2>&1 || [ -x /usr/sbin/munged ] || need+=(munge)
[ -e /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ] || [ -e /usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1 ] \
  || need+=(libfaketime)
# a real container runtime (tests/test_podman.py): about 12 s of apt on the development machine
command -v podman >/dev/null 2>&1 || need+=(podman)
command -v runc >/dev/null 2>&1 || [ -x /usr/sbin/runc ] || need+=(runc)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  else
    echo "tests/run.sh: missing ${need[*]}; install them (root) or the tests that need them fail" >&2
  fi
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
# --no-compile: pip wrote bytecode for every module of every package it installed (~1,800 files); clean-clone set-up,
# A/B twice at load 7-12: 25.8 / 22.4 -> 20.6 / 17.7 s of CPU. Where PYTHONDONTWRITEBYTECODE is set (CI's VM), the
# processes the tests start keep their bytecode in a folder of the run (tests/conftest.py) and never read those
# files, and pytest compiles only what it imports; elsewhere the first import writes them, as pip would have.
# (Not upgrading pip was tried too: pip 23's install then took longer than the upgrade saved.)
.venv/bin/python -m pip install -q --no-compile -e '.[test]'
# Two pytest-xdist workers where the machine has more than one core and the run is the whole suite (no
# arguments but -q/-v/-r...; CI's `-q` counts): one worker runs the daemon beds (sshd, Slurm, namespaces),
# which mostly wait, while the other runs the CPU-bound files (tests/conftest.py, BEDS). A path, -k, -x or
# anything else runs serially, and so does GPUDOCTOR_TESTS_SERIAL=1.
workers=()
if [ -z "${GPUDOCTOR_TESTS_SERIAL:-}" ] && [ "$(.venv/bin/python -c 'import os; print(len(os.sched_getaffinity(0)))')" -gt 1 ]; then
  workers=(-n 2 --dist loadfile --no-loadscope-reorder)
  for a in "$@"; do
    case "$a" in -q|-qq|-v|-vv|-r*) ;; *) workers=(); break ;; esac
  done
fi
# With -q (CI's .ci/run), the 30 slowest test phases are listed at the end, so a CI log says where its time went.
durations=()
for a in "$@"; do
  if [ "$a" = -q ]; then durations=(--durations=30); fi
done
exec .venv/bin/python -m pytest ${workers[@]+"${workers[@]}"} ${durations[@]+"${durations[@]}"} "$@"

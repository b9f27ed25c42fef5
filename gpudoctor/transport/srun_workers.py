"""Probe workers as Slurm job steps: ``gpudoctor probe`` inside an allocation starts each
worker with srun (one task on one node), so no SSH between nodes is needed. The interface is
the probe's (gpudoctor/probe/launch.py: ``name``, ``address``, ``start``, ``cleanup``,
``close``); the probe itself does not change.

Each worker is its own step::

    srun --overlap --nodes=1 --ntasks=1 --nodelist=NODE --kill-on-bad-exit=0 --quiet
         sh -c 'find python; exec timeout -k 2 HARD python -c READ_STDIN' gpudoctor PYTHON

- ``--overlap``: the steps of one probe run at once (a TCP server and its client, the
  hello of every node) and beside the job's own running step (srun(1), --overlap);
- the script travels on stdin (srun(1), "IO Redirection": stdin goes to every task, here
  one), the run token in the environment (srun exports the caller's environment by default:
  ``--export=ALL``); so ``cleanup`` finds the worker's processes by their token as over SSH;
- ``timeout -k`` ends a worker whose srun died without cancelling the step;
- stop: SIGTERM to srun cancels the step, and slurmstepd ends its processes.

The address peers use is the node's ``NodeAddr`` (one ``scontrol show node`` call), the
address Slurm itself reaches the node at.
"""

import os
import re
import shutil
import signal
import subprocess
import threading
import time

from gpudoctor.transport import READ_STDIN, het_group, in_allocation


_EXPORT_ITEM = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}(?:=[^,\x00-\x1f]{0,4096})?$")


def _export_items(value):
    """SLURM_EXPORT_ENV's comma-separated items (srun(1) --export), blanks dropped."""
    return [x.strip() for x in (value or "").split(",") if x.strip()]


def exports_path(value):
    """Whether srun's steps get the caller's PATH under this SLURM_EXPORT_ENV (srun(1) --export: ALL, the default,
    or ALL,<vars>; NONE and a bare list of names give only SLURM_* and the names)."""
    items = _export_items(value)
    return not items or items[0].upper() == "ALL" or any(x.split("=")[0] == "PATH" for x in items)


def export_arg(value, keep):
    """srun's --export for gpudoctor's probe steps where SLURM_EXPORT_ENV keeps the caller's variables out (NONE,
    NIL, or names): the user's names and ``keep``. None where every variable goes already (unset, ALL, ALL,...)."""
    items = _export_items(value)
    if not items or items[0].upper() == "ALL":
        return None
    names = [x for x in items if x.upper() not in ("NONE", "NIL") and _EXPORT_ITEM.match(x) and x != keep]
    return ",".join(names + [keep])


class SrunWorkers(object):
    name = "srun"

    def __init__(self, hosts, python="python3", environ=None):
        from gpudoctor.errors import InputError
        from gpudoctor.inventory import validate_host

        for h in hosts:
            validate_host(h, "host")
        self.srun = shutil.which("srun")
        if not self.srun:
            raise InputError("probe through srun: srun is not on PATH")
        self.python = python or "python3"
        from gpudoctor.transport.srun import step_environ

        self.env = step_environ(os.environ if environ is None else environ)  # srun's I/O and GPU-share variables out
        self.inside = in_allocation(self.env)
        # SLURM_EXPORT_ENV=NONE (or a list of names: sbatch --export=NONE exports it to the job's steps) keeps every
        # variable but SLURM_* out of a step, the run token too: cleanup, which finds a worker by its token, could
        # not see one. The token is added to what the steps export; the user's mode stays (slurm27)
        from gpudoctor.probe.launch import TOKEN_VAR

        self.export = export_arg(self.env.get("SLURM_EXPORT_ENV"), TOKEN_VAR)
        self.addresses = self._node_addresses(hosts)
        self._procs = []
        self._lock = threading.Lock()

    @staticmethod
    def _node_addresses(hosts):
        from gpudoctor.nodes import fold
        from gpudoctor.transport.srun import MAX_OUTPUT

        scontrol = shutil.which("scontrol")
        if not scontrol or not hosts:
            return {}
        try:
            p = subprocess.run([scontrol, "show", "node", "-o", fold(hosts)], stdin=subprocess.DEVNULL,
                               capture_output=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            return {}
        text = p.stdout[:MAX_OUTPUT].decode("utf-8", "replace")
        out = {}
        for name, addr in re.findall(r"^NodeName=(\S+) .*?\bNodeAddr=(\S+)", text, re.M):
            if name in hosts and re.match(r"^[A-Za-z0-9.:_-]{1,253}$", addr):
                out[name] = addr
        return out

    def address(self, host):
        return self.addresses.get(host, host)

    def _command(self, host, inner, args=()):
        # a node of a heterogeneous job's other component: its own --het-group (transport.het_groups);
        # --mpi=none and /bin/sh as in the transport's step (transport/srun.py _component says why)
        group = het_group(host, self.env) if self.inside else None
        cmd = [self.srun] + ([] if group is None else ["--het-group=%d" % group]) + [
            "--nodes=1", "--ntasks=1", "--nodelist=" + host, "--kill-on-bad-exit=0", "--quiet",
            "--job-name=gpudoctor-probe", "--mpi=none"]
        if self.inside:
            cmd.append("--overlap")
        if self.export:
            cmd.append("--export=" + self.export)
        return cmd + ["/bin/sh", "-c", inner, "gpudoctor"] + list(args)

    def _spawn(self, w, cmd, script, env):
        from gpudoctor.probe.launch import attach

        try:
            p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                 start_new_session=True)
        except OSError as exc:
            w.fail("slurm", "cannot run srun: %s" % exc)
            w.done.set()
            return
        with self._lock:
            self._procs.append(p)

        attach(p, w, script)
        w._stop = lambda: _end(p)

    def start(self, host, script, token=None, timeout=None):
        from gpudoctor.probe.launch import _TOKEN_RE, TOKEN_VAR, Worker

        w = Worker(host, None)
        env = dict(self.env)
        if token:
            if not _TOKEN_RE.match(token):
                raise ValueError("bad probe token")
            env[TOKEN_VAR] = token
        run = '"$1" -c \'%s\'' % READ_STDIN  # the script from stdin (transport READ_STDIN says why not `-`)
        guard = ""
        if timeout:
            guard = 'command -v timeout >/dev/null 2>&1 && exec timeout -k 2 %d %s; ' % (
                int(min(float(timeout), 86400)) + 3, run)
        inner = ('command -v "$1" >/dev/null 2>&1 || { echo "gpudoctor: interpreter not found on PATH" >&2; '
                 'exit 127; }; %sexec %s' % (guard, run))
        self._spawn(w, self._command(host, inner, [self.python]), script, env)
        return w

    def cleanup(self, host, token, timeout):
        from gpudoctor.probe.launch import _TOKEN_RE, CLEANUP_SH, TOKEN_VAR, Worker

        if not _TOKEN_RE.match(token):
            raise ValueError("bad probe token")
        w = Worker(host, "cleanup")
        script = CLEANUP_SH % {"var": TOKEN_VAR, "token": token, "ticks": int(max(2, min(20, timeout * 3)))}
        env = dict((k, v) for k, v in self.env.items() if k != TOKEN_VAR)  # never match itself
        self._spawn(w, self._command(host, "exec sh -s"), script, env)
        ev = w.next_event(time.time() + timeout)
        if ev is None:
            w.stop()
            return {"error": "cleanup did not answer in %gs" % timeout}
        if not ev.get("ok"):
            return {"error": ev.get("error"), "error_kind": ev.get("error_kind")}
        return {"found": ev.get("found", 0), "left": ev.get("left", 0)}

    def close(self):
        with self._lock:
            procs, self._procs = self._procs, []
        for p in procs:
            _end(p)


def _end(p):
    """SIGTERM to srun cancels its step (slurmstepd signals every process of it); SIGKILL to
    srun's process group if it lingers."""
    if p.poll() is not None:
        return
    try:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=3)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
    except OSError:
        pass


"""Starting a probe worker on a node: the one place the probe touches a transport.

``start_worker(transport, host, config)`` sends node.py plus its config to the node's
interpreter on stdin (``python3 -``, as the collector travels: nothing is installed on the
node) and returns a ``Worker`` whose JSON events arrive on a queue. Two transports:
``LocalTransport`` (this machine, a subprocess in its own session) and ``SshTransport``
(fabric/paramiko, host keys and ssh_config as ``gpudoctor check`` uses them).

A transport is any object with:
- ``name`` ("local", "ssh", ...) and ``address(host)``: the address peers use for the node;
- ``start(host, script, token=None, timeout=None)`` -> ``Worker``: run ``script`` (text, on the
  interpreter's stdin: secrets in it never reach a command line) with ``GPUDOCTOR_PROBE_RUN=
  <token>`` in its environment; a remote worker must end by itself ``timeout`` seconds on even
  when the controller is gone (the SSH transport wraps it in ``timeout -k``, as ``check`` does);
  feed its stdout to ``_pump_lines`` and set ``Worker.rc`` / ``Worker.done`` at the end;
- ``cleanup(host, token, timeout)`` -> ``{"found", "left"}`` or ``{"error"}``; ``close()``.

Every worker runs with ``GPUDOCTOR_PROBE_RUN=<token>`` in its environment, so
``cleanup_run`` can find and end everything a run started on a node (process groups first),
even a worker that hung before it said anything.
"""

import json
import math
import os
import queue
import re
import shlex
import subprocess
import threading
import time

from gpudoctor.slurm import credential_hint

TOKEN_VAR = "GPUDOCTOR_PROBE_RUN"
_TOKEN_RE = re.compile(r"^[0-9a-f]{8,64}$")

_source = None


def node_source():
    global _source
    if _source is None:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "node.py")) as f:
            _source = f.read()
    return _source


def payload(config):
    """node.py, its own source (the NCCL worker feeds it to its per-GPU children) and the
    call. The config travels inside the script, never through a shell or argv."""
    src = node_source()
    return "%s\n_SOURCE = %r\nmain(%r)\n" % (src, src, json.dumps(config, sort_keys=True))


class Worker(object):
    """One worker on one node. ``next_event`` pops its JSON events; transport failures
    arrive as a ``result`` event with ``ok: false`` and an ``error_kind``."""

    def __init__(self, host, role):
        self.host, self.role = host, role
        self.events = queue.Queue()
        self.stderr = []
        self.rc = None
        self.done = threading.Event()
        self._stop = None
        # whether the transport reached the node and started the command there: a worker still waiting for
        # its SSH handshake (an sshd that hangs) has started nothing to hang or to clean up (userwalk22)
        self.started = None

    def put(self, ev):
        self.events.put(ev)

    def fail(self, kind, error):
        self.put({"event": "result", "ok": False, "error_kind": kind, "error": error, "transport_error": True})

    def next_event(self, deadline, want=("result",)):
        """The next event named in ``want`` before ``deadline`` (time.time()), else None. Past the deadline the
        events that already arrived are still read (without waiting): the probe waits for its workers one after
        another, so a hung node first in the list used up the deadline of every node after it, and their answers,
        in the queue since the first second, were dropped as hangs (slurm26: one silent node of four made all
        three others 'hang')."""
        while True:
            left = deadline - time.time()
            try:
                ev = self.events.get(timeout=min(left, 0.5)) if left > 0 else self.events.get_nowait()
            except queue.Empty:
                if left <= 0:
                    return None
                if self.done.is_set() and self.events.empty():
                    return self._ended_without(want)
                continue
            if ev.get("event") in want:
                return ev
            if ev.get("event") == "result":  # a result ends the worker's story
                return ev

    def _ended_without(self, want):
        tail = " | ".join(self.stderr[-3:])[-300:]
        if self.rc == 127:
            return {"event": "result", "ok": False, "error_kind": "python-missing",
                    "error": "the interpreter was not found on the node" + (": " + tail if tail else "")}
        if "python too old" in tail or "SyntaxError" in tail:
            return {"event": "result", "ok": False, "error_kind": "python-old", "error": tail}
        return {"event": "result", "ok": False, "error_kind": "died" if self.rc else "garbage",
                "error": "worker ended (exit %s) without a result%s%s" % (self.rc, ": " + tail if tail else "",
                                                                        credential_hint(tail))}

    def stop(self):
        if self._stop:
            try:
                self._stop()
            except Exception:
                pass


MAX_LINE = 4 << 20  # one event line: a result with 4,000 NCCL INFO lines is ~1 MB
MAX_BYTES = 16 << 20  # all of one worker's stdout: what a node can make the controller hold
MAX_EVENTS = 10000  # a worker says a few dozen things; more is a node streaming garbage
MAX_STDERR_LINE = 4 << 10  # one stderr line read (the last 50 are kept, 500 characters each)
KEPT_EVENTS = ("ready", "result")  # the events the controller acts on, the first of each; the rest are read, not kept
_KIND_RE = re.compile(r"^[a-z][a-z0-9-]{0,31}$")


def _one_line(text, limit=500):
    """A node's text as one printable line (node output is untrusted: no escape sequences)."""
    text = text if isinstance(text, str) else str(text)
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text[:limit])


def _clean(ev):
    """The event as the controller may use it, or None when its shape is not a probe worker's:
    an error kind is a short slug, an error one line, a port a port."""
    if ev.get("event") == "ready":
        port = ev.get("port")
        if port is not None and (type(port) is not int or not 0 < port < 65536):
            return None
        return ev
    if "error_kind" in ev and ev["error_kind"] is not None:
        if not isinstance(ev["error_kind"], str) or not _KIND_RE.match(ev["error_kind"]):
            return None
    if ev.get("error") is not None:
        ev["error"] = _one_line(ev["error"])
    if not isinstance(ev.get("ok"), bool):
        return None
    return ev


def _pump_lines(read_line, worker):
    """JSON events from a worker's stdout, bounded in bytes and in lines: node output is
    untrusted. A node that sends more than a worker does, a line that is not whole, a JSON line
    nested too deep for the parser or an event of the wrong shape is ``garbage``, and the worker
    is stopped. What is kept is the first ``ready`` and the first ``result`` (a line each, 4 MiB
    at most); the rest is read (16 MiB at most), counted and dropped."""
    count = total = 0
    kept = set()

    def garbage(why):
        worker.fail("garbage", "the worker %s; node output is cut off there" % why)
        worker.stop()

    for raw in iter(lambda: read_line(MAX_LINE), b""):
        count += 1
        total += len(raw)
        if count > MAX_EVENTS or total > MAX_BYTES or (len(raw) >= MAX_LINE and not raw.endswith(b"\n")):
            garbage("sent more output than a probe worker does (%d lines, %d MiB; the bounds are a line of "
                    "%d MiB, %d MiB in all, %d lines)" % (count, total >> 20, MAX_LINE >> 20, MAX_BYTES >> 20,
                                                         MAX_EVENTS))
            return
        line = raw.decode("utf-8", "replace").strip()
        if not line:
            continue
        try:
            ev = json.loads(line)
        except ValueError:
            ev = None
        except RecursionError:  # json's parser recurses per nesting level: no worker nests so deep
            garbage("sent a JSON line nested deeper than the parser follows")
            return
        if isinstance(ev, dict) and "event" in ev:
            if ev.get("event") not in KEPT_EVENTS or ev.get("event") in kept:
                continue
            kept.add(ev.get("event"))
            ev = _clean(ev)
            if ev is None:
                garbage("sent an event that is not a probe worker's (a wrong type or an unknown error kind)")
                return
            worker.put(ev)
        else:
            worker.stderr.append(_one_line(line))
            del worker.stderr[:-50]


def attach(p, w, script):
    """Feed ``script`` to a started worker process ``p`` on its stdin and read its events and
    stderr into ``w``, each in a daemon thread; ``w.done`` is set once it has exited. One
    way for every transport that starts workers as local processes (python, ssh, srun)."""

    def feed():
        try:
            p.stdin.write(script.encode())
            p.stdin.close()
        except OSError:
            pass

    def err():
        _pump_stderr(p.stderr.readline, w)

    def out():
        _pump_lines(p.stdout.readline, w)
        w.rc = p.wait()
        w.done.set()

    for fn in (feed, err, out):
        threading.Thread(target=fn, daemon=True).start()


def _pump_stderr(read_line, worker):
    for raw in iter(lambda: read_line(MAX_STDERR_LINE), b""):
        worker.stderr.append(_one_line(raw.decode("utf-8", "replace").rstrip()))
        del worker.stderr[:-50]


class LocalTransport(object):
    """This machine. ``addresses`` may name per-host addresses (default 127.0.0.1)."""

    name = "local"

    def __init__(self, python=None, addresses=None):
        import sys

        self.python = python or sys.executable
        self.addresses = addresses or {}

    def address(self, host):
        return self.addresses.get(host, "127.0.0.1")

    def start(self, host, script, token=None, timeout=None):
        # the worker's own watchdog ends it at its deadline; nothing outlives this machine's
        # controller here, so no `timeout` wrapper (its process would also carry the run token)
        w = Worker(host, None)
        env = dict(os.environ)
        if token:
            env[TOKEN_VAR] = token
        try:
            p = subprocess.Popen([self.python, "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, env=env, start_new_session=True)
        except OSError as exc:
            w.fail("python-missing", "%s: %s" % (self.python, exc.strerror or exc))
            w.done.set()
            return w

        attach(p, w, script)

        def stop():
            try:
                os.killpg(p.pid, 9)
            except OSError:
                pass

        w._stop = stop
        return w

    def cleanup(self, host, token, timeout):
        from gpudoctor.probe import node

        found, left = node.end_run(token, grace=min(2.0, max(0.2, timeout / 3)))
        return {"found": found, "left": left}

    def close(self):
        pass


# Cleanup runs as a POSIX shell script, not in the node's python: the interpreter may be the
# very thing that hangs. `grep -z` reads /proc/PID/environ (NUL-separated) in one process.
# `kill -s SIG -- -PGID` is the spelling both dash and bash accept for a process group
# (dash refuses `kill -SIG -- -PGID`).
CLEANUP_SH = r"""t='%(var)s=%(token)s'
run() { grep -lsazxF -- "$t" /proc/[0-9]*/environ 2>/dev/null | sed -n 's#^/proc/\([0-9]*\)/environ$#\1#p'; }
found=$(run | wc -l)
for sig in TERM KILL; do
  pids=$(run)
  [ -z "$pids" ] && break
  for p in $pids; do
    pg=$(sed 's/.*) //' /proc/$p/stat 2>/dev/null | cut -d' ' -f3)
    case " $(echo $pids) " in *" $pg "*) kill -s $sig -- -$pg 2>/dev/null ;; *) kill -s $sig $p 2>/dev/null ;; esac
  done
  i=0
  while [ $i -lt %(ticks)d ] && [ -n "$(run)" ]; do sleep 0.1; i=$((i+1)); done
done
echo "{\"event\": \"result\", \"ok\": true, \"found\": $found, \"left\": $(run | wc -l)}"
"""


class SshTransport(object):
    """Every node over SSH (fabric/paramiko), the options of ``gpudoctor check``."""

    name = "ssh"

    def __init__(self, hosts, python="python3", ssh_config=None, host_key_policy=None, connect_timeout=10.0):
        import logging

        from gpudoctor.transport import ssh as _ssh

        plog = logging.getLogger("paramiko")
        plog.addHandler(logging.NullHandler())
        plog.propagate = False
        self._ssh = _ssh
        self.python = python
        self.timeout = connect_timeout
        self.config = _ssh.make_config(ssh_config)
        self.policy = host_key_policy or os.environ.get("GPUDOCTOR_HOST_KEY_POLICY") or "accept-new"
        self.lock = threading.Lock()
        self._hostnames = {}
        self._impl = self._shared_connector(ssh_config)
        from fabric import Connection

        for h in hosts:  # resolved once, in this thread (Connection writes into the shared Config)
            self._hostnames[h] = Connection(h, config=self.config).host

    def address(self, host):
        """The address peers use: the HostName ssh_config gives the alias, else the name."""
        return self._hostnames.get(host, host)

    def _shared_connector(self, ssh_config):
        """The transport interface's SSH transport builds connections (ssh_config, known_hosts
        reading and hashing, the host-key policy) the way `check` does; the probe borrows it
        so that both reach nodes alike. None when that transport has no such method."""
        try:
            from gpudoctor.transport.ssh import SSHTransport
        except ImportError:
            return None
        if not hasattr(SSHTransport, "_connection"):
            return None
        impl = SSHTransport(ssh_config=ssh_config, host_key_policy=self.policy)
        impl.config, impl.policy = self.config, self.policy
        impl.build_lock, impl.known_lock = self.lock, threading.Lock()
        return impl

    def _connection(self, host):
        if self._impl is not None:
            return self._impl._connection(host, self.timeout)
        import paramiko
        from fabric import Connection

        with self.lock:
            c = Connection(host, config=self.config, connect_timeout=self.timeout,
                           connect_kwargs={"banner_timeout": self.timeout, "auth_timeout": self.timeout})
        known = self._ssh._known_hosts_path(c)
        if known and os.path.exists(known):
            try:
                c.client.load_host_keys(known)
            except (IOError, paramiko.SSHException):
                pass
        if self.policy == "strict":
            c.client.set_missing_host_key_policy(self._ssh._Strict())
        elif self.policy == "ignore":
            c.client.set_missing_host_key_policy(paramiko.WarningPolicy())
        else:
            c.client.set_missing_host_key_policy(self._ssh._AcceptNew(known, self.lock))
        return c

    def command(self, token=None, timeout=None):
        """The remote command: find the interpreter, mark the run in the environment, and run the
        script from stdin under coreutils `timeout -k` (as `check`'s collector runs,
        gpudoctor/transport/ssh.py): a worker whose controller was killed, or whose interpreter
        hangs before its own watchdog is armed, still ends. TERM 2 s after ``timeout`` (rounded
        up), KILL 2 s later; the worker's watchdog (at ``timeout``) comes first when it runs at all."""
        py = shlex.quote(self.python)
        env = ""
        if token:
            if not _TOKEN_RE.match(token):
                raise ValueError("bad probe token")
            env = "export %s=%s; " % (TOKEN_VAR, token)
        guard = ""
        if timeout:
            guard = "command -v timeout >/dev/null 2>&1 && exec timeout -k 2 %d %s -; " % (
                int(math.ceil(min(float(timeout), 86400))) + 2, py)
        return ("command -v %s >/dev/null 2>&1 || { echo 'gpudoctor: interpreter not found on PATH' >&2; exit 127; }; "
                "%s%sexec %s -" % (py, env, guard, py))

    def start(self, host, script, token=None, timeout=None):
        w = Worker(host, None)
        self._exec(w, self.command(token, timeout), script)
        return w

    def _exec(self, w, command, script):
        host = w.host
        state = {"conn": None, "chan": None}
        w.started = False  # until the command runs on the node (the handshake may hang)

        def run():
            conn = None
            try:
                conn = self._connection(host)
                state["conn"] = conn
                conn.open()
                chan = conn.client.get_transport().open_session()
                state["chan"] = chan
                chan.exec_command(command)
                w.started = True
                chan.sendall(script.encode())
                chan.shutdown_write()
                errs = []

                def err():
                    _pump_stderr(chan.makefile_stderr("rb").readline, w)
                    errs.append(1)

                t = threading.Thread(target=err, daemon=True)
                t.start()
                _pump_lines(chan.makefile("rb").readline, w)
                w.rc = chan.recv_exit_status()
                t.join(2)
            except Exception as exc:  # every failure becomes a classified node result
                kind, msg = self._ssh.classify(exc)
                w.fail(kind, msg)
            finally:
                w.done.set()
                try:
                    if conn is not None:
                        conn.close()
                except Exception:
                    pass

        threading.Thread(target=run, daemon=True).start()

        def stop():
            chan = state["chan"]
            if chan is not None:
                chan.close()  # the node's worker lives on without a pty: cleanup_run ends it

        w._stop = stop

    def cleanup(self, host, token, timeout):
        if not _TOKEN_RE.match(token):
            raise ValueError("bad probe token")
        w = Worker(host, "cleanup")
        script = CLEANUP_SH % {"var": TOKEN_VAR, "token": token, "ticks": int(max(2, min(20, timeout * 3)))}
        self._exec(w, "exec sh -s", script)
        ev = w.next_event(time.time() + timeout)
        if ev is None:
            w.stop()
            return {"error": "cleanup did not answer in %gs" % timeout}
        if not ev.get("ok"):
            return {"error": ev.get("error"), "error_kind": ev.get("error_kind")}
        return {"found": ev.get("found", 0), "left": ev.get("left", 0)}

    def close(self):
        pass


def start_worker(transport, host, config, token):
    """Start node.py with ``config`` on ``host``. The single seam between the probe and a
    transport: point it at the transport interface and nothing else in the probe changes."""
    w = transport.start(host, payload(config), token=token, timeout=config.get("hard_s"))
    w.role = config.get("role")
    return w


def cleanup_run(transport, hosts, token, timeout=15.0):
    """End every process of the run on every node, all nodes at once:
    {host: {"found", "left"} or {"error"}}."""
    from concurrent.futures import ThreadPoolExecutor

    def one(h):
        try:
            return transport.cleanup(h, token, timeout)
        except Exception as exc:  # reported per node; the others still get cleaned
            return {"error": "%s: %s" % (type(exc).__name__, exc)}

    if not hosts:
        return {}
    with ThreadPoolExecutor(max_workers=min(64, len(hosts))) as pool:
        return dict(zip(hosts, pool.map(one, hosts)))

"""Starting a probe worker on a node: the one place the probe touches a transport.

``start_worker(transport, host, config)`` sends node.py plus its config to the node's
interpreter on stdin (``python3 -``, as the collector travels: nothing is installed on the
node) and returns a ``Worker`` whose JSON events arrive on a queue. Two transports:
``LocalTransport`` (this machine, a subprocess in its own session) and ``SshTransport``
(fabric/paramiko, host keys and ssh_config as ``gpudoctor check`` uses them).

Every worker runs with ``GPUDOCTOR_PROBE_RUN=<token>`` in its environment, so
``cleanup_run`` can find and end everything a run started on a node (process groups first),
even a worker that hung before it said anything.
"""

import json
import os
import queue
import re
import shlex
import subprocess
import threading
import time

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

    def put(self, ev):
        self.events.put(ev)

    def fail(self, kind, error):
        self.put({"event": "result", "ok": False, "error_kind": kind, "error": error, "transport_error": True})

    def next_event(self, deadline, want=("result",)):
        """The next event named in ``want`` before ``deadline`` (time.time()), else None."""
        while True:
            left = deadline - time.time()
            if left <= 0:
                return None
            try:
                ev = self.events.get(timeout=min(left, 0.5))
            except queue.Empty:
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
                "error": "worker ended (exit %s) without a result%s" % (self.rc, ": " + tail if tail else "")}

    def stop(self):
        if self._stop:
            try:
                self._stop()
            except Exception:
                pass


MAX_LINE = 4 << 20  # one event line: a result with 4,000 NCCL INFO lines is ~1 MB
MAX_EVENTS = 10000  # a worker says a few dozen things; more is a node streaming garbage


def _pump_lines(read_line, worker):
    """JSON events from a worker's stdout, bounded: node output is untrusted."""
    count = 0
    for raw in iter(lambda: read_line(MAX_LINE), b""):
        count += 1
        if count > MAX_EVENTS or (len(raw) >= MAX_LINE and not raw.endswith(b"\n")):
            worker.fail("garbage", "the worker sent more output than a probe worker does (a line over %d MiB or "
                                   "%d lines)" % (MAX_LINE >> 20, MAX_EVENTS))
            worker.stop()
            return
        line = raw.decode("utf-8", "replace").strip()
        if not line:
            continue
        try:
            ev = json.loads(line)
        except ValueError:
            ev = None
        if isinstance(ev, dict) and "event" in ev:
            worker.put(ev)
        else:
            worker.stderr.append(line[:500])
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

    def start(self, host, script, token=None):
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

        def feed():
            try:
                p.stdin.write(script.encode())
                p.stdin.close()
            except OSError:
                pass

        def err():
            for raw in iter(p.stderr.readline, b""):
                w.stderr.append(raw.decode("utf-8", "replace").rstrip()[:500])
                del w.stderr[:-50]

        def out():
            _pump_lines(p.stdout.readline, w)
            w.rc = p.wait()
            w.done.set()

        for fn in (feed, err, out):
            threading.Thread(target=fn, daemon=True).start()

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

    def command(self, token=None):
        py = shlex.quote(self.python)
        env = ""
        if token:
            if not _TOKEN_RE.match(token):
                raise ValueError("bad probe token")
            env = "%s=%s " % (TOKEN_VAR, token)
        return ("command -v %s >/dev/null 2>&1 || { echo 'gpudoctor: interpreter not found on PATH' >&2; exit 127; }; "
                "%sexec %s -" % (py, env, py))

    def start(self, host, script, token=None):
        w = Worker(host, None)
        self._exec(w, self.command(token), script)
        return w

    def _exec(self, w, command, script):
        host = w.host
        state = {"conn": None, "chan": None}

        def run():
            conn = None
            try:
                conn = self._connection(host)
                state["conn"] = conn
                conn.open()
                chan = conn.client.get_transport().open_session()
                state["chan"] = chan
                chan.exec_command(command)
                chan.sendall(script.encode())
                chan.shutdown_write()
                errs = []

                def err():
                    f = chan.makefile_stderr("rb")
                    for raw in iter(f.readline, b""):
                        w.stderr.append(raw.decode("utf-8", "replace").rstrip()[:500])
                        del w.stderr[:-50]
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
    w = transport.start(host, payload(config), token=token)
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

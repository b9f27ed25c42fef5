"""Agentless fan-out over SSH (fabric/paramiko): ship the collector to every node, run it
with the node's python3, bring its facts back as JSON. Nothing is installed or left on
the node: the script travels on the session's stdin (``python3 -``).

One SSH session per node, a bounded pool of daemon workers, and a wall-clock deadline
per node that the main thread enforces too (a node that never finishes its handshake,
drips a line every few seconds, or streams output forever is cut off at --timeout).

Pitfalls this avoids: fabric's ``in_stream`` reads one byte per 10 ms (invoke's
``Runner.handle_stdin``), so the script is written to paramiko's channel directly;
``Connection`` objects are built under one lock because their constructor writes into
the shared Config; they are built lazily, by the worker that needs one, so 100,000 named
nodes do not cost minutes before the first connection.

Ending what a node runs: sshd starts a session's command in a new session (``setsid()``
in ``do_exec_no_pty``, session.c of openssh-portable 0ef0f5a8), so the login shell's pid
is the process group of everything the collector starts. The remote command prints it on
stderr (``gpudoctor-pgid N``) before ``exec``; on timeout, garbage or Ctrl-C the
controller opens a second channel on the same connection and runs ``kill -KILL -- -N``.
As a backstop for a controller that dies, the command runs under coreutils ``timeout``
(which signals its whole process group) when the node has it.
"""

import os
import queue
import re
import shlex
import socket
import threading
import time

from gpudoctor.transport import (HINTS, MAX_OUTPUT, MAX_STDERR, NOT_FOUND_MARK, READ_STDIN, ControllerError, Node,  # noqa: F401
                                 Payload, Transport, interpret, interrupted_node, is_fd_exhaustion, progress_bar,
                                 timeout_node, usable_jobs)

DEFAULT_JOBS = 64
_PGID = re.compile(rb"(?m)^gpudoctor-pgid (\d{1,10})\n")  # a whole line: never a partial read
GRACE = 3.0  # seconds past a node's deadline before the main thread gives up on its worker
KILL_SECONDS = 3.0  # bound on ending a node's process group
STOP_GRACE = 10.0  # seconds a node's watch window has, after Ctrl-C, to send what it sampled
# (3 s lost the samples on a loaded machine: a clean-clone CI run at 2.5x its usual wall time, ci31a, ended the
# local window's hand-back late and printed no samples; the window's end is a few reads: it ends well within this)


class _AcceptNew(object):
    """OpenSSH's StrictHostKeyChecking=accept-new: a first-seen key is recorded; a changed
    key is refused (paramiko raises BadHostKeyException before asking us)."""

    def __init__(self, path, lock, hash_hosts=False):
        self.path, self.lock, self.hash_hosts = path, lock, hash_hosts

    def missing_host_key(self, client, hostname, key):
        client.get_host_keys().add(hostname, key.get_name(), key)
        if self.path:
            with self.lock:  # threads of this run; record_host_key locks against other runs
                record_host_key(self.path, hostname, key, self.hash_hosts)


class _Strict(object):
    def missing_host_key(self, client, hostname, key):
        raise _UnknownHostKey(hostname)


class _UnknownHostKey(Exception):
    pass


class _Deadline(Exception):
    pass


def classify(exc):
    """(error_kind, one-line message) for an exception raised while reaching a node."""
    import paramiko

    text = str(exc) or type(exc).__name__
    if is_fd_exhaustion(exc):
        raise ControllerError("this machine ran out of file descriptors (%s): lower --jobs or raise ulimit -n" % text)
    if isinstance(exc, socket.gaierror):
        return "resolve", "name does not resolve (%s)" % exc.strerror
    # Python's IDNA codec refuses names DNS cannot carry ('x..y', a label over 63
    # characters) before any lookup: "label empty or too long"
    if isinstance(exc, UnicodeError) or "label empty or too long" in text:
        return "resolve", "not a name DNS can look up (%s)" % text
    if isinstance(exc, ConnectionRefusedError) or (
            isinstance(exc, paramiko.ssh_exception.NoValidConnectionsError) and "Unable to connect" in text):
        return "refused", "connection refused"
    if isinstance(exc, (socket.timeout, TimeoutError, _Deadline)):
        return "timeout", "timed out"
    if isinstance(exc, paramiko.BadHostKeyException):
        return "hostkey", "host key changed (got %s, known_hosts has %s)" % (
            exc.key.get_fingerprint().hex()[:16], exc.expected_key.get_fingerprint().hex()[:16])
    if isinstance(exc, _UnknownHostKey):
        return "hostkey-unknown", "host key of %s is not known" % exc
    if isinstance(exc, paramiko.AuthenticationException):
        return "auth", "authentication failed (publickey)"
    if isinstance(exc, paramiko.SSHException) and any(w in text.lower() for w in ("banner", "timeout", "timed out")):
        return "timeout", "SSH handshake timed out (%s)" % text
    if isinstance(exc, OSError) and exc.errno in (101, 113):
        return "unreachable", "no route to host"
    if isinstance(exc, EOFError) or "reset" in text.lower():
        return "ssh", "connection closed during the handshake (%s)" % text
    return "ssh", "%s: %s" % (type(exc).__name__, text[:300])


def remote_command(python, options=None, timeout=None):
    """The command sshd runs (through the user's shell): find the interpreter, say the
    process group, run the script from stdin. Only the 'not found' mark on stderr means
    python is missing (exit 127 alone can come from anywhere). The collector's options
    travel in the script (with_options), not here: sshd runs this as one argument of
    `sh -c`, which Linux bounds at 128 KiB (MAX_ARG_STRLEN), and 10,000 node names for
    the resolve section are more than that. `options` is accepted for callers of the old
    signature and never reaches the command line."""
    py = shlex.quote(python)
    run = "%s -c %s" % (py, shlex.quote(READ_STDIN))  # the script from stdin (READ_STDIN says why not `-`)
    guard = ""
    if timeout:
        guard = "command -v timeout >/dev/null 2>&1 && exec timeout -k 2 %d %s; " % (int(timeout) + 5, run)
    return ("command -v %s >/dev/null 2>&1 || { echo %s >&2; exit 127; }; echo \"gpudoctor-pgid $$\" >&2; %sexec %s"
            % (py, shlex.quote("%s %s" % (NOT_FOUND_MARK, python)), guard, run))


def with_options(script, options):
    """The script with the collector's arguments set in it: one line after the first (the
    bundle's coding line must stay first for Python 2 to reach its "too old" message)."""
    import json

    args = []
    for k, v in sorted(options.items()):
        args += ["--set", "%s=%s" % (k, json.dumps(v))]
    first, _, rest = script.partition("\n")
    return "%s\nimport sys, json; sys.argv = sys.argv[:1] + json.loads(%r)\n%s" % (
        first, json.dumps(args), rest)


def make_config(ssh_config=None):
    """fabric's Config over the ssh config files it will read (--ssh-config alone, else
    /etc/ssh/ssh_config and ~/.ssh/config), checked first: a line OpenSSH or fabric would
    refuse (`Port` with no value, `Port ssh22`) is one input error naming file and line,
    not a traceback from fabric's parser or from int() in Connection()."""
    from fabric import Config

    from gpudoctor.errors import InputError, excerpt, missing

    if ssh_config and not os.path.lexists(ssh_config):  # a FIFO or a device: refused below, saying what it is
        raise InputError("--ssh-config %s: %s" % (ssh_config, missing(ssh_config)))
    for path in [ssh_config] if ssh_config else ["/etc/ssh/ssh_config", os.path.expanduser("~/.ssh/config")]:
        _check_ssh_config(path)
    # (user's first, then the system's: ssh takes the first value it obtains; -F's file is a user config)
    text, included = _flattened([(ssh_config, False)] if ssh_config else [
        (os.path.expanduser("~/.ssh/config"), False), ("/etc/ssh/ssh_config", True)])
    try:
        if included:
            import io

            from paramiko import SSHConfig

            parsed = SSHConfig()
            parsed.parse(io.StringIO(text))  # (SSHConfig.from_text is paramiko >= 2.7; fabric 3.2 takes 2.4)
            return Config(ssh_config=parsed)
        return Config(runtime_ssh_path=ssh_config) if ssh_config else Config()
    except Exception as exc:  # paramiko's ConfigParseError, or what its parser meets past ours
        raise InputError("ssh config %s: %s" % (ssh_config or "~/.ssh/config", excerpt(exc, 120)))


class _Slot(object):
    """One node in flight: what the main thread needs to end it."""

    def __init__(self, host):
        self.host = host
        self.started = time.time()
        self.conn = None
        self.pgid = None
        self.exec_started = False  # the remote command runs: a pgid line is on its way
        self.sent = self.received = None  # the window the facts came in (transport.stamp)
        self.lock = threading.Lock()


class SSHTransport(Transport):
    name = "ssh"

    def run(self, hosts, payload):
        """Facts of every host, in the order given. KeyboardInterrupt carries
        `.partial_nodes` (every host; the unfinished ones `interrupted`)."""
        import logging

        from gpudoctor.inventory import validate_host

        for h in hosts:  # names from the Python API too: never an option or a shell word
            validate_host(h.name, h.source or "host")
        # paramiko logs handshake failures (with tracebacks) from its threads; we classify
        # them per node instead.
        plog = logging.getLogger("paramiko")
        plog.addHandler(logging.NullHandler())
        plog.propagate = False

        self.payload = payload
        self.script = payload.get_script()
        self.config = make_config(self.settings.get("ssh_config"))
        self.policy = self.settings.get("host_key_policy") or os.environ.get("GPUDOCTOR_HOST_KEY_POLICY") or "accept-new"
        self.build_lock = threading.Lock()
        self.known_lock = threading.Lock()
        jobs = usable_jobs(self.jobs, len(hosts))

        todo = queue.Queue()
        for h in hosts:
            todo.put(h.name)
        done_q = queue.Queue()
        slots = {}  # in flight; record() removes a node once it has its result
        started = set()
        stop = threading.Event()

        def worker():
            while not stop.is_set():
                try:
                    name = todo.get_nowait()
                except queue.Empty:
                    return
                slot = _Slot(name)
                slots[name] = slot
                started.add(name)
                try:
                    node = self._one(slot)
                except ControllerError as exc:
                    done_q.put((name, exc))
                    return
                except BaseException as exc:  # never lose a node to a bug in one worker
                    node = Node(host=name, error="%s: %s" % (type(exc).__name__, str(exc)[:300]), error_kind="ssh")
                done_q.put((name, node))

        threads = [threading.Thread(target=worker, name="gpudoctor-ssh-%d" % i, daemon=True) for i in range(jobs)]
        results = {}
        bar = None

        def record(name, node):
            if name in results:
                return
            results[name] = node
            flying.pop(name, None)
            if bar:
                bar.advance(node)

        flying = slots  # nodes started and not yet recorded (at most `jobs`)
        next_sweep = 0.0
        try:
            # the workers start inside the try: a Ctrl-C / SIGTERM while the progress bar is made (rich's import,
            # a while on a loaded machine) found the workers connecting and no partial nodes (probe printed only
            # 'gpudoctor: interrupted'; tests/test_userwalk22.py's SIGTERM case, once in a clean-clone suite)
            for t in threads:
                t.start()
            bar = progress_bar(self.progress, len(hosts))
            while len(results) < len(hosts):
                try:
                    name, node = done_q.get(timeout=0.2)
                except queue.Empty:
                    name = None
                if name is not None:
                    if isinstance(node, ControllerError):
                        stop.set()
                        raise node
                    record(name, node)
                now = time.time()
                if now >= next_sweep:  # the backstop: a worker stuck past its deadline
                    next_sweep = now + 0.2
                    for s in list(flying.values()):
                        if s.host not in results and now > s.started + self.timeout + GRACE:
                            record(s.host, timeout_node(s.host, self.timeout))
                            threading.Thread(target=self._end, args=(s,), daemon=True).start()
                if name is None and not any(t.is_alive() for t in threads) and done_q.empty():
                    for h in hosts:  # every worker gone (a controller error already raised)
                        if h.name not in results:
                            record(h.name, Node(host=h.name, error="not gathered", error_kind="ssh"))
        except KeyboardInterrupt as exc:
            stop.set()
            if bar:
                bar.stop()
                bar = None
            live = [s for s in list(flying.values()) if s.host not in results]
            try:
                # a second signal (timeout -s INT sends two) must not end the bounded stop and cleanup mid-way
                from gpudoctor.deadline import held_interrupts

                with held_interrupts():
                    if isinstance((self.payload.options or {}).get("watch"), dict) and live:
                        live = self._stop_windows(live, done_q, results)  # watch: what each node sampled so far
                    self._end_all(live)
            except KeyboardInterrupt:  # one that came before the hold began
                self._end_all(live)
            exc.partial_nodes = [results.get(h.name) or interrupted_node(h.name, started=h.name in started)
                                 for h in hosts]
            raise
        finally:
            stop.set()
            if bar:
                bar.stop()
        return [results[h.name] for h in hosts]

    # -- one node ---------------------------------------------------------------------

    def _connection(self, name, timeout):
        import paramiko
        from fabric import Connection

        with self.build_lock:  # Connection.__init__ writes into the shared Config
            c = Connection(name, config=self.config, connect_timeout=timeout,
                           connect_kwargs={"banner_timeout": timeout, "auth_timeout": timeout})
        known = _known_hosts_path(c)
        if known and os.path.exists(known):
            load_known_hosts(c.client, known)
        if self.policy == "strict":
            c.client.set_missing_host_key_policy(_Strict())
        elif self.policy == "ignore":
            c.client.set_missing_host_key_policy(paramiko.WarningPolicy())
        else:
            c.client.set_missing_host_key_policy(_AcceptNew(known, self.known_lock, _hash_known_hosts(c)))
        return c

    def _one(self, slot):
        deadline = slot.started + self.timeout
        python = self.payload.python or "python3"
        cmd = remote_command(python, timeout=self.timeout)
        script = with_options(self.script, self.payload.options_for(slot.host)).encode("utf-8")
        conn = None
        try:
            conn = slot.conn = self._connection(slot.host, max(1.0, deadline - time.time()))
            conn.open()
            rc, out, err, truncated = self._exchange(slot, conn, cmd, script, deadline)
        except Exception as exc:  # every failure becomes a classified node result
            kind, msg = classify(exc)
            if isinstance(exc, _Deadline):
                self._end(slot)
                return timeout_node(slot.host, self.timeout, str(exc) or "no facts")
            if kind == "ssh" and "No existing session" in msg and time.time() >= deadline - 1:
                kind, msg = "timeout", ("the SSH handshake did not finish within %gs (sshd hangs, or a firewall "
                                        "drops it)" % self.timeout)
            return Node(host=slot.host, error=msg, error_kind=kind)
        finally:
            if conn is not None:
                try:
                    conn.close()
                except Exception:
                    pass
        return interpret(slot.host, rc, out, err, python, truncated=truncated,
                         window=("ssh", slot.sent, slot.received))

    def _exchange(self, slot, conn, cmd, script, deadline):
        """Run cmd, write the script, read stdout (at most MAX_OUTPUT bytes) and the tail
        of stderr, all before `deadline` (wall clock)."""
        transport = conn.client.get_transport()
        chan = transport.open_session(timeout=max(0.5, deadline - time.time()))
        chan.settimeout(0.2)
        slot.sent = time.time()  # before the collector can start: the window's start (transport.stamp)
        chan.exec_command(cmd)
        slot.exec_started = True
        out, err = bytearray(), bytearray()

        def drain_err():
            while chan.recv_stderr_ready():
                err.extend(chan.recv_stderr(65536))
                if slot.pgid is None:  # after whatever the login shell's rc files printed
                    m = _PGID.search(bytes(err[:8192]))
                    if m and int(m.group(1)) > 1:  # `kill -- -1` would mean every process of the user
                        slot.pgid = int(m.group(1))
                if len(err) > MAX_STDERR:
                    del err[:len(err) - MAX_STDERR // 2]

        def check():
            if time.time() >= deadline:
                raise _Deadline("no facts")

        data, off = script, 0
        while off < len(data):
            check()
            drain_err()
            try:
                off += chan.send(data[off:off + 32768])
            except socket.timeout:
                continue
            except (EOFError, OSError):
                # the remote command stopped reading (python missing, the shell exited): its exit
                # status and stderr say why, not this broken pipe (a race: 1 run in 5 said 'ssh')
                break
            if chan.closed or chan.exit_status_ready():
                break
        try:
            chan.shutdown_write()
        except (EOFError, OSError):
            pass
        truncated = False
        while True:
            check()
            drain_err()
            try:
                chunk = chan.recv(65536)
            except socket.timeout:
                continue
            if not chunk:
                slot.received = time.time()  # all of stdout: the node read its clock before this
                break
            out.extend(chunk)
            if len(out) > MAX_OUTPUT:  # a node streaming forever: garbage, and ended
                truncated = True
                self._end(slot, close=False)
                return None, b"", "", True
        while not chan.exit_status_ready():
            check()
            drain_err()
            chan.status_event.wait(0.2)
        drain_err()
        return chan.recv_exit_status(), bytes(out), bytes(err).decode("utf-8", "replace"), truncated

    def _end_all(self, live):
        enders = [threading.Thread(target=self._end, args=(s,), daemon=True) for s in live]
        for t in enders:
            t.start()
        t_end = time.time() + KILL_SECONDS
        for t in enders:
            t.join(max(0.0, t_end - time.time()))

    def _stop_windows(self, live, done_q, results):
        """Ctrl-C during `gpudoctor watch`: each node's collector is sent SIGINT (collector/watch.py STOP_SIGNAL: its
        window ends and it prints what it sampled; through timeout(1) where it runs under it) and given STOP_GRACE
        seconds; the nodes that answered with their samples go into ``results``. Returns the slots still to end."""
        from gpudoctor.collector.watch import STOP_SIGNAL

        t_end = time.time() + 1.5
        while any(s.pgid is None and s.exec_started for s in live) and time.time() < t_end:
            time.sleep(0.05)  # a node whose collector just started: its worker reads the pgid line within 0.2 s
        sent = []  # each node on its own thread, bounded together: a slow node does not hold up the others

        def send(slot):
            if self._signal(slot, STOP_SIGNAL[3:]):
                sent.append(slot.host)

        senders = [threading.Thread(target=send, args=(s,), daemon=True) for s in live if s.pgid]
        for t in senders:
            t.start()
        t_end = time.time() + KILL_SECONDS
        for t in senders:
            t.join(max(0.0, t_end - time.time()))
        signalled = list(sent)
        t_end = time.time() + STOP_GRACE
        while signalled and any(h not in results for h in signalled) and time.time() < t_end:
            try:
                name, node = done_q.get(timeout=max(0.01, min(0.2, t_end - time.time())))
            except queue.Empty:
                continue
            if name in signalled and isinstance(node, Node) and node.reachable and (
                    (node.facts or {}).get("watch") or {}).get("status") == "ok":
                results[name] = node
        return [s for s in live if s.host not in results]

    def _signal(self, slot, name):
        """kill -NAME PID on the node over a second channel: the process the remote command exec'd (the collector,
        or timeout(1) running it, which passes SIGINT on); True when the kill ran."""
        try:
            t = slot.conn.client.get_transport() if slot.conn is not None else None
            if t is None or not t.is_active():
                return False
            ch = t.open_session(timeout=KILL_SECONDS)
            ch.exec_command("kill -%s %d 2>/dev/null; true" % (name, slot.pgid))
            ch.status_event.wait(KILL_SECONDS)
            ch.close()
            return True
        except Exception:  # the node is gone or the connection broke: it is ended as before
            return False

    def _end(self, slot, close=True):
        """End the node's remote process group, then the connection. Bounded in time."""
        t_end = time.time() + 1.5
        while slot.pgid is None and slot.exec_started and time.time() < t_end:
            time.sleep(0.05)  # the worker reads the pgid line within its 0.2 s read loop
        with slot.lock:
            conn = slot.conn
            try:
                if conn is not None and slot.pgid:
                    t = conn.client.get_transport()
                    if t is not None and t.is_active():
                        ch = t.open_session(timeout=KILL_SECONDS)
                        ch.exec_command("kill -KILL -- -%d 2>/dev/null; true" % slot.pgid)
                        ch.status_event.wait(KILL_SECONDS)
                        ch.close()
            except Exception:  # the node is gone or the connection broke: nothing more to do
                pass
            if close and conn is not None:
                try:
                    conn.close()
                except Exception:
                    pass


def gather(hosts, python="python3", jobs=None, timeout=30.0, ssh_config=None, host_key_policy=None,
           progress=True, options=None, per_host_options=None):
    """The old entry point, kept for callers of the SSH-only signature: prefer
    gpudoctor.transport.run(hosts, Payload(...), via="ssh", ...)."""
    t = SSHTransport(jobs=jobs, timeout=timeout, progress=progress, ssh_config=ssh_config,
                     host_key_policy=host_key_policy)
    return t.run(hosts, Payload(python=python, options=dict(options or {}),
                                per_host_options=dict(per_host_options or {})))


MAX_SSH_FILE = 16 << 20  # bytes of an ssh config or known_hosts file read; a large known_hosts is a few MB


_INCLUDE = re.compile(r"^\s*include(?:\s*=\s*|\s+)(.*)$", re.I)
_BLOCK = re.compile(r"^\s*(?:host|match)(?:\s*=\s*|\s+)", re.I)
MAX_INCLUDE_DEPTH = 16  # OpenSSH readconf.c READCONF_MAX_DEPTH: "Too many recursive configuration includes"
# Files read and bytes kept for one flattening, every inclusion counted (the same file included twice is read twice):
# 16 levels each including the next level three times are 3**16 (43 million) reads, which kept `gpudoctor check`
# (and OpenSSH's own `ssh -G`) busy past any deadline (docs/security.md 61.). Debian's /etc/ssh/ssh_config.d and a
# user's ~/.ssh/config.d hold a few files.
MAX_INCLUDED_FILES = 4096
# folder entries an Include's glob patterns may look at in all: `Include /*/*/*/*/*/*/*/x` walked the whole file
# system (/proc too), more than 100 s here before a node was tried (glob(3) in OpenSSH does the same)
MAX_GLOB_ENTRIES = 100000
MAX_FLATTENED = 4 * MAX_SSH_FILE


def _flattened(paths):
    """(text, whether any Include was met) of the ssh config files ``paths`` [(path, is_system)], each Include
    replaced by the files it names. paramiko's parser (5.1) has no Include and skipped the line: every Host of
    `Include ~/.ssh/config.d/*` (and of Debian's /etc/ssh/ssh_config, `Include /etc/ssh/ssh_config.d/*.conf`) was
    unknown, and each node 'did not resolve' where ssh reached it (userwalk23). As ssh_config(5): several paths per
    line, glob(7) patterns (sorted), ~ expanded, a relative path under ~/.ssh (a user's file) or /etc/ssh (the
    system's); a file that is not there is skipped; an Include inside a Host or Match block includes under it, and
    after the included text the block it was met in goes on (that line again, or `Host *` at the top level)."""
    from gpudoctor.errors import InputError, open_input

    out, met, count = [], [False], [0, 0, 0]

    def read(path):
        count[0] += 1
        if count[0] > MAX_INCLUDED_FILES:
            raise InputError("ssh config %s: Include reads more than %d files in all (each inclusion counted)"
                             % (path, MAX_INCLUDED_FILES))
        try:
            _check_ssh_config(path)  # refused with file:line as for the top files
            with open_input(path, "ssh config") as f:
                return f.read(MAX_SSH_FILE).decode("utf-8")
        except InputError:
            raise
        except (OSError, UnicodeDecodeError):
            return None

    def walk(path, system, depth, outer):
        if depth > MAX_INCLUDE_DEPTH:
            raise InputError("ssh config %s: Include nested more than %d deep (ssh refuses it too)"
                             % (path, MAX_INCLUDE_DEPTH))
        text = read(path) if path and os.path.isfile(path) else None
        if text is None:
            return
        count[1] += len(text)
        if count[1] > MAX_FLATTENED:
            raise InputError("ssh config %s: Include makes the configuration more than %d MiB in all"
                             % (path, MAX_FLATTENED >> 20))
        block = outer
        for line in text.splitlines():
            m = _INCLUDE.match(line)
            if not m:
                if _BLOCK.match(line):
                    block = line
                out.append(line)
                continue
            met[0] = True
            try:
                words = shlex.split(m.group(1), comments=True)
            except ValueError:
                words = m.group(1).split()
            for word in words:
                pattern = os.path.expanduser(word)
                if not os.path.isabs(pattern):
                    pattern = os.path.join("/etc/ssh" if system else os.path.expanduser("~/.ssh"), pattern)
                for inc in _bounded_glob(pattern, count):
                    walk(inc, system, depth + 1, block)
                    out.append(block or "Host *")

    for path, system in paths:
        walk(path, system, 0, None)
    return "\n".join(out) + "\n", met[0]


def _bounded_glob(pattern, count):
    """glob.glob(pattern), sorted (glob(7) as OpenSSH's Include reads it: a leading dot is matched only by a dot),
    looking at no more than MAX_GLOB_ENTRIES folder entries in all (``count[2]`` keeps the total over one
    flattening), else an input error."""
    import fnmatch
    import glob

    from gpudoctor.errors import InputError

    if not glob.has_magic(pattern):
        return [pattern] if os.path.lexists(pattern) else []
    parts = [p for p in pattern.split(os.sep) if p]
    found = [os.sep if pattern.startswith(os.sep) else ""]
    for k, part in enumerate(parts):
        last = k == len(parts) - 1
        nxt = []
        for top in found:
            if not glob.has_magic(part):
                path = os.path.join(top, part)
                if os.path.lexists(path) if last else os.path.isdir(path):
                    nxt.append(path)
                continue
            try:
                with os.scandir(top or ".") as it:
                    for entry in it:
                        count[2] += 1
                        if count[2] > MAX_GLOB_ENTRIES:
                            raise InputError("ssh config: Include %s looks at more than %d folder entries"
                                             % (pattern[:200], MAX_GLOB_ENTRIES))
                        if entry.name.startswith(".") and not part.startswith("."):
                            continue
                        if fnmatch.fnmatchcase(entry.name, part) and (last or entry.is_dir()):
                            nxt.append(os.path.join(top, entry.name))
            except OSError:
                continue
        found = nxt
    return sorted(found)


def _check_ssh_config(path):
    from gpudoctor.collector.ssh import ssh_config_problems
    from gpudoctor.errors import InputError, NotRegularFile, open_input

    try:
        # a regular file only (gpudoctor/errors.py): a FIFO here blocked fabric's own read forever
        with open_input(path, "ssh config") as f:
            data = f.read(MAX_SSH_FILE)
    except NotRegularFile:
        raise
    except (OSError, InputError):
        return  # absent or unreadable: fabric skips it too
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("ssh config %s is not text (UTF-8)" % path)
    problems = ssh_config_problems(text)
    if problems:
        n, why = problems[0]
        more = " (and %d more)" % (len(problems) - 1) if len(problems) > 1 else ""
        raise InputError("ssh config %s:%d: %s%s" % (path, n, why, more))


def _hash_known_hosts(conn):
    """ssh_config(5) HashKnownHosts: names recorded in known_hosts are hashed."""
    try:
        return str(conn.ssh_config.get("hashknownhosts", "no")).lower() == "yes"
    except Exception:
        return False


def load_known_hosts(client, path):
    """Load the readable lines of a known_hosts file into the client; skip the others, as
    OpenSSH does (hostfile.c: "skipping bad key"). paramiko's own load_host_keys raises on
    one bad base64 line and on non-UTF-8 bytes (UnicodeDecodeError), losing every key.
    Returns [(line, why)] of the lines skipped."""
    from paramiko.hostkeys import HostKeyEntry

    from gpudoctor.collector.ssh import parse_known_hosts

    from gpudoctor.errors import InputError, open_input

    try:
        with open_input(path, "known_hosts") as f:  # a regular file only: a FIFO would block
            data = f.read(MAX_SSH_FILE)
    except OSError as exc:
        return [(0, exc.strerror or str(exc))]
    except InputError as exc:
        return [(0, str(exc))]
    entries, bad = parse_known_hosts(data)
    keys = client.get_host_keys()
    for n, marker, hosts, ktype, b64 in entries:
        if marker:  # @cert-authority / @revoked: paramiko's HostKeys has no notion of them either
            continue
        try:
            entry = HostKeyEntry.from_line("%s %s %s" % (hosts, ktype, b64), n)
        except Exception as exc:  # a key type paramiko cannot read, a bad key encoding
            bad.append((n, "%s" % type(exc).__name__))
            continue
        if entry is None:
            continue
        # as paramiko/hostkeys.py (5.1) HostKeys.load does: drop names already known with this key
        entry.hostnames = [h for h in entry.hostnames if not keys.check(h, entry.key)]
        if entry.hostnames:
            keys._entries.append(entry)
    return bad


def record_host_key(path, hostname, key, hashed=False):
    """Append one accept-new key to known_hosts: under an exclusive flock (two gpudoctor
    runs at once wrote the same key twice), only when no line for this name and key is
    there yet, and with the name hashed when HashKnownHosts is yes."""
    import fcntl

    from gpudoctor.collector.ssh import hash_host, parse_known_hosts

    d = os.path.dirname(path)
    if d and not os.path.isdir(d):
        os.makedirs(d, mode=0o700, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "rb+") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)  # released when the file is closed
        f.seek(0)
        entries, _ = parse_known_hosts(f.read(MAX_SSH_FILE))
        blob = key.get_base64()
        for _, marker, hosts, ktype, b64 in entries:
            if marker is None and ktype == key.get_name() and b64 == blob and _names_match(hosts, hostname):
                return False
        name = hash_host(hostname, os.urandom(20)) if hashed else hostname
        f.write(("%s %s %s\n" % (name, key.get_name(), blob)).encode("ascii"))
        f.flush()
        return True


def _names_match(hosts, hostname):
    import base64
    import binascii

    from gpudoctor.collector.ssh import hash_host

    if hosts.startswith("|1|"):
        try:
            salt = base64.b64decode(hosts.split("|")[2], validate=True)
        except (binascii.Error, ValueError, IndexError):
            return False
        return hash_host(hostname, salt) == hosts
    return hostname in hosts.split(",")


def _known_hosts_path(conn):
    files = conn.ssh_config.get("userknownhostsfile")
    if files:
        return os.path.expanduser(files.split()[0])
    return os.path.expanduser("~/.ssh/known_hosts")

"""Agentless fan-out: ship the collector to every node over SSH (fabric/paramiko), run it
with the node's python3, bring its facts back as JSON. Nothing is installed or left on
the node: the script travels on the session's stdin (``python3 -``).

One SSH session per node, a bounded pool of workers, a deadline per node, and every
failure classified, so that one bad node never stops the others.

Pitfalls this avoids (reference/testbed.md): fabric's ``in_stream`` reads one byte per
10 ms, so the script is written to paramiko's channel directly; ``Connection`` objects
are built in one thread because their constructor writes into a shared Config.
"""

import json
import os
import shlex
import socket
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

from gpudoctor.runner import Node

DEFAULT_JOBS = 64
TOO_OLD_MARK = "gpudoctor: python too old:"

# Error kinds (the JSON report's nodes[].error_kind), each with the fix a person needs.
HINTS = {
    "resolve": "the name does not resolve from this machine: check /etc/hosts or DNS, or the Host alias in ~/.ssh/config",
    "refused": "nothing listens on the SSH port: is sshd running there, and is the Port right (~/.ssh/config)?",
    "timeout": "no answer in time: the node is down, a firewall drops the traffic, or sshd hangs",
    "unreachable": "no route to the node: check the network and the address",
    "auth": "public-key authentication failed: ssh-copy-id the key to the node, and check ~/.ssh modes there "
            "(700 for ~/.ssh, 600 for authorized_keys)",
    "hostkey": "the node's host key changed since it was recorded in known_hosts: if the node was reinstalled, "
               "remove the old key with ssh-keygen -R HOST; otherwise this may be an attack",
    "hostkey-unknown": "the node's host key is not in known_hosts and --host-key-policy=strict: ssh to it once, "
                       "or use --host-key-policy accept-new",
    "python-missing": "no python3 on the node's PATH: install python3 (3.6+) or pass --python /path/to/python",
    "python-old": "the node's python is older than 3.6: pass --python with a newer interpreter",
    "collector": "the collector failed on the node (see the error)",
    "garbage": "the node answered with something that is not facts JSON: a login banner or a python3 wrapper "
               "printing to stdout?",
    "ssh": "the SSH session failed",
    "interrupted": "gathering was interrupted before this node answered",
}


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


def classify(exc):
    """(error_kind, one-line message) for an exception raised while reaching a node."""
    import paramiko

    text = str(exc) or type(exc).__name__
    if isinstance(exc, socket.gaierror):
        return "resolve", "name does not resolve (%s)" % exc.strerror
    if isinstance(exc, ConnectionRefusedError) or (
            isinstance(exc, paramiko.ssh_exception.NoValidConnectionsError) and "Unable to connect" in text):
        return "refused", "connection refused"
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return "timeout", "timed out"
    if isinstance(exc, paramiko.BadHostKeyException):
        return "hostkey", "host key changed (got %s, known_hosts has %s)" % (
            exc.key.get_fingerprint().hex()[:16], exc.expected_key.get_fingerprint().hex()[:16])
    if isinstance(exc, _UnknownHostKey):
        return "hostkey-unknown", "host key of %s is not known" % exc
    if isinstance(exc, paramiko.AuthenticationException):
        return "auth", "authentication failed (publickey)"
    if isinstance(exc, paramiko.SSHException) and ("banner" in text.lower() or "timeout" in text.lower()):
        return "timeout", "SSH handshake timed out (%s)" % text
    if isinstance(exc, OSError) and exc.errno in (101, 113):
        return "unreachable", "no route to host"
    if isinstance(exc, EOFError) or "reset" in text.lower():
        return "ssh", "connection closed during the handshake (%s)" % text
    return "ssh", "%s: %s" % (type(exc).__name__, text)


def remote_command(python, options):
    """The command sshd runs (through the user's shell): find the interpreter, run the
    script from stdin. Exit 127 means 'no such python'."""
    args = " ".join("--set %s" % shlex.quote("%s=%s" % (k, json.dumps(v))) for k, v in sorted(options.items()))
    py = shlex.quote(python)
    return ("command -v %s >/dev/null 2>&1 || { echo 'gpudoctor: %s not found on PATH' >&2; exit 127; }; "
            "exec %s - %s" % (py, python.replace("'", ""), py, args))


def _run_one(conn, script, command, deadline):
    """Open the session, write the script to stdin, read facts. Raises on SSH trouble."""
    conn.open()
    remaining = max(1.0, deadline - time.time())
    stdin, stdout, stderr = conn.client.exec_command(command, timeout=remaining)
    stdin.write(script)
    stdin.flush()
    stdin.channel.shutdown_write()
    out = stdout.read()
    err = stderr.read()
    rc = stdout.channel.recv_exit_status()
    return rc, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def _interpret(host, rc, out, err, python):
    err_tail = err.strip().splitlines()[-1] if err.strip() else ""
    if rc == 127:
        return Node(host=host, error="%s not found on the node" % python, error_kind="python-missing")
    if TOO_OLD_MARK in err:
        return Node(host=host, error=err_tail, error_kind="python-old")
    if rc != 0:
        return Node(host=host, error="collector exited %s: %s" % (rc, err_tail[:300]), error_kind="collector")
    try:
        doc = json.loads(out.strip().splitlines()[-1]) if out.strip() else None
    except ValueError:
        doc = None
    if not isinstance(doc, dict) or doc.get("schema") != "gpudoctor.facts/1":
        shown = out.strip()[:80].replace("\n", " ")
        return Node(host=host, error="not facts JSON: %r" % shown, error_kind="garbage")
    doc["node"] = host
    return Node(host=host, facts=doc)


def make_config(ssh_config=None):
    """fabric's Config over the ssh config files it will read (--ssh-config alone, else
    /etc/ssh/ssh_config and ~/.ssh/config), checked first: a line OpenSSH or fabric would
    refuse (`Port` with no value, `Port ssh22`) is one input error naming file and line,
    not a traceback from fabric's parser or from int() in Connection()."""
    from fabric import Config

    from gpudoctor.errors import InputError, excerpt

    if ssh_config and not os.path.isfile(ssh_config):
        raise InputError("--ssh-config %s: no such file" % ssh_config)
    for path in [ssh_config] if ssh_config else ["/etc/ssh/ssh_config", os.path.expanduser("~/.ssh/config")]:
        _check_ssh_config(path)
    try:
        return Config(runtime_ssh_path=ssh_config) if ssh_config else Config()
    except Exception as exc:  # paramiko's ConfigParseError, or what its parser meets past ours
        raise InputError("ssh config %s: %s" % (ssh_config or "~/.ssh/config", excerpt(exc, 120)))


def gather(hosts, python="python3", jobs=None, timeout=30.0, ssh_config=None, host_key_policy=None,
           progress=True, options=None, per_host_options=None):
    """Facts of every host, in the order given. KeyboardInterrupt carries `.partial_nodes`."""
    import logging

    import paramiko
    from fabric import Connection

    from gpudoctor.collector.bundle import build_script

    # paramiko logs handshake failures (with tracebacks) from its threads; we classify
    # them per node instead.
    plog = logging.getLogger("paramiko")
    plog.addHandler(logging.NullHandler())
    plog.propagate = False

    script = build_script()
    config = make_config(ssh_config)
    policy_name = host_key_policy or os.environ.get("GPUDOCTOR_HOST_KEY_POLICY") or "accept-new"
    lock = threading.Lock()
    conns = {}
    for h in hosts:  # built in this thread: Connection.__init__ writes into the shared Config
        c = Connection(h.name, config=config, connect_timeout=timeout,
                       connect_kwargs={"banner_timeout": timeout, "auth_timeout": timeout})
        known = _known_hosts_path(c)
        if known and os.path.exists(known):
            load_known_hosts(c.client, known)
        if policy_name == "strict":
            c.client.set_missing_host_key_policy(_Strict())
        elif policy_name == "ignore":
            c.client.set_missing_host_key_policy(paramiko.WarningPolicy())
        else:
            c.client.set_missing_host_key_policy(_AcceptNew(known, lock, _hash_known_hosts(c)))
        conns[h.name] = c

    def work(h):
        deadline = time.time() + timeout
        opts = dict(options or {})
        opts.update((per_host_options or {}).get(h.name, {}))
        opts["node"] = h.name
        cmd = remote_command(python, opts)
        conn = conns[h.name]
        try:
            rc, out, err = _run_one(conn, script, cmd, deadline)
        except Exception as exc:  # every failure becomes a classified node result
            kind, msg = classify(exc)
            if kind == "ssh" and "No existing session" in msg and time.time() >= deadline - 1:
                kind, msg = "timeout", "no SSH banner within %gs (sshd hangs, or a firewall drops it)" % timeout
            return Node(host=h.name, error=msg, error_kind=kind)
        finally:
            try:
                conn.close()
            except Exception:
                pass
        return _interpret(h.name, rc, out, err, python)

    results = {}
    bar = _progress(len(hosts)) if progress and sys.stderr.isatty() else None
    pool = ThreadPoolExecutor(max_workers=max(1, min(jobs or DEFAULT_JOBS, len(hosts))))
    futures = {pool.submit(work, h): h.name for h in hosts}
    try:
        pending = set(futures)
        while pending:
            done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            for f in done:
                results[futures[f]] = f.result()
                if bar:
                    bar.advance(results[futures[f]])
    except KeyboardInterrupt as exc:
        pool.shutdown(wait=False, cancel_futures=True)
        if bar:
            bar.stop()
        exc.partial_nodes = [results[h.name] for h in hosts if h.name in results]
        raise
    finally:
        if bar:
            bar.stop()
    pool.shutdown(wait=True)
    return [results[h.name] for h in hosts]


MAX_SSH_FILE = 16 << 20  # bytes of an ssh config or known_hosts file read; a large known_hosts is a few MB


def _check_ssh_config(path):
    from gpudoctor.collector.ssh import ssh_config_problems
    from gpudoctor.errors import InputError

    try:
        with open(path, "rb") as f:
            data = f.read(MAX_SSH_FILE)
    except OSError:
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

    try:
        with open(path, "rb") as f:
            data = f.read(MAX_SSH_FILE)
    except OSError as exc:
        return [(0, exc.strerror or str(exc))]
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


class _progress(object):
    """A rich progress bar on stderr (only when stderr is a terminal)."""

    def __init__(self, total):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
        from rich.console import Console

        self.p = Progress(TextColumn("gathering facts"), BarColumn(), MofNCompleteColumn(),
                          TextColumn("{task.fields[failed]} failed"), TimeElapsedColumn(),
                          console=Console(stderr=True), transient=True)
        self.task = self.p.add_task("nodes", total=total, failed=0)
        self.failed = 0
        self.p.start()

    def advance(self, node):
        if not node.reachable:
            self.failed += 1
        self.p.update(self.task, advance=1, failed=self.failed)

    def stop(self):
        self.p.stop()

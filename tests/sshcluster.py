"""Real sshd processes on 127.0.0.x as cluster nodes.

Each node is its own sshd with its own config; nodes differ through sshd's SetEnv
(NCCL_*, PATH, HOME), the limits sshd was started under, and per-node homes. Sessions
log in as an unprivileged test user with a clean shell (no pyenv init in its rc).
"""

import os
import pwd
import random
import shutil
import socket
import subprocess
import threading
import time

USER = "gdnode"
SSHD = shutil.which("sshd") or "/usr/sbin/sshd"


def ensure_user():
    try:
        return pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "-m", "-s", "/bin/bash", USER], check=True)
        subprocess.run(["usermod", "-p", "*", USER], check=True)  # unlock (UsePAM no refuses '!')
        return pwd.getpwnam(USER)


def available():
    return os.geteuid() == 0 and os.path.exists(SSHD)


def free_port():
    for _ in range(50):
        port = random.randint(20000, 40000)
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue
        finally:
            s.close()
    raise RuntimeError("no free port")


class Hang(object):
    """A TCP listener that accepts and never speaks: a node whose sshd hangs."""

    def __init__(self, addr, port):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((addr, port))
        self.sock.listen(16)
        self.conns = []
        self.t = threading.Thread(target=self._loop, daemon=True)
        self.t.start()

    def _loop(self):
        while True:
            try:
                c, _ = self.sock.accept()
                self.conns.append(c)
            except OSError:
                return

    def close(self):
        self.sock.close()
        for c in self.conns:
            c.close()


class Banner(Hang):
    """Accepts, sends an SSH identification line, then never speaks again: a node whose
    sshd hangs after its banner (a stuck PAM or a wedged host, a half-open firewall)."""

    def _loop(self):
        while True:
            try:
                c, _ = self.sock.accept()
                c.sendall(b"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n")
                self.conns.append(c)
            except OSError:
                return


# python3 wrappers that misbehave the way real nodes did (issue 12). Each marks its
# process so that a test can look for leftovers on the "node" (this machine).
SCRIPTS = {
    # streams output forever (`yes garbage`): the read must be capped
    "stream": "#!/bin/sh\nexec yes garbage\n",
    # prints a line every 0.3 s forever, with a long sleep in the background: the
    # deadline must be wall clock, and the sleep must not be left behind
    "drip": "#!/bin/bash\n(exec -a %(marker)s sleep 3600) &\ntouch %(dir)s/started\n"
            "while true; do echo drip; sleep 0.3; done\n",
    # well-formed facts with hostile values: a node name that is an ssh option, names for
    # the mesh and resolution that are shell commands
    "crafted": "#!/bin/sh\ncat %(dir)s/facts.json\n",
    # a facts document nested 100,000 deep (json.loads raises RecursionError)
    "deep": "#!/bin/sh\ncat %(dir)s/facts.json\n",
    # exit status 127 from something that is not a missing python
    "exit127": "#!/bin/sh\necho 'error while loading shared libraries: libpython3.11.so.1.0' >&2\nexit 127\n",
    # answers with canned facts after 0.3 s (cheap nodes that hold a connection)
    "canned": "#!/bin/sh\nsleep 0.3\ncat %(dir)s/facts.json\n",
}


def _listens(pid, addr, port):
    """Whether process ``pid`` holds the TCP socket listening on addr:port (/proc/PID/net/tcp's inode among its
    fds)."""
    import struct

    want = "%08X:%04X" % (struct.unpack("=I", socket.inet_aton(addr))[0], port)
    inodes = set()
    with open("/proc/%d/net/tcp" % pid) as f:  # the process's own network namespace
        for line in f.readlines()[1:]:
            col = line.split()
            if col[1] == want and col[3] == "0A":  # 0A: LISTEN
                inodes.add("socket:[%s]" % col[9])
    if not inodes:
        return False
    fds = "/proc/%d/fd" % pid
    try:
        return any(os.readlink(os.path.join(fds, fd)) in inodes for fd in os.listdir(fds))
    except OSError:
        return False


def leftovers(marker):
    """Pids of processes whose command line holds `marker` (left behind on the node)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            continue
    return found


class Cluster(object):
    """cluster.add("n1", env={...}, memlock_kib=64); cluster.start(); cluster.ssh_config"""

    def __init__(self, base=None, subnet=None):
        # sshd reads authorized_keys as the node user: every folder on the way must be
        # traversable by it, which pytest's 0700 tmp folders are not.
        import tempfile

        self.base = tempfile.mkdtemp(prefix="gpudoctor-cluster-", dir="/tmp")
        self.port = free_port()
        self.subnet = subnet or random.randint(20, 250)  # 127.<subnet>.0.x, apart from other test runs
        self.nodes = {}
        self.procs = []
        self.hangs = []
        self.user = ensure_user()
        os.makedirs(self.base, exist_ok=True)
        os.chmod(self.base, 0o755)
        self.key = os.path.join(self.base, "id_ed25519")
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", self.key], check=True)
        self.hostkey = os.path.join(self.base, "host_ed25519")
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", self.hostkey], check=True)
        self.authorized = os.path.join(self.base, "authorized_keys")
        shutil.copy(self.key + ".pub", self.authorized)
        os.chmod(self.authorized, 0o644)
        self.known_hosts = os.path.join(self.base, "known_hosts")
        self.ssh_config = os.path.join(self.base, "ssh_config")
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)

    def addr(self, i):
        return "127.%d.0.%d" % (self.subnet, i + 10)

    def add(self, name, env=None, memlock_kib=None, kind="sshd", home=None, hostkey=None, authorized=True,
            script=None, facts=None):
        """kind: sshd (a node), closed (nothing listens), hang (accepts, never speaks),
        banner (sends an SSH banner, then hangs), unresolvable (a name that does not
        resolve). authorized=False: our key is not accepted. script: a name in SCRIPTS,
        installed as the node's only python3 (facts: the text its facts.json holds)."""
        i = len(self.nodes)
        if script:
            d = os.path.join(self.base, "bin-" + name)
            os.makedirs(d, exist_ok=True)
            os.chmod(d, 0o777)  # the node user writes its marks here (a script's "started")
            marker = self.marker(name)
            with open(os.path.join(d, "python3"), "w") as f:
                f.write(SCRIPTS[script] % {"dir": d, "marker": marker})
            os.chmod(os.path.join(d, "python3"), 0o755)
            if facts is not None:
                with open(os.path.join(d, "facts.json"), "w") as f:
                    f.write(facts)
                os.chmod(os.path.join(d, "facts.json"), 0o644)
            env = dict(env or {}, PATH="%s:/usr/bin:/bin" % d)
        self.nodes[name] = {"addr": self.addr(i), "env": dict(env or {}), "memlock_kib": memlock_kib, "kind": kind,
                            "home": home, "hostkey": hostkey, "authorized": authorized}
        return self

    def _port_free_on_nodes(self):
        # free_port() binds 127.0.0.1 only; the nodes listen on 127.<subnet>.0.x, where another test run's
        # cluster may hold the same port (then our sshd exits on 'Address already in use' and its address
        # answers with the other run's sshd, until that run ends: 'connection refused' mid-test)
        # (SO_REUSEADDR as sshd sets it: a restarted cluster's TIME_WAIT connections do not hold the port;
        # an address that is not local here, a node in a network namespace, is not ours to look at)
        import errno

        for n in self.nodes.values():
            s = socket.socket()
            try:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind((n["addr"], self.port))
            except OSError as e:
                if e.errno == errno.EADDRINUSE:
                    return False
            finally:
                s.close()
        return True

    def start(self):
        for _ in range(50):
            if self._port_free_on_nodes():
                break
            self.port = free_port()
        lines = []
        for name, n in self.nodes.items():
            host = "%s.invalid" % name if n["kind"] == "unresolvable" else n["addr"]
            lines += ["Host %s" % name, "  HostName %s" % host, "  Port %d" % self.port, "  User %s" % USER,
                      "  IdentityFile %s" % self.key, "  UserKnownHostsFile %s" % self.known_hosts, ""]
            if n["kind"] == "sshd":
                self._start_sshd(name, n)
            elif n["kind"] == "hang":
                self.hangs.append(Hang(n["addr"], self.port))
            elif n["kind"] == "banner":
                self.hangs.append(Banner(n["addr"], self.port))
        lines += ["Host 127.*", "  Port %d" % self.port, "  User %s" % USER, "  IdentityFile %s" % self.key,
                  "  UserKnownHostsFile %s" % self.known_hosts, ""]
        with open(self.ssh_config, "w") as f:
            f.write("\n".join(lines))
        self._wait_ready()
        return self

    def _start_sshd(self, name, n):
        d = os.path.join(self.base, name)
        os.makedirs(d, exist_ok=True)
        os.chmod(d, 0o755)
        env = dict(n["env"])
        if n["home"]:
            env["HOME"] = n["home"]
        conf = os.path.join(d, "sshd_config")
        with open(conf, "w") as f:
            f.write("\n".join([
                "ListenAddress %s:%d" % (n["addr"], self.port),
                "HostKey %s" % (n["hostkey"] or self.hostkey),
                "PidFile %s/sshd.pid" % d,
                "AuthorizedKeysFile %s" % (self.authorized if n["authorized"] else "/dev/null"),
                "PermitRootLogin prohibit-password",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "UsePAM no",
                "StrictModes no",
                "MaxStartups 200:30:400",
                "LogLevel ERROR",
                "Subsystem sftp internal-sftp",
            ] + (["SetEnv %s" % " ".join('%s="%s"' % kv for kv in sorted(env.items()))] if env else [])) + "\n")
        cmd = [SSHD, "-D", "-e", "-f", conf]
        if n["memlock_kib"] is not None:
            cmd = ["prlimit", "--memlock=%d:%d" % (n["memlock_kib"] * 1024, n["memlock_kib"] * 1024)] + cmd
        log = open(os.path.join(d, "log"), "w")
        n["proc"] = subprocess.Popen(cmd, stdout=log, stderr=log)
        self.procs.append(n["proc"])

    def _wait_ready(self, timeout=60):  # 30 sshd starts on a loaded 2-core VM
        deadline = time.time() + timeout
        for name, n in self.nodes.items():
            if n["kind"] != "sshd":
                continue
            while True:
                try:
                    if n["proc"].poll() is not None:
                        raise RuntimeError("sshd of %s exited (%s): %s" % (name, n["proc"].returncode, open(
                            os.path.join(self.base, name, "log")).read()))
                    # ours, not another listener on the same address and port
                    if not _listens(n["proc"].pid, n["addr"], self.port):
                        raise OSError("not listening yet")
                    socket.create_connection((n["addr"], self.port), timeout=0.5).close()
                    break
                except OSError:
                    if time.time() > deadline:
                        raise RuntimeError("sshd of %s did not start: %s" % (name, open(
                            os.path.join(self.base, name, "log")).read()))
                    time.sleep(0.05)

    def marker(self, name):
        """The word in the command line of what a script node leaves running."""
        return "gd-leftover-%s-%s" % (os.path.basename(self.base), name)

    def bindir(self, name):
        return os.path.join(self.base, "bin-" + name)

    def new_hostkey(self, name):
        path = os.path.join(self.base, "host_%s_ed25519" % name)
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path], check=True)
        return path

    def hostfile(self, names=None, slots=None, by_address=False):
        path = os.path.join(self.base, "hostfile")
        with open(path, "w") as f:
            for name in names or self.nodes:
                host = self.nodes[name]["addr"] if by_address else name
                f.write("%s%s\n" % (host, " slots=%d" % slots if slots else ""))
        return path

    def stop(self):
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
        for h in self.hangs:
            h.close()
        self.hangs = []

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)

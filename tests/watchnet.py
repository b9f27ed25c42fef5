"""A running "job" for `gpudoctor watch` without GPUs: a process with NCCL_* variables in its
environment, in its own network namespace, sending TCP over a veth pair to a receiver in this
namespace, as NCCL's socket transport would (needs root and iproute2; tests/test_watch.py)."""

import os
import shutil
import socket
import subprocess
import sys
import threading
import time

SENDER = r'''
import socket, sys, time
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
buf = b"x" * (256 << 10)
while True:  # ~25 MB/s at most: enough to see, little CPU on a shared machine
    s.sendall(buf)
    time.sleep(0.01)
'''


def usable():
    """Why this machine cannot run the netns job, or None."""
    if os.geteuid() != 0:
        return "needs root (network namespaces)"
    if not shutil.which("ip"):
        return "needs iproute2 (ip)"
    return None


def _ip(*args):
    subprocess.run(("ip",) + args, check=True, capture_output=True, timeout=20)


class NetnsJob(object):
    """with NetnsJob(env) as job: job.pid, job.host_if, job.received()"""

    def __init__(self, env, tag=None):
        tag = tag or "%d" % (os.getpid() % 100000)
        self.ns, self.host_if, self.job_if = "gdw%s" % tag, "gdwh%s" % tag, "gdwj%s" % tag
        n = os.getpid() % 250 + 1
        self.host_ip, self.job_ip = "10.213.%d.1" % n, "10.213.%d.2" % n
        self.env = env
        self.proc = None
        self.bytes = 0
        self._stop = False

    def __enter__(self):
        try:
            _ip("netns", "add", self.ns)
            _ip("link", "add", self.host_if, "type", "veth", "peer", "name", self.job_if, "netns", self.ns)
            _ip("addr", "add", self.host_ip + "/30", "dev", self.host_if)
            _ip("link", "set", self.host_if, "up")
            _ip("-n", self.ns, "addr", "add", self.job_ip + "/30", "dev", self.job_if)
            _ip("-n", self.ns, "link", "set", self.job_if, "up")
            _ip("-n", self.ns, "link", "set", "lo", "up")
            self.srv = socket.socket()
            self.srv.bind((self.host_ip, 0))
            self.srv.listen(1)
            self.srv.settimeout(20)
            port = self.srv.getsockname()[1]
            env = dict((k, v) for k, v in os.environ.items() if not k.startswith(("NCCL_", "UCX_", "OMPI_")))
            env.update(self.env)
            self.proc = subprocess.Popen(["ip", "netns", "exec", self.ns, sys.executable, "-c", SENDER,
                                          self.host_ip, str(port)], env=env, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            conn, _ = self.srv.accept()
            self.t = threading.Thread(target=self._drain, args=(conn,), daemon=True)
            self.t.start()
            return self
        except BaseException:
            self.__exit__(None, None, None)
            raise

    def _drain(self, conn):
        while not self._stop:
            data = conn.recv(1 << 20)
            if not data:
                break
            self.bytes += len(data)
        conn.close()

    @property
    def pid(self):
        return self.proc.pid  # `ip netns exec` execs the command: the same pid

    def wait_flowing(self, nbytes=2 << 20, deadline_s=20):
        end = time.monotonic() + deadline_s
        while self.bytes < nbytes:
            if time.monotonic() > end:
                raise AssertionError("the job sent %d bytes in %ds" % (self.bytes, deadline_s))
            time.sleep(0.05)

    def __exit__(self, *exc):
        self._stop = True
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        if getattr(self, "srv", None) is not None:
            self.srv.close()
        subprocess.run(["ip", "netns", "del", self.ns], capture_output=True, timeout=20)
        subprocess.run(["ip", "link", "del", self.host_if], capture_output=True, timeout=20)
        return False

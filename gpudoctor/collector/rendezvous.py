"""The rendezvous probe, asked for by the controller in a second, short fan-out once the
plan's master node is known: the master binds the plan's port (as torch's TCPStore does: all
interfaces) and accepts for a few seconds; every other node connects to the master address
and reads a token back, so a port held by some other program does not count as reachable.
Firewalls and wrong interfaces show up here, not 20 minutes into a job."""

import errno
import socket
import time

from .base import Unsupported, section


def listen(port, seconds, peers, token, bind_addr=""):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind((bind_addr, port))
        s.listen(64)
    except (socket.error, OSError) as exc:
        s.close()
        what = "in use (another process listens on it)" if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc))
        return {"bind": {"ok": False, "error": what}, "accepted": []}
    accepted = []
    deadline = time.time() + seconds
    try:
        while len(accepted) < peers and time.time() < deadline:
            s.settimeout(max(0.05, deadline - time.time()))
            try:
                c, addr = s.accept()
            except socket.timeout:
                break
            try:
                c.settimeout(2)
                c.sendall(token.encode() + b"\n")
                who = c.recv(256).decode("utf-8", "replace").strip()
                accepted.append(who or addr[0])
            except (socket.error, OSError):
                pass
            finally:
                c.close()
    finally:
        s.close()
    return {"bind": {"ok": True, "error": None}, "accepted": sorted(accepted)}


def connect(addr, port, seconds, token, me):
    """Retry while the master's listener may not be up yet; report the last failure."""
    deadline = time.time() + seconds
    last = "timed out"
    while True:
        try:
            c = socket.create_connection((addr, port), timeout=max(0.5, min(3.0, deadline - time.time())))
            try:
                c.settimeout(3)
                got = b""
                while not got.endswith(b"\n") and len(got) < 256:
                    chunk = c.recv(256)
                    if not chunk:
                        break
                    got += chunk
                if got.strip().decode("utf-8", "replace") != token:
                    last = "something else answers on %s:%d (not gpudoctor's listener)" % (addr, port)
                else:
                    c.sendall((me or "").encode() + b"\n")
                    return {"ok": True, "error": None}
            finally:
                c.close()
        except socket.timeout:
            last = "timed out (a firewall drops the traffic?)"
        except (socket.error, OSError) as exc:
            last = {errno.ECONNREFUSED: "connection refused", errno.EHOSTUNREACH: "no route to host",
                    errno.ENETUNREACH: "network unreachable"}.get(exc.errno, exc.strerror or str(exc))
            if isinstance(exc, socket.gaierror):
                return {"ok": False, "error": "%s does not resolve" % addr}
        if time.time() + 0.2 >= deadline:
            return {"ok": False, "error": last}
        time.sleep(0.2)


# the section's answer when the run asks for no probe (bundle.py's placeholder says the same)
NOT_ASKED = "no rendezvous probe requested (needs a launch plan with a master)"


@section("rendezvous")
def rendezvous(ctx):
    opt = ctx.options.get("rendezvous")
    if not opt or not ctx.live:
        raise Unsupported(NOT_ASKED)
    port, seconds = int(opt["port"]), float(opt.get("seconds", 5))
    out = {"role": opt["role"], "addr": opt["addr"], "port": port}
    if opt["role"] == "master":
        out.update(listen(port, seconds, int(opt.get("peers", 0)), opt["token"]))
    else:
        out["connect"] = connect(opt["addr"], port, seconds, opt["token"], ctx.options.get("node"))
    return out

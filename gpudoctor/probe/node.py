# -*- coding: utf-8 -*-
"""The probe's node side: one stdlib-only script (Python 3.6+), sent on stdin to the node's
interpreter (``python3 -``) like the collector, so nothing is installed on the node. The
controller appends ``main(<config JSON>)``; ``config["role"]`` picks what runs:

- ``tcp-server`` / ``tcp-client``: TCP throughput between two nodes, both directions, on a
  port of the job's range: the receiver reads for a fixed time and closes, so a slow link
  cannot stretch the probe past its window;
- ``nccl``: one child process per GPU, each running torch.distributed with NCCL (the job's
  own torch and NCCL): all_reduce / all_gather timings and NCCL's INFO lines;
- ``cleanup``: ends every process of one probe run on this node (found by the run token in
  its environment), process group first.

Every worker says on stdout, one JSON object a line: ``ready`` (pid, pgid, port), then
``progress`` lines, then ``result``. Each arms a watchdog that kills its own process group
at its hard deadline, so a hung worker ends even if the controller is gone.
"""

import sys

if __name__ == "__main__" and sys.path and sys.path[0] == "":
    # `python3 -` (how a node runs this script) put the current folder first on sys.path: a json.py or
    # socket.py in the folder probe ran from (srun's working folder on every node) ran before the standard
    # library's (docs/security.md 47.). Before any other import; not when imported as gpudoctor.probe.node.
    del sys.path[0]

import errno
import hmac
import json
import os
import signal
import socket
import subprocess
import threading
import time

TOKEN_VAR = "GPUDOCTOR_PROBE_RUN"
CHUNK = 1 << 20
_SOURCE = None  # this script's own text: the payload sets it (the NCCL worker feeds it to its children)
_CHILDREN = []  # processes this worker started (the NCCL ranks): ended with it
HANDSHAKE_S = 2.0  # a connection has this long to send the run's key and its tag


def emit(event, **kw):
    kw["event"] = event
    try:
        sys.stdout.write(json.dumps(kw, sort_keys=True) + "\n")
        sys.stdout.flush()
    except (IOError, OSError):  # the controller went away (its end of our stdout closed):
        kill_self(_CHILDREN)     # nobody will read a result; end now, not at the watchdog


def _own_group():
    try:
        return os.getpgid(0) == os.getpid()
    except OSError:
        return False


def kill_self(children=()):
    """End this worker and everything it started: the whole process group when this process
    leads it (sshd's session child and the local transport make it so), else the children."""
    if _own_group():
        try:
            os.killpg(os.getpid(), signal.SIGKILL)
        except OSError:
            pass
    for c in children:
        try:
            c.kill()
        except OSError:
            pass
    os._exit(124)


def arm_watchdog(seconds, children=()):
    def fire():
        emit("deadline", seconds=seconds)
        kill_self(children)

    t = threading.Timer(max(0.1, seconds), fire)
    t.daemon = True
    t.start()
    return t


# ---------------------------------------------------------------- TCP throughput

def _bind(addr, ports):
    """The first free port of ``ports`` on ``addr``, the address peers use for this node, and on
    no other: a listener on every interface would be reachable from networks the job does not
    use. (socket, port, None) or (None, None, (error_kind, message))."""
    last = None
    for p in ports:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((addr, p))
            s.listen(64)
            return s, p, None
        except socket.gaierror:
            s.close()
            return None, None, ("resolve", "%s does not resolve on this node" % addr)
        except (socket.error, OSError) as exc:
            s.close()
            last = exc
            if exc.errno != errno.EADDRINUSE:
                break
    if last is not None and last.errno == errno.EADDRNOTAVAIL:
        return None, None, ("not-local", "%s, the address peers use for this node, is not an address of this "
                                          "node" % addr)
    if last is not None and last.errno == errno.EADDRINUSE:
        return None, None, ("port-in-use", "every port of %d-%d is in use on %s" % (ports[0], ports[-1], addr))
    return None, None, ("port-in-use", getattr(last, "strerror", None) or str(last))


def _peer_ips(name):
    """The IPv4 addresses ``name`` has from this node: the only sources a probe listener accepts."""
    return set(ai[4][0] for ai in socket.getaddrinfo(name, None, socket.AF_INET, socket.SOCK_STREAM))


def first_port_taken(port):
    """True when a listener already holds ``port`` on this node (torchrun's default MASTER_PORT
    is the first of the default range). SO_REUSEADDR: a port in TIME_WAIT, or tested by another
    worker at the same moment, is not in use; a listening socket still refuses the bind."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("", int(port)))
        return False
    except (socket.error, OSError) as exc:
        return exc.errno == errno.EADDRINUSE
    finally:
        s.close()


def _receive(conn, seconds, counts, i, start_evt):
    """Read for ``seconds`` from the first byte, then close (the sender sees the close)."""
    conn.settimeout(seconds + 5)
    got = 0
    t0 = None
    buf = bytearray(CHUNK)
    view = memoryview(buf)
    try:
        while True:
            n = conn.recv_into(view)
            if not n:
                break
            if t0 is None:
                t0 = time.time()
                start_evt.set()
            got += n
            if time.time() - t0 >= seconds:
                break
    except (socket.error, OSError):
        pass
    t1 = time.time()
    try:
        conn.close()
    except OSError:
        pass
    counts[i] = (got, t0, t1)


def _send(conn, seconds):
    """Send until the receiver closes (or twice the window passed, as a bound)."""
    data = b"\0" * CHUNK
    end = time.time() + 2 * seconds + 5
    conn.settimeout(seconds + 5)
    try:
        while time.time() < end:
            conn.sendall(data)
    except (socket.error, OSError):
        pass
    finally:
        try:
            conn.close()
        except OSError:
            pass


def _receive_all(conns, seconds):
    """Receive on every stream at once for `seconds`; (Gbit/s, bytes) over all of them."""
    counts = [None] * len(conns)
    started = threading.Event()
    ts = [threading.Thread(target=_receive, args=(c, seconds, counts, i, started)) for i, c in enumerate(conns)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return _rate(counts)


def _rate(counts):
    """Gbit/s over all streams, between the first byte and the last read."""
    vals = [c for c in counts if c and c[1] is not None]
    if not vals:
        return None, 0
    total = sum(c[0] for c in vals)
    t0 = min(c[1] for c in vals)
    t1 = max(c[2] for c in vals)
    return (total * 8 / (t1 - t0) / 1e9 if t1 > t0 else None), total


def _handshake(c, key, tag, state):
    """Keep ``c`` only when it sends the run's key, then ``tag`` (a phase), within HANDSHAKE_S.
    The key came in this script on stdin (never on a command line); hmac.compare_digest: a
    comparison whose time does not depend on where the bytes differ."""
    want = len(key) + 1
    got = b""
    c.settimeout(HANDSHAKE_S)
    try:
        while len(got) < want:
            chunk = c.recv(want - len(got))
            if not chunk:
                break
            got += chunk
    except (socket.error, OSError):
        pass
    ok = len(got) == want and hmac.compare_digest(got[:-1], key) and got[-1:] == tag
    with state["cond"]:
        if ok:
            state["conns"].append(c)
            state["cond"].notify_all()
            return
        state["rejected"] += 1
    try:
        c.close()
    except OSError:
        pass


def _accept_streams(sock, streams, deadline, key, tag, allowed, state):
    """``streams`` authenticated connections from the expected peer, or None at ``deadline``.
    A connection from another address is closed at once; the handshakes run in threads, so a
    third party that connects and stays silent does not hold up the peer."""
    state["conns"] = []
    while True:
        with state["cond"]:
            if len(state["conns"]) >= streams:
                conns, extra = state["conns"][:streams], state["conns"][streams:]
                state["conns"] = []
                break
        left = deadline - time.time()
        if left <= 0:
            return None
        sock.settimeout(min(0.2, left))
        try:
            c, peer = sock.accept()
        except socket.timeout:
            continue
        except (socket.error, OSError):
            continue
        if peer[0] not in allowed:
            with state["cond"]:
                state["rejected"] += 1
            c.close()
            continue
        t = threading.Thread(target=_handshake, args=(c, key, tag, state))
        t.daemon = True
        t.start()
    for c in extra:
        c.close()
    for c in conns:
        c.settimeout(5)
    return conns


def tcp_server(cfg):
    """Phase U: accept ``streams`` connections and receive; phase D: accept again and send.
    Only connections from the peer's address that send the run's key count."""
    ports = list(range(int(cfg["ports"][0]), int(cfg["ports"][1]) + 1))
    key = bytes(bytearray.fromhex(cfg["key"]))
    try:
        allowed = _peer_ips(cfg["peer_addr"])
    except (socket.error, OSError):
        emit("result", ok=False, error_kind="resolve", error="the peer %s does not resolve on this node"
             % cfg["peer_addr"])
        return 3
    sock, port, err = _bind(cfg["addr"], ports)
    if sock is None:
        emit("result", ok=False, error_kind=err[0], error=err[1])
        return 3
    emit("ready", pid=os.getpid(), pgid=os.getpgid(0), port=port)
    seconds, streams = float(cfg["seconds"]), int(cfg.get("streams", 4))
    deadline = time.time() + float(cfg["accept_s"])
    result = {"ok": True, "port": port}
    state = {"cond": threading.Condition(), "rejected": 0, "conns": []}
    for phase in ("U", "D"):
        conns = _accept_streams(sock, streams, deadline, key, phase.encode(), allowed, state)
        if conns is None:
            emit("result", ok=False, error_kind="no-peer", port=port, rejected=state["rejected"],
                 error="no peer connected to port %d within %.0fs (phase %s)" % (port, cfg["accept_s"], phase))
            return 4
        if phase == "U":
            result["rx_gbps"], result["rx_bytes"] = _receive_all(conns, seconds)
        else:
            ts = [threading.Thread(target=_send, args=(c, seconds)) for c in conns]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
        deadline = time.time() + float(cfg["accept_s"])
    sock.close()
    result["rejected"] = state["rejected"]
    emit("result", **result)
    return 0


def _connect(addr, port, seconds, src=None):
    """A connection to the peer, retried while its listener may be starting. From ``src`` (this
    node's address, the one the listener expects) when this node has it."""
    deadline = time.time() + seconds
    last = None
    while True:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            if src:
                try:
                    s.bind((src, 0))
                except (socket.error, OSError):
                    pass  # not this node's address: the kernel picks the source
            s.settimeout(max(0.5, min(5.0, deadline - time.time())))
            s.connect((addr, port))
            return s, None
        except socket.timeout:
            last = ("port-blocked", "connecting to %s:%d timed out (a firewall drops it?)" % (addr, port))
        except (socket.error, OSError) as exc:
            if isinstance(exc, socket.gaierror):
                s.close()
                return None, ("resolve", "%s does not resolve on this node" % addr)
            if exc.errno == errno.ECONNREFUSED:
                last = ("port-refused", "%s:%d refused the connection" % (addr, port))
            elif exc.errno in (errno.EHOSTUNREACH, errno.EACCES, errno.EPERM):
                # firewalld's default REJECT answers icmp-host-prohibited: EHOSTUNREACH here
                last = ("port-blocked", "%s:%d: %s (a firewall rejects the port?)" % (addr, port, exc.strerror))
            elif exc.errno == errno.ENETUNREACH:
                last = ("unreachable", "%s: network unreachable" % addr)
            else:
                last = ("connect", "%s:%d: %s" % (addr, port, exc.strerror or exc))
        s.close()
        if time.time() + 0.2 >= deadline:
            return None, last
        time.sleep(0.1)


def tcp_client(cfg):
    emit("ready", pid=os.getpid(), pgid=os.getpgid(0))
    addr, port = cfg["peer_addr"], int(cfg["port"])
    key = bytes(bytearray.fromhex(cfg["key"]))
    seconds, streams = float(cfg["seconds"]), int(cfg.get("streams", 4))
    result = {"ok": True}
    for phase in ("U", "D"):
        conns = []
        for _ in range(streams):
            c, err = _connect(addr, port, float(cfg["connect_s"]), cfg.get("src_addr"))
            if c is None:
                for x in conns:
                    x.close()
                emit("result", ok=False, error_kind=err[0], error=err[1], phase=phase)
                return 4
            try:
                c.sendall(key + phase.encode())
            except (socket.error, OSError) as exc:
                c.close()
                for x in conns:
                    x.close()
                emit("result", ok=False, error_kind="port-refused", phase=phase,
                     error="%s:%d closed the connection: %s" % (addr, port, getattr(exc, "strerror", None) or exc))
                return 4
            conns.append(c)
        if phase == "U":
            ts = [threading.Thread(target=_send, args=(c, seconds)) for c in conns]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
        else:
            result["rx_gbps"], result["rx_bytes"] = _receive_all(conns, seconds)
    emit("result", **result)
    return 0


# ---------------------------------------------------------------- NCCL

def _free_port(ports):
    """A port of the range that binds now, tried in random order: jobs started at the same
    time on one machine (concurrent pairs, one node's groups) would all find the first one
    free before any of them binds it."""
    import random

    ports = list(ports)
    random.shuffle(ports)
    for p in ports:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.bind(("", p))
            return p
        except (socket.error, OSError):
            continue
        finally:
            s.close()
    return None


def _pump(stream, sink, rank, lock, limit=4000):
    """Children's output: JSON events and NCCL's INFO/WARN lines (NCCL prints to stdout
    unless NCCL_DEBUG_FILE is set: src/debug.cc), a bounded number of lines."""
    for raw in iter(stream.readline, b""):
        line = raw.decode("utf-8", "replace").rstrip("\n")
        with lock:
            if line.startswith("{"):
                try:
                    ev = json.loads(line)
                    ev["rank"] = rank
                    sink["events"].append(ev)
                    continue
                except ValueError:
                    pass
            if " NCCL " in line or "NCCL version" in line:
                if len(sink["nccl"]) < limit:
                    sink["nccl"].append(line)
            else:
                sink["tail"].setdefault(rank, []).append(line)
                del sink["tail"][rank][:-20]


def nccl(cfg):
    """Start one rank per local GPU, wait for them under the deadline, report."""
    started = time.time()
    deadline = started + float(cfg["deadline_s"])
    port = cfg.get("port")
    if port is None:  # the first node picks the rendezvous port: a free one of the range
        port = _free_port(list(range(int(cfg["ports"][0]), int(cfg["ports"][1]) + 1)))
        if port is None:
            emit("result", ok=False, error_kind="port-in-use",
                 error="every port of %d-%d is in use on the rendezvous node" % tuple(cfg["ports"]))
            return 3
    emit("ready", pid=os.getpid(), pgid=os.getpgid(0), port=port)
    nprocs = int(cfg["nprocs"])
    env = dict(os.environ)
    env.update(cfg.get("env") or {})
    # the INFO lines that name the transport (src/debug.cc reads these two)
    env["NCCL_DEBUG"] = "INFO"
    env["NCCL_DEBUG_SUBSYS"] = "INIT,NET"
    env.pop("NCCL_DEBUG_FILE", None)
    env["PYTHONUNBUFFERED"] = "1"
    children, sink, lock, pumps = [], {"events": [], "nccl": [], "tail": {}}, threading.Lock(), []
    for local in range(nprocs):
        rank = int(cfg["rank_base"]) + local
        child_cfg = dict(cfg, role="nccl-rank", rank=rank, local_rank=local, port=port,
                         deadline_at=deadline, init_timeout_s=float(cfg.get("init_timeout_s", 60)))
        p = subprocess.Popen([sys.executable, "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, env=env)
        _CHILDREN.append(p)
        p.stdin.write((_SOURCE + "\nmain(%r)\n" % json.dumps(child_cfg)).encode())
        p.stdin.close()
        children.append(p)
        t = threading.Thread(target=_pump, args=(p.stdout, sink, rank, lock))
        t.daemon = True
        t.start()
        pumps.append(t)
    arm_watchdog(deadline - time.time() + 5, children)
    failed = None
    while True:
        codes = [c.poll() for c in children]
        if all(rc is not None for rc in codes):
            break
        bad = [(i, rc) for i, rc in enumerate(codes) if rc not in (None, 0)]
        if bad and failed is None:
            failed = bad[0]
            # the other ranks would wait in NCCL for the dead one until their timeout
            grace = time.time() + 3
            while time.time() < grace and any(c.poll() is None for c in children):
                time.sleep(0.05)
            for c in children:
                if c.poll() is None:
                    c.kill()
            continue
        if time.time() > deadline:
            for c in children:
                if c.poll() is None:
                    c.kill()
            break
        time.sleep(0.05)
    for c in children:
        try:
            c.wait(5)
        except Exception:
            pass
    for t in pumps:
        t.join(2)
    with lock:
        events = list(sink["events"])
        out = {"nccl_log": sink["nccl"], "tails": {str(k): v for k, v in sink["tail"].items()}}
    results = [e for e in events if e.get("event") == "rank-result"]
    stages = {}
    for e in events:
        if e.get("event") == "stage":
            stages[e["rank"]] = e.get("stage")
    errors = [e for e in events if e.get("event") == "rank-error"]
    codes = [c.returncode for c in children]
    # only global rank 0 reports the timings; the other nodes' ranks report by exiting 0
    has_rank0 = int(cfg["rank_base"]) == 0
    out.update(ok=(bool(results) or not has_rank0) and not errors and all(rc == 0 for rc in codes), codes=codes,
               stages=stages,
               elapsed_s=round(time.time() - started, 3))
    if results:
        out["collectives"] = results[0].get("collectives", [])
        out["latency"] = results[0].get("latency", [])
        out["truncated"] = results[0].get("truncated", False)
        out["check"] = results[0].get("check")
        out["torch"] = results[0].get("torch")
        out["nccl_version"] = results[0].get("nccl_version")
    if not out["ok"]:
        out["error_kind"], out["error"] = _classify_nccl(errors, stages, codes, time.time() > deadline, failed)
    emit("result", **out)
    return 0 if out["ok"] else 5


def _classify_nccl(errors, stages, codes, timed_out, failed):
    for e in errors:
        kind = e.get("kind")
        if kind:
            return kind, e.get("error")
    if timed_out:
        st = set(stages.values())
        if not st or st <= {"start", "init"}:
            return "init-hang", "NCCL init did not complete before the deadline (ranks stuck in: %s)" % (
                ",".join(sorted(str(s) for s in st)) or "start")
        return "hang", "a collective did not finish before the deadline (stages: %s)" % ",".join(sorted(map(str, st)))
    bad = [(i, rc) for i, rc in enumerate(codes) if rc not in (None, 0)]
    if failed is not None or bad:
        i, rc = failed if failed is not None else bad[0]
        if rc is not None and rc < 0:
            try:
                name = signal.Signals(-rc).name
            except ValueError:
                name = "signal %d" % -rc
            return "died", "local rank %d was killed by %s mid-probe" % (i, name)
        return "died", "local rank %d exited with status %s mid-probe" % (i, rc)
    return "died", "ranks exited with %s" % codes


def nccl_rank(cfg):
    """One rank: init NCCL through a TCP rendezvous, then time the collectives."""
    emit("stage", stage="start")
    try:
        import datetime

        import torch
        import torch.distributed as dist
    except Exception as exc:  # ImportError, or a broken CUDA/NCCL library under torch
        emit("rank-error", kind="no-torch", error="import torch failed: %s" % str(exc)[:300])
        return 6
    backend = cfg.get("backend") or "nccl"  # gloo on CPU: the same flow where no GPU is
    local, rank, world = int(cfg["local_rank"]), int(cfg["rank"]), int(cfg["world"])
    if backend == "nccl":
        if not torch.cuda.is_available() or torch.cuda.device_count() <= local:
            emit("rank-error", kind="no-gpu", error="torch sees %d GPU(s), rank needs GPU %d" % (
                torch.cuda.device_count() if torch.cuda.is_available() else 0, local))
            return 6
        torch.cuda.set_device(local)
        dev = torch.device("cuda", local)
        sync = torch.cuda.synchronize
    else:
        dev = torch.device("cpu")

        def sync():
            pass
    emit("stage", stage="init")
    try:
        dist.init_process_group(backend, init_method="tcp://%s:%d" % (cfg["master_addr"], int(cfg["port"])),
                                rank=rank, world_size=world,
                                timeout=datetime.timedelta(seconds=float(cfg["init_timeout_s"])))
        check = torch.full((1024,), float(rank + 1), device=dev)
        dist.all_reduce(check)  # NCCL builds its communicator on the first collective
        sync()
        want = world * (world + 1) / 2.0
        correct = bool(torch.all(check == want).item())
    except Exception as exc:
        text = str(exc)
        kind = "port-in-use" if "address already in use" in text.lower() else "init-failed"
        # torch's NCCL errors span lines ("...invalid usage...\nLast error:\nBootstrap : no socket
        # interface found"): one line, the last error kept
        one = " | ".join(x.strip() for x in ("%s: %s" % (type(exc).__name__, text)).splitlines() if x.strip())
        emit("rank-error", kind=kind, error=one[:200] + (" ... " + one[-200:] if len(one) > 400 else one[200:400]))
        return 7
    emit("stage", stage="measure")
    collectives, truncated = [], False
    deadline = float(cfg["deadline_at"]) - float(cfg.get("reserve_s", 2.0))
    est_next = 0.0
    maxt = dist.ReduceOp.MAX
    # latency: small all_reduce calls, where time is the fixed cost of a collective (nccl-tests
    # reads latency off the time column at its small sizes)
    latency = []
    for nbytes in cfg.get("latency_sizes") or ():
        small = torch.zeros(max(1, int(nbytes) // 4), device=dev)
        for _ in range(5):
            dist.all_reduce(small)
        sync()
        t0 = time.perf_counter()
        for _ in range(50):
            dist.all_reduce(small)
        sync()
        el = torch.tensor([(time.perf_counter() - t0) / 50], device=dev)
        dist.all_reduce(el, op=maxt)
        latency.append({"op": "all_reduce", "bytes": small.numel() * 4, "time_us": round(float(el.item()) * 1e6, 2)})
    for op in cfg["ops"]:
        for nbytes in cfg["sizes"]:
            numel = int(nbytes) // 4  # float32, as nccl-tests' default
            if op == "all_gather":
                numel -= numel % world
                out = torch.zeros(numel, device=dev)
                inp = torch.zeros(numel // world, device=dev)
                if backend == "nccl":
                    def fn():
                        dist.all_gather_into_tensor(out, inp)
                else:  # gloo has no all_gather_into_tensor
                    outs = list(out.chunk(world))

                    def fn():
                        dist.all_gather(outs, inp)
            else:
                buf = torch.zeros(numel, device=dev)

                def fn():
                    dist.all_reduce(buf)
            # every rank must take the same decision, or the ones that go on hang in NCCL
            flag = torch.tensor([0.0, 1.0 if time.time() + est_next > deadline else 0.0], device=dev)
            fn()
            sync()
            t0 = time.perf_counter()
            fn()
            sync()
            flag[0] = time.perf_counter() - t0
            dist.all_reduce(flag, op=maxt)
            one, over = flag.tolist()
            if over:
                truncated = True
                break
            iters = max(1, min(int(cfg.get("max_iters", 20)), int(float(cfg.get("target_s", 0.3)) / max(one, 1e-6))))
            sync()
            t0 = time.perf_counter()
            for _ in range(iters):
                fn()
            sync()
            el = torch.tensor([(time.perf_counter() - t0) / iters], device=dev)
            dist.all_reduce(el, op=maxt)
            sec = float(el.item())
            size = numel * 4
            factor = 2.0 * (world - 1) / world if op == "all_reduce" else (world - 1.0) / world
            algbw = size / sec / 1e9
            collectives.append({"op": op, "bytes": size, "time_us": round(sec * 1e6, 2), "iters": iters,
                                "algbw_gbps": round(algbw, 3), "busbw_gbps": round(algbw * factor, 3),
                                "nranks": world})
            emit("stage", stage="measure", op=op, bytes=size)
            est_next = one * 2 * (iters + 3)
            if op == "all_gather":
                del out, inp
            else:
                del buf
        if truncated:
            break
    try:
        ver = torch.cuda.nccl.version()
        ver = ".".join(str(x) for x in ver) if isinstance(ver, tuple) else str(ver)
    except Exception:
        ver = None
    if rank == 0:
        emit("rank-result", collectives=collectives, truncated=truncated, check=correct, torch=torch.__version__,
             nccl_version=ver, latency=latency)
    try:
        dist.destroy_process_group()
    except Exception:
        pass
    return 0


# ---------------------------------------------------------------- hello

def hello(cfg):
    """Can a worker start here, and what can it use: the interpreter, whether torch is
    importable (found, not imported: an import costs seconds), and the GPUs."""
    import importlib.util

    gpus = None
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    try:
        p = subprocess.Popen(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, _ = p.communicate(timeout=10)
        if p.returncode == 0:
            gpus = len([x for x in out.decode("utf-8", "replace").splitlines() if x.startswith("GPU ")])
    except Exception:
        pass
    if visible is not None and gpus is not None:
        gpus = min(gpus, len([x for x in visible.split(",") if x.strip() and x.strip() != "-1"]))
    taken = first_port_taken(cfg["ports"][0]) if cfg.get("ports") else None
    emit("result", ok=True, python=sys.version.split()[0], executable=sys.executable,
         torch=importlib.util.find_spec("torch") is not None, gpus=gpus, pid=os.getpid(), first_port_taken=taken)
    return 0


# ---------------------------------------------------------------- cleanup

def _environ_has(pid, needle):
    try:
        with open("/proc/%d/environ" % pid, "rb") as f:
            return needle in f.read().split(b"\0")
    except (IOError, OSError):
        return False


def find_run(token):
    """Pids on this node whose environment carries this run's token."""
    needle = ("%s=%s" % (TOKEN_VAR, token)).encode()
    me = os.getpid()
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != me and _environ_has(int(name), needle):
            out.append(int(name))
    return out


def end_run(token, grace=2.0):
    """SIGTERM the run's process groups (each led by a process of the run), SIGKILL what is
    left after a grace period; (found, left)."""
    found = find_run(token)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in find_run(token):
            try:
                pg = os.getpgid(pid)
                if pg == pid or pg in found:
                    os.killpg(pg, sig)
                else:
                    os.kill(pid, sig)
            except OSError:
                pass
        end = time.time() + grace
        while time.time() < end and find_run(token):
            time.sleep(0.05)
        if not find_run(token):
            break
    return len(found), len(find_run(token))


def cleanup(cfg):
    found, left = end_run(str(cfg["token"]), float(cfg.get("grace_s", 2.0)))
    emit("result", ok=True, found=found, left=left)
    return 0


ROLES = {"hello": hello, "tcp-server": tcp_server, "tcp-client": tcp_client, "nccl": nccl, "nccl-rank": nccl_rank,
         "cleanup": cleanup}


def main(cfg_json):
    cfg = json.loads(cfg_json) if isinstance(cfg_json, str) else cfg_json
    role = cfg.get("role")
    if role not in ("cleanup", "nccl-rank") and cfg.get("hard_s"):
        arm_watchdog(float(cfg["hard_s"]))
    try:
        rc = ROLES[role](cfg)
    except Exception as exc:  # a worker bug is a classified result, not a hang
        emit("result", ok=False, error_kind="worker", error="%s: %s" % (type(exc).__name__, str(exc)[:300]))
        rc = 9
    sys.stdout.flush()
    os._exit(rc or 0)  # do not wait on leftover threads

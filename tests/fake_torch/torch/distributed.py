"""torch.distributed, as the stand-in (see torch/__init__.py): one process group, no traffic."""

import os
import time


_state = {}


class ReduceOp(object):
    SUM = "sum"
    MAX = "max"


def _rendezvous(init_method, rank, world, bw, seconds):
    """Like torch's TCPStore at init_method: rank 0 listens, the others connect. They agree on
    the slowest rank's busbw, which a ring's collectives run at."""
    import socket

    addr, port = init_method[len("tcp://"):].rsplit(":", 1)
    port = int(port)
    deadline = time.time() + seconds
    if rank == 0:
        srv = socket.socket()
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind(("", port))
        srv.listen(world)
        srv.settimeout(seconds)
        conns, rates = [], [bw]
        while len(conns) < world - 1:
            c, _ = srv.accept()
            rates.append(float(c.makefile().readline()))
            conns.append(c)
        low = min(rates)
        for c in conns:
            c.sendall(("%r\n" % low).encode())
            c.close()
        srv.close()
        return low
    while True:
        try:
            c = socket.create_connection((addr, port), timeout=2)
            break
        except OSError:
            if time.time() > deadline:
                raise RuntimeError("rendezvous with %s:%d timed out" % (addr, port))
            time.sleep(0.05)
    c.sendall(("%r\n" % bw).encode())
    low = float(c.makefile().readline())
    c.close()
    return low


def init_process_group(backend, init_method=None, rank=0, world_size=1, timeout=None):
    if os.environ.get("FAKE_HANG") == "init":  # a rank stuck in NCCL init (a fabric that drops it)
        time.sleep(3600)
    once = os.environ.get("FAKE_PORT_TAKEN_ONCE")  # the rendezvous port taken after the probe chose it
    if once and not os.path.exists(once):
        open(once, "w").close()
        raise RuntimeError("The server socket has failed to listen on any local network address. "
                           "port: %s, useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use"
                           % init_method.rsplit(":", 1)[-1])
    _state.update(rank=rank, world=world_size)
    mine = float(os.environ.get("FAKE_BUSBW_GBPS", "10"))
    _state["bw"] = _rendezvous(init_method, rank, world_size, mine, timeout.total_seconds() if timeout else 30)
    host = os.environ.get("FAKE_HOST", "fakehost")
    via = os.environ.get("FAKE_TRANSPORT", "NET/Socket/0")
    pid = os.getpid()
    print("%s:%d:%d [0] NCCL INFO comm 0x1 rank %d nranks %d cudaDev 0 nvmlDev 0 busId 1000 commId 0x2 - Init START"
          % (host, pid, pid, rank, world_size), flush=True)
    nxt = (rank + 1) % world_size
    print("%s:%d:%d [0] NCCL INFO Channel 00/0 : %d[0] -> %d[0] [send] via %s" % (host, pid, pid, rank, nxt, via),
          flush=True)


def _sleep(nbytes, factor):
    time.sleep(nbytes * factor / (_state["bw"] * 1e9))


def all_reduce(t, op=ReduceOp.SUM):
    n = _state["world"]
    if t.data is not None and op == ReduceOp.SUM:  # the probe's check: ranks hold rank+1, the sum is n(n+1)/2
        t.data = [n * (n + 1) / 2.0] * t.numel_
    if t.numel_ > 4096:
        _sleep(t.nbytes, 2.0 * (n - 1) / n)


def all_gather_into_tensor(out, inp):
    n = _state["world"]
    _sleep(out.nbytes, (n - 1.0) / n)


def destroy_process_group():
    _state.clear()

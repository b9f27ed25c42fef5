"""NCCL's ``NCCL_DEBUG=INFO`` lines: the prefix, and the values each kind of line carries.

One reader for both places that read these lines: explain (gpudoctor/explain/ncclinfo.py, the
lines of a pasted log, classified by the generated INFO sites of tools/gen_nccl_info.py) and the
probe (gpudoctor/probe/nccl_log.py, the lines its own workers printed). Pure functions of text;
every pattern is bounded (the text is untrusted and may be a 100 MB log).

The formats follow NCCL's source (github.com/NVIDIA/nccl, v2.30 tree, and the same lines in
2.4-2.29; generated/nccl_info.json lists each site with its file and line):
- src/debug.cc: every line starts ``%s:%d:%d [%d] NCCL INFO `` (hostname, pid, tid, cudaDev);
- src/init.cc: ``NCCL version %d.%d.%d%s+cuda%d.%d`` (VERSION_STRING), ``Using network %s``,
  ``comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx ...``,
  ``comm %p rank %d nRanks %d nNodes %d localRanks %d ...``, ``%d coll channels, ...``;
- src/misc/cudawrap.cc: ``cudaDriverVersion %d``;
- src/transport/net_ib (init.cc): ``NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB ib0:10.0.0.1<0>``;
- src/transport/net_socket.cc: ``NET/Socket : Using [0]eth0:10.0.0.1<0>``;
- src/bootstrap.cc: ``Bootstrap : Using eth0:10.0.0.1<0>`` (2.4-2.18 with a blank before the colon);
- src/plugin/net.cc: ``Failed to initialize NET plugin %s``;
- src/misc/param.cc and the string settings: ``NCCL_X set by environment to %s`` / ``NCCL_X set to %s``;
- src/graph/topo.cc: ``NET/IB : GPU Direct RDMA Enabled|Disabled for HCA %d '%s'``;
- src/transport/{p2p,shm,net,coll_net}.cc: ``Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/%s/%d%s%s%s``
  (``/GDRDMA``, ``(PCI)``, ``/Shared``; ``NET/%s/%d(%d)`` with a proxy rank under PXN),
  ``via P2P/CUMEM/read``, ``via SHM/direct``; before 2.7 ``Ring %02d : %d[%lx] -> %d[%lx]`` (2.4-2.6
  without the device), and ``CollNet %02d/%1d : %d [send] via COLLNET/%s/%d%s``;
- src/transport/nvls.cc: ``NVLS multicast support is %savailable on dev %d``.
"""

import re

# `host:pid:tid [dev] NCCL INFO msg` (src/debug.cc). Pasted logs carry other prefixes (timestamps,
# torch's "[rank0]:", mpirun's "[1,0]<stdout>:") or lose the host part: the INFO marker anchors it.
PREFIX = re.compile(r"(?:(?:^|(?<=[\s\]>:]))(?P<host>[A-Za-z0-9][\w.-]{0,62}):(?P<pid>\d{1,9}):(?P<tid>\d{1,9})"
                    r"\s{1,8})?(?:\[(?P<dev>[^\]\n]{0,16})\]\s{1,8})?NCCL INFO ")

_VERSION = re.compile(r"NCCL version (?P<full>[0-9][0-9.]{0,20}\S{0,80})")
_NUMBER = re.compile(r"\d{1,3}\.\d{1,3}\.\d{1,3}")
_DRIVER = re.compile(r"cudaDriverVersion (\d{1,9})")
_NETWORK = re.compile(r"Using network (\S{1,60})")
_PLUGIN = re.compile(r"NET plugin (\S{1,60})")
_USING = re.compile(r"NET/(IB|Socket) ?: Using\b")
_IB_DEV = re.compile(r"\[(?P<i>\d{1,3})\](?P<dev>[\w.-]{1,40}):(?P<port>\d{1,3})(?::[^/\s;]{0,40})?/(?P<link>\w{1,16})")
_OOB = re.compile(r"OOB (?P<oob>[^:\s]{1,40}):(?P<addr>\S{1,80})")
_SOCK_IF = re.compile(r"\[(?P<i>\d{1,3})\](?P<name>[\w.@-]{1,40}):(?P<addr>\S{0,80})")
_BOOT = re.compile(r"Using ?(?:\[\d{1,3}\])?([\w.@-]{1,40}):")
_ENV = re.compile(r"(?P<name>NCCL_[A-Z0-9_]{1,60}) set (?P<by>by environment )?to (?P<value>\S{0,120}?)\.?\s{0,8}$")
_GDR = re.compile(r"NET/(?P<net>[\w-]{1,40}) ?: GPU Direct RDMA (?P<state>Enabled|Disabled) for HCA (?P<i>\d{1,4}) "
                  r"'(?P<dev>[^'\n]{1,60})'")
# Channel/Ring lines name both ranks (with their device from 2.5 on); CollNet/Coll lines one rank
_CHANNEL = re.compile(
    r"\b(?:Channel|Ring|CollNet|Coll) (?P<ch>\d{1,3})(?:/(?P<idx>\d{1,3}))? : (?P<src>\d{1,9})"
    r"(?:\[[0-9a-fA-F]{1,16}\])?(?: -> (?P<dst>\d{1,9})(?:\[[0-9a-fA-F]{1,16}\])?)?(?: \[(?:send|receive)\])? "
    r"via (?P<via>direct shared memory|P2P/direct pointer\S{0,40}|\S{1,120})")
_COMM = re.compile(r"comm 0x[0-9a-fA-F]{1,16} rank (?P<rank>\d{1,9}) nranks (?P<nranks>\d{1,9}) cudaDev (?P<cuda>\d{1,4})"
                   r"(?: nvmlDev (?P<nvml>\d{1,4}))?(?: busId (?P<bus>[0-9a-fA-F]{1,16}))?")
_SHAPE = re.compile(r"nRanks (\d{1,9}) nNodes (\d{1,9})")
_COLL = re.compile(r"^(\d{1,4}) coll channels")
_NVLS = re.compile(r"NVLS multicast support is (not )?available")

MAX_ITEMS = 64  # devices / interfaces read from one line


def split(line):
    """(host, pid, msg) of one NCCL INFO line (host and pid None when the line lost them), or None
    for a line that is not NCCL's INFO."""
    m = PREFIX.search(line)
    if m is None:
        return None
    return m.group("host"), m.group("pid"), line[m.end():]


def version(msg):
    """``NCCL version 2.28.9+cuda13.0`` -> ("2.28.9+cuda13.0", "2.28.9"); the number is None when
    the token has no three parts. None when the line prints no version."""
    v = _VERSION.search(msg)
    if v is None:
        return None
    n = _NUMBER.match(v.group("full"))
    return v.group("full"), n.group(0) if n else None


def _one(rx, msg):
    m = rx.search(msg)
    return m.group(1) if m else None


def cuda_driver(msg):
    """``cudaDriverVersion 13000`` -> "13000"."""
    return _one(_DRIVER, msg)


def network(msg):
    """``Using network IB`` -> "IB"."""
    return _one(_NETWORK, msg)


def plugin_failed(msg):
    """``Failed to initialize NET plugin IB`` -> "IB"."""
    return _one(_PLUGIN, msg)


def coll_channels(msg):
    """``32 coll channels, ...`` -> "32"."""
    return _one(_COLL, msg)


def bootstrap_iface(msg):
    """``Bootstrap : Using eth0:10.0.0.1<0>`` -> "eth0"."""
    return _one(_BOOT, msg)


def net_using(msg):
    """"IB" for a line that starts ``NET/IB : Using``, "Socket" for ``NET/Socket : Using``, else None."""
    u = _USING.match(msg)
    return u.group(1) if u else None


def ib_using(msg):
    """``NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB ib0:10.0.0.1<0>`` ->
    {"devices": [{"index", "device", "port", "link"}], "oob": "ib0" or None}."""
    head, _, tail = msg.partition(";")
    devs = [{"index": int(d.group("i")), "device": d.group("dev"), "port": int(d.group("port")),
             "link": d.group("link")} for _, d in zip(range(MAX_ITEMS), _IB_DEV.finditer(head))]
    o = _OOB.search(tail)
    return {"devices": devs, "oob": o.group("oob") if o else None}


def socket_ifs(msg):
    """``NET/Socket : Using [0]eth0:10.0.0.1<0> [1]ib0:...`` -> [{"index", "name", "addr"}]."""
    return [{"index": int(d.group("i")), "name": d.group("name"), "addr": d.group("addr")}
            for _, d in zip(range(MAX_ITEMS), _SOCK_IF.finditer(msg))]


def env(msg):
    """``NCCL_P2P_DISABLE set by environment to 1.`` -> ("NCCL_P2P_DISABLE", "1"), or None."""
    e = _ENV.search(msg.rstrip())
    return (e.group("name"), e.group("value")) if e else None


def gdr(msg):
    """``NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'`` ->
    {"net": "IB", "enabled": True, "index": 0, "device": "mlx5_0"}, or None."""
    g = _GDR.search(msg)
    if g is None:
        return None
    return {"net": g.group("net"), "enabled": g.group("state") == "Enabled", "index": int(g.group("i")),
            "device": g.group("dev")}


def kind_of(via):
    """The transport family of one ``via ...`` string, and whether GPUDirect RDMA is used.

    ``P2P/CUMEM/read`` -> ("P2P/CUMEM", False); ``NET/IB/0/GDRDMA`` -> ("NET/IB", True);
    ``NET/Socket/1`` -> ("NET/Socket", False); ``SHM/direct/direct`` -> ("SHM", False);
    ``direct shared memory`` (before 2.5) -> ("SHM", False); ``COLLNET/IB/0/GDRDMA`` ->
    ("COLLNET/IB", True) (src/transport/coll_net.cc prints ``via COLLNET/%s/%d%s``).
    """
    if via == "direct shared memory":
        return "SHM", False
    parts = via.split("/")
    head = parts[0]
    if head in ("NET", "COLLNET") and len(parts) > 1:  # COLLNET/%s/%d%s: the same "/GDRDMA" suffix
        return head + "/" + parts[1], any(p.startswith("GDRDMA") for p in parts)
    if head == "P2P" and len(parts) > 1:
        return "P2P/" + parts[1].split()[0], False  # "direct pointer" -> P2P/direct
    if head == "SHM":
        return "SHM", False
    return head, False


def channel(msg):
    """A ``Channel``/``Ring``/``CollNet`` connection line -> {"channel", "src", "dst", "via", "kind",
    "gdr"} (dst None on a CollNet line), or None."""
    c = _CHANNEL.search(msg)
    if c is None:
        return None
    kind, gdr_ = kind_of(c.group("via"))
    if kind.endswith("/"):  # "via NET//0": no transport named
        return None
    dst = c.group("dst")
    return {"channel": int(c.group("ch")), "src": int(c.group("src")), "dst": int(dst) if dst is not None else None,
            "via": c.group("via"), "kind": kind, "gdr": gdr_}


def comm_rank(msg):
    """``comm 0x... rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 1b000 ...`` -> {"rank", "nranks",
    "cuda_dev", "bus_id"}, or None."""
    c = _COMM.search(msg)
    if c is None:
        return None
    return {"rank": int(c.group("rank")), "nranks": int(c.group("nranks")), "cuda_dev": int(c.group("cuda")),
            "bus_id": c.group("bus")}


def comm_shape(msg):
    """``comm 0x... rank 0 nRanks 16 nNodes 2 ...`` -> (16, 2), or None."""
    s = _SHAPE.search(msg)
    return (int(s.group(1)), int(s.group(2))) if s else None


def nvls(msg):
    """``NVLS multicast support is not available on dev 0`` -> "not available" ("available"), or None."""
    n = _NVLS.search(msg)
    if n is None:
        return None
    return "not available" if n.group(1) else "available"

"""What NCCL's INFO lines say it chose, and when that choice is the answer.

A slow or hung job often leaves no WARN and no error: the paste is NCCL_DEBUG=INFO output. The
cause is in which transport, network and interface NCCL chose. tools/gen_nccl_info.py reads those
INFO format strings from NCCL's source (generated/nccl_info.json: each site with its class); the
scan records the lines they match (role "fact", at most MAX_KEPT values per fact), record() reads
the values from each line, and judge() turns them into facts (result["nccl_info"]) and, when the
facts are clearly wrong across nodes or the text says the job was slow or hung, into an answer
that says how sure it is:

- inter-node traffic over TCP sockets while an HCA was expected (NET/IB lists an HCA on a node that
  uses sockets, or no HCA on some nodes while others have them): nccl.ib_no_device, a cause;
- a loopback / docker / virtual interface chosen for a job of several nodes: nccl.socket_ifname;
- GPU Direct RDMA enabled for the HCAs of some nodes and disabled on others: rdma.peermem;
- a complaint (hang, stuck, very slow) with sockets, GDR off, P2P off or NVLS in the lines: that
  family, hedged; with none of them: nccl.info_only (what to capture next).

A healthy INFO log (IB used; one node over P2P/SHM; sockets on nodes that have no HCA and no
complaint) gets the facts as a note and no root cause.
"""

import re

from gpudoctor import nccl_infolog as infolog
from gpudoctor.explain.knowledge import Pattern

MAX_KEPT = 64  # distinct values kept per fact (hosts, interfaces, HCAs, settings)
_ENTRY = "_nccl_info"
_BAD_IFACE = re.compile(r"^(?:lo|docker\d{0,3}|virbr\d{0,3}|veth[0-9a-f]{0,16}|br-[0-9a-f]{0,16}|cni\d{0,3}|"
                        r"flannel\.\d{1,3}|tailscale\d{0,3}|podman\d{0,3})$")

# The text of a user who says the job is slow or hangs (never NCCL's own lines: record() drops
# complaint words on a line NCCL printed). "may/could hang" in a library's warning is no complaint.
COMPLAINTS = [
    r"(?<!may )(?<!could )(?<!might )(?<!can )(?<!will )\bhangs?\b",
    r"\bhung\b",
    r"\bhanging\b",
    r"\b(?:is|are|gets?|got|seems?|was|remains?) stuck\b",
    r"\bstuck (?:at|in|on|after|forever)\b",
    # the job freezes / is freezing / freezing at step N; not a fine-tuning log's "Freezing the vision tower",
    # "freezing embeddings: True" (freezing parameters)
    r"\bfreezes\b",
    r"\b(?:is|are|was|were|keeps?|kept|gets?|got|starts?|started) freezing\b",
    r"\bfreezing (?:at|on|after|up|forever|when|during|randomly)\b",
    # "Disabling parallelism to avoid deadlocks..." (huggingface/tokenizers' fork warning, printed without a
    # level by child_after_fork, huggingface/tokenizers bindings/python/src/lib.rs) and "could deadlock" are no complaint
    r"(?<!avoid )(?<!prevent )(?<!may )(?<!could )(?<!might )(?<!can )(?<!will )\bdeadlock(?:ed|s)?\b",
    r"\b(?:very|too|extremely|really|much|super) slow\b",
    r"(?<!may be )(?<!might be )(?<!can be )(?<!could be )(?<!will be )\bslow(?:er)? than (?:expected|before|usual|on)\b",
    r"\blow (?:bus ?)?bandwidth\b",
    r"\bno progress\b",
]
# The user's words that the job spans nodes (a paste without hostnames: "cross-node all_reduce is slow")
MULTI_NODE = [r"\b(?:cross|inter|multi)[- ]?nodes?\b", r"\b(?:multiple|several|two|three|four|[2-9]) (?:nodes|machines|hosts)\b"]


# The classes the scan looks for: those judge() reads. The table has more (P2P and SHM channel
# lines, Init START/COMPLETE, ring and channel counts); they are left out of the scan because a
# log of many communicators prints them by the tens of thousands, and every such line a candidate
# costs the 100 MB benchmark (bench/explain_bench.py) about half its time again.
SCANNED = ("version", "cuda_driver", "ib_none", "ib_active", "socket_iface", "bootstrap_iface", "net_chosen",
           "net_init_failed", "env", "gdr", "channel_net", "channel_collnet", "p2p_off", "nvls", "comm_shape")


def patterns():
    """Scan patterns (role "fact") for the classified INFO sites of the generated table whose
    class is SCANNED, and the complaint phrases."""
    from gpudoctor.explain.knowledge import read_generated

    out = []
    try:
        doc = read_generated("nccl_info")
    except (OSError, ValueError):
        return out
    for s in doc.get("info_sites", []):
        if s.get("re") and s.get("needles") and s["class"] in SCANNED:
            site = {"id": s["id"], "where": s["where"], "text": s["text"], "class": s["class"],
                    "source": "nccl_info"}
            out.append(Pattern(_ENTRY, "fact", s["re"], 0, site=site, needles=s["needles"]))
    for rx in COMPLAINTS:
        out.append(Pattern(_ENTRY, "fact", rx, 0, site=None))
    for rx in MULTI_NODE:
        out.append(Pattern(_ENTRY, "fact", rx, 0, site={"class": "multi_text", "id": "user-text"}))
    return out


def _state(scan):
    st = getattr(scan, "nccl_info", None)
    if st is None:
        st = scan.nccl_info = {"count": {}, "first": {}, "last_line": 0, "last_class": None, "hosts": {},
                               "versions": {}, "drivers": {}, "ib_none": {}, "ib_devices": {}, "socket_ifaces": {},
                               "bootstrap_ifaces": {}, "nets": {}, "net_failed": {}, "env": {}, "gdr": {},
                               "transports": {}, "gdrdma_channels": 0, "max_channel": -1, "nvls": {}, "nodes": 0,
                               "nranks": {}, "coll_channels": {}, "complaint": None, "p2p_off": None, "seen": None,
                               "multi_text": None}
    return st


def _add(d, key, value):
    """d[key] = a set of values (as a sorted list later), bounded."""
    if key not in d and len(d) >= MAX_KEPT:
        return
    got = d.setdefault(key, [])
    if value not in got and len(got) < MAX_KEPT:
        got.append(value)


def record(scan, hit):
    """One line a fact pattern matched: read its values (gpudoctor/nccl_infolog.py) into the scan's state."""
    st = _state(scan)
    text = hit.text
    site = hit.pattern.site
    got = infolog.split(text)
    # (a logger's INFO/WARN line, 'UserWarning: ... may be very slow', is a program's words, not the user's)
    users = got is None and "NCCL INFO" not in text and "NCCL WARN" not in text and hit.severity is None
    if site is None:  # a complaint phrase, on a line of the user's (never NCCL's own)
        # (nor a warning of what may happen, 'This can potentially cause a hang if ...': outcome.foretells)
        from gpudoctor.explain.outcome import foretells

        if users and st["complaint"] is None and not foretells(text):
            st["complaint"] = (hit.line, text[:300])
        return
    cls = site["class"]
    if cls == "multi_text":  # the user says the job spans nodes
        if users and st["multi_text"] is None:
            st["multi_text"] = (hit.line, text[:300])
        return
    if st["seen"] == (hit.line, cls):  # one line that the formats of several releases match: once
        return
    st["seen"] = (hit.line, cls)
    host, pid, body = got if got else (None, None, text)
    st["count"][cls] = st["count"].get(cls, 0) + 1
    st["first"].setdefault(cls, (hit.line, text[:300]))
    if hit.line >= st["last_line"]:
        st["last_line"], st["last_class"] = hit.line, cls
    hkey = host or "?"
    if host:
        _add(st["hosts"], hkey, pid)
    if cls in _VALUE_HOSTS:  # a value and the hosts that printed it
        read, key = _VALUE_HOSTS[cls]
        value = read(body)
        if value:
            _add(st[key], value, hkey)
    elif cls == "ib_none":
        _add(st["ib_none"], hkey, hit.line)
    elif cls == "ib_active":
        for d in infolog.ib_using(body)["devices"][:8]:
            if d["link"] in ("IB", "RoCE"):
                _add(st["ib_devices"], hkey, "%s:%s/%s" % (d["device"], d["port"], d["link"]))
    elif cls == "socket_iface":
        for i in infolog.socket_ifs(body)[:8]:
            _add(st["socket_ifaces"], hkey, i["name"])
    elif cls == "bootstrap_iface":
        b = infolog.bootstrap_iface(body)
        if b:
            _add(st["bootstrap_ifaces"], hkey, b)
    elif cls == "env":
        e = infolog.env(body)
        if e and e[1]:
            _add(st["env"], e[0], e[1])
            st["first"].setdefault("env:" + e[0], (hit.line, text[:300]))
    elif cls == "gdr":
        g = infolog.gdr(body)
        if g:
            _add(st["gdr"], "%s %s" % (g["net"], g["device"]), "%s@%s" % ("Enabled" if g["enabled"] else "Disabled",
                                                                          hkey))
    elif cls.startswith("channel_"):
        c = infolog.channel(body)
        if c:
            if hkey in st["transports"] or len(st["transports"]) < MAX_KEPT:
                per = st["transports"].setdefault(hkey, {})
                per[c["kind"]] = per.get(c["kind"], 0) + 1
            st["max_channel"] = max(st["max_channel"], c["channel"])
            if c["gdr"]:
                st["gdrdma_channels"] += 1
    elif cls == "comm_shape":
        s = infolog.comm_shape(body)
        if s:
            st["nodes"] = max(st["nodes"], s[1])
            _add(st["nranks"], str(s[0]), hkey)
    elif cls == "nvls":
        n = infolog.nvls(body)
        if n:
            _add(st["nvls"], n, hkey)
    elif cls == "p2p_off" and st["p2p_off"] is None:
        st["p2p_off"] = (hit.line, text[:300])


def _version_number(body):
    v = infolog.version(body)
    return v[1] if v else None


# classes whose line gives one value: class -> (reader, state key of {value: [hosts]})
_VALUE_HOSTS = {"version": (_version_number, "versions"), "cuda_driver": (infolog.cuda_driver, "drivers"),
                "net_chosen": (infolog.network, "nets"), "net_init_failed": (infolog.plugin_failed, "net_failed"),
                "channels": (infolog.coll_channels, "coll_channels")}


def facts(st):
    """The JSON-able summary of what NCCL said it chose."""
    env = {k: v[0] if len(v) == 1 else v for k, v in sorted(st["env"].items())}
    hosts = sorted(h for h in st["hosts"] if h != "?")
    return {
        "lines": sum(st["count"].values()), "hosts": hosts[:MAX_KEPT], "nodes": st["nodes"] or None,
        "processes": sum(len(v) for v in st["hosts"].values()),
        "versions": {v: sorted(h) for v, h in sorted(st["versions"].items())},
        "cuda_driver": {v: sorted(h) for v, h in sorted(st["drivers"].items())},
        "network": {n: sorted(h) for n, h in sorted(st["nets"].items())},
        "net_init_failed": sorted(st["net_failed"]),
        "ib_no_device": sorted(st["ib_none"]),
        "ib_devices": {h: v for h, v in sorted(st["ib_devices"].items())},
        "socket_interfaces": {h: v for h, v in sorted(st["socket_ifaces"].items())},
        "bootstrap_interfaces": {h: v for h, v in sorted(st["bootstrap_ifaces"].items())},
        "gdr": {k: sorted(v) for k, v in sorted(st["gdr"].items())},
        "transports": _total(st["transports"]), "gdrdma_channels": st["gdrdma_channels"],
        "transports_by_host": {h: dict(sorted(t.items())) for h, t in sorted(st["transports"].items())},
        "channels": st["max_channel"] + 1 if st["max_channel"] >= 0 else None,
        "coll_channels": sorted(st["coll_channels"]), "nvls": {k: sorted(v) for k, v in sorted(st["nvls"].items())},
        "env": env,
        "complaint": {"line": st["complaint"][0], "text": st["complaint"][1]} if st["complaint"] else None,
    }


def _total(by_host):
    out = {}
    for per in by_host.values():
        for k, n in per.items():
            out[k] = out.get(k, 0) + n
    return dict(sorted(out.items()))


def _socket_hosts(fx):
    """The hosts whose communicators use NCCL's socket transport."""
    got = set(fx["network"].get("Socket", []))
    # 'NET/Socket : Using' on a host whose NET/IB found no HCA: NCCL initialises its networks in turn and
    # stops at the first that works (src/plugin/net.cc), so sockets are that host's network
    got |= {h for h in fx["socket_interfaces"] if h not in fx["ib_devices"]}
    return got | {h for h, t in fx["transports_by_host"].items() if "NET/Socket" in t}


def _summary(fx):
    parts = []
    if fx["network"]:
        parts.append("network %s" % ", ".join("%s (%s)" % (n, ", ".join(h[:4])) for n, h in fx["network"].items()))
    ifs = sorted({i for v in fx["socket_interfaces"].values() for i in v})
    if ifs:
        parts.append("socket interface %s" % ", ".join(ifs[:6]))
    devs = sorted({d for v in fx["ib_devices"].values() for d in v})
    if devs:
        parts.append("HCAs %s" % ", ".join(devs[:6]))
    if fx["ib_no_device"]:
        parts.append("NET/IB found no device on %s" % ", ".join(fx["ib_no_device"][:4]))
    if fx["transports"]:
        parts.append("channel connections via %s" % ", ".join("%s x%d" % kv for kv in fx["transports"].items()))
    if fx["nodes"]:
        parts.append("%d node(s)" % fx["nodes"])
        if fx["nodes"] == 1 and len(fx["hosts"]) <= 1 and not any(k.startswith(("NET/", "COLLNET/"))
                                                                   for k in fx["transports"]):
            # NCCL connects ranks of one node with its P2P or SHM transport and uses the network plugin between
            # nodes only (src/transport.cc selectTransport tries p2p, shm, then net); both off puts them on the net
            off = [k for k in ("NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE") if str(fx["env"].get(k, "0")) not in ("0", "")]
            parts.append("one node: its ranks talk over %s, not over the network named above" % (
                "NCCL's network transport (NCCL_P2P_DISABLE and NCCL_SHM_DISABLE set)" if len(off) == 2 else
                "shared memory (SHM; NCCL_P2P_DISABLE set)" if off == ["NCCL_P2P_DISABLE"] else
                "P2P (NVLink / PCIe)" if off == ["NCCL_SHM_DISABLE"] else "P2P (NVLink / PCIe) or shared memory"))
    if fx["versions"]:
        parts.append("NCCL %s" % ", ".join(fx["versions"]))
    set_ = [k for k in fx["env"] if k not in ("NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_HOSTID")]
    if set_:
        parts.append("set: %s" % ", ".join("%s=%s" % (k, fx["env"][k]) for k in set_[:6]))
    return "; ".join(parts)


def _multi(fx, st):
    return (fx["nodes"] or 0) > 1 or len(fx["hosts"]) > 1 or st["multi_text"] is not None


def _sockets(fx):
    return bool(_socket_hosts(fx))


CONFIRM = ("NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,ENV,GRAPH on every node: the 'NET/IB : Using', 'NET/Socket : "
           "Using', 'Using network' and 'Channel ... via' lines of each node")


def judge(result, scan, kb):
    """Add result["nccl_info"] (the facts) and, where they say so, a root finding. Returns the
    finding added, or None."""
    st = getattr(scan, "nccl_info", None)
    if not st or not st["count"]:
        return None
    fx = facts(st)
    result["nccl_info"] = fx
    _forgive_ib_decline(result, scan, st, fx)
    verdict = result["verdict"]
    got = None
    if verdict in ("no_error", "unknown_error") or not result["findings"]:
        got = _answer(fx, st, scan, kb)
    if got is not None and got["id"] == "nccl.socket_ifname" and verdict == "no_error" and _one_host_loopback(fx, st):
        result["context"].append({"id": "nccl.socket_ifname", "severity": "info", "note": _ONE_HOST % fx["hosts"][0],
                                  "fix": "nothing to fix on one host; for a job across machines set NCCL_SOCKET_IFNAME "
                                         "to the NIC the nodes share", "first_line": got["first_line"],
                                  "text": got["matches"][0]["text"] if got["matches"] else None, "match_count": 1})
        got = None
    if got is not None:
        result["findings"].insert(0, got)
        for f in result["findings"][1:]:
            if f["role"] == "root":
                f["role"] = "related"
        result["verdict"], result["matched"], result["root"] = "root_cause", True, got["id"]
        result["errors"], result["triage"] = [], []
        result["context"] = [n for n in result["context"] if n["id"] != got["id"]]
    fx["summary"] = _summary(fx) or None  # render.py prints it under the notes
    vm = next((f for f in result["findings"] if f["id"] == "nccl.version_mismatch"), None)
    if vm is not None and len(fx["versions"]) > 1 and any(h != ["?"] for h in fx["versions"].values()):
        # which host prints which version: the node to fix is the one in the minority
        vm["notes"].insert(0, "NCCL version per host (from the INFO lines): %s." % "; ".join(
            "%s on %s" % (v, ", ".join(h[:6]) + (" and %d more" % (len(h) - 6) if len(h) > 6 else ""))
            for v, h in sorted(fx["versions"].items(), key=lambda kv: len(kv[1]))))
    return got


# NCCL's INFO prefix is '<hostname>:<pid>:<tid> [dev]' (src/debug.cc ncclDebugLog: the real gethostname), while the
# node count it prints comes from its host hash, which NCCL_HOSTID overrides (src/misc/utils.cc getHostHash): two
# "nodes" whose every line names one host are processes of one machine, where lo reaches every rank
_ONE_HOST = ("NCCL uses the loopback interface for what it counts as several nodes, but every NCCL line comes from "
             "one host (%s): the ranks run on one machine, where lo reaches them all, and nothing failed")


def _one_host_loopback(fx, st):
    """Every bad interface NCCL names is lo, every NCCL line's prefix names one host (no line without one), and the
    user does not say the job spans nodes or is slow."""
    ifaces = {i for d in (fx["socket_interfaces"], fx["bootstrap_interfaces"]) for v in d.values() for i in v}
    bad = {i for i in ifaces if _BAD_IFACE.match(i)}
    return bad == {"lo"} and len(fx["hosts"]) == 1 and set(st["hosts"]) == set(fx["hosts"]) and \
        st["multi_text"] is None and st["complaint"] is None


def _forgive_ib_decline(result, scan, st, fx):
    """NCCL >= 2.2x tries the IB plugin first and, when it declines (NCCL_IB_DISABLE=1, no HCA),
    prints its return chain at INFO ('transport/net_ib.cc:852 -> 3', then 'Failed to initialize
    NET plugin IB') and goes on with sockets: a root made only of those chain lines is not an
    error when NCCL then chose a network."""
    if not (result["findings"] and "IB" in fx["net_init_failed"] and fx["network"]):
        return
    f = result["findings"][0]
    chain = re.compile(r"NCCL INFO [\w/.-]{0,80}net_ib[\w/.-]{0,40}\.cc:\d{1,6} -> \d{1,2}\s*$")
    if f["role"] != "root" or not f["matches"] or not all(chain.search(h["text"]) for h in f["matches"]):
        return
    if scan.matches.get("_struct_nccl_warn"):
        return  # an NCCL WARN line: not only the decline
    result["findings"].pop(0)
    if result["findings"]:
        result["findings"][0]["role"] = "root"
        result["root"] = result["findings"][0]["id"]
        return
    result["verdict"], result["matched"], result["root"] = "no_error", False, None
    result["errors"], result["triage"] = [], []
    result["context"].append({"id": "nccl.ib_declined", "severity": "info",
                              "note": "NCCL's IB transport declined to start (%s) and NCCL went on with %s: the "
                                      "'net_ib.cc:N -> 3' INFO lines are that, not an error."
                              % ("NCCL_IB_DISABLE=%s" % fx["env"]["NCCL_IB_DISABLE"] if "NCCL_IB_DISABLE" in fx["env"]
                                 else "no usable HCA", ", ".join(fx["network"])),
                              "fix": "nothing to fix unless InfiniBand/RoCE was expected: then see nccl.ib_no_device",
                              "first_line": f["first_line"], "text": f["matches"][0]["text"],
                              "match_count": f["match_count"]})


def _hca_expected(fx, st):
    """[(why, line)] of what says this job was meant to use an HCA."""
    # (NCCL_IB_DISABLE=1 alone is no such evidence: on nodes without an HCA, cloud VMs, users set it on purpose)
    why = []
    both = sorted(set(fx["ib_devices"]) & _socket_hosts(fx))
    if both:
        why.append(("NET/IB lists HCAs (%s) on %s yet NCCL uses sockets there" % (
            ", ".join(sorted({d for h in both for d in fx["ib_devices"][h]})[:4]), ", ".join(both[:4])),
            st["first"].get("ib_active", (None,))[0]))
    if set(fx["ib_no_device"]) & _socket_hosts(fx) and fx["ib_devices"]:
        why.append(("NET/IB found no device on %s but HCAs on %s: the nodes differ" % (
            ", ".join(fx["ib_no_device"][:4]), ", ".join(sorted(fx["ib_devices"])[:4])),
            st["first"].get("ib_none", (None,))[0]))
    return why


def _answer(fx, st, scan, kb):
    by = kb.by_id
    multi = _multi(fx, st)
    complaint = st["complaint"]
    bad = sorted({i for d in (fx["socket_interfaces"], fx["bootstrap_interfaces"]) for v in d.values() for i in v
                  if _BAD_IFACE.match(i)})
    if multi and bad and "nccl.socket_ifname" in by:
        line = (st["first"].get("socket_iface") or st["first"].get("bootstrap_iface") or (None,))[0]
        return _finding(by["nccl.socket_ifname"], scan, st, line, "cause", [
            "NCCL uses %s for a job of %s: another node cannot reach a loopback, docker bridge or virtual interface."
            % (", ".join(bad), "%d nodes" % fx["nodes"] if fx["nodes"] else "several hosts"),
            "Set the cluster network on every node: export NCCL_SOCKET_IFNAME=<the NIC, e.g. =eth0 or ib0> (or "
            "^lo,docker,veth,virbr to exclude them); confirm with " + CONFIRM + "."])
    why = _hca_expected(fx, st)
    if multi and _sockets(fx) and why and "nccl.ib_no_device" in by:
        return _finding(by["nccl.ib_no_device"], scan, st, why[0][1], "cause", [
            "Traffic between the nodes goes over TCP sockets (%s) while an HCA was expected: %s." % (
                ", ".join(sorted({i for v in fx["socket_interfaces"].values() for i in v})[:4]) or "NET/Socket",
                "; ".join(w for w, _ in why)),
            "Confirm: ibv_devinfo on every node (inside the job's container); " + CONFIRM + "; pin the HCAs with "
            "NCCL_IB_HCA=mlx5_0,mlx5_1 (=name for an exact match) once NET/IB lists them."])
    gdr_mixed = [k for k, v in fx["gdr"].items() if not k.startswith("Socket ")
                 and {s.split("@")[0] for s in v} == {"Enabled", "Disabled"}]
    if gdr_mixed and "rdma.peermem" in by:
        hosts = sorted({s.split("@", 1)[1] for k in gdr_mixed for s in fx["gdr"][k] if s.startswith("Disabled")})
        return _finding(by["rdma.peermem"], scan, st, st["first"].get("gdr", (None,))[0], "cause", [
            "GPU Direct RDMA is disabled for %s on %s but enabled elsewhere: those nodes stage every transfer through "
            "host memory and slow the whole job." % (", ".join(gdr_mixed[:3]), ", ".join(hosts[:4])),
            "On those nodes: lsmod | grep nvidia_peermem || sudo modprobe nvidia-peermem; then look for 'GPU Direct "
            "RDMA Enabled' with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET."])
    # (a slowdown only: two identities on one machine cost bandwidth; they do not make a job hang)
    told = _told_slow(scan) or (complaint if complaint and re.search(r"slow|bandwidth", complaint[1], re.I) else None)
    if told is not None and _one_host_nodes(fx, st) and "nccl.falls_back_to_sockets" in by:
        f = _finding(by["nccl.falls_back_to_sockets"], scan, st, st["first"].get("comm_shape", (told[0],))[0],
                     "cause", [_SPLIT_HOST % (told[0], _clip(told[1], 120), fx["hosts"][0], fx["nodes"],
                                              ", ".join("%s x%d" % kv for kv in fx["transports"].items()))])
        ids = fx["env"].get("NCCL_HOSTID")
        shown = (" NCCL's ENV lines show NCCL_HOSTID set to %s (line %d)." % (
            ", ".join(ids if isinstance(ids, list) else [ids])[:200], st["first"]["env:NCCL_HOSTID"][0])
            if ids and "env:NCCL_HOSTID" in st["first"] else "")
        f["causes"].insert(0, {"text": "The ranks run on one machine (%s) but have different NCCL host identities "
                                       "(NCCL_HOSTID set per rank, or each rank in its own container): NCCL counts "
                                       "%d nodes and connects them over the network.%s" % (fx["hosts"][0], fx["nodes"],
                                                                                            shown),
                               "checks": [], "confirm": [], "fix": [_SPLIT_HOST_FIX], "exports": {}, "static_rank": 0,
                               "computed": None, "evidence": []})
        return f
    if complaint is None:
        return None
    said = "the text says the job is slow or hangs (line %d: %s)" % (complaint[0], complaint[1][:120])
    if multi and _sockets(fx) and "nccl.ib_no_device" in by:
        return _finding(by["nccl.ib_no_device"], scan, st, complaint[0], "family", [
            "How sure: medium. %s, and NCCL sends traffic between the nodes over TCP sockets%s: several times slower "
            "than InfiniBand/RoCE, and the usual reason for a slow multi-node job when the nodes have HCAs. If they "
            "have none (cloud VMs without EFA/RDMA), sockets are expected and the cause is elsewhere (see nccl.info_only: "
            "a rank that is behind)." % (said, " (NCCL_IB_DISABLE=%s turned InfiniBand off)" % fx["env"]["NCCL_IB_DISABLE"]
                                          if str(fx["env"].get("NCCL_IB_DISABLE", "0")) != "0" else ""),
            "Confirm: ibv_devinfo on every node (inside the job's container); " + CONFIRM + "; once NET/IB lists "
            "the HCAs, pin them with NCCL_IB_HCA=<mlx5_N,...> (RoCE: NCCL_IB_GID_INDEX)."])
    ib_off = [k for k, v in fx["gdr"].items() if not k.startswith("Socket ") and any(s.startswith("Disabled") for s in v)]
    if ib_off and "rdma.peermem" in by:
        return _finding(by["rdma.peermem"], scan, st, st["first"].get("gdr", (None,))[0], "family", [
            "How sure: medium. %s, and GPU Direct RDMA is disabled for %s." % (said, ", ".join(ib_off[:3])),
            "Confirm: lsmod | grep nvidia_peermem on every node; sudo modprobe nvidia-peermem, then 'GPU Direct RDMA "
            "Enabled' in NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET."])
    p2p_env = str(fx["env"].get("NCCL_P2P_DISABLE", "0")) != "0" or fx["env"].get("NCCL_P2P_LEVEL") in ("LOC", "0")
    if (p2p_env or st["p2p_off"]) and "gpu.p2p" in by:
        line = st["first"].get("env:NCCL_P2P_DISABLE", st["p2p_off"] or (None,))[0]
        return _finding(by["gpu.p2p"], scan, st, line, "family", [
            "How sure: medium. %s, and peer-to-peer between the GPUs is off (%s): traffic inside the node goes "
            "through host memory (SHM) instead." % (said, "NCCL_P2P_DISABLE set" if p2p_env else "NCCL could not "
                                                    "enable P2P"),
            "Confirm: nvidia-smi topo -m; run without NCCL_P2P_DISABLE and compare nccl-tests all_reduce_perf; a hang "
            "with P2P on is usually PCIe ACS/IOMMU (see the causes)."])
    if "available" in fx["nvls"] and st["last_class"] in ("nvls", "comm_shape") and "nccl.nvls" in by:
        return _finding(by["nccl.nvls"], scan, st, st["first"].get("nvls", (None,))[0], "family", [
            "How sure: low. %s, and NCCL's last lines are its NVLink SHARP (NVLS) setup." % said,
            "Try once with NCCL_NVLS_ENABLE=0; check the fabric manager: nvidia-smi -q | grep -i -A3 fabric."])
    if "nccl.info_only" in by:
        f = _finding(by["nccl.info_only"], scan, st, complaint[0], "structural", [
            "How sure: low. %s; NCCL's INFO lines show no failure and nothing clearly wrong (%s)." % (
                said, _summary(fx) or "few facts"),
            "%s: find the rank that is behind (TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1, "
            "py-spy dump on every rank); if it hangs before the first step, check that every rank reached NCCL's "
            "init (an 'Init COMPLETE' line per rank with NCCL_DEBUG_SUBSYS=INIT) and that the nodes reach each other "
            "on the bootstrap interface" % ("NCCL set up %s channel(s) over the network" % fx["transports"].get(
                "NET/Socket", sum(fx["transports"].values())) if fx["transports"] else "No failure in NCCL's setup")])
        from gpudoctor.explain.hang import _SLOW

        if not _SLOW.search(complaint[1]):
            # the text says it hangs, not that it is slow: an NCCL hang whose INFO lines show nothing wrong (wrong16:
            # its family is nccl.hang's, as hang.judge's own answer for the same text without these lines would be)
            f["family"] = "nccl.hang"
        return f
    return None


# NCCL counts nodes by a host hash, "Equivalent of a hash of; $(hostname)$(cat /proc/sys/kernel/random/boot_id)",
# which "can be overridden by using the NCCL_HOSTID env var" (src/misc/utils.cc getHostHash,
# https://github.com/NVIDIA/nccl/blob/master/src/misc/utils.cc); its INFO prefix is the real gethostname (src/debug.cc).
# Ranks whose every line names one host, counted as several nodes, have different host hashes on one machine: a
# per-rank NCCL_HOSTID (a wrapper giving each rank its own identity, as separate containers would have), and so
# NCCL connects them over the network instead of P2P / shared memory (words16)
_SPLIT_HOST = ("How sure: high. Your words tell a slowdown (line %d: %s), and every NCCL line comes from one host (%s) "
               "while NCCL counts %d nodes (nNodes, localRanks 1): NCCL groups ranks by a hash of the hostname and "
               "the boot id, which NCCL_HOSTID replaces (src/misc/utils.cc getHostHash), so these ranks have different "
               "host identities on one machine and talk over the network (%s) instead of NVLink / PCIe P2P or shared "
               "memory.")
_SPLIT_HOST_FIX = ("Give the ranks of one machine one host identity: unset NCCL_HOSTID (or set it per machine, never per "
                   "rank) in the launcher's wrapper and environment, and run the ranks of one machine in one container / "
                   "pod; confirm with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV: 'NCCL_HOSTID set by environment to' "
                   "per rank, then 'nNodes 1' and channels 'via P2P' or 'via SHM'.")


def _one_host_nodes(fx, st):
    """Every NCCL line names one host (no line without one), at least two processes print, NCCL counts more than one
    node, the channels go over the network, and every rank of the communicator printed from that host (nRanks): one
    node's own log of a job across nodes also names one host, with fewer processes than nRanks (review16)."""
    return len(fx["hosts"]) == 1 and set(st["hosts"]) == set(fx["hosts"]) and (fx["nodes"] or 0) > 1 and \
        fx["processes"] >= 2 and any(k.startswith("NET/") for k in fx["transports"]) and \
        fx["processes"] >= max((int(n) for n in st["nranks"]), default=0)


def _clip(text, n):
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n - 3] + "..."


def _told_slow(scan):
    """(line, text) of the user's own sentence that tells a slowdown (settings.py's reading of the told symptom:
    slow words, or a run compared with another in figures), or None."""
    st = getattr(scan, "settings_st", None)
    got = next((t for t in (st.told if st is not None else ()) if t[1] == "slow"), None)
    return (got[0], got[2]) if got else None


def _finding(e, scan, st, line, confidence, notes):
    from gpudoctor.explain.analyze import _finding as finding

    line = line if isinstance(line, int) else st["first"].get("version", (1,))[0]
    shown = next((t for ln, t in list(st["first"].values()) + [st["complaint"] or (None, None)] if ln == line), None)
    hit = _Shown(line, shown or "")
    m = {"hits": [hit], "count": 1, "rank": e["rank"], "score": e["rank"], "first": line, "signal_hits": []}
    f = finding(e, m, "root", scan)
    f["confidence"] = confidence
    f["notes"] = list(notes) + f["notes"]
    f["from_info_lines"] = True
    return f


class _Shown(object):
    """The line a finding shows (analyze._finding reads line, text, severity, groups, pattern)."""

    __slots__ = ("line", "text", "severity", "groups", "pattern", "origin")

    def __init__(self, line, text):
        self.line, self.text, self.severity, self.groups, self.pattern, self.origin = line, text, "info", {}, None, None

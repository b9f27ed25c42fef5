"""The node profile: what a node is, in the dozen values users compare by eye today
(`python -m torch.utils.collect_env`, `ds_report`, `nvidia-smi`, `ofed_info -s`).

A pure function of one node's facts. Keys are fixed (docs/report-schema.md); a value the
facts do not hold is None, never a guess. In cluster mode the text report folds each key's
values across nodes and marks the odd ones (ClusterShell's `clush -b` grouping).
"""

from collections import OrderedDict

KEYS = ("gpus", "driver", "cuda_driver", "torch", "torch_cuda", "nccl", "ofed", "kernel", "os", "rdma")


def _text(v, limit=120):
    """A facts value as shown text, or None: node output is untrusted, so anything but a
    plain string or number (a list, a dict, a bool) is not shown, and length is bounded."""
    if isinstance(v, bool) or not isinstance(v, (str, int, float)):
        return None
    v = str(v).replace("\n", " ")
    return v if len(v) <= limit else v[: limit - 3] + "..."


def _int(v):
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 1 << 40 else None


def _list(v):
    return v if isinstance(v, list) else []


def _ok(facts, name):
    sec = facts.get(name) if isinstance(facts, dict) else None
    return sec if isinstance(sec, dict) and sec.get("status") == "ok" else {}


def _gpus(gpu):
    counts = OrderedDict()
    for g in _list(gpu.get("gpus")):
        if not isinstance(g, dict):
            continue
        key = (_text(g.get("name")), _int(g.get("memory_total_mib")))
        counts[key] = counts.get(key, 0) + 1
    return [{"name": name, "count": n, "memory_mib": mib} for (name, mib), n in counts.items()]


def _nccl(py):
    n = py.get("nccl") or {}
    if not isinstance(n, dict):
        return None
    return _text(n.get("loaded_version") or n.get("version") or n.get("wheel_version"))


def _rdma(rdma):
    out = []
    for dev in _list(rdma.get("devices")):
        if not isinstance(dev, dict):
            continue
        for port in _list(dev.get("ports")):
            if isinstance(port, dict):
                out.append({"device": _text(dev.get("name")), "port": _text(port.get("port")),
                            "state": _text(port.get("state")), "rate": _text(port.get("rate"))})
    return out


def profile(facts):
    """facts -> {gpus, driver, cuda_driver, torch, torch_cuda, nccl, ofed, kernel, os, rdma}."""
    gpu, py, host = _ok(facts, "gpu"), _ok(facts, "python"), _ok(facts, "host")
    if not gpu and _ok(facts, "watch"):
        # `gpudoctor watch` gathers only its sampling section: its GPUs and driver are the profile's (the JSON's
        # nodes[].profile was empty over a real 2x H100 job, session 24)
        w = _ok(facts, "watch").get("gpu")
        gpu = w if isinstance(w, dict) and not w.get("reason") else {}
    if not host and isinstance(_ok(facts, "watch").get("system"), dict):
        host = _ok(facts, "watch")["system"]  # watch's kernel and OS (userwalk25: null in watch --json)
    torch = py.get("torch") if isinstance(py.get("torch"), dict) else {}
    nvml = gpu.get("nvml") if isinstance(gpu.get("nvml"), dict) else {}
    ofed = _ok(facts, "ofed").get("ofed_info") or {}
    os_name = _text(host.get("os_pretty")) or " ".join(
        x for x in (_text(host.get("os_id")), _text(host.get("os_version"))) if x) or None
    return {
        "gpus": _gpus(gpu),
        "driver": _text(gpu.get("driver_version") or nvml.get("driver_version")),
        "cuda_driver": _text(nvml.get("cuda_driver_version")),
        "torch": _text(torch.get("version")),
        "torch_cuda": _text(torch.get("cuda")),
        "nccl": _nccl(py),
        "ofed": _text(ofed.get("raw") or ofed.get("version")) if isinstance(ofed, dict) else None,
        "kernel": _text(host.get("kernel")),
        "os": os_name,
        "rdma": _rdma(_ok(facts, "rdma")),
    }


# --- the text form -------------------------------------------------------------------------

def _show_gpus(gpus):
    if not gpus:
        return None
    return ", ".join("%d x %s%s" % (g["count"], g["name"] or "?",
                                    " (%d MiB)" % g["memory_mib"] if g.get("memory_mib") else "") for g in gpus)


def _show_rdma(ports):
    if not ports:
        return None
    return ", ".join("%s/%s %s%s" % (p["device"], p["port"], p["state"] or "?",
                                     " %s" % p["rate"] if p.get("rate") else "") for p in ports)


def rows(prof):
    """(label, value shown) for one node's profile; None values show as '-'."""
    p = prof
    driver = p["driver"] and "%s%s" % (p["driver"], " (CUDA %s)" % p["cuda_driver"] if p["cuda_driver"] else "")
    torch = p["torch"] and "%s%s" % (p["torch"], " (CUDA %s)" % p["torch_cuda"] if p["torch_cuda"] else " (no CUDA)")
    return [("GPUs", _show_gpus(p["gpus"])), ("driver", driver), ("torch", torch), ("NCCL", p["nccl"]),
            ("OFED", p["ofed"]), ("RDMA", _show_rdma(p["rdma"])), ("kernel", p["kernel"]), ("OS", p["os"])]


def folded(profiles):
    """{host: profile} -> [(label, [(value, [hosts], odd)])]: each label's values grouped
    across nodes, the majority first; a value held by fewer nodes than the majority is odd."""
    table = OrderedDict()
    for host, prof in profiles.items():
        for label, value in rows(prof):
            table.setdefault(label, OrderedDict()).setdefault(value, []).append(host)
    out = []
    for label, groups in table.items():
        ranked = sorted(groups.items(), key=lambda kv: -len(kv[1]))
        top = len(ranked[0][1])
        out.append((label, [(v, hosts, len(ranked) > 1 and (len(hosts) < top or i > 0))
                            for i, (v, hosts) in enumerate(ranked)]))
    return out

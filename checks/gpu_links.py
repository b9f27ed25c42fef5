"""The node's GPUs reach each other as fast as their hardware allows: every NVLink a GPU's peers have up is up on
it too, and peer-to-peer (P2P) access is open between GPUs that NVML says can use it. A GPU with NVLinks down (a
link that failed to train, a cable or an NVSwitch port) still runs, and NCCL still connects, but its traffic takes
the links left or PCIe and the host: every collective of the node goes at that GPU's pace. NVML's answers
(https://docs.nvidia.com/deploy/nvml-api/group__NvLink.html, nvmlDeviceGetP2PStatus and
nvmlDeviceGetTopologyCommonAncestor) are read by the collector (gpudoctor/collector/nvidia.py, _links). Seen on a
real 4x H200 (fixtures/recorded/h200x4-2026-11-28g/): NV18 between every pair in `nvidia-smi topo -m`, 18 links up
on each GPU, P2P OK between all 6 pairs."""

from gpudoctor.registry import NA, Finding, Pass, Skip, check, cmd

from ._gpu import gpu_list

# nvml.h, nvmlGpuP2PStatus_t
P2P_STATUS = {0: "OK", 1: "chipset not supported", 2: "GPU not supported", 3: "IOH topology not supported",
              4: "disabled by regkey", 5: "not supported", 6: "unknown"}
P2P_OK, P2P_REGKEY, P2P_IOH = 0, 4, 3
ANCESTOR_SYSTEM = 50  # nvmlGpuTopologyLevel_t NVML_TOPOLOGY_SYSTEM: the pair's path crosses CPU sockets


def _int(x):
    return x if isinstance(x, int) and not isinstance(x, bool) else None


def _idx(gs):
    return ",".join(str(g.get("index")) for g in gs)


def _nvlink(g):
    """(links read, links up, up to an NVSwitch) of a GPU, or None where NVML read no NVLink."""
    nv = g.get("nvlink")
    if not isinstance(nv, dict) or not _links(nv.get("read")):
        return None
    return _links(nv.get("read")), _links(nv.get("active")) or 0, _links(nv.get("switch")) or 0


def _links(x):
    """A count of links as NVML can answer it (0 to NVML_NVLINK_MAX_LINKS, which the collector caps at 64), or None:
    a node's facts counting 10**30 links, or -5, are no reading (red team 2026-11-28i, docs/security.md 102.)."""
    x = _int(x)
    return x if x is not None and 0 <= x <= 64 else None


def _name(g):
    """The GPU's model name, or None where the facts hold no string (a list there crashed the check, 102.)."""
    n = g.get("name")
    return n if isinstance(n, str) else None


def _pairs(gs):
    """[(GPU a, GPU b, {read, write, nvlink, ancestor})] from each GPU's p2p record."""
    by_index = dict((str(g.get("index")), g) for g in gs)
    out = []
    for g in gs:
        p2p = g.get("p2p")
        if not isinstance(p2p, dict):
            continue
        for peer, rec in sorted(p2p.items()):
            if peer in by_index and isinstance(rec, dict):
                out.append((g, by_index[peer], rec))
    return out


def _status(rec, cap):
    return _int(rec.get(cap))


@check("gpu.links", title="the node's GPUs reach each other over every NVLink and P2P path they have", needs=("gpu",))
def gpu_links(facts, config):
    gs = gpu_list(facts)
    if len(gs) < 2:
        yield NA("%d GPU on this node: no peer to reach" % len(gs))
        return
    if not any("nvlink" in g or "p2p" in g for g in gs):
        src = (facts.get("gpu") or {}).get("gpus_source") or "?"
        yield Skip("the GPUs' links were not read (GPUs from %s%s)" % (src, (
            ", but these facts hold no link readings: gathered by a gpudoctor before gpu.links, or through an "
            "nvidia-ml-py without NVML's NVLink and P2P calls; gather them again with gpudoctor facts -o FILE"
            if src == "nvml" else "; NVML through nvidia-ml-py reads them")))
        return
    findings = []
    links = [(g, _nvlink(g)) for g in gs]
    linked = [(g, nv) for g, nv in links if nv and nv[1] > 0]
    top = max(nv[1] for g, nv in linked) if linked else 0
    names = set(_name(g) for g, nv in linked)
    # a GPU of the same model as the linked ones with fewer links up (None: NVML read none on it)
    low = [(g, nv) for g, nv in links if linked and _name(g) in names and (nv[1] if nv else 0) < top]
    full = [g for g, nv in linked if nv[1] == top]
    fix = ""
    for g, nv in low:
        fix += cmd("nvidia-smi nvlink --status -i {i}   # each link's speed; <inactive> is a link down\n"
                   "nvidia-smi nvlink --errorcounters -i {i}\n", i=g.get("index"))
    fix += "# a link that failed to train stays down until the GPU is reset (nvidia-smi -r -i N, every process off " \
           "it) or the node rebooted; on NVSwitch systems, nvidia-fabricmanager's log (journalctl -u " \
           "nvidia-fabricmanager) names the port; drain the node until then"
    dead = [g for g, nv in low if not nv or nv[1] == 0]
    part = [(g, nv) for g, nv in low if nv and nv[1] > 0]
    if dead:
        findings.append(Finding.error(
            "GPU %s has no NVLink up while GPU %s of the same model have %d each: its traffic to them goes over PCIe "
            "and the host, many times slower, and every collective of the node waits for it" % (
                _idx(dead), _idx(full), top),
            observed="GPU %s: 0 NVLinks up" % _idx(dead), expected="%d NVLinks up, as its peers" % top,
            fix=fix))
    if part:
        findings.append(Finding.warning(
            "GPU %s has fewer NVLinks up than its peers (%s of %d; GPU %s: %d): its NVLink bandwidth is cut by the "
            "links down, and the node's collectives go at its pace" % (
                _idx([g for g, nv in part]), ", ".join("GPU %s %d" % (g.get("index"), nv[1]) for g, nv in part), top,
                _idx(full), top),
            observed=", ".join("GPU %s: %d NVLinks up" % (g.get("index"), nv[1]) for g, nv in part),
            expected="%d NVLinks up, as its peers" % top, fix=fix))
    pairs = _pairs(gs)
    off, regkey, across = [], [], []
    for a, b, rec in pairs:
        st = [s for s in (_status(rec, "read"), _status(rec, "write")) if s is not None]
        bad = [s for s in st if s != P2P_OK]
        if not bad:
            continue
        if P2P_REGKEY in bad:
            regkey.append((a, b, rec))
        elif _int(rec.get("ancestor")) == ANCESTOR_SYSTEM and all(s == P2P_IOH for s in bad):
            across.append((a, b, rec))  # across CPU sockets: P2P is commonly unsupported there (NCCL uses SHM)
        else:
            off.append((a, b, rec))
    ok_pairs = [p for p in pairs if _status(p[2], "read") == P2P_OK and _status(p[2], "write") == P2P_OK]

    def pair_text(ps):
        return ", ".join("%s-%s (%s)" % (a.get("index"), b.get("index"), P2P_STATUS.get(
            next(s for s in (_status(r, "read"), _status(r, "write")) if s is not None and s != P2P_OK), "?"))
            for a, b, r in ps[:6]) + (" +%d more" % (len(ps) - 6) if len(ps) > 6 else "")
    if regkey:
        findings.append(Finding.warning(
            "peer-to-peer access between GPU %s is disabled by a driver registry key: NCCL moves that traffic "
            "through host memory (SHM) instead of P2P" % pair_text(regkey),
            fix="grep -i RegistryDwords /proc/driver/nvidia/params; grep -rn 'NVreg_RegistryDwords' /etc/modprobe.d/"
                "   # the key that turns P2P off; remove it and reload the driver"))
    if off and ok_pairs:
        findings.append(Finding.warning(
            "peer-to-peer access is not available between GPU %s while %d other pair%s of this node have it: NCCL "
            "moves that pair's traffic through host memory (SHM)" % (
                pair_text(off), len(ok_pairs), "" if len(ok_pairs) == 1 else "s"),
            fix="nvidia-smi topo -m; nvidia-smi topo -p2p rw   # the path and P2P status of each pair\n"
                "# on PCIe: PCIe ACS on the switches between them redirects P2P through the root complex "
                "(lspci -vvv | grep -i ACSCtl)"))
    if findings:
        for f in findings:
            yield f
        return
    parts = []
    if linked:
        sw = all(nv[2] > 0 for g, nv in linked)
        parts.append("NVLink %d of %d up on each of GPU %s%s" % (
            top, max(nv[0] for g, nv in linked), _idx([g for g, nv in linked]), ", through NVSwitch" if sw else ""))
    else:
        parts.append("no NVLink (NVML reads none: PCIe)")
    if pairs:
        over = "" if not linked else (", over NVLink" if all(_status(r, "nvlink") == P2P_OK for a, b, r in ok_pairs)
                                      else "")
        if ok_pairs:
            parts.append("P2P read/write OK between %d of %d pairs%s" % (len(ok_pairs), len(pairs), over))
        if off:
            parts.append("no P2P between any pair (%s): NCCL uses host memory (SHM) in the node" % pair_text(off))
        if across:
            parts.append("no P2P across CPU sockets for %s (NCCL uses SHM there)" % pair_text(across))
    yield Pass("%d GPUs: %s" % (len(gs), "; ".join(parts)))

"""The NCCL_* settings the job will see must fit this node
(https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html).

Values come from the environment, then NCCL_CONF_FILE or ~/.nccl.conf, then
/etc/nccl.conf (the `nccl` facts section resolves the precedence). Each rule below is a
failure seen in the field: an NCCL_SOCKET_IFNAME that matches nothing ("no socket
interface found") or only docker0/lo; an NCCL_IB_HCA naming no device; NCCL_NET=IB with
no active port; NCCL_IB_DISABLE=1 on a node with working IB (users report "slow: GPU 100%
but low power"); a GID index that is not RoCE v2; GPUDirect RDMA without nvidia-peermem;
a missing topology/graph file; a misspelled variable NCCL silently ignores.

Names are judged against gpudoctor/data/nccl_env.json, made by tools/gen_nccl_env.py from
NCCL's own source (every NCCL_PARAM / ncclGetEnv) and PyTorch's ProcessGroupNCCL: a name
NCCL reads is never called a typo, and a typo is only ever pointed at a name NCCL reads.
"""
import re

from gpudoctor import data
from gpudoctor.registry import NA, Finding, Pass, check, cmd

FALLBACK_ORDER_SKIP = ("docker", "lo", "virbr")  # NCCL's default skips these (src/misc/socket.cc)


def parse_list(value):
    """NCCL's device list syntax: '^' excludes, '=' means exact names -> (exclude, exact, [(name, port)])."""
    v = (value or "").strip()
    exclude = v.startswith("^")
    if exclude:
        v = v[1:]
    exact = v.startswith("=")
    if exact:
        v = v[1:]
    items = []
    for part in v.split(","):
        part = part.strip()
        if part:
            name, _, port = part.partition(":")
            items.append((name, port.split(":")[0] if port else None))
    return exclude, exact, items


def list_matches(value, names):
    """The names NCCL's matchIfList/matchPort logic would select from `names`."""
    exclude, exact, items = parse_list(value)

    def hit(n):
        return any((n == i if exact else n.startswith(i)) for i, _ in items)

    return [n for n in names if hit(n) != exclude]


def _usable(iface, family):
    if iface.get("state") not in ("up", "unknown"):
        return False
    return bool(iface.get("ipv6") if family == "AF_INET6" else iface.get("ipv4"))


def _best_iface(facts):
    net = facts.get("network") or {}
    net = net if isinstance(net, dict) else {}
    ifaces = net.get("interfaces") if isinstance(net.get("interfaces"), list) else []
    route = net.get("default_route")
    dr = route.get("interface") if isinstance(route, dict) else None
    # untrusted node output: interface records with a name only
    cands = [i for i in ifaces if isinstance(i, dict) and isinstance(i.get("name"), str) and not i.get("virtual")
             and _usable(i, "AF_INET")]
    cands.sort(key=lambda i: (i["name"] != dr, i["name"]))
    return cands[0]["name"] if cands else None


def _roce_ports(facts, hca_value):
    rdma = facts.get("rdma") or {}
    devs = rdma.get("devices") or []
    names = [d["name"] for d in devs]
    chosen = list_matches(hca_value, names) if hca_value else names
    return [(d, p) for d in devs if d["name"] in chosen for p in d.get("ports") or []
            if p.get("link_layer") == "Ethernet" and p.get("state") == "ACTIVE" and p.get("gids")
            and any(g.get("type") for g in p["gids"])]


@check("nccl.env", title="NCCL_* settings match this node's interfaces and RDMA devices", needs=("nccl",))
def nccl_env(facts, config):
    evidence, problems = [], []
    for item in _judge(facts, evidence):
        if item.severity != "info":
            problems.append(item)
        yield item
    if problems:
        return
    if evidence:
        yield Pass("; ".join(evidence))
    else:
        yield NA("nothing to judge: no NCCL_* variable is set (environment, NCCL_CONF_FILE or ~/.nccl.conf, "
                 "/etc/nccl.conf) and no GPUDirect RDMA path (GPUs with an ACTIVE RDMA port)")


def _judge(facts, evidence):
    effective = facts["nccl"].get("effective") or {}
    # untrusted node output: only {"value": text, "source": text} entries are judged
    effective = {k: v for k, v in effective.items() if isinstance(v, dict) and isinstance(v.get("value"), str)
                 } if isinstance(effective, dict) else {}
    eff = dict((k, v["value"]) for k, v in effective.items())
    src = dict((k, v.get("source")) for k, v in effective.items())
    where = lambda k: "" if src.get(k) == "environment" else " (from %s)" % src.get(k)  # noqa: E731
    net = facts.get("network") or {}
    rdma = facts.get("rdma") if (facts.get("rdma") or {}).get("status") == "ok" else None
    devices = (rdma or {}).get("devices") or []
    devices = [d for d in devices if isinstance(d, dict)] if isinstance(devices, list) else []
    active = [(d, p) for d in devices for p in (d.get("ports") if isinstance(d.get("ports"), list) else [])
              if isinstance(p, dict) and p.get("state") == "ACTIVE"]
    best = _best_iface(facts)

    # NCCL_SOCKET_IFNAME: a value of length <= 1 is ignored by NCCL (strlen(env) > 1)
    ifname = eff.get("NCCL_SOCKET_IFNAME")
    if ifname and len(ifname) > 1 and net.get("status") == "ok":
        family = eff.get("NCCL_SOCKET_FAMILY") or "AF_INET"
        ifaces = net.get("interfaces") or []
        # untrusted node output: only interface records with a name are judged
        ifaces = [i for i in ifaces if isinstance(i, dict) and isinstance(i.get("name"), str)] \
            if isinstance(ifaces, list) else []
        matched = list_matches(ifname, [i["name"] for i in ifaces])
        usable = [i for i in ifaces if i["name"] in matched and _usable(i, family)]
        exports = {"NCCL_SOCKET_IFNAME": "=" + best} if best else {}
        shown = ", ".join("%s (%s%s)" % (i["name"], i.get("state"), ", " + i["ipv4"][0]["address"] if i.get("ipv4")
                                          else ", no IPv4") for i in ifaces)
        if not usable:
            yield Finding.error(
                "NCCL_SOCKET_IFNAME=%s%s matches no interface that is up with an address: NCCL fails with "
                "\"no socket interface found\"" % (ifname, where("NCCL_SOCKET_IFNAME")),
                observed="matched: %s; interfaces: %s" % (", ".join(matched) or "none", shown),
                expected="an up interface with an address", exports=exports)
        elif all(i.get("virtual") for i in usable):
            yield Finding.error(
                "NCCL_SOCKET_IFNAME=%s%s selects only %s: other nodes cannot reach loopback or docker/veth addresses"
                % (ifname, where("NCCL_SOCKET_IFNAME"), ", ".join(i["name"] for i in usable)),
                observed="usable: %s" % ", ".join(i["name"] for i in usable),
                expected="a physical interface (%s)" % (best or "none found"), exports=exports)
        else:
            evidence.append("NCCL_SOCKET_IFNAME=%s selects %s" % (ifname, ", ".join(
                "%s (%s)" % (i["name"], ", ".join(a["address"] for a in (i.get("ipv6") if family == "AF_INET6"
                                                                      else i.get("ipv4")) or []))
                for i in usable)))

    # NCCL_IB_HCA must name existing devices (and ports)
    hca = eff.get("NCCL_IB_HCA")
    if hca and rdma is not None:
        names = [d["name"] for d in devices]
        exclude, exact, items = parse_list(hca)
        chosen = list_matches(hca, names)
        evidence.append("NCCL_IB_HCA=%s selects %s of %s" % (hca, ", ".join(chosen) or "none",
                                                              ", ".join(names) or "no device"))
        good = ",".join("%s:%s" % (d["name"], p["port"]) for d, p in active)
        exports = {"NCCL_IB_HCA": "=" + good} if good else {}
        if not exclude and not chosen:
            yield Finding.error(
                "NCCL_IB_HCA=%s%s matches no RDMA device (this node has: %s)" % (
                    hca, where("NCCL_IB_HCA"), ", ".join(names) or "none"),
                observed="devices: %s" % (", ".join(names) or "none"), expected="names from /sys/class/infiniband",
                exports=exports)
        else:
            for name, port in items:
                if exclude or not port:
                    continue
                devs = [d for d in devices if (d["name"] == name if exact else d["name"].startswith(name))]
                if devs and not any(str(p["port"]) == port for d in devs for p in d.get("ports") or []):
                    yield Finding.error("NCCL_IB_HCA names %s:%s but %s has no port %s" % (name, port, name, port),
                                        observed="ports of %s: %s" % (name, ", ".join(
                                            str(p["port"]) for d in devs for p in d.get("ports") or [])),
                                        expected="an existing port", exports=exports)
            if not exact and not exclude and any(len(n) > len(i) and n.startswith(i) and n not in [x for x, _ in items]
                                                 for i, _ in items for n in chosen):
                yield Finding.warning(
                    "NCCL_IB_HCA=%s is a prefix list: it also selects %s" % (hca, ", ".join(chosen)),
                    observed="selected: %s" % ", ".join(chosen), expected="exactly the devices you named",
                    exports={"NCCL_IB_HCA": "=" + ",".join(
                        i + (":" + p if p else "") for i, p in items)})

    # NCCL_NET=IB with no active port; NCCL_IB_DISABLE=1 with active ports
    netsel = (eff.get("NCCL_NET") or "").strip()
    if netsel.lower() == "ib" and rdma is not None and not active:
        yield Finding.error(
            "NCCL_NET=IB%s but no RDMA port is ACTIVE: NCCL init fails instead of falling back to sockets"
            % where("NCCL_NET"), observed="%d RDMA devices, 0 active ports" % len(devices),
            expected="an ACTIVE RDMA port (see rdma.ports), or NCCL_NET=Socket",
            exports={"NCCL_NET": "Socket"})
    elif netsel.lower() == "ib" and rdma is not None:
        evidence.append("NCCL_NET=IB with %d ACTIVE RDMA port%s" % (len(active), "" if len(active) == 1 else "s"))
    if (eff.get("NCCL_IB_DISABLE") or "").strip() == "1" and active:
        yield Finding.warning(
            "NCCL_IB_DISABLE=1%s while %d RDMA port%s %s ACTIVE: NCCL uses TCP sockets (slow; GPUs wait on "
            "the network)" % (where("NCCL_IB_DISABLE"), len(active), "" if len(active) == 1 else "s",
                              "is" if len(active) == 1 else "are"),
            observed="NCCL_IB_DISABLE=1; active: %s" % ", ".join("%s:%s" % (d["name"], p["port"]) for d, p in active),
            expected="NCCL_IB_DISABLE unset or 0", exports={"NCCL_IB_DISABLE": "0"})
    elif (eff.get("NCCL_IB_DISABLE") or "").strip() == "1" and rdma is not None:
        evidence.append("NCCL_IB_DISABLE=1 with no ACTIVE RDMA port")

    # NCCL_IB_GID_INDEX must point at a populated RoCE v2 GID on every RoCE port used
    gid_index = eff.get("NCCL_IB_GID_INDEX")
    if gid_index not in (None, "", "-1") and rdma is not None:
        try:
            idx = int(gid_index)
        except ValueError:
            idx = None
        for d, p in _roce_ports(facts, hca):
            gids = dict((g["index"], g) for g in p["gids"])
            v2 = [g for g in p["gids"] if g.get("type") == "RoCE v2"]
            v2_v4 = [g for g in v2 if g.get("ipv4")] or v2
            exports = {"NCCL_IB_GID_INDEX": str(v2_v4[0]["index"])} if v2_v4 else {}
            table = ", ".join("%d: %s %s" % (g["index"], g.get("type"), g.get("ipv4") or g["gid"]) for g in p["gids"])
            g = gids.get(idx)
            if g is None:
                yield Finding.error(
                    "NCCL_IB_GID_INDEX=%s%s is not populated on %s port %s" % (gid_index, where("NCCL_IB_GID_INDEX"),
                                                                             d["name"], p["port"]),
                    observed="GID table: %s" % table, expected="a RoCE v2 GID (IPv4-mapped)", exports=exports)
            elif g.get("type") != "RoCE v2":
                yield Finding.warning(
                    "NCCL_IB_GID_INDEX=%s selects a %s GID on %s port %s: RoCE v1 is not routable and must be the "
                    "same on every node" % (gid_index, g.get("type"), d["name"], p["port"]),
                    observed="%d: %s %s" % (idx, g.get("type"), g.get("ipv4") or g["gid"]),
                    expected="RoCE v2 (%s)" % ", ".join(str(x["index"]) for x in v2_v4), exports=exports)
            else:
                evidence.append("NCCL_IB_GID_INDEX=%s is RoCE v2 (%s) on %s:%s" % (
                    gid_index, g.get("ipv4") or g["gid"], d["name"], p["port"]))

    # GPUDirect RDMA wants nvidia-peermem (or DMA-BUF on recent kernels with the open driver)
    gdr_level = (eff.get("NCCL_NET_GDR_LEVEL") or "").strip()
    gpu = facts.get("gpu") or {}
    has_gpu = gpu.get("status") == "ok"
    gdr_wanted = rdma is not None and active and ((gdr_level and gdr_level not in ("LOC", "0")) or has_gpu)
    if gdr_wanted and rdma.get("gdr_modules_loaded"):
        gdr = rdma.get("gdr_modules_loaded")
        loaded = rdma.get("modules_loaded")
        names = [m for m in (gdr if isinstance(gdr, list) else loaded if isinstance(loaded, list) else [])
                 if m in ("nvidia_peermem", "nv_peer_mem")]
        evidence.append("GPUDirect RDMA: %s loaded" % (", ".join(names) or "nvidia_peermem"))
    elif gdr_wanted:
        yield Finding.warning(
            "GPUDirect RDMA %s but neither nvidia_peermem nor nv_peer_mem is loaded: NCCL stages through host "
            "memory unless DMA-BUF works (kernel >= 5.12, open GPU driver)" % (
                "is requested (NCCL_NET_GDR_LEVEL=%s)" % gdr_level if gdr_level else "is possible (GPUs and active RDMA ports)"),
            observed="modules: %s" % (", ".join(rdma.get("modules_loaded") or []) or "none"),
            expected="nvidia_peermem loaded",
            fix="modprobe nvidia-peermem\necho nvidia-peermem > /etc/modules-load.d/nvidia-peermem.conf   "
                "# load it at every boot (it is not auto-loaded)")

    # files NCCL reads at init
    paths = facts["nccl"].get("paths") or {}
    paths = {k: v for k, v in paths.items() if isinstance(v, dict) and isinstance(v.get("path"), str)} \
        if isinstance(paths, dict) else {}
    for var, info in sorted(paths.items()):
        if not info.get("exists"):
            yield Finding.error(
                "%s=%s%s does not exist on this node: NCCL init fails" % (var, info["path"], where(var)),
                observed="%s missing" % info["path"], expected="the file on every node",
                fix=cmd("copy the file to {path} on every node, or: unset {var}", path=info["path"], var=var))
        else:
            evidence.append("%s=%s exists" % (var, info["path"]))

    # names: NCCL ignores a variable it does not read, silently
    judged = [n for n in sorted(eff) if n.startswith(("NCCL_", "TORCH_NCCL_"))]
    if judged:
        notes = []
        node_ver = node_nccl(facts)
        for f in judge_names(judged, lambda n: eff[n], where, node_ver=node_ver):
            notes.append(f)
            yield f
        table = data.load("nccl_env")
        tver = table["nccl"]["version"]
        ttver = (table.get("torch") or {}).get("version")
        evidence.append("%d NCCL_* name%s checked against NCCL %s%s and PyTorch %s%s: %d read%s" % (
            len(judged), "" if len(judged) == 1 else "s", tver, _version_gap(node_ver, tver),
            ttver, _torch_gap(node_torch(facts), ttver), len(judged) - len(notes),
            ", %d noted" % len(notes) if notes else ""))


def node_nccl(facts):
    """The NCCL version the node's torch loads (python.nccl: loaded, else its wheel's), or None."""
    py = facts.get("python") if isinstance(facts.get("python"), dict) else {}
    nc = py.get("nccl") if isinstance(py.get("nccl"), dict) else {}
    for key in ("loaded_version", "version", "wheel_version"):
        v = nc.get(key)
        if isinstance(v, str) and re.match(r"^\d+\.\d+\.\d+$", v):
            return v
    return None


def node_torch(facts):
    """The torch release the node's interpreter imports (python.torch.version: '2.11.0+cu130'), or None."""
    py = facts.get("python") if isinstance(facts.get("python"), dict) else {}
    t = py.get("torch") if isinstance(py.get("torch"), dict) else {}
    v = t.get("version")
    return v if isinstance(v, str) and re.match(r"^\d+\.\d+\.\d+", v) else None


def _torch_gap(node_ver, tver):
    """What the table's PyTorch (where its TORCH_NCCL_* names were read) is to the node's torch, as
    _version_gap says it for NCCL: the evidence named the table's 'PyTorch 2.14.1+cu130' beside a node
    whose profile shows torch 2.11.0+cu130, as if the node ran it (userwalk25, fixtures/recorded/h200x2-2026-11-28c)."""
    if not all(isinstance(v, str) and re.match(r"^\d+\.\d+\.\d+", v) for v in (node_ver, tver)):
        return ""
    mine, table = (tuple(int(x) for x in re.match(r"^(\d+)\.(\d+)\.(\d+)", v).groups()) for v in (node_ver, tver))
    if mine == table:
        return ""
    if mine < table:
        return " (this node has torch %s: a TORCH_NCCL_* name added after it would pass)" % node_ver
    return " (this node has torch %s, newer: a TORCH_NCCL_* name added since is called unknown)" % node_ver


def _vtuple(v):
    return tuple(int(x) for x in v.split(".")[:3])


def _version_gap(node_ver, tver):
    """What the table's NCCL is to the node's: the table lists the names one release reads, the releases
    that read a name since dropped, and the release that first read each current name (judge_names notes a
    name first read after the node's NCCL); a node that runs another NCCL is told so (a real 2x H100 ran
    2.28.9 beside a 2.30.7 table, session 24)."""
    if not node_ver or node_ver == tver:
        return ""
    if _vtuple(node_ver) < _vtuple(tver):
        return " (this node loads %s: a name NCCL first read after it is noted)" % node_ver
    return " (this node loads %s, newer: a name added since is called unknown)" % node_ver


def _not_read_by_node(entry, node_ver, scanned):
    """The release to name as not reading a current libnccl name on this node's NCCL, or None. The table's
    first_seen_in is the first release tag (https://github.com/NVIDIA/nccl/tags) whose src/ reads the name and
    not_in the tag before it; a node between the two on an untagged release (2.30.5: NCCL's page says
    NCCL_NET_MERGE_POLICY is read 'since 2.30.5', the first tag that reads it is 2.30.7) is not judged. A name
    PyTorch or a plugin shipped beside NCCL also reads (read_by) is read whatever the node's NCCL."""
    if not entry or not node_ver or not entry.get("first_seen_in") or set(entry.get("read_by") or ()) - {
            "nccl", "nccl-docs"}:
        return None
    try:
        mine, first = _vtuple(node_ver), _vtuple(entry["first_seen_in"])
        if node_ver in (entry.get("not_read_in") or ()):
            return node_ver
        if mine >= first:
            return None
        if node_ver in scanned:
            return node_ver
        if entry.get("not_in") and mine <= _vtuple(entry["not_in"]):
            return entry["not_in"]
    except (TypeError, ValueError, AttributeError):
        pass
    return None


# Which read_by values make a name real for a job; a typo is only ever pointed at one of
# these (never at a name NCCL's docs list but the source no longer reads, nor contrib's).
READERS = ("nccl", "nccl-plugin", "torch")


def judge_names(names, value_of, where=lambda n: "", node_ver=None):
    """Findings for the NCCL_* names NCCL does not read (a pure function of the table). ``node_ver``: the
    NCCL the node loads; a name the table's release no longer reads but the node's release does (its
    ``former`` span holds node_ver: NCCL_GIN_NCONTEXTS, read by 2.28.9 to 2.29.7) is read, no note."""
    table = data.load("nccl_env")
    known, former = table["names"], table["former"]
    nver = table["nccl"]["version"]
    tver = (table.get("torch") or {}).get("version")
    readable = sorted(n for n, e in known.items() if set(e["read_by"]) & set(READERS))
    for name in names:
        entry = known.get(name)
        late = _not_read_by_node(entry, node_ver, table["nccl"].get("releases_scanned") or ())
        if late:
            yield Finding.info(
                "%s%s is first read by NCCL %s (%s%s): this node loads NCCL %s, %s: it has no effect here" % (
                    name, where(name), entry["first_seen_in"], ", ".join(entry.get("files") or ()) or "src/",
                    "" if late == node_ver else "; NCCL %s does not read it" % late, node_ver,
                    "which does not read it" if late == node_ver else "older"))
            continue
        if name in table["not_nccl"] or (entry and set(entry["read_by"]) - {"nccl-docs"}):
            continue  # read by NCCL, a plugin shipped with it, its contrib libraries or PyTorch
        if entry:  # documented, and not read by the source
            yield Finding.info(
                "%s%s: NCCL's environment page lists it (%s), but NCCL %s does not read it: it has no effect "
                "with this NCCL" % (name, where(name), entry.get("doc_note") or "documented", nver))
            continue
        if name in former:
            f = former[name]
            try:
                if node_ver and _vtuple(f["first_seen_in"]) <= _vtuple(node_ver) <= _vtuple(f["last_seen_in"]):
                    continue  # this node's NCCL reads it
            except (KeyError, ValueError, AttributeError):
                pass
            span = f["first_seen_in"] if f["first_seen_in"] == f["last_seen_in"] else "%s to %s" % (
                f["first_seen_in"], f["last_seen_in"])
            try:
                older = bool(node_ver) and _vtuple(node_ver) < _vtuple(f["first_seen_in"])
            except (KeyError, ValueError, AttributeError, TypeError):
                older = False
            if older:  # the node's NCCL predates it as well
                yield Finding.info("%s%s was read by NCCL %s (%s) only: this node loads NCCL %s, which does not "
                                   "read it: it has no effect here" % (name, where(name), span,
                                                                      ", ".join(f["files"]), node_ver))
                continue
            yield Finding.info(
                "%s%s was read by NCCL %s (%s), not by NCCL %s: it has no effect with a newer NCCL" % (
                    name, where(name), span, ", ".join(f["files"]), nver))
            continue
        import difflib  # here: only for a name neither NCCL nor PyTorch reads (1 ms of every prolog otherwise)

        close = difflib.get_close_matches(name, readable, n=1, cutoff=0.85)
        if close:
            yield Finding.warning(
                "%s%s is read by neither NCCL %s nor PyTorch %s; did you mean %s? NCCL ignores unknown names "
                "silently" % (name, where(name), nver, tver, close[0]),
                observed="%s=%s" % (name, value_of(name)), expected=close[0],
                fix=cmd("unset {name}", name=name), exports={close[0]: value_of(name)})
        else:
            yield Finding.info(
                "%s%s is read by neither NCCL %s (nor any of the %d NCCL releases scanned back to %s) nor "
                "PyTorch %s: a third-party plugin may read it" % (
                    name, where(name), nver, len(table["nccl"].get("releases_scanned") or ()),
                    (table["nccl"].get("releases_scanned") or ["?"])[0], tver))

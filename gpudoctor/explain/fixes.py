"""Fixes computed from what is known: a node's facts (`--check` on this machine, or
`--facts FILE` from a saved node: the document `gpudoctor facts -o` writes) and the launcher
seen in the log. A knowledge cause opts in with ``computed = "<name>"``; the computed line
goes first in its fix list, and the generic lines stay after it.

- torch_build    "no kernel image": the torch build (wheel index cuXYZ) of the torch line in
                 use that carries this GPU's compute capability and that the driver runs
                 (gpudoctor/data/torch_builds.json from PyTorch's RELEASE.md and build script;
                 gpudoctor/data/cuda_driver.json for the driver)
- socket_ifname  NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME: the interface of the node's default
                 route (else its one routable physical interface), from the facts' network section
- launcher_port  the port flag of the launcher in the log (accelerate --main_process_port,
                 torchrun/deepspeed --master_port, mpirun -x MASTER_PORT=...)
- visible_gpus   "invalid device ordinal": the GPU count of the node and the launcher's flag
- btl_tcp_if     Open MPI's TCP transport: --mca btl_tcp_if_include with the node's routable NIC
"""

import json
import os
import re

from gpudoctor.fixline import cmd, sh

# Each launcher's own flags (their --help): accelerate launch, torchrun, deepspeed, mpirun.
PORT_FLAG = {
    "accelerate": "accelerate launch --main_process_port {port} ...",
    "torchrun": "torchrun --master_port {port} ...  (or --rdzv-endpoint <host>:{port})",
    "deepspeed": "deepspeed --master_port {port} ...",
    "mpirun": "mpirun -x MASTER_PORT={port} ...",
}
NPROC_FLAG = {
    "accelerate": "accelerate launch --num_processes {n} ...",
    "torchrun": "torchrun --nproc_per_node {n} ...",
    "deepspeed": "deepspeed --num_gpus {n} ...",
    "mpirun": "mpirun -np {n} ... (per node: --map-by ppr:{n}:node)",
}
ENV_HOW = {
    "mpirun": "mpirun -x {k}={v} ...",
    "deepspeed": "echo {k}={v} >> ~/.deepspeed_env   (DeepSpeed exports the lines of ~/.deepspeed_env on "
                 "every node)",
    "accelerate": "export {k}={v}   (on every node, before accelerate launch)",
    "torchrun": "export {k}={v}   (on every node, before torchrun)",
}
_VIRTUAL = re.compile(r"^(?:docker|veth|virbr|br-|cni|flannel|cali|tun|tap|lo|ib|vxlan|kube|weave|ifb|dummy|tailscale)")
PORT_HINT = 29501


def load_facts(path):
    """The facts of every reachable node in a file or a folder, as `gpudoctor facts -o`
    writes them; bad input is an InputError (exit 2)."""
    from gpudoctor import gather
    from gpudoctor.errors import InputError

    nodes = [n.facts for n in gather.from_facts(path) if n.facts]
    if not nodes:
        raise InputError("--facts %s: no reachable node's facts in it" % path)
    return nodes


def _section(facts, name):
    s = (facts or {}).get(name)
    return s if isinstance(s, dict) and s.get("status", "ok") == "ok" else None


def _vt(v):
    return tuple(int(x) for x in re.findall(r"\d+", str(v))[:3])


def _table():
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "torch_builds.json")
    with open(path) as f:
        return json.load(f)


def torch_build(facts):
    """(fix line, why) for "no kernel image" from the node's GPU, driver and torch, or None."""
    gpu = _section(facts, "gpu")
    if not gpu:
        return None
    ccs = sorted({g.get("compute_capability") for g in gpu.get("gpus") or [] if g.get("compute_capability")},
                 key=_vt)
    if not ccs:
        return None
    py = _section(facts, "python") or {}
    torch = py.get("torch") if isinstance(py.get("torch"), dict) else {}
    tver = str(torch.get("version") or "")
    line = ".".join(tver.split("+")[0].split(".")[:2]) if tver else None
    from gpudoctor.checks.driver_cuda import newest_cuda_for

    drv = gpu.get("driver_version")
    max_cuda = newest_cuda_for(drv) if drv else None
    tb = _table()

    def covers(cuda, cc):
        archs = tb["archs"].get(cuda)
        if archs is None:
            return None
        want = _vt(cc)
        for a in archs:
            base = _vt(a)
            if base == want or (a.endswith("+PTX") and base[0] == want[0] and base <= want):
                return True
        return False

    def pick(tline):
        ok = []
        for cuda in tb["lines"].get(tline, []):
            if max_cuda and _vt(cuda) > _vt(max_cuda):
                continue
            if all(covers(cuda, cc) for cc in ccs):
                ok.append(cuda)
        return max(ok, key=_vt) if ok else None

    def unknown(tline):
        """The line has builds this driver runs whose architecture lists the table lacks."""
        return any(covers(cuda, ccs[0]) is None for cuda in tb["lines"].get(tline, [])
                   if not (max_cuda and _vt(cuda) > _vt(max_cuda)))

    # every value from the node is one quoted word (gpudoctor/fixline.py): the line is pasted
    sms = ", ".join(sh("sm_%s" % cc.replace(".", "")) for cc in ccs)
    drv_txt = cmd("driver {d} runs CUDA <= {c}", d=drv, c=max_cuda) if max_cuda else \
        cmd("driver {d}", d=drv or "unknown")
    chosen_line = line if line in tb["lines"] and pick(line) else None
    if chosen_line is None:
        for cand in sorted(tb["lines"], key=_vt, reverse=True):
            if pick(cand):
                chosen_line = cand
                break
    if chosen_line is None:
        return None
    cuda = pick(chosen_line)
    tag = "cu" + cuda.replace(".", "")
    pin = "torch==%s.*" % chosen_line
    why = "this node: %s, %s%s; the %s build of torch %s carries %s" % (
        ", ".join(sh(n) for n in sorted({str(g.get("name", "?")) for g in gpu.get("gpus") or []})), drv_txt,
        cmd(", torch {v}", v=tver) if tver else "", tag, chosen_line, sms)
    if line and chosen_line != line:
        why += (" (the architecture lists of torch %s's builds are not in gpudoctor's table: its own cuXYZ build "
                "may do too)" % line) if unknown(line) else " (torch %s has no build for it that this driver runs)" % line
    return (cmd("pip install {pin} --index-url {url}", pin=pin, url="https://download.pytorch.org/whl/%s" % tag), why)


def socket_ifname(facts):
    """The interface NCCL/gloo should use on this node, or None."""
    net = _section(facts, "network")
    if not net:
        return None
    ifs = [i for i in net.get("interfaces") or [] if isinstance(i, dict)]
    routable = [i for i in ifs if i.get("ipv4") and i.get("state") in ("up", "unknown") and not i.get("virtual")
                and i.get("kind") != "loopback" and not _VIRTUAL.match(str(i.get("name", "")))
                and not any(str(a.get("address", "")).startswith("127.") for a in i["ipv4"])]
    default = (net.get("default_route") or {}).get("interface")
    names = [i["name"] for i in routable]
    if default in names:
        name = default
    elif len(names) == 1:
        name = names[0]
    else:
        return None
    addr = next(a.get("address") for i in routable if i["name"] == name for a in i["ipv4"])
    return name, addr


def gpu_count(facts):
    gpu = _section(facts, "gpu")
    return len(gpu.get("gpus") or []) if gpu else None


def _nics(nodes):
    """(NCCL_SOCKET_IFNAME value, why) across the nodes: one name, or a comma list of each
    node's NIC (NCCL and gloo take a comma-separated list), or None when a node has none."""
    got = [socket_ifname(n) for n in nodes]
    if not got or any(g is None for g in got):
        return None
    names = sorted({g[0] for g in got})
    if len(nodes) == 1:
        return got[0]
    return ",".join(names), "%d nodes: %s" % (len(nodes), ", ".join(cmd("{0} {1}", *g) for g in got[:4]) +
                                             (" ..." if len(got) > 4 else ""))


def apply(result, facts):
    """Put computed fix lines first in the causes that ask for them. ``facts``: one node's
    facts, a list of nodes' facts (the first decides GPU questions), or None."""
    nodes = facts if isinstance(facts, list) else ([facts] if facts else [])
    facts = nodes[0] if nodes else None
    launcher = result.get("launcher")
    for f in result["findings"]:
        done = set()
        for c in f["causes"]:
            kind = c.get("computed")
            if not kind or kind in done:  # one computed line per finding and kind
                continue
            done.add(kind)
            line = None
            if kind == "torch_build" and facts:
                got = torch_build(facts)
                if got:
                    line = "%s   (%s)" % got
            elif kind == "socket_ifname":
                got = _nics(nodes) if nodes else None
                keys = [k for k in c["exports"] if k.endswith("SOCKET_IFNAME")] or ["NCCL_SOCKET_IFNAME"]
                if got:
                    how = ENV_HOW.get(launcher, "export {k}={v}   (on every node)")
                    line = "; ".join(cmd(how, k=k, v=got[0]) for k in keys) + \
                        (cmd("   (this node: {0} carries {1})", *got) if len(nodes) == 1 else "   (%s)" % got[1])
                    for k in keys:
                        c["exports"][k] = got[0]
                elif launcher == "mpirun":
                    line = "mpirun " + " ".join("-x %s=<the NIC of the nodes' routable IPs>" % k for k in keys) + \
                        " ...  (-x is how mpirun passes a variable to every rank)"
            elif kind == "btl_tcp_if" and facts:
                got = _nics(nodes)
                if got:
                    line = cmd("mpirun --mca btl_tcp_if_include {0} --mca oob_tcp_if_include {0} ...   ", got[0]) + \
                        "(%s)" % (cmd("this node: {0} carries {1}", *got) if len(nodes) == 1 else got[1])
            elif kind == "launcher_port":
                if launcher in PORT_FLAG:
                    line = PORT_FLAG[launcher].format(port=PORT_HINT) + \
                        "   (%s is the launcher in this log; pick a free port: ss -ltnp | grep <port>)" % launcher
            elif kind == "visible_gpus":
                n = gpu_count(facts) if facts else None
                if n is not None and launcher in NPROC_FLAG:
                    line = NPROC_FLAG[launcher].format(n=n) + "   (this node has %d GPU%s)" % (n, "" if n == 1 else "s")
                elif n is not None:
                    line = "start at most %d process%s per node (this node has %d GPU%s)" % (
                        n, "" if n == 1 else "es", n, "" if n == 1 else "s")
                elif launcher in NPROC_FLAG:
                    line = NPROC_FLAG[launcher].format(n="<GPUs per node: nvidia-smi -L | wc -l>") + \
                        "   (%s is the launcher in this log)" % launcher
            if line:
                c["fix"].insert(0, line)
                c["computed_fix"] = line
            elif facts and kind in ("torch_build", "socket_ifname", "btl_tcp_if", "visible_gpus"):
                c["computed_note"] = {
                    "torch_build": "the facts show no NVIDIA GPU with a compute capability: compute the build on "
                                   "the GPU node (gpudoctor explain --check there, or --facts from it)",
                    "visible_gpus": "the facts show no NVIDIA GPU: count the GPUs on the node that failed",
                }.get(kind, "the facts show no single routable interface (no default route, or several NICs): "
                            "pick the NIC that carries the nodes' addresses (ip -br addr)")
    return result


# --------------------------------------------------------------------------- --check


def run_confirming_checks(result, gather_nodes=None, config=None):
    """Gather this machine's facts, compute the facts-based fixes from them, run the checks
    the matched causes name and mark each cause supported (a check found a problem), ruled
    out (every check passed) or unknown."""
    ids = []
    for f in result["findings"]:
        for c in f["causes"]:
            for cid in c["checks"]:
                if cid not in ids:
                    ids.append(cid)
    from gpudoctor.registry import load_checks
    from gpudoctor.runner import run_checks

    try:
        if gather_nodes is None:
            from gpudoctor import gather

            nodes = gather.local()
        else:
            nodes = gather_nodes()
    except Exception as exc:  # --check must not hide the explanation
        result["checks"] = {"ran": [], "error": "could not gather this machine's facts: %s: %s"
                                                % (type(exc).__name__, exc)}
        return result
    host = nodes[0].host if nodes else "this machine"
    if nodes and nodes[0].facts and not result.get("facts"):
        # the same computed fixes as --facts, from this machine
        for f in result["findings"]:
            for c in f["causes"]:
                if c.get("computed_fix"):
                    c["fix"].remove(c.pop("computed_fix"))
                c.pop("computed_note", None)
        apply(result, nodes[0].facts)
        result["facts"] = {"source": "this machine", "host": host, "nodes": 1}
    if not ids:
        result["checks"] = {"host": host, "ran": [], "note": "no confirming gpudoctor check for these causes yet; "
                                                             "use the confirm commands"}
        return result
    registry = load_checks()
    checks = [registry.get(cid) for cid in ids if registry.get(cid)]
    try:
        if config is None:
            from gpudoctor.config import load_config

            config = load_config(None)
        report = run_checks(nodes, checks, config)
    except Exception as exc:  # --check must not hide the explanation
        result["checks"] = {"ran": [], "error": "could not check this machine: %s: %s" % (type(exc).__name__, exc)}
        return result
    status = {}
    for r in report.results:
        # the runner's outcome model: pass (with evidence) | warn | fail | na | skipped
        texts = [text for _, (st, text) in sorted(r.outcomes.items()) if text]
        if r.status in ("fail", "warn"):
            st = "failed"
            msgs = [fd.message for fd in r.findings if fd.severity in ("error", "warning")] or texts
        elif r.status == "pass":
            st, msgs = "passed", texts
        else:  # na / skipped: nothing judged, the cause stays unknown
            st, msgs = "skipped", texts + ["%s: %s" % (exc, ", ".join(h)) for exc, h in r.crashed.items()]
        status[r.id] = {"id": r.id, "status": st, "messages": msgs,
                        "fix": [fd.fix for fd in r.findings if fd.fix]}
    for f in result["findings"]:
        for c in f["causes"]:
            if not c["checks"]:
                continue
            sts = [status.get(cid, {"status": "skipped"})["status"] for cid in c["checks"]]
            if "failed" in sts:
                c["verdict"] = "supported"
            elif sts and all(s == "passed" for s in sts):
                c["verdict"] = "ruled out"
            else:
                c["verdict"] = "unknown"
            c["check_results"] = [status[cid] for cid in c["checks"] if cid in status]
        # what the facts say moves a supported cause up and a ruled-out one down
        f["causes"].sort(key=lambda c: {"supported": 0, None: 1, "unknown": 1, "ruled out": 2}[c.get("verdict")])
    result["checks"] = {"host": host, "ran": [status[i] for i in ids if i in status]}
    return result

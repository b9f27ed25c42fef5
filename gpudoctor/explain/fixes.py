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
- btl_tcp_if     Open MPI's TCP transport: --mca btl_tcp_if_include with the node's routable NIC; without
                 facts, what the log's peer address or interface says (tcpif.py: link-local, docker0, virbr0)
- min_driver     "driver too old" / PTX from a newer toolkit: the minimum driver of the CUDA that
                 torch (or the program) was built for (gpudoctor/data/cuda_driver.json, NVIDIA's
                 Table 3), and a torch build the driver in the log already runs

- torch_api      a torch.distributed name, module or keyword argument the installed torch lacks: the
                 release it arrived in (or left), compared with the torch the log prints
                 (gpudoctor/explain/torchapi.py; generated/torch_api.json from the torch wheels' sources)

- api_history    a name or keyword argument of transformers / accelerate / peft / trl / datasets the installed
                 release lacks: the release it arrived in (or left), compared with the version the log prints
                 (gpudoctor/explain/apihistory.py; generated/api_history.json from the libraries' wheels)

- ds_field       a key DeepSpeed's config model refuses (pydantic extra_forbidden): the closest keys that model
                 accepts (gpudoctor/explain/dsconfig.py; generated/ds_config_fields.json from DeepSpeed's source)

- ds_batch       DeepSpeed's batch assertion: the train_batch_size, gradient accumulation or micro batch
                 that fits this run's world size, from the four numbers the message prints
                 (gpudoctor/explain/dsconfig.py; deepspeed/runtime/config.py _batch_assertion)

- cuda_toolkit   building an extension with another CUDA than torch's: the toolkit for torch's CUDA
                 (CUDA_HOME, the apt/conda package) and the torch build for the toolkit found, from
                 the versions the message prints (torch/utils/cpp_extension.py CUDA_MISMATCH_MESSAGE,
                 DeepSpeed op_builder/builder.py assert_no_cuda_mismatch)

torch_build and min_driver also read the log itself (the finding's lines and its signals:
numbers and a GPU name only, never a path or a command): torch's own warnings name the GPU's
compute capability (torch/cuda/__init__.py, _check_capability: "Found GPU0 <name> which is of
cuda capability 12.1", _check_cubins: "<name> with CUDA capability sm_120 is not compatible with
the current PyTorch installation"), _check_driver prints the driver's CUDA ("The NVIDIA driver on
your system is too old (found version 11040)": cudaDriverGetVersion, 1000*major + 10*minor),
the torch version carries its build ("2.4.0+cu121"), torch.utils.collect_env prints "CUDA used to
build PyTorch: 12.1" and "Nvidia driver version: 470.82.01", and nvidia-smi's header "Driver
Version: 470.86   CUDA Version: 11.4". Facts (--check, --facts) win over the log when they have it.
"""

import json
import os
import re
import shlex

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


# --------------------------------------------------------------------------- from the log

# Each reads one number (or a GPU name, quoted when printed) from one line: what torch, NCCL,
# collect_env and nvidia-smi print (the module docstring names where each comes from).
_LOG_CUDA = [  # the CUDA torch / the program was built for
    re.compile(r"\d\.\d{1,3}\.\d{1,3}(?:\.?(?:dev|post|a|b|rc)\d{1,12})?\+cu(1[0-3])(\d)\b"),
    re.compile(r"CUDA used to build PyTorch: (\d{1,2})\.(\d{1,2})\b"),
    re.compile(r"NCCL version \d{1,2}\.\d{1,3}\.\d{1,3}\+cuda(\d{1,2})\.(\d{1,2})\b"),
    re.compile(r"Cuda compilation tools, release (\d{1,2})\.(\d{1,2})\b"),  # nvcc --version
    # libnvidia-container's requirement check (the image's NVIDIA_REQUIRE_CUDA): 'requirement error: unsatisfied
    # condition: cuda>=11.0' (src/cli/common.c in NVIDIA/libnvidia-container): the CUDA the image's program needs
    re.compile(r"unsatisfied condition: cuda ?>= ?(\d{1,2})\.(\d{1,2})\b"),
]
_LOG_TORCH = [  # the torch line (X.Y)
    re.compile(r"(?:\btorch(?:==|-| {1,20}|: ?)|PyTorch version: )(\d\.\d{1,3})\.\d{1,3}"),
    re.compile(r"\b(\d\.\d{1,3})\.\d{1,3}(?:\.?(?:dev|post|a|b|rc)\d{1,12})?\+cu1[0-3]\d\b"),
]
# a torch release without a local suffix (pip's 'torch==2.4.0' or 'torch  2.4.0', collect_env's
# 'PyTorch version: 2.4.0'): the PyPI wheel, whose CUDA is the runtime wheel it pins
# (generated/torch_nccl.json, tools/gen_torch_nccl.py)
_LOG_TORCH_PYPI = re.compile(r"(?:\btorch(?:==| {1,40}|: ?)|PyTorch version: )(\d\.\d{1,3}\.\d{1,3})(?![\w.+])")
_LOG_DRIVER = re.compile(r"(?:Driver Version|Nvidia driver version): ?(\d{3}\.\d{1,3}(?:\.\d{1,3})?)\b")
_LOG_DRIVER_CUDA = [  # the newest CUDA the driver runs
    (re.compile(r"too old \(found version (\d{4,6})\)"), lambda m: "%d.%d" % (int(m[1]) // 1000, int(m[1]) % 1000 // 10)),
    (re.compile(r"CUDA Version: (\d{1,2})\.(\d{1,2})\b"), lambda m: "%s.%s" % (m[1], m[2])),
]
_LOG_CC = [  # (name, major, minor)
    re.compile(r"(?:^|\]:? ?|: )([^\n:]{1,80}?) with CUDA capability sm_(\d{1,2})(\d)\b"),
    re.compile(r"Found GPU\d{1,3} ([^\n]{1,80}?) which is of cuda capability (\d{1,2})\.(\d{1,2})\b"),
    re.compile(r"()\bcompute capability(?: of)? (\d{1,2})\.(\d)\b"),
]


def _texts(finding):
    """The log's lines a finding carries: its matches, its signals, its causes' evidence."""
    out = [h.get("text") or "" for h in finding.get("matches") or []]
    out += [h.get("text") or "" for h in finding.get("signals") or []]
    for c in finding.get("causes") or []:
        out += [h.get("text") or "" for h in c.get("evidence") or []]
    return [t[:4096] for t in out if t]


def from_log(finding):
    """What the log says about versions and the GPU: {cuda, torch_line, driver, driver_cuda,
    ccs: [(name, 'X.Y')]}, each None/empty when the log does not say it."""
    got = {"cuda": None, "torch_line": None, "driver": None, "driver_cuda": None, "ccs": []}
    for t in _texts(finding):
        for rx in _LOG_CUDA:
            m = rx.search(t)
            if m and not got["cuda"]:
                got["cuda"] = "%d.%d" % (int(m[1]), int(m[2]))
        for rx in _LOG_TORCH:
            m = rx.search(t)
            if m and not got["torch_line"]:
                got["torch_line"] = m[1]
        m = _LOG_DRIVER.search(t)
        if m and not got["driver"]:
            got["driver"] = m[1]
        for rx, conv in _LOG_DRIVER_CUDA:
            m = rx.search(t)
            if m and not got["driver_cuda"]:
                got["driver_cuda"] = conv(m)
        for rx in _LOG_CC:
            for m in rx.finditer(t):
                cc = "%d.%d" % (int(m[2]), int(m[3]))
                if cc not in [c for _, c in got["ccs"]] and len(got["ccs"]) < 8:
                    got["ccs"].append((m[1].strip() or None, cc))
    if not got["cuda"]:
        from gpudoctor.explain.versions import torch_table

        for t in _texts(finding):
            m = _LOG_TORCH_PYPI.search(t)
            row = torch_table().get(m[1]) if m else None
            if row and row.get("cuda"):
                got["cuda"], got["cuda_from"] = row["cuda"], "torch %s from PyPI" % row["torch"]
                break
    return got


# --------------------------------------------------------------------------- torch builds


def _covers(tb, cuda, cc):
    """Whether the torch build for ``cuda`` runs on compute capability ``cc``; None when the table
    has no architecture list for it. Machine code (sm_XY) runs on the same major at an equal or
    higher minor (CUDA C Programming Guide, "Binary Compatibility"; torch's
    _code_compatible_with_device); PTX (+PTX) is compiled by the driver for any newer GPU."""
    archs = tb["archs"].get(cuda)
    if archs is None:
        return None
    want = _vt(cc)
    for a in archs:
        base = _vt(a)
        if base == want or (base[0] == want[0] and base <= want) or (a.endswith("+PTX") and base <= want):
            return True
    return False


def _build_for(ccs, tver, max_cuda, prefer_oldest=False):
    """(torch line, CUDA of the build, the given line had no known build) for the GPUs' compute
    capabilities: the given torch line if one of its builds carries them all, else the newest line
    that has one; within a line the newest CUDA the driver runs (max_cuda), or, with no driver
    known (prefer_oldest), the oldest CUDA that carries them (the lowest driver it needs)."""
    tb = _table()
    line = ".".join(tver.split("+")[0].split(".")[:2]) if tver else None

    def pick(tline):
        ok = [c for c in tb["lines"].get(tline, []) if not (max_cuda and _vt(c) > _vt(max_cuda))
              and all(_covers(tb, c, cc) for cc in ccs)]
        if not ok:
            return None
        return (min if prefer_oldest else max)(ok, key=_vt)

    def unknown(tline):
        """The line has builds this driver runs whose architecture lists the table lacks."""
        return any(_covers(tb, c, ccs[0]) is None for c in tb["lines"].get(tline, [])
                   if not (max_cuda and _vt(c) > _vt(max_cuda)))

    chosen = line if line in tb["lines"] and pick(line) else None
    if chosen is None:
        chosen = next((c for c in sorted(tb["lines"], key=_vt, reverse=True) if pick(c)), None)
    if chosen is None:
        return None
    note = ""
    if line and chosen != line:
        note = (" (the architecture lists of torch %s's builds are not in gpudoctor's table: its own cuXYZ build "
                "may do too)" % line) if unknown(line) else " (torch %s has no build for it that this driver runs)" % line
    return chosen, pick(chosen), note


def _pip(tline, cuda):
    tag = "cu" + cuda.replace(".", "")
    return cmd("pip install {pin} --index-url {url}", pin="torch==%s.*" % tline,
               url="https://download.pytorch.org/whl/%s" % tag), tag


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
    from gpudoctor.checks.driver_cuda import newest_cuda_for

    drv = gpu.get("driver_version")
    max_cuda = newest_cuda_for(drv) if drv else None
    got = _build_for(ccs, tver, max_cuda)
    if got is None:
        return None
    tline, cuda, note = got
    # every value from the node is one quoted word (gpudoctor/fixline.py): the line is pasted
    sms = ", ".join(sh("sm_%s" % cc.replace(".", "")) for cc in ccs)
    drv_txt = cmd("driver {d} runs CUDA <= {c}", d=drv, c=max_cuda) if max_cuda else \
        cmd("driver {d}", d=drv or "unknown")
    line, tag = _pip(tline, cuda)
    why = "this node: %s, %s%s; the %s build of torch %s carries %s" % (
        ", ".join(sh(n) for n in sorted({str(g.get("name", "?")) for g in gpu.get("gpus") or []})), drv_txt,
        cmd(", torch {v}", v=tver) if tver else "", tag, tline, sms) + note
    return line, why


def torch_build_from_log(log):
    """(fix line, why) for "no kernel image" from the compute capability torch printed, or None."""
    if not log["ccs"]:
        return None
    from gpudoctor.checks.driver_cuda import newest_cuda_for, requirement

    ccs = sorted({cc for _, cc in log["ccs"]}, key=_vt)
    max_cuda = (newest_cuda_for(log["driver"]) if log["driver"] else None) or log["driver_cuda"]
    got = _build_for(ccs, log["torch_line"] or "", max_cuda, prefer_oldest=not max_cuda)
    if got is None:
        return None
    tline, cuda, note = got
    line, tag = _pip(tline, cuda)
    gpus = ", ".join("%s %s" % (sh(n), sh("sm_" + cc.replace(".", ""))) for n, cc in log["ccs"] if n) or \
        ", ".join(sh("sm_" + cc.replace(".", "")) for cc in ccs)
    why = "the log: %s%s%s; the %s build of torch %s carries %s" % (
        gpus, cmd(", driver {d}", d=log["driver"]) if log["driver"] else "",
        cmd(", torch {v}", v=log["torch_line"]) if log["torch_line"] else "", tag, tline,
        ", ".join(sh("sm_" + cc.replace(".", "")) for cc in ccs))
    if max_cuda:
        why += cmd(" and runs on a driver for CUDA {c}", c=max_cuda)
    else:
        _, full = requirement(cuda)
        if full:
            why += "; it needs driver >= %s" % full
        # the driver is not in the log: name the build of a recent line (the last 4) that carries
        # the GPU with the lowest driver too, when it is not the one chosen (sm_120: cu128, driver 570)
        tb = _table()
        recent = sorted(tb["lines"], key=_vt, reverse=True)[:4]
        alts = [(requirement(c)[1], ln, c) for ln in recent for c in tb["lines"][ln]
                if requirement(c)[1] and all(_covers(tb, c, cc) for cc in ccs)]
        if alts and full:
            low = min(alts, key=lambda a: (_vt(a[0]), [-x for x in _vt(a[1])]))
            if _vt(low[0]) < _vt(full):
                why += "; with an older driver: %s (driver >= %s)" % (_pip(low[1], low[2])[0], low[0])
    return line, why + note


# --------------------------------------------------------------------------- driver minimum


def min_driver(log, facts=None):
    """(fix line, why) for a driver older than the CUDA of the program: the minimum driver of that
    CUDA (Table 3's row, and the major's minor-version-compatibility floor) and, when the driver is
    known, a torch build it already runs. None when neither the log nor the facts say a CUDA or
    a driver."""
    from gpudoctor.checks.driver_cuda import newest_cuda_for, older_minor_bound, requirement, toolkit_name

    want, drv, drv_cuda = log["cuda"], log["driver"], log["driver_cuda"]
    gpu = _section(facts, "gpu") or {}
    py = _section(facts, "python") or {}
    torch = py.get("torch") if isinstance(py.get("torch"), dict) else {}
    if not want and isinstance(torch.get("cuda"), str) and _vt(torch["cuda"]):
        want = "%d.%d" % _vt(torch["cuda"])[:2]
    if not drv and gpu.get("driver_version") and _vt(gpu["driver_version"]):
        drv = str(gpu["driver_version"])
    if drv and not drv_cuda:
        drv_cuda = newest_cuda_for(drv)
    said = []
    if want:
        said.append(cmd("built for CUDA {c}", c=want) + (" (%s)" % log["cuda_from"] if log.get("cuda_from") else ""))
    if drv:
        said.append(cmd("driver {d}", d=drv))
    if drv_cuda:
        said.append(cmd("the driver runs CUDA <= {c}", c=drv_cuda))
    if not said:
        return None
    tb = _t_cuda()
    if want:
        floor, full = requirement(want)
        if full:
            up = cmd("upgrade the NVIDIA driver to >= {f}", f=full) + " (CUDA %s's own minimum, NVIDIA's Table 3" % want
            if floor and floor != full:
                up += "; >= %s runs it through minor-version compatibility, without PTX JIT" % floor
            up += ")"
        else:
            bound = older_minor_bound(want)
            if bound:
                up = cmd("upgrade the NVIDIA driver to at least {d}", d=bound[1]) + \
                    " (the minimum of %s; CUDA %s's own row is not in gpudoctor's table)" % (toolkit_name(bound[0]), want)
            elif floor:
                up = cmd("upgrade the NVIDIA driver to >= {d}", d=floor) + " (CUDA %d.x minor-version compatibility)" \
                    % _vt(want)[0]
            else:
                return None
    else:
        # the CUDA torch wants is not in the log: the floors of the CUDA majors newer than the driver's
        have = _vt(drv_cuda) if drv_cuda else None
        floors = sorted((int(k), v) for k, v in tb["major_floor"].items() if have and int(k) > have[0])
        if not floors:
            return None
        up = "upgrade the NVIDIA driver: " + ", ".join("CUDA %d.x builds (torch cu%d*) need >= %s" % (k, k, v)
                                                      for k, v in floors[:2])
    alt = ""
    if drv_cuda or drv:
        # a torch build this driver already runs: its CUDA <= the driver's, or the same major with the
        # driver at the major's floor (minor-version compatibility)
        builds = _table()["lines"]
        dv = _vt(drv) if drv else None
        if not dv and drv_cuda:
            # a driver that runs CUDA X.Y is at least toolkit X.Y's own minimum (Table 3)
            dv = _vt(requirement(drv_cuda)[1] or "")

        def runs(c):
            if drv_cuda and _vt(c)[:2] <= _vt(drv_cuda)[:2]:
                return True
            fl = tb["major_floor"].get(str(_vt(c)[0]))
            return bool(dv and fl and dv >= _vt(fl))

        ok = [(ln, c) for ln, cs in builds.items() for c in cs if runs(c)]
        if ok:
            ln, c = max(ok, key=lambda x: (_vt(x[0]), _vt(x[1])))
            if not want or _vt(c)[:2] < _vt(want)[:2]:
                alt = "; or keep the driver and install a torch build it runs: " + _pip(ln, c)[0]
    return up + alt, "the log%s: %s" % (" and the facts" if facts else "", ", ".join(said))


# (toolkit found, torch's CUDA): torch's cpp_extension ("The detected CUDA version (11.8) mismatches the
# version that was used to compile\nPyTorch (12.4)", wrapped: the second half is its own line) and
# DeepSpeed's op builder ("Installed CUDA version 12.2 does not match the version torch was compiled
# with 11.7")
_MISMATCH_FOUND = re.compile(r"detected CUDA version \((\d{1,2}\.\d{1,2})\)")
_MISMATCH_TORCH = re.compile(r"PyTorch \((\d{1,2}\.\d{1,2})\)")
_MISMATCH_DS = re.compile(r"Installed CUDA version (\d{1,2}\.\d{1,2}) does not match the version torch was "
                          r"compiled with (\d{1,2}\.\d{1,2})")


def cuda_toolkit(finding):
    """(fix line, why) for an extension build with another CUDA than torch's, or None."""
    found = torch_cuda = None
    deepspeed = False
    for t in _texts(finding):
        m = _MISMATCH_DS.search(t)
        if m:
            found, torch_cuda, deepspeed = m[1], m[2], True
            break
        m = _MISMATCH_FOUND.search(t)
        found = found or (m[1] if m else None)
        m = _MISMATCH_TORCH.search(t)
        torch_cuda = torch_cuda or (m[1] if m else None)
    if not torch_cuda:
        return None
    major, minor = torch_cuda.split(".")
    line = cmd("export CUDA_HOME=/usr/local/cuda-{v}   (install it: apt-get install cuda-toolkit-{a}-{b}, or conda "
               "install -c nvidia cuda-toolkit={v})", v=torch_cuda, a=major, b=minor)
    why = cmd("torch was built with CUDA {t}", t=torch_cuda)
    if found:
        why += cmd(", the build found CUDA {f}", f=found)
        tb = _table()
        lines = [ln for ln, cs in tb["lines"].items() if found in cs]
        if lines:
            ln = max(lines, key=_vt)
            line += "; or install the torch build for CUDA %s: %s" % (found, _pip(ln, found)[0])
        if deepspeed and found.split(".")[0] == major:
            line += "; same major: DS_SKIP_CUDA_CHECK=1 lets DeepSpeed build anyway"
    return line, "the log: " + why


def _t_cuda():
    from gpudoctor import data

    return data.load("cuda_driver")


# bytes Linux's isspace() is true for (lib/ctype.c: _S is \t \n \v \f \r, space, and 0xA0)
_KERNEL_SPACE = frozenset(b" \t\n\v\f\r\xa0")


def valid_ifname(name):
    """Linux's rule for an interface name (net/core/dev.c dev_valid_name,
    https://github.com/torvalds/linux/blob/master/net/core/dev.c): 1 to 15 bytes (IFNAMSIZ 16 with its NUL),
    not '.' or '..', no '/', ':' or whitespace. A facts file is input: a name the kernel could not have given is
    not put in an export."""
    if not isinstance(name, str):
        return False
    try:
        raw = name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    if not 1 <= len(raw) <= 15 or raw in (b".", b".."):
        return False
    return not any(c in _KERNEL_SPACE or c in b"/:\0" for c in raw)


def socket_ifname(facts):
    """The interface NCCL/gloo should use on this node, or None (also when the facts name an interface that
    Linux would refuse: valid_ifname)."""
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
    if not valid_ifname(name):
        return None
    addr = next(a.get("address") for i in routable if i["name"] == name for a in i["ipv4"])
    return name, addr


def gpu_count(facts):
    gpu = _section(facts, "gpu")
    return len(gpu.get("gpus") or []) if gpu else None


def visible_gpus(facts):
    """(GPUs a process of this node sees, the CUDA_VISIBLE_DEVICES value that narrows them, or None):
    checks/_gpu.py's, which gpu.inventory's evidence shares (seen on a real 2x H100: the fix read
    'torchrun --nproc_per_node 2 (this node has 2 GPUs)' under CUDA_VISIBLE_DEVICES=0)."""
    from gpudoctor.checks._gpu import visible_gpus as _visible

    return _visible(facts)


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


def apply(result, facts, scan=None):
    """Put computed fix lines first in the causes that ask for them. ``facts``: one node's
    facts, a list of nodes' facts (the first decides GPU questions), or None."""
    nodes = facts if isinstance(facts, list) else ([facts] if facts else [])
    facts = nodes[0] if nodes else None
    launcher = result.get("launcher")
    for f in result["findings"]:
        done = set()
        log = None
        for c in f["causes"]:
            kind = c.get("computed")
            if not kind or kind in done:  # one computed line per finding and kind
                continue
            done.add(kind)
            line = None
            if kind in ("torch_build", "min_driver") and log is None:
                log = from_log(f)
            if kind == "torch_build":
                # this node's GPU when the facts have one (--check, --facts), else what torch printed
                got = torch_build(facts) if facts else None
                got = got or torch_build_from_log(log)
                if got:
                    line = "%s   (%s)" % got
            elif kind == "min_driver":
                got = min_driver(log, facts)
                if got:
                    line = "%s   (%s)" % got
            elif kind == "cuda_toolkit":
                got = cuda_toolkit(f)
                if got:
                    line = "%s   (%s)" % got
            elif kind == "torch_api":
                from gpudoctor.explain import torchapi

                got = torchapi.compute(_texts(f))
                if got:
                    line = "%s   (%s)" % got
            elif kind == "api_history":
                from gpudoctor.explain import apihistory

                got = apihistory.compute(_texts(f), frames=apihistory.frames_of(scan, f))
                apihistory.how_sure(f, got)
                if got:
                    line = "%s   (%s)" % got
            elif kind == "vllm_pp":
                from gpudoctor.explain import vllmpp

                got = vllmpp.compute(_texts(f))
                if got:
                    line = "%s   (%s)" % got
            elif kind == "ds_field":
                from gpudoctor.explain.dsconfig import ds_field

                got = ds_field((getattr(scan, "matches", None) or {}).get(f["id"]))
                if got:
                    line = "%s   (%s)" % got
            elif kind == "ds_batch":
                from gpudoctor.explain.dsconfig import ds_batch

                got = ds_batch(_texts(f))
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
            elif kind == "btl_tcp_if":
                got = _nics(nodes) if facts else None
                if got:
                    line = cmd("mpirun --mca btl_tcp_if_include {0} --mca oob_tcp_if_include {0} ...   ", got[0]) + \
                        "(%s)" % (cmd("this node: {0} carries {1}", *got) if len(nodes) == 1 else got[1])
                else:  # the log's own peer address or bridge name (link-local, docker0, virbr0): tcpif.py
                    from gpudoctor.explain import tcpif

                    line = tcpif.from_log(_texts(f))
            elif kind == "launcher_port":
                if launcher in PORT_FLAG:
                    line = PORT_FLAG[launcher].format(port=PORT_HINT) + \
                        "   (%s is the launcher in this log; pick a free port: ss -ltnp | grep <port>)" % launcher
            elif kind == "visible_gpus":
                n = gpu_count(facts) if facts else None
                seen, cvd = visible_gpus(facts) if facts else (None, None)
                has = "this node has %d GPU%s" % (n, "" if n == 1 else "s") if n is not None else ""
                if cvd is not None and seen != n:
                    has += cmd("; CUDA_VISIBLE_DEVICES={0} shows ", cvd) + "%d" % seen
                    n = seen
                if n == 0 and cvd is not None:
                    line = "unset CUDA_VISIBLE_DEVICES" + "   (%s: it names none of them)" % has
                elif n is not None and launcher in NPROC_FLAG:
                    line = NPROC_FLAG[launcher].format(n=n) + "   (%s)" % has
                elif n is not None:
                    line = "start at most %d process%s per node (%s)" % (n, "" if n == 1 else "es", has)
                elif launcher in NPROC_FLAG:
                    line = NPROC_FLAG[launcher].format(n="<GPUs per node: nvidia-smi -L | wc -l>") + \
                        "   (%s is the launcher in this log)" % launcher
            if line:
                c["fix"].insert(0, line)
                c["computed_fix"] = line
                name = _export_value(c, line)
                top = f["causes"][0]
                if name and kind != "socket_ifname" and top is not c and top.get("static_rank") == 0 and \
                        not top.get("computed_fix") and name in " ".join(top["fix"]):
                    # the message's own cause says to set that variable ('point CUDA_HOME at the toolkit of
                    # torch's CUDA'): it gets the value computed from the log first
                    top["fix"].insert(0, line)
                    top["computed_fix"] = line
                # the message's own cause (a generated site's means/fix, ranked first: static_rank 0)
                # that names the same variable gets the interface the facts computed too
                top = f["causes"][0]
                if kind == "socket_ifname" and top is not c and top.get("static_rank") == 0 and \
                        not top.get("computed_fix") and any(k in " ".join(top["fix"]) for k in keys):
                    top["fix"].insert(0, line)
                    top["computed_fix"] = line
                    top["exports"].update({k: v for k, v in c["exports"].items() if k in keys})
            elif facts and kind in ("torch_build", "socket_ifname", "btl_tcp_if", "visible_gpus") and \
                    not (kind == "torch_build" and log and log["ccs"]):
                c["computed_note"] = {
                    "torch_build": "the facts show no NVIDIA GPU with a compute capability: compute the build on "
                                   "the GPU node (gpudoctor explain --check there, or --facts from it)",
                    "visible_gpus": "the facts show no NVIDIA GPU: count the GPUs on the node that failed",
                }.get(kind, "the facts show no single routable interface (no default route, or several NICs): "
                            "pick the NIC that carries the nodes' addresses (ip -br addr)")
    return result


def _export_value(c, line):
    """A computed fix that starts 'export K=V' gives the cause's placeholder export of K its value: the
    answer printed `export CUDA_HOME='/usr/local/cuda-<the CUDA version of torch>'` above `fix: export
    CUDA_HOME=/usr/local/cuda-11.7 ...` (DeepSpeed's op builder named both versions). Returns K, or None
    when the line sets no variable."""
    try:
        words = shlex.split(line.split("   (", 1)[0])
    except ValueError:
        return None
    if len(words) == 2 and words[0] == "export" and "=" in words[1]:
        k, v = words[1].split("=", 1)
        if "<" in c["exports"].get(k, "") and v and "<" not in v:
            c["exports"][k] = v
        return k
    return None


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
        from gpudoctor.explain import advice

        advice.place(result)  # the message's own advice stays below a fix computed from the facts
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

"""The GPUs a job will get: all present, healthy memory (no uncorrectable ECC, no pending
row remap), free of leftover processes, no Xid in the kernel log, an architecture torch
was built for, bf16 where the job wants it, and persistence mode on."""

import re

from gpudoctor import data
from gpudoctor.fixline import bounded
from gpudoctor.registry import NA, Finding, Pass, Skip, check, cmd, sh, Literal

from ._gpu import arch_covers, cc_tuple, gpu_list, sm, torch_info, visible_gpus


def _label(g):
    return "GPU %s (%s, %s)" % (g.get("index", g.get("minor", "?")), g.get("name") or "?", g.get("bus_id") or "?")


def _bus_key(bus):
    """'00000000:00:06.0' (NVML), '0000:00:06.0' (/proc), '0000:00:06' (Xid) -> '0000:00:06'."""
    if not isinstance(bus, str):
        return bus if isinstance(bus, (int, type(None))) else None
    parts = bus.lower().split(":")
    if len(parts) != 3:
        return bus
    try:
        return "%04x:%s:%s" % (int(parts[0], 16), parts[1], parts[2].split(".")[0])
    except ValueError:
        return bus


XID_CATALOG = "https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html"
# "Xid (PCI:0009:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x4 (Drain and Reset)"
# (the catalog's Xid 154 row; the same form in real GB200 logs)
_XID154 = re.compile(r"recovery action changed from\s+0x([0-9a-f]+)\s*\(([^)]*)\)\s+to\s+0x([0-9a-f]+)\s*\(([^)]*)\)",
                     re.I)


def xid154_action(detail):
    """(NVML action number as a string, the name the driver printed) that an Xid 154 line states."""
    m = _XID154.search(detail or "")
    return (str(int(m.group(3), 16)), m.group(4).strip()) if m else None


def xid_verdict(xid, detail=""):
    """(level, meaning, fix) for an Xid, from NVIDIA's Xid catalog (gpudoctor/data/xid.json, made by
    tools/gen_xid.py). NVIDIA gives no severity: the level follows the catalog's immediate action
    (the table's "buckets", tools/gen_xid.py's BUCKETS); Xid 154 names its own action in the
    message."""
    table = data.load("xid")
    row = table["xids"].get(str(xid))
    if row is None:
        return "warning", "not in NVIDIA's Xid catalog for Ampere and newer GPUs", "look it up: " + XID_CATALOG
    imm = row.get("immediate") or ""
    if imm == "XID_154":
        stated = xid154_action(detail)
        act = table["xid154_actions"].get(stated[0]) if stated else None
        if act is None:
            return ("warning", "GPU recovery action changed (the action could not be read from the message)",
                    "read the Xid 154 line: it names the recovery action; " + XID_CATALOG)
        return (act["level"], "GPU recovery action now: %s" % stated[1],
                "%s (the driver's stated recovery action 0x%x, %s)" % (act["action"], int(stated[0]), act["name"]))
    bucket = table["buckets"].get(imm) or table["buckets"]["CONTACT_SUPPORT"]
    level = bucket["level"]
    # the catalog's own text (gpudoctor/data/xid.json, generated): trusted, the check's words
    fix = cmd("{action} (NVIDIA: {imm})", action=Literal(bucket["action"]), imm=Literal(imm or "no bucket"))
    inv = row.get("investigatory")
    if inv and inv in table["investigatory"]:
        fix += cmd("; if it repeats: {action} (NVIDIA: {inv})", action=Literal(table["investigatory"][inv]),
                   inv=Literal(inv))
    return level, row["meaning"], fix


@check("gpu.inventory", title="every expected GPU is present, healthy, idle and supported by torch")
def gpu_inventory(facts, config):
    sec = facts.get("gpu") or {}
    want = getattr(config, "expected_gpus", None)
    if sec.get("status") != "ok":
        reason = sec.get("reason") or sec.get("status") or "not collected"
        if want:  # GPUs were expected: their absence is the finding, not "nothing to judge"
            yield Finding.error("no GPU usable: %s; %d expected" % (reason, want), observed="0 GPUs (%s)" % reason,
                                expected="%d GPUs" % want,
                                fix="nvidia-smi; dmesg | grep -i -e nvrm -e nvidia | tail; reinstall or reload the "
                                    "driver (modprobe nvidia), then reboot if it does not load")
        elif sec.get("status") == "unsupported":
            yield NA("gpu: %s" % reason)
        else:
            yield Skip("gpu: %s" % reason)
        return
    found = list(_inventory_problems(facts, config))
    yield from found
    if not any(f.severity in ("error", "warning") for f in found):
        yield Pass(_evidence(facts, config))


def _evidence(facts, config):
    gpus = gpu_list(facts)
    if not gpus:
        return "no GPU expected (--expected-gpus 0) and none visible"
    names = {}
    for g in gpus:
        names.setdefault("%s (cc %s)" % (g.get("name") or "?", g.get("compute_capability") or "?"), []).append(g)
    parts = ["%d x %s" % (len(v), k) for k, v in names.items()]
    shown, cvd = visible_gpus(facts)
    if cvd is not None:
        # NVML counts every GPU of the node; a CUDA process under CUDA_VISIBLE_DEVICES sees its subset
        # (seen on a real 2x H100: "2 x H100" passed under CUDA_VISIBLE_DEVICES=0, where torchrun's rank 1
        # died "invalid device ordinal")
        # (bounded: a cut value is not the one the report's guard looks for, docs/security.md 90.)
        parts.append("CUDA_VISIBLE_DEVICES=%s shows %d of them to CUDA" % (bounded(cvd, 40), shown or 0))
    elif "CUDA_VISIBLE_DEVICES" in (((facts.get("env") or {}).get("hashed") or {})
                                    if isinstance(facts.get("env"), dict) else {}):
        parts.append("CUDA_VISIBLE_DEVICES is set (its value kept as a hash): CUDA may see fewer")
    want = getattr(config, "expected_gpus", None)
    if want is not None:
        parts.append("%d expected" % want)
    torch = torch_info(facts)
    archs = (torch or {}).get("arch_list") or ((facts.get("python") or {}).get("deep") or {}).get("arch_list")
    if isinstance(archs, list) and archs and all(isinstance(a, str) for a in archs) and (torch or {}).get("cuda"):
        # _arch judges only a CUDA torch (and a list of arch names): claim no coverage otherwise
        parts.append("covered by torch's %s..%s" % (archs[0], archs[-1]))
    parts.append("0 uncorrectable ECC, no pending row remap, no leftover process")
    log = facts["gpu"].get("kernel_log") or {}
    log = log if isinstance(log, dict) else {}
    rows = facts["gpu"].get("xids") if isinstance(facts["gpu"].get("xids"), list) else []
    xids = sorted(set(x["xid"] for x in rows if isinstance(x, dict) and isinstance(x.get("xid"), int)))
    if not log.get("readable"):
        parts.append("Xid not read")
    elif xids:  # only Xids NVIDIA's catalog says need no action reach a pass
        parts.append("Xid since boot needing no action (NVIDIA: IGNORE): %s" % ", ".join(map(str, xids)))
    else:
        parts.append("no Xid since boot")
    return "; ".join(parts)


def _inventory_problems(facts, config):
    sec = facts["gpu"]
    gpus = gpu_list(facts)
    want = getattr(config, "expected_gpus", None)
    if want is None and not gpus:
        yield Finding.warning(
            "the NVIDIA driver is loaded but no GPU is visible", observed="0 GPUs", expected="the node's GPUs",
            fix="nvidia-smi -L; lspci -d 10de:; check CUDA_VISIBLE_DEVICES/NVIDIA_VISIBLE_DEVICES and the "
                "container's --gpus flag; a GPU missing from lspci has fallen off the bus (reboot, then RMA)")
    if want is not None and len(gpus) != want:
        seen = ", ".join("%s %s" % (g.get("bus_id"), g.get("name")) for g in gpus) or "none"
        yield Finding.error(
            "%d GPUs visible, %d expected" % (len(gpus), want), observed="%d GPUs: %s" % (len(gpus), seen),
            expected="%d GPUs" % want,
            fix=cmd("nvidia-smi -L; check CUDA_VISIBLE_DEVICES/NVIDIA_VISIBLE_DEVICES ({v}) and the scheduler's GPU "
                    "request; a GPU missing from lspci -d 10de: has fallen off the bus (reboot, then RMA)",
                    v=((facts.get("env") or {}).get("values") or {}).get("CUDA_VISIBLE_DEVICES") or "unset"))
    for g in gpus:
        if g.get("excluded"):
            yield Finding.error("%s is excluded by the driver" % _label(g), observed="GPU Excluded: Yes",
                                fix=cmd("nvidia-smi -q -i {bus}; reboot; replace the GPU if it stays excluded",
                                        bus=g.get("bus_id")))
        ecc = g.get("ecc_uncorrected_volatile")
        if ecc and isinstance(ecc, int):  # untrusted node output: a count, or nothing to judge
            yield Finding.error(
                "%s has %d uncorrectable ECC errors since the last driver load" % (_label(g), ecc),
                observed="ecc.errors.uncorrected.volatile.total = %d" % ecc, expected="0",
                fix=cmd("drain the node; nvidia-smi -r -i {i} (reset, retires/remaps the row), then "
                        "nvidia-smi -q -d ECC,ROW_REMAPPER -i {i}; replace the GPU if it repeats", i=g.get("index", 0)))
        if g.get("remapped_rows_failure"):
            yield Finding.error("%s: row remapping failed (no spare rows left)" % _label(g),
                                observed="remapped_rows.failure = Yes", expected="No",
                                fix="drain the node and replace the GPU (nvidia-smi -q -d ROW_REMAPPER)")
        elif g.get("remapped_rows_pending"):
            yield Finding.error("%s has a row remap pending: it takes effect only after a GPU reset" % _label(g),
                                observed="remapped_rows.pending = Yes", expected="No",
                                fix=cmd("with no job on it: nvidia-smi -r -i {i} (or reboot the node)",
                                        i=g.get("index", 0)))
        procs = g.get("processes") or []
        # untrusted node output: process records with a real pid only (`kill -1` would signal everything)
        procs = [p for p in procs if isinstance(p, dict) and isinstance(p.get("pid"), int)
                 and not isinstance(p.get("pid"), bool) and p["pid"] > 0] \
            if isinstance(procs, list) else []  # untrusted node output: process records only
        if procs:
            pids = " ".join(str(p["pid"]) for p in procs)
            used = sum(p.get("used_mib") if isinstance(p.get("used_mib"), int) else 0 for p in procs)
            yield Finding.warning(
                "%s already has %d process(es) holding %d MiB before the job starts (a previous job's leftovers?)"
                % (_label(g), len(procs), used), observed="pids %s" % pids, expected="no process",
                fix=cmd("ps -o pid,user,etime,cmd -p {csv}; kill {pids} (then kill -9 if they stay)",
                        csv=",".join(str(p["pid"]) for p in procs), pids=[p["pid"] for p in procs]))
        if g.get("persistence_mode") is False:
            yield Finding.warning(
                "%s has persistence mode off: every process start re-initialises the GPU (seconds) and "
                "settings reset when the last process exits" % _label(g),
                observed="persistence mode off", expected="on",
                fix="systemctl enable --now nvidia-persistenced (or: nvidia-smi -pm 1)")
    yield from _xids(sec, gpus)
    yield from _arch(facts, gpus)
    if getattr(config, "bf16", False):
        for g in gpus:
            cc = cc_tuple(g.get("compute_capability"))
            if cc and cc < (8, 0):
                yield Finding.error(
                    "%s has compute capability %d.%d: no bf16 hardware (needs >= 8.0, Ampere); "
                    "torch.cuda.is_bf16_supported() may still say True through emulation" % ((_label(g),) + cc),
                    observed="compute capability %d.%d" % cc, expected=">= 8.0 for bf16",
                    fix="train in fp16 (DeepSpeed: \"fp16\": {\"enabled\": true}, \"bf16\": {\"enabled\": false}; "
                        "accelerate: --mixed_precision fp16), or keep this node out of bf16 jobs")


def _xids(sec, gpus):
    log = sec.get("kernel_log") or {}
    if not isinstance(log, dict):
        log = {"readable": False, "reason": "malformed in the facts"}
    if log and not log.get("readable"):
        yield Finding.info("kernel log not readable, Xid errors not checked: %s" % (log.get("reason") or "?"),
                           fix="run gpudoctor as root, or: sysctl kernel.dmesg_restrict=0")
        return
    by_bus = {}
    xids = sec.get("xids") if isinstance(sec.get("xids"), list) else []
    for x in xids:
        if isinstance(x, dict) and isinstance(x.get("bus_id"), str) and isinstance(x.get("xid"), int):
            by_bus.setdefault((x["bus_id"], x["xid"]), []).append(x)
    names = dict((_bus_key(g.get("bus_id")), g) for g in gpus)
    for (bus, xid), rows in sorted(by_bus.items()):
        detail = rows[-1].get("detail") or ""  # the newest line: for Xid 154, the action in force
        level, meaning, fix = xid_verdict(xid, detail)
        g = names.get(_bus_key(bus))
        where = _label(g) if g else "GPU %s" % bus
        make = {"error": Finding.error, "warning": Finding.warning}.get(level, Finding.info)
        yield make("%s logged Xid %d (%s) %d time(s) since boot" % (where, xid, meaning, len(rows)),
                   observed="NVRM: Xid (PCI:%s): %d, %s" % (bus, xid, detail),
                   # a GPU listed from /proc has a minor, not nvidia-smi's index: name it by bus id,
                   # which nvidia-smi -i takes too, never by a guessed index 0 (the wrong GPU)
                   fix=fix.replace("<index>", "<index>" if not g else sh(g["index"]) if g.get("index") is not None
                                   else sh(g.get("bus_id")) if g.get("bus_id") else "<index>"))


def _arch(facts, gpus):
    torch = torch_info(facts)
    if not torch or not torch.get("cuda"):
        return
    deep = ((facts.get("python") or {}).get("deep") or {})
    archs = torch.get("arch_list") or deep.get("arch_list")
    if not archs or not isinstance(archs, list) or not all(isinstance(a, str) for a in archs):
        return
    for g in gpus:
        cc = cc_tuple(g.get("compute_capability"))
        if cc and not arch_covers(archs, cc):
            yield Finding.error(
                "%s is compute capability %d.%d (%s) but torch %s was built for %s only: \"no kernel image is "
                "available for execution on the device\"" % (_label(g), cc[0], cc[1], sm(cc), torch["version"],
                                                            " ".join(archs)),
                observed="torch arch list %s" % " ".join(archs), expected="one that runs on %s" % sm(cc),
                fix=_arch_fix(cc, torch))


def _arch_fix(cc, torch):
    if cc < (7, 5):  # CUDA 13 dropped Maxwell/Pascal/Volta; PyTorch's cu126 build keeps them (pytorch/pytorch#157517)
        return cmd("pip install {pin} --index-url https://download.pytorch.org/whl/cu126 (the cu126 build keeps "
                   "sm_50..sm_70)", pin="torch==%s" % torch["version"].split("+")[0])
    if cc >= (10, 0):
        return ("pip install torch --index-url https://download.pytorch.org/whl/cu128 (or newer: Blackwell needs a "
                "CUDA >= 12.8 build)")
    return "install a torch build whose torch.cuda.get_arch_list() includes sm_%d%d, or build from source with " \
           "TORCH_CUDA_ARCH_LIST=\"%d.%d\"" % (cc[0], cc[1], cc[0], cc[1])

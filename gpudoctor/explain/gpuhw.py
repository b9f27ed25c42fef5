"""GPU hardware answers (gpudoctor/data/knowledge/gpu_hardware.toml, gpu.xid, cuda.gpu_hardware):
the GPU each matched line names, and one root per GPU.

A hardware fault is acted on per GPU (drain the node, reset or replace that GPU), so the answer
names it: the PCI address as the kernel log and nvidia-smi print it ('NVRM: Xid (PCI:0000:3b:00):',
'NVRM: GPU 0000:3b:00.0:', 'GPU 00000000:3B:00.0', 'GPU0000:3B:00.0') or the index DCGM and
nvidia-smi use ('in GPU 2', 'GPU 2's NvLink'). A log that names the same GPU on several lines
(RmInitAdapter and rm_init_adapter for every retry; the Xid, then nvidia-smi's lost handle) gets
one root: the other hardware findings on that GPU are folded into it as notes.
"""

import re

FAMILY = "cuda.gpu_hardware"
# a PCI address with its domain (4 hex digits in the kernel log, 8 in nvidia-smi's Bus-Id), bus,
# device and an optional function ('PCI:0000:3b:00'); not inside a longer hex run (a UUID, a register dump)
_PCI = re.compile(r"(?<![0-9A-Fa-f])(?<![0-9A-Fa-f]:)((?:[0-9A-Fa-f]{4}|[0-9A-Fa-f]{8}):[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})(\.[0-7])?"
                  r"(?![0-9A-Fa-f:])")
# Linux's PCIe port driver prefixes its AER lines with the port's own address (drivers/pci/pcie/portdrv.c's
# driver name, 'pcieport')
_PORT = re.compile(r"\bpcieport ([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])")
# an index: DCGM's 'GPU %u' ('in GPU 2', 'GPU 2's NvLink'), nvidia-smi's 'GPU 2:'; not 'GPU 0000:...'
_INDEX = re.compile(r"\bGPU ?(\d{1,3})(?!\d)(?![:.][0-9A-Fa-f])")


def is_hardware(f):
    """Whether a finding is a GPU hardware fault (an entry of the cuda.gpu_hardware family)."""
    return f.get("family") == FAMILY or f["id"] == FAMILY


def gpus_of(text):
    """The GPUs a line names, as keys ('pci 0000:3b:00', 'index 2'): the PCI address without its
    function and with a 4-digit domain, so that the kernel's and nvidia-smi's forms agree."""
    out = []
    port = _PORT.search(text[:2000])  # an AER line of the PCIe port above the GPU: the port is no GPU
    for m in _PCI.finditer(text[:2000]):
        if port and m.start() == port.start(1):
            continue
        dom, bus, dev = m.group(1).lower().split(":")
        key = "pci %s:%s:%s" % (dom[-4:], bus, dev)
        if key not in out:
            out.append(key)
    if not out:
        for m in _INDEX.finditer(text[:2000]):
            key = "index %s" % m.group(1)
            if key not in out:
                out.append(key)
    return out


# the kernel's Xid line (src/nvidia/src/kernel/gpu/rc/kernel_rc.c: 'NVRM: Xid (PCI:%s): %d, ...'), and Xid 154's
# recovery action ('GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)', gpu.c)
_XID = re.compile(r"\bXid \((?:PCI:)?[0-9A-Fa-f:.]{4,24}(?: GPU-I:\d{1,3})?\): (\d{1,3})\b")
_XID154 = re.compile(r"GPU recovery action changed from 0x[0-9a-f]{1,8} \([^)\n]{0,40}\) to 0x([0-9a-f]{1,8})")
_CATALOG = []


def _catalog():
    """gpudoctor/data/xid.json (tools/gen_xid.py from NVIDIA's Xid catalog), read once."""
    if not _CATALOG:
        import json
        import os

        path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "xid.json")
        try:
            with open(path) as f:
                _CATALOG.append(json.load(f))
        except (OSError, ValueError):
            _CATALOG.append({})
    return _CATALOG[0]


def catalog_notes(texts, limit=4):
    """What NVIDIA's Xid catalog asks for each Xid number the lines name: its resolution bucket and
    gpudoctor's reading of it (the immediate action), and what to do if it repeats; Xid 154 by the
    recovery action its message states."""
    cat, out, seen = _catalog(), [], []
    for text in texts:
        for m in _XID.finditer(text[:2000]):
            num = str(int(m.group(1)))
            if num in seen or len(seen) >= limit:
                continue
            seen.append(num)
            row = cat.get("xids", {}).get(num)
            if not row:
                continue
            act154 = _XID154.search(text)
            if num == "154" and act154:
                action = cat.get("xid154_actions", {}).get(str(int(act154.group(1), 16)), {}).get("action")
                bucket = "the action its message states"
            else:
                bucket = row.get("immediate") or "no bucket"
                action = cat.get("buckets", {}).get(row.get("immediate") or "", {}).get("action")
            inv = cat.get("investigatory", {}).get(row.get("investigatory") or "")
            out.append("NVIDIA's Xid catalog, Xid %s (%s): %s%s%s" % (
                num, row.get("meaning"), bucket, (": %s" % action) if action else "",
                ("; if it repeats: %s" % inv) if inv else ""))
    return out


def _app_only(texts):
    """Whether every Xid the lines name is one NVIDIA's catalog resolves in the application (its immediate
    bucket RESTART_APP or IGNORE), and they name at least one."""
    cat, nums = _catalog().get("xids", {}), set()
    for text in texts:
        nums.update(str(int(m.group(1))) for m in _XID.finditer(text[:2000]))
    return bool(nums) and all((cat.get(n) or {}).get("immediate") in ("RESTART_APP", "IGNORE") for n in nums)


def _shown(key):
    kind, _, v = key.partition(" ")
    return "PCI %s" % v if kind == "pci" else "GPU index %s" % v


def notes(f):
    """The notes of a hardware finding: its family, and the GPU(s) its lines name."""
    if not is_hardware(f):
        return []
    out = []
    texts = [h["text"] for h in f["matches"]]
    # Xids whose catalog action is the application's (13, 31: RESTART_APP; 43: IGNORE): the GPU is where it
    # happened, not what to act on
    app = _app_only(texts)
    if f["id"] != FAMILY:
        out.append("Family: %s (the GPU reports a hardware fault); %s is the kind the line names%s." % (
            FAMILY, f["id"], ", but NVIDIA's Xid catalog points at the application for this Xid, not the GPU"
            if app else ""))
    out.extend(catalog_notes(texts))
    seen = {}
    # the matched lines, then the entry's confirming lines (the first line of the driver's multi-line message)
    for h in f["matches"] + f.get("signals", []):
        for g in gpus_of(h["text"]):
            seen.setdefault(g, []).append(h["line"])
    if seen:
        out.append("The GPU: %s.%s" % ("; ".join(
            "%s (line%s %s)" % (_shown(g), "s" if len(ls) > 1 else "", ", ".join(str(x) for x in ls[:6]))
            for g, ls in list(seen.items())[:4]), " Look at the job on that GPU first (the causes below); drain the "
            "node only if the Xid repeats with other code." if app else
            " Act on that GPU (drain its node; reset or replace it), not on the job."))
    f["gpus"] = list(seen)[:16]
    return out


def fold(findings):
    """One root per GPU: when the root is a hardware fault, each other hardware finding that names
    the same GPU (or none) is folded into the root as a note instead of listed as another error."""
    if not findings or not is_hardware(findings[0]):
        return findings
    root = findings[0]
    mine = set(root.get("gpus") or [])
    kept = [root]
    for f in findings[1:]:
        theirs = set(f.get("gpus") or [])
        if f["role"] != "cascade" and is_hardware(f) and (not theirs or not mine or theirs <= mine):
            if not mine and theirs:
                # the root's lines name no GPU (CUDA's 'uncorrectable ECC error encountered'): the first GPU
                # another line names is taken as its GPU, so that a fault on a second GPU stays its own
                # finding ('Another GPU'), not 'Same GPU fault'
                mine = set(theirs)
            shown = {m["line"] for m in root["matches"]}
            h = next((m for m in f["matches"] if m["line"] not in shown), None)
            if h:  # a line of its own (the same line matched by both entries needs no second mention)
                root["notes"].append("Same GPU fault, also seen: %s (%s): line %d: %s" % (
                    f["id"], f["title"], h["line"], h["text"][:160]))
            # what gpu.xid's table and NVIDIA's catalog say of each Xid number stays in the answer
            root["notes"].extend(n for n in f["notes"] if n.startswith(("Xid ", "NVIDIA's Xid catalog"))
                                 and n not in root["notes"])
            root.setdefault("folded", []).append(f["id"])
            continue
        if f["role"] != "cascade" and is_hardware(f) and theirs - mine:
            f["notes"].insert(0, "Another GPU: %s." % ", ".join(_shown(g) for g in sorted(theirs - mine)))
        kept.append(f)
    return kept

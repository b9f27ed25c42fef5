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
# an index: DCGM's 'GPU %u' ('in GPU 2', 'GPU 2's NvLink'), nvidia-smi's 'GPU 2:'; not 'GPU 0000:...'
_INDEX = re.compile(r"\bGPU ?(\d{1,3})(?!\d)(?![:.][0-9A-Fa-f])")


def is_hardware(f):
    """Whether a finding is a GPU hardware fault (an entry of the cuda.gpu_hardware family)."""
    return f.get("family") == FAMILY or f["id"] == FAMILY


def gpus_of(text):
    """The GPUs a line names, as keys ('pci 0000:3b:00', 'index 2'): the PCI address without its
    function and with a 4-digit domain, so that the kernel's and nvidia-smi's forms agree."""
    out = []
    for m in _PCI.finditer(text[:2000]):
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


def _shown(key):
    kind, _, v = key.partition(" ")
    return "PCI %s" % v if kind == "pci" else "GPU index %s" % v


def notes(f):
    """The notes of a hardware finding: its family, and the GPU(s) its lines name."""
    if not is_hardware(f):
        return []
    out = []
    if f["id"] != FAMILY:
        out.append("Family: %s (the GPU reports a hardware fault); %s is the kind the line names." % (FAMILY, f["id"]))
    seen = {}
    for h in f["matches"]:
        for g in gpus_of(h["text"]):
            seen.setdefault(g, []).append(h["line"])
    if seen:
        out.append("The GPU: %s. Act on that GPU (drain its node; reset or replace it), not on the job." % "; ".join(
            "%s (line%s %s)" % (_shown(g), "s" if len(ls) > 1 else "", ", ".join(str(x) for x in ls[:6]))
            for g, ls in list(seen.items())[:4]))
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
            h = f["matches"][0] if f["matches"] else None
            root["notes"].append("Same GPU fault, also seen: %s (%s)%s" % (
                f["id"], f["title"], (": line %d: %s" % (h["line"], h["text"][:160])) if h else ""))
            # what gpu.xid's table says of each Xid number stays in the answer
            root["notes"].extend(n for n in f["notes"] if n.startswith("Xid ") and n not in root["notes"])
            root.setdefault("folded", []).append(f["id"])
            continue
        if f["role"] != "cascade" and is_hardware(f) and theirs - mine:
            f["notes"].insert(0, "Another GPU: %s." % ", ".join(_shown(g) for g in sorted(theirs - mine)))
        kept.append(f)
    return kept

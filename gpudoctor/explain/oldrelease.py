"""An NCCL release older than the releases that fixed failures of the root's kind (issue 18, explain-fixline24).

Issue 18: "version-specific bugs ..., where the log prints the version and the fix is 'this version has a known bug,
use that one'". versions.py answers the bugs whose symptom and range the release notes state (nccl.known_bug);
most public threads about an old NCCL are not among them: the release note of the fix rarely uses the words of the
message (a 2.19.3 topology failure fixed in 2.20, a bootstrap failure of 2.27 fixed in 2.27.3, an LL-protocol hang of
2.4.2 fixed in 2.4.7). What the text does show is the NCCL that ran and the kind of failure (the root's family).

So, where the root is an NCCL failure (an nccl.* family other than nccl.known_bug) and the text prints the NCCL that
ran (versions.ran: NCCL's own 'NCCL version 2.19.3+cuda12.3', a pip row, a torch release's pinned wheel), the
releases after it whose release notes fix a failure of the same kind (generated/nccl_releases.json, fix lines of
NVIDIA/nccl's release commits; tools/gen_nccl_releases.py) are counted, and the root gets one more cause, after its
own: "NCCL V ran; N later releases fixed failures of this kind (e.g. R: '<the release note>'): if none of the causes
above holds, try another NCCL version: the newest, or the one that worked". It never becomes the first cause, never
changes the root, its family, verdict or "How sure": it is the last alternative, with the release notes as its
reference. No such release after V (the newest NCCL, or no fix of that kind since): nothing is added.

The kind of failure is read from the root's id by AREA (the words NCCL's release notes use for fixes of that part:
'Fix hang during A2A connection', 'Fix bootstrap issue caused by connection reordering', 'Fix NVLS graphs search',
'Fix net/IB error path').
"""

import re

from gpudoctor.explain import versions as _versions

# root id (prefix) -> the release-note words of a fix of that kind (NCCL's own terms)
AREA = (
    (("nccl.hang", "nccl.timeout", "nccl.collective_mismatch"),
     re.compile(r"\bhangs?\b|deadlock|\brace\b|\bstuck\b", re.I)),
    (("nccl.topology", "nccl.graph", "nccl.nvls", "nccl.p2p"),
     re.compile(r"topolog|graphs? search|\bXML\b|\bPCI\b|NVLink|\brings?\b|\bC2C\b|\bNICs?\b", re.I)),
    (("nccl.net_ib", "nccl.dmabuf", "nccl.gdr", "nccl.roce", "nccl.net"),
     re.compile(r"\bIB\b|RoCE|\bGID\b|verbs|net/IB|RDMA|dma-?buf|\bGDR\b|\bECE\b", re.I)),
    (("nccl.internal_error", "nccl.system_error", "nccl.remote_error", "nccl.bootstrap", "nccl.wrong_interface",
      "nccl.net_socket", "nccl.init"),
     re.compile(r"bootstrap|socket|connection|\bconnect|initiali[sz]ation|\binit\b", re.I)),
    (("nccl.unhandled_cuda_error", "nccl.cumem"),
     re.compile(r"\bCUDA\b|cuMem|memory corruption|\bcrash", re.I)),
)
MAX_SHOWN = 2  # release notes quoted in the cause


def _area(root):
    for fam in (root.get("id") or "", root.get("family") or ""):
        for prefixes, rx in AREA:
            if any(fam == p or fam.startswith(p + ".") or fam.startswith(p + "_") for p in prefixes):
                return rx
    return None


def _releases():
    return _versions._generated("nccl_releases").get("releases") or []


def later_fixes(v, rx):
    """[(release, fix line)] of the releases after NCCL ``v`` whose fix lines match ``rx``, oldest first; and the
    newest release of the table."""
    vt = _versions._vt(v)
    rel = sorted(_releases(), key=lambda r: _versions._vt(r.get("version")))
    newest = rel[-1]["version"] if rel else None
    out = []
    for r in rel:
        if _versions._vt(r.get("version")) <= vt:
            continue
        for line in r.get("fixes") or ():
            if rx.search(line[:300]):
                out.append((r["version"], line))
    return out, newest


def _first_sentence(line):
    s = re.split(r"(?<=[.!?])\s|\s\*\s", line.strip(), maxsplit=1)[0]
    return s[:140]


def fill(scan, findings):
    """Add the later NCCL releases' fixes of the root's kind as its last cause (analyze.analyze's hook)."""
    f = findings[0] if findings else None
    if f is None or f.get("role") != "root" or f.get("kind") == "echo" or not f.get("causes"):
        return
    if (f.get("family") or "") == "nccl.known_bug" or (f.get("id") or "").startswith("nccl.bug_"):
        return
    rx = _area(f)
    if rx is None:
        return
    ran = _versions.ran(scan)
    if not ran:
        return
    hit, v, how = min(ran, key=lambda g: _versions._vt(g[1]))  # the oldest NCCL the text says ran
    fixes, newest = later_fixes(v, rx)
    if not fixes or newest is None:
        return
    shown = fixes[:MAX_SHOWN]
    rels = sorted({r for r, _ in fixes}, key=_versions._vt)
    cu = re.search(r"\+cuda(\d{2})", getattr(hit, "text", "") or "")
    wheel = "nvidia-nccl-cu%s" % cu.group(1) if cu else "nvidia-nccl-cu12 (cu13 for CUDA 13)"
    text = ("NCCL %s ran here (line %s%s); %d later release%s fixed failures of this kind (%s), e.g. %s. If none "
            "of the causes above holds, this release's own bug is likely: the NCCL version is the thing to change."
            % (v, hit.line, ": " + how if how else "", len(rels), "s" if len(rels) > 1 else "",
               ", ".join(rels[:6]) + (", ..." if len(rels) > 6 else ""),
               "; ".join("%s: '%s'" % (r, _first_sentence(line)) for r, line in shown)))
    fix = ["try another NCCL version: upgrade NCCL to %s or later (the first release above), or to the newest (%s): "
           "pip install -U %s (torch loads that wheel's libnccl) or a newer container image; if moving to %s "
           "started the failure, go back to the NCCL version that worked" % (rels[0], newest, wheel, v)]
    confirm = ["NCCL_DEBUG=VERSION prints the 'NCCL version' that runs, at init: rerun with the other version and "
               "compare; the release notes of %s list each fix" % rels[0]]
    f["causes"].append({"text": text, "checks": [], "confirm": confirm, "fix": fix, "exports": {}, "evidence": [],
                        "static_rank": 0, "computed": None})
    refs = f.setdefault("references", [])
    url = _versions._notes_url(rels[0])
    if url not in [r.get("url") for r in refs]:
        refs.append({"title": "NCCL %s release notes" % rels[0], "url": url})

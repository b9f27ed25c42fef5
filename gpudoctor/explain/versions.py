"""Which NCCL a log ran, for the known bugs of some NCCL releases (an entry's `affects`).

An entry with ``affects = { nccl = [["2.18.1", "2.18.6"], ...] }`` (each pair: from the first
version, inclusive, to the second, exclusive) is a finding only when the log ran an NCCL in one of
the ranges: the entry's symptom alone, or a version alone, is not evidence. The NCCL a log ran:

1. the version NCCL itself prints, or pip lists: `NCCL version 2.18.1+cuda12.1` (NCCL's
   init.cc, and torch's `NCCL error in: ..., NCCL version 2.18.5`), `nvidia-nccl-cu12==2.18.1`
   (`pip freeze`, torch.utils.collect_env's `[pip3] nvidia-nccl-cu12==2.18.1`), `nvidia-nccl-cu12
   2.18.1` (`pip list`), `torch.cuda.nccl.version()` -> `(2, 18, 1)`, an NVIDIA CUDA image's
   `NCCL_VERSION=2.18.1-1`, the Debian package (`libnccl2=2.18.1-1+cuda12.1`, dpkg -l, apt list),
   NVIDIA's tarball (`nccl_2.18.1-1+cuda12.1_x86_64.txz`), the library file (`libnccl.so.2.18.1`),
   a user's `NCCL 2.18.1` or an issue template's `NCCL version: 2.18.1` (knowledge.STRUCTURAL
   _struct_nccl_version); when the log prints any of these, only these count (a newer NCCL
   installed beside an older torch is what ran), each a version it may have run;
2. else the torch release: `torch 2.1.0` (pip list), `torch==2.1.0`, `PyTorch version: 2.1.0+cu121`
   (collect_env), `torch.__version__` -> `2.1.0+cu121`, read through generated/torch_nccl.json
   (tools/gen_torch_nccl.py: the nvidia-nccl wheel each torch wheel on PyPI pins). A source build
   or container (`2.1.0a0+...`), `+cpu`, `+rocm`, or a `+cuNNN` build of another CUDA major than
   the PyPI wheel's is not read: its NCCL is not the pinned one.

The finding then shows the version line and says where the NCCL version came from.
"""

import re

from gpudoctor.explain.text import clip as _clip

_VT = re.compile(r"\d+")
_CU = re.compile(r"^\+cu(\d{2})\d{0,2}$")


def _vt(v):
    return tuple(int(x) for x in _VT.findall(v or ""))[:3]


def _generated(name):
    from gpudoctor.explain.knowledge import read_generated  # (late: knowledge imports this module)

    try:
        return read_generated(name)
    except (OSError, ValueError):
        return {}


_TORCH = []


def torch_table():
    """{torch version: row} of generated/torch_nccl.json (read once)."""
    if not _TORCH:
        _TORCH.append({r["torch"]: r for r in _generated("torch_nccl").get("releases", [])
                       if isinstance(r, dict) and r.get("torch") and r.get("nccl")})
    return _TORCH[0]


def validate(affects, where):
    """The error text of a malformed `affects`, or None."""
    if not isinstance(affects, dict) or set(affects) != {"nccl"} or not isinstance(affects["nccl"], list) \
            or not affects["nccl"]:
        return "%s: affects is {nccl = [['FROM', 'BEFORE'], ...]}" % where
    for r in affects["nccl"]:
        if not (isinstance(r, list) and len(r) == 2 and all(isinstance(x, str) and len(_vt(x)) == 3 for x in r)
                and _vt(r[0]) < _vt(r[1])):
            return "%s: affects: %r is not ['FROM', 'BEFORE'] (X.Y.Z each, FROM < BEFORE)" % (where, r)
    return None


def _in(ranges, v):
    t = _vt(v)
    return len(t) == 3 and any(_vt(lo) <= t < _vt(hi) for lo, hi in ranges)


def ran(scan):
    """[(hit, NCCL version, how)] of the NCCL versions the log says it ran (the module docstring):
    the printed ones, else those of the torch releases it names. Cached on the scan."""
    got = getattr(scan, "nccl_ran", None)
    if got is not None:
        return got
    got = []
    for h in scan.matches.get("_struct_nccl_version", []):
        v = ".".join(str(x) for x in _vt(h.groups.get("nccl")))
        if len(_vt(v)) == 3 and v not in [g[1] for g in got]:
            got.append((h, v, None))
    if not got:
        table = torch_table()
        for h in scan.matches.get("_struct_torch_version", []):
            row = table.get(h.groups.get("torch") or "")
            local = h.groups.get("local") or ""
            if row is None or (local and not _CU.match(local)):
                continue
            m = _CU.match(local)
            if m and not (row.get("nccl_package") or "").endswith("-cu" + m.group(1)):
                continue
            how = "torch %s's PyPI wheel pins %s==%s, and the log prints no NCCL version of its own" % (
                row["torch"], row["nccl_package"], row["nccl"])
            if row["nccl"] not in [g[1] for g in got]:
                got.append((h, row["nccl"], how))
    scan.nccl_ran = got
    return got


def gate(scan, kb, matched):
    """Drop each matched entry with `affects` whose NCCL ranges hold for no version the log ran;
    keep the others with the version line among their hits. Returns {entry id: note}."""
    from gpudoctor.explain.scan import MAX_SHOWN

    notes = {}
    for eid in list(matched):
        e = kb.by_id.get(eid)
        aff = e.get("affects") if e else None
        if not aff:
            continue
        hit = next(((h, v, how) for h, v, how in ran(scan) if _in(aff["nccl"], v)), None)
        if hit is None:
            del matched[eid]
            continue
        h, v, how = hit
        m = matched[eid]
        if h.line not in {x.line for x in m["hits"]}:
            m["hits"] = sorted(m["hits"][:MAX_SHOWN - 1] + [h], key=lambda x: x.line)
        notes[eid] = "NCCL %s ran here%s; affected: %s." % (
            v, ": " + how if how else "", ", ".join("%s <= NCCL < %s" % (lo, hi) for lo, hi in aff["nccl"]))
    return notes


def _notes_url(v):
    """NCCL's release notes page of a release (docs.nvidia.com keeps one per release:
    archives/nccl_2183/release-notes/rel_2-18-3.html)."""
    return "https://docs.nvidia.com/deeplearning/nccl/archives/nccl_%s/release-notes/rel_%s.html" % (
        v.replace(".", ""), v.replace(".", "-"))


def first_torch_with(v):
    """The first torch release (of generated/torch_nccl.json) whose PyPI wheel pins an NCCL >= v, or None."""
    rows = sorted(torch_table().values(), key=lambda r: _vt(r["torch"]))
    return next((r for r in rows if _vt(r["nccl"]) >= _vt(v)), None)


def known_bug_entries():
    """The known-bug entries of generated/nccl_releases.json (its known_bugs: tools/gen_nccl_releases.py
    KNOWN_BUGS, a release's "Fix ..." line with the symptom a log shows), as knowledge entries
    (dicts as a TOML file gives them; load_knowledge validates them)."""
    out = []
    for b in _generated("nccl_releases").get("known_bugs", []):
        v, line = b["fixed_in"], b["release_fix"]
        t = first_torch_with(v)
        torch = (" (torch %s and later pin it: pip install -U torch)" % t["torch"]) if t else ""
        if b.get("symptom"):
            out.append(_symptom_entry(b, t))
            continue
        e = {"id": b["id"], "family": "nccl.known_bug", "rank": b["rank"],
             "title": "Known NCCL bug, fixed in %s: %s" % (v, line.split(" * ")[0].rstrip(".")),
             "explain": "NCCL's release notes of %s list \"%s\". What a log shows of it: %s. NCCL %s to the "
                        "release before %s have it (from the release order; generated/nccl_releases.json)."
                        % (v, line, b["shows"], b["affects"][0], v),
             "affects": {"nccl": [list(b["affects"])]},
             "known_bug": {"release_fix": line, "fixed_in": [v]},
             "causes": [{"text": "This NCCL release has the bug that %s fixed: upgrade NCCL to %s or later." % (v, v),
                         "confirm": ["python -c 'import torch; print(torch.cuda.nccl.version())'   (the NCCL "
                                     "torch loads)"],
                         "fix": ["pip install -U 'nvidia-nccl-cu12>=%s'%s; or LD_PRELOAD a libnccl.so.2 of %s or "
                                 "later" % (v, torch, v)]}],
             "references": [{"title": "NCCL %s release notes (fixed issues)" % v, "url": _notes_url(v)},
                            {"title": "NVIDIA/nccl release commit %s (NCCL %s)" % (b["commit"], v),
                             "url": "https://github.com/NVIDIA/nccl/commit/%s" % b["commit"]}]}
        if b.get("patterns"):
            e["patterns"] = list(b["patterns"])
        if b.get("together"):
            e["together"] = [{"all": list(b["together"]), "within": 1000000, "rank": b["rank"]}]
        out.append(e)
    return out


# --------------------------------------------------------------------------- known bugs without an error line
# A known bug whose symptom is a hang, a slowdown or a wrong result (tools/gen_nccl_releases.py SYMPTOM_BUGS ->
# generated/nccl_releases.json known_bugs with `symptom`): its log has no line of its own, so no pattern makes it
# a finding. judge() offers it after the other answers (explain_inputs, after hang.judge) when the log ran an
# affected NCCL (ran()) AND shows that kind of symptom AND every one of the bug's words (the condition the
# release note names: the collective, the variable, the GPU), read by the scan as the entry's signals.

SYMPTOM_SAY = {"hang": "hangs", "slow": "is slow", "wrong": "gives wrong results", "error": "fails"}
# findings that say a collective never finished (c10d's watchdog; hang.py's triage)
_HANG_IDS = ("nccl.timeout", "nccl.hang", "cascade.watchdog_abort")


def _symptom_entry(b, t):
    """The knowledge entry of a SYMPTOM_BUGS row: structural (no pattern: judge() makes its finding), with its
    words as signals (scanned on every line; weight 0: they make no score)."""
    v, say = b["fixed_in"], b["fix_text"]
    pkg = (t or {}).get("nccl_package") or "nvidia-nccl-cu12"
    torch = (" or a torch release that bundles it (torch %s and later pin NCCL %s or newer: pip install -U torch)"
             % (t["torch"], t["nccl"])) if t else ""
    fix = ["pip install -U '%s>=%s'%s; or LD_PRELOAD a libnccl.so.2 of %s or later" % (pkg, v, torch, v)]
    if b.get("workaround"):
        fix.append("until then: %s" % b["workaround"])
    if b.get("support_added"):  # (tools/gen_nccl_releases.py SUPPORT_ADDED: a release that adds a GPU generation)
        # the NCCL the log ran is older than the release that added this GPU
        return _entry(
            b, "This NCCL predates the GPU: NCCL %s added it (\"%s\")" % (v, say),
            "NCCL's release notes of %s list \"%s\": every earlier NCCL was built before this GPU generation (no "
            "kernels compiled for it, no tuning or topology for its systems), and fails on it in ways whose lines do "
            "not say so; what a log shows of it: %s." % (v, say, b["shows"]),
            {"text": "The NCCL this job ran is older than %s, the first release for this GPU: upgrade NCCL to %s or "
                     "later." % (v, v),
             "confirm": ["python -c 'import torch; print(torch.cuda.nccl.version())'   (the NCCL torch loads); "
                         "nvidia-smi --query-gpu=name,compute_cap --format=csv"],
             "fix": fix}, "NCCL %s release notes" % v)
    since = ("NCCL %s to the release before %s have it: %s" % (b["affects"][0], v, b["from_why"])
             if b.get("from_why") else
             "the notes do not say when it appeared, so every release before %s is taken as affected" % v)
    return _entry(
        b, "Known NCCL bug, fixed in %s: %s" % (v, say),
        "NCCL's release notes of %s list \"%s\". It %s with no %s; what a log shows of it: %s. %s (the range: "
        "generated/nccl_releases.json)." % (
            v, say, {"hang": "hangs", "slow": "slows the job", "wrong": "gives wrong results", "error": "fails"}[
                b["symptom"]], "line that names it" if b["symptom"] == "error" else "error line of its own",
            b["shows"], since[0].upper() + since[1:]),
        {"text": "The NCCL this job ran has the bug that %s fixed (\"%s\"): upgrade NCCL to %s or later." % (v, say, v),
         "confirm": ["python -c 'import torch; print(torch.cuda.nccl.version())'   (the NCCL torch loads)",
                     "rerun with the fixed NCCL: the %s should be gone" % {
                         "hang": "hang", "slow": "slowdown", "wrong": "wrong results", "error": "failure"}[b["symptom"]]],
         "fix": fix}, "NCCL %s release notes (fixed issues)" % v)


def _entry(b, title, explain, cause, notes_title):
    """A SYMPTOM_BUGS row's entry: structural (no pattern: judge() makes its finding), with its words as signals
    (scanned on every line; weight 0: they make no score), its one cause, the release notes and the commit."""
    v = b["fixed_in"]
    return {"id": b["id"], "family": "nccl.known_bug", "rank": b["rank"], "structural": True,
            "title": title, "explain": explain,
            "affects": {"nccl": [list(b["affects"])]},
            "known_bug": {"release_fix": b["release_fix"], "fixed_in": [v], "symptom": b["symptom"]},
            "signals": [dict(w, weight=0) for w in b["words"]],
            "causes": [cause],
            "references": [{"title": notes_title, "url": _notes_url(v)},
                           {"title": "NVIDIA/nccl release commit %s (NCCL %s)" % (b["commit"], v),
                            "url": "https://github.com/NVIDIA/nccl/commit/%s" % b["commit"]}]}


def _shows(result, scan, kind):
    """(line, text) of what says the job hangs / is slow, else None ('wrong': the bug's own words say it)."""
    from gpudoctor.explain import hang as _hang

    if kind in ("wrong", "error"):  # the bug's own words say it (tools/gen_nccl_releases.py WORDS: wrong, fails)
        return ()
    said = _hang._complaint(scan)
    slow = bool(said and _hang._SLOW.search(said[1] or ""))
    if kind == "slow":
        return said if slow else None
    for f in result["findings"]:
        if f["id"] in _HANG_IDS or "watchdog" in f["id"]:
            m = f["matches"][0] if f.get("matches") else None
            if m and isinstance(m.get("line"), int) and m.get("text"):
                return (m["line"], m["text"])
    w = scan.matches.get("_struct_watchdog")
    if w:
        return (w[0].line, w[0].text)
    return said if said and not slow else None


def judge(result, scan, kb):
    """Offer the known bug of a SYMPTOM_BUGS row where the log ran an affected NCCL, shows the bug's kind of
    symptom and all its words: the root, unless the root names its cause with certainty (then the second
    finding). Returns the finding it added, else None."""
    ran_ = ran(scan)
    if not ran_:
        return None
    got = []
    for e in kb.entries:
        kb_ = e.get("known_bug") or {}
        kind = kb_.get("symptom")
        if not kind or not e.get("affects"):
            continue
        hit = next(((h, v, how) for h, v, how in ran_ if _in(e["affects"]["nccl"], v)), None)
        if hit is None:
            continue
        words = [p for p in e["_patterns"] if p.role == "signal"]
        lines = [scan.signals.get(p) for p in words]
        if not words or not all(lines):
            continue
        shown = _shows(result, scan, kind)
        if shown is None:
            continue
        got.append((e, hit, shown, [x[0] for x in lines]))
    if not got:
        return None
    # the most specific first: a range whose start the notes or a thread name (not every release before the fix),
    # more words, a higher rank, the earlier fix
    got.sort(key=lambda g: (g[0]["affects"]["nccl"][0][0] == "2.0.0", -len(g[3]), -g[0]["rank"],
                            _vt(g[0]["affects"]["nccl"][0][1])))
    e, (vh, v, how), shown, wh = got[0]
    from gpudoctor.explain.hang import _made, _set_root
    from gpudoctor.explain.ncclinfo import _Shown

    hits = {vh.line: vh}
    for h in wh:
        hits.setdefault(h.line, h)
    if shown:
        hits.setdefault(shown[0], _Shown(shown[0], shown[1]))
    fixed, say = e["known_bug"]["fixed_in"][0], SYMPTOM_SAY[e["known_bug"]["symptom"]]
    other = [h for h in wh if not shown or h.line != shown[0]]
    notes = ["How sure: medium. NCCL %s ran here (line %d%s), in the range this bug affects (%s), and the text shows "
             "its symptom: the job %s%s, %s. The version and the symptom together make it a candidate, not a "
             "certainty: if the job still %s with NCCL %s or later, the other causes below are next."
             % (v, vh.line, ": " + how if how else "",
                ", ".join("%s <= NCCL < %s" % (lo, hi) for lo, hi in e["affects"]["nccl"]), say,
                " (line %d: %s)" % (shown[0], _clip(shown[1], 140)) if shown else "",
                ("with " + "; ".join("line %d: %s" % (h.line, _clip(h.text, 100)) for h in other[:3])) if other
                else "and that line names the bug's condition", say, fixed)]
    if len(got) > 1:
        notes.append("Other known bugs of NCCL %s with this symptom: %s." % (v, "; ".join(
            "%s (fixed in %s)" % (g[0]["title"].split(": ", 1)[-1], g[0]["known_bug"]["fixed_in"][0])
            for g in got[1:4])))
    root = result["findings"][0] if result["findings"] else None
    f = _made(e, scan, [(h.line, h.text) for h in sorted(hits.values(), key=lambda x: x.line)], "cause", notes)
    f["first_line"] = min(hits)
    f.pop("from_info_lines", None)  # (hang._made's mark of an answer from NCCL's INFO lines: not this one)
    # --json: which NCCL ran, where the bug is fixed, the range and the kind of symptom
    f["known_bug"] = {"nccl": v, "fixed_in": fixed, "affects": [list(r) for r in e["affects"]["nccl"]],
                      "symptom": e["known_bug"]["symptom"]}
    if root is not None and root.get("confidence") == "cause" and root["kind"] != "echo" and \
            root["id"] not in _HANG_IDS and root.get("family") != "nccl.known_bug":
        f["role"] = "related"
        f["notes"].insert(0, "A second candidate: the root above names its cause; this known bug of NCCL %s has the "
                             "same symptom." % v)
        result["findings"].insert(1, f)
        return f
    return _set_root(result, f)

"""One step deeper (issue 18 item 3, noans24): a root whose message names a true mechanism one step short of its cause.

A program reports the failure of its own layer: UCX's CMA transport that process_vm_readv() returned EPERM, srun that
slurmd answered 'Job credential revoked', a daemon that inotify_init() returned EMFILE. Its entry answers that layer
(container.ucx_shm, slurm.auth, errno.emfile), and the fix is in the layer below: Yama's ptrace_scope or the
container's CAP_SYS_PTRACE; the batch script that ended before its background steps (`wait`); the per-user inotify
limits. generated/deeper_causes.json (tools/gen_deeper_causes.py) holds, for such consequences, the deeper cause as
the producing layer's documentation states it (process_vm_readv(2), ptrace(2), salloc(1), srun(1), inotify(7),
each rule's quotes checked against the Debian packages' man pages at generation).

Where the root's own line is such a consequence, the answer names both: the root keeps its id and its causes, the
deeper cause goes first (marked 'One step deeper', with how to confirm and fix it, and its documents among the
references), and a note says which mechanism was found and what produces it. How sure: medium where the text shows
the deeper layer's state (`ptrace_scope = 1`, the batch script's `srun ... &` lines with no `wait`), low where it
cannot (then calibrate answers a likely cause and lists the other findings as alternatives). A line of the text that
names another cause (a job cancelled or past its time limit; ESRCH) leaves the root as it was.

Runs in explain_inputs after the judges that set the root and before lastresort / calibrate.
"""

import re

MAX_LINES = 4  # the root's matched lines read


def _rules():
    from gpudoctor.explain.knowledge import generated_table

    return generated_table("deeper_causes").get("rules") or []


def _sid(i, kind):
    return "_struct_dc%d_%s" % (i, kind)


def _patterns():
    """The structural patterns the scan reads for each rule's shown / absent_shown / other lines."""
    out = {}
    for i, r in enumerate(_rules()):
        for kind in ("shown", "absent_shown", "other"):
            if r.get(kind):
                out[_sid(i, kind)] = [r[kind]]
    return out


PATTERNS = _patterns()
# none of these lines is an answer of its own: each shows (or sets aside) a deeper layer's state beside a root, and
# a user's sentence on such a line is still the user's (symptoms._program_lines; fp24: "/dev/shm is only 64M in the
# container" is deeper.inotify_watches' 'other' line)
CONTEXT_LINES = frozenset(PATTERNS)
_COMPILED = {}


def _compiled(r, key):
    k = (r["id"], key)
    if k not in _COMPILED:
        _COMPILED[k] = re.compile(r[key], re.IGNORECASE)
    return _COMPILED[k]


def _shown(scan, i, r):
    """The lines that show the deeper layer (none where the rule's absent_shown line is in the text too)."""
    shown = list(_hits(scan, i, "shown"))
    if shown and r.get("absent_shown") and _hits(scan, i, "absent_shown"):
        return []  # (the script shows its `wait`: the background steps were waited for)
    return shown


def _hits(scan, i, kind):
    return scan.matches.get(_sid(i, kind)) or []


def rule_for(root, scan):
    """(index, rule, line) of the first rule whose consequence is the root's own line and that no other line of the
    text sets aside; None else."""
    lines = [m for m in (root.get("matches") or ())[:MAX_LINES] if m.get("text")]
    for i, r in enumerate(_rules()):
        for m in lines:
            text = m["text"][:2000]
            low = text.lower()
            hit = any(n in low for n in r["needles"]) and _compiled(r, "consequence").search(text)
            if not hit and r.get("consequence_if_shown") and any(n in low for n in r.get("needles_if_shown") or ()):
                hit = _compiled(r, "consequence_if_shown").search(text) and _shown(scan, i, r)
            if hit:
                if _hits(scan, i, "other"):
                    return None
                return i, r, m
    return None


def apply(result, scan, kb=None):
    """Name the deeper cause of a root whose line is a consequence in generated/deeper_causes.json. True when it
    did."""
    findings = result.get("findings") or []
    if result.get("verdict") not in ("root_cause", "likely_cause") or not findings or scan is None:
        return False
    root = findings[0]
    if root.get("kind") == "echo" or root.get("role") == "cascade" or \
            any((c.get("text") or "").startswith("One step deeper") for c in root.get("causes") or ()):
        return False
    got = rule_for(root, scan)
    if got is None:
        return False
    i, r, m = got
    shown = _shown(scan, i, r)
    ev = [{"line": m.get("line"), "text": m["text"][:400]}] + [{"line": h.line, "text": h.text[:400]}
                                                               for h in shown[:2]]
    cause = {"text": "One step deeper (%s): %s" % (r["layer"], r["cause"]), "checks": [],
             "confirm": list(r["confirm"]), "fix": list(r["fix"]), "exports": {}, "evidence": ev,
             "static_rank": 0, "computed": None}
    root.setdefault("causes", []).insert(0, cause)
    sure = "medium" if shown else "low"
    tell = ("the text shows it: line %s (%s)" % (shown[0].line, shown[0].text.strip()[:120]) if shown else
            "the text cannot show that layer: confirm it with the first step below")
    root.setdefault("notes", []).insert(0, (
        "How sure: %s. The message names the mechanism: %s. Its cause is one layer deeper, in %s (%s): the first "
        "cause below; %s." % (sure, r["found"], r["layer"], ", ".join(sorted({s["doc"] for s in r["sources"]})),
                              tell)))
    refs = root.setdefault("references", [])
    have = {x.get("url") for x in refs}
    for s in r["sources"]:
        if s["url"] not in have:
            have.add(s["url"])
            refs.append({"title": "%s (%s): %s" % (s["doc"], s["package"], s["quote"][:160]), "url": s["url"]})
    return True

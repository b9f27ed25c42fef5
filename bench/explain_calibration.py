#!/usr/bin/env python3
"""How often is a root finding of `gpudoctor explain` right, per class of answer and per round (issue 18, item 3:
never confidently wrong)?

A class is (how sure the answer says it is, how it was reached):
  how sure   the root finding's "confidence" (cause / family / structural) and, for structural, its note's level
             (low / medium); the verdict (root_cause, or the honest ones) beside it
  reached    entry pattern     a hand-written entry's own pattern matched (knowledge/*.toml)
             generated site    a generated message site matched (knowledge/generated/*.json, a pinned source)
             structural <mod>  nothing matched: the shape read by <mod> (analyze: NCCL WARN / Slurm lines /
                               exception type; pyanswer, excmeaning, libwhere, failshape, ...)
             judge <mod>       a later reader replaced the root (symptoms: the user's words; launchctx / launchpaste:
                               launch lines; settings; hang; ncclinfo; rankev; envcause; versions)
The readers are tagged from outside (this script wraps analyze._finding / _structural_finding and each judge); the
product is not changed by it.

A round is one seen set (bench/data/explain_heldout_<date><letter>.jsonl): each was drawn independently, scored
while unseen, then committed. An answer is OUT OF SAMPLE for a round when the rule that gave it was last changed
before the round's file was committed (it could not have been tuned on that round's texts); IN SAMPLE otherwise.
"The rule": a hand-written entry's header (id, patterns; `git blame` of the TOML lines from `[[entry]]` to its
first `[[entry.causes]]`), or the Python function that made the finding (`git log -L :func:file`, its last
change). Generated sites are dated by the entry they feed (the family assignment of a site is the generator's,
and the text is the source's, not a sample's).

    cd /tmp && /work/main/.venv/bin/python /work/main/bench/explain_calibration.py run OUT.json [--skip SET,SET]
    python bench/explain_calibration.py table OUT.json [--markdown] [--min N] [--coarse]
    python bench/explain_calibration.py rounds OUT.json [CLASS WORDS]   # per round, per class
    python bench/explain_calibration.py weak OUT.json      # finer classes (entry, source) weak out of sample
    python bench/explain_calibration.py compare BEFORE.json AFTER.json   # per class, before -> after

--coarse: the class is the root's first 'How sure' note (high / medium / low / none) and how it was reached in a few
words (the table in docs/explain.md, "Calibration by round"). `run` scores the gpudoctor the interpreter imports
(PYTHONPATH=<a git-archive copy> scores that tree); the cases and the rules' dates are always this repository's.
A rule's LAST change dates it, so an entry edited after a round counts as tuned on it: the split is conservative.

Precision of a class = answers with the right family / answers with a root finding (error texts; a healthy log
given a root counts as a wrong answer). "confidently wrong" = a wrong family under verdict root_cause.
"""

import collections
import functools
import glob
import io
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
JUDGES = ("ncclinfo", "launchpaste", "launchctx", "hang", "rankev", "versions", "settings", "symptoms", "envcause")


def _caller(depth=2):
    fr = sys._getframe(depth)
    mod = os.path.basename(fr.f_code.co_filename)[:-3]
    return mod, fr.f_code.co_name


def _instrument():
    """Tag every finding with how it was made (`_how`, `_rule`: the file and the entry or function)."""
    import importlib
    import pkgutil

    import gpudoctor.explain as pkg
    from gpudoctor.explain import analyze

    for m in pkgutil.iter_modules(pkg.__path__):
        importlib.import_module("gpudoctor.explain." + m.name)
    orig_f, orig_s = analyze._finding, analyze._structural_finding

    @functools.wraps(orig_f)
    def finding(e, m, role, scan):
        f = orig_f(e, m, role, scan)
        mod, fn = _caller()
        srcs = sorted({(h.pattern.site or {}).get("source") or "?" for h in m.get("hits", ())
                       if h.pattern is not None and getattr(h.pattern, "site", None)})
        if mod == "analyze" and fn == "analyze":
            f["_how"] = "generated site" if srcs else "entry pattern"
        else:
            f["_how"] = "%s %s.%s" % ("generated site via" if srcs else "entry via", mod, fn)
        f["_rule"] = {"entry": e["id"], "file": e.get("source_file"), "sites": srcs}
        return f

    @functools.wraps(orig_s)
    def structural_finding(e, hit, why, scan, lib=None, sure="low"):
        f = orig_s(e, hit, why, scan, lib, sure)
        mod, fn = _caller()
        f["_how"] = "structural %s" % mod
        f["_rule"] = {"entry": e["id"], "file": e.get("source_file"), "func": "%s:%s" % (mod, fn)}
        f["_sure"] = sure
        return f

    for m in pkgutil.iter_modules(pkg.__path__):
        mod = sys.modules["gpudoctor.explain." + m.name]
        for name in dir(mod):
            v = getattr(mod, name)
            if v is orig_f:
                setattr(mod, name, finding)
            elif v is orig_s:
                setattr(mod, name, structural_finding)
    for name in JUDGES:
        mod = sys.modules["gpudoctor.explain." + name]
        orig = mod.judge

        def judge(result, *a, _orig=orig, _name=name, **k):
            before = (result.get("findings") or [None])[0]
            out = _orig(result, *a, **k)
            after = (result.get("findings") or [None])[0]
            if after is not None and after is not before:
                inner = after.get("_how")
                after["_how"] = "judge %s" % _name
                after.setdefault("_rule", {"entry": after.get("id"), "file": after.get("knowledge_file"),
                                           "func": "%s:judge" % _name})
                after["_rule"]["judge"] = _name
                after["_rule"]["inner"] = inner
            return out

        mod.judge = judge


def _sure(root):
    """How sure the root says it is: its confidence, and a structural note's level."""
    c = root.get("confidence") or "?"
    if c == "structural":
        lvl = root.get("_sure")
        if lvl is None:
            note = next((n for n in root.get("notes", []) if n.startswith("How sure:")), "")
            lvl = "medium" if note.startswith("How sure: medium") else "low"
        return "structural/%s" % lvl
    return c


_LEVEL = re.compile(r"How sure: (high|medium|low)\b")


def _level(root):
    """The level the root's first 'How sure:' note says (high / medium / low), or '-' where none says one."""
    for n in root.get("notes", []):
        m = _LEVEL.match(n)
        if m:
            return m.group(1)
    return "-"


def run(out, skip=()):
    import gpudoctor  # noqa: F401
    import gpudoctor.checks  # noqa: F401  (registers the checks, as explain_compare.py does)
    from gpudoctor import explain
    from gpudoctor.cli import build_parser

    sys.path.insert(0, HERE)
    import explain_heldout as H

    _instrument()
    kb = explain.load_knowledge()
    load = explain.load_knowledge
    explain.load_knowledge = lambda *a, **k: kb
    rows = []
    try:
        with tempfile.TemporaryDirectory() as work:
            for path in sorted(glob.glob(os.path.join(HERE, "data", "explain_heldout_*.jsonl"))):
                name = os.path.basename(path)[len("explain_heldout_"):-len(".jsonl")]
                if os.environ.get("CAL_ONLY") and os.environ["CAL_ONLY"] not in name or name in skip:
                    continue
                for case in H.load_cases(path):
                    p = os.path.join(work, case["id"] + ".log")
                    with open(p, "w", encoding="utf-8") as f:
                        f.write(case["text"])
                    real, sys.stdout = sys.stdout, io.StringIO()
                    try:
                        explain.main(build_parser().parse_args(["explain", "--json", p]))
                        got, err = json.loads(sys.stdout.getvalue()), None
                    except Exception as e:  # noqa: BLE001
                        got, err = None, "%s: %s" % (type(e).__name__, e)
                    finally:
                        sys.stdout = real
                    r = H.judge(case, got, err)
                    root = H.root_finding(got) if got else None
                    r["set"] = name
                    r["sure"] = _sure(root) if root else None
                    r["how"] = (root.get("_how") or "other") if root else None
                    r["rule"] = root.get("_rule") if root else None
                    r["alternatives"] = [a.get("family") for a in (root or {}).get("alternatives", [])]
                    r["level"] = _level(root) if root else None
                    rows.append(r)
    finally:
        explain.load_knowledge = load
    with open(out, "w") as f:
        json.dump({"rows": rows, "dates": rule_dates(rows)}, f, indent=0)


# --- when a rule was last changed, when a round was seen ----------------------------------------------------------

def _git(*args):
    return subprocess.run(["git", "-C", ROOT] + list(args), capture_output=True, text=True).stdout


def set_dates():
    """{set name: unix time of the commit that added its file} (the round became seen then)."""
    out = {}
    for path in glob.glob(os.path.join(HERE, "data", "explain_heldout_*.jsonl")):
        name = os.path.basename(path)[len("explain_heldout_"):-len(".jsonl")]
        t = _git("log", "--diff-filter=A", "--format=%ct", "--", os.path.relpath(path, ROOT)).split()
        out[name] = int(t[-1]) if t else None
    return out


@functools.lru_cache(maxsize=None)
def _blame(rel):
    """[(commit time, line text)] of a file at HEAD."""
    out, times, lines = _git("blame", "--line-porcelain", "--", rel), {}, []
    cur = None
    for ln in out.splitlines():
        if re.match(r"^[0-9a-f]{40} ", ln):
            cur = ln.split()[0]
        elif ln.startswith("committer-time "):
            times[cur] = int(ln.split()[1])
        elif ln.startswith("\t"):
            lines.append((times.get(cur), ln[1:]))
    return lines


def entry_date(rel, eid):
    """The last change of a TOML entry's header (id .. its first [[entry.causes]]): its matcher."""
    lines = _blame(rel)
    for i, (_, text) in enumerate(lines):
        if re.match(r'\s*id\s*=\s*"%s"\s*$' % re.escape(eid), text):
            j = i
            while j > 0 and not lines[j][1].startswith("[["):
                j -= 1
            k = i + 1
            while k < len(lines) and not lines[k][1].startswith("[["):
                k += 1
            return max(t for t, _ in lines[j:k] if t)
    return None


@functools.lru_cache(maxsize=None)
def func_date(rel, func):
    out = _git("log", "-1", "--format=%ct", "-L", ":%s:%s" % (func, rel), "--no-patch")
    t = out.split()
    return int(t[0]) if t else None


def rule_dates(rows):
    dates = {}
    for r in rows:
        rule = r.get("rule") or {}
        key = _rule_key(rule)
        if not key or key in dates:
            continue
        t = None
        if rule.get("func"):
            mod, fn = rule["func"].split(":")
            t = func_date("gpudoctor/explain/%s.py" % mod, fn)
        elif rule.get("file") and rule["file"].endswith(".toml"):
            rel = os.path.relpath(rule["file"], ROOT) if os.path.isabs(rule["file"]) else rule["file"]
            rel = rel[rel.index("gpudoctor/"):] if "gpudoctor/" in rel else rel
            t = entry_date(rel, rule["entry"])
        dates[key] = t
    return {"rules": dates, "sets": set_dates()}


def _rule_key(rule):
    if not rule:
        return None
    return rule.get("func") or "%s#%s" % (rule.get("file", "").split("gpudoctor/", 1)[-1], rule.get("entry"))


# --- the table ----------------------------------------------------------------------------------------------------

_COARSE = {"symptoms": "the user's words", "hang": "a hang's triage", "launchctx": "launch lines",
           "launchpaste": "launch lines", "settings": "settings shown", "ncclinfo": "NCCL INFO lines"}


def _coarse(how):
    if how.startswith("judge"):
        return _COARSE.get(how.split()[1], how.split()[1])
    if how.startswith("structural"):
        return "the text's shape"
    if how.startswith("generated site"):
        return "a message (generated site)"
    return "a message (entry pattern)"


def classes(data, coarse=False):
    """[(class, sample, row)] for every row with a root finding (error texts and healthy logs given a root).
    coarse: the class is (the root's 'How sure' level, how it was reached in a few words)."""
    rules, sets = data["dates"]["rules"], data["dates"]["sets"]
    out = []
    for r in data["rows"]:
        if not r.get("how"):
            continue
        how = r["how"]
        how = "judge " + how.split()[1] if how.startswith("judge") else how
        cls = (r.get("level") or "-", _coarse(how)) if coarse else (r["sure"], how)
        t, s = rules.get(_rule_key(r.get("rule"))), sets.get(r["set"])
        sample = "?" if t is None or s is None else ("in" if t > s else "out")
        out.append((cls, sample, r))
    return out


def _right(r):
    return bool(r["family_ok"]) and not r["healthy"]


def summary(data, min_n=1, coarse=False):
    by = collections.defaultdict(lambda: collections.Counter())
    for cls, sample, r in classes(data, coarse):
        c = by[cls]
        c["n"] += 1
        c["right"] += _right(r)
        c["fix"] += bool(r.get("fix_ok"))
        c["cw"] += bool(r["confident_wrong"])
        c["n_" + sample] += 1
        c["right_" + sample] += _right(r)
    rounds = collections.defaultdict(set)
    for cls, sample, r in classes(data, coarse):
        rounds[cls].add(r["set"])
    rows = []
    for cls, c in sorted(by.items(), key=lambda kv: -kv[1]["n"]):
        if c["n"] < min_n:
            continue
        rows.append((cls, c, len(rounds[cls])))
    return rows


def _p(a, b):
    return "%d/%d (%.0f%%)" % (a, b, 100.0 * a / b) if b else "-"


def table(path, markdown=False, min_n=1, coarse=False):
    with open(path) as f:
        data = json.load(f)
    rows = summary(data, min_n, coarse)
    head = ("how sure" if not coarse else "'How sure' note", "reached by", "answers", "rounds", "family right",
            "out of sample: right", "in sample: right", "confidently wrong")
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
    else:
        print("%-18s %-30s %7s %6s %-15s %-20s %-18s %s" % head)
    for (sure, how), c, nr in rows:
        cells = (sure, how, str(c["n"]), str(nr), _p(c["right"], c["n"]), _p(c["right_out"], c["n_out"]),
                 _p(c["right_in"], c["n_in"]), str(c["cw"]))
        if markdown:
            print("| " + " | ".join(cells) + " |")
        else:
            print("%-18s %-30s %7s %6s %-15s %-20s %-18s %s" % cells)
    n = sum(c["n"] for _, c, _ in rows)
    print("\n%d answers with a root; %d confidently wrong" % (n, sum(c["cw"] for _, c, _ in rows)))


def by_round(path, cls_filter=None):
    """Per round (set), per class: right / answers (out-of-sample ones marked)."""
    with open(path) as f:
        data = json.load(f)
    per = collections.defaultdict(collections.Counter)
    for cls, sample, r in classes(data, coarse=True):
        if cls_filter and cls_filter not in " ".join(cls):
            continue
        per[(cls, r["set"])]["n"] += 1
        per[(cls, r["set"])]["right"] += _right(r)
        per[(cls, r["set"])]["out"] += sample == "out"
    for (cls, s), c in sorted(per.items()):
        print("%-18s %-30s %-10s %d/%d (out of sample %d)" % (cls[0], cls[1], s, c["right"], c["n"], c["out"]))


def weak(path, below=0.85, min_n=4):
    """The finer classes (a root's entry; the knowledge file or generated source of its rule) whose stated roots
    (verdict root_cause) are right in fewer than `below` of their out-of-sample answers, with at least min_n of them."""
    with open(path) as f:
        data = json.load(f)
    for gran in ("entry", "source"):
        by = collections.defaultdict(collections.Counter)
        for cls, sample, r in classes(data):
            if r["verdict"] != "root_cause":
                continue
            rule = r.get("rule") or {}
            k = r["root"] if gran == "entry" else (",".join(rule.get("sites") or []) or
                                                   (rule.get("file") or "?").split("/")[-1])
            c = by[k]
            c["n"] += 1
            c["right"] += _right(r)
            c["n_" + sample] += 1
            c["right_" + sample] += _right(r)
        print("by %s (stated roots; out of sample < %d%%, n >= %d):" % (gran, round(100 * below), min_n))
        for k, c in sorted(by.items(), key=lambda kv: kv[1]["right_out"] / max(1, kv[1]["n_out"])):
            if c["n_out"] >= min_n and c["right_out"] < below * c["n_out"]:
                print("  %-45s out of sample %s, in sample %s, all %s" % (
                    k, _p(c["right_out"], c["n_out"]), _p(c["right_in"], c["n_in"]), _p(c["right"], c["n"])))


def compare(a_path, b_path):
    with open(a_path) as f:
        a = json.load(f)
    with open(b_path) as f:
        b = json.load(f)
    ca = {r["id"]: (cls, sample, r) for cls, sample, r in classes(a)}
    cb = {r["id"]: (cls, sample, r) for cls, sample, r in classes(b)}
    moved = collections.Counter()
    for i in sorted(set(ca) | set(cb)):
        x, y = ca.get(i), cb.get(i)
        kx = x[0] if x else ("(no root)", "")
        ky = y[0] if y else ("(no root)", "")
        if kx != ky:
            right = (y or x)[2]
            moved[(kx, ky, _right(right))] += 1
    for (kx, ky, right), n in sorted(moved.items(), key=lambda kv: -kv[1]):
        print("%3d  %-45s -> %-45s %s" % (n, " ".join(kx), " ".join(ky), "right family" if right else "WRONG family"))
    cw = lambda d: sum(bool(r["confident_wrong"]) for r in d["rows"])  # noqa: E731
    print("confidently wrong: %d -> %d" % (cw(a), cw(b)))


def main(argv):
    if len(argv) >= 2 and argv[0] == "run":
        # --skip SET,SET: a session's development held-out, whose per-case results its builders must not see
        run(argv[1], argv[argv.index("--skip") + 1].split(",") if "--skip" in argv else ())
        return 0
    if len(argv) >= 2 and argv[0] == "table":
        mn = int(argv[argv.index("--min") + 1]) if "--min" in argv else 1
        table(argv[1], "--markdown" in argv, mn, "--coarse" in argv)
        return 0
    if len(argv) >= 2 and argv[0] == "rounds":
        by_round(argv[1], argv[2] if len(argv) > 2 else None)
        return 0
    if len(argv) >= 2 and argv[0] == "weak":
        weak(argv[1])
        return 0
    if len(argv) >= 3 and argv[0] == "compare":
        compare(argv[1], argv[2])
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

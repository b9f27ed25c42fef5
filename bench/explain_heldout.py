#!/usr/bin/env python3
"""Score `gpudoctor explain --json` on an independent held-out set of real error texts.

Each line of the cases file (JSON Lines) is one case:

    id, url, source_repo, category, text, family, family_alternatives (optional),
    fix, fix_keywords, healthy

collected from public threads whose fix was settled (accepted answer, maintainer, or the
reporter confirming), and checked against fixtures/, bench/ and tests/ so that explain never
saw the thread or the text (see docs/explain.md, "Independent held-out set").

Every case is written to a temporary file and run through the real CLI
(`gpudoctor explain --json FILE`), exactly as a user would paste it. Scoring, per case:

  family right     the root finding's id or family is the expected family or one of the
                   listed alternatives (same rule as bench/explain_accuracy.py: id == fam,
                   family == fam, or id starts with fam + ".").
  fix named        some keyword of fix_keywords occurs (case-insensitive) in the root finding's
                   cause + fix text: every cause's text, fix lines, exports (K=V) and computed
                   fix. A keyword containing "&" needs all its parts. "top cause" is the same test
                   on the first-ranked cause only.
  no answer        verdict unknown_error or no_error (no root finding) on an error text.
  confidently wrong  a root_cause verdict whose root finding has the wrong family and is not
                   the generic cascade family ("find the first error").
  healthy ok       a healthy log (healthy: true) yields verdict no_error; any root finding on a
                   healthy log is a false alarm.

    python bench/explain_heldout.py CASES.jsonl [--markdown] [--json OUT] [--explain CMD]

--markdown prints the per-category table and the misses as Markdown (for docs/explain.md);
--json writes per-case results; --explain overrides the command (default: `gpudoctor` on
PATH, else `python -m gpudoctor`).
"""

import argparse
import collections
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

GENERIC_FAMILIES = ("cascade",)
CATEGORY_ORDER = ("nccl", "cuda", "torch.distributed", "deepspeed/accelerate", "mpi", "slurm",
                  "nvml", "errno", "healthy")


def load_cases(path):
    cases = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            c = json.loads(line)
            for key in ("id", "text", "family", "fix_keywords"):
                if key not in c:
                    raise SystemExit("%s:%d: case has no %r" % (path, n, key))
            c.setdefault("healthy", c["family"] == "healthy")
            c.setdefault("family_alternatives", [])
            c.setdefault("category", "healthy" if c["healthy"] else c["family"].split(".")[0])
            cases.append(c)
    ids = [c["id"] for c in cases]
    dup = [i for i, k in collections.Counter(ids).items() if k > 1]
    if dup:
        raise SystemExit("duplicate case ids: %s" % ", ".join(dup))
    return cases


def explain_command(override):
    if override:
        return shlex.split(override)
    exe = shutil.which("gpudoctor")
    if exe:
        return [exe]
    return [sys.executable, "-m", "gpudoctor"]


def run_explain(cmd, case, workdir, timeout):
    path = os.path.join(workdir, case["id"] + ".log")
    with open(path, "w", encoding="utf-8") as f:
        f.write(case["text"])
    try:
        p = subprocess.run(cmd + ["explain", "--json", path], capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout after %ds" % timeout
    if p.returncode not in (0, 1):
        return None, "exit %d: %s" % (p.returncode, (p.stderr or p.stdout).strip()[-300:])
    try:
        return json.loads(p.stdout), None
    except ValueError as e:
        return None, "bad JSON (%s): %s" % (e, p.stdout[:200])


def family_matches(finding, family):
    return (finding["id"] == family or finding.get("family") == family
            or finding["id"].startswith(family + "."))


def cause_text(cause):
    parts = [cause.get("text", "")]
    parts += list(cause.get("fix") or [])
    parts += ["%s=%s" % kv for kv in (cause.get("exports") or {}).items()]
    for key in ("computed_fix", "computed"):
        v = cause.get(key)
        if v:
            parts.append(v if isinstance(v, str) else json.dumps(v))
    return "\n".join(p for p in parts if p)


def keyword_hit(text, keywords):
    low = text.lower()
    for kw in keywords:
        if all(part.strip().lower() in low for part in kw.split("&")):
            return kw
    return None


def root_finding(res):
    if not res or res.get("verdict") in ("no_error", "unknown_error"):
        return None
    root_id = res.get("root")
    for f in res.get("findings") or []:
        if f.get("role") == "root" or f.get("id") == root_id:
            return f
    return (res.get("findings") or [None])[0]


def judge(case, res, err):
    r = {"id": case["id"], "url": case.get("url", ""), "category": case["category"],
         "expected": case["family"], "healthy": case["healthy"], "error": err,
         "verdict": res.get("verdict") if res else "(no result)", "root": None,
         "root_family": None, "cause": "", "family_ok": False, "fix_ok": False,
         "top_fix_ok": False, "no_answer": False, "confident_wrong": False,
         "healthy_ok": False, "keyword": None}
    root = root_finding(res) if res else None
    if root is not None:
        r["root"] = root["id"]
        r["root_family"] = root.get("family")
        causes = root.get("causes") or []
        r["cause"] = causes[0].get("text", "") if causes else root.get("title", "")
    if case["healthy"]:
        r["healthy_ok"] = res is not None and root is None and r["verdict"] == "no_error"
        r["confident_wrong"] = root is not None and r["verdict"] == "root_cause"
        return r
    if root is None:
        r["no_answer"] = True
        return r
    fams = [case["family"]] + list(case.get("family_alternatives") or [])
    r["family_ok"] = any(family_matches(root, fam) for fam in fams)
    causes = root.get("causes") or []
    all_text = "\n".join(cause_text(c) for c in causes)
    r["keyword"] = keyword_hit(all_text, case["fix_keywords"])
    r["fix_ok"] = r["keyword"] is not None
    r["top_fix_ok"] = bool(causes) and keyword_hit(cause_text(causes[0]), case["fix_keywords"]) is not None
    generic = any(family_matches(root, g) for g in GENERIC_FAMILIES)
    r["confident_wrong"] = (not r["family_ok"] and r["verdict"] == "root_cause" and not generic)
    return r


def pct(a, b):
    return "%d/%d (%.0f%%)" % (a, b, 100.0 * a / b) if b else "-"


def summarize(rows):
    cats = collections.OrderedDict()
    order = [c for c in CATEGORY_ORDER if any(r["category"] == c for r in rows)]
    order += sorted({r["category"] for r in rows} - set(order))
    for cat in order:
        rs = [r for r in rows if r["category"] == cat]
        cats[cat] = rs
    return cats


def table_rows(rows):
    out = []
    for cat, rs in summarize(rows).items():
        err = [r for r in rs if not r["healthy"]]
        hl = [r for r in rs if r["healthy"]]
        if err:
            out.append((cat, len(err), pct(sum(r["fix_ok"] for r in err), len(err)),
                        pct(sum(r["top_fix_ok"] for r in err), len(err)),
                        pct(sum(r["family_ok"] for r in err), len(err)),
                        str(sum(r["no_answer"] for r in err)),
                        str(sum(r["confident_wrong"] for r in err)), "-"))
        if hl:
            out.append((cat if not err else cat + " (healthy)", len(hl), "-", "-", "-", "-",
                        str(sum(r["confident_wrong"] for r in hl)),
                        pct(sum(r["healthy_ok"] for r in hl), len(hl))))
    err = [r for r in rows if not r["healthy"]]
    hl = [r for r in rows if r["healthy"]]
    out.append(("all error texts", len(err), pct(sum(r["fix_ok"] for r in err), len(err)),
                pct(sum(r["top_fix_ok"] for r in err), len(err)),
                pct(sum(r["family_ok"] for r in err), len(err)),
                str(sum(r["no_answer"] for r in err)),
                str(sum(r["confident_wrong"] for r in err)), "-"))
    if hl:
        out.append(("all healthy logs", len(hl), "-", "-", "-", "-",
                    str(sum(r["confident_wrong"] for r in hl)),
                    pct(sum(r["healthy_ok"] for r in hl), len(hl))))
    return out


HEAD = ("category", "cases", "fix named", "fix named (top cause)", "family right", "no answer",
        "confidently wrong", "healthy: no root cause")


def misses(rows):
    out = []
    for r in rows:
        if r["healthy"]:
            if not r["healthy_ok"]:
                out.append((r, "false alarm"))
        elif not (r["fix_ok"] and r["family_ok"]):
            if r["no_answer"]:
                kind = "no answer"
            elif r["confident_wrong"]:
                kind = "confidently wrong"
            elif not r["family_ok"]:
                kind = "wrong family"
            else:
                kind = "family right, fix not named"
            out.append((r, kind))
    return out


def got(r):
    if r["error"]:
        return "error: " + r["error"]
    if r["root"] is None:
        return "(%s)" % (r["verdict"] or "").replace("_", " ")
    cause = r["cause"].replace("|", "/").replace("\n", " ")
    if len(cause) > 110:
        cause = cause[:107] + "..."
    return "%s [%s]: %s" % (r["root"], r["verdict"], cause)


def print_text(rows):
    t = table_rows(rows)
    widths = [max(len(str(x[i])) for x in t + [HEAD]) for i in range(len(HEAD))]
    line = lambda cols: "  ".join(str(c).ljust(w) for c, w in zip(cols, widths))
    print(line(HEAD))
    print(line(["-" * w for w in widths]))
    for row in t:
        print(line(row))
    m = misses(rows)
    print("\nmisses (%d):" % len(m))
    for r, kind in m:
        print("  %-44s %-27s expected %-28s got %s" % (r["id"], kind, r["expected"], got(r)))


def print_markdown(rows):
    print("| " + " | ".join(HEAD) + " |")
    print("|" + "---|" * len(HEAD))
    for row in table_rows(rows):
        print("| " + " | ".join(str(c) for c in row) + " |")
    m = misses(rows)
    print("\nMisses (%d):\n" % len(m))
    print("| case | kind | expected | explain answered |")
    print("|---|---|---|---|")
    for r, kind in m:
        print("| [%s](%s) | %s | %s | %s |" % (r["id"], r["url"], kind, r["expected"],
                                              got(r).replace("|", "/")))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cases", help="JSON Lines file of cases")
    ap.add_argument("--markdown", action="store_true", help="print Markdown tables")
    ap.add_argument("--json", metavar="OUT", help="write per-case results to OUT")
    ap.add_argument("--explain", metavar="CMD", help="command that runs gpudoctor")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per case (default 120)")
    args = ap.parse_args(argv)

    cases = load_cases(args.cases)
    cmd = explain_command(args.explain)
    rows = []
    with tempfile.TemporaryDirectory(prefix="explain-heldout-") as work:
        for case in cases:
            res, err = run_explain(cmd, case, work, args.timeout)
            rows.append(judge(case, res, err))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)
    if args.markdown:
        print_markdown(rows)
    else:
        print_text(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/guard_messages.json: the refusals of the training libraries no other
table reads (gpytorch, botorch, torchdiffeq, safetensors, torchaudio, torchvision, torchmetrics, webdataset, einops,
diffusers), each with the fix its raise site's own GUARD says (guards17, issue 18).

A library refuses a call under a condition its source tests; that test's shape names what to change. Read from the
pinned wheels (PyPI), never imported (tools/wheelmsgs.py): every `raise X("...")` / `assert cond, "..."` message
(a message built in a variable first and then raised too), and for each the guard around it (tools/knowgen.py
guard_path: the assert's own test, the if / elif / else tests above the raise up to its function, an except branch's
exception names; a plain name the test reads is read as what was assigned to it just above, guard_names). The rules
of tools/guardrules.py (each from the documentation of the predicate it reads: torch.nn.Module.eval for
`self.training`, Tensor.contiguous for `.is_contiguous()`, DataLoader's drop_last for `len(x) % 2 == 0`, ...) turn the
guard into the site's meaning and fix. Only a site whose guard a rule reads is assigned: the rest keep today's
answer (the traceback's structural reading) and are counted, never guessed.

The family: the rule's own where it names one (a shape, dtype or device check: usercode.*; an ImportError branch or
find_spec: code.python_env), else the package's usage entry where the knowledge has one (torchmetrics.usage), else by
the class raised (explain/pyanswer.py's reading of a library's refusal, family16): an argument check (ValueError,
TypeError, AssertionError, NotImplementedError; Doc/library/exceptions.rst) is the call the user made
(code.exception), any other class the library's state (code.library_error). A message with fewer words of its own
than knowgen.own_enough asks ('%s not supported') is left out, as is a text another generator's table already assigns
(lightning_messages reads torchmetrics' own messages; the slice records those texts); one text met at two sites whose
guards say different things stays unassigned.

Usage:
    pip download --no-deps --only-binary :all: gpytorch==1.15.2 botorch==0.18.1 torchdiffeq==0.2.5 \\
        safetensors==0.8.0 torchaudio==2.11.0 torchvision==0.29.1 torchmetrics==1.9.0 webdataset==1.0.2 \\
        einops==0.8.2 diffusers==0.42.1 -d /tmp/w
    python tools/gen_guard_messages.py --wheels /tmp/w [--record tools/data/guard_messages_slice.txt.gz]
    python tools/gen_guard_messages.py --slice tools/data/guard_messages_slice.txt.gz -o OUT   (the test)

Sources (each its PyPI page and repository): https://pypi.org/project/gpytorch/ (MIT, github.com/cornellius-gp/gpytorch),
https://pypi.org/project/botorch/ (MIT, github.com/pytorch/botorch), https://pypi.org/project/torchdiffeq/ (MIT,
github.com/rtqichen/torchdiffeq), https://pypi.org/project/safetensors/ (Apache-2.0, github.com/huggingface/safetensors),
https://pypi.org/project/torchaudio/ and https://pypi.org/project/torchvision/ (BSD, github.com/pytorch/audio,
github.com/pytorch/vision), https://pypi.org/project/torchmetrics/ (Apache-2.0, github.com/Lightning-AI/torchmetrics),
https://pypi.org/project/webdataset/ (BSD-3, github.com/webdataset/webdataset), https://pypi.org/project/einops/ (MIT,
github.com/arogozhnikov/einops), https://pypi.org/project/diffusers/ (Apache-2.0, github.com/huggingface/diffusers).
"""

import glob
import json
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guardrules  # noqa: E402
import knowgen  # noqa: E402
import wheelmsgs  # noqa: E402

GENERATOR = "tools/gen_guard_messages.py"
NAME = "guard_messages"
# (package, its wheel's dist name)
LIBS = [("gpytorch", "gpytorch"), ("botorch", "botorch"), ("torchdiffeq", "torchdiffeq"),
        ("safetensors", "safetensors"), ("torchaudio", "torchaudio"), ("torchvision", "torchvision"),
        ("torchmetrics", "torchmetrics"), ("webdataset", "webdataset"), ("einops", "einops"),
        ("diffusers", "diffusers")]
# a package's own usage entry in the knowledge (explain/provenance.py usage_entry's '<lib>.usage')
USAGE = {"torchmetrics": "torchmetrics.usage"}
# what an API's own argument check raises (explain/pyanswer.py _ARG_CHECK; Doc/library/exceptions.rst)
ARG_CHECK = ("ValueError", "TypeError", "AssertionError", "NotImplementedError")
NEAR = wheelmsgs.NEAR


def files_re(pkg):
    # the package's modules, not its tests
    return r"^%s/(?!(?:.*/)?tests?/)(?:[A-Za-z_0-9]+/){0,6}[A-Za-z_0-9]+\.py$" % pkg


def read(folder):
    """([(path, text)], version) of the wheels of LIBS in ``folder``."""
    files, versions = [], []
    for pkg, dist in LIBS:
        wheels = sorted(glob.glob(os.path.join(folder, "%s-*.whl" % dist)))
        if not wheels:
            raise SystemExit("no %s wheel in %s" % (dist, folder))
        f, v = wheelmsgs.from_wheel(wheels[-1], files_re(pkg), dist)
        files += f
        versions.append(v.split(" (")[0])
    return files, ", ".join(versions)


_RAISE_CLS = re.compile(r"^[ \t]*raise[ \t]+(?:[A-Za-z_][\w]{0,60}\.){0,4}([A-Za-z_]\w{0,60})\b")


def raised_class(skel, own):
    """The class the site's statement raises: 'raise X(...)' its X, an assert AssertionError, a message assigned to a
    name the class of the first `raise X(name)` within NEAR lines below (a skeleton row); None else."""
    text = own[4]
    if re.match(r"^[ \t]*assert\b", text):
        return "AssertionError"
    m = _RAISE_CLS.match(text)
    if m:
        return m.group(1)
    m = re.match(r"^[ \t]*([A-Za-z_]\w{0,60})[ \t]*=", text)
    if not m:
        return None
    for r in skel:
        if r[3] == "stmt" and own[0] < r[0] <= own[0] + NEAR and \
                re.match(r"^[ \t]*raise[ \t]+[\w.]{1,120}\([ \t]*%s[ \t]*[,)]" % re.escape(m.group(1)), r[4]):
            return _RAISE_CLS.match(r[4]).group(1)
    return None


def raise_line(skel, own):
    """The line of the statement that raises the site's message: its own, or for a message assigned to a name first
    (`msg = "..."`, the wording a branch picks) the `raise X(name)` / `assert ..., name` within NEAR lines below, whose
    guard is the one that failed."""
    m = re.match(r"^[ \t]*([A-Za-z_]\w{0,60})[ \t]*=[^=]", own[4])
    if not m:
        return own[0]
    name = re.escape(m.group(1))
    for r in skel:
        if r[3] == "stmt" and own[0] < r[0] <= own[0] + NEAR and (
                re.match(r"^[ \t]*raise[ \t]+[\w.]{1,120}\([ \t]*%s[ \t]*[,)]" % name, r[4]) or
                re.match(r"^[ \t]*assert\b.{0,2000},[ \t]*%s[ \t]*$" % name, r[4], re.S)):
            return r[0]
    return own[0]


def family_of(pkg, rule_family, cls):
    if rule_family:
        return rule_family
    if pkg in USAGE:
        return USAGE[pkg]
    if cls in ("ImportError", "ModuleNotFoundError"):
        return "code.python_env"
    return "code.exception" if cls in ARG_CHECK else "code.library_error"


def _means(where, path, reading):
    inner = " and ".join("`%s`" % t if how == "if" else "not `%s`" % t for how, t in path if how in ("if", "else"))
    test = next((t for how, t in path if how == "assert"), None)
    said = ("its assert `%s` failed" % test) if test else ("it raises when %s holds" % inner) if inner else \
        "it raises in an ImportError branch"
    return "%s checks this before it goes on, and %s: %s." % (where, said[:400], reading)


def elsewhere_texts():
    """The message texts the other committed generated tables assign (their generator reads that source already):
    any such text, and every one raised in a package of LIBS (lightning_messages reads torchmetrics')."""
    out, pkgs = set(), {p for p, _ in LIBS}
    for name in knowgen.committed_names():
        if name == NAME:
            continue
        doc = knowgen.committed(name)
        if isinstance(doc.get("sites"), list):
            out.update(s["text"] for s in doc["sites"] if isinstance(s, dict) and s.get("family") and
                       isinstance(s.get("text"), str))
            out.update("@%s@%s" % (str(s.get("where")).split("/", 1)[0], s["text"]) for s in doc["sites"]
                       if isinstance(s, dict) and s.get("family") and isinstance(s.get("text"), str) and
                       str(s.get("where")).split("/", 1)[0] in pkgs)
    return out


def _read_elsewhere(site, elsewhere):
    """Whether another table reads this site's message: its text, or (in the same libraries) a text its matcher finds
    (a message cut at a line of an f-string: 'Predictions and targets are expected to have the same shape,')."""
    if site["text"] in elsewhere:
        return True
    head = "@%s@" % site["where"].split("/", 1)[0]
    rx = re.compile(site["re"], re.I)
    return any(t.startswith(head) and rx.search(t[len(head):].replace("%s", "0")) for t in elsewhere)


def build(files, version, whole, elsewhere=frozenset()):
    """The table: every raise site of ``files`` whose guard a rule reads, with its family and fix; ``whole``: the files
    are whole sources (a wheel's) rather than a slice's blocks; ``elsewhere``: texts another table assigns, left to it.
    Coverage per package in the header."""
    candidates, coverage, rows = {}, {}, {}
    for path, srcs in wheelmsgs.group(files).items():
        if not path.endswith(".py"):
            continue
        pkg = path.split("/", 1)[0]
        cov = coverage.setdefault(pkg, {"sites": 0, "guard_read": 0, "advice": 0})
        skel = knowgen.py_skeleton(srcs[0]) if whole else knowgen.slice_skeleton(srcs)
        firsts = knowgen.py_first_lines([textwrap.dedent(s) for s in srcs])
        for level, where, fmt, first in wheelmsgs.sites_of(path, srcs):
            if level != "raise":
                continue
            line = int(where.rsplit(":", 1)[1])
            cov["sites"] += 1
            _p, own = knowgen.guard_path(skel, line)
            at = raise_line(skel, own) if own else line
            gpath, _own = knowgen.guard_path(skel, at)
            assigned = knowgen.guard_names(skel, at, gpath) if gpath else {}
            rows[where] = knowgen.guard_rows(skel, at) + ([own] if own else []) + [
                r for r in skel if r[3] == "stmt" and any(r[0] == v[0] for v in assigned.values())]
            if not gpath:
                continue
            cov["guard_read"] += 1
            got = guardrules.advise(gpath, {k: v[2] for k, v in assigned.items()}, fmt)
            if not got:
                continue
            cov["advice"] += 1
            rules, rfam, reading, fix = got
            cls = raised_class(skel, own)
            candidates.setdefault(fmt, []).append((where, pkg, first or firsts.get(line), gpath, rules, rfam,
                                                   reading, fix, cls))
    sites, ids, kept, read_elsewhere = [], set(), set(), set()
    for fmt, occ in sorted(candidates.items(), key=lambda kv: kv[1][0][0]):
        where, pkg, first, gpath, rules, rfam, reading, fix, cls = occ[0]
        if len({tuple(o[4]) for o in occ}) > 1:
            kept.update(o[0] for o in occ)  # (recorded, so that the slice reads the same disagreement)
            continue  # one text, guards that say different things: which site printed it is not known
        if not knowgen.own_enough(fmt):
            # a short message any program may print ('%s not supported', '%s has no attribute %s.', 'too many
            # dimensions'): the matcher keeps only the message's own words, which other programs' lines hold too
            continue
        family = family_of(pkg, rfam, cls)
        site = wheelmsgs.site_for("guard.", ids, "raise", where, fmt, [("guard-" + "+".join(rules), family, {})],
                                  [(r"", _means(where, gpath, reading), fix)], first=first)
        if not site.get("family"):
            continue
        if _read_elsewhere(site, elsewhere):
            read_elsewhere.add(fmt)
            continue  # another generator's table reads this message (lightning_messages reads torchmetrics' own)
        site["guard"] = [[how, list(t) if isinstance(t, tuple) else t] for how, t in gpath]
        site["raises"] = cls
        sites.append(site)
        kept.add(where)
    for pkg, cov in coverage.items():
        cov["assigned"] = sum(1 for s in sites if s["where"].split("/", 1)[0] == pkg)
        cov["read_elsewhere"] = sum(1 for f in read_elsewhere if candidates[f][0][1] == pkg)
    doc = {"header": knowgen.header(", ".join("%s (https://pypi.org/project/%s/)" % (p, d) for p, d in LIBS), version,
                                    GENERATOR, "raise/assert messages of the libraries' modules whose guard (the "
                                    "condition the source tests before it raises) a rule of tools/guardrules.py reads: "
                                    "meaning and fix from that rule, family from the rule or the package and the class "
                                    "raised; 'guard' records the conditions read (innermost first)"),
           "sites": sites}
    if whole:
        doc["header"]["coverage"] = {p: coverage[p] for p in sorted(coverage)}
    return doc, rows, kept, sorted(f for f in elsewhere if f in candidates or f.startswith("@"))


def write_record(path, version, rows, kept, files, elsewhere=()):
    """The slice: for each assigned site the skeleton rows its guard reads (its statement, the headers above it up to
    its function, an assignment the guard reads), each as the source has it, indentation kept (the reading needs it),
    and the statements of the message (wheelmsgs.statements: a message raised by name, its assignment and raise);
    then the same for every other site those blocks hold, until none is added (what the slice holds reads as the
    wheel does)."""
    blocks, done, todo = {}, set(), set(kept)
    texts = dict(files)
    while todo:
        for where in sorted(todo):
            for r in rows.get(where, ()):
                blocks[(where.rsplit(":", 1)[0], r[0])] = r[4]
        by = {}
        for where in todo:
            by.setdefault(where.rsplit(":", 1)[0], set()).add(int(where.rsplit(":", 1)[1]))
        for p, wanted in sorted(by.items()):
            src = texts[p]
            lines = src.splitlines()
            for a, b in wheelmsgs.statements(src, lambda k, w=wanted, p=p: k.rsplit(":", 1)[0] == p and
                                             int(k.rsplit(":", 1)[1]) in w, p):
                blocks.setdefault((p, a), "\n".join(lines[a - 1:b]))
        done |= todo
        held = {(p, ln) for p, ln in blocks}
        todo = {w for w in rows if w not in done and (w.rsplit(":", 1)[0], int(w.rsplit(":", 1)[1])) in held}
    with knowgen.open_write(path) as f:
        f.write("# Recorded by %s --record: for each assigned site its statements and the headers its guard is read\n"
                "# from, each as the source has it, indentation kept (=== path @first line).\n" % GENERATOR)
        f.write("#! version %s\n" % version)
        for text in elsewhere:  # (the texts another table read when this was recorded: left to it again)
            f.write("#! elsewhere %s\n" % json.dumps(text))
        for (p, a), text in sorted(blocks.items()):
            f.write("=== %s @%d\n%s\n" % (p, a, text.rstrip("\n")))


def main(argv):
    a = knowgen.arguments(__doc__, argv, source="wheels", extra=[
        ("--record", {"help": "write the slice (the assigned sites' statements and guard headers)"})])
    whole = bool(a.wheels)
    if whole:
        files, version = read(a.wheels)
        elsewhere = elsewhere_texts()
    else:
        files, version = knowgen.read_slice(a.slice)
        with knowgen.open_text(a.slice) as f:
            elsewhere = {json.loads(ln[len("#! elsewhere "):]) for ln in f if ln.startswith("#! elsewhere ")}
    doc, rows, kept, used = build(files, version, whole, elsewhere)
    if whole and a.record:
        write_record(a.record, version, rows, kept, files, used)
    return knowgen.emit(NAME, doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

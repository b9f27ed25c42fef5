"""What tools/gen_vllm_messages.py, gen_sglang_messages.py and gen_triton_messages.py share: reading a pinned wheel's
Python (never importing it), turning each raise / assert / logger.error / .warning message into a site (tools/knowgen.py
py_messages; a message built in a variable first and then raised, `msg = f"..."; raise ValueError(msg)`, too), giving
each its family by the generator's RULES and its meaning and fix by its MSG_FIX, and recording the statements that
hold a message as the slice the tests regenerate from (tools/data/<name>_slice.txt, `=== path @LINE` blocks).

The shape is tools/gen_ray_messages.py's and gen_trainer_messages.py's: a warning is context only (family None), a
site whose longest literal is shorter than NEED characters is unanchored, a raise no rule assigns stays unassigned
and is listed (knowgen.write), never guessed; --older adds what an older release printed that the current one no
longer does (most public threads quote older releases), marked "older".
"""

import ast
import os
import re
import sys
import textwrap
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guardrules  # noqa: E402
import knowgen  # noqa: E402

NEED = 12  # the longest literal run of a site's format, in non-blank characters, below which it is too vague
NEAR = 40  # a `raise X(name)` takes the message assigned to that name up to this many lines above it


def from_wheel(path, files, dist):
    """([(path, text)], '<dist> <Version> (<wheel file>)') of the members of the wheel ``path`` whose name the regex
    ``files`` matches, sorted; the version from its dist-info METADATA."""
    with zipfile.ZipFile(path) as z:
        names = sorted(n for n in z.namelist() if re.match(files, n))
        meta = next(n for n in z.namelist() if re.match(r"%s-[^/]+\.dist-info/METADATA$" % dist, n))
        version = re.search(r"^Version:\s*(\S+)", z.read(meta).decode(), re.M).group(1)
        out = [(n, z.read(n).decode("utf-8", "replace")) for n in names]
    return out, "%s %s (%s)" % (dist, version, os.path.basename(path))


def _named(tree):
    """[(line, format, base)] of the messages raised through a variable: `msg = "..."` (an f-string, a '+' of such;
    the `msg += "..."` that follow are joined to it in format, base is the assignment's own) then `raise X(msg)` or
    `assert cond, msg` within NEAR lines below.
    Nearness stands for the function's scope, so that a slice of statements resolves as the whole file does."""
    assigns, raised = {}, []
    for node in knowgen.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            fmt = knowgen.py_format(node.value)
            if fmt:
                assigns.setdefault(node.targets[0].id, []).append([node.lineno, fmt, fmt])
        elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args and \
                isinstance(node.exc.args[0], ast.Name):
            raised.append((node.lineno, node.exc.args[0].id))
        elif isinstance(node, ast.Assert) and isinstance(node.msg, ast.Name):
            raised.append((node.lineno, node.msg.id))
    for node in knowgen.walk(tree):  # msg += "..." joined to the assignment it follows
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name):
            more = knowgen.py_format(node.value)
            prior = [a for a in assigns.get(node.target.id, []) if a[0] < node.lineno <= a[0] + NEAR]
            if more and prior:
                prior[-1][1] += more
    out = []
    for name, items in assigns.items():
        for line, fmt, base in items:
            if any(n == name and line < at <= line + NEAR for at, n in raised):
                out.append((line, fmt, base))
    return out


def sites_of(path, srcs):
    """(level, 'path:line', format, first line or None) of the messages of one file (``srcs``: the file, or the
    slice's blocks of it)."""
    out, trees = set(), []
    for src in srcs:
        src = textwrap.dedent(src)
        out.update(knowgen.py_messages(src))
        try:
            trees.append(knowgen.parse_py(src))
        except SyntaxError:
            pass
    merged = ast.Module(body=[n for t in trees for n in t.body], type_ignores=[])
    firsts = {}
    for line, fmt, base in _named(merged):
        out.add(("raise", line, " ".join(fmt.split())))
        # the matcher: a `+=` may be conditional (sglang's pool_configurator.py adds ' Current value: ...' only when
        # the fraction is set), so the assignment's own text; printed, a message with a line break spans lines: its
        # first line
        first = knowgen.first_line(base) or (" ".join(base.split()) if base != fmt else None)
        if first:
            firsts[line] = first
    for level, line, fmt in sorted(out, key=lambda s: (s[1], s[0], s[2])):
        yield level, "%s:%d" % (path, line), fmt, firsts.get(line)


def overlay(srcs):
    """One text of a file's sources: the file itself, or its slice's blocks (each padded to its first line) with each
    line where its block puts it, so that what a reader needs from several statements (an assignment and the call that
    hands it on, a constant and the f-string that uses it) reads from the slice as from the file."""
    if len(srcs) == 1:
        return srcs[0]
    lines = []
    for src in srcs:
        for i, line in enumerate(src.split("\n")):
            if line.strip():
                lines += [""] * (i + 1 - len(lines))
                lines[i] = line
    return "\n".join(lines)


def group(files):
    """{path: [text, ...]} in the order of ``files`` (a slice holds one block per statement)."""
    by = {}
    for path, src in files:
        by.setdefault(path, []).append(src)
    return by


def asserts_of(srcs):
    """{line: the test} of each `assert test, msg` statement of a file's sources (the file, or its slice's blocks,
    which record every assert site's statement whole): the guard the fallback of site_for reads."""
    out = {}
    for src in srcs:
        try:
            tree = ast.parse(textwrap.dedent(src))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Assert) and node.msg is not None:
                out[node.lineno] = ast.unparse(node.test)
    return out


def guard_fix(site, guard):
    """The fallback for an assigned site that no MSG_FIX row gives a fix (guards17): what its assert's own test says
    (tools/guardrules.py advise), marked 'guard' with the rules that read it; the family stays the generator's."""
    if not site.get("family") or site.get("fix") or not guard:
        return site
    got = guardrules.advise([("assert", guard)], {}, site["text"])
    if got:
        site["means"] = "%s checks `%s` and it did not hold: %s." % (site["where"], guard[:300], got[2])
        site["fix"] = list(got[3])
        site["guard"] = [["assert", guard]]
    return site


def site_for(prefix, ids, level, where, fmt, rules, msg_fix, older=None, first=None, vague=None, guard=None):
    """One site: id, where, level, text, its matcher (or unanchored), its family by ``rules`` (a warning: context
    only), its meaning and fix by ``msg_fix``. ``vague(site, rule)``: whether a context rule's assignment must be
    undone (too few words of the message's own); ``first``: the message's first line when it spans lines;
    ``guard``: the test of the assert that raises it, read by guard_fix when no MSG_FIX row gives a fix."""
    site = {"id": knowgen.unique_id(prefix + knowgen.slug(where), ids), "where": where, "level": level, "text": fmt}
    if older:
        site["older"] = older
    rx, literal = knowgen.matcher(fmt, first, 16)
    if knowgen.unanchored(site, rx, literal, NEED):
        return site
    if level == "warning":
        site.update({"re": rx, "family": None, "rule": "a warning, not an error"})
        return site
    rule, family = knowgen.assign(rules, site, {"where": where, "text": fmt, "level": level})
    if rule and rule.startswith("ctx-") and not knowgen.specific_enough(fmt, names=False):
        rule, family = "too few words of its own to assign by its source file", None
    site.update({"re": rx, "family": family, "rule": rule or "no rule"})
    knowgen.give_fix(site, msg_fix, fmt)
    return guard_fix(site, guard)


def py_sites(files, prefix, rules, msg_fix, seen=None, ids=None):
    """The sites of every Python file of ``files``; a path 'older/<dist>-<version>/<path>' is of an older release
    (its site marked "older"). A text already seen (an earlier file or the current release) is not repeated."""
    seen = set() if seen is None else seen
    ids = set() if ids is None else ids
    sites = []
    for path, srcs in group(files).items():
        if not path.endswith(".py"):
            continue
        m = re.match(r"older/([a-z_]+)-([^/]+)/(.+)$", path)
        real = m.group(3) if m else path
        firsts = knowgen.py_first_lines([textwrap.dedent(s) for s in srcs])
        tests = asserts_of(srcs)
        for level, where, fmt, first in sites_of(real, srcs):
            if fmt in seen:
                continue
            seen.add(fmt)
            line = int(where.rsplit(":", 1)[1])
            sites.append(site_for(prefix + ("%s_%s_" % (m.group(1), knowgen.slug(m.group(2))) if m else ""), ids,
                                  level, where, fmt, rules, msg_fix, older=m and "%s %s" % (m.group(1), m.group(2)),
                                  first=first or firsts.get(line), guard=tests.get(line)))
    return sites


def statements(src, keep, real):
    """[(first, last)] line spans of the statements of a Python source to record: each that holds a message
    (py_message) at a 'path:line' ``keep`` accepts, and for each message raised by name (_named) whose assignment
    line ``keep`` accepts, that assignment, the `+=` that extend it and the raise / assert that names it."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return []
    spans = set()
    compound = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.While, ast.With, ast.Try)
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt) or isinstance(node, compound):
            continue
        inner = [node] + [n for n in ast.walk(node) if isinstance(n, ast.Call)]
        if any(knowgen.py_message(n)[0] for n in inner) and \
                any(keep("%s:%d" % (real, ln)) for ln in range(node.lineno, node.end_lineno + 1)):
            spans.add((node.lineno, node.end_lineno))
    kept = [ln for ln, _, _ in _named(tree) if keep("%s:%d" % (real, ln))]
    for node in ast.walk(tree):
        name = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            name = node.target.id
        elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args and \
                isinstance(node.exc.args[0], ast.Name):
            name = node.exc.args[0].id
        elif isinstance(node, ast.Assert) and isinstance(node.msg, ast.Name):
            name = node.msg.id
        if name is None:
            continue
        for ln in kept:
            first = next((n for n in ast.walk(tree) if isinstance(n, ast.Assign) and n.lineno == ln), None)
            if first is not None and first.targets[0].id == name and ln <= node.lineno <= ln + NEAR:
                spans.add((node.lineno, node.end_lineno))
    return sorted(spans)


def site_key(site):
    """The 'path:line' of a site as the files (and the slice) name its file: 'older/<dist>-<version>/...' for a
    site of an older release."""
    return ("older/%s/" % site["older"].replace(" ", "-") if site.get("older") else "") + site["where"]


def write_record(path, version, files, keep, generator, extra=()):
    """The slice: the statements (`=== path @LINE` and their lines, dedented; see statements) of the message sites
    whose 'path:line' (site_key) ``keep`` accepts, and the (path, first line, text) blocks of ``extra`` (a generator's own
    reads of the source)."""
    with open(path, "w") as f:
        f.write("# Recorded by %s --record: the statements of the message sites it assigns, each as the source has\n"
                "# it (=== path @first line).\n" % generator)
        f.write("#! version %s\n" % version)
        for p, src in files:
            if not p.endswith(".py"):
                continue
            lines = src.splitlines()
            for a, b in statements(src, keep, p):
                f.write("=== %s @%d\n%s\n" % (p, a, textwrap.dedent("\n".join(lines[a - 1:b]))))
        for p, line, text in extra:
            f.write("=== %s @%d\n%s\n" % (p, line, text.rstrip("\n")))


def main(argv, doc, name, dist, read, build, msg_fix, generator, keep, record_help, extra=None):
    """The command line the one-wheel generators share (gen_vllm/sglang/triton_messages): --wheel [--older] [--record]
    reads the wheel (``read(wheel, older)``), checks that every MSG_FIX row still meets a site and records the slice of
    the sites ``keep`` accepts (plus ``extra(files, doc)``'s blocks); --slice reads a recorded slice (the test)."""
    a = knowgen.arguments(doc, argv, source="wheel", extra=[
        ("--older", {"help": "an older %s wheel: the messages it printed that the current one no longer does" % dist}),
        ("--record", {"help": "write the slice (%s)" % record_help})])
    files, version = read(a.wheel, a.older) if a.wheel else knowgen.read_slice(a.slice)
    out = build(files, version)
    if a.wheel:
        knowgen.stale_fixes(a, "MSG_FIX", msg_fix, out["sites"], of="wheel")
        if a.record:
            kept = {site_key(s) for s in out["sites"] if keep(s)}
            write_record(a.record, version, files, kept.__contains__, generator, extra(files, out) if extra else ())
    return knowgen.emit(name, out, a.out)

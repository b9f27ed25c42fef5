"""The human report: the node profile, then the problems (fail, then warn, each with its
fix), then the passes with their evidence, then one line counting n/a and skipped checks
(--verbose lists them), then the summary.

Plain text when stdout is not a terminal (logs, Slurm prologs: no colours, no rich
import); rich colours on a terminal. This is the only module that imports rich.
"""

import re
import sys

from gpudoctor.fixline import sh
from gpudoctor.nodes import fold
from gpudoctor.profile import folded, rows

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# the widest line of prose (a check's line, a note): longer ones are wrapped. A fix line is a command to paste
# and is never wrapped; the fix block is the lines indented by 7 or more, so prose continues indented by 5
# (CONT): a wrapped message never reads as a line to paste.
WIDTH = 100
CONT = 5
MARK = {"pass": "PASS", "fail": "FAIL", "warn": "WARN", "skipped": "SKIP", "na": "N/A "}
FINDING_MARK = {"error": "FAIL", "warning": "WARN", "info": "NOTE"}
STYLE = {"PASS": "green", "FAIL": "bold red", "WARN": "yellow", "SKIP": "dim", "N/A": "dim", "NOTE": "cyan",
         "ODD": "bold yellow"}


def _profile_lines(report):
    live = {n.host: report.shown_profile(n) for n in report.nodes if n.reachable}
    if not live:
        return []
    out = []
    if len(live) == 1:
        (host, prof), = live.items()
        out.append((None, "Node %s" % host))
        for label, value in rows(prof):
            out.append((None, "  %-7s %s" % (label, value if value is not None else "-")))
        return out
    out.append((None, "Nodes (values folded across nodes; ! marks a value that differs from the majority)"))
    for label, groups in folded(live):
        for i, (value, hosts, odd) in enumerate(groups):
            shown = value if value is not None else "-"
            line = "  %-7s %s %s  %s" % (label if i == 0 else "", "!" if odd else " ", shown, fold(hosts))
            out.append(("ODD" if odd else None, line))
    return out


def wrap(style, text, indent, width=WIDTH):
    """(style, line) pairs of one line of prose, wrapped at ``width`` columns between words (a word longer than
    that, a path or a URL, stays whole), the lines after the first indented by ``indent``. A line with control
    characters is left whole (render() shows them escaped)."""
    if len(text) <= width or not text.isprintable() or "$'" in text or "$(" in text or "`" in text:
        # (a node value shown as a shell word, fixline.Shown: never split over two lines; one holding a space is
        # written $'...\x20...', so it is never split at that space either: docs/security.md 28.)
        return [(style, text)]
    import textwrap

    got = textwrap.wrap(text, width, subsequent_indent=" " * indent, break_long_words=False,
                        break_on_hyphens=False)
    return [(style, line) for line in got] or [(style, text)]


def _hosts_note(report, hosts):
    return " [%s]" % fold(hosts) if len(report.nodes) > 1 and hosts else ""


def _result_line(report, r, width, cols=WIDTH):
    text = r.summary
    if len(report.nodes) > 1 and r.outcomes:
        if r.mixed:
            text = (text + "  (%s)" % r.breakdown()) if r.status in ("fail", "warn") else r.breakdown()
        elif r.status in ("pass", "na", "skipped"):
            text += " [%s]" % fold(list(r.outcomes))
        else:
            sev = "error" if r.status == "fail" else "warning"
            worst = [f for f in r.findings if f.severity == sev]
            if worst:
                text += _hosts_note(report, [h for f in worst if f.message == worst[0].message for h in f.hosts or []])
    mark = MARK[r.status]
    return wrap(mark.strip(), "%s %-*s  %s" % (mark, width, r.id, text), CONT, cols)


def _fix_lines(report, r, cols=WIDTH):
    out = []
    # the check's own line already says its one problem; a finding gets a line of its own only
    # beside another problem of the check (notes, info findings, never count: a history note
    # under a failing check is one indented line, not a second FAIL line)
    # the same problem said the same way on several nodes (each node's finding keeps its own observed value) is
    # one line naming the nodes together: it was one line per node under a "(+1 more)" (slurm24)
    groups = []  # [(finding, hosts)]
    for f in sorted(r.findings, key=lambda f: ("error", "warning", "info").index(f.severity)):
        key = (f.severity, f.message, f.fix or "", sorted((str(k), str(v)) for k, v in f.exports.items()))
        same = next((g for g in groups if g[0] == key), None)
        if same:
            same[2].extend(h for h in f.hosts or [] if h not in same[2])
        else:
            groups.append((key, f, list(f.hosts or [])))
    problems = [f for _, f, _ in groups if f.severity != "info"]
    for _, f, hosts in groups:
        if f.severity == "info":
            out.extend(wrap("NOTE", "     note: %s%s" % (f.message, _hosts_note(report, hosts)), CONT, cols))
            continue
        if len(problems) > 1:
            out.extend(wrap(FINDING_MARK[f.severity], "     %s %s%s" % (FINDING_MARK[f.severity], f.message,
                                                                       _hosts_note(report, hosts)), CONT, cols))
        # a fix's lines are the check's own (values in it are quoted on one line by
        # gpudoctor/fixline.py); each line is shown with its control characters escaped
        for line in (f.fix or "").splitlines():
            out.append((None, "       " + line))
        for k, v in sorted(f.exports.items()):
            if _NAME.match(str(k)):
                out.append((None, "       export %s=%s" % (k, sh(str(v)))))
            else:  # a name from a node that no shell takes as a variable: never an export line
                out.append((None, "       # not a variable name, not exported: %s" % sh(str(k))))
    return out


def _node_hint(kind):
    """What a person does about a node that could not be checked (transport.HINTS), except for an
    interrupted run (nothing to do on the node) and a failure the error itself says all of."""
    if kind in (None, "interrupted", "collector", "ssh"):
        return None
    from gpudoctor.transport import HINTS

    return HINTS.get(kind)


def lines(report, verbose=False, header=None, command="check", cols=WIDTH):
    """The report as (style, text) pairs; style is a key of STYLE or None. ``header``: lines
    shown instead of the node profile (`gpudoctor watch` shows its samples). ``cols``: the widest
    line of prose (a terminal narrower than WIDTH: its width; fix lines are never wrapped)."""
    out = []
    n = len(report.nodes)
    out.append((None, "gpudoctor: %d node%s (%s)" % (n, "" if n == 1 else "s", fold([x.host for x in report.nodes]))))
    hinted = set()
    for node in report.nodes:
        if not node.reachable:
            out.extend(wrap("FAIL", "FAIL node %s could not be checked (%s): %s" % (
                node.host, node.error_kind or "error", node.error), CONT, cols))
            hint = _node_hint(node.error_kind)
            if hint and node.error_kind not in hinted:  # what to do about it, once per kind of failure
                hinted.add(node.error_kind)
                out.extend(wrap(None, "       " + hint, 7, cols))
        elif getattr(node, "fallback_from", None):  # --fallback ssh (gpudoctor/transport/srun.py)
            out.extend(wrap("NOTE", "NOTE node %s reached over %s, not srun (%s)" % (
                node.host, node.via, node.fallback_from), CONT, cols))
    prof = _profile_lines(report) if header is None else [(None, line) for line in header]
    if prof:
        out.append((None, ""))
        out.extend(prof)
    shown = report.results
    width = max([len(r.id) for r in shown] + [8])
    by = {st: [r for r in shown if r.status == st] for st in MARK}
    problems = by["fail"] + by["warn"]
    if problems:
        out.append((None, ""))
        for r in problems:
            out.extend(_result_line(report, r, width, cols))
            out.extend(_fix_lines(report, r, cols))
    if by["pass"]:
        out.append((None, ""))
        for r in by["pass"]:
            out.extend(_result_line(report, r, width, cols))
            out.extend(line for line in _fix_lines(report, r, cols) if line[0] == "NOTE")
    quiet = by["skipped"] + by["na"]
    if quiet:
        out.append((None, ""))
        if verbose:
            for r in quiet:
                out.extend(_result_line(report, r, width, cols))
        else:
            # the command that printed the report lists them (`watch -v` lists its diagnoses)
            out.append((None, "%d n/a, %d skipped (gpudoctor %s --verbose lists them)" % (
                len(by["na"]), len(by["skipped"]), command)))
    for r in report.results:
        for msg, hosts in r.crashed.items():
            out.extend(wrap("FAIL", "BUG  %s crashed%s: %s (a gpudoctor bug; please report it)" % (
                r.id, _hosts_note(report, hosts), msg), CONT, cols))
    s = report.summary
    out.append((None, ""))
    out.extend(wrap(None, "Summary: %d error%s, %d warning%s; %d passed, %d n/a, %d skipped; %d node%s, "
                          "%d unreachable; exit %d" % (
                              s["errors"], "" if s["errors"] == 1 else "s", s["warnings"],
                              "" if s["warnings"] == 1 else "s", s["checks_passed"], s["checks_na"],
                              s["checks_skipped"], s["nodes"], "" if s["nodes"] == 1 else "s",
                              s["nodes_unreachable"], s["exit_code"]), 9, cols))
    return out


def _printable(text):
    """Node output is untrusted: a control character in a value (an escape sequence that would
    retitle or rewrite the terminal, a carriage return that hides a line) is shown escaped."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def render(report, stream=None, color=None, verbose=False, header=None, command="check"):
    stream = stream or sys.stdout
    if color is None:
        color = stream.isatty()
    if not color:
        out = [(style, _printable(text)) for style, text in lines(report, verbose, header, command)]
        stream.write("\n".join(text for _, text in out) + "\n")
        return
    from rich.console import Console
    from rich.markup import escape

    console = Console(file=stream, highlight=False)
    # a terminal narrower than WIDTH (80 columns, a split pane) gets its prose wrapped at its own width here, and
    # rich wraps nothing (soft_wrap): rich's own wrapping at the terminal's width re-broke lines already wrapped at
    # 100 into ragged halves, and split a fix line (a command to paste) over several lines. A fix line longer than
    # the terminal is folded by the terminal alone, so it copies as one line.
    cols = max(40, min(WIDTH, console.width))
    out = [(style, _printable(text)) for style, text in lines(report, verbose, header, command, cols)]
    for style, text in out:
        if style in STYLE:
            console.print("[%s]%s[/]" % (STYLE[style], escape(text)), soft_wrap=True)
        else:
            console.print(escape(text), soft_wrap=True)

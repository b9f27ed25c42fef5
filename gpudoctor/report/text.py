"""The human report: one line per check, then the fixes, then a summary.

Plain text when stdout is not a terminal (logs, Slurm prologs: no colours, no rich
import); rich colours on a terminal. This is the only module that imports rich.
"""

import sys

from gpudoctor.nodes import fold

MARK = {"pass": "PASS", "error": "FAIL", "warning": "WARN", "skipped": "SKIP", "crashed": "BUG!", "info": "INFO"}
STYLE = {"PASS": "green", "FAIL": "bold red", "WARN": "yellow", "SKIP": "dim", "BUG!": "magenta", "INFO": "cyan"}


def _hosts_note(report, hosts):
    if len(report.nodes) <= 1:
        return ""
    return " [%s]" % fold(hosts)


def lines(report):
    """The report as (style, text) pairs; style is a key of STYLE or None."""
    out = []
    n = len(report.nodes)
    names = fold([x.host for x in report.nodes])
    out.append((None, "gpudoctor: %d node%s (%s)" % (n, "" if n == 1 else "s", names)))
    for node in report.nodes:
        if not node.reachable:
            out.append(("FAIL", "FAIL node %s could not be checked (%s): %s" % (node.host, node.error_kind or "error",
                                                                          node.error)))
    out.append((None, ""))
    width = max([len(r.id) for r in report.results] + [8])
    for r in report.results:
        mark = MARK[r.status]
        if r.status in ("error", "warning"):
            worst = [f for f in r.findings if f.severity == r.status]
            text = worst[0].message + _hosts_note(report, worst[0].hosts)
            if len(r.findings) > 1:
                text += " (+%d more)" % (len(r.findings) - 1)
        elif r.status == "skipped":
            reason, hosts = next(iter(r.skipped.items()))
            text = "skipped: " + reason + _hosts_note(report, hosts)
        elif r.status == "crashed":
            reason, hosts = next(iter(r.crashed.items()))
            text = "the check itself failed (a gpudoctor bug): " + reason
        else:
            text = r.title
            infos = [f for f in r.findings if f.severity == "info"]
            if infos:
                text += " (note: %s)" % infos[0].message
        out.append((mark, "%s %-*s  %s" % (mark, width, r.id, text)))
    fixes = [f for f in report.findings if f.severity in ("error", "warning") and (f.fix or f.exports)]
    if fixes:
        out.append((None, ""))
        out.append((None, "Fixes:"))
        for f in fixes:
            out.append((MARK[f.severity], "  %s %s%s: %s" % (MARK[f.severity], f.check, _hosts_note(report, f.hosts),
                                                          f.message)))
            for line in (f.fix or "").splitlines():
                out.append((None, "      " + line))
            for k, v in sorted(f.exports.items()):
                out.append((None, "      export %s=%s" % (k, _shell_quote(v))))
    s = report.summary
    out.append((None, ""))
    out.append((None, "Summary: %d error%s, %d warning%s; %d checks run, %d passed, %d skipped; %d node%s, "
                      "%d unreachable; exit %d" % (
                          s["errors"], "" if s["errors"] == 1 else "s", s["warnings"], "" if s["warnings"] == 1 else "s",
                          s["checks_run"], s["checks_passed"], s["checks_skipped"], s["nodes"],
                          "" if s["nodes"] == 1 else "s", s["nodes_unreachable"], s["exit_code"])))
    return out


def _shell_quote(v):
    import shlex

    return shlex.quote(str(v))


def render(report, stream=None, color=None, verbose=False):
    stream = stream or sys.stdout
    if color is None:
        color = stream.isatty()
    if not color:
        stream.write("\n".join(text for _, text in lines(report)) + "\n")
        return
    from rich.console import Console
    from rich.markup import escape

    console = Console(file=stream, highlight=False)
    for style, text in lines(report):
        if style in STYLE:
            mark, rest = text.lstrip()[:4], text.lstrip()[4:]
            indent = text[: len(text) - len(text.lstrip())]
            console.print("%s[%s]%s[/]%s" % (indent, STYLE[style], mark, escape(rest)))
        else:
            console.print(escape(text))

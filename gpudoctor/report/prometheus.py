"""The report as a node-exporter textfile-collector file (Prometheus text format 0.0.4).

One gauge per check and node, so an alert can say which check failed where:

    gpudoctor_check_status{check="shm.size",host="gpu07",severity="error"} 2

Values: 0 pass, 1 warning, 2 error, 3 the check crashed (a gpudoctor bug), -1 skipped
(could not judge), -2 n/a (nothing to judge on that node). ``severity`` is the check's configured (worst) severity,
not the outcome, so a series keeps its labels from run to run. Also:
gpudoctor_node_checked{host} (0 when the node could not be checked, with its
error_kind), gpudoctor_findings{host,severity}, gpudoctor_exit_code and
gpudoctor_last_run_timestamp_seconds. With `-o FILE` the CLI writes the file
atomically (a temp file in the same folder, then rename), as node-exporter's docs ask.
"""

import time

from gpudoctor.fixline import needs_ansi_c, sh

STATUS_VALUE = {"pass": 0, "warning": 1, "error": 2, "crashed": 3, "skipped": -1, "na": -2}
_SEV_RANK = {"error": 0, "warning": 1, "info": 2}


def node_status(result, host):
    """One check's outcome on one node: pass | warning | error | crashed | skipped | na | None
    (the check says nothing about that node)."""
    got = result.outcomes.get(host)
    if got is None:
        return None
    if any(host in hosts for hosts in result.crashed.values()):
        return "crashed"
    return {"fail": "error", "warn": "warning"}.get(got[0], got[0])


def _label(value):
    """A label value in the text format's escapes (\\\\, \\", \\n). A value from a node (watch's GPU index, the
    job's interface) that holds a control or bidi character is written as fixline.sh's $'...' word first: the
    format has no escape for them and a terminal acts on the raw bytes when the file is printed (OSC 52 sets the
    clipboard; docs/security.md 84.)."""
    value = str(value)
    if needs_ansi_c(value):
        value = sh(value)
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _series(name, labels, value):
    inner = ",".join('%s="%s"' % (k, _label(v)) for k, v in labels)
    return "%s{%s} %s" % (name, inner, value) if inner else "%s %s" % (name, value)


def lines(report, now=None):
    out = []

    def gauge(name, help_text):
        out.append("# HELP %s %s" % (name, help_text))
        out.append("# TYPE %s gauge" % name)

    gauge("gpudoctor_check_status",
          "gpudoctor check outcome per node: 0 pass, 1 warning, 2 error, 3 check crashed, -1 skipped, -2 n/a")
    for r in report.results:
        for node in report.nodes:
            if not node.reachable:
                continue
            st = node_status(r, node.host)
            if st is None:
                continue
            out.append(_series("gpudoctor_check_status",
                               [("check", r.id), ("host", node.host), ("severity", r.severity)], STATUS_VALUE[st]))
    gauge("gpudoctor_node_checked", "1 when gpudoctor could gather the node's facts, 0 when it could not")
    for node in report.nodes:
        labels = [("host", node.host)]
        if not node.reachable:
            labels.append(("error_kind", node.error_kind or "error"))
        out.append(_series("gpudoctor_node_checked", labels, 1 if node.reachable else 0))
    gauge("gpudoctor_findings", "findings per node and severity in the last run")
    for node in report.nodes:
        for sev in ("error", "warning", "info"):
            n = sum(1 for f in report.findings if f.severity == sev and node.host in f.hosts)
            out.append(_series("gpudoctor_findings", [("host", node.host), ("severity", sev)], n))
    gauge("gpudoctor_exit_code", "exit code of the last run (0 ok, 1 findings or unchecked nodes, 3 a check "
                                 "crashed, 130/143 interrupted by SIGINT/SIGTERM)")
    out.append(_series("gpudoctor_exit_code", [], report.exit_code))
    gauge("gpudoctor_last_run_timestamp_seconds", "when the last run finished, seconds since the epoch")
    out.append(_series("gpudoctor_last_run_timestamp_seconds", [], "%.3f" % (time.time() if now is None else now)))
    return out


def render(report, stream, now=None):
    stream.write("\n".join(lines(report, now=now)) + "\n")

"""The report as JUnit XML, for CI dashboards (GitLab, Jenkins, GitHub test reporters).

A <testsuite> per node, a <testcase> per check. An error-level finding is a <failure>
(message = the finding, body = observed, expected and the fix); a warning is a
<failure type="warning"> only with --strict (it does not fail the run otherwise) and
goes to <system-out>; a skipped check is <skipped>; a check that crashed, or a node
that could not be checked, is an <error>.
"""

import re
import xml.etree.ElementTree as ET

from gpudoctor.fixline import sh
from gpudoctor.report.prometheus import node_status

# (the text report's rule, gpudoctor/report/text.py: an export line only for a name a shell takes as a variable)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _body(f):
    parts = []
    if f.observed:
        parts.append("observed: %s" % f.observed)
    if f.expected:
        parts.append("expected: %s" % f.expected)
    if f.fix:
        parts.append("fix:\n%s" % f.fix)
    # a value from the node is one shell word, as in the text report (docs/security.md 62.): a CI page's
    # `export NCCL_SOCKET_IFNAME=eth0;touch ...;#` ran the node's command when it was copied
    for k, v in sorted(f.exports.items()):
        if _NAME.match(str(k)):
            parts.append("export %s=%s" % (k, sh(str(v))))
        else:
            parts.append("# not a variable name, not exported: %s" % sh(str(k)))
    return "\n".join(parts)


# Characters XML 1.0 cannot carry at all, escaped or not (https://www.w3.org/TR/xml/#charsets:
# Char ::= #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]).
# ElementTree writes them as-is, and the file no CI parser will read; node output (a host
# name, an environment value, a driver string) can hold any of them.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _clean(text):
    return _NOT_XML.sub("\ufffd", text) if isinstance(text, str) else text


def _sanitize(root):
    for el in root.iter():
        el.text, el.tail = _clean(el.text), _clean(el.tail)
        for k, v in list(el.attrib.items()):
            el.set(k, _clean(v) if isinstance(v, str) else str(v))
    return root


def build(report):
    root = ET.Element("testsuites", name="gpudoctor")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for node in report.nodes:
        suite = ET.SubElement(root, "testsuite", name=node.host, hostname=node.host)
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        if not node.reachable:
            case = ET.SubElement(suite, "testcase", classname="gpudoctor.%s" % node.host, name="node.checked")
            err = ET.SubElement(case, "error", message="%s could not be checked (%s): %s" % (
                node.host, node.error_kind or "error", node.error), type=node.error_kind or "error")
            err.text = node.error or ""
            counts["tests"] += 1
            counts["errors"] += 1
        else:
            for r in report.results:
                st = node_status(r, node.host)
                if st is None:
                    continue
                counts["tests"] += 1
                case = ET.SubElement(suite, "testcase", classname="gpudoctor.%s" % node.host, name=r.id)
                mine = [f for f in r.findings if node.host in f.hosts]
                if st == "error" or (st == "warning" and report.strict):
                    for f in (f for f in mine if f.severity in ("error", "warning")):
                        el = ET.SubElement(case, "failure", message=f.message, type=f.severity)
                        el.text = _body(f)
                    counts["failures"] += 1
                elif st == "crashed":
                    reason = next(k for k, hosts in r.crashed.items() if node.host in hosts)
                    ET.SubElement(case, "error", message="the check itself failed (a gpudoctor bug): " + reason,
                                  type="crashed")
                    counts["errors"] += 1
                elif st in ("skipped", "na"):
                    reason = r.outcomes[node.host][1]
                    ET.SubElement(case, "skipped", message=("n/a: " if st == "na" else "") + reason)
                    counts["skipped"] += 1
                notes = [f for f in mine if f.severity in ("warning", "info") and not (st == "warning" and report.strict)]
                if notes:
                    out = ET.SubElement(case, "system-out")
                    out.text = "\n".join("%s: %s" % (f.severity.upper(), f.message) + (
                        "\n" + _body(f) if _body(f) else "") for f in notes)
        for k, v in counts.items():
            suite.set(k, str(v))
            totals[k] += v
    for k, v in totals.items():
        root.set(k, str(v))
    return _sanitize(root)


def render(report, stream):
    root = build(report)
    ET.indent(root)
    stream.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    stream.write(ET.tostring(root, encoding="unicode"))
    stream.write("\n")

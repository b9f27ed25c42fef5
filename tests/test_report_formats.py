"""--format prometheus and --format junit: parsed back, not string-compared.

The reports are built by the real runner from small checks and facts defined here, so
these tests do not move when the built-in checks change.
"""

import json
import os
import re
import xml.etree.ElementTree as ET

import pytest

from gpudoctor.config import Config
from gpudoctor.registry import Check, Finding, Pass
from gpudoctor.report import junit, prometheus
from gpudoctor.runner import Node, run_checks


def _shm(facts, config):
    if facts["shm"]["total_bytes"] < 1 << 30:
        yield Finding.error(observed="/dev/shm is 64.0 MiB", expected=">= 1.0 GiB",
                            fix="docker run --shm-size=8g ...")
    else:
        yield Pass("/dev/shm 8.0 GiB >= 1.0 GiB")


def _memlock(facts, config):
    if facts["limits"]["memlock"] != "unlimited":
        yield Finding.warning("memlock is 64 KiB", fix="ulimit -l unlimited")
    else:
        yield Pass("memlock unlimited")


def _crash(facts, config):
    raise ValueError("boom")


CHECKS = [
    Check(id="shm.size", title="/dev/shm is large enough", func=_shm, needs=("shm",)),
    Check(id="limits.memlock", title="memlock is unlimited", func=_memlock, needs=("limits",), severity="warning"),
    Check(id="gpu.count", title="GPUs are visible", func=lambda f, c: iter(()), needs=("gpu",)),
    Check(id="bug.crash", title="a buggy plugin", func=_crash, needs=("shm",)),
]


def _facts(shm, memlock):
    return {"shm": {"status": "ok", "total_bytes": shm}, "limits": {"status": "ok", "memlock": memlock},
            "gpu": {"status": "unsupported", "reason": "no NVIDIA driver loaded"}}


@pytest.fixture
def report():
    nodes = [Node(host="gpu01", facts=_facts(8 << 30, "unlimited")),
             Node(host="gpu02", facts=_facts(64 << 20, "65536")),
             Node(host='we"ird\\host', facts=_facts(8 << 30, "unlimited")),
             Node(host="gpu04", error="connection refused", error_kind="refused")]
    return run_checks(nodes, CHECKS, Config())


# name{labels} value, as node-exporter's textfile collector parses it
SAMPLE = re.compile(r'^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(?P<labels>.*)\})? (?P<value>-?[0-9.e+]+)$')
LABEL = re.compile(r'(?P<k>[a-zA-Z_][a-zA-Z0-9_]*)="(?P<v>(?:[^"\\]|\\.)*)"(?:,|$)')


def parse_prom(text):
    samples, types = [], {}
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            types[name] = kind
            continue
        if line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        assert m, "not a Prometheus sample: %r" % line
        labels = {}
        if m.group("labels"):
            pos = 0
            for lm in LABEL.finditer(m.group("labels")):
                assert lm.start() == pos, line
                pos = lm.end()
                labels[lm.group("k")] = lm.group("v").replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
            assert pos == len(m.group("labels")), line
        samples.append((m.group("name"), labels, float(m.group("value"))))
    return samples, types


def test_prometheus_one_gauge_per_check_and_node(report):
    samples, types = parse_prom("\n".join(prometheus.lines(report, now=1700000000.5)))
    assert set(types.values()) == {"gauge"}
    status = {(l["check"], l["host"]): v for n, l, v in samples if n == "gpudoctor_check_status"}
    assert status[("shm.size", "gpu01")] == 0
    assert status[("shm.size", "gpu02")] == 2
    assert status[("limits.memlock", "gpu02")] == 1
    assert status[("gpu.count", "gpu01")] == -2  # n/a: no driver, nothing to judge
    assert status[("bug.crash", "gpu01")] == 3
    assert status[("shm.size", 'we"ird\\host')] == 0  # label escaping round-trips
    assert not any(h == "gpu04" for _, h in status)  # an unreachable node has no check series...
    checked = {l["host"]: (v, l.get("error_kind")) for n, l, v in samples if n == "gpudoctor_node_checked"}
    assert checked["gpu04"] == (0, "refused") and checked["gpu01"] == (1, None)  # ...but says why
    sev = {l["check"]: l["severity"] for n, l, v in samples if n == "gpudoctor_check_status"}
    assert sev["shm.size"] == "error" and sev["limits.memlock"] == "warning"  # configured, not the outcome
    findings = {(l["host"], l["severity"]): v for n, l, v in samples if n == "gpudoctor_findings"}
    assert findings[("gpu02", "error")] == 1 and findings[("gpu02", "warning")] == 1
    assert findings[("gpu01", "error")] == 0
    (ts,) = [v for n, l, v in samples if n == "gpudoctor_last_run_timestamp_seconds"]
    assert ts == 1700000000.5
    (code,) = [v for n, l, v in samples if n == "gpudoctor_exit_code"]
    assert code == report.exit_code == 3  # a check crashed (bug.crash): gpudoctor's own failure, not "findings"


def test_junit_suite_per_node_case_per_check(report):
    root = ET.fromstring(_render(junit.render, report))
    assert root.tag == "testsuites"
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert sorted(suites) == sorted(["gpu01", "gpu02", 'we"ird\\host', "gpu04"])
    gpu02 = {c.get("name"): c for c in suites["gpu02"].findall("testcase")}
    assert sorted(gpu02) == ["bug.crash", "gpu.count", "limits.memlock", "shm.size"]
    fail = gpu02["shm.size"].find("failure")
    assert fail.get("message") == "/dev/shm is 64.0 MiB (expected >= 1.0 GiB)"
    assert "docker run --shm-size=8g" in fail.text and "expected: >= 1.0 GiB" in fail.text
    # a warning does not fail the run, so it does not fail the testcase either (without --strict)
    assert gpu02["limits.memlock"].find("failure") is None
    assert "memlock is 64 KiB" in gpu02["limits.memlock"].find("system-out").text
    assert gpu02["gpu.count"].find("skipped").get("message") == "n/a: gpu: no NVIDIA driver loaded"
    assert gpu02["bug.crash"].find("error").get("type") == "crashed"
    assert suites["gpu02"].get("failures") == "1" and suites["gpu02"].get("tests") == "4"
    assert suites["gpu01"].get("failures") == "0"
    (case,) = suites["gpu04"].findall("testcase")
    assert case.get("name") == "node.checked" and "connection refused" in case.find("error").get("message")
    assert root.get("failures") == "1" and root.get("errors") == str(3 + 1)  # 3 crashes + 1 unreachable node


def test_junit_strict_makes_warnings_failures(report):
    report.strict = True
    root = ET.fromstring(_render(junit.render, report))
    suite = next(s for s in root.findall("testsuite") if s.get("name") == "gpu02")
    case = next(c for c in suite.findall("testcase") if c.get("name") == "limits.memlock")
    assert case.find("failure").get("type") == "warning"


def _render(func, report):
    import io

    buf = io.StringIO()
    func(report, buf)
    return buf.getvalue()


def test_cli_prometheus_file_written_atomically(gpudoctor_cli, tmp_path):
    """`check --facts ... --format prometheus -o FILE`: the file is replaced, never half-written,
    and readable by node-exporter (not mkstemp's 0600)."""
    facts = tmp_path / "n1.json"
    doc = {"schema": "gpudoctor.facts/1", "node": "n1", "collected_at": "2026-01-01T00:00:00Z", "collector": {},
           "host": {"status": "ok", "hostname": "n1"},
           "shm": {"status": "ok", "total_bytes": 64 << 20, "free_bytes": 64 << 20}}
    facts.write_text(json.dumps(doc))
    out = tmp_path / "textfile" / "gpudoctor.prom"
    out.parent.mkdir()
    out.write_text("old content\n")
    before = os.stat(out).st_ino
    rc, stdout, stderr = gpudoctor_cli("check", "--facts", str(facts), "--select", "shm.size", "--format",
                                       "prometheus", "-o", str(out), env={"GPUDOCTOR_CONFIG": ""})
    assert rc == 1, stderr
    assert stdout == ""
    samples, _ = parse_prom(out.read_text())
    assert ("gpudoctor_check_status", {"check": "shm.size", "host": "n1", "severity": "error"}, 2.0) in samples
    assert os.stat(out).st_ino != before  # renamed into place, not rewritten in place
    assert os.stat(out).st_mode & 0o044 == 0o044
    assert sorted(os.listdir(out.parent)) == ["gpudoctor.prom"]  # no temp file left behind


def test_cli_output_to_missing_folder_is_one_line_exit_2(gpudoctor_cli, tmp_path):
    rc, stdout, stderr = gpudoctor_cli("check", "--fast", "--format", "junit", "-o", str(tmp_path / "no" / "x.xml"))
    assert rc == 2 and stderr.startswith("gpudoctor: error: cannot write") and "Traceback" not in stderr


def test_output_to_a_fifo_is_refused_and_dev_null_is_left_alone(tmp_path):
    """-o never writes into a FIFO (with no reader it blocked forever) nor replaces a device
    with a regular file; /dev/null takes nothing (issue 23: tests/test_files_hardening.py has the rest)."""
    import stat

    import pytest

    from gpudoctor.errors import InputError
    from gpudoctor.report.atomic import write_atomic

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="a FIFO, not a regular file"):
        write_atomic(str(fifo), "gpudoctor_exit_code 0\n")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert os.listdir(tmp_path) == ["pipe"]  # no temp file left beside it
    write_atomic("/dev/null", "gpudoctor_exit_code 0\n")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)

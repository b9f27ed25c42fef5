"""Mutation round 19 (docs/mutation.md): this session's security code, judged in-process on real inputs.

The red-team tests of these fixes (test_redteam_2026_11_28c.py) run gpudoctor in a subprocess, which mutmut cannot
see: the JUnit export quoting (report/junit.py _body, docs/security.md 62.), the XML clean-up (_clean / _sanitize)
and the ssh config Include bounds (transport/ssh.py _flattened / _bounded_glob, 61.) had no test mutmut counts.
Each export line is pasted into a real bash; each flattened config is compared with what OpenSSH's own `ssh -G`
reads where ssh is installed.
"""

import io
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

from gpudoctor.config import Config
from gpudoctor.errors import InputError
from gpudoctor.registry import Check, Finding, Pass
from gpudoctor.report import junit
from gpudoctor.runner import Node, run_checks
from gpudoctor.transport import ssh

HOSTILE = ["eth0;touch${IFS}MARKER;#", "eth0$(touch MARKER)", "e`touch MARKER`", "eth0 && touch MARKER",
           "a'b\"c", "x\ny", "tab\there", "", "plain0"]


def _exports_check(facts, config):
    env = facts["env"]
    if env.get("bad"):
        yield Finding.error("a near-miss variable", observed="seen", expected="a name NCCL reads",
                            fix="unset IT", exports=dict(env["exports"]))
    elif env.get("warn"):
        yield Finding.warning("a note with exports", exports=dict(env["exports"]))
    else:
        yield Pass("fine")


CHECK = Check(id="env.exports", title="exports", func=_exports_check, needs=("env",))


def _xml(nodes, strict=False):
    report = run_checks(nodes, [CHECK], Config())
    report.strict = strict
    out = io.StringIO()
    junit.render(report, out)
    return ET.fromstring(out.getvalue())


def _bash_reads(lines, name):
    """Each line run by a restricted bash whose PATH holds only touch, then NAME's value printed: (files made,
    values)."""
    bash = shutil.which("bash")
    box = "/tmp/gdmut24-%d" % os.getpid()
    shutil.rmtree(box, ignore_errors=True)
    os.makedirs(box + "/bin")
    os.makedirs(box + "/w")
    os.symlink(shutil.which("touch"), box + "/bin/touch")
    values = []
    try:
        for line in lines:
            p = subprocess.run([bash, "--norc", "--noprofile", "-r", "-c", line + '\nprintf %s "${' + name + '-UNSET}"'],
                               cwd=box + "/w", timeout=30, env={"PATH": box + "/bin", "LC_ALL": "C"},
                               capture_output=True)
            values.append(p.stdout.decode("utf-8", "replace"))
        return sorted(os.listdir(box + "/w")), values
    finally:
        shutil.rmtree(box, ignore_errors=True)


@pytest.mark.parametrize("value", HOSTILE)
def test_junit_export_line_reads_back_as_the_nodes_value_in_bash(value):
    root = _xml([Node(host="n1", facts={"env": {"status": "ok", "bad": True,
                                                "exports": {"NCCL_SOCKET_IFNAME": value}}})])
    (fail,) = root.iter("failure")
    assert fail.get("type") == "error" and fail.get("message").startswith("a near-miss variable")
    body = fail.text.split("\n")
    assert body[:4] == ["observed: seen", "expected: a name NCCL reads", "fix:", "unset IT"]
    exports = [line for line in body if line.startswith("export ")]
    assert len(exports) == 1 and exports[0].startswith("export NCCL_SOCKET_IFNAME=")
    made, values = _bash_reads(exports, "NCCL_SOCKET_IFNAME")
    assert made == [] and values == [value], (exports, values)


def test_junit_exports_sorted_and_a_name_no_shell_takes_is_a_comment():
    exports = {"ZED": "z", "A;touch${IFS}MARKER": "v", "ALPHA_1": "a b", "_x": "1", "9NO": "n", "OK9": 7}
    root = _xml([Node(host="n1", facts={"env": {"status": "ok", "bad": True, "exports": exports}})])
    (fail,) = root.iter("failure")
    lines = fail.text.split("\n")[4:]
    assert lines == ["# not a variable name, not exported: 9NO",
                     "# not a variable name, not exported: 'A;touch${IFS}MARKER'",
                     "export ALPHA_1='a b'", "export OK9=7", "export ZED=z", "export _x=1"]
    made, values = _bash_reads(lines, "ALPHA_1")
    assert made == [] and values == ["UNSET", "UNSET", "a b", "UNSET", "UNSET", "UNSET"]


def test_junit_a_warnings_exports_in_system_out_are_quoted_too():
    root = _xml([Node(host="n1", facts={"env": {"status": "ok", "warn": True,
                                                "exports": {"NCCL_IB_HCA": "mlx5_0;touch MARKER"}}})])
    assert next(root.iter("failure"), None) is None
    (out,) = root.iter("system-out")
    assert out.text.split("\n") == ["WARNING: a note with exports", "export NCCL_IB_HCA='mlx5_0;touch MARKER'"]
    root = _xml([Node(host="n1", facts={"env": {"status": "ok", "warn": True,
                                                "exports": {"NCCL_IB_HCA": "mlx5_0;touch MARKER"}}})], strict=True)
    (fail,) = root.iter("failure")
    assert fail.get("type") == "warning" and fail.text == "export NCCL_IB_HCA='mlx5_0;touch MARKER'"


def test_junit_a_finding_without_fields_has_an_empty_body():
    f = Finding.error("m")
    assert junit._body(f) == ""
    f = Finding.error("m", observed="o", exports={"N": "v"})
    assert junit._body(f) == "observed: o\nexport N=v"


def test_junit_characters_xml_cannot_carry_become_the_replacement_character():
    host = "n\x00\x01\x08\x0b\x0c\x0e\x1f\x1b[2J\ud800\udfff\ufffe\uffff-\t\n\r ok\u202e\U0001f600\ud7ff\ue000\ufffd"
    nodes = [Node(host=host, facts={"env": {"status": "ok", "bad": True, "exports": {"N": "v\x07"}}}),
             Node(host="gone\x07", error="refused\x00 by\tpeer", error_kind="refused")]
    root = _xml(nodes)  # parses: no character XML 1.0 forbids is left
    names = [s.get("name") for s in root.iter("testsuite")]
    want = "n" + "\ufffd" * 8 + "[2J" + "\ufffd" * 4 + "-\t\n\r ok\u202e\U0001f600\ud7ff\ue000\ufffd"
    assert names == [want, "gone\ufffd"]
    assert [s.get("hostname") for s in root.iter("testsuite")] == names
    (fail,) = root.iter("failure")
    assert fail.text.endswith("export N=$'v\\x07'")  # sh() writes it ANSI-C quoted, nothing for XML to clean
    (err,) = root.iter("error")
    assert err.text == "refused\ufffd by\tpeer" and err.get("message") == "gone\ufffd could not be checked " \
        "(refused): refused\ufffd by\tpeer"
    assert root.get("tests") == "2" and root.get("failures") == "1" and root.get("errors") == "1"


# --- ssh config Include (transport/ssh.py _flattened, _bounded_glob; docs/security.md 61.) ---

def _hosts_of(text):
    return [line.strip() for line in text.splitlines() if line.strip()]


def test_include_globs_sorted_dot_files_only_by_a_dot_and_blocks_go_on(tmp_path):
    d = tmp_path / "config.d"
    d.mkdir()
    (d / "b.conf").write_text("Host b\n  Port 2\n")
    (d / "a.conf").write_text("Host a\n  Port 1\n")
    (d / ".h.conf").write_text("Host hidden\n")
    (d / "c.txt").write_text("Host c\n")
    top = tmp_path / "cfg"
    top.write_text("Host top\n  Include %s/*.conf\n  User u\nInclude %s/.*.conf\nHost last\n" % (d, d))
    text, met = ssh._flattened([(str(top), False)])
    assert met is True
    assert _hosts_of(text) == ["Host top", "Host a", "Port 1", "Host top", "Host b", "Port 2", "Host top",
                               "User u", "Host hidden", "Host top", "Host last"]  # (no indentation in ssh_config)


def test_include_relative_paths_are_under_the_users_ssh_folder_and_quoted_words_are_one(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".ssh" / "my confs").mkdir(parents=True)
    (home / ".ssh" / "my confs" / "x.conf").write_text("Host x\n")
    (home / ".ssh" / "other").write_text("Host o\n")
    monkeypatch.setenv("HOME", str(home))
    top = tmp_path / "cfg"
    top.write_text('Include "my confs/x.conf" ~/.ssh/other missing.conf # a comment\n'
                   "Include = other\n")
    text, met = ssh._flattened([(str(top), False)])
    assert met and _hosts_of(text) == ["Host x", "Host *", "Host o", "Host *", "Host o", "Host *"]
    text, met = ssh._flattened([(str(top), True)])  # a system file's relative path is under /etc/ssh
    assert met and _hosts_of(text) == ["Host o", "Host *"]
    (tmp_path / "plain").write_text("Host p\n  HostName 10.0.0.1\n")
    assert ssh._flattened([(str(tmp_path / "plain"), False), (str(tmp_path / "nothere"), False)]) == \
        ("Host p\n  HostName 10.0.0.1\n", False)


def test_include_an_unbalanced_quote_is_read_as_words(tmp_path):
    (tmp_path / '"a').write_text("Host q\n")
    (tmp_path / "cfg").write_text('Include %s/"a\n' % tmp_path)
    text, met = ssh._flattened([(str(tmp_path / "cfg"), False)])
    assert met and _hosts_of(text) == ["Host q", "Host *"]


def test_include_a_magic_middle_part_and_a_plain_one(tmp_path, monkeypatch):
    for sub in ("d1", "d2", ".d3"):
        (tmp_path / sub / "in").mkdir(parents=True)
        (tmp_path / sub / "in" / "k.conf").write_text("Host %s\n" % sub)
    (tmp_path / "f1").write_text("Host notadir\n")  # matches d?-like part only as a file: not walked into
    (tmp_path / "cfg").write_text("Include %s/[df][0-9]/in/k.conf\n" % tmp_path)
    text, met = ssh._flattened([(str(tmp_path / "cfg"), False)])
    assert _hosts_of(text) == ["Host d1", "Host *", "Host d2", "Host *"]
    monkeypatch.chdir(str(tmp_path))
    assert ssh._bounded_glob("d*/in/*.conf", [0, 0, 0]) == ["d1/in/k.conf", "d2/in/k.conf"]
    assert ssh._bounded_glob("nothere*/x", [0, 0, 0]) == []
    assert ssh._bounded_glob(str(tmp_path / "f1"), [0, 0, 0]) == [str(tmp_path / "f1")]
    assert ssh._bounded_glob(str(tmp_path / "f1" / "x*"), [0, 0, 0]) == []  # scandir of a file: nothing


def test_include_reads_at_most_4096_files_in_all(tmp_path):
    leaf = tmp_path / "leaf"
    leaf.write_text("Host l\n")
    top = tmp_path / "cfg"
    top.write_text("Include %s\n" % " ".join([str(leaf)] * (ssh.MAX_INCLUDED_FILES - 1)))
    text, met = ssh._flattened([(str(top), False)])  # 1 + 4095 reads: allowed
    assert met and text.count("Host l") == ssh.MAX_INCLUDED_FILES - 1
    top.write_text("Include %s\n" % " ".join([str(leaf)] * ssh.MAX_INCLUDED_FILES))
    with pytest.raises(InputError) as e:
        ssh._flattened([(str(top), False)])
    assert str(e.value) == "ssh config %s: Include reads more than 4096 files in all (each inclusion counted)" % leaf


def test_include_nesting_is_bounded_as_ssh_bounds_it(tmp_path):
    def chain(n):  # f0 includes f1 ... includes f<n>
        for i in range(n):
            (tmp_path / ("f%d" % i)).write_text("Include %s\n" % (tmp_path / ("f%d" % (i + 1))))
        (tmp_path / ("f%d" % n)).write_text("Host deep\n  HostName 10.1.1.1\n")
        for i in range(n + 1, n + 3):
            (tmp_path / ("f%d" % i)).unlink() if (tmp_path / ("f%d" % i)).exists() else None

    chain(16)
    text, met = ssh._flattened([(str(tmp_path / "f0"), False)])
    assert met and "HostName 10.1.1.1" in text
    if shutil.which("ssh"):  # OpenSSH reads 16 levels too
        p = subprocess.run(["ssh", "-G", "-F", str(tmp_path / "f0"), "deep"], capture_output=True, text=True,
                           timeout=30)
        assert "hostname 10.1.1.1" in p.stdout, p.stderr
    chain(17)
    with pytest.raises(InputError) as e:
        ssh._flattened([(str(tmp_path / "f0"), False)])
    assert str(e.value) == "ssh config %s: Include nested more than 16 deep (ssh refuses it too)" % (
        tmp_path / "f17")
    if shutil.which("ssh"):
        p = subprocess.run(["ssh", "-G", "-F", str(tmp_path / "f0"), "deep"], capture_output=True, text=True,
                           timeout=30)
        assert p.returncode != 0 and "recursive" in p.stderr, (p.returncode, p.stderr)


def test_include_globs_look_at_a_bounded_number_of_entries_in_all(tmp_path, monkeypatch):
    monkeypatch.setattr(ssh, "MAX_GLOB_ENTRIES", 6)
    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        for i in range(3):
            (tmp_path / sub / ("%d.conf" % i)).write_text("Host %s%d\n" % (sub, i))
    (tmp_path / "cfg").write_text("Include %s/a/*.conf\nInclude %s/b/*.conf\n" % (tmp_path, tmp_path))
    text, _ = ssh._flattened([(str(tmp_path / "cfg"), False)])  # 3 + 3 entries looked at: allowed
    assert _hosts_of(text)[::2] == ["Host a0", "Host a1", "Host a2", "Host b0", "Host b1", "Host b2"]
    (tmp_path / "b" / ".dot").write_text("")  # a seventh entry, looked at though no pattern takes it
    with pytest.raises(InputError) as e:
        ssh._flattened([(str(tmp_path / "cfg"), False)])
    assert str(e.value) == "ssh config: Include %s/b/*.conf looks at more than 6 folder entries" % tmp_path
    long = str(tmp_path / "b" / ("x" * 300)) + "*"
    with pytest.raises(InputError) as e:
        ssh._bounded_glob(long, [0, 0, 6])
    assert str(e.value) == "ssh config: Include %s looks at more than 6 folder entries" % long[:200]


def test_include_flattened_text_is_bounded_in_bytes(tmp_path, monkeypatch):
    (tmp_path / "leaf").write_text("Host l\n" * 10)  # 70 characters
    one = "Include %s\n" % (tmp_path / "leaf")
    two = "Include %s %s\n" % (tmp_path / "leaf", tmp_path / "leaf")
    monkeypatch.setattr(ssh, "MAX_FLATTENED", len(one) + 70)
    (tmp_path / "cfg").write_text(one)
    text, _ = ssh._flattened([(str(tmp_path / "cfg"), False)])  # the include line + 70: the bound itself
    assert text.count("Host l") == 10
    (tmp_path / "cfg").write_text(two)
    # the two-include file and one leaf, less one character: whatever tmp_path's length (under xdist or not), the
    # refusal comes at the second leaf, not at the file itself
    monkeypatch.setattr(ssh, "MAX_FLATTENED", len(two) + 70 + 69)
    with pytest.raises(InputError) as e:
        ssh._flattened([(str(tmp_path / "cfg"), False)])
    assert str(e.value) == "ssh config %s: Include makes the configuration more than 0 MiB in all" % (
        tmp_path / "leaf")


# --- probe's text report (probe/report.py render_text, docs/security.md 63.) and shown_of (64.) ---

def _probe_doc():
    import json

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return json.load(open(os.path.join(root, "fixtures", "probe", "h200x2-two-groups-socket.json")))


def _probe_text(doc, found=None):
    from gpudoctor.probe import findings, report

    out = io.StringIO()
    report.render_text(doc, findings.evaluate(doc, {}) if found is None else found, out)
    return out.getvalue()


def test_probe_text_escapes_each_line_and_keeps_the_lines():
    doc = _probe_doc()
    doc["nodes"][0]["host"] = "g0\x1b]0;T\x07"
    doc["nodes"][1]["python"] = "3.12\x1b[2J\u202e"
    lines = _probe_text(doc).split("\n")
    assert lines[:3] == ["gpudoctor probe: mode nccl, 2 of 2 nodes, 8.7 s of a 150 s budget",
                         "  g0\\x1b]0;T\\x07         ok (python 3.12.3, 1 GPU(s), torch)",
                         "  h200x2-g1        ok (python 3.12\\x1b[2J\\u202e, 1 GPU(s), torch)"]
    assert lines[3:5] == ["", "all nodes (2 ranks, NCCL 2.28.9): NET/Socket over eth0"]
    assert all(c.isprintable() for line in lines for c in line)


@pytest.mark.parametrize("where", ["socket_ifs", "ib_devices", "oob_if"])
def test_probe_transport_line_shows_a_name_nccl_said_as_one_shell_word(where):
    doc = _probe_doc()
    name = "eth0;touch M;#"
    nccl = doc["jobs"][0]["nccl"]
    nccl["socket_ifs"], nccl["ib_devices"], nccl["oob_if"] = [], [], None
    nccl[where] = {"socket_ifs": [{"index": 0, "name": name, "addr": "192.0.2.2<0>"}],
                   "ib_devices": [{"index": 0, "device": name, "port": 1, "kind": "RoCE"}], "oob_if": name}[where]
    doc["jobs"][0]["transport"] = "NET/Socket over %s" % name
    lines = _probe_text(doc, []).split("\n")
    # (an inert word since red team 2026-11-28f, docs/security.md 86.: every character a shell acts on as \\xNN)
    assert "all nodes (2 ranks, NCCL 2.28.9): NET/Socket over $'eth0\\x3btouch\\x20M\\x3b\\x23'" in lines, lines[:6]


def test_probe_shown_of_takes_every_nodes_facts_and_every_job():
    from gpudoctor.probe.findings import shown_of

    doc = _probe_doc()
    doc["jobs"] = [{"nccl": None}, "not a job", {"nccl": {"socket_ifs": [{"name": "a$(x)"}]}},
                   {"nccl": {"oob_if": "b`y`"}}]
    facts = {"n1": {"rdma": {"devices": [{"name": "mlx5_0;x"}]}}, "n2": None, "n3": {"env": {"V": "c&&d"}}}
    shown = shown_of(doc, facts)
    assert shown("a$(x) b`y` mlx5_0;x c&&d plain") == (
        "$'a\\x24(x)' $'b\\x60y\\x60' $'mlx5_0\\x3bx' $'c\\x26\\x26d' plain")  # inert words (86.)
    assert shown_of(doc, None)("mlx5_0;x a$(x)") == "mlx5_0;x $'a\\x24(x)'"
    assert shown_of({}, {})("a$(x)") == "a$(x)"


def _kinds(facts, config):
    from gpudoctor.registry import NA, Skip

    k = facts["env"]["kind"]
    if k == "error":
        yield Finding.error("bad thing", fix="do it")
    elif k == "warning":
        yield Finding.warning("so-so", exports={"X": "1"})
    elif k == "info":
        yield Finding.info("fyi")
        yield Pass("fine")
    elif k == "skip":
        yield Skip("could not read it")
    elif k == "na":
        yield NA("nothing to judge")
    elif k == "crash":
        raise KeyError("boom")
    else:
        yield Pass("ok")


def _kinds_xml(strict):
    nodes = [Node(host=h, facts={"env": {"status": "ok", "kind": h}})
             for h in ("error", "warning", "info", "skip", "na", "crash", "pass")]
    nodes.append(Node(host="down", error="no route", error_kind=None))
    report = run_checks(nodes, [Check(id="k.ind", title="kinds", func=_kinds, needs=("env",))], Config())
    report.strict = strict
    out = io.StringIO()
    junit.render(report, out)
    return out.getvalue()


@pytest.mark.parametrize("strict", [False, True])
def test_junit_every_outcome_as_ci_parsers_read_it(strict):
    text = _kinds_xml(strict)
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="gpudoctor" ')
    root = ET.fromstring(text)
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert list(suites) == ["error", "warning", "info", "skip", "na", "crash", "pass", "down"]
    counts = {h: tuple(s.get(k) for k in ("tests", "failures", "errors", "skipped")) for h, s in suites.items()}
    assert counts == {"error": ("1", "1", "0", "0"), "warning": ("1", "1" if strict else "0", "0", "0"),
                      "info": ("1", "0", "0", "0"), "skip": ("1", "0", "0", "1"), "na": ("1", "0", "0", "1"),
                      "crash": ("1", "0", "1", "0"), "pass": ("1", "0", "0", "0"), "down": ("1", "0", "1", "0")}
    assert tuple(root.get(k) for k in ("tests", "failures", "errors", "skipped")) == (
        "8", "2" if strict else "1", "2", "2")
    for h, s in suites.items():
        assert s.get("hostname") == h
        assert [(c.get("classname"), c.get("name")) for c in s] == [
            ("gpudoctor.%s" % h, "node.checked" if h == "down" else "k.ind")]
    case = {h: s[0] for h, s in suites.items()}
    assert [(e.tag, e.get("type"), e.get("message"), e.text) for e in case["error"]] == [
        ("failure", "error", "bad thing", "fix:\ndo it")]
    warn = ("failure", "warning", "so-so", "export X=1") if strict else ("system-out", None, None,
                                                                       "WARNING: so-so\nexport X=1")
    assert [(e.tag, e.get("type"), e.get("message"), e.text) for e in case["warning"]] == [warn]
    assert [(e.tag, e.text) for e in case["info"]] == [("system-out", "INFO: fyi")]
    assert [(e.tag, e.get("message")) for e in case["skip"]] == [("skipped", "could not read it")]
    assert [(e.tag, e.get("message")) for e in case["na"]] == [("skipped", "n/a: nothing to judge")]
    (err,) = case["crash"]
    assert err.tag == "error" and err.get("type") == "crashed"
    assert err.get("message").startswith("the check itself failed (a gpudoctor bug): KeyError")
    assert [(e.tag, e.get("type"), e.get("message"), e.text) for e in case["down"]] == [
        ("error", "error", "down could not be checked (error): no route", "no route")]
    assert text.endswith("</testsuites>\n")


def test_junit_counts_add_up_over_several_checks_of_a_node():
    from gpudoctor.registry import NA, Skip

    def make(kind):
        def f(facts, config):
            if kind == "error":
                yield Finding.error("bad")
            elif kind == "skip":
                yield Skip("unread")
            elif kind == "na":
                yield NA("none")
            elif kind == "crash":
                raise ValueError("boom")
            else:
                yield Finding.warning("w1")
                yield Finding.warning("w2")
                yield Finding.info("i1")
        return f

    kinds = ["error", "error", "skip", "na", "crash", "crash", "notes"]
    checks = [Check(id="c%d.%s" % (i, k), title=k, func=make(k), needs=("env",)) for i, k in enumerate(kinds)]
    report = run_checks([Node(host="n1", facts={"env": {"status": "ok"}})], checks, Config())
    out = io.StringIO()
    junit.render(report, out)
    (suite,) = ET.fromstring(out.getvalue()).findall("testsuite")
    assert tuple(suite.get(k) for k in ("tests", "failures", "errors", "skipped")) == ("7", "2", "2", "2")
    notes = suite[6].find("system-out").text
    assert notes == "WARNING: w1\nWARNING: w2\nINFO: i1"


def test_include_comments_nested_blocks_and_a_system_files_nested_relative_path(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "a").write_text("Host commented\n")  # a word after '#' is a comment, not a file
    (home / ".ssh" / "inner").write_text("Host inner\n")
    (home / ".ssh" / "mid").write_text("  User m\nInclude inner\n  Port 3\n")  # an included file's lines go on
    monkeypatch.setenv("HOME", str(home))
    top = tmp_path / "cfg"
    top.write_text("Host outer\nInclude mid # a\n")
    text, met = ssh._flattened([(str(top), False)])
    assert _hosts_of(text) == ["Host outer", "User m", "Host inner", "Host outer", "Port 3", "Host outer"]
    # a system file's include, and what that file includes in turn, is relative to /etc/ssh (none here), not ~/.ssh
    top.write_text("Include %s\n" % (home / ".ssh" / "mid"))
    text, _ = ssh._flattened([(str(top), True)])
    assert _hosts_of(text) == ["User m", "Port 3", "Host *"]


def test_include_an_included_files_bad_line_is_refused_at_its_file_and_line(tmp_path):
    (tmp_path / "inc.conf").write_text("Host n1\n  Port 0\n")  # ssh refuses it too
    (tmp_path / "cfg").write_text("Include %s\n" % (tmp_path / "inc.conf"))
    with pytest.raises(InputError) as e:
        ssh._flattened([(str(tmp_path / "cfg"), False)])
    assert str(e.value).startswith("ssh config %s:2: " % (tmp_path / "inc.conf"))

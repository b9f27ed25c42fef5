"""Red team 2026-11-28g (docs/security.md 88.+): hostile inputs against gpudoctor as a user or a node hands them in.
Each test failed before its fix (checked on the start commit 5dcc353); the controls pass on both."""

import io
import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def _gd(args, cwd):
    """`gpudoctor ARGS` in this process (tests/inprocess.py): these tests paste what it writes, and a `python -P -m
    gpudoctor` each loaded the checks and explain's knowledge again (suite32: its 27 calls each gave the process's
    exit code, stdout and stderr)."""
    import inprocess

    return inprocess.gd(args, cwd)


def _pasted_lines(lines, tmp_path):
    """Each line and each clause after ': ', '; ', ', ', ' (' or two blanks outside a quoted word, pasted alone into
    a restricted bash whose PATH holds only touch: what it created."""
    from gpudoctor.fixline import keep_quoted

    box = tmp_path / "box"
    (box / "bin").mkdir(parents=True, exist_ok=True)
    (box / "w").mkdir(exist_ok=True)
    if not (box / "bin" / "touch").exists():
        os.symlink(shutil.which("touch"), str(box / "bin" / "touch"))
    todo = []
    for x in lines:
        todo += [x[m.end():] for m in re.finditer(r"^|: |; |, | \(|  +", keep_quoted(x))]
    for line in todo:
        subprocess.run([shutil.which("bash"), "--norc", "--noprofile", "-r", "-c", line], cwd=str(box / "w"),
                       timeout=30, env={"PATH": str(box / "bin"), "HOME": str(box / "w"), "LC_ALL": "C"},
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return sorted(os.listdir(str(box / "w")))


# 88.: explain's shape cache (perf21) left out, for every later line of a shape, a pattern whose digit-widened form
# did not match the shape's first line; widening a digit inside a negative lookahead narrows the pattern, so gpu.xid
# ('(?!(?:63|92|106|107)\b)\d+') was left out after an Xid 63 line, and an Xid 45 line of the same shape read as
# nothing: 'no error' for a log with an Xid.

def _explain(data, shapes, monkeypatch):
    from gpudoctor import explain
    from gpudoctor.explain import scan as scan_mod
    from gpudoctor.explain.knowledge import load_knowledge

    monkeypatch.setattr(scan_mod, "SHAPES", shapes)
    res = explain.explain_stream(io.BytesIO(data), load_knowledge())
    return res.get("verdict"), res.get("root")


@pytest.mark.parametrize("first,later", [(63, 45), (92, 13), (63, 31), (107, 119)])
def test_an_excluded_xid_line_hides_no_later_xid_of_its_shape(monkeypatch, first, later):
    data = b"NVRM: Xid (PCI:0000:3b:00): %d, pid=1234\n\nNVRM: Xid (PCI:0000:3b:00): %d, pid=1234\n\n" % (first, later)
    on = _explain(data, True, monkeypatch)
    assert on == _explain(data, False, monkeypatch)
    assert on[0] == "root_cause" and on[1].startswith("gpu.xid")


def test_the_widened_form_still_matches_where_its_pattern_does():
    from gpudoctor.explain import scan as scan_mod
    from gpudoctor.explain.knowledge import load_knowledge

    kb = load_knowledge()
    pats = [p for e in kb.by_id.values() for p in e.get("_patterns", [])
            if p.entry in ("gpu.xid", "rdma.memlock") and "(?!" in p.source]
    assert len(pats) >= 2
    lines = ["NVRM: Xid (PCI:0000:3b:00): %d, pid=1234" % n for n in (13, 45, 63, 79, 92, 107, 119)]
    lines += ["ibv_reg_mr failed errno=%d" % n for n in (12, 14, 22)]
    checked = 0
    for p in pats:
        wide = scan_mod._relaxed(p)
        if wide is None:
            continue
        for line in lines:
            if p.regex.search(line):
                checked += 1
                assert wide.search(line), (p.source[:80], line)
            # one digit or another: the widened form answers alike on every line of a shape
            assert bool(wide.search(line)) == bool(wide.search(re.sub(r"\d", "0", line))), (p.source[:80], line)
    assert checked >= 5


def test_an_ordinary_pattern_is_still_widened_and_pruned():
    # control: a literal digit outside a lookaround is widened (the shape cache keeps its pruning)
    from gpudoctor.explain import scan as scan_mod
    from gpudoctor.explain.knowledge import Pattern

    class P:
        source = r"exit code 1\b(?!\w)"
        regex = re.compile(source)

    wide = scan_mod._relaxed(P)
    assert wide is not None and wide.search("exit code 7") and not wide.search("exit status 7")
    assert Pattern is not None


# 89.: a drain reason from a hostile `sinfo -R` / `scontrol show node` dump ('x: touch M; #') was filled into
# slurm.node_reason's note as sh()'s 'x: touch M; #', which the text report wrapped at a blank inside the quote: the
# next line began inside it, and a clause of the note ran touch when copied alone

SINFO = ("$ sinfo -R\nREASON               USER      TIMESTAMP           NODELIST\n"
         "%-20s root      2026-11-28T03:18:40 sn3\n")
SCONTROL = "NodeName=sn2 Arch=x86_64 State=IDLE+DRAIN ThreadsPerCore=1 Reason=%s [root@2026-11-28T08:55:30]\n"
QUOTED = re.compile(r"^\s*(?:line \d+|confirmed by line \d+|seen in the log|\.\.\.)")


@pytest.mark.parametrize("reason", ["x: touch M4; #", "x, touch M5; #", "x (touch M6; #", "x; touch M7 #"])
@pytest.mark.parametrize("form", [SINFO, SCONTROL], ids=["sinfo", "scontrol"])
def test_a_hostile_drain_reason_runs_nothing_from_the_text_report(tmp_path, form, reason):
    src = tmp_path / "dump.txt"
    src.write_text(form % reason)
    rc, out, err = _gd(["explain", str(src)], tmp_path)
    assert rc in (0, 1), err
    assert "slurm.node_reason" in out
    lines = [x for x in out.splitlines() if not QUOTED.match(x)]
    assert _pasted_lines(lines, tmp_path) == []


def test_a_plain_drain_reason_still_reads_as_written():
    from gpudoctor import explain

    r = explain.explain_text(SCONTROL % "bad gpu 3 - RMA ticket 1234", None)
    n = next(c for c in r.get("context") or [] if c["id"] == "slurm.node_reason")
    assert "'bad gpu 3 - RMA ticket 1234'" in n["note"] and "nodename=sn2 state=resume" in n["fix"], n


# 90.: a node's value that a check cut at a limit (hostname[:100], mount options[:120], CUDA_VISIBLE_DEVICES[:40]) or
# wrote with repr() (a list or dict where a string belongs: env.parity, versions.parity, tmp's mount options) is not
# the value the report's guard (fixline.Shown) looks for, so '$(touch M)' inside repr's double quotes, or a cut
# piece, ran when a JUnit / exports line or clause was pasted

FACTS = os.path.join(ROOT, "fixtures", "recorded", "h200x2-2026-11-28e", "facts.json")
LONG = "x'$(touch M1)" + "a" * 120
BSQ = ["x\\'$(touch M2)"]


def _two_nodes(tmp_path, change):
    import copy
    import json

    base = json.load(open(FACTS))
    d = copy.deepcopy(base)
    change(d)
    folder = tmp_path / "facts"
    folder.mkdir()
    (folder / "n1.json").write_text(json.dumps(d))
    d2 = copy.deepcopy(base)
    d2["node"] = d2["host"]["hostname"] = "n2"
    (folder / "n2.json").write_text(json.dumps(d2))
    return str(folder)


CHANGES = {
    "hostname_long": lambda d: d["host"].__setitem__("hostname", LONG),
    "hostname_backslash": lambda d: d["host"].__setitem__("hostname", "x\\'$(touch M3)"),
    "mount_options_long": lambda d: d["tmp"].update(read_only=True, mount_options="x;touch M4;#" + "a" * 120),
    "mount_options_list": lambda d: d["tmp"].update(read_only=True, mount_options=BSQ),
    "env_list": lambda d: d["env"]["values"].__setitem__("NCCL_DEBUG", BSQ),
    "package_dict": lambda d: d["python"]["packages"].__setitem__("numpy", {"k": "x\\'$(touch M5)"}),
}


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_a_cut_or_repr_written_node_value_runs_nothing_when_pasted(tmp_path, name):
    folder = _two_nodes(tmp_path, CHANGES[name])
    lines = []
    for fmt in ([], ["--format", "junit"], ["--exports"]):
        rc, out, err = _gd(["check", "--facts", folder] + fmt, tmp_path)
        assert rc in (0, 1), err
        lines += out.splitlines()
    assert _pasted_lines(lines, tmp_path) == []


def test_bounded_keeps_plain_values_and_makes_the_rest_inert():
    from gpudoctor.fixline import bounded

    assert bounded("rw,relatime", 120) == "rw,relatime"
    assert bounded("a" * 50, 40) == "a" * 40 + " ..."
    assert bounded([1, 2], 80) == "[1, 2]"
    got = bounded(BSQ, 80)
    assert got.startswith("$'") and "$(" not in got and "'" not in got[2:-1]
    out = subprocess.run([shutil.which("bash"), "-c", "printf %s " + got], capture_output=True, text=True).stdout
    assert out == repr(BSQ)


def test_a_plain_bad_hostname_still_reads_as_repr_quotes_it(tmp_path):
    folder = _two_nodes(tmp_path, lambda d: d["host"].__setitem__("hostname", "gpu_01,x"))
    rc, out, err = _gd(["check", "--facts", folder, "--select", "host.name"], tmp_path)
    assert rc == 1 and "hostname 'gpu_01,x' is not a host name" in out, out

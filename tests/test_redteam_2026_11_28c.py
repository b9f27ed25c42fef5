"""Red team 2026-11-28c (docs/security.md 59.+): hostile inputs against gpudoctor as a user or a node hands them in.
Each test failed before its fix."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _gd(args, cwd):
    """`python -P -m gpudoctor ARGS` (explain, plan) for a test of what it writes: gpudoctor.cli.main in this
    process (tests/inprocess.py; suite27: a process each, explain's knowledge loaded each time, was most of this
    file's time). The process's own contract (imports, wrappers, check's collectors) stays on _run."""
    import inprocess

    return inprocess.gd(args, cwd)


def _run(argv, cwd, timeout=120, env=None, stdin=None):
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.PIPE,
                         cwd=str(cwd), env=env)
    try:
        out, err = p.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        pytest.fail("%s still ran after %d s" % (" ".join(argv), timeout))
    return p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


# 59.: modules gpudoctor imports after the interpreter has started (argparse, textwrap, traceback, tomllib, shlex,
# ...); those the interpreter imported at start (os, re, ...) are not taken from the folder anyway.
_STDLIB_PLANTED = ("argparse", "textwrap", "traceback", "shlex", "tomllib", "json", "subprocess", "tempfile", "hmac",
                   "secrets", "hashlib", "socket", "signal", "datetime", "gettext", "locale", "string", "difflib")


@pytest.mark.parametrize("args", [["--version"], ["explain", "log.txt"], ["check", "--json"]])
def test_python_m_gpudoctor_imports_nothing_from_the_folder_it_runs_in(tmp_path, args):
    # `python -m gpudoctor` puts the current folder (its full path) first on sys.path before gpudoctor is imported:
    # an argparse.py in a cloned repository ran when gpudoctor's CLI imported argparse (and a traceback.py when the
    # crash file was written). gpudoctor/__init__.py takes that entry out first.
    folder, hits = tmp_path / "repo", tmp_path / "hits"
    folder.mkdir()
    hits.mkdir()
    for name in _STDLIB_PLANTED:
        (folder / ("%s.py" % name)).write_text("open(%r, 'w').close()\n" % str(hits / name))
    (folder / "log.txt").write_text("RuntimeError: CUDA error: out of memory\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSAFEPATH")}
    env["PYTHONPATH"] = ROOT  # as installed (the editable install's finder would do the same)
    rc, out, err = _run([sys.executable, "-m", "gpudoctor"] + args, folder, env=env)
    assert sorted(os.listdir(str(hits))) == [], "python -m gpudoctor %s ran the folder's modules" % args[0]
    assert rc in (0, 1), err[-2000:]


def test_python_m_gpudoctor_still_runs_from_a_source_checkout():
    # the package found in the folder itself (a clone, `python -m gpudoctor` at its top) keeps working: its own
    # modules are looked up through the package, and the top-level checks/ as gpudoctor.checks
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSAFEPATH")}
    rc, out, err = _run([sys.executable, "-m", "gpudoctor", "check", "--json", "--select", "shm.size"], ROOT,
                        env=env)
    assert rc in (0, 1), err[-2000:]
    assert '"shm.size"' in out


_WRAPPER_TRACE = """#!/bin/bash
set -x
DBCONN=Zq81hunter2xyz
Q='Qq5 two words'
connect-db --conn "$DBCONN" --svc "$SVC_URL_X" --quoted "$Q"
exit %d
"""
_WRAPPER_ECHO = """#!/bin/bash
echo "using $SVC_URL_X and $DBCONN2 for the run"
exit %d
"""


@pytest.mark.parametrize("script", [_WRAPPER_TRACE, _WRAPPER_ECHO])
@pytest.mark.parametrize("rc", [3, 0])
def test_a_wrapper_keeps_no_value_of_a_variable_whose_name_is_no_credentials(tmp_path, script, rc):
    # 60.: 50. and 57. cut NAME=value and credential-named flags, but the value came back wherever the wrapper used
    # it: `connect-db --conn "$DBCONN"` traced as `--conn Zq81hunter2xyz`, an environment variable echoed in words.
    # The facts show neither name's value (env_value hashes it); what the wrapper printed now says `$NAME` there.
    w = tmp_path / "w"
    w.write_text(script % rc)
    w.chmod(0o755)
    env = dict(os.environ, SVC_URL_X="Kx7secretvalue99", DBCONN2="Pp0another77", PYTHONPATH=ROOT)
    code, out, err = _run([sys.executable, "-P", "-m", "gpudoctor", "check", "--python", str(w), "--json"], tmp_path,
                          env=env)
    assert code == 1, err[-2000:]
    said = out + err
    for part in ("Zq81hunter2", "hunter2xyz", "Kx7secret", "secretvalue99", "Pp0another", "Qq5 two", "two words"):
        assert part not in said.replace("\\x20", " "), part
    if (script is _WRAPPER_TRACE) == (rc != 0):  # (stderr is shown for a failing wrapper, stdout otherwise)
        # what it was is still said, by name (an inert word in a description since 86.: '$' as \x24)
        assert "$SVC_URL_X" in said or "x24SVC_URL_X" in said


def _ssh_check(tmp_path, config):
    (tmp_path / "hf").write_text("n1\n")
    env = dict(os.environ, PYTHONPATH=ROOT)
    return _run([sys.executable, "-P", "-m", "gpudoctor", "check", "--hosts", str(tmp_path / "hf"), "--ssh-config",
                 str(config), "--timeout", "5"], tmp_path, timeout=60, env=env)


def test_ssh_config_includes_that_fan_out_are_bounded(tmp_path):
    # 61.: 16 files, each including the next three times: 3**16 inclusions, every one read; gpudoctor (and ssh -G)
    # ran past any deadline before a node was tried. Now one line, exit 2, past 4,096 files read in all.
    for i in range(16):
        nxt = str(tmp_path / ("f%d" % (i + 1)))
        (tmp_path / ("f%d" % i)).write_text("Include %s %s %s\n" % (nxt, nxt, nxt))
    (tmp_path / "f16").write_text("Host n1\n  HostName 127.0.0.1\n")
    rc, out, err = _ssh_check(tmp_path, tmp_path / "f0")
    assert rc == 2, err[-2000:]
    assert "more than 4096 files" in err and len(err.strip().splitlines()) == 1, err


def test_ssh_config_include_globs_are_bounded(tmp_path):
    # 61.: an Include's glob walked the whole tree it names (/proc's, here) before gpudoctor tried a node: 21 s for
    # /proc/*/*/*/*/x on this machine, minutes for a deeper one. Now at most 100,000 folder entries looked at.
    (tmp_path / "cfg").write_text("Include /proc/*/*/*/*/*/x\nHost n1\n  HostName 127.0.0.1\n")
    rc, out, err = _ssh_check(tmp_path, tmp_path / "cfg")
    assert rc == 2, err[-2000:]
    assert "folder entries" in err and len(err.strip().splitlines()) == 1, err


def test_ssh_config_includes_still_read_as_ssh_reads_them(tmp_path):
    # the bounds leave a config.d of a few files, globbed, as it was: sorted, dot files left out
    d = tmp_path / "config.d"
    d.mkdir()
    (d / "b.conf").write_text("Host n1\n  HostName 127.0.0.1\n  Port 0\n")  # an input error ssh refuses too
    (d / ".hidden.conf").write_text("Host n1\n  Port 0x\n")
    (tmp_path / "cfg").write_text("Include %s/*.conf\n" % d)
    rc, out, err = _ssh_check(tmp_path, tmp_path / "cfg")
    assert rc == 2 and "b.conf:3" in err and "hidden" not in err, err


def _pasted(lines, tmp_path):
    """Each line pasted alone into a restricted bash whose PATH holds only touch: what it created."""
    import shutil

    box = tmp_path / "box"
    (box / "bin").mkdir(parents=True)
    (box / "w").mkdir()
    os.symlink(shutil.which("touch"), str(box / "bin" / "touch"))
    for line in lines:
        subprocess.run([shutil.which("bash"), "--norc", "--noprofile", "-r", "-c", line], cwd=str(box / "w"), timeout=30,
                       env={"PATH": str(box / "bin"), "HOME": str(box / "w"), "LC_ALL": "C"},
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return sorted(os.listdir(str(box / "w")))


@pytest.mark.parametrize("value", ["eth0;touch${IFS}MARKER;#", "eth0$(touch MARKER)", "e`touch MARKER`",
                                   "eth0 && touch MARKER"])
def test_junits_export_lines_hold_a_node_value_as_one_shell_word(tmp_path, value):
    # 62.: the JUnit report's failure / system-out body wrote each of a finding's exports as `export NAME=value`
    # with the node's value bare (the text report quotes it): a near-miss NCCL_SOCKET_IFNAM's value from a node
    # became `export NCCL_SOCKET_IFNAME=eth0;touch${IFS}MARKER;#` on a CI page, ready to run when copied.
    import json
    import xml.etree.ElementTree as ET

    doc = json.load(open(os.path.join(ROOT, "fixtures", "nodes", "h100-ubuntu2404-torch211.json")))
    doc["nccl"]["effective"]["NCCL_SOCKET_IFNAM"] = {"source": "environment", "value": value}
    doc["nccl"]["env"]["NCCL_SOCKET_IFNAM"] = value
    facts = tmp_path / "n.json"
    facts.write_text(json.dumps(doc))
    env = dict(os.environ, PYTHONPATH=ROOT)
    rc, out, err = _run([sys.executable, "-P", "-m", "gpudoctor", "check", "--facts", str(facts), "--format", "junit"],
                        tmp_path, env=env)
    assert rc == 1, err[-2000:]
    text = "\n".join(e.text or "" for e in ET.fromstring(out).iter())
    exports = [line for line in text.splitlines() if line.startswith("export ")]
    assert any(line.startswith("export NCCL_SOCKET_IFNAME=") for line in exports), text
    assert _pasted(exports, tmp_path) == []


def test_probes_text_report_escapes_what_nodes_said():
    # 63.: the probe's text report wrote its lines as they were, unlike check's and diff's: an interface name NCCL
    # printed on a node and an RDMA device name in its facts went into probe.nccl.socket_with_rdma's message raw, so
    # a node could retitle the terminal, clear it, or set its clipboard (OSC 52) through `gpudoctor probe`.
    import io
    import json

    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from conftest import node_facts
    from gpudoctor.probe import findings, report

    doc = json.load(open(os.path.join(ROOT, "fixtures", "probe", "h200x2-two-groups-socket.json")))
    doc["jobs"][0]["nccl"]["connections"] = []  # two machines (as test_probe_units judges it)
    doc["jobs"][0]["nccl"]["socket_ifs"] = [{"index": 0, "name": "eth0\x1b]0;TITLE\x07", "addr": "192.0.2.2<0>"}]
    facts = {}
    for host in ("h200x2-g0", "h200x2-g1"):
        f = node_facts("h200x2-ubuntu2404-torch211")
        f["rdma"] = {"status": "ok", "devices": [{"name": "mlx5_0\x1b]52;c;dG91Y2ggL3RtcC9Y\x07\u202e", "ports": [{
            "port": 1, "state": "ACTIVE", "link_layer": "InfiniBand", "rate_gbps": 200, "gids": []}]}],
            "dev_infiniband": ["uverbs0"], "gdr_modules_loaded": ["nvidia_peermem"]}
        facts[host] = f
    found = findings.evaluate(doc, facts)
    assert any(f.check == "probe.nccl.socket_with_rdma" for f in found)
    out = io.StringIO()
    report.render_text(doc, found, out)
    text = out.getvalue()
    assert "mlx5_0" in text and "\\x1b]52" in text  # said, escaped
    assert all(c.isprintable() for line in text.split("\n") for c in line), repr(text[:2000])


def _probe_socket_doc(ifname, device):
    import json

    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from conftest import node_facts

    doc = json.load(open(os.path.join(ROOT, "fixtures", "probe", "h200x2-two-groups-socket.json")))
    doc["jobs"][0]["nccl"]["connections"] = []  # two machines (as test_probe_units judges it)
    doc["jobs"][0]["nccl"]["socket_ifs"] = [{"index": 0, "name": ifname, "addr": "192.0.2.2<0>"}]
    doc["jobs"][0]["transport"] = "NET/Socket over %s" % ifname  # (probe/run.py: nccl_log.describe of the above)
    facts = {}
    for host in ("h200x2-g0", "h200x2-g1"):
        f = node_facts("h200x2-ubuntu2404-torch211")
        f["rdma"] = {"status": "ok", "devices": [{"name": device, "ports": [{
            "port": 1, "state": "ACTIVE", "link_layer": "InfiniBand", "rate_gbps": 200, "gids": []}]}],
            "dev_infiniband": ["uverbs0"], "gdr_modules_loaded": ["nvidia_peermem"]}
        facts[host] = f
    return doc, facts


@pytest.mark.parametrize("ifname,device", [("eth0;touch${IFS}MARKER;#", "mlx5_0$(touch MARKER)x"),
                                           ("e`touch MARKER`", "mlx5_0;touch MARKER;#")])
def test_probes_findings_show_a_nodes_names_as_shell_words(tmp_path, ifname, device):
    # 64.: probe.nccl.socket_with_rdma named the RDMA devices of the nodes' facts and the interfaces NCCL said it used
    # bare in its message and observed (its fix lines were quoted): each line of the text report pasted alone ran
    # the node's command. Now check's rule (27.): a hostile value is one shell word there.
    import io

    from gpudoctor.probe import findings, report

    doc, facts = _probe_socket_doc(ifname, device)
    found = findings.evaluate(doc, facts)
    out = io.StringIO()
    report.render_text(doc, found, out)
    lines = [line.strip() for line in out.getvalue().splitlines() if "MARKER" in line]
    assert any("probe.nccl.socket_with_rdma" in line for line in lines), out.getvalue()
    assert any(line.startswith("all nodes") for line in lines), out.getvalue()
    lines = [line.split("fix:", 1)[-1] for line in lines]
    import re

    # and each clause (31.'s standard: what follows ': ', '; ', ', ' or ' (' pasted alone)
    lines += [line[m.end():] for line in list(lines) for m in re.finditer(r": |; |, | \(", line)]
    assert _pasted(lines, tmp_path) == []


_CRASH = r"""
import sys
import gpudoctor.launch as L
def broken(*a, **k):  # stands for any bug in a stage, as tests/test_hostile.py's CRASH
    raise RuntimeError("bad line: export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY")
L.build_plan = broken
from gpudoctor.cli import main
sys.exit(main())
"""


def test_a_crash_file_keeps_no_secret_of_the_command_line_or_the_message(tmp_path):
    # 65.: gpudoctor's own failure saves argv (as Python's repr) and the traceback to a file the stderr line asks the
    # user to attach to a bug report: a token in --launch, a --db-password value and a secret the exception quoted
    # from the input were all in it (and the message on stderr).
    state = tmp_path / "state"
    env = dict(os.environ, XDG_STATE_HOME=str(state), PYTHONPATH=ROOT)
    rc, out, err = _run([sys.executable, "-P", "-c", _CRASH, "plan", "--launch",
                         "HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456 torchrun --nnodes 1 x.py --db-password "
                         "hunter2xx"], tmp_path, env=env)
    assert rc == 3, err
    saved = list((state / "gpudoctor").iterdir())
    assert len(saved) == 1
    text = saved[0].read_text() + err
    assert "Traceback" in text and "plan.py" in text and "--db-password" in text  # still a report of the bug
    for secret in ("hf_AbCdEf", "hunter2xx", "wJalrXUtnFEMI", "EXAMPLEKEY"):
        assert secret not in text, secret


_SECRET_PATHS = """#!/bin/bash
source ./env.sh
A=$(dirname "$DB_PASSWORD")
B=$(basename "$DB_PASSWORD" .txt)
D=$(realpath -m "$API_KEY/..")
F=$(basename $(dirname $API_KEY))
cd "$SECRET_DIR/.."
H=$(pwd)
G=$(dirname "$DATA_DIR")
torchrun --nnodes 2 --nproc-per-node 8 --rdzv-endpoint h1:29500 train.py --a "$A" --b "$B" --dd "$D" --f "$F" \\
    --h "$H" --g "$G"
"""


def test_plan_prints_no_part_of_a_secret_through_dirname_basename_realpath_or_cd(tmp_path):
    # 66.: script23 reads $(dirname W), $(basename W), $(realpath W), $(cd W && pwd) and `cd W` as bash computes them;
    # of a secret-looking value each printed a part of it, which _redact (whole values only) left: the password's
    # folder and file name, the key's parent folder (36.'s rule for ${X:offset}, not applied to these readers).
    (tmp_path / "Hh5SecretDirPart" / "inner").mkdir(parents=True)
    (tmp_path / "env.sh").write_text("DB_PASSWORD=Zx9SuperSecretValue/Qq8tail.txt\nAPI_KEY=/opt/Kq7zzSecretPart/x\n"
                                     "SECRET_DIR=%s/Hh5SecretDirPart/inner\nDATA_DIR=/data/plainset/train\n" % tmp_path)
    (tmp_path / "run.sh").write_text(_SECRET_PATHS)
    said = ""
    for extra in ([], ["--json"]):
        rc, out, err = _gd(["plan", "run.sh"] + extra, tmp_path)
        assert rc in (0, 1), err[-2000:]
        said += out + err
    for part in ("Zx9SuperSecretValue", "Qq8tail", "Kq7zzSecretPart", "Hh5SecretDirPart", str(tmp_path) + " "):
        assert part not in said, part
    assert "/data/plainset" in said  # a plain value's dirname is still computed
    assert "a part of a secret-looking value (not shown)" in said


_SECRET_WORDS = """#!/bin/bash
source ./env.sh
A=($DB_PASSWORD)
for w in $DB_PASSWORD; do L=$w; done
set -- $DB_PASSWORD
torchrun --nnodes 2 --nproc-per-node 8 --rdzv-endpoint h1:29500 train.py --a "${A[1]}" --l "$L" --p "$2" \\
    --q $DB_PASSWORD --r $PLAIN
"""


def test_plan_prints_no_word_of_a_secret_that_bash_splits(tmp_path):
    # 67.: an unquoted secret-looking value holding a blank is split into words, each a part of it, which _redact
    # (whole values only) left: A=($DB_PASSWORD); ${A[1]}, `for w in $X`, `set -- $X; $2`, and the JSON plan's argv
    # of `--q $DB_PASSWORD` (two fields).
    (tmp_path / "env.sh").write_text('DB_PASSWORD="Pq1first Rr2second"\nPLAIN="one two"\n')
    (tmp_path / "run.sh").write_text(_SECRET_WORDS)
    said = ""
    for extra in ([], ["--json"]):
        rc, out, err = _gd(["plan"] + extra + ["run.sh"], tmp_path)
        said += out + err
    assert "Pq1first" not in said and "Rr2second" not in said
    assert "--r one two" in said  # a plain value's words as bash splits them


@pytest.mark.parametrize("payload", [" x; touch M; #", " x && touch M", " x | touch M", " x || touch M; #"])
def test_explain_prose_writes_a_logs_separator_with_a_blank_inert(tmp_path, payload):
    # 68.: 58. writes a prose string safe where a separator is glued to a word; a log value whose separator is
    # followed by a blank (a traceback frame's folder 'site-packagesaaa x; touch M; #') read as the prose's own '; ',
    # so the note 'Raised by transformers's own `raise` at FOLDER/...' kept it bare and a clause of the line (or a
    # line a wrap began inside it) ran touch. The scan's own text says which '; ' is the log's (origin.windows).
    import io

    from test_redteam_2026_11_28b import _TB, _prose_lines

    from gpudoctor.explain import explain_text, render

    lines = []
    for n in range(0, 64, 8):
        res = explain_text(_TB % ("a" * n + payload))
        for width in (40, 60, 80, 100):
            buf = io.StringIO()
            render.render_text(res, buf, width=width)
            lines += [l for l in _prose_lines(buf.getvalue()) if "touch" in l]
    assert lines  # the prose quotes the folder
    assert _pasted(sorted(set(lines)), tmp_path) == []


def test_explain_prose_keeps_its_own_separators():
    # 68.: the prose's own '; ' (not in the log) reads as before
    import io

    from gpudoctor.explain import explain_text, render

    res = explain_text("RuntimeError: CUDA error: out of memory\n")
    buf = io.StringIO()
    render.render_text(res, buf)
    assert "\\x3b" not in buf.getvalue() and "; " in buf.getvalue()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="watch's root rule: needs root")
def test_watch_reads_no_public_file_inside_another_users_private_folder(tmp_path):
    # 69.: as root, watch's sampler reads the file a job's NCCL_CONF_FILE names only where anyone may read it; it
    # judged the file's own mode only, so a 0644 file inside another user's 0700 folder (which no one else can
    # reach) was read for the job's user and its NCCL_* values shown. Every folder above it must let anyone through.
    from gpudoctor.collector import Context
    from gpudoctor.collector.watch import read_nccl_conf

    private = tmp_path / "bob"
    private.mkdir()
    (private / "nccl.conf").write_text("NCCL_SOCKET_IFNAME=bobsecret0\n")
    os.chmod(str(private / "nccl.conf"), 0o644)
    os.chown(str(private), 65534, 65534)
    os.chmod(str(private), 0o700)
    public = tmp_path / "pub"
    public.mkdir()
    (public / "nccl.conf").write_text("NCCL_SOCKET_IFNAME=pub0\n")
    os.chmod(str(public), 0o755)
    os.chmod(str(public / "nccl.conf"), 0o644)
    os.chmod(str(tmp_path), 0o755)
    link = tmp_path / "link"  # the job's own link to it (the job's user names any path)
    os.symlink(str(private / "nccl.conf"), str(link))
    for name in ("bob/nccl.conf", "link"):
        got = read_nccl_conf(Context(root=str(tmp_path), live=False), [{"env": {"NCCL_CONF_FILE": "/" + name}}])[0]
        assert got["values"] == {} and got["readable"] is False, (name, got)
    got = read_nccl_conf(Context(root=str(tmp_path), live=False), [{"env": {"NCCL_CONF_FILE": "/pub/nccl.conf"}}])[0]
    assert got["values"] == {"NCCL_SOCKET_IFNAME": "pub0"}


def test_plan_prints_no_arithmetic_of_a_secret(tmp_path):
    # 70.: $(( )) of a secret-looking value printed a part of it: $((API_KEY / 1000)) the key's first digits,
    # $((API_KEY % 100000)) its last ones (36.'s rule covered ${X:offset} only).
    (tmp_path / "env.sh").write_text("API_KEY=987654321\nSTEPS=1000\n")
    (tmp_path / "run.sh").write_text(
        "source ./env.sh\nX=$((API_KEY / 1000))\nY=$((API_KEY % 100000))\nW=$(( ${API_KEY} + 1 ))\n"
        "torchrun --nnodes 2 --nproc-per-node 8 --rdzv-endpoint h1:29500 t.py --x $X --y $Y --w $W "
        "--s $((STEPS * 2))\n")
    said = ""
    for extra in ([], ["--json"]):
        rc, out, err = _gd(["plan"] + extra + ["run.sh"], tmp_path)
        said += out + err
    for part in ("987654", "54321", "987654322"):
        assert part not in said, part
    assert "--s 2000" in said  # plain arithmetic still computed


@pytest.mark.parametrize("name", ["a; touch MARKER; #.log", "b$(touch MARKER).log", "c`touch MARKER`.log"])
def test_explain_names_a_folders_hostile_file_as_one_shell_word(tmp_path, name):
    # 71.: explain of a folder of per-rank logs names the first failing file ('first: rank 0 (FILE line 1)') and
    # puts it before each quoted line ('FILE line 1: ...'), as the folder has it: a job's user names those files, and
    # 'logs/a; touch MARKER; #.log' ran touch from the line (or its clause after ' (') when pasted.
    import re

    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / name).write_text("rank0: RuntimeError: CUDA error: out of memory\n")
    (logs / "b.log").write_text("rank1: step 1\n")
    rc, out, err = _gd(["explain", "logs"], tmp_path)
    assert rc in (0, 1), err[-2000:]
    lines = [l.strip() for l in out.splitlines() if "MARKER" in l]
    assert lines, out
    lines += [l[m.end():] for l in list(lines) for m in re.finditer(r": |; |, | \(", l)]
    assert _pasted(lines, tmp_path) == []

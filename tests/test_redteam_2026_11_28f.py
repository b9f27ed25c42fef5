"""Red team 2026-11-28f (docs/security.md 84.+): hostile inputs against gpudoctor as a user or a node hands them in.
Each test failed before its fix."""

import copy
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

# what a terminal acts on: ESC (OSC 52 writes the clipboard), BEL, C1's CSI, a right-to-left override
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
OSC52 = "\x1b]52;c;dG91Y2ggTQ==\x07\u202e\x9b31m"


def _run(argv, cwd, timeout=120, env=None, stdin=None):
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.PIPE,
                         cwd=str(cwd), env=env)
    try:
        out, err = p.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        pytest.fail("%s still ran after %d s" % (" ".join(argv), timeout))
    return p.returncode, out.decode("utf-8", "surrogateescape"), err.decode("utf-8", "surrogateescape")


def _gd(args, cwd, timeout=120, env=None, stdin=None):
    env = dict(env or os.environ, PYTHONPATH=ROOT)
    return _run([sys.executable, "-P", "-m", "gpudoctor"] + list(args), cwd, timeout=timeout, env=env, stdin=stdin)


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


# 84.: a hostile node's values reached the terminal raw (exports, watch's Prometheus gauges) or bare (watch's sample
# table: a process's pid and a GPU's index, which a real node sends as integers)

WATCH = os.path.join(ROOT, "fixtures", "recorded", "h200x2-2026-11-28c", "watch-save-vm.json")
PIDS = ["x;touch M1;#", "$(touch M2)", "`touch M3`", "x: touch M4; #", "x, touch M5; #", "x (touch M6; #"]


def _hostile_watch(tmp_path, value):
    d = json.load(open(WATCH))
    w = d["watch"]
    w["processes"]["list"][0]["pid"] = value
    w["processes"]["list"][1]["pid"] = value + "0"
    w["gpu"]["gpus"][1]["index"] = value
    w["processes"]["list"][1]["gpus"] = [0, 1]
    for g in w["gpu"]["gpus"]:
        for s in g["samples"]:
            s["util_pct"], s["power_w"] = 90, 600  # both GPUs busy: a non-integer index is listed too
    p = tmp_path / "w.json"
    p.write_text(json.dumps(d))
    return str(p)


@pytest.mark.parametrize("value", PIDS)
def test_watch_table_shows_a_nodes_pid_and_gpu_index_as_shell_words(value, tmp_path):
    rc, out, err = _gd(["watch", "--facts", _hostile_watch(tmp_path, value), "-v"], tmp_path)
    assert rc in (0, 1), err
    lines = [l for l in out.splitlines() if "touch" in l]
    assert any(l.strip().startswith("pid") for l in lines) and any(l.strip().startswith("GPU") for l in lines), out
    assert _pasted_lines(lines, tmp_path) == [], "\n".join(lines)


def test_watch_table_keeps_plain_pids_and_indexes(tmp_path):
    rc, out, err = _gd(["watch", "--facts", WATCH, "-v"], tmp_path)
    assert rc in (0, 1), err
    assert "    pid   946 python GPU 0 parent 906 " in out and "    GPU 0   util " in out


def test_watch_prometheus_labels_hold_no_raw_terminal_escape(tmp_path):
    rc, out, err = _gd(["watch", "--facts", _hostile_watch(tmp_path, "x" + OSC52), "--format", "prometheus"],
                       tmp_path)
    assert rc in (0, 1), err
    assert not RAW.search(out), [l for l in out.splitlines() if RAW.search(l)]
    row = [l for l in out.splitlines() if l.startswith("gpudoctor_watch_gpu_utilization_percent{") and "gpu=\"$'x" in l]
    # the value as one $'...' word, its backslashes escaped as the text format asks
    assert row == ['gpudoctor_watch_gpu_utilization_percent{host="vm",gpu="$\'x\\\\x1b]52;c;dG91Y2ggTQ==\\\\x07'
                   '\\\\xe2\\\\x80\\\\xae\\\\xc2\\\\x9b31m\'"} 90.0'], row


def test_prometheus_label_keeps_plain_values_and_the_formats_escapes():
    from gpudoctor.report.prometheus import _series

    assert _series("m", [("host", "gpu01"), ("gpu", 0)], 1) == 'm{host="gpu01",gpu="0"} 1'
    assert _series("m", [("x", 'a"b\\c')], 1) == 'm{x="a\\"b\\\\c"} 1'


def _hostile_facts(tmp_path):
    """h100's facts with an older cuda-compat first on LD_LIBRARY_PATH (driver.cuda's error, whose cleaned
    LD_LIBRARY_PATH goes to exports) and a later entry ending in OSC 52 and a right-to-left override (any text, from
    a hostile node)."""
    d = json.load(open(os.path.join(ROOT, "fixtures", "nodes", "h100-ubuntu2404-torch211.json")))
    d["cuda"]["compat"][3]["version"] = "550.54.15"  # older than the kernel module's 580.159.04: error 803
    d["cuda"]["ld_library_path"] = "/usr/local/nvidia/lib64:/opt/lib" + OSC52
    p = tmp_path / "h.json"
    p.write_text(json.dumps(d))
    return str(p)


def test_exports_never_print_a_nodes_control_characters_raw(tmp_path):
    rc, out, err = _gd(["exports", "--facts", _hostile_facts(tmp_path)], tmp_path)
    assert rc == 0, err
    (line,) = [l for l in out.splitlines() if l.startswith("export LD_LIBRARY_PATH=")]
    assert not RAW.search(out), line
    assert line.startswith("export LD_LIBRARY_PATH=$'") and "\\x1b]52;c;dG91Y2ggTQ==\\x07" in line
    # eval'd by bash, the snippet still sets the node's value, byte for byte
    got = subprocess.run(["bash", "--norc", "--noprofile", "-c", out + '\nprintf %s "$LD_LIBRARY_PATH"'],
                         capture_output=True, env={"PATH": "/usr/bin:/bin"}, timeout=30).stdout.decode("utf-8")
    assert got == "/opt/lib" + OSC52, repr(got)


def test_exports_plain_values_read_as_before():
    from gpudoctor.report.exports import render

    out = render([("NCCL_SOCKET_IFNAME", "=eth0", "why"), ("X", "a b", "w")], {"LD_LIBRARY_PATH": ("/a:/b", "c")})
    assert "export NCCL_SOCKET_IFNAME==eth0\n" in out and "export X='a b'\n" in out
    assert "export LD_LIBRARY_PATH=/a:/b\n" in out


# 85.: redteam25's leftovers (a short credential listed beside its name, a one-word `token: X` past a line's start)
# were quoted in clear; a name after '$' is not read as a listing, and PWD's path is kept

LEAKS = {
    # (a line as a log prints it, the secret part that must not come back)
    "short_pair": ("DB_PASSWORD hunter2", "hunter2"),
    "short_pair_table": ("MYSQL_ROOT_PASSWORD   s3cr3tpw1   (from .env)", "s3cr3tpw1"),
    "token_past_start": ("huggingface_hub.errors: login with token: 9f8e7d6c5b4a39281706f5e4d3c2b1a0 failed",
                         "9f8e7d6c5b4a39281706f5e4d3c2b1a0"),
    "odbc_pwd": ("pyodbc.Error: connect failed: Driver={ODBC 18};Server=db;UID=sa;PWD=MyPassw0rd;", "MyPassw0rd"),
    # a table printed in color: an SGR code between the name and the value, and after it
    "colored_pair": ("AWS_SECRET_ACCESS_KEY \x1b[32mwJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY\x1b[0m",
                     "wJalrXUtnFEMIK7MDENG"),
    "colored_short": ("DB_PASSWORD \x1b[1mhunter2x\x1b[0m set", "hunter2x"),
    # an SGR code inside the other readings: a Bearer token, a one-word token inside a line
    "colored_bearer": ("httpx: Authorization: Bearer \x1b[2mabcdefghij0123456789\x1b[0m", "abcdefghij0123456789"),
    "colored_token": ("login with token: \x1b[1m9f8e7d6c5b4a39281706f5e4d3c2b1a0\x1b[0m failed",
                      "9f8e7d6c5b4a39281706f5e4d3c2b1a0"),
}
STAYS = ["two options, \x1b[1mdo those steps only if you trust the source\x1b[0m of the token",
         "HF_TOKEN is not set", "HF_TOKEN \x1b[1mis not set", "TOKEN_LIMIT \x1b[32m4096", "TOKEN_LIMIT 4096", "API_KEY v2", "PYTHONPATH=$PWD python3 train.py",
         "PWD=/home/alice/run", "PWD: /mnt/nfs/users/alice/modules-check-MPI", "request failed (token: %s)",
         "parse error at token: 12345678901234567890", "a token: huggingface-cli login", "DB_PASSWORD required"]


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_explain_redacts_short_pairs_and_random_one_word_tokens(name):
    from gpudoctor.explain.redact import redact

    line, secret = LEAKS[name]
    out = redact(line)
    assert secret not in out and "REDACTED" in out, out


@pytest.mark.parametrize("line", STAYS)
def test_explain_keeps_prose_paths_and_expansions(line):
    from gpudoctor.explain.redact import redact

    assert redact(line) == line


def test_explain_cli_quotes_no_short_pair(tmp_path):
    log = tmp_path / "x.log"
    log.write_text("+ printenv | grep PASSWORD\nDB_PASSWORD hunter2\nTraceback (most recent call last):\n"
                   "  File \"train.py\", line 3, in <module>\n    connect()\nOperationalError: (1045, \"Access denied "
                   "for user 'app'@'10.0.0.5' (using password: YES)\") with token: 9f8e7d6c5b4a39281706f5e4d3c2b1a0\n")
    for fmt in ([], ["--json"]):
        rc, out, err = _gd(["explain", str(log)] + fmt, tmp_path)
        assert rc in (0, 1), err
        assert "hunter2" not in out + err and "9f8e7d6c5b4a39281706f5e4d3c2b1a0" not in out + err


def test_wrapper_output_cut_reads_the_short_pair_too():
    from gpudoctor.collector.python_env import _BARE_PAIR

    assert _BARE_PAIR.search("DB_PASSWORD hunter2") and not _BARE_PAIR.search("PYTHONPATH=$PWD python3")
    from gpudoctor.collector.python_env import _no_values

    assert _no_values("DB_PASSWORD \x1b[1mhunter2x\x1b[0m set") == "DB_PASSWORD \x1b[1m... set"


def test_one_word_token_is_judged_from_its_line_start_only_in_time():
    """The line-start test read the whole line before each name (2 s for 64 KiB of 'x token: abc '); a count of
    the work, not a clock: the search is given 48 characters before the name at most."""
    import gpudoctor.explain.redact as r

    calls = []
    real = r._LINE_START

    class Spy(object):
        def search(self, s, pos, end):
            calls.append(end - pos)
            return real.search(s, pos, end)

    r._LINE_START = Spy()
    try:
        r.redact("x token: abc " * 200)
    finally:
        r._LINE_START = real
    assert calls and max(calls) <= 48, max(calls)


# 86.: a check's description showed a node's hostile value as sh()'s '...' (or between the check's own quotes), and a
# prose apostrophe before it ("the driver's own libcuda.so.'V'", "torch's 'sm_75...'") paired with its opening quote,
# so the value stood bare when the line (or a clause of it) was pasted

GLUED = ["x;touch${IFS}M1;#", "$(touch${IFS}M2)", "`touch${IFS}M3`"]


def _every_string_ends_with(value):
    skip = ("schema", "status", "node", "collected_at", "collector", "version")

    def walk(o):
        if isinstance(o, dict):
            return dict((k, v if k in skip else walk(v)) for k, v in o.items())
        if isinstance(o, list):
            return [walk(v) for v in o]
        return o + value if isinstance(o, str) and o else o
    return walk(json.load(open(os.path.join(ROOT, "fixtures", "nodes", "h100-ubuntu2404-torch211.json"))))


@pytest.mark.parametrize("value", GLUED)
def test_check_descriptions_stay_inert_after_a_prose_apostrophe(value, tmp_path):
    p = tmp_path / "n.json"
    p.write_text(json.dumps(_every_string_ends_with(value)))
    for fmt in ("text", "junit"):
        rc, out, err = _gd(["check", "--facts", str(p), "--format", fmt, "-v"], tmp_path)
        assert rc in (0, 1), err
        lines = [l for l in out.splitlines() if "touch" in l]
        assert any("driver's own libcuda.so." in l for l in lines), out[-3000:]
        assert _pasted_lines(lines, tmp_path) == [], "\n".join(l for l in lines if "'s " in l)


def test_shown_inert_takes_a_checks_own_quotes_in_and_leaves_plain_values():
    from gpudoctor.fixline import Shown, inert_word

    shown = Shown(["580.1x;touch${IFS}M;#", "sm_75x;y", "eth0", "NVIDIA H100 80GB HBM3"], inert=True)
    assert shown("the driver's own libcuda.so.580.1x;touch${IFS}M;#: older") == (
        "the driver's own libcuda.so.%s: older" % inert_word("580.1x;touch${IFS}M;#"))
    assert shown("covered by torch's 'sm_75x;y'..'sm_75x;y'") == "covered by torch's %s..%s" % (
        inert_word("sm_75x;y"), inert_word("sm_75x;y"))
    assert shown("eth0 on NVIDIA H100 80GB HBM3") == "eth0 on NVIDIA H100 80GB HBM3"
    # the default (plan's rows, which show a launch line's words) is as before
    assert Shown(["a;b"])("x 'a;b' a;b") == "x 'a;b' 'a;b'"


# 87.: the collector believed a live /dev/shm/.statvfs (a recorded tree's statvfs numbers) that any user can write:
# "1 0" made shm.size fail (root's slurm-health drains the node), a FIFO there hung the collector to its timeout

def _in_own_shm(tmp_path, plant):
    """`gpudoctor check --local --select shm.size --json` in a user and mount namespace whose /dev/shm is a fresh
    2 GiB tmpfs holding what ``plant`` (a shell line) put there (unshare -rm: nothing mounted outside)."""
    if not shutil.which("unshare") or subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode:
        pytest.skip("no user and mount namespaces here")
    shell = ("mount -t tmpfs -o size=2g tmpfs /dev/shm && chmod 1777 /dev/shm && %s && cd %s && "
             "PYTHONPATH=%s timeout 60 %s -P -m gpudoctor check --local --select shm.size --json" % (
                 plant, str(tmp_path), ROOT, sys.executable))
    p = subprocess.run(["unshare", "-rm", "sh", "-c", shell], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


@pytest.mark.parametrize("plant", ["echo '1 0' > /dev/shm/.statvfs",
                                   "echo '1099511627776 1099511627776' > /dev/shm/.statvfs",
                                   "mkfifo /dev/shm/.statvfs"])
def test_a_planted_statvfs_file_in_dev_shm_is_never_believed(tmp_path, plant):
    rc, out, err = _in_own_shm(tmp_path, plant)
    assert rc == 0, (out[-1500:], err[-1500:])  # the real 2 GiB: shm.size passes; nothing hangs
    doc = json.loads(out)
    (res,) = [r for r in doc["checks"] if r["id"] == "shm.size"]
    assert res["status"] == "pass" and "2.0 GiB" in json.dumps(res), res


def test_a_recorded_tree_still_carries_its_statvfs_numbers(tmp_path):
    from gpudoctor.collector.base import Context
    from gpudoctor.collector.system import shm

    (tmp_path / "dev" / "shm").mkdir(parents=True)
    (tmp_path / "dev" / "shm" / ".statvfs").write_text("67108864 67108864\n")
    got = shm(Context(root=str(tmp_path), env={}, python=None))
    assert got["total_bytes"] == 67108864
    assert Context(python=None).recorded("/dev/shm/.statvfs") is None

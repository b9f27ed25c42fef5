"""Hostile and broken input (issue 12): every case found by hand is one line on stderr and
exit 2, never a traceback; gpudoctor's own failures are exit 3 with the traceback saved.

The cases are the ones the issue lists, each run through the real CLI (a subprocess, as a
user or a prolog runs it) or through the parser's public function where the CLI path
needs live nodes.
"""

import json
import os
import shutil
import stat
import subprocess
import sys
import xml.dom.minidom

import pytest

from conftest import FIXTURES, node_facts

PY = sys.executable


def cli(*args, cwd=None, env=None, input=None):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run([PY, "-m", "gpudoctor"] + list(args), capture_output=True, text=True, cwd=cwd, env=e,
                       input=input, timeout=120)
    return p.returncode, p.stdout, p.stderr


def one_line_exit_2(rc, err):
    assert rc == 2, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert len(err) < 600, err


# -- hostfiles --------------------------------------------------------------------------

@pytest.mark.parametrize("content,needle", [
    ("gpu1 slots=\u00b2\n", "slots="),           # str.isdigit() accepts '²', int() refuses it
    ("gpu1:\u00b2\n", "count after ':'"),
    ("gpu1 slots=" + "9" * 4301 + "\n", "4301 characters"),  # past Python's int-from-string limit
    ("gpu1 slots=70000\n", "0 to 65536"),
    ("gpu1:-3\n", "count after ':'"),
])
def test_hostfile_bad_counts_are_one_line(tmp_path, content, needle):
    hf = tmp_path / "hostfile"
    hf.write_text(content, encoding="utf-8")
    rc, _, err = cli("check", "--hosts", str(hf), cwd=str(tmp_path))
    one_line_exit_2(rc, err)
    assert needle in err and "hostfile:1" in err


def test_hostfile_error_never_echoes_the_line(tmp_path):
    """A file in /etc/shadow format named as a hostfile must not print its hash."""
    secret = "$6$rounds=5000$saltsalt$Zq8N1v3YkQ4e5u6i7o8p9a0s1d2f3g4h5j6k7l8z9x0c1v2b3n4m5"
    hf = tmp_path / "shadow"
    hf.write_text("root:%s:19000:0:99999:7:::\n" % secret)
    rc, _, err = cli("check", "--hosts", str(hf))
    one_line_exit_2(rc, err)
    assert "saltsalt" not in err and "$6$" not in err and "'root'" in err
    hf.write_text("gpu1 slots=8 password=%s\n" % secret)
    rc, _, err = cli("check", "--hosts", str(hf))
    one_line_exit_2(rc, err)
    assert "saltsalt" not in err


# -- config -----------------------------------------------------------------------------

BAD_CONFIGS = [
    ("shm_min = 1" + "0" * 400 + "\n", "shm_min"),
    ("shm_min = \"1" + "0" * 400 + "GiB\"\n", "shm_min"),
    ("select = [1, 2]\n", "select"),
    ("ignore = [{a = 1}]\n", "ignore"),
    ("gpudoctor = 5\n", "must be a table"),
    ("a = " + "[" * 100000 + "]" * 100000 + "\n", "nested too deeply"),
    ("timeout = 1" + "0" * 5000 + "\n", "too large"),
    ("timeout = inf\n", "timeout"),
    ("timeout = nan\n", "timeout"),
    ("timeout = -1\n", "timeout"),
    ("expected_gpus = 8.7\n", "whole number"),   # was silently 8
    ("expected_gpus = true\n", "whole number"),  # was silently 1
    ("expected_gpus = 100000\n", "expected_gpus"),
    ("shm_min = -5\n", "out of range"),
    ("shm_min = true\n", "not a size"),
    ("severity = {\"shm.size\" = 5}\n", "severity"),
    ("severity = 5\n", "severity"),
    ("python = \"\"\n", "python"),
    ("bf16 = \"yes\"\n", "true or false"),
]


@pytest.mark.parametrize("content,needle", BAD_CONFIGS, ids=[c[1] + str(i) for i, c in enumerate(BAD_CONFIGS)])
def test_bad_config_is_one_line(tmp_path, content, needle):
    cfg = tmp_path / "c.toml"
    cfg.write_text(content)
    rc, _, err = cli("check", "--config", str(cfg), "--select", "shm")
    one_line_exit_2(rc, err)
    assert needle in err


def test_pyproject_tool_gpudoctor_not_a_table(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool]\ngpudoctor = \"x\"\n")
    rc, _, err = cli("check", "--select", "shm", cwd=str(tmp_path))
    one_line_exit_2(rc, err)
    assert "[tool.gpudoctor] must be a table" in err
    rc, _, err = cli("check", "--select", "shm", "--config", "pyproject.toml", cwd=str(tmp_path))
    one_line_exit_2(rc, err)
    (tmp_path / "pyproject.toml").write_text("tool = 5\n[x]\n# [tool.gpudoctor]\n")
    rc, _, err = cli("check", "--select", "shm", cwd=str(tmp_path))
    one_line_exit_2(rc, err)
    # a pyproject that names gpudoctor elsewhere (a dependency) is no config and no error
    (tmp_path / "pyproject.toml").write_text("[project]\nname = \"x\"\ndependencies = [\"gpudoctor\"]\n")
    rc, _, err = cli("check", "--select", "shm", cwd=str(tmp_path))
    assert rc in (0, 1) and "error" not in err, err


def test_config_values_in_range_still_work():
    from gpudoctor.config import Config, apply

    cfg = apply(Config(), {"shm_min": "8GiB", "expected_gpus": 8, "timeout": 2.5, "select": ["shm"],
                           "severity": {"shm.size": "warning"}, "bf16": True})
    assert (cfg.min_shm_bytes, cfg.expected_gpus, cfg.timeout, cfg.bf16) == (8 << 30, 8, 2.5, True)
    assert apply(Config(), {"timeout": 30}).timeout == 30.0 and apply(Config(), {"shm_min": 0}).min_shm_bytes == 0


@pytest.mark.parametrize("flag,value", [("--timeout", "-1"), ("--timeout", "nan"), ("--timeout", "inf"),
                                        ("--timeout", "1e999"), ("--timeout", "0"), ("--expected-gpus", "8.7"),
                                        ("--expected-gpus", "-1"), ("--expected-gpus", "9" * 5000)])
def test_bad_flag_values_are_one_line(flag, value):
    rc, _, err = cli("check", "--select", "shm", flag + "=" + value)
    one_line_exit_2(rc, err)
    assert flag in err


def test_timeout_flags_use_the_same_rule_with_nodes_and_in_slurm_health():
    for args in (["check", "--nodes", "gpu1", "--timeout", "nan"], ["facts", "--nodes", "gpu1", "--timeout", "inf"],
                 ["slurm-health", "--dry-run", "--timeout", "-1"]):
        rc, _, err = cli(*args)
        one_line_exit_2(rc, err)


# -- facts files ------------------------------------------------------------------------

def _facts(**over):
    doc = node_facts("devbox-debian12-nogpu")
    doc.update(over)
    return doc


BAD_FACTS = [
    (_facts(node=5), "not a string"),
    (_facts(node=["a", "b"]), "not a string"),
    (_facts(node=1.5), "not a string"),
    (_facts(node="gpu["), "not a host name"),
    (_facts(node="gpu\x01x"), "not a host name"),
    (_facts(node="gpu1\n<evil/>"), "not a host name"),
    ({"schema": "gpudoctor.facts/1"}, "no section"),
    ({"schema": "gpudoctor.node/1", "host": 5}, "not a string"),
    ({"schema": "gpudoctor.node/1", "host": "gpu1", "error": ["x"]}, "not text"),
]


@pytest.mark.parametrize("doc,needle", BAD_FACTS, ids=[str(i) for i in range(len(BAD_FACTS))])
def test_bad_facts_are_one_line(tmp_path, doc, needle):
    p = tmp_path / "n.json"
    p.write_text(json.dumps(doc))
    rc, _, err = cli("check", "--facts", str(p))
    one_line_exit_2(rc, err)
    assert needle in err


@pytest.mark.parametrize("text,needle", [
    ("[" * 100000 + "]" * 100000, "nested deeper"),
    ('{"schema": "gpudoctor.facts/1", "x": ' + "[" * 100000 + "]" * 100000 + "}", "nested deeper"),
    ('{"schema": "gpudoctor.facts/1", "x": ' + "[" * 40 + "]" * 40 + "}", "nested deeper"),
    ('{"schema": "gpudoctor.facts/1", "x": {"status": "ok", "v": NaN}}', "NaN"),
    ('{"schema": "gpudoctor.facts/1", "x": {"status": "ok", "v": ' + "9" * 5000 + "}}", "digits"),
    ('{"schema": "gpudoctor.facts/1", "x": {"status": "ok", "v": "\\ud800"}}', "surrogate"),
])
def test_malformed_facts_json_is_one_line(tmp_path, text, needle):
    p = tmp_path / "n.json"
    p.write_text(text)
    rc, _, err = cli("check", "--facts", str(p))
    one_line_exit_2(rc, err)
    assert needle in err


def test_facts_file_name_stands_in_only_when_it_is_a_host_name(tmp_path):
    doc = node_facts("devbox-debian12-nogpu")
    doc.pop("node", None)
    (tmp_path / "gpu[1.json").write_text(json.dumps(doc))
    rc, _, err = cli("check", "--facts", str(tmp_path))
    one_line_exit_2(rc, err)
    os.rename(str(tmp_path / "gpu[1.json"), str(tmp_path / "gpu1.json"))
    rc, out, err = cli("check", "--facts", str(tmp_path), "--format", "json")
    assert rc in (0, 1), err
    assert [n["host"] for n in json.loads(out)["nodes"]] == ["gpu1"]


def test_junit_stays_valid_xml_with_control_characters_in_node_values(tmp_path):
    """Node output can hold any character; XML 1.0 cannot carry most control characters."""
    a, b = node_facts("h100-ubuntu2404-torch211"), node_facts("h100-ubuntu2404-torch211")
    a["node"], b["node"] = "gpu1", "gpu2"
    b["env"]["values"]["CUDA_HOME"] = "/usr/local/cu\x01da\x1b]0;owned\x07\ufffe\x00"
    for d in (a, b):
        (tmp_path / (d["node"] + ".json")).write_text(json.dumps(d))
    out = tmp_path / "report.xml"
    rc, _, err = cli("check", "--facts", str(tmp_path), "--format", "junit", "-o", str(out))
    assert rc in (0, 1), err
    text = out.read_text()
    xml.dom.minidom.parseString(text.encode("utf-8"))  # raises on an invalid character
    assert "owned" in text and "\x01" not in text and "\x1b" not in text


# -- facts -o ---------------------------------------------------------------------------

def _nodes():
    from gpudoctor.runner import Node

    return [Node(host="gpu1", facts=_facts(node="gpu1")), Node(host="gpu2", error="refused", error_kind="refused")]


def test_save_into_a_file_is_an_input_error(tmp_path):
    from gpudoctor.errors import InputError
    from gpudoctor.gather import save

    target = tmp_path / "afile"
    target.write_text("keep me")
    with pytest.raises(InputError, match="not a folder"):
        save(_nodes(), str(target))
    assert target.read_text() == "keep me"


def test_save_where_not_permitted_is_an_input_error():
    from gpudoctor.errors import InputError
    from gpudoctor.gather import save

    for target in ("/proc/gpudoctor-test", "/sys/kernel/gpudoctor-test"):  # even root may not create these
        with pytest.raises(InputError, match="cannot write"):
            save(_nodes(), target)


def _in_mount_namespace(script, mount_opts):
    """Run a Python script with a fresh tmpfs at ./m in a private user+mount namespace
    (unshare -rm: no root needed, nothing mounted outside)."""
    if not shutil.which("unshare"):
        pytest.skip("no unshare(1)")
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("user namespaces not available here")
    shell = "mkdir -p m && mount -t tmpfs -o %s tmpfs m && %s -c %s" % (mount_opts, PY, _q(script))
    return subprocess.run(["unshare", "-rm", "sh", "-c", shell], capture_output=True, text=True, timeout=60)


def _q(s):
    import shlex

    return shlex.quote(s)


SAVE_SCRIPT = r"""
import os, sys
sys.path.insert(0, TESTS)
from conftest import node_facts
from gpudoctor.runner import Node
from gpudoctor.gather import save
from gpudoctor.errors import InputError
PREPARE
base = node_facts("h100-ubuntu2404-torch211")
nodes = [Node(host="gpu%d" % i, facts=dict(base, node="gpu%d" % i)) for i in (1, 2, 3)]
try:
    save(nodes, "m/out")
except InputError as exc:
    print("INPUT-ERROR", exc)
left = sorted(os.listdir("m/out")) if os.path.isdir("m/out") else []
import json
for n in left:
    if n.endswith(".json"):
        json.load(open(os.path.join("m/out", n)))  # a file that is there is whole
print("LEFT", left)
"""


def _save_script(prepare=""):
    return SAVE_SCRIPT.replace("TESTS", repr(os.path.dirname(os.path.abspath(__file__)))).replace("PREPARE", prepare)


def test_save_on_a_read_only_filesystem_is_an_input_error(tmp_path):
    p = _in_mount_namespace(_save_script(), "ro")
    assert "INPUT-ERROR" in p.stdout and "Read-only file system" in p.stdout, p.stdout + p.stderr


def test_save_on_a_full_disk_is_an_input_error_and_leaves_no_partial_file(tmp_path):
    fill = "open('m/fill', 'wb').write(b'x' * (96 << 10))"
    p = _in_mount_namespace(_save_script(fill), "size=128k")
    assert "INPUT-ERROR" in p.stdout and "No space left" in p.stdout, p.stdout + p.stderr
    left = eval(p.stdout.split("LEFT", 1)[1])
    assert not [n for n in left if n.endswith(".tmp")]  # the temp file of the write that failed is gone
    assert "Traceback" not in p.stderr  # the script read every file left back as JSON


def test_facts_o_file_on_a_device_is_refused_in_one_line():
    # a device is never written into (as root it was): the full disk itself is the tmpfs tests' case
    rc, _, err = cli("facts", "-o", "/dev/full")
    one_line_exit_2(rc, err)
    assert "character device, not a regular file" in err


def test_facts_o_file_is_atomic_on_a_full_disk():
    """The old file stays whole when the new one cannot be written (it was truncated)."""
    script = ("import os, subprocess, sys\n"
              "open('m/facts.json', 'w').write('{\"old\": true}')\n"
              "open('m/fill', 'wb').write(b'x' * (120 << 10))\n"
              "p = subprocess.run([sys.executable, '-m', 'gpudoctor', 'facts', '-o', 'm/facts.json'],"
              " capture_output=True, text=True)\n"
              "print('RC', p.returncode, p.stderr.strip())\n"
              "print('OLD', open('m/facts.json').read())\n")
    p = _in_mount_namespace(script, "size=128k")
    assert "RC 2" in p.stdout and 'OLD {"old": true}' in p.stdout, p.stdout + p.stderr


# -- ssh config and known_hosts -----------------------------------------------------------

@pytest.mark.parametrize("text,needle", [
    ("Host *\n  Port\n", "no argument"),               # readconf.c: 'no argument after keyword'
    ("Host *\n  Port ssh22\n", "1 to 65535"),          # a2port: not a number, not a service
    ("Host *\n  Port 0\n", "1 to 65535"),              # a2port returns 0; readconf: value <= 0 is bad
    ("Host *\n  Port 65536\n", "1 to 65535"),
    ("Host *\n  Port ssh\n", "service name"),          # OpenSSH resolves it; fabric's int() does not
    ("Host *\n  ConnectTimeout 1m\n", "whole number"),  # OpenSSH's convtime takes it; fabric's int() not
    ("Host other\n  Port=\n", "no argument"),          # any block, matching or not, as OpenSSH
    ("\x1f\n", "not a keyword"),                        # Python's split() calls \x1f whitespace; ssh does not
    ("Host *\n  Port 22\x1f\n", "1 to 65535"),
])
def test_ssh_config_lines_fabric_cannot_use_are_input_errors(tmp_path, text, needle):
    from gpudoctor.collector.ssh import ssh_config_problems
    from gpudoctor.errors import InputError
    from gpudoctor.transport.ssh import make_config

    p = tmp_path / "ssh_config"
    p.write_text(text)
    assert ssh_config_problems(text) and needle in ssh_config_problems(text)[0][1]
    with pytest.raises(InputError) as e:
        make_config(str(p))
    assert "%s:" % p in str(e.value) and needle in str(e.value)


def test_ssh_config_that_openssh_accepts_passes():
    from gpudoctor.collector.ssh import ssh_config_problems

    text = ("# comment\nHost gpu*\n  Port 2222\n  Port=22\n  User = bob\n  ConnectTimeout 10\n\n"
            "Match host x exec \"true\"\n  IdentityFile ~/.ssh/id_ed25519\n")
    assert ssh_config_problems(text) == []
    if shutil.which("ssh"):  # the real ssh agrees: it parses this config (-G prints the result)
        import tempfile

        with tempfile.NamedTemporaryFile("w", suffix=".conf") as f:
            f.write(text)
            f.flush()
            assert subprocess.run(["ssh", "-G", "-F", f.name, "gpu1"], capture_output=True).returncode == 0


def test_ssh_config_problems_agree_with_real_ssh(tmp_path):
    """Each line refused above (save fabric's stricter int keys) is refused by ssh -G too."""
    if not shutil.which("ssh"):
        pytest.skip("no ssh client")
    for text in ("Host *\n  Port\n", "Host *\n  Port ssh22\n", "Host *\n  Port 0\n", "Host *\n  Port 65536\n",
                 "\x1f\n", "Host *\n  Port 22\x1f\n", "Host *\n  Port 22 23\n"):
        p = tmp_path / "c"
        p.write_text(text)
        assert subprocess.run(["ssh", "-G", "-F", str(p), "gpu1"], capture_output=True).returncode != 0, text


def _ed25519(tmp_path, name="hk"):
    if not shutil.which("ssh-keygen"):
        pytest.skip("no ssh-keygen")
    import paramiko

    path = tmp_path / name
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)
    return paramiko.Ed25519Key.from_private_key_file(str(path))


def test_known_hosts_bad_lines_are_skipped_good_keys_kept(tmp_path):
    import paramiko

    from gpudoctor.transport.ssh import load_known_hosts

    key = _ed25519(tmp_path)
    kh = tmp_path / "known_hosts"
    kh.write_bytes(b"bad1 ssh-ed25519 AAAA!!!notbase64\n"
                   b"bad2 ssh-ed25519 \xff\xfe\xfd\n"
                   b"bad3 ssh-rsa " + key.get_base64().encode() + b"\n"  # blob says ed25519
                   b"gpu1 ssh-ed25519 " + key.get_base64().encode() + b" comment\n")
    with pytest.raises(Exception):  # what used to happen: paramiko loses every key
        paramiko.SSHClient().load_host_keys(str(kh))
    client = paramiko.SSHClient()
    bad = load_known_hosts(client, str(kh))
    assert [n for n, _ in bad] == [1, 2, 3]
    assert client.get_host_keys().lookup("gpu1")["ssh-ed25519"] == key


def test_accept_new_records_once_under_a_lock_across_processes(tmp_path):
    _ed25519(tmp_path)
    kh = tmp_path / "known_hosts"
    script = ("import paramiko, sys\nfrom gpudoctor.transport.ssh import record_host_key\n"
              "k = paramiko.Ed25519Key.from_private_key_file(%r)\n"
              "record_host_key(%r, '[10.0.0.5]:2222', k, False)\n" % (str(tmp_path / "hk"), str(kh)))
    procs = [subprocess.Popen([PY, "-c", script]) for _ in range(6)]
    assert all(p.wait(timeout=60) == 0 for p in procs)
    lines = kh.read_text().splitlines()
    assert len(lines) == 1 and lines[0].startswith("[10.0.0.5]:2222 ssh-ed25519 ")
    assert stat.S_IMODE(os.stat(str(kh)).st_mode) == 0o600


def test_accept_new_hashes_names_when_hashknownhosts_yes(tmp_path):
    from gpudoctor.transport.ssh import record_host_key

    key = _ed25519(tmp_path)
    kh = tmp_path / "known_hosts"
    assert record_host_key(str(kh), "gpu07", key, hashed=True) is True
    assert record_host_key(str(kh), "gpu07", key, hashed=True) is False  # the hashed line is recognised
    line = kh.read_text().strip()
    assert line.startswith("|1|") and "gpu07" not in line
    # OpenSSH finds the host in the hashed file (ssh-keygen -F hashes the name with each salt)
    found = subprocess.run(["ssh-keygen", "-F", "gpu07", "-f", str(kh)], capture_output=True, text=True)
    assert found.returncode == 0 and "found: line 1" in found.stdout
    assert subprocess.run(["ssh-keygen", "-F", "gpu08", "-f", str(kh)], capture_output=True).returncode != 0


# -- exports ------------------------------------------------------------------------------

def test_exports_survive_a_node_with_odd_interfaces_and_never_break_out_of_a_comment():
    from gpudoctor.report import exports

    good = node_facts("h100-ubuntu2404-torch211")
    odd = node_facts("h100-ubuntu2404-torch211")
    odd["network"]["interfaces"] = [{"state": "up", "ipv4": ["10.0.0.2"]}, "eth0", 5,
                                    {"name": "eth0\ntouch /tmp/owned", "state": "up", "ipv4": ["1.2.3.4"]},
                                    {"name": ["x"], "state": "up"}] + odd["network"]["interfaces"]
    odd["rdma"] = {"status": "ok", "devices": [{"name": 5}, {"name": "mlx5_0", "ports": [{"state": "ACTIVE",
                                                                                          "port": "1"}]}, None]}
    text = exports.render(exports.compute({"gpu1": good, "gpu2": odd, "gpu3": {"network": 5}}))
    for line in text.splitlines():
        assert line.startswith("# ") or line.startswith("export "), line
    assert "NCCL_SOCKET_IFNAME" in text
    bash = shutil.which("bash")
    if bash:  # eval'd by a real shell, it runs nothing but exports
        p = subprocess.run([bash, "-c", text + "\nenv | grep ^NCCL_"], capture_output=True, text=True)
        assert p.returncode == 0 and "NCCL_SOCKET_IFNAME" in p.stdout


# -- gpudoctor's own failures: exit 3 -----------------------------------------------------

CRASH = r"""
import sys
import gpudoctor.gather as g
def broken(*a, **k):
    raise RuntimeError("synthetic bug \x1b[31m" + "x" * 500)
g.from_facts = broken  # stands for any bug in a stage: the contract is what main() does with it
from gpudoctor.cli import main
sys.exit(main(["check", "--facts", "anything"]))
"""


def test_uncaught_exception_is_exit_3_one_line_and_a_saved_traceback(tmp_path):
    state = tmp_path / "state"
    p = subprocess.run([PY, "-c", CRASH], capture_output=True, text=True,
                       env=dict(os.environ, XDG_STATE_HOME=str(state)))
    assert p.returncode == 3, p.stderr
    err = p.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err and "\x1b" not in err
    assert "internal error in gpudoctor check" in err and "gpudoctor/commands/common.py" in err
    saved = list((state / "gpudoctor").iterdir())
    assert len(saved) == 1 and str(saved[0]) in err
    assert stat.S_IMODE(saved[0].stat().st_mode) == 0o600
    assert stat.S_IMODE((state / "gpudoctor").stat().st_mode) == 0o700
    assert "Traceback (most recent call last)" in saved[0].read_text() and "RuntimeError" in saved[0].read_text()


def test_crash_folder_planted_as_a_symlink_is_not_followed(tmp_path):
    state, elsewhere = tmp_path / "state", tmp_path / "elsewhere"
    state.mkdir()
    elsewhere.mkdir()
    os.symlink(str(elsewhere), str(state / "gpudoctor"))
    env = dict(os.environ, XDG_STATE_HOME=str(state), HOME=str(tmp_path / "home"), TMPDIR=str(tmp_path / "tmp"))
    os.mkdir(env["TMPDIR"])
    p = subprocess.run([PY, "-c", CRASH], capture_output=True, text=True, env=env)
    assert p.returncode == 3 and not list(elsewhere.iterdir())
    assert "traceback saved to %s" % (tmp_path / "home" / ".local" / "state" / "gpudoctor") in p.stderr


BOOM_CHECK = r"""
import sys
from gpudoctor.registry import check
@check("zz.boom", title="a check that crashes", needs=("host",))
def boom(facts, config):
    raise KeyError("name")
    yield
from gpudoctor.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("command", ["check", "exports"])
def test_a_crashed_check_is_exit_3_naming_it(tmp_path, command):
    facts = os.path.join(FIXTURES, "nodes", "h100-ubuntu2404-torch211.json")
    args = [command, "--facts", facts] + (["--select", "zz"] if command == "check" else [])
    p = subprocess.run([PY, "-c", BOOM_CHECK] + args, capture_output=True, text=True,
                       env=dict(os.environ, XDG_STATE_HOME=str(tmp_path)))
    assert p.returncode == 3, p.stderr
    line = [l for l in p.stderr.splitlines() if "internal error" in l]
    assert len(line) == 1 and "zz.boom" in line[0] and str(tmp_path) in line[0]
    assert "KeyError" in next((tmp_path / "gpudoctor").iterdir()).read_text()


def test_slurm_health_never_drains_for_a_crashed_check(tmp_path):
    """The crash path returns before scontrol is asked anything: no Slurm needed to show it."""
    p = subprocess.run([PY, "-c", BOOM_CHECK, "slurm-health", "--node", "gpu07", "--select", "zz", "--timeout", "60"],
                       capture_output=True, text=True, env=dict(os.environ, XDG_STATE_HOME=str(tmp_path)))
    assert p.returncode == 4, p.stdout + p.stderr  # slurm.py's EXIT_INTERNAL: the prolog runs the job and logs
    assert "node state not changed" in p.stderr and "drained" not in p.stdout

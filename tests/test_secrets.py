"""Environment values off the allow-list: compared by a keyed hash made per run, the key
sent to the nodes inside the script on stdin, never on a command line (ps shows those to
every user of a node), and never written anywhere."""

import hashlib

from gpudoctor.collector.system import env_hash
from gpudoctor.transport import Payload
from gpudoctor.transport.ssh import remote_command


def test_the_key_travels_in_the_script_not_on_the_command_line():
    p = Payload(python="python3", options={"env_key": "k" * 64, "resolve": ["n1"]})
    opts = p.options_for("n1")
    assert "env_key" not in opts and opts["resolve"] == ["n1"]
    assert "k" * 64 not in remote_command("python3", opts)
    assert "'env_key': '%s'" % ("k" * 64) in p.get_script()


def test_keyed_hash_is_stable_per_key_and_not_a_plain_digest():
    a, b = "a" * 64, "b" * 64
    assert env_hash("hunter2", a) == env_hash("hunter2", a) != env_hash("hunter2", b)
    assert env_hash("hunter2", a) != env_hash("hunter3", a)
    assert env_hash("hunter2", a).startswith("hmac:")
    assert hashlib.sha256(b"hunter2").hexdigest()[:16] not in env_hash("hunter2", a)
    # no key sent (a local run): a random key of this process, still never the plain digest
    assert env_hash("hunter2") == env_hash("hunter2") != env_hash("hunter2", a)


def test_the_builtin_hmac_is_the_standard_one():
    """env_hash's HMAC-SHA256 on the built-in _sha256 (no OpenSSL load on every node) is
    hmac.new(..., hashlib.sha256): keys shorter, equal to and longer than the 64-byte block."""
    import hmac
    import os

    from gpudoctor.collector.system import hmac_sha256_hex

    for n in (0, 1, 32, 63, 64, 65, 200):
        key, msg = os.urandom(n), os.urandom(n * 3 + 1)
        assert hmac_sha256_hex(key, msg) == hmac.new(key, msg, hashlib.sha256).hexdigest()


def _collect_facts(tmp_path, env):
    """A real `gpudoctor facts` run in a child with this environment and HOME."""
    import json
    import os
    import subprocess
    import sys
    out = tmp_path / "facts.json"
    full = dict(os.environ, HOME=str(tmp_path), **env)
    subprocess.run([sys.executable, "-m", "gpudoctor", "facts", "-o", str(out)], env=full,
                   check=False, capture_output=True, timeout=60)
    return out.read_text()


def test_no_section_copies_a_secret_looking_value_in_clear(tmp_path):
    # issue 23 item 5: the env section hashed NCCL_IB_PASSWORD but the nccl section copied
    # it; the same rule now holds for every section that copies environment-like values,
    # NCCL's config files included (~/.nccl.conf is read as NCCL's initEnv reads it)
    (tmp_path / ".nccl.conf").write_text("NCCL_NET_PLUGIN_TOKEN=conf-s3cr3t-value\nNCCL_DEBUG=INFO\n")
    text = _collect_facts(tmp_path, {"NCCL_IB_PASSWORD": "env-s3cr3t-value",
                                      "NCCL_SOCKET_IFNAME": "eth0"})
    assert "s3cr3t" not in text
    import json
    facts = json.loads(text)
    sec = facts["sections"]["nccl"] if "sections" in facts else facts["nccl"]
    assert sec["env"]["NCCL_IB_PASSWORD"].startswith("hmac:")
    assert sec["env"]["NCCL_SOCKET_IFNAME"] == "eth0"  # allow-listed values still shown
    assert sec["effective"]["NCCL_DEBUG"]["value"] == "INFO"
    assert sec["effective"]["NCCL_NET_PLUGIN_TOKEN"]["value"].startswith("hmac:")


def test_nccl_log_env_lines_keep_secrets_hashed():
    from gpudoctor.probe.nccl_log import parse
    log = ["n1:1:1 [0] NCCL INFO NCCL_IB_PASSWORD set by environment to hunter2-secret",
           "n1:1:1 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0"]
    env = parse(log)["env"]
    assert env["NCCL_IB_PASSWORD"].startswith("hmac:") and env["NCCL_SOCKET_IFNAME"] == "eth0"


SHADOW_LINES = [
    "root:$6$saltsalt$HASHHASHHASHqq:19000:0:99999:7:::",   # sha512-crypt
    "root:$y$j9T$saltsalt$HASHHASHHASHqq:19000:0:99999:7:::",  # yescrypt (Debian 11+)
    "root:abHASHHASHHASHqq:19000:0:99999:7:::",            # traditional DES: host-name characters only
]


def _entry_points(path):
    return [["check", "--hosts", path], ["plan", "--hosts", path, "--launch", "torchrun --nnodes 2 t.py"],
            ["plan", "--launch", "deepspeed --hostfile %s t.py" % path],
            ["plan", "--launch", "mpirun -np 2 --hostfile %s python t.py" % path],
            ["plan", "--launch", "horovodrun -np 2 --hostfile %s python t.py" % path],
            ["check", "--nodes", open(path).read().split()[0]]]


def test_a_shadow_file_given_as_a_hostfile_never_prints_the_hash(tmp_path, cli):
    # issue 23 item 5: every host-name error excerpt stops at the first character that
    # cannot be part of a host name (errors.host_excerpt), whichever dialect reads the file.
    # The first line's runs are real `python -m gpudoctor` processes (exit status and stderr as
    # a user sees them); the other lines' run the same main() in this process (conftest's cli),
    # 20 interpreter starts fewer.
    import subprocess
    import sys
    for n, line in enumerate(SHADOW_LINES):
        for suffix in ("", " slots=2"):
            f = tmp_path / ("shadow%d%s" % (n, "s" if suffix else ""))
            f.write_text(line + suffix + "\n" + "daemon:*:19000:0:99999:7:::\n")
            # with slots= the line reaches the host-name rule of the slot-reading dialects
            for argv in _entry_points(str(f))[1 if suffix else 0:5 if suffix else None]:
                if n == 0:
                    r = subprocess.run([sys.executable, "-m", "gpudoctor"] + argv, capture_output=True, text=True,
                                       timeout=60, stdin=subprocess.DEVNULL)
                    rc, err = r.returncode, r.stderr
                else:
                    rc, _, err = cli(*argv)
                # a DES line is all host-name characters, which Open MPI's hostfile lexer takes as
                # one host name: it is accepted there (and fails at ssh), never echoed in an error
                accepted = n == 2 and argv[-1].startswith("mpirun")
                assert rc == (0 if accepted else 2), (argv, err)
                assert "HASH" not in err and "salt" not in err, (argv, err)
                assert len(err.strip().splitlines()) == (0 if accepted else 1), err

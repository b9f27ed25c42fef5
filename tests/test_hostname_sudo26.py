"""host.name's fix as the user who runs it can paste it (userwalk25: a non-root user was shown `echo ... >>
/etc/hosts`, which their own shell opens before anything runs: 'Permission denied').

The node's uid comes from the collector (host.uid). For root, or where the uid is unknown, the fix stays as it was;
for another user every line that writes /etc goes through sudo, and the append goes through `sudo tee -a` (a
redirect is the caller's shell's, not sudo's: sudo(8), tee(1)). The facts are this VM's own recorded node
(fixtures/nodes/devbox-debian12-nogpu.json: hostname vm -> 127.0.0.1), with only its uid changed.
"""

import json
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FACTS = os.path.join(ROOT, "fixtures", "nodes", "devbox-debian12-nogpu.json")


def _fix_lines(tmp_path, uid, hostname=None, addrs=None):
    doc = json.load(open(FACTS))
    doc["host"]["uid"] = uid
    if hostname is not None:
        doc["host"]["hostname"] = hostname
    if addrs is not None:
        doc["host"]["hostname_addresses"] = addrs
    path = tmp_path / ("node-%s.json" % uid)
    path.write_text(json.dumps(doc))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR", "CI")}
    env["PYTHONPATH"] = ROOT
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--facts", str(path), "--select", "host.name",
                        "--json"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert p.returncode == 1, p.stderr
    doc = json.loads(p.stdout)
    fixes = [f["fix"] for f in doc["findings"] if f["check"] == "host.name"]
    assert len(fixes) == 1 and fixes[0], doc
    return fixes[0]


def test_a_non_root_user_gets_sudo_and_tee(tmp_path):
    fix = _fix_lines(tmp_path, 1000)
    lines = [x.split("   #")[0] for x in fix.splitlines()]
    assert lines[0].startswith("sudo sed -i -E ") and lines[0].endswith(" /etc/hosts"), fix
    assert lines[1].startswith("echo ") and lines[1].endswith(" vm' | sudo tee -a /etc/hosts >/dev/null"), fix
    assert ">> /etc/hosts" not in fix
    if shutil.which("bash"):
        assert subprocess.run(["bash", "-n", "-c", "\n".join(fix.splitlines()[:2])], timeout=30).returncode == 0


@pytest.mark.parametrize("uid", [0, None])
def test_root_or_an_unknown_uid_keeps_the_plain_fix(tmp_path, uid):
    fix = _fix_lines(tmp_path, uid)
    assert "sudo" not in fix and fix.splitlines()[1].split("   #")[0].rstrip().endswith(">> /etc/hosts"), fix


def test_a_default_name_for_a_non_root_user(tmp_path):
    fix = _fix_lines(tmp_path, 1000, hostname="localhost", addrs=["127.0.0.1"])
    first, second = fix.splitlines()[:2]
    assert first.startswith("sudo hostnamectl set-hostname gpu01"), fix
    assert "| sudo tee -a /etc/hosts >/dev/null" in second and ">> /etc/hosts" not in fix, fix


"""Red team (issue 18's closing note, left13): `gpudoctor check`'s descriptions printed node values as they are.

A finding's message, what was observed and expected, a check's evidence (PASS lines) and the node profile name values
the node chose: its hostname, env values, paths, version strings. The fix and `export` lines were already one shell
word per value (gpudoctor/fixline.py sh); the descriptions showed `$(touch /tmp/PWN);x` bare, so a description copied
into a terminal could run it, and (JSON) a consumer printing a value printed its escape sequences. Now each node value
that holds what a shell or a terminal acts on is shown in a description as the same sh() word (fixline.Shown, applied
by runner.run_checks and the reports; docs/security.md 27.); a plain value is shown as it was.
"""

import json
import os
import subprocess
import sys

import pytest

from conftest import node_facts
from gpudoctor.fixline import hostile, inert_word as sh  # the word a description shows (docs/security.md 27., 28., 86.)

# (shell: a command substitution, a separator, backquotes, quotes, a pipe; terminal: a newline, an OSC title sequence)
PAYLOADS = ["$(touch /tmp/PWN);`id`'\"|&x\ny\x1b]0;T\x07z"]
SKIP_KEYS = {"status", "schema", "collected_at", "kind", "state"}


def _mutate(x, pay, key=None):
    if isinstance(x, dict):
        return {k: _mutate(v, pay, k) for k, v in x.items()}
    if isinstance(x, list):
        return [_mutate(v, pay, key) for v in x]
    if isinstance(x, str) and key not in SKIP_KEYS and not x.startswith("sha256:"):
        return x + pay
    return x


def _strings(doc, skip=("fix", "exports")):
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k not in skip:
                yield from _strings(v, skip)
    elif isinstance(doc, list):
        for v in doc:
            yield from _strings(v, skip)
    elif isinstance(doc, str):
        yield doc


def _rest(text, values):
    """The text with every value's sh() word taken out (the longest first): what is left is shown bare."""
    for v in sorted(values, key=len, reverse=True):
        text = text.replace(sh(v), "\0")
    return text


@pytest.mark.parametrize("pay", PAYLOADS)
def test_every_description_shows_a_hostile_node_value_as_one_shell_word(tmp_path, pay):
    base = node_facts("h100-ubuntu2404-torch211")
    facts = _mutate(base, pay)
    facts["node"] = base["node"]
    path = tmp_path / "n1.json"
    path.write_text(json.dumps(facts))
    from gpudoctor.fixline import leaf_strings

    values = sorted({v for v in leaf_strings(facts) if hostile(v)}, key=len, reverse=True)
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--facts", str(path), "--json"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode in (0, 1), p.stderr
    doc = json.loads(p.stdout)
    named = [s for s in _strings(doc) if any(v in s or sh(v) in s for v in values)]
    assert len(named) >= 10  # the findings, the PASS evidence and the profile name them
    for s in named:
        assert pay not in _rest(s, values), s
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--facts", str(path)],
                       capture_output=True, text=True, timeout=120)
    assert "\x1b]" not in p.stdout and "\x07" not in p.stdout
    if "$(" in pay:
        # the text report: every line but a fix's (indented 7) holds the payload only inside a quoted word
        prose = [ln for ln in p.stdout.splitlines() if "touch /tmp/PWN" in ln and not ln.startswith(" " * 7)]
        assert prose and all(pay not in _rest(ln, values) for ln in prose), prose


def test_a_plain_value_is_shown_as_it_is():
    from gpudoctor.fixline import Shown

    shown = Shown(["eth0", "NVIDIA H100 80GB HBM3", "/usr/bin/python3", ";", "&&", "ab;cd"])
    text = "NCCL_SOCKET_IFNAME eth0 on NVIDIA H100 80GB HBM3; /usr/bin/python3 && ab;cd"
    assert shown(text) == "NCCL_SOCKET_IFNAME eth0 on NVIDIA H100 80GB HBM3; /usr/bin/python3 && 'ab;cd'"
    # one pass: a value inside a longer one is not quoted twice; one a check quoted itself is left
    shown = Shown(["a;b", "a;b;c"])
    assert shown("x a;b;c y a;b 'a;b'") == "x 'a;b;c' y 'a;b' 'a;b'"


sshcluster = pytest.importorskip("sshcluster")


@pytest.mark.skipif(not sshcluster.available() and not os.environ.get("CI"),
                    reason="needs root and openssh-server (tests/run.sh installs it)")
def test_check_over_real_sshd_nodes_quotes_their_hostile_env_values_in_descriptions(tmp_path):
    evil = "eth0$(touch /tmp/PWN-left13);x"
    c = sshcluster.Cluster()
    try:
        path = "/usr/local/bin:/usr/bin:/bin"
        c.add("n1", env={"PATH": path, "NCCL_SOCKET_IFNAME": "eth0", "NCCL_IB_HCA": "mlx5_0"})
        c.add("n2", env={"PATH": path, "NCCL_SOCKET_IFNAME": "eth0", "NCCL_IB_HCA": "mlx5_0"})
        c.add("n3", env={"PATH": path, "NCCL_SOCKET_IFNAME": evil, "NCCL_IB_HCA": "mlx5_0;reboot"})
        c.start()
        run = [sys.executable, "-m", "gpudoctor", "check", "--hosts", c.hostfile(), "--ssh-config", c.ssh_config,
               "--timeout", "20", "--select", "env.parity"]
        p = subprocess.run(run + ["--json"], capture_output=True, text=True, timeout=180, cwd=c.base)
        doc = json.loads(p.stdout)
        msgs = [f["message"] for f in doc["findings"] if f["check"] == "env.parity"]
        assert any(sh(evil) in m for m in msgs), msgs
        assert any(sh("mlx5_0;reboot") in m for m in msgs), msgs
        for s in _strings(doc):
            assert "PWN-left13" not in _rest(s, [evil]) and "mlx5_0;reboot" not in _rest(s, ["mlx5_0;reboot"]), s
        p = subprocess.run(run, capture_output=True, text=True, timeout=180, cwd=c.base)
        prose = [ln for ln in p.stdout.splitlines() if "PWN-left13" in ln and not ln.startswith(" " * 7)]
        assert prose and all("PWN-left13" not in _rest(ln, [evil]) for ln in prose), prose
    finally:
        c.cleanup()

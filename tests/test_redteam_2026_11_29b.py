"""Red team 2026-11-29, docs/security.md 114.: passwords that explain and the facts still kept in clear.

- ssh-keygen's old and new passphrases (`-P X`, `-N X`, glued `-qNX`, both on one line), sqlcmd's / bcp's `-P X`,
  a Vault token (`vault login X`, and the `hvs.` token shape anywhere), and OpenSSL's `-passin 'pass:X Y'` with the
  quote opened before `pass:` (only its first word was cut);
- the facts (a `--python` wrapper's output) never read an argument list: `Command '['sshpass', '-p', 'X', ...]'
  returned non-zero exit status 5` kept X, where explain already read it (106.).

Each failed on the start commit f032690e; the controls pass on both."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

PW = "Zq8rTw2Lkq9x"
PW2 = "Nw7pQ4Lz2Vb8"

FORMS = [
    "ssh-keygen -t ed25519 -N %s -f key" % PW,
    "ssh-keygen -q -t rsa -N '%s and more' -f k" % PW,
    "ssh-keygen -p -P %s -N %s -f key" % (PW, PW2),
    "ssh-keygen -qN%s -f k" % PW,
    "sqlcmd -S db -U sa -P %s -Q 'select 1'" % PW,
    "bcp t out f -U sa -P%s -c; echo %s" % (PW, "done"),
    "vault login s.%s" % PW,
    "vault login -no-print hvs.CAESI%sAbCdEfGhIjKl" % PW,
    "token: hvs.CAESI%sAbCdEfGhIjKl" % PW,
    "openssl rsa -in k.pem -passin 'pass:%s sesame'" % PW,
]


@pytest.mark.parametrize("form", FORMS)
def test_each_password_form_is_cut_by_both_readers(form):
    from gpudoctor.collector.python_env import _no_values
    from gpudoctor.explain.redact import redact

    red, facts = redact(form), _no_values(form)
    assert PW not in red and PW2 not in red and "REDACTED" in red, red
    assert PW not in facts and PW2 not in facts and "..." in facts, facts
    assert "sesame" not in red and "sesame" not in facts


def test_the_switches_and_the_program_keep_their_words():
    from gpudoctor.collector.python_env import _no_values
    from gpudoctor.explain.redact import redact

    assert redact("ssh-keygen -p -P %s -N %s -f key" % (PW, PW2)) == "ssh-keygen -p -P REDACTED -N REDACTED -f key"
    assert _no_values("ssh-keygen -p -P %s -N %s -f key" % (PW, PW2)) == "ssh-keygen -p -P ... -N ... -f key"
    assert redact("openssl rsa -passin 'pass:%s x'" % PW) == "openssl rsa -passin 'pass:REDACTED'"


@pytest.mark.parametrize("text", [
    "ssh-keygen -t ed25519 -N '' -f key", "ssh-keygen -lf key.pub", "ssh-keygen -R host",
    "ssh-keygen -t rsa -b 4096 -C 'me@Phost'", "vault login -method userpass", "vault login -", "vault status",
    "sqlcmd -S db -Q 'select 1'", "bcp t out f -T -c", "openssl rsa -in k.pem -passin env:PW",
])
def test_controls_keep_their_words(text):
    from gpudoctor.collector.python_env import _no_values
    from gpudoctor.explain.redact import redact

    assert redact(text) == text and _no_values(text) == text


@pytest.mark.parametrize("argv", [
    "['sshpass', '-p', '%s', 'rsync', 'a', 'b']", "['redis-cli', '-a', '%s', 'ping']",
    "['ssh-keygen', '-N', '%s', '-f', 'k']", '["mysql", "-p%s", "db"]',
])
def test_the_facts_read_an_argument_list_as_its_command_line(argv):
    from gpudoctor.collector.python_env import _no_values

    text = "subprocess.CalledProcessError: Command '%s' returned non-zero exit status 5." % (argv % PW)
    cut = _no_values(text)
    assert PW not in cut and "returned non-zero exit status 5" in cut, cut
    # the program and the other words are kept
    assert argv.split(",")[0] in cut


def test_an_ordinary_argument_list_keeps_its_words():
    from gpudoctor.collector.python_env import _no_values

    text = "Command '['torchrun', '--nproc-per-node', '8', 'train.py']' returned non-zero exit status 1."
    assert _no_values(text) == text


def test_a_wrapper_whose_call_failed_leaves_no_password_in_the_facts(tmp_path):
    """The real path: a --python wrapper runs a Python whose check=True call fails with a password in its argv."""
    wrapper = tmp_path / "wrap.sh"
    wrapper.write_text("#!/bin/sh\n%s -c \"import subprocess; subprocess.run(['false', 'sshpass', '-p', '%s', "
                       "'rsync'], check=True)\"\n" % (sys.executable, PW))
    wrapper.chmod(0o755)
    out_file = tmp_path / "f.json"
    env = dict(os.environ, PYTHONPATH=ROOT)
    p = subprocess.run([sys.executable, "-P", "-m", "gpudoctor", "facts", "--local", "--python", str(wrapper), "-o",
                        str(out_file)], cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    text = out_file.read_text()
    assert "CalledProcessError" in text and "sshpass" in text  # the failure is kept
    assert PW not in text and PW not in p.stdout + p.stderr


def test_explain_quotes_no_ssh_keygen_passphrase(tmp_path):
    log = tmp_path / "job.log"
    log.write_text("export NCCL_SOCKET_IFNAME=eth9; ssh-keygen -p -P %s -N %s -f /root/.ssh/id_ed25519\n"
                   "NCCL WARN Bootstrap : no socket interface found\n" % (PW, PW2))
    env = dict(os.environ, PYTHONPATH=ROOT)
    p = subprocess.run([sys.executable, "-P", "-m", "gpudoctor", "explain", str(log)], cwd=str(tmp_path), env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "ssh-keygen -p -P REDACTED -N REDACTED" in p.stdout, (p.stdout, p.stderr)
    assert PW not in p.stdout and PW2 not in p.stdout


def test_the_collector_knows_a_vault_token_by_its_shape():
    """The facts' own shape list (collector/system.py CREDENTIAL_RE, explain's _SHAPES written again: test_left23)
    holds the Vault token too: a value of any name that is one is never shown."""
    from gpudoctor.collector.system import credential_shape

    assert credential_shape("hvs.CAESI%sAbCdEfGhIjKl" % PW)
    assert not credential_shape("hvs.short") and not credential_shape("/opt/hvs.d/conf")

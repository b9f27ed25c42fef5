"""fp22: lines a healthy ssh -v prints are no failure (issue 18: "gives no root cause for a healthy log").

Both texts were recorded here against a private sshd 9.2p1 on 127.0.0.23 (fixtures/explain/fp22/README.md): the
login with the authorized key (fixtures/explain/healthy/ssh-v-login-accepted.log, exit 0) was answered
ssh.publickey (root_cause) from ssh -v's 'identity file <path> type -1' lines alone, which ssh prints for every
default key path that holds no key, in a working login too; once that was read as a signal, its 'debug1: ...: No such
file or directory' lines were errors of a host named 'debug1' (a pdsh prefix). The refused login keeps its answer.
"""

import os

import pytest

import gpudoctor.checks  # noqa: F401
from gpudoctor import explain
from gpudoctor.explain import text

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def kb():
    return explain.load_knowledge()


def _read(*parts):
    with open(os.path.join(ROOT, "fixtures", "explain", *parts), encoding="utf-8") as f:
        return f.read()


def test_a_healthy_ssh_v_login_has_no_root(kb):
    res = explain.explain_text(_read("healthy", "ssh-v-login-accepted.log"), kb)
    assert (res["verdict"], res["root"], res["findings"], res["errors"]) == ("no_error", None, [], [])


def test_a_refused_ssh_v_login_is_still_the_key_and_its_missing_key_lines_confirm_it(kb):
    res = explain.explain_text(_read("fp22", "ssh-v-key-not-authorized.log"), kb)
    root = next(f for f in res["findings"] if f["role"] == "root")
    assert root["id"] == "ssh.publickey" and res["verdict"] == "root_cause"
    # the 'identity file other-cert type -1' line is the first cause's evidence (no key pair / not installed)
    assert root["causes"][0]["text"].startswith("No key pair exists")
    assert any("type -1" in e["text"] for e in root["causes"][0]["evidence"]), root["causes"][0]["evidence"]


@pytest.mark.parametrize("line, body", [
    # OpenSSH's log.c level names first in the line: a level, not a pdsh host prefix
    ("debug1: load_hostkeys: fopen /etc/ssh/ssh_known_hosts: No such file or directory",
     "debug1: load_hostkeys: fopen /etc/ssh/ssh_known_hosts: No such file or directory"),
    ("debug3: send packet: type 5", "debug3: send packet: type 5"),
    # a host prefix stays a prefix
    ("gpu01: Permission denied (publickey).", "Permission denied (publickey)."),
])
def test_a_debug_level_first_in_its_line_is_no_host_prefix(line, body):
    assert text.strip_prefix(line)[0] == body
    if body.startswith("debug"):
        assert text.severity(body) == "info"


def test_sshd_s_log_of_a_session_a_user_closed_has_no_root(kb):
    # sshd runs the client's packet.c: once a login is authenticated its connection id starts 'user <name>' (sshd.c
    # ssh_packet_set_log_preamble), so every session's end logs 'Disconnected from user root 127.0.0.1 port N';
    # generated/ssh_messages.json's client site 'Disconnected from %s port %d' (packet.c) answered ssh.connect
    res = explain.explain_text(_read("healthy", "sshd-D-e-login-logout.log"), kb)
    assert (res["verdict"], res["root"], res["findings"]) == ("no_error", None, [])


@pytest.mark.parametrize("line", [
    "Disconnected from 10.0.0.5 port 22",  # the client: the server hung up (no preamble)
    "Disconnected from authenticating user root 10.0.0.5 port 51514 [preauth]",  # sshd: a login not finished
    "Connection closed by 10.0.0.5 port 22",
])
def test_the_client_s_and_an_unfinished_login_s_disconnect_still_answer(kb, line):
    res = explain.explain_text(line + "\n", kb)
    assert res["root"] == "ssh.connect", res["root"]

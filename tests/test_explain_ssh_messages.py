"""The OpenSSH client's own messages (issue 18), read from openssh/openssh-portable V_9_2_P1 by
tools/gen_ssh_messages.py (generated/ssh_messages.json; families in gpudoctor/data/knowledge/ssh.toml and
checks/ssh.knowledge.toml). The texts were made here by running Debian 12's ssh (OpenSSH_9.2p1, the same release)
against nothing (port 1), a config with a misspelt option, an over-long ControlPath, and an sshd of its own on
127.0.0.61 that offers only an ed25519 host key and authorizes no key (fixtures/ssh/)."""

import os

import pytest

from gpudoctor import explain

FIX = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "ssh")


@pytest.mark.parametrize("name,root,fix", [
    ("controlpath-too-long.txt", "ssh.control_path_too_long", "%C"),
    ("negotiate-hostkey-type.txt", "ssh.negotiate", "HostKeyAlgorithms +ssh-rsa"),
    ("config-bad-option.txt", "ssh.config", "IgnoreUnknown"),
    ("connect-refused.txt", "ssh.connect", "start sshd"),
    # a listener on the port that closes every connection at once (a python socket here): sshd's MaxStartups or a
    # refused host look the same to the client
    ("kex-connection-reset.txt", "ssh.connect", "MaxStartups"),
    ("host-key-unknown-strict.txt", "ssh.host_key", "ssh-keyscan"),
    ("publickey-denied.txt", "ssh.publickey", "ssh-copy-id"),
])
def test_what_ssh_printed_here_names_its_family_and_fix(kb, name, root, fix):
    with open(os.path.join(FIX, name)) as f:
        res = explain.explain_text(f.read(), kb)
    f = res["findings"][0]
    assert res["verdict"] == "root_cause" and f["id"] == root and f["role"] == "root", [x["id"] for x in res["findings"]]
    assert fix in " ".join(x for c in f["causes"] for x in c.get("fix") or [])
    if root == "ssh.control_path_too_long":  # the family of the limit it meets (a Unix socket's 108-byte sun_path)
        assert f["family"] == "errno.enametoolong"


def test_a_launchers_own_entry_keeps_the_answer_and_a_short_control_path_is_healthy(kb):
    # mpirun's daemon could not start because ssh refused the host key: Open MPI's entry stays the root
    res = explain.explain_text("Host key verification failed.\n" + "-" * 74 + "\nORTE was unable to reliably start "
                               "one or more daemons.\n", kb)
    assert res["findings"][0]["id"] == "mpi.orted"
    # the healthy twin: a %C ControlPath, the master started and told to exit
    res = explain.explain_text("$ ssh -o ControlMaster=auto -o ControlPersist=5 -o ControlPath=/tmp/cm/%C node2 "
                               "hostname; ssh -o ControlPath=/tmp/cm/%C -O exit node2\nnode2\nExit request sent.\n", kb)
    assert res["verdict"] == "no_error"


def test_a_login_refused_by_slurms_pam_module_is_the_job_not_ssh(kb):
    # pam_slurm_adopt's constant message (SchedMD/slurm contribs/pam_slurm_adopt/pam_slurm_adopt.c send_user_msg),
    # then ssh's packet.c 'Connection closed by %s port %d': the node lets in only users with a job running there
    res = explain.explain_text("$ ssh gpu07 nvidia-smi\nAccess denied by pam_slurm_adopt: you have no active jobs "
                               "on this node\nConnection closed by 10.20.0.17 port 22\n", kb)
    f = res["findings"][0]
    assert f["id"] == "slurm.pam_adopt" and f["family"] == "slurm.auth"
    assert "--overlap" in " ".join(x for c in f["causes"] for x in c["fix"])
    # the closed connection alone is ssh's generic answer
    res = explain.explain_text("Connection closed by 10.20.0.17 port 22\n", kb)
    assert res["findings"][0]["id"] == "ssh.connect"


def test_a_variable_exported_before_ssh_that_the_remote_process_lacked(kb):
    # made here: ssh 9.2p1 with SendEnv MASTER_ADDR MASTER_PORT against an sshd without AcceptEnv (node2) and one with
    # it (node3, the healthy twin); gpudoctor/explain/sshenv.py reads the export, the ssh line and the KeyError
    with open(os.path.join(FIX, "sendenv-not-accepted.txt")) as f:
        text = f.read()
    res = explain.explain_text(text, kb)
    f = res["findings"][0]
    assert f["id"] == "rendezvous.env_missing" and f["role"] == "root"
    first = f["causes"][0]
    assert "AcceptEnv" in first["text"] and "AcceptEnv MASTER_ADDR" in first["fix"][0]
    with open(os.path.join(FIX, "sendenv-accepted.txt")) as f:
        assert explain.explain_text(f.read(), kb)["verdict"] == "no_error"
    # a variable of the job's own: the cause goes first under the code's own exception
    res = explain.explain_text(text.replace("MASTER_ADDR", "DATA_ROOT"), kb)
    f = res["findings"][0]
    assert f["id"] == "code.exception" and "through ssh" in f["causes"][0]["text"]
    # set in the remote command itself: not this
    res = explain.explain_text(text.replace("'python3", "'DATA_ROOT=/d python3").replace("MASTER_ADDR", "DATA_ROOT"),
                               kb)
    assert not any("through ssh" in c["text"] for c in res["findings"][0]["causes"])


def test_a_config_line_refusal_needs_ssh_configs_file_name(kb):
    # readconf.c prints '<file> line <n>: ...' with ssh_config's name or 'command-line' (-o, ssh.c); the same words
    # after another parser's file are not ssh's (review16)
    f = explain.explain_text("/home/u/.ssh/config line 12: invalid quotes\n", kb)["findings"][0]
    assert f["id"] == "ssh.config"
    f = explain.explain_text("command-line line 0: missing argument.\n", kb)["findings"][0]
    assert f["id"] == "ssh.config"
    res = explain.explain_text("Error: /data/labels.csv line 12: invalid quotes\n", kb)
    assert not any(g["id"] == "ssh.config" for g in res["findings"])

"""Red team 2026-11-28i (session 30): findings fixed at their root; each case fails on 085cb5f
(docs/security.md 100.)."""


import pytest

from gpudoctor.explain.redact import MARK, redact


@pytest.mark.parametrize("line, secret", [
    ("htpasswd -b .htpasswd alice hunter", "hunter"),
    ("+ htpasswd -bc /etc/nginx/.htpasswd alice sunshine > /dev/null 2>&1; echo done", "sunshine"),
    ("htpasswd -bnB alice 'opensesame'", "opensesame"),
    ("zip -r -P hunter out.zip ckpt/", "hunter"),
    ("unzip -o -P sunshine data.zip", "sunshine"),
    ("7z a -popensesame ckpt.7z ckpt/", "opensesame"),
    ("openssl enc -aes-256-cbc -salt -k hunter -in ckpt.pt -out ckpt.enc", "hunter"),
])
def test_an_archive_or_htpasswd_password_operand_is_redacted(line, secret):
    out = redact(line)
    assert secret not in out and MARK in out, out


@pytest.mark.parametrize("line", [
    "htpasswd -c /etc/nginx/.htpasswd alice",   # interactive: no password on the line
    "htpasswd -b users.htpasswd",                # one operand: nothing is a password
    "zip -r out.zip ckpt/",
    "7z x -p ckpt.7z",                           # 7z asks for it
    "openssl enc -k $ZIP_PASS -in a -out b",     # a placeholder is kept
])
def test_the_same_commands_without_a_password_are_kept(line):
    assert redact(line) == line


def test_the_new_readings_are_linear_on_a_hostile_line():
    for s in ("htpasswd -b " * 6000, "htpasswd" + " a" * 32000, "zip " * 16000, "7z " * 16000,
              "openssl " * 8000 + "-k"):
        out = redact(s)  # its CPU time (bound 3 s each): bench/cpu_bounds.py
        assert out == s or MARK in out, s[:40]  # left as it is or redacted, never cut


# --- plan: a value cut from a word that holds unknowns (docs/security.md 101.)

def _one_launch(tmp_path, text):
    from gpudoctor.launch.script import read_script

    f = tmp_path / "job.sh"
    f.write_text("#!/bin/bash\n" + text)
    (la,) = read_script(str(f), [], environ={}).launches
    return la


@pytest.mark.parametrize("addr, shown", [
    ("$X$X", "$1$1"), ("n$X", "n$1"), ("$X-$Y", "$1-$2"), ("node$X.cluster", "node$1.cluster"),
    ("10.0.0.$X", "10.0.0.$1"),
])
def test_plan_shows_the_master_as_the_script_wrote_it_never_a_stand_in(tmp_path, addr, shown):
    la = _one_launch(tmp_path, "X=$1\nY=$2\ntorchrun --nnodes=2 --nproc_per_node=8 --master_addr=%s "
                               "--master_port=29500 train.py\n" % addr)
    assert la.refused is None and la.plan is not None
    assert la.plan.master_addr == shown


def test_plan_reads_a_master_built_from_two_unknown_parts(tmp_path):
    # the numeric stand-ins made '1.3', which torchrun's reader refuses as a host name: the line was refused
    la = _one_launch(tmp_path, "NODE=$1\nDOMAIN=$2\nNN=$3\ntorchrun --nnodes=$NN --nproc_per_node=8 "
                               "--master_addr=$NODE.$DOMAIN --master_port=29500 train.py\n")
    assert la.refused is None, la.refused
    assert la.plan.master_addr == "$1.$2" and la.plan.nnodes_max is None


def test_plan_still_refuses_a_master_no_value_can_make_valid(tmp_path):
    la = _one_launch(tmp_path, "X=$1\ntorchrun --nnodes=2 --master_addr=-$X train.py\n")
    assert la.refused and "host name" in la.refused


# --- gpu.links on a node's hostile facts (docs/security.md 102.)

def _links_facts(mutate):
    import copy
    import json
    import os

    from conftest import FIXTURES

    f = json.load(open(os.path.join(FIXTURES, "recorded", "h200x4-2026-11-28g", "call2", "facts.json")))
    f = copy.deepcopy(f)
    mutate(f["gpu"]["gpus"])
    return f


def _run_links(facts):
    from conftest import run_check

    return run_check("gpu.links", facts)  # asserts the check did not crash


def test_gpu_links_survives_a_gpu_name_that_is_no_string():
    def bad(gs):
        gs[0]["name"], gs[1]["name"] = ["x"], {"a": 1}
    out = _run_links(_links_facts(bad))
    assert out.status == "pass" and "NVLink 18 of 18 up" in str(out.outcomes), out.outcomes


def test_gpu_links_reads_no_link_count_nvml_cannot_answer():
    def bad(gs):
        gs[0]["nvlink"] = {"read": 10 ** 30, "active": 10 ** 30, "switch": -5, "peers": []}
    out = _run_links(_links_facts(bad))
    text = "%s %s" % (out.outcomes, [(f.message, f.observed, f.expected) for f in out.findings])
    assert out.status in ("pass", "warn", "fail") and "1000000000000000000000000000000" not in text, text

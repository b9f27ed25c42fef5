"""Four small user-visible fixes of 2026-11-26 (task small-fixes), one group of tests each."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from explainhelp import explain_paste, root_id  # noqa: E402

# 1. TensorFlow's CPU-only start-up: the two lines TensorFlow 2.x prints on a machine without a GPU (written from
# its sources, not copied from a thread): the DSO loader's warning (tensorflow/stream_executor/platform/default/
# dso_loader.cc) and TensorFlow's own LOG(INFO) in tensorflow/stream_executor/cuda/cudart_stub.cc
# (https://github.com/tensorflow/tensorflow/blob/v2.5.0/tensorflow/stream_executor/cuda/cudart_stub.cc).
TF_CPU = (
    "2021-06-01 10:00:00.123456: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load "
    "dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file "
    "or directory\n"
    "2021-06-01 10:00:00.123789: I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror if "
    "you do not have a GPU set up on your machine.\n")


def test_tf_cpu_only_dlerror_is_a_note_with_the_fix(cli, tmp_path):
    rc, doc = explain_paste(cli, tmp_path, TF_CPU, "--file")
    assert doc["verdict"] == "no_error" and root_id(doc) is None, (doc["verdict"], root_id(doc))
    assert rc == 0
    notes = [n for n in doc["context"] if n["id"] in ("libload.dso", "cuda.libs")]
    assert len(notes) == 1, doc["context"]
    assert "no GPU" in notes[0]["note"] and "tensorflow[and-cuda]" in notes[0]["fix"], notes[0]


def test_tf_dlerror_without_tf_note_or_with_another_error_stays_root(cli, tmp_path):
    _, doc = explain_paste(cli, tmp_path, TF_CPU.splitlines(True)[0], "--file")
    assert doc["verdict"] == "root_cause" and root_id(doc) == "libload.dso", root_id(doc)
    # something else failed too: the dlerror lines are no longer "nothing else failed"
    text = TF_CPU + "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    _, doc = explain_paste(cli, tmp_path, text, "--file", name="b.log")
    assert doc["verdict"] == "root_cause", doc["verdict"]


# 2. `gpudoctor diff`: what a login shell or terminal sets per session is no change; what the job runs with is.
def test_diff_leaves_out_session_variables_keeps_the_jobs():
    from gpudoctor import changes

    session_a = {"SSH_CONNECTION": "10.0.0.1 5000 10.0.0.2 22", "SSH_CLIENT": "10.0.0.1 5000 22",
                 "SSH_TTY": "/dev/pts/1", "TERM": "xterm-256color", "SHLVL": "1", "PWD": "/home/u", "OLDPWD": "/",
                 "_": "/usr/bin/gpudoctor", "TMUX": "/tmp/tmux-1000/default,1,0", "TMUX_PANE": "%1",
                 "WINDOWID": "123", "XDG_SESSION_ID": "4", "COLORTERM": "truecolor", "TERM_PROGRAM": "vscode",
                 "VSCODE_IPC_HOOK_CLI": "/run/user/1000/vscode-1.sock", "STY": "12.pts-1.host"}
    session_b = {"SSH_CONNECTION": "10.0.0.9 6000 10.0.0.2 22", "SSH_CLIENT": "10.0.0.9 6000 22",
                 "SSH_TTY": "/dev/pts/7", "TERM": "screen", "SHLVL": "3", "PWD": "/tmp", "OLDPWD": "/home/u",
                 "_": "/bin/env", "XDG_SESSION_ID": "9"}
    job_a = {"PATH": "/usr/bin", "LD_LIBRARY_PATH": "/usr/local/cuda/lib64", "NCCL_SOCKET_IFNAME": "eth0",
             "CUDA_VISIBLE_DEVICES": "0,1", "TORCH_NCCL_ASYNC_ERROR_HANDLING": "1"}
    job_b = {"PATH": "/opt/conda/bin:/usr/bin", "LD_LIBRARY_PATH": "", "NCCL_SOCKET_IFNAME": "ib0",
             "CUDA_VISIBLE_DEVICES": "0", "TORCH_NCCL_ASYNC_ERROR_HANDLING": "3"}
    before = {"env": {"values": dict(job_a), "hashed": {k: "hmac:k1:" + v for k, v in session_a.items()}}}
    after = {"env": {"values": dict(job_b), "hashed": {k: "hmac:k1:" + v for k, v in session_b.items()}}}
    got = changes.compare(before, after, key_ids=("k1", "k1"))
    names = sorted({c.path.split(".", 2)[2] for c in got})
    assert names == sorted(job_a), names


# 3. explain's computed NCCL_SOCKET_IFNAME: only a name Linux could have given (net/core/dev.c dev_valid_name)
NODE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "nodes",
                    "h100-ubuntu2404-torch211.json")


def _rename_default_nic(new):
    import json

    with open(NODE) as f:
        facts = json.load(f)
    old = facts["network"]["default_route"]["interface"]
    for i in facts["network"]["interfaces"]:
        if i["name"] == old:
            i["name"] = new
    facts["network"]["default_route"]["interface"] = new
    return facts


def test_valid_ifname_follows_linux_dev_valid_name():
    from gpudoctor.explain.fixes import valid_ifname

    for ok in ("eth0", "enp1s0f0np0", "a" * 15, "ib0.8001", "bond-0_x", "wlp0s20f3"):
        assert valid_ifname(ok), ok
    for bad in ("", ".", "..", "a" * 16, "eth0:1", "e/th0", "eth 0", "eth\t0", "eth\n0", "eth0\x00", "\u00e0" * 8,
                None, 3):
        assert not valid_ifname(bad), repr(bad)


def test_invalid_interface_name_in_facts_gives_no_computed_export(kb):
    from gpudoctor import explain

    text = "gpu1:1:1 [0] NCCL WARN Bootstrap : no socket interface found\n"
    res = explain.explain_text(text, kb, facts=_rename_default_nic("eth0"))
    assert res["findings"][0]["causes"][0]["exports"].get("NCCL_SOCKET_IFNAME") == "eth0"
    for bad in ("x" * 16, "..", "eth0:1", "eth 0", "e/th0"):
        res = explain.explain_text(text, kb, facts=_rename_default_nic(bad))
        causes = res["findings"][0]["causes"]
        assert not any(c.get("computed_fix") for c in causes), bad
        # the entry's own advice stays; the facts' name is in no export
        assert not any(bad in str((c.get("exports") or {}).get("NCCL_SOCKET_IFNAME")) for c in causes), bad


# 4. `check` and `list` text output fits 100 columns, except the lines that are commands to paste (a fix's lines)
def test_check_and_list_text_fit_100_columns_except_commands(cli):
    from gpudoctor.report.text import WIDTH

    rc, text, _ = cli("check")
    assert rc in (0, 1), rc
    # a fix's lines (commands, exports) are the only lines indented by 7 blanks (report/text.py _fix_lines);
    # prose is a check's line (its mark first), a note or a wrapped line's continuation (5 blanks)
    wide = [ln for ln in text.splitlines() if len(ln) > WIDTH and not re.match(r" {7}\S", ln)]
    assert not [ln for ln in text.splitlines() if re.match(r" {7}", ln) and not re.match(r" {7}\S", ln)]
    assert WIDTH == 100 and text.startswith("gpudoctor: ") and not wide, wide
    rc, text, _ = cli("list")
    assert rc == 0 and len(text.splitlines()) > 20
    assert [ln for ln in text.splitlines() if len(ln) > WIDTH] == []


def test_wrap_keeps_words_and_indents_the_rest():
    from gpudoctor.report.text import wrap

    line = "FAIL host.name   " + " ".join(["word%02d" % i for i in range(30)]) + " /a/very/long/path/" + "x" * 120
    got = [t for _, t in wrap("FAIL", line, 17)]
    assert len(got) > 1 and " ".join(t.strip() for t in got).split() == line.split()
    assert all(t.startswith(" " * 17) for t in got[1:])
    assert all(len(t) <= 100 for t in got if "/a/very/long/path/" not in t)  # a word longer than 100 stays whole
    assert wrap(None, "short", 4) == [(None, "short")]
    assert wrap(None, "x\x1b]0;t\x07 " * 30, 4) == [(None, "x\x1b]0;t\x07 " * 30)]  # control characters: left whole


def test_diff_folds_many_hashed_variables_into_one_line_that_names_them():
    from gpudoctor import changes

    ca = ["SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "PIP_CERT", "NODE_EXTRA_CA_CERTS", "GIT_SSL_CAINFO",
          "AWS_CA_BUNDLE"]
    before = {"env": {"values": {"PATH": "/a"}, "hashed": {k: "hmac:k1:aa" for k in ca}}}
    after = {"env": {"values": {"PATH": "/a:/b"}, "hashed": {"LANG": "hmac:k1:bb"}}}
    got = changes.compare(before, after, key_ids=("k1", "k1"))
    assert [c.label for c in got if c.path == "env.values.PATH"] == ["PATH"]  # a shown variable stays its own line
    folded = [c for c in got if c.path.startswith("env.hashed")]
    assert len(folded) == 1 and folded[0].text.startswith("8 other environment variables differ: 7 unset, 1 set; ")
    assert all(n in folded[0].text for n in ca + ["LANG"]) or "and " in folded[0].text
    # a few stay one line each
    few = changes.compare({"env": {"values": {}, "hashed": {"LANG": "hmac:k1:aa"}}},
                          {"env": {"values": {}, "hashed": {"LANG": "hmac:k1:bb"}}}, key_ids=("k1", "k1"))
    assert [c.path for c in few] == ["env.hashed.LANG"]

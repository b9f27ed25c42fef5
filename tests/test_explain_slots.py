"""A matched message's own values in its fix and meaning (gpudoctor/explain/slots.py).

A generated site's means/fix may hold {%N|words} slots (the N-th conversion of its format, or
those words); explain fills them from the line the site matched, as one shell word each
(gpudoctor/fixline.py sh, the quoting of every fix line), and falls back to the words when the
line does not give the value. The real texts are from public threads, cited at each one.
"""

import json
import os
import re
import shlex

import pytest

from explainhelp import explain_paste, root_of
from gpudoctor.explain import slots
from gpudoctor.explain.knowledge import generated_files, open_generated, read_json, table_name

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = os.path.join(REPO, "gpudoctor", "data", "knowledge", "generated")
NODE = {"text": "Node failure on %s", "source": "slurm_messages", "means": "A node failed.",
        "fix": ["sinfo -R -n {%1|<node>}", "resubmit with --exclude={%1|<node>}"]}


def test_a_slot_is_the_value_of_its_conversion():
    means, fix, used = slots.fill(NODE, "srun: error: Node failure on gpu-a07")
    assert fix == ["sinfo -R -n gpu-a07", "resubmit with --exclude=gpu-a07"] and used == {1: "gpu-a07"}
    # the last conversion ({%-1}), a typed one (%d) and Slurm's %ps (a string)
    site = {"text": "Task launch for %ps failed on node %s: %m", "source": "slurm_messages", "means": "on {%2|x}",
            "fix": ["why: {%-1|the reason}", "step {%1|s}"]}
    means, fix, used = slots.fill(site, "srun: error: Task launch for StepId=12.0 failed on node gpu-b3: "
                                        "Invalid node name specified")
    assert means == "on gpu-b3" and fix == ["why: 'Invalid node name specified'", "step StepId=12.0"], (means, fix)
    site = {"text": "Invalid %s %d (maximum %d).", "means": "m", "fix": ["unset {%1|the variable}", "{%2|n}"]}
    assert slots.fill(site, "NCCL WARN Invalid NCCL_NTHREADS 1024 (maximum 512).")[1] == ["unset NCCL_NTHREADS", "1024"]
    # a node list keeps its brackets; the sentence's full stop is not part of the value
    site = {"text": "Nodes %s are still not ready", "means": "m", "fix": ["scontrol show node {%1|<nodes>}."]}
    assert slots.fill(site, "salloc: error: Nodes gpu[01-04] are still not ready")[1] == \
        ["scontrol show node 'gpu[01-04]'."]
    # a Python list the message printed (f"... ({keys})") is its names
    site = {"text": "The config file at %s had unknown keys (%s), please", "means": "m", "fix": ["delete {%2|them}"]}
    assert slots.fill(site, "ValueError: The config file at c.yaml had unknown keys (['num_process']), please")[1] == \
        ["delete num_process"]


@pytest.mark.parametrize("line", [
    "srun: error: something else entirely",              # the format's literal is not on the line
    "srun: error: Node failure on " + "x" * 300,          # longer than MAX_VALUE: a cut name would be another
    "srun: error: Node failure on \x1b[31m\x1b[0m",       # nothing left once the escapes are gone
    "",
    "srun: error: Node failure on {node_name}",           # a Python message printed without its f prefix
])
def test_a_slot_the_line_does_not_give_is_its_words(line):
    means, fix, used = slots.fill(NODE, line)
    assert fix == ["sinfo -R -n <node>", "resubmit with --exclude=<node>"] and used == {}
    site = {"text": "port %d is in use", "means": "m", "fix": ["ss -ltnp | grep {%1|<port>}"]}
    assert slots.fill(site, "port abc is in use")[1] == ["ss -ltnp | grep <port>"]  # %d needs a number
    assert slots.fill(dict(NODE, text="Node failure"), "Node failure on gpu1")[1][0] == "sinfo -R -n <node>"


@pytest.mark.parametrize("value,shown", [
    ("$(id)", "$(id)"), (";rm -rf /", ";rm"), ("gpu1;rm", "gpu1;rm"), ("`id`", "id"),
    ("a\x1b[31mb\x1b]0;title\x07c", "abc"), ("x'y", "x'y"), ("n\u202eode", "node"),
])
def test_a_hostile_value_is_one_quoted_word_in_the_command(value, shown):
    means, fix, used = slots.fill(NODE, "srun: error: Node failure on " + value)
    assert used == {1: shown}
    for cmd in fix:
        assert "\x1b" not in cmd and "\u202e" not in cmd and "{%" not in cmd
    # the shell reads the value back as one word, exactly (never a command substitution or a second command)
    assert shlex.split(fix[0]) == ["sinfo", "-R", "-n", shown], fix[0]
    assert shlex.split(fix[1]) == ["resubmit", "with", "--exclude=" + shown], fix[1]


def test_ten_kilobytes_of_value_falls_back_and_stays_fast():
    line = "srun: error: Node failure on " + "A" * 10240
    # its CPU time (bound 0.5 s): bench/cpu_bounds.py
    assert slots.fill(NODE, line)[1][0] == "sinfo -R -n <node>"
    # the literal runs are looked up, never backtracked over: the worst line a site can hold is linear
    many = {"text": "a %s b %s c %s d %s e", "means": "m", "fix": ["{%4|w}"]}
    assert slots.fill(many, ("a " + "b " * 4000))[1] == ["w"]


def _line_of(site, name):
    """A line the site prints: its format with each conversion a sample value, and the values."""
    sample = {"d": "4321", "i": "4321", "u": "4321", "x": "7f3a", "X": "7F3A", "o": "17", "p": "0x7f3a", "c": "Z"}
    out, want = [], {}
    for kind, v in slots.conversions(site["text"], name.startswith("slurm")):
        if kind == "lit":
            out.append(v)
        else:
            want[len(want) + 1] = sample.get(v, "1.5" if v in "eEfgG" else "val%d" % (len(want) + 1))
            out.append(want[len(want)])
    return " ".join("".join(out).split()), want


def test_every_slot_of_the_generated_tables_fills_from_a_line_of_its_format():
    n = 0
    for path in generated_files():
        name = table_name(path)
        sites = read_json(path)["sites"]
        for s in sites:
            texts = [s.get("means") or ""] + (s.get("fix") or [])
            if not any(slots.slots_of(t) for t in texts):
                assert not any("{%" in t for t in texts), s["id"]  # a malformed slot would print raw
                continue
            n += 1
            assert s.get("family") and s.get("re"), s["id"]
            total = slots.count(s["text"], name.startswith("slurm"))
            # each slot names a conversion of at least its own format, or of another format of its row
            line, want = _line_of(s, name)
            means, fix, used = slots.fill(dict(s, source=name), line)
            expect = {k if k > 0 else total + 1 + k for t in texts for k, _ in slots.slots_of(t)}
            expect = {k for k in expect if 1 <= k <= total}
            assert used == {k: want[k] for k in expect}, (s["id"], s["text"], used)
            assert not any("{%" in t for t in [means] + fix), s["id"]
            # and the words alone are the text the site had before slots (refix_sites.py finds its row by them)
            fallback = slots.fill(dict(s, source=name), "")
            assert not any(slots.SLOT.search(t) for t in [fallback[0]] + fallback[1])
    assert n >= 120, n


def test_json_names_the_values_and_the_text_names_no_slot(cli, tmp_path):
    # https://github.com/firelab/windninja/issues/624: slurmstepd could not exec 'mkdir' on the node
    text = ("slurmstepd: error: execve(): mkdir: No such file or directory\n"
            "srun: error: bear-pg0104u25b: tasks 15-19: Exited with exit code 2\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file")
    assert doc["schema"] == "gpudoctor.explain/4"
    cause = root_of(doc)["causes"][0]
    assert cause["values"] == {"1": "mkdir"} and cause["fix"][0] == "srun -N1 -w <node> which mkdir", cause
    rc, out, err = cli("explain", "--file", tmp_path / "log.txt")
    assert "fix: srun -N1 -w <node> which mkdir" in out and "{%" not in out, out


def test_weights_only_global_names_the_class_to_allow(cli, tmp_path):
    # zai-org/SCAIL#11 (https://github.com/zai-org/SCAIL/issues/11): torch.load's unpickler line, as pasted
    text = ("WeightsUnpickler error: Unsupported global: GLOBAL numpy.core.multiarray._reconstruct was not an "
            "allowed global by default. Please use `torch.serialization.add_safe_globals([numpy.core.multiarray."
            "_reconstruct])` or the `torch.serialization.safe_globals([numpy.core.multiarray._reconstruct])` context "
            "manager to allowlist this global if you trust this class/function.\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file")
    cause = root_of(doc)["causes"][0]
    assert cause["fix"][0].startswith("torch.serialization.add_safe_globals([numpy.core.multiarray._reconstruct])"), \
        cause


def test_nccl_socket_close_names_the_peer_address(cli, tmp_path):
    # NVIDIA/nccl#1485 (https://github.com/NVIDIA/nccl/issues/1485): the peer's address is NCCL's 'host<port>'
    text = ("node2:24881:25566 [2] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer "
            "node2<47247>\nnode2:24881:25566 [2] NCCL INFO misc/socket.cc:749 -> 6\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file")
    causes = [c for f in doc["findings"] for c in f["causes"] if c.get("values")]
    assert causes and causes[0]["values"] == {"1": "node2<47247>"}, doc["findings"]
    assert any("(on the node of 'node2<47247>')" in x for x in causes[0]["fix"]), causes[0]["fix"]
    assert re.search(r"\{%-?\d", json.dumps(doc)) is None


def test_refix_sites_keeps_the_committed_tables_in_step_with_the_rows():
    # tools/refix_sites.py: every committed site's means/fix is its row's (slots read as their words); a site
    # whose text no row says stops it, so a reworded row is never silently lost
    import sys

    sys.path.insert(0, os.path.join(REPO, "tools"))
    import refix_sites

    with open_generated("gloo_messages") as f:
        doc = json.load(f)
    before = json.dumps(doc["sites"], sort_keys=True)
    assert json.dumps(refix_sites.refix("gloo_messages", doc)["sites"], sort_keys=True) == before
    site = next(s for s in doc["sites"] if s.get("fix"))
    site["means"] = "words no row says"
    with pytest.raises(ValueError, match="no row of MSG_FIX says"):
        refix_sites.refix("gloo_messages", doc)
    assert refix_sites.main(["--check"] + sorted(refix_sites.TABLES)) == 0

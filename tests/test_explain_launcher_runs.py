"""Launcher errors run for real (fixtures/explain/launchers-cpu-2026-11-25/: deepspeed 0.19.8 and
accelerate 1.15.0 on a CPU machine, its README says what ran): each gets its message's own meaning and
fix from tools/gen_launcher_messages.py's MSG_FIX table; a run that only warns stays no_error.
"""

import os

import pytest
from explainhelp import assert_root

from gpudoctor import explain

RUNS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "explain",
                    "launchers-cpu-2026-11-25")


def _root(kb, name):
    res = explain.explain_file(os.path.join(RUNS, name), kb)
    return res, (res["findings"][0] if res["findings"] else None)


@pytest.mark.parametrize("log,entry,means,fix", [
    ("ds_hostfile_bad.log", "deepspeed.launcher", "_parse_hostfile()", "'<hostname> slots=<GPUs on it>'"),
    ("ds_hostfile_dup.log", "deepspeed.launcher", "each host may appear once", "one line per host"),
    ("ds_include_exclude.log", "deepspeed.launcher", "--include and --exclude cannot be combined", "keep one selection"),
    ("ds_include_unknown.log", "deepspeed.launcher", "parse_resource_filter()", "the hostfile's own host names"),
    ("acc_cpu_multi_gpu.log", "launcher.accelerate_error", "_validate_launch_command()", "pass one of them"),
])
def test_launcher_errors_get_their_messages_own_fix(kb, log, entry, means, fix):
    res, _ = _root(kb, log)
    first = assert_root(res, entry, verdict="root_cause", confidence="cause", fix=fix)["causes"][0]
    assert means in first["text"] and first["evidence"]


def test_deepspeed_without_a_hostfile_is_a_note_when_the_run_succeeds(kb):
    res, root = _root(kb, "ds_no_hostfile.log")
    assert res["verdict"] == "no_error" and root is None
    note = next(n for n in res["context"] if n["id"] == "deepspeed.no_hostfile")
    assert "--hostfile" in note["fix"] and "only this node" in note["note"]

"""review21: what one engineer's change said beside another's (this session's commits).

- 083d1a6 (slurm21) reports a node whose task Slurm ended mid-run as error_kind `slurm`; 48749e3 (userwalk21) prints
  transport.HINTS beside a node that could not be checked. The `slurm` hint said only "srun could not run the
  collector on the node: see scontrol show node", wrong for a step that scancel, a revoked allocation or the time
  limit ended: it now says what to do for both."""

import json
import os
import shutil

import pytest

from gpudoctor import cli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FACTS = os.path.join(ROOT, "fixtures", "nodes", "devbox-debian12-nogpu.json")


def test_a_step_slurm_ended_gets_a_hint_that_fits_it(tmp_path, capsys):
    folder = tmp_path / "facts"
    folder.mkdir()
    shutil.copy(FACTS, folder / "sn1.json")
    error = ("Slurm ended the step before this node's task finished (srun: Job step aborted; task: Terminated): "
             "the job was cancelled, its allocation revoked or its time limit reached")
    (folder / "sn4.json").write_text(json.dumps({"schema": "gpudoctor.node/1", "host": "sn4", "error": error,
                                                 "error_kind": "slurm"}))
    assert cli.main(["check", "--facts", str(folder), "--select", "shm"]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "FAIL node sn4 could not be checked (slurm): Slurm ended the step" in out
    assert "where Slurm ended the step" in out and "run it again in a live allocation" in out, out


# aac7ef5 (launch21) follows the script's cd for $(pwd) / `pwd` / $PWD. `cd -` (bash(1): "equivalent to cd
# $OLDPWD") was read as a bare `cd` (home: the '-' was dropped as an option) and pushd was not followed at all:
# each gave a concrete path bash never passes. Checked against bash with argv-recording stubs.
@pytest.mark.parametrize("body,exact", [
    ("cd %(d)s\npushd %(d)s/code >/dev/null\ntorchrun --nproc_per_node 2 $(pwd)/train.py\n", True),
    ("cd %(d)s/code\ncd %(d)s\ncd - >/dev/null\ntorchrun --nproc_per_node 2 $(pwd)/train.py\n", False),
    ("pushd %(d)s >/dev/null\npushd %(d)s/code >/dev/null\npopd >/dev/null\n"
     "torchrun --nproc_per_node 2 `pwd`/train.py\n", False),
])
def test_the_plan_follows_pushd_and_never_takes_cd_dash_for_home(tmp_path, body, exact):
    from gpudoctor.launch.script import MARK, read_script
    from test_launch_scripts21 import bash_argv

    (tmp_path / "code").mkdir()
    p = tmp_path / "s.sh"
    p.write_text("#!/bin/bash\n" + body % {"d": tmp_path})
    (real,) = bash_argv(tmp_path, p)
    (la,) = read_script(str(p), [], environ={}).launches
    assert len(la.argv) == len(real) and (la.argv[-1] == real[-1] or MARK in la.argv[-1]), (la.argv, real)
    assert la.argv[-1] == real[-1] if exact else MARK in la.argv[-1]


def test_a_config_entry_for_a_watch_check_is_no_typo_and_watch_honours_it(tmp_path, capsys):
    # 11427b2 warns of ignore / severity entries that match no check, over check's registry only; the same
    # config's severity table changes `gpudoctor watch` (runner.run_checks): "watch.bound" = "warning" turns its
    # FAIL into a WARN there, so "matches no check: it changes nothing" was false for it. watch did not honour the
    # ignore list (docs/config.md: "skip these checks"): it does now, so such an entry is no typo either
    cfg = tmp_path / "gpudoctor.toml"
    cfg.write_text('[gpudoctor]\nignore = ["watch.transport", "watch.transprt"]\n'
                   '[gpudoctor.severity]\n"watch.bound" = "warning"\n"watch.bond" = "warning"\n')
    assert cli.main(["check", "--config", str(cfg), "--facts", FACTS, "--select", "shm"]) == 0
    err = capsys.readouterr().err
    assert "severity 'watch.bond' matches no check" in err and "watch.bound'" not in err, err
    assert "ignore 'watch.transprt' matches no check" in err and "'watch.transport'" not in err, err
    sockets = os.path.join(ROOT, "fixtures", "watch", "h100x4", "sockets.json")
    assert cli.main(["watch", "--config", str(cfg), "--facts", sockets, "--json"]) == 0  # its FAIL is a WARN
    doc = json.loads(capsys.readouterr().out)
    assert [c["id"] for c in doc["checks"] if c["id"].startswith("watch.")] == ["watch.bound", "watch.memory", "watch.target"], doc


def test_an_interpreter_that_prints_the_environment_never_shows_its_values(tmp_path, capsys):
    # 3b09e44 shows the first 120 characters an interpreter that prints no facts printed; `--python /usr/bin/env`
    # (or a wrapper that dumps it) would put the environment's values into the report and the facts
    fake = tmp_path / "envdump"
    fake.write_text("#!/bin/sh\necho 'HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123 PATH=/usr/bin'\n")
    fake.chmod(0o755)
    cli.main(["check", "--python", str(fake), "--select", "python.env", "--verbose", "--no-history"])
    out = " ".join(capsys.readouterr().out.split())
    assert "printed no facts" in out and "began with HF_TOKEN=... PATH=..." in out, out
    assert "hf_AbCd" not in out and "/usr/bin'" not in out


# The reader's `&&` / `||` took a test it cannot decide (a value from the environment at run time) as true: the
# command after it ran for the plan, so `A=4; [ -n "$X" ] && A=8` planned 8 where bash without X passes 4 (real
# scripts: `[ -n "$SLURM_JOB_ID" ] && NNODES=$SLURM_NNODES`). Undecided, as the same `if` already was.
@pytest.mark.parametrize("guard", ['[ -n "$X" ] && A=8', '[ -z "$X" ] || A=8', '[ -n "$X" ] && true && A=8',
                                   'if [ -n "$X" ]; then A=8; fi'])
def test_a_value_set_after_a_run_time_test_is_unknown_not_taken(tmp_path, guard):
    from gpudoctor.launch.script import MARK, read_script
    from test_launch_scripts21 import bash_argv

    p = tmp_path / "g.sh"
    p.write_text("#!/bin/bash\nunset X\nA=4\n%s\ntorchrun --nproc_per_node $A train.py\n" % guard)
    (real,) = bash_argv(tmp_path, p)
    assert real[2] == "4"
    (la,) = read_script(str(p), [], environ={}).launches
    assert MARK in la.argv[2], la.argv  # 4 or 8: decided at run time
    # a test the reader decides still decides
    p.write_text("#!/bin/bash\nX=1\nA=4\n%s\ntorchrun --nproc_per_node $A train.py\n" % guard)
    (la,) = read_script(str(p), [], environ={}).launches
    assert la.argv[2] == "8", la.argv

"""review21: what one engineer's change said beside another's (this session's commits).

- 083d1a6 (slurm21) reports a node whose task Slurm ended mid-run as error_kind `slurm`; 48749e3 (userwalk21) prints
  transport.HINTS beside a node that could not be checked. The `slurm` hint said only "srun could not run the
  collector on the node: see scontrol show node", wrong for a step that scancel, a revoked allocation or the time
  limit ended: it now says what to do for both."""

import json
import os
import shutil

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

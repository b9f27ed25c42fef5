"""Review of session 28's changes (review28): defects found by hand through the CLI, each test failing before its fix."""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cli(*args):
    p = subprocess.run([sys.executable, "-m", "gpudoctor"] + list(args), capture_output=True, text=True, cwd=ROOT,
                       timeout=120)
    return p.returncode, p.stdout, p.stderr


def test_plan_launch_sbatch_wrap_is_read_as_its_script():
    # 66fb95a5 reads `sbatch -N 2 --wrap '...'` in a script; the same line given to --launch was taken for a script
    # path ("cannot read script 'srun torchrun ...'", exit 2), and --wrap=CMD was refused as "not a launcher"
    for line in ("sbatch -N 2 --wrap 'srun torchrun --nnodes 2 --nproc-per-node 4 t.py'",
                 "sbatch -N 2 --wrap='srun torchrun --nnodes 2 --nproc-per-node 4 t.py'"):
        rc, out, err = cli("plan", "--json", "--launch", line)
        assert "cannot read script" not in err and "not a launcher" not in err, err
        assert rc in (0, 1), (rc, err)
        res = json.loads(out)
        la = res["launches"]
        assert len(la) == 1
        assert la[0]["plan"]["world_size"] == {"min": 8, "max": 8}, la[0]["plan"]
        assert any("sbatch --wrap" in n for n in res["notes"]), res["notes"]


def test_plan_launch_sbatch_script_still_names_a_missing_file():
    rc, out, err = cli("plan", "--launch", "sbatch -N 2 no-such-job.sbatch")
    assert rc == 2 and "cannot read script 'no-such-job.sbatch'" in err, (rc, err)

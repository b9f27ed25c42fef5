"""userwalk29: what a new user tripped on in a fresh clone (session 29), through the CLI."""

import json
import os
import subprocess
import sys


def _cli(args, tmp_path, env=None, drop=()):
    """The real CLI in a subprocess, with the variables named in ``drop`` (prefixes) unset."""
    e = {k: v for k, v in os.environ.items() if not k.startswith(tuple(drop))}
    e.update(env or {})
    p = subprocess.run([sys.executable, "-m", "gpudoctor"] + list(args), capture_output=True, text=True, env=e,
                       cwd=str(tmp_path), timeout=120)
    return p.returncode, p.stdout, p.stderr


def test_diff_shows_an_empty_value_as_an_empty_word(tmp_path):
    # A variable set to the empty string (NCCL_IB_HCA= : set, which NCCL reads otherwise than unset) and then
    # unset read 'NCCL_IB_HCA  -> (absent)' in diff: nothing between the name and the arrow. Real facts of this
    # machine, gathered twice by the CLI.
    for name, env in (("before.json", {"NCCL_IB_HCA": ""}), ("after.json", {})):
        rc, out, err = _cli(["facts", "-o", name], tmp_path, env=env, drop=("NCCL_", "GPUDOCTOR_"))
        assert rc in (0, 1), err
    assert json.loads((tmp_path / "before.json").read_text())["env"]["values"]["NCCL_IB_HCA"] == ""
    rc, out, err = _cli(["diff", "before.json", "after.json"], tmp_path, drop=("NCCL_",))
    assert rc in (0, 1), err
    lines = [l.strip() for l in out.splitlines() if "NCCL_IB_HCA" in l]
    assert lines and all(l.endswith("NCCL_IB_HCA '' -> (absent)") for l in lines), out
    rc, out, err = _cli(["diff", "after.json", "before.json", "--json"], tmp_path, drop=("NCCL_",))
    doc = json.loads(out)
    assert "NCCL_IB_HCA (absent) -> ''" in json.dumps(doc), out

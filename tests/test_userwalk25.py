"""What userwalk25's fresh-clone walk ran into. Each test runs the CLI (a real process; real bash for the limits)."""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("COLUMNS", "LINES", "NO_COLOR", "TERM", "CI", "GPUDOCTOR_STATE_DIR")}
    env.update(PYTHONPATH=ROOT, **extra)
    return env


def test_explain_check_since_compares_this_machine_now_with_its_history(tmp_path):
    """`gpudoctor explain --check --since last-good ERROR` on the failing node itself was refused ('--since/--state-dir
    need --facts'): the user had to save a facts file first. --check gathers this machine now, as `gpudoctor diff
    --since` does, and the change that matches the error is named (memlock 8 MiB -> 64 KiB under `ulimit -l`, real
    bash; an ibv_reg_mr ENOMEM)."""
    (tmp_path / "sev.toml").write_text('[gpudoctor.severity]\n"limits.memlock" = "error"\n')
    (tmp_path / "err.txt").write_text(
        "gpu01:1:1 [0] misc/ibvwrap.cc:123 NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory\n")
    state = str(tmp_path / "state")

    def gd(limit_kib, *argv):
        return subprocess.run(["bash", "-c", 'ulimit -l %d && exec "$@"' % limit_kib, "bash", sys.executable, "-m",
                               "gpudoctor"] + list(argv), capture_output=True, text=True, env=_env(),
                              cwd=str(tmp_path), timeout=120)

    p = gd(8192, "check", "--history", "--state-dir", state, "--config", "sev.toml")
    assert p.returncode == 1 and "FAIL limits.memlock" in p.stdout, p.stdout + p.stderr
    p = gd(64, "explain", "--check", "--since", "last-good", "--state-dir", state, "err.txt")
    assert p.returncode == 0 and not p.stderr, p.stderr
    lines = [x for x in p.stdout.splitlines() if x.startswith("history: ")]
    assert any("(limits.memlock" in x and "memlock soft 8.0 MiB -> 64.0 KiB" in x for x in lines), p.stdout
    assert "CHECKS RUN ON" in p.stdout, p.stdout  # --check still runs the confirming checks
    p = gd(64, "explain", "--json", "--check", "--state-dir", state, "err.txt")
    doc = json.loads(p.stdout)
    (node,) = doc["history"]["nodes"]
    assert node["matches"] and doc["facts"]["source"] == "this machine", doc["history"]
    # neither --facts nor --check: still one line, naming both
    p = gd(64, "explain", "--since", "last-good", "--state-dir", state, "err.txt")
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "--check" in p.stderr and "--facts" in p.stderr, p.stderr

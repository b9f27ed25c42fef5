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


def test_nccl_env_evidence_says_when_the_nodes_torch_is_not_the_tables(tmp_path):
    """check's nccl.env pass read '2 NCCL_* names checked against NCCL 2.30.7 (this node loads 2.28.9: ...) and PyTorch
    2.14.1+cu130' on a node whose profile, three lines above, shows torch 2.11.0+cu130 (README's real 2x H200): the
    table's release, named as if the node ran it. It now says the node's torch where it differs, as for NCCL."""
    src = os.path.join(ROOT, "fixtures", "nodes", "h200x2-ubuntu2404-torch211.json")

    def evidence(path):
        p = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--facts", path, "--json", "--select",
                            "nccl.env"], capture_output=True, text=True, env=_env(), cwd=str(tmp_path), timeout=120)
        (c,) = [c for c in json.loads(p.stdout)["checks"] if c["id"] == "nccl.env"]
        return " ".join(c.get("evidence") or []) if isinstance(c.get("evidence"), list) else str(c.get("evidence"))

    ev = evidence(src)
    assert "and PyTorch 2.14.1+cu130 (this node has torch 2.11.0+cu130: a TORCH_NCCL_* name added after it would " \
           "pass)" in ev, ev
    with open(src) as f:
        doc = json.load(f)
    table = json.load(open(os.path.join(ROOT, "gpudoctor", "data", "nccl_env.json")))["torch"]["version"]
    doc["python"]["torch"]["version"] = table  # the table's own release: nothing to add
    (tmp_path / "same.json").write_text(json.dumps(doc))
    ev = evidence(str(tmp_path / "same.json"))
    assert ("and PyTorch %s: " % table) in ev and "this node has torch" not in ev, ev

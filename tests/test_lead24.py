"""Lead's fixes of session 24 (2026-11-28), each through the CLI."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _explain(*args):
    env = dict(os.environ, PYTHONPATH=ROOT, COLUMNS="200")
    return subprocess.run([sys.executable, "-m", "gpudoctor", "explain", *args], capture_output=True, text=True,
                          env=env, timeout=120)


def test_generic_triage_prints_its_own_pipe_as_a_pipe():
    # The NO KNOWN ERROR triage lines are gpudoctor's own (explain.GENERIC_TRIAGE), not log words: the prose guard
    # for log values (docs/security.md 58.) wrote its `dmesg -T | grep -iE 'xid|...'` as $'\x7c' words, a command
    # that no longer pipes when pasted.
    p = _explain("frobnicate failed with a weird thing")
    assert p.returncode == 1, p.stderr
    assert "sudo dmesg -T | grep -iE 'xid|nvrm|mlx5|oom'" in " ".join(p.stdout.split())
    assert "\\x7c" not in p.stdout


def test_the_ceiling_bench_reads_both_labelers_and_their_agreement():
    # bench/explain_ceiling.py: the figures docs/explain.md quotes (two labelers' judgements of 90 texts)
    p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "explain_ceiling.py")], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "labeler A: derivable 81 (90%)" in p.stdout
    assert "labeler B: derivable 80 (89%)" in p.stdout
    assert "both derivable: 79 (88%); either: 82 (91%); agreement 87/90, Cohen's kappa 0.83" in p.stdout

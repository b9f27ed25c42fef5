"""perf29: logs dense in UNPREFIXED error lines (an N-rank job's 'RuntimeError: ...' lines merged in any order) cost
~1-2 ms of CPU a line (red team, session 29: 40,000 random lines of 10 shapes, 125 s): each line reads the next ones
as its wrapped continuation lines and takes needles from them, so perf27's shape key (line 0, its continuation lines'
shapes, its needles) seldom repeats and nearly every line was tried on all of its candidates. scan._alone keeps per
shape of line 0 alone the patterns that may match it; of the others only those whose needles and required text the
line's joins hold are tried. The answers stay those of the scan without the shape cache (scan.SHAPES off), on the
logs of bench/explain_dense_lines29.py (real texts from fixtures/logs multiplied across ranks, and the red team's)."""

import importlib.util
import io
import os

import pytest

from gpudoctor import explain
from gpudoctor.explain import scan as scan_mod

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _bench():
    spec = importlib.util.spec_from_file_location(
        "explain_dense_lines29", os.path.join(ROOT, "bench", "explain_dense_lines29.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


BENCH = _bench()


def _run(kb, data, monkeypatch, shapes):
    """(answer, patterns handed to _evaluate in all) with the shape caches on or off."""
    tried = [0]
    real = scan_mod._evaluate

    def counting(kb_, win, needles, only=None):
        tried[0] += len(scan_mod._patterns_of(kb_, needles) if only is None else only)
        return real(kb_, win, needles, only)

    monkeypatch.setattr(scan_mod, "SHAPES", shapes)
    monkeypatch.setattr(scan_mod, "_evaluate", counting)
    res = explain.explain_stream(io.BytesIO(data), kb)
    return {k: v for k, v in res.items() if k != "version"}, tried[0]


@pytest.mark.parametrize("shape", ["watchdog", "ib_bare", "bare_mixed", "redteam29"])
def test_dense_log_answers_as_without_the_shape_caches(kb, monkeypatch, shape):
    data = BENCH.build(shape, 40).encode()
    on, _ = _run(kb, data, monkeypatch, True)
    off, _ = _run(kb, data, monkeypatch, False)
    # (redteam29's lines wrap into each other: with the join candidates of scan._alone left out, its answer differs)
    assert on == off
    assert on["root"]  # (each log has a root: the shapes are real failures)


def test_unprefixed_lines_in_any_order_are_pruned_by_their_first_line(kb, monkeypatch):
    data = BENCH.build("redteam29", 100).encode()  # 1,000 lines of 10 shapes in a random order
    on, work_on = _run(kb, data, monkeypatch, True)
    off, work_off = _run(kb, data, monkeypatch, False)
    assert on == off
    # measured: 30,188 candidate tries; 193,930 before perf29 (perf27's key: 1,100 keys in 2,000 such lines)
    assert work_on < work_off / 4, (work_on, work_off)


"""perf27: logs dense in error lines (a 1,000-node job where every rank fails alike) cost ~2 ms of CPU a line in
scan._evaluate (red team, session 27): srun's one line per task ('srun: error: node7: task 7: Exited with exit code
1') reads the next task lines as its wrapped continuations and has a two-line candidate, so the shape cache
(perf21) never kept its shape and each line was tried against all ~310 candidates. The shape cache now keys on the
continuation lines' shapes too and keeps a shape's matched and two-line patterns, and those with digits of their own
whose widened form (scan._relaxed) matches line 0 or its joins. The
answers stay those of the scan without the shape cache (scan.SHAPES off), on the shapes of bench/explain_dense27.py
(real texts from fixtures/logs/planted/nccl.socket_ifname__h200x2-no-such-interface.log multiplied across ranks)."""

import importlib.util
import io
import os

import pytest

from gpudoctor import explain
from gpudoctor.explain import scan as scan_mod

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _bench():
    spec = importlib.util.spec_from_file_location("explain_dense27", os.path.join(ROOT, "bench", "explain_dense27.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


BENCH = _bench()


def _run(kb, data, monkeypatch, shapes):
    """(answer, patterns handed to _evaluate in all) with the shape cache on or off."""
    tried = [0]
    real = scan_mod._evaluate

    def counting(kb_, win, needles, only=None):
        tried[0] += len(scan_mod._patterns_of(kb_, needles) if only is None else only)
        return real(kb_, win, needles, only)

    monkeypatch.setattr(scan_mod, "SHAPES", shapes)
    monkeypatch.setattr(scan_mod, "_evaluate", counting)
    res = explain.explain_stream(io.BytesIO(data), kb)
    return {k: v for k, v in res.items() if k != "version"}, tried[0]


@pytest.mark.parametrize("shape", ["srun", "rank_tb", "nccl_warn", "glog", "mixed"])
def test_dense_log_answers_as_without_the_shape_cache(kb, monkeypatch, shape):
    data = BENCH.build(shape, 120).encode()
    on, _ = _run(kb, data, monkeypatch, True)
    off, _ = _run(kb, data, monkeypatch, False)
    assert on == off
    # the root is the planted log's (NCCL_SOCKET_IFNAME names no interface), whatever the echoes around it
    assert on["root"] == "nccl.socket_ifname"


def test_srun_task_lines_are_pruned_by_their_shape(kb, monkeypatch):
    data = BENCH.build("srun", 400).encode()
    on, work_on = _run(kb, data, monkeypatch, True)
    off, work_off = _run(kb, data, monkeypatch, False)
    assert on == off
    # 400 task lines of 4 shapes (task 0-9, 10-99, 100-399 and the last line's neighbours): after the first line of
    # each shape only its matched and two-line candidates, and those with digits of their own whose widened form
    # matches its texts, are tried (measured: 14,515 candidate tries against 125,975 without the shape cache;
    # 125,095 before perf27, when the shape was never kept)
    assert work_on < work_off / 3, (work_on, work_off)


def test_a_continuation_of_another_shape_is_not_answered_from_the_cache(kb, monkeypatch):
    # Two wrapped lines with the same line 0 shape whose continuations differ in words, not digits: the second must
    # be searched on its own joins (its continuation's shape is part of the key), so both answers stay exact.
    head = b"srun: error: node0001: task 1: Exited with exit code 1 while the job was being torn down and\n"
    data = (head + b"the step failed because NCCL_SOCKET_IFNAME set to doesnotexist0 was not found\n\n"
            + head.replace(b"task 1:", b"task 2:") + b"nothing else was printed by this task before it ended\n")
    on, _ = _run(kb, data, monkeypatch, True)
    off, _ = _run(kb, data, monkeypatch, False)
    assert on == off

"""perf21: training progress lines (Megatron-LM's iteration line, transformers' log dicts, DeepSpeed's samples/sec)
are candidates for explain's _meaning/_settings readers, and their digits make every line unique, so the line cache
never hits: ~0.8 ms of CPU each, a 100 MB log past the 300 s deadline. The scan's shape cache (the patterns that
matched a shape's first line) and the readers' idle budget (scan.READER_IDLE) make them cheap; the answers stay those
of the scan without them (scan.SHAPES off)."""

import io
import time

import pytest

from gpudoctor import explain
from gpudoctor.explain import scan as scan_mod


def _megatron(n, start=1):
    # Megatron-LM's training_log line (megatron/training/training.py, https://github.com/NVIDIA/Megatron-LM)
    return b"".join(
        b" [2024-03-01 12:%02d:%02d] iteration %8d/  500000 | consumed samples: %12d | elapsed time per iteration "
        b"(ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: %.6E | global batch size:  1024 | "
        b"lm loss: %.6E | loss scale: 65536.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan "
        b"iterations:   0 |\n" % (i // 60 % 60, i % 60, i, i * 1024, 500 + i % 37 / 3.0, 180 + i % 11 / 7.0,
                                  3e-4 * (1 - i / 5e5), 2 + i % 97 / 31.0, 0.5 + i % 13 / 17.0)
        for i in range(start, start + n))


def _others(n):
    # transformers' Trainer.log dict and DeepSpeed's pipeline engine line (samples/sec)
    return b"".join(b"{'loss': %.4f, 'grad_norm': %.6f, 'learning_rate': %.4e, 'epoch': %.2f}\n"
                    b"steps: %d loss: %.4f iter time (s): %.3f samples/sec: %.3f\n"
                    % (2 + i % 89 / 97.0, 0.5 + i % 7 / 11.0, 5e-5 * (1 - i / 5e5), i / 1e4, i, 2 + i % 83 / 91.0,
                       0.4 + i % 5 / 50.0, 250 + i % 19 / 3.0) for i in range(1, n + 1))


def _answer(res):
    drop = ("version",)
    return {k: v for k, v in res.items() if k not in drop}


def _both(kb, data, monkeypatch):
    """(answer with the shape cache, CPU s; answer without it, CPU s)."""
    out = []
    for on in (True, False):
        monkeypatch.setattr(scan_mod, "SHAPES", on)
        t = time.process_time()
        res = explain.explain_stream(io.BytesIO(data), kb)
        out.append((_answer(res), time.process_time() - t))
    return out


def test_progress_lines_cost_a_fraction_of_the_reader_path_and_answer_the_same(kb, monkeypatch):
    assert kb.prefilters  # (compiled before any clock starts)
    data = _megatron(900) + _others(150)
    explain.explain_stream(io.BytesIO(_megatron(5)), kb)  # the readers' tables loaded before the clock
    (on, t_on), (off, t_off) = _both(kb, data, monkeypatch)
    assert on == off
    # measured 0.23 vs 0.83 ms a line (2-core VM under load); the bound leaves room for noise
    assert t_on < 0.6 * t_off, "with shapes %.2fs, without %.2fs" % (t_on, t_off)


def test_reader_budget_stops_asking_after_idle_lines_of_one_shape(kb, monkeypatch):
    asked = []
    from gpudoctor.explain import meaning

    real = meaning.record
    monkeypatch.setattr(meaning, "record", lambda scan, hit: asked.append(hit.line) or real(scan, hit))
    sc = scan_mod.scan_stream(io.BytesIO(_megatron(1000)), kb)
    assert len(asked) <= scan_mod.READER_IDLE + 8  # one shape (a few more: the iteration number's width, none here)
    assert sc.tried + sc.replayed + sc.shape_skipped == 1000


def test_a_told_failure_among_progress_lines_is_still_read(kb):
    # the user's sentence is a shape of its own: the budget of the progress lines' shape does not cover it
    data = _megatron(600) + b"after iteration 600 the loss is nan on every rank and training hangs\n" + \
        _megatron(600, 601)
    sc = scan_mod.scan_stream(io.BytesIO(data), kb)
    assert any(line == 601 for line, _t, _s in (sc.meaning or [])), sc.meaning


@pytest.mark.parametrize("late", [
    b"torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) local_rank: 3 (pid: 4711) of "
    b"binary: /usr/bin/python\n",
    b"NCCL_P2P_LEVEL=0 NCCL_IB_DISABLE=1 torchrun --nproc_per_node 8 train.py\n",
])
def test_lines_that_differ_only_in_digits_keep_their_own_answer(kb, monkeypatch, late):
    # the same shape as the lines before it (each digit read as 0), a different answer: a pattern with digits of its
    # own is never left out for a shape (scan._shape_blind)
    same_shape = late.replace(b"-9", b"-1").replace(b"3", b"5").replace(b"LEVEL=0", b"LEVEL=1")
    data = same_shape * 300 + late + _megatron(200)
    (on, _), (off, _) = _both(kb, data, monkeypatch)
    assert on == off
    if b"exitcode" in late:  # the one -9 line among 300 of -1 is what makes the answer (the shape's first line is not)
        assert on["root"] == "elastic.sigkill"


def test_a_huge_first_file_does_not_starve_the_small_ones_after_it(kb, monkeypatch, tmp_path):
    # userwalk21: logs/ with a 100 MB rank0.log of progress lines and rank1.log with the NCCL error: the deadline
    # passed inside rank0.log, 'NO ERROR FOUND', exit 1. The first file's share of the time ends (here: a stop_reason
    # that says 'timeout' while the scan is in it); the file after it is still read whole
    big, small = tmp_path / "rank0.log", tmp_path / "rank1.log"
    big.write_bytes(_megatron(3000))
    small.write_bytes(b"[rank1]:[E1123 12:00:01.1 ProcessGroupNCCL.cpp:1] NCCL error: unhandled system error\n")
    monkeypatch.setattr(scan_mod, "BLOCK", 4096)
    real = scan_mod.Scan.stop_reason

    def cut_in_the_first_file(self):
        return "timeout" if len(self.sources) == 1 and self.lines + self.tried > 200 else real(self)

    monkeypatch.setattr(scan_mod.Scan, "stop_reason", cut_in_the_first_file)
    inputs = [(str(p), (lambda p=p: open(str(p), "rb"))) for p in (big, small)]
    res = explain.explain_inputs(inputs, kb, deadline=time.monotonic() + 3600)
    st = res["stopped_early"]
    assert st["reason"] == "timeout" and st["file"] == str(big) and st["read_after"] == [str(small)]
    assert res["root"] == "nccl.system_error" and explain.exit_code(res) == 0
    assert [s["path"] for s in res["sources"]] == [str(big), str(small)]
    out = io.StringIO()
    explain.render_text(res, out)
    said = " ".join(out.getvalue().split())
    assert "and the 1 file read whole after it (" in said and "rank1.log)" in said
    # one input: unchanged (the deadline is the whole budget, the scan stops there)
    res = explain.explain_inputs(inputs[:1], kb, deadline=time.monotonic() + 3600)
    assert res["stopped_early"]["reason"] == "timeout" and "read_after" not in res["stopped_early"]


def test_a_large_file_past_its_time_reads_its_tail_with_the_right_line_numbers(kb, monkeypatch, tmp_path):
    # the error a failing job prints last, after a long middle: the middle is passed over (its lines counted) once the
    # file's time is nearly spent, and the last TAIL_SCAN bytes are read; the answer says which lines it did not judge
    log = tmp_path / "train.log"
    body = _megatron(3000)
    log.write_bytes(body + b"[rank3]:[E1123 12:00:01.1 ProcessGroupNCCL.cpp:1] NCCL error: unhandled system error\n"
                    + _megatron(20, 3001))
    monkeypatch.setattr(scan_mod, "BLOCK", 4096)
    monkeypatch.setattr(scan_mod, "TAIL_SCAN", 16000)
    monkeypatch.setattr(explain, "TAIL_CUT", 1.0)  # the middle's time ends at once: after the first block
    res = explain.explain_file(str(log), kb, deadline=time.monotonic() + 3600)
    st = res["stopped_early"]
    assert res["root"] == "nccl.system_error" and explain.exit_code(res) == 0
    assert res["findings"][0]["first_line"] == 3001 and res["lines"] == 3021
    assert st["reason"] == "timeout" and st["line"] < st["resumed_line"] < 3001
    assert body.count(b"\n", 0, len(body) - 16000) < st["resumed_line"] <= 3000
    out = io.StringIO()
    explain.render_text(res, out)
    said = " ".join(out.getvalue().split())
    assert "then read on from its line %d to its end" % st["resumed_line"] in said

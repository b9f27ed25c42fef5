"""fp26 (issue 18 item 3, never confidently wrong): caught refusals before the real failure, and healthy runs.

Real runs here (fixtures/explain/fp26/, README.md says how; torchrun of torch 2.13.0+cpu, two gloo processes):
src/probe.py tries three torch.distributed layouts the world cannot hold, catches each refusal and logs it with
logging.exception (Lib/logging/__init__.py: 'This method should only be called from an exception handler'), falls
back and trains on; with FAIL=1 rank 1 then loads a checkpoint that is not there, which nothing catches. The program
logging an INFO record of the same logger after the caught tracebacks ('INFO probe: rank 1 of 2: mesh ...') shows it
was alive after them: the root is the later FileNotFoundError, not the caught refusals (outcome._later_record).
MODE=print prints them with traceback.print_exc() instead: after init_process_group torch prints an uncaught exception
with '[rank<N>]: ' on every line (torch >= 2.3, https://github.com/pytorch/pytorch/pull/118190), so the bare ones
before rank 1's prefixed one were printed by the program (outcome._printed_by_program)."""

import os

import pytest

from gpudoctor import explain

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(os.path.dirname(HERE), "fixtures", "explain", "fp26")


def _res(kb, name):
    with open(os.path.join(FIX, name), encoding="utf-8") as f:
        return explain.explain_text(f.read(), kb, source=name)


def _root(r):
    return next((f for f in r["findings"] if f.get("role") == "root"), None)


@pytest.mark.parametrize("name", [
    "torchrun-caught-refusals-log-then-rank1-missing-ckpt.log",  # logging.exception records, then INFO ones
    # traceback.print_exc(): bare tracebacks before rank 1's uncaught one, printed by torch's excepthook as '[rank1]: '
    "torchrun-caught-refusals-print-then-rank1-missing-ckpt.log",
])
def test_caught_refusals_then_a_real_failure_root_the_real_failure(kb, name):
    r = _res(kb, name)
    root = _root(r)
    assert root is not None and root["id"] != "torch.distributed_usage", [(f["id"], f.get("role")) for f in r["findings"]]
    assert any("step_100.pt" in (m.get("text") or "") or "FileNotFoundError" in (m.get("text") or "")
               for m in root.get("matches") or ()), root.get("matches")
    assert not any(f["id"] == "torch.distributed_usage" and f.get("role") == "root" for f in r["findings"])


@pytest.mark.parametrize("name", [
    "torchrun-caught-refusals-log-completes.log",  # the same caught refusals, then training completes
    "torchrun-cpp-info-healthy.log",  # TORCH_CPP_LOG_LEVEL=INFO: c10d's store and uv_loop lines
    "torchrun-debug-info-healthy.log",  # TORCH_DISTRIBUTED_DEBUG=INFO
    "accelerate-cpu-healthy.log",  # accelerate launch's 'values were not passed' defaults warning
])
def test_a_healthy_real_run_gets_no_root(kb, name):
    r = _res(kb, name)
    assert _root(r) is None and r["verdict"] != "root_cause", (r["verdict"], [f["id"] for f in r["findings"]])


def test_a_real_crash_after_info_records_keeps_its_root(kb):
    # TORCH_DISTRIBUTED_DEBUG=DETAIL: both workers died of SIGSEGV here (torchrun's report); INFO records before it
    r = _res(kb, "torchrun-debug-detail-ddp-sigsegv.log")
    assert _root(r) is not None and _root(r)["id"] == "elastic.sigsegv", [f["id"] for f in r["findings"]]

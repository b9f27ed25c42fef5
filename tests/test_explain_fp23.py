"""fp23: failure lines of runs that went on are no root (issue 18: "gives no root cause for a healthy log"), and a
caught error is not what a later failure is read as.

Every text was recorded here (fixtures/explain/fp23/README.md says how, the programs are in fixtures/explain/fp23/src).
Session 23's readers count a runtime's abort report (glibc's assert, Rust's panic) and Docker's 'Error response from
daemon' as failure lines and lastresort.py names a family for one nothing else read; a test run prints such lines on
purpose (a death test's child, a #[should_panic] test, pytest's captured output) and then its summary says nothing
failed. The runner's summary is now the run's end (outcome._END); its failure summary is a launcher's 'the job failed'
(outcome._TERMINAL), which an earlier suite's passing summary does not outweigh (provenance._ran_past).
"""

import os

import pytest

import gpudoctor.checks  # noqa: F401
from gpudoctor import explain
from gpudoctor.explain import outcome

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def kb():
    return explain.load_knowledge()


def _read(*parts):
    with open(os.path.join(ROOT, "fixtures", *parts), encoding="utf-8") as f:
        return f.read()


HEALTHY = [
    # 96e85b7's abort readers: glibc's assert of a death test's child -> likely code.library_error before
    "cmake-ctest-V-death-test-passes.log",
    # Rust's panic of a #[should_panic] test -> unknown_error (exit 1) before
    "cargo-test-should-panic-nocapture.log",
    "cargo-test-should-panic-nocapture-nobt.log",
    # tests printing caught exceptions' lines -> likely code.library_error (lastresort) before
    "pytest-s-capture-off.log",
    # a caught traceback logged by rank 1 ('[rank1] ERROR ...' with no logger name), both ranks going on -> root_cause
    # usercode.state_dict_mismatch before
    "torchrun-cpu-ddp-caught-errors-completes.log",
    # ce8d21dc's Docker reader: a CI job's cleanup refusals, then the run (no_error before and after)
    "docker-ci-cleanup-then-run.log",
    "docker-ci-cleanup-then-run-quiet.log",
    "python-logging-exception-retry-recovered.log",
    "python-logging-warning-retry-recovered.log",
]


@pytest.mark.parametrize("name", HEALTHY)
def test_a_run_that_went_on_past_its_failure_lines_has_no_root(kb, name):
    res = explain.explain_text(_read("explain", "fp23", name), kb)
    assert (res["verdict"], res["root"], res["findings"]) == ("no_error", None, []), (res["verdict"], res["root"])


@pytest.mark.parametrize("line, kind", [
    ("========= 5 passed, 2 skipped, 1 xfailed, 3 warnings in 2.66s =========", "end"),
    ("5 passed, 2 skipped, 1 xfailed in 2.66s", "end"),
    ("3 skipped in 0.10s", "end"),
    ("test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.38s", "end"),
    ("100% tests passed, 0 tests failed out of 1", "end"),
    # a run where something failed or errored is no end
    ("1 failed, 4 passed, 2 skipped, 1 xfailed in 0.79s", "terminal"),
    ("==== 1 failed, 4 passed in 0.79s ====", "terminal"),
    ("test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s", "terminal"),
    ("0% tests passed, 1 tests failed out of 1", "terminal"),
    ("4 passed, 1 error in 0.79s", None),
    ("the loss passed 0.5 in 3s", None),
])
def test_a_test_runners_summary(line, kind):
    assert outcome.classify(line)[0] == kind


def test_a_rust_assert_eq_failure_is_no_cuda_device_assert(kb):
    res = explain.explain_text(_read("explain", "fp23", "cargo-test-assert-eq-fails.log"), kb)
    assert res["verdict"] != "no_error"
    assert "cuda.device_assert" not in [f["id"] for f in res["findings"]], res["root"]


def test_a_cuda_kernels_assert_is_still_read(kb):
    res = explain.explain_text(_read("recorded", "h100-2026-11-28", "nll_target_out_of_range_blocking.log"), kb)
    assert res["root"] == "cuda.device_assert"


def test_a_source_line_pytest_shows_is_not_read_as_the_exception(kb):
    # the failing test's body holds log.error("KeyError: ...") among the lines pytest prints: a string literal in a
    # call, which raised nothing (lastresort read it as 'the exception KeyError alone')
    res = explain.explain_text(_read("explain", "fp23", "pytest-q-one-assert-fails.log"), kb)
    assert res["verdict"] != "no_error"
    for f in res["findings"]:
        for m in f.get("matches") or []:
            assert '.error("KeyError' not in m["text"], m["text"]


def test_a_rank_that_dies_after_caught_errors_is_still_a_failure(kb):
    # the caught traceback's rank went on (the healthy run above), but here rank 1 then dies: the job failed
    res = explain.explain_text(_read("explain", "fp23", "torchrun-cpu-ddp-caught-errors-then-rank1-dies.log"), kb)
    assert res["verdict"] in ("root_cause", "likely_cause") and res["root"], res["verdict"]


def test_a_passing_suite_before_a_failing_one_is_no_end_of_the_run(kb):
    # a CI job running two suites prints both runs one after the other: the first suite's 'test result: ok' is no
    # end of the job once the second says 'test result: FAILED'
    text = (_read("explain", "fp23", "cargo-test-should-panic-nocapture-nobt.log") +
            _read("explain", "fp23", "cargo-test-assert-eq-fails.log"))
    res = explain.explain_text(text, kb)
    assert res["verdict"] != "no_error" and res["root"], res["verdict"]

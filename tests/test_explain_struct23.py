"""A family and a next step, How sure: low, for an explicit failure line nothing else read (struct23, issue 18 item 2):
gpudoctor/explain/lastresort.py, run last in explain_inputs on an 'unknown_error' answer.

Texts: the seen held-out sets (bench/data/explain_heldout_*.jsonl, cited by case id; each case's url is its source),
a real bash 5.2.15 run recorded here (fixtures/explain/struct23/bash-script-child-signals.log: a script whose
children a signal ended), and the printers' own formats (CPython's messages, Apptainer's sylog prefix, the Docker
client's 'Error response from daemon: ')."""

import os

import pytest

from gpudoctor import explain
from gpudoctor.explain import lastresort
from explainhelp import seen_text

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(os.path.dirname(HERE), "fixtures", "explain", "struct23")


def _res(text, kb):
    return explain.explain_text(text, kb)


def _root(r):
    return r["findings"][0] if r["findings"] else None


def test_a_call_that_does_not_fit_its_signature_is_two_releases(kb):
    # AN's pytorch/ao#403: torchao's nf4_detach() called by another release's caller (the label: code.lib_api_version)
    r = _res(seen_text("an-ao403-nf4-detach-qlora-fsdp2"), kb)
    assert r["verdict"] == "likely_cause" and r["root"] == "code.lib_api_version"
    assert "nf4_detach()" in " ".join(_root(r)["notes"])


def test_an_operation_on_none_is_the_code_that_passed_none(kb):
    # AC's NVIDIA docs page (Megatron Bridge, NEMO_HOME not shared): "TypeError: 'NoneType' object is not an iterator"
    r = _res(seen_text("ac-nvdocs-mbridge-nemo-home-container-local-packed-seq"), kb)
    assert r["verdict"] == "likely_cause" and r["root"] == "code.exception"
    assert "None" in " ".join(_root(r)["notes"])
    assert [a["family"] for a in _root(r)["alternatives"]][:1] == ["code.lib_api_version"]


def test_a_frame_cut_at_its_start_names_the_package(kb):
    # AA's TinyZero#47: the paste begins inside verl's frame line ('/verl/protocol.py", line 491, in chunk')
    r = _res(seen_text("aa-tinyzero47-dataproto-equal-chunk"), kb)
    f = _root(r)
    assert r["verdict"] == "likely_cause" and f["id"] == "code.library_error"
    assert "verl" in f["notes"][0] and "protocol.py:491, in chunk" in f["notes"][0]


def test_a_builtin_class_alone_is_a_library_check_with_its_neighbours(kb):
    # Y's NVIDIA-NeMo/Automodel#1835: "ValueError: Unexpected dimension name: dp_replicate" alone
    r = _res(seen_text("y-automodel1835-dp-replicate-dim-single-gpu-recipe"), kb)
    f = _root(r)
    assert r["verdict"] == "likely_cause" and f["id"] == "code.library_error" and r["matched"]
    assert {"code.exception", "code.lib_api_version"} <= {a["family"] for a in f["alternatives"]}
    assert "How sure: low" in f["notes"][0]
    assert explain.exit_code(r) == 0 and not r["errors"] and not r["triage"]


def test_a_line_whose_matched_site_was_set_aside_is_still_read(kb):
    # AD's huggingface/trl#2826: TRL's ValueError matched a torch site that rootguard set aside (another library
    # raised it); the line was then unanswered
    r = _res(seen_text("ad-trl2826-grpo-vllm-device-single-gpu"), kb)
    assert r["verdict"] == "likely_cause" and r["root"] == "code.library_error"


def test_only_a_known_warning_line_is_held_back(kb):
    # judge() reads a line an error entry matched but analyze set aside; a line a warning entry knows (libibverbs'
    # provider warning, rdma.libibverbs_warning) stays that warning's, and a plain exception line is free
    from gpudoctor.explain.scan import Scan, scan_stream
    import io

    text = "libibverbs: Warning: couldn't load driver 'libmlx4-rdmav34.so'\nValueError: bad value\n"
    scan = Scan()
    scan_stream(io.BytesIO(text.encode()), kb, scan, "x")
    assert lastresort._known(scan, kb) == {1}
    r = _res(text, kb)
    assert r["verdict"] == "likely_cause" and r["findings"][0]["matches"][0]["line"] == 2


@pytest.mark.parametrize("line, family", [
    ("TypeError: forward() got an unexpected keyword argument 'labels'\n", "code.lib_api_version"),
    ("TypeError: __init__() takes 2 positional arguments but 3 were given\n", "code.lib_api_version"),
    ("AttributeError: module 'mylib.utils' has no attribute 'load_shards'\n", "code.lib_api_version"),
    ("AttributeError: 'NoneType' object has no attribute 'shape'\n", "code.exception"),
    ("TypeError: 'NoneType' object is not subscriptable\n", "code.exception"),
    ("KeyError: 'bundles'\n", "code.library_error"),
])
def test_cpython_message_forms(kb, line, family):
    r = _res(line, kb)
    assert (r["verdict"], r["root"]) == ("likely_cause", family)


@pytest.mark.parametrize("text", [
    "FooBarError: something broke\n",  # a class of no known package, unqualified: whose it is, the line does not say
    "KeyboardInterrupt: \n",
    # an exception the run went past (review17's rule, provenance._ran_past): it stopped nothing
    "ValueError: bad row 17, skipped\nstep 1 loss 2.0\nstep 2 loss 1.9\nstep 3 loss 1.8\ntraining done\n",
])
def test_lines_that_are_left_unanswered(kb, text):
    r = _res(text, kb)
    assert r["verdict"] in ("unknown_error", "no_error") and not r["findings"]


def test_a_traceback_is_not_read_here(kb):
    # a whole traceback is pyanswer's to read: finding() leaves it
    from gpudoctor.explain.scan import Scan, scan_stream
    import io

    text = ('Traceback (most recent call last):\n  File "/home/u/train.py", line 3, in <module>\n    f()\n'
            "ValueError: nope\n")
    scan = Scan()
    scan_stream(io.BytesIO(text.encode()), kb, scan, "x")
    assert lastresort.finding(scan, kb, lambda *a, **k: pytest.fail("read")) is None


def test_a_shell_report_of_a_child_ended_by_a_signal(kb):
    # bash 5.2.15 running a script whose children SIGSEGV, SIGABRT and SIGILL ended (recorded here: the script's
    # lines are in the file); bash's jobs.c prints strsignal()'s text after the pid
    with open(os.path.join(FIX, "bash-script-child-signals.log"), encoding="utf-8") as fh:
        r = _res(fh.read(), kb)
    f = _root(r)
    assert r["verdict"] == "likely_cause" and f["id"] == "cascade.signal"
    assert f["matches"][0]["line"] == 2  # the first: SIGSEGV
    notes = " ".join(f["notes"])
    assert "SIGSEGV" in notes and "PYTHONFAULTHANDLER=1" in notes


@pytest.mark.parametrize("line, family", [
    # Apptainer's sylog prefix (pkg/sylog/sylog.go: "%-8s " of 'FATAL:' / 'ERROR:')
    ("FATAL:   while making image from oci registry: error fetching image to cache\n", "container.apptainer_launch"),
    ("ERROR:   could not open the image\n", "container.apptainer_launch"),
    # the Docker client's print of the engine's API error (moby client/errors.go)
    ("Error response from daemon: network trainnet not found\n", "container.oci_runtime"),
    ("Aborted (core dumped)\n", "cascade.signal"),
    # (no error line before: the Docker client's own prefix, a bare strsignal text alone on its line)
    ("docker: Error response from daemon: network trainnet not found.\n", "container.oci_runtime"),
    ("Floating point exception\n", "cascade.signal"),
])
def test_printer_forms(kb, line, family):
    r = _res(line, kb)
    assert r["verdict"] == "likely_cause" and r["root"] == family


@pytest.mark.parametrize("line", [
    "ERROR: could not open the image\n",  # one blank: not sylog's padding
    "Terminated\n",  # bash's report for any helper of a script that SIGTERM stopped: the script goes on
    "FATAL:   \n",
])
def test_printer_forms_left_alone(kb, line):
    r = _res(line, kb)
    assert r["root"] not in ("container.apptainer_launch", "cascade.signal")


def test_healthy_text_untouched(kb):
    # a known healthy log keeps 'no error' (lastresort runs only on an 'unknown_error' answer)
    path = os.path.join(os.path.dirname(HERE), "fixtures", "logs", "healthy")
    name = sorted(os.listdir(path))[0]
    with open(os.path.join(path, name), encoding="utf-8", errors="replace") as fh:
        r = _res(fh.read(), kb)
    assert r["verdict"] == "no_error" and not r["findings"]


# ---------------------------------------------------------------- neighbouring families (item 3)

DEV_SETS = "2026-11-27aq,2026-11-27ar,2026-11-27as,2026-11-27p37,2026-11-27p38,2026-11-28at,2026-11-28au,2026-11-28p39,2026-11-28p40,2026-11-28av,2026-11-28aw,2026-11-28p41,2026-11-28p42,2026-11-28ax,2026-11-28ay,2026-11-28p43,2026-11-28p44,2026-11-28p45,2026-11-28az,2026-11-28ba,2026-11-28p46,2026-11-28p47,2026-11-28p48,2026-11-28bb,2026-11-28bc,2026-11-28p49,2026-11-28p50,2026-11-28p51,2026-11-28bd,2026-11-28p52,2026-11-28p53,2026-11-28p54,2026-11-28p55,2026-11-28p56,2026-11-28p57,2026-11-29p58,2026-11-29p62,2026-11-29p63,2026-11-29p64,2026-11-29p65,2026-11-29p66,2026-11-29p67"


def test_the_neighbours_table_regenerates_from_the_seen_labels(tmp_path):
    import json
    import subprocess
    import sys

    out = tmp_path / "neighbours.json"
    root = os.path.dirname(HERE)
    subprocess.run([sys.executable, os.path.join(root, "tools", "gen_neighbours.py"), "--exclude", DEV_SETS, "-o",
                    str(out)], check=True, capture_output=True, cwd=root)
    got = json.loads(out.read_text())
    with open(os.path.join(root, "gpudoctor", "data", "knowledge", "generated", "neighbours.json")) as fh:
        committed = json.load(fh)
    assert got["neighbours"] == committed["neighbours"]
    assert got["header"]["sets"] == committed["header"]["sets"]
    assert not set(DEV_SETS.split(",")) & set(committed["header"]["sets"])  # the development held-out is not read
    # a pair is kept only when two cases or more name it together
    assert all(n >= 2 for rows in committed["neighbours"].values() for _, n in rows)


def test_a_specific_root_is_left_as_it_is(kb):
    # Slurm's ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE (slurm_errno.c), as srun prints it: slurm.node_config, a
    # specific entry whose message names it: no neighbour is added, the root is stated
    r = _res("srun: error: Unable to allocate resources: Requested node configuration is not available\n", kb)
    f = _root(r)
    assert r["verdict"] == "root_cause" and f["id"] == "slurm.node_config"
    assert not any(c["text"].startswith("Neighbouring family ") for c in f["causes"])


def test_a_family_message_alone_names_its_neighbours_and_their_causes(kb):
    # NCCL's ncclInvalidUsage alone (src/misc/utils.cc ncclGetErrorString): nccl.invalid_usage, a family entry whose
    # message names no cause; the labels read such texts as nccl.config too: its cause follows, with what confirms it
    r = _res("NCCL error: invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.21.5\n"
             "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n", kb)
    f = _root(r)
    assert f["id"] == "nccl.invalid_usage" and r["verdict"] == "root_cause"
    near = [c for c in f["causes"] if c["text"].startswith("Neighbouring family ")]
    assert near and all(c["confirm"] or c["checks"] for c in near)
    assert any(n.startswith("Neighbouring families: ") for n in f["notes"])


def test_a_raise_in_the_users_own_file_keeps_its_statement(kb):
    # P12's dataset_len_off_by_one: the IndexError is raised in the user's own __getitem__ (structural, medium):
    # the traceback names the raise, so the neighbours are mentioned but the verdict stays
    r = _res(seen_text("p12-dataset_len_off_by_one"), kb)
    assert r["verdict"] == "root_cause" and r["root"] == "code.exception"


# ---------------------------------------------------------------- a runtime's own report that the process aborts

def test_glibc_assert_and_libstdcxx_terminate_are_failures(kb):
    # gcc 12.2 / glibc 2.36 here: assert(3)'s message (assert/assert.c), then an uncaught std::runtime_error
    # (libsupc++/vterminate.cc), each with bash's 'Aborted' report; both were 'no error' before
    with open(os.path.join(FIX, "gcc12-glibc236-assert-and-uncaught-throw.log"), encoding="utf-8") as fh:
        text = fh.read()
    r = _res(text, kb)
    f = _root(r)
    assert r["verdict"] == "likely_cause" and f["id"] == "code.library_error"
    assert "Assertion `n > 0' failed" in f["matches"][0]["text"] and "a.c:2" in " ".join(f["notes"])
    only_throw = "\n".join(text.splitlines()[3:]) + "\n"
    f = _root(_res(only_throw, kb))
    assert f["id"] == "code.library_error" and "std::runtime_error" in " ".join(f["notes"])


def test_a_rust_panic_is_a_failure(kb):
    # rustc 1.95 here: "thread 'main' (<tid>) panicked at p.rs:1:100:" (library/std/src/panicking.rs)
    with open(os.path.join(FIX, "rustc195-panic.log"), encoding="utf-8") as fh:
        r = _res(fh.read(), kb)
    assert r["verdict"] == "likely_cause" and "p.rs:1:100" in _root(r)["notes"][0]


def test_an_uncaught_c10_error_is_torchs(kb):
    # AN's xllm#189: libstdc++'s terminate line of a c10::Error was no error line; analyze.structural reads it
    r = _res(seen_text("an-xllm189-vlm-tp-tensor-no-device"), kb)
    assert r["verdict"] == "likely_cause" and r["root"] == "torch.library_error"


def test_torchs_internal_assert_is_torchs(kb):
    # c10/util/Exception.cpp's TORCH_INTERNAL_ASSERT message, as pytorch/pytorch#130181 (seen set N) quotes it with
    # its file (the seen text quotes the condition only)
    r = _res('RuntimeError: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED at '
             '"/opt/conda/c10/cuda/CUDAFunctions.cpp":123, please report a bug to PyTorch.\n', kb)
    f = _root(r)
    assert f["id"] == "torch.library_error" and "CUDAFunctions.cpp" in f["notes"][0]


@pytest.mark.parametrize("line", [
    "The job Aborted early because I pressed a key\n",  # a signal's word in a sentence
    "assertion failed: expected 3 nodes\n",  # no glibc form
    "the test asserts that thread 'main' is healthy\n",
])
def test_words_alone_are_no_runtime_report(kb, line):
    r = _res(line, kb)
    assert r["verdict"] == "no_error"

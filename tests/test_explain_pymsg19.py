"""A Python library's message pasted alone names the library (pymsg19, issue 18 item 2): the words of a line no entry
matched are looked up in the messages the Python stack's own code raises / asserts / logs, read with ast over several
releases (generated/py_messages.json from tools/gen_py_messages.py; gpudoctor/explain/srcprov.py py_message_finding).

Texts: lines from public threads (cited by URL) and the libraries' own message literals at a cited release."""

import os
import sys

import pytest

from gpudoctor import explain
from gpudoctor.explain import srcprov

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tools"))


def _all(f):
    return " ".join(f["notes"] + [c["text"] for c in f["causes"]] + [x for c in f["causes"] for x in c["fix"]])


def test_the_table_regenerates_from_its_slice(tmp_path):
    import gen_py_messages
    import knowgen

    got = knowgen.regenerated(gen_py_messages.main, os.path.join(REPO, "tools", "data", "py_messages_slice.txt.gz"),
                              tmp_path / "out.json")
    committed = knowgen.committed("py_messages")
    for d in (got, committed):
        d["header"].pop("date")
    assert got == committed
    # several releases of vLLM / DeepSpeed / transformers read, unioned
    assert len(committed["versions"]["vllm"]) >= 3 and len(committed["versions"]["deepspeed"]) >= 3


def test_fragments_are_cut_at_conversions():
    import gen_py_messages

    assert gen_py_messages.fragments("Expected all tensors to be on the same device, but found %s and %s") == [
        "expected all tensors to be on the same device, but found"]
    assert gen_py_messages.fragments("too short %s") == []


def test_a_bare_exception_line_names_deepspeed(kb):
    # yangjianxin1/Firefly#68 (https://github.com/yangjianxin1/Firefly/issues/68): DeepSpeed's fp16 loss scaler
    # (deepspeed/runtime/fp16/loss_scaler.py, `raise Exception(...)`), pasted alone: no traceback, a bare 'Exception:'
    r = explain.explain_text("Exception: Current loss scale already at minimum - cannot decrease scale anymore. "
                             "Exiting run.", kb)
    assert r["verdict"] == "likely_cause"
    f = r["findings"][0]
    assert f["family"].startswith("deepspeed") and "loss_scaler.py" in _all(f)
    assert "in every deepspeed release read" in _all(f)


def test_an_older_releases_message_names_the_release_and_the_upgrade(kb):
    # vLLM 0.5.4 / 0.6.3's vllm/engine/arg_utils.py (https://github.com/vllm-project/vllm/blob/v0.6.3/vllm/engine/
    # arg_utils.py; quoted by sbintuitions/flexeval#76), gone from the newer releases read
    rows, n = srcprov.py_message_rows("ValueError: Chunked prefill is not supported with sliding window. Set "
                                      "--disable-sliding-window to disable sliding window.")
    assert rows and rows[0][0] == "vllm" and "0.6.3" in rows[0][3].split() and "0.33.0" not in rows[0][3].split()
    say, gone = srcprov._releases("vllm", rows[0][3], ["0.5.4", "0.6.3", "0.8.5", "0.10.2", "0.33.0"])
    assert gone and "not in 0.8.5 and later" in say
    # pasted alone: vLLM's family, the releases that print it, and the upgrade among the fixes
    r = explain.explain_text("ValueError: Chunked prefill is not supported with sliding window. Set "
                             "--disable-sliding-window to disable sliding window.", kb)
    f = r["findings"][0]
    assert r["verdict"] == "likely_cause" and f["family"].startswith("vllm")
    assert "vllm/engine/arg_utils.py" in _all(f) and "not in 0.8.5 and later" in _all(f)
    assert any(x.startswith("upgrade vllm: the message is from an older release (0.5.4, 0.6.3)") and
               "pip install -U vllm" in x for c in f["causes"] for x in c["fix"])
    # the upgrade is the last alternative of the library's cause, after the entry's own reading (review19: the message
    # says what to change; a release upgrade does not fix a refused setting)
    holder = next(c["fix"] for c in f["causes"] if any(x.startswith("upgrade vllm: ") for x in c["fix"]))
    assert len(holder) > 1 and holder[-1].startswith("upgrade vllm: ")


def test_a_line_cut_inside_the_message_still_names_it():
    # a thread quoting the message's rest (the line starts mid-message, its class and first words cut off): the
    # fragment's words from the line's first word to the fragment's end, CUT_MIN words or more
    rows, n = srcprov.py_message_rows("is not supported with sliding window. Set --disable-sliding-window to disable "
                                      "sliding window.")
    assert rows and rows[0][0] == "vllm" and n >= srcprov.CUT_MIN
    # ... never a run of a message's words that stops short inside both the line and the fragment
    assert srcprov.py_message_rows("is not supported with sliding window. Set --disable-sliding-window to avoid "
                                   "it, says the wiki") == (None, 0)


def test_a_warning_only_message_needs_an_error_level(kb):
    # vLLM's scheduler warns and goes on (vllm/core/scheduler.py logger.warning, 0.5.4-0.10.2): never a root unless
    # the line is at a failure level
    text = ("Input prompt (5000 tokens) is too long and exceeds the capacity of block_manager because there's not "
            "enough kv cache blocks to run the entire sequence.")
    rows, _ = srcprov.py_message_rows(text)
    assert rows and all(r[1] == "warning" for r in rows)
    assert srcprov._PY_ERROR_LEVEL.search("WARNING 11-27 12:00:00 scheduler.py:1] " + text) is None


@pytest.mark.parametrize("line", [
    "Exception: connection reset by peer",  # any program's words: no library's message
    "training finished: loss 0.12",
])
def test_words_of_no_library_name_none(line):
    assert srcprov.py_message_rows(line) == (None, 0)

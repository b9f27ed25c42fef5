"""A variable NCCL's source reads but its environment page does not document, set in a run told slow, is a cause
(fix22, issue 18 "name the fix"): settings._nccl_source_rows over gpudoctor/data/nccl_env.json (tools/gen_nccl_env.py).

Real text: the seen set P36's 'w_nccl_max_p2p_nchannels_1' (two H100s, NCCL 2.28.9: batched isend/irecv 14x slower
with NCCL_MAX_P2P_NCHANNELS=1 on the launch line), read from bench/data/.
"""

import pytest

import gpudoctor.checks  # noqa: F401
from gpudoctor import explain
from gpudoctor.explain import settings

from seen_case import seen_case as _case


@pytest.fixture(scope="module")
def kb():
    return explain.load_knowledge()


def test_an_undocumented_variable_in_a_run_told_slow_is_the_cause(kb):
    res = explain.explain_text(_case("2026-11-27p36", "p36-w_nccl_max_p2p_nchannels_1"), kb)
    f = res["findings"][0]
    assert f["id"] == "nccl.env_slows"
    first = f["causes"][0]
    assert first["text"].startswith("NCCL_MAX_P2P_NCHANNELS=1 (line 2, an environment setting): NCCL_MAX_P2P_NCHANNELS "
                                    "is read by NCCL's source (src/graph/paths.cc, NCCL ")
    assert first["fix"][0].startswith("unset NCCL_MAX_P2P_NCHANNELS")


def test_the_same_setting_without_a_told_symptom_is_no_answer(kb):
    # the launch line and NCCL's output alone (no told slowness): a setting is never a root by itself
    text = "\n".join(_case("2026-11-27p36", "p36-w_nccl_max_p2p_nchannels_1").splitlines()[1:-1]) + "\n"
    res = explain.explain_text(text, kb)
    assert not any(f.get("role") == "root" for f in res["findings"])


def test_which_variables_get_a_row():
    ids = {r["id"] for r in settings.table()}
    assert "nccl_src_nccl_p2p_use_cuda_memcpy" in ids and "nccl_src_nccl_max_p2p_nchannels" in ids
    # places, files, logs, identities, addresses: never a cost of speed; a variable a hand-written row judges: that row
    assert not {"nccl_src_nccl_comm_id", "nccl_src_nccl_graph_dump_file", "nccl_src_nccl_net_gdr_level"} & ids


def test_a_slowness_the_words_reader_found_gets_the_setting_as_its_first_cause(kb):
    # P34 (two H100s, NCCL 2.28.9): "the run just before took 0.90 ms ..., this one 2.5 ms" - the words reader answers
    # torch.multi_gpu_no_speedup, the told-line reader takes no slowness; NCCL_P2P_USE_CUDA_MEMCPY=1 is on the launch line
    text = _case("2026-11-27p34", "p34-nccl_p2p_cuda_memcpy_slow")
    f = explain.explain_text(text, kb)["findings"][0]
    assert f["id"] == "torch.multi_gpu_no_speedup" and f.get("from_words")
    assert f["causes"][0]["text"].startswith("NCCL_P2P_USE_CUDA_MEMCPY=1 (line 3, an environment setting)")
    assert f["causes"][0]["fix"][0].startswith("unset NCCL_P2P_USE_CUDA_MEMCPY")
    # the same words without the variable: the words' own causes, nothing added
    f = explain.explain_text(text.replace("NCCL_P2P_USE_CUDA_MEMCPY=1 ", ""), kb)["findings"][0]
    assert not any("NCCL_P2P_USE_CUDA_MEMCPY" in c["text"] for c in f["causes"])

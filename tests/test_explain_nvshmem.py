"""NVSHMEM's own errors (issue 18), read from NVIDIA/nvshmem's sources by tools/gen_nvshmem_messages.py
(generated/nvshmem_messages.json, matched on the printing file's name and its macro's prefix; families in
gpudoctor/data/knowledge/nvshmem.toml). Public threads, cited per text; the heap line is the source's format with
its values filled in (src/host/mem/mem_heap.cpp)."""

import pytest

from gpudoctor import explain

TEXTS = {
    # https://github.com/NVIDIA/nvshmem/issues/33 (DeepEP low-latency on B300 + ConnectX-8)
    "ibgda_ah": ("/dvs/p4/build/sw/rel/gpgpu/toolkit/r12.9/main_nvshmem/src/modules/transport/ibgda/ibgda.cpp:2234: "
                 "NULL value Unable to create ah.\n\n/dvs/p4/build/sw/rel/gpgpu/toolkit/r12.9/main_nvshmem/src/host/"
                 "transport/transport.cpp:420: non-zero status: 7 connect EPS failed \n",
                 "rdma.nvshmem_transport", "NVSHMEM_IB_GID_INDEX"),
    # https://github.com/deepseek-ai/DeepEP/issues/139 (RoCE, IBGDA)
    "ibgda_init": ("/repo/nvshmem_src/src/host/transport/transport.cpp:nvshmemi_transport_init:275: init failed for "
                   "transport: IBGDA\n", "rdma.nvshmem_transport", "NVSHMEM_IBGDA_NIC_HANDLER=cpu"),
    # https://github.com/deepseek-ai/DeepEP/issues/38 (IBRC on RoCE)
    "ibrc_qp": ("/work/nvshmem_src_3.1.7-1/nvshmem_src/src/modules/transport/ibrc/ibrc.cpp:417: non-zero status: 110 "
                "ibv_modify_qp failed\n", "rdma.nvshmem_transport", "NVSHMEM_HCA_LIST"),
    "heap": ("/opt/nvshmem/src/host/mem/mem_heap.cpp:allocate_symmetric_memory:2266: nvshmem malloc failed (hint: "
             "check if total allocation has exceeded NVSHMEM symmetric size = 1073741824, NVSHMEM symmetric size can be "
             "increased using NVSHMEM_SYMMETRIC_SIZE environment variable) \n", "nvshmem.heap",
             "NVSHMEM_SYMMETRIC_SIZE=<larger"),
}


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_nvshmem_errors_get_their_family_and_fix(kb, name):
    text, want, fix = TEXTS[name]
    res = explain.explain_text(text, kb)
    f = res["findings"][0]
    assert res["verdict"] == "root_cause" and f["id"] == want and f["role"] == "root", [x["id"] for x in res["findings"]]
    assert fix in " ".join(x for c in f["causes"] for x in c.get("fix") or [])


def test_the_same_words_without_nvshmems_file_and_prefix_are_not_nvshmem(kb):
    res = explain.explain_text("worker.py:88: Unable to create ah. retrying\n", kb)
    assert not any(f["id"].startswith(("rdma.nvshmem", "nvshmem.")) for f in res["findings"])


def test_a_transport_nvshmem_skips_and_goes_on_without_is_no_failure(kb):
    # ibrc.cpp / ibgda.cpp: NVSHMEMI_ERROR_PRINT("neither nv_peer_mem, or nvidia_peermem detected. Skipping
    # transport.\n"): a node without GPUDirect RDMA runs over NVLink alone
    res = explain.explain_text("/opt/nvshmem/src/modules/transport/ibrc/ibrc.cpp:nvshmemt_init:1700: neither "
                               "nv_peer_mem, or nvidia_peermem detected. Skipping transport.\nstep 10 loss 1.23\n", kb)
    assert not any(f["id"].startswith(("rdma.nvshmem", "nvshmem.")) and f["role"] == "root" for f in res["findings"])


@pytest.mark.parametrize("line,first_fix", [
    # NVIDIA/nvshmem 3.5.1.1 src/modules/transport/ibgda/ibgda.cpp:4451 NVSHMEMI_ERROR_JMP on the variable's value, and
    # :775 NVSHMEMI_NE_ERROR_JMP(status, cudaSuccess, ...) printing cudaMalloc's own status (2: out of memory); the
    # format filled in (review16): not GPUDirect RDMA's setup, which the file's name alone would put first
    ("/opt/nvshmem/src/modules/transport/ibgda/ibgda.cpp:4451: non-zero status: 7 NVSHMEM_QP_DEPTH must be a positive "
     "number.\n", "set the variable the message names"),
    ("/opt/nvshmem/src/modules/transport/ibgda/ibgda.cpp:775: non-zero status: 2 cudaMalloc failed.\n",
     "for 2 (out of memory)"),
])
def test_a_transport_setting_or_cuda_call_is_not_gpudirect_setup(kb, line, first_fix):
    f = explain.explain_text(line, kb)["findings"][0]
    assert f["id"] == "rdma.nvshmem_transport" and f["causes"][0]["fix"][0].startswith(first_fix), f["causes"][0]

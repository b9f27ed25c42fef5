"""Known NCCL bugs whose symptom is a hang, a slowdown or a wrong result (issue 18): no error line of
their own, so explain offers one (gpudoctor/explain/versions.py judge) only when the log ran an
affected NCCL (its own version line, pip's, or the torch release whose PyPI wheel pins it) AND shows
that kind of symptom AND the condition the release note names (tools/gen_nccl_releases.py
SYMPTOM_BUGS -> generated/nccl_releases.json). Never on a version alone; second, not the root, when
another root names its cause.

Real texts: NVIDIA/nccl#1134 and NVIDIA/nccl#566 (cited at each, verbatim excerpts); neither is in
bench/data or fixtures/logs. The other texts are built from the lines NCCL, torch and nccl-tests
print (named at each)."""

import json
import os
import subprocess
import sys

import pytest
from explainhelp import fixes

from gpudoctor import explain
from gpudoctor.explain.knowledge import open_generated

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# https://github.com/NVIDIA/nccl/issues/1134 (title and description, verbatim; the reporter's
# workaround, NCCL_CUMEM_ENABLE=0, is in a later comment and left out)
NCCL_1134 = (
    "NCCL alltoall_perf hangs in a cluster of 16 8*H100 gpus nodes\n"
    "In a cluster of 16 H100 nodes, I have tested alltoall_perf with nccl version 2.19.1 2.19.3 2.19.4, and found "
    "that it will hang at communicator initialization. This phenomenon does not occur when the cluster size is less "
    "than 8 or the cluster nodes are H800. The following is my run command:\n"
    "mpirun --allow-run-as-root --hostfile iplist-16 -np 128 --mca btl_openarn_no_device_params_found 0 --mca "
    "btl_tcp_if_include bond0 --map-by ppr:8:node -x NCCL_IB_GID_INDEX=3 -x NCCL_IB_QPS_PER_CONNECTION=2 -x "
    "NCCL_IB_HCA=mlx5_bond -x NCCL_IB_SL=5 -x NCCL_IB_TC=136 -x NCCL_DEBUG=INFO -x NCCL_IB_TIMEOUT=22 -x "
    "NCCL_SOCKET_IFNAME=bond0 -x NCCL_NET_PLUGIN=none -x NCCL_MIN_NCHANNELS=4 -x NCCL_NVLS_ENABLE=1 -x "
    "LD_PRELOAD=/home/nccl2.19.1/libnccl.so.2 -x NCCL_CUMEM_ENABLE=1 /usr/local/bin/alltoall_perf -b 4K -e 4M -f 2 "
    "-g 1 -n 300\n"
    "When I used nccl 2.18.6, there are no problems. I noticed that there were 6,000 lines of code changes in "
    "nccl2.19.1, and I have no idea about this hang issue.\n")

# https://github.com/NVIDIA/nccl/issues/566 ('NCCL Alltoall Hangs'): the title and the first lines of
# the reporter's log, verbatim. NCCL 2.10.3 is in no all-to-all hang's range (2.7.3-2.8.3, 2.12.0-2.18.0,
# 2.19.x-2.20.2; the one of 2.27.3 needs more than 80 ranks, and this job has 2)
NCCL_566 = (
    "NCCL Alltoall Hangs\n"
    "lassen206:23224:23224 [0] NCCL INFO Bootstrap : Using enP5p1s0f0:192.168.64.206<0>\n"
    "lassen206:23224:23224 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal "
    "implementation\n"
    "lassen206:23224:23224 [0] NCCL INFO NET/IB : Using [0]mlx5_1:1/IB [1]mlx5_3:1/IB [2]mlx5_0:1/IB [3]mlx5_2:1/IB ; "
    "OOB enP5p1s0f0:192.168.64.206<0>\n"
    "lassen206:23224:23224 [0] NCCL INFO Using network IB\n"
    "NCCL version 2.10.3+cuda10.2\n"
    "lassen206:23224:23224 [0] NCCL INFO Channel 00/06 :    0   1\n")

# torch's watchdog line (torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp, WorkNCCL::checkTimeout: "Watchdog
# caught collective operation timeout: " + WorkNCCL's operator<< 'WorkNCCL(SeqNum=..., OpType=..., ...)')
WATCHDOG = ("[rank3]:[E ProcessGroupNCCL.cpp:523] [Rank 3] Watchdog caught collective operation timeout: "
            "WorkNCCL(SeqNum=7, OpType={op}, NumelIn=4194304, NumelOut=4194304, Timeout(ms)=600000) ran for 600207 "
            "milliseconds before timing out.\n")
# NCCL's banner (src/init.cc showVersion: "NCCL version %d.%d.%d%s")
BANNER = "node1:12:12 [0] NCCL INFO NCCL version {v}+cuda12.2\n"


def _ex(kb, text):
    res = explain.explain_text(text, kb)
    return res, [f["id"] for f in res["findings"]]


def test_nccl_1134_alltoall_hang_with_219_is_the_a2a_connection_bug(kb):
    res, ids = _ex(kb, NCCL_1134)
    f = res["findings"][0]
    assert f["id"] == "nccl.bug_2203_a2a_connect_hang" and f["family"] == "nccl.known_bug"
    assert res["verdict"] == "root_cause"
    fx = fixes(f, sep=" ")
    assert "2.20.3" in f["title"] and "nvidia-nccl-cu12>=2.20.3" in fx and "NCCL_CUMEM_ENABLE=0" in fx
    assert f["notes"][0].startswith("How sure: medium. NCCL 2.19.1 ran here")
    # the version line is shown among its lines
    assert any("nccl version 2.19.1" in m["text"] for m in f["matches"])
    assert f["known_bug"] == {"nccl": "2.19.1", "fixed_in": "2.20.3", "affects": [["2.19.0", "2.20.3"]],
                              "symptom": "hang"}
    assert "from_info_lines" not in f


def test_the_same_words_outside_the_range_name_no_bug(kb):
    # (without its '-np 128': over 80 ranks, 2.27.3's all-to-all fix applies to every release before it)
    for v in ("2.18.6", "2.20.3", "2.20.5"):
        text = NCCL_1134.replace("-np 128 ", "").replace("2.19.1 2.19.3 2.19.4", v).replace("nccl2.19.1", "nccl" + v)
        _res, ids = _ex(kb, text)
        assert not any(i.startswith("nccl.bug_") for i in ids), (v, ids)


def test_nccl_566_alltoall_hang_on_2103_names_no_known_bug(kb):
    _res, ids = _ex(kb, NCCL_566)
    assert not any(i.startswith("nccl.bug_") for i in ids), ids


@pytest.mark.parametrize("v,want", [
    ("2.19.0", "nccl.bug_2203_a2a_connect_hang"),    # the range's first release
    ("2.20.2", "nccl.bug_2203_a2a_connect_hang"),    # the last before the fix
    ("2.20.3", None),                                # the fixing release
    ("2.18.0", "nccl.bug_2181_alltoallv_hang"),      # 2.12.0 <= v < 2.18.1: NVIDIA/nccl#788's
    ("2.18.1", None),
    ("2.12.0", "nccl.bug_2181_alltoallv_hang"),
    ("2.11.4", None),
    ("2.8.3", "nccl.bug_284_alltoallv_p2p_hang"),
])
def test_watchdog_alltoall_timeout_at_the_range_boundaries(kb, v, want):
    res, ids = _ex(kb, BANNER.format(v=v) + WATCHDOG.format(op="ALLTOALL_BASE"))
    bugs = [i for i in ids if i.startswith("nccl.bug_")]
    if want is None:
        assert not bugs, (v, ids)
    else:
        assert ids[0] == want and res["findings"][1]["id"] == "nccl.timeout", (v, ids)


def test_a_timeout_of_another_collective_names_no_alltoall_bug(kb):
    _res, ids = _ex(kb, BANNER.format(v="2.19.3") + WATCHDOG.format(op="ALLREDUCE"))
    assert ids[0] == "nccl.timeout" and not any(i.startswith("nccl.bug_") for i in ids)


@pytest.mark.parametrize("line", [
    "2.2.0+cu121\n",                                           # print(torch.__version__)
    "PyTorch version: 2.2.1+cu121\n",                          # python -m torch.utils.collect_env
    "torch==2.2.2\n",                                          # pip freeze
    "torch                    2.2.0\n",                        # pip list
])
def test_the_torch_release_gives_the_nccl(kb, line):
    # torch 2.2.x's PyPI wheels pin nvidia-nccl-cu12==2.19.3 (generated/torch_nccl.json)
    res, ids = _ex(kb, line + WATCHDOG.format(op="ALLTOALL"))
    assert ids[0] == "nccl.bug_2203_a2a_connect_hang", ids
    assert "pins nvidia-nccl-cu12==2.19.3" in res["findings"][0]["notes"][0]


def test_a_torch_release_with_a_fixed_nccl_or_a_source_build_names_no_bug(kb):
    for line in ("torch==2.3.0\n", "PyTorch version: 2.2.0a0+81ea7a4\n", "2.2.0+cpu\n"):
        _res, ids = _ex(kb, line + WATCHDOG.format(op="ALLTOALL"))
        assert not any(i.startswith("nccl.bug_") for i in ids), (line, ids)


def test_a_healthy_alltoall_run_of_an_affected_version_has_no_root(kb):
    # nccl-tests' own lines (src/common.cu: the header, the '#  Rank' device lines, 'Avg bus bandwidth') and
    # NCCL's INFO lines of a finished run: 2.19.3 and all-to-all, but nothing hangs
    text = ("# nThread 1 nGpus 1 minBytes 4096 maxBytes 4194304 step: 2(factor) warmup iters: 5 iters: 20\n"
            "#  Rank  0 Group  0 Pid  41 on node1 device  0 [0x18] NVIDIA H100 80GB HBM3\n"
            + BANNER.format(v="2.19.3") +
            "node1:41:41 [0] NCCL INFO comm 0x5581 rank 0 nranks 8 cudaDev 0 nvmlDev 0 busId 18000 commId 0x9a - "
            "Init COMPLETE\n"
            "#  Out of bounds values : 0 OK\n"
            "# Avg bus bandwidth    : 41.2037\n")
    res, ids = _ex(kb, "alltoall_perf -b 4K -e 4M\n" + text)
    assert res["verdict"] == "no_error" and not ids


def test_a_certain_root_keeps_its_place_and_the_known_bug_is_second(kb):
    # CUDA's out-of-memory on one rank (torch's OutOfMemoryError) names its cause; the all-to-all timeout beside
    # it is what 2.19's bug would show too
    oom = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 0 has a total capacity "
           "of 79.11 GiB of which 1.94 GiB is free.\n")
    res, ids = _ex(kb, BANNER.format(v="2.19.3") + oom + WATCHDOG.format(op="ALLTOALL_BASE"))
    assert res["findings"][0]["confidence"] == "cause" and ids[0] != "nccl.bug_2203_a2a_connect_hang"
    f = res["findings"][1]
    assert f["id"] == "nccl.bug_2203_a2a_connect_hang" and f["role"] == "related"


def test_a_slowdown_bug_needs_the_slow_words(kb):
    base = BANNER.format(v="2.21.5") + "node1:12:12 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0\n"
    res, ids = _ex(kb, base + "all_reduce across the two nodes is very slow\n")
    assert ids and ids[0] == "nccl.bug_2263_roce_ece_slow", ids
    assert "2.26.3" in res["findings"][0]["title"]
    _res, ids = _ex(kb, base)  # the same INFO lines, nothing said: no answer from the version
    assert not any(i.startswith("nccl.bug_") for i in ids)
    _res, ids = _ex(kb, base.replace("2.21.5", "2.26.3") + "all_reduce across the two nodes is very slow\n")
    assert not any(i.startswith("nccl.bug_") for i in ids)


def test_a_wrong_result_bug_needs_its_condition(kb):
    text = BANNER.format(v="2.18.1") + "2 nodes of 8x H100, after 200 steps the loss is nan\n"
    _res, ids = _ex(kb, text)
    assert ids and ids[0] == "nccl.bug_2183_tree_ll128_corruption", ids
    _res, ids = _ex(kb, text.replace("H100", "A100"))
    assert not any(i.startswith("nccl.bug_") for i in ids), ids


def test_the_slice_regenerates_the_symptom_rows(tmp_path):
    out = tmp_path / "r.json"
    subprocess.run([sys.executable, os.path.join(REPO, "tools", "gen_nccl_releases.py"), "--slice",
                    os.path.join(REPO, "tools", "data", "nccl_releases_slice.txt"), "-o", str(out)], check=True,
                   capture_output=True)
    got = {b["id"]: b for b in json.loads(out.read_text())["known_bugs"]}
    with open_generated("nccl_releases") as f:
        full = {b["id"]: b for b in json.load(f)["known_bugs"]}
    rows = [i for i in got if got[i].get("symptom")]
    # the slice holds 2.18.1 and 2.18.3: the alltoallv hang and 2.18.3's rows
    assert "nccl.bug_2181_alltoallv_hang" in rows and "nccl.bug_2183_tree_ll128_corruption" in rows
    for i in rows:
        assert got[i] == full[i], i
    assert full["nccl.bug_2203_a2a_connect_hang"]["affects"] == ["2.19.0", "2.20.3"]


@pytest.mark.parametrize("line", [
    "NCCL_VERSION=2.19.3-1\n",     # env in an NVIDIA CUDA image (its Dockerfile's ENV NCCL_VERSION=2.19.3-1)
    "NCCL version: 2.19.3\n",      # an issue template's field
])
def test_the_nccl_of_an_image_or_a_template(kb, line):
    _res, ids = _ex(kb, line + WATCHDOG.format(op="ALLTOALL"))
    assert ids[0] == "nccl.bug_2203_a2a_connect_hang", ids
    _res, ids = _ex(kb, line.replace("2.19.3", "2.20.5") + WATCHDOG.format(op="ALLTOALL"))
    assert not any(i.startswith("nccl.bug_") for i in ids), ids


def test_an_alltoall_hang_over_80_ranks(kb):
    # torch's store-based barrier line (distributed_c10d.py _store_based_barrier) gives the world size
    sbb = ("Waiting in store based barrier to initialize process group for rank: 0, key: store_based_barrier_key:1 "
           "(world_size={n}, num_workers_joined={n}, timeout=0:30:00)\n")
    res, ids = _ex(kb, BANNER.format(v="2.21.5") + sbb.format(n=128) + WATCHDOG.format(op="ALLTOALL_BASE"))
    assert ids[0] == "nccl.bug_2273_alltoall_scale_hang", ids
    _res, ids = _ex(kb, BANNER.format(v="2.21.5") + sbb.format(n=64) + WATCHDOG.format(op="ALLTOALL_BASE"))
    assert not any(i.startswith("nccl.bug_") for i in ids), ids
    # NVIDIA/nccl#1134 ran 128 ranks (-np 128) on 2.19.1: the 2.19 connection hang, whose range the notes' thread
    # names, comes first, the scale bug in a note
    res, ids = _ex(kb, NCCL_1134)
    assert ids[0] == "nccl.bug_2203_a2a_connect_hang"
    assert any("2.27.3" in n for n in res["findings"][0]["notes"])


@pytest.mark.parametrize("line", [
    "ii  libnccl2  2.19.3-1+cuda12.3  amd64  NVIDIA Collective Communication Library (NCCL) Runtime\n",  # dpkg -l
    "libnccl2/unknown,now 2.19.3-1+cuda12.3 amd64 [installed]\n",                                       # apt list
    "RUN apt-get install -y libnccl2=2.19.3-1+cuda12.3 libnccl-dev=2.19.3-1+cuda12.3\n",               # a Dockerfile
    "tar xf nccl_2.19.3-1+cuda12.3_x86_64.txz\n",                                                       # NVIDIA's tarball
    "/usr/lib/x86_64-linux-gnu/libnccl.so.2.19.3\n",                                                    # the library
    "We run NCCL 2.19.3 on 16 nodes; the all_to_all hangs.\n",                                          # a user's words
])
def test_the_nccl_of_a_package_a_file_or_the_users_words(kb, line):
    _res, ids = _ex(kb, line + WATCHDOG.format(op="ALLTOALL"))
    assert ids[0] == "nccl.bug_2203_a2a_connect_hang", ids


def test_a_user_naming_the_fixed_release_is_not_an_affected_one(kb):
    _res, ids = _ex(kb, "Upgrading to NCCL 2.20.5 did not help, the all_to_all still hangs\n")
    assert not any(i.startswith("nccl.bug_") for i in ids), ids


def test_nccl_tests_data_check_is_a_wrong_result(kb):
    # nccl-tests src/common.cu: PRINT("# Out of bounds values : %d %s\n", errors[0], errors[0] ? "FAILED" : "OK")
    run = ("#  Rank  0 Group  0 Pid  41 on node1 device  0 [0x18] NVIDIA H100 80GB HBM3\n" + BANNER.format(v="2.18.1")
           + "# Out of bounds values : {n} {ok}\n# Avg bus bandwidth    : 180.2\n")
    _res, ids = _ex(kb, run.format(n=12, ok="FAILED"))
    assert "nccl.bug_2183_tree_ll128_corruption" in ids, ids
    res, ids = _ex(kb, run.format(n=0, ok="OK"))
    assert not any(i.startswith("nccl.bug_") for i in ids), ids


def test_pytorch_in_a_users_words(kb):
    # 'PyTorch 2.2.1' reads as the PyPI release (2.2.x pins nvidia-nccl-cu12==2.19.3), as 'torch==2.2.1' does
    _res, ids = _ex(kb, "PyTorch 2.2.1 on two nodes\n" + WATCHDOG.format(op="ALLTOALL"))
    assert ids[0] == "nccl.bug_2203_a2a_connect_hang", ids
    _res, ids = _ex(kb, "PyTorch 2.3.1 on two nodes\n" + WATCHDOG.format(op="ALLTOALL"))
    assert not any(i.startswith("nccl.bug_") for i in ids), ids

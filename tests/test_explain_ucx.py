"""UCX (openucx/ucx) messages (issue 18): the transport under Open MPI's pml ucx, Intel MPI and NCCL's
UCX plugin.

The knowledge is read from UCX's source (tools/gen_ucx_messages.py over openucx/ucx; its slice
tools/data/ucx_messages_slice.txt keeps the parts used here with their line numbers): the generator
regenerates the committed sites, and real texts from public openucx/ucx threads (cited per text)
get their entry through the CLI; a healthy `ucx_info -d` and UCX INFO lines give no root cause.
"""

import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLICE = os.path.join(REPO, "tools", "data", "ucx_messages_slice.txt")
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_ucx_messages as gen  # noqa: E402
import knowgen  # noqa: E402
from explainhelp import explain_paste, fixes, ids, root_id  # noqa: E402

REAL = {
    # https://github.com/openucx/ucx/pull/4511 (a comment of 2023-07-07: OMPI 4.1.5 + UCX 1.10.1 under apptainer)
    "posix_proc_link_4511": (
        "/home/ciq/ysenda/opt/ompi/bin/mpirun -np 2 -mca pml ucx --mca btl ^vader,tcp,openib,uct "
        "-x UCX_NET_DEVICES=hfi1_0:1 -x UCX_TLS=posix,cma,ib apptainer run hello.sif\n"
        "[1688710000.495329] [c7:2019617:0]       mm_posix.c:195  UCX  ERROR open(file_name=/proc/2019618/fd/20 "
        "flags=0x0) failed: Permission denied\n"
        "[1688710000.495362] [c7:2019618:0]          mm_ep.c:155  UCX  ERROR mm ep failed to connect to remote "
        "FIFO id 0xc0000005001ed121: Shared memory error\n"
        "[c7:2019618] ../../../../../ompi/mca/pml/ucx/pml_ucx.c:424  Error: ucp_ep_create(proc=1) failed: "
        "Shared memory error\n"),
    # https://github.com/openucx/ucx/issues/8511 (mpirun of HPL: the peer's /proc/<pid>/fd link is gone)
    "posix_enoent_8511": (
        "[1662593980.908446] [slurm-slehpc15-james-hpc-pg0-4:25595:0]        mm_posix.c:207  UCX  ERROR   "
        "open(file_name=/proc/25599/fd/35 flags=0x0) failed: No such file or directory\n"
        "[1662593980.908470] [slurm-slehpc15-james-hpc-pg0-4:25595:0]           mm_ep.c:159  UCX  ERROR   "
        "mm ep failed to connect to remote FIFO id 0xc0000008c00063ff: Shared memory error\n"),
    # https://github.com/openucx/ucx/issues/7885 (HPCX 2.10 with the UD transport)
    "ud_timeout_7885": (
        "[b5101:238310:0:238310]       ud_ep.c:270  Fatal: UD endpoint 0x7f093c002820 to <no debug data>: "
        "unhandled timeout error \n==== backtrace (tid: 238310) ====\n"
        " 0 0x00000000000555ae uct_ud_ep_deferred_timeout_handler()  /build-result/src/hpcx-v2.10-gcc-MLNX_OFED_"
        "LINUX-5-redhat7-cuda11-gdrcopy2-nccl2.11-x86_64/ucx-v1.12.x/src/uct/ib/ud/base/ud_ep.c:268\n"),
    # https://github.com/openucx/ucx/issues/6522 (MPICH over UCX, 65536 ranks). Older UCX printed
    # 'UD endpoint %p: unhandled timeout error' without the peer (openucx/ucx#5159, 2020): the sites come
    # from one pinned revision, so that older text is not matched
    "ud_timeout_6522": (
        "[x1000c5s2b1n0:83417:0:83417]       ud_ep.c:263  Fatal: UD endpoint 0x20c1da0 to <no debug data>: "
        "unhandled timeout error\n"),
}

# https://github.com/openucx/ucx/issues/9830 (the start of a healthy `ucx_info -d`) and an INFO line of
# https://github.com/openucx/ucx/pull/733 (UCX_LOG_LEVEL=trace output)
HEALTHY = (
    "#\n# Memory domain: posix\n#     Component: posix\n#             allocate: <= 64967552K\n"
    "#           remote key: 24 bytes\n#           rkey_ptr is supported\n#\n#      Transport: posix\n"
    "#         Device: memory\n#           Type: intra-node\n#  System device: <unknown>\n#\n#      capabilities:\n"
    "#            bandwidth: 0.00/ppn + 12179.00 MB/sec\n#              latency: 80 nsec\n"
    "#       error handling: ep_check\n#\n"
    "[1461192566.462450] [pod9:16629:0]    ucp_context.c:208  UCX  INFO  posix and xpmem are currently unavailable\n")


def test_generator_regenerates_the_committed_sites_from_the_slice(tmp_path):
    got = knowgen.regenerated(gen.main, SLICE, tmp_path / "ucx_messages.json")
    full = knowgen.committed("ucx_messages")
    assert full["header"]["version"] == got["header"]["version"]
    assert "commit " in got["header"]["version"]
    by_id, by_text = {s["id"]: s for s in full["sites"]}, {(s["kind"], s["text"]): s for s in full["sites"]}
    for s in got["sites"]:
        ref = by_id.get(s["id"]) or by_text[(s["kind"], s["text"])]
        assert {k: v for k, v in s.items() if k not in ("id", "where")} == \
            {k: v for k, v in ref.items() if k not in ("id", "where")}, s["id"]
    sites = {s["text"]: s for s in got["sites"]}
    assert sites["%s(file_name=%s flags=0x%x) failed: %s"]["family"] == "container.ucx_shm"
    assert sites["UD endpoint %p to %s: unhandled timeout error"]["family"] == "rdma.gid_index"
    assert sites["%s(address=%p, length=%zu, access=0x%lx) failed: %s"]["family"] == "rdma.memlock"
    assert sites["Shared memory error"]["code"] == "UCS_ERR_SHMEM_SEGMENT"
    assert sites["Transport retry count exceeded"]["family"] == "rdma.gid_index"
    assert full["unassigned"] and all(not by_id[i]["family"] for i in full["unassigned"])


def test_short_texts_need_ucx_line_shape():
    sites = {s["text"]: s for s in knowgen.committed("ucx_messages")["sites"]}
    import re

    shm = re.compile(sites["Shared memory error"]["re"])
    assert shm.search("ucp_ep_create(proc=1) failed: Shared memory error")
    assert not shm.search("myapp: Shared memory error")
    fatal = re.compile(sites["UD endpoint %p to %s: unhandled timeout error"]["re"])
    assert not fatal.search("UD endpoint 0x1 to x: unhandled timeout error")
    # ib_md.c's registration error (a line built from its format, not a pasted log): memlock only for ENOMEM
    reg = re.compile(sites["%s(address=%p, length=%zu, access=0x%lx) failed: %s"]["re"])
    line = ("[1700000000.000001] [n1:42:0]           ib_md.c:299  UCX  ERROR ibv_reg_mr(address=0x7f00, "
            "length=4096, access=0xf) failed: %s")
    assert reg.search(line % "Cannot allocate memory") and not reg.search(line % "Bad address")


def test_real_ucx_texts_get_their_entry(cli, tmp_path):
    want = {"posix_proc_link_4511": "container.ucx_shm", "posix_enoent_8511": "container.ucx_shm",
            "ud_timeout_7885": "rdma.gid_index", "ud_timeout_6522": "rdma.gid_index"}
    for name, text in REAL.items():
        rc, doc = explain_paste(cli, tmp_path, text, "--file", name=name + ".txt", rcs=(0,))
        assert root_id(doc) == want[name], (name, ids(doc))
    rc, doc = explain_paste(cli, tmp_path, REAL["posix_proc_link_4511"], "--file", rcs=(0,))
    got = " ".join(fixes(f, " ") for f in doc["findings"] if f["id"] == "container.ucx_shm")
    assert "--ipc=host" in got and "UCX_TLS" in got


def test_healthy_ucx_info_gives_no_error(cli, tmp_path):
    rc, doc = explain_paste(cli, tmp_path, HEALTHY, "--file", rcs=(0,))
    assert doc["verdict"] == "no_error" and not doc["findings"], doc["findings"]

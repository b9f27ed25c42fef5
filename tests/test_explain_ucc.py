"""UCC (openucx/ucc) messages (issue 18): the collective library under torch's ProcessGroupUCC and Open MPI's
coll/ucc, beside the UCX table. Read from UCC's source by tools/gen_ucc_messages.py (its slice
tools/data/ucc_messages_slice.txt keeps three files' parts with their line numbers): the generator regenerates
the committed sites, and real texts of public openucx/ucc threads (cited per text) get their entry.
"""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLICE = os.path.join(REPO, "tools", "data", "ucc_messages_slice.txt")
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_ucc_messages as gen  # noqa: E402
import knowgen  # noqa: E402
from explainhelp import explain_paste, ids, root_id, root_of  # noqa: E402

REAL = {
    # https://github.com/openucx/ucc/issues/566 (ucc_init under mpirun: no TL loaded)
    "no_tls_566": (
        "(cylon_dev) niranda@aurora-r10:~/git/cylon/build$ mpirun -np 2 bin/ucc_example \n"
        "[1657573854.666701] [aurora-r10:77956:0]          ucc_cl.c:57   UCC  ERROR no TLs are selected for CL_BASIC\n"
        "[1657573854.666713] [aurora-r10:77956:0]         ucc_lib.c:127  UCC  ERROR lib_init failed for component: "
        "basic\n*** UCC TEST FAIL: ucc_init(&lib_params, lib_config, &lib)\n"),
    # https://github.com/openucx/ucc/issues/656 (UCC 1.1 logged this at ERROR; the hand pattern of mpi.ucc_tl_selection)
    "required_tl_656": (
        "[1667117403.755480] [luna-0062:1724877:0]     ucc_context.c:240  UCC  ERROR required TL nccl is not part of "
        "the context\n"
        "[1667117403.839909] [luna-0062:1724878:0]     ucc_context.c:240  UCC  ERROR required TL nccl is not part of "
        "the context\n"),
}


def test_generator_regenerates_the_committed_sites_from_the_slice(tmp_path):
    got = knowgen.regenerated(gen.main, SLICE, tmp_path / "ucc_messages.json")
    full = knowgen.committed("ucc_messages")
    assert got["header"]["version"] == full["header"]["version"] and "(commit " in full["header"]["version"]
    by_text = {s["text"]: s for s in full["sites"]}
    assert len(got["sites"]) >= 8
    for s in got["sites"]:
        assert {k: v for k, v in s.items() if k not in ("id", "where")} == \
            {k: v for k, v in by_text[s["text"]].items() if k not in ("id", "where")}, s["id"]
    sites = {s["text"]: s for s in got["sites"]}
    assert sites["no TLs are selected for %s"]["family"] == "mpi.ucc_tl_selection" and sites["no TLs are selected for %s"]["fix"]
    assert sites["cudaIpcOpenMemHandle error %d %s"]["family"] == "mpi.ucc_cuda_ipc"
    assert full["unassigned"] == sorted(s["id"] for s in full["sites"] if not s.get("family"))


def test_the_prefix_is_uccs_not_ucxs():
    sites = {s["text"]: s for s in knowgen.committed("ucc_messages")["sites"]}
    rx = re.compile(sites["cudaIpcOpenMemHandle error %d %s"]["re"])
    line = "[1700000000.000001] [n1:42:0]    tl_cuda_cache.c:219  %s ERROR cudaIpcOpenMemHandle error 1 invalid argument"
    assert rx.search(line % "TL_CUDA") and not rx.search(line % "UCX ")
    assert not rx.search("cudaIpcOpenMemHandle error 1 invalid argument")


def test_real_texts_get_their_entry(cli, tmp_path):
    for name, text in REAL.items():
        rc, doc = explain_paste(cli, tmp_path, text, "--file", name=name + ".txt", rcs=(0, 1))
        assert root_id(doc) == "mpi.ucc_tl_selection", (name, ids(doc))
    rc, doc = explain_paste(cli, tmp_path, REAL["no_tls_566"], "--file", rcs=(0, 1))
    assert "ucc_info -s" in root_of(doc)["causes"][0]["fix"][0]

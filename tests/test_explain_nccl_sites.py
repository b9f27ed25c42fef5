"""NCCL's message sites with their own meaning and fix (tools/gen_nccl_messages.py MSG_FIX, issue 18):
a matched WARN line answers with what THIS message means and what to change, ahead of its family's
generic causes. Real texts from public threads through the real CLI (`gpudoctor explain --json`,
in-process), each under its thread's URL, trimmed of unrelated lines (never reworded); none is in
bench/data/ (the held-out sets)."""

import json
import os

from explainhelp import assert_root, explain_paste

GENERATED = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "gpudoctor", "data",
                         "knowledge", "generated", "nccl_messages.json")

# https://github.com/marin-community/marin/issues/7018 (description; settled in the thread by an
# NCCL_SOCKET_IFNAME that names the routable interface). XLA quotes NCCL's last WARN after the
# generic 'invalid usage', which alone must not name a cause (e.g. two ranks on one GPU).
MARIN_7018 = (
    "Failed to create NCCL communicator: INTERNAL: ncclCommInitRankConfig(...) failed:\n"
    "invalid usage ... Last NCCL warning(error): 'Bootstrap : no socket interface found'\n")

# https://github.com/NVIDIA/nccl-tests/issues/206 (the title; settled: `ulimit -l` was 8192 inside
# mpirun, raising the memlock limit fixed it)
NCCL_TESTS_206 = "misc/ibvwrap.cc:278 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory\n"

# https://github.com/modelscope/FunCodec/issues/44 (the title): NCCL's INFO line when no external
# network plugin is installed, in every NCCL_DEBUG=INFO log; NCCL then uses its own transports
PLUGIN_INFO = ("node0:13571:13571 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object "
               "file: No such file or directory No plugin found (libnccl-net.so), using internal implementation\n")


def _explain(cli, tmp_path, text, rcs):
    return explain_paste(cli, tmp_path, text, rcs=rcs, quiet=True)[1]


def _sites():
    with open(GENERATED) as f:
        return json.load(f)["sites"]


def test_no_socket_interface_quoted_after_invalid_usage_names_the_interface_setting(cli, tmp_path):
    doc = _explain(cli, tmp_path, MARIN_7018, (0, 1))
    root = assert_root(doc, verdict="root_cause", entry="nccl.socket_ifname", confidence="cause")
    first = root["causes"][0]
    assert first["text"].startswith("src/bootstrap.cc") and "NCCL_SOCKET_IFNAME" in first["text"]
    assert any("export NCCL_SOCKET_IFNAME=" in f for f in first["fix"])
    assert not any("same GPU" in c["text"] for c in root["causes"])


def test_ibv_reg_mr_enomem_names_the_memlock_limit(cli, tmp_path):
    doc = _explain(cli, tmp_path, NCCL_TESTS_206, (0, 1))
    root = assert_root(doc, verdict="root_cause", entry="rdma.memlock", confidence="cause", fix="ulimit -l")
    first = root["causes"][0]
    assert first["text"].startswith("src/misc/ibvwrap.cc") and "locked-memory" in first["text"]
    assert first["evidence"] and "ibv_reg_mr_iova2" in first["evidence"][0]["text"]


def test_the_no_plugin_info_line_alone_is_no_error(cli, tmp_path):
    doc = _explain(cli, tmp_path, PLUGIN_INFO, (0,))
    assert doc["verdict"] == "no_error" and not doc["findings"], doc["verdict"]
    site = next(s for s in _sites() if s["text"].startswith("NET/Plugin : dlerror=%s No plugin found"))
    assert "Harmless unless" in site["means"]


def test_the_ibvwrap_macros_give_one_site_per_verbs_call():
    """src/misc/ibvwrap.cc prints 'Call to " name " failed ...' through macros: each use is a site."""
    sites = {s["text"]: s for s in _sites()}
    for text, family, word in [("Call to ibv_reg_mr failed with error %s", "rdma.memlock", "memlock"),
                               ("Call to ibv_create_qp failed with error %s", "nccl.net_ib", "ulimit -l"),
                               ("Call to ibv_modify_qp failed with %d %s, %s", "rdma.modify_qp", "NCCL_IB_GID_INDEX"),
                               ("Call to ibv_dereg_mr failed with error %s errno %d", "nccl.net_ib", None)]:
        s = sites[text]
        assert s["family"] == family and s["re"], text
        assert (word in " ".join(s["fix"])) if word else "fix" not in s, text
    # a word, not letters: 'sigIdx' (enqueue.cc) is no GID
    assert sites["ncclWaitSignal: descriptor %d has invalid sigIdx %d (must be 0)"]["family"] != "rdma.gid_index"
    assert sum(1 for s in _sites() if s.get("fix")) >= 250

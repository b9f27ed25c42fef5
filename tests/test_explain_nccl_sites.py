"""NCCL's and Gloo's message sites with their own meaning and fix (MSG_FIX of tools/gen_nccl_messages.py
and tools/gen_gloo_messages.py, issue 18):
a matched WARN line answers with what THIS message means and what to change, ahead of its family's
generic causes. Real texts from public threads through the real CLI (`gpudoctor explain --json`,
in-process), each under its thread's URL, trimmed of unrelated lines (never reworded); none is in
bench/data/ (the held-out sets)."""

import json
import os

from conftest import FIXTURES
from explainhelp import assert_root, explain_paste
from gpudoctor.explain.knowledge import generated_path, open_table

from gpudoctor import explain

GENERATED = generated_path("nccl_messages")  # .json or .json.gz
GLOO = generated_path("gloo_messages")

# https://github.com/marin-community/marin/issues/7018 (description; settled in the thread by an
# NCCL_SOCKET_IFNAME that names the routable interface). XLA quotes NCCL's last WARN after the
# generic 'invalid usage', which alone must not name a cause (e.g. two ranks on one GPU).
MARIN_7018 = (
    "Failed to create NCCL communicator: INTERNAL: ncclCommInitRankConfig(...) failed:\n"
    "invalid usage ... Last NCCL warning(error): 'Bootstrap : no socket interface found'\n")

# composed from the format of src/misc/socket.cc (NCCL 2.28: WARN("socketPollConnect to %s failed with error
# %s", ...)) under NCCL's line prefix (src/debug.cc); the address and errno are examples
POLL_CONNECT = ("node1:1191:2198 [0] misc/socket.cc:622 NCCL WARN socketPollConnect to 10.0.0.2<45763> failed "
                "with error Connection refused\n")

# https://github.com/NVIDIA/nccl/issues/268 (description; NCCL 2.4.7 under Horovod/TensorFlow): the format of
# 2.4-2.11, without the peer's address; NCCL's maintainer on the same message (NVIDIA/nccl#626): ranks that
# call NCCL differently, or a setting that makes them pick different protocols
NCCL_268 = ("hvd1:2918:3333 [0] external/nccl_archive/src/transport/net_socket.cc:200 NCCL WARN NET/Socket : "
            "message truncated : receiving 696320 bytes instead of 32768\n")

# https://github.com/zai-org/ImageReward/issues/65 (description; a Kubernetes pod: NCCL opens some mlx5
# devices and not others, then uses the ones it could open)
IMAGEREWARD_65 = (
    "65826-86bd789679-2dxbs:80744:80744 [1] misc/ibvwrap.cc:212 NCCL WARN Call to ibv_open_device failed\n\n"
    "65826-86bd789679-2dxbs:80746:80746 [3] transport/net_ib.cc:149 NCCL WARN NET/IB : Unable to open device mlx5_59\n\n"
    "65826-86bd789679-2dxbs:80744:80744 [1] transport/net_ib.cc:149 NCCL WARN NET/IB : Unable to open device mlx5_58\n"
    "65826-86bd789679-2dxbs:80746:80746 [3] NCCL INFO NET/IB : Using [0]mlx5_1:1/RoCE [1]mlx5_18:1/RoCE ; OOB "
    "eth0:33.117.221.247<0>\n")

# https://github.com/NVIDIA/nccl-tests/issues/206 (the title; settled: `ulimit -l` was 8192 inside
# mpirun, raising the memlock limit fixed it)
NCCL_TESTS_206 = "misc/ibvwrap.cc:278 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory\n"

# https://github.com/modelscope/FunCodec/issues/44 (the title): NCCL's INFO line when no external
# network plugin is installed, in every NCCL_DEBUG=INFO log; NCCL then uses its own transports
PLUGIN_INFO = ("node0:13571:13571 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object "
               "file: No such file or directory No plugin found (libnccl-net.so), using internal implementation\n")


# https://github.com/NVIDIA/Megatron-LM/issues/436 (a comment: a two-line Gloo test program fails the same
# way; the answer there: GLOO_SOCKET_IFNAME names no usable interface)
MEGATRON_436 = (
    "    pg = ProcessGroupGloo(prefix_store, rank, world_size, timeout=timeout)\n"
    "RuntimeError: [enforce fail at /root/pytorch/third_party/gloo/gloo/transport/tcp/device.cc:83] ifa != nullptr. "
    "Unable to find address for: bond1\n")

# https://github.com/FoundationVision/VNext/issues/9 (description: "The program is stuck on some iteration and
# one of the 8 GPUs is idle"): the rank that waited reports the timeout, another rank is the cause
VNEXT_9 = ("RuntimeError: [/opt/conda/conda-bld/pytorch_1656352430114/work/third_party/gloo/gloo/transport/tcp/"
           "unbound_buffer.cc:136] Timed out waiting 1800000ms for send operation to complete\n")


def _explain(cli, tmp_path, text, rcs):
    return explain_paste(cli, tmp_path, text, rcs=rcs, quiet=True)[1]


def _facts(name="h100-ubuntu2404-torch211"):
    """A recorded node (fixtures/nodes/): its default route is on eth0."""
    with open(os.path.join(FIXTURES, "nodes", name + ".json")) as f:
        return json.load(f)


def _sites():
    with open_table(GENERATED) as f:
        return json.load(f)["sites"]


def test_no_socket_interface_quoted_after_invalid_usage_names_the_interface_setting(cli, tmp_path):
    """The site has no row of its own: nccl.socket_ifname is that cause (with the interface computed
    from the facts); the generic 'invalid usage' beside it names no other cause."""
    doc = _explain(cli, tmp_path, MARIN_7018, (0, 1))
    root = assert_root(doc, verdict="root_cause", entry="nccl.socket_ifname", confidence="cause")
    assert "NCCL_SOCKET_IFNAME" in root["causes"][0]["text"]
    assert not any("same GPU" in c["text"] for c in root["causes"])


def test_a_connect_failure_gets_its_own_cause_and_the_interface_from_the_facts(kb):
    doc = explain.explain_text(POLL_CONNECT, kb)
    first = doc["findings"][0]["causes"][0]
    assert first["text"].startswith("src/misc/socket.cc") and "nothing listens there" in first["text"]
    assert not first.get("computed_fix")
    # with a node's facts, the interface its default route uses comes first in that cause too
    doc = explain.explain_text(POLL_CONNECT, kb, facts=_facts())
    first = doc["findings"][0]["causes"][0]
    assert first["text"].startswith("src/misc/socket.cc")
    assert first["fix"][0].startswith("export NCCL_SOCKET_IFNAME=eth0") and first["computed_fix"] == first["fix"][0]
    assert first["exports"] == {"NCCL_SOCKET_IFNAME": "eth0"}


def test_an_older_releases_message_truncated_is_answered(kb):
    """Was 'no error' (the format of 2.4-2.11 is no site of 2.12+): --older reads the releases from 2.4."""
    doc = explain.explain_text(NCCL_268, kb)
    root = assert_root(doc, verdict="root_cause", entry="nccl.net_socket", confidence="cause")
    first = root["causes"][0]
    assert first["text"].startswith("src/transport/net_socket.cc") and "NCCL_PROTO" in first["text"]
    site = next(s for s in _sites() if s["text"] == "NET/Socket : message truncated : receiving %d bytes instead of %d")
    assert site["until"] == "2.9.9"


def test_a_verbs_device_that_does_not_open_names_the_container_device_access(kb):
    """Was nccl.net_ib's generic causes (how sure: family; a port down first): the macro's own site says the device node."""
    root = assert_root(explain.explain_text(IMAGEREWARD_65, kb), verdict="root_cause", entry="nccl.net_ib",
                       confidence="cause")
    first = root["causes"][0]
    assert first["text"].startswith("src/misc/ibvwrap.cc") and "container" in first["text"]
    assert any("--device=/dev/infiniband" in f for f in first["fix"])


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
                               ("Call to ibv_modify_qp failed with %d %s, %s", "rdma.modify_qp", None),
                               ("Call to ibv_dereg_mr failed with error %s errno %d", "nccl.net_ib", "first error")]:
        s = sites[text]
        assert s["family"] == family and s["re"], text
        assert (word in " ".join(s["fix"])) if word else "fix" not in s, text  # None: the family's answer
    # a word, not letters: 'sigIdx' (enqueue.cc) is no GID
    assert sites["ncclWaitSignal: descriptor %d has invalid sigIdx %d (must be 0)"]["family"] != "rdma.gid_index"
    assert sum(1 for s in _sites() if s.get("fix")) >= 250


def test_gloo_unable_to_find_address_keeps_its_familys_answer(cli, tmp_path):
    """gloo.socket_ifname is this cause (no row of its own): GLOO_SOCKET_IFNAME, from the facts when given."""
    doc = _explain(cli, tmp_path, MEGATRON_436, (0, 1))
    root = assert_root(doc, verdict="root_cause", entry="gloo.socket_ifname", fix="GLOO_SOCKET_IFNAME=")
    assert not root["causes"][0]["text"].startswith("gloo/")


def test_gloo_timeout_points_at_the_late_rank_not_the_network(cli, tmp_path):
    doc = _explain(cli, tmp_path, VNEXT_9, (0, 1))
    root = assert_root(doc, verdict="root_cause", entry="gloo.timeout", confidence="cause")
    assert "One rank was still busy" in root["causes"][0]["text"]
    assert not any("SOCKET_IFNAME" in f for c in root["causes"][:2] for f in c["fix"])


def test_gloo_sites_with_their_own_fix():
    with open_table(GLOO) as f:
        sites = json.load(f)["sites"]
    fixed = [s for s in sites if s.get("fix")]
    assert len(fixed) >= 15 and all(s["family"] and s["means"].startswith("gloo/") for s in fixed)
    # what a family already answers from the log and the facts keeps the family's causes
    for words in ("op.preamble.length <= op.nbytes", "Timed out waiting %sms for recv", "Unable to find address for:"):
        assert not any(s.get("fix") for s in sites if words in s["text"]), words
    family = next(s for s in sites if "ss1.ss_family == ss2.ss_family" in s["text"])
    assert "IPv6" in family["means"] and "GLOO_SOCKET_IFNAME" in family["fix"][0]

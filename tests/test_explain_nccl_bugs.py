"""Known NCCL bugs by version (gpudoctor/data/knowledge/nccl_bugs.toml, issue 18): real texts from
public threads through the real CLI (`gpudoctor explain --json`, in-process). Each text is the
user's paste, trimmed of unrelated lines (never reworded); its thread's URL is above it. None of
them is in bench/data/ or fixtures/logs/.

A known bug needs an affected version AND its own symptom; the same words with a fixed version, at
another site, or a peer's echo alone name no known bug."""


import pytest
from explainhelp import assert_root, explain_paste

# https://github.com/NVIDIA/nccl/issues/957 (description): NCCL 2.18.3 from a CUDA 12.1 container,
# Megatron-LM on two nodes; the fix is commit 4365458 (NCCL 2.18.6 / 2.19.3). The WARN lines and
# the line naming the failing version are the same post's.
NCCL_957 = (
    "Fri Aug 11 12:31:45 2023[1,0]<stdout>:tomte401:1850301:1881341 [0] transport.cc:154 NCCL WARN Cuda failure "
    "'invalid argument'\n"
    "Fri Aug 11 12:31:45 2023[1,0]<stdout>:tomte401:1850301:1881358 [0] proxy.cc:1485 NCCL WARN [Service thread] "
    "Error encountered progressing operation=Connect, res=3, closing connection\n"
    "Fri Aug 11 12:31:45 2023[1,0]<stdout>:tomte401:1850301:1881358 [0] proxy.cc:1495 NCCL WARN [Service thread] "
    "Could not receive type from localRank 0, res=3, closed=0\n"
    "Fri Aug 11 12:31:45 2023[1,0]<stdout>:tomte401:1850301:1881358 [0] proxy.cc:1519 NCCL WARN [Proxy Service 0] "
    "Failed to execute operation Connect from rank 0, retcode 3\n"
    "\n"
    "Fri Aug 11 12:31:45 2023[1,3]<stdout>:tomte401:1850304:1881110 [3] transport.cc:154 NCCL WARN Cuda failure "
    "'invalid argument'\n"
    "\n"
    "**Failing (NCCL version 2.18.3+cuda12.1)**\n")

# https://github.com/hiyouga/LlamaFactory/issues/1169 (description; the same user's
# NVIDIA/nccl#1024 links it, and NCCL's maintainer answered there: "This is indeed the bug fixed by
# this commit [4365458] which is indeed in 2.18.6"). torch's form: no WARN line, so no site.
LLAMAFACTORY_1169 = (
    "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1331, "
    "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.5\n"
    "ncclUnhandledCudaError: Call to CUDA function failed.\n"
    "Last error:\n"
    "Cuda failure 'invalid argument'\n"
    "DESKTOP-VMBL43V:1213:1213 [1] NCCL INFO comm 0x7b10e090 rank 1 nranks 2 cudaDev 1 busId 4000 - Abort COMPLETE\n"
    "DESKTOP-VMBL43V:1212:1212 [0] NCCL INFO comm 0x7aad4cf0 rank 0 nranks 2 cudaDev 0 busId 1000 - Abort COMPLETE\n"
    "[2023-10-13 06:57:13,068] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) "
    "local_rank: 0 (pid: 1212) of binary: /home/marco/miniconda3/envs/lama/bin/python\n")

# https://github.com/pytorch/pytorch/issues/119932 (description): torch 2.2 with an older NCCL
# ("downgrading the torch to 2.1.2 solved the issue"; duplicate of pytorch/pytorch#119072)
TORCH_119932 = (
    "ImportError                               Traceback (most recent call last)\n"
    "Cell In[3], line 1\n"
    "----> 1 import torch\n"
    "\n"
    "File ~/anaconda3/envs/myenv/lib/python3.9/site-packages/torch/__init__.py:237\n"
    "    235     if USE_GLOBAL_DEPS:\n"
    "    236         _load_global_deps()\n"
    "--> 237     from torch._C import *  # noqa: F403\n"
    "\n"
    "ImportError: /home/test/anaconda3/envs/myenv/lib/python3.9/site-packages/torch/lib/libtorch_cuda.so: "
    "undefined symbol: ncclCommRegister\n")

# Negative twins
# https://github.com/NVIDIA/nccl/issues/1410 (description): the same torch form and words, NCCL 2.20.5 (fixed)
NCCL_1410 = (
    "[rank7]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, "
    "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5\n"
    "[rank7]: ncclUnhandledCudaError: Call to CUDA function failed.\n"
    "[rank7]: Last error:\n"
    "[rank7]: Cuda failure 1 'invalid argument'\n")
# https://github.com/pytorch/pytorch/issues/150852 (description): the WARN at transport/nvls.cc, NCCL 2.26.2
TORCH_150852 = (
    "[2025-04-08 08:39:46] devgpu263:589012:591652 [0] transport/nvls.cc:254 NCCL WARN Cuda failure 1 "
    "'invalid argument'\n"
    "devgpu263:589012:591652 [0] NCCL INFO transport/nvls.cc:409 -> 1\n"
    "devgpu263:589012:591652 [0] NCCL INFO init.cc:1141 -> 1\n"
    "devgpu263:589012:591652 [0] NCCL INFO init.cc:1409 -> 1\n"
    "devgpu263:589012:591652 [0] NCCL INFO group.cc:75 -> 1 [Async thread]\n"
    "[rank0]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
    "NCCLUtils.cpp:77, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.26.2\n")
# https://github.com/NVIDIA/nccl/issues/976 (description): an affected version, the same words at
# transport/nvls.cc ("nv-fabricmanager having been manually restarted", the maintainer)
NCCL_976 = (
    "NCCL version 2.18.5+cuda12.2\n"
    "...\n"
    "transport/nvls.cc:165 NCCL WARN Cuda failure 'invalid argument'\n"
    "NCCL INFO transport/nvls.cc:324 -> 1\n"
    "NCCL INFO init.cc:1093 -> 1\n"
    "NCCL INFO init.cc:1358 -> 1\n"
    "NCCL INFO init.cc:1598 -> 1\n")
# https://github.com/NVIDIA/nccl-tests/issues/166 (description, 2023-09): the peers' echo after a
# closed socket, 'Socket recv failed while polling for opId'
ECHO_166 = (
    "gpu004:2200689:2200706 [3] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer "
    "gpu004.ds-a4-r02.abc.com<55693>\n"
    "gpu004:2200689:2200706 [3] NCCL INFO misc/socket.cc:749 -> 6\n"
    "\n"
    "gpu004:2200689:2200706 [3] proxy.cc:1143 NCCL WARN Socket recv failed while polling for opId=0x7f4774cc9620\n"
    "gpu004:2200689:2200706 [3] NCCL INFO transport/net.cc:288 -> 3\n"
    "gpu004:2200689:2200706 [3] NCCL INFO transport.cc:148 -> 3\n"
    "gpu004:2200689:2200706 [3] NCCL INFO init.cc:1079 -> 3\n")


def _explain(cli, tmp_path, text, name="paste.log"):
    return explain_paste(cli, tmp_path, text, name=name, rcs=(0, 1), quiet=True)[1]


def _known(doc):
    return [f["id"] for f in doc["findings"] if f["family"] == "nccl.known_bug"]


def test_nccl_957_the_transport_cc_failure_with_2_18_3_is_the_known_bug(cli, tmp_path):
    doc = _explain(cli, tmp_path, NCCL_957)
    root = assert_root(doc, confidence="cause", fix="2.19.3")
    assert doc["root"] == "nccl.bug_218_async_memcpy" and "fixed in 2.18.6 / 2.19.3" in root["title"]
    shown = [m["text"] for m in root["matches"]]  # the WARN line and the version line
    assert any("transport.cc:154 NCCL WARN" in t for t in shown) and any("2.18.3+cuda12.1" in t for t in shown)
    rc, out, _ = cli("explain", str(tmp_path / "paste.log"))
    # the title is wrapped at 100 columns (render.WIDTH): compared with its line breaks as spaces
    assert "ROOT CAUSE  nccl.bug_218_async_memcpy" in out and "fixed in 2.18.6" in " ".join(out.split())


def test_torchs_form_of_the_2_18_bug_names_it_as_a_cause_to_confirm(cli, tmp_path):
    """Without the WARN line the site is unknown (transport/nvls.cc says the same words, NVIDIA/nccl#976):
    the family, with the known bug as the first possible cause and how to tell it apart."""
    doc = _explain(cli, tmp_path, LLAMAFACTORY_1169)
    first = assert_root(doc, confidence="family", fix="nvidia-nccl-cu12>=2.19.3")["causes"][0]
    assert doc["root"] == "nccl.unhandled_cuda_error"
    assert "NVIDIA/nccl#957" in first["text"] and "fixed in 2.18.6 / 2.19.3" in first["text"]
    assert any("transport.cc" in c and "nvls.cc" in c for c in first["confirm"])


def test_torch_2_2_with_an_older_nccl_names_ncclcommregister(cli, tmp_path):
    doc = _explain(cli, tmp_path, TORCH_119932)
    root = assert_root(doc, fix=("nvidia-nccl-cu12", "torch 2.1.2"))
    assert doc["root"] == "nccl.torch_needs_nccl_219" and root["family"] == "nccl.version_mismatch"
    assert "NCCL >= 2.19" in root["title"]


@pytest.mark.parametrize("name,text,root", [
    ("nccl1410", NCCL_1410, "nccl.unhandled_cuda_error"),   # the torch form, NCCL 2.20.5
    ("torch150852", TORCH_150852, "nccl.nvls"),              # the WARN form at nvls.cc, NCCL 2.26.2
    ("nccl976", NCCL_976, "nccl.nvls"),                      # an affected 2.18.5, but at nvls.cc
])
def test_the_same_words_with_a_fixed_version_or_at_another_site_are_no_known_bug(cli, tmp_path, name, text, root):
    doc = _explain(cli, tmp_path, text, name + ".log")
    assert doc["root"] == root and not _known(doc)
    for f in doc["findings"]:  # and no finding lists it as a possibility either
        assert not any("NVIDIA/nccl#957" in c["text"] for c in f["causes"]), f["id"]


def test_a_peers_socket_echo_is_no_known_bug(cli, tmp_path):
    doc = _explain(cli, tmp_path, ECHO_166)
    assert doc["root"] and not _known(doc)
    # with an affected version printed beside it (a composite: the echo of NVIDIA/nccl-tests#166
    # and the version line of NVIDIA/nccl#957, whose title names this pair) still no known bug
    doc = _explain(cli, tmp_path, ECHO_166 + "**Failing (NCCL version 2.18.3+cuda12.1)**\n", "composite.log")
    assert not _known(doc) and doc["findings"][0]["confidence"] == "family"


def test_a_causes_when_is_a_list_of_patterns():
    from gpudoctor.explain.knowledge import KnowledgeError, _validate

    def entry(cause):
        return {"id": "x.y", "title": "t", "explain": "e", "rank": 1, "patterns": ["abcdef"],
                "causes": [dict({"text": "c", "fix": ["f"]}, **cause)], "references": [{"title": "r", "url": "https://x"}]}

    with pytest.raises(KnowledgeError):
        _validate(entry({"when": "NCCL version 2.18.1"}), "t.toml", None)
    got = _validate(entry({"when": ['NCCL version 2\\.18\\.1']}), "t.toml", None)
    assert [p.cause for p in got["causes"][0]["_evidence"]] == [("when", 0, 0)]

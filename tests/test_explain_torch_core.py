"""torch's own messages outside torch.distributed (issue 18): tools/gen_torch_core_messages.py ->
generated/torch_core_messages.json (torch.load, nn.Module, autograd, torch.compile, the DataLoader's
options, torch.cuda, torch.amp, PYTORCH_CUDA_ALLOC_CONF, cpp_extension). The generator regenerates the
committed sites from its slice; the sites users meet carry their own meaning and fix (MSG_FIX); a
warning is never a finding. Every text in CASES is a real one from the public thread cited above it
(none from the held-out sets: bench/data/explain_heldout_*.jsonl name none of these threads).
"""

import json
import os
import re
import subprocess
import sys

import pytest
from explainhelp import assert_root
from gpudoctor.explain.knowledge import generated_path, open_table

from gpudoctor import explain

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = generated_path("torch_core_messages")  # .json or .json.gz


def _committed():
    with open_table(GEN) as f:
        return json.load(f)


def test_generator_regenerates_the_committed_sites_from_its_slice(tmp_path):
    out = tmp_path / "torch_core_messages.json"
    subprocess.run([sys.executable, os.path.join(REPO, "tools", "gen_torch_core_messages.py"), "--slice",
                    os.path.join(REPO, "tools", "data", "torch_core_messages_slice.txt.gz"), "-o", str(out)],
                   check=True, capture_output=True)
    with open(out) as f:
        got = json.load(f)
    full = _committed()
    assert got["header"]["generator"] == full["header"]["generator"] == "tools/gen_torch_core_messages.py"
    assert full["header"]["version"].startswith("torch 2.15.0") and "sha256" in full["header"]["version"]
    assert got["sites"] == full["sites"] and got["unassigned"] == full["unassigned"]
    # what gen_torch_messages.py owns (load_state_dict, the DataLoader's worker messages) is not here twice
    assert not [s for s in full["sites"] if "state_dict" in s["text"] or s["text"].startswith("DataLoader worker")]


def test_user_facing_sites_carry_their_own_fix_and_warnings_are_never_findings():
    sites = _committed()["sites"]
    by_text = {s["text"]: s for s in sites}
    for text, family in [
        ("PytorchStreamReader failed reading zip archive: %s", "torch.checkpoint_load"),
        ("Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the "
         "'spawn' start method", "cuda.init_failed"),
        ("grad can be implicitly created only for scalar outputs", "torch.usage"),
        ("Unrecognized key '%s' in CUDA allocator config.", "cuda.alloc_conf"),
        ("Hard failure due to fullgraph=True", "torch.compile_error"),
        ("CUDA_HOME environment variable is not set. Please set it to your CUDA install root.", "build.cuda_home"),
    ]:
        site = by_text[text]
        assert site["family"] == family and site["means"] and site["fix"], site
    assert sum(1 for s in sites if s.get("fix")) >= 120
    # an older release's wording (--older 2.1.0) is a site of its own, named with its release
    old = by_text["Unrecognized CachingAllocator option"]
    assert old["where"].endswith("(torch 2.1.0)") and old["family"] == "cuda.alloc_conf" and old["fix"], old
    assert all(not s.get("family") for s in sites if s["level"] == "warning")
    # Python's own wording (any class's AttributeError) is never torch's alone
    assert not by_text["'%s' object has no attribute '%s'"]["family"]


CASES = [
    # https://github.com/CompVis/stable-diffusion/issues/93 (torch.load of a checkpoint; settled: download it again)
    ("truncated-checkpoint",
     "Traceback (most recent call last):\n"
     "  File \"scripts/txt2img.py\", line 50, in load_model_from_config\n"
     "    pl_sd = torch.load(ckpt, map_location=\"cpu\")\n"
     "  File \"C:\\Users\\Simon\\anaconda3\\envs\\ldm\\lib\\site-packages\\torch\\serialization.py\", line 705, in load\n"
     "    with _open_zipfile_reader(opened_file) as opened_zipfile:\n"
     "  File \"C:\\Users\\Simon\\anaconda3\\envs\\ldm\\lib\\site-packages\\torch\\serialization.py\", line 243, in __init__\n"
     "    super(_open_zipfile_reader, self).__init__(torch._C.PyTorchFileReader(name_or_buffer))\n"
     "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory\n",
     "torch.checkpoint_load", r"download or copy it again"),
    # https://github.com/pytorch/pytorch/issues/104801 (PYTORCH_CUDA_ALLOC_CONF set in the script after
    # import torch; settled: export it before Python starts)
    ("alloc-conf-after-import",
     "Traceback (most recent call last):\n"
     "  File \"/workspace/src/tmp.py\", line 6, in <module>\n"
     "    x = torch.randn(1).cuda()\n"
     "  File \"/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py\", line 247, in _lazy_init\n"
     "    torch._C._cuda_init()\n"
     "RuntimeError: config[i] == get()->name() INTERNAL ASSERT FAILED at \"../c10/cuda/CUDACachingAllocator.cpp\":644, "
     "please report a bug to PyTorch. Allocator backend parsed at runtime != allocator backend parsed at load time\n",
     "cuda.alloc_conf", r"before Python starts"),
    # https://github.com/winycg/L-MCL/issues/1 (nn.DataParallel on 2 GPUs returns one loss per GPU)
    ("backward-of-a-vector",
     "  File \"/home/og/XieSH/models/LMCL/main_layer_mcl_cifar_meta.py\", line 204, in train\n"
     "    loss.backward()\n"
     "  File \"/home/og/miniconda3/envs/xsh36/lib/python3.6/site-packages/torch/autograd/__init__.py\", line 50, in "
     "_make_grads\n"
     "    raise RuntimeError(\"grad can be implicitly created only for scalar outputs\")\n"
     "RuntimeError: grad can be implicitly created only for scalar outputs\n",
     "torch.usage", r"loss\.mean\(\)\.backward\(\)"),
    # https://github.com/karpathy/nanoGPT/issues/157 (torch.compile on a GTX 1080; settled: compile = False)
    ("inductor-gpu-too-old",
     "RuntimeError: Found NVIDIA GeForce GTX 1080 which is too old to be supported by the triton GPU compiler, which "
     "is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA "
     "capability 6.1\n",
     "torch.compile_error", r"without torch\.compile"),
    # https://github.com/ROCm/pytorch/pull/1304 (torch 2.1's wording, read with --older 2.1.0: a key that release
    # does not know, release_lock_on_cudamalloc)
    ("alloc-conf-older-wording",
     "RuntimeError: Unrecognized CachingAllocator option: release_lock_on_cudamalloc\n",
     "cuda.alloc_conf", r"fix or remove the key"),
    # https://github.com/shubham-goel/4D-Humans/issues/59 (CUDA touched in the DataLoader; settled: the dataloader)
    ("cuda-in-forked-worker",
     "    raise RuntimeError(\n"
     "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use "
     "the 'spawn' start method\n",
     "cuda.init_failed", r"keep CUDA out of the Dataset"),
]


@pytest.mark.parametrize("name,text,family,fix", CASES, ids=[c[0] for c in CASES])
def test_torch_core_texts_get_their_own_fix(kb, name, text, family, fix):
    root = assert_root(explain.explain_text(text, kb), verdict="root_cause", entry=family, fix_re=fix,
                       confidence="cause")
    assert root["causes"][0]["evidence"], root["causes"][0]
    # the matched site is named by the program that prints it (analyze.SOURCES), with its file
    assert any(n.startswith("Known message of torch: torch/") for n in root["notes"]), root["notes"]


def test_a_healthy_run_with_torch_warnings_has_no_finding(kb):
    text = ("/usr/lib/python3/site-packages/torch/utils/cpp_extension.py:183: UserWarning: No CUDA runtime is found, "
            "using CUDA_HOME='/usr/local/cuda'\n"
            "/usr/lib/python3/site-packages/torch/autograd/anomaly_mode.py:83: UserWarning: Anomaly Detection has been "
            "enabled. This mode will increase the runtime and should only be enabled for debugging.\n"
            "epoch 1 step 100 loss 2.31\n")
    doc = explain.explain_text(text, kb)
    assert doc["verdict"] != "root_cause", [f["id"] for f in doc["findings"]]
    assert not re.search(r"torch_core", json.dumps(doc["findings"]))

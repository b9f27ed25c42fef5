"""What torch needs of the platform (issue 18; gpudoctor/data/knowledge/torch_platform.toml, hand-written from
c10/cuda/CUDAAllocatorConfig.h, c10/cuda/driver_api.h and torch/csrc/distributed/c10d/ProcessGroupMPI.cpp: none of
these messages is in the Linux wheels a generator could read). Real texts from public threads, cited per text.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from explainhelp import explain_paste, ids, root_of  # noqa: E402

REAL = {
    # https://github.com/unslothai/unsloth/issues/1446 (the title line; the thread names the line of
    # unsloth/__init__.py that set the allocator option: vGPU / Jetson)
    "vmm_unsloth_1446": ("os.environ[\"PYTORCH_CUDA_ALLOC_CONF\"] = \"expandable_segments:True,roundup_power2_divisions:"
                         "[64:128,256:64,>:32]\"\nRuntimeError: CUDA driver error: operation not supported\n"),
    # https://github.com/pytorch/pytorch/issues/192330 (WSL2: cuMemSetAccess fails; the repro's first line and error)
    "vmm_wsl_192330": ("PYTORCH_ALLOC_CONF=expandable_segments:True \\\nTORCH_SHOW_CPP_STACKTRACES=1 \\\n"
                       "python - <<'PY'\nRuntimeError: CUDA driver error: unknown error\n"),
    # https://github.com/pytorch/pytorch/issues/122057 (a Linux CUDA wheel, H100)
    "ignored_122057": ("[W CUDAAllocatorConfig.h:28] Warning: expandable_segments not supported on this platform "
                       "(function operator())\n"),
    # https://github.com/pytorch/pytorch/issues/116393 (the traceback, and the init line of the reporter's repro)
    "mpi_fp16_116393": ("torch.distributed.init_process_group(backend='mpi', world_size=4, rank=local_rank)\n"
                        "  File \"/../torch/distributed/distributed_c10d.py\", line 2055, in all_reduce\n"
                        "    work.wait()\nIndexError: map::at\n"),
}


def _root(cli, tmp_path, name):
    rc, doc = explain_paste(cli, tmp_path, REAL[name], "--file", name=name + ".txt", rcs=(0, 1))
    return doc, root_of(doc)


def test_expandable_segments_on_a_driver_without_the_vmm_api(cli, tmp_path):
    for name in ("vmm_unsloth_1446", "vmm_wsl_192330"):
        doc, root = _root(cli, tmp_path, name)
        assert root and root["id"] == "cuda.expandable_segments" and root["confidence"] == "cause", (name, ids(doc))
        assert "unset PYTORCH_CUDA_ALLOC_CONF" in root["causes"][0]["fix"][0]
    # the driver's text alone, nothing about the allocator: not this entry's cause
    rc, doc = explain_paste(cli, tmp_path, "RuntimeError: CUDA driver error: unknown error\n", "--file", rcs=(0, 1))
    assert "cuda.expandable_segments" not in ids(doc)


def test_the_ignored_setting_is_a_warning_with_its_cause(cli, tmp_path):
    doc, root = _root(cli, tmp_path, "ignored_122057")
    assert root is None and doc["verdict"] == "no_error"
    ctx = [c for c in doc["context"] if c["id"] == "cuda.expandable_segments_ignored"]
    assert ctx and "#137828" in ctx[0]["fix"], doc["context"]


def test_mpi_backend_dtype_outside_its_map(cli, tmp_path):
    doc, root = _root(cli, tmp_path, "mpi_fp16_116393")
    assert root and root["id"] == "mpi.torch_backend", ids(doc)
    assert "t.float()" in root["causes"][0]["fix"][0]
    # map::at without the MPI backend or a collective around it is any std::map: not this entry
    text = "terminate called after throwing an instance of 'std::out_of_range'\n  what():  map::at\n"
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1))
    assert "mpi.torch_backend" not in ids(doc)

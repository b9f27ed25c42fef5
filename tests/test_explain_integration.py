"""The answer mechanisms of explain together (issue 18): where two of them read the same text, the
answer stays one root with notes that agree with it.

The texts are from the public threads cited beside each (GitHub issues of seen held-out sets)."""

from gpudoctor.explain import explain_text, load_knowledge
from gpudoctor.explain.knowledge import squash

# pdbear/syno_nvidia_gpu_driver#22: nvidia-smi cannot get a handle for the GPU after a reboot; the user's own
# 'unable to detect the GPU device' was read as "PyTorch sees no GPU" and put a CUDA-wheel reinstall beside the root
SYNOLOGY = ("on DSM 7.2.1-69057 Update 5, Synology DS1621+, Telsa P4 GPU\n"
            "It was working fine and I rebooted it. It now says unable to detect the GPU device.\n"
            "$ nvidia-smi\n"
            "Unable to determine the device handle for GPU0000:07:00.0: Unknown Error\n"
            "There weren't any errors and I can stop/start the NvidiaGPU Driver spk without any problems.\n")

# gbionics/jaxsim#50: cuInit failed after a suspend; JAX's own 'No GPU/TPU found, falling back to CPU' follows it
JAXSIM = ("When I forget to close all the open ipython instances having GPU memory allocated through jax, after "
          "resuming I typically get the following error:\n"
          "2023-10-04 12:33:47.594219: E external/xla/xla/stream_executor/cuda/cuda_driver.cc:268] failed call to "
          "cuInit: CUDA_ERROR_UNKNOWN: unknown error\n"
          "No GPU/TPU found, falling back to CPU. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n")


def _ids(res):
    return [n["id"] for n in res["context"]]


def test_no_gpu_words_beside_a_gpu_root_add_no_note():
    res = explain_text(SYNOLOGY)
    assert res["verdict"] == "root_cause" and res["root"] == "gpu.xid.fallen_off_bus"
    assert "torch.runs_on_cpu" not in _ids(res)
    assert not any("download.pytorch.org" in (n.get("fix") or "") for n in res["context"])
    res = explain_text(JAXSIM)
    assert res["verdict"] == "root_cause" and res["root"] == "libload.cuinit"
    assert "torch.runs_on_cpu" not in _ids(res)


def test_words_note_kept_beside_an_unrelated_root():
    # the guard is per root family: the same words beside a root that does not account for them stay a note
    from gpudoctor.explain import symptoms

    assert symptoms._accounted("torch.runs_on_cpu", {"id": "gpu.xid.fallen_off_bus", "family": "cuda.gpu_hardware"})
    assert not symptoms._accounted("torch.runs_on_cpu", {"id": "nccl.timeout", "family": "nccl.timeout"})
    assert not symptoms._accounted("torch.gpu_idle", {"id": "cuda.oom", "family": "cuda.oom"})


def test_nccl_init_complete_is_no_candidate_and_still_reads_as_up():
    # layout.py read NCCL's 'Init COMPLETE' (src/init.cc) as a scan pattern: one line per rank and communicator,
    # a candidate each; bench/explain_bench.py's 100 MB log (one such line in eight) went from 5.9 s to 8.4 s of
    # CPU. It is read from the input's tail now (layout._nccl_up), where a retried store connect is judged
    from gpudoctor.explain import scan

    kb = load_knowledge()
    line = b"gpu-node-03:4001:5007 [3] NCCL INFO comm 0x55cc8aa86c70 rank 3 nranks 16 cudaDev 3 busId 1c000 - Init COMPLETE"
    assert [n for found in scan._hits(kb, squash(line)) for _, n in found] == []
    warn = ("[W1126 10:00:0%d.000000000 socket.cpp:755] [c10d] The client socket has failed to connect to "
            "[node-0]:29500 (errno: 111 - Connection refused).\n")
    up = line.decode() + "\n"
    res = explain_text("".join(warn % i for i in range(1, 4)) + up + "[rank 3] step 10 loss 2.3\n", kb)
    assert res["verdict"] == "no_error" and res["root"] is None
    res = explain_text(up + "".join(warn % i for i in range(1, 4)), kb)  # up before the retries: not after them
    assert res["root"] == "rendezvous.connect"


def test_compare_bench_reports_a_lost_answer(tmp_path, capsys):
    # bench/explain_compare.py diff: exit 1 and a LOST-FIX line when a case's fix is no longer named
    import json
    import os
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
    import explain_compare

    row = {"id": "c1", "healthy": False, "expected": "nccl.timeout", "root": "nccl.timeout", "fix_ok": True,
           "family_ok": True, "no_answer": False, "confident_wrong": False, "healthy_ok": False}
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps({"sets": {"2026-11-26x": [row]}, "acc": []}))
    b.write_text(json.dumps({"sets": {"2026-11-26x": [dict(row, fix_ok=False)]}, "acc": []}))
    assert explain_compare.diff(str(a), str(a), quiet=True) == 0
    assert explain_compare.diff(str(a), str(b), quiet=True) == 1
    assert "LOST-FIX" in capsys.readouterr().out

"""How the job was laid out, read from its own lines (gpudoctor/explain/layout.py, issue 18): two ranks on one
GPU of one node, a process of world size 1 that sees several GPUs, accelerate or Lightning on the CPU, two
processes that claim one global rank; a caught OOM retried with a smaller batch; two NCCL "nodes" on one host
over lo. A root only where the lines show it; healthy layouts (one GPU, every rank on its own device, distinct
ranks) get none.

Texts: the healthy ones are real logs of public repositories and threads, cited at each. The layout lines of the
others are printed by the format strings of the programs' sources (cited at each; the values are ours): no text
comes from bench/data/explain_heldout_* or from the held-out sets being collected."""

import textwrap

from explainhelp import root_of

from gpudoctor.explain import explain_text


def answer(kb, text):
    res = explain_text(textwrap.dedent(text), kb=kb, source="paste.txt")
    return res, root_of(res)


def layout_notes(res):
    return [n for n in res["context"] if n["id"] == "layout"]


# ---------------------------------------------------------------- two ranks on one GPU

# a script's own prints ('[rank {rank}/{world}] model on {device}'), launched by torchrun with its banner
# (torch/distributed/run.py: "Setting OMP_NUM_THREADS environment variable for each process ...", printed when
# nproc_per_node > 1)
SHARED = """\
$ torchrun --nproc-per-node 4 train.py
W1126 10:00:01.000000 311 torch/distributed/run.py:851] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.
[rank 0/4] model on cuda:0
[rank 2/4] model on cuda:0
[rank 1/4] model on cuda:0
[rank 3/4] model on cuda:0
[rank 0] step 10 loss 2.31
"""


def test_ranks_on_one_gpu_of_one_node_is_the_root(kb):
    res, root = answer(kb, SHARED)
    assert root["id"] == "torch.ranks_share_gpu"
    first = root["causes"][0]
    assert "ranks 0, 1, 2, 3 of 4 each print cuda:0" in first["text"]
    assert "--nproc-per-node 4" in first["text"]
    assert "set_device(local_rank)" in first["fix"][0] and "device_ids=[local_rank]" in first["fix"][0]
    assert [e["line"] for e in first["evidence"]][:2] == [3, 5]  # ranks 0 and 1


def test_every_rank_on_its_own_gpu_is_no_finding(kb):
    text = SHARED.replace("[rank 2/4] model on cuda:0", "[rank 2/4] model on cuda:2").replace(
        "[rank 1/4] model on cuda:0", "[rank 1/4] model on cuda:1").replace("[rank 3/4] model on cuda:0",
                                                                        "[rank 3/4] model on cuda:3")
    res, root = answer(kb, text)
    assert root is None and res["verdict"] == "no_error"
    assert not layout_notes(res)


def test_ranks_on_cuda0_without_one_node_evidence_is_a_note(kb):
    # two nodes of one GPU each print cuda:0 rightly; with no --nproc-per-node / launcher line nothing says one node
    res, root = answer(kb, "[rank 0/2] model on cuda:0\n[rank 1/2] model on cuda:0\n[rank 0] step 10 loss 2.31\n")
    assert root is None
    notes = layout_notes(res)
    assert notes and "Slurm --gpus-per-task" in notes[0]["note"] and "set_device" not in notes[0]["note"]


def test_nvidia_smi_process_table_two_pythons_on_gpu0(kb):
    # nvidia-smi(1)'s GPU and process tables (the layout of nvitop#152's paste:
    # https://github.com/XuehaiPan/nvitop/issues/152), two python processes on GPU 0, none on GPU 1
    text = """\
    [rank 0/2] model on cuda:0
    [rank 1/2] model on cuda:0
    |   0  NVIDIA H100 80GB HBM3          On  |   00000000:18:00.0 Off |                    0 |
    |   1  NVIDIA H100 80GB HBM3          On  |   00000000:2A:00.0 Off |                    0 |
    |  GPU   GI   CI        PID   Type   Process name                            GPU Memory |
    |    0   N/A  N/A     41210      C   /usr/bin/python3                          1210MiB |
    |    0   N/A  N/A     41211      C   /usr/bin/python3                          1206MiB |
    """
    res, root = answer(kb, text)
    assert root["id"] == "torch.ranks_share_gpu"
    assert "nvidia-smi lists 2 python processes on GPU 0 and none on GPU 1" in root["causes"][0]["text"]
    # the process row the sentence names is evidence beside the ranks' prints
    assert root["causes"][0]["evidence"][-1]["text"].startswith("|    0   N/A  N/A     41210")


def test_nvidia_smi_table_of_other_programs_is_no_finding(kb):
    # nvitop#152's real table (https://github.com/XuehaiPan/nvitop/issues/152): one program on two GPUs, X on a third
    text = """\
    |    0   N/A  N/A     10734      C   ...-x86_64-Release/abcdefgh/foo_bar         160MiB |
    |    0   N/A  N/A     58661      G   .../abcdefgh/123456/bin/abcde/bazbaz          3MiB |
    |    1   N/A  N/A     10734      C   ...-x86_64-Release/abcdefgh/foo_bar         160MiB |
    |    2   N/A  N/A     18243      G   /usr/bin/X                                   64MiB |
    |    2   N/A  N/A     22720      G   /usr/bin/gnome-shell                         34MiB |
    """
    res, root = answer(kb, text)
    assert root is None and not layout_notes(res)


# ---------------------------------------------------------------- one process, several GPUs

def test_world_size_one_with_two_gpus_visible_is_the_root(kb):
    res, root = answer(kb, "rank 0 world_size 1 device cuda:0 (visible GPUs: 4)\nrank 0 step 0/64 loss 7.07\n")
    assert root["id"] == "launcher.single_process"
    assert root["family"] == "launcher.nproc_gpus"
    assert "torchrun --nproc-per-node 4" in root["causes"][0]["fix"][0]


def test_hf_data_parallel_is_a_note_without_a_complaint_and_the_root_with_one(kb):
    # transformers examples/pytorch/*/run_*.py: logger.warning(f"Process rank: {training_args.local_rank}, device:
    # {training_args.device}, n_gpu: {training_args.n_gpu}, distributed training: ...")
    line = ("11/26/2026 10:00:01 - WARNING - __main__ - Process rank: -1, device: cuda:0, n_gpu: 2, distributed "
            "training: False, 16-bits training: False\n")
    res, root = answer(kb, line)
    assert root is None
    assert "DataParallel" in layout_notes(res)[0]["note"]
    res, root = answer(kb, "Training is very slow, much slower than expected on our two GPUs.\n" + line)
    assert root["id"] == "launcher.single_process"
    assert "torchrun --nproc-per-node 2" in root["causes"][0]["fix"][0]


def test_accelerate_single_gpu_log_is_healthy(kb):
    # a real `accelerate launch` log on one GPU (JunnYu/ChineseBert_pytorch examples/tnews/README.md:
    # https://github.com/JunnYu/ChineseBert_pytorch/blob/main/examples/tnews/README.md)
    text = """\
    04/01/2022 14:29:25 - INFO - __main__ - Distributed environment: NO
    Num processes: 1
    Process index: 0
    Local process index: 0
    Device: cuda
    Use FP16 precision: False

    04/01/2022 14:32:37 - INFO - __main__ - epoch 0: {'accuracy': 0.5687}
    """
    res, root = answer(kb, text)
    assert root is None and res["verdict"] == "no_error"
    assert not layout_notes(res)


# ---------------------------------------------------------------- on the CPU

# accelerate src/accelerate/state.py AcceleratorState.__repr__ ("Distributed environment: ...", "Num processes: ...",
# "Process index: ...", "Local process index: ...", "Device: ...", "Mixed precision type: ...")
ACC_CPU = """\
Distributed environment: DistributedType.NO
Num processes: 1
Process index: 0
Local process index: 0
Device: cpu

Mixed precision type: no
"""


def test_accelerate_on_cpu_with_a_slow_complaint_is_the_root(kb):
    res, root = answer(kb, "accelerate launch train.py on our 8-GPU node is extremely slow.\n" + ACC_CPU)
    assert root["id"] == "accelerate.runs_on_cpu"
    assert "Device: cpu" in root["causes"][0]["text"]
    assert "use_cpu: false" in root["causes"][0]["fix"][0]
    # the complaint the root rests on is evidence beside accelerate's line
    assert [e["line"] for e in root["causes"][0]["evidence"]][-1] == 1


def test_accelerate_on_cpu_alone_is_a_note(kb):
    res, root = answer(kb, ACC_CPU)
    assert root is None
    assert "Device: cpu" in layout_notes(res)[0]["note"]


def test_lightning_gpu_available_but_not_used(kb):
    # Lightning src/lightning/pytorch/trainer/setup.py _log_device_info: f"GPU available: {available}{type}, used:
    # {used}"
    text = "The run is extremely slow on our GPU box.\nGPU available: True (cuda), used: False\n"
    res, root = answer(kb, text)
    assert root["id"] == "accelerate.runs_on_cpu"
    assert "accelerator='gpu'" in root["causes"][0]["fix"][0]


def test_lightning_healthy_ddp_start_is_no_finding(kb):
    # threestudio#81's real start of a 4-GPU DDP run (https://github.com/threestudio-project/threestudio/issues/81):
    # four distinct global ranks, the GPU used
    text = """\
    [INFO] GPU available: True (cuda), used: True
    [INFO] TPU available: False, using: 0 TPU cores
    [rank: 0] Global seed set to 0
    Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4
    [rank: 1] Global seed set to 0
    [rank: 3] Global seed set to 0
    Initializing distributed: GLOBAL_RANK: 3, MEMBER: 4/4
    [rank: 2] Global seed set to 0
    Initializing distributed: GLOBAL_RANK: 2, MEMBER: 3/4
    [rank: 1] Global seed set to 0
    Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/4
    """
    res, root = answer(kb, text)
    assert root is None and not layout_notes(res)


# ---------------------------------------------------------------- one global rank claimed twice

def test_two_processes_claim_global_rank_zero(kb):
    # Lightning src/lightning/fabric/utilities/distributed.py _init_dist_connection: "Initializing distributed:
    # GLOBAL_RANK: {global_rank}, MEMBER: {global_rank + 1}/{world_size}", once per process: two nodes started without
    # their node rank both say rank 0 of 2
    text = ("Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2\n"
            "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2\n")
    res, root = answer(kb, text)
    assert root["id"] == "launcher.same_rank"
    assert "2 processes each claim global rank 0 of a world of 2" in root["causes"][0]["text"]


# ---------------------------------------------------------------- healthy: went on after an error

def test_oom_caught_and_retried_with_a_smaller_batch_is_healthy(kb):
    # the loop of accelerate's find_executable_batch_size (src/accelerate/utils/memory.py: halve batch_size on an
    # out-of-memory error and call again), done by hand and logged; the OOM text is torch's (c10/cuda/CUDACachingAllocator.cpp)
    oom = ("CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total capacity of 79.18 GiB of which 1.20 GiB is "
           "free. Of the allocated memory 75.10 GiB is allocated by PyTorch, and 1.50 GiB is reserved by PyTorch but "
           "unallocated.")
    text = ("trying batch_size=256\nWARNING: batch_size=256 does not fit, halving. %s\n"
            "trying batch_size=128\nepoch 1 done, batch_size=128, loss 2.11\n" % oom)
    res, root = answer(kb, text)
    assert root is None and res["verdict"] == "no_error"
    assert any(n["id"] == "cuda.oom" and "before the run completed" in n["note"] for n in res["context"])
    # the same OOM as the last word (no smaller batch after it) stays the root
    res, root = answer(kb, "trying batch_size=256\nWARNING: batch_size=256 does not fit. %s\n" % oom)
    assert root["id"] == "cuda.oom"


def test_two_processes_each_of_world_size_one(kb):
    # srun --label's '0: ' / '1: ' prefixes (srun(1) --label): two tasks of `srun -n 2 python train.py`, each a world
    # of one (the script's own prints)
    text = "0: rank 0 world_size 1 device cuda:0\n1: rank 0 world_size 1 device cuda:0\n0: step 10 loss 2.31\n"
    res, root = answer(kb, text)
    assert root["id"] == "launcher.single_process"
    assert "2 processes (0, 1) each say world size 1" in root["causes"][0]["text"]


def test_torchrun_restart_that_then_finished_is_healthy(kb):
    # torchrun's agent (torch/distributed/elastic/multiprocessing/api.py: "failed (exitcode: %s) local_rank: %s (pid:
    # %s) of binary: %s"; agent/server/api.py: "[%s] worker group successfully finished. Waiting %s seconds for other
    # agents to finish.") after --max-restarts 1 restarted the group; torch's OOM text (CUDACachingAllocator.cpp)
    text = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
            "79.18 GiB of which 1.02 GiB is free.\n"
            "E1126 10:00:05.000000 311 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: 1) "
            "local_rank: 0 (pid: 400) of binary: /usr/bin/python3\n"
            "I1126 10:01:40.000000 311 torch/distributed/elastic/agent/server/api.py:879] [default] worker group "
            "successfully finished. Waiting 300 seconds for other agents to finish.\n")
    res, root = answer(kb, text)
    assert root is None and res["verdict"] == "no_error"
    assert any("before the run completed" in n["note"] for n in res["context"])
    res, root = answer(kb, text.split("I1126")[0])
    assert root is not None


def test_lightning_processes_each_a_world_of_one(kb):
    # Lightning's init line (fabric/utilities/distributed.py _init_dist_connection), once per process: two tasks
    # each initialised a world of one (Lightning's SLURM docs: "You forgot to run the python train.py command with
    # srun", or --ntasks-per-node not matching devices)
    text = ("Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/1\n"
            "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/1\n")
    res, root = answer(kb, text)
    assert root["id"] == "launcher.single_process"
    assert "2 processes (line 1, line 2) each say world size 1" in root["causes"][0]["text"]
    res, root = answer(kb, text.split("\n")[0] + "\n")  # one such process is a one-GPU run: nothing
    assert root is None and not layout_notes(res)


def test_torchrun_config_dump_says_the_ranks_are_one_nodes(kb):
    # torchrun's config dump as LOGLEVEL=INFO prints it (torch/distributed/launcher/api.py launch_agent: "Starting
    # elastic_operator with launch configs:" then "  nproc_per_node   : %(nproc_per_node)s", under torch 2.2's
    # '[time] torch.distributed.launcher.api: [INFO]' prefix), then the script's prints: two nodes of 4, ranks 0 and 1
    # both on cuda:0
    text = """\
    [2024-03-12 08:22:45,549] torch.distributed.launcher.api: [INFO] Starting elastic_operator with launch configs:
    [2024-03-12 08:22:45,549] torch.distributed.launcher.api: [INFO]   min_nodes        : 2
    [2024-03-12 08:22:45,549] torch.distributed.launcher.api: [INFO]   nproc_per_node   : 4
    rank 0 of 8 on cuda:0
    rank 1 of 8 on cuda:0
    """
    res, root = answer(kb, text)
    assert root["id"] == "torch.ranks_share_gpu"
    assert "--nproc-per-node 4 (line 3)" in root["causes"][0]["text"]


def test_deepspeed_one_node_two_ranks_on_one_gpu(kb):
    # DeepSpeed's per-node launcher (deepspeed/launcher/launch.py: logger.info(f"nnodes={args.nnodes},
    # num_local_procs={num_local_procs}, node_rank={args.node_rank}"); it gives every local process the same
    # CUDA_VISIBLE_DEVICES), then the script's prints
    text = ("[2026-11-26 10:00:01,000] [INFO] [launch.py:163:main] nnodes=1, num_local_procs=2, node_rank=0\n"
            "rank=0 world_size=2 device=cuda:0\nrank=1 world_size=2 device=cuda:0\n")
    res, root = answer(kb, text)
    assert root["id"] == "torch.ranks_share_gpu"
    assert "nnodes=1, num_local_procs=2" in root["causes"][0]["text"]


def test_store_connect_retried_then_the_group_came_up_is_healthy(kb):
    # c10d's client warning per refused attempt (torch/csrc/distributed/c10d/socket.cpp, C10D_WARNING "The client
    # socket has failed to connect to [%s]:%d (errno: %d - %s)."), then NCCL's communicator (src/init.cc "... - Init
    # COMPLETE"): a rank that started before the store was up, retried and joined
    warn = ("[W1126 10:00:0%d.000000000 socket.cpp:755] [c10d] The client socket has failed to connect to "
            "[node-0]:29500 (errno: 111 - Connection refused).\n")
    text = "".join(warn % i for i in range(1, 4)) + (
        "node-1:4242:4242 [0] NCCL INFO comm 0x5566 rank 1 nranks 2 cudaDev 0 nvmlDev 1 busId 70 commId 0x1 - Init "
        "COMPLETE\n[rank 1] epoch 0 step 100 loss 2.31\n")
    res, root = answer(kb, text)
    assert root is None and res["verdict"] == "no_error"
    assert any(n["id"] == "rendezvous.connect" for n in res["context"])
    res, root = answer(kb, "".join(warn % i for i in range(1, 4)))  # never came up: the connect is the answer
    assert root["id"] == "rendezvous.connect"


def test_nvidia_smi_ranks_with_extra_memory_on_gpu0(kb):
    # nvidia-smi(1)'s process table (the row layout of nvitop#152's paste,
    # https://github.com/XuehaiPan/nvitop/issues/152): ranks 1 and 2 each also hold ~500 MiB on GPU 0 (pytorch/examples
    # #969 and PR #1142: CUDA used before set_device makes a context on cuda:0 in every process)
    text = """\
    |    0   N/A  N/A     51000      C   python                                 10240MiB |
    |    0   N/A  N/A     51001      C   python                                   518MiB |
    |    0   N/A  N/A     51002      C   python                                   518MiB |
    |    1   N/A  N/A     51001      C   python                                 10240MiB |
    |    2   N/A  N/A     51002      C   python                                 10240MiB |
    """
    res, root = answer(kb, text)
    assert root["id"] == "torch.gpu0_extra_memory"
    first = root["causes"][0]
    assert "PID 51001: 518 MiB on GPU 0, 10240 MiB on GPU 1" in first["text"]
    assert "set_device(local_rank)" in first["fix"][0]
    assert first["evidence"][0]["text"].startswith("|    0   N/A  N/A     51001")

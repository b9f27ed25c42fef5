"""Never confidently wrong (issue 18 item 3, wrong16): mechanisms of the seen sets' confidently-wrong answers
(docs/explain.md, "Confidently wrong, by mechanism (session 16)"; bench/data/wrong16_by_mechanism.json), each fixed
where the text shows its own evidence, from the source that prints the line.

1. A generic runtime line read as the image's fault: the container runtime not finding nvidia-smi (or another of
   the driver's programs the NVIDIA toolkit mounts in from the host: libnvidia-container src/nvc_info.c
   utility_bins / compute_bins) says the container got no GPU, not that the image lacks a program.
2. A generic library check read as that library's configuration: a weight of shape torch.Size([0]) (accelerate's
   set_module_tensor_to_device, torch's load_state_dict) is DeepSpeed ZeRO-3's partitioned placeholder
   (deepspeed/runtime/zero/partition_parameters.py frees a partitioned parameter's data to torch.empty(0)).
3. An echo read as the failure: a peer-closed error in a collective, where torchrun's own report says the other
   workers ended by themselves (one failure listed, none left to stop), is the ranks running different
   collectives (torch.collective_mismatch), not a crash elsewhere.
4. A generated family rule too wide: Slurm's ESLURM_INVALID_TIME_MIN_LIMIT has LIMIT in its name but
   src/slurmctld/job_mgr.c returns it for the request's own --time-min against its --time / the partition's
   MaxTime / --deadline: slurm.error with that fix, not a QOS limit.
"""

import os

from explainhelp import explain_paste, root_id, seen_text

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _seen(set_name, case_id):
    return seen_text(case_id, set_name)


# https://github.com/NVIDIA/nvidia-container-runtime/issues/190 (podman, crun)
PODMAN_190 = """sudo podman run --rm --gpus all ubuntu nvidia-smi -L
Error: crun: executable file `nvidia-smi` not found in $PATH: No such file or directory: OCI runtime attempted to invoke a command that was not found
"""
# https://github.com/google-deepmind/alphafold/issues/374 (docker, runc)
DOCKER_374 = """#docker run --rm -e NVIDIA_VISIBLE_DEVICES=all nvidia/cuda:11.5.1-base-centos8 nvidia-smi
docker: Error response from daemon: OCI runtime create failed: container_linux.go:380: starting container process caused: exec: "nvidia-smi": executable file not found in $PATH: unknown.
"""
# https://github.com/NVIDIA/nvidia-docker/issues/1382 (its title: an older runc that escapes the quotes)
DOCKER_1382 = ('centos container_linux.go:345: starting container process caused "exec: \\"nvidia-smi\\": executable '
               'file not found in $PATH": unknown.\n')
# the image's own command missing: still the runtime's 'not in the image' answer
NO_PYTHON = ('docker: Error response from daemon: failed to create shim task: OCI runtime create failed: runc create '
             'failed: unable to start container process: exec: "python": executable file not found in $PATH: unknown.\n')


def test_driver_program_missing_in_container_is_no_gpu(cli, tmp_path):
    for text in (PODMAN_190, DOCKER_374, DOCKER_1382):
        _, doc = explain_paste(cli, tmp_path, text)
        assert root_id(doc) == "container.oci_gpu", [f["id"] for f in doc["findings"]]
        first = doc["findings"][0]["causes"][0]
        assert "got no GPU" in first["text"] and "nvidia.com/gpu=all" in first["fix"][0]
    _, doc = explain_paste(cli, tmp_path, NO_PYTHON)
    assert root_id(doc) == "container.oci_runtime", [f["id"] for f in doc["findings"]]


# https://github.com/axolotl-ai-cloud/axolotl/issues/1240 (its title, as the issue quotes the error)
AXOLOTL_1240 = ('multi gpu - transformers/modeling_utils.py - Trying to set a tensor of shape torch.Size([32000, '
                '4096]) in "weight" (which has shape torch.Size([0])), this look incorrect.\n')
# https://github.com/deepspeedai/DeepSpeed/issues/3574 (the model is partitioned: current model [0])
DS_3574 = """Traceback (most recent call last):
  File "/home/lxr/workspace/t5_train/esm5.py", line 66, in <module>
    engine.load_module_state_dict(torch.load("weight/mt5-small/pytorch_model.bin"))
  File "/home/lxr/workspace/t5_train/deepspeed/runtime/engine.py", line 2421, in load_module_state_dict
    raise RuntimeError('Error(s) in loading state_dict for {}:\\n\\t{}'.format(
RuntimeError: Error(s) in loading state_dict for MT5ForConditionalGeneration:
        size mismatch for shared.weight: copying a param with shape torch.Size([250112, 512]) from checkpoint, the shape in current model is torch.Size([0]).
"""
# https://github.com/huggingface/transformers/issues/20082 (the checkpoint was saved partitioned: checkpoint [0])
TF_20082 = """RuntimeError: Error(s) in loading state_dict for OPTForCausalLM:
        size mismatch for model.decoder.layers.25.fc1.weight: copying a param with shape torch.Size([0]) from checkpoint, the shape in current model is torch.Size([10240, 2560]).
"""
# an ordinary mismatch (another model's checkpoint): not ZeRO-3
PLAIN_MISMATCH = """RuntimeError: Error(s) in loading state_dict for ResNet:
        size mismatch for fc.weight: copying a param with shape torch.Size([1000, 2048]) from checkpoint, the shape in current model is torch.Size([10, 2048]).
"""


def test_zero3_placeholder_shape(cli, tmp_path):
    for text, cause in ((AXOLOTL_1240, "already partitioned"), (DS_3574, "already partitioned"),
                        (TF_20082, "saved from a ZeRO-3 model")):
        _, doc = explain_paste(cli, tmp_path, text)
        assert root_id(doc) == "deepspeed.zero3_placeholder", [f["id"] for f in doc["findings"]]
        assert doc["findings"][0]["family"] == "deepspeed.config"
        assert cause in doc["findings"][0]["causes"][0]["text"], doc["findings"][0]["causes"][0]["text"]
    _, doc = explain_paste(cli, tmp_path, PLAIN_MISMATCH)
    assert root_id(doc) == "usercode.state_dict_mismatch", [f["id"] for f in doc["findings"]]
    # the same size-0 weight in a text that names FSDP and not DeepSpeed: FSDP's own shards, not ZeRO-3 (review16)
    fsdp = "Training with FSDP (use_orig_params=True), then loading the saved state dict:\n" + TF_20082
    _, doc = explain_paste(cli, tmp_path, fsdp)
    assert root_id(doc) != "deepspeed.zero3_placeholder", [f["id"] for f in doc["findings"]]
    _, doc = explain_paste(cli, tmp_path, fsdp.replace("FSDP", "DeepSpeed ZeRO-3"))
    assert root_id(doc) == "deepspeed.zero3_placeholder", [f["id"] for f in doc["findings"]]


def test_peer_ended_before_the_collective(cli, tmp_path):
    # planted:p23-torchmetrics_compute_rank0_only (bench/data/explain_heldout_2026-11-27p23.jsonl): torchrun, 2 CPU
    # workers, metric.compute() under `if rank == 0`; rank 1 exited 0, rank 0's all_gather saw the peer close
    text = _seen("2026-11-27p23", "p23-torchmetrics_compute_rank0_only")
    _, doc = explain_paste(cli, tmp_path, text)
    assert root_id(doc) == "torch.collective_mismatch", [f["id"] for f in doc["findings"]]
    first = doc["findings"][0]["causes"][0]
    assert "all_gather" in first["text"] and "every rank" in first["fix"][0]
    # a worker the agent still had to stop (it was running: torchrun's 'Sending process N closing signal'): not
    # the evidence that the peers had ended by themselves
    stopped = text.replace("E1127 01:54:21.581000 31282 torch/distributed/elastic/multiprocessing/api.py:1002] failed",
                           "W1127 01:54:21.570000 31282 torch/distributed/elastic/multiprocessing/api.py:900] Sending "
                           "process 31498 closing signal SIGTERM\nE1127 01:54:21.581000 31282 "
                           "torch/distributed/elastic/multiprocessing/api.py:1002] failed")
    assert stopped != text
    _, doc = explain_paste(cli, tmp_path, stopped)
    assert root_id(doc) != "torch.collective_mismatch", [f["id"] for f in doc["findings"]]
    # several nodes: the peer may be another node's worker, outside this agent's report
    nodes = text.replace("torchrun --nproc-per-node 2", "torchrun --nnodes 2 --nproc-per-node 2")
    assert nodes != text
    _, doc = explain_paste(cli, tmp_path, nodes)
    assert root_id(doc) != "torch.collective_mismatch", [f["id"] for f in doc["findings"]]


def test_slurm_time_min_is_the_request(cli, tmp_path):
    # planted:p23-slurm_time_min_over_time (bench/data/explain_heldout_2026-11-27p23.jsonl), Slurm's own line
    text = ("$ srun -t 10 --time-min=30 -n1 python3 server.py\nsrun: error: Unable to allocate resources: Invalid "
            "time-min specification (exceeds job's time or other limits)\n")
    _, doc = explain_paste(cli, tmp_path, text)
    f = doc["findings"][0]
    assert f["family"] == "slurm.error", [g["id"] for g in doc["findings"]]
    assert "--time-min" in f["causes"][0]["fix"][0]


def test_slow_dataparallel_is_its_design_not_an_nccl_hang(cli, tmp_path):
    # planted:w_dataparallel_slower (bench/data/explain_heldout_2026-11-27p22.jsonl): nn.DataParallel over 2 H100s,
    # slower than one GPU, told in words; no NCCL line, no launcher
    text = _seen("2026-11-27p22", "p22-w_dataparallel_slower")
    _, doc = explain_paste(cli, tmp_path, text)
    assert root_id(doc) == "torch.dataparallel_slow", [f["id"] for f in doc["findings"]]
    assert "DistributedDataParallel" in doc["findings"][0]["causes"][0]["fix"][0]
    # DistributedDataParallel is the other class: not this answer
    ddp = text.replace("DataParallel=True", "DistributedDataParallel=True")
    _, doc = explain_paste(cli, tmp_path, ddp)
    assert root_id(doc) != "torch.dataparallel_slow", [f["id"] for f in doc["findings"]]


def test_one_thread_many_communicators_hang(cli, tmp_path):
    # planted:w_cupy_nccl_no_group (bench/data/explain_heldout_2026-11-27p22.jsonl): one process, communicators from
    # NcclCommunicator.initAll([0, 1]), allReduce per device in a plain loop; told it hangs
    text = _seen("2026-11-27p22", "p22-w_cupy_nccl_no_group")
    _, doc = explain_paste(cli, tmp_path, text)
    f = doc["findings"][0]
    assert f["id"] == "nccl.info_only" and f["family"] == "nccl.hang", [(g["id"], g["family"]) for g in doc["findings"]]
    assert "ncclGroupStart" in f["causes"][0]["fix"][0]
    # told slow instead: the INFO-lines answer keeps its own family
    _, doc = explain_paste(cli, tmp_path, text.replace("It hangs in the first all-reduce, no error, killed after 35 s.",
                                                       "The all-reduce is slow, 10x slower than expected."))
    assert all(g["family"] != "nccl.hang" or g["id"] != "nccl.info_only" for g in doc["findings"])


def test_device_map_refusal_is_accelerate_refusing_the_call(cli, tmp_path):
    # planted:hf_device_map_auto_ddp (bench/data/explain_heldout_2026-11-27p22.jsonl): torchrun 2 ranks,
    # from_pretrained(device_map='auto') + Trainer.train(): accelerate's prepare() refuses
    _, doc = explain_paste(cli, tmp_path, _seen("2026-11-27p22", "p22-hf_device_map_auto_ddp"))
    f = doc["findings"][0]
    assert f["id"] == "accelerate.quantized_distributed" and f["family"] == "accelerate.config"


# https://github.com/ggml-org/llama.cpp/issues/24489 (compute-sanitizer's report, as the issue quotes it)
LLAMACPP_24489 = """========= Invalid __global__ write of size 16 bytes
=========     at ncclDevFunc_AllReduce_Sum_bf16_RING_SIMPLE()+0x14440
=========     by thread (221,0,0) in block (0,0,0)
=========     Address 0x1bc00031d0 is out of bounds
=========     and is 34,357,653,969 bytes after the nearest allocation at 0x13c0000000 of size 2,097,152 bytes
=========     Host Frame: [0x4c047]
=========                in /lib/x86_64-linux-gnu/libnccl.so.2
"""


def test_sanitizer_report_in_nccls_kernel_is_not_the_users(cli, tmp_path):
    _, doc = explain_paste(cli, tmp_path, LLAMACPP_24489)
    f = doc["findings"][0]
    assert f["id"] == "usercode.nccl_kernel_out_of_bounds" and f["family"] == "code.library_error", \
        [g["id"] for g in doc["findings"]]
    # the user's own kernel named on the 'at' line: still the user's out-of-bounds access
    mine = LLAMACPP_24489.replace("ncclDevFunc_AllReduce_Sum_bf16_RING_SIMPLE()", "scale_kernel(float*, int)")
    _, doc = explain_paste(cli, tmp_path, mine)
    assert root_id(doc) == "usercode.kernel_out_of_bounds", [g["id"] for g in doc["findings"]]


# https://github.com/shenduldh/ComfyUI-Lightning/issues/3 (torch 2.5.1; inductor's CUDA graph trees under ComfyUI's
# cudaMallocAsync backend), the traceback's last lines as the issue quotes them
COMFY_LIGHTNING_3 = """python3.9/site-packages/torch/_inductor/cudagraph_trees.py", line 1734, in check_memory_pool
    if torch._C._cuda_checkPoolLiveAllocations(device, pool_id, unique_storages):
RuntimeError: cudaMallocAsync does not yet support checkPoolLiveAllocations. If you need it, please file an issue describing your use case.
"""


def test_cuda_malloc_async_missing_method_is_the_allocator_setting(cli, tmp_path):
    # c10/cuda/CUDAMallocAsyncAllocator.cpp's TORCH_CHECK for each method it lacks; SGLang's generic
    # '%s does not yet support %s' site had answered P16's recordHistory text (serving.config)
    for text in (COMFY_LIGHTNING_3, _seen("2026-11-26p16", "p16-malloc_async_memory_history")):
        _, doc = explain_paste(cli, tmp_path, text)
        f = doc["findings"][0]
        assert f["id"] == "cuda.alloc_conf", [g["id"] for g in doc["findings"]]
        assert "backend:cudaMallocAsync" in f["causes"][0]["fix"][0]


# https://github.com/openucx/ucx/issues/6049 (UCX's line and the kernel's mlx5 line, as the issue quotes them)
UCX_6049 = """[1608298882.555115] [b2294:54275:0]          ib_md.c:1678 UCX  ERROR ibv_open_device(mlx5_0) failed: Cannot allocate memory
[2605244.823409] mlx5_core 0000:61:00.0: mlx5_cmd_check:795:(pid 53945): ALLOC_UAR(0x802) op_mod(0x0) failed, status limits exceeded(0x8), syndrome (0x5a7939)
"""


def test_mlx5_firmware_limit_is_not_host_memory(cli, tmp_path):
    # Linux mlx5 cmd.c returns 'limits exceeded' as -ENOMEM: the verbs call's 'Cannot allocate memory' is the adapter's
    _, doc = explain_paste(cli, tmp_path, UCX_6049)
    f = doc["findings"][0]
    assert f["id"] == "rdma.fw_limit", [g["id"] for g in doc["findings"]]
    assert "UAR" in f["causes"][0]["text"]
    # the verbs line alone: still the errno's family (nothing says the adapter's limit)
    _, doc = explain_paste(cli, tmp_path, UCX_6049.splitlines()[0] + "\n")
    assert root_id(doc) != "rdma.fw_limit"


def test_job_launch_failure_ended_the_job_not_held(cli, tmp_path):
    # planted:array_output_dir_missing (bench/data/explain_heldout_2026-11-26p15.jsonl, Slurm 22.05): FAIL_LAUNCH
    # ends the job (JobState=FAILED; src/slurmctld/job_mgr.c), a held launch failure is 'launch failed requeued held'
    _, doc = explain_paste(cli, tmp_path, _seen("2026-11-26p15", "p15-array_output_dir_missing"))
    f = doc["findings"][0]
    assert f["id"] == "slurm.job_env", [g["id"] for g in doc["findings"]]
    assert "-o/-e" in f["causes"][0]["text"]
    held = "   JobState=PENDING Reason=JobHeldUser Dependency=(null)\n   StateDesc=launch failed requeued held\n"
    _, doc = explain_paste(cli, tmp_path, held)
    assert root_id(doc) in ("slurm.held", "slurm.prolog"), [g["id"] for g in doc["findings"]]

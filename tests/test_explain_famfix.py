"""A family's answer tells its causes apart and names each concrete fix (issue 18, task "family-fixes").

gpudoctor/explain/famfix.py fills {$var|...} / {$option|...} in an entry's causes with the names the matched line
holds and says which cause a family answer's evidence points at; the causes themselves are knowledge (families.toml,
cuda.toml, nccl.toml, container.toml, rendezvous.toml). The lines are made from the format strings of the programs
that print them (cited per test), never a held-out set's text.
"""

from explainhelp import fixes, root_of

from gpudoctor import explain
from gpudoctor.explain import famfix


def _root(text):
    res = explain.explain_text(text, explain.load_knowledge(), source="t")
    return res, root_of(res)


def _first_with_evidence(root):
    return next(c for c in root["causes"] if c["evidence"])


# ------------------------------------------------------------------ famfix itself

def test_fill_names_the_variable_and_option_of_the_line():
    lines = ["RuntimeError: Invalid value for environment variable: TORCH_NCCL_ASYNC_ERROR_HANDLING"]
    assert famfix.fill("export {$var|<NAME>}=1, or unset {$var|<NAME>}", lines) == \
        "export TORCH_NCCL_ASYNC_ERROR_HANDLING=1, or unset TORCH_NCCL_ASYNC_ERROR_HANDLING"
    assert famfix.fill("drop {$option|the option}", ["srun: unrecognized option '--gpus-per-taks=1'"]) == \
        "drop --gpus-per-taks"
    # no name of that shape in the line: the words; a name inside a longer word or too long is not a name
    assert famfix.fill("unset {$var|the variable the message names}", ["Invalid value for an argument."]) == \
        "unset the variable the message names"
    assert famfix.fill("{$var|w}", ["XNCCL_FOO=1 MYNCCL_BAR"]) == "w"
    assert famfix.fill("{$var|w}", ["NCCL_" + "A" * 80]) == "w"
    assert famfix.fill("no slot here", lines) == "no slot here"


def test_every_name_slot_in_the_knowledge_is_one_famfix_fills():
    # the knowledge loader does not read {$...}: a misspelt slot ('{$vars|...}', an unclosed brace) would reach the
    # user as written; filled with no line, every cause's text, fix and confirm must hold none (as
    # test_explain_slots checks the generated sites' {%N|...})
    seen = 0
    for e in explain.load_knowledge().entries:
        for c in e["causes"]:
            for t in [c["text"]] + list(c["fix"]) + list(c["confirm"]):
                seen += "{$" in t
                assert "{$" not in famfix.fill(t, []), (e["id"], t)
    assert seen >= 3  # nccl.config's causes use them


def test_sure_says_which_line_points_at_the_first_cause():
    note = "How sure: medium. family note"
    f = {"role": "root", "confidence": "family", "notes": [note],
         "causes": [{"evidence": [{"line": 7, "text": "the line"}]}, {"evidence": []}, {"evidence": []}]}
    famfix.sure([f], note)
    assert f["notes"][0].startswith("How sure: medium.") and "line 7 ('the line')" in f["notes"][0]
    assert "if not that, the other 2 in order" in f["notes"][0]
    g = {"role": "root", "confidence": "family", "notes": [note], "causes": [{"evidence": []}]}
    famfix.sure([g], note)
    assert g["notes"] == [note]  # no evidence: the family note stays


# ------------------------------------------------------------------ nccl.config: what the line names

def test_torch_flag_variable_is_named_in_the_fix():
    # torch/csrc/distributed/c10d/Utils.hpp (parseEnvVarFlag: "Invalid value for environment variable: " + name),
    # raised when ProcessGroupNCCL is created with TORCH_NCCL_ASYNC_ERROR_HANDLING=true
    res, root = _root("  File \"torch/distributed/distributed_c10d.py\", line 2125, in _new_process_group_helper\n"
                      "    backend_class = ProcessGroupNCCL(\n"
                      "RuntimeError: Invalid value for environment variable: TORCH_NCCL_ASYNC_ERROR_HANDLING\n")
    assert root["id"] == "nccl.config"
    top = _first_with_evidence(root)
    assert "export TORCH_NCCL_ASYNC_ERROR_HANDLING=1" in "\n".join(top["fix"])
    assert "{$" not in fixes(root) and "NCCL_COMM_ID" not in fixes(root)  # a cause without its line is not listed


def test_nccl_comm_id_cause_first_with_its_line():
    # NVIDIA/nccl src/bootstrap.cc: WARN("Invalid NCCL_COMM_ID, please use format: <ipv4>:<port> or [<ipv6>]:<port>
    # or <hostname>:<port>") under torch's DistBackendError (ProcessGroupNCCL.cpp)
    res, root = _root("torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:3135, invalid argument "
                      "(run with NCCL_DEBUG=WARN for details), NCCL version 2.28.9\n"
                      "ncclInvalidArgument: Invalid value for an argument.\nLast error:\n"
                      "Invalid NCCL_COMM_ID, please use format: <ipv4>:<port> or [<ipv6>]:<port> or <hostname>:<port>\n")
    assert root["id"] == "nccl.config"
    assert root["causes"][0]["text"].startswith("NCCL_COMM_ID is set")
    assert root["causes"][0]["fix"][0].startswith("unset NCCL_COMM_ID")
    assert "integer flag" not in fixes(root)


# ------------------------------------------------------------------ gpu.p2p: who needed P2P

def test_custom_all_reduce_needs_p2p():
    # vllm-project/vllm csrc/custom_all_reduce.cuh: CUDACHECK prints "Failed: Cuda error %s:%d '%s'"
    res, root = _root("Failed: Cuda error /workspace/vllm/csrc/custom_all_reduce.cuh:307 "
                      "'peer access is not supported between these two devices'\n")
    assert root["id"] == "gpu.p2p"
    assert "--disable-custom-all-reduce" in root["causes"][0]["fix"][0]


def test_nccl_cumem_host_needs_p2p():
    # NVIDIA/nccl src/include/cudawrap.h CUCHECK: WARN("Cuda failure %d '%s'") from transport/shm.cc; the NCCL docs'
    # troubleshooting (runtime_and_mpi_issues.rst, "cuMem host allocations") name NCCL_CUMEM_HOST_ENABLE=0
    res, root = _root("host1:774:854 [0] transport/shm.cc:590 NCCL WARN Cuda failure 217 "
                      "'peer access is not supported between these two devices'\n")
    assert root["id"] == "gpu.p2p"
    assert root["causes"][0]["exports"] == {"NCCL_CUMEM_HOST_ENABLE": "0"}
    # without NCCL's shm.cc the cuMem host cause is not offered
    res, root = _root("RuntimeError: CUDA error: peer access is not supported between these two devices\n")
    assert "NCCL_CUMEM_HOST_ENABLE" not in fixes(root, exports=True)


# ------------------------------------------------------------------ nccl.unhandled_cuda_error: the CUDA string

def test_invalid_device_function_is_the_gpu_architecture():
    # NVIDIA/nccl src/include/checks.h CUDACHECK: WARN("Cuda failure '%s'"); cudaErrorInvalidDeviceFunction's string
    res, root = _root("[0] enqueue.cc:215 NCCL WARN Cuda failure 'invalid device function'\n"
                      "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:31, unhandled cuda error, NCCL version 2.7.8\n")
    assert root["id"] == "nccl.unhandled_cuda_error"
    assert "compute capability" in root["causes"][0]["text"]
    assert "cuMem" not in fixes(root)


def test_p2p_invalid_argument_names_cumem():
    # NVIDIA/nccl src/transport/p2p.cc: legacy CUDA IPC (CUDACHECK(cudaIpcOpenMemHandle(...))) when cuMem is off
    res, root = _root("NCCL version 2.26.2+cuda12.2\n"
                      "host1:12:40 [0] transport/p2p.cc:298 NCCL WARN Cuda failure 'invalid argument'\n")
    assert root["id"] == "nccl.unhandled_cuda_error"
    assert "NCCL_CUMEM_ENABLE" in root["causes"][0]["fix"][0]
    # NCCL 2.18.1's known bug (NVIDIA/nccl#957) stays the first cause where its version is in the log
    res, root = _root("NCCL version 2.18.1+cuda12.1\n"
                      "host1:12:40 [0] transport/p2p.cc:298 NCCL WARN Cuda failure 'invalid argument'\n"
                      "Last error:\nCuda failure 'invalid argument'\n")
    assert "NVIDIA/nccl#957" in root["causes"][0]["text"]


# ------------------------------------------------------------------ container, Slurm, the store

def test_container_cuda_requirement_names_the_minimum_driver():
    # NVIDIA/libnvidia-container: "requirement error: unsatisfied condition: %s" for the image's NVIDIA_REQUIRE_CUDA;
    # CUDA 11.0's minimum driver from NVIDIA's CUDA Toolkit release notes (Table 3), fixes.min_driver
    res, root = _root("docker: Error response from daemon: OCI runtime create failed: ... stderr: nvidia-container-cli: "
                      "requirement error: unsatisfied condition: cuda>=11.0, please update your driver to a newer "
                      "version, or use an earlier cuda container: unknown.\n")
    assert root["id"] == "container.nvml_driver"
    assert "upgrade the NVIDIA driver to >= 450" in root["causes"][0]["fix"][0]


def test_slurm_step_cause_from_the_srun_line():
    # Slurm src/srun (step creation): "Unable to create step for job %u: %m" with ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE
    res, root = _root("srun: error: Unable to create step for job 4242: Requested node configuration is not available\n")
    assert root["id"] == "slurm.node_config"
    family = [c for c in root["causes"] if c["static_rank"] > 0]
    assert family[0]["text"].startswith("A job step")
    # an sbatch with --gres: the GPU-partition cause leads the family's
    res, root = _root("$ sbatch -t 1:00:00 --gres=gpu:v100:1 job.sh\n"
                      "sbatch: error: Batch job submission failed: Requested node configuration is not available\n")
    family = [c for c in root["causes"] if c["static_rank"] > 0]
    assert family[0]["text"].startswith("GPUs (--gres")


def test_store_waiting_for_clients_under_plain_python():
    # torch/distributed/rendezvous.py: _env_rendezvous_handler -> _create_c10d_store makes rank 0 the server unless
    # torchrun's agent serves the store; TCPStore's server: "Timed out after %d seconds waiting for clients. %d/%d
    # clients joined."
    tb = ("  File \"torch/distributed/rendezvous.py\", line 280, in _env_rendezvous_handler\n"
          "    store = _create_c10d_store(\n"
          "torch.distributed.DistStoreError: Timed out after 16 seconds waiting for clients. 1/4 clients joined.\n")
    res, root = _root(tb)
    assert root["id"] == "rendezvous.store_timeout"
    assert any("WORLD_SIZE" in c["text"] and c["evidence"] for c in root["causes"])
    # the same timeout without the env:// frame (torchrun's agent store): that cause is not offered
    res, root = _root(tb.split("\n", 2)[2])
    assert not any("started without torchrun" in c["text"] for c in root["causes"])


def test_healthy_info_line_naming_nccl_comm_id_is_no_root_cause():
    # NVIDIA/nccl src/bootstrap.cc: INFO(NCCL_ENV, "NCCL_COMM_ID set by environment to %s")
    res, root = _root("host1:12:12 [0] NCCL INFO NCCL_COMM_ID set by environment to 10.0.0.1:23456\n"
                      "host1:12:12 [0] NCCL INFO comm 0x55 rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE\n")
    assert res["verdict"] == "no_error" and root is None


def test_exception_read_from_its_shape_names_its_variable():
    # vllm-project/vllm vllm/config.py _get_and_verify_max_len: "User-specified max_model_len (%d) is greater than the
    # derived max_model_len (...). ... To allow overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"
    res, root = _root("Traceback (most recent call last):\n"
                      "  File \"/home/u/serve.py\", line 9, in <module>\n"
                      "    llm = LLM(model=path, max_model_len=65536)\n"
                      "  File \"/opt/venv/lib/python3.11/site-packages/vllm/config.py\", line 3790, in "
                      "_get_and_verify_max_len\n"
                      "    raise ValueError(\n"
                      "ValueError: User-specified max_model_len (65536) is greater than the derived max_model_len "
                      "(max_position_embeddings=32768 or model_max_length=None in model's config.json). This may lead "
                      "to incorrect model outputs or CUDA errors. To allow overriding this maximum, set the env var "
                      "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1\n")
    # a known message since serving13 (generated/vllm_messages.json, tools/gen_vllm_messages.py MSG_FIX): the site's
    # own fix names the variable; before, only the traceback's shape (vllm.library_error, structural) did
    assert root["id"] == "serving.config" and root["confidence"] == "cause"
    assert "export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1" in fixes(root)


def test_oom_inside_torch_load_names_map_location():
    # torch/serialization.py: storages are restored to the device they were saved from (restore_location) unless
    # map_location remaps them (torch.load docs); the OOM message is c10/cuda's
    frames = ("Traceback (most recent call last):\n"
              "  File \"/home/u/train.py\", line 40, in <module>\n"
              "    state = torch.load(ckpt)\n"
              "  File \"/opt/venv/lib/python3.11/site-packages/torch/serialization.py\", line 1471, in load\n"
              "    return _load(\n")
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.1 GiB\n"
    res, root = _root(frames + oom)
    assert root["id"] == "cuda.oom" and "map_location='cpu'" in root["causes"][0]["fix"][0]
    res, root = _root(oom)
    assert "map_location" not in fixes(root)


def test_horovod_gloo_interface():
    # gloo/transport/tcp/device.cc: "Unable to find address for: %s" (GLOO_ENFORCE); horovod/common/utils/env_parser.cc
    # reads HOROVOD_GLOO_IFACE for its controller
    text = ("terminate called after throwing an instance of 'gloo::EnforceNotMet'\n"
            "  what():  [enforce fail at /tmp/pip-build/horovod/third_party/gloo/gloo/transport/tcp/device.cc:88] "
            "ifa != nullptr. Unable to find address for: eth0\n")
    res, root = _root(text)
    assert root["id"] == "gloo.socket_ifname"
    assert "HOROVOD_GLOO_IFACE" in root["causes"][0]["fix"][0]
    res, root = _root(text.replace("/horovod/third_party/gloo", "/gloo"))
    assert "HOROVOD_GLOO_IFACE" not in fixes(root)


def test_duplicate_gpu_with_more_processes_than_gpus():
    # NVIDIA/nccl src/init.cc: "Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx"; accelerate's
    # num_processes starts that many processes on the node
    res, root = _root("$ accelerate launch --num_processes 2 train.py\n"
                      "host1:10:10 [0] init.cc:1011 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA "
                      "device 1000\n")
    assert root["id"] == "nccl.duplicate_gpu"
    assert root["causes"][0]["text"].startswith("The launcher started more processes")


def _watchdog(seq, numel, ms):
    # torch ProcessGroupNCCL.cpp's watchdog: "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d,
    # OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out."
    return ("[rank0]:[E1126 09:01:29.310 ProcessGroupNCCL.cpp:689] [Rank 0] Watchdog caught collective operation "
            "timeout: WorkNCCL(SeqNum=%d, OpType=ALLREDUCE, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d "
            "milliseconds before timing out.\n" % (seq, numel, numel, ms, ms + 54))


def test_watchdog_line_narrows_the_timeout_causes():
    # the first collective a one-element ALLREDUCE: ProcessGroupNCCL::barrier ("nccl:all_reduce_barrier")
    res, root = _root(_watchdog(1, 1, 600000))
    assert root["id"] == "nccl.timeout" and root["confidence"] == "family"
    assert root["causes"][0]["text"].startswith("The first collective was a barrier")
    assert "set_device(local_rank)" in root["causes"][0]["fix"][0]
    # a timeout below torch's 10-minute NCCL default is named, after 'one rank stalled'
    res, root = _root(_watchdog(493, 65536, 60000))
    texts = [c["text"] for c in root["causes"]]
    assert texts[0].startswith("One rank stalled") and texts[1].startswith("The process group's timeout is shorter")
    # neither where the line says neither
    res, root = _root(_watchdog(4, 65536, 600000))
    assert not any(t.startswith(("The first collective was a barrier", "The process group's timeout is shorter"))
                   for t in (c["text"] for c in root["causes"]))


def test_unique_id_wait_lists_the_lazily_made_communicator():
    # torch ProcessGroupNCCL.cpp: "[%s] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d
    # key-value store by key '%s', but store->get('%s') got error: " + TCPStore's "wait timeout after %dms, keys: %s"
    line = ("torch.distributed.DistBackendError: [2] is setting up NCCL communicator and retrieving ncclUniqueId from "
            "[0] via c10d key-value store by key '0', but store->get('0') got error: wait timeout after 600000ms, "
            "keys: /default_pg/0//cuda//0\n")
    res, root = _root(line)
    assert root["id"] == "rendezvous.store_timeout"
    lazy = [c for c in root["causes"] if c["text"].startswith("The ranks did not create the same NCCL communicator")]
    assert lazy and "device_id=torch.device('cuda', local_rank)" in lazy[0]["fix"][0]
    res, root = _root("torch.distributed.DistStoreError: wait timeout after 600000ms, keys: /default_pg/0//cuda//0\n")
    assert not any(c["text"].startswith("The ranks did not create") for c in root["causes"])


def test_launch_failure_after_a_suspend():
    # the kernel's own line after a resume (kernel/power/suspend.c: pr_info("suspend exit\n"), printed as
    # "PM: suspend exit"), then torch's CUDA error (c10/cuda/CUDAException.cpp, cudaErrorLaunchFailure's string)
    err = "RuntimeError: CUDA error: unspecified launch failure\n"
    res, root = _root("[12345.678901] PM: suspend exit\n" + err)
    assert root["id"] == "cuda.illegal_access"
    assert "modprobe nvidia_uvm" in fixes(root)
    res, root = _root(err)
    assert "nvidia_uvm" not in fixes(root)


def test_container_unknown_gpu_index_says_indexes_count_from_zero():
    # nvidia-container-cli's "<kind> error: <text>" (libnvidia-container src/cli): a device the host lacks
    res, root = _root("docker: Error response from daemon: OCI runtime create failed: container_linux.go:367: "
                      "starting container process caused: Running hook #1:: error running hook: exit status 1, "
                      "stdout: , stderr: nvidia-container-cli: device error: 1: unknown device: unknown.\n")
    assert root["id"] == "container.nvml_driver"
    assert "a one-GPU host has only index 0" in root["causes"][0]["fix"][-1]


def test_backend_without_the_operation():
    # torch/csrc/distributed/c10d/Backend.hpp: c10::str("Backend ", getBackendName(), " does not support barrier");
    # torch 1.0.0's torch/lib/c10d/ProcessGroupNCCL.cpp: throw std::runtime_error("ProcessGroupNCCL does not support
    # barrier")
    for line in ("RuntimeError: Backend fake does not support barrier\n",
                 "RuntimeError: ProcessGroupNCCL does not support barrier\n"):
        res, root = _root("  File \"torch/distributed/distributed_c10d.py\", line 1070, in barrier\n"
                          "    work = _default_pg.barrier()\n" + line)
        assert root["id"] == "torch.c10d_error", line
        top = root["causes"][0]
        assert top["text"].startswith("The backend or build lacks the feature") and top["evidence"]
        assert "cpu:gloo,cuda:nccl" in top["fix"][0] and "pip install -U torch" in top["fix"][1]


def test_pin_memory_of_a_cuda_batch():
    # aten/src/ATen/native/Memory.cpp: "cannot pin '" + type + "' only dense CPU tensors can be pinned", raised in
    # DataLoader's pin_memory (torch/utils/data/_utils/pin_memory.py)
    res, root = _root("  File \"torch/utils/data/_utils/pin_memory.py\", line 57, in pin_memory\n"
                      "    return data.pin_memory()\n"
                      "RuntimeError: cannot pin 'torch.cuda.FloatTensor' only dense CPU tensors can be pinned\n")
    assert root["id"] == "usercode.tensors_on_two_devices"
    assert "pin_memory=False" in root["causes"][0]["fix"][0]
    res, root = _root("RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
                      "cuda:0 and cpu!\n")
    assert "pin_memory=False" not in fixes(root)


def test_no_slurm_conf_on_this_host():
    # SchedMD/slurm src/common/parse_config.c s_p_parse_file: "cannot stat file %s: %m, retrying in 1sec up to 60sec"
    # (before 57aca70598: "unable to status file %s: %m, ...")
    for line in ("sbatch: error: s_p_parse_file: cannot stat file /etc/slurm/slurm.conf: No such file or directory, "
                 "retrying in 1sec up to 60sec\n",
                 "sbatch: error: s_p_parse_file: unable to status file /etc/slurm/slurm.conf: No such file or "
                 "directory, retrying in 1sec up to 60sec\n"):
        res, root = _root(line)
        assert root["id"] == "slurm.conf_mismatch", line
        assert root["causes"][0]["text"].startswith("The host finds no slurm.conf")
    # another configuration file is not this entry
    res, root = _root("slurmd: error: s_p_parse_file: cannot stat file /etc/slurm/gres.conf: No such file or directory, "
                      "retrying in 1sec up to 60sec\n")
    assert root is None or root["id"] != "slurm.conf_mismatch"


def test_controller_does_not_know_the_user():
    # sbatch's ESLURM_INVALID_ACCOUNT string; SchedMD/slurm src/common/assoc_mgr.c: error("User %u not found", uid)
    res, root = _root("sbatch: error: Batch job submission failed: Invalid account or account/partition combination "
                      "specified\n[2024-01-01T10:00:00.000] error: User 1002 not found\n")
    assert root["id"] == "slurm.account"
    family = [c for c in root["causes"] if c["static_rank"] > 0]  # after the message's own site cause
    assert family[0]["text"].startswith("The controller does not know the user") and family[0]["evidence"]
    assert "restart slurmctld" in family[0]["fix"][0]
    res, root = _root("sbatch: error: Batch job submission failed: Invalid account or account/partition combination "
                      "specified\n")
    assert not any(c["text"].startswith("The controller does not know") for c in root["causes"])


def test_qos_minimum_not_reached():
    # Slurm's job reason WAIT_QOS_MIN_CPU "QOSMinCpuNotSatisfied" (slurm.h / src/common/slurm_protocol_defs.c) under
    # the ESLURM_ACCOUNTING_POLICY string
    res, root = _root("sbatch: error: QOSMinCpuNotSatisfied\n"
                      "sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job submit limit, "
                      "user's size and/or time limits)\n")
    assert root["id"] == "slurm.qos_limit"
    assert any(c["text"].startswith("The QOS sets a minimum") and c["evidence"] for c in root["causes"])
    res, root = _root("sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job submit "
                      "limit, user's size and/or time limits)\n")
    assert not any(c["text"].startswith("The QOS sets a minimum") for c in root["causes"])

"""explain/failshape.py: a failure line of a shell, gdb, torchrun's agent, curl or systemd that no entry explains
names its program's family and the next step (How sure: low), never "no error".

Texts marked 'made here' were printed on this machine (bash 5, GNU gdb, curl; the commands shown). The others are
lines of the public threads cited per case."""

from gpudoctor import explain


def _answer(text, kb):
    r = explain.explain_text(text, kb)
    return r, [f["id"] for f in r["findings"] if f["role"] == "root"]


def _fixes(r):
    return " ".join(" ".join(c["fix"]) for f in r["findings"] for c in f["causes"])


# made here: env -i PATH=/usr/bin:/bin bash -c 'deepspeed --num_gpus 2 train.py' (bash execute_cmd.c)
NOT_FOUND = "bash: line 1: deepspeed: command not found\n"
# made here: a script 'run.sh' whose python processes got SIGBUS then SIGKILL (bash jobs.c's report, no core)
SIGNALS = ("step 1\n"
           "run.sh: line 2: 13277 Bus error               python3 -c \"import os, signal; print('step 1'); "
           "os.kill(os.getpid(), signal.SIGBUS)\"\n")
KILLED = ("run.sh: line 3: 13319 Killed                  python3 -c \"import os, signal; os.kill(os.getpid(), "
          "signal.SIGKILL)\"\n")
# made here: gdb -batch -ex run -ex bt --args python3 -c "import ctypes; ctypes.string_at(0)" (a crash in libc)
GDB_LIBC = ("Program received signal SIGSEGV, Segmentation fault.\n"
            "__strlen_evex () at ../sysdeps/x86_64/multiarch/strlen-evex.S:79\n"
            "#0  __strlen_evex () at ../sysdeps/x86_64/multiarch/strlen-evex.S:79\n"
            "#3  0x00007ffff7149f7a in ?? () from /lib/x86_64-linux-gnu/libffi.so.8\n")
# made here: curl -sS https://nonexistent.invalid/v2/
CURL = "curl: (6) Could not resolve host: nonexistent.invalid\n"
# https://github.com/open-mmlab/mmpretrain/issues/603 (gdb on the core file; the frame wraps to a 'from' line)
GDB_TORCH = ("Program terminated with signal SIGSEGV, Segmentation fault.\n"
             "#0  0x00007f92fef2548f in at::cuda::getCurrentCUDABlasHandle() ()\n"
             "   from /workspace/try-core-dump/venv/lib/python3.8/site-packages/torch/lib/libtorch_cuda_cu.so\n")
# https://github.com/ultralytics/ultralytics/issues/918 (started with nohup; torchrun's agent got SIGHUP)
HUP = ("     39/100      13.9G      2.252      3.897  43%|####3     | 496/1155 [05:07<06:48,  1.61it/s]WARNING:torch."
       "distributed.elastic.agent.server.api:Received 1 death signal, shutting down workers\n"
       "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 4193 closing signal SIGHUP\n")
# https://github.com/NVIDIA/enroot/issues/123
ENROOT = ("$enroot import docker://ubuntu\n[INFO] Querying registry for permission grant\n"
          "curl: (60) SSL certificate problem: self signed certificate in certificate chain\n")
# https://github.com/ollama/ollama/issues/2029 (systemd's journal lines)
UNKILLABLE = ('1. ggml-cuda.cu: "8792: !" CUDA error\n'
              "2. ollama.service: State 'stop-sigterm' timed out. Killing.\n"
              "ollama.service: Processes still around after SIGKILL. Ignoring.\n")


def test_shell_and_signal_lines(kb):
    r, roots = _answer(NOT_FOUND, kb)
    assert roots == ["code.python_env"] and "which deepspeed" in _fixes(r)
    assert "How sure: low" in r["findings"][0]["notes"][0]
    r, roots = _answer("bash: line 1: frobnicate: command not found\n", kb)
    # not a Python package's: the shell's own family (family17: bash's 'command not found' for a -c string), low
    assert roots == ["launcher.script_missing"] and "How sure: low" in r["findings"][0]["notes"][0]
    assert "pip install" not in _fixes(r)
    r, roots = _answer(SIGNALS, kb)
    assert roots == ["errno.enospc"] and "/dev/shm" in _fixes(r)
    r, roots = _answer(KILLED, kb)
    assert roots == ["errno.enomem"] and "killed process" in _fixes(r)
    # SIGKILL is the OOM killer's (mm/oom_kill.c), never a refused allocation's: running out of RAM leads, with the
    # dmesg / sacct fix under it, not under the locked-memory cause (which returns ENOMEM to its caller instead)
    first = r["findings"][0]["causes"][0]
    assert "out of RAM" in first["text"] and "killed process" in first["fix"][0]
    assert not any("memlock" in x for x in first["fix"])


def test_gdb_frames(kb):
    r, roots = _answer(GDB_TORCH, kb)
    assert roots == ["torch.library_error"] and "upgrade torch" in _fixes(r)
    r, roots = _answer(GDB_LIBC, kb)  # libc is no package's: not a library's family
    assert roots == [] and r["verdict"] == "unknown_error"


def test_agent_signal_curl_systemd(kb):
    r, roots = _answer(HUP, kb)
    # (explain-terminal32) the agent's SIGHUP lines are now elastic.sighup's own patterns (the sender named), not the
    # structural answer
    assert roots == ["elastic.sighup"] and "SIGHUP" in r["findings"][0]["title"]
    assert "tmux" in _fixes(r) and "setsid" in _fixes(r)
    r, roots = _answer("torch.distributed.elastic.multiprocessing.api.SignalException: Process 7 got signal: 2\n", kb)
    assert roots == ["elastic.sigterm"] and "tmux" not in _fixes(r)  # SIGINT: Ctrl-C, not a closed terminal
    r, roots = _answer(ENROOT, kb)
    assert roots == ["enroot.registry"] and "update-ca-certificates" in _fixes(r)
    r, roots = _answer(CURL, kb)  # curl without enroot: a failure, no family
    assert roots == [] and r["verdict"] == "unknown_error"
    r, roots = _answer(UNKILLABLE, kb)
    assert roots == ["cuda.gpu_hardware"] and "xid" in _fixes(r)


def test_lines_that_only_look_alike(kb):
    for text in ("Killed 3 stale processes before start\n", "Terminated successfully.\n", "Training completed\n",
                 "Hangup handler installed\n", "which torchrun: found\n"):
        r, roots = _answer(text, kb)
        assert roots == [] and r["verdict"] == "no_error", text


# https://github.com/shibing624/MedicalGPT/issues/275 (the kernel's assert line pasted without its backquotes)
ASSERT = ("/opt/conda/conda-bld/pytorch_1686274778240/work/aten/src/ATen/native/cuda/Indexing.cu:1146: "
          "indexSelectLargeIndex: block: [58,0,0], thread: [21,0,0] Assertion srcIndex < srcSelectDimSize failed.\n")
# https://github.com/torch/cutorch/issues/677 (THC's cuBLAS check of an old torch)
THC = "cublas runtime error : library not initialized at THCGeneral.c\n"


def test_kernel_assert_and_thc_status(kb):
    r, roots = _answer(ASSERT, kb)
    assert roots == ["cuda.device_assert"] and "srcIndex < srcSelectDimSize" in " ".join(r["findings"][0]["notes"])
    r, roots = _answer(THC, kb)
    assert roots == ["cuda.cublas_not_initialized"]
    assert "CUBLAS_STATUS_NOT_INITIALIZED" in " ".join(r["findings"][0]["notes"])
    r, roots = _answer("cublas runtime error : a status THC never printed at THCGeneral.c\n", kb)
    assert "cuda.cublas_not_initialized" not in roots


# https://github.com/open-mpi/ompi/issues/4948 (Open MPI 3.0 in Docker; vader's CMA read, the user's placeholder kept)
CMA = "Read -1, expected <someNumber>, errno =1\nRead -1, expected <someNumber>, errno =1\n"


def test_open_mpi_cma_read(kb):
    r, roots = _answer(CMA, kb)
    assert roots == ["mpi.transport"] and "SYS_PTRACE" in _fixes(r) and "single_copy_mechanism" in _fixes(r)
    r, roots = _answer("Read -1, expected 4096, errno = 3\n", kb)  # ESRCH: the peer is gone, no ptrace fix
    assert roots == ["mpi.transport"] and "SYS_PTRACE" not in _fixes(r)


def test_a_scripts_own_helper_stopped_is_not_a_failure(kb):
    # made here: bash job.sh, whose foreground 'sleep 30' (a helper's place) got SIGTERM from outside: bash's report,
    # then the script went on
    text = "training done\nTerminated\nend\n"
    r, roots = _answer(text, kb)
    assert roots == [] and r["verdict"] == "no_error"


# kubectl's own formats (kubectl get pods' STATUS column; kubectl describe pod's Last State) and the kubelet's
# eviction message (kubernetes pkg/kubelet/eviction/helpers.go nodeLowMessageFmt)
K8S_OOM = ("NAME                 READY   STATUS      RESTARTS      AGE\ntrain-worker-0       0/1     OOMKilled   "
           "3 (40s ago)   5m\n")
K8S_EVICTED = ("Status:           Failed\nReason:           Evicted\nMessage:          The node was low on resource: "
               "ephemeral-storage. Threshold quantity: 10Gi, available: 9Gi. \n")


def test_kubernetes_reasons(kb):
    r, roots = _answer(K8S_OOM, kb)
    assert roots == ["errno.enomem"] and "limits.memory" in _fixes(r)
    # the kubelet's eviction is Kubernetes' own family (knowledge/k8s.toml, tests/test_explain_k8s.py): the
    # eviction message's resource picks the cause
    r, roots = _answer(K8S_EVICTED, kb)
    assert roots == ["k8s.evicted"] and "ephemeral-storage" in r["findings"][0]["causes"][0]["text"]
    # the container's own log has the error: the family says to read it (kubectl logs --previous), no cause
    r, roots = _answer("train-worker-0   0/1   CrashLoopBackOff   5   3m\n", kb)
    assert roots == ["k8s.crashloop"] and "--previous" in _fixes(r)

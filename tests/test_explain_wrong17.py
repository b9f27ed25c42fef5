"""Never confidently wrong (issue 18 item 3, wrong17): mechanisms of the seen sets' confidently-wrong answers
(docs/explain.md, "Confidently wrong, by mechanism (session 17)"; bench/data/wrong17_by_mechanism.json), each fixed
where the text shows its own evidence, from the source that prints the line.

1. A warning the program went past read as the root: a structured record at warn / info level (zap's
   '{"level":"warn",...}', logrus' 'level=warning', slog's 'level=WARN') matched by a generated message site that is
   not the record's own (another file's site; a code's meaning) is a note (rootguard.structured_warning).
2. A neighbouring family from the call's name: ibv_reg_mr failing with EFAULT ('Bad address', errno 14) is not the
   locked-memory limit (Linux ib_umem_get returns ENOMEM for that) but a buffer that cannot be pinned: GPU memory
   without a way to register it (rdma.reg_mr_bad_address, family nccl.dmabuf).
3. A generated family rule too wide: the CDI hooks that write into the container's root (nvidia-cdi-hook
   create-symlinks, update-ldcache, cudacompat) fail on the image's files, not for want of GPUs
   (tools/gen_oci_messages.py rule cdi_root: container.oci_runtime).
"""

import os

import pytest

from explainhelp import explain_paste, ids, root_id, seen_text
from gpudoctor.explain.knowledge import read_generated

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _seen(set_name, case_id):
    return seen_text(case_id, set_name)


# the record formats of the loggers, as their encoders write them (zap zapcore/json_encoder.go, logrus
# text_formatter.go / json_formatter.go, log/slog's TextHandler / JSONHandler)
@pytest.mark.parametrize("line,sev", [
    ('{"level":"warn","ts":"2025-12-05T04:45:04.257Z","caller":"memory/memory.go:77","msg":"x failed"}', "warn"),
    ('{"level":"info","ts":1733373904.25,"msg":"started"}', "info"),
    ('time="2026-11-26T13:52:42Z" level=warning msg="\\"/\\" is not a shared mount"', "warn"),
    ('time=2023-10-10T10:00:00.000Z level=WARN msg="retrying" attempt=2', "warn"),
    ('{"time":"2023-10-10T10:00:00Z","level":"INFO","msg":"ok"}', "info"),
    ('time="2020-10-27T00:53:32Z" level=fatal msg="Error watching fields: Profiling is not supported"', None),
    ('{"level":"error","ts":"2025-12-05T04:45:04.257Z","msg":"failed"}', None),
    ('the level=warn of a sentence', None),
])
def test_a_structured_records_level_is_its_severity(line, sev):
    from gpudoctor.explain.text import severity

    assert severity(line) == sev


def test_a_go_programs_warning_matched_by_another_programs_site_is_no_root(cli, tmp_path):
    # https://github.com/leptonai/gpud/pull/1170 (GB10: NVML's Not Supported, logged at warn; the component Healthy)
    _, doc = explain_paste(cli, tmp_path, _seen("2026-11-27z", "z-gpud1170-healthy-gb10-unified-memory-nvml-not-supported"))
    assert doc["verdict"] == "no_error" and not doc["findings"], ids(doc)
    # https://github.com/NVIDIA/gpu-operator/issues/406: the toolkit's own warning (its own site, no caller named) is
    # still what the user asks about
    _, doc = explain_paste(cli, tmp_path, _seen("2026-11-26t", "t-gpuop406-rke2-containerd-socket-path"))
    assert root_id(doc) == "k8s.gpu_operator", ids(doc)


# https://github.com/microsoft/mscclpp/issues/657 (the reporter's run with debug prints; H100, CX-7, driver 580)
MSCCLPP_657 = """[IbMr] Registering memory region at 0x7fd9d2800000 with size 2097152
[IbMr] cudaPointerGetAttributes err=0 memoryType=2 device=4
ibv_reg_mr2 called. cuMemAlloc: 1, dmaBufSupported: 0, nv_peer_mem loaded: yes
addr: 7fd9d2800000, pages: 512, pagesize: 4096, size: 2097152
terminate called after throwing an instance of 'mscclpp::IbError'
  what():  ibv_reg_mr failed (errno 14) (Ib failure: Bad address)
Aborted (core dumped)
"""
# NCCL's own words for the same refusal (src/misc/ibvwrap.cc: 'Call to ibv_reg_mr failed with error %s', strerror)
NCCL_EFAULT = "node1:2211:2290 [0] misc/ibvwrap.cc:191 NCCL WARN Call to ibv_reg_mr failed with error Bad address\n"
# https://github.com/NVIDIA/nccl-tests/issues/206 (ENOMEM: the locked-memory limit)
NCCL_ENOMEM = "node1:2211:2290 [0] misc/ibvwrap.cc:278 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory\n"


def test_a_registration_refused_with_efault_is_not_the_memlock_limit(cli, tmp_path):
    _, doc = explain_paste(cli, tmp_path, MSCCLPP_657)
    assert root_id(doc) == "rdma.reg_mr_bad_address", ids(doc)
    root = doc["findings"][0]
    assert root["family"] == "nccl.dmabuf"
    first = root["causes"][0]
    assert "DMA-BUF" in first["text"] and "open GPU kernel modules" in first["fix"][0]
    _, doc = explain_paste(cli, tmp_path, NCCL_EFAULT)
    assert root_id(doc) == "rdma.reg_mr_bad_address", ids(doc)
    _, doc = explain_paste(cli, tmp_path, NCCL_ENOMEM)
    assert root_id(doc) == "rdma.memlock", ids(doc)


def test_a_cdi_hook_writing_into_the_containers_root_is_the_hook_not_the_gpus(cli, tmp_path):
    # https://github.com/NVIDIA/nvidia-container-toolkit/issues/772 (toolkit 1.17.0: an image's own libGLX link)
    _, doc = explain_paste(cli, tmp_path, _seen("2026-11-27z", "z-nctk772-cdi-create-symlink-unexpected-target"))
    assert root_id(doc) == "container.oci_runtime", ids(doc)
    first = doc["findings"][0]["causes"][0]
    assert "create-symlinks" in first["text"] and "1.17.1" in first["fix"][0]


def test_the_cdi_root_rule_reads_the_hooks_path():
    import sys

    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import gen_oci_messages as gen
    import knowgen

    def fam(where, text="failed to create link %s: %s", level="error"):
        return knowgen.assign(gen.RULES, {}, {"where": where, "text": text, "level": level})[1]

    assert fam("toolkit:cmd/nvidia-cdi-hook/create-symlinks/create-symlinks.go:104") == "container.oci_runtime"
    assert fam("toolkit:cmd/nvidia-cdi-hook/update-ldcache/update-ldcache.go:102", "failed to x: %s") == \
        "container.oci_runtime"
    # the hooks that act on devices stay the GPU's
    assert fam("toolkit:cmd/nvidia-cdi-hook/chmod/chmod.go:113", "failed to load container state: %s") == \
        "container.oci_gpu"
    full = read_generated("oci_messages")
    for s in full["sites"]:
        if s.get("family") and s["where"].startswith("toolkit:cmd/nvidia-cdi-hook/"):
            assert tuple(knowgen.assign(gen.RULES, {}, s)) == (s["rule"], s["family"]), s["id"]


# made here: hydra-core 1.3.8, @hydra.main(version_base="1.3") with hydra.job.chdir: true in the config, and the
# task opening the config's relative data/train.csv (the file exists in the folder the job was started from)
HYDRA_RUN = """Error executing job with overrides: []
Traceback (most recent call last):
  File "/home/user/proj/fit.py", line 11, in main
    print(load(cfg.data.path))
          ^^^^^^^^^^^^^^^^^^^
  File "/home/user/proj/fit.py", line 5, in load
    with open(path) as f:
         ^^^^^^^^^^
FileNotFoundError: [Errno 2] No such file or directory: 'data/train.csv'

Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.
"""


def test_a_relative_path_not_found_in_a_hydra_job_names_hydras_chdir(cli, tmp_path):
    _, doc = explain_paste(cli, tmp_path, HYDRA_RUN)
    assert root_id(doc) == "hydra.job_chdir", ids(doc)
    root = doc["findings"][0]
    assert "to_absolute_path" in root["causes"][0]["fix"][0] and root["confidence"] != "cause"
    # an absolute path is not one Hydra's chdir moved; without Hydra's line it is the user's own open()
    _, doc = explain_paste(cli, tmp_path, HYDRA_RUN.replace("'data/train.csv'", "'/data/train.csv'"))
    assert root_id(doc) != "hydra.job_chdir", ids(doc)
    _, doc = explain_paste(cli, tmp_path, HYDRA_RUN.replace("Error executing job with overrides: []\n", ""))
    assert root_id(doc) != "hydra.job_chdir", ids(doc)


def test_sbatch_lines_after_the_first_command_were_never_read(cli, tmp_path):
    # set P25 (planted on a Slurm of its own): #SBATCH --nodes=2 below `module purge`, srun -N2 refused
    text = _seen("2026-11-27p25", "p25-slurm_sbatch_directives_after_command")
    _, doc = explain_paste(cli, tmp_path, text)
    assert root_id(doc) == "slurm.sbatch_directive_ignored", ids(doc)
    assert doc["findings"][0]["family"] == "slurm.job_env"
    assert "--nodes=2" in doc["findings"][0]["causes"][0]["text"]
    # the same script with its directives at the top: no such answer
    moved = text.replace("module purge 2>/dev/null\nsource /tmp/heldout-p25/venv/bin/activate\n", "")
    moved = moved.replace("#SBATCH --time=00:10:00\n", "#SBATCH --time=00:10:00\nmodule purge 2>/dev/null\n")
    _, doc = explain_paste(cli, tmp_path, moved)
    assert "slurm.sbatch_directive_ignored" not in ids(doc)


def test_a_steps_memory_refusal_is_against_the_jobs_memory_not_the_nodes(cli, tmp_path):
    # set P25 (planted on a Slurm of its own): the job's --mem=400M, srun --ntasks=2 --mem-per-cpu=600M
    _, doc = explain_paste(cli, tmp_path, _seen("2026-11-27p25", "p25-slurm_step_mem_over_job_mem"))
    assert root_id(doc) == "slurm.step_memory", ids(doc)
    first = doc["findings"][0]["causes"][0]
    assert "--mem" in first["fix"][0] and any("--mem-per-cpu=600M" in e["text"] for e in first["evidence"])
    # the same errno at submission (Slurm's job_mgr.c): no node holds the job, the generated site's answer
    _, doc = explain_paste(cli, tmp_path, "sbatch: error: Batch job submission failed: Memory required by task is "
                                          "not available\n")
    assert root_id(doc) == "slurm.node_config", ids(doc)


def test_a_slurm_node_list_as_the_rendezvous_host(cli, tmp_path):
    # set P25 (planted): export MASTER_ADDR=$SLURM_JOB_NODELIST, torchrun --master-addr=$MASTER_ADDR
    _, doc = explain_paste(cli, tmp_path, _seen("2026-11-27p25", "p25-slurm_master_addr_compressed_nodelist"))
    assert root_id(doc) == "rendezvous.slurm_hostlist", ids(doc)
    root = doc["findings"][0]
    assert root["family"] == "rendezvous.hostname" and "scontrol show hostnames" in root["causes"][0]["fix"][0]
    # c10d's own lookup of the same value (torch/csrc/distributed/c10d/socket.cpp's format)
    line = ("[W1127 03:10:00.000000000 socket.cpp:759] [c10d] The IPv4 network addresses of (gpu[01-04,07], 29500) "
            "cannot be retrieved (gai error: -2 - Name or service not known).\n")
    _, doc = explain_paste(cli, tmp_path, line + "torch.distributed.DistNetworkError: failed to connect\n")
    assert root_id(doc) == "rendezvous.slurm_hostlist", ids(doc)
    # an endpoint refused for another reason is not a node list
    _, doc = explain_paste(cli, tmp_path, "ValueError: The hostname of the rendezvous endpoint 'node_1:29500' must be "
                                          "a dot-separated list of labels, an IPv4 address, or an IPv6 address.\n")
    assert root_id(doc) != "rendezvous.slurm_hostlist", ids(doc)


def test_an_interrupted_pending_step_is_the_wait_not_a_finished_job(cli, tmp_path):
    # set P11 (planted on a Slurm of its own): a background srun holds the allocation's 2 CPUs, the second waits, ^C
    _, doc = explain_paste(cli, tmp_path, _seen("2026-11-26p11", "p11-step_waits_for_busy_cpus"))
    assert root_id(doc) == "slurm.step_pending_cancelled", ids(doc)
    root = doc["findings"][0]
    assert root["family"] == "slurm.step_wait" and "--overlap" in root["causes"][0]["fix"][0]
    assert root["causes"][0]["evidence"], root["causes"][0]
    # srun's 'already completing' without the cancelled wait keeps the generated answer
    _, doc = explain_paste(cli, tmp_path, "srun: error: Unable to create step for job 34: Job/step already completing "
                                          "or completed\n")
    assert root_id(doc) != "slurm.step_pending_cancelled", ids(doc)


def test_a_non_blocking_lock_refused_is_a_held_lock_not_a_thread_limit(cli, tmp_path):
    # set P14 (planted): every rank takes fcntl.flock(lock, LOCK_EX | LOCK_NB) on one file; rank 1 gets EAGAIN
    _, doc = explain_paste(cli, tmp_path, _seen("2026-11-26p14", "p14-flock_every_rank"))
    assert root_id(doc) == "errno.file_lock", ids(doc)
    assert "rank 0" in doc["findings"][0]["causes"][0]["fix"][0]
    # os.fork's BlockingIOError (no lock call shown) stays the process limit's
    fork = ('Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n    pid = os.fork()\n'
            'BlockingIOError: [Errno 11] Resource temporarily unavailable\n')
    _, doc = explain_paste(cli, tmp_path, fork)
    assert root_id(doc) == "errno.eagain", ids(doc)


def test_torchs_strerror_wrapper_is_that_errno(cli, tmp_path):
    # set P15 (planted, podman): torch.save into a root-owned bind mount as --user 1000:1000
    _, doc = explain_paste(cli, tmp_path, _seen("2026-11-26p15", "p15-podman_volume_owned_by_root"))
    assert root_id(doc) == "errno.permission", ids(doc)
    assert "bind mount" in doc["findings"][0]["causes"][0]["text"]
    # read from the text's shape, not a known message: one 'How sure', and it is not 'high'
    sure = [n for n in doc["findings"][0]["notes"] if n.startswith("How sure")]
    assert len(sure) == 1 and sure[0].startswith("How sure: low"), sure
    from gpudoctor.explain.oserror import site_of

    assert site_of("[enforce fail at inline_container.cc:747] . open file failed with strerror: No space left on "
                   "device")["name"] == "ENOSPC"
    assert site_of("open file failed with strerror: nothing we know") is None

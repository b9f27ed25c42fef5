"""Red-team findings of 2026-11-26 (issues 18 and 20: the new readers of untrusted input), each
held by a test that tries more than the reproducer.

- explain's launch lines (explain/launchpaste.py): a pasted line made plan's readers open a file
  of the machine explain runs on and quote it: `--config_file ${X:-/path}` (accelerate: the first
  40 characters of any file that is not YAML), `--hostfile ${X:-/etc/shadow}` (DeepSpeed,
  Open MPI, Horovod: the first host-like field), `HF_HOME=/dir accelerate launch` (that folder's
  accelerate config). Now every file a pasted line names is refused unread (errors.Confined).
- `--node_rank=$SLURM_NODEID` (the fix explain itself gives) was handed to the reader as the
  literal text '$SLURM_NODEID': "the launcher would refuse this line: invalid int value".
"""

import json
import os

import pytest

from explainhelp import explain_paste


@pytest.fixture
def secret(tmp_path):
    """A file outside the paste that explain must never read: a host-like first field (what a
    hostfile reader quotes) and text (what a YAML reader quotes)."""
    path = tmp_path / "private" / "notes"
    path.parent.mkdir()
    path.write_text("topsecret1 slots=zz\nroot:$6$SALTSALT$HASH:19000::::::\n")
    hf = tmp_path / "hf" / "accelerate"
    hf.mkdir(parents=True)
    (hf / "default_config.yaml").write_text("topsecret2: [\n")
    return path


def test_a_pasted_launch_line_never_makes_explain_read_a_file_it_names(cli, tmp_path, secret):
    s, hf = str(secret), str(tmp_path / "hf")
    lines = [
        "$ accelerate launch --config_file ${C:-%s} train.py" % s,
        "$ deepspeed --hostfile ${H:-%s} train.py" % s,
        "$ mpirun -np 2 --hostfile ${H:-%s} python x.py" % s,
        "$ horovodrun -np 2 --hostfile ${H:-%s} python x.py" % s,
        "$ HF_HOME=%s accelerate launch --num_machines 2 train.py" % hf,
        "$ H=%s mpirun -np 2 --hostfile $H python x.py" % s,
        "$ accelerate launch --deepspeed_config_file ${D:-%s} train.py" % s,
        "$ torchrun --nnodes 1 ${S:-%s}" % s,
    ]
    rc, doc = explain_paste(cli, tmp_path, "\n".join(lines) + "\n", rcs=(0, 1))
    text = repr(doc)
    assert "topsecret" not in text and "SALTSALT" not in text and "line 'root'" not in text
    notes = [c["note"] for c in doc["context"] if c["id"] == "launcher.plan"]
    assert sum("never opened here" in n for n in notes) >= 3, notes  # refused, and said so
    # the confinement ends with the paste: a file the user names is read as before
    from gpudoctor.errors import read_input

    assert read_input(s, "test file").startswith(b"topsecret1")


def test_confined_reads_only_under_its_folder(tmp_path):
    from gpudoctor.errors import Confined, InputError, read_input

    inside = tmp_path / "in"
    inside.mkdir()
    (inside / "a").write_text("x")
    (tmp_path / "out").write_text("y")
    os.symlink(str(tmp_path / "out"), str(inside / "link"))  # a link out of the folder is outside
    with Confined(str(inside)):
        assert read_input(str(inside / "a"), "f") == b"x"
        for bad in (tmp_path / "out", inside / "link", inside / ".." / "out", "a\0b"):
            with pytest.raises(InputError, match="never opened"):
                read_input(str(bad), "f")
    assert read_input(str(tmp_path / "out"), "f") == b"y"


@pytest.mark.parametrize("flag", ["--node_rank=$SLURM_NODEID", "--node_rank=${SLURM_NODEID}",
                                  "--node_rank $SLURM_NODEID"])
def test_a_variable_inside_a_pasted_word_is_an_unknown_not_a_refusal(cli, tmp_path, flag):
    line = "$ srun torchrun --nnodes=2 --nproc_per_node=8 %s --master_addr=node01 --master_port=29500 train.py\n" % flag
    rc, doc = explain_paste(cli, tmp_path, line, rcs=(0,))
    assert doc["verdict"] == "no_error" and not doc["findings"], doc["findings"]
    assert not [c for c in doc["context"] if c["id"] == "launcher.plan"], doc["context"]


@pytest.mark.parametrize("name", ["..", ".", "a/..", "h" * 300 + ".json", "a\0b"])
def test_a_pasted_file_name_that_is_no_file_name_is_no_internal_error(cli, tmp_path, name):
    """`--hostfile ..` beside pasted hostfile lines: the pasted block was written to the private
    folder under that name (open() on a folder, a name too long, a NUL: exit 3)."""
    text = ("worker-1 slots=8\nworker-2 slots=8\n$ deepspeed --hostfile %s --num_gpus 8 train.py\n"
            "$ accelerate launch --config_file %s train.py\ndistributed_type: MULTI_GPU\nnum_machines: 2\n" % (name, name))
    rc, doc = explain_paste(cli, tmp_path, text, rcs=(0, 1), quiet=True)
    assert doc["verdict"] in ("no_error", "root_cause"), doc["verdict"]


def test_mpich_machinefile_not_here_is_a_note_not_an_unknown_option(cli, tmp_path):
    """`mpiexec -f hosts -n 16` (MPICH/Intel MPI Hydra) pasted into explain: the machinefile is never
    on this machine there, Hydra's reading failed on it, and Open MPI's "unknown option -f" was
    reported as the launcher's refusal."""
    rc, doc = explain_paste(cli, tmp_path, "$ mpiexec -f hosts -n 16 -ppn 8 python train.py\n", rcs=(0,))
    assert doc["verdict"] == "no_error" and not doc["context"], doc["context"]
    rc, out, err = cli("plan", "--json", "mpiexec", "-f", str(tmp_path / "missing"), "-n", "16", "python", "x.py")
    plan = json.loads(out)
    assert rc == 0 and plan["world_size"] == {"min": 16, "max": 16}, plan["world_size"]
    assert any("is not on this machine" in n for n in plan["notes"]), plan["notes"]
    bad = tmp_path / "mf"
    bad.write_text("node1:zz\n")  # read by Hydra's rules: its own error, not Open MPI's '-f'
    rc, out, err = cli("plan", "mpiexec", "-f", str(bad), "-n", "2", "python", "x.py")
    assert rc == 2 and "slot count" in err and "unknown option" not in err, err


_BARRIER_WARNING = ("[rank0]:[W1126 01:02:03.000000 123 torch/distributed/c10d/ProcessGroupNCCL.cpp:4561] [PG ID 0 PG GUID 0 "
                    "Rank 0]  using GPU 0 to perform barrier as devices used by this process are currently unknown. This "
                    "can potentially cause a hang if this rank to GPU mapping is incorrect. Specify device_ids in barrier() "
                    "to force use of a particular device, or call init_process_group() with a device_id.")


@pytest.mark.parametrize("prefix", ["", "0: "])
def test_torchs_barrier_warning_in_a_healthy_log_is_not_a_hang(cli, tmp_path, prefix):
    """torch's warning for every barrier() without device_ids (ProcessGroupNCCL.cpp, torch >= 2.3), with
    its '[rank0]:' prefix, was taken as the user saying the job hangs: a healthy log got nccl.hang."""
    text = (prefix + _BARRIER_WARNING + "\nEpoch 1/3: 100%|##########| 500/500 [02:13<00:00,  3.74it/s, loss=0.231]\n"
            "Training complete.\n")
    rc, doc = explain_paste(cli, tmp_path, text, rcs=(0,))
    assert doc["verdict"] == "no_error" and not doc["findings"], [f["id"] for f in doc["findings"]]
    # the user's own words with the same prefix still say it hangs
    rc, doc = explain_paste(cli, tmp_path, prefix + "[rank0]: training hangs at the first all_reduce\n", name="u.txt")
    assert doc["findings"] and doc["findings"][0]["id"] == "nccl.hang", [f["id"] for f in doc["findings"]]


def test_the_tokenizers_fork_warning_is_not_a_complaint(cli, tmp_path):
    """huggingface/tokenizers prints 'Disabling parallelism to avoid deadlocks...' (no level, in most
    HF training logs that use DataLoader workers): beside NCCL's INFO lines of a healthy job it was
    'the text says the job is slow or hangs' and a root cause (nccl.info_only)."""
    info = ("node1:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
            "node1:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 16 cudaDev 0 busId 18000 - Init COMPLETE\n")
    fork = ("huggingface/tokenizers: The current process just got forked, after parallelism has already been used. "
            "Disabling parallelism to avoid deadlocks...\nTo disable this warning, you can either:\n")
    rc, doc = explain_paste(cli, tmp_path, info + fork + "step 100 loss 1.2\n", rcs=(0,))
    assert doc["verdict"] == "no_error", [f["id"] for f in doc["findings"]]
    # the user's own 'deadlocks' still is a complaint (answered from NCCL's INFO lines)
    rc, doc = explain_paste(cli, tmp_path, info + "the job deadlocks at the first all_reduce\n", name="u.txt")
    assert doc["findings"] and doc["findings"][0]["id"] in ("nccl.info_only", "nccl.hang"), doc["findings"]


def _nccl_tests_run(host, pid):
    return ("# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1\n"
            "#\n# Using devices\n"
            "#  Rank  0 Group  0 Pid %d on %s device  0 [0x18] NVIDIA H100 80GB HBM3\n"
            "#  Rank  1 Group  0 Pid %d on %s device  1 [0x2a] NVIDIA H100 80GB HBM3\n#\n"
            "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
            "  8589934592    2147483648     float     sum      -    40123  214.09  374.65      0    40101  214.21  374.87      0\n"
            "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 374.7\n#\n" % (pid, host, pid, host))


def test_two_single_node_nccl_tests_runs_pasted_one_after_another_are_not_a_job_without_mpi(cli, tmp_path):
    """node1's single-node all_reduce_perf, then node2's (each with its summary), pasted to compare the
    nodes: answered 'built without MPI, separate one-process jobs' (confidence cause) because the two
    Rank 0 lines were on different hosts. Per-node files of one run still are two jobs."""
    text = ("$ ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 8   # on node1\n" + _nccl_tests_run("node1", 1111)
            + "$ ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 8   # on node2\n" + _nccl_tests_run("node2", 2222))
    rc, doc = explain_paste(cli, tmp_path, text, rcs=(0,))
    assert doc["verdict"] == "no_error", [f["id"] for f in doc["findings"]]
    (tmp_path / "n1.log").write_text(_nccl_tests_run("node1", 1111))
    (tmp_path / "n2.log").write_text(_nccl_tests_run("node2", 2222))
    rc, out, err = cli("explain", "--json", tmp_path / "n1.log", tmp_path / "n2.log")
    assert json.loads(out)["findings"][0]["id"] == "nccltests.no_mpi"


@pytest.mark.parametrize("line, complaint", [
    ("Freezing the vision tower and the first 12 layers of the language model", False),
    ("freezing embeddings: True", False),
    ("Note: the first iteration may be slower than usual (CUDA graph capture)", False),
    ("training freezes at step 100", True),
    ("the job is freezing after epoch 1", True),
    ("allreduce is slower than expected on 2 nodes", True),
])
def test_a_fine_tuning_logs_freezing_is_not_a_complaint(cli, tmp_path, line, complaint):
    """'Freezing <parameters>' (fine-tuning scripts) and a hedged 'may be slower than usual' beside a
    healthy job's NCCL INFO lines were the user saying the job hangs or is slow: a root cause."""
    info = ("node1:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
            "node1:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 16 cudaDev 0 busId 18000 - Init COMPLETE\n")
    rc, doc = explain_paste(cli, tmp_path, info + line + "\nstep 100 loss 1.2\n")
    assert (doc["verdict"] != "no_error") == complaint, [f["id"] for f in doc["findings"]]


# the block torch/utils/collect_env.py prints (PyTorch's issue template asks for it), composed in its format
COLLECT_ENV = """Collecting environment information...
PyTorch version: 2.1.0+cu121
Is debug build: False
CUDA used to build PyTorch: 12.1
ROCM used to build PyTorch: N/A

OS: Ubuntu 22.04.3 LTS (x86_64)
GCC version: (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0
Clang version: Could not collect
CMake version: version 3.27.7
Libc version: glibc-2.35

Python version: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)
Is CUDA available: True
CUDA runtime version: 12.1.105
GPU models and configuration:
GPU 0: NVIDIA H100 80GB HBM3

Nvidia driver version: 535.129.03
cuDNN version: Could not collect

Versions of relevant libraries:
[pip3] nvidia-nccl-cu12==2.18.1
[pip3] torch==2.1.0
[conda] Could not collect
"""


def test_collect_envs_could_not_collect_is_no_error(cli, tmp_path):
    """collect_env's 'Could not collect' placeholders made the environment block alone an
    'unknown error' (exit 1) through the generic 'could not' line."""
    rc, doc = explain_paste(cli, tmp_path, COLLECT_ENV, rcs=(0,))
    assert doc["verdict"] == "no_error" and not doc["errors"], doc["errors"]
    rc, doc = explain_paste(cli, tmp_path, COLLECT_ENV + "error: could not connect to 10.0.0.2\n", name="e.txt")
    assert doc["verdict"] != "no_error" and doc["errors"], doc["verdict"]


def test_hangs_nccl_prefix_is_linear_in_a_long_line():
    """hang.summarize_tail searches NCCL's prefix in every line of each input's last 32 KiB: inside a
    long run of name characters [\\w.-]{0,63} stepped back 63 characters at every byte (10 ms a
    32 KiB line, 6 s of a 500-file folder). Its CPU time on a 1 MiB line: bench/cpu_bounds.py."""
    from gpudoctor.explain import hang

    long = "x" * (1 << 20)
    for rx in (hang._NCCL_PREFIX, hang._NCCL_PREFIX_ID):
        assert rx.search(long) is None  # its CPU time: bench/cpu_bounds.py (was 0.3 s, bound 0.1 s each)
    for line in ("node1:1:2 [0] NCCL INFO x", ":22901:22901 [0] NCCL INFO", "[rank0]:node-1.a:1:2 [3] NCCL WARN y",
                 "0: gpu01:9:9 [0] NCCL INFO Init COMPLETE"):
        assert hang._NCCL_PREFIX.search(line), line
    assert hang._NCCL_PREFIX_ID.search("[rank0]:node-1:12:13 [0] NCCL INFO x").group(1) == "node-1:12"

"""Never confidently wrong (issue 18 item 3, wrong20): a cause needs the evidence its source says it needs.

Last round's unseen wrong answers were a neighbour's family read from a word of the message; each rule here reads the
evidence the program that printed the line gives, and answers the cause only with it:

1. A directive in a form sbatch does not read ('# SBATCH --ntasks=2', '#sbatch --nodes=2'): src/sbatch/opt.c
   _opt_batch_script takes a line as a directive only when it starts with exactly "#SBATCH"; any other '#' line is a
   comment (launchctx._UNREAD). Only options that size the allocation, with a value other than the default, and only
   where the failure is one a smaller allocation causes; '##SBATCH' (switched off on purpose) is not read.
2. FileExistsError raised in os.makedirs / Path.mkdir whose caller passed exist_ok=True: the path is not a directory
   (CPython Lib/os.py makedirs re-raises only 'if not exist_ok or not path.isdir(name)'; pathlib's docs), errno.eexist
   (rootguard.exists_not_a_directory). Without exist_ok=True it stays EEXIST's reading (several ranks, errno.syscall).
3. A no-GPU failure after an srun typed at a prompt with no GPU option, in a text with no batch script:
   slurm.step_without_gpus (Slurm's GRES guide, cgroup.conf(5) ConstrainDevices; launchctx._no_gpu_asked).
"""

import os

from explainhelp import explain_paste, fixes, ids, root_id, seen_text

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(os.path.dirname(HERE), "fixtures", "explain", "wrong20")


def _fixture(name):
    with open(os.path.join(FIX, name), encoding="utf-8") as f:
        return f.read()


# ---- 1. directives sbatch does not read

def _p31():
    # P31 (planted on a real Slurm, seen): '# SBATCH --ntasks=2', then 'srun -n 2' refused in the 1-task job
    return seen_text("p31-slurm_directive_space_ignored", "2026-11-27p31")


def test_a_directive_with_a_blank_after_the_hash_is_a_comment(cli, tmp_path):
    _, doc = explain_paste(cli, tmp_path, _p31())
    assert root_id(doc) == "slurm.sbatch_directive_ignored", ids(doc)
    first = doc["findings"][0]["causes"][0]
    assert "# SBATCH --ntasks=2" in first["text"] and "#SBATCH --ntasks=2" in fixes(doc["findings"][0]), first
    assert [e["line"] for e in first["evidence"]] == [5], first
    # the other case of the magic word is a comment too
    _, doc = explain_paste(cli, tmp_path, _p31().replace("# SBATCH --ntasks=2", "#sbatch --ntasks=2"), name="b.txt")
    assert root_id(doc) == "slurm.sbatch_directive_ignored", ids(doc)


def test_directive_forms_that_are_not_read_as_a_mistake(cli, tmp_path):
    # '##SBATCH' switches a directive off on purpose; a mail option sizes nothing; '--ntasks=1' is the default; the
    # well-formed directive is read by sbatch: the step's refusal keeps its own answer in each
    for line in ("##SBATCH --ntasks=2", "# SBATCH --mail-type=END", "# SBATCH --ntasks=1", "#SBATCH --ntasks=2"):
        _, doc = explain_paste(cli, tmp_path, _p31().replace("# SBATCH --ntasks=2", line), name="c.txt")
        assert root_id(doc) == "slurm.node_config", (line, ids(doc))


def test_an_unread_directive_beside_an_unrelated_failure_is_no_root(cli, tmp_path):
    # the same script whose job ends in a Python error: the form is a note at most, the error is the root
    text = _p31().replace("srun: error: Unable to create step for job 1: More processors requested than permitted",
                          "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n"
                          "    import numpy\nModuleNotFoundError: No module named 'numpy'")
    _, doc = explain_paste(cli, tmp_path, text, name="d.txt")
    assert root_id(doc) != "slurm.sbatch_directive_ignored", ids(doc)


# ---- 2. FileExistsError with exist_ok=True

def test_makedirs_exist_ok_on_a_file_is_a_path_that_is_no_directory(cli, tmp_path):
    # P30 (planted on 2 H200s, seen): TORCHINDUCTOR_CACHE_DIR=/etc/hostname; Inductor's cache_dir() calls
    # os.makedirs(cache_dir, exist_ok=True)
    _, doc = explain_paste(cli, tmp_path, seen_text("p30-inductor_cache_dir_is_a_file", "2026-11-27p30"))
    assert root_id(doc) == "errno.eexist", ids(doc)
    first = doc["findings"][0]["causes"][0]
    assert "'/etc/hostname'" in first["text"] and "NOT a directory" in first["text"], first
    assert "cache_dir_utils.py" in first["text"] and "a directory" in fixes(doc["findings"][0]), first
    # the command line sets the variable to that path: it is named, with its line as evidence
    assert "unset TORCHINDUCTOR_CACHE_DIR" in fixes(doc["findings"][0]), first
    assert 1 in [e["line"] for e in first["evidence"]], first


def test_pathlib_mkdir_exist_ok_on_a_file(cli, tmp_path):
    # made here (CPython 3.11.7): Path('/etc/hostname').mkdir(parents=True, exist_ok=True)
    _, doc = explain_paste(cli, tmp_path, _fixture("pathlib_mkdir_exist_ok_on_a_file.log"))
    assert root_id(doc) == "errno.eexist", ids(doc)
    assert "Path.mkdir" in doc["findings"][0]["causes"][0]["text"], doc["findings"][0]["causes"][0]
    assert "unset MY_CACHE_DIR" in fixes(doc["findings"][0]), doc["findings"][0]["causes"][0]
    # the same traceback without the command line: no variable is named
    text = _fixture("pathlib_mkdir_exist_ok_on_a_file.log").split("\n", 1)[1]
    _, doc = explain_paste(cli, tmp_path, text, name="m.txt")
    assert root_id(doc) == "errno.eexist" and "unset" not in fixes(doc["findings"][0]).split(";")[0], ids(doc)


def test_makedirs_without_exist_ok_keeps_the_race_reading(cli, tmp_path):
    # made here: os.makedirs('runs/exp1') on an existing directory; and P12 (planted, seen): every rank makes the
    # same run directory. No exist_ok=True in the caller: EEXIST's site reading (exist_ok=True is its fix)
    for name, text in (("e.txt", _fixture("makedirs_without_exist_ok.log")),
                       ("f.txt", seen_text("p12-makedirs_every_rank", "2026-11-26p12"))):
        _, doc = explain_paste(cli, tmp_path, text, name=name)
        assert root_id(doc) == "errno.syscall", (name, ids(doc))
        assert "exist_ok=True" in fixes(doc["findings"][0]), name


# ---- 3. a step that asked for no GPU

_DEEPOPS = ("vagrant@virtual-login101:~$ sinfo\nPARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            "batch*       up   infinite      1   idle virtual-gpu101\nvagrant@virtual-login101:~$ srun -N1 nvidia-smi\n"
            "No devices were found\nsrun: error: virtual-gpu101: task 0: Exited with exit code 6\n")


def test_srun_without_a_gpu_option_and_no_device_found(cli, tmp_path):
    # NVIDIA/deepops#1157 (https://github.com/NVIDIA/deepops/pull/1157): the maintainer's test plan, a step with no
    # GPU request under ConstrainDevices
    assert _DEEPOPS == seen_text("ai-deepops1157-srun-no-gpu-requested", "2026-11-27ai")
    _, doc = explain_paste(cli, tmp_path, _DEEPOPS)
    assert root_id(doc) == "slurm.step_without_gpus", ids(doc)
    assert "srun --gpus=1 -N1 nvidia-smi" in fixes(doc["findings"][0]), fixes(doc["findings"][0])


def test_a_gpu_request_or_no_srun_keeps_the_device_answer(cli, tmp_path):
    # the step that asked for a GPU (the PR's next command) and still saw none is not this; nor is a text with no
    # srun: nitishsrivastava/deepnet#28 (https://github.com/nitishsrivastava/deepnet/issues/28, seen), a driver
    # module left behind a kernel update
    _, doc = explain_paste(cli, tmp_path, _DEEPOPS.replace("srun -N1 nvidia-smi", "srun -N1 -G1 nvidia-smi"))
    assert root_id(doc) == "gpu.no_devices", ids(doc)
    _, doc = explain_paste(cli, tmp_path, seen_text("cuda-no-device-kernel-updated-no-reboot-deepnet", "2026-11-25b"),
                           name="g.txt")
    assert root_id(doc) == "gpu.driver_not_loaded", ids(doc)
    # a driver that is not there, after the same srun: not the allocation (Slurm constrains the GPUs' device files,
    # not the driver's): nvidia-smi's own message for it, and torch's (torch/cuda/__init__.py _check_driver)
    for name, line in (("k.txt", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make "
                                 "sure that the latest NVIDIA driver is installed and running."),
                       ("l.txt", "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an "
                                 "NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx")):
        _, doc = explain_paste(cli, tmp_path, _DEEPOPS.replace("No devices were found", line), name=name)
        assert root_id(doc) != "slurm.step_without_gpus", (name, ids(doc))
    # a step that saw its GPU: no root
    ok = _DEEPOPS.replace("No devices were found\nsrun: error: virtual-gpu101: task 0: Exited with exit code 6\n",
                          "GPU 0: Tesla V100-SXM2-16GB (UUID: GPU-1f2e3d4c-0000-1111-2222-333344445555)\n")
    _, doc = explain_paste(cli, tmp_path, ok, name="h.txt")
    assert doc["verdict"] == "no_error" and root_id(doc) is None, ids(doc)


# ---- 4. a message longer than the site's

def test_a_longer_message_is_not_the_short_sites_raise(cli, tmp_path):
    # huggingface/trl#2826 (https://github.com/huggingface/trl/issues/2826, seen): TRL's GRPO trainer's ValueError
    # contains torch's torchrun site '%s is not available.' (torch/distributed/run.py) after a value, and goes on
    # with sentences of its own: not torchrun's message, so not torchrun's --nproc-per-node cause
    text = seen_text("ad-trl2826-grpo-vllm-device-single-gpu", "2026-11-27ad")
    _, doc = explain_paste(cli, tmp_path, text)
    assert root_id(doc) != "torch.distributed_usage", ids(doc)
    # torchrun's own message, whole on its line (P28, planted, seen: --nproc-per-node=gpu with CUDA_VISIBLE_DEVICES
    # empty) keeps its answer
    _, doc = explain_paste(cli, tmp_path, seen_text("p28-nproc_gpu_cvd_empty", "2026-11-27p28"), name="i.txt")
    assert root_id(doc) == "cuda.not_available", ids(doc)


def test_longer_than_site_reads_the_site_text_and_the_rest_of_the_line():
    from gpudoctor.explain import rootguard as R
    from gpudoctor.explain.knowledge import Pattern
    from gpudoctor.explain.scan import Hit

    def hit(text, site_text, where="torch/distributed/run.py:765", level="raise"):
        site = {"id": "s", "where": where, "level": level, "text": site_text}
        return Hit(1, text, Pattern("e", "match", r"(?:\w{0,60}Error: )[^\n]{0,200}?is not available\.", 0, site=site),
                   {}, None)

    line = ("ValueError: The requested device for vllm (cuda:1) is not available. You are likely using vLLM without "
            "restricting the number of GPUs for training.")
    assert R._longer_than_site(hit(line, "%s is not available."))
    # the site's own message (a short value), the prose value alone, a short value with more text after it
    assert not R._longer_than_site(hit("ValueError: Xpu is not available.", "%s is not available."))
    assert not R._longer_than_site(hit(line.split(" You are")[0], "%s is not available."))
    assert not R._longer_than_site(hit("ValueError: Xpu is not available. You are likely using it without a driver.",
                                       "%s is not available."))
    # other shapes of site: more than one value, not a Python raise, not a raise
    assert not R._longer_than_site(hit(line, "%s is not available. %s"))
    assert not R._longer_than_site(hit(line, "%s is not available.", where="run.cpp:765"))
    assert not R._longer_than_site(hit(line, "%s is not available.", level="warning"))


# ---- 5. a help topic's shared first line

def test_the_working_directory_topic_is_not_a_missing_program(cli, tmp_path):
    # P29 (planted, real Open MPI 4.1 mpirun, seen): --wdir to a directory never made; help-orterun.txt
    # [orterun:wdir-not-found] shares its first line ('... as it could not') with the executable topics
    _, doc = explain_paste(cli, tmp_path, seen_text("p29-mpirun_wdir_not_created", "2026-11-27p29"))
    assert root_id(doc) == "mpi.error", ids(doc)
    first = doc["findings"][0]["causes"][0]
    assert "working directory" in first["text"] and "on vm" in first["text"], first
    # the banner's own fields give the directory to make
    assert "mkdir -p /tmp/heldout-p29/work/job-f610/scratch/run-20261127" in fixes(doc["findings"][0]), first
    # the executable topic ('... could not access / or execute an executable:', P25, seen) keeps its answer
    _, doc = explain_paste(cli, tmp_path, seen_text("p25-mpirun_script_not_executable", "2026-11-27p25"),
                           name="j.txt")
    assert root_id(doc) == "mpi.exec_not_found", ids(doc)

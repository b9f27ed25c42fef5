"""Fewer confidently-wrong answers, by mechanism (issue 18, "wrong-guard2").

1. meaning.py: a class's word found only inside a snake_case name is not the user's word. A healthy DDP job
   that prints its settings ('[rank1] TORCH_NCCL_NAN_CHECK=1', the NaN check torch's ProcessGroupNCCL reads)
   was a NaN on one rank ('nan' of the name, '[rank1]' of the prefix).
2. gen_slurm_reasons.py: JobArrayTaskLimit is the array's own throttle (the '%N' of sbatch --array; slurmctld
   job_mgr.c job_array_start_test sets it when the array's running tasks reach array_recs->max_run_tasks), a
   normal pending reason, no QOS limit: a healthy throttled array is no error; a user saying only one task runs
   gets the throttle (slurm.job_pending_words' cause, its evidence the reason on the text's own line).

The Slurm text was made here for real (Debian's slurm-wlm 22.05, one node, `sbatch --array=0-5%1`, then squeue
and scontrol show job); the user's sentences and the settings lines are written here.
"""

import json
import os

from gpudoctor.explain import explain_text, meaning
from gpudoctor.explain.knowledge import open_generated

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

# made here: slurm-wlm 22.05, one node, a throttled array of six tasks
THROTTLED = """$ sbatch --array=0-5%1 sweep.sh
Submitted batch job 1
$ squeue
             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)
         1_[1-5%1]     debug sweep.sh     root PD       0:00      1 (JobArrayTaskLimit)
               1_0     debug sweep.sh     root  R       0:01      1 vm
$ scontrol show job
JobId=2 ArrayJobId=1 ArrayTaskId=0 ArrayTaskThrottle=1 JobName=sweep.sh
   JobState=RUNNING Reason=None Dependency=(null)
JobId=1 ArrayJobId=1 ArrayTaskId=1-5%1 ArrayTaskThrottle=1 JobName=sweep.sh
   JobState=PENDING Reason=JobArrayTaskLimit Dependency=(null)
"""


def test_a_word_inside_a_name_is_not_said():
    c = meaning.classes("[rank1] 13:53:34 TORCH_NCCL_NAN_CHECK=1")
    assert c is None or not c.get("nan")
    assert meaning.classes("the loss is nan on rank 1 only")["nan"]
    assert meaning.classes("the loss_nan_count of rank 1 grows, then loss is nan")["nan"]  # the word said after the name
    # a class whose match holds the underscore is about the name itself
    assert meaning.classes("CUDA_VISIBLE_DEVICES is ignored, the job still uses GPU 0").get("cvd")


def test_healthy_settings_lines_are_no_symptom(kb):
    text = ("[rank1] TORCH_NCCL_NAN_CHECK=1\n[rank0] TORCH_NCCL_NAN_CHECK=1\n[rank0] step 10 loss 1.74\n"
            "[rank1] step 10 loss 1.70\n[rank0] step 20 loss 1.55\n[rank1] step 20 loss 1.57\n[rank0] done\n[rank1] done\n")
    r = explain_text(text, kb)
    assert r["verdict"] != "root_cause", r.get("root")
    # the same words said by the user still read
    told = explain_text("[rank1] the loss turns nan on rank 1 only, the other ranks are fine\n", kb)
    assert told["root"] == "torch.nan_one_rank"


def test_array_throttle_is_a_normal_pending_reason(kb):
    with open_generated("slurm_reasons") as f:
        sites = {s["name"]: s for s in json.load(f)["sites"]}
    site = sites["WAIT_ARRAY_TASK_LIMIT"]
    assert site["family"] == "slurm.pending" and site["rule"] == "normal"
    assert "ArrayTaskThrottle" in " ".join(site["fix"])
    assert sites["WAIT_QOS_MAX_JOB_PER_USER"]["family"] == "slurm.qos_limit"  # a QOS limit stays one
    r = explain_text(THROTTLED, kb)
    assert r["verdict"] != "root_cause", r.get("root")
    assert "slurm.pending" in [c.get("id") for c in r["context"] if isinstance(c, dict)]


def test_told_throttle_names_the_throttle(kb):
    text = ("My sweep is a job array of 6 trials. Only one trial runs at a time, the rest just wait. Why?\n\n"
            + THROTTLED)
    r = explain_text(text, kb)
    assert r["root"] == "slurm.job_pending_words"
    first = r["findings"][0]["causes"][0]
    assert "JobArrayTaskLimit" in first["text"] and "ArrayTaskThrottle" in " ".join(first["fix"])


# 3. oserror.py: torch's c10d FileStore raises the C library's text of errno as the whole message
# (torch/csrc/distributed/c10d/FileStore.cpp SYSASSERT: C10_THROW_ERROR(DistStoreError, c10::utils::str_error(errno)));
# the lines are written here in CPython's traceback format with that message
def _filestore_tb(msg):
    return ("Traceback (most recent call last):\n"
            '  File "/work/train.py", line 4, in <module>\n'
            '    dist.init_process_group("gloo", init_method="file:///tmp/pg_init", rank=0, world_size=1)\n'
            '  File "/opt/venv/site-packages/torch/distributed/distributed_c10d.py", line 1892, in init_process_group\n'
            "    store, rank, world_size = next(rendezvous_iterator)\n"
            '  File "/opt/venv/site-packages/torch/distributed/rendezvous.py", line 151, in _file_rendezvous_handler\n'
            "    store = FileStore(path, world_size)\n"
            "torch.distributed.DistStoreError: %s\n" % msg)


def test_a_message_that_is_an_os_error_names_it(kb):
    from gpudoctor.explain import oserror

    assert oserror.site_of("Read-only file system")["name"] == "EROFS"
    assert oserror.site_of("No space left on device.")["name"] == "ENOSPC"
    assert oserror.site_of("Invalid argument") is None  # errno.syscall: the type says more
    assert oserror.site_of("the file system is read-only, see Read-only file system") is None  # the whole message only
    r = explain_text(_filestore_tb("Read-only file system"), kb)
    f = r["findings"][0]
    assert r["root"] == "errno.permission" and f["family"] == "errno.permission"
    assert "read-only" in f["causes"][0]["text"].lower()  # the errno site's own meaning first
    assert any("EROFS" in n for n in f["notes"])
    # the store's own timeout is still the store's
    r = explain_text(_filestore_tb("Timed out after 301 seconds waiting for clients. 1/2 clients joined."), kb)
    assert r["root"] != "errno.permission"


# 4. pyanswer._distributed_check: an argument check raised in a torch.distributed subpackage that _TORCHDIST does not
# name (torch/distributed/pipelining/schedules.py's microbatch check), under the user's call, is torch.distributed's
# refusal, not the user's own code; the traceback is written here in CPython's format (torch 2.11's file layout)
def _torch_tb(path, exc, msg):
    return ("Traceback (most recent call last):\n"
            '  File "/work/train_pp.py", line 83, in main\n'
            "    schedule = ScheduleGPipe(stage, n_microbatches=n_mb, loss_fn=loss_fn)\n"
            '  File "/opt/venv/lib/python3.12/site-packages/torch/%s", line 829, in __init__\n'
            "    raise %s(\n"
            "%s: %s\n" % (path, exc, exc, msg))


def test_an_argument_check_of_torch_distributed_is_its_refusal(kb):
    r = explain_text(_torch_tb("distributed/pipelining/schedules.py", "ValueError",
                               "n_microbatches (1) must be at least the number of stages (2)"), kb)
    assert r["root"] == "torch.distributed_usage"
    assert any("torch/distributed/pipelining" in n for n in r["findings"][0]["notes"])
    # the same check raised in torch's nn code stays the user's call (code.exception), and an exception that is no
    # argument check (a KeyError) in torch.distributed is not read as one
    assert explain_text(_torch_tb("nn/modules/module.py", "ValueError", "n must be at least 2"), kb)["root"] \
        != "torch.distributed_usage"
    assert explain_text(_torch_tb("distributed/pipelining/schedules.py", "KeyError", "'stage_0'"), kb)["root"] \
        != "torch.distributed_usage"


# 5. Hydra's 'unrecognized argument <name>' is mpi.implementation_mismatch only by the name: an option of Open MPI's
# mpirun (-x); any other (a misspelt one) is mpi.hydra_option. Both made here with Debian's MPICH 4 mpiexec.hydra.
def _hydra(name):
    return ("$ mpiexec.hydra -n 2 -%s ... hostname\n"
            "[mpiexec@vm] match_arg (utils/args/args.c:163): unrecognized argument %s\n"
            "[mpiexec@vm] HYDU_parse_array (utils/args/args.c:178): argument matching returned error\n"
            "[mpiexec@vm] parse_args (ui/mpich/utils.c:1639): error parsing input array\n"
            "[mpiexec@vm] HYD_uii_mpx_get_parameters (ui/mpich/utils.c:1691): unable to parse user arguments\n"
            "[mpiexec@vm] main (ui/mpich/mpiexec.c:127): error parsing parameters\n" % (name, name))


def test_hydra_unknown_option_by_its_name(kb):
    r = explain_text(_hydra("ranks-per-node"), kb)
    assert r["root"] == "mpi.hydra_option" and r["findings"][0]["family"] == "mpi.mpich_launch"
    assert "mpiexec -h" in " ".join(r["findings"][0]["causes"][0]["fix"])
    assert explain_text(_hydra("x"), kb)["root"] == "mpi.implementation_mismatch"
    assert explain_text(_hydra("xyz"), kb)["root"] == "mpi.hydra_option"  # a whole name, not its first letter


# 6. sdpa.toml: 'No available kernel. Aborting execution.' (aten sdp_utils.cpp select_sdp_backend) raised under the
# user's call of F.scaled_dot_product_attention was code.exception by its type; the UserWarnings torch prints before
# it name the check that refused, and order the causes
X_TRANSFORMERS_143 = (  # lucidrains/x-transformers#143 (its warnings, then the error of its title)
    "/content/x_transformers/attend.py:168: UserWarning: Memory efficient kernel not used because: (Triggered "
    "internally at ../aten/src/ATen/native/transformers/cuda/sdp_utils.h:545.)\n"
    "  out = F.scaled_dot_product_attention(\n"
    "/content/x_transformers/attend.py:168: UserWarning: Memory Efficient attention has been runtime disabled. "
    "(Triggered internally at ../aten/src/ATen/native/transformers/cuda/sdp_utils.h:338.)\n"
    "  out = F.scaled_dot_product_attention(\n"
    "/content/x_transformers/attend.py:168: UserWarning: Flash attention kernel not used because: (Triggered "
    "internally at ../aten/src/ATen/native/transformers/cuda/sdp_utils.h:547.)\n"
    "  out = F.scaled_dot_product_attention(\n"
    "/content/x_transformers/attend.py:168: UserWarning: Both fused kernels do not support non-null attn_mask. "
    "(Triggered internally at ../aten/src/ATen/native/transformers/cuda/sdp_utils.h:191.)\n"
    "  out = F.scaled_dot_product_attention(\n"
    "Traceback (most recent call last):\n"
    '  File "/content/x_transformers/attend.py", line 168, in flash_attn\n'
    "    out = F.scaled_dot_product_attention(\n"
    "RuntimeError: No available kernel. Aborting execution.\n")
COMFY_SAM2_61 = (  # neverbiasu/ComfyUI-SAM2#61 (a Windows wheel)
    "UserWarning: Flash attention kernel not used because: (Triggered internally at C:\\actions-runner\\_work\\pytorch\\"
    "pytorch\\pytorch\\aten\\src\\ATen\\native\\transformers\\cuda\\sdp_utils.cpp:860.)\n"
    "UserWarning: Torch was not compiled with flash attention. (Triggered internally at C:\\actions-runner\\_work\\"
    "pytorch\\pytorch\\pytorch\\aten\\src\\ATen\\native\\transformers\\cuda\\sdp_utils.cpp:674.)\n"
    "RuntimeError: No available kernel. Aborting execution.\n")


def test_sdpa_no_kernel_causes_by_its_warnings(kb):
    r = explain_text(X_TRANSFORMERS_143, kb)
    f = r["findings"][0]
    assert r["root"] == "torch.sdpa_no_kernel" and f["family"] == "torch.usage"
    assert "attn_mask" in f["causes"][0]["text"] and f["causes"][0]["evidence"]
    f = explain_text(COMFY_SAM2_61, kb)["findings"][0]
    assert f["id"] == "torch.sdpa_no_kernel" and "not compiled with flash" in f["causes"][0]["text"]

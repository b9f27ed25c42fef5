"""Slurm knowledge generated from Slurm's source (tools/gen_slurm_{errors,reasons,messages}.py):
the tables say what a code or a pending reason means and what to do, normal pending reasons are
not errors, and real texts from public threads and Slurm's own documentation get the specific
entry and fix through the CLI (`gpudoctor explain`). The generators' regeneration from their recorded slices is in
tests/test_explain_generated.py (GENERATORS).
"""

import json
import os
import subprocess
import sys

import pytest
from explainhelp import assert_root, explain_cli, explain_paste
from gpudoctor.explain.knowledge import open_generated

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = os.path.join(REPO, "gpudoctor", "data", "knowledge", "generated")


def _committed(name):
    with open_generated(name) as f:
        return json.load(f)


def test_tables_carry_meaning_and_fix_and_pending_reasons_are_not_errors(kb):
    reasons = {s["text"]: s for s in _committed("slurm_reasons")["sites"]}
    # the normal pending reasons go to a warning entry: a note, never a root cause by itself
    for r in ("Priority", "Resources", "Prolog"):
        assert reasons[r]["family"] == "slurm.pending", r
    assert kb.by_id["slurm.pending"]["kind"] == "warning"
    # (slurm19) the reasons a job asks for itself: a warning of the same family, the answer only when alone
    for r in ("Dependency", "BeginTime", "JobHeldUser"):
        assert reasons[r]["family"] == "slurm.pending_requested", r
    e = kb.by_id["slurm.pending_requested"]
    assert e["kind"] == "warning" and e["family"] == "slurm.pending" and e["root_when_alone"]
    # limits say whether the job waits or never starts as it is
    assert "never starts" in reasons["QOSMaxCpuPerJobLimit"]["means"]
    assert "starts when" in reasons["QOSGrpJobsLimit"]["means"]
    for doc in (_committed("slurm_errors"), _committed("slurm_reasons"), _committed("slurm_messages")):
        for s in doc["sites"]:
            if s.get("fix"):
                assert s["family"] and s["means"].strip() and all(f.strip() for f in s["fix"]), s["id"]
    codes = {s["name"]: s for s in _committed("slurm_errors")["sites"]}
    assert "sinfo -s" in codes["ESLURM_INVALID_PARTITION_NAME"]["fix"][0]
    assert codes["ESLURM_REBOOT_IN_PROGRESS"]["family"] != "slurm.gres"  # 'PROGRESS' holds 'GRES'


# Real texts, each from a public thread or Slurm's documentation (cited), with the entry explain
# must name and what its first fix must say.
REAL = [
    # https://github.com/ComputationalRadiationPhysics/picongpu/issues/2931 (settled: the right --account)
    ("account", "sbatch: error: Batch job submission failed: Invalid account or account/partition combination "
     "specified", "slurm.account", r"sacctmgr show assoc user=\$USER.*|.*-A <ACCOUNT"),
    # https://github.com/AaltoSciComp/scicomp-docs/pull/792 (settled: the name sinfo -s prints)
    ("partition", "sbatch: error: invalid partition specified: gpu-v100-32GB\n"
     "sbatch: error: Batch job submission failed: Invalid partition name specified", "slurm.partition", r"sinfo -s"),
    # https://github.com/BLAST-WarpX/warpx/pull/3601 (settled: drop --ntasks-per-node=8)
    ("node-config", "sbatch: error: Batch job submission failed: Requested node configuration is not available",
     "slurm.node_config", r"sinfo -N .*%G %m %c %f.*--ntasks-per-node|--ntasks-per-node"),
    # https://github.com/firemodels/fds/issues/8639 (settled: a partition that allows that many nodes)
    ("node-count", "sbatch: error: Batch job submission failed: Node count specification invalid",
     "slurm.node_config", r"scontrol show partition .*nodes|-N"),
    # https://github.com/BLAST-WarpX/warpx/pull/3601 (a step asking for more CPUs than allowed; settled: drop -c 8)
    ("step-cpus", "srun: error: Unable to create step for job 238051: More processors requested than permitted",
     "slurm.node_config", r"--cpus-per-task"),
    # https://github.com/NVIDIA/NeMo-Framework-Launcher/issues/72
    ("gres", "OSError: sbatch: error: Batch job submission failed: Invalid generic resource (gres) specification",
     "slurm.gres", r"sinfo -o '%P %N %G'|--gres=gpu:"),
    # https://github.com/desihub/desitarget/issues/628 (settled: a partition whose limit allows it)
    ("time-invalid", "srun: error: Unable to allocate resources: Requested time limit is invalid (missing or exceeds "
     "some limit)", "slurm.qos_limit", r"sinfo -o '%P %l'"),
    # https://github.com/ZettaAI/zetta_utils/issues/671
    ("time-limit", "srun: Job step aborted: Waiting up to 47 seconds for job step to finish.\n"
     "slurmstepd: error: *** JOB 494583 ON ... CANCELLED AT 2024-04-20T09:09:37 DUE TO TIME LIMIT ***\n"
     "slurmstepd: error: *** STEP 494583.0 ON ... CANCELLED AT 2024-04-20T09:09:37 DUE TO TIME LIMIT ***",
     "slurm.time_limit", r"--time="),
    # https://github.com/chrisknewman/tusas/issues/149
    ("oom", "slurmstepd: error: Detected 1 oom_kill event in StepId=440575.0. Some of the step tasks have been OOM "
     "Killed.\nsrun: error: nid001277: tasks 1-3: Out Of Memory\nsrun: Terminating StepId=440575.0\n"
     "slurmstepd: error: *** STEP 440575.0 ON nid001277 CANCELLED AT 2023-12-05T07:16:01 ***",
     "slurm.oom", r"--mem"),
    # https://github.com/hafs-community/HAFS/issues/101 (Slurm before 23.02 worded it differently)
    ("oom-old", "slurmstepd: error: Detected 1 oom-kill event(s) in step 3495064.0 cgroup. Some of your processes "
     "may have been killed by the cgroup out-of-memory handler.\nsrun: error: Orion-01-01: task 4: Out Of Memory\n"
     "srun: Terminating job step 3495064.0\n"
     "slurmstepd: error: *** STEP 3495064.0 ON orion-01-01 CANCELLED AT 2021-10-27T19:35:36 ***",
     "slurm.oom", r"--mem"),
    # https://github.com/firelab/windninja/issues/624
    ("execve", "slurmstepd: error: execve(): mkdir: No such file or directory\n"
     "slurmstepd: error: execve(): mkdir: No such file or directory\n"
     "srun: error: bear-pg0104u25b: tasks 15-19: Exited with exit code 2", "slurm.job_env", r"which mkdir\b"),
    # https://github.com/snakemake/snakemake-executor-plugin-slurm/issues/225
    ("cpu-layout", "srun: error: JobId=125452 failed to distribute tasks (bind_type:threads,mask_cpu,one_thread) - "
     "this should never happen\nsrun: error: Task launch for StepId=125452.0 failed on node [NODENAME]: Unable to "
     "layout tasks on given cpus\nsrun: error: Application launch failed: Unable to layout tasks on given cpus\n"
     "srun: Job step aborted", "slurm.error", r"NumCPUs|--cpus-per-task|-c "),
    # https://github.com/mehta-lab/recOrder/issues/482 (an srun inside a job)
    ("mem-per", "srun: fatal: SLURM_MEM_PER_CPU, SLURM_MEM_PER_GPU, and SLURM_MEM_PER_NODE are mutually exclusive.",
     "slurm.error", r"SLURM_MEM_PER"),
    # https://github.com/pyiron/executorlib/pull/761 (srun --mpi=pmix where Slurm's plugin cannot load libpmix)
    ("pmix", "specific pmix plugin versions available: pmix_v5\n"
     "srun: error:  mpi/pmix_v5: init: (null) [0]: mpi_pmix.c:193: pmi/pmix: can not load PMIx library\n"
     "srun: error: Couldn't load specified plugin name for mpi/pmix: Plugin init() callback failed\n"
     "srun: error: MPI: Cannot create context for mpi/pmix\nsrun: error: MPI: Unable to load any plugin\n"
     "srun: error: Invalid MPI type 'pmix', --mpi=list for acceptable types", "slurm.mpi", r"mpi_pmix\*\.so|--mpi="),
    # https://github.com/SlinkyProject/slurm-bridge/issues/10 (squeue of a job held by a QOS limit)
    ("qos-pending", "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"
     "               282 slurm-bri      qos 0104test PD       0:00      1 (QOSGrpCpuLimit)",
     "slurm.qos_limit", r"sacctmgr show"),
]


@pytest.mark.parametrize("name,text,entry,fix", REAL, ids=[r[0] for r in REAL])
def test_real_slurm_texts_get_the_specific_entry_and_fix(cli, tmp_path, name, text, entry, fix):
    _, doc = explain_paste(cli, tmp_path, text + "\n", name="%s.log" % name, rcs=(0,))
    root = assert_root(doc, entry, verdict="root_cause", fix_re=fix)
    if entry == "slurm.error":  # the generic family, but the code's own fix: a cause, not a guess
        assert root["confidence"] == "cause"


def test_short_slurm_literals_need_a_slurm_line(cli, tmp_path):
    """A Slurm format whose literal is short (': unpack error', 'invalid key:', 'blocking=%d')
    matches only after a Slurm program's prefix or slurmd's log stamp, never in another program's
    line (torch's 'CUDA_LAUNCH_BLOCKING=1' was once read as a Slurm MPI error)."""
    log = tmp_path / "other.log"
    log.write_text("RuntimeError: CUDA error: device-side assert triggered\n"
                   "CUDA kernel errors might be asynchronously reported; consider passing CUDA_LAUNCH_BLOCKING=1\n"
                   "config.py: invalid key: 'lr_sheduler'\nroot host: 10.0.0.1\nmsgpack: unpack error\n")
    _, doc = explain_cli(cli, log)
    assert doc["findings"] and not [f["id"] for f in doc["findings"] if f["id"].startswith("slurm.")]
    log.write_text("slurmstepd: error:  mpi/pmix_v4: pmixp_coll_ring_log: gpu01 [0]: pmixp_coll_ring.c:742: "
                   "done contrib: gpu02\n")
    assert_root(explain_cli(cli, log)[1], "slurm.mpi")


def test_normal_pending_reasons_are_not_an_error(cli, tmp_path):
    # the EXAMPLES of squeue(1), doc/man/man1/squeue.1 (https://slurm.schedmd.com/squeue.html)
    log = tmp_path / "squeue.txt"
    log.write_text("$ squeue --jobs 12345,12346,12348\n"
                   " JOBID PARTITION NAME USER ST  TIME  NODES NODELIST(REASON)\n"
                   " 12345     debug job1 dave  R   0:21     4 dev[9-12]\n"
                   " 12346     debug job2 dave PD   0:00     8 (Resources)\n"
                   " 12348     debug job3 ed   PD   0:00     4 (Priority)\n")
    rc, doc = explain_cli(cli, log)
    assert rc == 0 and doc["verdict"] == "no_error" and not doc["findings"], doc["verdict"]


def test_the_installed_command_names_the_partition_fix(tmp_path):
    """The real console command, once (the other cases run the same CLI in this process)."""
    # https://github.com/nf-core/fetchngs/issues/343
    text = ("sbatch: error: invalid partition specified: pibu_el8\n"
            "sbatch: error: Batch job submission failed: Invalid partition name specified\n")
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "explain", text], capture_output=True, text=True,
                       timeout=60, cwd=REPO)
    assert p.returncode == 0, p.stderr
    assert "ROOT CAUSE  slurm.partition" in p.stdout and "sinfo -s" in p.stdout

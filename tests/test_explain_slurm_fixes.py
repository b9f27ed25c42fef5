"""A fix per Slurm message, not per family (issue 18): the user-facing sites of
tools/gen_slurm_messages.py (sbatch's script checks, srun/sbatch/salloc option checks, the step launch,
prologs, user lookup on the node, MPI plugins, task/cgroup, GPU request validation in
src/interfaces/gres.c) and the slurm_strerror codes of tools/gen_slurm_errors.py carry their own
`means` / `fix` (MSG_FIX / CODE_FIX, each written from the code that prints it and Slurm's man pages).
Every text in CASES is a real one from the public thread cited above it (none from the held-out sets: threads
that bench/data/explain_heldout_*.jsonl name are left out), or composed from the format where the thread shows a
screenshot, as its comment says;
each gets the cause its thread settled on as the first cause, with the concrete change (the option,
the command). The generators' regeneration from their slices is tests/test_explain_generated.py.
"""

import re

import pytest
from explainhelp import assert_root, generated_sites

from gpudoctor import explain


CASES = [
    # https://github.com/eth-cscs/firecrest/issues/185 (a script written on Windows; settled by the maintainer: convert
    # the line breaks). Its error is a screenshot: the lines are composed from src/sbatch/sbatch.c:701-702 as sbatch
    # prints them
    ("dos-line-breaks",
     "sbatch: error: Batch script contains DOS line breaks (\\r\\n)\n"
     "sbatch: error: instead of expected UNIX line breaks (\\n).\n",
     "slurm.error", "dos2unix"),
    # https://github.com/glotzerlab/signac-flow/issues/575 (a template put a tab before #!/bin/bash)
    ("no-shebang",
     "Submission error: Error when calling submission command sbatch:\n"
     "sbatch: error: This does not look like a batch script.  The first\n"
     "sbatch: error: line must start with #! followed by the path to an interpreter.\n"
     "sbatch: error: For instance: #!/bin/sh\n",
     "slurm.error", "#!/bin/bash"),
    # https://github.com/NVIDIA/deepops/issues/1102 (--gpu-bind=single:1 with Cores= in gres.conf; settled:
    # per_task is the binding that gives each task its GPUs)
    ("gpu-bind-single",
     "$ srun --nodes=1 --tasks=2 --gres=gpu:2 --gpu-bind=verbose,single:1  nvidia-smi -L\n"
     "slurmstepd: error: Bind request gpu:verbose,single:1 does not specify any devices within the allocation for "
     "task 0. Binding to the first device in the allocation instead.\n",
     "slurm.gres", "--gpu-bind=per_task"),
    # https://github.com/snakemake/snakemake-executor-plugin-slurm/issues/373 (settled: no --ntasks-per-gpu beside
    # the inherited SLURM_TRES_PER_TASK)
    ("ntasks-per-gpu",
     "srun: fatal: SLURM_TRES_PER_TASK is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU\n",
     "slurm.error", "--ntasks-per-gpu"),
    # https://github.com/apptainer/singularity/issues/5757 (users created on the head node only; settled: the compute
    # node must know them, sync passwd/group or a directory service there). coreutils' whoami line (src/whoami.c) with
    # srun beside it: slurm_user.toml
    ("uid-unknown-on-node",
     "$ srun  --pty bash\n\nbash-4.4$ singularity\n"
     "WARNING: Could not lookup the current user's information: user: unknown userid 551\n"
     "FATAL:   Couldn't determine user account information: user: unknown userid 551\n"
     "bash-4.4$ whoami\nwhoami: cannot find name for user ID 551\n",
     "slurm.user_unknown.node_lookup", "sssd"),
    # Older releases' wording (tools/gen_slurm_messages.py --older: sites with `until`). https://github.com/
    # ArjunaCluster/ArjunaUsers/issues/52 (a training job killed; Slurm 20.11's 'oom-kill event(s) in StepId=...
    # cgroup'; settled: more memory for the job)
    ("oom-kill-older-wording",
     "/var/spool/slurmd/job00191/slurm_script: line 28:  8156 Killed                  python3 main.py --prop hform "
     "--epochs 400\n"
     "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=191.batch cgroup. Some of your processes may have been "
     "killed by the cgroup out-of-memory handler.\n",
     "slurm.oom", "--mem=<more>"),
    # https://github.com/marbl/canu/issues/1849 (Slurm 19.05/20.02's 'in step <id> cgroup'; settled: the memory
    # request of the step)
    ("oom-kill-oldest-wording",
     "slurmstepd: error: Detected 1 oom-kill event(s) in step 41021041.batch cgroup. Some of your processes may have "
     "been killed by the cgroup out-of-memory handler.\n",
     "slurm.oom", "--mem=<more>"),
    # https://github.com/stackhpc/slurm-k8s-cluster/issues/39 (slurmd in a Kubernetes pod with cgroup/v2: no dbus
    # to ask for slurmstepd.scope; the thread's way out: no systemd/cgroup dependence in the configuration)
    ("cgroup-v2-no-dbus",
     "slurmd: error: cgroup_dbus_attach_to_scope: cannot connect to dbus system daemon: Failed to connect to socket "
     "/run/dbus/system_bus_socket: No such file or directory\n"
     "slurmd: error: _init_new_scope_dbus: scope and/or cgroup directory for slurmstepd could not be set.\n"
     "slurmd: error: Couldn't load specified plugin name for cgroup/v2: Plugin init() callback failed\n"
     "slurmd: error: cannot create cgroup context for cgroup/v2\n"
     "slurmd: error: Unable to initialize cgroup plugin\n"
     "slurmd: error: slurmd initialization failed\n",
     "slurm.cgroup", "IgnoreSystemd=yes"),
    # https://github.com/facebookresearch/LaViLa/issues/42 (the title: a site's job_submit rule, then Slurm's
    # 'Unspecified error', SLURM_ERROR; the rule is the line before)
    ("job-submit-rule",
     "submitit.core.utils.FailedJobError: sbatch: error: You must always specify a type when requesting gpu GRES\n"
     "sbatch: error: Batch job submission failed: Unspecified error\n",
     "slurm.error", "'error:' lines before this one"),
    # https://github.com/meta-pytorch/torchforge/issues/590 (a memory request sized for another cluster; settled:
    # ask for what the nodes have)
    ("mem-unsatisfiable",
     "sbatch: error: Memory specification can not be satisfied\n"
     "sbatch: error: Batch job submission failed: Requested node configuration is not available\n"
     "Traceback (most recent call last):\n"
     '  File "<frozen runpy>", line 198, in _run_module_as_main\n',
     "slurm.node_config", "sinfo -N -p <PARTITION> -o '%N %m'"),
    # https://github.com/meta-pytorch/torchforge/issues/590's lines without the traceback (srun/sbatch print
    # slurmctld's reason and then the code's text: two records, not one wrapped message)
    ("mem-unsatisfiable-two-lines",
     "sbatch: error: Memory specification can not be satisfied\n"
     "sbatch: error: Batch job submission failed: Requested node configuration is not available\n",
     "slurm.node_config", "1 means RealMemory is not set"),
    # https://github.com/silx-kit/jupyterhub_moss/issues/109 (the --mem value the form passed; settled: the value)
    ("mem-invalid",
     "sbatch: error: Invalid --mem specification\n",
     "slurm.error", "--mem=64G"),
    # https://github.com/dask/dask-jobqueue/issues/698 (--mem from the tool beside --mem-per-gpu of the user)
    ("mem-twice",
     "sbatch: fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.\n",
     "slurm.error", "keep one of --mem"),
]


@pytest.mark.parametrize("name,text,family,fix", CASES, ids=[c[0] for c in CASES])
def test_slurm_texts_get_their_own_fix(kb, name, text, family, fix):
    root = assert_root(explain.explain_text(text, kb), verdict="root_cause", entry=family, fix_re=re.escape(fix),
                       confidence="cause")
    # the message's own cause is the first one, with its line as evidence, before the family's generic causes
    assert root["causes"][0]["evidence"], root["causes"][0]


def test_user_facing_sites_carry_their_own_fix():
    """The messages a GPU user or admin meets: each assigned and with a fix of its own (not the family's)."""
    by_text = {s["text"]: s for s in generated_sites("slurm_messages")}
    for text in ("Batch script contains DOS line breaks (\\r\\n)",
                 "--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.",
                 "Failed to look up username for uid=%u, cannot continue with launch",
                 "%pI prolog failed status=%d:%d",
                 "Failed to validate job spec. --%ss-per-task or --tres-per-task used without either --%ss or "
                 "-n/--ntasks is not allowed.",
                 "Could not apply device constrain to step",
                 "*** %s ON %s CANCELLED AT %s DUE TO TIME LIMIT ***",
                 "Memory specification can not be satisfied", "Prolog failure on node %s"):
        site = by_text[text]
        assert site["family"] and site["means"] and site["fix"], site
    fixed = sum(1 for s in generated_sites("slurm_messages") if s.get("fix"))
    assert fixed >= 150, fixed
    codes = {s["name"]: s for s in generated_sites("slurm_errors")}
    for name in ("ESLURMD_PROLOG_FAILED", "ESLURMD_CREDENTIAL_EXPIRED", "SLURM_PROTOCOL_VERSION_ERROR",
                 "SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR"):
        assert codes[name].get("fix"), name


@pytest.mark.parametrize("text", [
    # https://github.com/llnl/smith/issues/688 (steps of one job that waited; settled: srun --overlap / SLURM_OVERLAP=1)
    "29: srun: Job 9479148 step creation still disabled, retrying (Requested nodes are busy)\n"
    "26: srun: Job 9479148 step creation still disabled, retrying (Requested nodes are busy)\n"
    "53: srun: Job 9479148 step creation temporarily disabled, retrying (Requested nodes are busy)\n",
    # https://github.com/fractal-analytics-platform/fractal-server/issues/2835 (many sruns in one job that ran: the
    # steps were created after the wait)
    "srun: Job 23547409 step creation temporarily disabled, retrying (Requested nodes are busy)\n"
    "srun: Job 23547409 step creation still disabled, retrying (Requested nodes are busy)\n"
    "srun: Step created for StepId=23547409.1\n",
], ids=["waiting", "waited-then-created"])
def test_a_step_waiting_for_resources_is_a_note_that_names_overlap(kb, text):
    """srun's info() while a step waits for resources another step holds: a job that ran fine prints it too, so it
    is a note (slurm.step_wait, kind warning) once srun says the step was created, and the note names srun --overlap;
    a text that ends while srun still retries, with nothing else failed, gets it as the answer (resolved_by,
    explain/waits.py), with the same fix."""
    doc = explain.explain_text(text, kb)
    if "Step created" not in text:
        assert doc["verdict"] == "root_cause" and doc["findings"][0]["id"] == "slurm.step_wait"
        assert "--overlap" in " ".join(doc["findings"][0]["causes"][0]["fix"])
        return
    assert doc["verdict"] == "no_error" and not doc["findings"], (doc["verdict"], [f["id"] for f in doc["findings"]])
    note = next(n for n in doc["context"] if n["id"] == "slurm.step_wait")
    assert "--overlap" in note["note"] and "--overlap" in note["fix"], note


def test_a_user_lookup_failure_without_slurm_in_sight_is_not_slurms():
    """coreutils' 'cannot find name for user ID' with no Slurm command or variable near it (a container run with a
    numeric --user prints it; the lines are composed from coreutils' src/whoami.c format and bash's prompt) is not
    slurm.user_unknown.node_lookup: the entry needs a Slurm line within 40 lines."""
    doc = explain.explain_text("I have no name!@b03998b4428d:/$ whoami\nwhoami: cannot find name for user ID 5000\n")
    assert "slurm.user_unknown.node_lookup" not in [f["id"] for f in doc["findings"]], doc["verdict"]


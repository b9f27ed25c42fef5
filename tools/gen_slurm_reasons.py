#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/slurm_reasons.json: Slurm's job state reasons, the
words squeue prints in NODELIST(REASON) and scontrol / sacct print as `Reason=...` (the
`enum job_state_reason` of slurm/slurm.h with its comments, and the job_state_reason_string
table `jsra[]` of src/common/job_state_reason.c), each with the knowledge family that says what to
do, assigned by the RULES table below from the enum name. Normal pending reasons (Priority,
Resources, Dependency, ...) go to slurm.pending, a warning entry: explain notes them and never
calls them an error by themselves.

Usage:
    python tools/gen_slurm_reasons.py --repo /path/to/slurm.git [--rev HEAD] [-o OUT]
    python tools/gen_slurm_reasons.py --slice tools/data/slurm_reasons_slice.txt -o OUT   (the test)

Source: SchedMD/slurm (https://github.com/SchedMD/slurm), slurm/slurm.h and
src/common/job_state_reason.c, read with `git show REV:path`; the meanings are documented at
https://slurm.schedmd.com/job_reason_codes.html.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_slurm_reasons.py"
SOURCE = "SchedMD/slurm (https://github.com/SchedMD/slurm) slurm/slurm.h, src/common/job_state_reason.c"
FILES = ("slurm/slurm.h", "src/common/job_state_reason.c")

# (rule, entry id, {"name": regex over the enum name, "reason": regex over the string}); the first
# rule that matches wins. Pending reasons that are part of normal scheduling -> slurm.pending.
# WAIT_ARRAY_TASK_LIMIT (JobArrayTaskLimit) is the array's own throttle, no QOS or association limit: slurmctld sets it
# when the array's running tasks reach array_recs->max_run_tasks (src/slurmctld/job_mgr.c job_array_start_test), the
# '%N' of sbatch --array=0-15%4 (doc/man/man1/sbatch.1) or scontrol's ArrayTaskThrottle (doc/man/man1/scontrol.1): the
# job asked for it, and a healthy array shows it on its pending tasks while N of them run.
# (slurm19) The three a job asks for itself - a --begin time (WAIT_TIME, BeginTime), a --dependency
# (WAIT_DEPENDENCY) and a user hold (WAIT_HELD_USER: sbatch --hold, scontrol hold) - hold it until the user's own
# condition is met, whatever the cluster does: slurm.pending_requested (family slurm.pending), the answer when
# nothing else in the text failed and the text never shows that job running (its fix says how to lift the condition).
RULES = [
    ("requested", "slurm.pending_requested", {"name": r"^WAIT_(TIME|DEPENDENCY|HELD_USER)$"}),
    ("normal", "slurm.pending", {"name": r"^WAIT_(PRIORITY|RESOURCES|PROLOG|CLEANING|RESERVATION|"
                                         r"LICENSES|BURST_BUFFER_STAGING|BURST_BUFFER_RESOURCE|FED_JOB_LOCK|"
                                         r"NVIDIA_IMEX_CHANNELS|MAX_POWERED_NODES|MPI_PORTS_BUSY|"
                                         r"ARRAY_TASK_LIMIT)$|^FAIL_DEFER$"}),
    # FAIL_LAUNCH (JobLaunchFailure) ends the job, it does not hold it: slurmctld sets it with the job FAILED when the batch
    # step's return code is a signal (22.05 src/slurmctld/job_mgr.c _job_complete) or with BOOT_FAIL (job_mgr.c
    # _job_fail); a launch failure that is held is WAIT_HELD_USER with 'launch failed requeued held' (wrong16)
    ("held", "slurm.held", {"name": r"^WAIT_HELD$|^WAIT_MAX_REQUEUE$"}),
    ("launch", "slurm.job_env", {"name": r"^FAIL_LAUNCH$"}),
    ("time", "slurm.time_limit", {"name": r"^FAIL_TIMEOUT$|^FAIL_DEADLINE$"}),
    ("oom", "slurm.oom", {"name": r"^FAIL_OOM$"}),
    ("node-down", "slurm.node_down", {"name": r"^WAIT_NODE_NOT_AVAIL$|^FAIL_DOWN_NODE$"}),
    ("constraints", "slurm.node_config", {"name": r"^FAIL_BAD_CONSTRAINTS$|^FAIL_CONSTRAINTS$"}),
    ("partition", "slurm.partition", {"name": r"^WAIT_PART_|^FAIL_DOWN_PARTITION$"}),
    ("account", "slurm.account", {"name": r"^FAIL_ACCOUNT$|^WAIT_ACCOUNT$"}),
    ("qos", "slurm.qos_limit", {"name": r"QOS|ASSOC|ACCOUNT_POLICY|PN_MEM_LIMIT"}),
    ("reservation", "slurm.reservation", {"name": r"^WAIT_RESV_(DELETED|INVALID)$"}),
    ("dependency", "slurm.error", {"name": r"^WAIT_DEP_INVALID$|^FAIL_SYSTEM$|"
                                           r"^FAIL_INACTIVE_LIMIT$|^FAIL_BURST_BUFFER_OP$"}),
]
# left unassigned on purpose: NonZeroExitCode and RaisedSignal say the program itself failed (its
# own output says why), and None is no reason.

# What a reason means and what to do, where its family's fix is not enough: enum name -> (means, [fix])
REASON_FIX = {
    # (slurm19) the reasons a job's own request sets: what lifts each, from sbatch(1) (--begin, --dependency, --hold)
    # and scontrol(1) (update StartTime= / Dependency=, release)
    "WAIT_TIME": (
        "Pending until its begin time (BeginTime): the job was submitted with --begin (sbatch(1): 'Submit the batch "
        "script to the Slurm controller immediately, like normal, but tell the controller to defer the allocation of "
        "the job until the specified time'), or its begin time was set later (scontrol update StartTime=, a requeue "
        "delay); scontrol show job prints it as EligibleTime= / StartTime=. It starts by itself at that time.",
        ["scontrol update JobId=<JOBID> StartTime=now   (run it now); for the next submission remove --begin from "
         "the #SBATCH lines or the sbatch command line",
         "scontrol show job <JOBID> | grep -E 'EligibleTime|StartTime'   (when it will start by itself)"]),
    "WAIT_DEPENDENCY": (
        "Pending until the job it depends on reaches the state the --dependency asks for (afterok: completed "
        "with exit code 0; afterany: ended; after: started; singleton: no other job of that name and user runs); "
        "scontrol show job prints the condition as Dependency=afterok:<id>(unfulfilled). It starts by itself then; if "
        "that job fails, the reason becomes DependencyNeverSatisfied.",
        ["to run it without waiting: scontrol update JobId=<JOBID> Dependency=   (an empty value drops the "
         "dependency); or wait for that job to end as the condition asks",
         "scontrol show job <JOBID> | grep Dependency   (the job it waits for); squeue -j <that job>   (its state)"]),
    # the normal reasons (slurm.pending, a note): what each waits for and what shortens the wait
    # (https://slurm.schedmd.com/job_reason_codes.html; squeue(1) --start; sprio(1); sbatch(1) --time-min)
    "WAIT_PRIORITY": (
        "Pending: jobs of higher priority are queued for the same partition or reservation (Priority); it starts "
        "when its turn comes, or earlier through backfill when it fits a gap.",
        ["squeue -j <JOBID> --start   (the start time Slurm expects); sprio -j <JOBID>   (its priority factors)",
         "a shorter --time (or --time-min) or a smaller request (--nodes, --gres) fits backfill gaps sooner"]),
    "WAIT_RESOURCES": (
        "Pending: the nodes, CPUs, memory or GPUs the job asks for are in use (Resources); it is next in line and "
        "starts when they are freed.",
        ["squeue -j <JOBID> --start; sinfo -p <PARTITION> -o '%P %a %D %T %G'   (what the partition has free)",
         "ask for what is free (fewer GPUs or nodes, a shorter --time) or another partition; a request larger than "
         "any node (--gres, --mem) never starts: compare with sinfo -N -o '%N %G %m %c'"]),
    "WAIT_LICENSES": (
        "Pending: the licenses the job asks for (-L/--licenses) are all in use (Licenses).",
        ["scontrol show licenses   (total and in use)", "wait, or ask for fewer licenses (-L name:count)"]),
    "WAIT_RESERVATION": (
        "Pending: the advanced reservation the job asked for (--reservation) is not active yet, or is full "
        "(Reservation).",
        ["scontrol show reservation   (its StartTime, nodes and users)",
         "wait for it to start, or scontrol update JobId=<JOBID> Reservation= to run outside it"]),
    "WAIT_PROLOG": (
        "Pending: the job's PrologSlurmctld is still running (Prolog).",
        ["scontrol show job <JOBID> | grep -E 'JobState|Reason'", "wait; if it stays, the admins' "
         "PrologSlurmctld (slurmctld's log)"]),
    "WAIT_CLEANING": (
        "Pending: the job was requeued and its previous run is still being cleaned up on the nodes (Cleaning).",
        ["scontrol show job <JOBID> | grep -E 'Restarts|NodeList'", "wait; a node that stays in COMPLETING: "
         "sinfo -R and the admins"]),
    "WAIT_HELD_USER": (
        "Held by its user: submitted with sbatch --hold (-H: 'Specify the job is to be submitted in a held state "
        "(priority of zero)') or held with scontrol hold / uhold. A held job never starts until it is released.",
        ["scontrol release <JOBID>   (it then pends for resources as usual); for the next submission drop --hold / "
         "-H from the #SBATCH lines or the sbatch command line"]),
    "WAIT_ARRAY_TASK_LIMIT": (
        "Pending: the job array's own throttle, the '%N' of --array (sbatch --array=0-7%2 runs at most 2 tasks at a "
        "time; squeue shows it in the array's id, '17_[2-5%2]'): the other tasks start as running ones end.",
        ["scontrol show job <JOBID> | grep ArrayTaskId   (ArrayTaskId=1-7%1: the throttle after '%')",
         "to run more at once: scontrol update jobid=<JOBID> ArrayTaskThrottle=<N> (0: no limit), or submit with a "
         "larger %N or none"]),
    "WAIT_NODE_NOT_AVAIL": (
        "Pending: a node the job needs (asked with -w, or every node that could run it) is not available. The text "
        "after the comma says why (squeue -o '%R'; slurmctld's node_scheduler.c): 'UnavailableNodes:<list>' names "
        "nodes that are down, drained or not responding; 'Reserved for maintenance' a maintenance reservation that "
        "overlaps the job's --time; 'May be reserved for other job' nodes reserved for others.",
        ["squeue -j <JOBID> -o '%R'   (the full reason); sinfo -R   (down/drained nodes and why); "
         "scontrol show reservation", "down nodes: drop -w/--nodelist or --exclude them; a reservation: a --time "
         "that ends before it starts, or wait"]),
    "FAIL_DOWN_NODE": (
        "A node of the job went down (NodeDown): the job failed or was requeued.",
        ["sacct -j <JOBID> -o JobID,State,NodeList", "resubmit with --exclude=<node>; admins: sinfo -R and the "
         "node's slurmd log"]),
    "WAIT_PART_TIME_LIMIT": (
        "Pending forever: --time is longer than the partition's MaxTime.",
        ["sinfo -o '%P %l'   (each partition's limit)", "scontrol update jobid=<JOBID> timelimit=<at most that> "
         "(or resubmit with a shorter --time or to another partition)"]),
    "WAIT_PART_NODE_LIMIT": (
        "Pending forever: --nodes is outside the partition's MinNodes..MaxNodes.",
        ["scontrol show partition <NAME> | grep -i nodes", "scontrol update jobid=<JOBID> numnodes=<within the "
         "limit> (or resubmit to a partition that allows it)"]),
    "WAIT_PART_DOWN": (
        "Pending: the partition is DOWN (it queues jobs but starts none).",
        ["sinfo -s", "scontrol update jobid=<JOBID> partition=<an UP partition>, or wait for the admins"]),
    "FAIL_DOWN_PARTITION": (
        "The partition is DOWN.",
        ["sinfo -s", "scontrol update jobid=<JOBID> partition=<an UP partition>, or wait for the admins"]),
    "WAIT_PART_INACTIVE": (
        "Pending: the partition is INACTIVE (it neither accepts nor starts jobs).",
        ["sinfo -s", "scontrol update jobid=<JOBID> partition=<an UP partition>"]),
    "WAIT_PART_CONFIG": (
        "Pending: the request does not fit the partition's configuration (its limits or nodes).",
        ["scontrol show partition <NAME>", "ask for what the partition allows, or another partition"]),
    "WAIT_HELD": (
        "Held by an administrator or by Slurm itself after a failed launch (scontrol show job: StateDesc / "
        "'launch failed requeued held').",
        ["scontrol show job <JOBID> | grep -E 'Reason|StateDesc'", "if the launch failed: the node's reason (sinfo "
         "-R) and the job's output; then scontrol release <JOBID> (an admin hold: ask the admins)"]),
    "WAIT_MAX_REQUEUE": (
        "Held after being requeued too many times (MaxBatchRequeue): its launch keeps failing.",
        ["sacct -j <JOBID> --duplicates -o JobID,State,NodeList,Reason", "fix the launch failure, then scontrol "
         "release <JOBID>"]),
    "FAIL_LAUNCH": (
        "The job ended at its launch on the node (JobState FAILED, or BOOT_FAIL): slurmstepd could not set it up - its "
        "-o/-e file could not be opened (Slurm 22.05's slurmstepd opens the path as given, so a directory that does not "
        "exist fails it, src/slurmd/slurmstepd/io.c 'Could not open stdout file'; newer releases create the path), "
        "its working directory or user environment, or the node failed to boot.",
        ["scontrol show job <JOBID> | grep -E 'StdOut|StdErr|WorkDir|StateDesc' (does each directory exist on the "
         "node?); mkdir -p the -o/-e directory before sbatch, or give paths on shared storage that exist",
         "sinfo -R (a node that failed to boot); admins: the node's slurmd log"]),
    "FAIL_BAD_CONSTRAINTS": (
        "The job's constraints (-C features, --gres, memory or CPUs per node) can never be met by the nodes of its "
        "partition.",
        ["sinfo -N -p <PARTITION> -o '%N %G %m %c %f'", "fix -C/--constraint, --gres, --mem, --cpus-per-task to what a "
         "node has"]),
    "FAIL_TIMEOUT": (
        "The job ran out of its time limit (--time).",
        ["sacct -j <JOBID> -o Elapsed,Timelimit", "sbatch --time=<longer, within sinfo -o '%P %l'>; checkpoint and "
         "resume"]),
    "FAIL_OOM": (
        "A task exceeded the job's memory and was OOM-killed (host memory, not GPU memory).",
        ["sacct -j <JOBID> -o ReqMem,MaxRSS", "sbatch --mem=<more> (or --mem-per-gpu / --mem-per-cpu)"]),
    "FAIL_ACCOUNT": (
        "The job's account is invalid for this user (no association).",
        ["sacctmgr show assoc user=$USER format=account,partition,qos", "scontrol update jobid=<JOBID> "
         "account=<ACCOUNT from that list>, or resubmit with -A"]),
    "WAIT_ACCOUNT": (
        "Pending: the account may not use this partition or QOS (AllowAccounts).",
        ["sacctmgr show assoc user=$USER format=account,partition,qos; scontrol show partition <NAME>",
         "-A <an account allowed there>, or another partition"]),
    "FAIL_QOS": (
        "The job's QOS is invalid for this user's association.",
        ["sacctmgr show assoc user=$USER format=account,qos", "scontrol update jobid=<JOBID> qos=<a QOS from that "
         "list>, or resubmit with --qos"]),
    "WAIT_QOS": (
        "Pending: the QOS is not allowed for this account or partition (QOSNotAllowed).",
        ["sacctmgr show assoc user=$USER format=account,qos; scontrol show partition <NAME> | grep -i qos",
         "--qos=<one your association and the partition allow>"]),
    "WAIT_QOS_MAX_GRES_PER_USER": (
        "Pending: the user's running jobs already hold the QOS's MaxTRESPerUser of GPUs (gres); this job starts when "
        "they end.",
        ["sacctmgr show qos <QOS> format=name,maxtrespu", "squeue -u $USER -t R   (what holds them)",
         "wait, ask for fewer GPUs (--gres/--gpus), or use a QOS with a larger limit (--qos)"]),
    "WAIT_QOS_MAX_GRES_PER_JOB": (
        "Pending forever: the job asks for more GPUs (gres) than the QOS's MaxTRESPerJob allows.",
        ["sacctmgr show qos <QOS> format=name,maxtrespj", "scontrol update jobid=<JOBID> ... fewer GPUs, or resubmit "
         "with --gres/--gpus within the limit or another --qos"]),
    "WAIT_QOS_MAX_WALL_PER_JOB": (
        "Pending forever: --time is longer than the QOS's MaxWall.",
        ["sacctmgr show qos <QOS> format=name,maxwall", "scontrol update jobid=<JOBID> timelimit=<within MaxWall>, "
         "or another --qos"]),
    "WAIT_QOS_MAX_JOB_PER_USER": (
        "Pending: the user already runs the QOS's MaxJobsPerUser jobs; this one starts when one ends.",
        ["sacctmgr show qos <QOS> format=name,maxjobspu", "wait, or pack the work into fewer jobs"]),
    "WAIT_QOS_GRP_GRES": (
        "Pending: all users of the QOS together hold its GrpTRES of GPUs; this job starts when some are freed.",
        ["sacctmgr show qos <QOS> format=name,grptres", "wait, or use another --qos"]),
    "WAIT_ASSOC_GRP_GRES": (
        "Pending: the account (association) together holds its GrpTRES of GPUs; this job starts when some are freed.",
        ["sacctmgr show assoc user=$USER format=account,grptres", "squeue -A <ACCOUNT>   (who holds them)",
         "wait, or use another account (-A) with GPUs left"]),
    "WAIT_ASSOC_GRP_CPU": (
        "Pending: the account (association) together holds its GrpTRES of CPUs.",
        ["sacctmgr show assoc user=$USER format=account,grptres", "wait, or use another account (-A)"]),
    "WAIT_ASSOC_MAX_JOBS": (
        "Pending: the user's association already runs its MaxJobs.",
        ["sacctmgr show assoc user=$USER format=account,maxjobs", "wait for one to end"]),
    "WAIT_ACCOUNT_POLICY": (
        "Pending: a limit of the QOS or association holds the job (AccountingPolicy).",
        ["sacctmgr show assoc user=$USER format=account,qos,grptres,maxtres,maxjobs; sacctmgr show qos",
         "ask for less (--time, --gres, --nodes) or another --qos / -A"]),
    # gap14 (issue 18): the reasons that end a job or keep it pending for good and had only their family's generic
    # words, from https://slurm.schedmd.com/job_reason_codes.html and the sbatch / slurm.conf man pages they name
    "WAIT_DEP_INVALID": (
        "Pending forever: the job's --dependency can never be satisfied (job_reason_codes: DependencyNeverSatisfied): "
        "the job it waits for ended in a state the condition excludes (afterok: that job failed, was cancelled or "
        "timed out; afternotok: it succeeded), or names a job that does not exist. Slurm does not start or cancel it "
        "unless SchedulerParameters has kill_invalid_depend.",
        ["scontrol show job <JOBID> | grep -i dependency   (the condition and the job it names, e.g. "
         "afterok:1234(failed)); sacct -j <that job> -o JobID,State,ExitCode",
         "fix and rerun the job it depends on, then point this one at the new job: scontrol update jobid=<JOBID> "
         "dependency=afterok:<new job id>; or scancel <JOBID> and resubmit (afterany: start whatever the other job's "
         "state; sbatch --kill-on-invalid-dep=yes makes Slurm cancel such a job itself)"]),
    "FAIL_SYSTEM": (
        "The job ended because of a failure outside it (job_reason_codes: SystemFailure: Slurm itself, a file system, "
        "the network): not the program's own error.",
        ["sacct -j <JOBID> -o JobID,State,ExitCode,NodeList,Reason; sinfo -R   (the nodes' reasons)",
         "resubmit (sbatch --requeue lets Slurm do it); if it repeats on the same nodes: --exclude=<node> and tell the "
         "admins (slurmctld / slurmd logs)"]),
    "FAIL_INACTIVE_LIMIT": (
        "The job was ended after its srun or salloc stopped answering the controller for longer than slurm.conf's "
        "InactiveLimit (job_reason_codes: InactiveLimit): the terminal or login session that ran it closed, "
        "or the client hung or lost the network.",
        ["scontrol show config | grep -i InactiveLimit",
         "run the work as a batch job (sbatch), or keep the interactive client alive (tmux / screen on the login "
         "node, nohup srun ...) for the job's whole run"]),
    "FAIL_BURST_BUFFER_OP": (
        "A burst buffer operation of the job failed (job_reason_codes: BurstBufferOperation): its stage-in, stage-out "
        "or allocation (#BB / #DW directives, the burst buffer plugin).",
        ["scontrol show burst; scontrol show job <JOBID> | grep -i burst",
         "check the job's #BB / #DW lines (paths, sizes, the pool); resubmit; if it repeats, the admins (the plugin's "
         "log in slurmctld's)"]),
    "FAIL_DEADLINE": (
        "The job's --deadline came before it could run to the end (job_reason_codes: DeadLine): Slurm removes a job "
        "that can no longer finish by its deadline.",
        ["scontrol show job <JOBID> | grep -E 'Deadline|TimeLimit|StartTime'",
         "a later --deadline, or a shorter --time (or --time-min) that fits before it; drop --deadline if the job "
         "may end late"]),
    "WAIT_RESV_DELETED": (
        "Pending: the reservation the job asked for (--reservation) no longer exists (job_reason_codes: "
        "ReservationDeleted).",
        ["scontrol show reservation   (the reservations that exist now)",
         "scontrol update jobid=<JOBID> reservation=<an existing one> (or reservation= with no name to run outside "
         "any), or scancel and resubmit"]),
    "FAIL_CONSTRAINTS": (
        "Pending: no node can satisfy the job's -C/--constraint features now (job_reason_codes: Constraints): the "
        "nodes that have them are down, drained or used, or the combination of features (&, |, counts) matches too "
        "few of them.",
        ["sinfo -N -o '%N %f %T'   (each node's features and state); scontrol show job <JOBID> | grep -i features",
         "loosen -C (fewer features, | instead of &) or wait for the nodes that have them; an admin resumes a drained "
         "node"]),
}


LIMITS_SHOW = ("sacctmgr show assoc user=$USER format=account,qos,grptres,maxtres,maxjobs,maxwall; sacctmgr show qos "
               "format=name,grptres,maxtrespu,maxtrespj,maxwall,maxjobspu   (the limit named by the reason)")


def parse_enum(text):
    """[(name, comment)] of enum job_state_reason (slurm/slurm.h), in order."""
    m = re.search(r"enum job_state_reason \{(.*?)\n\};", text, re.S)
    body = m.group(1) if m else ""
    out = []
    for name, rest in re.findall(r"^\s*([A-Z][A-Z0-9_]+)\s*(?:=\s*\d+\s*)?,([^\n]*(?:\n\s*\*[^\n]*)*)", body, re.M):
        c = re.search(r"/\*(.*?)(?:\*/|$)", rest, re.S)
        comment = " ".join(re.sub(r"^\s*\*", " ", c.group(1), flags=re.M).split()) if c else ""
        out.append((name, comment))
    return out


def parse_table(text):
    """{enum name: reason string} of jsra[] (src/common/job_state_reason.c)."""
    return {n: re.search(r'\.str\s*=\s*"([^"]*)"', b).group(1)
            for n, b in re.findall(r"\[(\w+)\]\s*=\s*\{([^}]*)\}", text) if '.str' in b}


def build(enum, table, version):
    comments = dict(enum)
    sites, seen = [], set()
    for name, _ in enum:
        reason = table.get(name)
        if not reason or reason == "None" or name.startswith("DEFUNCT"):
            continue
        key = (reason, name)
        seen.add(key)
        # squeue: '(Priority)', '(ReqNodeNotAvail, UnavailableNodes:...)'; scontrol/sacct: 'Reason=Priority'.
        # After '(' the reason ends at ')' or ',': Open MPI's 'component disqualified: self (priority -1 < 0)'
        # is no pending job
        # and refused at submission: slurmctld's job_mgr.c puts job_state_reason_string() of the limit in the
        # reply's err_msg (ESLURM_ACCOUNTING_POLICY) and the client prints it at LOG_LEVEL_ERROR
        # (src/common/slurm_protocol_pack.c, _unpack_return_code2_msg): 'sbatch: error: QOSMaxSubmitJobPerUserLimit'
        rx = r"(?:Reason=%s(?![A-Za-z])|\(%s(?=[),])|(?:sbatch|srun|salloc): error: %s[ \t]{0,8}$)" % (
            re.escape(reason), re.escape(reason), re.escape(reason))
        rule, family = knowgen.assign(RULES, None, {"name": name, "reason": reason})
        site = {"id": "slurm.reason.%s" % name.lower(), "name": name, "text": reason,
                "comment": comments.get(name, ""), "re": rx, "family": family, "rule": rule}
        if name in REASON_FIX:
            site["means"], site["fix"] = REASON_FIX[name][0], list(REASON_FIX[name][1])
        elif family == "slurm.qos_limit" and comments.get(name):
            # the enum's own comment says which limit; its kind says whether waiting helps
            forever = re.search(r"PER_JOB|PER_NODE|MIN_|MINS_PER_JOB|^WAIT_QOS$", name[5:])
            site["means"] = "Pending (or refused at submission): %s (%s)%s." % (comments[name].rstrip("."), reason,
                                                    ": the job never starts as it is" if forever else
                                                    ": the job starts when usage under that limit drops")
            minimum = "_MIN_" in name
            site["fix"] = ["sacctmgr show qos format=name,mintres   (MinTRESPerJob: the least a job of that QOS must ask "
                           "for)" if minimum else LIMITS_SHOW, "ask for at least the QOS's minimum (MinTRESPerJob: more CPUs/GPUs/nodes) or use "
                           "a QOS without it (--qos); scontrol update jobid=<JOBID> ... changes a pending job" if minimum
                           else "ask for less (--time, --gres/--gpus, --nodes, --mem) or use a QOS/account "
                           "with a larger limit (--qos, -A); scontrol update jobid=<JOBID> ... changes a pending job"
                           if forever else "wait for your (or your account's) running jobs to end, or use a "
                           "QOS/account with room (--qos, -A)"]
        sites.append(site)
    return {"header": knowgen.header(SOURCE, version, GENERATOR,
                                     "job state reasons (enum job_state_reason and jsra[]); families from the RULES "
                                     "table of the generator"), "sites": sites}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    return knowgen.tree_files(git, rev, FILES, lambda p: True), knowgen.slurm_release(git, rev)


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="HEAD")
    files, version = knowgen.source_files(a, from_repo)
    texts = {}
    for path, text in files:  # a slice may hold a file in several parts (each at its own line)
        texts[path] = texts.get(path, "") + text
    enum, table = parse_enum(texts.get(FILES[0], "")), parse_table(texts.get(FILES[1], ""))
    stale = sorted(set(REASON_FIX) - set(table))
    if a.repo and stale:  # a reason renamed or removed upstream: its fix must be moved by hand
        a.error("REASON_FIX names reasons this revision does not have: %s" % ", ".join(stale))
    return knowgen.emit("slurm_reasons", build(enum, table, version), a.out, "reasons")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

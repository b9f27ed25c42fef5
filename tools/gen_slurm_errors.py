#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/slurm_errors.json: Slurm's user-facing error texts,
the slurm_strerror table (src/common/slurm_errno.c: every SLURM_* / ESLURM* code and its
description, which sbatch / srun / salloc print after "error: ... failed: " when the controller
refuses a request), each with the knowledge family that says what a user or an admin does about
it (RULES below, by the code's name).

Usage:
    python tools/gen_slurm_errors.py --repo /path/to/slurm.git [--rev HEAD] [-o OUT]
    python tools/gen_slurm_errors.py --slice tools/data/slurm_errno_slice.c -o OUT   (the test)

Source: SchedMD/slurm (https://github.com/SchedMD/slurm), src/common/slurm_errno.c, read with
`git show REV:path`; and, for the codes of a job that is accepted but only queues, src/slurmctld/job_mgr.c's
job_allocate() (its "Non-fatal error, but job can't be scheduled right now" list, less the codes it turns into
success for a queued job) with src/api/allocate.c, where srun and salloc print that code's text at info level
('srun: Partition in DOWN state', then 'srun: job N queued and waiting for resources'): those codes match
'srun: <text>' / 'salloc: <text>' as a line of its own too. A slice holds the table, then the two excerpts.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_slurm_errors.py"

# (rule, entry id, {"name": regex over the code's name, "text": regex over its description})
RULES = [
    # the node reason 'Kill task failed': processes that outlived UnkillableStepTimeout, not a request
    ("unkillable", "slurm.unkillable", {"name": r"^ESLURMD_KILL_TASK_FAILED$"}),
    ("prolog", "slurm.prolog", {"name": r"PROLOG|EPILOG"}),
    # before 'auth' (RESERVATION_USER_GROUP) and 'node' (INVALID_CORE_CNT: a reservation's node list)
    ("reservation", "slurm.reservation", {"name": r"RESERVATION|_RSV_|^ESLURM_INVALID_CORE_CNT$"}),
    ("user", "slurm.user_unknown", {"name": r"USER_ID|GROUP_ID|INVALID_UID|USER_UNKNOWN|UID_NOT|_UID\b|BAD_USER"}),
    ("user-text", "slurm.user_unknown", {"text": r"\buser\b.*\b(unknown|not known|missing|invalid)|Invalid user"}),
    ("time", "slurm.time_limit", {"name": r"TIMEOUT_KILLED"}),
    ("node-down", "slurm.node_down", {"name": r"NODE_FAIL|NODE_NOT_AVAIL|NODE_FAILURE"}),
    ("workdir", "slurm.job_env", {"name": r"EXECVE|WORK_DIR|BATCH_DIR|SETUP_ENVIRONMENT|ENVIRONMENT_MISSING"}),
    ("gres", "slurm.gres", {"name": r"(?:^|_)(?:GRES|TRES)(?:_|$)|CORES_PER_GPU"}),
    ("partition", "slurm.partition", {"name": r"PARTITION|_PART_"}),
    ("account", "slurm.account", {"name": r"ACCOUNT(?!ING)|ASSOC|WCKEY"}),
    # before 'qos' (LIMIT in its name): src/slurmctld/job_mgr.c returns it where the job's own --time-min exceeds the
    # partition's MaxTime, its --time or its --deadline (_valid_job_part 'job's min time
    # greater than partition's', 'job's min_time greater time limit', 'job's min_time exceeds the deadline'): the
    # request's time options conflict, no QOS or accounting limit (wrong16)
    ("time-min", "slurm.error", {"name": r"^ESLURM_INVALID_TIME_MIN_LIMIT$"}),
    ("qos", "slurm.qos_limit", {"name": r"QOS|ACCOUNTING_POLICY|LIMIT|TIME_LIMIT|_HELD|JOB_HELD|MAX_|BURST_BUFFER_PERM"}),
    ("auth", "slurm.auth", {"name": r"AUTH|MUNGE|CRED|SIGNATURE|ACCESS_DENIED|USER_GROUP"}),
    ("comm", "slurm.communication", {"name": r"COMMUNICATIONS|PROTOCOL|SOCKET_IMPL|SOCKET_ZERO|TIMEOUT|_CONNECTION|"
                                             r"CONTROLLER|DB_CONNECTION|IN_STANDBY|SLURMCTLD|SLURMDBD"}),
    ("node", "slurm.node_config", {"name": r"NODE|CONFIG_UNAVAIL|NODES_BUSY|CPU_COUNT|_TASK|INVALID_NODE|"
                                           r"FEATURE|CONSTRAINT|REQUESTED_|TOO_MANY_REQUESTED|BAD_DIST|"
                                           r"CORE_CNT|SOCKET|THREAD|MEM|NOT_SUPPORTED"}),
    ("job", "slurm.error", {"name": r"^(ESLURM|ESLURMD|ESCRIPT|ESPANK|SLURM_)"}),
]

# What one code means and what to do, where the family's general fix is not enough (the held-out
# misses were answers like "adjust the options the message names"): code name -> (means, [fix]).
# The meanings follow the code's use in Slurm's source (slurmctld's job_mgr.c / node_scheduler.c
# return them) and the sbatch / sacctmgr / slurm.conf man pages cited in the entries.
CODE_FIX = {
    "ESLURM_INVALID_PARTITION_NAME": (
        "The partition named with -p/--partition (or SBATCH_PARTITION, or the script's #SBATCH -p) does not exist "
        "on this cluster (or is hidden from this user).",
        ["sinfo -s   (lists the partitions; the default one has a '*')", "sbatch -p <NAME from sinfo -s> ...  "
         "(fix #SBATCH -p / --partition, and unset SBATCH_PARTITION / SLURM_PARTITION if they name an old one)"]),
    "ESLURM_DEFAULT_PARTITION_NOT_SET": (
        "No partition was given and the cluster has no default partition (Default=YES in slurm.conf).",
        ["sinfo -s   (the partitions)", "sbatch -p <NAME> ... (or #SBATCH -p <NAME>)"]),
    "ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP": (
        "The partition exists but only the groups in its AllowGroups may use it.",
        ["scontrol show partition <NAME> | grep -i allow   (AllowGroups/AllowAccounts)",
         "pick a partition your groups may use (id -Gn), with -p <NAME>; or ask the admins for access"]),
    "ESLURM_REQUESTED_NODES_NOT_IN_PARTITION": (
        "The nodes named with -w/--nodelist are not in the job's partition.",
        ["sinfo -p <PARTITION> -N   (its nodes)", "drop -w/--nodelist, or pick the partition those nodes are in (-p)"]),
    "ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE": (
        "The request does not fit the partition's limits (MaxNodes, MaxTime, MaxCPUsPerNode, MaxMemPerNode) or its "
        "nodes now.",
        ["scontrol show partition <NAME>   (MaxNodes, MaxTime, MaxMemPerNode)",
         "ask for less (--nodes, --time, --mem) or another partition (-p)"]),
    "ESLURM_PARTITION_NOT_AVAIL": (
        "The partition is inactive or drained: it accepts no new jobs now.",
        ["sinfo -s   (State of each partition)", "submit to an UP partition (-p <NAME>), or wait for the admins"]),
    "ESLURM_PARTITION_DOWN": (
        "The partition is DOWN: jobs queue but none starts.",
        ["sinfo -s   (State)", "use another partition (-p <NAME>) or wait until the admins set it UP (an admin: "
         "scontrol update partitionname=<NAME> state=up, scontrol(1))"]),
    "ESLURM_INVALID_ACCOUNT": (
        "There is no association for this user with the account named by -A/--account (or the user's default "
        "account) on this partition: the account name is wrong, or the user/partition is not in it.",
        ["sacctmgr show assoc user=$USER format=cluster,account,partition,qos   (the accounts and partitions you "
         "may use)", "sbatch -A <ACCOUNT from that list> -p <a partition of that account> ...; or ask the admins to "
         "add the association"]),
    "ESLURM_INVALID_ASSOC": (
        "The user/account/partition combination has no association in the accounting database.",
        ["sacctmgr show assoc user=$USER format=account,partition,qos", "sbatch -A <ACCOUNT> -p <PARTITION> from "
         "that list, or ask the admins to add the association"]),
    "ESLURM_INVALID_QOS": (
        "The QOS named by --qos does not exist or is not allowed for this user's association.",
        ["sacctmgr show assoc user=$USER format=account,partition,qos   (the QOS you may use)",
         "sacctmgr show qos format=name,maxwall,maxtrespu,maxjobspu", "sbatch --qos=<a QOS from your association> ..."]),
    "ESLURM_ACCOUNTING_POLICY": (
        "The job exceeds a limit of its QOS or association (MaxWall, MaxTRESPerJob/PerUser such as GPUs or nodes, "
        "MaxSubmitJobs) and the cluster rejects such jobs at submission (AccountingStorageEnforce=limits/safe).",
        ["sacctmgr show assoc user=$USER format=account,qos,maxjobs,maxsubmit,maxtres,maxwall",
         "sacctmgr show qos format=name,maxwall,maxtrespu,maxtrespj,maxjobspu,maxsubmitpu",
         "ask for less (--time, --gres/--gpus, --nodes) or a QOS/account whose limits allow it (--qos, -A)"]),
    "ESLURM_INVALID_TIME_LIMIT": (
        "--time exceeds the partition's MaxTime (or the QOS MaxWall), or is missing where one is required.",
        ["sinfo -o '%P %l'   (each partition's time limit)", "sbatch --time=<at most that> ... (or a partition "
         "or --qos with a longer limit)"]),
    "ESLURM_INVALID_TIME_MIN_LIMIT": (
        "--time-min is larger than the job's own --time, than the partition's MaxTime, or than the time left before "
        "its --deadline (src/slurmctld/job_mgr.c): the request's time options conflict.",
        ["lower --time-min to at most --time (and the partition's MaxTime from sinfo -o '%P %l'), or raise --time; "
         "with --deadline, a --time-min that fits before it"]),
    "ESLURM_MISSING_TIME_LIMIT": (
        "This cluster requires every job to give --time.",
        ["sinfo -o '%P %l'   (the limits)", "sbatch --time=HH:MM:SS ..."]),
    "ESLURM_QOS_THRES": (
        "The account used up its QOS usage threshold (UsageThreshold): its jobs wait or are refused.",
        ["sshare -U   (your usage)", "use another account or QOS (-A, --qos), or ask the admins"]),
    "ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE": (
        "No node of the partition can ever give what one node is asked for: --gres/--gpus per node, --mem, "
        "--cpus-per-task x --ntasks-per-node, or a -C/--constraint feature no node has.",
        ["sinfo -N -p <PARTITION> -o '%N %c %m %G %f'   (per node: CPUs, memory MB, GRES, features)",
         "compare with the job's --gres/--gpus-per-node, --mem, --cpus-per-task x --ntasks-per-node and -C: ask for "
         "what a node has (or another partition, -p). GPUs: --gres=gpu:N and --gpus-per-node=N count per node (8 on "
         "nodes with 4 GPUs never fits), --gpus=N counts for the whole job (Slurm spreads it over -N nodes)",
         # src/stepmgr/stepmgr.c _pick_step_nodes: a step's node list that node_name2bitmap cannot read (not Slurm's
         # node names) or that is not a subset of the job's nodes ends in this code
         "after 'Unable to create step for job' (srun inside an allocation): the step asks for what the job's "
         "allocation does not have: -w/--nodelist names that are not Slurm node names of this job (compare with "
         "scontrol show hostnames \"$SLURM_JOB_NODELIST\": short names, not FQDNs; one name per -w for a one-node "
         "step), or more -N/-n, CPUs, memory or GPUs than the allocation holds"]),
    "ESLURM_INVALID_TASK_MEMORY": (
        "--mem / --mem-per-cpu asks for more memory than a node of the partition has (or MaxMemPerNode allows).",
        ["sinfo -N -p <PARTITION> -o '%N %m'   (memory per node, MB)", "lower --mem/--mem-per-cpu/--mem-per-gpu"]),
    "ESLURM_TOO_MANY_REQUESTED_CPUS": (
        "The job asks for more CPUs than the partition or a node permits; for a step ('Unable to create step'), "
        "more than the job's allocation holds (srun inherits -c/--ntasks-per-node from sbatch).",
        ["sinfo -N -p <PARTITION> -o '%N %c'   (CPUs per node); inside a job: scontrol show job $SLURM_JOB_ID | "
         "grep NumCPUs", "lower --cpus-per-task / --ntasks-per-node / -n (for a step: within the allocation)"]),
    "ESLURM_INVALID_FEATURE": (
        "-C/--constraint names a feature no node of the partition has (or the expression is malformed).",
        ["sinfo -o '%N %f'   (the features each node has)", "fix -C/--constraint to one of those"]),
    "ESLURM_NODES_BUSY": (
        "The nodes asked for are in use and the request cannot wait (--immediate, or a step that cannot get them "
        "within its allocation).",
        ["squeue -w <nodes>   (who has them)", "drop --immediate / -w, or wait; inside an allocation ask for no more "
         "than it holds (srun --overlap for a step beside a running one)"]),
    "ESLURM_INVALID_NODE_NAME": (
        "A node name Slurm does not know: a typo in -w/--nodelist/--exclude, or (in 'Task launch ... failed on node "
        "X') a node whose slurm.conf differs from the controller's or whose own name does not resolve.",
        ["sinfo -N   (the node names)", "fix -w/--exclude; admins: the same slurm.conf on every node, "
         "NodeName/NodeHostname as `hostname -s` prints, then restart slurmd"]),
    "ESLURM_NODE_NOT_AVAIL": (
        "A node the job requires is down, drained or reserved.",
        ["sinfo -R   (down/drained nodes and why)", "drop that node from -w/--nodelist (or --exclude it); admins: "
         "scontrol update nodename={$node|<node>} state=resume once it is healthy"]),
    "ESLURM_INVALID_GRES": (
        "The --gres / --gpus specification names a GRES or type the cluster does not define (gpu:a100 where nodes "
        "say gpu:nvidia_a100), or is malformed.",
        ["sinfo -o '%P %N %G'   (the GRES names and types each node has)",
         "--gres=gpu:N or --gres=gpu:<TYPE>:N with a TYPE from that list (or --gpus-per-node=N); admins: "
         "GresTypes=gpu in slurm.conf and Gres= on the node lines",
         # srun(1)/sbatch(1) INPUT ENVIRONMENT VARIABLES: a command run inside a job reads the job's SLURM_GPUS_*,
         # SLURM_TRES_PER_TASK ... (sbatch's OUTPUT ENVIRONMENT VARIABLES) as if given on its command line
         "run from inside another job (a shell on a GPU node)? srun/sbatch read that job's SLURM_GPUS_* / "
         "SLURM_TRES_PER_TASK / SBATCH_* variables as options: env | grep -E '^S(LURM|BATCH)_(GPU|TRES|GRES)', unset "
         "them, or submit from a login node"]),
    "ESLURM_INVALID_GRES_TYPE": (
        "The GRES is asked for both with and without a type in one job (gpu:2 and gpu:a100:1).",
        ["sinfo -o '%G'", "use one form: --gres=gpu:<TYPE>:N everywhere, or gpu:N everywhere"]),
    "ESLURM_DUPLICATE_GRES": (
        "The same GRES is named twice in --gres / --gpus* options.",
        ["give the GPUs once: --gres=gpu:N or --gpus-per-node=N, not both"]),
    "ESLURM_INSUFFICIENT_GRES": (
        "A step asks for more GRES (GPUs) than the job's allocation holds.",
        ["scontrol show job $SLURM_JOB_ID | grep -i tres   (what the job has)",
         "srun --gres/--gpus at most the allocation's, or allocate more with sbatch --gres=gpu:N"]),
    "ESLURM_UNSUPPORTED_GRES": (
        "A --gpus* / --mem-per-gpu option needs SelectType=select/cons_tres, which this cluster does not use.",
        ["use --gres=gpu:N instead of --gpus*/--mem-per-gpu; admins: SelectType=select/cons_tres"]),
    "ESLURM_INVALID_TRES": (
        "A TRES in --tres-per-task / --gres / a limit is not one the cluster tracks (AccountingStorageTRES).",
        ["sacctmgr show tres   (the tracked TRES)", "name them as listed (gres/gpu, gres/gpu:<type>)"]),
    "ESLURM_JOB_NODE_FAIL_KILLED": (
        "A node of the job failed (stopped answering the controller), so Slurm killed the job.",
        ["sacct -j <JOBID> -o JobID,State,NodeList   (which node)", "resubmit with --exclude={$node|<node>} (or --requeue); "
         "admins: sinfo -R, the node's slurmd log and dmesg"]),
    "ESLURM_JOB_TIMEOUT_KILLED": (
        "The job reached its wall-clock limit (--time) and Slurm killed it.",
        ["sinfo -o '%P %l'   (the partition's limit)", "sbatch --time=<longer, within the limit>; checkpoint and "
         "resubmit (--signal=B:USR1@300 to save before the kill)"]),
    "ESLURM_USER_ID_UNKNOWN": (
        "The controller or a node cannot turn the job's uid into a user name: the user is missing from the "
        "passwd/LDAP/SSSD view of that host.",
        ["getent passwd <user> on the controller and on the job's nodes", "admins: make the user resolvable "
         "everywhere (sssd/nslcd running, same directory), then resubmit"]),
    "ESLURMD_EXECVE_FAILED": (
        "slurmd could not start the job's program on the node: the path does not exist there, is not executable, "
        "or its interpreter (#!) is missing on the node.",
        ["srun -N1 -w <node> ls -l <program>   (is it there and executable?)", "use a path on a shared filesystem "
         "(or load the module/env in the script); chmod +x; fix the #! line"]),
    "ESLURMD_CREATE_BATCH_DIR_ERROR": (
        "slurmd could not write the batch script into its SlurmdSpoolDir on the node (full, read-only, wrong owner).",
        ["admins: df -h and ls -ld SlurmdSpoolDir (scontrol show config | grep SlurmdSpoolDir) on the node; drain it "
         "until fixed"]),
    "ESLURM_MISSING_WORK_DIR": (
        "The job has no working directory (the submitting shell's cwd was deleted or is not readable).",
        ["cd to an existing directory, or sbatch -D/--chdir=<dir on a shared filesystem>"]),
    "SLURM_PROTOCOL_SOCKET_ZERO_BYTES_SENT": (
        "The other end closed the connection without an answer: usually slurmd/slurmctld rejected the message "
        "(munge key or Slurm version differs) or died.",
        ["scontrol ping; scontrol show node <node>", "admins: munge -n | ssh <node> unmunge; the same Slurm version "
         "on client and daemons (sinfo -V; slurmd -V); the daemon's log"]),
    "SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT": (
        "A Slurm command or daemon waited for an answer longer than MessageTimeout: the controller is overloaded "
        "or a node is unreachable.",
        ["scontrol ping; sdiag   (controller load)", "retry; admins: MessageTimeout, slurmctld load, the network"]),
    "ESLURM_INVALID_NODE_COUNT": (
        "-N/--nodes asks for more nodes than the partition allows (MaxNodes) or has, or a range min > max.",
        ["sinfo -p <PARTITION> -o '%P %D %l'   (its node count); scontrol show partition <PARTITION> | grep -i "
         "nodes", "ask for at most that (-N), or a partition with more nodes (-p)"]),
    "ESLURM_BAD_TASK_COUNT": (
        "-n/--ntasks does not fit the nodes asked for (more tasks than CPUs, or fewer tasks than nodes).",
        ["sinfo -N -p <PARTITION> -o '%N %c'   (CPUs per node)", "make -n fit -N x --ntasks-per-node x "
         "--cpus-per-task, or drop one of them"]),
    "ESLURM_INVALID_CPU_COUNT": (
        "The CPU count asked for (-n x -c, --mincpus) is not one the nodes can give.",
        ["sinfo -N -p <PARTITION> -o '%N %c'", "lower -c/--cpus-per-task or --mincpus"]),
    "ESLURM_CAN_NOT_START_IMMEDIATELY": (
        "--immediate (-I) was given and the resources are not free now.",
        ["squeue -p <PARTITION>   (what holds them)", "drop --immediate and let the job wait"]),
    "ESLURM_NOT_TOP_PRIORITY": (
        "--immediate (-I) was given and jobs of higher priority are waiting first.",
        ["sprio -u $USER", "drop --immediate and let the job wait"]),
    "ESLURM_MAX_JOB_COUNT": (
        "The controller holds its MaxJobCount of jobs (the whole queue is full), or a user submit limit was hit.",
        ["squeue -u $USER | wc -l", "wait and resubmit, pack work into job arrays / fewer jobs; admins: MaxJobCount"]),
    "ESLURM_SUBMISSIONS_DISABLED": (
        "The admins have disabled job submission (a maintenance, or a partition set to State=DRAIN/INACTIVE).",
        ["sinfo -s; scontrol show config | grep -i SchedulerParameters", "wait for the admins"]),
    "ESLURMD_CPU_LAYOUT_ERROR": (
        "slurmd could not lay the step's tasks out on the CPUs the job holds on that node: the task count x "
        "--cpus-per-task (with --threads-per-core / --hint / --cpu-bind) does not fit the cores and threads "
        "allocated there.",
        ["scontrol show job $SLURM_JOB_ID | grep -E 'NumCPUs|TRES|CoreSpec'   (what the job holds per node)",
         "ask the step for what the allocation holds (srun -n/-c within sbatch's), whole cores per task "
         "(--hint=nomultithread or even -c), or srun --cpu-bind=none"]),
    "ESLURMD_CPU_BIND_ERROR": (
        "The step's --cpu-bind request cannot be satisfied with the CPUs the job holds on that node.",
        ["srun --cpu-bind=verbose,... to see the masks", "srun --cpu-bind=none (or cores), or ask for whole "
         "cores (--hint=nomultithread)"]),
    "ESLURM_RESERVATION_ACCESS": (
        "The job names a reservation (--reservation) whose Users/Accounts do not include this user or the job's "
        "account.",
        ["scontrol show reservation <NAME>   (Users=, Accounts=)", "sbatch --reservation=<a reservation that lists "
         "you> (or -A <an account it lists>), or drop --reservation"]),
    "ESLURM_RESERVATION_INVALID": (
        "The reservation named by --reservation does not exist (a typo, or it was deleted or has ended).",
        ["scontrol show reservation   (the reservations that exist now)", "fix --reservation=<NAME>, or drop it"]),
    "ESLURM_RESERVATION_NOT_USABLE": (
        "The reservation exists but cannot be used now: it has not started yet or has ended, or its nodes are not "
        "available.",
        ["scontrol show reservation <NAME>   (StartTime, EndTime, State)", "submit so the job starts inside the "
         "reservation (sbatch --begin=<StartTime>), or drop --reservation"]),
    "ESLURM_RESERVATION_MAINT": (
        "A maintenance reservation (Flags=MAINT) covers the nodes during the job's --time, so it cannot start now.",
        ["scontrol show reservation   (StartTime of the MAINT reservation)", "a --time that ends before it starts "
         "(scontrol update jobid=<JOBID> timelimit=...), or wait until it ends"]),
    "ESLURM_DEPENDENCY": (
        "The --dependency names a job that does not exist or cannot satisfy it.",
        ["squeue -j <dep jobid>; sacct -j <dep jobid>", "fix --dependency=afterok:<JOBID> (a job that exists)"]),
    # issue 18: the codes a GPU job's user or admin meets after 'Unable to allocate resources:', 'Batch job
    # submission failed:', 'Task launch for ... failed on node ...:' (src/common/slurm_errno.c; where each is returned
    # in src/slurmctld and src/slurmd; sbatch(1), srun(1), slurm.conf(5) https://slurm.schedmd.com/slurm.conf.html)
    # SLURM_ERROR after 'Batch job submission failed:': a job_submit plugin that returned slurm.ERROR; its
    # slurm.log_user() text reaches the user as the 'error:' lines before (https://slurm.schedmd.com/job_submit_plugins.html)
    "SLURM_ERROR": (
        "Slurm gives no reason code. After 'Batch job submission failed:' / 'Unable to allocate resources:' it is most "
        "often the site's job_submit plugin (JobSubmitPlugins, e.g. job_submit.lua) refusing the job by a local rule; "
        "the plugin's own message is printed on the 'error:' lines just before (slurm.log_user).",
        ["read the sbatch/srun 'error:' lines before this one: they state the site's rule (a GPU partition that needs "
         "--gres/--gpus-per-node, a time or size limit, a required account)", "follow that rule, or ask the admins "
         "with those lines; admins: scontrol show config | grep JobSubmitPlugins, and the plugin's log in "
         "slurmctld.log"]),
    "SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR": (
        "The command could not connect to slurmctld: the controller is down or restarting, SlurmctldHost/port in this "
        "host's slurm.conf is wrong, or a firewall blocks SlurmctldPort (6817).",
        ["scontrol ping; scontrol show config | grep -E 'SlurmctldHost|SlurmctldPort'; nc -zv <controller> 6817",
         "wait for the controller to come back, or fix this host's slurm.conf (the same file as the controller's); "
         "admins: systemctl status slurmctld"]),
    "SLURM_PROTOCOL_VERSION_ERROR": (
        "The two sides speak Slurm protocol versions too far apart: a command or slurmd more than three major releases "
        "older (two before Slurm 24.11; SLURM_MIN_PROTOCOL_VERSION, src/common/slurm_protocol_common.h, and "
        "https://slurm.schedmd.com/upgrades.html) or any newer than slurmctld, e.g. an srun from a container or conda "
        "env.",
        ["srun --version; scontrol version; slurmd -V   (on the node)", "use the cluster's own Slurm commands "
         "(module load slurm or /usr/bin/srun), or upgrade the old side (slurmdbd >= slurmctld >= slurmd >= "
         "commands)"]),
    "SLURM_MPI_PLUGIN_NAME_INVALID": (
        "The --mpi type (or SLURM_MPI_TYPE / MpiDefault) names an MPI plugin this Slurm does not have.",
        ["srun --mpi=list", "srun --mpi=<one of them> (pmix, pmi2 or none), or unset SLURM_MPI_TYPE"]),
    "SLURM_MPI_PLUGIN_PRELAUNCH_SETUP_FAILED": (
        "The MPI plugin (--mpi=pmix / pmi2) failed to set up the step on a node before the tasks started; the node's "
        "slurmd log has the plugin's own error.",
        ["the slurmd log on the node (journalctl -u slurmd)", "fix what it names; meanwhile try another --mpi type "
         "from srun --mpi=list"]),
    "SLURM_UNKNOWN_FORWARD_ADDR": (
        "A Slurm daemon could not find the address of a node it must forward a message to: the node's NodeName/"
        "NodeAddr does not resolve on this host.",
        ["getent hosts <node>; scontrol show node <node> | grep NodeAddr", "admins: make every node name resolve "
         "everywhere (DNS or /etc/hosts) or set NodeAddr= in slurm.conf"]),
    "ESLURM_ACCESS_DENIED": (
        "slurmctld refused the operation for this user: it is only allowed to the job's owner, an operator/admin, or "
        "a user the partition/reservation allows.",
        ["squeue -j <JOBID> -o '%i %u'; sacctmgr show user $USER", "act on your own jobs, or ask an admin"]),
    "ESLURM_INVALID_JOB_ID": (
        "The job id does not exist (any more): the job ended and left slurmctld's memory (MinJobAge), or the id is "
        "wrong; inside a shell, a stale SLURM_JOB_ID.",
        ["sacct -j <JOBID>   (ended jobs); echo $SLURM_JOB_ID", "use a live job id; unset a stale SLURM_JOB_ID"]),
    "ESLURM_ALREADY_DONE": (
        "The job or step is already completing or completed, so it cannot be signalled, changed or given a new step.",
        ["sacct -j <JOBID> -o JobID,State,ExitCode,Elapsed", "run the step in a live allocation"]),
    "ESLURM_BAD_DIST": (
        "The -m/--distribution does not fit the request (e.g. arbitrary without a hostlist, plane without a size).",
        ["--distribution=block (or cyclic); arbitrary needs -w/SLURM_HOSTFILE with one host per task"]),
    "ESLURM_JOB_HELD": (
        "The job is held (priority 0): by the user (sbatch -H), an admin, or Slurm after its launch failed.",
        ["scontrol show job <JOBID> | grep -E 'Reason|Priority'", "scontrol release <JOBID> (your own hold); an "
         "admin hold: ask the admins"]),
    "ESLURM_INVALID_LICENSES": (
        "-L/--licenses names a license the cluster does not define (Licenses= in slurm.conf or sacctmgr resources).",
        ["scontrol show licenses", "-L <name>:<count> with a name from that list"]),
    "ESLURM_PORTS_BUSY": (
        "The step asked for reserved ports (--resv-ports, MpiParams=ports= in slurm.conf) and none are free on the "
        "nodes now.",
        ["scontrol show config | grep MpiParams", "wait for other steps to end, or admins: widen MpiParams=ports="]),
    "ESLURM_PROLOG_RUNNING": (
        "PrologSlurmctld (or a node prolog with PrologFlags=Alloc) is still running for the job; steps wait for it.",
        ["scontrol show job <JOBID> | grep -i state", "wait; if it never ends, admins: the prolog script and "
         "PrologEpilogTimeout"]),
    "ESLURM_STEP_LIMIT": (
        "The job reached its maximum number of steps (MaxStepCount in slurm.conf); each srun is one step.",
        ["scontrol show config | grep MaxStepCount", "run fewer sruns per job (one srun that starts all tasks, or "
         "a loop inside the task), or split the work into more jobs"]),
    "ESLURM_INVALID_ARRAY": (
        "The --array specification is malformed or exceeds MaxArraySize.",
        ["scontrol show config | grep MaxArraySize", "--array=0-99 or 0-99%10 (indexes below MaxArraySize)"]),
    "ESLURM_INVALID_TIME_VALUE": (
        "A time value (--time, --begin, --deadline) is not one Slurm reads.",
        ["--time=D-HH:MM:SS or minutes; --begin=now+1hour or YYYY-MM-DDTHH:MM"]),
    "ESLURM_CIRCULAR_DEPENDENCY": (
        "The --dependency would make the job depend on itself (directly or through others).",
        ["squeue -o '%i %E'   (the dependencies)", "remove the loop from --dependency"]),
    "ESLURM_BAD_THREAD_PER_CORE": (
        "The step asks for more threads per core than the job was allocated (e.g. --threads-per-core=2 in a job "
        "allocated with --hint=nomultithread).",
        ["scontrol show job <JOBID> | grep -i thread", "ask the same (or fewer) threads per core in srun as in the "
         "allocation"]),
    "ESLURM_USER_ID_MISSING": (
        "slurmctld does not know the uid of the request: the user is not resolvable on the controller.",
        ["getent passwd <user>   (on the controller)", "admins: make the user resolvable on the controller "
         "(sssd/LDAP)"]),
    "ESLURM_GROUP_ID_MISSING": (
        "slurmctld (or the node) cannot resolve the job's group id.",
        ["getent group <gid>   (on the controller and the nodes)", "admins: fix the group lookup (sssd/LDAP)"]),
    "ESLURMD_CREDENTIAL_EXPIRED": (
        "slurmd found the job's credential already expired: the node's clock is ahead of the controller's, or the "
        "launch took longer than the credential's lifetime (AuthInfo=cred_expire in slurm.conf, 120 s by default).",
        ["date on the controller and the node; chronyc tracking", "admins: sync the clocks (chrony/ntp) on every "
         "node; then resubmit"]),
    "ESLURMD_INVALID_JOB_CREDENTIAL": (
        "slurmd could not verify the job's credential: different munge keys (or auth/slurm keys) on controller and "
        "node, or clocks far apart.",
        ["munge -n | ssh <node> unmunge; date on both", "admins: the same /etc/munge/munge.key everywhere, synced "
         "clocks; restart munge and slurmd"]),
    "ESLURMD_SETUP_ENVIRONMENT_ERROR": (
        "slurmd could not build the batch job's environment on the node (--get-user-env timed out, or the user's "
        "login environment failed there).",
        ["the slurmd log on the node", "drop --get-user-env (or raise its timeout), fix the user's shell startup "
         "files for non-interactive use; admins: the node's user lookup"]),
    "ESLURMD_SET_UID_OR_GID_ERROR": (
        "slurmd could not switch to the job's user/group on the node (the user or a group is not resolvable there).",
        ["on the node: id <user>; getent passwd <user>", "admins: fix the node's user/group lookup (sssd/nslcd)"]),
    "ESLURMD_IO_ERROR": (
        "slurmstepd on the node could not open the job's I/O: the --output/--error path's directory does not exist on "
        "the node or is not writable, or it could not connect back to srun.",
        ["srun -N1 -w <node> ls -ld <output directory>", "create the directory first (sbatch does not), on a shared "
         "filesystem; let the nodes reach srun's ports (SrunPortRange)"]),
    "ESLURMD_PROLOG_FAILED": (
        "The node's Prolog (slurm.conf Prolog=) exited non-zero, so the job could not start there; slurmctld drains "
        "the node and requeues the job held.",
        ["sinfo -R   (the node's reason); admins: the slurmd log ('prolog failed: rc:N output:...')", "admins: fix the "
         "script or the node, scontrol update nodename={$node|<node>} state=resume; users: scontrol release <JOBID> or "
         "--exclude={$node|<node>}"]),
    "ESLURMD_EPILOG_FAILED": (
        "The node's Epilog (slurm.conf Epilog=) exited non-zero after the job; slurmctld drains the node.",
        ["admins: the slurmd log on the node; run the Epilog by hand", "fix it, then scontrol update "
         "nodename={$node|<node>} state=resume"]),
    "ESLURMD_TOOMANYSTEPS": (
        "The node already runs as many steps as slurmd allows at once.",
        ["squeue -s -w <node>", "fewer concurrent sruns per node (one srun with many tasks instead of many sruns)"]),
    "ESLURM_FRAGMENTATION": (
        "The request could run in principle, but not at once (--immediate): the free resources are spread over "
        "too many nodes.",
        ["drop -I/--immediate and let the job queue"]),
}
_MIN_BARE = 30
_PROGS = r"(?:sbatch|srun|salloc|sinfo|squeue|scontrol|sacct|sacctmgr|scancel|slurmd|slurmstepd|slurmctld)"
# the text between the marker and the reason never crosses another Slurm line's start: explain tries a line joined
# with the next when a message may have been wrapped (gpudoctor/explain/scan.py _search_text), and 'sbatch: error:
# Memory specification can not be satisfied' + 'sbatch: error: Batch job submission failed: Requested node
# configuration is not available' is two records, not one wrapped one (the first line's own message is the answer)
_CONTEXT = _PROGS + r"(?:\[\d{1,10}\])?: (?:error|fatal): (?:(?!%s[:\[])[^\n]){0,120}?" % _PROGS


# job_mgr.c job_allocate(): the condition of the codes that leave a job queued (the branch commented "Non-fatal
# error, but job can't be scheduled right now"), and the inner condition of those turned into SLURM_SUCCESS for a
# queued job (no code is then returned, nothing printed); a term with '&&' is turned only sometimes (PARTITION_DOWN
# for a batch job), so it stays
_NONFATAL = re.compile(r"else if \(((?:[^{};]|\n){0,3000}?)\)\s*\{\s*/\*\s*\*?\s*Non-fatal error, but job can't be "
                       r"scheduled right now")
_TO_SUCCESS = re.compile(r"job remains queued \*/\s*if \(((?:[^{};]|\n){0,2000}?)\)\s*\{\s*error_code = SLURM_SUCCESS;")
# allocate.c slurm_allocate_resources_blocking(): a pending allocation's code, printed by info() ('srun: <text>')
_INFO_PRINT = re.compile(r"info\(\"%s\",\s*slurm_strerror\(resp->error_code\)\)")


def queued_codes(text):
    """The codes whose text srun / salloc print at info level for a job that was accepted and only queues (see
    _NONFATAL); empty when the source no longer has that branch or allocate.c's print."""
    m, inner = _NONFATAL.search(text), _TO_SUCCESS.search(text)
    if not m or not _INFO_PRINT.search(text):
        return set()
    codes = set(re.findall(r"error_code == (\w+)", m.group(1)))
    if inner:
        codes -= {re.search(r"error_code == (\w+)", t).group(1) for t in inner.group(1).split("||")
                  if "&&" not in t and "error_code ==" in t}
    return codes


def parse(text):
    out = []
    for name, desc in re.findall(r"ERRTAB_ENTRY\((\w+)\),\s*((?:\"(?:[^\"\\]|\\.)*\"\s*)+)", text):
        d = "".join(re.findall(r"\"((?:[^\"\\]|\\.)*)\"", desc))
        out.append((name, d.replace('\\"', '"')))
    return out


def build(rows, version, queued=frozenset()):
    sites = []
    for name, text in rows:
        if name in ("SLURM_SUCCESS", "EINPROGRESS") or not text:
            continue
        alts = [_CONTEXT + re.escape(text)]
        if len(text) >= _MIN_BARE:
            alts.append(re.escape(text))
        elif name in queued:  # the info line of a queued allocation, a line of its own
            alts.append(r"^(?:srun|salloc): %s[ \t]{0,8}$" % re.escape(text))
        rule, family = knowgen.assign(RULES, None, {"name": name, "text": text})
        site = {"id": "slurm.%s" % name.lower(), "name": name, "text": text, "re": "(?:%s)" % "|".join(alts),
                "family": family, "rule": rule}
        if name in queued:
            site["queued"] = True  # srun / salloc print it at info level, and the job waits in the queue
        if name in CODE_FIX:
            site["means"], site["fix"] = CODE_FIX[name][0], list(CODE_FIX[name][1])
        sites.append(site)
    return {"header": knowgen.header("SchedMD/slurm (https://github.com/SchedMD/slurm) src/common/slurm_errno.c; "
                                     "src/slurmctld/job_mgr.c job_allocate() and src/api/allocate.c (queued codes)",
                                     version, GENERATOR), "sites": sites}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    text = "\n".join(git("show", "%s:%s" % (rev, p)) for p in ("src/common/slurm_errno.c", "src/slurmctld/job_mgr.c",
                                                               "src/api/allocate.c"))
    return (parse(text), queued_codes(text)), knowgen.slurm_release(git, rev)


def _slice(path):
    with open(path) as f:
        text = f.read()
    return (parse(text), queued_codes(text)), "slice"


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="HEAD")
    (rows, queued), version = knowgen.source_files(a, from_repo, _slice)
    if a.repo and not queued:  # job_allocate's branch or allocate.c's print changed: read them again by hand
        a.error("no queued-allocation codes found in src/slurmctld/job_mgr.c / src/api/allocate.c")
    stale = sorted(set(CODE_FIX) - {name for name, _ in rows})
    if a.repo and stale:  # a code renamed or removed upstream: its fix must be moved by hand
        a.error("CODE_FIX names codes this revision does not have: %s" % ", ".join(stale))
    return knowgen.emit("slurm_errors", build(rows, version, queued), a.out, "codes")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

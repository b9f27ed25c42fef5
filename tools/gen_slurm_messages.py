#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/slurm_messages.json: the messages Slurm's own
programs print about a job (sbatch / srun / salloc / the step-launch API, slurmd, slurmstepd,
the MPI, task/cgroup and prolog plugins, and the parts of src/common that check what a user
asked for): every error() / fatal() / info() / warning() format string there, and the state
descriptions slurmctld gives a job (squeue's reason text, e.g. 'launch failed requeued held'),
each turned into a bounded matcher and assigned to a knowledge family by the RULES table below.
Sites no rule assigns are listed (the file's "unassigned"; docs/explain.md).

The daemons' side as admins paste it: slurmctld's node registration and node state (node_mgr.c,
proc_req.c, ping_nodes.c, read_config.c, agent.c: their log lines, e.g. 'Node %s appears to have a
different slurm.conf than the slurmctld'), the node_conf.c lookups, the gres and cgroup plugins,
and the reason slurmctld gives a node it drains or sets down (level "reason": the text
`scontrol show node` prints as Reason=, `sinfo -R` in its REASON column and slurmctld.log after
'with reason:'; xstrcat/xstrfmtcat(reason_down, ...), drain_nodes(), set_node_down[_ptr](), e.g.
'gres/gpu count reported lower than configured (0 < 8)', 'Low RealMemory (...)', 'Not responding').

Usage:
    python tools/gen_slurm_messages.py --repo /path/to/slurm.git [--rev HEAD] [--older TAG,TAG...] [-o OUT]
    python tools/gen_slurm_messages.py --slice tools/data/slurm_messages_slice.txt -o OUT   (the test)

Source: SchedMD/slurm (https://github.com/SchedMD/slurm), read with `git show REV:path`.
Slurm's log functions take printf formats with its own conversions (src/common/xstring.c,
src/common/log.c): %m is strerror(errno), %pJ / %ps / %pS / %pA print a job, a step or an
address; they are read as strings here.
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_slurm_messages.py"
SOURCE = "SchedMD/slurm (https://github.com/SchedMD/slurm)"

# The files whose messages reach a user or the admin of a GPU job (directories or files).
PATHS = (
    "src/sbatch", "src/srun", "src/salloc", "src/api", "src/slurmd/slurmd", "src/slurmd/slurmstepd",
    "src/slurmd/common", "src/interfaces/mpi.c", "src/interfaces/gres.c", "src/interfaces/jobacct_gather.c",
    "src/plugins/mpi", "src/plugins/task/cgroup", "src/plugins/prep", "src/common/env.c",
    "src/common/read_config.c", "src/common/slurm_opt.c", "src/common/proc_args.c",
    "src/common/slurm_protocol_api.c", "src/common/slurm_protocol_socket.c", "src/common/uid.c",
    # a node's own configuration as slurmd and slurmctld check it: NodeName lookups, GPUs, cgroups
    "src/common/node_conf.c", "src/plugins/gres", "src/interfaces/cgroup.c", "src/plugins/cgroup",
    "src/plugins/proctrack/cgroup", "src/common/plugin.c", "src/interfaces/gpu.c",
    # where a daemon or command gets slurm.conf: the file, or configless (DNS SRV record, --conf-server)
    "src/common/fetch_config.c", "src/common/slurm_resolv.c",
    # where older releases (--older) kept what src/interfaces/ holds now (moved there in 23.02)
    "src/common/gres.c", "src/common/slurm_mpi.c", "src/common/gpu.c", "src/common/cgroup.c",
    "src/common/slurm_jobacct_gather.c", "src/srun/libsrun",
)
# plugin_context_create() (src/common/plugin.c) and the interfaces that call it name the plugin in a %s
# ('Couldn't find the specified plugin name for mpi/pmix looking at all files', 'cannot find cgroup plugin
# for cgroup/v2', 'cannot create cgroup context for cgroup/v2'): besides the format's own site, one site per
# plugin type whose failure a GPU job's admin meets, with that type's family: (file, kind, name, family).
PLUGIN_TYPES = (("src/common/plugin.c", "mpi", "mpi/%s", "slurm.mpi"),
                ("src/common/plugin.c", "cgroup", "cgroup/%s", "slurm.cgroup"),
                ("src/common/plugin.c", "proctrack", "proctrack/cgroup", "slurm.cgroup"),
                ("src/common/plugin.c", "gres", "gres/%s", "slurm.node_gres"),
                ("src/interfaces/cgroup.c", "cgroup", "cgroup/%s", "slurm.cgroup"))
# plugin.c's two lookups have printed at debug level since Slurm 25.11 (SchedMD/slurm commit f2311464f4,
# 'Demote plugin_context_create() errors to debug messages'), at error level before: read as errors
_DEMOTED = re.compile(r"(?<![A-Za-z0-9_>.])debug\s*\(\s*(?=\"(?:Couldn't find the specified plugin name|"
                      r"cannot find %s plugin for))")
# slurmctld: the job state descriptions (state_desc) of these files, and the node reasons they set
CTLD_PATHS = ("src/slurmctld/job_mgr.c", "src/slurmctld/node_scheduler.c", "src/slurmctld/acct_policy.c")
# slurmctld: the log lines and node reasons of node registration, pings and node state
CTLD_LOG_PATHS = ("src/slurmctld/node_mgr.c", "src/slurmctld/proc_req.c", "src/slurmctld/ping_nodes.c",
                  "src/slurmctld/read_config.c", "src/slurmctld/agent.c")

# Which knowledge entry explains a message site: (rule name, entry id, {field: regex}); the first
# rule whose regexes all match wins. Fields: where (path:line), text (the format), level.
RULES = [
    # slurmctld's refusal of a job request, printed by the client (level err_msg: see _ERRMSG)
    ("ctld-reservation", "slurm.reservation", {"level": r"^err_msg$", "text": r"reservation"}),
    ("ctld-partition", "slurm.partition", {"level": r"^err_msg$", "text": r"partition"}),
    ("ctld-node-config", "slurm.node_config", {"level": r"^err_msg$", "text": r"can not be satisfied|task count required"}),
    # slurmctld's ReqNodeNotAvail descriptions (node_scheduler.c): the text after the comma says which
    ("reservation", "slurm.reservation", {"text": r"Reserved for maintenance|May be reserved for other job|"
                                                  r"which this job was running under, has ended"}),
    ("unavailable-nodes", "slurm.node_down", {"text": r"^ReqNodeNotAvail, UnavailableNodes:"}),
    # fetch_config.c's memfd write ('could not write conf file, likely out of memory') is no job's OOM
    ("conf-write", None, {"where": r"fetch_config\.c", "text": r"could not write"}),
    # the PrEp script plugin runs Prolog/Epilog in slurmd (src/plugins/prep/script/prep_script_slurmd.c: '%s failed:
    # rc:%u output:%s' names the script): before the oom rule, whose words its glob(3) 'Out of memory' has
    ("prep-script", "slurm.prolog", {"where": r"plugins/prep/script/prep_script_slurmd\.c"}),
    ("step-prolog", "slurm.prolog", {"where": r"slurmstepd/mgr\.c", "text": r"^%pI %s failed status="}),
    # sbatch's checks of the script file itself (src/sbatch/sbatch.c _get_script_buffer, opt.c _set_options)
    ("batch-script", "slurm.error", {"where": r"src/sbatch/(?:sbatch|opt)\.c",
                                     "text": r"[Bb]atch script|look like a batch script|must start with #!|"
                                             r"For instance: #!|NULL character|line breaks|^Unable to open file|"
                                             r"#SLURM to #SBATCH|not allow scripts|too (?:large|big)|^Cannot stat %s"}),
    # srun waits for a step's resources (src/srun/launch.c: info() with slurm_strerror's reason, ESLURM_NODES_BUSY ...):
    # a note (slurm_steps.toml), since a job that ran fine prints it too before 'Step created for StepId='
    ("step-busy", "slurm.step_wait", {"where": r"src/srun/(?:libsrun/)?launch\.c", "text": r"step creation (?:temporarily|still) "
                                                                                r"disabled"}),
    # srun / salloc refusing what the command line or the job's SLURM_* environment asks (src/srun/srun_job.c,
    # launch.c, opt.c, allocate.c; src/salloc/salloc.c)
    ("client-request", "slurm.error", {"where": r"src/(?:srun|salloc)/(?:libsrun/)?(?:srun_job|launch|opt|allocate|salloc)\.c",
                                       "text": r"excluded|hostlist specified|Only allocated|node count|"
                                               r"SLURM_JOB_NUM_NODES|^No command given|^Can not execute|has expired|"
                                               r"Expired or invalid job|no controlling terminal|incompatible with count of allocated"}),
    # the task/cgroup plugin's device (GPU) and enforcement setup (src/plugins/task/cgroup/task_cgroup*.c)
    ("task-cgroup", "slurm.cgroup", {"where": r"plugins/task/cgroup/task_cgroup(?:_devices)?\.c:"}),
    ("oom", "slurm.oom", {"text": r"oom[_-]kill|Out Of Memory|OOM Killed|exceeded memory limit|"
                                  r"[Mm]emory limit exceeded"}),
    ("time-limit", "slurm.time_limit", {"text": r"DUE TO TIME LIMIT|time limit exceeded|TimeLimit exceeded|"
                                                r"exceeded its time limit"}),
    ("node-failure", "slurm.node_down", {"text": r"DUE TO NODE|[Nn]ode failure|NODE FAIL"}),
    ("node-not-ready", "slurm.node_down", {"text": r"[Nn]odes? %s (?:are|is) still not ready|boot of the nodes|"
                                                   r"Allocation was revoked|SRUN_NODE_FAIL"}),
    ("held", "slurm.held", {"text": r"requeued held|requeued in held state|held state"}),
    ("prolog", "slurm.prolog", {"text": r"[Pp]rolog|[Ee]pilog"}),
    # processes that outlived UnkillableStepTimeout (step_terminate_monitor.c; the node reason 'Kill task failed')
    ("unkillable", "slurm.unkillable", {"text": r"NOT ENDING WITH SIGNALS|KillTaskFailed|still running after %d seconds"}),
    # the daemons' side: a node's own configuration as slurmd and slurmctld see it (slurm_nodes.toml)
    ("node-name", "slurm.node_name", {"text": r"determine this slurmd's NodeName|lookup failure for node|"
                                              r"Unable to find node record|Unable to get my hostname"}),
    ("conf-differs", "slurm.conf_mismatch", {"text": r"different slurm\.conf|NO_CONF_HASH|"
                                                     r"appears to have a different version"}),
    ("no-config", "slurm.conf_mismatch", {"text": r"establish a configuration source|failed to fetch config|"
                                                  r"DNS SRV lookup failed|res_nsearch error"}),
    # GPU detection (src/interfaces/gpu.c: AutoDetect=nvml and the NVML library)
    ("gpu-detect", "slurm.node_gres", {"where": r"(?:interfaces|common)/gpu\.c"}),
    # gres.c validates what a slurmd reports against slurm.conf (gres_node_config_validate); the gres
    # plugins run in slurmd (gres.conf, AutoDetect=nvml)
    ("node-gres", "slurm.node_gres", {"where": r"(?:interfaces|common)/gres\.c",
                                      "text": r"reported lower than configured|count too low|[Cc]ount changed|"
                                              r"configured on node|GRES data|GRES record|gres\.conf|[Aa]uto[Dd]etect|"
                                              r"\bnvml\b|NVML|File="}),
    ("node-gres-plugin", "slurm.node_gres", {"where": r"plugins/gres/"}),
    ("node-gres-reason", "slurm.node_gres", {"level": r"^reason$", "where": r"(?:interfaces|common)/gres\.c"}),
    ("node-gres-unpack", "slurm.node_gres", {"level": r"^reason$", "text": r"\bgres\b"}),
    # 'Setting node %s state to INVAL with reason:%s' (node_mgr.c) carries the reason, which its own site matches
    # (CPUs, memory, GPUs): the line alone names no family
    ("inval-echo", None, {"text": r"state to INVAL with reason:%s$"}),
    ("node-resources", "slurm.node_resources", {"text": r"^Low |has low |CoreSpec differ|"
                                                        r"more boards than sockets|configuration differs from hardware"}),
    ("not-responding", "slurm.node_down", {"text": r"[Nn]ot responding|unexpectedly rebooted|NO NETWORK ADDRESS|"
                                                   r"ResumeTimeout reached|reboot timed out"}),
    ("cgroup", "slurm.cgroup", {"where": r"plugins/cgroup/|plugins/proctrack/cgroup"}),
    ("cgroup-text", "slurm.cgroup", {"text": r"cgroup"}),
    ("workdir", "slurm.job_env", {"text": r"chdir|TMPDIR|execve|[Ww]orking directory|\bcwd\b|"
                                          r"[Cc]ould not open (?:stdout|stderr|stdin|output|input|error)|"
                                          r"[Cc]annot open (?:stdout|stderr|stdin)|[Uu]nable to open (?:output|input)|"
                                          r"Unable to (?:find|exec) command"}),
    ("mpi-where", "slurm.mpi", {"where": r"plugins/mpi/|interfaces/mpi\.c|common/slurm_mpi\.c"}),
    ("mpi-text", "slurm.mpi", {"text": r"\bPMIx?\b|PMI2|pmix|MPI type|--mpi\b"}),
    ("user", "slurm.user_unknown", {"text": r"getpw(?:nam|uid)|getgr(?:nam|gid)|[Rr]esolve (?:user|uid|gid|group)|"
                                            r"Invalid user|[Uu]nknown user|initgroups|setgroups|"
                                            r"user name|uid_from_string|[Uu]ser .{0,20}not found|"
                                            r"no user information for user|look up username for uid"}),
    ("auth", "slurm.auth", {"text": r"[Mm]unge|MUNGE|credential|[Aa]uthenticat"}),
    # the plugin loader's own message names the plugin in its %s (mpi/pmix, gres/gpu): no family by the file
    ("plugin-load", None, {"text": r"specified plugin name for %s|plugin for %s"}),
    ("gres", "slurm.gres", {"where": r"(?:interfaces|common)/gres\.c"}),
    ("gres-text", "slurm.gres", {"text": r"\bgres\b|\bGRES\b|--gpus|--gres|gpu_bind|gpus-per"}),
    ("qos", "slurm.qos_limit", {"text": r"\bQOS\b|association \(acc=|AssocGrp|MaxTRES|exceeds .{0,30}limit"}),
    ("comm", "slurm.communication", {"text": r"[Uu]nable to contact|Socket timed out|Zero Bytes|"
                                             r"[Cc]ommunication|slurm_(?:send|receive)_|[Cc]onnection refused|"
                                             r"[Uu]nable to establish|io_init|IO connection|[Cc]ontroller|"
                                             r"[Cc]annot communicate with node|io error (?:with slurmstepd|and missing)|"
                                             r"step missing and io error|[Cc]an not test connection to node"}),
    ("refused", "slurm.error", {"text": r"Unable to allocate resources|Batch job submission failed|"
                                       r"Job submit/allocate failed|[Uu]nable to create step|[Ss]tep creation|"
                                       r"Task launch for|has been revoked|Unable to confirm allocation|"
                                       r"Job allocation .{0,10} has been|Job step aborted|CANCELLED AT|"
                                       r"launch failed|timeout waiting for task launch|"
                                       r"Timed out waiting for job step"}),
    ("options", "slurm.error", {"where": r"src/common/(?:slurm_opt|proc_args)\.c|src/(?:sbatch|salloc|srun)/opt\.c",
                                "text": r"[Ii]nvalid|must be|not supported|[Uu]nrecognized|cannot be|[Cc]onflict|"
                                        r"mutually exclusive|requires|not permitted|[Cc]annot specify|"
                                        r"can not be bigger|Too few|Inconsistent values|You can not have|"
                                        r"less than minimum|is not a valid|set by two different environment|"
                                        r"incompatible with --distribution|you need to specify a nodelist|"
                                        r"too large for|to small for"}),
]
# Assigned by SOURCE CONTEXT (issue 18, assign-sites): a site that no rule above assigns by its words, printed at an
# error level (the line carries 'error: ' / 'fatal: ', src/common/log.c log_msg; err_msg: slurmctld's refusal that the
# client prints at error level), gets the family of the part of Slurm that prints it. These families name what failed,
# not why (generic entries in slurm_context.toml and families.toml, or a family a site-only match answers as 'family':
# explain/analyze.py _finding); a site's own MSG_FIX row still comes first. Sites at info/warning level stay with the
# word rules above: without the error marker a line is no failure by itself (the file's "not a failure" count).
CTX_LEVELS = r"^(?:error|fatal|fatal_abort|error_in_daemon|slurm_perror|PMIXP_ERROR\w*|PMIXP_ABORT|err_msg)$"
CONTEXT_RULES = [
    # slurmctld's refusal of a request, printed by the client (_ERRMSG)
    ("ctx-refusal", "slurm.error", r"^src/slurmctld/(?:job_mgr|node_scheduler|acct_policy)\.c:"),
    # the configuration readers: slurm.conf and its node lines (read_config.c, node_conf.c), configless (fetch_config.c,
    # slurm_resolv.c), the plugin loader (plugin.c: a plugin slurm.conf names)
    ("ctx-config", "slurm.config", r"^src/(?:common/(?:read_config|node_conf|fetch_config|slurm_resolv|plugin)|"
                                   r"slurmctld/read_config)\.c:"),
    ("ctx-cgroup", "slurm.cgroup", r"^src/(?:plugins/(?:task/cgroup|cgroup|proctrack/cgroup)/|(?:interfaces|common)/cgroup\.c:)"),
    ("ctx-prep", "slurm.prolog", r"^src/plugins/prep/"),
    # the PMI servers srun and slurmstepd run for the tasks (src/api/slurm_pmi.c, pmi_server.c: PMI-1 through srun)
    ("ctx-mpi", "slurm.mpi", r"^src/(?:plugins/mpi/|api/(?:slurm_pmi|pmi_server|pmi)\.c:|(?:interfaces/mpi|common/slurm_mpi)\.c:)"),
    ("ctx-gpu", "slurm.node_gres", r"^src/(?:plugins/gres/|(?:interfaces|common)/gpu\.c:)"),
    ("ctx-uid", "slurm.user_unknown", r"^src/common/uid\.c:"),
    # Slurm's RPC layer, and the I/O stream between srun and slurmstepd (src/api/step_io.c)
    ("ctx-comm", "slurm.communication", r"^src/(?:common/slurm_protocol_(?:api|socket)\.c|api/step_io\.c):"),
    # the daemons: slurmd and slurmstepd on the node (and their shared src/slurmd/common), slurmctld, a step's
    # accounting gather (jobacct_gather runs in slurmstepd)
    ("ctx-daemon", "slurm.daemon", r"^src/(?:slurmd/|slurmctld/|interfaces/jobacct_gather\.c:|common/slurm_jobacct_gather\.c:)"),
    # the client commands and their API: what the user ran (sbatch, srun, salloc; the option and environment code)
    ("ctx-client", "slurm.error", r"^src/(?:sbatch|srun|salloc|api)/|^src/common/(?:slurm_opt|proc_args|env)\.c:"),
]
CONTEXT_RULE_NAMES = {name for name, _family, _where in CONTEXT_RULES}
RULES += [
    # a task's exit status as srun reports it ('srun: error: node1: task 0: Exited with exit code 1', src/srun/launch.c;
    # slurmstepd's 'exited with exit code'): the echo of the program's own failure, printed before it; no Slurm family
    ("not a failure: a task's exit status, the echo of its own error", None, {"text": r"[Ee]xited with exit code|exit code %d$|[Kk]illed by signal"}),
] + [(name, family, {"level": CTX_LEVELS, "where": where}) for name, family, where in CONTEXT_RULES]
# the rule an unassigned info/warning site carries (bench/explain_accuracy.py coverage(): the "not a failure" column)
NOT_A_FAILURE = "not a failure: info/warning level, no error marker"
# a site that only a ctx-* rule would assign, but whose own words are too few to be this message alone: its longest
# literal run has fewer than CTX_WORDS words ('%s: invalid %pI' matched every 'Batch job submission failed: Invalid
# account ...' line), is a line of asterisks, or is the text of an errno (strerror, the C library's table) or of a
# Slurm error code (slurm_strerror, src/common/slurm_errno.c: generated/slurm_errors.json) that any line may quote
# ('%s: address family not supported' matched NCCL's 'Socket creation failed : Address family not supported by
# protocol'): such a site stays unassigned
CTX_WORDS = 3
VAGUE = "too few words of its own to assign by its source file"


def _strerror_texts():
    """Lower-cased texts of errno (os.strerror) and of Slurm's error codes (the generated slurm_errors table)."""
    out = set(knowgen.ERRNO_TEXTS)
    path = knowgen.out_path("slurm_errors")  # (.json or .json.gz)
    try:
        with knowgen.open_text(path) as f:
            out.update(s["text"].lower() for s in json.load(f)["sites"] if s.get("text"))
    except (OSError, ValueError, KeyError):
        pass
    return out


_ERRTEXTS = []


def specific_enough(fmt):
    """Whether a format's own words name its message (see VAGUE): knowgen.specific_enough with Slurm's error texts."""
    if not _ERRTEXTS:
        _ERRTEXTS.append(_strerror_texts())
    return knowgen.specific_enough(fmt, CTX_WORDS, _ERRTEXTS[0])

# What one message means and what to do, where its family's fix is not enough (the first regex
# over the format that matches): [(regex, means, [fix])]
MSG_FIX = [
    (r"^ReqNodeNotAvail, UnavailableNodes:%s$",
     "Pending: the listed nodes are down, drained or not responding, and the job needs them (it names them with "
     "-w/--nodelist, or it needs more nodes of its partition than the others can give).",
     ["sinfo -R -n {%1|<the listed nodes>}   (why each is down or drained)", "drop those nodes from -w/--nodelist or "
      "sbatch --exclude={%1|<list>}, ask for fewer nodes (-N), or wait until the admins resume them"]),
    (r"^ReqNodeNotAvail, Reserved for maintenance$",
     "Pending: a maintenance reservation starts before the job's --time would end; no node is down.",
     ["scontrol show reservation   (the MAINT reservation's StartTime)", "scontrol update jobid=<JOBID> "
      "timelimit=<ends before that StartTime>, or wait: the job starts after the maintenance"]),
    (r"^ReqNodeNotAvail, May be reserved for other job$",
     "Pending: no node the job may use is down, but the usable ones are reserved for other users or jobs.",
     ["scontrol show reservation   (which reservation holds the nodes, until when)", "sbatch --reservation=<NAME> if "
      "you are in it; otherwise wait for its EndTime or ask for fewer nodes / another partition"]),
    (r"DUE TO PREEMPTION",
     "The job was preempted: a job of a higher-priority QOS or partition took its nodes.",
     ["sacct -j <JOBID> -o JobID,State,QOS,Partition", "sbatch --requeue (resumes from a checkpoint) or a "
      "partition/QOS that is not preemptible (scontrol show partition: PreemptMode)"]),
    (r"DUE TO JOB REQUEUE",
     "The job was requeued (by scontrol requeue, a node failure or preemption) and restarts from the beginning.",
     ["sacct -j <JOBID> --duplicates -o JobID,State,NodeList,Reason", "make the job resume from a checkpoint"]),
    (r"DUE to SIGNAL|^\*\*\* %s ON %s CANCELLED AT %s \*\*\*$",
     "The job was cancelled with a signal (scancel, or the admins).",
     ["sacct -j <JOBID> -o JobID,State,ExitCode", "nothing in the job failed: find who cancelled it"]),
    (r"DUE TO TASK FAILURE",
     "One task of the step failed and srun --kill-on-bad-exit (or the job's settings) cancelled the others: the "
     "first failing task's own error is the cause.",
     ["find the first task's error above this line (srun -l labels lines with the task number)"]),
    (r"^Detected %\S+ oom[_-]kill event",
     "A task of the step used more host memory than the job's allocation, and the kernel's OOM killer inside "
     "Slurm's memory cgroup killed it (host RAM, not GPU memory).",
     ["sacct -j <JOBID> -o JobID,State,ReqMem,MaxRSS", "sbatch --mem=<more> (or --mem-per-gpu/--mem-per-cpu; "
      "--mem=0 for a whole node where allowed); fewer DataLoader workers lower it"]),
    (r"Unable to create TMPDIR",
     "slurmstepd could not create the TMPDIR the job's environment names on the compute node (the directory's "
     "parent is missing there, or not writable).",
     ["srun -N1 -w <node> ls -ld {%1|$TMPDIR}", "export TMPDIR=/tmp (or a node-local path that exists) before "
      "srun/sbatch; admins: the job_container/tmpfs BasePath"]),
    (r"couldn't chdir to",
     "The job's working directory (the submit directory or -D/--chdir) does not exist on the compute node; the "
     "task runs in /tmp instead, so relative paths break.",
     ["srun -N1 -w <node> ls -ld {%1|<dir>}", "submit from a directory on a shared filesystem, or sbatch "
      "-D/--chdir=<shared dir>"]),
    (r"^execve\(\): bad interpreter",
     "The script's #! interpreter does not exist on the compute node.",
     ["head -1 <script>; srun -N1 -w <node> ls -l {%1|<interpreter>}", "fix the #! line (e.g. #!/bin/bash), or install "
      "the interpreter on the nodes"]),
    (r"^execve\(\): %s: %m",
     "slurmstepd could not start the task's program on the node: not found there (not on PATH of the node, a "
     "path on the login node only), or not executable.",
     ["srun -N1 -w <node> which {%1|<program>}", "give a path on a shared filesystem, load the module / activate the "
      "env inside the script, chmod +x"]),
    (r"Invalid user for SlurmUser",
     "The SlurmUser of slurm.conf does not exist on this host (admin configuration).",
     ["admins: getent passwd {%1|<SlurmUser>} on every host; create the user (same uid everywhere) or fix SlurmUser"]),
    (r"^Invalid MPI type",
     "srun was given {%1|an --mpi type} (or SLURM_MPI_TYPE) that this Slurm does not have.",
     ["srun --mpi=list", "srun --mpi=pmix (or pmi2 / none: one from the list that the MPI library supports)"]),
    (r"SLURM_MEM_PER_CPU, SLURM_MEM_PER_GPU, and SLURM_MEM_PER_NODE are mutually exclusive",
     "An srun inside a job inherits the SLURM_MEM_PER_* variable sbatch/salloc exported and got another memory "
     "option (or a second such variable): only one of --mem, --mem-per-cpu, --mem-per-gpu may be given.",
     ["env | grep SLURM_MEM_PER   (inside the job)", "give one memory option: unset the other SLURM_MEM_PER_* "
      "before srun, or use the same kind of option in sbatch and srun"]),
    (r"can not load PMIx library",
     "Slurm's mpi/pmix plugin cannot load the PMIx library it was built against on this host (libpmix missing or "
     "not on the loader path), so --mpi=pmix is not available.",
     ["ldd <PluginDir>/mpi_pmix*.so | grep -i pmix   (PluginDir: scontrol show config | grep PluginDir; the "
      "library the plugin wants)", "admins: install that PMIx (or rebuild Slurm --with-pmix=<prefix>) on every "
      "node; meanwhile srun --mpi=pmi2 where the MPI supports it"]),
    (r"^Not responding$",
     "slurmctld set the node DOWN: its slurmd did not answer slurmctld's pings for SlurmdTimeout (slurmd stopped or "
     "hung, the node is down or unreachable, or the controller cannot reach the node's SlurmdPort).",
     ["on the node: systemctl status slurmd; the end of slurmd.log; from the controller: scontrol ping; "
      "nc -zv <NodeAddr> 6818 (SlurmdPort; a firewall), getent hosts <node> (the address slurmctld uses)",
      "start slurmd (systemctl restart slurmd) or bring the node back; then scontrol update nodename=<node> "
      "state=resume; users: resubmit with --exclude=<node>"]),
    (r"^Nodes %s not responding",
     "slurmctld got no answer from these nodes' slurmd: after SlurmdTimeout it sets them DOWN ('Not responding').",
     ["on each node: systemctl status slurmd; from the controller: nc -zv <NodeAddr> 6818 (SlurmdPort), "
      "getent hosts <node>", "restart slurmd or fix the network/firewall; then scontrol update nodename={%1|<nodes>} "
      "state=resume"]),
    (r"^Node unexpectedly rebooted$",
     "The node came back after a reboot slurmctld did not ask for (a crash, a power cycle, a watchdog); with "
     "ReturnToService=1 it stays DOWN until an admin resumes it.",
     ["on the node: last -x reboot | head; journalctl -b -1 -p err (the previous boot's errors); dmesg for Xids "
      "or MCEs", "after the cause is known: scontrol update nodename=<node> state=resume"]),
    (r"^NO NETWORK ADDRESS FOUND$",
     "slurmctld could not resolve the node's NodeAddr/NodeHostname (DNS or /etc/hosts on the controller).",
     ["getent hosts <node> on the controller", "add the node to DNS or /etc/hosts (or NodeAddr=<ip> in "
      "slurm.conf), scontrol reconfigure, then scontrol update nodename=<node> state=resume"]),
    (r"for mpi/%s looking at all files|cannot find mpi plugin for mpi/",
     "This Slurm has no {%1|such} MPI plugin: mpi/pmix (mpi_pmix*.so) is built only when Slurm was configured with "
     "PMIx (--with-pmix), so srun --mpi=pmix (or MpiDefault=pmix) cannot start the ranks.",
     ["srun --mpi=list   (the MPI plugins this Slurm has)", "use one it lists that the MPI library supports "
      "(srun --mpi=pmi2), or start the ranks with mpirun inside the allocation; admins: build Slurm "
      "--with-pmix=<PMIx prefix> so mpi_pmix.so is installed in PluginDir"]),
    (r"for cgroup/%s looking at all files|cannot find cgroup plugin for cgroup/",
     "This Slurm has no {%1|such} cgroup plugin: cgroup_v2.so is built only when the dbus development headers were "
     "present (cgroup/v2 is what a cgroup v2 host, or CgroupPlugin=autodetect on one, needs).",
     ["ls <PluginDir>/cgroup_v*.so   (PluginDir: scontrol show config | grep PluginDir); stat -fc %T /sys/fs/cgroup",
      "rebuild/reinstall Slurm with libdbus-1-dev (Debian/Ubuntu) or dbus-devel (RHEL) present, or your "
      "distribution's plugins package of the same version; then systemctl restart slurmd"]),
    (r"^Could not establish a configuration source$",
     "The daemon or command found no slurm.conf: none at the path it reads (/etc/slurm/slurm.conf, SLURM_CONF), and "
     "the configless lookup failed too (no DNS SRV record _slurmctld._tcp, no --conf-server; src/common/read_config.c).",
     ["ls -l /etc/slurm/slurm.conf; echo $SLURM_CONF; host -t SRV _slurmctld._tcp   (on the host that printed it)",
      "give it the file (the same slurm.conf as the controller's), or run configless: SlurmctldParameters="
      "enable_configless on the controller and slurmd --conf-server <controller>[:6817] (or the DNS SRV record)"]),
    (r"configured with nvml functionality, but that lib wasn't found",
     "slurmd was built with NVML for AutoDetect=nvml, but this node has no libnvidia-ml.so.1 (the NVIDIA driver's "
     "NVML library is not installed or not on the loader path), so it detects no GPU.",
     ["ldconfig -p | grep libnvidia-ml; nvidia-smi   (on the node)", "install the NVIDIA driver (its NVML "
      "library) on the node, or list the GPUs in gres.conf (Name=gpu File=/dev/nvidia[0-N]) without AutoDetect; "
      "systemctl restart slurmd"]),
    (r"configured to autodetect nvml functionality, but we weren't able to find that lib",
     "gres.conf says AutoDetect=nvml, but this Slurm was built without NVML (nvml.h was not found when Slurm was "
     "configured), so slurmd detects no GPU.",
     ["ls <PluginDir>/gpu_nvml.so   (PluginDir: scontrol show config | grep PluginDir)", "rebuild Slurm with NVML "
      "(the CUDA toolkit's nvml.h present at configure: --with-nvml=<cuda prefix>), or drop AutoDetect=nvml and list "
      "the GPUs in gres.conf (Name=gpu File=/dev/nvidia[0-N]); systemctl restart slurmd"]),
    (r"launch failed requeued held",
     "The batch job could not be launched on its node (a failed prolog, a node problem); Slurm requeued it in the "
     "held state.",
     ["scontrol show job <JOBID> | grep -E 'Reason|StateDesc|BatchHost'; sinfo -R (the node's reason)",
      "after the node is fixed: scontrol release <JOBID>; or resubmit with --exclude=<node>"]),
    # ---- the messages a GPU job's user or admin meets (issue 18: a fix per message, not per family). Written from
    # the code that prints each (the file in the site's "where") and the man pages it refers to:
    # sbatch(1) https://slurm.schedmd.com/sbatch.html, srun(1) https://slurm.schedmd.com/srun.html, salloc(1)
    # https://slurm.schedmd.com/salloc.html, slurm.conf(5) https://slurm.schedmd.com/slurm.conf.html, gres.conf(5)
    # https://slurm.schedmd.com/gres.conf.html, cgroup.conf(5) https://slurm.schedmd.com/cgroup.conf.html, the MPI
    # guide https://slurm.schedmd.com/mpi_guide.html and the prolog/epilog guide https://slurm.schedmd.com/prolog_epilog.html
    # slurmctld's refusals (src/slurmctld/node_scheduler.c _set_err_msg / _get_req_features; job_mgr.c), printed by
    # sbatch/srun/salloc before 'Batch job submission failed:' / 'Unable to allocate resources:'
    (r"^Memory specification can not be satisfied$",
     "No node the job may use has the memory it asks for per node (--mem, or --mem-per-cpu x CPUs per node). Also "
     "when the nodes are defined without RealMemory= in slurm.conf: Slurm then counts 1 MB per node (slurm.conf(5)), "
     "so any --mem fails.",
     ["sinfo -N -p <PARTITION> -o '%N %m'   (memory per node as Slurm counts it, MB; 1 means RealMemory is not set)",
      "ask for less than that (--mem=<MB>, or --mem=0 for all of a node's memory); admins: RealMemory=<MB> on the "
      "NodeName lines (slurmd -C prints the node's own value, set it a little lower), scontrol reconfigure"]),
    (r"^CPU count per node can not be satisfied$",
     "No node the job may use has as many CPUs as one node of the job needs (--ntasks-per-node x --cpus-per-task, "
     "or --mincpus).",
     ["sinfo -N -p <PARTITION> -o '%N %c'   (CPUs per node)", "lower --cpus-per-task / --ntasks-per-node (spread "
      "the tasks over more nodes with -N)"]),
    (r"^Temporary disk specification can not be satisfied$",
     "No node the job may use has the --tmp it asks for (TmpDisk= in slurm.conf).",
     ["sinfo -N -o '%N %d'   (TmpDisk per node, MB)", "lower or drop --tmp"]),
    (r"^Socket, core and/or thread specification can not be satisfied$",
     "The -B/--extra-node-info, --sockets-per-node, --cores-per-socket or --threads-per-core request exceeds every "
     "node's layout.",
     ["sinfo -N -o '%N %X %Y %Z'   (sockets, cores, threads per node)", "drop or lower those options"]),
    (r"^Node feature requirements can not be satisfied$",
     "No node has the -C/--constraint features asked for (or not in that combination).",
     ["sinfo -o '%N %f'   (the features of each node)", "fix -C/--constraint (names from that list; & and | "
      "combine them)"]),
    (r"^Required nodes outside of the reservation$",
     "-w/--nodelist names nodes that are not in the --reservation the job uses.",
     ["scontrol show reservation <NAME>   (its Nodes=)", "drop -w, or name nodes of the reservation"]),
    (r"^Problem using reservation$",
     "The job cannot use the --reservation it names now (not started, ended, or its nodes unavailable).",
     ["scontrol show reservation <NAME>", "fix --reservation or drop it"]),
    (r"^invalid partition specified: %s$",
     "The partition {%1|named} with -p/--partition (or in SBATCH_PARTITION / a #SBATCH line) does not exist.",
     ["sinfo -s   (the partitions)", "-p <one of them>"]),
    (r"^task count required for arbitrary distribution$",
     "-m arbitrary places one task per listed host: it needs -n/--ntasks.",
     ["add -n <tasks> (one per host in SLURM_HOSTFILE / -w)"]),
    # sbatch's checks of the script (src/sbatch/sbatch.c _get_script_buffer; src/sbatch/opt.c _set_options)
    (r"^Batch script contains DOS line breaks|^instead of expected UNIX line breaks",
     "sbatch refused the script: it has Windows (DOS) line ends (\\r\\n), usually from a file edited or copied on "
     "Windows; bash would read each line with a trailing carriage return.",
     ["file <script>   (says 'with CRLF line terminators')", "dos2unix <script> (or sed -i 's/\\r$//' <script>), "
      "then sbatch <script> again; set your editor to Unix (LF) line ends"]),
    (r"^This does not look like a batch script|^line must start with #! followed by|^For instance: #!/bin/sh",
     "sbatch refused the file: its first line is not a #! line naming an interpreter (sbatch needs a script, not a "
     "program or a Python file without #!).",
     ["head -1 <script>", "make the first line #!/bin/bash (the #SBATCH lines right after it), or submit a command "
      "with sbatch --wrap='python train.py'"]),
    (r"^Batch script is empty|^Batch script contains only whitespace",
     "sbatch read an empty script (an empty file, or nothing on standard input).",
     ["ls -l <script>", "give sbatch the script's path (sbatch job.sh), or a command with --wrap='...'"]),
    (r"^The Slurm controller does not allow scripts that|^contain a NULL character",
     "sbatch refused the file: it contains a NUL byte, so it is a binary (an executable, an archive, a UTF-16 file), "
     "not a text script.",
     ["file <script>", "submit a text script that runs the program (#!/bin/bash, then the command), or "
      "sbatch --wrap='<program> ...'; a UTF-16 file: iconv -f UTF-16 -t UTF-8"]),
    (r"^Unable to open file %s$",
     "sbatch could not open the batch script at the path it was given (no such file from the current directory, or "
     "not readable).",
     ["ls -l {%1|<script>}   (from the directory you ran sbatch in)", "give the right path (sbatch ./job.sh) or cd to "
      "its directory"]),
    (r"^Invalid directive found in batch script",
     "A #SBATCH line of the script names an option sbatch does not know (a typo, an srun-only option, a value sbatch "
     "cannot parse, or an option of a newer Slurm); sbatch stops at it.",
     ["grep -n '^#SBATCH' <script>; sbatch --version; man sbatch", "fix or delete that #SBATCH line (--option=value "
      "as man sbatch spells it, for this sbatch's version)"]),
    (r"^(?:%s: )?Could not open (?:output|error|stdout|stderr) file",
     "slurmstepd could not create the job's --output/--error file on the compute node (the reason follows on the "
     "line): a directory that does not exist there and that it could not create (Slurm creates missing directories "
     "since 25.05, SchedMD/slurm commit 40d795f803; older releases never do), one the user cannot write, or a path "
     "on a filesystem the node does not mount. (srun's own 'Could not open stdout file: ...' without a path is the "
     "same for a file on the host where srun runs.)",
     ["srun -N1 -w <node> ls -ld <the file's directory>   (the path on the line)", "mkdir -p that directory (on a "
      "shared filesystem) before sbatch, or point -o/-e at a directory the job's user can write on every node"]),
    (r"^Could not open stdin file",
     "slurmstepd could not open the file given to srun --input / sbatch -i on the node.",
     ["srun -N1 -w <node> ls -l <file>", "give a path that exists on the nodes (a shared filesystem)"]),
    (r"^Script file %s is too large|^Script (?:%s|from STDIN) is too big",
     "sbatch refused a script over 512 MB (MAX_BATCH_SCRIPT_SIZE, src/common/read_config.h): the file given is not a "
     "script (a data file, a binary, a log), or the script embeds data.",
     ["ls -l <script>; file <script>", "submit the script, not the data: read large inputs from files on a shared "
      "filesystem"]),
    (r"^Cannot stat %s: %m",
     "sbatch could not stat the script file it was given.",
     ["ls -l {%1|<script>}", "give the right path to the script"]),
    (r"^Change from #SLURM to #SBATCH",
     "The script uses '#SLURM' directives; sbatch reads only '#SBATCH' lines as options.",
     ["sed -i 's/^#SLURM/#SBATCH/' <script>", "check the options are valid sbatch options (man sbatch)"]),
    (r"^Script arguments not permitted with --wrap",
     "sbatch --wrap takes the whole command as its one argument; words after it are taken as a script's arguments.",
     ["sbatch --wrap='python train.py --lr 0.1'   (quote the whole command)"]),
    # srun/sbatch/salloc option checks (src/common/slurm_opt.c _validate_opts / the arg handlers; proc_args.c)
    (r"^--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive",
     "The job asks for memory in two ways: only one of --mem (per node), --mem-per-cpu and --mem-per-gpu may be given "
     "(also through #SBATCH lines or SBATCH_MEM_PER_* / SLURM_MEM_PER_* variables).",
     ["grep -n 'mem' <script>; env | grep -E 'S(BATCH|LURM)_MEM'", "keep one of --mem / --mem-per-cpu / "
      "--mem-per-gpu and remove the others"]),
    (r"^--gpus-per-node and --gres=gpu are mutually exclusive",
     "The job asks for GPUs per node twice: --gpus-per-node=N and --gres=gpu:N say the same thing (sbatch(1)).",
     ["keep one: --gpus-per-node=N or --gres=gpu:N (a #SBATCH line may give the other)"]),
    (r"is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU",
     "--ntasks-per-gpu sets the task count from the GPUs; it cannot be combined with --gpus-per-task, "
     "--gpus-per-socket, --tres-per-task or --ntasks-per-node (or their SLURM_* variables, which an srun inside an "
     "sbatch job inherits).",
     ["env | grep -E 'SLURM_(NTASKS_PER_GPU|GPUS_PER_TASK|GPUS_PER_SOCKET|TRES_PER_TASK|NTASKS_PER_NODE)'",
      "use either --ntasks-per-gpu=1 with --gpus=N, or -n/--ntasks with --gpus-per-task=1; unset the inherited "
      "variable before srun"]),
    (r"^Inconsistent values set (?:to|by)|^(?:--|SLURM_)ntasks-per-(?:gpu|tres) and (?:--|SLURM_)|"
     r"^SLURM_NTASKS_PER_GPU and SLURM_NTASKS_PER_TRES",
     "--ntasks-per-gpu and --ntasks-per-tres (or their SLURM_NTASKS_PER_* variables) give different values.",
     ["give one of them (--ntasks-per-gpu=N), or the same value in both"]),
    (r"^--cpus-per-task, --tres-per-task=cpu:#, and --cpus-per-gpu are mutually exclusive",
     "The job asks for CPUs per task in two ways.",
     ["keep one of -c/--cpus-per-task, --tres-per-task=cpu:N, --cpus-per-gpu (check #SBATCH lines and SLURM_CPUS_* "
      "in the environment)"]),
    (r"set by two different environment variables",
     "srun runs inside a job whose SLURM_CPUS_PER_TASK (or SLURM_GPUS_PER_TASK) and SLURM_TRES_PER_TASK (both exported "
     "by sbatch/salloc, or one set by hand) give different counts per task; srun reads both as options (srun(1) INPUT "
     "ENVIRONMENT VARIABLES) and stops.",
     ["env | grep -E 'SLURM_(CPUS_PER_TASK|TRES_PER_TASK)'   (inside the job)", "give srun its own value: srun "
      "--cpus-per-task=<N> ... (the command line takes precedence), or unset the stale variable / make both agree "
      "(export SRUN_CPUS_PER_TASK=$SLURM_CPUS_PER_TASK)"]),
    (r"^--nodes is incompatible with --distribution=arbitrary|^With Arbitrary distribution you need to specify",
     "-m arbitrary places tasks on the hosts listed (-w or SLURM_HOSTFILE, one line per task); -N does not apply.",
     ["drop -N, and list the hosts with -w or SLURM_HOSTFILE"]),
    (r"^Numeric argument \(%ld\) too? (?:large|small) for %s",
     "A count given to an option is out of its range.",
     ["give a count within {%2|the option}'s range (man srun / man sbatch)"]),
    (r"^Invalid TRES for --tres-per-task",
     "--tres-per-task takes countable per-task resources (cpu, gres/gpu ...), not mem, node, energy or billing.",
     ["memory: --mem-per-cpu or --mem-per-gpu; GPUs: --tres-per-task=gres/gpu:1 or --gpus-per-task=1"]),
    (r"^You can not have --tres-per-task=",
     "The same resource is asked for with --tres-per-task and with its own option (e.g. cpu in both "
     "--tres-per-task and --cpus-per-task).",
     ["give it once: drop it from --tres-per-task or drop the other option"]),
    (r"^--exclusive and --overlap are mutually exclusive",
     "srun --overlap lets a step share CPUs/GPUs with the job's other steps; --exclusive asks for resources no other "
     "step uses: one or the other.",
     ["a second step on the same resources (a monitor, a debugger): srun --overlap; steps that must not share: "
      "srun --exclusive (each with its own -n/--gpus)"]),
    (r"^--exclusive and --oversubscribe options are mutually exclusive",
     "--exclusive (whole nodes, or a step's own resources) and --oversubscribe (share them) contradict each other.",
     ["keep one of --exclusive / --oversubscribe (-s)"]),
    (r"^--exact and --whole are mutually exclusive",
     "srun --exact gives a step only the resources it asks for, --whole all of its nodes' allocated resources.",
     ["keep one of --exact / --whole"]),
    (r"^Invalid --time specification",
     "The -t/--time value is not a time Slurm reads. Formats (sbatch(1)): minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, "
     "D-HH:MM:SS.",
     ["--time=2-00:00:00 (two days) or --time=90 (minutes)"]),
    (r"^Invalid --mem specification",
     "The --mem value is not a size Slurm reads: a whole number with an optional unit K, M, G or T (a B after it is "
     "allowed; MB by default; 0 asks for all of a node's memory: src/common/proc_args.c str_to_mbytes). A decimal "
     "point (1.5G), a space or another unit (GiB) is refused; so is an empty value from an unset variable.",
     ["--mem=64G (or 64GB, or 1536M instead of 1.5G); per CPU or GPU: --mem-per-cpu=4G / --mem-per-gpu=40G"]),
    (r"^Invalid --gpu-bind(?: argument|=)",
     "--gpu-bind takes closest, map_gpu:<list>, mask_gpu:<list>, none, per_task:<N> or single:<tasks_per_gpu> "
     "(optionally prefixed by verbose,); the value given is none of these.",
     ["srun --gpu-bind=closest ...   or --gpu-bind=none to leave CUDA_VISIBLE_DEVICES with every allocated GPU "
      "(what torchrun / one process per node expects)"]),
    (r"^Bind request %s does not specify any devices within the allocation",
     "slurmstepd found no allocated GPU that the --gpu-bind request selects for this task and bound it to the "
     "first GPU of the allocation instead (several tasks may now share one GPU): map_gpu/mask_gpu name GPUs the "
     "job was not given, or single:<n> looks for GPUs on the task's own socket, and gres.conf's Cores= puts none "
     "of the allocated ones there (src/interfaces/gres.c _get_usable_gres).",
     ["srun -l bash -c 'echo $CUDA_VISIBLE_DEVICES'   (what each task sees); grep Cores /etc/slurm/gres.conf",
      "n GPUs per task: --gpu-bind=per_task:<n> (or --gpus-per-task=<n>); otherwise --gpu-bind=closest, or "
      "map_gpu/mask_gpu with indexes of the allocated GPUs"]),
    (r"^Invalid --gpu-freq argument",
     "--gpu-freq takes low, medium, high, highm1 or a MHz value, optionally with memory=<...> and verbose.",
     ["--gpu-freq=high (or drop the option)"]),
    (r"^Invalid --distribution specification",
     "-m/--distribution takes block, cyclic, arbitrary or plane=<size> for the nodes, then optionally :block, "
     ":cyclic or :fcyclic for the sockets and the cores, and ,Pack or ,NoPack (srun(1)).",
     ["--distribution=block:block (srun(1) -m)"]),
    (r"^Invalid numeric value \"%s\" for %s",
     "An option that takes a count ({%2|-n, -N, -c, --gpus ...}) was given something that is not a number (an unset "
     "shell variable leaves it empty, a unit where none belongs).",
     ["echo the variables used in the srun/sbatch line; give a plain number"]),
    (r"^Invalid node list specified",
     "The -w/--nodelist value (or the hostfile) is not a valid Slurm hostlist.",
     ["sinfo -N -h -o %N   (the node names); --nodelist=gpu[01-04] or gpu01,gpu02"]),
    (r"^unrecognized --hint argument",
     "--hint takes compute_bound, memory_bound, multithread, nomultithread or help.",
     ["--hint=nomultithread (or srun --hint=help)"]),
    (r"^Invalid --exclusive specification",
     "--exclusive takes no value, or =user, =mcs or =topo.",
     ["--exclusive (whole nodes)"]),
    (r"^Invalid --signal specification",
     "--signal is [{R|B}:]<sig_num>[@sig_time] (sbatch(1)): a signal and the seconds before the time limit.",
     ["--signal=B:USR1@300   (bash gets SIGUSR1 five minutes before the end: time to save a checkpoint)"]),
    (r"^Invalid --begin specification|^Invalid --deadline specification",
     "The --begin/--deadline time is not one Slurm reads: HH:MM[:SS], YYYY-MM-DD[THH:MM[:SS]], now+<count>[units], "
     "midnight, noon, teatime ...",
     ["--begin=now+1hour or --begin=2026-12-01T08:00"]),
    (r"^invalid number of (?:tasks|cpus per task|nodes)|^\"%s\" is not a valid node count",
     "A task, CPU or node count is zero, negative or not a number.",
     ["-n / -c / -N with positive numbers (-N min-max for a range)"]),
    (r"^Maximum node count %d is less than minimum node count",
     "-N/--nodes was given as min-max with max < min.",
     ["-N <min>-<max> with min <= max, or one number"]),
    (r"^--ntasks-per-core \(%d\) can not be bigger than --threads-per-core",
     "More tasks per core than the hardware threads asked per core.",
     ["lower --ntasks-per-core or raise --threads-per-core (at most the node's ThreadsPerCore: scontrol show node)"]),
    (r"^Too few processes for the requested \{plane,node\} distribution",
     "-n is smaller than the plane size or node count the distribution needs.",
     ["raise -n or lower the plane size / -N"]),
    (r"^--container requires LaunchParameters=use_interactive_step",
     "salloc --container runs the interactive shell in a container only when the cluster sets "
     "LaunchParameters=use_interactive_step in slurm.conf.",
     ["salloc without --container, then srun --container-image=... (pyxis) or srun --container=<bundle> per step; "
      "admins: LaunchParameters=use_interactive_step"]),
    (r"^no controlling terminal: please set --no-shell",
     "salloc runs an interactive shell and needs a terminal; it was run from a script, cron or a pipe.",
     ["salloc --no-shell ... (then srun --jobid=<JOBID> ...), or use sbatch for batch work"]),
    # srun inside an allocation (src/srun/srun_job.c, launch.c, allocate.c, opt.c)
    (r"step creation (?:temporarily|still) disabled, retrying",
     "srun is waiting: the step it wants cannot get its CPUs, memory or GPUs inside the job's allocation now, "
     "because another step of the job holds them (e.g. a first srun still running, or srun inside an interactive "
     "'srun --pty bash' step). The reason in parentheses is Slurm's (Requested nodes are busy, Memory required by "
     "task is not available ...). Since Slurm 20.11 steps do not share resources unless asked to.",
     ["squeue -s -j {%1|<JOBID>}   (the job's running steps)", "a step beside a running one: srun --overlap ...; "
      "several steps at once: give each its share (srun --exact -n1 --gpus=1 --mem=<part> ...); interactive work: "
      "salloc (with LaunchParameters=use_interactive_step) then srun, not srun inside srun --pty"]),
    (r"^Requested node %s is also in the excluded list|^Requested nodelist %s overlaps with excluded",
     "The same node is both required (-w/--nodelist) and excluded (-x/--exclude), possibly one of them from a #SBATCH "
     "line or SLURM_* variable.",
     ["env | grep -E 'SLURM_(JOB_NODELIST|NODELIST|EXCLUDE)'", "remove {%1|the node} from one of the two lists"]),
    (r"^You asked for %d tasks but hostlist specified %d nodes",
     "With --distribution=arbitrary the hostlist names one node per task: the counts differ.",
     ["list one host per task in SLURM_HOSTFILE / -w, or drop -m arbitrary"]),
    (r"^Only allocated %d nodes asked for %d|^Are required nodes explicitly excluded",
     "srun asks for more nodes (-N) than the job's allocation has (or the ones left after -x).",
     ["echo $SLURM_JOB_NUM_NODES   (inside the job)", "srun -N <at most that> (or allocate more nodes with "
      "sbatch/salloc -N)"]),
    (r"^Minimum node count > (?:allocated|maximum) node count",
     "srun -N asks for more nodes than the job allocated (or min > max).",
     ["srun -N <= $SLURM_JOB_NUM_NODES; allocate more with sbatch/salloc -N"]),
    (r"^SLURM_JOB_NUM_NODES environment variable conflicts with allocated node count",
     "srun runs with a SLURM_JOB_NUM_NODES inherited from another job or set by hand, not the current allocation's.",
     ["env | grep ^SLURM_   (stale values from an older job)", "unset SLURM_JOB_NUM_NODES SLURM_NNODES (or start "
      "a clean shell) and run srun again"]),
    (r"^--relative and (?:--nodes|SLURM_JOB_NUM_NODES) option incompatible",
     "-r/--relative plus -N goes past the last node of the allocation.",
     ["srun -r <offset> -N <n> with offset + n <= $SLURM_JOB_NUM_NODES"]),
    (r"^Slurm job %u has expired|^Check SLURM_JOB_ID environment variable",
     "srun ran with a SLURM_JOB_ID (or SLURM_JOBID) of a job that has ended: a shell left from an old salloc, "
     "or a variable exported by hand.",
     ["echo $SLURM_JOB_ID; squeue -j $SLURM_JOB_ID", "exit that shell, or unset SLURM_JOB_ID SLURM_JOBID, then "
      "salloc/sbatch a new job"]),
    (r"^Unable to confirm allocation for job",
     "srun tried to run a step in the job {%1|named by SLURM_JOB_ID} and slurmctld refused (the job ended, was "
     "cancelled, or belongs to another user); the reason follows the colon.",
     ["echo $SLURM_JOB_ID; squeue -j $SLURM_JOB_ID", "unset SLURM_JOB_ID SLURM_JOBID (a stale value) or run inside "
      "a live allocation"]),
    (r"^No command given to execute",
     "srun was run without a program to start.",
     ["srun [options] <program> [args]"]),
    (r"^Can not execute %s",
     "srun --test-exec or --bcast (which copies the program to the nodes) looks the program up on the submit host "
     "first (src/srun/opt.c search_path): it is not on PATH there, or not executable.",
     ["which {%1|<program>}; ls -l {%1|<program>}", "give a full path, activate the environment before srun, or chmod +x"]),
    (r"^--mpi is only supported in the first heterogeneous component",
     "In a heterogeneous step, --mpi may be given only once, with the first component.",
     ["move --mpi=... before the first ':' of the srun line"]),
    # the step launch (src/api/step_launch.c) and srun's task exit report (src/srun/launch.c)
    (r"^timeout waiting for task launch, started %d of %d tasks",
     "srun gave up waiting for the slurmd of some nodes to start their tasks (the tasks that started are killed): "
     "a slow or hung prolog, slurmstepd stuck in a D-state process or a file system, or a node that cannot reach "
     "srun's ports.",
     ["on the nodes that did not start: the slurmd log (journalctl -u slurmd) around that time",
      "users: resubmit with --exclude=<node>; admins: fix the node (or PrologEpilogTimeout / MessageTimeout), and "
      "allow srun's ports (SrunPortRange in slurm.conf) through the firewall"]),
    (r"^Task launch for %ps failed on node %s",
     "slurmd on that node refused or could not start the step's tasks; the reason follows the node name "
     "(slurm_strerror: a missing program, a failed prolog, a bad credential, a missing user).",
     ["the slurmd log on {%2|that node} (journalctl -u slurmd, or SlurmdLogFile)", "fix what the reason names; users: "
      "--exclude={%2|<node>} meanwhile"]),
    (r"^task %u launch failed: %s",
     "One task of the step did not start on its node; the reason follows (e.g. a program not found there).",
     ["srun -N1 -w <node> which <program>", "fix what the reason names (a path on a shared filesystem, the "
      "environment activated inside the job)"]),
    (r"^Application launch failed",
     "srun could not launch the step's tasks; the reason follows the colon.",
     ["srun -v ... (more detail); the slurmd log on the nodes"]),
    (r"^Cannot communicate with node %d\.  Aborting job|aborting, io error with slurmstepd on node %d|"
     r"^Aborting, (?:step missing and io error|io error and missing step) on node %d|"
     r"^Aborting, can not test connection to node %d",
     "srun lost its connection to the step's slurmstepd on one node ({%-1|the number} is the node's index in the step) and "
     "ended the step: that node crashed or rebooted, slurmd/slurmstepd died there, or the network between srun and "
     "the node dropped.",
     ["sinfo -R; scontrol show node <the step's node at that index: scontrol show hostnames $SLURM_JOB_NODELIST>",
      "admins: the slurmd log and dmesg of that node; users: resubmit with --exclude=<node> (srun --no-kill keeps "
      "the step on the other nodes when a node fails)"]),
    (r"^%s: Unable to find command \"%s\"|^%s: Unable to exec command \"%s\"",
     "salloc runs the command given after its options on the submit host (the shell by default); that command is "
     "not on PATH there, or cannot be executed.",
     ["which {%2|<command>}", "give the full path, or load its module / activate its environment before salloc"]),
    (r"^TMPDIR \[%s\] is not (?:a directory|writeable)|^Setting TMPDIR to /tmp$",
     "The TMPDIR the job inherited from the submit shell does not exist (or is not writable) on the compute node, "
     "so slurmstepd sets TMPDIR=/tmp for the tasks (src/slurmd/slurmstepd/task.c).",
     ["echo $TMPDIR   (in the submitting shell); srun -N1 -w <node> ls -ld {%1|<that path>}", "export TMPDIR to a path "
      "that exists on the nodes (or unset it before sbatch/srun); admins: job_container/tmpfs for a per-job /tmp"]),
    (r"^ConstrainSwapSpace is enabled but there is no support for swap in the memory cgroup controller",
     "cgroup.conf sets ConstrainSwapSpace=yes, but the kernel's memory cgroup has no swap accounting on this node "
     "(cgroup v1 without the swapaccount=1 kernel parameter, or a cgroup v2 without memory.swap.max).",
     ["ls /sys/fs/cgroup/memory/memory.memsw.limit_in_bytes (v1) or a job cgroup's memory.swap.max (v2); "
      "cat /proc/cmdline", "admins: boot with swapaccount=1 (cgroup v1), or set ConstrainSwapSpace=no in "
      "cgroup.conf; systemctl restart slurmd"]),
    (r"CgroupPlugin=disabled in cgroup\.conf is not compatible with task/cgroup",
     "cgroup.conf disables the cgroup plugin, but slurm.conf's TaskPlugin includes task/cgroup, which needs it.",
     ["grep -E 'TaskPlugin|ProctrackType' /etc/slurm/slurm.conf; grep CgroupPlugin /etc/slurm/cgroup.conf",
      "admins: either drop task/cgroup from TaskPlugin (task/affinity) and use proctrack/linuxproc, or set "
      "CgroupPlugin to autodetect/cgroup/v2; restart slurmd"]),
    (r"^Nodes %s are still not ready|^Something is wrong with the boot of the nodes",
     "The allocation's nodes were powered up or rebooted for the job (power saving: ResumeProgram, or --reboot) and "
     "did not become ready in time (ResumeTimeout in slurm.conf).",
     ["scontrol show node {%1|<nodes>} | grep -E 'State|Reason'", "wait and resubmit; admins: the ResumeProgram's log "
      "and ResumeTimeout in slurm.conf"]),
    (r"^Invalid %ps credential for user %u: host %s not in hostlist %s",
     "The slurmd that got the job's credential runs under a node name that is not among the job's nodes: this "
     "slurmd took another NodeName (slurmd -N, a cloned node image with the same hostname, a DNS name that maps "
     "two nodes to one NodeName).",
     ["on {%3|that host}: hostname -s; slurmd -C   (the NodeName it would take); scontrol show node {%3|<host>}",
      "admins: give each host its own NodeName (NodeHostname/NodeAddr in slurm.conf match the host), restart slurmd"]),
    (r"^%s: %s %s: Out Of Memory$",
     "A task of the step was killed by the kernel's OOM killer in the job's memory cgroup (host RAM, not GPU "
     "memory): the task used more than the job's --mem / --mem-per-cpu / --mem-per-gpu.",
     ["sacct -j <JOBID> -o JobID,State,ReqMem,MaxRSS", "sbatch --mem=<more> (or --mem-per-gpu); fewer DataLoader "
      "workers, smaller prefetch or pinned-memory buffers lower it"]),
    (r"exceeded memory limit \(%lu ?> ?%lu\), (?:being killed|cancelling it)",
     "Slurm's accounting sampler saw the step/job's memory above its limit and killed it (JobAcctGatherParams="
     "OverMemoryKill, or no cgroup memory enforcement): host RAM, not GPU memory.",
     ["sacct -j <JOBID> -o JobID,State,ReqMem,MaxRSS", "sbatch --mem=<more> (or --mem-per-cpu / --mem-per-gpu)"]),
    (r"CANCELLED AT %s DUE TO TIME LIMIT",
     "The job (or step) reached its time limit (--time, or the partition's DefaultTime/MaxTime) and Slurm killed it; "
     "nothing else failed.",
     ["sacct -j <JOBID> -o JobID,Timelimit,Elapsed,State; scontrol show partition <P> | grep -E 'MaxTime|DefaultTime'",
      "sbatch --time=<longer> (at most MaxTime), or resume from checkpoints: --signal=B:USR1@300 to save one before "
      "the end, and --requeue / a job chain"]),
    (r"has exceeded its time limit and its allocation has been revoked",
     "The salloc allocation reached its --time limit and Slurm took it back.",
     ["salloc --time=<longer> (at most the partition's MaxTime: scontrol show partition)"]),
    (r"CANCELLED AT %s DUE TO NODE FAILURE",
     "A node of the job stopped answering (slurmd down, node crash, network) and slurmctld killed the job.",
     ["sacct -j <JOBID> -o JobID,State,NodeList; sinfo -R   (the node's reason)", "resubmit with "
      "--exclude=<node> (or sbatch --requeue to restart automatically); admins: the node's slurmd log and dmesg"]),
    (r"^Node failure on %s$",
     "slurmctld told srun that a node of the step failed (not responding or set DOWN); the step is killed there.",
     ["sinfo -R -n {%1|<node>}", "resubmit with --exclude={%1|<node>}; srun --no-kill keeps the other nodes' tasks running"]),
    # prolog / epilog (src/slurmd/slurmd/req.c, src/slurmd/slurmstepd/mgr.c, src/plugins/prep/script/prep_script_slurmd.c)
    (r"^(?:%pI|\[job %u\]) prolog failed status=%d:%d",
     "The node's Prolog script (slurm.conf Prolog=) exited non-zero (status=exit:signal) before the job started; "
     "slurmctld drains the node and requeues the job held ('launch failed requeued held').",
     ["admins: run the Prolog by hand on that node; its output and exit code are in the slurmd log "
      "(journalctl -u slurmd: 'prolog failed: rc:N output:...')", "fix the script (a health check that failed is "
      "doing its job: fix the node), then scontrol update nodename=<node> state=resume; users: scontrol release "
      "<JOBID> or resubmit with --exclude=<node>"]),
    (r"^Prolog fail(?:ure|ed) on node %s$",
     "The node's Prolog failed when the job started there; slurmd could not requeue the job (an interactive salloc/srun "
     "allocation, or requeue disabled), so it was killed and the allocation revoked. slurmctld drains that node.",
     ["sinfo -R -n {%1|<node>}   (its reason); admins: the slurmd log on the node ('prolog failed: rc:N output:...')",
      "resubmit with --exclude={%1|<node>}; admins: fix the Prolog or the node, then scontrol update nodename={%1|<node>} "
      "state=resume"]),
    (r"^(?:%pI|\[job %u\]) epilog failed status=%d:%d",
     "The node's Epilog script (slurm.conf Epilog=) exited non-zero after the job; slurmctld drains the node "
     "('Epilog error'). The job itself finished.",
     ["admins: run the Epilog by hand on the node; the slurmd log has its output", "fix the script or the node, then "
      "scontrol update nodename=<node> state=resume"]),
    (r"^%pI %s failed status=%d:%d",
     "The node's Prolog or Epilog, run by slurmstepd inside the job's extern step (PrologFlags=RunInJob, "
     "src/slurmd/slurmstepd/mgr.c), exited non-zero (status=exit:signal).",
     ["admins: the slurmd log on that node ('prolog failed: rc:N output:...'); run the script by hand",
      "fix the script or the node; scontrol update nodename=<node> state=resume"]),
    (r"^%s failed: rc:%u output:%s",
     "A Prolog/Epilog script run by slurmd exited with rc (the script and its output are on the line): the "
     "node's own health check or setup step failed.",
     ["run that script by hand on the node, as root, with the job's SLURM_* variables", "fix what its output names; "
      "then scontrol update nodename=<node> state=resume"]),
    (r"^%s killed by signal %u output:%s",
     "A Prolog/Epilog script was killed by a signal, usually by PrologEpilogTimeout when it runs too long.",
     ["scontrol show config | grep -i PrologEpilogTimeout", "make the script finish in time (no waiting on a hung "
      "mount or network) or raise PrologEpilogTimeout"]),
    (r"^%s didn't run: status:%d reason:%s",
     "slurmd could not run the Prolog/Epilog script at all (missing, not executable, bad interpreter).",
     ["ls -l <script>; head -1 <script>   (on the node)", "fix the path in slurm.conf Prolog=/Epilog= (absolute, "
      "executable by root on every node)"]),
    (r"^srun (?:prolog failed rc = %d|epilog failed status=%d)|^Failed to execute srun prolog/epilog script",
     "srun's own --prolog or --epilog (or SrunProlog / SrunEpilog in slurm.conf) failed on the submit host; after "
     "a failed prolog srun aborts the step.",
     ["run the script by hand; scontrol show config | grep -E 'SrunProlog|SrunEpilog'", "fix or drop it"]),
    (r"^(?:--)?task-(?:prolog|epilog) failed status=%d|^Task(?:Prolog|Epilog) failed status=%d",
     "The task prolog or epilog (srun --task-prolog / --task-epilog, or TaskProlog / TaskEpilog in slurm.conf) "
     "exited non-zero on a node, before or after the task.",
     ["run the script by hand on the node as the user", "fix the script (it must be executable on the node)"]),
    (r"^(?:task-)?(?:prolog|epilog) '%s' not found in PATH or CWD",
     "srun's --prolog/--epilog/--task-prolog/--task-epilog names a file that is not in PATH or the working "
     "directory, or is not executable.",
     ["ls -l {%1|<script>}", "give its absolute path, chmod +x"]),
    # who the user is on the node (src/slurmd/slurmstepd/slurmstepd_job.c, src/common/uid.c)
    (r"^Failed to look up username for uid=%u, cannot continue with launch",
     "slurmstepd on the node cannot turn the job's uid into a user name (getpwuid_r found no entry): the user "
     "is not known on that compute node (sssd/nslcd/LDAP not running or not configured there, or a local account "
     "that exists on the login node only).",
     ["on the node: getent passwd {%1|<uid>}; systemctl status sssd; grep passwd /etc/nsswitch.conf", "admins: make "
      "the user resolvable on every node (start/fix sssd, same directory as the login node), then resubmit or "
      "scontrol release <JOBID>"]),
    (r"^%s: getpwuid_r\(%u\): ?(?:%s|%m|no record found)|^%s: getpwnam_r\(%s\): %s",
     "A Slurm program could not look the user up in the passwd database on this host (the NSS lookup failed or "
     "found nothing).",
     ["getent passwd {%2|<uid or name>} on that host; grep passwd /etc/nsswitch.conf", "admins: fix the host's user "
      "lookup (sssd/nslcd/LDAP), the same as on the login nodes"]),
    (r"^%s: getgrgid_r\(%(?:u|ld)\): %s|^%s: getgrnam_r\(%s\): %s",
     "A Slurm program could not look a group up on this host (the NSS group lookup failed).",
     ["getent group {%2|<gid or name>} on that host", "admins: fix the host's group lookup (sssd/nslcd)"]),
    (r"no user information for user %[ud]",
     "salloc cannot find the running user's passwd entry on this host.",
     ["getent passwd $(id -u)", "admins: fix the login host's user lookup (sssd/nslcd)"]),
    (r"uid: %u setgroups failed|Unable to setgroups\(\)",
     "slurmd/slurmstepd could not set the user's supplementary groups on the node (the group lookup for the user "
     "failed or the list is too long).",
     ["on the node: id <user>; getent group", "admins: fix the group lookup on the node (sssd/nslcd)"]),
    # credentials (src/slurmd/slurmd/req.c)
    (r"^Invalid job credential from %u@%s",
     "slurmd refused the job's credential (signed by slurmctld): most often a clock difference between the "
     "controller and the node (the credential looks expired or not yet valid), or a different munge key / "
     "auth key; the reason follows the colon.",
     ["date on the controller and the node; timedatectl; munge -n | ssh <node> unmunge", "admins: sync clocks (chrony/"
      "ntp) and use the same munge.key (or slurm.key) everywhere; restart munge/slurmd"]),
    # MPI (src/interfaces/mpi.c, src/plugins/mpi/pmix, src/plugins/mpi/pmi2)
    (r"^MPI: Cannot create context for %s|^MPI: Unable to load any plugin",
     "srun/slurmstepd cannot load the MPI plugin the step asks for (--mpi, SLURM_MPI_TYPE or MpiDefault): it is not "
     "installed in this Slurm's PluginDir on that host.",
     ["srun --mpi=list (on the login host and, with srun -N1 -w <node>, on a compute node)", "use a type listed on "
      "both (srun --mpi=pmi2 / pmix), unset SLURM_MPI_TYPE, or have the admins install the plugin on every node"]),
    (r"^Could not open/read/parse mpi\.conf file",
     "slurmd could not read mpi.conf: it sets options for an MPI plugin that is not installed or not loaded.",
     ["cat {%1|/etc/slurm/mpi.conf}; ls <PluginDir>/mpi_*.so", "admins: remove the options of plugins not installed from "
      "mpi.conf (or install them); systemctl restart slurmd"]),
    (r"unable to resolve MPI plugin offset from plugin_id",
     "The step was started by an srun of a different Slurm version (or with a different MPI plugin set) than the "
     "node's slurmd/slurmstepd.",
     ["srun --version; srun -N1 -w <node> slurmd -V", "use the srun that matches the cluster (module load slurm, "
      "the cluster's /usr/bin/srun, not one from a conda env or container)"]),
    (r"^MPI: SLURM_MPI_TYPE environmental variable is not set",
     "slurmstepd got no MPI type for the step (SLURM_MPI_TYPE unset).",
     ["srun --mpi=<type> explicitly (srun --mpi=list)"]),
    (r"^pmi/pmix: incorrect PMIx library version loaded",
     "Slurm's mpi/pmix plugin was built for one PMIx major version and a different libpmix was loaded on this node.",
     ["ldd <PluginDir>/mpi_pmix*.so | grep pmix; ls /usr/lib*/libpmix*   (on the node)", "admins: install the PMIx "
      "Slurm was built with on every node, or rebuild Slurm --with-pmix=<that prefix>; meanwhile srun --mpi=pmi2"]),
    (r"^PMIx_server_init failed with error|^pmixp_libpmix_init\(\) failed|^pmixp_stepd_init\(\) failed",
     "slurmstepd could not start the PMIx server for the step (--mpi=pmix), so the ranks cannot wire up: often the "
     "PMIx temporary directory (under SlurmdSpoolDir or TmpFS, or PMIxCliTmpDirBase in mpi.conf(5)) is missing or not "
     "writable, "
     "or the PMIx library does not match.",
     ["the slurmd log on the node (the PMIx error code before this line); ls -ld <SlurmdSpoolDir>",
      "admins: make that directory exist and be writable (PMIxCliTmpDirBase=<dir> in mpi.conf), match the PMIx "
      "library; users: try "
      "srun --mpi=pmi2 or the MPI's own mpirun inside the allocation"]),
    # the mpi/pmix plugin's exchange between the step's nodes (src/plugins/mpi/pmix/pmixp_coll_*.c, pmixp_dmdx.c,
    # pmixp_dconn_*.c; mpi.conf(5) https://slurm.schedmd.com/mpi.conf.html)
    (r"collective timeout seq=%d|^timeout: ns=%s, rank=%d, host=%s",
     "A PMIx exchange between the step's nodes (the fence every rank enters at MPI/NCCL-over-PMIx init, or a direct "
     "modex request to the named host) did not complete within PMIxTimeout (mpi.conf, 300 s by default): a rank "
     "that died or never reached its init, or slurmstepds of different nodes that cannot reach each other.",
     ["the first error of any rank before this line (srun -l); the slurmd log of the host named", "fix the rank that "
      "failed first; if none did, let the nodes reach each other's slurmd/slurmstepd (firewall, the interface "
      "their names resolve to), or raise PMIxTimeout in mpi.conf for very large jobs"]),
    (r"^Cannot establish the connection$|^Cannot send data \(size = %u\), to %s|^%p: failed to send, abort collective",
     "The mpi/pmix plugin of one node could not open a connection to (or send to) another node's slurmstepd for the "
     "step's PMIx exchange (PMIxDirectConn, the default, connects the nodes directly).",
     ["from one node of the job: nc -zv {%2|<other node>} {%3|<its SlurmdPort>}; getent hosts {%2|<other node>}", "allow the "
      "traffic between compute nodes (firewall, the interface the node names resolve to); as a test, "
      "SLURM_PMIX_DIRECT_CONN=false (or PMIxDirectConn=false in mpi.conf) routes it through slurmd"]),
    (r"^(?:UCX send request failed|Fail to (?:read UCX config|init UCX|create UCX worker|get UCX address)|"
     r"ucp_ep_create failed|Unable to send UCX message)",
     "The mpi/pmix plugin's UCX transport (PMIxDirectConnUCX=true in mpi.conf, or SLURM_PMIX_DIRECT_CONN_UCX) failed "
     "on this node.",
     ["ucx_info -d   (on the node: the devices UCX sees)", "SLURM_PMIX_DIRECT_CONN_UCX=false for the job (or "
      "PMIxDirectConnUCX=false in mpi.conf): PMIx then uses TCP"]),
    (r"^mpi/pmi2: (?:inconsistent client PMI version|unsupported PMI version)",
     "The program's MPI speaks a PMI version Slurm's mpi/pmi2 plugin does not serve (or mixes PMI-1 and PMI-2).",
     ["srun --mpi=list", "match the MPI to the plugin: Open MPI 5 / PRRTE: --mpi=pmix; MPICH / Intel MPI: "
      "--mpi=pmi2 (I_MPI_PMI_LIBRARY=<Slurm's libpmi2.so> for Intel MPI)"]),
    # cgroups and GPUs (src/plugins/task/cgroup/task_cgroup_devices.c, task_cgroup.c)
    (r"^Could not apply device constrain to (?:job|step|task)|^Unable to set access constraint for device",
     "task/cgroup could not restrict the job to its allocated devices (ConstrainDevices=yes in cgroup.conf): the "
     "step's tasks may see every GPU of the node, or none. On cgroup v2 Slurm needs the eBPF device controller "
     "(kernel and cgroup/v2 plugin).",
     ["on the node: the slurmd log around the line; stat -fc %T /sys/fs/cgroup; grep -i Constrain "
      "/etc/slurm/cgroup.conf", "admins: fix the cgroup setup (CgroupPlugin matching the host's cgroup version; "
      "the node's gres.conf File= naming /dev/nvidiaN) and restart slurmd"]),
    # cgroup autodetection and the cgroup/v2 plugin (src/interfaces/cgroup.c autodetect_cgroup_version,
    # src/plugins/cgroup/v2/cgroup_v2.c, cgroup_dbus.c; cgroup.conf(5) https://slurm.schedmd.com/cgroup.conf.html and
    # https://slurm.schedmd.com/cgroup_v2.html)
    (r"^cgroup filesystem not mounted in /sys/fs/cgroup/$|^No filesystem mounted on /sys/fs/cgroup$|"
     r"^Unknown filesystem type mounted on /sys/fs/cgroup$|^The cgroup mountpoint %s is not mounted",
     "slurmd found no cgroup filesystem at /sys/fs/cgroup (CgroupPlugin=autodetect reads its type there): typical of "
     "slurmd in a container or a chroot that does not mount it.",
     ["stat -fc %T /sys/fs/cgroup   (on the node: cgroup2fs for v2, tmpfs for v1)", "mount the host's cgroup2 at "
      "/sys/fs/cgroup for slurmd (a container: --cgroupns=host with /sys/fs/cgroup mounted read-write, or privileged), "
      "or, without cgroups, CgroupPlugin=disabled in cgroup.conf and no task/cgroup or proctrack/cgroup in slurm.conf"]),
    (r"^The cgroup mountpoint does not align with the current namespace",
     "slurmd runs in a cgroup namespace whose /sys/fs/cgroup is not the root of the mount (a container started with "
     "a private cgroup namespace), so the cgroup/v2 plugin cannot find its own cgroup.",
     ["grep cgroup /proc/self/mountinfo   (inside slurmd's container)", "run slurmd's container with --cgroupns=host "
      "(or mount the cgroup2 root), as the cgroup_v2 guide asks; then systemctl restart slurmd"]),
    (r"^cannot setup the scope for cgroup/%s|cannot connect to dbus system daemon",
     "cgroup/v2 asks systemd over dbus to create slurmstepd.scope for the jobs; there is no dbus/systemd to answer "
     "(slurmd in a container, or dbus not running) or systemd refused.",
     ["systemctl status dbus; busctl status   (on the node)", "start dbus/systemd on the node; in a container without "
      "systemd: IgnoreSystemd=yes in cgroup.conf (cgroup.conf(5): Slurm then builds the hierarchy itself), and "
      "systemctl restart slurmd"]),
    (r"^Could not open/read/parse cgroup\.conf file",
     "slurmd could not parse cgroup.conf: an option it does not know (from another Slurm version or a plugin not "
     "built), or a syntax error.",
     ["cat {%1|/etc/slurm/cgroup.conf}; slurmd -V", "remove or fix the option (cgroup.conf(5) of this version; "
      "CgroupAutomount is defunct, src/interfaces/cgroup.c), then systemctl restart slurmd"]),
    (r"^%s: unable to create cgroup '%s' : %m",
     "slurmd/slurmstepd could not create the job's cgroup directory: the cgroup tree is read-only for it or not "
     "delegated to it (a container's read-only /sys/fs/cgroup, a controller not enabled in the parent).",
     ["the reason after the path; cat /sys/fs/cgroup/cgroup.subtree_control", "give slurmd a writable, delegated "
      "cgroup tree (the host's, read-write), or EnableControllers=yes in cgroup.conf where the controllers are not "
      "enabled (old systemd); systemctl restart slurmd"]),
    (r"^failure enabling (?:core|memory|device) enforcement",
     "task/cgroup could not enable the cgroup controller for CPUs, memory or devices on the node (cgroup.conf "
     "Constrain* options): jobs on that node are not confined.",
     ["cat /sys/fs/cgroup/cgroup.subtree_control; grep -i Constrain /etc/slurm/cgroup.conf", "admins: enable the "
      "controller (cgroup v2: the cpuset/memory controllers delegated to slurmd's cgroup) or set CgroupPlugin to "
      "the host's cgroup version; systemctl restart slurmd"]),
    # GPU requests (src/interfaces/gres.c gres_job_state_validate: the client's and slurmctld's checks)
    (r"--%ss-per-task (?:or --tres-per-task )?used without either --%ss or -n/--ntasks is not allowed",
     "--gpus-per-task needs a task count: Slurm multiplies it by -n/--ntasks (or takes --gpus=N total).",
     ["add -n/--ntasks=<tasks> (e.g. -n 8 --gpus-per-task=1), or use --gpus-per-node=N / --gpus=N instead"]),
    (r"^Failed to validate job spec\. --tres-per-task used without -n/--ntasks",
     "--tres-per-task needs a task count (-n/--ntasks).",
     ["add -n/--ntasks=<tasks>"]),
    (r"Based on --%ss and --%ss-per-task number of requested tasks differ from -n/--ntasks",
     "--gpus / --gpus-per-task imply a task count that differs from -n/--ntasks (e.g. --gpus=8 --gpus-per-task=1 "
     "with -n 4).",
     ["make -n = --gpus / --gpus-per-task, or give only two of the three"]),
    (r"-n/--ntasks has to be a multiple of --ntasks-per-%s",
     "-n/--ntasks must be a whole multiple of --ntasks-per-gpu (or --ntasks-per-tres).",
     ["-n <k x ntasks-per-gpu>, or drop -n and let --ntasks-per-gpu with --gpus set it"]),
    (r"requested number of tasks per node differ from --ntasks-per-node",
     "--gres=gpu:N / --gpus-per-node divided by --gpus-per-task gives a different tasks-per-node than "
     "--ntasks-per-node.",
     ["--ntasks-per-node = (GPUs per node) / (--gpus-per-task), or drop one of the options"]),
    (r"requested number of tasks per sockets differ from --ntasks-per-socket",
     "--gpus-per-socket / --gpus-per-task disagrees with --ntasks-per-socket.",
     ["make them agree, or drop --ntasks-per-socket"]),
    (r"not multiple of --%ss-per-task|--%ss is not multiple of --gres=%s/--%ss-per-node|"
     r"--gres=%s/--%ss-per-node not multiple of --%ss-per-socket|--%ss-per-socket not multiple of --%ss-per-task",
     "The GPU counts do not divide evenly (e.g. --gpus-per-node=4 with --gpus-per-task=3).",
     ["choose counts where per-node (or total) GPUs are a multiple of --gpus-per-task / --gpus-per-socket"]),
    (r"^Failed to validate job spec, --%ss < -N$",
     "--gpus=N (total) is smaller than the node count: every node needs at least one GPU.",
     ["--gpus >= -N, or --gpus-per-node=<n> with -N"]),
    (r"requested number of cpus differ from -c/--cpus-pe",
     "--cpus-per-gpu x --gpus-per-task disagrees with -c/--cpus-per-task.",
     ["give either --cpus-per-gpu or --cpus-per-task, not both"]),
    (r"^Timed out waiting for job step to complete$",
     "srun aborted the step (a task failed under --kill-on-bad-exit, a signal, a lost node), sent SIGKILL and waited "
     "KillWait (slurm.conf) plus a fixed margin (src/api/step_launch.c): some tasks still did not exit, i.e. they are "
     "stuck in the kernel (uninterruptible I/O on a network filesystem, a GPU driver call). Why the step was aborted "
     "is the first error above this line.",
     ["the first error of any task above (srun -l labels each line with its task); on the node: ps -eo pid,stat,cmd | "
      "grep ' D'", "fix that first error; processes that outlive SIGKILL point at the node (a hung mount or GPU: "
      "admins drain it, see 'Kill task failed')"]),
    (r"^Job allocation %u has been revoked",
     "The salloc allocation ended under the shell: its time limit, scancel, a node failure or a failed prolog; "
     "the line before this one usually says which.",
     ["sacct -j {%1|<JOBID>} -o JobID,State,Elapsed,Timelimit,NodeList", "act on the reason the lines before name "
      "(a longer --time, --exclude=<node> ...)"]),
    (r"^--gres-flags=allow-task-sharing is only used with srun|^Invalid --gres-flags",
     "--gres-flags takes disable-binding, enforce-binding, multiple-tasks-per-sharing, one-task-per-sharing (and, "
     "for srun only, allow-task-sharing), not contradictory pairs.",
     ["drop the --gres-flags value named, or use it with srun"]),
    # the other option checks of src/common/slurm_opt.c and srun/salloc/sbatch opt.c: the line names the option
    (r"^Invalid --[a-z][a-z-]{1,30} (?:specification|argument|value)|^invalid --[a-z][a-z-]{1,30}=",
     "The value given to the option this line names is not one it takes; it may come from a #SBATCH line or from an "
     "SBATCH_* / SLURM_* input variable rather than the command line (sbatch(1)/srun(1): INPUT ENVIRONMENT "
     "VARIABLES).",
     ["man sbatch (or man srun) for that option's syntax; grep -n '^#SBATCH' <script>; env | grep -E '^S(BATCH|LURM)_'",
      "give the option a value of that syntax, or drop it"]),
    # (slurm19) what the line's own values say to change. srun's opt.c (Slurm <= 22.05): a -w/--nodelist longer than
    # the maximum node count (-N) is cut to that count, and the job runs on fewer nodes than it names
    (r"^Required nodelist includes more nodes than permitted by max-node count",
     "-w/--nodelist names {%1|more} nodes but -N/--nodes allows at most {%2|fewer}: srun drops nodes from the list and "
     "the step runs on fewer nodes than it names.",
     ["ask for as many nodes as the list names: -N {%1|<count>} (--nodes={%1|<count>}), or list only {%2|<max>} "
      "node(s) in -w"]),
    # src/srun/multi_prog.c: every task id of the step (0 .. -n minus 1) needs a line in the --multi-prog file
    (r"^Configuration file %s invalid, no record for task id %d$",
     "srun --multi-prog: the file {%1|given} has no line for task {%2|<id>}; every task id of the step (0 to -n minus "
     "1) needs one (a single id, a range such as 0-3, a list, or '*' for every task not listed).",
     ["give every task id a line in {%1|the file}: add one for task {%2|<id>}, a range (0-{%2|N}) or '*' for the "
      "rest; or start only as many tasks (-n) as the file describes"]),
    # src/api/allocate.c slurm_read_hostfile: -w/--nodelist with a '/' in it (or SLURM_HOSTFILE) is a file of node
    # names (srun(1), sbatch(1) --nodelist: "If a filename is specified ... it is assumed to be a file")
    (r"^slurm_allocate_resources error opening file %s, %m$",
     "-w/--nodelist with a '/' in it (or SLURM_HOSTFILE) is read as a file of node names, and {%1|that file} could "
     "not be opened ({%2|the error}).",
     ["create {%1|the file} with the node names, one per line, at that path; or pass the node names themselves: "
      "-w <node>[,<node>...]"]),
]

# the log calls, and the mpi/pmix plugin's own error macros (src/plugins/mpi/pmix/pmixp_debug.h: they call
# error() with the plugin's prefix; PMIXP_ERROR_NO takes an errno first)
# How Slurm's lines start (src/common/log.c): a command's or daemon's name ('srun: error: ', under
# syslog/journald 'slurmd[123]: '), or in a daemon's log file an ISO time stamp and the job or step
CONTEXT_BELOW = 20
_PREFIX = (r"(?:(?:srun|sbatch|salloc|slurmd|slurmstepd|slurmctld)(?:\[\d{1,10}\])?: |"
           r"\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?\] (?:\[[^\]\n]{1,40}\] )?)")
# the text between a line's prefix (or marker) and the message never crosses another Slurm line's start: explain
# tries a line joined with the next when a message may have been wrapped (gpudoctor/explain/scan.py _search_text);
# two 'srun: error: ...' lines are two records (tools/gen_slurm_errors.py _CONTEXT does the same)
_GAP = r"(?:(?!(?:srun|sbatch|salloc|slurmd|slurmstepd|slurmctld)[:\[])[^\n]){0,160}?"
_CONTEXT = _PREFIX + _GAP

_LEVELS = ("error", "fatal", "fatal_abort", "error_in_daemon", "info", "warning", "slurm_perror",
           "PMIXP_ERROR_STD", "PMIXP_ERROR_NO", "PMIXP_ERROR", "PMIXP_ABORT", "log_var")
_CALL = re.compile(r"(?<![A-Za-z0-9_>.])(%s)\s*\(" % "|".join(_LEVELS))
# The levels whose line carries Slurm's marker (src/common/log.c log_msg: pfx "error: " / "fatal: "
# after the program's name or the daemon's time stamp and step; the PMIXP_* macros call error();
# error_in_daemon() is error() in a daemon and verbose(), with no marker, in a command). Levels
# that print no marker or a quiet one: info/verbose (none), debug..debug5 ('debug2: ').
_MARKED = ("error", "fatal", "fatal_abort", "error_in_daemon", "PMIXP_ERROR_STD", "PMIXP_ERROR_NO", "PMIXP_ERROR",
           "PMIXP_ABORT", "err_msg")
_QUIET_CALL = re.compile(r"(?<![A-Za-z0-9_>.])(info|verbose|debug[2-5]?)\s*\(")
_MARKER = r"(?:error|fatal): " + _GAP
# slurmctld's refusal text for a job request (node_scheduler.c _set_err_msg, job_mgr.c): '*err_msg = xstrdup("...")'
# goes back in the RPC's reply and the client prints it at error level (src/common/slurm_protocol_pack.c
# _unpack_return_code2_msg: print_multi_line_string(err_msg, -1, LOG_LEVEL_ERROR), 'sbatch: error: Memory
# specification can not be satisfied') before 'Batch job submission failed: <slurm_strerror>'
_ERRMSG = re.compile(r"(?<![A-Za-z0-9_])\*err_msg\s*=\s*xstrdup(?:_printf)?\s*\(|xstrfmtcat\s*\(\s*\*err_msg\s*,")
# a message slurmd sends to the job's srun/salloc (slurm_notify_job(step, buf), src/slurmd/slurmd/req.c: 'Prolog
# failure on node %s'), which prints it as a plain line (src/salloc/salloc.c _user_msg_handler: info("%s", ...)):
# the xstrfmtcat(buf, ...) just before the call is the format (level "notify")
_NOTIFY = re.compile(r"xstrfmtcat\s*\(\s*(\w+)\s*,(?=[^;]{0,200};(?:[^;]{0,120};)?\s*slurm_notify_job\s*\([^,;]{1,60},\s*\1\s*\))")
_CTLD = re.compile(r"(?:state_desc\s*=\s*xstrdup(?:_printf)?|xstrfmtcat\s*\(\s*job_ptr->state_desc\s*,)\s*\(?")
# Where slurmctld names the reason of a node it drains or sets down (node_mgr.c validate_node_specs,
# gres.c _node_config_validate, ping_nodes.c, agent.c, job_mgr.c): the format is the call's next
# literal argument (set_node_down(name, "Not responding"), drain_nodes(nodes, "Epilog error", uid)),
# or what is appended to reason_down, or a literal assigned to a reason
_REASON = re.compile(r"(?:xstrcat|xstrfmtcat)\s*\(\s*\*?(?:\w+->)?reason_down\s*,|"
                     r"(?<![A-Za-z0-9_])(?:set_node_down(?:_ptr)?|drain_nodes)\s*\(\s*[^,()\n]{1,60},|"
                     r"(?<![A-Za-z0-9_>.])reason\s*=\s*(?=\")|->reason\s*=\s*xstrdup(?:_printf)?\s*\(")
# How a node's reason is printed (src/scontrol/info_node.c 'Reason=%s [%s@%s]'; src/sinfo/opts.c
# `sinfo -R`'s default format '%20E %9u %19H %N': the reason cut to 20 characters, then the user and
# the time; slurmctld's 'Setting node %s state to INVAL with reason:%s' (node_mgr.c) and update_node's
# 'node %s reason set to: %s'): a short reason matches only there
_REASON_CTX = r"(?:Reason=|with reason: ?|reason set to: ?)"
SINFO_REASON_WIDTH = 20
FAILURE_WORDS = re.compile(r"fail|error|unable|cannot|can't|could not|couldn't|invalid|not found|denied|refused|"
                           r"weren't able|wasn't found|"
                           r"timed out|killed|exceeded|CANCELLED|requeued|held|"
                           # srun's info() while a step waits for resources (src/srun/launch.c)
                           r"step creation (?:temporarily|still) disabled", re.IGNORECASE)


def parse_format(src, i):
    """The format at src[i]: adjacent string literals and PRIxNN macros (another macro, a string
    constant, is %s), up to the first ',' or ')' outside a literal (knowgen.c_format). None if it
    starts with no literal."""
    return knowgen.c_format(src, i, macro=r"[A-Z][A-Z0-9_]{2,}\b")


def slurm_to_printf(fmt):
    """Slurm's own conversions as plain ones: %m (strerror) and %pJ/%ps/%pS/%pA... are strings."""
    return re.sub(r"%(?:p[A-Za-z]|m)", "%s", fmt.replace("%%", "\0")).replace("\0", "%%")


def sites_of(path, src):
    calls = [(m, m.group(1)) for m in _CALL.finditer(src)]
    if path in CTLD_PATHS:
        calls = [(m, "state_desc") for m in _CTLD.finditer(src)] + [(m, "err_msg") for m in _ERRMSG.finditer(src)]
    calls += [(m, "notify") for m in _NOTIFY.finditer(src)]
    if path == "src/common/plugin.c":
        calls += [(m, "error") for m in _DEMOTED.finditer(src)]
    if path.startswith("src/slurmctld/") or path in ("src/interfaces/gres.c", "src/common/gres.c"):
        calls += [(m, "reason") for m in _REASON.finditer(src)]
    calls.sort(key=lambda c: c[0].start())
    for m, level in calls:
        start = m.end()
        if level == "PMIXP_ERROR_NO":  # (err, format, ...)
            start = src.find(",", start, start + 200) + 1
            if start <= 0:
                continue
        if level == "log_var":
            # log_var(level, format, ...) (src/common/log.c): an error where its level can be LOG_LEVEL_ERROR
            # (slurmd.c: 'Node configuration differs from hardware' at ERROR unless config_overrides)
            args = knowgen.call_args(src, start)
            if not args or len(args) < 2 or "LOG_LEVEL_ERROR" not in args[0]:
                continue
            level, start = "error", src.find(",", src.index(args[0], start) + len(args[0])) + 1
        fmt = parse_format(src, start)
        if not fmt or not fmt.strip():
            continue
        if level == "reason" and not re.search(r"[A-Za-z]{3}", fmt):
            continue  # xstrcat(reason_down, ", "): the separator between two reasons
        if level in ("info", "warning") and not FAILURE_WORDS.search(fmt):
            continue
        yield level, "%s:%d" % (path, src.count("\n", 0, m.start()) + 1), fmt


def reason_regex(fmt, rx, literal):
    """The matcher of a node reason: the reason itself when its literal is long enough to be Slurm's
    alone, else after Reason= (or slurmctld's 'with reason:'); and `sinfo -R`'s row (the reason cut
    to SINFO_REASON_WIDTH, padded, then the user and the ISO time) when that cut is all literal."""
    if len("".join(literal.split())) >= CONTEXT_BELOW:
        alts = [rx]
    else:
        lead = r"[^\n]{0,60}?" if re.match(r"\s*%", fmt) else ""
        alts = [_REASON_CTX + lead + rx]
    cut = fmt[:SINFO_REASON_WIDTH]
    if "%" not in cut and cut.strip() == cut:
        alts.append(r"^" + re.escape(cut) + r"[ ]{1,40}[A-Za-z_][\w.-]{0,31}[ ]{1,20}\d{4}-\d\d-\d\dT\d\d:\d\d")
    return "|".join(alts) if len(alts) == 1 else "(?:%s)" % ")|(?:".join(alts)


def plugin_formats(path, fmt):
    """[(kind, family, format)]: the format of a plugin lookup with its plugin named, for each
    PLUGIN_TYPES row of its file ('cannot find %s plugin for %s' -> 'cannot find mpi plugin for mpi/%s')."""
    if not re.search(r"\bfor %s\b", fmt):
        return []
    out = []
    for where, kind, name, family in PLUGIN_TYPES:
        if where == path:
            text = re.sub(r"%s (plugin|context)\b", kind + r" \1", fmt, count=1)
            out.append((kind, family, text.replace("for %s", "for " + name.replace("%", "%%").replace("%%s", "%s"), 1)))
    return out


def _optional_stop(rx):
    """A format's closing full stop made optional: a user pastes the line as a wrapper or a thread
    quotes it, often without it ('fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive',
    bessagroup/f3dasm#352, for src/common/slurm_opt.c's '... mutually exclusive.'); the matcher is searched,
    not anchored, so this only drops one character at its end."""
    if rx and rx.endswith(r"\.") and not rx.endswith(r"\.\."):
        return rx[:-2] + r"\.?"
    return rx


def _norm(fmt):
    return fmt.strip().rstrip(".").strip()


def quiet_formats(files):
    """The formats Slurm also prints at info, verbose or debug level somewhere (no marker, or a
    debug one): salloc's info('Job allocation %u has been revoked.') when it gives the allocation
    back is the text of an error() elsewhere."""
    out = set()
    for _path, src in files:
        for m in _QUIET_CALL.finditer(src):
            fmt = parse_format(src, m.end())
            if fmt and fmt.strip():
                out.add(_norm(fmt))
    return out


def build(files, version, older=()):
    """Sites of `files` (the pinned revision), then, for each (tag, files) of `older` (newest first), the formats
    only that older release prints (reworded or removed since; public threads quote the Slurm their cluster runs),
    each with `until`: the newest of the tags read that prints it (tools/gen_mpich_messages.py does the same)."""
    sites, seen = [], set()
    for tag, tfiles in [(None, files)] + list(older):
        _collect(tfiles, sites, seen, tag)
    if older:
        version += "; older texts from %s" % ", ".join(t for t, _ in older)
    return {"header": knowgen.header(SOURCE, version, GENERATOR,
                                     "error/fatal/info/warning format strings of Slurm's commands, slurmd, "
                                     "slurmstepd and plugins, and slurmctld's job state descriptions; families "
                                     "from the RULES table of the generator"), "sites": sites}


def _collect(files, sites, seen, tag=None):
    """Append the sites of `files` whose (level, format) is not in `seen` (an older release's: with `until` and an
    id that names the release)."""
    first = len(sites)
    quiet = quiet_formats(files)
    for path, src in files:
        for level, where, fmt in sites_of(path, src):
            key = (level, fmt)
            if key in seen:  # one format printed at several places: one matcher (its first site)
                continue
            seen.add(key)
            rx, literal = knowgen.printf_to_regex(slurm_to_printf(fmt))
            rx = _optional_stop(rx)
            site = {"id": "slurm.%s.%s" % ("node_reason" if level == "reason" else "msg", knowgen.slug(where)),
                    "where": where, "level": level, "text": fmt}
            if knowgen.unanchored(site, rx, literal, need=6 if level == "reason" else knowgen.MIN_LITERAL):
                pass  # no matcher: listed as unassigned
            elif level == "reason":
                rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt, "level": level})
                site.update({"re": reason_regex(fmt, rx, literal), "family": family, "rule": rule})
                knowgen.give_fix(site, MSG_FIX, fmt)
            elif re.fullmatch(r"\s*\w+\s*=\s*%[-+ #0-9.]*[a-zA-Z]+\s*", fmt):
                # a bare 'name=%d' dump (pmixp_utils.c's 'blocking=%d') is no message: as a matcher
                # it took torch's 'consider passing CUDA_LAUNCH_BLOCKING=1' for a Slurm MPI error
                site.update({"re": None, "family": None, "rule": "a bare name=value dump, no message"})
            else:
                short = len("".join(literal.split())) < CONTEXT_BELOW
                if level in _MARKED and short:
                    # a short literal (': unpack error', 'invalid key:', 'net_stream_listen') is no Slurm message
                    # by itself: it follows a Slurm program's prefix or slurmd's log stamp, and the level's
                    # marker ('srun: debug:  port from net_stream_listen is %u' is a debug line)
                    rx = _PREFIX + _MARKER + rx
                elif short:
                    rx = _CONTEXT + rx
                elif level in _MARKED and _norm(fmt) in quiet:
                    # printed at info/verbose/debug level too: only the line with the marker is the error
                    rx = r"\b" + _MARKER + rx
                rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt, "level": level})
                if rule in CONTEXT_RULE_NAMES and not specific_enough(fmt):
                    rule, family = VAGUE, None
                if family is None and rule is None and level in ("info", "warning"):
                    rule = NOT_A_FAILURE  # listed apart from the sites still to assign (docs/explain.md)
                site.update({"re": rx, "family": family, "rule": rule})
                knowgen.give_fix(site, MSG_FIX, fmt)
            sites.append(site)
            for kind, family, text in plugin_formats(path, fmt):
                if (level, text) in seen:
                    continue
                seen.add((level, text))
                rx, literal = knowgen.printf_to_regex(slurm_to_printf(text))
                if len("".join(literal.split())) < CONTEXT_BELOW:
                    rx = _PREFIX + _MARKER + rx
                one = {"id": "slurm.msg.%s.%s" % (knowgen.slug(where), kind), "where": where, "level": level,
                       "text": text, "re": rx, "family": family, "rule": "plugin-%s" % kind}
                knowgen.give_fix(one, MSG_FIX, text)
                sites.append(one)
    if tag:
        prefix = "slurm.%s." % knowgen.slug(tag)
        for site in sites[first:]:
            site["until"] = tag
            site["id"] = site["id"].replace("slurm.", prefix, 1)


def _wanted(path):
    return path.endswith(".c") and any(path == p or path.startswith(p + "/") for p in PATHS + CTLD_PATHS +
                                       CTLD_LOG_PATHS)


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    return knowgen.tree_files(git, rev, ("src",), _wanted), knowgen.slurm_release(git, rev)


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="HEAD", extra=[(
        "--older", {"default": "", "help": "comma-separated older release tags, newest first (e.g. slurm-25-05-8-1,"
                                           "slurm-24-05-8-1): their formats that the pinned revision no longer has"})])
    files, version = knowgen.source_files(a, from_repo)
    older = [(tag, from_repo(a.repo, tag)[0]) for tag in a.older.split(",") if tag and a.repo]
    doc = build(files, version, older)
    if a.repo:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"])
    return knowgen.emit("slurm_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

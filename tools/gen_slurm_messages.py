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
    python tools/gen_slurm_messages.py --repo /path/to/slurm.git [--rev HEAD] [-o OUT]
    python tools/gen_slurm_messages.py --slice tools/data/slurm_messages_slice.txt -o OUT   (the test)

Source: SchedMD/slurm (https://github.com/SchedMD/slurm), read with `git show REV:path`.
Slurm's log functions take printf formats with its own conversions (src/common/xstring.c,
src/common/log.c): %m is strerror(errno), %pJ / %ps / %pS / %pA print a job, a step or an
address; they are read as strings here.
"""

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
    # slurmctld's ReqNodeNotAvail descriptions (node_scheduler.c): the text after the comma says which
    ("reservation", "slurm.reservation", {"text": r"Reserved for maintenance|May be reserved for other job|"
                                                  r"which this job was running under, has ended"}),
    ("unavailable-nodes", "slurm.node_down", {"text": r"^ReqNodeNotAvail, UnavailableNodes:"}),
    # fetch_config.c's memfd write ('could not write conf file, likely out of memory') is no job's OOM
    ("conf-write", None, {"where": r"fetch_config\.c", "text": r"could not write"}),
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
    ("gpu-detect", "slurm.node_gres", {"where": r"interfaces/gpu\.c"}),
    # gres.c validates what a slurmd reports against slurm.conf (gres_node_config_validate); the gres
    # plugins run in slurmd (gres.conf, AutoDetect=nvml)
    ("node-gres", "slurm.node_gres", {"where": r"interfaces/gres\.c",
                                      "text": r"reported lower than configured|count too low|[Cc]ount changed|"
                                              r"configured on node|GRES data|GRES record|gres\.conf|[Aa]uto[Dd]etect|"
                                              r"\bnvml\b|NVML|File="}),
    ("node-gres-plugin", "slurm.node_gres", {"where": r"plugins/gres/"}),
    ("node-gres-reason", "slurm.node_gres", {"level": r"^reason$", "where": r"interfaces/gres\.c"}),
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
                                          r"[Cc]ould not open (?:stdout|stderr|stdin|output|input)|"
                                          r"[Cc]annot open (?:stdout|stderr|stdin)|[Uu]nable to open (?:output|input)|"
                                          r"Unable to (?:find|exec) command"}),
    ("mpi-where", "slurm.mpi", {"where": r"plugins/mpi/|interfaces/mpi\.c"}),
    ("mpi-text", "slurm.mpi", {"text": r"\bPMIx?\b|PMI2|pmix|MPI type|--mpi\b"}),
    ("user", "slurm.user_unknown", {"text": r"getpw(?:nam|uid)|getgr(?:nam|gid)|[Rr]esolve (?:user|uid|gid|group)|"
                                            r"Invalid user|[Uu]nknown user|initgroups|setgroups|"
                                            r"user name|uid_from_string|[Uu]ser .{0,20}not found|"
                                            r"no user information for user"}),
    ("auth", "slurm.auth", {"text": r"[Mm]unge|MUNGE|credential|[Aa]uthenticat"}),
    # the plugin loader's own message names the plugin in its %s (mpi/pmix, gres/gpu): no family by the file
    ("plugin-load", None, {"text": r"specified plugin name for %s"}),
    ("gres", "slurm.gres", {"where": r"interfaces/gres\.c"}),
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
                                        r"can not be bigger|Too few"}),
]

# What one message means and what to do, where its family's fix is not enough (the first regex
# over the format that matches): [(regex, means, [fix])]
MSG_FIX = [
    (r"^ReqNodeNotAvail, UnavailableNodes:%s$",
     "Pending: the listed nodes are down, drained or not responding, and the job needs them (it names them with "
     "-w/--nodelist, or it needs more nodes of its partition than the others can give).",
     ["sinfo -R -n <the listed nodes>   (why each is down or drained)", "drop those nodes from -w/--nodelist or "
      "sbatch --exclude=<list>, ask for fewer nodes (-N), or wait until the admins resume them"]),
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
    (r"DUE to SIGNAL",
     "The job was cancelled with a signal (scancel, or the admins).",
     ["sacct -j <JOBID> -o JobID,State,ExitCode", "nothing in the job failed: find who cancelled it"]),
    (r"DUE TO TASK FAILURE",
     "One task of the step failed and srun --kill-on-bad-exit (or the job's settings) cancelled the others: the "
     "first failing task's own error is the cause.",
     ["find the first task's error above this line (srun -l labels lines with the task number)"]),
    (r"^Detected %\S+ oom_kill event",
     "A task of the step used more host memory than the job's allocation, and the kernel's OOM killer inside "
     "Slurm's memory cgroup killed it (host RAM, not GPU memory).",
     ["sacct -j <JOBID> -o JobID,State,ReqMem,MaxRSS", "sbatch --mem=<more> (or --mem-per-gpu/--mem-per-cpu; "
      "--mem=0 for a whole node where allowed); fewer DataLoader workers lower it"]),
    (r"Unable to create TMPDIR",
     "slurmstepd could not create the TMPDIR the job's environment names on the compute node (the directory's "
     "parent is missing there, or not writable).",
     ["srun -N1 -w <node> ls -ld $TMPDIR", "export TMPDIR=/tmp (or a node-local path that exists) before "
      "srun/sbatch; admins: the job_container/tmpfs BasePath"]),
    (r"couldn't chdir to",
     "The job's working directory (the submit directory or -D/--chdir) does not exist on the compute node; the "
     "task runs in /tmp instead, so relative paths break.",
     ["srun -N1 -w <node> ls -ld <dir>", "submit from a directory on a shared filesystem, or sbatch "
      "-D/--chdir=<shared dir>"]),
    (r"^execve\(\): bad interpreter",
     "The script's #! interpreter does not exist on the compute node.",
     ["head -1 <script>; srun -N1 -w <node> ls -l <interpreter>", "fix the #! line (e.g. #!/bin/bash), or install "
      "the interpreter on the nodes"]),
    (r"^execve\(\): %s: %m",
     "slurmstepd could not start the task's program on the node: not found there (not on PATH of the node, a "
     "path on the login node only), or not executable.",
     ["srun -N1 -w <node> which <program>", "give a path on a shared filesystem, load the module / activate the "
      "env inside the script, chmod +x"]),
    (r"Invalid user for SlurmUser",
     "The SlurmUser of slurm.conf does not exist on this host (admin configuration).",
     ["admins: getent passwd <SlurmUser> on every host; create the user (same uid everywhere) or fix SlurmUser"]),
    (r"^Invalid MPI type",
     "srun was given an --mpi type (or SLURM_MPI_TYPE) that this Slurm does not have.",
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
      "getent hosts <node>", "restart slurmd or fix the network/firewall; then scontrol update nodename=<nodes> "
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
     "This Slurm has no such MPI plugin: mpi/pmix (mpi_pmix*.so) is built only when Slurm was configured with "
     "PMIx (--with-pmix), so srun --mpi=pmix (or MpiDefault=pmix) cannot start the ranks.",
     ["srun --mpi=list   (the MPI plugins this Slurm has)", "use one it lists that the MPI library supports "
      "(srun --mpi=pmi2), or start the ranks with mpirun inside the allocation; admins: build Slurm "
      "--with-pmix=<PMIx prefix> so mpi_pmix.so is installed in PluginDir"]),
    (r"for cgroup/%s looking at all files|cannot find cgroup plugin for cgroup/",
     "This Slurm has no such cgroup plugin: cgroup_v2.so is built only when the dbus development headers were "
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
]

# the log calls, and the mpi/pmix plugin's own error macros (src/plugins/mpi/pmix/pmixp_debug.h: they call
# error() with the plugin's prefix; PMIXP_ERROR_NO takes an errno first)
# How Slurm's lines start (src/common/log.c): a command's or daemon's name ('srun: error: ', under
# syslog/journald 'slurmd[123]: '), or in a daemon's log file an ISO time stamp and the job or step
CONTEXT_BELOW = 20
_PREFIX = (r"(?:(?:srun|sbatch|salloc|slurmd|slurmstepd|slurmctld)(?:\[\d{1,10}\])?: |"
           r"\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?\] (?:\[[^\]\n]{1,40}\] )?)")
_CONTEXT = _PREFIX + r"[^\n]{0,160}?"

_LEVELS = ("error", "fatal", "fatal_abort", "error_in_daemon", "info", "warning", "slurm_perror",
           "PMIXP_ERROR_STD", "PMIXP_ERROR_NO", "PMIXP_ERROR", "PMIXP_ABORT", "log_var")
_CALL = re.compile(r"(?<![A-Za-z0-9_>.])(%s)\s*\(" % "|".join(_LEVELS))
# The levels whose line carries Slurm's marker (src/common/log.c log_msg: pfx "error: " / "fatal: "
# after the program's name or the daemon's time stamp and step; the PMIXP_* macros call error();
# error_in_daemon() is error() in a daemon and verbose(), with no marker, in a command). Levels
# that print no marker or a quiet one: info/verbose (none), debug..debug5 ('debug2: ').
_MARKED = ("error", "fatal", "fatal_abort", "error_in_daemon", "PMIXP_ERROR_STD", "PMIXP_ERROR_NO", "PMIXP_ERROR",
           "PMIXP_ABORT")
_QUIET_CALL = re.compile(r"(?<![A-Za-z0-9_>.])(info|verbose|debug[2-5]?)\s*\(")
_MARKER = r"(?:error|fatal): [^\n]{0,160}?"
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
                           r"timed out|killed|exceeded|CANCELLED|requeued|held", re.IGNORECASE)


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
        calls = [(m, "state_desc") for m in _CTLD.finditer(src)]
    if path == "src/common/plugin.c":
        calls += [(m, "error") for m in _DEMOTED.finditer(src)]
    if path.startswith("src/slurmctld/") or path == "src/interfaces/gres.c":
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


def build(files, version):
    sites, seen = [], set()
    quiet = quiet_formats(files)
    for path, src in files:
        for level, where, fmt in sites_of(path, src):
            key = (level, fmt)
            if key in seen:  # one format printed at several places: one matcher (its first site)
                continue
            seen.add(key)
            rx, literal = knowgen.printf_to_regex(slurm_to_printf(fmt))
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
    return {"header": knowgen.header(SOURCE, version, GENERATOR,
                                     "error/fatal/info/warning format strings of Slurm's commands, slurmd, "
                                     "slurmstepd and plugins, and slurmctld's job state descriptions; families "
                                     "from the RULES table of the generator"), "sites": sites}


def _wanted(path):
    return path.endswith(".c") and any(path == p or path.startswith(p + "/") for p in PATHS + CTLD_PATHS +
                                       CTLD_LOG_PATHS)


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    return knowgen.tree_files(git, rev, ("src",), _wanted), knowgen.slurm_release(git, rev)


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="HEAD")
    doc = build(*knowgen.source_files(a, from_repo))
    if a.repo:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"])
    return knowgen.emit("slurm_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

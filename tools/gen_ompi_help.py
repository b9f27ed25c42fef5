#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/ompi_help.json: every help topic Open MPI can show a
user (the `[file:topic]` sections of its help-*.txt files, printed verbatim between dashed lines by
opal_show_help), matched on the topic's first line, each assigned to a knowledge family by the
RULES table below.

Usage:
    apt-get download openmpi-common && dpkg -x openmpi-common_*.deb /tmp/ompi
    python tools/gen_ompi_help.py --dir /tmp/ompi/usr/share/openmpi --version 4.1.4-3 \
        [--repo /path/to/ompi.git --tag v4.1.8 --tag v5.0.9] [-o OUT]
    python tools/gen_ompi_help.py --slice tools/data/ompi_help_slice.txt -o OUT   (the test)

Source: Debian's openmpi-common package (https://packages.debian.org/bookworm/openmpi-common),
/usr/share/openmpi/help-*.txt (Open MPI 4.1). Debian builds Open MPI without CUDA (and without
the LSF, PBS/TM and ALPS launchers), so the help files of the components it does not build are not
in the package: the CUDA-aware build's help-mpi-common-cuda.txt (v4.1: 'The call to cuIpcGetMemHandle
failed', what CUDA-aware Open MPI prints when CUDA IPC between two ranks fails, e.g. in containers),
help-accelerator-cuda.txt (v5.0), help-mpi-coll-cuda.txt. With --repo and --tag, the help files of
open-mpi/ompi (https://github.com/open-mpi/ompi) at each tag whose name Debian's package does not
hold are read too (the first tag that has a name wins), in the order given. A slice holds help
files, each after `=== name`.
"""

import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_ompi_help.py"

# (rule, knowledge entry, {field: regex}); fields: file, topic, text (the whole topic)
RULES = [
    # ranks started by srun that cannot reach a process manager they speak (help-ess-base.txt: OMPI built without
    # Slurm's PMI support and no PMIx server from srun; help-pmix-base.txt: PMI2_Init under srun --mpi=pmi2)
    # The MPI library's side of the process-manager interface, as MPICH's PMI client is (mpi.pmi); Slurm's own
    # mpi plugin lines (srun: 'Invalid MPI type', mpi/pmix) are slurm.mpi
    ("srun-pmi", "mpi.pmi", {"file": r"^help-(?:ess-base|pmix-base)\.txt$",
                             "topic": r"^(?:slurm-error2?|pmix2-init-failed|pmix2-init-returned-bad-values)$"}),
    # Open MPI 5 (ompi/runtime/help-mpi-runtime.txt): no PMIx server to talk to (a direct launch by srun without
    # --mpi=pmix, or a plain ./app), or only a PMI-1/2 one (srun --mpi=pmi2): each rank starts as a singleton
    ("pmix-missing", "mpi.pmi", {"file": r"^help-mpi-runtime\.txt$", "topic": r"^no-pmi(?:x-but)?$"}),
    # CUDA-aware Open MPI (opal/mca/common/cuda, v4.1; opal/mca/accelerator/cuda, v5.0): CUDA IPC between two
    # ranks of a node (the smcuda BTL's GPU-to-GPU path, btl_smcuda.c: mca_common_cuda_... cuIpc*) failed; Open
    # MPI says the GPU RDMA protocol cannot be used, and the job may go on over host memory or fail
    ("cuda-ipc", "mpi.transport", {"file": r"common-cuda|accelerator-cuda|smcuda", "topic": r"^cuIpc"}),
    # its other CUDA calls (events, streams, memcpy, the libcuda dlopen): an MPI error; their texts print the
    # node's 'Hostname:', which is not a name resolution (the hostname rule below reads the whole text)
    ("cuda-call", "mpi.error", {"file": r"common-cuda|accelerator-cuda|coll-cuda|accelerator-base"}),
    ("openib-warning", "mpi.openib_ucx", {"file": r"openib|opal-common-verbs", "text": r"^\s*WARNING|\bUCX\b"}),
    # PRRTE's out-of-band TCP banner (gen_prrte_help.py banners(): oob_tcp_connection.c), as ORTE's
    # (gen_ompi_messages.py): the daemons' TCP connection between nodes, the interface or a firewall
    ("tcp-banner", "mpi.btl_tcp_if", {"text": r"^A (?:process or )?daemon was unable to complete a TCP connection"}),
    # mpirun's report that a rank ended badly (orterun: 'noticed that process rank N ... exited on signal 9 (Killed)',
    # 'detected that one or more processes exited with non-zero status'): the echo of that rank, whose family names
    # the signal's usual senders (9: the host's OOM killer) -- the rank's own error, when printed, is the root
    ("rank-died", "mpi.rank_died", {"topic": r"^(?:orterun|prterun|prun):(?:proc-aborted|proc-exit-no-sync|"
                                             r"non-zero-exit|proc-ordered-abort)|^normal-termination-but$"}),
    # a daemon that started and then went away (errmgr: node-died, failed-daemon; no route or connection to it):
    # its node died, was OOM-killed, or the TCP connection broke -- the launch family, never a PATH cause
    ("daemon-lost", "mpi.launch", {"topic": r"^(?:node-died|failed-daemon|no-path|no-connect)$"}),
    ("root", "mpi.run_as_root", {"text": r"as root|allow-run-as-root"}),
    ("slots", "mpi.slots", {"text": r"not enough slots|oversubscribe"}),
    ("memlock", "rdma.memlock", {"text": r"memlock|locked memory|registered memory"}),
    # the TCP BTL accepted a connection from an address it cannot map to a peer of this job (opal/mca/btl/tcp/
    # btl_tcp_component.c, mca_btl_tcp_component_recv_handler / btl_tcp_proc.c, mca_btl_tcp_proc_accept): the peer
    # connected from another interface than the one it published (docker0/virbr0 with the same address on every
    # node, a second NIC, an IPv6 link-local address), or a process of another job reached this port. A warning
    # topic, but the job then hangs or fails: the interface family, whose fix pins btl/oob_tcp_if_include
    ("tcp-unknown-peer", "mpi.btl_tcp_if", {"file": r"btl-tcp", "topic": r"^server (?:accept cannot find guid|"
                                                                         r"did not get guid|cannot find endpoint)$"}),
    ("tcp-if", "mpi.btl_tcp_if", {"file": r"btl-tcp|oob-tcp", "text": r"if_include|if_exclude|interface|network"}),
    ("exe", "mpi.exec_not_found", {"topic": r"exe-not-found|exec-not-found|executable|exe-not-accessible"}),
    ("orted", "mpi.orted", {"text": r"\borted\b|ORTE daemon|daemon"}),
    # Open MPI 5's libfabric (OFI) NIC selection and registration topics print the node's 'Hostname:' too: an MPI
    # error, not a name resolution
    ("ofi", "mpi.error", {"file": r"^help-(?:common|mtl)-ofi\.txt$"}),
    ("hostname", "mpi.hostname", {"text": r"resolve|hostname|host name"}),
    ("shm", "shm.size", {"file": r"shmem|vader|common-sm|btl-sm", "text": r"space|size|/dev/shm"}),
    ("other", "mpi.error", {"file": r"."}),
]
# What a topic means and what to do, where its family's fix is not enough: topic -> (means, [commands])
TOPIC_FIX = {
    "slurm-error": (
        "srun started the ranks directly (or the program ran as a singleton inside an allocation, where Open MPI "
        "sees SLURM_* variables), but this Open MPI cannot use the process manager srun offers: it was built "
        "without Slurm's PMI-1/PMI-2 library, and srun started no PMIx server for it (no --mpi=pmix; MpiDefault=none "
        "or pmi2 in slurm.conf).",
        ["srun --mpi=list   (Slurm's MPI plugins); ompi_info | grep -i pmix   (the PMIx this Open MPI was built with)",
         "srun --mpi=pmix ./app (or the pmix_vN that matches ompi_info; MpiDefault=pmix in slurm.conf makes it the "
         "default); or start the ranks with mpirun / mpiexec inside the allocation; or rebuild Open MPI "
         "--with-pmi=<Slurm's prefix> (PMI-2) or Slurm --with-pmix"]),
    "slurm-error2": (
        "srun started the ranks directly, but this Open MPI was built without Slurm support (configure found no Slurm "
        "installation), so it cannot run under srun.",
        ["ompi_info | grep -i slurm   (no ras/plm slurm components)", "start the ranks with mpirun inside the "
         "allocation, or rebuild Open MPI --with-slurm (and --with-pmix, then srun --mpi=pmix)"]),
    "pmix2-init-failed": (
        "The ranks were started with srun --mpi=pmi2 (or MpiDefault=pmi2) and PMI2_Init failed: the PMI-2 library "
        "Open MPI loaded does not talk to this srun (another Slurm's libpmi2, or srun started no PMI-2 server).",
        ["srun --mpi=list; ompi_info | grep -iE 'pmix|pmi'", "srun --mpi=pmix ./app when Open MPI has PMIx (4.x "
         "always has), or point Open MPI at this Slurm's libpmi2 (--with-pmi=<Slurm's prefix>)"]),
}
# More topics users meet (issue 18), each from the topic's own text and mpirun(1)
# (https://docs.open-mpi.org/en/v5.0.x/man-openmpi/man1/mpirun.1.html; v4.1: https://www.open-mpi.org/doc/v4.1/man1/mpirun.1.php)
# and the FAQ (https://www.open-mpi.org/faq/?category=running); PRRTE's topics of the same name (prte-...) share a row.
_SLOTS = (
    "mpirun was asked for more processes (-np) than the slots it knows: a hostfile's slots=N, --host host:N, the "
    "resource manager's allocation (Slurm: the tasks of the allocation, not its GPUs or CPUs), else the cores of "
    "this node (help-orte-rmaps-base.txt / help-prte-rmaps-base.txt).",
    ["give the slots: a hostfile line per node '<host> slots=<ranks on it>' (--hostfile), or --host a:8,b:8; under "
     "Slurm allocate the tasks (sbatch --ntasks-per-node=<GPUs per node>)",
     "or --oversubscribe (more ranks than slots; Open MPI 5: --map-by :OVERSUBSCRIBE), or --use-hwthread-cpus to "
     "count hardware threads"])
_HOSTFILE_BAD = (
    "mpirun's hostfile has a line it cannot parse or a bad value (help-hostfile.txt): the syntax is one host per "
    "line with optional slots=N and max_slots=N (max_slots >= slots), '#' comments.",
    ["fix the line the message quotes: '<host> slots=8' (no ':8', no blanks around '='); DeepSpeed-style hostfiles "
     "use the same slots= form"])
_EXE = (
    "mpirun could not find or execute the program on a node (the message names the node and the path): the "
    "program or its interpreter is not on that node's PATH (remote shells get a non-interactive PATH: a conda/venv "
    "activated only on the launching node), or the file is not on a filesystem that node sees.",
    ["give the full path (mpirun ... /path/to/venv/bin/python train.py) on a shared filesystem, or carry PATH: "
     "mpirun -x PATH -x LD_LIBRARY_PATH ...; ssh <node> which <program> shows what that node finds"])
_ORTED = (
    "mpirun started its daemon (orted / prted) on a remote node through ssh, and that node could not find it: Open "
    "MPI is not installed at the same path there, or the non-interactive shell's PATH / LD_LIBRARY_PATH lack it.",
    ["install Open MPI at the same prefix on every node, then mpirun --prefix <that prefix> ... (or configure "
     "--enable-mpirun-prefix-by-default); ssh <node> which orted must work"])
TOPIC_FIX.update({
    "orte-rmaps-base:alloc-error": _SLOTS, "prte-rmaps-base:alloc-error": _SLOTS,
    "orte-rmaps-rr:n-per-node-and-not-enough-slots": _SLOTS, "prte-rmaps-rr:n-per-node-and-not-enough-slots": _SLOTS,
    "prte-rmaps-rr:not-enough-cpus": _SLOTS, "out-of-resource": _SLOTS,
    "orte-rmaps-base:oversubscribed": (
        "A warning: more processes than slots, so mpirun runs them unbound (no core binding); the job goes on.",
        ["give the true slot count (hostfile slots=, --host h:N, or the allocation's tasks), or add the "
         "overload-allowed qualifier: --bind-to core:overload-allowed"]),
    "no-hostfile": (
        "mpirun could not open the file given to --hostfile / --machinefile (or the default hostfile MCA "
        "parameter): a relative path from another directory, or a file on another node.",
        ["mpirun --hostfile <absolute path that exists on the launching node> ...; under Slurm leave --hostfile out "
         "(the allocation is read)"]),
    "parse_error": _HOSTFILE_BAD, "parse_error_string": _HOSTFILE_BAD, "parse_error_int": _HOSTFILE_BAD,
    "slots": _HOSTFILE_BAD, "max_slots": _HOSTFILE_BAD, "max_slots_lt": _HOSTFILE_BAD, "port": _HOSTFILE_BAD,
    "slots-given": (
        "The hostfile names a host more than once with slots= each time.",
        ["keep one line per host with its total slots= (sort -u the file)"]),
    "not-all-mapped-alloc": (
        "Inside a resource manager's allocation (Slurm), --host / --hostfile named hosts that are not in the "
        "allocation; mpirun only launches on allocated nodes.",
        ["drop --host/--hostfile inside the allocation (mpirun reads it), or name only nodes of scontrol show "
         "hostnames $SLURM_JOB_NODELIST"]),
    "hostfile:extra-node-not-found": (
        "A hostfile names a node that is not in the allocation mpirun runs in.",
        ["use only the allocation's nodes (scontrol show hostnames $SLURM_JOB_NODELIST) in the hostfile"]),
    "num-procs-not-specified": (
        "--host or --hostfile was given without -np, and the hosts gave no slot counts to compute it from.",
        ["mpirun -np <total ranks> ..., or give slots= / host:N"]),
    "orterun:exe-not-found": _EXE, "prun:exe-not-found": _EXE, "orterun:exe-not-accessible": _EXE,
    "prun:exe-not-accessible": _EXE,
    "no-local-orted": _ORTED,
    "find-available:none found": (
        "No component of the framework the message names (pml, btl, ...) could be opened: the --mca <framework> "
        "selection names components that are not built into this Open MPI (e.g. pml ucx without UCX), or the "
        "plugins were not found (a moved install: OPAL_PREFIX).",
        ["ompi_info | grep '<framework>'   (the components this build has); select one of them (--mca pml ob1 / "
         "--mca btl self,vader,tcp) or remove the --mca / OMPI_MCA_* setting"]),
    "find-available:not-valid": (
        "A component asked for by --mca / OMPI_MCA_<framework> is not in this Open MPI (not built, or failed to "
        "load its library: the topic names it and the dlopen error).",
        ["ompi_info | grep -i <component>; pick a component the build has, or install its library (libucx for "
         "ucx, libfabric for ofi)"]),
    "unreachable proc": (
        "The BTLs selected give no path between two processes (the topic names both hosts): e.g. --mca btl "
        "self,vader across nodes (no tcp/openib), an openib/UCX-only setup on a node without RDMA, or TCP "
        "interfaces with no common network (btl_tcp_if_include names one that a node lacks).",
        ["include a transport that reaches the other node: --mca btl self,vader,tcp (with --mca btl_tcp_if_include "
         "<the interface every node has>) or --mca pml ucx on RDMA nodes; ompi_info | grep btl"]),
    "mpi_init:startup:pml-add-procs-fail": (
        "MPI_Init failed because a process is unreachable with the transports selected (see 'unreachable proc': no "
        "BTL or PML reaches a peer).",
        ["--mca btl self,vader,tcp --mca btl_tcp_if_include <interface every node has>, or --mca pml ucx on RDMA "
         "nodes"]),
    "btl:no-nics": (
        "A warning: a fast transport (openib, usnic, ...) found no device of its kind on this host and is unused; "
        "another transport (tcp) carries the traffic, which is correct on a node without that hardware.",
        ["on nodes without that hardware silence it: --mca btl ^openib (or --mca btl_base_warn_component_unused 0); "
         "on RDMA nodes use UCX: --mca pml ucx"]),
    "no cuda support": (
        "--mca mpi_cuda_support 1 with an Open MPI built without CUDA (ompi_info --parsable --all | grep "
        "mpi_built_with_cuda_support:value shows false).",
        ["use a CUDA-aware Open MPI (built --with-cuda, or with UCX built with CUDA), or stage GPU buffers through "
         "host memory; NCCL itself does not need a CUDA-aware MPI"]),
    "version mismatch": (
        "Two processes of the job run different Open MPI (PRRTE) versions: the nodes have different installs, or "
        "a remote node's PATH finds another mpirun/orted.",
        ["install the same Open MPI on every node; mpirun --prefix <the same prefix> ..., and ssh <node> "
         "'which orted; ompi_info --version'"]),
    "target full": (
        "The shared-memory backing file (under /dev/shm, or the session directory) has less room than Open MPI "
        "asks for: a container's 64 MB /dev/shm.",
        ["docker run --shm-size=8g (Kubernetes: an emptyDir medium: Memory at /dev/shm); df -h /dev/shm"]),
    "execve error": (
        "The daemon forked the process but execve() failed (the topic gives the path and errno): a missing "
        "executable, no execute permission, a wrong interpreter line, or a binary for another architecture.",
        ["ls -l <the path in the message> on that node; use the full path of the program on a shared filesystem"]),
    "agent-not-found": (
        "plm_rsh_agent / plm_ssh_agent (OMPI_MCA_plm_rsh_agent) names a remote-shell program that does not exist "
        "on the launching node (ssh not installed in the container).",
        ["install openssh-client, or set --mca plm_rsh_agent ssh (or the path of ssh); under Slurm mpirun uses srun "
         "and needs no ssh"]),
    "srun-failed": (
        "mpirun (PRRTE) started its daemons with srun inside the allocation and srun failed; its own error (above) "
        "says why: outside an allocation, or a step refused (resources busy, --overlap needed).",
        ["run mpirun inside salloc/sbatch; srun's message above the topic names the refusal"]),
    "old-pmix": (
        "The PMIx library Open MPI loaded is older than it was built for.",
        ["make the PMIx of the build come first (LD_LIBRARY_PATH), or rebuild Open MPI with the system's PMIx "
         "(--with-pmix=<prefix>)"]),
    "incorrect-pmix": (
        "Open MPI loaded a PMIx library of another version than the one it was built with (an external PMIx on "
        "LD_LIBRARY_PATH, or Slurm's).",
        ["ldd $(which mpirun) | grep pmix; put the PMIx of the build first, or rebuild Open MPI against that PMIx"]),
})
# CUDA IPC between ranks (help-mpi-common-cuda.txt / help-accelerator-cuda.txt [cuIpc* failed]): the smcuda BTL
# (opal/mca/btl/smcuda/btl_smcuda_component.c registers btl_smcuda_use_cuda_ipc, default 1) maps a peer's GPU
# buffer with cuIpcGetMemHandle / cuIpcOpenMemHandle; CUDA IPC needs both processes to see the GPU and to share
# the IPC namespace (https://docs.nvidia.com/cuda/cuda-c-programming-guide/#interprocess-communication)
_CUDA_IPC = (
    "CUDA-aware Open MPI tried CUDA IPC (GPU memory shared between two ranks of one node, the smcuda BTL) and the "
    "CUDA call failed (the return value is a CUresult: 1 CUDA_ERROR_INVALID_VALUE, 201 INVALID_CONTEXT, 999 "
    "UNKNOWN): usual in containers (each rank in its own container or IPC namespace, or seeing only its own GPU "
    "through CUDA_VISIBLE_DEVICES / --gpus), under MPS, or on memory from another allocator (cudaMallocAsync "
    "pools, managed memory). The ranks then copy through host memory, or fail.",
    ["export OMPI_MCA_btl_smcuda_use_cuda_ipc=0 (mpirun --mca btl_smcuda_use_cuda_ipc 0): no CUDA IPC, GPU "
     "buffers go through host memory; with UCX (--mca pml ucx): UCX_TLS without cuda_ipc",
     "or let the ranks share it: one container for the node's ranks with --ipc=host and all the node's GPUs "
     "visible, ranks selecting theirs with cudaSetDevice"])
TOPIC_FIX.update({t: _CUDA_IPC for t in ("cuIpcGetMemHandle failed", "cuIpcOpenMemHandle failed",
                                         "cuIpcGetEventHandle failed", "cuIpcOpenEventHandle failed")})
_NO_PMIX = (
    "Open MPI 5 needs a PMIx server to start its ranks: mpirun / prterun starts one, and srun does with "
    "--mpi=pmix (Slurm built with PMIx). Started by srun with --mpi=pmi2 or none, or as a plain program, each rank "
    "finds no PMIx server and runs alone as a singleton (every rank is rank 0 of 1), or stops.",
    ["srun --mpi=pmix ./app (srun --mpi=list shows the pmix plugins; MpiDefault=pmix in slurm.conf makes it the "
     "default), or start the ranks with mpirun / mpiexec inside the allocation"])
TOPIC_FIX.update({"no-pmi": _NO_PMIX, "no-pmix-but": _NO_PMIX})
_LIMIT_FILES = (
    "mpirun hit the per-user limit on open file descriptors (sockets, pipes) while starting the ranks of a node "
    "(help-orterun.txt): many ranks per node, each with its connections and I/O pipes.",
    ["ulimit -n <higher> in the job (Slurm: the limit is propagated from the submitting shell, PropagateResourceLimits), "
     "or --mca opal_set_max_sys_limits 1; fewer ranks per node"])
TOPIC_FIX.update({
    "orterun:sys-limit-sockets": _LIMIT_FILES, "orterun:sys-limit-pipe": _LIMIT_FILES,
    "orterun:sys-limit-children": (
        "mpirun could not fork another process on the node the topic names: the per-user process limit (ulimit -u, "
        "or a cgroup pids limit of a container / Slurm step) is reached.",
        ["ulimit -u <higher> (a container: --pids-limit), or fewer ranks / fewer threads per rank on that node"]),
    "orterun:wdir-not-found": (
        "The working directory (mpirun's cwd, or --wdir) does not exist on the node the topic names: a node-local path "
        "on the launching node.",
        ["run from a directory on a filesystem every node mounts, or --wdir <such a path>"]),
    "prun:wdir-not-found": (
        "The working directory (the launch's cwd, or --wdir) does not exist on the node the topic names.",
        ["run from a directory on a filesystem every node mounts, or --wdir <such a path>"]),
    "framework-param:too-many-negates": (
        "A --mca <framework> value (or OMPI_MCA_<framework>) mixes '^' into the middle of the list: '^' excludes and "
        "may appear once, first ('self,^tcp,^openib' is refused).",
        ["exclude: --mca btl ^tcp,openib (all but those); or include: --mca btl self,vader,tcp (only those)"]),
    "btl sm is dead": (
        "--mca btl ...sm... names the shared-memory BTL removed in Open MPI 3.0; 3.x/4.x call it vader.",
        ["--mca btl self,vader,tcp (Open MPI 5 calls it sm again)"]),
    "invalid-value-enum": (
        "An --mca parameter (or OMPI_MCA_* variable) has a value outside its list; the topic prints the variable, "
        "the value and the valid values.",
        ["set that variable to one of the valid values the topic lists (ompi_info --param all all --level 9 shows "
         "each)"]),
    "pp retry exceeded": (
        "An InfiniBand send between the two hosts the topic names failed after every retry (the openib BTL's "
        "IBV_WC_RETRY_EXC_ERR): the fabric between them (a cable, port, switch, subnet manager) or the peer host is "
        "at fault, not the program.",
        ["ibstat / ibv_devinfo on both hosts (port State: Active, the same link layer), and the fabric's counters "
         "(perfquery, ibdiagnet); run without those hosts to confirm; Open MPI 4+: --mca pml ucx instead of openib"]),
})
# A topic whose first line has few words ('Comments', 'You can try the following:', 'Usage: %s
# [OPTION]...', 'Allocation request: %s') is any program's line: such a topic matches on its first
# two printed lines (opal_show_help prints the topic's text verbatim, line after line); one whose
# next line is blank, absent or of few words too is not matched. 'You can try the following:' alone was shm.size.
TWO_LINES_BELOW = 24
_FAILED = re.compile(r"\b(?:fail(?:ed|ure)?|error|could not|cannot|unable|refused)\b", re.I)
_TOPIC = re.compile(r"^\[([^\]\n]+)\]\s*$", re.M)


def topics(name, text):
    """(topic, first printed line, whole text) of each [topic] of a help file."""
    body = "\n".join(ln for ln in text.split("\n") if not ln.startswith("#"))
    parts = _TOPIC.split(body)
    for i in range(1, len(parts) - 1, 2):
        topic, txt = parts[i].strip(), parts[i + 1].strip("\n")
        lines = [ln.strip() for ln in txt.split("\n") if ln.strip()]
        if lines:
            yield topic, lines[0], txt


def _words(line):
    """How many non-blank characters a line prints besides its conversions; none when it has no
    letter or digit: a row of '*' is a separator any program prints (opal_info's and orte-info's
    [developer warning: field too long] starts with one: it matched every banner of 74+ '*')."""
    rest = "".join(knowgen._CONV.sub("", line).split())
    return len(rest) if re.search(r"[A-Za-z0-9]", rest) else 0


def _second_line(whole, first):
    """The line printed right after the topic's first line ('' when it is blank or absent)."""
    raw = whole.split("\n")
    for i, ln in enumerate(raw):
        if ln.strip() == first:
            return raw[i + 1].strip() if i + 1 < len(raw) else ""
    return ""


def build(files, version):
    sites = []
    for name, text in files:
        for topic, first, whole in topics(name, text):
            rx, literal = knowgen.printf_to_regex(first)
            site = {"id": "ompi.%s.%s" % (name[len("help-"):-4] if name.startswith("help-") else name,
                                          knowgen.slug(topic)),
                    "where": "%s [%s]" % (name, topic), "text": first}
            if knowgen.unanchored(site, rx, literal):
                pass  # no matcher: listed as unassigned
            elif _words(first) < TWO_LINES_BELOW and _words(_second_line(whole, first)) < knowgen.MIN_LITERAL:
                site.update({"re": None, "family": None, "rule": "a first line of few words and no second line"})
            else:
                if _words(first) < TWO_LINES_BELOW:
                    rx = rx + r"[^\n]{0,200}\n[^\n]{0,200}?" + knowgen.printf_to_regex(_second_line(whole, first))[0]
                rule, family = knowgen.assign(RULES, site, {"file": name, "topic": topic, "text": whole})
                # ('The call to cuIpcCloseMemHandle failed. This is a warning and the program will continue to
                # run.': a warning in words, help-mpi-common-cuda.txt)
                if (first.upper().startswith("WARNING") or "This is a warning" in first) and family != "mpi.openib_ucx":
                    # a warning topic is not an error: a note (mpi.warning), or, when its first
                    # line says that something failed, the answer for a text with nothing else
                    # wrong (mpi.warning_failed); a TCP transport's failure keeps its family
                    if rule == "tcp-unknown-peer":
                        pass  # keeps its family: the warning is the only line such a job prints
                    elif not _FAILED.search(first):
                        rule, family = "a warning topic", "mpi.warning"
                    elif family != "mpi.btl_tcp_if":
                        rule, family = "a warning that something failed", "mpi.warning_failed"
                site.update({"re": rx, "family": family, "rule": rule})
                if family and topic in TOPIC_FIX:
                    site["means"], site["fix"] = TOPIC_FIX[topic][0], list(TOPIC_FIX[topic][1])
            sites.append(site)
    source = "Debian openmpi-common (https://packages.debian.org/bookworm/openmpi-common) /usr/share/openmpi/help-*.txt"
    if "open-mpi/ompi" in version:
        source += "; the help files of components Debian does not build, from open-mpi/ompi " \
                  "(https://github.com/open-mpi/ompi)"
    return {"header": knowgen.header(source, version, GENERATOR,
                                     "the first printed line of every help topic; families from the RULES table"),
            "sites": sites}


def from_tags(repo, tags, have):
    """[(name, text)] of the help-*.txt files of open-mpi/ompi at each tag: a file whose name is not in ``have``
    ({name: text} already read) whole, and of a file already read only its topics that are new (Open MPI 5's
    help-mpi-runtime.txt [no-pmix-but]: 'No PMIx server was reachable, but a PMI1/2 was detected'); test trees
    left out; the first tag holding a name or topic wins. Also the version string of what was read."""
    git = knowgen.git_reader(repo)
    files, read = [], []
    known = {name: {t for t, _, _ in topics(name, text)} for name, text in have.items()}
    for tag in tags:
        commit = git("rev-parse", tag + "^{commit}").strip()
        n = m = 0
        for p in sorted(git("ls-tree", "-r", "--name-only", tag).splitlines()):
            name = os.path.basename(p)
            if not re.fullmatch(r"help-[^/]+\.txt", name) or re.search(r"(?:^|/)tests?/", p):
                continue
            text = git("show", "%s:%s" % (tag, p))
            if name not in known:
                known[name] = {t for t, _, _ in topics(name, text)}
                files.append((name, text))
                n += 1
                continue
            new = [(t, whole) for t, _, whole in topics(name, text) if t not in known[name]]
            if new:
                known[name].update(t for t, _ in new)
                files.append((name, "".join("[%s]\n%s\n" % (t, whole) for t, whole in new)))
                m += len(new)
        read.append("%s (commit %s): %d files, %d more topics" % (tag, commit, n, m))
    return files, "open-mpi/ompi " + ", ".join(read)


def main(argv):
    a = knowgen.arguments(__doc__, argv, "dir", extra=[("--version", {"default": ""}), ("--repo", {}),
                                                       ("--tag", {"action": "append", "default": []})])
    if a.dir:
        files = []
        for p in sorted(glob.glob(os.path.join(a.dir, "help-*.txt"))):
            with open(p, errors="replace") as f:
                files.append((os.path.basename(p), f.read()))
        version = "openmpi-common %s" % a.version
        if a.repo and a.tag:
            more, read = from_tags(a.repo, a.tag, dict(files))
            files += more
            version += "; " + read
    else:
        files, version = knowgen.read_slice(a.slice)
    return knowgen.emit("ompi_help", build(files, version), a.out, "topics")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

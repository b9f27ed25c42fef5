#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/source_files.json: which project of the stack each C / C++ / CUDA / Go
source file belongs to, read from the projects' own trees (issue 18 item 2, noanswer19).

Many programs of the stack put the source file and line of the statement that logged into every line: UCX
(src/ucs/debug/log.c UCS_LOG_METADATA_FMT '%17s:%-4u %-4s %-5s %*s': the file's basename, line, 'UCX', level),
Open MPI (opal/util/output.c and the BTL_ERROR macro, opal/mca/btl/base/btl_base_error.h: '[host][[jobid,vpid],rank]
[%s:%d:%s] ', file, line, function; ORTE_ERROR_LOG's '... in file %s at line %d'), NCCL (src/debug.cc: '[%d] %s:%d NCCL
WARN %s'), the klog / glog header of Kubernetes' kubelet, NVIDIA's device plugin and the Go
projects that log with klog (k8s.io/klog/v2 klog.go formatHeader: 'E1127 12:00:00.123456   1234 file.go:123] ',
its first letter the severity: I, W, E, F), gloo ('[enforce fail at gloo/transport/tcp/pair.cc:446] ', gloo/common/
logging.h). A pasted line keeps that prefix when it loses every other word of its header: 'rc_verbs_iface.c:128
send completion with error: remote access error'. The prefix names the program that printed the line; explain
(srcprov.py) answers such a failure line with that project's family when no message table knew its words.

NCCL's own level is read by its project: WARN is the level NCCL prints its failures at (src/debug.cc: ncclDebugLog's
NCCL_LOG_WARN, which every ncclResult_t error path uses; INFO and TRACE are the rest), so for NCCL and the plugins that
log through its logger (aws-ofi-nccl, the TCPX plugin: WARN_LEVEL_PROJECTS in explain) a WARN line that says it failed
is a failure; for every other project a warning is not.

Usage:
    python tools/gen_source_files.py --mirrors DIR --torch-wheel WHEEL [--record SLICE] [-o OUT]
    python tools/gen_source_files.py --slice tools/data/source_files_slice.txt -o OUT   (the test)

Source: each project's repository (fetched mirrors: DIR/<owner>+<name>/repo, read with `git ls-tree` at the commit
PROJECTS pins, the same commit the project's message generator reads: tools/gen_ucx_messages.py, gen_ompi_messages.py
...; torch's from the torch wheel's libc10 / libtorch* libraries, whose __FILE__ strings are the C++ files that log),
every file ending in one of SUFFIXES under the project's source folders, leaving out the code a project
vendors from another (Go's vendor/, third_party/) and its tests. The table is the basename -> the projects (and
folders) that have a file of that name; a basename several projects have is kept with all of them (explain answers
it only when the line names a folder that tells them apart, or when they share a family).

The family area of each project is the hand-written RULES below (the project's own family in the knowledge: UCX's
errors are mpi.error in tools/gen_ucx_messages.py's rules, NCCL's nccl.*, the device plugin's
k8s.device_plugin_error ...); explain refines it per file from the family the project's generated message sites of
that file are assigned to, where they exist.

The slice records, per project, its repository, version and each folder's basenames, so the test regenerates the
table without the repositories.
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_source_files.py"
NAME = "source_files"
# (a header's inline functions log with the header's own __FILE__: NCCL's src/include/socket.h, checks.h)
SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".cu", ".go", ".h", ".hpp", ".cuh")

# (project, repository, commit, folders to read (the whole tree when empty), the generated message tables whose
# sites are this project's (explain's per-file family), the family area RULES assign, what it logs through)
PROJECTS = (
    ("ucx", "openucx/ucx", "9466d104a317c8ffddd9734e72055d8bbda021b3", ("src",), ("ucx_messages",), "mpi.error",
     "ucs_log: '<file>:<line> UCX <LEVEL> <message>' (src/ucs/debug/log.c UCS_LOG_METADATA_FMT)"),
    ("nccl", "NVIDIA/nccl", "5067397c2676d5aed50042fc39e5c8ee96eb0027", ("src",), ("nccl_messages",),
     "nccl.internal_error", "WARN / INFO: '<file>:<line> NCCL WARN <message>' (src/debug.cc)"),
    ("open-mpi", "open-mpi/ompi", "65034fe6534a20f59738e488588d37f19a4d0e27", ("ompi", "opal", "orte", "oshmem"),
     ("ompi_messages",), "mpi.error", "BTL_ERROR '[<file>:<line>:<function>] ' (opal/mca/btl/base/btl_base_error.h); "
     "ORTE_ERROR_LOG '... in file <file> at line <line>'"),
    ("prrte", "openpmix/prrte", "v3.0.14", ("src",), ("prrte_help",), "mpi.launch",
     "PRTE_ERROR_LOG '... in file <file> at line <line>' (src/util/error.h)"),
    ("openpmix", "openpmix/openpmix", "v5.0.11", ("src",), ("pmix_errors",), "mpi.pmix",
     "PMIX_ERROR_LOG '... in file <file> at line <line>' (src/util/pmix_error.h)"),
    ("rdma-core", "linux-rdma/rdma-core", "691953d8d502f54088f776c5ba2aeed0a5ac945d", (), ("rdma_messages",), None,
     "providers' verbs_err / fprintf (no file prefix of its own: only its message sites name a family)"),
    ("aws-ofi-nccl", "aws/aws-ofi-nccl", "2475c4c736907e68ebeadb3848f31231ee4a44d0", ("src", "include"),
     ("ofi_messages",), "nccl.net_plugin",
     "NCCL_OFI_WARN through NCCL's logger: '<file>:<line> NCCL WARN NET/OFI ...'"),
    ("gloo", "pytorch/gloo", "70dc360272dfc57e3617184c78ff9b06f8cd4757", ("gloo",), ("gloo_messages",),
     "gloo.enforce", "GLOO_ENFORCE: '[enforce fail at <path>:<line>] <condition>. <message>' (gloo/common/logging.h)"),
    ("nvshmem", "NVIDIA/nvshmem", "2d7d25f0816235e3c2b51779571ec032606ea0dd", ("src",), ("nvshmem_messages",),
     "rdma.nvshmem_transport", "NVSHMEMI_ERROR_PRINT: '<file>:<function>:<line>: ' (src/include/non_abi/"
     "nvshmemx_error.h)"),
    ("gpudirect-tcpx", "google/nccl-plugin-gpudirecttcpx", "4b8ea7f2716fc21b026b4d09c79578d43b23e86d", ("src",),
     ("tcpx_messages",), "nccl.net_plugin", "NCCL's logger ('<file>:<line> NCCL WARN NET/GPUDirectTCPX ...')"),
    ("dcgm", "NVIDIA/DCGM", "72fa3feaa67d716a75323a8f47c34ff3ee73f824", (), ("dcgm_errors",), "dcgm.error",
     "DCGM_LOG_ERROR (plog): '<time> ERROR [pid:tid] <message> [<path>:<line>] [<function>]' "
     "(common/DcgmLoggingImpl.h)"),
    ("dcgm-exporter", "NVIDIA/dcgm-exporter", "d5e5f510a1b6b393f39a43293ccd9dc985defc79", (), (), "dcgm.error",
     "slog / logrus (file:line only with a source attribute)"),
    ("slurm", "SchedMD/slurm", "284c3b95f08a2dc2478499837b03355e1b9c5c75", ("src",), ("slurm_messages",),
     "slurm.error", "error() / fatal() (src/common/log.c; '<file>:<line>' only at debug levels with LogTimeFormat)"),
    ("k8s-device-plugin", "NVIDIA/k8s-device-plugin", "1b826acc6af3079d8923bac395c3124b8861a9a6", (),
     ("k8s_messages",), "k8s.device_plugin_error", "klog: 'E1127 hh:mm:ss.uuuuuu pid file.go:line] ...'"),
    ("gpu-operator", "NVIDIA/gpu-operator", "a22dbf671f2e26f9a1e342f8eea28e196235e110", (), ("k8s_messages",),
     "k8s.gpu_operator", "controller-runtime's zap logger (its caller field: 'file.go:line')"),
    ("nvidia-container-toolkit", "NVIDIA/nvidia-container-toolkit", "d34b3046758cb1a5db606b2a39519c731bbf9f56", (),
     ("oci_messages", "k8s_messages"), "container.oci_gpu", "logrus (file:line with its caller option)"),
    # torch's C++ (c10's LOG / TORCH_WARN / TORCH_CHECK print __FILE__: '[E socket.cpp:860] ', c10/util/Logging.cpp):
    # the source files the wheel's own libraries name (their __FILE__ strings), read from the torch wheel (TORCH)
    ("torch", "pytorch/pytorch", None, ("torch/csrc", "c10"), (), "torch.library_error",
     "c10 LOG(ERROR) / TORCH_CHECK: '[E <file>:<line>] ' or '[E<mmdd> <time> <pid> <file>:<line>] ' "
     "(c10/util/Logging.cpp)"),
    ("kubelet", "kubernetes/autoscaler", "2244a049128c49d2d1b4081b2c39344411c25ace",
     ("cluster-autoscaler/vendor/k8s.io/kubernetes/pkg/kubelet",), ("k8s_messages",), None,
     "klog: 'E1127 hh:mm:ss.uuuuuu pid file.go:line] ...' (Kubernetes v1.31.0-alpha.2 vendored by cluster-autoscaler)"),
)

# a file whose family is not its project's area (RULES, by the file's own job): torch's TCPStore client and its socket
# layer (torch/csrc/distributed/c10d/TCPStore.cpp, socket.cpp: the store every rank connects to at init_process_group,
# the rendezvous); its NCCL process group's files, whose errors are NCCL's result codes (NCCLUtils.hpp C10D_NCCL_CHECK:
# "NCCL error in: " __FILE__ ":" __LINE__ ", " ncclGetErrorWithVersion(result)) and its watchdog's
FILE_FAMILIES = {"torch": {"TCPStore.cpp": "rendezvous.connect", "TCPStoreBackend.cpp": "rendezvous.connect",
                           "TCPStoreLibUvBackend.cpp": "rendezvous.connect", "socket.cpp": "rendezvous.connect",
                           "ProcessGroupNCCL.cpp": "nccl.internal_error", "NCCLUtils.cpp": "nccl.internal_error"}}
# how each project is made to say more around a failure (its own documented verbosity setting): the next step of a
# family-only answer. UCX: UCX_LOG_LEVEL (https://openucx.readthedocs.io/en/master/faq.html); NCCL and the NET
# plugins logging through it: NCCL_DEBUG / NCCL_DEBUG_SUBSYS
# (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html);
# Open MPI: the MCA '<framework>_base_verbose' parameters (https://docs.open-mpi.org/en/v5.0.x/mca.html); NVSHMEM:
# NVSHMEM_DEBUG (https://docs.nvidia.com/nvshmem/api/gen/env.html); torch's C++: TORCH_CPP_LOG_LEVEL and
# TORCH_DISTRIBUTED_DEBUG (https://pytorch.org/docs/stable/distributed.html#debugging-torch-distributed-applications);
# Slurm: slurm.conf's SlurmdDebug / SlurmctldDebug and srun -v (https://slurm.schedmd.com/slurm.conf.html); the kubelet:
# --v (klog's verbosity, https://kubernetes.io/docs/reference/command-line-tools-reference/kubelet/); DCGM's host
# engine: nv-hostengine --log-level (https://docs.nvidia.com/datacenter/dcgm/latest/user-guide/getting-started.html);
# the container toolkit: config.toml's debug log files (https://docs.nvidia.com/datacenter/cloud-native/
# container-toolkit/latest/troubleshooting.html)
DEBUG = {"ucx": "UCX_LOG_LEVEL=debug", "nccl": "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=ALL",
         "aws-ofi-nccl": "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET", "gpudirect-tcpx": "NCCL_DEBUG=INFO",
         "open-mpi": "mpirun --mca <framework>_base_verbose 100 (btl, pml, plm ...: the framework the file is under)",
         "nvshmem": "NVSHMEM_DEBUG=INFO", "torch": "TORCH_CPP_LOG_LEVEL=INFO TORCH_DISTRIBUTED_DEBUG=DETAIL",
         "slurm": "srun -vvv, or SlurmdDebug=debug2 / SlurmctldDebug=debug2 in slurm.conf",
         "kubelet": "the kubelet's --v=4", "dcgm": "nv-hostengine --log-level DEBUG",
         "nvidia-container-toolkit": "uncomment the debug log files in /etc/nvidia-container-runtime/config.toml"}

# the release a pinned commit is, where `git describe` names another tag (NCCL's nccl4py-v0.3.1 sits on 2.30.7's
# commit, as tools/gen_nccl_messages.py records it)
LABELS = {"nccl": "2.30.7"}
TORCH = "torch"  # the project read from a wheel's shared libraries, not a repository
_SO_FILE = re.compile(rb"(?:torch/csrc|c10)/[\w./+-]{1,200}?\.(?:cpp|cc|cu|h|hpp|cuh)\x00")
_SO_PATH = re.compile(r"^(?:torch/csrc|c10)/(?:[\w+-]{1,80}/){0,8}[\w+-]{1,100}\.(?:cpp|cc|cu|h|hpp|cuh)$")

# a file that is another project's (vendored) or a test's, not the project's own logging code
# (Open MPI embeds whole projects in its tree: libevent, hwloc, ROMIO, PMIx, libltdl, treematch - their messages and
# files are theirs: libevent's evutil.c holds glibc's 'Temporary failure in name resolution')
_NOT_OWN = re.compile(r"(?:^|/)(?:vendor|third_party|third-party|3rd-party|thirdparty|tests?|testing|testdata|"
                      r"examples?|docs?|mocks?|libevent\w{0,20}|hwloc\d{0,4}|romio\d{0,4}|pmix\d{1,4}x?|libltdl|"
                      r"treematch)/|_test\.go$|(?:^|/)test_[^/]*$")
_TRIM = "cluster-autoscaler/vendor/k8s.io/kubernetes/"  # the vendored Kubernetes' own paths start at pkg/


def own(path, folders):
    inside = path[len(_TRIM):] if path.startswith(_TRIM) else path
    return path.endswith(SUFFIXES) and not _NOT_OWN.search(inside)


def read_torch(wheel):
    """(version, {folder: [basenames]}) of the C++ source files torch's shared libraries name: the __FILE__ strings of
    libc10 / libtorch* (each NUL-ended), read from the wheel in 32 MB blocks."""
    import zipfile

    found = set()
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            if not info.filename.startswith(("torch/lib/libtorch", "torch/lib/libc10")):
                continue
            with z.open(info) as f:
                tail = b""
                while True:
                    block = f.read(1 << 25)
                    if not block:
                        break
                    data = tail + block
                    found.update(m.group(0)[:-1].decode("ascii", "replace") for m in _SO_FILE.finditer(data))
                    tail = data[-300:]
    dirs = {}
    for p in sorted(found):
        if _SO_PATH.match(p):
            d, _, base = p.rpartition("/")
            dirs.setdefault(d, []).append(base)
    version = os.path.basename(wheel).split("-")[1]
    return "torch %s (%s)" % (version, os.path.basename(wheel)), {d: sorted(b) for d, b in sorted(dirs.items())}


def read_projects(mirrors, torch_wheel):
    """[(project, repo, version, {folder: [basenames]})] read from the fetched mirrors at PROJECTS' commits (torch's
    from its wheel)."""
    out = []
    for name, repo, rev, folders, _tables, _fam, _log in PROJECTS:
        if name == TORCH:
            out.append((name, repo) + read_torch(torch_wheel))
            continue
        git = knowgen.git_reader(os.path.join(mirrors, repo.replace("/", "+"), "repo"))
        version = knowgen.revision(git, rev, describe=True, untagged=rev[:12])
        if name in LABELS:
            version = "%s (commit %s)" % (LABELS[name], git("rev-parse", rev + "^{commit}").strip())
        dirs = {}
        for p in git("ls-tree", "-r", "--name-only", rev, "--", *folders).splitlines():
            if own(p, folders):
                d, _, base = p.rpartition("/")
                dirs.setdefault(d[len(_TRIM):] if d.startswith(_TRIM) else d, []).append(base)
        out.append((name, repo, version, {d: sorted(b) for d, b in sorted(dirs.items())}))
    return out


def write_slice(path, projects):
    with open(path, "w") as f:
        f.write("# the source files of each project read by %s: '#! project NAME REPO VERSION', then "
                "'folder: basenames...'\n" % GENERATOR)
        for name, repo, version, dirs in projects:
            f.write("#! project %s %s %s\n" % (name, repo, version))
            for d, bases in dirs.items():
                f.write("%s: %s\n" % (d or ".", " ".join(bases)))


def read_slice(path):
    out, cur = [], None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#! project "):
                name, repo, version = line[len("#! project "):].split(" ", 2)
                cur = (name, repo, version, {})
                out.append(cur)
            elif line and not line.startswith("#") and cur is not None:
                d, _, bases = line.partition(": ")
                cur[3]["" if d == "." else d] = bases.split()
    return out


def build(projects):
    rules = {p[0]: p for p in PROJECTS}
    files, meta = {}, {}
    for name, repo, version, dirs in projects:
        _, _, _, folders, tables, family, log = rules[name]
        n = 0
        for d, bases in dirs.items():
            for b in bases:
                files.setdefault(b, []).append("%s:%s" % (name, d))
                n += 1
        meta[name] = {"repo": repo, "url": "https://github.com/%s" % repo, "version": version, "family": family,
                      "tables": list(tables), "log": log, "files": n}
        if DEBUG.get(name):
            meta[name]["debug"] = DEBUG[name]
        if FILE_FAMILIES.get(name):
            meta[name]["file_families"] = FILE_FAMILIES[name]
    shared = sorted(b for b, w in files.items() if len({x.split(":", 1)[0] for x in w}) > 1)
    doc = {"header": knowgen.header(
        ", ".join("%s (https://github.com/%s)" % (m["repo"], m["repo"]) for m in meta.values()),
        "; ".join("%s %s" % (m["repo"], m["version"]) for m in meta.values()), GENERATOR,
        "files: a source file's basename -> 'project:folder' of each file of that name (the folder relative to the "
        "project's tree); projects: each project's repository, version, family area (RULES: PROJECTS of the "
        "generator) and the generated tables of its message sites; shared: basenames of several projects"),
        "sites": [], "projects": meta, "shared": shared,
        "files": {b: files[b] for b in sorted(files)}}
    return doc


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirrors", help="the folder of fetched mirrors (<owner>+<name>/repo)")
    ap.add_argument("--torch-wheel", help="the torch wheel whose shared libraries name torch's C++ source files")
    ap.add_argument("--slice", help="regenerate from a recorded slice instead")
    ap.add_argument("--record", help="write the slice of what was read here")
    ap.add_argument("-o", "--out", default=knowgen.out_path(NAME))
    a = ap.parse_args(argv)
    if bool(a.mirrors and a.torch_wheel) == bool(a.slice):
        ap.error("give --mirrors and --torch-wheel, or --slice")
    projects = read_projects(a.mirrors, a.torch_wheel) if a.mirrors else read_slice(a.slice)
    if a.record:
        write_slice(a.record, projects)
    doc = build(projects)
    path = knowgen.write(NAME, doc, a.out)
    print("%s: %d basenames of %d projects, %d shared by several projects" % (
        path, len(doc["files"]), len(doc["projects"]), len(doc["shared"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())

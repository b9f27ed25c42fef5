"""explain's structural answer from the shape of a failure line that no knowledge entry explains and that is not a
Python traceback (issue 18, item 2: never "no known error" for a text that shows a failure). Each shape is read
as the program that prints it writes it, from that program's source, and answers that program's family with
the next step (How sure: low, unless the program and what it reports are unambiguous):

- a shell that could not find a command (bash execute_cmd.c '%s: command not found', zsh 'command not found:
  %s', Ubuntu's command-not-found handler "Command '%s' not found"): a Python package's console script
  (torchrun, deepspeed, accelerate, python, pip ...) missing from PATH is the environment that is not active
  (code.python_env);
- bash's report of a job that a signal ended (jobs.c: strsignal()'s text, ' (core dumped)', in a script
  '<script>: line N: <pid> <text> <command>'): SIGBUS 'Bus error' -> /dev/shm or a mapped file
  (errno.enospc; torch's DataLoader says the same of a worker's SIGBUS), SIGKILL 'Killed' -> the kernel's
  OOM killer (errno.enomem);
- gdb's 'Program terminated with signal SIGSEGV, ...' / 'received signal' and its innermost frame '#0 0x.. in
  fn () from <library>': the package whose shared library crashed (<pkg>.library_error);
- torchrun's elastic agent getting a death signal (torch/distributed/elastic/agent/server/api.py 'Received %s
  death signal, shutting down workers'; multiprocessing/api.py SignalException 'Process %d got signal: %d'):
  the job was stopped from outside; the signal number says by what (SIGHUP: the terminal closed);
- curl's '(N) message' (curl's tool: 'curl: (%d) %s', libcurl-errors.3) under enroot (which pulls images
  with curl): the registry could not be reached or its certificate not verified (enroot.registry);
- systemd's 'Processes still around after SIGKILL' of a unit whose log says CUDA failed: a process SIGKILL
  cannot end is stuck in the kernel (the GPU driver): cuda.gpu_hardware, low.

analyze.structural() calls structural() last, when nothing else named the family; seen() tells analyze that
the text shows such a failure (so the verdict is never "no error").
"""

import re

from gpudoctor.explain.text import clip as _clip
from gpudoctor.fixline import sh

# a line's optional rank / tag prefix ('[1,0]<stderr>:', '[default0]:', 'rank3: ') before a shell's own line
_PRE = r"^(?:\[[^\]\n]{1,40}\](?:<std(?:err|out)>)?:? ?|[\w.-]{1,40}: )?"
# bash's job report in a non-interactive shell: '<script>: line <n>: <pid> <signal text> [(core dumped)] <cmd>'
_BASH_LINE = r"^[^\n:]{1,200}: line \d{1,7}: {1,3}\d{1,10} {1,3}"

# (Linux signal(7); glibc's strsignal() texts, which bash prints)
# (not 'Terminated' / 'Hangup': bash prints them for any command of a script that SIGTERM / SIGHUP stopped - a
# helper, a monitor - and the script goes on; they say neither which process nor why. torchrun's agent's own line,
# below, names the job's signal)
_SIG_TEXT = {"Bus error": "SIGBUS", "Killed": "SIGKILL"}
_SIG_NUM = {"1": "SIGHUP", "2": "SIGINT", "3": "SIGQUIT", "9": "SIGKILL", "15": "SIGTERM"}

PATTERNS = {
    # bash (execute_cmd.c: internal_error (_("%s: command not found"), ...)), zsh (exec.c: zerr("command not
    # found: %s")), tcsh ('%s: Command not found.'), Ubuntu's command-not-found (CommandNotFound.py: "Command
    # '%(command)s' not found"). (bash's form is not followed by ': ': zsh's 'zsh: command not found: torchrun' and
    # 'zsh:1: command not found: x' name the command after it, not 'zsh' / '1' before it)
    "_struct_fs_notfound": [r"(?:^|[\s:])(?P<cmd>[\w.+-]{1,60}): command not found\b(?!:)",
                            r"\bcommand not found: (?P<cmd>[\w.+-]{1,60})",
                            r"^\s{0,8}command '?(?P<cmd>[\w.+-]{1,60})'? not found\b"],
    "_struct_fs_signal": [p % (pre, s) for s in _SIG_TEXT for pre, p in (
        (_PRE, r"%s(?P<sig>%s)(?: \(core dumped\))?\s{0,8}$"),
        (_BASH_LINE, r"%s(?P<sig>%s)(?: \(core dumped\))?(?: {1,40}[^\n]{0,200})?$"))],
    # gdb (gdb/corelow.c 'Program terminated with signal %s, %s.'; infrun.c '... received signal %s, %s.')
    # and its frame line (stack.c print_frame: '#N  0xADDR in FUNC (ARGS) from LIB')
    "_struct_fs_gdb": [r"(?:Program terminated with|received) signal (?P<sig>SIG[A-Z]{2,8}), ",
                       (r"^#0 {1,3}0x[0-9a-f]{1,16} in (?P<fn>[^\n]{1,200}?)(?: from (?P<lib>/\S{1,300}))?\s*$",
                        ["#00x"]),
                       # (a long frame wraps: gdb prints '   from LIB' on the next line)
                       r"^\s{1,12}from (?P<lib>/\S{1,300}\.so\b\S{0,20})\s*$"],
    # torchrun's agent (torch/distributed/elastic/agent/server/api.py run(): logger.warning("Received %s death
    # signal, shutting down workers", e.sigval); multiprocessing/api.py _terminate_process_handler: raise
    # SignalException(f"Process {os.getpid()} got signal: {sigval}", sigval=sigval))
    "_struct_fs_death": [r"Received (?:Signals\.)?(?P<sig>\d{1,2}|SIG[A-Z]{2,8}) death signal, shutting down",
                         r"\bSignalException\b(?:: Process \d{1,10} got signal: (?:Signals\.)?"
                         r"(?P<sig>\d{1,2}|SIG[A-Z]{2,8}))?"],
    # curl's tool (src/tool_operate.c / tool_msgs.c: 'curl: (%d) %s'); enroot pulls with curl (src/common.sh)
    "_struct_fs_curl": [r"\bcurl: \((?P<code>\d{1,3})\) (?P<msg>[^\n]{1,200})"],
    "_struct_fs_enroot": [r"\benroot (?:import|create|start)\b", r"\bpyxis: "],
    # systemd (src/core/service.c, service_enter_signal: "Processes still around after SIGKILL. Ignoring.")
    "_struct_fs_unkillable": [r"Processes still around after SIGKILL"],
    "_struct_fs_cuda_err": [r"\bCUDA error\b"],
    # a CUDA kernel's assert() (the device runtime's __assertfail: '%s:%d: %s: block: [%d,%d,%d], thread:
    # [%d,%d,%d] Assertion `%s` failed.'), read without its backquotes (a paste through Markdown drops them)
    "_struct_fs_device_assert": [r"\bblock: \[\d{1,6},\d{1,6},\d{1,6}\], thread: \[\d{1,6},\d{1,6},\d{1,6}\] "
                                 r"Assertion (?P<expr>[^\n]{1,200}?) failed"],
    # torch < 1.11's THC (aten/src/THC/THCGeneral.cpp __THCublasCheck: _THError(file, line, "cublas runtime error
    # : %s", errmsg), errmsg spelled per cublasStatus_t in its switch)
    # Open MPI's shared-memory single copy (CMA): process_vm_readv() read less than it asked (opal/mca/btl/vader/
    # btl_vader_get.c mca_btl_vader_get_cma: opal_output(0, "Read %ld, expected %lu, errno = %d\n", ...); Open MPI
    # 5's opal/mca/smsc/cma: "CMA read %ld, expected %lu, errno = %d")
    "_struct_fs_cma": [r"\b(?:CMA r|R)ead -?\d{1,20}, expected \S{1,40}, errno ?= ?(?P<errno>\d{1,4})\b"],
    # Kubernetes: the container runtime's reason for a container the kernel's OOM killer ended inside its memory
    # limit (kubectl get pods' STATUS, describe's 'Reason: OOMKilled'), the kubelet's eviction (pkg/kubelet/
    # eviction/helpers.go: Reason = "Evicted", nodeLowMessageFmt = "The node was low on resource: %v. ") and a
    # container that keeps exiting (the kubelet's back-off, 'CrashLoopBackOff': its own log has the error)
    "_struct_fs_k8s": [r"\b(?P<oom>OOMKilled)\b",
                       r"\bThe node was low on resource: (?P<res>[\w-]{1,40})",
                       r"\b(?P<crash>CrashLoopBackOff)\b"],
    "_struct_fs_thc_cublas": [r"\bcublas runtime error : (?P<msg>[a-z][a-z ]{3,80}?[a-z])(?= at |\s*$)"],
}

# THCGeneral.cpp's errmsg per status (older releases spell ALLOC_FAILED 'ressource allocation failed')
_THC_CUBLAS = {"library not initialized": "CUBLAS_STATUS_NOT_INITIALIZED",
               "resource allocation failed": "CUBLAS_STATUS_ALLOC_FAILED",
               "ressource allocation failed": "CUBLAS_STATUS_ALLOC_FAILED",
               "an invalid numeric value was used as an argument": "CUBLAS_STATUS_INVALID_VALUE",
               "an absent device architectural feature is required": "CUBLAS_STATUS_ARCH_MISMATCH",
               "an access to gpu memory space failed": "CUBLAS_STATUS_MAPPING_ERROR",
               "the gpu program failed to execute": "CUBLAS_STATUS_EXECUTION_FAILED",
               "an internal operation failed": "CUBLAS_STATUS_INTERNAL_ERROR"}

# console scripts of the Python packages a training job runs (their setup entry points: torch 'torchrun',
# deepspeed 'deepspeed' / 'ds_report' ..., accelerate 'accelerate', huggingface_hub 'huggingface-cli')
PY_SCRIPTS = _PY_SCRIPTS = frozenset((
    "python", "python3", "pip", "pip3", "torchrun", "deepspeed", "ds", "ds_report", "ds_ssh", "accelerate",
    "accelerate-launch", "huggingface-cli", "transformers-cli", "ray", "torchx", "llamafactory-cli", "vllm",
    "yolo", "wandb", "jupyter", "lightning", "conda"))

# libcurl-errors.3: the codes a download through a proxy / a TLS check fails with
_CURL_TLS = {35, 51, 53, 54, 58, 59, 60, 77, 80, 83, 90, 91}
_CURL_NET = {5, 6, 7, 28, 52, 55, 56}

# the eviction signal's resource (pkg/kubelet/eviction/api/types.go: memory.available -> 'memory', nodefs /
# imagefs -> 'ephemeral-storage') -> the errno family of what ran out
_K8S_RES = {"memory": "errno.enomem", "ephemeral-storage": "errno.enospc"}

_LIB_PKG = re.compile(r"(?:site|dist)-packages/(?P<pkg>[A-Za-z_]\w{0,40})/")
_LIB_BASE = re.compile(r"/lib(?P<base>torch|c10)[\w.]*\.so\b")


def _hits(scan, name):
    return [h for h in scan.matches.get(name, []) if h.severity != "info"]


def seen(scan):
    """True when the text has a failure line of one of these shapes (analyze: never 'no error' then, even where
    structural() cannot name the family: a command that is not a Python package's, curl outside enroot)."""
    return bool(_answer_hit(scan) or _hits(scan, "_struct_fs_notfound") or _hits(scan, "_struct_fs_curl") or
                _hits(scan, "_struct_fs_k8s") or
                scan.matches.get("_struct_fs_unkillable"))


def _answer_hit(scan):
    """(kind, hit) of the first failure line that structural() can answer, or None."""
    got = []
    for h in _hits(scan, "_struct_fs_notfound"):
        if (h.groups.get("cmd") or "").lower() in _PY_SCRIPTS:
            got.append(("notfound", h))
            break
    for h in _hits(scan, "_struct_fs_signal"):
        got.append(("signal", h))
        break
    gdb = [h for h in _hits(scan, "_struct_fs_gdb") if h.groups.get("sig")]
    if gdb:
        got.append(("gdb", gdb[0]))
    death = scan.matches.get("_struct_fs_death", [])  # torchrun logs it as a WARNING
    if death:
        got.append(("death", death[0]))
    curl = _hits(scan, "_struct_fs_curl")
    if curl and scan.matches.get("_struct_fs_enroot"):
        got.append(("curl", curl[0]))
    k8s = [x for x in _hits(scan, "_struct_fs_k8s") if x.groups.get("oom") or
           (x.groups.get("res") or "").lower() in _K8S_RES]
    if k8s:
        got.append(("k8s", k8s[0]))
    for name, kind in (("_struct_fs_device_assert", "assert"), ("_struct_fs_thc_cublas", "thc"),
                       ("_struct_fs_cma", "cma")):
        hits = _hits(scan, name)
        if hits:
            got.append((kind, hits[0]))
    kill = scan.matches.get("_struct_fs_unkillable", [])
    if kill and scan.matches.get("_struct_fs_cuda_err"):
        got.append(("unkillable", kill[0]))
    return min(got, key=lambda x: x[1].line) if got else None


def structural(scan, kb):
    """A family answer (How sure: low) from the first failure line of a shape above, or None."""
    from gpudoctor.explain.analyze import _structural_finding

    got = _answer_hit(scan)
    if got is None:
        return None
    kind, h = got
    by = kb.by_id
    f = None
    if kind == "notfound" and "code.python_env" in by:
        cmd = h.groups.get("cmd")
        f = _structural_finding(by["code.python_env"], h, "a shell's 'command not found' for %s, a Python "
                                "package's command" % cmd, scan)
        f["notes"].append("The shell did not find %s on PATH: the environment (venv / conda) that has it is not "
                          "active where this ran (a batch script, ssh or a launcher's remote shell starts a new "
                          "shell: ~/.bashrc's conda init is not read)." % cmd)
        f["causes"][0]["fix"].insert(0, "activate the environment in the script before the command (source "
                                        "<venv>/bin/activate, or conda activate <env> after eval \"$(conda shell.bash "
                                        "hook)\"), or call it by its full path (<env>/bin/%s); check with: which %s"
                                        % (sh(cmd), sh(cmd)))
    elif kind == "signal":
        f = _signal(scan, by, h, _SIG_TEXT.get(_title(h.groups.get("sig"))), "bash's report of a process a signal "
                    "ended ('%s')" % h.groups.get("sig"))
    elif kind == "gdb":
        f = _gdb(scan, by, h)
    elif kind == "death":
        sig = h.groups.get("sig")
        sig = _SIG_NUM.get(sig, sig) if sig else None
        f = _signal(scan, by, h, sig or "SIGTERM", "torchrun's agent got a death signal (%s)" % (sig or "its number "
                    "not shown"), agent=True, known=bool(sig))
    elif kind == "curl" and "enroot.registry" in by:
        f = _curl(scan, by, h)
    elif kind == "assert" and "cuda.device_assert" in by:
        f = _structural_finding(by["cuda.device_assert"], h, "a CUDA kernel's assert line (block / thread / "
                                "Assertion ... failed)", scan, sure="medium")
        f["notes"].append("A GPU kernel's own check failed (%s): an index or a value the kernel got is out of its "
                          "range - the data or the model's sizes, not the cluster. The CUDA error that follows "
                          "(device-side assert triggered) is its echo." % _clip(h.groups.get("expr"), 120))
    elif kind == "cma" and "mpi.transport" in by:
        f = _cma(scan, by, h)
    elif kind == "k8s":
        f = _k8s(scan, by, h)
    elif kind == "thc":
        f = _thc(scan, kb, h)
    elif kind == "unkillable" and "cuda.gpu_hardware" in by:
        f = _structural_finding(by["cuda.gpu_hardware"], h, "systemd could not end a process of a unit whose log "
                                "says CUDA failed ('Processes still around after SIGKILL')", scan)
        f["notes"].append("A process that SIGKILL does not end is blocked inside the kernel (uninterruptible "
                          "sleep, state D in ps): for a GPU process, in the NVIDIA driver waiting on a GPU that "
                          "stopped answering. The kernel log's Xid lines name the fault; only a GPU reset or a "
                          "reboot frees it.")
        f["causes"][0]["fix"].insert(0, "sudo dmesg -T | grep -iE 'xid|nvrm' on that node (the fault), ps -eo "
                                        "pid,stat,wchan:30,cmd | awk '$2 ~ /D/' (the stuck process), nvidia-smi -q "
                                        "-d ECC,PAGE_RETIREMENT; then drain and reset or reboot the node")
    return f


def _title(s):
    s = (s or "").strip()
    return s[:1].upper() + s[1:].lower()


def _signal(scan, by, h, sig, why, agent=False, known=True):
    """The finding for a process (or torchrun's agent) that signal ``sig`` ended."""
    from gpudoctor.explain.analyze import _structural_finding

    if sig == "SIGBUS" and "errno.enospc" in by:
        f = _structural_finding(by["errno.enospc"], h, why, scan)
        f["notes"].append("SIGBUS: the process touched a page of a shared or memory-mapped file that could not be "
                          "backed - /dev/shm (a tmpfs: DataLoader workers pass batches through it, a container has "
                          "64 MB of it by default) ran full, or a mapped file was truncated. torch's DataLoader says "
                          "the same of a worker's SIGBUS ('insufficient shared memory (shm)').")
        _first_fix(f, "df -h /dev/shm where it ran; give it more: docker run --shm-size=16g (or --ipc=host), "
                      "Kubernetes an emptyDir with medium: Memory at /dev/shm, a host: sudo mount -o remount,size=50% "
                      "/dev/shm; or DataLoader(num_workers=0) to confirm")
        return f
    if sig == "SIGKILL" and not agent and "errno.enomem" in by:
        f = _structural_finding(by["errno.enomem"], h, why, scan)
        f["notes"].append("SIGKILL ('Killed') cannot be caught: the kernel's OOM killer sends it when the node or "
                          "the job's cgroup runs out of host RAM (loading a model's shards, DataLoader workers), "
                          "else a person or the scheduler did (kill -9, a memory limit).")
        # a refused allocation (memlock, fork, RLIMIT_AS) returns ENOMEM to its caller; only running out of RAM
        # ends a process by SIGKILL (the OOM killer, mm/oom_kill.c), so that cause leads and takes the fix
        _cause_first(f, "out of RAM")
        _first_fix(f, "sudo dmesg -T | grep -iE 'killed process|out of memory' on that node (the OOM killer names the "
                      "process); sacct -j <jobid> -o JobID,State,MaxRSS,ReqMem under Slurm; then load with less host "
                      "RAM (low_cpu_mem_usage / device_map, fewer workers) or ask for more memory")
        return f
    if sig in ("SIGHUP", "SIGTERM", "SIGINT", "SIGQUIT", "SIGKILL") and "elastic.sigterm" in by:
        f = _structural_finding(by["elastic.sigterm"], h, why, scan)
        hup = ("SIGHUP is what a terminal's closing (an ssh session that ended) sends to the processes it started; "
               "torchrun's agent installs its own handler for SIGHUP (elastic/multiprocessing/api.py), so 'nohup "
               "torchrun ...' does not protect the run: start it detached from the terminal")
        hup_fix = ("run it where closing the terminal does not reach it: inside tmux or screen, or setsid nohup "
                   "torchrun ... > train.log 2>&1 &  (setsid: no controlling terminal), or as a batch job (sbatch)")
        if sig == "SIGHUP" or not known:
            f["notes"].append("%s%s." % (hup, "" if known else "; a SIGTERM is the scheduler or a kill instead: "
                                                                "the signal's number in the agent's log says which"))
            _first_fix(f, hup_fix)
        elif sig == "SIGINT":
            f["notes"].append("SIGINT: someone pressed Ctrl-C, or a launcher passed one on.")
        elif sig == "SIGKILL":
            f["notes"].append("SIGKILL to the agent: a kill -9, the scheduler after its grace period, or the "
                              "kernel's OOM killer (dmesg says which).")
        return f
    return None


def _cause_first(f, words):
    """The first cause whose text holds ``words`` moved to the front of ``f``'s causes (none: unchanged)."""
    causes = f["causes"]
    at = next((i for i, c in enumerate(causes) if words in c.get("text", "")), None)
    if at:
        causes.insert(0, causes.pop(at))


def _first_fix(f, line):
    fixes = f["causes"][0]["fix"]
    if line not in fixes:
        fixes.insert(0, line)


def _gdb(scan, by, h):
    from gpudoctor.explain.analyze import _structural_finding

    hits = scan.matches.get("_struct_fs_gdb", [])
    frame = next((x for x in hits if x.groups.get("fn") and h.line < x.line <= h.line + 40), None)
    if frame is None:
        return None
    lib = frame.groups.get("lib") or next((x.groups.get("lib") for x in hits if x.line == frame.line + 1 and
                                           x.groups.get("lib")), None) or ""
    m = _LIB_PKG.search(lib)
    pkg = m.group("pkg") if m else None
    if pkg is None:
        b = _LIB_BASE.search(lib)
        pkg = "torch" if b else None
    eid = "%s.library_error" % pkg if pkg else None
    if eid not in by:
        return None
    sig = h.groups.get("sig")
    f = _structural_finding(by[eid], h, "gdb's %s with its innermost frame in %s's library (%s)" % (
        sig, pkg, lib.rsplit("/", 1)[-1][:80]), scan)
    f["notes"].append("The process died of %s inside %s's own native library (%s, in %s): no Python code of yours "
                      "is the innermost frame. A crash there is a bug of that build (fixed in a later release) or a "
                      "build that does not fit the rest: torch built for another CUDA than the driver's, or an "
                      "extension (mmcv, apex, flash-attn) compiled against another torch."
                      % (sig, pkg, lib[-120:], (frame.groups.get("fn") or "")[:80]))
    _first_fix(f, "upgrade %s to a newer release (the crash may be a fixed bug) or reinstall the build that matches "
                  "your CUDA; rebuild compiled extensions against the installed torch; run gdb's bt for the frames "
                  "above #0" % sh(pkg))
    return f


def _curl(scan, by, h):
    from gpudoctor.explain.analyze import _structural_finding

    code = int(h.groups.get("code") or 0)
    f = _structural_finding(by["enroot.registry"], h, "curl's error (%d) while enroot pulled the image" % code, scan)
    if code in _CURL_TLS:
        f["notes"].append("curl (%d) is a TLS failure (libcurl-errors.3): the registry's certificate (or a "
                          "proxy's that intercepts TLS) is not signed by a CA this node trusts." % code)
        _first_fix(f, "add the proxy's or registry's CA certificate to the node's trust store (Debian/Ubuntu: copy "
                      "it to /usr/local/share/ca-certificates/ and run update-ca-certificates; RHEL: "
                      "/etc/pki/ca-trust/source/anchors/ and update-ca-trust), or point curl at it: export "
                      "SSL_CERT_FILE / CURL_CA_BUNDLE=<ca bundle>; set https_proxy when a proxy is required")
    elif code in _CURL_NET:
        f["notes"].append("curl (%d) is a network failure (libcurl-errors.3): the registry's host could not be "
                          "resolved, reached or did not answer in time from this node." % code)
        _first_fix(f, "curl -v https://<registry>/v2/ from that node; set https_proxy / no_proxy when the node "
                      "reaches the internet through a proxy")
    return f


def _thc(scan, kb, h):
    """THC's 'cublas runtime error : <text>': the cublasStatus_t its text spells, answered by the entry whose own
    pattern names that status (the status as cuBLAS' later messages print it)."""
    from gpudoctor.explain.analyze import _structural_finding

    status = _THC_CUBLAS.get((h.groups.get("msg") or "").lower().strip())
    if status is None:
        return None
    eid = next((e["id"] for e in kb.entries if not e.get("structural") and
                any(status in str(p) for p in e.get("patterns") or [])), None)
    if eid is None:
        return None
    f = _structural_finding(kb.by_id[eid], h, "torch's THC cuBLAS check ('cublas runtime error : %s' is %s)" % (
        h.groups.get("msg"), status), scan, sure="medium")
    f["notes"].append("An old torch (THC, before 1.11) names cuBLAS' status in words: '%s' is %s, what newer "
                      "releases print as 'CUBLAS_STATUS_...'." % (h.groups.get("msg"), status))
    return f


def _cma(scan, by, h):
    """Open MPI's CMA read that failed: process_vm_readv(2)'s errno says why."""
    from gpudoctor.explain.analyze import _structural_finding

    errno = h.groups.get("errno")
    f = _structural_finding(by["mpi.transport"], h, "Open MPI's shared-memory single copy (CMA, process_vm_readv) "
                            "failed with errno %s" % errno, scan, sure="medium" if errno == "1" else "low")
    if errno == "1":
        # process_vm_readv(2): EPERM 'the caller does not have permission to access the address space of the process
        # pid' (ptrace access mode PTRACE_MODE_ATTACH_REALCREDS); Docker's default profile drops CAP_SYS_PTRACE
        f["notes"].append("errno 1 is EPERM: process_vm_readv(2) needs ptrace access to the other rank's process, "
                          "which a container without CAP_SYS_PTRACE (Docker's default) or a kernel's Yama "
                          "ptrace_scope=1+ denies. Ranks of one node exchange messages by reading each other's "
                          "memory this way; a job of one process per node, or only start-up and shutdown, works.")
        _first_fix(f, "docker run --cap-add=SYS_PTRACE (or --privileged), or turn the single copy off: mpirun --mca "
                      "btl_vader_single_copy_mechanism none (Open MPI 3/4), --mca smsc ^cma (Open MPI 5); on a host: "
                      "sysctl kernel.yama.ptrace_scope=0")
    else:
        f["notes"].append("process_vm_readv(2) failed with errno %s while one rank read another's memory on the same "
                          "node (Open MPI's single copy): the peer process was gone (ESRCH, 3) or the address was "
                          "not mapped (EFAULT, 14)." % errno)
    return f


def _k8s(scan, by, h):
    """Kubernetes' OOMKilled, or an eviction for memory / ephemeral storage."""
    from gpudoctor.explain.analyze import _structural_finding

    if h.groups.get("oom"):
        eid, why = "errno.enomem", "Kubernetes' container state reason OOMKilled"
        note = ("OOMKilled: the kernel's OOM killer ended the container because it reached its memory limit "
                "(resources.limits.memory, the cgroup's memory.max), or the node ran out of RAM; host memory, not the "
                "GPU's (exit code 137 = 128 + SIGKILL).")
        fix = ("kubectl describe pod <pod> (Last State: Terminated, Reason: OOMKilled, Exit Code: 137, and the "
               "limits); raise resources.limits.memory (and requests), or use less host RAM: fewer DataLoader "
               "workers, low_cpu_mem_usage / device_map when loading the model, a larger /dev/shm emptyDir counts "
               "against the limit too")
    else:
        res = (h.groups.get("res") or "").lower()
        eid = _K8S_RES[res]
        why = "the kubelet evicted the pod: the node was low on %s" % res
        note = ("Evicted: the kubelet ended the pod because the node ran low on %s (its eviction thresholds); "
                "the pod's own usage above its request made it the one chosen." % res)
        fix = ("kubectl describe pod <pod> (the eviction message names the container and its usage); set requests "
               "and limits for %s near what the job uses%s" % (
                   res, ", and keep large files (checkpoints, caches, /tmp) on a volume rather than the "
                        "container's writable layer or an emptyDir on the node's disk" if res != "memory" else ""))
    if eid not in by:
        return None
    f = _structural_finding(by[eid], h, why, scan)
    f["notes"].append(note)
    _first_fix(f, fix)
    return f

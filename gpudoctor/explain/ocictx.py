"""A symptom explained by the container's own run line, when the text shows it (issue 18, oci-src).

A training job in a container fails inside it with the kernel's or Python's words ('Killed', exit code 137,
'Read-only file system', 'No space left on device' on /dev/shm, no GPU), which have several causes. When the
text holds the `docker run` / `podman run` line that started it, its options name the container's one: a
--memory limit (the OOM killer of the container's cgroup: SIGKILL, exit 137), a --read-only root file system
with no writable /tmp, the default 64 MB /dev/shm (no --shm-size, no --ipc=host), a container started without
GPUs. The options are read as docker-run(1) / podman-run(1) define them
(https://docs.docker.com/reference/cli/docker/container/run/, https://docs.podman.io/en/latest/markdown/podman-run.1.html):

- -m / --memory N: the container's memory limit; its processes are OOM-killed (SIGKILL, exit status 137) past it;
- --read-only: the root file system is read-only; docker mounts nothing writable unless --tmpfs /tmp, podman mounts
  tmpfs on /tmp, /var/tmp and /run unless --read-only-tmpfs=false;
- --shm-size / --ipc=host (or --ipc=container:..., shareable host IPC): without either /dev/shm is 64 MB;
- --gpus, --device nvidia.com/gpu=..., --device /dev/nvidia*, --runtime=nvidia, NVIDIA_VISIBLE_DEVICES: without
  any, no GPU reaches the container.

launchctx.py hands the lines here (its FACTS 'ctr' and 'ctrhint') and takes what read() finds as its own launch
facts (launchctx.Found): the root when the root found is one of the symptoms, or there is none and the lines show
the failure; otherwise a note. The command is read with shlex, never run; lines and counts are bounded.
"""

import re
import shlex

from gpudoctor.explain.knowledge import Pattern

MAX_LINE = 4096
MAX_CMDS = 8
MAX_HINTS = 16

# a container engine's run/create command (optionally 'container run'), at a command's start
FACTS = {
    "ctr": r"(?<![\w./-])(?:[\w./+-]{0,200}/)?(?:docker|podman|nerdctl)[ \t]{1,4}(?:container[ \t]{1,4})?"
           r"(?:run|create)[ \t]",
    # what the job printed when it died: killed (exit 137, SIGKILL, OOMKilled) or a read-only file system
    "ctrhint": r"\b(?:exit(?:ed)?(?:[ \t]{1,4}with)?[ \t]{0,4}(?:code|status)?[ \t]{0,4}[=:]?[ \t]{0,4}137\b|"
               r"(?:return|exit)[ \t]?code[ \t]{0,4}[=:]?[ \t]{0,4}137\b|OOMKilled|signal[ \t]{1,4}9\b|SIGKILL|"
               r"^Killed\b|Read-only file system|\bEROFS\b|No usable temporary directory|"
               # a process using POSIX shared memory: multiprocessing's semaphores (Lib/multiprocessing/synchronize.py
               # SemLock: sem_open, a file of /dev/shm), or the path itself (family16: for --ipc=none)
               r"_multiprocessing\.SemLock\(|\bsem_open\b|/dev/shm\b)",
}
_NEEDLES = {"ctr": ["dockerrun", "podmanrun", "nerdctlrun", "dockercreate", "podmancreate", "dockercontainerrun",
                    "podmancontainerrun"],
            "ctrhint": ["code137", "status137", "exit=137", "code=137", "exit137", "oomkilled", "signal9", "sigkill",
                        "killed", "read-onlyfilesystem", "erofs", "nousabletemporarydirectory",
                        "_multiprocessing.semlock(", "sem_open", "/dev/shm"]}
_KILL = re.compile(r"137\b|OOMKilled|signal[ \t]{1,4}9\b|SIGKILL|^Killed\b", re.I)
_RO = re.compile(r"Read-only file system|\bEROFS\b|No usable temporary directory", re.I)
_SHM_USE = re.compile(r"_multiprocessing\.SemLock\(|\bsem_open\b|/dev/shm\b")

# the symptoms each container fact causes (knowledge entry ids or families)
KILLED = {"elastic.sigkill", "cascade.signal", "errno.enomem", "usercode.dataloader_killed", "slurm.oom",
          "cascade.child_failed", "code.exception"}
READONLY = {"errno.permission", "errno.io", "code.exception", "errno.syscall"}
SHM = {"shm.size", "container.shm_too_small", "usercode.dataloader_shm", "usercode.shm_open", "errno.enospc",
       "nccl_shm_disable", "container.ucx_shm"}
NO_GPU = {"cuda.init_failed", "gpu.no_devices", "errno.no_device", "transformers.precision_no_gpu"}

# the shorthands that take a value (docker-run(1) / podman-run(1)); the others (-d -i -t -P -q) are booleans
_VALUE_SHORT = set("acehlmpuvw")
# the long options that are booleans (a value only as --name=value); every other long option takes the next word
_FLAGS = {"--rm", "--detach", "--interactive", "--tty", "--privileged", "--read-only", "--init", "--publish-all",
          "--replace", "--sig-proxy", "--no-healthcheck", "--quiet", "--read-only-tmpfs", "--rmi", "--http-proxy",
          "--oom-kill-disable", "--env-host", "--no-hosts", "--passwd", "--rootfs", "--disable-content-trust"}


def patterns(entry):
    return [Pattern(entry, "paste", rx, 0, site={"class": cls, "id": "ocictx-" + cls}, needles=_NEEDLES[cls])
            for cls, rx in FACTS.items()]


class State(object):
    def __init__(self):
        self.cmds = []  # dicts: line, text, opts {name: [values]}
        self.kill = []  # (line, text)
        self.ro = []  # (line, text)
        self.shm = []  # (line, text): a line of POSIX shared memory's use (SemLock, sem_open, /dev/shm)
        self.cont = set()  # (0, line): continuation lines of a run line read (launchctx._joined)


def _state(scan):
    st = getattr(scan, "ocictx", None)
    if st is None:
        st = scan.ocictx = State()
    return st


def run_options(text):
    """{option: [values]} of a `docker|podman [container] run|create ...` line (the options before the image), or
    None when the line holds no such command."""
    m = re.search(FACTS["ctr"], text)
    if not m:
        return None
    try:
        argv = shlex.split(text[m.start():].rstrip("\\ \t"), comments=True)[:300]
    except ValueError:
        return None
    i = 2 + (argv[1:2] == ["container"])
    opts = {}
    while i < len(argv):
        a = argv[i]
        if a in ("|", "||", "&&", ";", "&") or not a.startswith("-") or a == "-":
            break  # the image: the container's own command follows
        if a.startswith("--"):
            name, eq, val = a.partition("=")
            if not eq and name not in _FLAGS:
                val = argv[i + 1] if i + 1 < len(argv) else ""
                i += 1
            opts.setdefault(name, []).append(val if eq or name not in _FLAGS else "true")
        else:
            # a cluster of shorthands, as pflag reads it (docker's and podman's CLI: spf13/pflag flag.go parseShortArg
            # / parseSingleShortArg): '-it' is -i -t; a shorthand that takes a value ends the cluster, its value is the
            # rest ('-m8g', '-m=8g': '-f=arg') or the next word ('-dm 8g')
            k = 1
            while k < len(a):
                c, rest = a[k], a[k + 1:]
                if rest[:1] == "=" and len(rest) > 1:
                    opts.setdefault("-" + c, []).append(rest[1:])
                    break
                if c not in _VALUE_SHORT:
                    opts.setdefault("-" + c, []).append("true")
                    k += 1
                    continue
                if not rest:
                    rest = argv[i + 1] if i + 1 < len(argv) else ""
                    i += 1
                opts.setdefault("-" + c, []).append(rest)
                break
        i += 1
    return opts


def record(scan, hit, win=None):
    st = _state(scan)
    cls = hit.pattern.site["class"]
    text = hit.text[:MAX_LINE]
    if cls == "ctr":
        if len(st.cmds) < MAX_CMDS and (0, hit.line) not in st.cont and not any(c["line"] == hit.line for c in st.cmds):
            from gpudoctor.explain.launchctx import _joined

            # a run line continued with a backslash (`docker run --gpus all \` then `  --memory 8g \` ...): its
            # options read whole, joined as launchctx joins an srun / torchrun line
            text = _joined(st, 0, hit.line, text, win)
            opts = run_options(text)
            if opts is not None:
                st.cmds.append({"line": hit.line, "text": text.strip()[:400], "opts": opts})
    elif cls == "ctrhint":
        if _SHM_USE.search(text) and not _RO.search(text) and len(st.shm) < MAX_HINTS:
            st.shm.append((hit.line, text.strip()[:300]))
        elif _RO.search(text) and len(st.ro) < MAX_HINTS:
            st.ro.append((hit.line, text.strip()[:300]))
        elif _KILL.search(text) and len(st.kill) < MAX_HINTS:
            st.kill.append((hit.line, text.strip()[:300]))


def _get(opts, *names):
    for n in names:
        if opts.get(n):
            return opts[n][-1]
    return None


def _has_gpu(opts):
    if _get(opts, "--gpus") or (_get(opts, "--runtime") or "").endswith("nvidia"):
        return True
    if any(re.search(r"nvidia", d) for d in opts.get("--device", [])):
        return True
    return any(re.match(r"NVIDIA_VISIBLE_DEVICES=", e) for e in opts.get("-e", []) + opts.get("--env", []))


def read(scan, found):
    """[found(eid, what, ev, fix, symptoms, alone)] of what the container's run line shows (launchctx.Found)."""
    st = getattr(scan, "ocictx", None)
    if st is None or not st.cmds:
        return []
    out = []
    seen = set(getattr(scan, "matches", {}) or ())  # a default's cause is said only beside its symptom
    for c in st.cmds:
        o, cmd = c["opts"], (c["line"], c["text"])
        mem = _get(o, "--memory", "-m")
        kills = [k for k in st.kill if k[0] > c["line"]]
        if mem and kills:
            out.append(found("container.oci_cgroup", "the container runs with a memory limit (%s %s) and its process was "
                             "killed (%s): the kernel's OOM killer of the container's cgroup sends SIGKILL (exit status "
                             "137), with no Python traceback" % ("--memory" if "--memory" in o else "-m", mem,
                                                                 kills[0][1][:80]),
                             [cmd, kills[0]], "raise or drop the limit (--memory 32g; docker/podman inspect shows "
                             "OOMKilled true), or use less RAM inside: load the data lazily or in pieces, fewer "
                             "DataLoader workers", KILLED, alone=True))
        ro = [r for r in st.ro if r[0] > c["line"]]
        tmpfs = any(t.split(":")[0].rstrip("/") in ("/tmp", "") for t in o.get("--tmpfs", []))
        podman = re.search(r"\bpodman\b", c["text"]) is not None
        writable_tmp = tmpfs or (podman and (_get(o, "--read-only-tmpfs") or "true") != "false")
        if _get(o, "--read-only") and ro and not writable_tmp:
            out.append(found("container.oci_mount", "the container's root file system is read-only (--read-only%s) "
                             "with no writable /tmp, so the job cannot create its files there (%s)"
                             % (" --read-only-tmpfs=false" if podman else ", no --tmpfs /tmp", ro[0][1][:80]),
                             [cmd, ro[0]], "give it a writable /tmp: --tmpfs /tmp (podman: drop --read-only-tmpfs=false), "
                             "or point TMPDIR and the job's files at a writable volume (-v /scratch:/scratch)",
                             READONLY, alone=True))
        ipc = _get(o, "--ipc") or ""
        shm = [x for x in st.shm if x[0] > c["line"]]
        if ipc == "none" and shm and (scan.error_count or scan.tracebacks):
            # --ipc=none: a private IPC namespace with no /dev/shm mounted (podman-run(1) --ipc: 'none: private IPC
            # namespace, with /dev/shm not mounted'; docker-run(1) the same), so POSIX shared memory and the
            # semaphores multiprocessing makes there (a DataLoader's workers, a Lock) fail with ENOENT (family16)
            out.append(found("container.oci_shm", "the container was started with --ipc=none, its own IPC namespace "
                             "with no /dev/shm mounted, and the job uses POSIX shared memory (%s)" % shm[0][1][:80],
                             [cmd, shm[0]], "start it with --ipc=private (a /dev/shm of --shm-size, 64 MB by default: "
                             "--shm-size=16g) or --ipc=host, not --ipc=none", SHM | {"code.exception", "errno.syscall"},
                             alone=True))
        if seen & SHM and not _get(o, "--shm-size") and not (ipc == "host" or ipc.startswith("container:")):
            out.append(found("_cause", "the container was started without --shm-size or --ipc=host (%s), so its "
                             "/dev/shm is the default 64 MB" % c["text"][:120], [cmd],
                             "start it with --shm-size=16g (or --ipc=host)", SHM))
        if seen & NO_GPU and not _has_gpu(o):
            out.append(found("_cause", "the container was started without GPUs: its run line has no --gpus, --device "
                             "nvidia.com/gpu=... or --runtime=nvidia (%s)" % c["text"][:120], [cmd],
                             "docker run --gpus all ... (podman: --device nvidia.com/gpu=all, after nvidia-ctk cdi "
                             "generate)", NO_GPU))
    return out

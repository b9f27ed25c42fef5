"""The launch commands and launcher configs pasted beside an error (or instead of one: "it hangs",
"only one GPU is used"), read by `gpudoctor plan`'s readers (gpudoctor/launch/) and turned into
explain findings.

What is looked for, during the one scan of the input (role "paste" patterns: the scanner's
prefilter finds their needles, so a log without them costs nothing more):
- launch lines: torchrun, python -m torch.distributed.run|launch, deepspeed, accelerate launch,
  mpirun/mpiexec, horovodrun, and srun in front of one of them; after a shell prompt, a `set -x`
  '+ ', env assignments; backslash continuation lines are joined;
- `#SBATCH` lines (the allocation: nodes, GPUs per node);
- accelerate config keys (`compute_environment:`, `distributed_type:`, `num_machines:`,
  `machine_rank:`, `main_process_ip/port:`, `num_processes:`, `rdzv_backend:`, ... as YAML or
  JSON), grouped by nearness into one config per block (two nodes' configs are two blocks);
- DeepSpeed hostfile lines (`host slots=N`), the KEY=VALUE lines after `.deepspeed_env`;
- nvidia-smi's GPU table (how many GPUs the node has).

Bounds: at most MAX_LAUNCHES launch lines (each at most MAX_COMMAND characters with its
continuations), MAX_SBATCH #SBATCH lines, MAX_KEYS config lines, MAX_HOSTS hostfile lines per
input set. Nothing found is ever run: the launch lines are read by launch/script.py's reader (a
shell reader that expands, never executes) and the launchers' own argument rules; a file a line
names (a hostfile, --config_file, --deepspeed ds.json) is never opened on this machine: the
reader gets the block pasted for it, or a path that does not exist (written to a private
temporary folder, removed after).

Ranking (judge): a launch finding that explains the root error (its family is one the finding
causes: a rendezvous timeout beside `main_process_port: 0`) goes first and the error follows it as
related; a specific root it does not explain stays root and the launch finding follows as related;
with no error (or only a structural / family answer it does not explain) the launch finding is
the answer (verdict root_cause) or follows it.
"""

import os
import re
import shlex

from gpudoctor.explain.knowledge import Pattern

MAX_LAUNCHES = 16
MAX_COMMAND = 8192
MAX_CONT = 40  # continuation lines of one launch line
MAX_SBATCH = 64
MAX_KEYS = 400
MAX_HOSTS = 256
MAX_ENV_LINES = 64
MAX_GROUPS = 8  # accelerate config blocks read
MAX_TRIES = 4000  # candidate lines looked at per input set: a log that names a launcher on every line costs no more
GROUP_GAP = 25  # lines between two keys of one config block

# The role "paste" patterns: kind -> regexes (case-insensitive, tried on one line).
_LAUNCHER_WORDS = ("torchrun", "deepspeed", "mpirun", "mpiexec", "horovodrun", "orterun")
PATTERNS = {
    "launch": [r"(?<![\w./-])%s[ \t]" % w for w in _LAUNCHER_WORDS] + [
        r"(?<![\w./-])accelerate[ \t]{1,4}launch\b", r"(?<![\w./-])accelerate-launch[ \t]",
        r"-m[ \t]{1,4}torch\.distributed\.(?:run|launch)\b", r"-m[ \t]{1,4}deepspeed\.launcher\.runner\b",
        r"-m[ \t]{1,4}accelerate\.commands\.launch\b"],
    "sbatch": [r"^[ \t]{0,8}#SBATCH[ \t]{1,8}(?P<opts>[^\n]{1,400})"],
    # accelerate's config keys (commands/config/config_args.py ClusterConfig), YAML or JSON
    "key": [r"(?<![\w.-])[\"']?(?P<key>compute_environment|distributed_type|num_machines|machine_rank|main_process_ip|"
            r"main_process_port|num_processes|rdzv_backend|same_network|deepspeed_multinode_launcher|"
            r"deepspeed_hostfile|use_cpu|gpu_ids)[\"']?[ \t]{0,4}:[ \t]{0,4}(?P<val>[^\n#,}]{0,200})"],
    # a DeepSpeed hostfile line (deepspeed/launcher/runner.py _parse_hostfile: '<host> slots=<n>')
    "host": [r"^[ \t]{0,8}(?P<host>[A-Za-z0-9][\w.-]{0,252})[ \t]{1,8}slots[ \t]{0,2}=[ \t]{0,2}(?P<slots>\d{1,6})"
             r"[ \t]{0,8}(?:#[^\n]{0,200})?$"],
    "dsenv": [r"\.deepspeed_env\b"],
    "smi": [r"NVIDIA-SMI[ \t]{1,8}\d{2,4}\."],
}

_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}=")
# what may stand before the command on its line: a shell prompt, `set -x`'s '+ ', a notebook's '!'
_PROMPT = re.compile(r"^(?:[ \t>]{0,16}|[^\n]{0,200}?[$#%>][ \t]{1,4}|[ \t]{0,8}\+{1,3}[ \t]{1,4}|[ \t]{0,8}!)$")
_PROMPT_END = re.compile(r"(?:[$#%>]|^[ \t]{0,8}\+{1,3}|^[ \t]{0,8}!)[ \t]{0,4}")
_LEAD_OK = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]{0,127}=\S{0,4096}[ \t]+)*(?:(?:nohup|exec|time|env|stdbuf|"
                      r"sudo -E|sudo)[ \t]+)*(?:srun[ \t][^;|&\n]{0,2000})?$")
_LAUNCH_AT = re.compile(r"(?<![\w./-])(?:torchrun|deepspeed|mpirun|mpiexec(?:\.hydra)?|horovodrun|orterun|"
                        r"accelerate[ \t]+launch|accelerate-launch|python[\d.]{0,5}[ \t][^\n]{0,200}?-m[ \t]+"
                        r"(?:torch\.distributed\.(?:run|launch)|deepspeed\.launcher\.runner|accelerate\.commands\."
                        r"launch))(?=[ \t]|$)")
_SMI_ROW = re.compile(r"^\|[ \t]{1,6}(\d{1,2})[ \t]{1,6}(?:NVIDIA|Tesla|Quadro|GeForce|RTX|A\d{2,3}|H\d{2,3})\b")
_ENV_LINE = re.compile(r"^[ \t]{0,8}([A-Za-z_][A-Za-z0-9_]{0,127})=")

# flags whose value is a file a reader would open (launch/*.py): mapped into the private folder
_FILE_FLAGS = {"--hostfile", "-hostfile", "--machinefile", "-machinefile", "--default-hostfile", "-default-hostfile",
               "--config_file", "--config-file", "--deepspeed_config_file", "--deepspeed-config-file",
               "--deepspeed_hostfile", "--deepspeed-hostfile", "--mpirun_hostfile", "--mpirun-hostfile",
               "--deepspeed", "--deepspeed_config", "--venv_script", "-f"}
_HOSTFILE_FLAGS = {"--hostfile", "-hostfile", "--deepspeed_hostfile", "--deepspeed-hostfile", "-H"}
_CONFIG_EXT = (".json", ".yaml", ".yml", ".txt", ".conf", ".cfg", ".sh", ".bash", ".slurm", ".sbatch")


def patterns():
    from gpudoctor.explain import jobshape, launchctx, layout

    # (and the lines a job prints about its own layout: rank, world size, device; read by layout.py; and the command
    # lines, #SBATCH allocation and banners that say how it was launched: launchctx.py)
    return [Pattern("_paste_" + kind, "paste", src, 0) for kind, srcs in sorted(PATTERNS.items()) for src in srcs] + \
        layout.patterns() + launchctx.patterns() + jobshape.patterns()


class Paste(object):
    """What the scan found of launch lines and configs (bounded lists of (file index, line, ...))."""

    def __init__(self):
        self.launches, self.sbatch, self.keys, self.hosts, self.envs, self.gpus = [], [], [], [], [], []
        self.seen = set()
        self.tries = 0


def record(scan, hit, win):
    """A role "paste" pattern matched (scan._replay): keep what it says, bounded."""
    if hit.pattern.entry == "_paste_layout":  # a line about the job's layout (layout.py)
        from gpudoctor.explain.layout import record as layout_record

        return layout_record(scan, hit)
    if hit.pattern.entry == "_paste_jobshape":  # what a launcher prints of the job's shape (jobshape.py)
        from gpudoctor.explain.jobshape import record as shape_record

        return shape_record(scan, hit)
    if hit.pattern.entry == "_paste_launchctx":  # a command line, banner or rank line of the launch (launchctx.py)
        from gpudoctor.explain.launchctx import record as ctx_record

        return ctx_record(scan, hit, win)
    paste = getattr(scan, "paste", None)
    if paste is None:
        paste = scan.paste = Paste()
    paste.tries += 1
    if paste.tries > MAX_TRIES:
        return
    kind = hit.pattern.entry[len("_paste_"):]
    fi = len(scan.sources) - 1
    key = (fi, hit.line, kind)
    if key in paste.seen:
        return
    paste.seen.add(key)
    g = hit.groups
    if kind == "launch" and len(paste.launches) < MAX_LAUNCHES:
        text = win.text(0)[:MAX_COMMAND]
        cmd = command_of(text)
        if cmd is None:
            return
        n = 0
        while cmd.endswith("\\") and n < MAX_CONT and len(cmd) < MAX_COMMAND:
            n += 1
            nxt = win.raw(n)
            if not nxt:
                break
            cmd = cmd[:-1] + " " + nxt[:MAX_COMMAND].decode("utf-8", "replace").strip().lstrip(">").strip()
        if not any(c == cmd for _f, _l, c in paste.launches):
            paste.launches.append((fi, hit.line, cmd[:MAX_COMMAND]))
    elif kind == "sbatch" and len(paste.sbatch) < MAX_SBATCH:
        paste.sbatch.append((fi, hit.line, (g.get("opts") or "").strip()))
        from gpudoctor.explain.launchctx import script_lines

        script_lines(scan, hit, win)  # the batch script's own command lines (`python train.py`: no prompt)
    elif kind == "key" and len(paste.keys) < MAX_KEYS:
        paste.keys.append((fi, hit.line, g["key"].lower(), _scalar(g.get("val") or ""), hit.text))
    elif kind == "host" and len(paste.hosts) < MAX_HOSTS:
        paste.hosts.append((fi, hit.line, g["host"], int(g["slots"])))
    elif kind == "dsenv" and len(paste.envs) < 4:
        names = []
        for i in range(1, MAX_ENV_LINES):
            raw = win.raw(i)[:4096].decode("utf-8", "replace")
            m = _ENV_LINE.match(raw)
            if not m:
                if names or i > 3:  # the file's lines follow the `cat .deepspeed_env` line (a fence between)
                    break
                continue
            names.append((hit.line + i, m.group(1)))
        if names:
            paste.envs.append((fi, hit.line, names))
    elif kind == "smi" and len(paste.gpus) < 16:
        rows = set()
        for i in range(1, 80):
            raw = win.raw(i)[:512].decode("utf-8", "replace")
            if not raw:
                break
            m = _SMI_ROW.match(raw.strip())
            if m:
                rows.add(int(m.group(1)))
            elif "Processes:" in raw:  # the table of processes follows the GPUs' table
                break
        if rows:
            paste.gpus.append((fi, hit.line, max(rows) + 1))


def command_of(text):
    """The command on a pasted line (from its env assignments / srun / the launcher on), or None
    when the launcher's name is not where a command starts (a log line that mentions it)."""
    m = _LAUNCH_AT.search(text)
    if not m:
        return None
    at = m.start()
    tick = text.rfind("`", 0, at)
    if tick >= 0 and text.count("`", 0, at) % 2 == 1 and _LEAD_OK.match(text[tick + 1:at]):
        # inline code in prose ("then `accelerate launch ./main.py`"): the command is what the backticks hold
        end = text.find("`", at)
        return text[tick + 1:end if end > 0 else len(text)].strip() or None
    # the command starts at the line's start or right after its prompt (the last prompt mark before
    # the launcher): two places to try, each one linear in the line
    # (blanks before the command are no part of it: a Markdown code block indents it by four)
    marks = [k.end() for k in _PROMPT_END.finditer(text, 0, at)]
    for s0 in ([0] + marks[-1:]):
        if _PROMPT.match(text[:s0]) and _LEAD_OK.match(text[s0:at].lstrip(" \t")):
            cmd = text[s0:].strip()
            break
    else:
        return None
    return cmd.lstrip("+! \t") or None


def _scalar(v):
    return v.strip().rstrip(",").strip()


def _typed(v):
    """A YAML (or JSON) scalar as accelerate's config loader (PyYAML safe_load) reads it: quoted,
    text; null, true/false, a whole number; else text."""
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        return v[1:-1]
    low = v.lower()
    if low in ("null", "~", ""):
        return None
    if low in ("true", "false"):
        return low == "true"
    if re.match(r"^-?\d{1,18}$", v):
        return int(v)
    return v


# ------------------------------------------------------------------ reading what was found

class _Files(object):
    """A private folder for the blocks the paste holds, and paths that do not exist for the files
    it names but does not hold: the launch readers open only what is in it."""

    def __init__(self):
        import tempfile

        from gpudoctor.errors import Confined

        self.dir = tempfile.mkdtemp(prefix="gpudoctor-paste-")
        self.shown = {}  # path here -> what the paste wrote
        self.n = 0
        # until close(): the readers open nothing outside this folder, whatever the line makes of a
        # path (${H:-/etc/shadow}, HF_HOME=/root accelerate launch, DS_ENV_FILE=..., a default hostfile)
        self.confined = Confined(self.dir).__enter__()

    def put(self, name, text, shown):
        self.n += 1
        d = os.path.join(self.dir, str(self.n))
        os.mkdir(d, 0o700)
        path = os.path.join(d, _file_name(name))
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        self.shown[path] = shown
        return path

    def absent(self, shown):
        self.n += 1
        path = os.path.join(self.dir, str(self.n), "absent", _file_name(shown))
        self.shown[path] = shown
        return path

    def unmask(self, text):
        """A reader's message with the private paths written back as the paste wrote them."""
        if not isinstance(text, str) or self.dir not in text:
            return text
        for path in sorted(self.shown, key=len, reverse=True):
            text = text.replace(path, self.shown[path])
        return text.replace(self.dir + os.sep, "")

    def close(self):
        import shutil

        self.confined.__exit__(None, None, None)
        shutil.rmtree(self.dir, ignore_errors=True)


def _file_name(name):
    """The name a file the paste names gets in the private folder: its last part, where that is a
    file's name ('..', '.', a NUL byte or a name longer than a folder takes are not: open() failed
    on them, exit 3), else 'file' with its extension (accelerate reads a .json config as JSON)."""
    base = os.path.basename(name.rstrip("/"))
    if base not in ("", ".", "..") and "\0" not in base and len(base.encode("utf-8", "replace")) <= 200:
        return base
    ext = os.path.splitext(base)[1]
    return "file" + (ext if re.match(r"^\.[A-Za-z0-9]{1,15}$", ext) else "")


def _pathish(tok):
    if "=" in tok or not tok or tok.startswith("-") or "$" in tok:
        return False
    return tok.startswith(("/", "~", "./", "../")) or "/" in tok or tok.endswith(_CONFIG_EXT) or \
        tok in ("hostfile", "machinefile", "hosts")


def _remap(argv, files, hostfile, config):
    """argv with every file a reader would open replaced: a hostfile flag by the pasted hostfile,
    --config_file by the pasted accelerate config, anything else path-like by an absent path."""
    out = []
    prog = os.path.basename(argv[0]) if argv else ""
    expect = None
    for i, tok in enumerate(argv):
        if expect is not None:
            out.append(_target(expect, tok, files, hostfile, config, prog))
            expect = None
            continue
        name, eq, val = tok.partition("=")
        if tok.startswith("-") and eq and name in _FILE_FLAGS | {"-H"}:
            out.append(name + "=" + _target(name, val, files, hostfile, config, prog))
            continue
        if tok in _FILE_FLAGS or (tok == "-H" and _is_deepspeed(argv)):
            out.append(tok)
            expect = tok
            continue
        out.append(files.absent(tok) if i and _pathish(tok) else tok)
    return out


def _no_default_hostfile(argv, files):
    """deepspeed without --hostfile reads /job/hostfile (runner.py DLTS_HOSTFILE) where it runs: here
    that would be this machine's, so the reader is given a path that does not exist instead."""
    from gpudoctor.launch.deepspeed import DLTS_HOSTFILE

    if not os.path.exists(DLTS_HOSTFILE) or not argv or os.path.basename(argv[0]) != "deepspeed":
        return argv
    if any(a in ("--hostfile", "-H") or a.startswith("--hostfile=") for a in argv):
        return argv
    return [argv[0], "--hostfile", files.absent(DLTS_HOSTFILE)] + argv[1:]


def _is_deepspeed(argv):
    return any(os.path.basename(a) == "deepspeed" or a == "deepspeed.launcher.runner" for a in argv[:6])


def _target(flag, val, files, hostfile, config, prog):
    if "$" in val:
        return val  # an unknown: the script reader says where it comes from
    if flag in _HOSTFILE_FLAGS and hostfile:
        return files.put(val, hostfile, val)
    if flag in ("--config_file", "--config-file") and config:
        return files.put(os.path.basename(val) or "config.json", config, val)
    return files.absent(val)


def _gpus_per_node(paste, alloc, facts):
    """(GPUs per node, where it was read) from nvidia-smi's table in the paste, the #SBATCH
    allocation, or the facts (--facts / --check), else (None, None)."""
    if paste.gpus:
        counts = {n for _f, _l, n in paste.gpus}
        if len(counts) == 1:
            return counts.pop(), "nvidia-smi's table in the paste (line %d)" % paste.gpus[0][1]
    if alloc.get("gpus_per_node"):
        return alloc["gpus_per_node"], "the allocation (#SBATCH %s)" % " ".join(alloc.get("sbatch", []))[:120]
    nodes = facts if isinstance(facts, list) else ([facts] if facts else [])
    for f in nodes[:1]:
        g = (f or {}).get("gpu") or {}
        gpus = g.get("gpus") if g.get("status") == "ok" else None
        if gpus:
            return len(gpus), "the facts of %s" % (f.get("node") or "the node")
    return None, None


class Found(object):
    """One launch finding: the knowledge entry it names, what plan found, the lines, the fix."""

    def __init__(self, eid, what, lines, fix, explains=()):
        self.eid, self.what, self.lines, self.fix, self.explains = eid, what, lines, fix, set(explains)


CONFINED_MARK = "is never opened here"  # errors.open_input's words for a file outside the paste's folder

# the families a stuck or refused rendezvous ends in (the ranks wait, then time out)
HANG = {"rendezvous.connect", "rendezvous.store_timeout", "rendezvous.store_barrier", "rendezvous.hostname",
        "elastic.rdzv_incomplete", "elastic.rdzv_closed", "nccl.timeout", "errno.timeout", "gloo.timeout",
        "gloo.loopback", "accelerate.port_zero", "cascade.watchdog_abort", "torch.c10d_error", "errno.peer_gone"}
EXPLAINS = {
    "accelerate.port_zero": HANG,
    "launcher.same_rank": HANG | {"rendezvous.address_in_use"},
    "launcher.loopback_master": HANG,
    "launcher.nodes_apart": HANG,
    "launcher.port": HANG | {"rendezvous.address_in_use", "errno.permission", "errno.busy"},
    "launcher.nproc_gpus": {"cuda.invalid_device_ordinal", "nccl.duplicate_gpu", "nccl.invalid_usage",
                            "cuda.busy_unavailable", "cuda.oom"},
    "launcher.accelerate_processes": {"cuda.invalid_device_ordinal", "nccl.duplicate_gpu"},
    "deepspeed.remote_env": {"code.python_env", "build.ninja", "cuda.libs", "build.cuda_home", "code.exception",
                             "launcher.deepspeed_error", "pdsh.error", "deepspeed.launcher"},
}


# roots whose own entry already names the launch finding's cause as its first one (and computes its
# fix from the facts): the launch finding follows the root, with the line that shows it
NAMED_BY_ROOT = {"launcher.nproc_gpus": {"cuda.invalid_device_ordinal", "nccl.duplicate_gpu"},
                 "launcher.accelerate_processes": {"cuda.invalid_device_ordinal", "nccl.duplicate_gpu"}}


def _accelerate_groups(paste):
    """The accelerate config blocks: keys near each other in one input; a repeated key or a gap
    starts the next block. -> [{key: (value, line, text)}] with distributed_type or num_machines."""
    groups, cur, last = [], None, None
    for fi, line, key, val, text in sorted(paste.keys, key=lambda k: (k[0], k[1])):
        if cur is None or fi != last[0] or line - last[1] > GROUP_GAP or key in cur:
            cur = {}
            groups.append(cur)
        cur[key] = (_typed(val), line, text)
        last = (fi, line)
    return [g for g in groups if ("distributed_type" in g or "num_machines" in g) and len(g) >= 2][:MAX_GROUPS]


def _config_json(g, files=None, hostfile=None):
    """The config block as accelerate's loader reads it; its deepspeed_hostfile is the pasted
    hostfile, or a path that does not exist (never a file of this machine)."""
    import json

    doc = {}
    ds = {}
    for k, (v, _l, _t) in g.items():
        if k == "deepspeed_hostfile" and files is not None and v is not None:
            v = files.put(str(v), hostfile, str(v)) if hostfile else files.absent(str(v))
        if k == "main_process_ip" and v is not None:
            v = str(v)  # an address is text (a bare number in YAML is an int: accelerate's own template has one)
        if k.startswith("deepspeed_"):
            ds[k] = v
        elif v is not None or k in ("main_process_ip", "main_process_port"):
            doc[k] = v
    if ds:
        doc["deepspeed_config"] = ds
    return json.dumps(doc)


def _ln(g, key):
    return g[key][1] if key in g else None


def _accelerate_checks(groups, gpn, gpn_from, out):
    """accelerate's rules for what a config starts (accelerate 1.15 commands/launch.py
    _validate_launch_command and launch_command; utils/launch.py prepare_multi_gpu_env):
    num_processes is the TOTAL over all machines (nproc_per_node = num_processes //
    num_machines); distributed_type NO runs the script once (simple_launcher) whatever
    num_processes says; MULTI_GPU with num_processes 1 starts one process."""
    from gpudoctor.launch import is_loopback

    for g in groups:
        v = {k: x[0] for k, x in g.items()}
        dt = str(v.get("distributed_type") or "").upper()
        nm = v.get("num_machines") if isinstance(v.get("num_machines"), int) else 1
        npr = v.get("num_processes") if isinstance(v.get("num_processes"), int) else None
        gpu_types = ("MULTI_GPU", "FSDP", "DEEPSPEED", "MEGATRON_LM")
        port = v.get("main_process_port")
        if port == 0 and nm > 1:
            out.append(Found("accelerate.port_zero", "main_process_port 0 with num_machines %d: each machine picks its "
                             "own free port, so the others never reach machine 0's rendezvous" % nm,
                             [_ln(g, "main_process_port"), _ln(g, "num_machines")],
                             "main_process_port: 29500 (one fixed free port, the same in every machine's config)",
                             EXPLAINS["accelerate.port_zero"]))
        ip = v.get("main_process_ip")
        if nm > 1 and dt != "NO" and isinstance(ip, str) and is_loopback(ip):
            out.append(Found("launcher.loopback_master", "main_process_ip %s with num_machines %d: the other machines "
                             "connect to their own loopback, not to machine 0" % (ip, nm),
                             [_ln(g, "main_process_ip"), _ln(g, "num_machines")],
                             "main_process_ip: <machine 0's address on the network the nodes share> (hostname -I on "
                             "machine 0), the same in every machine's config", EXPLAINS["launcher.loopback_master"]))
        if npr is None:
            continue
        if dt == "NO" and npr > 1:
            out.append(Found("launcher.accelerate_processes", "distributed_type NO with num_processes %d: accelerate "
                             "runs the script once (simple_launcher), one process on one GPU" % npr,
                             [_ln(g, "distributed_type"), _ln(g, "num_processes")],
                             "distributed_type: MULTI_GPU (or run accelerate config again and choose multi-GPU)",
                             EXPLAINS["launcher.accelerate_processes"]))
        elif dt in gpu_types and npr == 1 and nm == 1 and (gpn is None or gpn > 1):
            out.append(Found("launcher.accelerate_processes", "distributed_type %s with num_processes 1: accelerate "
                             "starts one process, so one GPU is used%s" % (
                                 dt, " of the %d (%s)" % (gpn, gpn_from) if gpn else ""),
                             [_ln(g, "num_processes")], "num_processes: %s (the GPUs of this machine)" % (gpn or "<GPUs>"),
                             EXPLAINS["launcher.accelerate_processes"]))
        elif dt in gpu_types and nm > 1 and npr % nm:
            out.append(Found("launcher.accelerate_processes", "num_processes %d is not a multiple of num_machines %d: "
                             "accelerate starts %d per machine (num_processes // num_machines), %d in all%s" % (
                                 npr, nm, npr // nm, npr // nm * nm, " (num_processes is the total over all "
                                 "machines, not per machine)" if npr < nm else ""),
                             [_ln(g, "num_processes"), _ln(g, "num_machines")],
                             "num_processes: <num_machines x GPUs per machine> (the total over all machines)",
                             EXPLAINS["launcher.accelerate_processes"]))
        elif gpn and dt in gpu_types and npr // max(nm, 1) > gpn:
            out.append(Found("launcher.nproc_gpus", "num_processes %d over %d machine%s is %d per machine, but a node "
                             "has %d GPU%s (%s)" % (npr, nm, "" if nm == 1 else "s", npr // nm, gpn,
                                                    "" if gpn == 1 else "s", gpn_from),
                             [_ln(g, "num_processes")], "num_processes: %d (num_machines x GPUs per machine)" % (nm * gpn),
                             EXPLAINS["launcher.nproc_gpus"]))
        elif gpn and dt in gpu_types and npr < nm * gpn:
            per = npr // max(nm, 1)
            out.append(Found("launcher.accelerate_processes", "num_processes %d with num_machines %d starts %d process%s "
                             "per machine, but a node has %d GPUs (%s): num_processes is the total over all machines, "
                             "not per machine" % (npr, nm, per, "" if per == 1 else "es", gpn, gpn_from),
                             [_ln(g, "num_processes"), _ln(g, "num_machines")],
                             "num_processes: %d (num_machines x GPUs per machine)" % (nm * gpn),
                             EXPLAINS["launcher.accelerate_processes"]))
    multi = [g for g in groups if isinstance(g.get("num_machines", (None,))[0], int) and g["num_machines"][0] > 1
             and isinstance(g.get("machine_rank", (None,))[0], int)]
    by_rank = {}
    for g in multi:
        by_rank.setdefault(g["machine_rank"][0], []).append(g)
    for rank, gs in sorted(by_rank.items()):
        if len(gs) > 1:
            nm = gs[0]["num_machines"][0]
            out.append(Found("launcher.same_rank", "%d configs of a %d-machine job all say machine_rank %d: every "
                             "machine claims rank %d, and the job waits for rank%s %s, which no machine takes" % (
                                 len(gs), nm, rank, rank, "s" if nm > 2 else "",
                                 ", ".join(str(k) for k in range(nm) if k != rank)[:80]),
                             [g["machine_rank"][1] for g in gs],
                             "machine_rank: 0 on the main machine, 1, 2, ... on the others (or accelerate launch "
                             "--machine_rank $SLURM_NODEID under srun)", EXPLAINS["launcher.same_rank"]))


def _launch_checks(r, paste_lines, gpn, gpn_from, files, out, notes, envs=()):
    """Each launch line through plan's script reader (launch/script.py): its findings, and what
    the plan says against the GPUs and the allocation the paste shows."""
    from gpudoctor.launch.ports import port_problems

    alloc = r.result.allocation
    for la in r.result.launches:
        line = paste_lines.get(la.line)
        if line is None:
            continue
        if la.refused:
            why = files.unmask(la.refused)
            # a file the line names, refused unread here (errors.Confined): no word on what the launcher does
            notes.append((line, why if CONFINED_MARK in why else "the launcher would refuse this line: %s" % why))
            continue
        plan = la.plan
        if plan is None:
            continue
        for f in la.findings:
            f = files.unmask(f)
            if "claims rank" in f:
                if plan.wrapper != "srun" and "expanded once by the batch shell" not in f:
                    continue  # one pasted line is typed on one node: the other node's line may say another rank
                # (plan claims a rank only where the launcher reads it: not under c10d/etcd, script._findings)
                out.append(Found("launcher.same_rank", f, [line], "give each node its own rank: --node_rank "
                                 "$SLURM_NODEID inside srun bash -c '...' (single quotes), or --rdzv_backend c10d "
                                 "--rdzv_endpoint <master>:29500 without a node rank", EXPLAINS["launcher.same_rank"]))
            elif "master address is" in f:
                out.append(Found("launcher.loopback_master", f, [line], "--master_addr <the first node's address>: "
                                 "$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1) in a Slurm job",
                                 EXPLAINS["launcher.loopback_master"]))
            elif "processes per node but the allocation" in f:
                out.append(Found("launcher.nproc_gpus", f, [line], "--nproc_per_node %s (the GPUs the allocation "
                                 "gives each node), or ask for more: #SBATCH --gpus-per-node=<N>" % gpn,
                                 EXPLAINS["launcher.nproc_gpus"]))
            else:
                notes.append((line, f))
        if gpn and plan.nproc_per_node and plan.nproc_per_node > gpn and not alloc.get("gpus_per_node"):
            out.append(Found("launcher.nproc_gpus", "%d processes per node but a node has %d GPU%s (%s)" % (
                plan.nproc_per_node, gpn, "" if gpn == 1 else "s", gpn_from), [line],
                "%s %d (one process per GPU)" % ("--num_gpus" if plan.launcher == "deepspeed" else "--nproc_per_node",
                                                 gpn), EXPLAINS["launcher.nproc_gpus"]))
        # the static rendezvous takes the node rank as the agent's rank (torch/distributed/run.py config_from_args:
        # rdzv_configs["rank"] = node_rank) and the agent of rank 0 hosts the store: a rank at or past --nnodes is a
        # node that never comes, so rank 0's store is hosted by no one (or waits for it) and every agent waits
        if plan.machine_rank is not None and plan.nnodes_max and plan.machine_rank >= plan.nnodes_max \
                and plan.launcher in ("torchrun", "torch.distributed.launch"):
            n = plan.nnodes_max
            out.append(Found("launcher.same_rank", "--node_rank %d on a %d-node job: node ranks are 0..%d, and with the "
                             "static rendezvous the node of rank 0 hosts the store, so the agents wait for a node that "
                             "never comes" % (plan.machine_rank, n, n - 1), [line],
                             "--node-rank 0 on the first node (1..%d on the others); on one node --node-rank 0, or "
                             "torchrun --standalone" % (n - 1) if n > 1 else "--node-rank 0 (one node), or torchrun "
                             "--standalone", EXPLAINS["launcher.same_rank"]))
        nodes = alloc.get("nodes")
        if nodes and nodes > 1 and plan.launcher in ("torchrun", "torch.distributed.launch", "accelerate",
                                                     "deepspeed") and plan.nnodes_max == 1 and not plan.nodes[1:]:
            how = ("srun starts it on each node, and each runs its own 1-node job: every node trains on its own, "
                   "with its own rank 0" if plan.wrapper == "srun" else
                   "without srun the batch shell starts it on the first node only: the other nodes sit idle")
            out.append(Found("launcher.nodes_apart", "the allocation has %d nodes but the %s line plans one node: %s"
                             % (nodes, plan.launcher, how), [line],
                             "srun --ntasks-per-node=1 %s --nnodes %d --node_rank $SLURM_NODEID --master_addr <first "
                             "node> ... (inside bash -c '...'), or the launcher's own multi-node options" % (
                                 plan.launcher, nodes), EXPLAINS["launcher.nodes_apart"]))
        for sev, text, fix in port_problems(plan):
            if sev != "error":
                continue
            eid = "accelerate.port_zero" if plan.launcher == "accelerate" and plan.port_asked == 0 else "launcher.port"
            out.append(Found(eid, files.unmask(text), [line], fix, EXPLAINS[eid]))
        if plan.launcher == "deepspeed" and plan.carried is not None:
            env_note, lines = "", [line]
            if envs:
                ln, names = envs[0][1], [n for _l, n in envs[0][2]]
                missing = [n for n in ("PATH", "LD_LIBRARY_PATH") if n not in names]
                env_note = "; the .deepspeed_env in this text (line %d) sets %s%s" % (
                    ln, ", ".join(names[:8]), ", not %s" % " or ".join(missing) if missing else "")
                lines.append(ln)
            out.append(Found("deepspeed.remote_env", "deepspeed starts the other nodes' ranks through pdsh (%s): %s%s" % (
                plan.nodes_source and files.unmask(plan.nodes_source) or "several hosts",
                "only NCCL*/PYTHON*/MLFLOW*/MV2*/UCX* variables and the lines of .deepspeed_env reach them; "
                "PATH, LD_LIBRARY_PATH, CUDA_HOME and a venv activation do not", env_note), lines,
                "printf 'PATH=%s\\nLD_LIBRARY_PATH=%s\\n' \"$PATH\" \"$LD_LIBRARY_PATH\" > ~/.deepspeed_env on the "
                "node that runs deepspeed (or deepspeed --launcher slurm inside an allocation)", ()))


def sbatch_opts(paste):
    """The options of the #SBATCH lines kept, as shell words (shlex, never run; a line shlex refuses is left out, a
    trailing ' #' comment is no option)."""
    opts = []
    for _f, _l, body in paste.sbatch:
        try:
            opts.extend(shlex.split(body.split(" #", 1)[0]))
        except ValueError:
            continue
    return opts


def read(paste, facts=None):
    """(findings [Found], notes [(line, text)]) for what the scan found. Nothing here raises on
    bad input: a block a reader refuses is a note."""
    from gpudoctor.errors import InputError

    out, notes = [], []
    if paste is None or not (paste.launches or paste.keys):
        return out, notes
    from gpudoctor.launch import script as S

    opts = sbatch_opts(paste)
    alloc = S.allocation(opts) if opts else {}
    if opts:
        alloc["sbatch"] = opts[:40]
    gpn, gpn_from = _gpus_per_node(paste, alloc, facts)
    groups = _accelerate_groups(paste)
    _accelerate_checks(groups, gpn, gpn_from, out)
    if not paste.launches:
        return out, notes
    files = _Files()
    try:
        hostfile = None
        hosts = [h for h in paste.hosts]
        if hosts:
            fi0 = hosts[0][0]
            hostfile = "".join("%s slots=%d\n" % (h, n) for f, _l, h, n in hosts if f == fi0)
        config = _config_json(groups[0], files, hostfile) if len(groups) == 1 and "distributed_type" in groups[0] \
            else None
        env = {"HF_HOME": os.path.join(files.dir, "hf"), "DS_ENV_FILE": os.path.join(files.dir, "deepspeed_env")}
        if paste.envs:
            with open(env["DS_ENV_FILE"], "w", encoding="utf-8") as f:
                f.write("".join("%s=<pasted>\n" % n for _l, n in paste.envs[0][2]))
        if config:
            d = os.path.join(files.dir, "hf", "accelerate")
            os.makedirs(d, 0o700)
            with open(os.path.join(d, "default_config.yaml"), "w", encoding="utf-8") as f:
                f.write(config)  # JSON is YAML: accelerate's default config, read by the YAML loader
            first = min(x[1] for x in groups[0].values())
            files.shown[os.path.join(d, "default_config.yaml")] = "in this text (line %d)" % first
        lines, paste_lines = [], {}
        if opts:
            lines.append("#SBATCH " + " ".join(shlex.quote(o) for o in opts[:40]))
        for _f, ln, cmd in paste.launches:
            try:
                argv = shlex.split(cmd, comments=True)
            except ValueError:
                notes.append((ln, "not read (unbalanced quotes): %s" % cmd[:120]))
                continue
            argv = _cut(argv)
            if not argv or any(a.endswith((".sh", ".bash", ".slurm", ".sbatch")) for a in argv[:3]) or "source" in argv:
                continue
            argv = _no_default_hostfile(_remap(argv, files, hostfile, config), files)
            lines.append(" ".join(_word(a) for a in argv))
            paste_lines[len(lines)] = ln
        if not paste_lines:
            return out, notes
        r = S.Reader("<paste>", [], environ=env, batch=bool(opts))
        if opts:
            r.result.allocation = {k: v for k, v in alloc.items() if k != "env"}
            r.result.allocation["env"] = alloc["env"]
            r.result.allocation["sbatch_command_line"] = []
            for k in alloc["env"]:
                r.result.from_allocation[k] = "from the allocation (#SBATCH in the paste)"
        # the reader is gpudoctor plan's: a line it cannot read is a note here, never a failed explain
        # (explain's answer for the error beside it comes first)
        contained = (InputError, RecursionError, ValueError, TypeError, AttributeError, KeyError, IndexError)
        try:
            r.run_text("\n".join(lines) + "\n")
        except contained as exc:
            notes.append((min(paste_lines.values()), "the launch lines were not read: %s" % files.unmask(str(exc))))
            return out, notes
        for la in list(r.result.launches):
            try:
                S._plan_launch(r, la)
            except contained as exc:
                la.plan, la.refused = None, None
                ln = paste_lines.get(la.line)
                if ln is not None:
                    notes.append((ln, "not read by gpudoctor plan's reader (%s: %s)" % (
                        type(exc).__name__, files.unmask(str(exc))[:160])))
        _launch_checks(r, paste_lines, gpn, gpn_from, files, out, notes, paste.envs)
    finally:
        files.close()
    return out, notes


_VAR = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]{0,127}\}|\$[A-Za-z_][A-Za-z0-9_]{0,127}")


def _word(a):
    """One word of a pasted line for the script reader: its text quoted, its variables not
    (--node_rank=$SLURM_NODEID is an unknown there, as in `gpudoctor plan`, not the literal
    text '$SLURM_NODEID' that torchrun's int() would refuse); a word that starts with $ as it is."""
    if a.startswith("$"):
        return a
    out, at = [], 0
    for m in _VAR.finditer(a):
        if m.start() > at:
            out.append(shlex.quote(a[at:m.start()]))
        out.append(m.group(0))
        at = m.end()
    if at < len(a) or not out:
        out.append(shlex.quote(a[at:]))
    return "".join(out)


def _cut(argv):
    """The command up to the first shell operator (a pipe, `&&`, `;`, a redirection)."""
    out = []
    for a in argv:
        if a in ("|", "||", "&&", ";", "&", ">", ">>", "2>&1", "2>", "<", "|&") or re.match(r"^\d?>{1,2}", a):
            break
        out.append(a)
    return out


# ------------------------------------------------------------------ into the answer

def judge(result, scan, kb, facts=None):
    """Add the launch findings to explain's answer (explain_inputs, before locate)."""
    from gpudoctor.explain import layout

    # first what the job printed about its own layout (rank, world size, device: layout.py), read from the same
    # scan role; before the hang triage, which then leaves a root it made alone
    layout.judge(result, scan, kb)
    paste = getattr(scan, "paste", None)
    if paste is None:
        return
    found, notes = read(paste, facts)
    have = {f["id"] for f in result["findings"]}
    from gpudoctor.explain.scan import Hit

    made, seen = [], set()
    for x in found:
        if x.eid not in kb.by_id or x.eid in seen:
            continue
        if x.eid in have:
            continue  # the log's own lines already name it (accelerate.port_zero's together group)
        if x.eid == "deepspeed.remote_env" and not _remote_symptom(scan, result):
            continue  # a pdsh run is no finding by itself: only beside what a missing environment prints
        seen.add(x.eid)
        lines = sorted({ln for ln in x.lines if isinstance(ln, int)})
        hits = [Hit(ln, _text_at(paste, ln), None, {}, None) for ln in lines]
        f = lines_finding(kb.by_id[x.eid], hits, "related", scan,
                          "Read from the launch configuration in this text: %s." % x.what, x.fix,
                          "Found in the launch line or launcher config of this text (read as `gpudoctor plan` "
                          "reads it).")
        f["from_launch"] = True
        f["explains_root"] = False
        made.append((x, f))
    for ln, text in notes[:8]:
        result["context"].append({"id": "launcher.plan", "severity": "warning", "note": text,
                                  "fix": "gpudoctor plan '<the launch line>' shows what the launcher will do",
                                  "first_line": ln, "text": _text_at(paste, ln), "match_count": 1})
    if not made:
        return
    findings = result["findings"]
    root = findings[0] if findings else None
    first, beside = [], []
    for x, f in made:
        if root is not None and (root["id"] in x.explains or root.get("family") in x.explains):
            f["explains_root"] = True
            f["notes"].insert(1, "It explains the error %s found in this text (%s)." % (root["id"], root["title"]))
            (beside if root["id"] in NAMED_BY_ROOT.get(x.eid, ()) else first).append(f)
    rest = [f for x, f in made if f not in first and f not in beside]
    if beside and not first:
        result["findings"] = findings[:1] + beside + findings[1:] + rest
    elif first:
        root["role"] = "related"
        for f in first:
            f["role"] = "related"
        first[0]["role"] = "root"
        result["findings"] = first + findings + beside + rest
    elif root is None or result["verdict"] in ("no_error", "unknown_error"):
        rest[0]["role"] = "root"
        if result["verdict"] == "unknown_error" and not findings:
            rest[0]["notes"].insert(1, "The text also reports an error nothing in gpudoctor's knowledge explains "
                                       "(line %s): fix this first, then look at that error again."
                                    % (result["errors"][0]["line"] if result["errors"] else "?"))
        result["findings"] = rest + findings
    else:
        # a root this does not explain (specific, a structural answer, or only echoes) keeps its place
        result["findings"] = findings + rest
    top = result["findings"][0]
    if top.get("from_launch"):
        result["verdict"] = "root_cause"
        result["matched"] = True
        result["root"] = top["id"]
        result["triage"] = []


def take_root(result, made, root):
    """Make ``made`` (a finding read from the launch lines or the job's shape) the answer's root: the old root, if any,
    becomes related, and the unknown-error triage goes (launchctx.judge and jobshape.judge)."""
    if root is not None:
        root["role"] = "related"
    result["findings"].insert(0, made)
    result["verdict"], result["matched"], result["root"] = "root_cause", True, made["id"]
    result["triage"], result["errors"] = [], []
    return made


def lines_finding(e, hits, role, scan, what, fix, note):
    """The finding of entry ``e`` read from lines of the text (``hits``, the entry's patterns did not match them):
    analyze's finding with ``what`` as its first cause (``fix`` its fix, the lines its evidence) and ``note`` as its
    first note; how sure: cause. (The launch lines here, the job's own layout lines in layout.py.)"""
    from gpudoctor.explain.analyze import _finding

    m = {"hits": hits, "count": len(hits), "rank": e["rank"], "score": e["rank"],
         "first": hits[0].line if hits else 0, "signal_hits": []}
    f = _finding(e, m, role, scan)
    f["confidence"] = "cause"
    f["causes"].insert(0, {"text": what, "checks": [], "confirm": [], "fix": [fix], "exports": {}, "static_rank": 0,
                           "computed": None, "evidence": [{"line": h.line, "text": h.text} for h in hits]})
    f["notes"].insert(0, note)
    return f


def _remote_symptom(scan, result):
    """What DeepSpeed's remote ranks print when the environment is missing there (the second
    part of deepspeed.remote_env's `together` group), or a root it explains."""
    if scan.parts.get(("deepspeed.remote_env", 0, 1)):
        return True
    root = result["findings"][0] if result["findings"] else None
    return bool(root and (root["id"] in EXPLAINS["deepspeed.remote_env"] or
                          root.get("family") in EXPLAINS["deepspeed.remote_env"]))


def _text_at(paste, ln):
    for _f, l, cmd in paste.launches:
        if l == ln:
            return cmd[:400]
    for _f, l, _k, _v, text in paste.keys:
        if l == ln:
            return text[:400]
    for _f, l, names in paste.envs:
        for l2, name in names:
            if l2 == ln or l == ln:
                return ".deepspeed_env: %s" % " ".join(n for _x, n in names[:12])
    return ""

"""A symptom explained by how the job was launched, when the text shows the launch (issue 18).

"Address already in use", "invalid device ordinal", a hang at init or every rank saying rank 0 have
launch mistakes among their known causes. When the text holds the launch itself (the #SBATCH lines,
the srun / python / mpirun command lines a shell echoed, torchrun's banner, the ranks a script
printed), the facts of that launch are computed here and the launch cause is named, quoted; without
that evidence the answer stays what it was, with the launch causes as ways to tell apart.

What is read (role "paste" patterns, entry _paste_launchctx; launchpaste.record hands the lines here;
the prefilter finds the needles, a log without them costs nothing more):

- command lines at a command's start (after a shell prompt, `set -x`'s '+ ', env assignments): srun,
  python, torchrun, mpirun / mpiexec. Read with shlex (never run): the env assignments (RANK=,
  WORLD_SIZE=, MASTER_PORT=), srun's options (srun(1): -n/--ntasks, -N/--nodes, --ntasks-per-node,
  --gpus-per-task, --gpu-bind), the program srun starts, torchrun's --nproc-per-node / --nnodes /
  --node-rank, mpirun's -np;
- #SBATCH lines (launchpaste keeps them): the allocation (launch/script.py allocation) and
  --gpus-per-task / --gpu-bind;
- torchrun's OMP_NUM_THREADS banner, printed once per torchrun agent when it starts more than one
  worker (torch/distributed/run.py config_from_args: logger.warning("...Setting OMP_NUM_THREADS
  environment variable for each process to be %s in default..."), the glog prefix names its pid;
- a script's print that it is rank 0 of a world of 1 ('rank 0 of 1', 'rank 0/1', 'world size 1');
- Lightning's init line (lightning/fabric/utilities/distributed.py _init_dist_connection, older
  pytorch_lightning plugins/training_type/ddp.py: "initializing ddp: GLOBAL_RANK: %d, MEMBER: %d/%d");
- torch.nn.DataParallel's wrapped error (torch/nn/parallel/parallel_apply.py: ExceptionWrapper(where=
  f"in replica {i} on device {device}"), torch/_utils.py ExceptionWrapper.reraise: "Caught {name}
  {where}.").

Rules (judge), each naming an existing entry with a first cause that quotes the lines:
- slurm.launcher_times_tasks: srun starts a launcher that starts its own workers (torchrun,
  accelerate launch, deepspeed, python -m torch.distributed.run) with more than one task per node
  (srun(1): srun runs --ntasks-per-node copies of the command on each node);
- slurm.visible_devices_renumbered: --gpus-per-task=G with more than G tasks per node (srun(1):
  --gpus-per-task implies --gpu-bind=per_task:G, so each task sees only its G GPUs, as devices
  0..G-1) and an invalid device ordinal;
- slurm.one_node_used: a batch script of several nodes (or tasks) that runs `python x.py` without
  srun (sbatch(1): the script runs on the first node only, once);
- launcher.same_rank: two command lines that give the same RANK (or --node-rank) of a world of two
  or more;
- mpi.every_rank_zero: mpirun / mpiexec / srun start N >= 2 processes and the text holds N lines
  where a process says it is rank 0 of a world of 1;
- launcher.single_process: DataParallel's 'Caught ... in replica N on device M' with nothing surer.
A rule is the root when the root found so far is one of the symptoms the launch mistake causes (or
there is none and the lines show the failure on their own); otherwise a note beside the answer.
"""

import re
import shlex

from gpudoctor.explain.knowledge import Pattern
from gpudoctor.explain.text import GLOG_HEAD
from gpudoctor.fixline import inert, sh

ENTRY = "_paste_launchctx"
MAX_CMDS = 32  # command lines kept per text
MAX_LINE = 4096
MAX_BANNERS = 64
MAX_ALONE = 64

FACTS = {
    # a command at a line's start (checked in record: only a prompt, '+ ' or env assignments before it)
    # (a path before the name: /usr/mpi/gcc/openmpi-4.1.5/bin/mpiexec)
    "cmd": r"(?<![\w./-])(?:[\w./+-]{0,200}/)?(?:srun|python[\d.]{0,5}|torchrun|mpirun|mpiexec|"
           r"accelerate(?=[ \t]{1,4}launch\b))[ \t]",
    "banner": r"Setting OMP_NUM_THREADS environment variable for each process to be",
    # (mpi4py's and MPI tutorials' own words too: 'worker 0 of 1', 'Total number of processes 1', 'comm size: 1')
    "alone": r"\b(?:rank|worker|process|task)[ \t]{0,2}[:=#]?[ \t]{0,2}0[ \t]{0,2}(?:/|of)[ \t]{0,2}1\b|"
             r"\b(?:world[_ ]?size|number of (?:processes|ranks)|total processes|comm[_ ]?size)\b[ \t]{0,2}[:=]?"
             r"[ \t]{0,2}1\b",
    "member": r"GLOBAL_RANK: \d{1,7}, MEMBER: \d{1,7}/\d{1,7}",
    "replica": r"Caught [A-Za-z_][\w.]{0,80} in replica \d{1,4} on device \d{1,4}",
    # a line that sets (or prints) CUDA_VISIBLE_DEVICES and nothing else: `export CUDA_VISIBLE_DEVICES=0,1`, a
    # script's print 'CUDA_VISIBLE_DEVICES: 0,1'
    "cvd": r"^[ \t]{0,8}(?:[^\n]{0,120}?[$#%>][ \t]{1,4})?(?:export[ \t]{1,4})?CUDA_VISIBLE_DEVICES[ \t]{0,2}[=:][ \t]{0,2}"
           r"[\"']?(?P<v>[\w,:-]{1,200}[\w,:-]{0,200})[\"']?[ \t]{0,8}$",
    # srun's report of tasks that ended badly (src/plugins/launch/slurm/launch_slurm.c _task_finish: error("%s: %s %s:
    # Exited with exit code %d", hosts, "task"/"tasks", task ids)): the task ids one host ran
    "srun_exit": r"srun: error: (?P<host>[\w.-]{1,128}): tasks? (?P<ids>\d[\d,-]{0,199}): ",
    # a process's own print of its local rank beside the GPUs it sees ('LOCAL_RANK=1 CUDA_VISIBLE_DEVICES=1',
    # 'SLURM_LOCALID: 1, CUDA_VISIBLE_DEVICES: 1'): read in record, either order
    "rankcvd": r"\b(?:LOCAL_RANK|SLURM_LOCALID)\b[^\n]{0,200}\bCUDA_VISIBLE_DEVICES\b|\bCUDA_VISIBLE_DEVICES\b[^\n]{0,200}"
               r"\b(?:LOCAL_RANK|SLURM_LOCALID)\b",
}
# (not "python": every traceback's path holds it, a candidate per frame line; nor a prompt's '$ python': a needle's
# first byte that no other needle starts with costs the 100 MB log a pass of its own, +50% CPU. A python command is
# read after the env assignments a distributed start sets, or in the lines of a batch script: script_lines)
_NEEDLES = {"rankcvd": ["cuda_visible_devices"],
            "cmd": ["srun", "torchrun", "mpirun", "mpiexec", "acceleratelaunch", "rank=", "world_size=", "master_port=",
                    "master_addr="],
            "alone": ["rank0of1", "rank0/1", "rank:0of1", "rank:0/1", "rank=0of1", "rank=0/1", "worker0of1", "worker0/1",
                      "process0of1", "process0/1", "task0of1", "task0/1", "worldsize", "world_size",
                      "numberofprocesses", "numberofranks", "totalprocesses", "commsize", "comm_size"]}

# a glog/absl record's header after a launcher's tag: its thread id (text.GLOG_HEAD's group 5) tells the processes apart
_GLOG_PID = re.compile(r"^\s{0,8}(?:\d{1,5}:\s{1,4}|\[[\w.-]{1,40}\]:\s{0,4})?" + GLOG_HEAD)
_RANK_OF = re.compile(r"(?<![\w.])(?<!local )(?<!local_)rank[ \t]{0,2}[:=#]?[ \t]{0,2}(\d{1,6})\b", re.I)
_MEMBER = re.compile(r"GLOBAL_RANK: (\d{1,7}), MEMBER: (\d{1,7})/(\d{1,7})")
# (a notebook's shell escape '!' counts as a prompt: `! mpiexec -np 4 python x.py`)
_PROMPT = re.compile(r"^(?:[ \t>]{0,16}|[^\n]{0,200}?[$#%>!][ \t]{1,4}|[ \t]{0,8}\+{1,3}[ \t]{1,4})$")
_PROMPT_END = re.compile(r"(?:[$#%>!]|^[ \t]{0,8}\+{1,3})[ \t]{0,4}")
_LEAD = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]{0,127}=\S{0,400}[ \t]+)*(?:(?:nohup|exec|time|env|stdbuf)[ \t]+)*$")
_CMD_AT = re.compile(FACTS["cmd"])
_ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]{0,127})=(.{0,400})$", re.S)

# srun(1): the short options that take a value (the rest are flags); long options take one unless listed
_SRUN_SHORT_VAL = set("nNcGptoeJwAqCxdDimrBLSTWM")
_SRUN_LONG_FLAGS = {"--label", "--exclusive", "--overlap", "--pty", "--unbuffered", "--quiet", "--verbose",
                    "--kill-on-bad-exit", "--no-kill", "--overcommit", "--wait", "--disable-status", "--multi-prog",
                    "--no-allocate", "--preserve-env", "--test-only", "--spread-job", "--exact"}
_SPAWNERS = ("torchrun", "deepspeed", "accelerate", "accelerate-launch")
_SPAWN_MODULES = ("torch.distributed.run", "torch.distributed.launch", "accelerate.commands.launch",
                  "deepspeed.launcher.runner")
_MPI = ("mpirun", "mpiexec", "mpiexec.hydra", "orterun")


def patterns():
    from gpudoctor.explain import ocictx  # a container's docker/podman run line and what the job printed (ocictx.py)

    from gpudoctor.explain import launchenv  # a rank variable against what the launcher sets (launchenv.py)

    from gpudoctor.explain import sshenv  # a variable exported before an ssh the remote process lacked (sshenv.py)

    from gpudoctor.explain import envcause  # a printed script's unexported variable, the error that lacks it

    return [Pattern(ENTRY, "paste", rx, 0, site={"class": cls, "id": "launchctx-" + cls}, needles=_NEEDLES.get(cls))
            for cls, rx in FACTS.items()] + ocictx.patterns(ENTRY) + launchenv.patterns(ENTRY) + \
        sshenv.patterns(ENTRY) + envcause.patterns(ENTRY)


class Ctx(object):
    def __init__(self):
        self.cmds = []  # dicts: src, line, text, env, srun, prog, argv
        self.banners = []  # (line, pid or None, text)
        self.alone = []  # (src, line, text)
        self.member = []  # (line, rank, member, world, text)
        self.replica = None  # (line, text, whether the replica's own traceback follows)
        self.cvd = []  # (src, line, value, text)
        self.rankcvd = []  # (line, local rank, CUDA_VISIBLE_DEVICES value, text)
        self.srun_exit = []  # (line, host, number of task ids, text)
        self.cont = set()  # (src, line): continuation lines of a command read (_joined)
        self.ignored = []  # (line, text, (line, text) of the command before it): #SBATCH lines sbatch ignores
        self.unread = []  # (line, text, option): a directive written in a form sbatch does not read ('# SBATCH')


def _state(scan):
    st = getattr(scan, "launchctx", None)
    if st is None:
        st = scan.launchctx = Ctx()
    return st


def record(scan, hit, win=None):
    """One line a pattern of FACTS matched (launchpaste.record hands it here, with the scan's window)."""
    st = _state(scan)
    cls = hit.pattern.site["class"]
    if cls.startswith("ctr"):
        from gpudoctor.explain import ocictx

        return ocictx.record(scan, hit, win)
    if cls.startswith("lenv"):
        from gpudoctor.explain import launchenv

        return launchenv.record(scan, hit, win)
    if cls.startswith("sshenv"):
        from gpudoctor.explain import sshenv

        return sshenv.record(scan, hit, win)
    if cls.startswith("envc_"):
        from gpudoctor.explain import envcause

        return envcause.record_paste(scan, hit, win)
    text = hit.text[:MAX_LINE]
    src = max(len(scan.sources) - 1, 0)
    if cls == "cmd":
        if len(st.cmds) < MAX_CMDS and (src, hit.line) not in st.cont and \
                not any(c["line"] == hit.line and c["src"] == src for c in st.cmds):
            _add(st, src, hit.line, _joined(st, src, hit.line, text, win))
    elif cls == "banner":
        if len(st.banners) < MAX_BANNERS:
            m = _GLOG_PID.match(text)
            st.banners.append((hit.line, m.group(5) if m else None, text.strip()[:300]))
    elif cls == "alone":
        if len(st.alone) < MAX_ALONE and not re.search(r"rror|xception|Traceback|warn", text, re.I):
            st.alone.append((src, hit.line, text.strip()[:300]))
    elif cls == "member":
        m = _MEMBER.search(text)
        if m and len(st.member) < MAX_ALONE:
            st.member.append((hit.line, int(m.group(1)), int(m.group(2)), int(m.group(3)), text.strip()[:300]))
    elif cls == "cvd":
        m = re.search(FACTS["cvd"], text.rstrip("\r\n"))
        if m and len(st.cvd) < MAX_ALONE:
            st.cvd.append((src, hit.line, m.group("v"), text.strip()[:300]))
    elif cls == "rankcvd":
        lo = re.search(r"\b(?:LOCAL_RANK|SLURM_LOCALID)\b[ \t]{0,2}[=:][ \t]{0,2}[\"']?(\d{1,4})\b", text, re.I)
        cv = re.search(r"\bCUDA_VISIBLE_DEVICES\b[ \t]{0,2}[=:][ \t]{0,2}[\"']?([\w,:-]{1,400})", text, re.I)
        if lo and cv and len(st.rankcvd) < MAX_ALONE:
            st.rankcvd.append((hit.line, int(lo.group(1)), cv.group(1), text.strip()[:300]))
    elif cls == "srun_exit":
        m = re.search(FACTS["srun_exit"], text)
        if m and len(st.srun_exit) < MAX_ALONE:
            n = 0
            for part in m.group("ids").split(","):
                a, _, b = part.partition("-")
                if not a.isdigit():
                    continue  # (',,' or '-5': not srun's hostlist form)
                n += (int(b) - int(a) + 1) if b.isdigit() and int(b) >= int(a) else 1
            st.srun_exit.append((hit.line, m.group("host"), n, text.strip()[:300]))
    elif cls == "replica":
        if st.replica is None:
            # the replica's own traceback follows (torch/_utils.py reraise: "Original Traceback (most recent call
            # last):"), or the text holds only the wrapper
            nxt = win.raw(1)[:200].decode("utf-8", "replace") if win is not None else ""
            st.replica = (hit.line, text.strip()[:300], "Original Traceback" in nxt)
    kept, most = _KEPT.get(cls, ("replica", None))
    got = getattr(st, kept)
    if (got is not None if most is None else len(got) >= most) and hasattr(scan, "retire"):
        scan.retire(hit.pattern)  # full: its further lines are no candidates (Scan.retire)


# each class's list and its bound: a full one keeps nothing more
_KEPT = {"cmd": ("cmds", MAX_CMDS), "banner": ("banners", MAX_BANNERS), "alone": ("alone", MAX_ALONE),
         "member": ("member", MAX_ALONE), "cvd": ("cvd", MAX_ALONE), "rankcvd": ("rankcvd", MAX_ALONE),
         "srun_exit": ("srun_exit", MAX_ALONE)}


SCRIPT_LINES = 40  # lines read after an #SBATCH line: the batch script's commands


def script_lines(scan, hit, win):
    """The command lines of a batch script, read after one of its #SBATCH lines (launchpaste.record hands the
    window here): `python train.py` there has no prompt before it."""
    st = _state(scan)
    _after_command(st, hit, win)
    src = max(len(scan.sources) - 1, 0)
    for i in range(1, SCRIPT_LINES + 1):
        if len(st.cmds) >= MAX_CMDS:
            return
        raw = win.raw(i)
        if not raw:
            return
        text = raw[:MAX_LINE].decode("utf-8", "replace")
        ln = hit.line + i
        if (src, ln) in st.cont:  # a line of a command joined above (`srun \` then `  python train.py`)
            continue
        if not _CMD_AT.search(text) or any(c["line"] == ln and c["src"] == src for c in st.cmds):
            continue
        _add(st, src, ln, _joined(st, src, ln, text, win, i))


# a shell prompt at a line's start ('$ sbatch job.sh', 'user@host:~$ cat job.sh'): the script shown has ended
_SCRIPT_END = re.compile(r"^(?:\$|[\w.-]{1,40}@[\w.-]{1,60}:\S{0,200}[$#]) ")


def _after_command(st, hit, win):
    """#SBATCH lines of the script shown after its first command (wrong17). sbatch(1): "The batch script may contain
    options preceded with "#SBATCH" before any executable commands in the script. sbatch will stop processing further
    #SBATCH directives once the first non-comment non-whitespace line has been reached in the script." Read from one
    #SBATCH line on, to the script's end (a prompt, the window's end): a later #SBATCH line after a command line is
    a comment to sbatch."""
    cmd = None
    for i in range(1, SCRIPT_LINES + 1):
        raw = win.raw(i)
        if not raw:
            return
        t = raw[:MAX_LINE].decode("utf-8", "replace").strip()
        if t.startswith("#SBATCH"):
            if cmd is not None and len(st.ignored) < MAX_ALONE and all(x[0] != hit.line + i for x in st.ignored):
                st.ignored.append((hit.line + i, t[:300], cmd))
            continue
        u = _UNREAD.match(t) if t.startswith("#") else None
        if u and _sizes(u.group("opt")) and len(st.unread) < MAX_ALONE and all(x[0] != hit.line + i for x in st.unread):
            st.unread.append((hit.line + i, t[:300], u.group("opt")))
        if not t or t.startswith("#"):
            continue
        if _SCRIPT_END.match(t):
            return
        if cmd is None:
            cmd = (hit.line + i, t[:300])


# (wrong20) a directive sbatch does not read because of its form. sbatch reads a line as a directive only when it begins
# with the magic word itself: src/sbatch/opt.c _opt_batch_script (SchedMD/slurm at 284c3b95) compares the line's first
# bytes with "#SBATCH" (or "#SLURM") by xstrncmp, case-sensitive, and any other line that starts with '#' is a comment
# it skips. So '# SBATCH --ntasks=2' (a blank after '#') and '#sbatch --nodes=2' (another case) are comments: the job
# runs without them. '##SBATCH' is the usual way to switch a directive off on purpose and is not read here. A line
# pasted indented (a code block) keeps its form after the indent, so the indent itself is not judged.
_UNREAD = re.compile(r"^#(?:[ \t]{1,4}SBATCH|(?!SBATCH)[Ss][Bb][Aa][Tt][Cc][Hh])[ \t]{1,8}"
                     r"(?P<opt>-{1,2}[A-Za-z][\w-]{0,40}(?:[ =][^\s#]{1,200})?)")
# the options that size or place the allocation (sbatch(1)), with the default a job gets without them: a form sbatch
# skipped matters when its value is not that default (one node, one task, one CPU per task, no GPU)
_SIZE_OPTS = {"-N": 1, "--nodes": 1, "-n": 1, "--ntasks": 1, "--ntasks-per-node": 1, "-c": 1, "--cpus-per-task": 1,
              "--mem": None, "--mem-per-cpu": None, "--mem-per-gpu": None, "--gres": None, "-G": None, "--gpus": None,
              "--gpus-per-node": None, "--gpus-per-task": None, "-t": None, "--time": None, "-p": None,
              "--partition": None, "-w": None, "--nodelist": None, "-C": None, "--constraint": None,
              "--exclusive": None}


def _sizes(opt):
    """Whether a directive's option (as written: '--ntasks=2', '-N 2') sizes or places the allocation with a value
    other than the default (_SIZE_OPTS)."""
    m = re.match(r"^(-{1,2}[A-Za-z][\w-]{0,40})(?:[ =](.{0,200}))?$", opt)
    if m is None:
        return False
    name, val = m.group(1), m.group(2) or ""
    if name not in _SIZE_OPTS:
        return False
    default = _SIZE_OPTS[name]
    if default is None:
        return bool(val) or name == "--exclusive"
    n = _int(val.strip())
    return n is not None and n != default


MAX_CONT = 32  # continuation lines joined to a command (a `\` at a line's end)


def _joined(st, src, line, text, win, i=0):
    """The command that starts on ``text`` (line i of the window), its continuation lines joined: a line that ends
    in a backslash goes on on the next line, as bash reads it (bash(1) QUOTING: "A \\<newline> pair is treated as a
    line continuation"), the way every sbatch script writes a long srun / torchrun line; at most MAX_CONT lines and
    MAX_LINE characters. The lines joined are remembered (st.cont): none of them is a command of its own."""
    n = 0
    while win is not None and text.rstrip(" \t\r").endswith("\\") and n < MAX_CONT and len(text) < MAX_LINE:
        nxt = win.raw(i + n + 1)
        if not nxt:
            break
        n += 1
        st.cont.add((src, line + n))
        text = text.rstrip(" \t\r")[:-1] + " " + nxt[:MAX_LINE].decode("utf-8", "replace").strip()
    return text[:MAX_LINE]


def _add(st, src, line, text):
    c = _command(text)
    if c is not None:
        c.update(src=src, line=line, text=text.strip()[:400])
        st.cmds.append(c)


def _command(text, depth=0):
    """The command on a line, read (never run): {env, srun, prog, argv, prefix}, or None when the
    program's name is not where a command starts. ``depth``: bash -c '...' levels read so far (at most 2)."""
    m = _CMD_AT.search(text)
    if not m:
        return None
    at = m.start()
    for s0 in [0] + [k.end() for k in _PROMPT_END.finditer(text, 0, at)][-1:]:
        if _PROMPT.match(text[:s0]) and _LEAD.match(text[s0:at].lstrip(" \t")):
            cmd = text[s0:].strip().lstrip("+ \t")
            prefix = text[:s0].strip()[:200]
            break
    else:
        return None
    try:
        argv = shlex.split(cmd.rstrip("\\ \t"), comments=True)[:200]  # (a continued line: its own words)
    except ValueError:
        return None
    out = []
    for a in argv:
        if a in ("|", "||", "&&", ";", "&", "|&") or re.match(r"^\d?>{1,2}|^<", a):
            break
        out.append(a)
    env = {}
    while out:  # env assignments, and the wrappers that run the command after them (each may take its own)
        a = _ASSIGN.match(out[0])
        if a:
            env[a.group(1)] = a.group(2)
        elif out[0] not in ("nohup", "exec", "time", "env", "stdbuf"):
            break
        out.pop(0)
    if not out:
        return None
    srun = None
    if _base(out[0]) == "srun":
        srun, out = _srun_opts(out[1:])
    c = {"env": env, "srun": srun, "argv": out, "prog": None, "prefix": prefix}
    if not out:
        return c
    b = _base(out[0])
    if b in ("bash", "sh") and len(out) >= 3 and out[1] in ("-c", "-lc", "-xc"):
        sub = _command(out[2], depth + 1) if depth < 2 and _CMD_AT.search(out[2]) else None
        if sub is not None:
            c["prog"], c["argv"] = sub["prog"], sub["argv"]
            c["env"] = dict(env, **sub["env"])
        return c
    if b in _SPAWNERS:
        c["prog"] = "spawner" if b != "accelerate" or out[1:2] == ["launch"] else None
    elif b in _MPI:
        c["prog"] = "mpi"
    elif re.match(r"^python[\d.]{0,5}$", b):
        mod = next((out[i + 1] for i in range(1, min(len(out) - 1, 6)) if out[i] == "-m"), None)
        if mod in _SPAWN_MODULES:
            c["prog"] = "spawner"
        elif mod is None and any(a.endswith(".py") for a in out[1:4]):
            c["prog"] = "python"
    return c


def _base(a):
    return a.rsplit("/", 1)[-1]


def _srun_opts(argv):
    """srun's options (srun(1)) -> ({option: value}, the command srun runs)."""
    opts, i = {}, 0
    while i < len(argv):
        a = argv[i]
        if not a.startswith("-") or a == "-":
            break
        if a.startswith("--"):
            name, eq, val = a.partition("=")
            if not eq and name not in _SRUN_LONG_FLAGS:
                val = argv[i + 1] if i + 1 < len(argv) else ""
                i += 1
            opts[name] = val
        else:
            name, val = a[:2], a[2:]
            if name[1:] in _SRUN_SHORT_VAL and not val:
                val = argv[i + 1] if i + 1 < len(argv) else ""
                i += 1
            opts[name] = val
        i += 1
    return opts, argv[i:]


def _int(v):
    return int(v) if isinstance(v, str) and re.match(r"^\d{1,6}$", v) else None


def _count(v):
    """A GPU count as srun / sbatch take it: N or type:N (--gpus-per-task=a100:1)."""
    m = re.match(r"^(?:[\w.-]{1,64}:)?(\d{1,6})$", v) if isinstance(v, str) else None
    return int(m.group(1)) if m else None


def _flag(argv, *names):
    """The value of a launcher option (--name V or --name=V; '-' and '_' alike), else None."""
    norm = {n.replace("_", "-") for n in names}
    for i, a in enumerate(argv[:80]):
        name, eq, val = a.partition("=")
        if name.replace("_", "-") in norm:
            return val if eq else (argv[i + 1] if i + 1 < len(argv) else None)
    return None


# ------------------------------------------------------------------ the facts

def _alloc(scan):
    """The #SBATCH allocation: launch/script.py allocation's dict plus gpus_per_task / gpu_bind, and its lines."""
    paste = getattr(scan, "paste", None)
    if paste is None or not paste.sbatch:
        return {}, []
    from gpudoctor.explain.launchpaste import sbatch_opts
    from gpudoctor.launch import script as S

    opts = sbatch_opts(paste)  # (launchpaste.read reads the same lines for its allocation)
    a = S.allocation(opts) if opts else {}
    for i, o in enumerate(opts):
        name, eq, val = o.partition("=")
        if name in ("--gpus-per-task", "--gpu-bind"):
            v = val if eq else (opts[i + 1] if i + 1 < len(opts) else "")
            a[name[2:].replace("-", "_")] = v
    return a, [(ln, "#SBATCH " + body) for _f, ln, body in paste.sbatch]


def _per_node(srun, alloc):
    """Tasks per node that srun starts: its own --ntasks-per-node, or -n over -N, else the allocation's."""
    if srun is not None:
        t = _int(srun.get("--ntasks-per-node"))
        if t:
            return t
        n = _int(srun.get("-n") or srun.get("--ntasks"))
        nodes = _int(srun.get("-N") or srun.get("--nodes")) or alloc.get("nodes")
        if n and nodes:
            return -(-n // nodes)
        if n and srun.get("-N") is None and not alloc.get("nodes"):
            return None
    if alloc.get("ntasks_per_node"):
        return alloc["ntasks_per_node"]
    if alloc.get("tasks") and alloc.get("nodes"):
        return -(-alloc["tasks"] // alloc["nodes"])
    return None


class Found(object):
    sure = "medium"

    def __init__(self, eid, what, ev, fix, symptoms, alone=False):
        # ev: [(line, text)] quoted; symptoms: the root ids / families this launch mistake causes; alone: the
        # lines show the failure on their own (a root even with no error found)
        self.eid, self.what, self.ev, self.fix, self.symptoms, self.alone = eid, what, ev, fix, symptoms, alone


ADDR = {"rendezvous.address_in_use", "errno.eaddrinuse"}
ORDINAL = {"cuda.invalid_device_ordinal"}
DUP = {"nccl.duplicate_gpu", "torch.ranks_share_gpu", "nccl.invalid_usage"}
HANG = {"rendezvous.connect", "rendezvous.store_timeout", "rendezvous.store_barrier", "elastic.rdzv_incomplete",
        "elastic.rdzv_closed", "nccl.timeout", "errno.timeout", "gloo.timeout", "cascade.watchdog_abort",
        "torch.c10d_error", "nccl.hang", "rendezvous.hostname"}


def _times_tasks(st, alloc, sb, out):
    for c in st.cmds:
        if c["srun"] is None or c["prog"] != "spawner":
            continue
        per = _per_node(c["srun"], alloc)
        if not per or per < 2:
            continue
        pids = sorted({p for _l, p, _t in st.banners if p})
        ev = [x for x in sb if "ntasks" in x[1] or re.search(r"(?:^|\s)-n", x[1])][:2] + [(c["line"], c["text"])]
        if len(pids) >= 2:
            ev += [(ln, t) for ln, _p, t in [x for x in st.banners if x[1]][:2]]
        nproc = _flag(c["argv"], "--nproc-per-node", "--nproc_per_node", "--num_processes", "--num-processes",
                      "--num_gpus", "--num-gpus")
        out.append(Found("slurm.launcher_times_tasks",
                         "srun starts %d tasks per node (line %d) and each runs %s, which starts its own workers%s%s: "
                         "%d launchers on one node bind the same MASTER_PORT and start %s workers" % (
                             per, c["line"], _base(c["argv"][0]) if c["argv"] else "the launcher",
                             " (%s per launcher)" % nproc if nproc else "",
                             "; torchrun's banner comes from %d processes (%s)" % (len(pids), ", ".join(pids[:4]))
                             if len(pids) >= 2 else "", per,
                             "%d x %s" % (per, nproc) if nproc else "several times the"),
                         ev,
                         "one launcher per node: srun --ntasks-per-node=1 (#SBATCH --ntasks-per-node=1) %s ...; or no "
                         "launcher: srun --ntasks-per-node=<GPUs> python train.py with RANK=$SLURM_PROCID "
                         "LOCAL_RANK=$SLURM_LOCALID WORLD_SIZE=$SLURM_NTASKS" % (
                             " ".join(sh(x) for x in c["argv"][:1]) or "torchrun"),  # (one word each: 15.)
                         ADDR | DUP | ORDINAL | HANG))
        return


def _srun_tasks_launcher(st, scan, out):
    """srun reports two or more tasks of one host (its task-exit line), and the text runs a launcher that starts its
    own workers per node (--nproc-per-node N >= 2 anywhere in the text, or torchrun's config dump: layout.py reads
    the first of them): one launcher per task."""
    lay = getattr(scan, "layout", None)
    nproc = lay.nproc if lay is not None else None
    if not nproc or nproc[1] < 2:
        return
    for ln, host, n, text in st.srun_exit:
        if n < 2:
            continue
        out.append(Found("slurm.launcher_times_tasks",
                         "srun reports %d tasks of one host ending (line %d: %s), and the launcher in this text starts "
                         "%d workers itself (line %d): each srun task runs its own launcher, at least %d launchers on "
                         "that node binding the same MASTER_PORT" % (n, ln, host, nproc[1], nproc[0], n),
                         [(ln, text), (nproc[0], nproc[2])],
                         "one launcher per node: srun --ntasks-per-node=1 (#SBATCH --ntasks-per-node=1) in front of the "
                         "launcher; or no launcher: srun --ntasks-per-node=<GPUs> python train.py with "
                         "RANK=$SLURM_PROCID LOCAL_RANK=$SLURM_LOCALID WORLD_SIZE=$SLURM_NTASKS",
                         ADDR | DUP | ORDINAL | HANG))
        return


def _renumbered(st, alloc, sb, out):
    """--gpus-per-task=G with more than G tasks per node: each task sees its own G GPUs as 0..G-1 (srun(1):
    --gpus-per-task implies --gpu-bind=per_task:G unless --gpu-bind is given)."""
    for c in [x for x in st.cmds if x["srun"] is not None] or [None]:
        srun = c["srun"] if c else {}
        g = _count(srun.get("--gpus-per-task")) or _count(alloc.get("gpus_per_task"))
        bind = srun.get("--gpu-bind") or alloc.get("gpu_bind") or ""
        if not g or bind.startswith("none"):
            continue
        per = _per_node(srun if c else None, alloc)
        if not per or per <= g:
            continue
        ev = [x for x in sb if "gpus-per-task" in x[1] or "ntasks" in x[1]][:3]
        if c and "--gpus-per-task" in srun:
            ev.append((c["line"], c["text"]))
        if not ev:
            continue
        out.append(Found("slurm.visible_devices_renumbered",
                         "--gpus-per-task=%d with %d tasks per node: Slurm binds %d GPU%s to each task, which sees "
                         "%s as device%s %s, so a task that calls set_device(LOCAL_RANK) with LOCAL_RANK >= %d asks for "
                         "a device it does not have" % (g, per, g, "" if g == 1 else "s", "it" if g == 1 else "them",
                                                        "" if g == 1 else "s", "0" if g == 1 else "0..%d" % (g - 1), g),
                         ev,
                         "either request the GPUs per node (#SBATCH --gpus-per-node=%d, or --gres=gpu:%d) so each task "
                         "sees all of them and set_device(LOCAL_RANK) is right, or keep --gpus-per-task=%d and use "
                         "device %s in every task (torch.cuda.set_device(0))" % (per * g, per * g, g,
                                                                                "0" if g == 1 else "0..%d" % (g - 1)),
                         ORDINAL))
        return
    _bound(st, alloc, sb, out)


def _bound(st, alloc, sb, out):
    """srun's GPU binding without --gpus-per-task: --gpu-bind=closest / single:N / map_gpu:... / mask_gpu:... /
    per_task:N, or --accel-bind with g ("bind each task to GPUs which are closest to the allocated CPUs"), with more
    than one task per node: each task sees only its bound GPUs, numbered from 0 (srun(1))."""
    for c in st.cmds:
        srun = c["srun"]
        if srun is None:
            continue
        bind = srun.get("--gpu-bind") or alloc.get("gpu_bind") or ""
        accel = srun.get("--accel-bind") or ""
        how = None
        if bind and not bind.startswith("none"):
            how = "--gpu-bind=%s" % bind[:40]
        elif "g" in accel:
            how = "--accel-bind=%s" % accel[:10]
        per = _per_node(srun, alloc)
        if how is None or not per or per < 2:
            continue
        one = bind.startswith(("single:", "map_gpu:", "mask_gpu:")) or bind in ("per_task:1",)
        out.append(Found("slurm.visible_devices_renumbered",
                         "srun binds GPUs to each of its %d tasks per node (%s, line %d): each task sees only %s, "
                         "numbered from 0, so a task that calls set_device(LOCAL_RANK) with LOCAL_RANK >= the GPUs it "
                         "sees asks for a device it does not have" % (
                             per, how, c["line"], "its one GPU" if one else "the GPUs bound to it"),
                         [x for x in sb if "ntasks" in x[1]][:2] + [(c["line"], c["text"])],
                         "drop the binding (%s) so each task sees the node's GPUs and LOCAL_RANK indexes them, or keep "
                         "it and use device 0 in each task (torch.cuda.set_device(0), or "
                         "LOCAL_RANK %% torch.cuda.device_count())" % how,
                         ORDINAL))
        return


def _one_node(st, alloc, sb, out):
    """A batch script of several nodes that runs `python x.py` itself, not through srun (sbatch(1): the
    script runs once, on the first node of the allocation)."""
    nodes = alloc.get("nodes") or 0
    if nodes < 2 or not sb:
        return
    if any(c["srun"] is not None or c["prog"] in ("mpi", "spawner") for c in st.cmds):
        return  # srun, mpirun or a launcher starts the processes (a launcher without srun: launchpaste's nodes_apart)
    first = min(ln for ln, _t in sb)
    py = [c for c in st.cmds if c["prog"] == "python" and c["line"] > first and c["srun"] is None]
    if not py:
        return
    c = py[0]
    tasks = alloc.get("tasks") or nodes
    ev = [x for x in sb if re.search(r"nodes|-N|ntasks", x[1])][:3] + [(c["line"], c["text"])]
    mem = [m for m in st.member if m[3] >= 2]
    alone = bool(mem) and len({m[1] for m in mem}) == 1 and mem[0][3] > 1
    if mem:
        ev.append((mem[0][0], mem[0][4]))
    out.append(Found("slurm.one_node_used",
                     "the batch script (%s) runs `%s` itself, without srun: sbatch runs the script once, on the first "
                     "node, so one process starts where the allocation has %d node%s and %d task%s%s" % (
                         "; ".join(t for _l, t in ev[:2])[:160], " ".join(c["argv"][:3]), nodes,
                         "" if nodes == 1 else "s", tasks, "" if tasks == 1 else "s",
                         " (line %d: the process waits for a world of %d)" % (mem[0][0], mem[0][3]) if mem else ""),
                     ev,
                     "srun %s (srun starts the allocation's %d tasks, one per GPU, each with its own SLURM_PROCID / "
                     "SLURM_LOCALID), or one launcher per node: srun --ntasks-per-node=1 torchrun --nnodes=$SLURM_NNODES "
                     "--nproc-per-node=<GPUs> --rdzv-backend=c10d --rdzv-endpoint=<first node>:29500 ..." % (
                         " ".join(sh(x) for x in c["argv"][:6]), tasks),  # (the text's words, one shell word each)
                     HANG, alone=alone))


# what a batch script's allocation decides: a job that got less than the ignored lines asked for fails in these ways
# (srun asking for more nodes or memory than the job has, a step or a rank that waits for the rest, a node count)
SHORT = {"slurm.error", "slurm.node_config", "slurm.node_resources", "slurm.step_wait", "slurm.oom",
         "slurm.timeout", "slurm.one_node_used"}


def _ignored_directives(st, out):
    """#SBATCH lines after the script's first command (_after_command): sbatch never read them, so the job ran with
    its defaults for those options (one node, one task, the partition's memory and time)."""
    if not st.ignored:
        return
    cmd = st.ignored[0][2]
    opts = " ".join(t[len("#SBATCH"):].strip() for _l, t, _c in st.ignored)[:200]
    ev = [cmd] + [(ln, t) for ln, t, _c in st.ignored[:4]]
    out.append(Found("slurm.sbatch_directive_ignored",
                     "the batch script's #SBATCH line%s %s come%s after its first command (line %d: %s): sbatch stops "
                     "reading #SBATCH directives at the first line that is not a comment, so the job ran without %s" % (
                         "s" if len(st.ignored) > 1 else "", ", ".join(str(ln) for ln, _t, _c in st.ignored[:6]),
                         "" if len(st.ignored) > 1 else "s", cmd[0], cmd[1][:80], opts),
                     ev,
                     "move every #SBATCH line to the top of the script, right after #!/bin/bash and before the first "
                     "command (module load, source, export ...); sbatch --test-only <script> or scontrol show job "
                     "<id> shows what the job was given",
                     SHORT | HANG | ORDINAL))


def _unread_directives(st, out):
    """Directives written in a form sbatch does not read (_UNREAD: '# SBATCH --ntasks=2'): comments to it, so the job
    ran without those options."""
    if not st.unread or st.ignored:
        return
    opts = " ".join(o for _l, _t, o in st.unread)[:200]
    lines = ", ".join("line %d: %s" % (ln, _clipped(t, 60)) for ln, t, _o in st.unread[:4])
    out.append(Found("slurm.sbatch_directive_ignored",
                     "the batch script's %s %s not a directive: sbatch reads a line as a directive only when it "
                     "starts with exactly '#SBATCH' (no blank after '#', upper case), and takes every other line that "
                     "starts with '#' as a comment, so the job ran without %s" % (
                         lines, "is" if len(st.unread) == 1 else "are", opts),
                     [(ln, t) for ln, t, _o in st.unread[:4]],
                     "write the directive as sbatch reads it, at the line's start: %s; sbatch --test-only <script> "
                     "or scontrol show job <id> shows what the job was given" % "; ".join(
                         "#SBATCH " + o for _l, _t, o in st.unread[:4]),
                     SHORT | HANG | ORDINAL))


# (wrong20) what a process that was given no GPU prints: nvidia-smi's 'No devices were found', CUDA's 'no CUDA-capable
# device is detected', torch's 'No CUDA GPUs are available' (the entries' ids or families)
NOGPU = {"gpu.no_devices", "gpu.driver_not_loaded", "cuda.not_available"}
# ... and only the lines that say the driver answered and counted no device (a step whose GPUs Slurm hid): nvidia-smi's
# 'No devices were found' (NVML counted 0), CUDA's cudaErrorNoDevice / CUDA_ERROR_NO_DEVICE ('no CUDA-capable device
# is detected'), torch's 'No CUDA GPUs are available' (c10/cuda: device count 0). Not a driver that is not there:
# torch's 'Found no NVIDIA driver on your system', nvidia-smi's "couldn't communicate with the NVIDIA driver" (the
# driver's own device file or module is missing; Slurm constrains the GPUs' device files, not the driver's)
_NO_DEVICE = re.compile(r"No devices were found|no CUDA-capable device is detected|No CUDA GPUs are available|"
                        r"CUDA_ERROR_NO_DEVICE|cudaErrorNoDevice")
# srun(1)'s options that ask a step for GPUs: --gres=gpu[:type]:N, --gpus / -G, --gpus-per-node / -task / -socket,
# --tres-per-task=gres/gpu:N
_GPU_OPTS = ("--gpus", "-G", "--gpus-per-node", "--gpus-per-task", "--gpus-per-socket")


# an salloc command line that asks for GPUs (salloc(1): --gres=gpu[:type]:N, --gpus / -G, --gpus-per-*)
_SALLOC_GPUS = re.compile(r"(?<![\w-])(?:--gres[= ][^\s]{0,80}\bgpu\b|--gpus(?:-per-\w{1,10})?[= ]\S|-G[= ]?\d|"
                          r"--tres-per-task[= ][^\s]{0,80}\bgpu\b)")


def _no_gpu_asked(st, scan, alloc, sb, out):
    """srun typed at a prompt with no GPU option, in a text with no batch script and no allocation of GPUs: a step
    that asked for no GPU. Slurm gives a job or step only the GPUs it asks for (https://slurm.schedmd.com/gres.html:
    CUDA_VISIBLE_DEVICES 'is set for each job step to determine which GPUs are available for its use'), and with
    cgroup.conf's ConstrainDevices=yes it 'constrain[s] the job's allowed devices based on GRES allocated resources'
    (cgroup.conf(5)): the step cannot open the node's GPUs at all. srun typed at a login prompt allocates a job of
    its own (srun(1): 'If necessary, srun will first create a resource allocation'), so its options are the whole
    request. Only where the text shows a no-GPU failure (NOGPU; the root, judge decides), never a note: an srun
    without GPUs is right for a CPU job."""
    if not any(_NO_DEVICE.search(h.text[:400]) for e in NOGPU for h in scan.matches.get(e) or ()):
        return
    if sb or alloc.get("gpus_per_node") or alloc.get("gpus"):
        return  # a batch script's own allocation (its #SBATCH lines decide; slurm.step_without_gpus reads them)
    for h in scan.matches.get("_struct_cli_cmd") or ():
        if h.groups.get("tool") == "salloc" and _SALLOC_GPUS.search(h.groups.get("args") or ""):
            return  # (review20) an srun inside an salloc that asked for GPUs gets them: srun(1) --gres "By default, a
            # job step is allocated all of the generic resources that have been requested by the job"
    for c in st.cmds:
        o = c["srun"]
        if o is None or not c.get("prefix") or not c["argv"]:
            continue
        if any(k in o for k in _GPU_OPTS) or any("gpu" in (o.get(k) or "") for k in ("--gres", "--tres-per-task")):
            return  # a step that asked for GPUs (another srun of the text included: the user tried both)
    cands = [c for c in st.cmds if c["srun"] is not None and c.get("prefix") and c["argv"]]
    if not cands:
        return
    c = cands[0]
    out.append(Found("slurm.step_without_gpus",
                     "`%s` (line %d) asks Slurm for no GPU (no --gres=gpu, --gpus / -G or --gpus-per-* option), and "
                     "the program it started found none: Slurm gives a job step only the GPUs it was allocated, and "
                     "with ConstrainDevices the step cannot open the node's other GPUs" % (_clipped(c["text"], 100),
                                                                                             c["line"]),
                     [(c["line"], c["text"])],
                     "ask for the GPUs on the srun line: %s (or --gres=gpu:<N> / --gpus-per-node=<N>); inside an "
                     "salloc or sbatch allocation, ask for them there too (#SBATCH --gres=gpu:<N>)" % _with_gpus(c),
                     NOGPU))


def _with_gpus(c):
    """The user's srun line (the text after its prompt) with --gpus=1 after 'srun'."""
    t = c["text"]
    p = c.get("prefix") or ""
    cmd = t[len(p):].strip() if p and t.startswith(p) else t.strip()
    out = _clipped(re.sub(r"(?<![\w./-])srun(?=[ \t])", "srun --gpus=1", cmd, count=1), 160)
    # (the line is the log's: shown only where, pasted, it runs nothing but its own command, fixline.inert; red team
    # 2026-11-27b: 'srun -N1 x; touch PWN; # nvidia-smi' gave a fix line that ran touch)
    return out if inert(cmd) and inert(out) else "srun --gpus=1 <the srun line's options and command>"


def _clipped(t, n):
    return t if len(t) <= n else t[:n - 3] + "..."


def _config_rank(scan):
    """(machine_rank, num_machines, line) of the one accelerate config block in the text with num_machines >= 2
    (launchpaste's reader of its keys), else None: one block shown for several machines is one file they share."""
    paste = getattr(scan, "paste", None)
    if paste is None or not paste.keys:
        return None
    from gpudoctor.explain.launchpaste import _accelerate_groups

    groups = [g for g in _accelerate_groups(paste) if isinstance(g.get("num_machines", (None,))[0], int)
              and g["num_machines"][0] >= 2 and isinstance(g.get("machine_rank", (None,))[0], int)]
    if len(groups) != 1:
        return None
    g = groups[0]
    return g["machine_rank"][0], g["num_machines"][0], g["machine_rank"][1], g["machine_rank"][2].strip()[:200]


def _same_rank(st, scan, out):
    """Two command lines that claim the same RANK of a world of two or more; or the same node rank (a flag, or the
    one accelerate config's machine_rank) of several machines, run at two different prompts (two machines)."""
    seen = {}
    conf = None
    for c in st.cmds:
        env = c["env"]
        r, w, how = _int(env.get("RANK")), _int(env.get("WORLD_SIZE")), "RANK"
        if r is None and c["prog"] == "spawner":
            r, w, how = _int(_flag(c["argv"], "--node-rank", "--node_rank", "--machine-rank", "--machine_rank")), \
                _int(_flag(c["argv"], "--nnodes", "--num-machines", "--num_machines")), "node rank"
            if r is None and _base(c["argv"][0]) in ("accelerate", "accelerate-launch"):
                conf = conf or _config_rank(scan) or (None,)
                if conf[0] is not None:
                    r, w, how = conf[0], conf[1], "machine_rank"
        if r is None or w is None or w < 2 or r >= w:
            continue
        key = (how, r, w, env.get("MASTER_ADDR"), env.get("MASTER_PORT"), " ".join(c["argv"]) if how != "RANK" else "")
        seen.setdefault(key, []).append(c)
    for (how, r, w, _a, port, _cmd), cs in sorted(seen.items(), key=lambda kv: kv[1][0]["line"]):
        if how != "RANK":  # one machine each: the prompts before the same command differ
            cs = list({c["prefix"]: c for c in reversed(cs) if c["prefix"]}.values())[::-1]
        if len(cs) < 2:
            continue
        ev = [(c["line"], c["text"]) for c in cs[:4]]
        if how == "machine_rank":
            ev.insert(0, (conf[2], conf[3]))
        out.append(Found("launcher.same_rank",
                         "%d command lines each start a process with %s %d %s %d%s (lines %s): %s"
                         % (len(cs), how if how != "machine_rank" else "the config's (line %d) machine_rank" % conf[2],
                            r, "of a world of" if how == "RANK" else "of", w, "" if how == "RANK" else " machines",
                            ", ".join(str(c["line"]) for c in cs[:4]),
                            "both host the store on MASTER_PORT%s, and the second bind fails (EADDRINUSE) or each waits "
                            "for a world that never completes" % (" " + port if port else "") if how == "RANK" else
                            "both act as node %d and each waits for the other nodes" % r),
                         ev,
                         "give each process its own rank: RANK=0 and RANK=1 ... (LOCAL_RANK too), or start them with "
                         "a launcher that numbers them: torchrun --nproc-per-node <N> train.py" if how == "RANK" else
                         "machine_rank: 1 (2, ...) in each other machine's config, or accelerate launch --machine_rank "
                         "<N> there (--machine_rank $SLURM_NODEID inside srun bash -c '...')" if how == "machine_rank" else
                         "give each node its own --node-rank (0, 1, ...; $SLURM_NODEID inside srun bash -c '...'), or "
                         "--rdzv-backend c10d --rdzv-endpoint <first node>:29500 without a node rank",
                         ADDR | HANG))
        return


def _every_rank_zero(st, out):
    """mpirun / mpiexec / srun start N >= 2 processes and N lines say rank 0 of a world of 1."""
    for c in st.cmds:
        n = None
        if c["prog"] == "mpi" and c["srun"] is None:
            n = _int(_flag(c["argv"], "-np", "-n", "-c", "--np", "--n"))
            who = _base(c["argv"][0])
        elif c["srun"] is not None and c["prog"] in ("python", None):
            n = _int(c["srun"].get("-n") or c["srun"].get("--ntasks"))
            who = "srun"
        if not n or n < 2:
            continue
        said = [a for a in st.alone if a[1] > c["line"] and a[0] == c["src"]]
        if any(_RANK_OF.search(a[2]) and _RANK_OF.search(a[2]).group(1) != "0" for a in said):
            continue  # ranks 0, 1, ... each with a world of 1: the world size is what is wrong, not the ranks
        texts = {}
        for a in said:
            texts.setdefault(re.sub(r"\d{1,20}(?:\.\d{1,20})?", "#", a[2]), []).append(a)
        same = max(texts.values(), key=len) if texts else []
        if len(same) < min(n, 2):
            continue
        out.append(Found("mpi.every_rank_zero",
                         "%s starts %d processes (line %d) and %d of them print that their world has one process, "
                         "rank 0 of 1 (lines %s): each process is a job of its own" % (
                             who, n, c["line"], len(same), ", ".join(str(a[1]) for a in same[:4])),
                         [(c["line"], c["text"])] + [(a[1], a[2]) for a in same[:3]],
                         "read the launcher's variables before init_process_group: Open MPI OMPI_COMM_WORLD_RANK / "
                         "OMPI_COMM_WORLD_SIZE / OMPI_COMM_WORLD_LOCAL_RANK, Slurm SLURM_PROCID / SLURM_NTASKS / "
                         "SLURM_LOCALID (as RANK / WORLD_SIZE / LOCAL_RANK, with MASTER_ADDR / MASTER_PORT); mpi4py: "
                         "run it with the mpirun of the MPI it was built against; or launch with torchrun",
                         HANG, alone=True))
        return


def _world_wrong(st, scan, out):
    """srun / mpirun start N >= 2 processes whose own lines give different ranks but a world size other than N:
    the script reads its world size from something that is not the task count (SLURM_NNODES, a default)."""
    lay = getattr(scan, "layout", None)
    claims = [(c["line"], c.get("rank"), c.get("world"), c["text"].strip()[:300]) for c in (lay.claims if lay else [])
              if c["kind"] == "print" and c.get("world")]
    for src, ln, text in st.alone:  # 'rank 1 world_size 1': layout leaves out a rank outside its world
        r = _RANK_OF.search(text)
        if r and re.search(r"\bworld[_ ]?size\b[ \t]{0,2}[:=]?[ \t]{0,2}1\b", text, re.I) and \
                not any(x[0] == ln for x in claims):
            claims.append((ln, int(r.group(1)), 1, text))
    claims.sort()
    for c in st.cmds:
        if c["prog"] == "mpi" and c["srun"] is None:
            n, who = _int(_flag(c["argv"], "-np", "-n", "-c", "--np", "--n")), _base(c["argv"][0])
        elif c["srun"] is not None and c["prog"] == "python":
            n, who = _int(c["srun"].get("-n") or c["srun"].get("--ntasks")), "srun"
        else:
            continue
        if not n or n < 2:
            continue
        after = [x for x in claims if x[0] > c["line"] and x[1] is not None]
        worlds = {x[2] for x in after}
        ranks = {x[1] for x in after}
        if len(worlds) != 1 or len(ranks) < 2 or n in worlds:
            continue
        w = worlds.pop()
        out.append(Found("_cause", "%s starts %d processes (line %d), and they print ranks %s but world size %d (lines "
                         "%s): the script takes its world size from something other than the number of tasks, so the "
                         "ranks do not form one world" % (who, n, c["line"], ", ".join(str(r) for r in sorted(ranks)[:4]),
                                                          w, ", ".join(str(x[0]) for x in after[:4])),
                         [(c["line"], c["text"])] + [(x[0], x[3]) for x in after[:3]],
                         "the world size is the number of tasks: WORLD_SIZE=$SLURM_NTASKS (srun; not SLURM_NNODES, the "
                         "node count), OMPI_COMM_WORLD_SIZE under Open MPI's mpirun, PMI_SIZE under MPICH's; the rank "
                         "SLURM_PROCID / OMPI_COMM_WORLD_RANK", HANG))
        return


def _visible(value):
    """How many GPUs a CUDA_VISIBLE_DEVICES value shows a process (CUDA's list: indexes or GPU-/MIG- UUIDs, comma
    separated; CUDA stops at the first invalid entry, so an entry that is neither ends the count), or None."""
    n = 0
    for part in value.split(","):
        p = part.strip()
        if re.match(r"^\d{1,3}$", p) or re.match(r"^(?:GPU|MIG)-[\w-]{4,100}$", p):
            n += 1
        else:
            break
    return n or None


def _nproc_vs_visible(st, out):
    """A launcher's processes per node above the GPUs its CUDA_VISIBLE_DEVICES shows (on its command line, or the
    last line before it that sets it): the root's first cause where it is invalid device ordinal / duplicate GPU."""
    for c in st.cmds:
        if c["prog"] != "spawner" or not c["argv"]:
            continue
        b = _base(c["argv"][0])
        if b == "deepspeed":
            n = _int(_flag(c["argv"], "--num_gpus", "--num-gpus"))
        elif b.startswith("accelerate"):
            n = _int(_flag(c["argv"], "--num_processes", "--num-processes"))
            m = _int(_flag(c["argv"], "--num_machines", "--num-machines")) or 1
            n = n // m if n else None
        else:
            n = _int(_flag(c["argv"], "--nproc-per-node", "--nproc_per_node"))
        if not n or n < 2:
            continue
        where = None
        if "CUDA_VISIBLE_DEVICES" in c["env"]:
            where = (c["line"], c["env"]["CUDA_VISIBLE_DEVICES"], c["text"])
        else:
            before = [x for x in st.cvd if x[0] == c["src"] and x[1] < c["line"]]
            if before:
                where = before[-1][1:]
        if where is None:
            continue
        g = _visible(where[1])
        if not g or n <= g:
            continue
        ev = sorted({(where[0], where[2]), (c["line"], c["text"])})
        out.append(Found("_cause", "%s starts %d processes per node (line %d) but CUDA_VISIBLE_DEVICES=%s (line %d) "
                         "shows each process %d GPU%s: local rank%s %s ask%s for a device the process does not have" % (
                             b, n, c["line"], where[1][:60], where[0], g, "" if g == 1 else "s",
                             "" if n - g == 1 else "s", g if n - g == 1 else "%d..%d" % (g, n - 1),
                             "s" if n - g == 1 else ""),
                         ev, "start as many processes as the GPUs CUDA_VISIBLE_DEVICES lists: %s %d (or list %d GPUs "
                         "in CUDA_VISIBLE_DEVICES)" % ({"deepspeed": "deepspeed --num_gpus"}.get(
                             b, "accelerate launch --num_processes" if b.startswith("accelerate") else
                             "torchrun --nproc-per-node"), g, n),
                         ORDINAL | DUP))
        return


def _local_rank_unseen(st, alloc, sb, out):
    """A process prints its local rank beside a CUDA_VISIBLE_DEVICES that shows it fewer GPUs than that rank +1:
    set_device(LOCAL_RANK) asks for a device it does not have (CUDA numbers the visible devices from 0)."""
    for ln, lr, value, text in st.rankcvd:
        g = _visible(value)
        if not g or lr < g:
            continue
        slurm = bool(sb) or any(c["srun"] is not None for c in st.cmds)
        what = ("a process with local rank %d sees CUDA_VISIBLE_DEVICES=%s (line %d): %d GPU%s, numbered from 0, so "
                "set_device(%d) asks for a device it does not have" % (lr, value[:60], ln, g, "" if g == 1 else "s", lr))
        if slurm:
            what += "; under Slurm that is a task bound to its own GPU%s (--gpus-per-task, --gpu-bind), or a " \
                    "CUDA_VISIBLE_DEVICES set per task" % ("" if g == 1 else "s")
        out.append(Found("slurm.visible_devices_renumbered" if slurm else "_cause", what, [(ln, text)],
                         "use device 0..%d in each process (torch.cuda.set_device(0) with one GPU each), or show every "
                         "process the node's GPUs (Slurm: --gpus-per-node=<N> / --gres=gpu:<N> instead of "
                         "--gpus-per-task, or --gpu-bind=none) so LOCAL_RANK indexes them" % (g - 1), ORDINAL))
        return


def _other_names(st, out):
    """srun or mpirun starts the python script itself (no torchrun): its processes get the launcher's own
    variables (srun(1): SLURM_PROCID / SLURM_NTASKS / SLURM_LOCALID; Open MPI's mpirun(1): OMPI_COMM_WORLD_RANK /
    _SIZE / _LOCAL_RANK), not the RANK / WORLD_SIZE / MASTER_ADDR that torch's env:// reads."""
    for c in st.cmds:
        if c["prog"] == "python" and c["srun"] is not None:
            who, names = "srun", "SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID"
            fix = ("export RANK=$SLURM_PROCID WORLD_SIZE=$SLURM_NTASKS LOCAL_RANK=$SLURM_LOCALID MASTER_ADDR=$(scontrol "
                   "show hostnames $SLURM_JOB_NODELIST | head -n 1) MASTER_PORT=29500 in each task (srun bash -c "
                   "'...'), or one torchrun per node: srun --ntasks-per-node=1 torchrun --nnodes=$SLURM_NNODES ...")
        elif c["prog"] == "mpi" and c["srun"] is None and any(re.match(r"^python[\d.]{0,5}$", _base(a))
                                                               for a in c["argv"][1:12]):
            who, names = _base(c["argv"][0]), "OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_RANK " \
                                              "(Open MPI; PMI_RANK, PMI_SIZE under MPICH)"
            fix = ("set RANK / WORLD_SIZE / LOCAL_RANK from OMPI_COMM_WORLD_RANK / _SIZE / _LOCAL_RANK before "
                   "init_process_group, and MASTER_ADDR / MASTER_PORT (mpirun -x MASTER_ADDR=<first host> -x "
                   "MASTER_PORT=29500), or launch with torchrun")
        else:
            continue
        out.append(Found("_cause", "%s starts the script itself (line %d), without a launcher: each process gets %s's "
                         "own variables (%s), not the RANK / WORLD_SIZE / LOCAL_RANK / MASTER_ADDR / MASTER_PORT that "
                         "torch's env:// initialisation reads" % (who, c["line"], who, names),
                         [(c["line"], c["text"])], fix, {"rendezvous.env_missing"}))
        return


def _replica(st, out):
    if st.replica is None:
        return
    ln, text, inner = st.replica
    out.append(Found("launcher.single_process",
                     "torch.nn.DataParallel's wrapped error (line %d: %s): one process drives several GPUs, copying the "
                     "model into a replica per GPU on every forward; code that keeps state on the module, or calls "
                     "that assume one device, fail in the replicas" % (ln, text[:120]),
                     [(ln, text)],
                     "one process per GPU with DistributedDataParallel: torchrun --nproc-per-node <GPUs> train.py, or "
                     "accelerate launch --multi_gpu --num_processes <GPUs> train.py (or deepspeed); "
                     "CUDA_VISIBLE_DEVICES=0 for a one-GPU run",
                     set() if inner else {"code.exception"}, alone=True))  # the replica's own error: its answer
    out[-1].sure = "low (the replica's own error, DataParallel's 'Original Traceback', is not in the text: it " \
                   "names what failed; one process per GPU is PyTorch's advice for multi-GPU training, and the " \
                   "error's cause may remain)"


def read(scan):
    """[Found] of what the launch lines show."""
    st = getattr(scan, "launchctx", None)
    if st is None:
        from gpudoctor.explain import launchenv, sshenv

        # their lines may be all the text holds of the launch
        return launchenv.read(scan, Found) + sshenv.read(scan, Found)
    alloc, sb = _alloc(scan)
    out = []
    _times_tasks(st, alloc, sb, out)
    if not out:
        _srun_tasks_launcher(st, scan, out)
    _renumbered(st, alloc, sb, out)
    _same_rank(st, scan, out)
    _one_node(st, alloc, sb, out)
    _every_rank_zero(st, out)
    _world_wrong(st, scan, out)
    _nproc_vs_visible(st, out)
    _other_names(st, out)
    if not any(x.eid == "slurm.visible_devices_renumbered" for x in out):
        _local_rank_unseen(st, alloc, sb, out)
    _replica(st, out)
    _ignored_directives(st, out)
    _unread_directives(st, out)
    _no_gpu_asked(st, scan, alloc, sb, out)
    from gpudoctor.explain import ocictx

    from gpudoctor.explain import launchenv

    # the container's run options behind the symptom (ocictx.py); a rank variable the launcher does or does not set
    # (launchenv.py)
    from gpudoctor.explain import sshenv

    return out + ocictx.read(scan, Found) + launchenv.read(scan, Found) + sshenv.read(scan, Found)


# ------------------------------------------------------------------ into the answer

# the launch mistakes behind a symptom, and what in the launch tells each apart: a note beside a root of that
# symptom when the text does not show the launch
TELL_APART = [
    (ADDR, "a launch that binds the port twice: torchrun started once per srun task (srun --ntasks-per-node > 1 in "
           "front of torchrun), two processes both given RANK=0, or torchrun around a script that starts its own "
           "workers; tell apart: the launch line as it ran (set -x) and whether a fresh, unused port fails too"),
    (ORDINAL, "more processes than the GPUs each one sees: --nproc-per-node / num_processes above the node's GPUs, or "
              "Slurm's --gpus-per-task (each task sees only its own GPUs, numbered from 0) with set_device(LOCAL_RANK); "
              "tell apart: echo $SLURM_LOCALID $CUDA_VISIBLE_DEVICES in each task, nvidia-smi -L"),
    (HANG, "ranks that never form one world: a batch script that runs python without srun (one process, on the first "
           "node), the same RANK / node rank on two nodes, a world size that is not the number of tasks; tell apart: "
           "the rank and world size each process prints, and srun / #SBATCH lines as they ran"),
]


def _tell_apart(result):
    findings = result["findings"]
    root = findings[0] if findings else None
    if root is None or root.get("from_launch"):
        return
    for ids, text in TELL_APART:
        if root["id"] in ids or root.get("family") in ids:
            result["context"].append({"id": "launch", "severity": "info", "note": "Launch mistakes that end in this "
                                      "error too: %s." % text, "fix": None, "first_line": None, "text": None,
                                      "match_count": 0})
            return


def judge(result, scan, kb):
    """Name the launch cause of the root's symptom where the launch lines show it (the root, the symptom
    follows as related); a launch fact that explains no symptom found is a note. Returns the root it made."""
    found = read(scan)
    if not found:
        _tell_apart(result)
        return None
    findings = result["findings"]
    root = findings[0] if findings else None
    made = None
    notes = []
    for x in found:
        if x.eid == "_cause":  # a launch fact behind the root's own symptom: the root's first cause
            if root is not None and (root["id"] in x.symptoms or root.get("family") in x.symptoms):
                root["causes"].insert(0, {"text": "Read from the launch lines in this text: %s." % x.what, "checks": [],
                                          "confirm": [], "fix": [x.fix], "exports": {}, "static_rank": 0,
                                          "computed": None,
                                          "evidence": [{"line": ln, "text": t} for ln, t in x.ev]})
                continue
            if getattr(x, "instead", None) is None:
                notes.append(x)
                continue
            x = x.instead  # the entry this launch fact is, where the root is not its symptom (launchenv.py)
        e = kb.by_id.get(x.eid)
        if e is None or any(f["id"] == x.eid for f in findings):
            continue
        explains = root is not None and (root["id"] in x.symptoms or root.get("family") in x.symptoms)
        alone = root is None and x.alone and result["verdict"] in ("no_error", "unknown_error")
        if made is None and (explains or alone or (root is None and x.symptoms & HANG and _complaint(scan))):
            made = _finding(e, x, scan, root if explains else None)
            continue
        notes.append(x)
    if root is None and made is None and result["verdict"] == "no_error":
        notes = []  # nothing failed: a launch fact that explains no symptom is no warning on a healthy text
    for x in notes[:3]:
        result["context"].append({"id": "launch", "severity": "warning",
                                  "note": "Read from the launch lines in this text: %s." % x.what, "fix": x.fix,
                                  "first_line": x.ev[0][0], "text": x.ev[0][1], "match_count": 1})
    if made is None:
        return None
    from gpudoctor.explain.launchpaste import take_root

    return take_root(result, made, root)


def _complaint(scan):
    from gpudoctor.explain.hang import _complaint as c

    return c(scan)


def _finding(e, x, scan, root):
    from gpudoctor.explain.launchpaste import lines_finding
    from gpudoctor.explain.scan import Hit

    ev = sorted({ln: t for ln, t in x.ev}.items())
    hits = [Hit(ln, t.strip()[:400], None, {}, None) for ln, t in ev]
    f = lines_finding(e, hits, "root", scan, "Read from the launch lines in this text: %s." % x.what, x.fix,
                      "How sure: %s. Read from how the job was launched (the lines quoted), not from an error "
                      "line%s." % (x.sure, ": it explains the error %s found in this text (%s)" % (root["id"], root["title"])
                                   if root is not None else ""))
    return f

"""A family's answer, made concrete from its own lines (issue 18, "family-fixes").

When explain knows only the family (a generic entry, several causes fit), its causes are the
ways to tell them apart, each with the line that points at it (`evidence`) and its own fix; the
one whose evidence is in the log is listed first (analyze._finding). This module adds two
things to that:

1. Names from the matched line in an entry's cause. A cause's ``text`` and ``fix`` may hold
   ``{$var|words}`` (the environment variable the finding's matched line names: NCCL's
   ``Invalid NCCL_COMM_ID``, torch's ``Invalid value for environment variable:
   TORCH_NCCL_ASYNC_ERROR_HANDLING``) or ``{$option|words}`` (a ``--long-option`` it names);
   ``words`` when the line names none. A generated site's ``{%N|words}`` slots are slots.py's;
   these are the hand-written entries' (families.toml and the other knowledge files), which
   have no printf format to count conversions in. The value is untrusted log text: it must be
   a whole name of the expected shape (an upper-case variable of a known prefix, a long
   option), at most MAX_NAME characters, and is printed through fixline.sh like every value.

2. How sure, when a family's cause has its evidence: the family note ("the cause is not [certain]:
   the causes below are the possibilities") becomes "line N points at the first cause below;
   if not that, the others in order", still medium: the line makes one cause the likeliest, it
   does not prove it. A family answer with no evidence keeps its note.

Each fix still lives in one place, the entry's cause; this module only fills and orders.
"""

import re

from gpudoctor.explain.text import clip
from gpudoctor.fixline import ACTS, inert_word, sh

MAX_LINE = 4096  # characters of a matched line searched for a name
MAX_NAME = 64

SLOT = re.compile(r"\{\$(var|option|ping4|hydraarg|node|reason|solib|sostem)\|([^{}|]{1,80})\}")
# Variables a training job's stack reads (NCCL's src/misc/param.cc ncclGetEnv names, torch's
# TORCH_* / PYTORCH_* (c10d Utils.hpp getCvar*), CUDA's, the launchers' and MPI's): a prefix and
# an upper-case name, as whole words; bounded, so linear in the line
_VAR = re.compile(r"(?<![A-Za-z0-9_$])((?:NCCL|TORCH|PYTORCH|CUDA|CUBLAS|CUDNN|UCX|UCC|OMPI|PMIX|PMI|GLOO|NVIDIA|"
                  r"MASTER|WORLD|LOCAL|NODE|GROUP|SLURM|FI|HOROVOD|DS|ACCELERATE|OMP|TORCHELASTIC|HF|NVSHMEM|MPI|"
                  r"VLLM|TRANSFORMERS|TRITON|XLA|NVTE|MEGATRON|TORCHINDUCTOR|TORCHDYNAMO)"
                  r"_[A-Z0-9_]{1,58})(?![A-Za-z0-9_])")
_OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9_-]{1,60})(?![\w-])")
# torch/csrc/distributed/c10d/TCPStore.cpp, TCPStore::ping(): "Ping failed, invalid value returned from server.
# Expected: <pid>, Got: <uint32>": the value is the first 4 bytes the program on the port sent, little-endian
_PING = re.compile(r"Ping failed, invalid value returned from server\. Expected: \d{1,10}, Got: (\d{1,10})\b")
# MPICH's Hydra (src/pm/hydra/lib/utils/args.c match_arg: HYDU_ERR_SETANDJUMP(..., "unrecognized argument %s\n", arg),
# https://github.com/pmodels/mpich/blob/main/src/pm/hydra/lib/utils/args.c): the option as given, its dashes stripped
_HYDRA_ARG = re.compile(r"match_arg \(utils/args/args\.c:\d{1,6}\): unrecognized argument ([A-Za-z0-9][\w.:+-]{0,59})(?![\w.:+-])")
# A Slurm node and its reason where Slurm prints them (slurm26): `scontrol show node -o`'s NodeName= field, and
# the node list at the end of a `sinfo -R` row ('%20E %9u %19H %N', src/sinfo/opts.c); the reason is
# scontrol's 'Reason=%s [%s@%s]' (src/scontrol/info_node.c) or the row's first 20 characters (cut there by sinfo)
# Slurm's own lines that name one node (slurm28, read on a real 4-node Slurm 22.05): srun's 'Prolog failure on node
# %s' and 'Task launch for %ps failed on node %s: %s' (src/slurmd/slurmd/req.c, src/api/step_launch.c), srun's
# 'error: %s: task %d: ...' (src/srun/srun_job.c), slurmctld's 'Nodes %s not responding', 'update_node: node %s reason
# set to: ...', '_slurm_rpc_node_registration node=%s: ...' (src/slurmctld/ping_nodes.c, node_mgr.c, proc_req.c);
# a list ('Nodes sn[1-3] not responding') is no one node and is not read. And the host field of a syslog/journal
# line (RFC 3164 'Nov 28 12:00:01 gpu17 kernel: NVRM: Xid ...', or an RFC 3339 stamp): the node whose kernel said it.
_NODE_NAME = r"([A-Za-z][\w.-]{0,62})"
_NODE = re.compile(r"(?<![\w])NodeName=([A-Za-z0-9][\w.-]{0,62})|"
                   r"^[^\n]{20} [A-Za-z_][\w.-]{0,8}[ ]{1,9}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d ([A-Za-z0-9][\w\[\],.-]{0,62})|"
                   r"(?<![\w-])(?:failed|failure) on node " + _NODE_NAME + r"(?=[:,]|\s*$)|"
                   r"(?<![\w-])[Nn]odes? " + _NODE_NAME + r" (?:not responding|now responding|reason set to|state set to|"
                   r"has low|appears to have|unexpectedly rebooted)|"
                   r"_node_registration node=" + _NODE_NAME + r"(?=[:,]|\s|$)|"
                   r"^(?:\[[^\]\n]{1,40}\] )?srun: error: " + _NODE_NAME + r": tasks? \d{1,7}(?:-\d{1,7})?: |"
                   r"^(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?"
                   r"(?:Z|[+-]\d\d:?\d\d)?) " + _NODE_NAME + r" kernel: ")
_REASON = re.compile(r"(?<![\w])Reason=([^\n\[]{1,64}?) \[[A-Za-z_][\w.-]{0,31}@\d{4}-|"
                     r"^([^\n]{1,20}?) {0,19} [A-Za-z_][\w.-]{0,8}[ ]{1,9}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d [A-Za-z0-9]")
# (abi30) dlopen's refusal of an unversioned library name ('libOpenCL.so: cannot open shared object file', as
# ctypes.CDLL raises it): the name, and its stem for ctypes.util.find_library('OpenCL') (which takes the name without
# 'lib' and '.so', https://docs.python.org/3/library/ctypes.html#ctypes.util.find_library). A versioned name is not read.
# ASCII only, so sh() leaves the name a bare word inside the quotes of a python -c line
_SOLIB = re.compile(r"(?<![\w.+-])(lib[A-Za-z0-9_+-]{1,60}\.so): cannot open shared object file")
_SOSTEM = re.compile(r"(?<![\w.+-])lib([A-Za-z0-9_+-]{1,60})\.so: cannot open shared object file")
_FIND = {"var": _VAR, "option": _OPTION, "ping4": _PING, "hydraarg": _HYDRA_ARG, "node": _NODE, "reason": _REASON,
         "solib": _SOLIB, "sostem": _SOSTEM}


def _word(value):
    """A slot's value as one shell word; one with a blank and a character a shell acts on (a drain reason:
    'x: touch M; #') blank-free and inert (red team 2026-11-28g): the text report wraps prose at blanks, and sh()'s
    'x: touch M; #' split there began a line inside the quote, which ran the value's rest when copied alone
    (docs/security.md 89.). A plain reason ('bad gpu 3 - RMA ticket 1234') stays as sh() quotes it: split, its rest
    leaves the quote open and runs nothing."""
    return inert_word(value) if " " in value and any(c in ACTS for c in value) else sh(value)


def _ping4(value):
    """The 4 bytes of TCPStore's returned ping value as text ('SSH-' for an ssh server's banner), when printable."""
    n = int(value)
    if n >= 1 << 32:
        return None
    raw = n.to_bytes(4, "little")
    if all(0x20 <= b < 0x7f for b in raw):
        return "%s (the bytes %s: that program's first words)" % (sh(raw.decode("ascii")), value)
    return None


def names(lines, kind):
    """The first name of ``kind`` in the lines, in order; None when none holds one."""
    rx = _FIND[kind]
    for line in lines:
        m = rx.search((line or "")[:MAX_LINE])
        v = m and next((g for g in m.groups() if g), None)  # _NODE and _REASON: one group per form
        if v and len(v) <= MAX_NAME:
            return v
    return None


def fill(text, lines):
    """``text`` with its {$kind|words} slots filled from ``lines`` (words where none)."""
    if "{$" not in text:
        return text

    def one(m):
        v = names(lines, m.group(1))
        if v and m.group(1) == "ping4":
            return _ping4(v) or m.group(2)
        return _word(v) if v else m.group(2)

    return SLOT.sub(one, text)


def fill_causes(causes, lines):
    """Fill the slots of every cause's text and fix lines (analyze._finding's causes)."""
    for c in causes:
        # the matched lines, then the cause's own evidence lines (the line that points at it names what it needs)
        own = lines + [ev.get("text") or "" for ev in c.get("evidence") or []][:8]
        c["text"] = fill(c["text"], own)
        c["fix"] = [fill(x, own) for x in c["fix"]]
        c["confirm"] = [fill(x, own) for x in c["confirm"]]


# Python's Lib/enum.py (EnumType.__call__ -> Enum.__new__): ValueError("%r is not a valid %s" % (value, cls.__qualname__))
_ENUM = re.compile(r"(?<![\w.])('[^'\n]{1,80}'|-?\d{1,12}) is not a valid ([A-Za-z_][\w.]{0,79})(?![\w.])")
# glibc's dlerror for a library the loader did not find on its path (elf/dl-load.c: "cannot open shared object file",
# with strerror(ENOENT))
_SONAME = re.compile(r"(?<![\w.+-])(lib[\w+-]{1,60}(?:\.[\w+-]{1,20}){0,2}\.so(?:\.\d{1,6}){0,4}): cannot open shared object file: "
                     r"No such file or directory")

# Python's pickle (Modules/_pickle.c save_global: "Can't pickle %R: attribute lookup %S on %S failed"; 3.12+: "Can't
# pickle local object %R") refuses a function it cannot import by name: a lambda or a function defined inside another
_PICKLE_FN = re.compile(r"Can't pickle (?:<function <lambda>|local object|<function [\w.]{1,80}\.<locals>)")

# Python's OSError for a name without a path (subprocess.Popen's _execute_child raises it with the program's name
# when execvp finds no such program on PATH; open() with a relative name in the working directory)
_BARE_ENOENT = re.compile(r"FileNotFoundError: \[Errno 2\] No such file or directory: '([a-z][a-z0-9_+-]{0,30})'")

# torch/_utils.py _get_device_index: "Expected a torch.device with a specified index or an integer, but got:{device}"
_DEVICE_NONE = re.compile(r"Expected a torch\.device with a specified index or an integer, but got: ?None\b")


MAX_SHOWN_VALUES = 16  # an Enum's values listed in the fix line


def _enum_fix(value, cls, lines):
    """The fix line for "'value' is not a valid Cls": the closest of the class's values when the training libraries
    define it (generated/enum_values.json, tools/gen_enum_values.py, from their sources), else how to list them."""
    import difflib

    from gpudoctor.explain.knowledge import generated_table

    name = cls.rsplit(".", 1)[-1]
    defs = ((generated_table("enum_values") or {}).get("classes") or {}).get(name) or []
    low = " ".join((x or "")[:MAX_LINE] for x in lines).lower()
    d = next((d for d in defs if isinstance(d, dict) and str(d.get("package", "")).lower() in low), None) or \
        (defs[0] if len(defs) == 1 and isinstance(defs[0], dict) else None)
    members = [m for m in (d or {}).get("members") or () if isinstance(m, list) and len(m) == 2]
    if not members:
        return ("the message says %s is not one of %s's values: check its spelling (a typo, the case, a value of "
                "another release) where the config file or option sets it; list(%s) in that library lists the "
                "accepted ones" % (sh(value), sh(cls), sh(cls)))
    values = [str(v) for _n, v in members]
    by_low = {}
    for v in values:
        by_low.setdefault(v.lower(), v)
    named = next((str(v) for n, v in members if str(n) == value and str(v) != value), None)
    close = [by_low[c] for c in difflib.get_close_matches(value.lower(), list(by_low), n=3, cutoff=0.6)]
    shown = ", ".join(values[:MAX_SHOWN_VALUES]) + (" ..." if len(values) > MAX_SHOWN_VALUES else "")
    where = "%s %s, %s" % (d.get("package"), d.get("version"), d.get("module"))
    if named:
        head = "the message says %s is not one of %s's values: it is the name of a member; the value to write is %s" \
            % (sh(value), sh(cls), sh(named))
    elif close:
        head = "the message says %s is not one of %s's values: did you mean %s?" % (
            sh(value), sh(cls), " or ".join(map(sh, close)))
    else:
        head = "the message says %s is not one of %s's values" % (sh(value), sh(cls))
    return "%s (its values in %s: %s); change it where the config file or option sets it" % (head, where, shown)


def _values_in_exception(lines):
    """Fix lines for values the exception's message prints that name the change: an enum value that is not one of
    its type's (a typo in a config file or option), a pickled lambda or local function, a device index that is None,
    a program or a shared library not found."""
    out = []
    for line in lines:
        line = (line or "")[:MAX_LINE]
        m = _ENUM.search(line)
        if m:
            out.append(_enum_fix(m.group(1).strip("'"), m.group(2), lines))
        if _PICKLE_FN.search(line):
            out.append("pickle stores a function by the name it is imported under, so a lambda or a function defined "
                       "inside another cannot be sent to another process (torch.distributed's *_object collectives, "
                       "DataLoader workers, mp.spawn): define it with def at the top level of a module, "
                       "or send data instead of the function (Python docs: what can be pickled)")
        if _DEVICE_NONE.search(line):
            out.append("the device passed is None: the expression that gives the GPU index (a helper that picks a free "
                       "GPU, an argument or environment variable that is not set) returned None; pass an explicit device "
                       "index: torch.cuda.set_device(int(os.environ['LOCAL_RANK'])) under a launcher, "
                       "torch.cuda.set_device(0) on one GPU")
        m = _BARE_ENOENT.search(line)
        if m:
            name = sh(m.group(1))
            out.append("%s is a name without a path that was found neither on PATH nor in the working directory: if "
                       "the code runs it as a program (a subprocess), install the package that provides it or "
                       "add its directory to PATH on the node or in the image that runs the job (which %s); if it is a "
                       "file, give its full path" % (name, name))
        m = _SONAME.search(line)
        if m:
            so = sh(m.group(1))
            out.append("the loader found no %s: install the package that provides it in the environment (image, venv, "
                       "node) that runs the job (Debian/Ubuntu: apt-file search %s; RHEL: dnf provides '*/%s'), or add "
                       "the directory that holds it to LD_LIBRARY_PATH" % (so, so, so))
        if out:
            break
    return out


def _values_first(f):
    """Any structural root (its family read from an exception's shape): the values its message prints that name the
    change (_values_in_exception) lead its first cause's fixes, after the user's own frame."""
    if not f.get("causes"):
        return
    lines = [m.get("text") or "" for m in f.get("matches") or []][:3]
    fx = f["causes"][0]["fix"]
    at = 1 if fx and fx[0].startswith("open ") else 0
    for x in reversed(_values_in_exception(lines)):
        if x not in fx:
            fx.insert(at, x)


def _named_in_exception(f):
    """A structural answer read from an exception (code.exception, <lib>.library_error): the environment variables
    and --options its message names become its first fix line (the message's own advice is advice.py's)."""
    lines = [m.get("text") or "" for m in f.get("matches") or []][:3]
    var, opt = names(lines, "var"), names(lines, "option")
    said = [x for x in (var and "the variable %s" % sh(var), opt and "the option %s" % sh(opt)) if x]
    if not said or not f.get("causes"):
        return
    how = []
    if var:
        how.append("env | grep %s on the node that raised it (and what the launcher exports)" % sh(var))
    if opt:
        how.append("the command line that passed %s" % sh(opt))
    fx = f["causes"][0]["fix"]
    # after the user's own frame (pyanswer's 'open FILE (line N)') when it leads
    fx.insert(1 if fx and fx[0].startswith("open ") else 0, "the message names %s: check the value it had (%s) against what the code that "
                                    "raised it accepts" % (" and ".join(said), "; ".join(how)))


def finish(findings, family_note):
    """After the answer's notes are in place: how sure a family answer with evidence is (sure), and the names an
    exception read from its shape holds (its first fix)."""
    sure(findings, family_note)
    for f in findings:
        if f.get("role") == "root":
            _demangled(f)
        if f.get("role") == "root" and f.get("confidence") == "structural":
            _values_first(f)
            if f["id"] == "code.exception" or f["id"].endswith(".library_error"):
                _named_in_exception(f)


def _demangled(f):
    """(abi30) A root whose matched line is ld.so's 'undefined symbol: _Z...': the C++ name c++filt reads, and the
    string ABI it takes (demangle.py), as a note after how sure it is."""
    lines = [m.get("text") or "" for m in f.get("matches") or []][:3]
    if not any("undefined symbol: _Z" in x for x in lines):
        return
    from gpudoctor.explain import demangle

    said = demangle.note(lines)
    if said and said not in f["notes"]:
        f["notes"].insert(1 if f["notes"] and f["notes"][0].startswith("How sure") else 0, said)


def sure(findings, family_note):
    """A root family answer whose first cause has its evidence in the log: say so (how sure:
    medium), replacing the family note ``family_note``."""
    for f in findings:
        if f.get("role") != "root" or f.get("confidence") != "family" or not f.get("causes"):
            continue
        ev = f["causes"][0].get("evidence") or []
        if not ev or family_note not in f["notes"]:
            continue
        others = len(f["causes"]) - 1
        f["notes"][f["notes"].index(family_note)] = (
            "How sure: medium. The family is certain from the message; line %d ('%s') points at the first cause "
            "below%s" % (ev[0]["line"], clip(ev[0]["text"], 160),
                         "; if not that, the other %s in order, each with what tells it apart." % (
                             "one" if others == 1 else "%d" % others) if others else "."))

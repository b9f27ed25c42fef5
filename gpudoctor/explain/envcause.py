"""A setting the text shows, named as the cause of the error it explains (issue 18, settings19: "name the fix").

settings.py joins a setting to a symptom the user tells in words. This module joins a setting the text shows to the
ERROR explain already answered, and gives the concrete action ("unset NCCL_COMM_BLOCKING", "CUDA_VISIBLE_DEVICES=0,1",
"dos2unix machines", "export DATA_ROOT"). It never makes a root: a healthy log prints its environment too, so a
setting is only ever a cause of an error found some other way.

Four readings, each from the text's own evidence and a source's documented semantics:

- a documented variable set to a value other than its documented default, where the root is of the variable's
  subsystem (RULES, keyed by prefix, from the documents that define the variables): NCCL's environment page
  (gpudoctor/data/nccl_env.json, tools/gen_nccl_env.py over NCCL's env.rst and its source: which file reads each
  variable, the page's part, its stated default, the one value that changes it). The cause says "X is set to V
  (default D): unset X, or set X=D", quotes the line, and ranks:
    * first, when NCCL's own WARN line in the text was printed from a source file that reads the variable (the
      'init.cc:381 NCCL WARN ...' prefix, src/include/debug.h: "%s:%d NCCL WARN" with __FILE__/__LINE__);
    * else after the causes the text's own lines already point to (evidence, computed), before the entry's generic
      ones, for a variable the page lists under "Debugging" ("forcing them to a particular value will prevent NCCL
      from selecting the best setting automatically ... should not be used in production nor retained in scripts");
    * else last, for a "System configuration" variable (an interface, a device list: legitimately set).
  NCCL's logging variables (NCCL_DEBUG and the rest of the debug-output group) change what is printed, nothing else.
- CUDA_VISIBLE_DEVICES against its documented grammar (CUDA C++ Programming Guide, "CUDA Environment Variables": a
  comma-separated sequence of GPU identifiers, integer indices or GPU-/MIG- UUID strings; "If one of the indices is
  invalid, only the devices whose index precedes the invalid index are visible"): an empty value hides every GPU, a
  list with another separator ('0;1', '0 1', '0:1') or a word that is no identifier stops where it stops being one.
  The cause says so, and gives the well-formed form (the same integers joined by commas) or unset.
- carriage returns in what the error quotes: bash's $'...\\r' quoting of a word (its "command not found" for a line
  of a script with Windows line ends), '^M' beside a word ("/bin/bash^M: bad interpreter"), a quoted value ending in
  '\\r' ('node1\\r'), or an error line that starts with ': ' (a tool's "%s: %s" whose first value ended in a carriage
  return, so the terminal or the log split the line there: pdsh's "node1\\r: hostname contains invalid characters"):
  the file the value came from has CRLF line ends: dos2unix FILE (or sed -i 's/\\r$//' FILE).
- a shell variable set without export in a script the text prints (a bare 'VAR=value' line, no 'export VAR', no
  'set -a'), then an error that the process found no VAR (os.environ's KeyError: 'VAR', OmegaConf's oc.env
  "Environment variable 'VAR' not found", torch's env:// "environment variable VAR expected, but not set"): bash
  passes only exported variables to the commands it starts (bash(1), ENVIRONMENT), so the launcher and its ranks never
  had it: export VAR. The launcher the script runs adds its own propagation rule (torchrun's workers inherit the
  agent's environment; Open MPI's mpirun passes a variable to remote ranks only with -x VAR; DeepSpeed's multi-node
  runner only what .deepspeed_env lists; pdsh / ssh nothing of the local environment).

record() is called by settings.record (the same scan pattern: its needles include this module's keys and NCCL's WARN
tag) and by launchctx (the script anchors and the missing-variable errors, role "paste"); judge() runs after
symptoms.judge.
"""

import re

MAX_KEPT = 64  # settings kept per scan
MAX_WARN_FILES = 16
MAX_SCRIPT = 60  # lines of a printed script read after its anchor
MAX_ERR = 8

NCCL_ENV_PAGE = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html"
CUDA_ENV_PAGE = "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#cuda-environment-variables"
BASH_ENV = "https://www.gnu.org/software/bash/manual/bash.html#Environment"
TORCH_NCCL_PAGE = "https://pytorch.org/docs/stable/torch_nccl_environment_variables.html"

# the rules, one per subsystem: the roots a variable of it explains (a root's id or family starting with one of
# `roots`; those of `roots_if_text` only where the text shows the subsystem's own error line too), the table the
# variables and their defaults come from, and the variables that change only what is printed. NCCL's page: "NCCL_DEBUG
# ... controls the debug information that is displayed from NCCL"; NCCL_DEBUG_SUBSYS / _FILE / _TIMESTAMP_* choose
# what and where. torch's TORCHDYNAMO_VERBOSE / TORCH_LOGS-like switches: their config comment says "[@compile_ignored:
# debug]" and a name of printing (VERBOSE, LOG, PRINT, TRACE, DEBUG_DIR).
RULES = {
    "nccl": {"table": "nccl_env (tools/gen_nccl_env.py: NCCL's env.rst and source)", "source": NCCL_ENV_PAGE,
             "roots": ("nccl.",), "roots_if_text": ("torch.c10d", "torch.distributed", "cascade.", "elastic."),
             "text": "NCCL",
             "print_only": ("NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE", "NCCL_DEBUG_TIMESTAMP_FORMAT",
                            "NCCL_DEBUG_TIMESTAMP_LEVELS", "NCCL_WARN_ENABLE_DEBUG_INFO")},
    "torch": {"table": "torch_switches (tools/gen_torch_switches.py: torch's _dynamo / _inductor / compiler config)",
              "roots": ("compile.", "torch.compile", "triton.", "torch.dynamo", "torch.inductor"), "roots_if_text": (),
              "print_only": ()},
    "cuda": {"table": "runtime_switches (tools/gen_runtime_switches.py: the CUDA Programming Guide's environment "
                      "variables)", "roots": ("cuda.", "cudalib.", "gpu."), "roots_if_text": (), "print_only": ()},
    "triton": {"table": "runtime_switches (tools/gen_runtime_switches.py: Triton's knobs.py and README)",
               "roots": ("triton.", "compile.", "torch.compile"), "roots_if_text": (), "print_only": ()},
    "jax": {"table": "runtime_switches (tools/gen_runtime_switches.py: JAX's config.py and GPU memory page)",
            "roots": ("jax.", "xla."), "roots_if_text": (), "print_only": ()},
}
_PRINTING = re.compile(r"VERBOSE|_LOGS?\b|_LOG_|PRINT|_TRACE|DEBUG_DIR|DUMP")
# the roots a malformed CUDA_VISIBLE_DEVICES explains: no GPU, an ordinal past the visible ones, a count of them
CVD_ROOTS = ("cuda.", "gpu.", "launcher.nproc_gpus", "torch.cuda", "launcher.")

_vars = None


def _literal(d, read):
    """A default as the table writes it, as a value: '"0"' -> '0', False -> '0', None / no default -> '' (unset);
    None where it is an expression (is_fbcode(), 60 * 5) or not stated."""
    d = (d or "").strip()
    if not d:
        return "" if read == "os.environ" else None
    if d in ("None",):
        return ""
    if d in ("False", "True"):
        return "0" if d == "False" else "1"
    m = re.fullmatch(r"\"([^\"]{0,80})\"|'([^']{0,80})'|(-?\d{1,12}(?:\.\d{1,6})?)|([A-Za-z_][A-Za-z0-9_]{0,40})", d)
    if not m:
        return None
    if m.group(4) is not None and read != "env":
        return None  # a name (layout_opt_default): the value of another setting
    return next(g for g in m.groups() if g is not None)


def variables():
    """{NAME: {sub, default ('' unset, None unknown), sets, part, says, source, config, files}} from the three tables."""
    global _vars
    if _vars is not None:
        return _vars
    from gpudoctor import data

    out = {}

    def load(name):
        try:
            return data.load(name) or {}
        except (OSError, ValueError):
            return {}

    for name, e in (load("nccl_env").get("names") or {}).items():
        if not e.get("doc_part") or name in RULES["nccl"]["print_only"]:
            continue
        d = e.get("doc_default")
        out[name] = {"sub": "nccl", "default": None if not d or d == "varies" else "" if d == "unset" else d,
                     "varies": d == "varies", "sets": e.get("doc_sets"), "part": e.get("doc_part"),
                     "says": e.get("doc_says", ""), "config": None,
                     "files": {f.rsplit("/", 1)[-1] for f in e.get("files", ())},
                     "source": "%s#%s" % (NCCL_ENV_PAGE, name.lower().replace("_", "-"))}
    torch_at = ((load("nccl_env").get("torch") or {}).get("version") or "")
    for name, e in (load("nccl_env").get("names") or {}).items():
        # the variables torch's ProcessGroupNCCL reads (nccl_env.json's torch part, read from a torch wheel): no
        # default in the table (they are C++ reads); a cause where the error names one, else after the others
        if "torch" not in (e.get("read_by") or ()) or name in out or name.endswith("_HOME") or _PRINTING.search(name):
            continue
        out[name] = {"sub": "nccl", "default": None, "sets": None, "part": "torch", "config": None, "files": set(),
                     "says": "torch's ProcessGroupNCCL reads it (torch %s)" % torch_at if torch_at else "",
                     "source": TORCH_NCCL_PAGE}
    for site in load("torch_switches").get("sites", ()):
        v = site.get("var") or ""
        if site.get("read") not in ("os.environ", "Config(env_name_force)", "Config(env_name_default)") or \
                not re.fullmatch(r"[A-Z][A-Z0-9_]{2,80}", v) or v in out:
            continue
        debug = "debug]" in (site.get("comment") or "") and _PRINTING.search(v)
        if debug:
            continue
        out[v] = {"sub": "torch", "default": _literal(site.get("default"), site["read"]), "sets": None, "part": None,
                  "says": (site.get("comment") or "").split("[@")[0].strip()[:300], "config": site.get("config"),
                  "files": set(), "source": site.get("source", ""), "where": site.get("where")}
    for site in load("runtime_switches").get("sites", ()):
        v = site.get("var") or ""
        if site.get("read") != "env" or not re.fullmatch(r"[A-Z][A-Z0-9_]{2,80}", v) or v in out or \
                site.get("src") not in RULES or _PRINTING.search(v):
            continue
        out[v] = {"sub": site["src"], "default": _literal(site.get("default"), "env"), "sets": None, "part": None,
                  "says": site.get("says", "")[:300], "config": site.get("config") or None, "files": set(),
                  "source": site.get("source", ""), "values": site.get("values") or []}
    out.pop("CUDA_VISIBLE_DEVICES", None)  # (its grammar is read on its own: _cvd)
    # a variable a hand-written row of settings.toml judges: the row's condition names the values that cost, from the
    # variable's own docs (TORCH_NCCL_ASYNC_ERROR_HANDLING: 0 keeps a stuck collective from failing; 3, the default, and
    # 1 do not): a value no such row's condition holds is no cause here either
    from gpudoctor.explain import settings

    for r in settings.table():
        if not r.get("generated"):
            for k in r["keys"]:
                if k.upper() in out:
                    out[k.upper()].setdefault("costs", []).append(settings._cond(r["when"]))
    _vars = out
    return out


_keys = None


def keys():
    """The variables read (lower case, longest first): the tables' variables, and CUDA_VISIBLE_DEVICES."""
    global _keys
    if _keys is None:
        _keys = sorted({n.lower() for n in variables()} | {"cuda_visible_devices"}, key=len, reverse=True)
    return _keys


# the names on a line, looked up in keys() (every key is a NAME_WITH_UNDERSCORES): one pass over the line, not one
# per key (an alternation of 420 keys cost 0.35 ms a line on the benchmark's 'distinct' shape)
_NAME = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z][A-Za-z0-9]{0,40}_[A-Za-z0-9_]{1,100}")
_keyset = None


def needles():
    return sorted(set(keys()) | {"ncclwarn"})


# ------------------------------------------------------------------ reading (during the scan)

class State(object):
    def __init__(self):
        self.env = []  # (line, KEY, value, form, text)
        self.warn_files = {}  # 'init.cc' -> (line, text) of NCCL's WARN lines
        self.assigned = {}  # VAR -> (line, text) of a bare 'VAR=value' line of a printed script
        self.exported = set()  # VARs exported (or all, '*' for set -a)
        self.prefixed = set()  # VARs put in one command's environment ('A=1 cmd')
        self.missing = []  # (line, VAR, text) of the errors that say the process had no VAR
        self.launch = {}  # launcher -> (line, text) from a printed script or command line
        self.cmds = []  # (line, text) of command lines that read hosts or a script from a file
        self.cr = None  # (line, text, 'inside' / 'end', command line, its text): a raw carriage return after a command


def _state(scan):
    st = getattr(scan, "envcause", None)
    if st is None:
        st = scan.envcause = State()
    return st


_WARN_FILE = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]{0,60}\.(?:cc|cu|h|c|cpp)):\d{1,6} NCCL WARN ")
_CVD_EMPTY = re.compile(r"(?:^|[\s;&(])(?:export[ \t]{1,4})?CUDA_VISIBLE_DEVICES=(?:\"\"|''|(?=[ \t;&|)]|$))")


def record(scan, line, text, win=None):
    """A line the settings pattern handed over: this module's variables on it, and NCCL's WARN line's file."""
    st = _state(scan)
    if win is not None and "name:" in text and len(st.env) < MAX_KEPT:
        # a Kubernetes container's env list (core/v1 EnvVar): '- name: NCCL_P2P_DISABLE' then '  value: "1"'
        from gpudoctor.explain.settings import _K8S_NAME, _K8S_VALUE

        m = _K8S_NAME.match(text)
        if m and m.group(1).lower() in keys():
            v = _K8S_VALUE.match(win.text(1))
            if v:
                st.env.append((line, m.group(1).upper(), v.group(1) or v.group(2) or v.group(3) or "", "env",
                               text.strip()[:400]))
    if "NCCL WARN" in text and len(st.warn_files) < MAX_WARN_FILES:
        m = _WARN_FILE.search(text)
        if m:
            st.warn_files.setdefault(m.group(1), (line, text.strip()[:400]))
    if len(st.env) >= MAX_KEPT:
        return
    from gpudoctor.explain.settings import read_line

    global _keyset
    if _keyset is None:
        _keyset = frozenset(keys())
    ks = sorted({t for t in (w.lower() for w in _NAME.findall(text)) if t in _keyset}, key=len, reverse=True)
    if not ks:
        return
    for key, value, form, i in read_line(text, ks):
        if form not in ("env", "nccl"):
            continue  # (a repr, a config print, a flag: not the variable's value in the environment)
        if form == "env" and not _setting_at(text, i):
            continue  # advice in a message ('consider passing CUDA_LAUNCH_BLOCKING=1'), not the job's setting
        st.env.append((line, key.upper(), value, form, text.strip()[:400]))
    if "cuda_visible_devices" in ks:
        m = _CVD_EMPTY.search(text)
        if m and _setting_at(text, text.find("CUDA_VISIBLE_DEVICES", m.start())):
            st.env.append((line, "CUDA_VISIBLE_DEVICES", "", "env", text.strip()[:400]))


# what may stand before K=V on a line that sets it: a prompt, `set -x`'s '+ ', a rank tag, export / env / declare -x /
# Dockerfile ENV, other assignments of the same command ('NCCL_DEBUG=WARN NCCL_X=0 torchrun ...'), mpirun's -x,
# docker's -e / --env, srun's --export=...,; or os.environ[...] / setdefault / putenv (read_line's env calls). Anything
# else (a sentence: 'For debugging consider passing CUDA_LAUNCH_BLOCKING=1', '(run with NCCL_DEBUG=WARN for
# details)') is a message's advice, not the job's setting.
_SHELL_BEFORE = re.compile(
    r"^[ \t]{0,8}(?:\[[^\]\n]{0,40}\]:?[ \t]{0,2})?(?:[$#%>][ \t]{1,4}|\+{1,3}[ \t]{1,2})?"
    r"(?:(?:export|env|sudo|declare[ \t]{1,4}-x|ENV|local|readonly)[ \t]{1,4})?"
    r"(?:[A-Za-z_][A-Za-z0-9_]{0,60}=(?:\"[^\"\n]{0,200}\"|'[^'\n]{0,200}'|[^\s\"']{0,200})[ \t]{1,4}){0,12}[\"']?$|"
    r"(?:^|[ \t])(?:-x|-e|--env|--export(?:=|[ \t]{1,4})(?:[^\s,]{0,200},){0,12})[ \t]{0,2}$|"
    r"(?:environ[ \t]{0,2}\[[ \t]{0,2}|environ\.setdefault\([ \t]{0,2}|putenv\([ \t]{0,2})[\"']$")


def _setting_at(text, i):
    return i >= 0 and bool(_SHELL_BEFORE.search(text[max(0, i - 400):i]))


# a printed script (its shebang, `cat FILE` after a prompt, a batch directive) and the errors that name a variable
# the process did not have
_SCRIPT = r"^#!\s{0,2}/(?:usr/)?bin/(?:env[ \t]{1,4})?(?:ba|z|k)?sh\b|^[$#%>][ \t]{1,4}cat[ \t]{1,4}[^\s|;&<>]{1,200}"
# a command line after a prompt that reads a list of hosts or a script from a file (the file a carriage return may come
# from): pdsh -w ^FILE, --hostfile / -hostfile / --machinefile / -f / --nodefile FILE, sbatch / bash / sh FILE
# ... or a command line typed after a prompt that sets a variable as a statement of its own ('$ DATA_ROOT=/x; mpirun
# ...', '$ export A=1 && torchrun ...')
_CMD = (r"^[$#%>][ \t]{1,4}[^\n]{0,200}?(?:\bpdsh\b|\bclush\b|hostfile|machinefile|nodefile|\bsbatch[ \t]|"
        r"[A-Za-z_][A-Za-z0-9_]{0,60}=[^\s;&|]{0,200}[ \t]{0,4}(?:;|&&))")
# the errors that say a process had no VAR: os.environ's KeyError, OmegaConf's oc.env resolver
# (omegaconf/resolvers/oc/__init__.py: "Environment variable '{key}' not found"), torch's env:// rendezvous
# (_env_error), Open MPI's mpirun for a -x VAR its own environment lacks (orte/prrte schizo: 'Warning: could not find
# environment variable "%s"')
_MISSING = (r"\bKeyError: ['\"](?P<k>[A-Za-z_][A-Za-z0-9_]{1,60})['\"]|Environment variable '(?P<o>[A-Za-z_][A-Za-z0-9_]"
            r"{1,60})' not found|environment variable (?P<e>[A-Z][A-Z0-9_]{1,60}) expected, but not set|"
            r"could not find environment variable \"(?P<m>[A-Za-z_][A-Za-z0-9_]{1,60})\"")
_ASSIGN = re.compile(r"^[ \t]{0,8}(?:[$#%>][ \t]{1,4})?([A-Za-z_][A-Za-z0-9_]{0,60})=(?:\"[^\"\n]{0,300}\"|'[^'\n]{0,300}'|"
                     r"[^\s;&|'\"]{0,300})[ \t]{0,8}(?:#[^\n]{0,200})?$")
_EXPORT = re.compile(r"^[ \t]{0,8}(?:[$#%>][ \t]{1,4})?(?:export|declare[ \t]{1,4}-[a-zA-Z]{0,4}x[a-zA-Z]{0,4})[ \t]{1,4}"
                     r"([A-Za-z_][A-Za-z0-9_ \t=\"'/.:,${}-]{0,300})")
_SET_A = re.compile(r"^[ \t]{0,8}(?:set[ \t]{1,4}-[a-zA-Z]{0,6}a|set[ \t]{1,4}-o[ \t]{1,4}allexport)\b")
# the launchers whose propagation rule the answer adds (a word of the script's command line)
_LAUNCHERS = (("torchrun", re.compile(r"(?:^|[\s/])torchrun\b|-m[ \t]{1,4}torch\.distributed\.(?:run|launch)\b")),
              ("mpirun", re.compile(r"(?:^|[\s/])(?:mpirun|mpiexec|orterun)\b")),
              ("deepspeed", re.compile(r"(?:^|[\s/])deepspeed[ \t]{1,4}(?:--|\S{1,200}\.py)")),
              ("pdsh", re.compile(r"(?:^|[\s/])(?:pdsh|clush)\b")),
              ("srun", re.compile(r"(?:^|[\s/])srun\b")))


# the launchers whose prompt line's statements are read ('$ A=1; mpirun ...'): names that are rare outside a command
# line. 'python' (every traceback line of a Python path), 'deepspeed' and 'accelerate' (their modules' paths) made
# a candidate of line after line (100 MB benchmark: 11.6 -> 24.5 s CPU); ';python' is no needle either, the
# knowledge cuts a needle whose first byte no hand-written needle starts with (Knowledge.__init__)
_STATEMENT_CMDS = ("mpirun", "mpiexec", "torchrun", "srun", "horovodrun", "export")


def patterns(entry):
    from gpudoctor.explain.knowledge import Pattern

    return [Pattern(entry, "paste", _SCRIPT, 0, site={"class": "envc_script", "id": "envcause-script"},
                    needles=["#!/bin/", "#!/usr/bin/", "$cat", "#cat", "%cat", ">cat"]),
            Pattern(entry, "paste", _CMD, 0, site={"class": "envc_cmd", "id": "envcause-cmd"},
                    needles=["pdsh", "clush", "hostfile", "machinefile", "nodefile", "sbatch"] + list(_STATEMENT_CMDS)),
            Pattern(entry, "paste", _MISSING, 0, site={"class": "envc_missing", "id": "envcause-missing"},
                    needles=["keyerror:", "environmentvariable'", "expected,butnotset", "couldnotfindenvironmentvariable"])]


def record_paste(scan, hit, win):
    st = _state(scan)
    cls = hit.pattern.site["class"]
    if cls == "envc_missing":
        if len(st.missing) < MAX_ERR:
            m = re.search(_MISSING, hit.text[:600])
            if m:
                st.missing.append((hit.line, m.group("k") or m.group("o") or m.group("e") or m.group("m"),
                                   hit.text.strip()[:400]))
        return
    if cls == "envc_cmd":
        if len(st.cmds) < MAX_ERR:
            st.cmds.append((hit.line, hit.text.strip()[:400]))
        _statements(st, hit.line, hit.text[:2000])
        _cr_output(st, hit, win)
        return
    # a printed script or file: its lines up to the next prompt (or MAX_SCRIPT lines)
    head = hit.text.strip()
    shell = head.startswith("#!") or bool(re.search(r"\.(?:sh|bash|slurm|sbatch|job)\b", head))
    if head[:1] in "$#%>" and not head.startswith("#!"):
        _cr_output(st, hit, win, printed=True)
    for i in range(1 if not head.startswith("#!") else 0, MAX_SCRIPT):
        raw = win.raw(i)
        if i and not raw and not win.raw(i + 1):
            break
        t = win.text(i)[:600] if i else hit.text[:600]
        if i and re.match(r"^[$%>][ \t]", t):
            break
        if i == 1 and t.startswith("#!"):
            shell = True
        if not shell:
            continue
        if _SET_A.match(t):
            st.exported.add("*")
            continue
        e = _EXPORT.match(t)
        if e:
            for w in re.findall(r"(?:^|\s)([A-Za-z_][A-Za-z0-9_]{0,60})(?==|\s|$)", e.group(1)):
                st.exported.add(w)
            continue
        a = _ASSIGN.match(t)
        if a and len(st.assigned) < MAX_KEPT and not t.lstrip().startswith("#"):
            st.assigned.setdefault(a.group(1), (hit.line + i, t.strip()[:400],
                                                _WORD_ASSIGN.search(t).group(0)))
            continue
        for who, rx in _LAUNCHERS:
            if who not in st.launch and rx.search(t) and not t.lstrip().startswith("#!"):
                st.launch[who] = (hit.line + i, t.strip()[:400])


_STATEMENT = re.compile(r"[ \t]{0,8}(?:;|&&|\|\|)[ \t]{0,8}")
_WORD_ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]{0,60})=(?:\"[^\"\n]{0,300}\"|'[^'\n]{0,300}'|[^\s;&|'\"]{0,300})")


def _statements(st, line, text):
    """A command line's statements (bash(1), SIMPLE COMMAND EXPANSION): 'A=1' alone sets a shell variable, not passed
    to the commands after it; 'export A=1' / 'export A' exports it; 'A=1 cmd' puts A in cmd's environment only."""
    body = re.sub(r"^[$#%>][ \t]{1,4}", "", text.strip(), count=1)
    for part in _STATEMENT.split(body)[:16]:
        part = part.strip()
        if part.startswith("export ") or part.startswith("declare -x "):
            for w in re.findall(r"(?:^|\s)([A-Za-z_][A-Za-z0-9_]{0,60})(?==|\s|$)", part.split(None, 1)[1]):
                st.exported.add(w)
            continue
        pos, names = 0, []
        while True:
            m = _WORD_ASSIGN.match(part, pos)
            if not m:
                break
            names.append(m.group(1))
            pos = m.end()
            while pos < len(part) and part[pos] in " \t":
                pos += 1
        if names and pos >= len(part) and len(st.assigned) < MAX_KEPT:  # assignments alone: shell variables
            for m in _WORD_ASSIGN.finditer(part):
                st.assigned.setdefault(m.group(1), (line, text.strip()[:400], m.group(0)))
        elif names:  # 'A=1 cmd': in cmd's environment
            st.prefixed.update(names)
        for who, rx in _LAUNCHERS:
            if who not in st.launch and rx.search(" " + part):
                st.launch[who] = (line, text.strip()[:400])


# a carriage return inside a line of a command's output, before ': ' or a quote (the scan's text has it as a blank:
# scan._decode joins a line's '\r' parts): the value printed before it ended in '\r'
_RAW_CR = re.compile(rb"[^\s]\r(?:: |['\"])")


def _cr_output(st, hit, win, printed=False):
    """The raw lines after a command line: a carriage return inside one (a value that ended in it), or, for a file
    printed with cat, at the end of its lines while the prompt line itself has none (the file has CRLF ends, the
    log does not)."""
    if st.cr is not None or win.raw(0).endswith(b"\r"):
        return
    ends = 0
    for i in range(1, 40):
        raw = win.raw(i)
        if not raw:
            if not win.raw(i + 1):
                break
            continue
        if raw[:2] in (b"$ ", b"% ", b"> ") and i > 1:
            break
        if _RAW_CR.search(raw[:600]):
            st.cr = (hit.line + i, win.text(i)[:400].strip(), "inside", hit.line, hit.text.strip()[:400])
            return
        if printed and raw.endswith(b"\r"):
            ends += 1
            if ends >= 1 and st.cr is None:
                st.cr = (hit.line + i, win.text(i)[:400].strip(), "end", hit.line, hit.text.strip()[:400])
                return


# ------------------------------------------------------------------ the join (after the answers)

def _of(root, prefixes):
    ids = (root.get("id") or "", root.get("family") or "")
    return any(x.startswith(p) for x in ids for p in prefixes)


def _num(v):
    try:
        return float(v)
    except ValueError:
        return None


def _insert_at(causes):
    """After the leading causes the text's own lines point to (their evidence, a computed fix, a row's cause)."""
    n = 0
    while n < len(causes) and (causes[n].get("evidence") or causes[n].get("computed") or
                               causes[n].get("static_rank") == 0):
        n += 1
    return n


def _cause(text, fix, ev):
    return {"text": text, "checks": [], "confirm": [], "fix": fix, "exports": {}, "static_rank": 0,
            "computed": None, "evidence": [{"line": ln, "text": t} for ln, t in ev], "from_env": True}


def judge(result, scan, kb):
    """Add the causes this text's settings give to the root. Returns the number added."""
    findings = result.get("findings") or []
    root = findings[0] if findings else None
    if root is None or root.get("from_words") or root.get("from_settings") or \
            result.get("verdict") not in ("root_cause", "likely_cause"):
        return 0
    st = getattr(scan, "envcause", None) or State()
    added = 0
    found = _named_switch(root)  # (the error's own words: a likely cause's too)
    if result.get("verdict") == "root_cause":
        found += _crlf(root, st) + _not_exported(st, root) + _cvd(st, root) + _switches(st, root)
    for where, c in found:
        causes = root["causes"]
        key = c.pop("key", None)
        if any(x.get("text") == c["text"] for x in causes) or _said_already(causes, c, key):
            continue
        i = 0 if where == "first" else len(causes) if where == "last" else _insert_at(causes)
        causes.insert(i, c)
        added += 1
    return added


_flags = None


def _flag_table():
    """{CONFIG NAME or VARIABLE: site} of runtime_switches' JAX / Triton / CUDA settings read from the environment or
    as a config flag (JAX reads each flag of jax/_src/config.py from JAX_<NAME> too)."""
    global _flags
    if _flags is None:
        from gpudoctor import data

        try:
            sites = data.load("runtime_switches").get("sites", ())
        except (OSError, ValueError):
            sites = ()
        _flags = {}
        for site in sites:
            v = site.get("var") or ""
            if site.get("read") not in ("env", "flag") or not re.fullmatch(r"[A-Z][A-Z0-9_]{2,80}", v) or \
                    _PRINTING.search(v) or site.get("src") not in RULES:
                continue
            _flags.setdefault(v, site)
            if site.get("config"):
                _flags.setdefault(site["config"], site)
    return _flags


# the error says which value a documented setting has ("with the config option jax_numpy_rank_promotion='raise'",
# jax/_src/numpy/util.py), or tells to set it back to its documented default ("(set JAX_PLATFORMS='' to
# automatically choose an available backend)", jax/_src/xla_bridge.py)
_NAMED_VALUE = re.compile(r"(?<![\w.])(?P<name>[A-Za-z][A-Za-z0-9_]{2,80}) ?= ?(?P<q>['\"])(?P<v>[^'\"\n]{0,60})(?P=q)")
_SET_TO = re.compile(r"\bset (?:the (?:environment variable|config option) )?$", re.I)


def _named_switch(root):
    """(fix22) A documented setting the root's own error line names, at a value other than its documented default
    (or with advice to set it back to that default): 'unset JAX_NUMPY_RANK_PROMOTION, or set it to allow (its
    documented default)'. Only for roots of the setting's subsystem (RULES)."""
    flags = _flag_table()
    out = []
    for m in root.get("matches") or []:
        text = (m.get("text") or "")[:2000]
        for g in _NAMED_VALUE.finditer(text):
            site = flags.get(g.group("name"))
            if site is None or not _of(root, RULES[site["src"]]["roots"]):
                continue
            var, value = site["var"], g.group("v")
            d = _literal(site.get("default"), "env")
            d = "" if d is None and site.get("kind_of", "").startswith("optional") else d
            if d is None:
                continue
            advised = bool(_SET_TO.search(text[max(0, g.start() - 40):g.start()]))
            default = (_same(value, d) if value else False) if d else not value
            if advised != default:
                # advice to set it to another value (a debugging switch: not this setting's fault), or a value said
                # to be the default (nothing to change)
                continue
            back = (", or set it to %s, its documented default" % d) if d else " (its documented default is unset)"
            now = "the error says to set it to its default" if advised else "the error says it is %s" % value
            cfg = site.get("config")
            alt = " (or jax.config.update(%r, %r) in the code)" % (cfg, d) if site.get("src") == "jax" and cfg and d \
                else ""
            c = _cause("%s is not at its documented default (line %s: %s): %s (%s)." % (
                var if not cfg else "%s (%s)" % (var, cfg), m.get("line"), now, _clip_says(site.get("says", "")),
                site.get("source", "")), ["unset %s%s%s   (in the job's environment: the launch line, the batch "
                                          "script, ~/.bashrc, the container's ENV)" % (var, back, alt)],
                [(m.get("line"), text[:300])])
            c["key"] = var
            out.append(("first", c))
            return out
    return out


def _clip_says(t, n=300):
    t = " ".join((t or "").split())
    return t if len(t) <= n else t[:n - 6].rstrip() + " [...]"


def _said_already(causes, c, key):
    """Whether a cause of the root already has this setting's line as its evidence: the entry's own cause that the line
    moved up ('InfiniBand was turned off by configuration.' for 'NCCL_IB_DISABLE set by environment to 1'), or
    settings.py's row for a told symptom ('TORCH_NCCL_ASYNC_ERROR_HANDLING=0 (line 1, an environment setting)')."""
    if not key:
        return False
    line = c["evidence"][0]["line"]
    return any(any(e.get("line") == line for e in x.get("evidence") or ()) for x in causes)


def _last(st):
    """The last value the text shows of each variable (an env dump after the script's own default)."""
    out = {}
    for s in st.env:
        out[s[1]] = s
    return out


_TRUE = {"1", "true", "yes", "on", "y", "t"}
_FALSE = {"0", "false", "no", "off", "n", "f"}


def _same(v, d):
    if _num(v) is not None and _num(d) is not None:
        return _num(v) == _num(d)
    if d in ("0", "1") and v.lower() in _TRUE | _FALSE:
        return (v.lower() in _TRUE) == (d == "1")
    return v.lower() == d.lower()


def _is_default(v, e):
    """(True / False / None: unknown) whether value v is the variable's documented default."""
    v = v.strip()
    sets = e.get("sets") if "sets" in e else e.get("doc_sets")
    d = e.get("default") if "default" in e else e.get("doc_default")
    if sets:  # 'Define and set to 1 to disable': the documented value that changes it
        return not _same(v, sets)
    if d is None or d == "varies":
        return None
    if d in ("", "unset"):
        return not v
    return _same(v, d)


def _named_in(root, names, line):
    """The first of ``names`` (a variable, its config attribute) that the root's own error lines name, as a word: not
    the setting's own line, nor a line that only says it is set ('X set by environment to V', 'X set to V', 'X=V',
    the text's own '# fix:' notes)."""
    texts = " ".join((m.get("text") or "")[:600] for m in (root.get("matches") or [])[:8]
                     if m.get("line") != line and not (m.get("text") or "").lstrip().startswith("#"))
    for n in names:
        if n and len(n) >= 8 and re.search(r"(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])(?!\s{0,2}=| set (?:by environment )?to )"
                                           % re.escape(n), texts):
            return n
    return None


def _switches(st, root):
    shown = _last(st)
    vs = variables()
    out = []
    for key, (ln, _k, value, form, text) in sorted(shown.items(), key=lambda kv: kv[1][0]):
        e = vs.get(key)
        if e is None or not value.strip():
            continue
        rule = RULES[e["sub"]]
        if not _of(root, rule["roots"]) and not (
                _of(root, rule["roots_if_text"]) and (st.warn_files or rule.get("text", "\0") in " ".join(
                    (m.get("text") or "") for m in root.get("matches") or []))):
            continue
        known = _is_default(value, e)
        if known is True or (e.get("costs") and not any(c(value) for c in e["costs"])):
            continue
        vals = [str(x) for x in e.get("values") or () if str(x).strip()]
        odd = len(vals) >= 2 and value.strip().lower() not in {x.lower() for x in vals}
        d = e["default"]
        dflt = ("default: unset" if d == "" else "default %s" % d) if d is not None else \
            "its default depends on the release and the platform" if e.get("varies") else "no default stated"
        linked = sorted(f for f in e["files"] if f in st.warn_files)
        named = _named_in(root, [key, e.get("config")], ln)
        said = ("line %d, NCCL's own ENV line" % ln) if form == "nccl" else "line %d" % ln
        ev = [(ln, text)]
        if odd:
            where, how = "mid", "not one of the values its document lists (%s)" % ", ".join(vals[:8])
        elif linked:
            w = st.warn_files[linked[0]]
            where, how = "first", "NCCL's WARN on line %d was printed from %s, a file of NCCL that reads %s" % (
                w[0], linked[0], key)
            ev.append(w)
        elif named:
            where, how = "first", "the error itself names %s" % named
        elif e["sub"] == "nccl" and e.get("part") == "Debugging":
            where, how = "mid", ("NCCL's environment page lists it under Debugging: forcing such a variable "
                                 "\"should not be used in production nor retained in scripts\"")
        elif e["sub"] == "nccl" and e.get("part") == "torch":
            where, how = "last", "a variable of PyTorch's NCCL process group, not NCCL's"
        elif e["sub"] == "nccl":
            where, how = "last", "a system-configuration variable of NCCL's environment page"
        elif known is False:
            where, how = "mid", "not its default in %s" % rule["table"].split(" (")[0]
        else:
            where, how = "last", "a variable %s reads" % rule["table"].split(" (")[0]
        back = "" if d is None or d == "" else ", or set %s=%s" % (key, d)
        if odd and not back:
            back = ", or set it to one of %s" % ", ".join(vals[:8])
        fix = ["unset %s%s   (in the job's environment: the launch line, the batch script, ~/.bashrc, the container's "
               "ENV, the launcher's env file)" % (key, back)]
        misread = None
        if e["sub"] == "nccl":  # the value as written (a launch line's '4MB'), before NCCL's ENV line printed it read
            for s in st.env:
                misread = _misread_integer(key, s[2], d) if s[1] == key and s[0] <= ln else None
                if misread:
                    if s[0] != ln:
                        ev.insert(0, (s[0], s[4]))
                        said = "line %d; %s on line %d" % (s[0], "NCCL's own ENV line" if form == "nccl" else
                                                           "set again", ln)
                        value = s[2]
                    break
        if misread:
            where, how, fix = "first", misread[0], [misread[1]] + fix
        why = e.get("says") or ""
        c = _cause("%s is set to %s (%s; %s): %s.%s (%s)." % (
            key, value, said, dflt, how, " " + why.rstrip(".") + "." if why else "", e["source"]), fix, ev)
        c["key"] = key
        out.append((where, c))
    return out[:4]


# NCCL reads an integer variable with strtoll(str, NULL, 0) and checks only errno (src/misc/param.cc ncclLoadParam,
# https://github.com/NVIDIA/nccl/blob/master/src/misc/param.cc): the leading integer of '4MB', '1e6', '0.5' or '512x'
# is the value, the rest ignored without a word ('NCCL_BUFFSIZE set by environment to 4.'; recorded on an H200,
# NCCL 2.28.9); a leading 0 reads as octal, 0x as hex (strtoll(3), base 0)
_LEADING_INT = re.compile(r"^\s{0,4}([+-]?)(0[xX][0-9a-fA-F]{1,16}|\d{1,18})(\s{0,2}[^\s]{1,20})?\s{0,4}$")
_SIZE_UNIT = re.compile(r"(\.\d{1,12})?([kmgtKMGT])(?:i?[bB])?")
_UNITS = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def _misread_integer(key, value, default):
    """(why, fix) where an integer NCCL variable (its documented default is an integer) was given a value that
    strtoll reads otherwise than written; None for a plain integer or a value with no leading digits."""
    if default is None or not re.fullmatch(r"-?\d{1,20}", str(default)):
        return None
    m = _LEADING_INT.match(value)
    if not m:
        return None
    digits, rest = m.group(2), (m.group(3) or "").strip()
    octal = len(digits) > 1 and digits.startswith("0") and not digits.lower().startswith("0x")
    if not rest and not octal:
        return None  # a decimal or hex integer, read whole
    if digits.lower().startswith("0x"):
        read = int(digits, 16)
    elif octal:
        read = int(re.match(r"0[0-7]*", digits).group(0), 8)
    else:
        read = int(digits)
    read = -read if m.group(1) == "-" else read
    unit = _SIZE_UNIT.fullmatch(rest)
    if unit and not octal and re.search(r"SIZE|BYTES|GRANULARITY", key) and not (
            unit.group(1) and digits.lower().startswith("0x")):
        number = read if digits.lower().startswith("0x") else float(digits + (unit.group(1) or ""))
        meant = int(number * _UNITS[unit.group(2).lower()])
        fix = "export %s=%d   (%s written in bytes: NCCL takes a plain integer, no unit)" % (key, meant, value.strip())
    else:
        fix = "set %s to a plain decimal integer (no unit, fraction or exponent%s), or unset it" % (
            key, "; a leading 0 reads as octal" if octal else "")
    how = ("reads a leading 0 as octal: '%s' is %d" % (value.strip(), read) if octal and not rest else
           "takes only the leading number of '%s': it used %d, the rest ignored without a warning" % (value.strip(),
                                                                                                   read))
    why = ("NCCL reads %s as an integer (strtoll, base 0: src/misc/param.cc ncclLoadParam) and %s (NCCL's ENV line "
           "says 'set by environment to %d')" % (key, how, read))
    return why, fix


_CVD_ID = re.compile(r"^(?:\d{1,4}|GPU-[0-9A-Fa-f-]{1,60}|MIG-[0-9A-Za-z/-]{1,80})$")


def _cvd(st, root):
    s = _last(st).get("CUDA_VISIBLE_DEVICES")
    if s is None or not _of(root, CVD_ROOTS):
        return []
    ln, _k, value, _form, text = s
    v = value.strip()
    if v and all(_CVD_ID.match(x.strip()) for x in v.split(",")):
        return []  # well formed: an ordinal past it is the entry's own cause
    ints = re.findall(r"\d{1,4}", v)
    if not v:
        what = "CUDA_VISIBLE_DEVICES is set to the empty string (line %d): an empty list names no GPU, so CUDA sees " \
               "none" % ln
        fix = ["unset CUDA_VISIBLE_DEVICES (every GPU of the node), or list the GPUs it should see, comma-separated "
               "(CUDA_VISIBLE_DEVICES=0,1 for the first two)"]
    else:
        items = [x.strip() for x in v.split(",")]
        bad = next(x for x in items if not _CVD_ID.match(x))
        good = ",".join(ints) if ints and re.fullmatch(r"[\d\s;:.|/-]{1,200}", v) else None
        what = ("CUDA_VISIBLE_DEVICES is set to '%s' (line %d), which is not a comma-separated list of GPU indices or "
                "UUIDs: CUDA reads the list only up to the first identifier it cannot parse ('%s'), so at most the "
                "GPUs before it are visible" % (v, ln, bad))
        fix = ["CUDA_VISIBLE_DEVICES=%s   (commas between the GPUs)" % good if good else
               "write it as comma-separated GPU indices or UUIDs (CUDA_VISIBLE_DEVICES=0,1), or unset "
               "CUDA_VISIBLE_DEVICES", "or unset CUDA_VISIBLE_DEVICES (every GPU of the node)"]
    return [("first", _cause("%s (the CUDA Programming Guide's environment variables: \"a comma-separated sequence of "
                             "GPU identifiers\"; \"only the devices whose index precedes the invalid index are "
                             "visible\"; %s)." % (what, CUDA_ENV_PAGE), fix, [(ln, text)]))]


# ------------------------------------------------------------------ carriage returns

# bash's quoting of a word with a carriage return ($'\r', $'python\r'), '^M' ending a word, a quoted value with a \r
# in it (a Python repr: 'node1\r', '/data\r/shard-000.bin' from a variable a CRLF env file set), a literal CR before ': '
_CR = re.compile(r"\$'[^'\n]{0,200}\\r'|[A-Za-z0-9_./-]\^M(?=[\s:'\"]|$)|['\"][^'\"\n\\]{1,200}\\r(?:[^'\"\n]{0,200})['\"]|"
                 r"[^\s]\r: ")
_COLON_HEAD = re.compile(r"^: [A-Za-z][^\n]{8,300}$")
# the roots of tools that print 'NAME: message' with a name read from a file (pdsh's and clush's host prefix, ssh's
# and bash's 'name: message', a launcher's hostfile, Slurm's and MPI's node lists): there a line that starts with ': '
# is a name that ended in '\r'; elsewhere it is as often two processes' output interleaved ('RuntimeErrorRuntimeError:
# ...' then ': CUDA error ...'), so it is not read there
_CR_SPLIT_ROOTS = ("ssh.", "pdsh.", "launcher.", "slurm.", "mpi.", "deepspeed.", "host.", "errno.", "horovod.")
_FILE_OF = re.compile(r"(?:-w[ \t]{0,2}\^|--hostfile[= ]|-hostfile[ \t]{1,4}|--machinefile[= ]|-machinefile[ \t]{1,4}|"
                      r"-f[ \t]{1,4}|--nodefile[= ]|(?:^|[\s/])(?:sbatch|bash|sh|source)[ \t]{1,4})([^\s;&|'\"]{1,200})")


def _crlf(root, st):
    ms = root.get("matches") or []
    hit = next((m for m in ms if _CR.search(m.get("text") or "")), None)
    how = "quotes a value that ends in a carriage return ('\\r' / '^M')"
    where = "first"
    if hit is None and _of(root, _CR_SPLIT_ROOTS):
        hit = next((m for m in ms if _COLON_HEAD.match((m.get("text") or "").strip("\n"))), None)
        how = ("starts with ': ': the value printed before it (a host name, a path, the line above) ended in a carriage "
               "return, which sent the rest of the message to the start of a line")
    cmds = list(st.cmds)
    if hit is None and st.cr is not None:
        ln, text, kind, cl, ct = st.cr
        hit = {"line": ln, "text": text}
        cmds.append((cl, ct))
        if kind == "inside":
            how = ("holds a carriage return inside the line (the text has it raw): the value printed before it ended "
                   "in '\\r'")
        else:
            how = "ends in a carriage return, as every line of the file printed above it (line %d: %s)" % (cl, ct[:80])
            where = "mid"
    if hit is None:
        return []
    ev = [(hit["line"], hit["text"])]
    f = None
    for ln, t in cmds:
        m = _FILE_OF.search(t) or re.search(r"^[$#%>][ \t]{1,4}cat[ \t]{1,4}([^\s|;&<>]{1,200})", t)
        if m and ln < hit["line"]:
            f, ev = m.group(1), [(ln, t)] + ev
    # (the name goes into lines a person pastes into a shell: one with a shell character - '$(...)', '`', '>' - is
    # not written there, review19)
    name = f if f and re.match(r"^[\w./~+@:,%=-]{1,200}$", f) else "<the hostfile / script>"
    if name.startswith("-"):  # a file operand, never an option of dos2unix / sed / file / cat (security.md 37.)
        name = "./" + name
    return [(where, _cause(
        "Line %d %s: the file that value was read from (%s) has Windows (CRLF) line ends, so each line keeps its "
        "'\\r' and the name or value is not what was written." % (
            hit["line"], how, "%s, line %d" % (f, ev[0][0]) if f else "a hostfile, a script, an env file"),
        ["dos2unix %s   (or sed -i 's/\\r$//' %s); `file %s` says 'with CRLF line terminators' before, and `cat -A "
         "%s` shows '^M$' at each line end" % (name, name, name, name)], ev))]


# ------------------------------------------------------------------ a variable set but not exported

_PROPAGATE = {
    "torchrun": "torchrun's workers inherit the environment torchrun itself was started with "
                "(https://pytorch.org/docs/stable/elastic/run.html), which has only the exported variables",
    "mpirun": "Open MPI's mpirun passes a variable to the ranks on other nodes only with -x VAR "
              "(https://docs.open-mpi.org/en/main/man-openmpi/man1/mpirun.1.html)",
    "deepspeed": "DeepSpeed's multi-node runner passes to the other nodes only the variables of its exported list and "
                 "what ~/.deepspeed_env or ./.deepspeed_env lists, one VAR=value a line "
                 "(https://www.deepspeed.ai/getting-started/#multi-node-environment-variables)",
    "pdsh": "pdsh runs the command through ssh with the node's login environment, none of the local one "
            "(https://github.com/chaos/pdsh)",
    "srun": "srun passes the exported environment to its tasks (--export=ALL by default, "
            "https://slurm.schedmd.com/srun.html#OPT_export)",
}


def _not_exported(st, root):
    if not st.missing or not st.assigned or "*" in st.exported:
        return []
    got = next((x for x in st.missing if x[1] in st.assigned and x[1] not in st.exported and
                x[1] not in st.prefixed and st.assigned[x[1]][0] <= x[0]), None)
    if got is None:
        return []
    ln, var, text = got
    a = st.assigned[var]
    who = next((w for w, _rx in _LAUNCHERS if w in st.launch), None)
    extra = ""
    # (the assignment goes into lines a person pastes into a shell: as written only when it holds no shell
    # character, else VAR=<value>, review19)
    shown = a[2] if re.match(r"^[A-Za-z_]\w{0,60}=(?:[\w./~+@:,%=-]{0,300}|\"[^\"$`\\\n]{0,300}\"|'[^'\n]{0,300}')$",
                             a[2]) else "%s=<value>" % var
    fix = ["export %s   (`export %s` instead of `%s`)" % (var, shown, shown)]
    if who:
        extra = "; %s" % _PROPAGATE[who]
        if who == "mpirun":
            fix.append("or give mpirun the value itself: mpirun -x %s ...   (-x VAR alone forwards only an exported "
                       "VAR)" % shown)
        elif who == "deepspeed":
            fix.append("echo %s >> ~/.deepspeed_env   (DeepSpeed's runner then sets it on every node)" % shown)
    ev = sorted({(a[0], a[1]), (ln, text)} | ({st.launch[who]} if who else set()))
    return [("first", _cause(
        "%s is set as a shell variable (line %d: %s) but never exported, and the process that raised (line %d) had no "
        "%s: bash passes only exported variables to the commands it starts (bash manual, Environment: %s)%s." % (
            var, a[0], a[2][:120], ln, var, BASH_ENV, extra), fix, ev))]

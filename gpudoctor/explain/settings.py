"""A symptom told in words joined to the setting that causes it, in whatever form the text shows the setting
(issue 18, words3).

"Training is 3x slower than on the other machine" with `CUDA_LAUNCH_BLOCKING=1` in an env dump, `--dataloader_num_
workers 0` on a printed command line, `num_workers: 0` in a YAML print, `"offload_optimizer": {"device": "cpu"}` in a
DeepSpeed config, `backend=gloo` in the job's own print, `torch.backends.cudnn.benchmark = True`, NCCL's own 'NCCL
INFO NCCL_IB_DISABLE set by environment to 1.': the setting is the answer when the text tells the symptom it costs.

Three parts:
- the reader (read_line): KEY=VALUE settings in every form a log shows them, for the keys of the table only (the
  scan hands this module only the lines that hold a key's name, or a word of a told symptom: the prefilter), each
  line cut to MAX_LINE characters, every regex bounded (linear time). Forms: `export K=V`, `K=V cmd`, env / printenv
  dumps, os.environ['K'] = 'V' / setdefault / putenv, `--flag value` / `--flag=value` / a bare `--flag` (true),
  YAML / JSON / TOML `key: value` / `"key": value` / `key = value`, DeepSpeed's config print `key ....... value`
  (deepspeed/runtime/config.py print_user_config / print: `"  {} {} {}".format(arg, dots, value)`), reprs
  `Name(... key=value, ...)` (TrainingArguments, DataLoader, Lightning's Trainer), attribute assignments
  `torch.backends.cudnn.benchmark = True`, calls `set_detect_anomaly(True)`, and NCCL's ENV lines (src/misc/param.cc
  ncclLoadParam: INFO(NCCL_ENV, "%s set by environment to %s.", ...)). A value that is a block (`offload_optimizer:
  {` or `...Config(device='cpu', ...)`) is read for the row's `nested` key on the same line or the next NEST lines.
- the table: [[setting]] rows of knowledge/settings.toml, each written from the document it cites (what the
  setting costs: slow, memory, nondeterminism; how sure; the entry whose family the answer names; the fix).
- the join (judge): the user's own lines tell a symptom (slow words, a step time beside what was expected,
  out of memory, results that differ every run; English and Chinese), and a row of that symptom has its setting
  in the text with a value that costs it: the answer is the row's entry, its first causes the rows found (surest
  first), each quoting the line and the form it was read in. A setting with no told symptom is never a root (a
  healthy log prints its environment too). A slowness told against another machine or an earlier run ("same
  script, 3x slower on this cluster") with no setting in the text gets the family answer: the table's
  environment settings as the ways to tell apart, and one command that prints them.
"""

import os
import re

from gpudoctor.explain.knowledge import Pattern, squash

ENTRY = "_settings"
MAX_LINE = 2000  # characters of a line read
MAX_SETTINGS = 256  # settings kept per scan
MAX_TOLD = 32  # told lines kept per scan
MAX_PER_LINE = 16  # key occurrences read per line
NEST = 6  # lines after a block value read for its nested key
MAX_CAUSES = 5

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(_HERE, "data", "knowledge", "settings.toml")
_table = None

SYMPTOMS = ("slow", "memory", "nondeterminism", "hang", "nocompile", "slowstart", "nokernel")
SURE = {"high": 3, "medium": 2, "low": 1}


# ------------------------------------------------------------------ the table

def table():
    """The [[setting]] rows (validated once): the table's own errors are the package's bug, raised at load."""
    global _table
    if _table is not None:
        return _table
    from gpudoctor.explain.knowledge import _DOCS, KnowledgeError, _toml

    doc = _DOCS.get(TABLE)  # the load of the knowledge read it from its cache (kcache.py): not parsed again
    if doc is None:
        with open(TABLE, "rb") as f:
            doc = _toml().load(f)
    rows = []
    for r in doc.get("setting", []):
        rid = r.get("id")
        need = ("id", "keys", "when", "symptoms", "sure", "entry", "what", "fix", "source")
        missing = [k for k in need if not r.get(k)]
        extra = set(r) - set(need) - {"line_has", "nested", "with", "needs", "told"}
        if missing or extra:
            raise KnowledgeError("settings.toml: %s: missing %s, unknown %s" % (rid, missing, sorted(extra)))
        if not set(r["symptoms"]) <= set(SYMPTOMS) or r["sure"] not in SURE or \
                r.get("needs") not in (None, "gpu", "shapes") or not r["source"].startswith("https://"):
            raise KnowledgeError("settings.toml: %s: bad symptoms / sure / needs / source" % rid)
        _cond(r["when"])  # raises on a bad condition
        if r.get("told"):
            re.compile(r["told"])  # raises on a bad regex
        for k, v in (r.get("with") or {}).items():
            _cond(v)
        rows.append(dict(r, keys=[k.lower() for k in r["keys"]], line_has=[x.lower() for x in r.get("line_has", [])]))
    rows.extend(_nccl_doc_rows({k for r in rows for k in r["keys"]}))
    rows.extend(_nccl_source_rows({k for r in rows for k in r["keys"]}))
    rows.extend(_torch_switch_rows({k for r in rows for k in r["keys"]}))
    rows.extend(_runtime_switch_rows({k for r in rows for k in r["keys"]}))
    _table = rows
    return rows


NCCL_ENV_PAGE = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html"


def _nccl_doc_rows(have):
    """Rows made from gpudoctor/data/nccl_env.json (tools/gen_nccl_env.py over NCCL's own env.rst): every variable
    the page lists under "Debugging" ("forcing them to a particular value will prevent NCCL from selecting the best
    setting automatically. They can therefore cause performance problems"; "should not be used in production nor
    retained in scripts") that no hand-written row above already judges, set to a value other than its documented
    default (or, for a 'Define and set to 1 to disable' variable, to that value): a cause of a told slowness, low
    sureness, its own doc sentence quoted."""
    from gpudoctor import data

    try:
        doc = data.load("nccl_env")
    except (OSError, ValueError):
        return []
    # the page's own words on why (its sentences on choosing the best setting and on performance)
    part = " ".join(x for x in re.split(r"(?<=\.)\s+", (doc.get("doc_parts") or {}).get("Debugging", ""))
                    if re.search(r"best setting|performance", x)) or "should not be set for production code"
    out = []
    for name, e in sorted((doc.get("names") or {}).items()):
        if e.get("doc_part") != "Debugging" or name.lower() in have:
            continue
        if e.get("doc_default") == "varies":  # the page's default is an older release's (NCCL_NET_GDR_READ: 1 on
            continue  # NVLink platforms since 2.4.2): a value that is today's default must not be told as a cause
        if e.get("doc_sets"):
            when = [e["doc_sets"]] if _num(e["doc_sets"]) is None else "=%s" % e["doc_sets"]
        elif e.get("doc_default") and e["doc_default"] != "unset":
            when = "!=" + e["doc_default"]
        else:
            when = "any"
        out.append({"id": "nccl_doc_" + name.lower(), "keys": [name.lower()], "when": when, "symptoms": ["slow"],
                    "sure": "low", "entry": "nccl.env_slows", "line_has": [],
                    "what": "%s is one of the variables NCCL's environment page lists under Debugging: \"%s\" Of "
                            "this one it says: \"%s\"" % (name, _clip(part, 300), _clip(e.get("doc_says", ""), 300)),
                    "generated": True,
                    "fix": "unset %s (NCCL's page: fine for experiments or to debug a problem, but should generally "
                           "not be set for production code)" % name,
                    "source": "%s#%s" % (NCCL_ENV_PAGE, name.lower().replace("_", "-"))})
    return out


# (fix22) a variable NCCL's source reads whose name says it names a place, a file, a log, an identity or a network
# address (where to look, not how fast to go): never a cost of speed
_NOT_A_COST = re.compile(r"DEBUG|DUMP|TRACE|_LOGS?$|_LOG_|PRINT|_FILE|_DIR|_PATH|PLUGIN|HOME|COMM_ID|HOSTID|IFNAME|"
                         r"VERSION|_NAME|PROFILE|RAS_|_TC$|_SL$|GID|HCA|_ADDR|_PORT|_LIB$")


def _nccl_source_rows(have):
    """Rows made from gpudoctor/data/nccl_env.json for the variables NCCL's own source reads (ncclGetEnv /
    NCCL_PARAM in src/, tools/gen_nccl_env.py at the commit its header names) that its environment page does not
    document at all ('documented': false: NCCL_P2P_USE_CUDA_MEMCPY in src/transport/p2p.cc, NCCL_MAX_P2P_NCHANNELS
    in src/graph/paths.cc): internal tuning knobs, outside every documented default. Set at all in a run the text
    tells is slow, each is a low-sureness cause whose fix is to unset it and compare (fix22). Names of places, files,
    logs, identities and addresses (_NOT_A_COST) are left out, and so is any variable a row above judges."""
    from gpudoctor import data

    try:
        doc = data.load("nccl_env")
    except (OSError, ValueError):
        return []
    at = (doc.get("nccl") or {}).get("version") or ""
    out = []
    for name, e in sorted((doc.get("names") or {}).items()):
        if e.get("documented") is not False or "nccl" not in (e.get("read_by") or ()) or name.lower() in have or \
                _NOT_A_COST.search(name):
            continue
        files = ", ".join(sorted(e.get("files") or ())[:2]) or "its source"
        out.append({"id": "nccl_src_" + name.lower(), "keys": [name.lower()], "when": "any", "symptoms": ["slow"],
                    "sure": "low", "entry": "nccl.env_slows", "line_has": [], "generated": True,
                    "what": "%s is read by NCCL's source (%s, NCCL %s) but is not on NCCL's environment page: an "
                            "internal tuning knob with no documented default, which NCCL otherwise sets itself from "
                            "the topology" % (name, files, at),
                    "fix": "unset %s and compare (NCCL documents no use of it)" % name,
                    "source": "https://github.com/NVIDIA/nccl/blob/master/%s" % (sorted(e.get("files") or ["src"])[0])})
    return out


def _torch_switch_rows(have):
    """Rows made from gpudoctor/data/torch_switches.json (tools/gen_torch_switches.py over the torch wheel's own Python):
    each switch its rules name (an environment variable that turns torch.compile off or its caches, read where
    torch/_dynamo/config.py, eval_frame.py and torch/compiler/config.py read it; the DataLoader's persistent_workers,
    from its docstring) that no hand-written row judges. A row may carry `absent_default` (the docstring's default,
    in effect where the text shows the DataLoader's other arguments but not this one) and `told_has` (the told
    sentence must also say this: a slowness told per epoch for workers started again every epoch)."""
    from gpudoctor import data

    try:
        doc = data.load("torch_switches")
    except (OSError, ValueError):
        return []
    out = []
    for site in doc.get("sites", ()):
        if not site.get("rule") or not site.get("family") or not site.get("keys"):
            continue
        keys = [k.lower() for k in site["keys"]]
        if set(keys) & have:
            continue
        row = {"id": "torch_switch_" + site["id"], "keys": keys, "when": site["when"], "symptoms": site["symptoms"],
               "sure": site["sure"], "entry": site["family"], "line_has": [], "what": site["what"], "fix": site["fix"],
               "source": site["source"], "generated": True}
        for k in ("with", "absent_default", "told_has"):
            if site.get(k):
                row[k] = site[k]
        out.append(row)
    return out


def _runtime_switch_rows(have):
    """Rows made from gpudoctor/data/runtime_switches.json (tools/gen_runtime_switches.py over the documents that define
    the settings: the CUDA Programming Guide's environment variables page, Triton's knobs.py and README, JAX's
    config.py flags and GPU memory page, JAX's compile log): each setting a rule assigns that no row above judges
    (CUDA_LAUNCH_BLOCKING has its hand row). A row carries `told`, the words that name what it is about (Triton, a
    kernel, JAX, the first CUDA call), which put it first when the text shows no setting (_named, _elsewhere), and
    may need JAX's compile log to show one function compiled again and again (needs = "recompiles")."""
    from gpudoctor import data

    try:
        doc = data.load("runtime_switches")
    except (OSError, ValueError):
        return []
    out = []
    for site in doc.get("sites", ()):
        if not site.get("rule") or not site.get("family") or not site.get("keys"):
            continue
        keys = list(dict.fromkeys(k.lower() for k in site["keys"]))  # (JAX_DISABLE_JIT and jax_disable_jit: one key)
        if set(keys) & have:
            continue
        row = {"id": "runtime_" + site["id"], "keys": keys, "when": site["when"], "symptoms": site["symptoms"],
               "sure": site["sure"], "entry": site["family"], "line_has": [], "what": site["what"], "fix": site["fix"],
               "source": site["source"], "generated": True, "told": site["told"]}
        for k in ("needs", "absent_default"):
            if site.get(k):
                row[k] = site[k]
        out.append(row)
    return out


def _cond(when):
    """A condition as a function of a value (a str)."""
    if isinstance(when, list):
        words = {w.lower() for w in when}
        return lambda v: v.lower() in words
    if when in ("true", "false"):
        want = when == "true"
        return lambda v: _bool(v) is want
    if when == "any":  # set at all (a variable whose documented default is to leave it unset)
        return lambda v: bool(v.strip())
    if isinstance(when, str) and when.startswith("re:"):  # a value of that shape (a bounded regex, searched)
        rx = re.compile(when[3:])
        return lambda v: bool(rx.search(v[:400]))
    if isinstance(when, str) and when.startswith("!=") and len(when) > 2:  # any value but the documented default
        base = when[2:].lower()
        return lambda v: bool(v.strip()) and (_num(v) != _num(base) if _num(v) is not None and _num(base) is not None
                                              else v.strip().lower() != base)
    m = re.fullmatch(r"(<=|>=|<|>|=)(-?\d+(?:\.\d+)?)", when or "")
    if not m:
        raise ValueError("settings.toml: bad condition %r" % (when,))
    op, n = m.group(1), float(m.group(2))
    test = {"<=": lambda x: x <= n, ">=": lambda x: x >= n, "<": lambda x: x < n, ">": lambda x: x > n,
            "=": lambda x: x == n}[op]
    return lambda v: _num(v) is not None and test(_num(v))


_TRUE = {"1", "true", "yes", "on", "y", "t"}
_FALSE = {"0", "false", "no", "off", "n", "f", "none", "null"}


def _bool(v):
    v = v.lower()
    return True if v in _TRUE else False if v in _FALSE else None


def _num(v):
    v = v.replace(",", "").replace("_", "")
    try:
        return float(v) if len(v) <= 30 else None
    except ValueError:
        return None


def _needles():
    out = set()
    for r in table():
        for k in list(r["keys"]) + list(r.get("with") or {}):
            out.add(squash(k).decode("utf-8"))
    return sorted(out)


# ------------------------------------------------------------------ the reader

# a key's occurrence: not part of a longer name before it (a dotted key may be the tail of a path) or after it
_KEY_AFTER = re.compile(r"[A-Za-z0-9_]")
# the separator and the value after a key (the key's end at the start): NCCL's ENV line, a call, '= v', ': v',
# DeepSpeed's dotted leader, a flag's blank
_SEP = re.compile(r"(?P<q>[\"']?\]?)(?:(?P<nccl> set by environment to )|(?P<call>\s{0,2}\(\s{0,2}(?:mode\s?=\s?)?)|"
                  r"(?P<eq>\s{0,3}=\s{0,3})|(?P<comma>\s{0,2},\s{0,2})|(?P<colon>[\"']?\s{0,3}:\s{0,3})|(?P<dots>\s{1,3}\.{3,80}\s{1,3})|(?P<ws>\s{1,3}))")
_VALUE = re.compile(r"\"(?P<dq>[^\"\n]{0,200})\"|'(?P<sq>[^'\n]{0,200})'|(?P<bare>[^\s,;)\]}\"'(]{1,200})|(?P<open>[{(\[]|$)")
_ENV_BEFORE = re.compile(r"(?:environ\s{0,2}\[\s{0,2}|environ\.setdefault\(\s{0,2}|putenv\(\s{0,2})[\"']$")
# JAX's own way to set a flag in code: jax.config.update("jax_disable_jit", True) (jax/_src/config.py Config.update)
_CONF_UPDATE = re.compile(r"config\.update\(\s{0,2}[\"']$")
# a read of the environment, not a setting: the second argument of os.getenv(key, default) / os.environ.get(key,
# default) is what the program uses when K is NOT set (https://docs.python.org/3/library/os.html#os.getenv), so
# `os.getenv('CUDA_LAUNCH_BLOCKING', '1')` says nothing of the job's value; only an assignment (os.environ['K'] = 'V',
# setdefault, putenv, export, an env dump, NCCL's 'set by environment' line) is one
_ENV_READ = re.compile(r"(?:getenv|environ\s{0,2}\.\s{0,2}(?:get|pop))\(\s{0,2}[\"']$")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9_]{2,80}$")
_SHELL_WORD = re.compile(r"[^\s;|&$()]{0,80}\$\([^()\n]{0,80}\)[^\s;|&()]{0,120}")
_CALL_NAME = re.compile(r"\s{0,2}\(")


def read_line(text, keys=None):
    """[(key as written, value, form, start)] of the table's keys (or ``keys``, lower case) on one line. Forms: env,
    nccl, flag, config, repr, attr, call. A block value is returned as '{' / '(' / '' (read_nested finds its key)."""
    text = text[:MAX_LINE]
    low = text.lower()
    keys = keys if keys is not None else _all_keys()
    out, taken = [], []
    for k in keys:  # the longest first: 'cudnn.benchmark' is not read again as 'benchmark'
        i = low.find(k)
        while i >= 0 and len(out) < MAX_PER_LINE:
            if not any(a <= i < b for a, b in taken):
                got = _at(text, i, len(k))
                if got:
                    out.append(got)
                    taken.append((i, i + len(k)))
            i = low.find(k, i + len(k))
    out.sort(key=lambda x: x[3])
    return out


_keys_cache = None


def _all_keys():
    global _keys_cache
    if _keys_cache is None:
        _keys_cache = sorted({k for r in table() for k in r["keys"]} |
                             {k.lower() for r in table() for k in (r.get("with") or {})}, key=len, reverse=True)
    return _keys_cache


# the tail of a path that is a setting: args.num_workers, config.backend, torch.backends.cudnn.benchmark
_PATH_OK = re.compile(r"(?:^|[^\w.])(?:self\.)?(?:args|config|cfg|opt|opts|hparams|training_args|conf|"
                      r"(?:torch\.)?backends\.cudnn|cudnn)\.$")


# a Hydra / NeMo override or a dotted config path at a token's start: 'data.num_workers=0', '+model.train_ds.num_workers=16'
_OVERRIDE = re.compile(r"(?:^|[\s+(,'\"])(?:[A-Za-z_][A-Za-z0-9_]{0,40}\.){1,6}$")


# a Python warning printed from a module's own file ('.../torch/profiler/profiler.py:224: UserWarning: ...'): a key that
# is a path is read only so, as the module being in use (value 'on')
_PYWARN = re.compile(r":\d{1,6}: [A-Za-z]{0,40}Warning\b")


def _at(text, i, n):
    j = i + n
    if "/" in text[i:j]:
        return (text[i:j], "on", "warn", i) if _PYWARN.match(text, j) else None
    if " " in text[i:j]:  # a key that is a program's own sentence: the program says the setting is in effect
        return (text[i:j], "on", "said", i)
    if j < len(text) and _KEY_AFTER.match(text, j):
        return None
    prev = text[i - 1] if i else ""
    if prev.isalnum() or prev == "_":
        return None
    key = text[i:j]
    before = text[max(0, i - 40):i]
    if prev == "." and "." not in key and not (_PATH_OK.search(before) or _OVERRIDE.search(before)):
        return None
    if before.endswith("-") and not before.endswith("---"):
        return _flag(text, key, i, j)
    m = _SEP.match(text, j)
    if not m:
        return None
    if _ENV_READ.search(before):
        return None
    env_call = _ENV_BEFORE.search(before)
    conf_call = not env_call and _CONF_UPDATE.search(before)
    if m.group("nccl"):
        form = "nccl"
    elif env_call or conf_call:
        if not (m.group("q") and (m.group("eq") or m.group("comma"))):
            return None
        form = "env" if env_call else "call"
    elif m.group("comma"):
        return None
    elif m.group("call"):
        form = "call"
    elif m.group("dots"):
        form = "config"
    elif m.group("colon"):
        form = "config"
    elif m.group("eq"):
        if m.group("q"):
            return None
        if _ENV_NAME.match(key) and m.group("eq") == "=":
            form = "env"
        elif "." in key or prev == ".":
            form = "attr"
        elif text.count("(", 0, i) > text.count(")", 0, i):
            form = "repr"
        elif not text[:i].strip() or text[:i].rstrip().endswith((",", "{")):
            form = "config"
        else:
            form = "repr"
    else:
        return None
    return _value(text, key, form, m.end(), i)


def _value(text, key, form, at, i):
    v = _VALUE.match(text, at)
    if not v:
        return None
    if v.group("open") is not None:
        return (key, text[at:at + 1], form, i)
    value = v.group("dq") if v.group("dq") is not None else v.group("sq") if v.group("sq") is not None else v.group("bare")
    if form == "nccl":
        value = value.rstrip(".")
    if form == "env" and v.group("bare") is not None and text[v.end():v.end() + 1] == "(" and value.endswith("$"):
        # a shell command substitution ('NCCL_HOSTID=$(hostname)-$LOCAL_RANK'): the word up to the next blank
        w = _SHELL_WORD.match(text, at)
        return (key, w.group(0), form, i) if w else None
    if v.group("bare") is not None and text[v.end():v.end() + 1] == "(":
        return (key, "(", form, i)  # 'offload_optimizer=DeepSpeedZeroOffloadOptimizerConfig(device='cpu', ...)'
    return (key, value, form, i)


def _flag(text, key, i, j):
    """--flag=value, --flag value, or a bare --flag (a switch: true)."""
    if text[j:j + 1] == "=":
        return _value(text, key, "flag", j + 1, i)
    if j < len(text) and not text[j].isspace():
        return None
    rest = text[j:].lstrip()
    if not rest or (rest.startswith("-") and _num(rest.split()[0]) is None) or rest[:1] in "|;&":
        return (key, "true", "flag", i)
    return _value(text, key, "flag", len(text) - len(rest), i)


def read_nested(lines, key):
    """The value of ``key`` inside a block that starts at lines[0] (from the block's key on): on the same line (a
    repr's or an inline object's members) or in the NEST lines after it, until the block closes."""
    depth = 0
    for n, text in enumerate(lines[:NEST + 1]):
        for got in read_line(text, [key]):
            return got[1], n
        depth += text.count("{") + text.count("(") - text.count("}") - text.count(")")
        if n and depth <= 0 and text.strip() and not text[:1].isspace():
            break
    return None, None


# ------------------------------------------------------------------ what the user tells

# slowness in words, or a step time beside what was expected; out of memory; results that differ every run
_SLOW = re.compile(r"\bslow(?:er|ly|s|ness|down|ed)?\b|\bsluggish\b|\bcrawl(?:s|ing|ed)?\b|\btakes? (?:forever|ages)\b|"
                   r"\btoo long\b|\b(?:twice|two times|three times|\d{1,3}(?:\.\d)?\s?x) as (?:long|slow)\b|\btakes? (?:much |way |a lot )?longer\b|"
                   r"\bdoubl(?:e|ed|es) (?:the )?(?:time|step time|epoch time)\b|\b\d{1,4}(?:\.\d{1,2})?\s?(?:x|times)\s(?:slower|longer|as long|more time|what|the time)\b|"
                   r"\b(?:low|poor|bad|terrible) (?:throughput|performance|speed|gpu util\w{0,8})\b|"
                   r"\bthroughput (?:is |was )?(?:low|only|under|below|terrible|poor)\b|\bhalved\b|\b(?:by|to) half\b|\bhalf the "
                   r"(?:speed|throughput|bandwidth)\b|\b(?:half|a third|a quarter|one third|one quarter|a fraction|\d{1,2}\s?%) as fast\b|\b(?:speed|throughput|performance|it/s|samples/s|tokens/s|mfu)\s(?:\w{1,10}\s)?"
                   r"(?:dropped|drops|fell|falls|decreased|degraded|went down|goes down|is down)\b|\bnot (?:any |much )?faster\b|"
                   r"\b(?:gpus?|utili[sz]ation|util)\s(?:\w{1,10}\s){0,3}(?:mostly |almost always )?(?:idle|low)\b|"
                   r"\bnever (?:goes |gets )?above \d|慢|速度(?:很|非常|特别)?低|利用率(?:很|非常|一直)?(?:低|不高)", re.I)
_SLOW_WEAK = re.compile(r"\btops? out at\b|\bmax(?:es)? out at\b|\bpeaks? at\b|\bexpected\b|\bshould (?:take|be|run)\b|\bused to\b|\babsurd\b|\bridiculous\b|\bbetter part of\b|"
                        r"\binstead of\b|\bunder \d|\bonly \d|\bwhat (?:the same|it) (?:\w{1,10} )?(?:takes|took)\b", re.I)
_FIG = re.compile(r"\d(?:[\d.,]{0,8})\s?(?:ms|s|sec|secs|seconds|min|mins|minutes|hours?|it/s|samples/s|img/s|images/s|"
                  r"tokens/s|tok/s|GB/s|Gb/s|MB/s|Gbps|GiB/s)(?!\w)|\bper (?:step|iteration|epoch|batch)\b|\bfew (?:ms|milliseconds|seconds)\b|"
                  r"\ba second\b", re.I)
_MEM = re.compile(r"\bout of memory\b|\bOOM(?:s|ed|-ed)?\b|\b(?:more|too much|high|higher|huge) (?:gpu |cuda )?memory\b|"
                  r"\bmemory (?:usage |use )?(?:is |was )?(?:too |very |much )?(?:high|higher|huge|large)\b|"
                  r"\bruns? out of (?:gpu |cuda )?memory\b|\b(?:twice|double|two times|\d(?:\.\d)?\s?x) (?:the |as much )?"
                  r"(?:gpu |cuda )?memory\b|显存(?:不足|溢出|爆)|爆显存", re.I)
_UNREPRO = re.compile(r"\b(?:not|non|ir)[- ]?reproduc\w{0,6}|\bnon-?determinis\w{0,6}|\bdifferent (?:\w{1,10} )?(?:results?|"
                      r"loss(?:es)?|outputs?|accuracy|numbers|metrics) (?:on |for |in |with )?(?:every|each|between|across) "
                      r"(?:runs?|time|seeds?)\b|\b(?:is|are) different (?:on |for )?(?:every|each) (?:run|time)\b|"
                      r"\bdiffer\w{0,3} (?:from run to run|between runs|on every run|every run|each run|each time|every time)\b|"
                      r"无法复现|不能复现|复现不了|每次(?:结果|运行|训练).{0,8}(?:不一样|不同)", re.I)
# torch.compile told to do nothing: it has no effect, no speed-up, no compile warm-up, the model runs eagerly (what a
# switch that turns the compiler off does: data/torch_switches.json's compile_off rows)
_NOCOMPILE = re.compile(r"\b(?:torch\.)?compil(?:e|ed|ing|ation)\b[^.;\n]{0,40}?\b(?:does(?:n'?t| not)? (?:do )?(?:nothing|"
                        r"anything)|has no (?:effect|impact)|makes? no difference|(?:gives?|brings?) no (?:speed-?up|"
                        r"gain)|not (?:faster|doing anything|kicking in|compiling|taking effect)|is (?:a )?no-?op|"
                        r"(?:is |gets )?(?:skipped|silently disabled))\b|\bno (?:compile|compilation|dynamo|inductor) "
                        r"(?:warm-?up|time|step|phase|logs?|output)\b|\bnever (?:compiles|recompiles)\b|"
                        r"\b(?:runs?|running|stays?) (?:in )?eager(?:ly| mode)?\b", re.I)
# a slow start told (words16): the first CUDA call, CUDA's initialisation, the process's start-up named in a sentence
# that says it is slow or what it costs in seconds ('spends ~5 s in its first CUDA call'): what the CUDA Programming
# Guide says CUDA_MODULE_LOADING=EAGER, a disabled JIT cache or forced PTX JIT cost ("startup time", "load time")
_START = re.compile(r"\bfirst (?:cuda |gpu |torch |jax )?(?:call|op|operation|kernel|launch)s?\b|\bcuda init\w{0,10}\b|"
                    r"\b(?:cuda )?context (?:creation|init\w{0,10})\b|\bstart-?up\b|\binitiali[sz]ation\b|"
                    r"\bimport(?:ing)? (?:torch|jax)\b", re.I)
_START_COST = re.compile(r"\b(?:spends?|spent|takes?|took|taking|wastes?|wasted|needs?|needed|waits?|lasts?)\b[^.;\n]{0,40}?"
                         r"\d[\d.,]{0,8}\s?(?:s|sec|secs|seconds|min|mins|minutes)\b", re.I)
# memory held before the job allocated anything: at start-up, by the context ('already holds ~1.3 GB of GPU memory before
# any tensor exists'): the "GPU memory footprint" of module loading
_MEM_INIT = re.compile(r"\b(?:holds?|holding|uses?|using|occupies|occupying|takes?|taking|allocates?|reserves?|already)\b"
                       r"[^.;\n]{0,30}?\d[\d.,]{0,6}\s?(?:GB|GiB|MB|MiB)\b[^.;\n]{0,40}?\b(?:before (?:any|a single|the "
                       r"first|we) (?:tensors?|allocations?|kernels?|steps?|batch(?:es)?|model)|(?:right )?after (?:cuda )?"
                       r"init\w{0,10}|at start-?up|(?:for|by) the (?:cuda )?context)\b", re.I)
# two figures of one kind in a sentence that compares this run with another ('takes 4.7 SECONDS per call ...; the same
# script on another node takes 0.05 ms', 'takes 106 ms (2.5 GB/s) ... the same train.py ... 0.9 ms (292 GB/s)'): a
# slowness told by its numbers, when they differ by 2x or more
_TIME_FIG = re.compile(r"(?<![\w.])(\d{1,6}(?:\.\d{1,4})?)\s?(ms|msec|milliseconds?|µs|microseconds?|s|secs?|seconds?|min|mins|"
                       r"minutes?|h|hours?)(?![\w/])", re.I)
_BW_FIG = re.compile(r"(?<![\w.])(\d{1,6}(?:\.\d{1,4})?)\s?(GB/s|GiB/s|MB/s|Gb/s|Gbps)(?!\w)", re.I)
_UNIT = {"ms": 1e-3, "msec": 1e-3, "millisecond": 1e-3, "µs": 1e-6, "microsecond": 1e-6, "s": 1.0, "sec": 1.0,
         "second": 1.0, "min": 60.0, "minute": 60.0, "h": 3600.0, "hour": 3600.0, "gb/s": 1.0, "gib/s": 1.07,
         "mb/s": 1e-3, "gbps": 0.125}
_CONTENT = re.compile(r"\bas expected\b|\bwhich is (?:fine|expected|normal)\b|\b(?:is|looks|seems) (?:fine|normal|ok)\b", re.I)


def _spread(rx, text):
    vals = []
    for m in rx.finditer(text[:600]):
        # 'Gb/s' (a lower-case b) is gigabits, as 'Gbps' (SI / IEC 80000-13: b bit, B byte; the link speeds
        # ibstat and ethtool print, '100 Gb/sec'): 100 Gb/s is 12.5 GB/s, no spread; 'gb/s' and 'GB/s' are bytes
        raw = "Gbps" if m.group(2) == "Gb/s" else m.group(2)
        unit = raw.lower().rstrip("s") if raw.lower() not in ("s", "gb/s", "gib/s", "mb/s", "gbps", "ms", "µs") \
            else raw.lower()
        try:
            vals.append(float(m.group(1)) * _UNIT.get(unit, _UNIT.get(unit.rstrip("s"), 1.0)))
        except ValueError:
            continue
    vals = [v for v in vals if v > 0]
    return len(vals) >= 2 and max(vals) >= 2 * min(vals)


def _compared(text):
    """Whether a sentence that compares this run with another (same script, another node) gives two times or two
    bandwidths that differ by 2x or more."""
    return bool(_ELSEWHERE.search(text)) and not _CONTENT.search(text) and \
        (_spread(_TIME_FIG, text) or _spread(_BW_FIG, text))


# a program's own words (transformers' 'Using a slow image processor', tokenizers' 'slow tokenizer'): no complaint
_PROGRAM = re.compile(r"\bslow(?:er)? (?:tokenizer|image processor|processor|path|implementation|version|fallback|mode|"
                      r"variant|conversion|kernel)s?\b|use_fast|\bslow_|_slow\b|\bfast tokenizer\b", re.I)
# a shell or Python line of code or a comment, not a sentence ('for i in $(seq 1 100); do sinfo ... | grep -q idle && break;
# done', '# begin once the node ... is idle'); a markdown heading ('## Training is slow') stays a sentence. A Python
# keyword at the line's start counts only in a statement's shape (a header ending in ':', `def f(`, `import a.b`,
# `from a import`): a sentence written in lower case ('for some reason training is slow', 'from the second epoch on
# it hangs') is the user's
_CODE = re.compile(r"\$\(|&&|\|\||;\s{0,2}(?:do|then|done|fi)\b|[12]?>\s{0,2}/dev/null|\|\s{0,2}grep\b|"
                   r"^\s{0,8}(?:(?:for|while|if|elif|with)\s[^\n]{1,200}:\s{0,2}$|def\s{1,4}\w{1,80}\s{0,2}\(|return\s|"
                   r"import\s{1,4}[\w.]{1,80}(?:\s{1,4}as\s{1,4}\w{1,80})?(?:\s{0,2},\s{0,2}[\w.]{1,80}){0,20}\s{0,2}$|"
                   r"from\s{1,4}[\w.]{1,80}\s{1,4}import\s)|^\s{0,8}#(?!#)|[=!]=|\w\(\w{0,40}\)\s{0,2}:\s{0,2}$")
# the same code slower here than elsewhere or than before: the difference is in the environment
_ELSEWHERE = re.compile(r"\bsame (?:\w{1,12} ){0,2}(?:script|code|container|image|model|job|config|setup|data|program)s?\b|"
                        r"\b(?:an)?other (?:\w{1,12} )?(?:machines?|nodes?|box(?:es)?|servers?|clusters?|hosts?|systems?)\b|"
                        r"\bsame [\w-]{1,40}\.(?:py|sh)\b|\bused to\b|\blast (?:week|month|time|year)\b|\bthan (?:before|yesterday)\b|"
                        r"\bnew (?:\w{1,12} ){0,2}(?:template|cluster|machines?|nodes?|environment|image|container|"
                        r"job script|partition)\b|\bsince (?:we|i) (?:moved|switched|changed|upgraded|migrated)\b|"
                        r"同样的(?:代码|脚本)|另一台|之前", re.I)
_SHAPES = re.compile(r"\bvariable[- ](?:size|length|shape|resolution)s?\b|\b(?:sizes?|shapes?|resolutions?) (?:change|changes|"
                     r"changing|vary|varies|varying|differ)\b|\bdifferent (?:input )?(?:sizes|shapes|resolutions)\b|"
                     r"\bdynamic (?:shapes?|sizes?)\b|\bmulti-?scale\b", re.I)
_SHAPE_PRINT = re.compile(r"\b(?:shape|size)[\s:=]{1,3}[(\[]\s?(\d{1,5}(?:\s?,\s?\d{1,5}){1,4})\s?[)\]]", re.I)
_GPU = re.compile(r"\b(?:[AHBVL]\d{2,3}[A-Za-z]{0,4}|RTX ?\d{4}|\d{4} ?Ti|A\d{4}|gpus?|cuda(?::\d)?|nvidia|nccl|fsdp\d?|"
                  r"ddp|tensor cores?)\b|显卡|卡", re.I)

# (squashed: lower case, no blanks; precise words only: 'memory' or 'size' alone are on many lines of a big log)
TOLD_NEEDLES = ["slow", "sluggish", "crawl", "forever", "takesages", "toolong", "xslower", "timesslower", "xlonger",
                "timeslonger", "halved", "byhalf", "tohalf", "halfthe", "dropped", "drops", "fell", "falls", "decreased",
                "degraded", "wentdown", "goesdown", "isdown", "aslong", "asslow", "takeslonger", "takelonger", "muchlonger", "waylonger", "doublethe",
                "doubled", "xwhat", "timeswhat", "throughput", "lowperformance", "poorperformance", "notfaster",
                "notmuchfaster", "asfast", "twicethe", "asmuchmemory", "xmemory", "idle", "utiliz", "utilis", "expected", "shouldtake", "shouldbe", "usedto", "absurd",
                "ridiculous", "betterpartof", "insteadof", "outofmemory", "oom", "morememory", "muchmemory",
                "highmemory", "hugememory", "memoryusage", "memoryis", "memorywas", "reproduc", "determinis",
                "differentresult", "differentloss", "differentoutput", "differentaccura", "differentnumbers",
                "differentmetric", "isdifferent", "aredifferent", "differfrom", "differsfrom", "differbetween",
                "differsbetween", "differevery", "differsevery", "differeach", "differseach", "differon", "differson",
                "复现", "慢", "显存", "利用率", "速度", "variable-", "variablesize", "variablelength", "sizeschang",
                "shapeschang", "sizesvary", "shapesvary", "sizesdiffer", "differentsizes", "differentshapes",
                "differentinput", "dynamicshape", "multi-scale", "multiscale", "shape(", "shape:(", "shape=(", "size:(",
                "shape[", "h100", "a100", "h200", "v100", "a10g", "l40s", "b200", "gpus",
                "torch.compile", "nocompil", "compiledoes", "compilehasno", "compilemakesno", "compileisnot",
                "compileisano", "ineager", "runseager", "runningeager", "eagerly", "eagermode", "nodynamo",
                "noinductor", "neverrecompiles", "nevercompiles", "hasnoeffect", "hasnoimpact", "nospeedup",
                "nospeed-up", "makesnodifference", "makenodifference", "doesnothing", "doesn'tdoanything",
                "doesnotdoanything", "no-op", "noop", "silentlydisabled", "notkickingin", "nottakingeffect", "topsout", "topout", "maxesout", "maxout", "peaksat", "peakat",
                # words16: a slow start, memory held before any tensor, a run compared with another
                "firstcuda", "firstgpu", "firstcall", "cudainit", "contextcreation", "startup", "start-up",
                "beforeany", "samescript", "samecode", "samecontainer", "sameimage", "samejob", "anothernode",
                "othernode", "anothermachine", "othermachine", "anotherhost", "otherhost", "anotherbox",
                "colleague"]
# JAX's compile log under jax_log_compiles (jax/_src/interpreters/pxla.py: "Compiling %s with global shapes and types
# %s. Argument mapping: %s."; "Finished XLA compilation of {fun_name} in {elapsed_time:.9f} sec", the formats
# tools/gen_runtime_switches.py records from the wheel): one function compiled for shape after shape
LOG_NEEDLES = ["withglobalshapesandtypes", "finishedxlacompilationof", "tracingcachemissat", "device(id=", "cuda(id=", "gpu(id=",
               "rocm(id=", "['sm_", "capability("]
_JAX_COMPILING = re.compile(r"\bCompiling (?:jit\()?([A-Za-z_][\w.<>-]{0,120})\)? with global shapes and types "
                            r"([^\n]{1,600}?)\. Argument mapping")
_JAX_COMPILED = re.compile(r"\bFinished XLA compilation of (?:jit\()?([A-Za-z_][\w.<>-]{0,120})\)? in "
                           r"(\d{1,6}(?:\.\d{1,12})?) sec")
MAX_FUNCS = 64
# jax_explain_cache_misses (jax/_src/interpreters/partial_eval.py explain): 'TRACING CACHE MISS at <callsite>:', then
# '  for <function> defined at <file>:<line>' ("all previously seen cache keys differ": a new signature), or
# '  never seen function:' and '    <function> id=<n> defined at <file>:<line>' (its first)
_JAX_MISS_FOR = re.compile(r"^\s{2}for ([A-Za-z_][\w.<>-]{0,120}) defined at \S{1,300}\s{0,4}$")
_JAX_MISS_NEW = re.compile(r"^\s{4}([A-Za-z_][\w.<>-]{0,120}) id=\d{1,24} defined at \S{1,300}\s{0,4}$")
# JAX's GPU device as jax.devices() prints it (jax >= 0.4.31 'CudaDevice(id=0)'; before, 'StreamExecutorGpuDevice(id=0,
# ...)' / 'GpuDevice(id=0, ...)'): JAX holds memory on that GPU (its preallocation, gpu_memory_allocation.rst)
_JAX_GPU = re.compile(r"\b(?:(?:Cuda|Rocm|StreamExecutorGpu|Gpu)Device|cuda|rocm|gpu)\(id=\d{1,4}")


def patterns():
    """The scan pattern that hands record() the lines holding a key of the table or a told symptom's word."""
    from gpudoctor.explain import envcause  # (the variables envcause.py joins to the error, and NCCL's WARN lines)

    needles = sorted(set(_needles()) | set(TOLD_NEEDLES) | set(LOG_NEEDLES) | set(envcause.needles()))
    # (the line itself is read whole from the window, up to MAX_LINE: the match only says a needle is on it)
    return [Pattern(ENTRY, "fact", r"^[^\n]{1,200}", 0, site={"symptom": "settings", "class": "settings", "id": "settings"},
                    needles=needles)]


class State(object):
    def __init__(self):
        self.settings = []  # (line, key as written, value, form, text, (nested line, its text) or None, tried)
        self.told = []  # (line, symptom, text, elsewhere)
        self.gpu = False
        self.shapes = set()  # the input sizes the job printed
        self.shapes_told = False
        self.compiles = {}  # JAX function -> (set of the shapes it was compiled for, first line, seconds compiling)
        self.jax_gpu = None  # a line that shows JAX using a GPU (its device repr), as a settings tuple
        self.arch = None  # (line, text, the sm_XY of the build's arch list) as torch.cuda.get_arch_list() prints it
        self.cap = None  # (line, text, 'sm_XY') of the GPU's compute capability as the text prints it


# a Kubernetes container's env list (core/v1 EnvVar: name, value): '- name: NCCL_P2P_DISABLE' then '  value: "1"'
_K8S_NAME = re.compile(r"^\s{0,40}-?\s{0,4}name:\s{0,4}[\"']?([A-Za-z_][A-Za-z0-9_]{1,80})[\"']?\s{0,4}$")
_K8S_VALUE = re.compile(r"^\s{0,40}value:\s{0,4}(?:\"([^\"\n]{0,200})\"|'([^'\n]{0,200})'|([^\s\"']{1,200}))\s{0,4}$")


def _state(scan):
    st = getattr(scan, "settings_st", None)
    if st is None:
        st = scan.settings_st = State()
    return st


def _jax_log(st, line, text, win=None):
    """A JAX compile log line (LOG_NEEDLES' formats): the function and the shapes it was compiled for, or its time;
    a tracing cache miss: a new signature of the function the next lines name."""
    if "TRACING CACHE MISS at" in text and win is not None:
        nxt = win.text(1)[:600]
        m = _JAX_MISS_FOR.match(nxt) or (_JAX_MISS_NEW.match(win.text(2)[:600]) if "never seen function" in nxt
                                         else None)
        if m and (m.group(1) in st.compiles or len(st.compiles) < MAX_FUNCS):
            got = st.compiles.setdefault(m.group(1), [set(), line, 0.0, text.strip()[:400]])
            if len(got[0]) < 64:
                got[0].add("miss at line %d" % line)  # (JAX: "all previously seen cache keys differ")
        return
    m = _JAX_COMPILING.search(text)
    if m:
        fn = m.group(1)
        if fn in st.compiles or len(st.compiles) < MAX_FUNCS:
            got = st.compiles.setdefault(fn, [set(), line, 0.0, text.strip()[:400]])
            if len(got[0]) < 64:
                got[0].add(m.group(2)[:200])
        return
    m = _JAX_COMPILED.search(text)
    if m and m.group(1) in st.compiles:
        st.compiles[m.group(1)][2] += float(m.group(2))


# torch.cuda.get_arch_list() printed ("['sm_75', 'sm_80', 'sm_90']"), and the GPU's compute capability as
# torch.cuda.get_device_capability() prints it ("capability (9, 0)") or torch's own words ("which is of cuda capability
# 9.0", "with CUDA capability sm_90")
_ARCH_LIST = re.compile(r"\[\s{0,2}'sm_\d{2,3}[a-z]?'(?:\s{0,2},\s{0,2}'(?:sm|compute)_\d{2,3}[a-z]?'){0,24}\s{0,2}\]")
_CAP_TUPLE = re.compile(r"\((\d{1,2}),\s{0,2}(\d)\)\s{0,3}\[\s{0,2}'sm_")
_CAPABILITY = re.compile(r"\bcapability\W{0,3}(?:\((\d{1,2}),\s{0,2}(\d)\)|(\d{1,2})\.(\d)\b|sm_(\d{2,3})\b)", re.I)


def _arch_line(st, line, text):
    m = _ARCH_LIST.search(text)
    if m and st.arch is None:
        st.arch = (line, text.strip()[:400], set(re.findall(r"'sm_(\d{2,3})[a-z]?'", m.group(0))))
    c = _CAPABILITY.search(text)
    if c and st.cap is None:
        sm = c.group(5) or (c.group(1) + c.group(2) if c.group(1) else c.group(3) + c.group(4))
        st.cap = (line, text.strip()[:400], sm)
    # cuda.toml's debug command prints both as one line: "(8, 6) ['sm_50', ..., 'sm_86']"
    t = _CAP_TUPLE.search(text) if m and st.cap is None else None
    if t:
        st.cap = (line, text.strip()[:400], t.group(1) + t.group(2))


def _arch_covered(st):
    """The settings tuple of the arch list line when the build's arch list holds the GPU's sm_XY, else None."""
    if st.arch is None or st.cap is None or st.cap[2] not in st.arch[2]:
        return None
    return (st.arch[0], "arch list", "sm_" + st.cap[2], "archcover", st.arch[1], None, False)


def _recompiled(st):
    """The function JAX compiled for the most different input shapes (3 or more), the one that took longest compiling
    among them first: (name, shapes, first line, seconds), or None."""
    many = [(fn, v) for fn, v in st.compiles.items() if len(v[0]) >= 3]
    if not many:
        return None
    fn, v = max(many, key=lambda kv: (kv[1][2], len(kv[1][0])))
    return fn, len(v[0]), v[1], v[2], v[3]


def record(scan, hit, win):
    """One candidate line: what it sets, tells or shows (and envcause's variables). True when any state changed
    (scan._reader_kept: a shape of line nothing is kept from stops being handed over, perf21)."""
    from gpudoctor.explain import envcause

    st = _state(scan)
    before = _kept_size(st), _kept_size(envcause._state(scan))
    _record(scan, hit, win, st)
    return before != (_kept_size(st), _kept_size(envcause._state(scan)))


def _kept_size(obj):
    return tuple(len(v) if isinstance(v, (list, dict, set)) else v for v in vars(obj).values())


def _record(scan, hit, win, st):
    text = win.text(0)[:MAX_LINE]
    if (st.arch is None or st.cap is None) and ("'sm_" in text or "capability" in text.lower()):
        _arch_line(st, hit.line, text)
    if st.jax_gpu is None and "(id=" in text:
        m = _JAX_GPU.search(text)
        if m:
            st.jax_gpu = (hit.line, "jax", m.group(0) + ")", "jaxgpu", text.strip()[:400], None, False)
    if "with global shapes and types" in text or "Finished XLA compilation of" in text or "TRACING CACHE MISS" in text:
        _jax_log(st, hit.line, text, win)
        return
    if not st.gpu and _GPU.search(text):
        st.gpu = True
    if len(st.shapes) < 8:
        for m in _SHAPE_PRINT.finditer(text):
            st.shapes.add(re.sub(r"\s", "", m.group(1)))
    if len(st.settings) < MAX_SETTINGS:
        tried = None
        for key, value, form, _i in read_line(text):
            if tried is None:
                tried = _tried(text)
            nested_line = None
            if value in ("{", "(", "[", ""):
                rows = [r for r in table() if key.lower() in r["keys"] and r.get("nested")]
                if not rows:
                    continue
                lines = [text[_i:]] + [win.text(n) for n in range(1, NEST + 1)]
                value, n = read_nested(lines, rows[0]["nested"])
                if value is None:
                    continue
                nested_line = (hit.line + n, (win.text(n) if n else text).strip()[:400])
            st.settings.append((hit.line, key, value, form, text.strip()[:400], nested_line, tried))
        m = _K8S_NAME.match(text)
        if m and m.group(1).lower() in _all_keys():
            v = _K8S_VALUE.match(win.text(1))
            if v:
                st.settings.append((hit.line, m.group(1), v.group(1) or v.group(2) or v.group(3), "env",
                                    text.strip()[:400], (hit.line + 1, win.text(1).strip()[:400]), False))
    if len(st.told) < MAX_TOLD and hit.severity is None and _may_tell(text[:600]):
        _told(st, hit.line, text[:600])
    from gpudoctor.explain import envcause

    envcause.record(scan, hit.line, text, win)  # a variable set in the text, against the error it may cause


def _may_tell(text):
    """Whether a line holds a told symptom's needle (TOLD_NEEDLES, as the scan's prefilter squashes them): a line
    handed over for a key alone skips _told's regexes (red team 2026-11-26g: 20 MB of indented 'offload_optimizer:'
    lines took 30 s of CPU against 6.7 s at b3f02a5, each line searched by every told regex)."""
    global _told_rx
    if _told_rx is None:
        _told_rx = re.compile("|".join(re.escape(n) for n in sorted(TOLD_NEEDLES, key=len, reverse=True)))
    return _told_rx.search("".join(text.lower().split())) is not None


_told_rx = None


# the user's own sentence that says a setting was tried ('Setting NCCL_P2P_DISABLE=1 did workaround but got really low
# speed', NVIDIA/nccl#667): what the user did about another failure, not the job's configuration. 'work' alone is a
# noun as often ('even though the GPU work is tiny'): only 'works' / 'worked' / 'work around' say it was tried
_TRIED = re.compile(r"\b(?:work\s?around|workaround|works|worked|fix(?:es|ed)?|solves?|solved|helps?|helped|avoids?|"
                    r"avoided|resolves?|resolved)\b", re.I)


def _tried(text):
    from gpudoctor.explain.meaning import _WORDS, users_line

    return bool(users_line(text) and _WORDS.search(text) and _TRIED.search(text))


# the clauses of a user's line (words16): a sentence that tells a slowdown in figures ('0.8-1.8 s per step on H100 ...;
# a colleague's copy finishes 120 steps in 2.5 s') holds more numbers than meaning.users_line allows a line
_CLAUSE = re.compile(r"(?<=[.;!?])\s{1,4}(?=\S)")


def _users_clauses(text):
    """The line itself when it is the user's; else, when its first clause is the user's (the line starts in the user's
    words: no logger, NCCL or traceback prefix), the clauses of it that are the user's, joined (a figure-heavy clause,
    or one that names 'NCCL INFO' below, is left out on its own); else None."""
    from gpudoctor.explain.meaning import users_line

    if users_line(text):
        return text
    parts = _CLAUSE.split(text)[:16]
    if len(parts) < 2 or not users_line(parts[0]):
        return None
    return " ".join(p for p in parts if users_line(p))


def _told(st, line, text):
    text = _users_clauses(text)
    if text is None or _PROGRAM.search(text) or _CODE.search(text):
        return
    if _SHAPES.search(text):
        st.shapes_told = True
    got = []
    if _SLOW.search(text) or (_SLOW_WEAK.search(text) and _FIG.search(text)) or _compared(text):
        got.append("slow")
    if _START.search(text) and ("slow" in got or _START_COST.search(text)):
        got.append("slowstart")
    if _MEM.search(text) or _MEM_INIT.search(text):
        got.append("memory")
    if _UNREPRO.search(text):
        got.append("nondeterminism")
    if _NOCOMPILE.search(text):
        got.append("nocompile")
    for s in got:
        st.told.append((line, s, text.strip(), bool(_ELSEWHERE.search(text))))


# ------------------------------------------------------------------ the join

def found(scan, told=None):
    """[(row, [(line, key, value, form, text, nested, tried)], told)] of the rows whose setting the text shows with a
    value that costs a symptom the text tells (or ``told``: {symptom: (line, symptom, text, elsewhere)}), the
    surest first."""
    st = getattr(scan, "settings_st", None)
    if st is None or not (st.settings or st.compiles or st.jax_gpu or st.arch):
        return []
    if told is None:
        told = {}
        for t in st.told:
            told.setdefault(t[1], t)
        hung = _hang_told(scan)
        if hung is not None:
            told.setdefault("hang", hung)
    if not told:
        return []
    by_key = {}
    for s in st.settings:
        by_key.setdefault(s[1].lower(), []).append(s)
    out = []
    for r in table():
        sym = next((s for s in r["symptoms"] if s in told), None)
        if sym is None:
            continue
        if r.get("needs") == "gpu" and not st.gpu:
            continue
        if r.get("needs") == "shapes" and not (st.shapes_told or len(st.shapes) >= 3):
            continue
        if r.get("needs") == "recompiles" and not _recompiled(st):
            continue
        if r.get("needs") == "jax_gpu" and st.jax_gpu is None:
            continue
        covered = r.get("needs") == "arch_covered" and _arch_covered(st)
        told_r = told[sym]
        if r.get("told_has"):
            told_r = next((t for t in st.told if t[1] == sym and re.search(r["told_has"], t[2], re.I)), None)
            if told_r is None:
                continue
        test = _cond(r["when"])
        hits = []
        if r.get("needs") == "recompiles":
            rc = _recompiled(st)  # (the log's lines are the evidence: the function, how many shapes, the seconds)
            out.append((r, [(rc[2], "jax.compile", "%s|%d|%.1f" % (rc[0], rc[1], rc[3]), "log", rc[4], None, False)],
                        told_r))
            continue
        shown = any(by_key.get(k) for k in r["keys"])
        for k in r["keys"]:
            for s in by_key.get(k, ()):
                if s[6]:
                    continue  # a setting the user says was tried for something else
                if r["line_has"] and not any(x in s[4].lower() for x in r["line_has"]):
                    continue
                if test(s[2]):
                    hits.append(s)
        if not hits and not shown and covered:
            hits = [covered]  # (no value in the text: the build's arch list holding this GPU is the evidence)
        if not hits and not shown and r.get("absent_default") and test(r["absent_default"]) and \
                r.get("needs") == "jax_gpu":
            hits = [st.jax_gpu]  # (the default is in effect: the line that shows JAX on a GPU is the evidence)
        if not hits and not shown and r.get("absent_default") and test(r["absent_default"]) and r.get("with"):
            # the key is not in the text and its documented default costs: the `with` settings are the evidence
            hits = [s for k in r["with"] for s in by_key.get(k.lower(), ()) if not s[6]]
        if not hits:
            continue
        ok = True
        for k, cond in (r.get("with") or {}).items():
            c = _cond(cond)
            vals = [s for s in by_key.get(k.lower(), ())]
            if not vals or not all(c(s[2]) for s in vals):
                ok = False
        if not ok:
            continue
        # the last value the text shows wins (an env dump after the script's own default)
        last = _last_values(st, r)
        if last is not None and not test(last):
            continue
        out.append((r, sorted(hits)[:3], told_r))
    # (a hand-written row, which names the values that cost, before a row made from NCCL's page at the same sureness)
    out.sort(key=lambda x: (-SURE[x[0]["sure"]], bool(x[0].get("generated")), x[1][0][0]))
    return out


def _hang_told(scan):
    """(line, 'hang', text, False) where the text says the job hangs or is stuck: hang.py's reading of the user's
    words (its COMPLAINTS and ncclinfo's, a store barrier still waiting, a py-spy dump in a collective), the one
    explain's hang triage answers from; None otherwise."""
    if not any("hang" in r["symptoms"] for r in table()):
        return None
    from gpudoctor.explain.hang import _SLOW, _complaint

    got = _complaint(scan) if getattr(scan, "hang", None) is not None else None
    if not got or _SLOW.search(got[1]):
        return None  # (a slow run is hang.py's other complaint: the rows of 'slow' answer it)
    return (got[0], "hang", got[1], False)


def _last_values(st, r):
    got = [s for s in st.settings if s[1].lower() in r["keys"] and
           (not r["line_has"] or any(x in s[4].lower() for x in r["line_has"]))]
    return got[-1][2] if got else None


_FORM = {"env": "an environment setting", "nccl": "NCCL's own ENV line", "flag": "a command-line flag",
         "config": "a config print", "repr": "the arguments printed", "attr": "an assignment", "call": "a call",
         "warn": "a warning printed from that module", "said": "the program's own message"}


def _shown(hits):
    """A row's first hit as the answer's sentences name it: 'K=V (line N)', or JAX's compile log."""
    h = hits[0]
    if h[3] == "log":
        return "JAX compiling %s for %s input shapes (line %d on)" % tuple(h[2].split("|")[:2] + [h[0]])
    if h[3] == "archcover":
        return "this GPU's %s in the build's arch list (line %d)" % (h[2], h[0])
    if h[3] == "jaxgpu":
        return "JAX on a GPU (line %d) with XLA_PYTHON_CLIENT_PREALLOCATE not set" % h[0]
    return "%s=%s (line %d)" % (h[1], h[2], h[0])


def _cause(r, hits):
    ln, key, value, form = hits[0][0], hits[0][1], hits[0][2], hits[0][3]
    if form == "jaxgpu":
        said = "line %d shows JAX on a GPU (%s)" % (ln, value)
    elif form == "archcover":
        said = ("line %d: the build's arch list holds this GPU's %s, so its kernels are there and the driver was told "
                "not to use them; look for %s=1 (or CUDA_FORCE_JIT=1) in the job's environment" % (
                    ln, value, r["keys"][0].upper()))
    elif form == "log":  # JAX's compile log: 'function|shapes|seconds'
        fn, n, secs = value.split("|")
        said = "line %d on: JAX's compile log shows %s compiled for %s different input shapes%s" % (
            ln, fn, n, " (%s s compiling)" % secs if secs != "0.0" else "")
    else:
        said = ("line %d is a warning printed from %s" % (ln, key)) if form == "warn" else \
            ("line %d says '%s'" % (ln, key)) if form == "said" else \
            "%s=%s (line %d, %s)" % (key, value, ln, _FORM.get(form, form))
    return {"text": "%s: %s (%s)." % (said, r["what"], r["source"]),
            "checks": [], "confirm": ["change it and time (or measure) a few steps"], "fix": [r["fix"]], "exports": {},
            "static_rank": 0, "computed": None,
            "evidence": _evidence(hits)}


def _evidence(hits):
    """The lines a setting was read from: its key's line, and the nested key's line of a block value."""
    out = []
    for h in hits:
        out.append({"line": h[0], "text": h[4]})
        if h[5] and h[5][0] != h[0]:
            out.append({"line": h[5][0], "text": h[5][1]})
    return out


SAID = {"slow": "slowness", "memory": "running out of memory", "nondeterminism": "results that differ between runs",
        "hang": "a job that hangs", "nocompile": "that torch.compile has no effect",
        "slowstart": "a slow start (the first CUDA call, initialisation)",
        "nokernel": "no kernel image for this GPU"}


def judge(result, scan, kb):
    """The join: the root when nothing surer answered (or only a hang / INFO triage or a words-only symptom did),
    else a note beside the answer. Returns the root it made, or None."""
    findings = result["findings"]
    root = findings[0] if findings else None
    said = _root_symptom(root)
    got = found(scan, said) if said else found(scan)
    # (the hang triage's family answer and ncclinfo's 'nothing clearly wrong' give way, as they do to symptoms.judge)
    weak = root is None or (root["id"] in ("nccl.hang", "nccl.info_only") and root.get("from_info_lines") and
                            root.get("confidence") != "cause")
    if not got:
        if weak and root is None and result["verdict"] == "no_error":
            return _elsewhere(result, scan, kb) or _named(result, scan, kb)
        return None
    hung = [x for x in got if x[2][1] == "hang"]
    if root is not None and hung and got[0] is hung[0]:
        # a setting that keeps a stuck collective from failing is why the job waits, not what left a rank behind: the
        # answer there is (hang.py's ranking, an error line's) stays, the setting follows its first cause
        for i, (r, hits, _t) in enumerate(hung[:MAX_CAUSES]):
            root["causes"].insert(min(1 + i, len(root["causes"])), _cause(r, hits))
        root["notes"].append("Your words tell %s (line %d), and the text sets %s: %s" % (
            SAID["hang"], hung[0][2][0], ", ".join(_shown(h) for _r, h, _t in
                                                  hung[:MAX_CAUSES]),
            "the cause below says why it waits instead of failing at the process group's timeout."))
        return None
    if not weak:
        # an error line's answer stays; a setting of the root's own family becomes its first cause ('CUDA out of
        # memory' beside gpu_memory_fraction: 0.05), any other is a note
        for r, hits, told in got[:3]:
            e = kb.by_id.get(r["entry"])
            fam = e.get("family") if e else None
            if said and "nokernel" in said and "nokernel" in r["symptoms"]:
                # (words16) a setting that makes the driver skip the build's machine code, for 'no kernel image':
                # first when the text shows it; inferred from an arch list that holds the GPU, after the entry's first
                # cause (a build's arch list holding the GPU has had other causes: dusty-nv/jetson-inference#812)
                root["causes"].insert(0 if hits[0][3] != "archcover" else min(1, len(root["causes"])),
                                      _cause(r, hits))
                _fold(root["causes"])
                return None
            if root["id"] == r["entry"] or (fam and root.get("family") == fam and r["sure"] == "high") or \
                    (said and r["entry"] == "cuda.oom" and r["sure"] == "high"):
                # a cap the docs say always costs leads; a trade-off (checkpointing off, ZeRO stage 1) follows the
                # entry's own first cause
                root["causes"].insert(0 if r["sure"] == "high" else min(1, len(root["causes"])), _cause(r, hits))
                _fold(root["causes"])
                return None
        r, hits, told = got[0]
        result["context"].append({"id": "settings", "severity": "warning",
                                  "note": "Your words tell %s, and %s: %s." % (
                                      SAID[told[1]], ("line %d sets %s=%s" % (hits[0][0], hits[0][1], hits[0][2]))
                                      if hits[0][3] not in ("log", "jaxgpu", "archcover")
                                      else "the text shows " + _shown(hits),
                                      r["what"]),
                                  "fix": r["fix"], "first_line": hits[0][0], "text": hits[0][4], "match_count": 1})
        return None
    r0, hits0, told = got[0]
    e = kb.by_id.get(r0["entry"])
    if e is None:
        return None
    from gpudoctor.explain.launchpaste import lines_finding
    from gpudoctor.explain.scan import Hit

    ev = [Hit(x["line"], x["text"], None, {}, None) for x in _evidence(hits0)]
    surest = [x for x in got if SURE[x[0]["sure"]] == SURE[r0["sure"]]]
    sure = "cause" if r0["sure"] == "high" and len(surest) == 1 else "family"
    how = ("How sure: %s. Your words (line %d: %s) tell %s, and the text sets %s; %s" % (
        "high" if sure == "cause" else "medium", told[0], _clip(told[2], 120), SAID[told[1]],
        ", ".join(_shown(h) for _r, h, _t in got[:MAX_CAUSES]),
        "its docs say it costs that." if len(got) == 1 else
        "the causes below are listed by how sure their docs are; change one at a time and time a few steps."))
    c0 = _cause(r0, hits0)
    f = lines_finding(e, ev, "root", scan, c0["text"], r0["fix"], how)
    f["causes"][0]["confirm"] = c0["confirm"]
    if e.get("source_file", "").replace(os.sep, "/").endswith("knowledge/settings.toml"):
        del f["causes"][1:]  # this file's entries are answered by their rows: their placeholder cause goes
    for r, hits, _t in got[1:MAX_CAUSES]:
        f["causes"].insert(len([c for c in f["causes"] if c.get("static_rank") == 0]), _cause(r, hits))
    _fold(f["causes"])
    f["confidence"] = sure
    f["from_settings"] = True
    if root is not None:
        root["role"] = "related"
    findings.insert(0, f)
    result["verdict"], result["matched"], result["root"] = "root_cause", True, f["id"]
    result["triage"], result["errors"] = [], []
    return f


def _fold(causes):
    """A cause of the entry's own (static_rank > 0) that a row's cause (static_rank 0) says again is folded into the
    row's, as analyze folds a generated site's restated family cause (analyze._fold_restated: its confirm and fix
    lines join the row's, it is not listed again): 'CUDA_LAUNCH_BLOCKING=1 (line 2, an environment setting): ...'
    and then the entry's 'CUDA_LAUNCH_BLOCKING=1 is set (left from debugging a CUDA error) ...' were two causes."""
    from gpudoctor.explain.analyze import _fold_restated

    for row in [c for c in causes if c.get("static_rank") == 0]:
        own = [c for c in causes if c.get("static_rank")]
        group = [row] + own
        _fold_restated(group)
        for c in own:
            if not any(c is g for g in group):
                causes.remove(c)


# an error root that is itself a symptom of the table (CUDA's out of memory): its rows of that symptom may be its cause
_ROOT_SYMPTOM = (("cuda.oom", "memory"), ("torch.c10_cuda_cudacachingallocator", "memory"),
                 ("cuda.no_kernel_image", "nokernel"))


# roots the meaning reader gives a slowness told in words, which a setting that costs speed explains
_WORDS_SLOW_ROOTS = ("torch.multi_gpu_no_speedup", "torch.slow_setting", "torch.slow_debug_setting", "nccl.env_slows",
                     "nccl.slow_across_nodes")


def words_slow(result, scan):
    """(fix22) After symptoms.judge: the words reader took the user's words for a slowness (its root, from words)
    where the told-line reader did not ('the run just before took 0.90 ms ..., this one 2.5 ms'): a setting the text
    shows that costs speed becomes that root's first cause (at most two); the family the words gave stays. Returns
    the number of causes added."""
    findings = result.get("findings") or []
    root = findings[0] if findings else None
    slow = _words_slow(root)
    if not slow:
        return 0
    got = [x for x in found(scan, slow) if "slow" in x[0]["symptoms"]][:2]
    have = {c.get("text") for c in root["causes"]}
    added = 0
    for r, hits, _t in reversed(got):
        c = _cause(r, hits)
        if c.get("text") not in have:
            root["causes"].insert(0, c)
            added += 1
    if added:
        _fold(root["causes"])
    return added


def _words_slow(root):
    """{'slow': told} for a root made from the user's words that is a slowness (fix22), else None."""
    if root is None or not root.get("from_words") or root.get("from_settings") or \
            not any((x or "") in _WORDS_SLOW_ROOTS for x in (root.get("id"), root.get("family"))):
        return None
    m = root["matches"][0] if root.get("matches") else {"line": root.get("first_line") or 0, "text": ""}
    return {"slow": (m.get("line") or 0, "slow", m.get("text") or "", False)}


def _root_symptom(root):
    if root is None or root.get("from_words") or root.get("from_settings"):
        return None
    for prefix, sym in _ROOT_SYMPTOM:
        if any((x or "").startswith(prefix) for x in (root["id"], root.get("family"))):
            m = root["matches"][0] if root.get("matches") else {"line": root.get("first_line") or 0, "text": ""}
            return {sym: (m["line"], sym, m["text"], False)}
    return None


_SLOW_ENTRIES = {"torch.slow_setting", "torch.slow_debug_setting"}
# JAX's recompilation row has no setting to grep for: its own log says it (jax_log_compiles, jax/_src/config.py)
_RECOMPILE_SHOWN = "jax.jit compiling again for new input shapes"
_RECOMPILE_CONFIRM = ("JAX_LOG_COMPILES=1 python train.py (jax_log_compiles): a 'Compiling jit(<step>) with global shapes "
                      "and types ...' line at every step with a new shape is the cause")


def _named(result, scan, kb):
    """No setting in the text, no error; the user tells a slowness in a sentence that names what a row's setting is
    about (its `told`: the optimizer for foreach=False, the profiler, twice the memory for a float64 default dtype):
    the row's entry as the family answer, the rows so named as the causes to look for in the code, low sureness."""
    st = getattr(scan, "settings_st", None)
    if st is None or not any(t[1] in ("slow", "slowstart") for t in st.told):
        return None
    from gpudoctor.explain import symptoms

    if symptoms.found(scan, kb):
        return None  # the words name a symptom of their own (symptoms.judge answers it)
    said = [t for t in st.told]
    told_syms = {t[1] for t in said}
    rows, told = [], None
    for r in table():
        if not r.get("told") or not set(r["symptoms"]) & told_syms & {"slow", "slowstart"}:
            continue
        t = next((t for t in said if re.search(r["told"], t[2], re.I)), None)
        # (a setting kept for debugging and one that costs speed are one kind of answer: words16's rows hold both)
        if t is not None and (not rows or r["entry"] == rows[0]["entry"] or
                              {r["entry"], rows[0]["entry"]} <= _SLOW_ENTRIES):
            rows.append(r)
            told = told or t
    if not rows:
        return None
    # the rows of the most told symptoms first, then the surest (a stable sort: the table's order otherwise)
    rows.sort(key=lambda r: (-len(set(r["symptoms"]) & told_syms), -SURE[r["sure"]]))
    # rows of both slow entries (a debugging setting left on, a setting that costs speed): the answer is the general
    # one, torch.slow_setting (a setting whose docs say it costs speed), of which the debugging settings are a kind
    entries = {r["entry"] for r in rows[:MAX_CAUSES]}
    e = kb.by_id.get(rows[0]["entry"] if len(entries) == 1 else "torch.slow_setting")
    if e is None:
        return None
    from gpudoctor.explain.analyze import _finding
    from gpudoctor.explain.scan import Hit

    h = Hit(told[0], told[2], None, {}, None)
    m = {"hits": [h], "count": 1, "rank": e["rank"], "score": e["rank"], "first": told[0], "signal_hits": []}
    f = _finding(e, m, "root", scan)
    if e.get("source_file", "").replace(os.sep, "/").endswith("knowledge/settings.toml"):
        del f["causes"][:]  # (this file's entries are answered by their rows: their placeholder cause goes)
    for i, r in enumerate(rows[:MAX_CAUSES]):
        f["causes"].insert(i, {"text": "%s: %s (%s)." % (_RECOMPILE_SHOWN if r.get("needs") == "recompiles" else
                                                         " / ".join(r["keys"][:2]), r["what"], r["source"]),
                               "checks": [], "confirm": [_RECOMPILE_CONFIRM if r.get("needs") == "recompiles" else
                                                         "grep -rn '%s' in the training code and the modules it imports"
                                                         % "\\|".join(k for k in r["keys"][:2] if "/" not in k)],
                               "fix": [r["fix"]], "exports": {}, "static_rank": 0, "computed": None, "evidence": []})
    _fold(f["causes"])
    f["notes"].insert(0, "How sure: low. Your words (line %d: %s) tell a slowdown and name what the setting%s below "
                         "%s about, but the text shows no setting: %s its docs say costs that; look for it in the code." % (
                             told[0], _clip(told[2], 120), "s" if len(rows) > 1 else "", "are" if len(rows) > 1 else "is",
                             "these are the settings" if len(rows) > 1 else "it is the setting"))
    f["confidence"] = "family"
    f["from_words"] = True
    result["findings"].insert(0, f)
    result["verdict"], result["matched"], result["root"] = "root_cause", True, f["id"]
    return f


def _elsewhere(result, scan, kb):
    """No setting in the text, no error, the user tells the same code is slower here than elsewhere or than before:
    the family answer, the table's environment settings as the ways to tell apart (nothing in the text names one)."""
    st = getattr(scan, "settings_st", None)
    if st is None:
        return None
    told = next((t for t in st.told if t[1] in ("slow", "slowstart") and t[3]), None)
    if told is None:
        return None
    from gpudoctor.explain import symptoms

    if symptoms.found(scan, kb):
        return None  # the words name a symptom of their own (symptoms.judge answers it)
    e = kb.by_id.get("torch.slow_debug_setting")
    if e is None:
        return None
    envs = [r for r in table() if "slow" in r["symptoms"] and any(_ENV_NAME.match(k.upper()) and "_" in k for k in r["keys"])
            and r["sure"] in ("high", "medium") and r["entry"] == "torch.slow_debug_setting" and
            not r["id"].startswith("runtime_")]
    # (words16) the rows whose `told` the user's sentences name (Triton, a kernel, JAX, the first CUDA call) and whose
    # symptom they tell come first, the most told symptoms and the surest first; a slow start told alone is answered
    # by the rows of a slow start only
    told_syms = {t[1] for t in st.told}
    texts = [t[2] for t in st.told if t[1] in ("slow", "slowstart", "memory")]
    named = [r for r in table() if r.get("told") and set(r["symptoms"]) & told_syms & {"slow", "slowstart"} and
             r["entry"] in _SLOW_ENTRIES and any(_ENV_NAME.match(k.upper()) and "_" in k for k in r["keys"]) and
             any(re.search(r["told"], x, re.I) for x in texts)]
    named.sort(key=lambda r: (-len(set(r["symptoms"]) & told_syms), -SURE[r["sure"]]))
    if named:
        envs = named[:MAX_CAUSES]
        if {r["entry"] for r in envs} == {"torch.slow_setting"}:
            e = kb.by_id.get("torch.slow_setting") or e  # (the rows named are all of that entry: it answers)
    elif "slow" not in told_syms:
        envs = [r for r in table() if "slowstart" in r["symptoms"] and r["entry"] in _SLOW_ENTRIES and
                any(_ENV_NAME.match(k.upper()) and "_" in k for k in r["keys"])][:MAX_CAUSES]
    if not envs:
        return None
    names = sorted({k.upper() for r in envs for k in r["keys"]})
    from gpudoctor.explain.analyze import _finding
    from gpudoctor.explain.scan import Hit

    h = Hit(told[0], told[2], None, {}, None)
    m = {"hits": [h], "count": 1, "rank": e["rank"], "score": e["rank"], "first": told[0], "signal_hits": []}
    f = _finding(e, m, "root", scan)
    grep = "env | grep -E '%s'" % "|".join(names)
    for i, r in enumerate(envs):
        f["causes"].insert(i, {"text": "%s: %s (%s)." % ("/".join(dict.fromkeys(k.upper() for k in r["keys"])), r["what"],
                                                         r["source"]),
                               "checks": [], "confirm": [grep + "   (in the job, on both machines)"], "fix": [r["fix"]],
                               "exports": {}, "static_rank": 0, "computed": None, "evidence": []})
    f["debug"].insert(0, grep + "   (in the slow job and in the fast one: the difference is the cause)")
    f["notes"].insert(0, "How sure: low. Your words (line %d: %s) say the same code is slower here than elsewhere or "
                         "than before, and the text shows no setting: the environment differs. The settings below "
                         "are %s; compare them in both jobs." % (
                             told[0], _clip(told[2], 120),
                             "the ones your words name (%s) whose docs say they cost that" % ", ".join(
                                 sorted({SAID[x] for r in envs for x in r["symptoms"] if x in told_syms}))
                             if named else "the ones whose docs say they slow every step"))
    f["confidence"] = "family"
    f["from_words"] = True
    result["findings"].insert(0, f)
    result["verdict"], result["matched"], result["root"] = "root_cause", True, f["id"]
    return f


def _clip(s, n):
    s = " ".join(s.split())
    return s if len(s) <= n else s[:n - 3] + "..."

#!/usr/bin/env python3
"""Generate gpudoctor/data/torch_switches.json: the switches of a torch release that turn a part of it off or make it slower, read from the torch wheel's own Python.

Usage:
    python tools/gen_torch_switches.py --torch SITE-PACKAGES/torch [-o OUT]
    python tools/gen_torch_switches.py --slice tools/data/torch_switches_slice.txt [-o OUT]

--torch  an installed (or unzipped) torch wheel's package folder. Its files are read as text, never imported.

What is read (issue 18, words15):
- torch/_dynamo/config.py, torch/_inductor/config.py, torch/compiler/config.py: every configuration value that an
  environment variable sets (`name = os.environ.get("VAR", default) == "1"`, `os.getenv(...)`,
  `Config(env_name_force="VAR" / [...], env_name_default=...)`): the site is the variable, with the config name it
  sets, its default, the comparison that turns it on and the comment above it.
- torch/_dynamo/eval_frame.py: a variable read in the condition under which torch._dynamo.optimize returns
  `_NullDecorator()` (torch.compile then returns the function unchanged: TORCHDYNAMO_DISABLE).
- torch/utils/data/dataloader.py: the DataLoader docstring's arguments and their `(default: ...)`.

Which switches cost what (RULES, each naming the source statement it keys on):
- compile_off: the variable sets dynamo's `disable` ("# Disable dynamo") or is read where optimize() returns the
  no-op decorator: torch.compile does nothing, the model runs eagerly: slow, and "compile has no effect" as told;
- caches_off: the variable sets `force_disable_caches` (torch.compiler.config): every process compiles from scratch
  (no FX graph / autotune cache): a slow start every run;
- loader_not_persistent: the DataLoader's `persistent_workers`, whose docstring says that with True it "will not shut
  down the worker processes after a dataset has been consumed once" (default False): without it every epoch starts
  num_workers processes again (and runs worker_init_fn in each): a slow epoch start, every epoch.
Every other variable is a site without a family (listed in "unassigned"): it changes the compiler's choices, not
whether it runs. Only stdlib; run it again when torch releases.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

OUT = os.path.join(knowgen.ROOT, "gpudoctor", "data", "torch_switches.json")
FILES = ("_dynamo/config.py", "_inductor/config.py", "compiler/config.py", "_dynamo/eval_frame.py",
         "utils/data/dataloader.py", "version.py")
BLOB = "https://github.com/pytorch/pytorch/blob/%s/torch/%s#L%d"

# a configuration value set at column 0: `name = ...` or `name: type = ...`
ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]{0,80})\s{0,4}(?::[^=\n]{1,120})?=(?!=)")
ENV_GET = re.compile(r"(?:os\.environ\.get|os\.getenv|environ\.get|getenv)\(\s{0,4}\"([A-Z][A-Z0-9_]{2,80})\""
                     r"(?:\s{0,4},\s{0,4}([^)\n]{1,80}))?\)(\s{0,4}==\s{0,4}\"([^\"\n]{0,20})\")?")
ENV_CONFIG = re.compile(r"env_name_(force|default)\s{0,4}=\s{0,4}(\[[^\]]{1,400}\]|\"[A-Z][A-Z0-9_]{2,80}\")")
NAMES = re.compile(r"\"([A-Z][A-Z0-9_]{2,80})\"")
NULL_DECORATOR = re.compile(r"return _NullDecorator\(\)")
LOADER_ARG = re.compile(r"^\s{4,12}(\w{1,40}) \(([^)\n]{1,80})\):((?:.|\n(?!\s{4,12}\w{1,40} \())*)", re.M)
DEFAULT = re.compile(r"\(default: ``([^`]{1,40})``\)")

# the rules: (kind, test on the site's fields) -> what the row says; the fields are the source's own
RULES = (
    ("compile_off", lambda s: s["file"] == "_dynamo/config.py" and s["config"] == "disable"),
    ("compile_off", lambda s: s["file"] == "_dynamo/eval_frame.py" and s.get("null_decorator")),
    ("caches_off", lambda s: s["config"] == "force_disable_caches"),
    ("loader_not_persistent", lambda s: s["file"] == "utils/data/dataloader.py" and s["config"] == "persistent_workers"),
    # the comment above the statement says what it costs
    ("eager_fallback", lambda s: s["var"] and re.search(r"\bfallback to eager\b", s["comment"])),
    ("perf_hit", lambda s: s["var"] and re.search(r"\bexpect (?:a )?perf(?:ormance)? hit\b", s["comment"], re.I)),
    ("slow_autotune", lambda s: s["var"] and re.search(r"\benable slow autotuning\b", s["comment"])),
    ("debug_trace", lambda s: s["var"] and re.search(r"\bmaster switch for all debugging flags\b|\bcprofile trace of "
                                                     r"Dynamo\b|\bEnable Dynamo profiler\b", s["comment"])),
)

# a slowness told per epoch, or the first epoch told apart from the rest (what restarting the workers costs)
EPOCH_TOLD = (r"\b(?:every|each|per|after each|after every|start of (?:each|every)) epoch\b|\bepochs?\b[^.;\n]{0,120}"
              r"\b(?:only the first|the first one|first epoch)\b|\bbetween epochs\b|\bepoch boundar")

KIND = {
    "compile_off": {
        "family": "torch.slow_setting", "symptoms": ["slow", "nocompile"], "sure": "high",
        "what": "%(var)s=1 turns torch.compile off (%(said)s): torch.compile returns the model unchanged and it runs "
                "eagerly, with no graph capture, no Inductor kernels and no compile warm-up",
        "fix": "unset %(var)s (or %(var)s=0) in the job's environment and shell profile; set it only to rule the "
               "compiler out while debugging",
    },
    "caches_off": {
        "family": "torch.slow_setting", "symptoms": ["slow"], "sure": "low",
        "what": "%(var)s=1 forces torch.compile's caches off (%(said)s): every process compiles every graph from "
                "scratch (no FX graph or autotune cache), so each run pays the full compile time",
        "fix": "unset %(var)s so that compiled graphs are cached between runs",
    },
    "eager_fallback": {
        "family": "torch.slow_setting", "symptoms": ["slow", "nocompile"], "sure": "medium",
        "what": "%(var)s is set (%(said)s): a graph that fails to compile runs eagerly instead, with no error printed, "
                "so torch.compile may be doing nothing for the parts that fail",
        "fix": "unset %(var)s and run once: the compile error it hid is printed (fix it, or wrap only that region in "
               "torch.compiler.disable)",
    },
    "perf_hit": {
        "family": "torch.slow_setting", "symptoms": ["slow"], "sure": "medium",
        "what": "%(var)s=1 (%(said)s)",
        "fix": "unset %(var)s when bitwise-reproducible compiled kernels are not needed",
    },
    "slow_autotune": {
        "family": "torch.slow_setting", "symptoms": ["slow"], "sure": "low",
        "what": "%(var)s=1 turns on Inductor's slow autotuning (%(said)s): the first steps, and every new input shape, "
                "wait while candidate kernels are benchmarked",
        "fix": "unset %(var)s where the compile time does not pay off (short runs, changing shapes); keep "
               "mode='max-autotune' for long runs with fixed shapes",
    },
    "debug_trace": {
        "family": "torch.slow_setting", "symptoms": ["slow"], "sure": "low",
        "what": "%(var)s turns on torch.compile's debugging output (%(said)s): every compiled graph is traced, profiled "
                "or dumped to files, which slows compilation",
        "fix": "unset %(var)s for training runs",
    },
    "loader_not_persistent": {
        "family": "torch.slow_setting", "symptoms": ["slow"], "sure": "medium",
        "what": "the DataLoader has worker processes (num_workers > 0) but not persistent_workers=True (its default is "
                "%(default)s); the DataLoader docs, of persistent_workers=True: \"%(said)s\"; without it the workers are shut "
                "down after every epoch and num_workers processes (each running worker_init_fn and copying the "
                "Dataset) are started again at the next one: every epoch pays the start-up the first one pays",
        "fix": "DataLoader(..., num_workers=N, persistent_workers=True) (and keep worker_init_fn cheap)",
    },
}


def read_torch(root):
    files = []
    for rel in FILES:
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            files.append(("torch/" + rel, f.read()))
    return files


def version_of(files):
    for path, text in files:
        if path == "torch/version.py":
            v = re.search(r"__version__ = '([^']+)'", text)
            g = re.search(r"git_version = '([0-9a-f]{40})'", text)
            return "%s (git %s)" % (v.group(1) if v else "?", g.group(1) if g else "?")
    return "?"


def _comment_above(lines, i):
    out = []
    j = i - 1
    while j >= 0 and lines[j].lstrip().startswith("#") and len(out) < 6:
        out.insert(0, lines[j].strip().lstrip("#").strip())
        j -= 1
    return " ".join(x for x in out if x)


def _config_at(lines, i):
    """The configuration value whose statement holds line i: the nearest `name = ...` at column 0 at or above it
    (within 12 lines), and the comment above that statement."""
    for j in range(i, max(-1, i - 13), -1):
        m = ASSIGN.match(lines[j])
        if m:
            return m.group(1), j, _comment_above(lines, j)
        if j < i and lines[j][:1] not in (" ", "\t", ")", "]", "") and not lines[j].startswith("#"):
            break
    return None, i, _comment_above(lines, i)


def env_sites(path, text):
    rel = path[len("torch/"):]
    lines = text.splitlines()
    out = []
    for n, line in enumerate(lines):
        found = []
        for m in ENV_GET.finditer(line):
            default = (m.group(2) or "").strip()
            # `== "1"` turns it on; a bare read is Python truthiness: any non-empty value ('0' too) is on
            when = "=" + m.group(4) if m.group(3) else "any"
            found.append((m.group(1), default, when, "os.environ"))
        for m in ENV_CONFIG.finditer(line):
            for var in NAMES.findall(m.group(2)):
                found.append((var, "", "true", "Config(env_name_%s)" % m.group(1)))
        if "env_name_force=[" in line.replace(" ", "") and not found:  # a list on the next lines
            k = n + 1
            while k < len(lines) and "]" not in lines[k] and k < n + 8:
                for var in NAMES.findall(lines[k]):
                    found.append((var, "", "true", "Config(env_name_force)"))
                k += 1
        if not found:
            continue
        config, at, comment = _config_at(lines, n)
        near = "\n".join(lines[n:n + 4])
        for var, default, when, how in found:
            s = {"file": rel, "line": n + 1, "var": var, "config": config or "", "default": default, "when": when,
                 "read": how, "comment": comment[:300]}
            if rel == "_dynamo/eval_frame.py":
                s["config"] = "optimize"
                s["null_decorator"] = bool(NULL_DECORATOR.search(near))
            out.append(s)
    return out


def loader_sites(path, text):
    m = re.search(r"class DataLoader\b.*?\"\"\"(.*?)\"\"\"", text, re.S)
    if not m:
        return []
    doc = m.group(1)
    first = text[:m.start(1)].count("\n") + 1
    out = []
    for a in LOADER_ARG.finditer(doc):
        body = " ".join(a.group(3).split())
        d = DEFAULT.search(body)
        out.append({"file": path[len("torch/"):], "line": first + doc[:a.start()].count("\n") + 1, "var": "",
                    "config": a.group(1), "default": d.group(1) if d else "", "when": "",
                    "read": "DataLoader(%s=...)" % a.group(1), "comment": DEFAULT.sub("", body).strip()[:400]})
    return out


def _said(s):
    """The source's own words for a row: the comment above the statement, or the docstring's first sentence."""
    if s["file"] == "_dynamo/eval_frame.py":
        return "torch/_dynamo/eval_frame.py: optimize() returns _NullDecorator() when it is 1"
    if s["file"] == "utils/data/dataloader.py":
        return re.sub(r"^If ``True``, ", "", re.split(r"(?<=\.)\s", s["comment"])[0]).rstrip(".")
    if s["comment"]:
        return "torch/%s: '# %s'" % (s["file"], s["comment"][:220])
    return "torch/%s sets %s from it" % (s["file"], s["config"])


def build(files, version):
    git = re.search(r"git ([0-9a-f]{40})", version)
    ref = git.group(1) if git else "main"
    sites = []
    for path, text in files:
        if path.endswith("dataloader.py"):
            sites.extend(loader_sites(path, text))
        elif path.endswith(".py") and not path.endswith("version.py"):
            sites.extend(env_sites(path, text))
    ids = set()
    for s in sites:
        s["id"] = knowgen.unique_id(knowgen.slug("%s %s" % (s["var"] or s["config"], s["file"])), ids)
        s["where"] = "torch/%s:%d" % (s["file"], s["line"])
        s["source"] = BLOB % (ref, s["file"], s["line"])
        s["family"] = None
        kind = next((k for k, test in RULES if test(s)), None)
        if kind is None:
            continue
        k = KIND[kind]
        s["rule"] = kind
        s["family"] = k["family"]
        s["symptoms"] = list(k["symptoms"])
        s["sure"] = k["sure"]
        fill = {"var": s["var"], "said": _said(s), "default": s["default"] or "False"}
        s["what"] = k["what"] % fill
        s["fix"] = k["fix"] % fill
        if kind == "loader_not_persistent":
            s["keys"], s["when"] = [s["config"]], "false"
            s["absent_default"] = s["default"] or "False"  # the docstring's default is in effect where it is not set
            s["with"] = {"num_workers": ">0"}
            s["told_has"] = EPOCH_TOLD
        else:
            s["keys"] = [s["var"]]
            s["when"] = s["when"] if s["when"] != "true" else "true"
    for s in sites:
        s.pop("null_decorator", None)
        s["text"] = "%s -> %s" % (s["var"] or s["read"], s["config"])
    return {"header": knowgen.header("torch wheel: torch/_dynamo/config.py, torch/_inductor/config.py, "
                                     "torch/compiler/config.py, torch/_dynamo/eval_frame.py, "
                                     "torch/utils/data/dataloader.py", version, "tools/gen_torch_switches.py",
                                     "the environment variables and DataLoader arguments a torch release reads, each "
                                     "with the statement that reads it; 'rule' names the switches that turn a part "
                                     "of torch off or make every epoch or run pay a start-up cost"),
            "sites": sites}


def main(argv=None):
    a = knowgen.arguments(__doc__, argv, source="torch")
    if a.torch:
        files = read_torch(a.torch)
        version = version_of(files)
    else:
        files, version = knowgen.read_slice(a.slice)
    doc = build(files, version)
    missing = sorted({k for k, _t in RULES} - {s.get("rule") for s in doc["sites"]})
    if missing:
        a.error("rules that match no statement of this release (reworded upstream: move them by hand): %s" % missing)
    # (beside nccl_env.json, not in knowledge/generated/: these are settings settings.py reads, not message sites)
    return knowgen.emit("torch_switches", doc, a.out or OUT, what="switches")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

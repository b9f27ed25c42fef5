#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/slurm_env.json: every variable Slurm sets in a job's environment,
with the option that makes it set.

The "OUTPUT ENVIRONMENT VARIABLES" sections of sbatch(1), srun(1) and salloc(1) (doc/man/man1/*.1 of SchedMD/slurm)
list what the batch script (sbatch), each task (srun) and the allocation's shell (salloc) get, and say of many of
them "Only set if the --X option is specified" (SLURM_CPUS_PER_TASK, SLURM_GPUS_PER_NODE, SLURM_MEM_PER_GPU ...),
"Same as --X" or "Set to value of the --X option". A script that reads such a variable without the option fails
with no Slurm error at all: bash under `set -u` prints 'SLURM_CPUS_PER_TASK: unbound variable' (bash's
err_unboundvar; dash and zsh 'parameter not set'), Python's os.environ[...] a KeyError, and the job ends.

Each variable becomes one site (family slurm.job_env) that matches those three texts for its name, with what the
man pages say (`man`, per command `set_by`: "option", "always", "config", "step" for srun-only variables) and the
fix that follows from it (RULES below, by the kind): pass the option (#SBATCH --X=<value>), or read the variable
with a default (${VAR:-<default>}); an srun-only variable is read inside the step srun starts; a variable every
job has means the script ran outside Slurm.

Usage:
    python tools/gen_slurm_env.py --repo /path/to/slurm.git [--rev HEAD] [-o OUT] [--record]
    python tools/gen_slurm_env.py --slice tools/data/slurm_env_slice.txt -o OUT   (the test)

Source: SchedMD/slurm (https://github.com/SchedMD/slurm) doc/man/man1/sbatch.1, srun.1, salloc.1, read with
`git show REV:path`; the same text is https://slurm.schedmd.com/sbatch.html#SECTION_OUTPUT-ENVIRONMENT-VARIABLES.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_slurm_env.py"
SOURCE = "SchedMD/slurm (https://github.com/SchedMD/slurm) doc/man/man1/sbatch.1, srun.1, salloc.1"
COMMANDS = ("sbatch", "srun", "salloc")
FILES = tuple("doc/man/man1/%s.1" % c for c in COMMANDS)
SLICE = os.path.join(knowgen.DATA, "slurm_env_slice.txt")
SECTION = '.SH "OUTPUT ENVIRONMENT VARIABLES"'

# A variable's description says it is set only with an option, or from one ('Only set if the --X option is
# specified', 'Same as --X', 'Set to value of the --X option', 'Set to "prefer" if the --mem-bind option includes
# ...', 'Only set for plane distributions. See -m, --distribution', srun's '--mem-bind type (...)'): the options
# the description names; or only where the cluster is configured so; otherwise every job of that command has it.
_CONDITION = re.compile(r"^--[a-z]|only set\b|if specified|Same as|Set to\b|\bif (?:the )?--|specified with|"
                        r"(?:was|were|is) specified|Not set unless", re.I)
_CONFIG_SENTENCE = re.compile(r"only (?:set )?if the system has|set only if the system has", re.I)
_OPTION = re.compile(r"(?<![\w-])--[a-z](?:[a-z-]{0,40}[a-z])?(?![\w*-])")

# What the man page's paragraph does not say, from the code that sets it (src/common/env.c at the same revision):
# SLURM_ARRAY_* are set only for a task of a job array ('if (batch->array_task_id != NO_VAL)', --array); a
# heterogeneous job's SLURM_HET_SIZE only for a job of several components (': ' between them, sbatch(1)
# HETEROGENEOUS JOB SUPPORT); SLURM_JOB_RESERVATION ('..., if any') only in a reservation (--reservation).
NOT_IN_TEXT = [
    (r"^SLURM_ARRAY_", ["--array"]),
    (r"^SLURM_JOB_RESERVATION$", ["--reservation"]),
]

# Slurm's own default for an option whose variable is unset (the option's paragraph of sbatch(1)): what
# ${VAR:-<default>} stands for when the option is not given. --cpus-per-task: "Without this option, the controller
# will just try to allocate one processor per task."; --ntasks: "The default is one task per node".
DEFAULTS = {"SLURM_CPUS_PER_TASK": "1"}

# (rule, family, {"kind": regex over the kind}): every kind is a job's environment that lacks the variable.
RULES = [
    ("env", "slurm.job_env", {"kind": r"^(?:option|step|always|config)$"}),
]

# bash (variables.c err_unboundvar: '%s: unbound variable'; subst.c parameter_brace_expand_error: '%s: parameter
# null or not set' / '%s: parameter not set'), dash and zsh ('parameter not set'), CPython's os.environ[...]
# (os.py _Environ.__getitem__ raises KeyError(key): "KeyError: 'NAME'")
_SHELL = r"(?:unbound variable|parameter (?:null or )?not set)"


def troff_text(s):
    """A man page's troff source as plain words: font changes and escapes dropped, '\\-' a '-'."""
    s = s.replace("\\-", "-").replace("\\(aq", "'").replace("\\(dq", '"').replace("\\e", "\\")
    s = re.sub(r"\\f[BIRP]|\\fR|\\&|\\\(.{2}", "", s)
    lines = [ln for ln in s.splitlines() if not re.match(r"^\.(?:IP|PP|br|RS|RE|TP|LP|sp)\b", ln)]
    return " ".join(" ".join(lines).split())


def parse_section(text):
    """[(name, description)] of a man page's OUTPUT ENVIRONMENT VARIABLES section, in order: each '.TP' item whose
    first line is a variable name (SLURM_..., SBATCH_..., SALLOC_..., SRUN_...); SLURM_*_HET_GROUP_# is no name."""
    i = text.find(SECTION)
    if i < 0:
        return []
    body = text[i + len(SECTION):]
    j = re.search(r"^\.SH ", body, re.M)
    body = body[:j.start()] if j else body
    out = []
    for item in re.split(r"^\.TP(?: \d+)?\s*$", body, flags=re.M)[1:]:
        first, _, rest = item.strip("\n").partition("\n")
        names = re.findall(r"\\fB([A-Z][A-Z0-9_]{2,60})\\fR", first)
        if not names:
            continue
        desc = troff_text(rest)
        for n in names:
            if re.match(r"^(?:SLURM|SBATCH|SALLOC|SRUN|SLURMD)_", n):
                out.append((n, desc))
    return out


def kind_of(name, desc):
    """(kind, options) of one command's description: 'option' with the options its condition names, 'config',
    or 'always'."""
    for rx, opts in NOT_IN_TEXT:
        if re.search(rx, name):
            return "option", list(opts)
    if _CONFIG_SENTENCE.search(desc):
        return "config", []
    opts = []
    if _CONDITION.search(desc):
        for o in _OPTION.findall(desc):
            if o not in opts:
                opts.append(o)
    return ("option", opts) if opts else ("always", [])


def _fix(name, kind, opts, set_by):
    default = DEFAULTS.get(name, "<default>")
    dflt = "${%s:-%s}" % (name, default)
    if kind == "option":
        opt = opts[0]
        value = "" if re.search(r"^--(?:overcommit|oom-kill-step|hold)$", opt) else "=<value>"
        others = " (or %s)" % ", ".join(opts[1:]) if len(opts) > 1 else ""
        means = ("Slurm sets %s only when the job is given %s%s (sbatch(1) OUTPUT ENVIRONMENT VARIABLES): the script "
                 "read it in a job submitted without that option, so it is unset there; under `set -u` bash stops the "
                 "script at that line ('unbound variable'), Python's os.environ[...] raises KeyError." % (
                     name, opt, others))
        return means, ["pass the option: add '#SBATCH %s%s' to the #SBATCH lines at the top of the script, before its "
                       "first command (or sbatch %s%s <script>); Slurm sets %s only then" % (opt, value, opt, value,
                                                                                               name),
                       "or read it with a default where the script uses it: %s (Python: os.environ.get('%s', '%s'))"
                       % (dflt, name, default)]
    if kind == "step":
        means = ("srun sets %s in the environment of each task it starts (srun(1) OUTPUT ENVIRONMENT VARIABLES); the "
                 "batch script itself (sbatch) and salloc's shell are not a task of a step and do not have it." % name)
        return means, ["read %s inside the command srun starts: srun bash -c 'echo $%s; ...' (or in the program srun "
                       "runs), not in the batch script itself" % (name, name),
                       "or read it with a default where the script uses it: %s" % dflt]
    if kind == "config":
        means = ("Slurm sets %s only where the cluster's configuration provides it (%s(1)): on this cluster it is "
                 "not set." % (name, set_by))
        return means, ["read it with a default: %s, or ask the admins whether the cluster sets it" % dflt]
    means = ("Slurm sets %s in every job's environment (%s(1) OUTPUT ENVIRONMENT VARIABLES): unset means the "
             "script ran outside a Slurm job (bash <script> or ./<script> instead of sbatch <script>, on the login "
             "node) or in a shell that lost the job's environment (ssh to the node, env -i, sbatch --export with a "
             "list that leaves Slurm's variables out of a nested command)." % (name, set_by))
    return means, ["submit the script with sbatch <script> (or run it under srun / salloc), not bash <script>",
                   "to run it outside Slurm too, read it with a default: %s" % dflt]


# an option's header in sbatch(1)'s OPTIONS section: '\fB\-c\fR, \fB\-\-cpus\-per\-task\fR=<\fIncpus\fR>'
_ALIAS = re.compile(r"^\\fB\\-([A-Za-z])\\fR, \\fB\\-\\-([a-z][\w\\-]{0,60}?)\\fR", re.M)


def aliases(text):
    """{long option: short option} of a man page's option headers ('-c, --cpus-per-task')."""
    return {"--" + lng.replace("\\-", "-"): "-" + short for short, lng in _ALIAS.findall(text)}


def build(files, version):
    per = {}  # name -> {command: description}
    order = []
    short = {}
    for path, text in files:
        if path.endswith("sbatch.1"):
            short.update(aliases(text))
        cmd = os.path.basename(path)[:-2]
        for name, desc in parse_section(text):
            if name not in per:
                per[name] = {}
                order.append(name)
            per[name].setdefault(cmd, desc)
    sites = []
    for name in order:
        descs = per[name]
        set_by = {c: kind_of(name, descs[c]) for c in COMMANDS if c in descs}
        batch = "sbatch" if "sbatch" in set_by else ("salloc" if "salloc" in set_by else None)
        if batch is None:
            kind, opts, where = "step", [], "srun"
        else:
            (kind, opts), where = set_by[batch], batch
        if kind == "option" and not opts:
            kind = "always"
        site = {"id": "slurm.env.%s" % name.lower(), "name": name,
                "set_by": {c: k for c, (k, _) in set_by.items()}, "kind": kind, "options": opts,
                "short": [short[o] for o in opts if o in short],
                "man": descs.get(where, ""), "text": "%s: unbound variable" % name,
                "re": r"(?:\b%s: %s|KeyError: '%s')" % (re.escape(name), _SHELL, re.escape(name))}
        rule, family = knowgen.assign(RULES, None, {"kind": kind})
        site["family"], site["rule"] = family, rule
        if family:
            site["means"], site["fix"] = _fix(name, kind, opts, where)
        sites.append(site)
    return {"header": knowgen.header(SOURCE, version, GENERATOR,
                                     "the variables of the OUTPUT ENVIRONMENT VARIABLES sections and the option that "
                                     "sets each; families from the RULES table of the generator"), "sites": sites}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    return [(p, git("show", "%s:%s" % (rev, p))) for p in FILES], knowgen.slurm_release(git, rev)


def record(path, files, version):
    """The slice: each man page's OUTPUT ENVIRONMENT VARIABLES section as the page has it."""
    with open(path, "w") as f:
        f.write("# Recorded by %s --record: the OUTPUT ENVIRONMENT VARIABLES section of each man page\n"
                "#! version %s\n" % (GENERATOR, version))
        for p, text in files:
            i = text.find(SECTION)
            body = text[i:]
            j = re.search(r"^\.SH ", body[len(SECTION):], re.M)
            body = body[:len(SECTION) + j.start()] if j else body
            first = text[:i].count("\n") + 1
            f.write("=== %s @%d\n%s" % (p, first, body if body.endswith("\n") else body + "\n"))
            if p.endswith("sbatch.1"):  # the options' headers, for their short forms (aliases)
                for m in _ALIAS.finditer(text):
                    f.write("=== %s @%d\n%s\n" % (p, text[:m.start()].count("\n") + 1,
                                                   text[m.start():text.find("\n", m.start())]))


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="HEAD", extra=[
        ("--record", {"action": "store_true", "help": "write the slice (%s)" % SLICE})])
    files, version = knowgen.source_files(a, from_repo)
    if a.repo and a.record:
        record(SLICE, files, version)
    return knowgen.emit("slurm_env", build(files, version), a.out, "variables")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

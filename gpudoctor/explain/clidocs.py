"""What a command-line tool's man page says about the option it refused (clidocs20, issue 18).

A tool that refuses its command line names the option ('sbatch: error: Invalid --time specification', 'sbatch:
fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.', 'mpirun: Error: unknown option "--hosts"',
'rsync: --rsh-path=x: unknown option', 'command-line: line 0: Bad configuration option: proxyjunp') and rarely says
what the option accepts; its man page does. generated/cli_docs.json (tools/gen_cli_docs.py, read from the Debian
packages' man pages) holds each option's spellings, argument, first sentence and the sentences that constrain it, and
the configuration parameters (slurm.conf(5), ssh_config(5) ...) the description names.

When the text shows such a refusal (PATTERNS: the tool's own prefix - Slurm's 'sbatch: error:' / 'srun: fatal:',
glibc getopt's 'sbatch: unrecognized option', 'pdsh@host:', Open MPI's 'mpirun: Error:', rsync's, OpenSSH's
readconf.c 'line N: Bad configuration option', getopt's 'unknown option -- Z' under a 'usage: ssh' line) the root
finding that answers that line gets, as fix lines:
  - an option the message names, documented: its documented constraint, quoted with the page ("sbatch(1) --time
    <time>: ..."), and what a configuration parameter it names says (MaxArraySize of slurm.conf(5));
  - an option the message names that the page does not document (a misspelling, another MPI's option): the page's
    closest options with their first sentence;
  - an ssh_config keyword the message names: the keyword's documented text, or the closest documented keywords;
  - an option of the tool's command line shown in the text (or an #SBATCH line) whose own name is a word of the
    message ('Invalid job array specification' and --array=...): its constraint, after those the message names.
Options merely present on the command line are context: never a fix line. Nothing is added to a healthy log (only a
root finding is filled) and the family never changes.
"""

import difflib
import re
import shlex

_INDEX = None

_SLURM = r"sbatch|srun|salloc|scontrol|squeue|sacct|sinfo|scancel|sbcast|sattach|sacctmgr|sstat|strigger|sprio|sshare"
_TOOLS = _SLURM + r"|pdsh|pdcp|mpirun|mpiexec|orterun|ssh|scp|rsync|numactl|podman"
# getopt_long's own messages (glibc posix/getopt.c), after the program's name
_GETOPT = (r"unrecognized option|invalid option|unknown option|illegal option|option requires an argument|"
           r"option '[^'\n]{1,60}' (?:requires an argument|doesn't allow an argument|is ambiguous)")
_CMD = r"(?:^|[$#>][ \t]{1,4}|^\+{1,3}[ \t]|\$\(|[;&|][ \t]{0,4})(?P<tool>(?-i:%s))[ \t](?P<args>[^\n]{1,600})"
PATTERNS = {
    "_struct_cli_refusal": [
        # Slurm's commands (src/common/log.c: error() / fatal() with the program's name)
        r"(?<![\w./-])(?P<tool>(?-i:%s)): (?:error|fatal): (?P<msg>[^\n]{1,300})" % _SLURM,
        # getopt under the program's name: 'sbatch: unrecognized option '--arrray=1-3''
        r"(?<![\w./-])(?P<tool>(?-i:%s)): (?P<msg>(?:%s)[^\n]{0,200})" % (_TOOLS, _GETOPT),
        # pdsh's err() prefix (src/common/err.c '%p': pdsh@<host>)
        r"(?P<tool>(?-i:pdsh|pdcp))@[\w.-]{1,80}: (?P<msg>[^\n]{1,300})",
        # Open MPI's mpirun (opal/util/cmd_line.c: '%s: Error: unknown option "%s"')
        r"(?<![\w./-])(?P<tool>(?-i:mpirun|mpiexec|orterun)): (?P<msg>Error: [^\n]{1,300})",
        # rsync's option parser (options.c: 'rsync: %s: unknown option')
        r"(?<![\w./-])(?P<tool>(?-i:rsync)): (?P<msg>-[^\n:]{1,200}: unknown option)",
        # OpenSSH's readconf.c / servconf.c: '%s: line %d: Bad configuration option: %s' (parse_token / parse_token
        # of OpenSSH 9.2: './ssh_config: line 3:', '/etc/ssh/sshd_config: line 1:', 'command-line: line 0:'); older
        # releases and the 'Unsupported option' lines print '%s line %d:' without the colon
        r"(?P<where>[^\s:]{1,200}):? line \d{1,6}: (?P<msg>(?-i:Bad configuration option|Unsupported "
        r"option|Deprecated option)[^\n]{0,200})",
        # BSD getopt (OpenSSH): 'unknown option -- Z' with the program's 'usage: ssh ...' line below
        r"^(?P<msg>(?-i:unknown|illegal) option -- [^\n]{1,40})",
        # Go's cobra (podman): 'Error: unknown flag: --gpu'
        r"^Error: (?P<msg>unknown (?:shorthand )?flag: [^\n]{1,100})"],
    # a Slurm command's input environment variable set in the text: `env` / `printenv` output, an export, a command
    # prefix ('SBATCH_PARTITION=gpu sbatch ...'): fix22
    "_struct_slurm_env_set": [r"(?:^|[$#>][ \t]{1,4}|\bexport[ \t]{1,4}|\bdeclare -x[ \t]{1,4})"
                              r"(?P<var>(?-i:(?:SBATCH|SALLOC|SRUN)_[A-Z0-9_]{2,60}))=(?P<val>[\w.:,@%+/-]{1,200})"
                              r"(?=[ \t;]|$)"],
    # a command line of those tools (after a prompt, '+ ', a pipe or $( ... ), and a usage line that names the tool
    "_struct_cli_cmd": [
        _CMD % _TOOLS.replace("|ssh|scp", ""),
        (_CMD % "ssh|scp", ["ssh", "scp"]),  # (names of three letters: the needles given)
        r"^[ \t]{0,8}(?-i:[Uu]sage): (?P<usage>(?-i:%s))\b[^\n]{0,300}" % _TOOLS],
}
USER_LINES = frozenset(("_struct_cli_cmd",))


# sshd's own log lines that name the sshd_config keyword behind a refusal (fix22: the client says only "Permission
# denied (publickey)" or "administratively prohibited"; a pasted auth.log / journal / sshd -d names the rule):
# generated/sshd_log.json (tools/gen_sshd_log.py: the format strings of Debian 12's openssh-server 9.2p1 sshd, OpenSSH's
# auth.c / auth2-pubkey.c / serverloop.c), each format made a matcher as STYLE.md says (literals escaped, each
# conversion a bounded group)
def _printf_rx(fmt):
    out, k = [], 0
    for m in re.finditer(r"%[-#0 +]*(?:\d+)?(?:\.\d+)?(?:l{0,2}|z)([sdiuxc])", fmt):
        out.append(re.escape(fmt[k:m.start()]))
        out.append(r"-?\d{1,20}" if m.group(1) in "diux" else r"[^\n]{0,200}?")
        k = m.end()
    out.append(re.escape(fmt[k:]))
    return "".join(out)


def _sshd_sites():
    from gpudoctor import data

    try:
        doc = data.load("knowledge/generated/sshd_log") or {}
    except (OSError, ValueError):
        return []
    return [(s, re.compile(r"(?<![\w])" + _printf_rx(s["format"]) + r"(?: \[preauth\])?\s*$"))
            for s in doc.get("formats") or () if s.get("format") and s.get("keyword")]


_SSHD_SITES = _sshd_sites()
if _SSHD_SITES:
    PATTERNS["_struct_sshd_log"] = [rx.pattern for _s, rx in _SSHD_SITES]

_CMD_FAMILY = {"mpirun": "mpi", "mpiexec": "mpi", "orterun": "mpi", "pdsh": "pdsh", "pdcp": "pdsh", "ssh": "ssh",
               "scp": "ssh", "rsync": "ssh", "numactl": "numa", "podman": "container"}
# the families whose root a refusal of the tool may fill (besides a root that matched the refusal line itself)
_FAMILIES = {"slurm": ("slurm",), "mpi": ("mpi",), "pdsh": ("pdsh", "ssh"), "ssh": ("ssh", "pdsh"),
             "numa": ("numa",), "container": ("container", "oci")}
# a constraint sentence that says what the option takes, refuses or needs (ranked first)
_STRONG = re.compile(r"\b(?:must|only|maximum|minimum|mutually exclusive|requires?|cannot|can ?not|not allowed|"
                     r"may not|instead|one per line|no spaces|at (?:most|least)|not supported|unless|exceeds?|"
                     r"acceptable|formats?|of the form)\b", re.I)
_OPT = re.compile(r"(?<![\w/.])(--?[A-Za-z][A-Za-z0-9_-]{0,40})(?![\w])")
_QUOTED_OPT = re.compile(r"['\"`](--?[A-Za-z][A-Za-z0-9_-]{0,40})(?:=[^'\"`\n]{0,80})?['\"`]")
_GETOPT_SHORT = re.compile(r"(?:option|flag)s? -- '?([A-Za-z0-9])'?")
# a refusal of an option the program does not have (getopt, Open MPI's cmd_line.c, rsync, cobra)
_UNKNOWN = re.compile(r"\b(?:unrecognized|unknown|invalid|illegal) (?:option|flag|shorthand flag)\b", re.I)
_KEYWORD = re.compile(r"(?:Bad configuration option|Unsupported option|Deprecated option):? \"?([A-Za-z][\w-]{1,60})")
MAX_SENTENCES = 2
# Slurm's wrappers around the controller's reason (src/sbatch/sbatch.c, src/srun/allocate.c ...): their words are no
# option's; words of an option's name too common to name it alone
_WRAPPER = re.compile(r"^(?:Batch job submission failed|Unable to allocate resources|Job submit/allocate failed|"
                      r"Unable to create step for job \d{1,10}|Unable to create job step|Unable to confirm allocation "
                      r"for job \d{1,10})[: ]{0,3}", re.I)
_GENERIC = frozenset("job name node nodes task tasks per cpu cpus mem file list type count id min max".split())
MAX_QUOTE = 420


def table():
    """generated/cli_docs.json(.gz), read once per process (knowledge.generated_table keeps it)."""
    from gpudoctor.explain.knowledge import generated_table

    return generated_table("cli_docs")


def _index():
    """{tool: {form: key}} of the table's options."""
    global _INDEX
    if _INDEX is None:
        _INDEX = {t: {f: k for k, o in (rec.get("options") or {}).items() for f in o.get("forms") or [k]}
                  for t, rec in (table().get("tools") or {}).items()}
    return _INDEX


def option(tool, form):
    """(key, record) of a tool's documented option spelled ``form`` (any of its spellings), or None."""
    key = _index().get(tool, {}).get(form)
    if key is None:
        return None
    return key, table()["tools"][tool]["options"][key]


def closest(tool, form, n=3):
    """The documented spellings of the tool closest to ``form`` (a misspelling, another program's option)."""
    forms = list(_index().get(tool, {}))
    same = [f for f in forms if f.startswith("--") == form.startswith("--")]
    got = difflib.get_close_matches(form, same, n=n, cutoff=0.8)
    bare = form.lstrip("-")
    for f in forms:  # the same word with another number of dashes (Hydra's -hosts, Open MPI's --host / -host)
        if f.lstrip("-") == bare and f not in got:
            got.append(f)
    return got[:n]


def _hits(scan, key):
    return scan.matches.get(key, []) if scan is not None else []


def _clip(text, n=MAX_QUOTE):
    """Text safe to quote (advice.clean: no control or bidi characters, blanks folded; no backquote), at most n
    characters."""
    from gpudoctor.explain.advice import clean

    text = clean(text or "").replace("`", "'")
    return text if len(text) <= n else text[:n - 6].rstrip() + " [...]"


def _family(tool):
    return "slurm" if re.match(r"^(?:%s)$" % _SLURM, tool) else _CMD_FAMILY.get(tool.split(" ")[0])


def named_options(msg):
    """The options a refusal message names, in order: '--x' (quoted or not, '=value' cut), getopt's '-- 'Z''."""
    out = []
    for m in _QUOTED_OPT.finditer(msg):
        if m.group(1) not in out:
            out.append(m.group(1))
    for m in _OPT.finditer(msg):
        o = m.group(1)
        if o not in out and not re.match(r"^-\d", o) and (o.startswith("--") or len(o) == 2):
            out.append(o)
    for m in _GETOPT_SHORT.finditer(msg):
        if "-" + m.group(1) not in out:
            out.append("-" + m.group(1))
    return out


# a message that refuses the option's value (its form): the sentences that give the accepted forms first
_REFUSED_VALUE = re.compile(r"\b(?:invalid|specification|format|unrecognized|not recognized|bad|malformed|parse)\b",
                            re.I)
_OVER = re.compile(r"\b(?:exceeds?|exceeded|too (?:large|big|many|long)|more than|larger than|greater than|over|"
                   r"above|limits?)\b", re.I)
_LIMIT = re.compile(r"\b(?:maximum|minimum|exceeds?|limit|less than|greater than|at (?:most|least))\b", re.I)
_FORM = re.compile(r"\b(?:acceptable|formats?|of the form|e\.g\.|for example|valid values|one of|either)\b", re.I)


def _ranked(rec, value=None, msg=""):
    """The option's constraint sentences, those that say what it takes or refuses first; a sentence that mentions
    the value's leading character or form (pdsh's '^' file) before the others; for a message that refuses the value
    ('Invalid --time specification'), the sentences that give the accepted forms."""
    cons = list(rec.get("constraints") or [])
    lead = value[:1] if value and value[:1] in "^/-@:" else None
    form = bool(_REFUSED_VALUE.search(msg or ""))
    over = bool(_OVER.search(msg or ""))
    params = [p.split(" (")[0] for p in rec.get("params") or []]

    def key(s):
        return (not (lead and ("`%s'" % lead in s or "'%s'" % lead in s or '"%s"' % lead in s)),
                # a refused value: the cluster's limit a sentence names (MaxArraySize); a value over a limit ('exceeds
                # some limit'): the sentences about limits; else the accepted forms
                not (form and _LIMIT.search(s) and any(re.search(r"\b%s\b" % re.escape(p), s) for p in params)),
                not (over and _LIMIT.search(s)), not (form and _FORM.search(s)), not _STRONG.search(s))
    return sorted(cons, key=key)[:MAX_SENTENCES]


def _whole(sents, n):
    """The sentences, whole, while they fit in n characters (the first always, clipped only if it alone is longer)."""
    out = []
    for x in (x for x in sents if x):
        if out and len(" ".join(out + [x])) > n:
            break
        out.append(x)
    return _clip(" ".join(out), max(n, 80))


def _param_notes(tool, rec, sentences):
    """'<Param> (<page>): “first sentence”' of the configuration parameters the chosen sentences name."""
    out = []
    confs = table().get("conf") or {}
    for p in rec.get("params") or []:
        name, _, page = p.partition(" (")
        page = page[:-1]  # 'slurm.conf(5)'
        if not any(re.search(r"\b%s\b" % re.escape(name), s) for s in sentences):
            continue
        conf = confs.get(page.split("(")[0]) or {}
        prec = (conf.get("params") or {}).get(name)
        if prec:
            extra = [s for s in prec.get("constraints") or [] if _STRONG.search(s) or "default" in s.lower()][:2]
            out.append("%s, %s: \u201c%s\u201d" % (name, page, _whole([prec.get("first", "")] + extra, 240)))
    return out[:1]


def documented(tool, form, value=None, msg=""):
    """The fix line quoting what the tool's man page says of ``form``, or None when it documents no such option."""
    got = option(tool, form)
    if got is None:
        return None
    key, rec = got
    t = table()["tools"][tool]
    sents = _ranked(rec, value, msg)
    if not sents:
        sents = [rec.get("first", "")]
    forms = "/".join(rec.get("forms") or [key])
    arg = (" " + _clip(rec["arg"], 80)) if rec.get("arg") else ""
    line = "%s %s%s: \u201c%s\u201d" % (t["man"], forms, arg, _whole(sents, 320))
    params = _param_notes(tool, rec, sents)
    if params:
        line += " (%s)" % "; ".join(params)
    return line


def undocumented(tool, form):
    """The fix line for an option the tool's page does not document: its closest documented options."""
    t = (table().get("tools") or {}).get(tool)
    if not t:
        return None
    near = closest(tool, form)
    if not near:
        return None
    parts = []
    for f in near[:2]:
        key, rec = option(tool, f)
        arg = (" " + _clip(rec["arg"], 80)) if rec.get("arg") else ""
        parts.append("%s%s (\u201c%s\u201d)" % ("/".join(rec.get("forms") or [key]), arg,
                                                 _clip(rec.get("first", ""), 200)))
    return "%s is not an option of %s (%s, %s); the closest it documents: %s" % (
        form, tool, t["man"], t.get("package"), "; ".join(parts))


def keyword_line(where, word, msg=""):
    """The fix line for an ssh_config / sshd_config keyword a 'Bad configuration option' names (readconf.c /
    servconf.c); a 'Deprecated option' / 'Unsupported option' the page no longer documents is a line to remove."""
    page = "sshd_config" if "sshd" in (where or "") else "ssh_config"
    conf = (table().get("conf") or {}).get(page) or {}
    params = conf.get("params") or {}
    low = {k.lower(): k for k in params}
    k = low.get(word.lower())
    if k:
        rec = params[k]
        sents = [rec.get("first", "")] + [s for s in rec.get("constraints") or [] if _STRONG.search(s)][:2]
        return "%s(5) %s: \u201c%s\u201d" % (page, k, _clip(" ".join(s for s in sents if s)))
    if re.match(r"^(?:Deprecated|Unsupported) option", msg or ""):
        return "%s is not documented in %s(5) (%s): this OpenSSH no longer reads it; remove the line (or IgnoreUnknown " \
               "%s in ssh_config)" % (word, page, conf.get("package") or "openssh", word)
    near = [low[x] for x in difflib.get_close_matches(word.lower(), list(low), n=2, cutoff=0.75)]
    if not near:
        return None
    return "%s is not a keyword of %s(5); the closest documented: %s" % (
        word, page, "; ".join("%s (\u201c%s\u201d)" % (n, _clip(params[n].get("first", ""), 200)) for n in near))


def _words(text):
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def _shown_options(scan, tool, before):
    """[(form, value)] of the tool's command lines (and, for sbatch, the #SBATCH lines) the text shows above line
    ``before`` (the last such command line first)."""
    out = []
    base, _, sub = tool.partition(" ")  # ('podman run': podman's subcommand, its own options after it)
    cmds = [h for h in _hits(scan, "_struct_cli_cmd") if h.groups.get("tool") == base and h.line <= before]
    lines = [h.groups.get("args") or "" for h in sorted(cmds, key=lambda h: -h.line)]
    if sub:
        lines = [a.split(None, 1)[1] if a.split()[:1] == [sub] and len(a.split()) > 1 else "" for a in lines]
    if tool == "sbatch":
        lines += [re.sub(r"^[ \t]*#SBATCH[ \t]+", "", h.text) for h in _hits(scan, "_struct_sb_directive")
                  if h.line <= before]
    for args in lines[:8]:
        try:
            words = shlex.split(args[:600], comments=True)
        except ValueError:
            words = args[:600].split()
        i = 0
        while i < len(words) and len(out) < 40:
            w = words[i]
            if not w.startswith("-") or w == "-" or w == "--":
                if w == "--" or (i > 0 and not words[i - 1].startswith("-")):
                    break  # the program or script the tool runs (srun python train.py --time 5): its options are its own
                i += 1
                continue
            form, eq, val = w.partition("=")
            if not eq:
                got = option(tool, form)
                takes = got is not None and bool(got[1].get("arg")) and not got[1]["arg"].startswith("[")
                if takes and i + 1 < len(words):
                    val = words[i + 1]
                    i += 1
                elif got is None and len(form) > 2 and not form.startswith("--") and option(tool, form[:2]):
                    form, val = form[:2], form[2:]  # '-wnode1', '-N2'
            out.append((form, val))
            i += 1
    return out


_ENV_VAR = re.compile(r"\b((?:SLURM|SBATCH|SALLOC|SRUN)_[A-Z0-9_]{2,60})\b")


def env_line(tool, var):
    """The fix line for an input environment variable a Slurm command's message names: the option its page says it
    stands for, and, for srun, that sbatch / salloc put it in the job's environment (so every step inherits it)."""
    t = (table().get("tools") or {}).get(tool) or {}
    rec = (t.get("env_in") or {}).get(var)
    if not rec or not rec.get("options"):
        return None
    opt = rec["options"][0]
    line = "%s reads %s from its environment as %s (INPUT ENVIRONMENT VARIABLES: \u201c%s\u201d)" % (
        t.get("man", tool), var, opt, _clip(rec.get("first", ""), 160))
    setters = [c for c in ("sbatch", "salloc") if c != tool and var in ((table().get("tools") or {}).get(c) or {}).get(
        "env_out", [])]
    if tool == "srun" and setters:
        line += ("; %s set it in the job's environment (OUTPUT ENVIRONMENT VARIABLES), so every srun of the job inherits "
                 "the job's %s: unset %s before this srun (or drop %s from the job's #SBATCH options) when the step "
                 "should not have it" % (" and ".join(setters), opt, var, opt))
    return line


# sbatch(1) / salloc(1), INPUT ENVIRONMENT VARIABLES (Slurm 22.05, https://slurm.schedmd.com/sbatch.html#SECTION_INPUT-
# ENVIRONMENT-VARIABLES): "NOTE: Environment variables will override any options set in a batch script, and command
# line options will override any environment variables."; srun(1): "Command line options always override environment
# variables settings."
_ENV_OVER = {"sbatch": "environment variables override the options set in a batch script (#SBATCH), and command line "
                       "options override environment variables",
             "salloc": "command line options override environment variables",
             "srun": "command line options always override environment variables settings"}


def env_value_line(scan, tool, msg):
    """'unset SBATCH_PARTITION': the value a Slurm command refused is the value of one of its input environment
    variables the text shows set (env / export / a command prefix), so that variable gave it - over the script's
    #SBATCH line for sbatch (sbatch(1)). None when no such variable's value is a word of the message."""
    t = (table().get("tools") or {}).get(tool) or {}
    env_in = t.get("env_in") or {}
    words = set(re.findall(r"[\w.:,@%+/-]{2,200}", msg))
    named = set(named_options(msg))
    for h in _hits(scan, "_struct_slurm_env_set"):
        var, val = h.groups.get("var"), h.groups.get("val") or ""
        rec = env_in.get(var)
        if not rec or not rec.get("options") or len(val) < 2:
            continue
        if val not in words and not named & set(rec["options"]):
            continue  # (neither the value the command refused nor the option it names)
        opt = rec["options"][-1]
        shown = [v for f, v in _shown_options(scan, tool, 10 ** 9) if f in rec["options"] and v and v != val and
                 re.fullmatch(r"[\w.:,@%+/-]{1,60}", v)]  # (a plain word only: the line is pasted; security.md 44.)
        over = (" (the %s=%s the script or the command line shows is not what %s used)" % (opt, _clip(shown[0], 60),
                                                                                       tool)) if shown else ""
        why = "the value %s refused" % tool if val in words else "the %s %s refused" % (opt, tool)
        return ("unset %s (line %d sets it to %s, %s): %s reads it as %s (%s, INPUT ENVIRONMENT "
                "VARIABLES: \u201c%s\u201d), and %s%s; or give %s on the command line" % (
                    var, h.line, _clip(val, 60), why, tool, opt, t.get("man", tool), _clip(rec.get("first", ""), 80),
                    _ENV_OVER.get(tool, "command line options override environment variables"), over, opt))
    return None


def advise(scan, hit, tool):
    """The fix lines for one refusal line (its Hit) of ``tool``: [(line, named)] (named: the message names it)."""
    msg = hit.groups.get("msg") or ""
    out = []
    if hit.groups.get("where") is not None:
        m = _KEYWORD.search(msg)
        line = keyword_line(hit.groups.get("where"), m.group(1), msg) if m else None
        return [(line, True)] if line else []
    shown = _shown_options(scan, tool, hit.line)
    values = {}
    for f, v in shown:
        values.setdefault(f, v)
    for var in list(dict.fromkeys(_ENV_VAR.findall(msg)))[:2]:
        line = env_line(tool, var)
        if line:
            out.append((line, True))
    line = env_value_line(scan, tool, msg)
    if line:
        out.append((line, "first"))  # (the text shows where the refused value came from: the cause, first)
    named = named_options(msg)
    for form in named[:2]:
        got = option(tool, form)
        if got is None and not _UNKNOWN.search(msg):
            continue  # (an option of another release that the message names: not this page's to correct)
        if got is None:
            line = undocumented(tool, form)
        else:
            value = next((values[f] for f in (got[1].get("forms") or []) if f in values), None) if got else None
            line = documented(tool, form, value, msg)
        if line and all(line != x for x, _ in out):
            out.append((line, True))
    if out:
        return out[:2]
    # an option of the tool's command line whose own name is a word of the message ('Invalid job array
    # specification' and --array=0-5000; 'Requested time limit is invalid' and --time=...)
    words = _words(_WRAPPER.sub("", msg))
    seen = set()
    for form, value in shown:
        got = option(tool, form)
        if got is None or got[0] in seen:
            continue
        seen.add(got[0])
        parts = [p for p in got[0].lstrip("-").split("-") if p]
        if not parts or not all(len(p) >= 3 and p in words for p in parts) or all(p in _GENERIC for p in parts):
            continue
        # (only a documented constraint: a page that says nothing the option must or may not be gives no fix)
        if not any(_STRONG.search(x) or _LIMIT.search(x) for x in _ranked(got[1], value, msg)):
            continue
        line = documented(tool, form, value, msg)
        if line:
            out.append((line, False))
    return out[:2]


def _tool_of(scan, hit):
    tool = hit.groups.get("tool")
    if tool:
        return tool
    if hit.groups.get("where") is not None:
        return "ssh"
    # (getopt's / cobra's message without a name: the usage line below it, else the command line above it)
    near = [h for h in _hits(scan, "_struct_cli_cmd") if h.groups.get("usage") and 0 <= h.line - hit.line <= 3]
    if near:
        return near[0].groups["usage"]
    above = [h for h in _hits(scan, "_struct_cli_cmd") if h.groups.get("tool") and h.line <= hit.line]
    if not above:
        return None
    last = max(above, key=lambda h: h.line)
    sub = (last.groups.get("args") or "").split()[:1]
    if last.groups["tool"] == "podman" and sub and sub[0] in ("run", "create"):
        return "podman " + sub[0]  # (podman-run(1) documents run's and create's options)
    return last.groups["tool"]


# a shell capture of sbatch's output: V=$(sbatch ...) / V=`sbatch ...`
_CAPTURE = re.compile(r"\b([A-Za-z_]\w{0,40})=(?:\$\(|`)[ \t]{0,4}sbatch\b([^\n)`]{0,400})")


def captured_id(scan, refusals):
    """The fix line for a script that keeps sbatch's answer as the job id: a line V=$(sbatch ...) without --parsable
    (and without a pipe that cuts the id out), a later command line that passes $V, and a Slurm command's refusal
    after that line. sbatch prints 'Submitted batch job <id>' (src/sbatch/sbatch.c), so $V holds the sentence and the
    command that gets it reads its words as arguments; sbatch(1) --parsable prints the id alone. None otherwise."""
    cmds = _hits(scan, "_struct_cli_cmd")
    for h in cmds:
        m = _CAPTURE.search(h.text)
        if not m or "--parsable" in m.group(2) or "|" in m.group(2):
            continue
        var = m.group(1)
        uses = [u for u in cmds if u.line > h.line and re.search(r"\$\{?%s\b" % re.escape(var), u.text)]
        later = [r for r in refusals if r.line > h.line and _family(_tool_of(scan, r) or "") == "slurm"]
        if not uses or not later:
            continue
        got = option("sbatch", "--parsable")
        doc = " ".join([got[1].get("first", "")] + list(got[1].get("constraints") or [])[:1]) if got else ""
        line = h.text.strip()[:300]
        # (after the '=': a variable named sbatch_id gave 'sbatch --parsable_id=$(sbatch ...)', redteam22)
        head = m.group(0)[:len(var) + 1]
        edit = line.replace(m.group(0), head + m.group(0)[len(head):].replace("sbatch", "sbatch --parsable", 1), 1)
        # (the line is the log's: shown edited only where, pasted, it runs the capture's sbatch and nothing else:
        # fixline.inert of its sbatch words and of the line with the capture taken out; red team 2026-11-27b:
        # 'JOB=$(sbatch x.sh; touch PWN)' gave a fix line that ran touch)
        from gpudoctor.fixline import inert, sh

        k = line.find(m.group(0))
        close = line[k + len(m.group(0)):k + len(m.group(0)) + 1]
        rest = line[:k] + "%s=x" % var + line[k + len(m.group(0)) + 1:]
        # (mutation21) and the line is the assignment alone: 'JOB=$(sbatch ...) x.sh' runs x.sh with JOB in its
        # environment, which inert() cannot see (it judges what the shell runs besides, not a command word)
        tail = line[k + len(m.group(0)) + 1:].strip()
        alone = line[:k].strip() in ("", "export", "local", "readonly", "declare") and (not tail or tail[0] == "#")
        if not (close in (")", "`") and alone and inert("sbatch" + m.group(2)) and inert(rest) and len(edit) <= 200):
            edit = "%s=$(sbatch --parsable <its options and script>)" % var
        use = _clip(uses[0].text.strip(), 160)
        return ("keep only the job id: %s (sbatch(1) --parsable: \u201c%s\u201d); without it sbatch prints "
                "'Submitted batch job <id>', so $%s holds that sentence and %s passes its words on" % (
                    edit, _clip(doc, 200), var, "'%s'" % use if sh(use) == use else sh(use)))
    return None


# a target pdsh names in its own prefix ('pdsh@vm: slots=2: ssh exited ...') that no host name is: a number, a
# 'key=value' word (a hostfile's other columns: DeepSpeed's / Open MPI's 'host slots=N', a rank column)
_NOT_A_HOST = re.compile(r"^(?:\d{1,6}|[A-Za-z_]{1,20}=[^\s:]{0,40})$")


def pdsh_file(scan, refusals):
    """The fix line for pdsh -w ^FILE whose file has more than the host names: pdsh(1) reads it as a list of hosts,
    one per line, so a number or a 'slots=N' of the file becomes a target pdsh names in its own prefix
    ('pdsh@vm: slots=2: ssh exited with exit code 255'). None otherwise."""
    bad = []
    for r in refusals:
        if (r.groups.get("tool") or "") not in ("pdsh", "pdcp"):
            continue
        target = (r.groups.get("msg") or "").split(": ", 1)[0].strip()
        if _NOT_A_HOST.match(target) and target not in bad:
            bad.append(target)
    if not bad:
        return None
    last = max(r.line for r in refusals)
    files = [v for f, v in _shown_options(scan, "pdsh", last) if f == "-w" and v.startswith("^") and len(v) > 1]
    if not files:
        return None
    path = files[0][1:]
    got = option("pdsh", "-w")
    doc = next((x for x in (got[1].get("constraints") or []) if "`^'" in x), "") if got else ""
    if not doc or len(path) > 200:
        return None
    from gpudoctor.fixline import shown_word

    # (review20) the file's name as one shell word each time: the name comes from the pasted command line, and a
    # '$(...)' or a quote in it must not run or end a quote when the fix line is pasted
    src, hosts = shown_word(path), shown_word(path + ".hosts")
    return ("give pdsh a file of host names alone: awk '{print $1}' %s > %s && pdsh -w ^%s ... (pdsh(1) "
            "-w: \u201c%s\u201d); the file's other columns became targets: %s" % (
                src, hosts, hosts, _clip(doc, 200), ", ".join("'%s'" % _clip(b, 40) for b in bad[:3])))


# pdsh's rsh-protocol connect (src/modules/xrcmd.c, mcmd.c: err("%p: %S: connect: %m\n")): the target and the C
# library's text, no 'ssh' in it (the ssh module runs ssh, whose own failures say 'ssh: connect to host ...')
_RSH_CONNECT = re.compile(r"^(?P<host>[^\s:]{1,100}): connect: (?P<why>[^\n]{1,80})$")


def pdsh_rcmd(scan, refusals):
    """The fix line for pdsh connecting with an rsh-protocol module (Debian's pdsh defaults to rsh: 'pdsh -V' says
    'rcmd modules: ssh,rsh,exec (default: rsh)') to nodes that run only sshd: its own 'connect:' failure, and the
    command line shown gives no -R ssh. pdsh(1) -R names the module and PDSH_RCMD_TYPE. None otherwise."""
    got = [(r, _RSH_CONNECT.match((r.groups.get("msg") or "").strip())) for r in refusals
           if (r.groups.get("tool") or "") == "pdsh"]
    got = [(r, m) for r, m in got if m]
    if not got:
        return None
    last = max(r.line for r, _ in got)
    chosen = [v for f, v in _shown_options(scan, "pdsh", last) if f == "-R"]
    if chosen and chosen[0] == "ssh":
        return None
    opt = option("pdsh", "-R")
    if opt is None:
        return None
    doc = _whole([opt[1].get("first", "")] + [x for x in opt[1].get("constraints") or [] if "PDSH_RCMD_TYPE" in x],
                 200)
    which = ("-R %s" % chosen[0]) if chosen and re.match(r"^[a-z0-9]{1,20}$", chosen[0]) else \
        "its default rcmd module (pdsh -V prints it; rsh in the pdsh 2.34 of Debian 12)"
    from gpudoctor.fixline import sh

    # (the log's words between quotes: one sh() word, never quotes of our own around them: a reason holding a quote
    # closed them, docs/security.md 45.)
    return ("pdsh connected with %s: %s is an rsh-protocol module's own failure (rsh, mrsh), not ssh's; "
            "run it over ssh: pdsh -R ssh -w ... or export PDSH_RCMD_TYPE=ssh (pdsh(1) -R: \u201c%s\u201d)" % (
                which, sh("connect: " + _clip(got[0][1].group("why"), 60)), doc))


def sshd_rule(scan, f, most=2):
    """The sshd_config keyword sshd's own log line names (a refused login or forwarding) as the first fix line of an
    ssh / pdsh root's first cause: "sshd refused it by its PermitRootLogin (sshd_config(5): ...): <what to do>"."""
    fixes = f["causes"][0].setdefault("fix", [])
    seen = []
    for hit in _hits(scan, "_struct_sshd_log"):
        site = next((s for s, rx in _SSHD_SITES if rx.search(hit.text)), None)
        if site is None or site["keyword"] in seen:
            continue
        seen.append(site["keyword"])
        from gpudoctor.fixline import hostile, shown_word

        said = _clip(hit.text.strip(), 160)  # (the log's line, in a fix line: one word where a shell acts on it, 44.)
        line = "sshd refused it by its %s (line %d: %s; %s, openssh-server: \u201c%s\u201d): %s" % (
            site["keyword"], hit.line, shown_word(said) if hostile(said) else said, site.get("page", "sshd_config(5)"),
            _clip(site.get("doc", ""), 300), site["do"])
        if line not in fixes:
            fixes.insert(len(seen) - 1, line)
        if len(seen) >= most:
            break


def fill(scan, findings):
    """Add the documented constraint of the option a tool refused to the root finding that answers the refusal."""
    f = findings[0] if findings else None
    if f is None or f.get("role") != "root" or not f.get("causes"):
        return
    fam = (f.get("family") or f.get("id") or "").split(".")[0]
    if fam in ("ssh", "pdsh"):
        sshd_rule(scan, f)
    refusals = _hits(scan, "_struct_cli_refusal")
    if not refusals:
        return
    lines = {m.get("line") for m in f.get("matches") or []}
    first = f["causes"][0]
    fixes = first.setdefault("fix", [])
    added = 0
    if fam == "slurm":
        line = captured_id(scan, refusals)
        if line and line not in fixes:
            fixes.insert(min(1, len(fixes)), line)
            added += 1
    if fam in ("pdsh", "ssh"):
        line = pdsh_file(scan, refusals)
        if line and line not in fixes:
            fixes.insert(0, line)  # (the text shows the hostfile's columns as targets: this is the cause)
            added += 1
        line = pdsh_rcmd(scan, refusals)
        if line and line not in fixes:
            fixes.insert(min(1, len(fixes)), line)
            added += 1
    for hit in refusals[:4]:
        tool = _tool_of(scan, hit)
        if not tool:
            continue
        tfam = _family(tool) or ("ssh" if hit.groups.get("where") is not None else None)
        if hit.line not in lines and fam not in _FAMILIES.get(tfam, ()):
            continue  # a refusal the root does not answer
        for line, named in advise(scan, hit, tool):
            if line in fixes or added >= 3:
                continue
            # the option the message names: its documentation is the next thing to do after the cause's own first
            # fix; one the message only names as a word: after the cause's fixes
            fixes.insert(0 if named == "first" else min(1 + added, len(fixes)) if named else len(fixes), line)
            added += 1

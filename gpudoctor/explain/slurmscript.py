"""A Slurm batch script's own rules and a job's state, read from the text around the failure (issue 18, slurm19):
the concrete edit for failures that Slurm reports with no error of its own, or with one that does not say what to
change.

- a variable Slurm sets only with an option (generated/slurm_env.json, from sbatch(1) / srun(1) / salloc(1)) that
  the script read unset ('SLURM_CPUS_PER_TASK: unbound variable', KeyError): when the script shows that option on an
  #SBATCH line after its first command (explain/launchctx.py reads those: sbatch stops reading #SBATCH lines
  there), the fix is to move that line up; the script's line that reads the variable is shown rewritten with
  ${VAR:-default};
- sbatch's 'Invalid directive found in batch script: W' (src/sbatch/opt.c _opt_batch_script): each #SBATCH line is
  split into words at blanks unless quoted (get_argument), so an unquoted value with a blank makes its second word
  a directive of its own: the #SBATCH line shown with that value, quoted;
- sbatch's 'Script arguments not permitted with --wrap option' (src/sbatch/opt.c): --wrap makes the batch script
  from its string, so a script file (and its arguments) after it is refused: the user's sbatch line without --wrap
  (submit the script) and without the script (submit the wrapped command);
- a pending job's id: <JOBID> in the fix lines of a Slurm root is the job the text shows (its squeue row, JobId=,
  'Submitted batch job N') when the text shows exactly one (<PARTITION>, <QOS>, <ACCOUNT> likewise, from the squeue
  row, scontrol's fields or the #SBATCH options); and whether the text shows that job running or done
  after its pending line (waits.py: slurm_script.toml's slurm.pending_requested, resolved_by_job).

analyze.analyze calls fill() after the other fills; waits.unresolved calls job_unresolved().
"""

import re
import shlex

from gpudoctor.fixline import first_active, inert, sh



def _option_words():
    """The options (long and short) that make Slurm set a variable (generated/slurm_env.json), as a regex
    alternation: an #SBATCH line or an sbatch command line that carries one sets that variable."""
    from gpudoctor.explain.knowledge import read_generated  # (late: knowledge imports this module)

    try:
        sites = read_generated("slurm_env")["sites"]
    except (OSError, ValueError, KeyError):
        sites = []
    words = sorted({o for s in sites if s.get("kind") == "option" for o in s.get("options", []) + s.get("short", [])},
                   key=lambda o: (-len(o), o))
    return "|".join(re.escape(o) for o in words) or "--cpus-per-task"

# Each pattern ends at its line's end ('\n'): a two-line pattern is searched on its line and the next one joined by a
# line break (scan.py _search_text), so its match stays on its own line; a one-line pattern may be tried on a line
# joined to the next as if wrapped, and '#SBATCH --job-name=x' + 'python3 -c ...' would read '-c' as an option.
PATTERNS = {
    # an #SBATCH line whose unquoted value is followed by another word that is no option and no comment
    "_struct_sb_spaced": [r"^[ \t]{0,8}#SBATCH[ \t]{1,8}(?P<opt>--?[A-Za-z][\w-]{0,40})(?P<sep>[= ])"
                          r"(?P<val>[^\s\"'#-][^\s\"'=]{0,200})[ \t]{1,8}(?P<rest>[^\s#-][^\n#]{0,200}?)[ \t\r]{0,8}\n"],
    # the user's sbatch command line with --wrap
    "_struct_sb_wrap": [r"\bsbatch[ \t][^\n]{0,400}--wrap\b[^\n]{0,600}\n"],
    # a script line that reads a Slurm variable (bash $VAR / ${VAR}, Python os.environ['VAR'])
    "_struct_sb_varuse": [r"\$\{?SLURM_(?P<var>[A-Z0-9_]{2,60})\b[^\n]{0,400}\n",
                          r"\benviron\[[\"']SLURM_(?P<var>[A-Z0-9_]{2,60})[\"']\][^\n]{0,400}\n"],
    # an #SBATCH line, and one that carries an option that makes Slurm set a variable; the user's sbatch command line
    "_struct_sb_directive": [r"^[ \t]{0,8}#SBATCH[ \t][^\n]{0,400}\n"],
    "_struct_sb_optline": [r"^[ \t]{0,8}#SBATCH[ \t][^\n]{0,300}?(?<![\w-])(?P<opt>%s)(?![\w-])[^\n]{0,300}\n"
                           % _option_words()],
    "_struct_sb_cmd": [r"(?:^|[$#>][ \t]{1,4})(?:sbatch|srun|salloc)[ \t][^\n]{1,400}\n"],
    # an #SBATCH line that names nodes to run on or to leave out
    "_struct_sb_nodes": [r"^[ \t]{0,8}#SBATCH[ \t][^\n]{0,300}?(?<![\w-])(?:--nodelist|--exclude|-w|-x)\b[^\n]{0,300}\n"],
    # the job's partition, QOS and account where the text shows them: scontrol's fields, the #SBATCH options
    "_struct_sb_part": [r"\bPartition=(?P<v>[\w.-]{1,60})\b[^\n]{0,400}\n",
                        r"^[ \t]{0,8}#SBATCH[ \t][^\n]{0,200}?(?:--partition[= ]|-p[ \t]{1,4})(?P<v>[\w.-]{1,60})[^\n]{0,200}\n"],
    "_struct_sb_qos": [r"\bQOS=(?P<v>[\w.-]{1,60})\b[^\n]{0,400}\n",
                       r"^[ \t]{0,8}#SBATCH[ \t][^\n]{0,200}?--qos[= ](?P<v>[\w.-]{1,60})[^\n]{0,200}\n"],
    "_struct_sb_acct": [r"\bAccount=(?P<v>[\w.-]{1,60})\b[^\n]{0,400}\n",
                        r"^[ \t]{0,8}#SBATCH[ \t][^\n]{0,200}?(?:--account[= ]|-A[ \t]{1,4})(?P<v>[\w.-]{1,60})[^\n]{0,200}\n"],
    # a job's id where the text names it: scontrol's block head, sbatch's answer
    "_struct_sb_jobid": [r"\bJobId=(?P<id>\d{1,10})\b[^\n]{0,400}\n", r"\bSubmitted batch job (?P<id>\d{1,10})\b[^\n]{0,200}\n"],
    # a job's state: scontrol's JobState=, sacct's / squeue -l's state column on a row that starts with the job id
    "_struct_sb_state": [r"\bJobState=(?P<state>[A-Z_]{3,20})\b[^\n]{0,400}\n",
                         r"^[ \t]{0,20}(?P<id>\d{1,10})(?:\.[\w+-]{1,20})?[ \t][^\n]{0,200}?"
                         r"\b(?P<state>RUNNING|COMPLETED|COMPLETING)\b[^\n]{0,200}\n"],
    # a command that reads a file whose name carries a job id (slurm-24.out, train-24.out, eval_24.log): Slurm
    # creates the job's --output / --error file (default slurm-%j.out; %j is the job id, sbatch(1) filename pattern)
    # when the job starts (slurmstepd opens it at launch), so its content shown means that job ran; coreutils' 'No
    # such file or directory' for it means it did not
    "_struct_sb_outfile": [r"^(?:\$|[\w.-]{1,40}@[^\s$#]{0,200}[$#])[ \t]{1,4}(?:cat|tail|head|less|more|grep)\b"
                           r"[^\n]{0,200}?[-_.](?P<id>\d{1,10})(?:_\d{1,6})?\.(?:out|err|log)\b[^\n]{0,200}\n",
                           r"\b(?:cat|tail|head|grep): (?:cannot open )?'?[^\n:']{0,200}?[-_.](?P<id>\d{1,10})(?:_\d{1,6})?"
                           r"\.(?:out|err|log)'?(?: for reading)?: (?P<missing>No such file or directory)"],
}

# the patterns above that read the user's own lines (a batch script's, a command line), not a program's output: a
# symptom told in words on such a line is still the user's (symptoms._program_lines)
USER_LINES = frozenset(("_struct_sb_spaced", "_struct_sb_wrap", "_struct_sb_varuse", "_struct_sb_directive",
                        "_struct_sb_optline", "_struct_sb_cmd", "_struct_sb_nodes", "_struct_sb_outfile"))

_RAN = ("RUNNING", "COMPLETING", "COMPLETED")
_ROW_ID = re.compile(r"^[ \t]{0,20}(\d{1,10})(?:_\S{1,40})?[ \t]")
_JOBID = re.compile(r"\bJobId=(\d{1,10})\b")
_UNBOUND = re.compile(r"\b((?:SLURM|SBATCH|SALLOC|SRUN)[A-Z0-9_]{0,60}): (?:unbound variable|parameter (?:null or )?"
                      r"not set)|KeyError: '((?:SLURM|SBATCH|SALLOC|SRUN)[A-Z0-9_]{0,60})'")
_PROMPT = re.compile(r"^(?:\$|[\w.-]{1,40}@[\w.-]{1,60}:\S{0,200}[$#]|\+{1,3}|>{1,3})[ \t]{1,4}")


def _hits(scan, key):
    return scan.matches.get(key, []) if scan is not None else []


def _job_of(scan, line, text):
    """The job id of a pending line: its squeue row's leading id, else the JobId= of the scontrol block above it."""
    m = _ROW_ID.match(text) or _JOBID.search(text)
    if m:
        return m.group(1)
    above = [h for h in _hits(scan, "_struct_sb_jobid") if h.line <= line and "JobId=" in h.text]
    return max(above, key=lambda h: h.line).groups.get("id") if above else None


def job_unresolved(scan, match):
    """True when the pending job is one the text submits or shows by JobId= ('Submitted batch job N', scontrol's
    block), and no line after the last pending line shows that job (by its id) running or done: scontrol's
    JobState= (of the JobId= block it is in), a sacct / squeue -l row of that id, or a command that reads the
    job's output file (its name carries the id; not one cat / tail says does not exist)."""
    hits = match.get("hits") or []
    lines = match.get("lines") or [h.line for h in hits]
    if not lines:
        return False
    last = max(lines)
    ids = {i for i in (_job_of(scan, h.line, h.text) for h in hits) if i}
    named = {h.groups.get("id") for h in _hits(scan, "_struct_sb_jobid")}
    if ids and not ids & named:
        # a squeue listing of other jobs (other users' pipelines wait on their dependencies and begin times): only a
        # job the text submits or shows by its JobId= is the user's
        return False
    heads = sorted((h.line, h.groups.get("id")) for h in _hits(scan, "_struct_sb_jobid") if "JobId=" in h.text)
    for h in _hits(scan, "_struct_sb_state"):
        if h.line <= last or h.groups.get("state") not in _RAN:
            continue
        jid = h.groups.get("id") or next((i for ln, i in reversed(heads) if ln <= h.line), None)
        if not ids or jid in ids:
            return False
    files = [h for h in _hits(scan, "_struct_sb_outfile") if h.line > last and h.groups.get("id") in ids]
    missing = {h.groups.get("id") for h in files if h.groups.get("missing")}
    return not any(not h.groups.get("missing") and h.groups.get("id") not in missing for h in files)


def still_pending(scan, match):
    hits = match.get("hits") or []
    h = max(hits, key=lambda x: x.line) if hits else None
    jid = _job_of(scan, h.line, h.text) if h is not None else None
    return ("How sure: medium. %s is still pending at the end of this text (line %s), on a condition it was submitted "
            "with, and nothing else in the text failed: it starts when that condition is met or lifted." % (
                "Job %s" % jid if jid else "The job", h.line if h is not None else "?"))


def _one_job(scan, f):
    """The one job id the root's lines (else the whole text) show, or None."""
    for c in f.get("causes") or ():
        for ev in c.get("evidence") or ():
            j = _job_of(scan, ev["line"], ev["text"])
            if j:
                return j
    ids = {h.groups.get("id") for h in _hits(scan, "_struct_sb_jobid")}
    return ids.pop() if len(ids) == 1 else None


def _one_value(scan, key):
    vals = {h.groups.get("v") for h in _hits(scan, key)} - {None, "null"}
    return vals.pop() if len(vals) == 1 else None


def _row_partition(f):
    """The partition column of the squeue row the root matched (JOBID PARTITION NAME ...), or None."""
    for c in f.get("causes") or ():
        for ev in c.get("evidence") or ():
            m = re.match(r"^[ \t]{0,20}\d{1,10}(?:_\S{1,40})?[ \t]{1,20}([\w.-]{1,60})[ \t]", ev["text"])
            if m:
                return m.group(1)
    return None


def _fill_ids(scan, f):
    """<JOBID>, <PARTITION>, <QOS>, <ACCOUNT> in a Slurm finding's fix and confirm lines: the one value the text
    shows (the root's squeue row, scontrol's fields, the #SBATCH options), printed as one shell word."""
    if not (f.get("family") or "").startswith("slurm") and not f["id"].startswith("slurm"):
        return
    lines = [x for c in f.get("causes") or () for x in c["fix"] + c["confirm"]]
    if not any("<" in x for x in lines):
        return
    vals = {}
    for slot, get in (("<JOBID>", lambda: _one_job(scan, f)),
                      ("<PARTITION>", lambda: _row_partition(f) or _one_value(scan, "_struct_sb_part")),
                      ("<QOS>", lambda: _one_value(scan, "_struct_sb_qos")),
                      ("<ACCOUNT>", lambda: _one_value(scan, "_struct_sb_acct"))):
        if any(slot in x for x in lines):
            v = get()
            if v:
                vals[slot] = sh(v)
    if not vals:
        return
    for c in f["causes"]:
        for key in ("fix", "confirm"):
            out = []
            for x in c[key]:
                for slot, v in vals.items():
                    x = x.replace(slot, v)
                out.append(x)
            c[key] = out


def _env_site(name):
    from gpudoctor.explain.knowledge import generated_table

    for s in (generated_table("slurm_env") or {}).get("sites", ()):
        if s.get("name") == name:
            return s
    return None


def _quoted(text):
    """A line of the script named in a fix: between single quotes as the prose writes it, or the one shell word
    fixline.sh makes of it where it holds a quote or what a shell acts on (red team 2026-11-27b)."""
    word = sh(text)
    return "'%s'" % text if word == text else word


def _default_line(line, name, new, src):
    """The script's line that reads ``name`` with a default (``new``), shown only where the line as written runs
    nothing but its own command when pasted (fixline.inert): else the edit in words (red team 2026-11-27b)."""
    # (the edit too, its placeholder aside: fixline.inert flags the '<' of '${X:-<default>}', which bash reads inside
    # the braces; after '\$NAME' or '$$NAME' those were two redirections, security.md 35.)
    if inert(src) and inert(new.replace("<default>", "0")):
        return "or give it a default on the line that reads it: %s   (was: %s)" % (new, src)
    return "or give it a default on the line that reads it (line %d): ${%s:-<default>} where it reads $%s" % (
        line, name, name)


def _unbound(scan, f):
    """The variable the root's line says was unset, with the edits the script shown allows (module docstring)."""
    first = f["causes"][0]
    ev = first.get("evidence") or []
    m = _UNBOUND.search(ev[0]["text"]) if ev else None
    if not m:
        return
    name = m.group(1) or m.group(2)
    site = _env_site(name)
    if site is None:
        return
    opts = site.get("options") or []
    ctx = getattr(scan, "launchctx", None)
    ignored = list(getattr(ctx, "ignored", None) or [])
    late = next(((ln, t, cmd) for ln, t, cmd in ignored
                 if any(re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(o), t) for o in opts)), None)
    if late:
        ln, t, cmd = late
        first["fix"].insert(0, "move line %d %s up, above line %d %s (the script's first command): sbatch stops "
                               "reading #SBATCH lines at the first command, so the job never got %s and Slurm did not "
                               "set %s" % (ln, _quoted(t[:120]), cmd[0], _quoted(cmd[1][:80]), opts[0], name))
        first["evidence"].append({"line": ln, "text": t[:300]})
    default = "1" if name == "SLURM_CPUS_PER_TASK" else None
    for h in _hits(scan, "_struct_sb_varuse"):
        if "SLURM_" + (h.groups.get("var") or "") != name:
            continue
        src = _PROMPT.sub("", h.text.strip())[:300]
        if "environ[" in src:
            new = re.sub(r"\benviron\[([\"'])%s\1\]" % re.escape(name),
                         lambda mm: "environ.get(%s%s%s, %s)" % (mm.group(1), name, mm.group(1),
                                                                 repr(default or "<default>")), src)
        else:
            new = re.sub(r"(?<![\\$])\$\{?%s\}?(?![\w:])" % re.escape(name),
                         "${%s:-%s}" % (name, default or "<default>"), src)
        if new != src:
            first["fix"].insert(1 if late else min(len(first["fix"]), 1), _default_line(h.line, name, new, src))
        break


def _spaced(scan, f):
    """sbatch's 'Invalid directive found in batch script: W' beside an #SBATCH line whose unquoted value has a blank
    before W: that line with the value quoted."""
    first = f["causes"][0]
    ev = " ".join(e["text"] for e in first.get("evidence") or [])
    m = re.search(r"Invalid directive found in batch script: (\S{1,200})", ev)
    if not m:
        return
    word = m.group(1)
    for h in _hits(scan, "_struct_sb_spaced"):
        g = h.groups
        rest = g.get("rest") or ""
        if rest.split()[:1] != [word]:
            continue
        opt, sep, val = g.get("opt"), g.get("sep"), g.get("val")
        whole = "%s %s" % (val, rest.strip())
        first["fix"].insert(0, "line %d: sbatch splits an #SBATCH line into words at blanks unless they are quoted "
                               "(src/sbatch/opt.c), so '%s' became a directive of its own: quote the value, "
                               "#SBATCH %s%s\"%s\", or write it without the blank, #SBATCH %s%s%s" % (
                                   h.line, word, opt, sep, whole, opt, sep, "-".join(whole.split())))
        first["evidence"].append({"line": h.line, "text": h.text.strip()[:300]})
        return


# sbatch's options that take no value (sbatch(1)): any other option written without '=' takes the next word
_SB_FLAGS = {"-H", "--hold", "--parsable", "--exclusive", "--requeue", "--no-requeue", "--test-only", "-W", "--wait",
             "-Q", "--quiet", "-v", "--verbose", "-O", "--overcommit", "--contiguous", "--spread-job",
             "--use-min-nodes", "--ignore-pbs", "--get-user-env", "-h", "--help", "-V", "--version", "--usage",
             "-s", "--oversubscribe", "--no-kill", "-k"}


def _wrap(scan, f):
    """sbatch's 'Script arguments not permitted with --wrap option' beside the user's sbatch line: that line as the
    script's submission (without --wrap) and as the wrapped command's (without the script and its arguments)."""
    first = f["causes"][0]
    if not any("not permitted with --wrap" in e["text"] for e in first.get("evidence") or []):
        return
    for h in _hits(scan, "_struct_sb_wrap"):
        text = h.text[h.text.find("sbatch"):].strip()
        try:
            argv = shlex.split(text)[:200]
        except ValueError:
            continue
        opts, wrap, pos, i = [], None, [], 1
        while i < len(argv):
            a = argv[i]
            if a == "--wrap" and i + 1 < len(argv):
                wrap, i = argv[i + 1], i + 2
                continue
            if a.startswith("--wrap="):
                wrap, i = a[len("--wrap="):], i + 1
                continue
            if a.startswith("-") and not pos:
                opts.append(a)
                if "=" not in a and a not in _SB_FLAGS and i + 1 < len(argv) and \
                        (a.startswith("--") or len(a) == 2):
                    opts.append(argv[i + 1])
                    i += 1
                i += 1
                continue
            pos.append(a)
            i += 1
        if wrap is None or not pos:
            continue
        script = " ".join(sh(x) for x in ["sbatch"] + opts + pos)
        wrapped = " ".join(sh(x) for x in ["sbatch"] + opts + ["--wrap", wrap])
        first["fix"].insert(0, "submit one of the two, not both: the script with its arguments, %s; or the wrapped "
                               "command alone, %s (--wrap makes the batch script from its string, so sbatch refuses "
                               "a script file after it)" % (script, wrapped))
        first["evidence"].append({"line": h.line, "text": h.text.strip()[:300]})
        return


# how a program reports the empty value an unset variable expands to: Python's int('') / float('') ("invalid
# literal for int() with base 10: ''", "could not convert string to float: ''"), argparse's option left without its
# value ("argument --workers: expected one argument": an unquoted empty $VAR is no word at all), bash's arithmetic
# ("syntax error: operand expected")
_EMPTY = re.compile(r"(?:with base \d{1,2}|to float): (?:''|\"\")|: expected one argument|operand expected")


# a command Slurm runs later, given in double quotes on the submitting line: sbatch --wrap "...", srun / salloc
# bash -c "..."; bash(1) QUOTING: inside double quotes '$' keeps its meaning, so the submitting shell expands the
# variable there, before the job (where Slurm sets it) exists
# (the double-quoted command read as bash reads it: a backslash takes the next character, so an escaped \" does not end
# it; read up to the first '"' instead, the rest of the word stood outside any quote in the single-quoted alternative
# built from it and ran when pasted: docs/security.md 34.)
_DQ_LATER = re.compile(r"\b(?:sbatch|salloc|srun)\b[^\n]{0,300}?(?:--wrap[= ]|\b(?:ba)?sh -l?c )"
                       r"\"((?:[^\"\\\n]|\\[^\n]){0,400})\"")


_DQ_ESCAPE = re.compile(r'\\([$`"\\])')
_BARE_SLURM = re.compile(r"(?<!\\)\$\{?(SLURM_[A-Z0-9_]{1,60})\b")


def _expanded_early(scan, f):
    """A Slurm variable written in a double-quoted command that sbatch --wrap / srun bash -c runs in the job: the
    submitting shell replaced it by its value there (empty: Slurm had not set it yet). A first cause: escape it or
    quote the command with single quotes."""
    for h in _hits(scan, "_struct_sb_varuse"):
        src = _PROMPT.sub("", h.text.strip())[:400]
        m = _DQ_LATER.search(src)
        if not m:
            continue
        # (redteam21) an escaped \$NAME is the job's shell's already: only a bare $NAME was expanded early, and the
        # line's first Slurm variable may be an escaped one ('--nnodes \$SLURM_NNODES --node-rank $SLURM_NODEID')
        names = [n for n in dict.fromkeys(_BARE_SLURM.findall(m.group(1))) if _env_site(n) is not None]
        if not names:
            continue
        name = names[0]
        inner = m.group(1)
        # the submitting command alone (what follows its double-quoted command, '; sleep 12; cat run.out', is another
        # command), shown only where it runs nothing but itself (fixline.inert: the text is whoever wrote the log's)
        end = first_active(src[m.end(1) + 1:])
        cut = end is not None and src[m.end(1) + 1 + end:m.end(1) + 2 + end] in (";", "&", "|")
        cmd = src[:m.end(1) + 1 + end].rstrip() if cut else src
        escaped = cmd[:m.start(1)] + re.sub(r"(?<!\\)\$(\{?(?:%s)\b)" % "|".join(map(re.escape, names)), r"\\$\1",
                                            inner) + cmd[m.end(1):]
        # inside single quotes the double quotes' escapes are no escapes: \$ \` \" \\ are written bare there (bash(1)
        # QUOTING), else the job's shell would get a backslash before an already-escaped $SLURM_NNODES
        single = (cmd[:m.start(1) - 1] + "'" + _DQ_ESCAPE.sub(r"\1", inner) + "'" + cmd[m.end(1) + 1:]
                  if "'" not in inner else None)
        if inert(cmd) and inert(escaped):
            fixes = ["escape it so that the job's shell expands it: %s" % escaped]
            if single and inert(single):
                fixes.append("or quote the whole command with single quotes: %s" % single)
        else:
            fixes = ["escape it so that the job's shell expands it: write \\$%s inside the double quotes of the "
                     "submitting line, or quote that command with single quotes" % name]
        f["causes"].insert(0, {
            "text": "$%s is inside a double-quoted command on the submitting line ('%s'): the submitting shell "
                    "expanded it before Slurm ran the command, where Slurm had not set it, so the command got an "
                    "empty value (bash(1) QUOTING: '$' keeps its meaning inside double quotes)." % (name, src[:160]),
            "checks": [], "confirm": ["scontrol show job <JOBID> | grep -i command   (the command as Slurm got it)"],
            "fix": fixes, "exports": {}, "evidence": [{"line": h.line, "text": h.text.strip()[:300]}],
            "static_rank": 0, "computed": None})
        return True
    return False


def _empty(scan, f):
    """An empty value in the root's line, and a script line shown reading a Slurm variable that only an option sets,
    with no #SBATCH line (nor sbatch command line) of the text giving that option: that variable is empty in this
    job, and the value is what it expanded to. A cause first: pass the option, or read it with a default."""
    texts = [m["text"] for m in f.get("matches") or []] + [e["text"] for c in f["causes"][:1]
                                                            for e in c.get("evidence") or []]
    if not any(_EMPTY.search(t or "") for t in texts):
        return
    if _UNBOUND.search(" ".join(t or "" for t in texts)):
        return  # the variable's own site answers it
    if _expanded_early(scan, f) or not _hits(scan, "_struct_sb_directive"):
        return
    given = {h.groups.get("opt") for h in _hits(scan, "_struct_sb_optline")}
    cmds = " ".join(h.text for h in _hits(scan, "_struct_sb_cmd"))
    for h in _hits(scan, "_struct_sb_varuse"):
        name = "SLURM_" + (h.groups.get("var") or "")
        site = _env_site(name)
        if site is None or site.get("kind") != "option" or not site.get("options"):
            continue
        if re.search(r"--[a-z-]{1,40}-\*", site.get("man") or ""):
            # (review19) the man page names a family of options the table does not list (SLURM_NTASKS: "if any of
            # the --ntasks-per-* options are specified"): a job given --ntasks-per-node has it, so no option
            # missing from the script can be said to have left it empty
            continue
        opts = site["options"] + site.get("short", [])
        if given & set(opts) or any(re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(o), cmds) for o in opts):
            continue
        src = _PROMPT.sub("", h.text.strip())[:300]
        default = "1" if name == "SLURM_CPUS_PER_TASK" else "<default>"
        new = re.sub(r"(?<![\\$])\$\{?%s\}?(?![\w:])" % re.escape(name), "${%s:-%s}" % (name, default), src)
        fixes = list(site.get("fix") or [])[:1]
        if new != src:
            fixes.append(_default_line(h.line, name, new, src))
        f["causes"].insert(0, {
            "text": "%s is empty in this job: Slurm sets it only when the job is given %s (sbatch(1) OUTPUT "
                    "ENVIRONMENT VARIABLES), and no #SBATCH line shown gives it; the script's line '%s' passes that "
                    "empty value on." % (name, site["options"][0], src[:120]),
            "checks": [], "confirm": ["grep -n '^#SBATCH' <script>   (no %s there)" % site["options"][0]],
            "fix": fixes, "exports": {}, "evidence": [{"line": h.line, "text": h.text.strip()[:300]}],
            "static_rank": 0, "computed": None})
        return


_RANGE = re.compile(r"^([^\[\],]{0,60})\[([\d,-]{1,80})\]([^\[\],]{0,20})$")


def _hosts(value):
    """The host names of a Slurm hostlist ('gpu[01-03,07],cpu1'), at most 256; a form it does not read stays whole."""
    out, parts, depth, cur = [], [], 0, ""
    for ch in value[:400]:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    for part in parts:
        m = _RANGE.match(part)
        if not m:
            out.append(part)
            continue
        for r in m.group(2).split(","):
            a, _, b = r.partition("-")
            if not a.isdigit() or (b and not b.isdigit()):
                continue
            for n in range(int(a), int(b or a) + 1):
                if len(out) >= 256:
                    return out
                out.append("%s%0*d%s" % (m.group(1), len(a), n, m.group(3)))
    return [h for h in out if h]


def _node_lists(words):
    """({required hosts}, {excluded hosts}) of an option list (-w/--nodelist, -x/--exclude; '=' or the next word)."""
    req, exc = set(), set()
    for i, w in enumerate(words):
        for names, into in ((("-w", "--nodelist"), req), (("-x", "--exclude"), exc)):
            for n in names:
                if w == n and i + 1 < len(words):
                    into.update(_hosts(words[i + 1]))
                elif w.startswith(n + "=") or (len(n) == 2 and w.startswith(n) and len(w) > 2 and w[2] != "-"):
                    into.update(_hosts(w[len(n) + 1:] if w.startswith(n + "=") else w[2:]))
    return req, exc


def _overlap(scan, f):
    """slurmctld's 'Invalid node name specified' (ESLURM_INVALID_NODE_NAME) is also its answer to a job whose required
    and excluded node lists overlap (src/slurmctld/job_mgr.c: "Job's required and excluded node lists overlap"):
    with a node in both the text's --nodelist and --exclude (#SBATCH lines, the sbatch / srun / salloc line), drop it
    from one."""
    first = f["causes"][0]
    texts = [m["text"] for m in f.get("matches") or []] + [e["text"] for e in first.get("evidence") or []]
    if not any("Invalid node name specified" in (t or "") for t in texts):
        return
    words = []
    for h in _hits(scan, "_struct_sb_nodes") + _hits(scan, "_struct_sb_cmd"):
        line = h.text.strip()
        line = line[line.find("#SBATCH") + 7:] if "#SBATCH" in line else _PROMPT.sub("", line)
        try:
            words.extend(shlex.split(line, comments=True)[:100])
        except ValueError:
            continue
    req, exc = _node_lists(words)
    both = sorted(req & exc)
    if not both:
        return
    node = both[0]
    shown = ", ".join(both[:4]) + (" ..." if len(both) > 4 else "")
    f["causes"].insert(0, {
        "text": "The job's required and excluded node lists overlap: %s is in --nodelist (-w) and in --exclude (-x). "
                "slurmctld refuses such a job with ESLURM_INVALID_NODE_NAME, 'Invalid node name specified', although "
                "the name is known (src/slurmctld/job_mgr.c: \"Job's required and excluded node lists overlap\")."
                % shown,
        "checks": [], "confirm": ["grep -nE -- '--nodelist|--exclude|-w |-x ' <script>; sinfo -N   (the node names)"],
        "fix": ["drop one of the two for %s: remove it from --exclude (-x), or remove it from --nodelist (-w)"
                % sh(node)],
        "exports": {}, "evidence": [{"line": h.line, "text": h.text.strip()[:300]}
                                    for h in _hits(scan, "_struct_sb_nodes")[:2]],
        "static_rank": 0, "computed": None})


def fill(scan, findings):
    """The concrete edit in the root's first cause (module docstring); <JOBID>, <PARTITION>, <QOS>, <ACCOUNT> filled
    in every Slurm finding."""
    f = findings[0] if findings else None
    if f is not None and f.get("role") == "root" and f.get("causes"):
        try:
            _unbound(scan, f)
            _empty(scan, f)
            _overlap(scan, f)
            _spaced(scan, f)
            _wrap(scan, f)
        except (KeyError, TypeError, IndexError):  # a finding of an unusual shape: left as it is
            pass
    for g in findings:
        if g.get("causes"):
            _fill_ids(scan, g)

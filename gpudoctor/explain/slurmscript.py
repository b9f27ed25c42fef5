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
  'Submitted batch job N') when the text shows exactly one; and whether the text shows that job running or done
  after its pending line (waits.py: slurm_script.toml's slurm.pending_requested, resolved_by_job).

analyze.analyze calls fill() after the other fills; waits.unresolved calls job_unresolved().
"""

import re
import shlex

from gpudoctor.fixline import sh

PATTERNS = {
    # an #SBATCH line whose unquoted value is followed by another word that is no option and no comment
    "_struct_sb_spaced": [r"^[ \t]{0,8}#SBATCH[ \t]{1,8}(?P<opt>--?[A-Za-z][\w-]{0,40})(?P<sep>[= ])"
                          r"(?P<val>[^\s\"'#-][^\s\"'=]{0,200})[ \t]{1,8}(?P<rest>[^\s#-][^\n#]{0,200}?)[ \t\r]{0,8}$"],
    # the user's sbatch command line with --wrap
    "_struct_sb_wrap": [r"\bsbatch[ \t][^\n]{0,400}--wrap\b[^\n]{0,600}"],
    # a script line that reads a Slurm variable (bash $VAR / ${VAR}, Python os.environ['VAR'])
    "_struct_sb_varuse": [r"\$\{?SLURM_(?P<var>[A-Z0-9_]{2,60})\b",
                          r"\benviron\[[\"']SLURM_(?P<var>[A-Z0-9_]{2,60})[\"']\]"],
    # a job's id where the text names it: scontrol's block head, sbatch's answer
    "_struct_sb_jobid": [r"\bJobId=(?P<id>\d{1,10})\b", r"\bSubmitted batch job (?P<id>\d{1,10})\b"],
    # a job's state: scontrol's JobState=, sacct's / squeue -l's state column on a row that starts with the job id
    "_struct_sb_state": [r"\bJobState=(?P<state>[A-Z_]{3,20})\b",
                         r"^[ \t]{0,20}(?P<id>\d{1,10})(?:\.[\w+-]{1,20})?[ \t][^\n]{0,200}?"
                         r"\b(?P<state>RUNNING|COMPLETED|COMPLETING)\b"],
    # a command that reads a file whose name carries a job id (slurm-24.out, train-24.out, eval_24.log): Slurm
    # creates the job's --output / --error file (default slurm-%j.out; %j is the job id, sbatch(1) filename pattern)
    # when the job starts (slurmstepd opens it at launch), so its content shown means that job ran; coreutils' 'No
    # such file or directory' for it means it did not
    "_struct_sb_outfile": [r"^(?:\$|[\w.-]{1,40}@[^\s$#]{0,200}[$#])[ \t]{1,4}(?:cat|tail|head|less|more|grep)\b"
                           r"[^\n]{0,200}?[-_.](?P<id>\d{1,10})(?:_\d{1,6})?\.(?:out|err|log)\b",
                           r"\b(?:cat|tail|head|grep): (?:cannot open )?'?[^\n:']{0,200}?[-_.](?P<id>\d{1,10})(?:_\d{1,6})?"
                           r"\.(?:out|err|log)'?(?: for reading)?: (?P<missing>No such file or directory)"],
}

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
    """True when no line after the last pending line shows that job (by its id) running or done: scontrol's
    JobState= (of the JobId= block it is in), a sacct / squeue -l row of that id, or a command that reads the
    job's output file (its name carries the id; not one cat / tail says does not exist)."""
    hits = match.get("hits") or []
    lines = match.get("lines") or [h.line for h in hits]
    if not lines:
        return False
    last = max(lines)
    ids = {i for i in (_job_of(scan, h.line, h.text) for h in hits) if i}
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


def _fill_jobid(scan, f):
    if not (f.get("family") or "").startswith("slurm") and not f["id"].startswith("slurm"):
        return
    if not any("<JOBID>" in x for c in f.get("causes") or () for x in c["fix"] + c["confirm"]):
        return
    jid = _one_job(scan, f)
    if not jid:
        return
    for c in f["causes"]:
        c["fix"] = [x.replace("<JOBID>", jid) for x in c["fix"]]
        c["confirm"] = [x.replace("<JOBID>", jid) for x in c["confirm"]]


def _env_site(name):
    from gpudoctor.explain.knowledge import generated_table

    for s in (generated_table("slurm_env") or {}).get("sites", ()):
        if s.get("name") == name:
            return s
    return None


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
        first["fix"].insert(0, "move line %d '%s' up, above line %d '%s' (the script's first command): sbatch stops "
                               "reading #SBATCH lines at the first command, so the job never got %s and Slurm did not "
                               "set %s" % (ln, t[:120], cmd[0], cmd[1][:80], opts[0], name))
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
            new = re.sub(r"\$\{?%s\}?(?![\w:])" % re.escape(name), "${%s:-%s}" % (name, default or "<default>"), src)
        if new != src:
            first["fix"].insert(1 if late else min(len(first["fix"]), 1),
                                "or give it a default on the line that reads it: %s   (was: %s)" % (new, src))
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


def fill(scan, findings):
    """The concrete edit in the root's first cause (module docstring); <JOBID> filled in every Slurm finding."""
    f = findings[0] if findings else None
    if f is not None and f.get("role") == "root" and f.get("causes"):
        try:
            _unbound(scan, f)
            _spaced(scan, f)
            _wrap(scan, f)
        except (KeyError, TypeError, IndexError):  # a finding of an unusual shape: left as it is
            pass
    for g in findings:
        if g.get("causes"):
            _fill_jobid(scan, g)

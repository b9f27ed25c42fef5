"""Where a failure line came from, when no knowledge entry knows its words (issue 18 item 2, family16): the family
of the program or library that printed it, a family-only answer (analyze.structural's, How sure: low or medium).

- **The package a traceback's innermost frame is in** (pyanswer._lib_entry, _refused_call): a library without an
  entry of its own ('<lib>.library_error') is answered by the family its own messages have. That map is not written
  by hand: it is read, when first asked, from the generated tables the knowledge loaded (generated/*.json, each made
  from one pinned wheel or repository by a tools/gen_*.py), whose every assigned site records the file that raises it
  ('ray/_private/node.py:850') and the entry its family names; only tables read from a wheel (their header's source
  names pypi.org/project/) count, whose paths are installed packages' as a traceback shows them. A package's family area
  is the first part of the entry ids most of its sites are assigned to ('ray' -> ray.*, 'op_builder' -> deepspeed.*);
  the answer is that area's '<area>.library_error' entry, else its '<area>.usage' entry (the library refused a call),
  else nothing (code.library_error stays).
- **The interpreter's own failure line, with no traceback** (bare_line, after every other structural reading):
  CPython's fatal error during its own start (Python/pylifecycle.c fatal_error: 'Fatal Python error: <func>:
  <message>', then fatal_error_dump_runtime's 'Python runtime state: <state>'): a state before 'initialized'
  ('preinitializing', 'preinitialized', 'initializing', 'core initialized') means the interpreter stopped while
  reading its configuration (PYTHON* variables, PYTHONHOME / PYTHONPATH, its own install: Python/initconfig.c,
  Python/pathconfig.c), before any line of the program ran: code.python_env (python_fatal.toml's entries answer the
  messages they know first); CPython's refusal to open its script (Modules/main.c: "<prog>: can't open file '<path>':
  [Errno 2] ..."): the command line named a file that is not there (launcher.script_missing, family
  launcher.script_args);
- **A standard library module the program did not get** (shadowed_stdlib): the standard library's own code failing
  on "module 'tokenize' has no attribute 'open'" imported a file of the user's with the module's name
  (code.python_env);
- **The first line a shell command printed** (a '$ podman run ...' line the text shows, the failure on the next line):
  the program's own refusal before it ran anything, its family from SHELL_PROGRAMS (the container engines: their OCI
  runtime's failure to start the container's process comes in the container's output, unprefixed).
"""

import re

# an assigned site's 'where' inside a Python package: '<package>/<path>.py:<line>'
_PY_WHERE = re.compile(r"^([A-Za-z_]\w{0,60})/[^:\s]{1,300}\.py:\d{1,7}$")
MAJORITY = 0.5  # share of a package's assigned sites that its family area must hold
_CACHE = [None, None]  # (the entries dict the map was read from, the map)


_HEAD_SOURCE = re.compile(r'"source": "([^"\n]{1,2000})"')


def _wheel_tables():
    """The generated tables made from a wheel (their header's source names pypi.org/project/): their 'where' paths
    are installed package paths, as a traceback's frames show them. A repository's ('NVIDIA/Megatron-LM' ...) are
    paths in its checkout ('tools/checkpoint/...'), which name no installed package."""
    from gpudoctor.explain.knowledge import generated_files, open_table, table_name

    out = set()
    for path in generated_files():
        with open_table(path) as f:
            m = _HEAD_SOURCE.search(f.read(4096))
        if m and "pypi.org/project/" in m.group(1):
            out.add(table_name(path))
    return out


def package_areas(by):
    """{package: (area, sites of that area, assigned sites)} from the generated sites the knowledge holds."""
    if _CACHE[0] is by:
        return _CACHE[1]
    wheels = _wheel_tables()
    counts = {}
    for eid, e in by.items():
        area = eid.split(".", 1)[0]
        for site in e.get("_sites") or ():
            if site.get("source") not in wheels:
                continue
            m = _PY_WHERE.match(site.get("where") or "")
            if m:
                per = counts.setdefault(m.group(1), {})
                per[area] = per.get(area, 0) + 1
    out = {}
    for pkg, per in counts.items():
        total = sum(per.values())
        area, n = max(per.items(), key=lambda x: (x[1], x[0]))
        if n >= MAJORITY * total:
            out[pkg] = (area, n, total)
    _CACHE[0], _CACHE[1] = by, out
    return out


_TORCH_CACHE = [None, None]  # (the entries dict, {torch subpackage: area})
TORCH_SUB_MIN = 8  # generated sites a torch subpackage needs for its area to count


def torch_subpackage(path):
    """The folder of a frame's file inside torch ('torch/_dynamo/variables'), or None outside torch."""
    norm = path.replace("\\", "/")
    i = norm.rfind("/torch/")
    if i < 0 and not norm.startswith("torch/"):
        return None
    parts = norm[i + 1 if i >= 0 else 0:].split("/")
    return "/".join(parts[:-1]) if len(parts) > 2 else None


def torch_area(by, path):
    """The family area most generated sites of the torch folder ``path`` is in are assigned to, read from the wheel
    tables as package_areas reads theirs: torch/_dynamo's, torch/_inductor's and torch/fx/experimental's sites are the
    compile families' ('compile.*', 'torch.compile_error': read as 'compile'). The folder's own sites (not its
    subfolders') decide; a folder with fewer than TORCH_SUB_MIN is read as its parent, down to torch/<a>; None when
    none has enough or no majority (torch/fx's own symbolic tracing has no sites: it is not read as
    fx/experimental's)."""
    if _TORCH_CACHE[0] is not by:
        wheels = _wheel_tables()
        counts = {}
        for eid, e in by.items():
            area = "compile" if eid.startswith(("compile.", "torch.compile")) else eid.split(".", 1)[0]
            for site in e.get("_sites") or ():
                where = (site.get("where") or "").split(":", 1)[0]
                if site.get("source") not in wheels or not where.startswith("torch/") or where.count("/") < 2:
                    continue
                per = counts.setdefault(where.rsplit("/", 1)[0], {})
                per[area] = per.get(area, 0) + 1
        out = {}
        for key, per in counts.items():
            total = sum(per.values())
            area, n = max(per.items(), key=lambda x: (x[1], x[0]))
            out[key] = (area if n > MAJORITY * total else None, total)
        _TORCH_CACHE[0], _TORCH_CACHE[1] = by, out
    sub = torch_subpackage(path)
    while sub and sub.count("/") >= 1:
        got = _TORCH_CACHE[1].get(sub)
        if got and got[1] >= TORCH_SUB_MIN:
            return got[0]
        sub = sub.rsplit("/", 1)[0]
    return None


def library_entry(by, lib):
    """The entry for an exception raised inside package ``lib`` that has no '<lib>.library_error' entry: its family
    area's library_error or usage entry (package_areas), else None."""
    got = package_areas(by).get(lib)
    if not got:
        return None
    for eid in ("%s.library_error" % got[0], "%s.usage" % got[0]):
        if eid in by and by[eid].get("kind", "error") != "echo":
            return eid
    return None


def usage_entry(by, lib):
    """The entry for a call that package ``lib`` refused: '<lib>.usage', else its family area's usage entry."""
    if "%s.usage" % lib in by:
        return "%s.usage" % lib
    got = package_areas(by).get(lib)
    eid = "%s.usage" % got[0] if got else None
    return eid if eid in by else None


# ---------------------------------------------------------------- a standard library module shadowed

# CPython's AttributeError for a module (Objects/moduleobject.c module_getattro: "module '%U' has no attribute '%U'";
# 'partially initialized module ...' is a circular import, not this)
_MODULE_ATTR = re.compile(r"^module '(?P<mod>[A-Za-z_][\w.]{0,80})' has no attribute '(?P<attr>\w{1,80})'")


def shadowed_stdlib(tb):
    """The standard library module an AttributeError says lacks an attribute, when the traceback's innermost frames
    are the standard library's own (a stdlib module calling another): the module it got is not the standard
    library's - a file or folder of that name in the script's directory (sys.path[0], the directory of the script run)
    or on PYTHONPATH shadows it (CPython 3.13 says so in the message: 'consider renaming ... since it has the same
    name as the standard library module'). The names are the running interpreter's sys.stdlib_module_names (3.10+);
    None otherwise."""
    import sys

    names = getattr(sys, "stdlib_module_names", None)
    if not names or tb["exc"].rsplit(".", 1)[-1] != "AttributeError":
        return None
    m = _MODULE_ATTR.match(tb["msg"] or "")
    if not m or m.group("mod").split(".")[0] not in names:
        return None
    from gpudoctor.explain import pytb

    frames = tb.get("frames") or []
    if not frames or pytb.where(frames[-1][0])[0] != "stdlib":
        return None
    return m.group("mod")


# ---------------------------------------------------------------- a failure line without a traceback

FATAL_STATE_LINES = 3  # lines between the fatal error's header and its runtime state (its own lines between)


# CPython's refusal to open the script it was given (Modules/main.c pymain_run_file_obj: "%ls: can't open file %R:
# [Errno %d] %s"): the path on the command line is not there where the interpreter ran
_CANT_OPEN = re.compile(r"^(?P<prog>[\w./-]{1,200}): can't open file (?P<path>'[^'\n]{1,300}'|\"[^\"\n]{1,300}\"): "
                        r"\[Errno (?P<code>\d{1,4})\]")
# the program a shell command line starts -> the entry of its own refusals (the first line it prints when it stops
# before running what it was given): the container engines' run (podman(1), docker-run(1)), whose OCI runtime reports
# a container process it could not start in the container's own output, without the engine's 'Error: ' prefix
# (P15's podman 4 + runc: 'exec /opt/app/entrypoint.sh: no such file or directory'). Not Slurm's srun / sbatch /
# salloc, enroot or apptainer: they prefix every message of their own ('srun: ', src/common/log.c; enroot's
# '[ERROR] '; apptainer's 'FATAL: '), which their tables read, so a line without it after them is the payload's
# (knowledge._struct_shell reads their command lines too; this table decides)
SHELL_PROGRAMS = {"podman": "container.oci_runtime", "docker": "container.oci_runtime",
                  "nerdctl": "container.oci_runtime"}
# ... and only a line in the engine's or its OCI runtime's own form (review16): a payload that fails at once prints ITS
# first line right after the command too ('$ docker run img python x.py' then the script's 'ERROR: no data'). The OCI
# runtime that cannot exec the container's process: 'exec <path>: <strerror>' (opencontainers/runc
# libcontainer/standard_init_linux.go, &os.PathError{Op: "exec"}), or its own name ('crun: ', 'runc: ', 'OCI runtime');
# the engine's own: podman's 'Error: ' (containers/podman cmd/podman/root.go formatError), the docker CLI's
# 'docker: ' (docker/cli cli/command/container/run.go reportError) or the daemon's 'Error response from daemon: ', nerdctl's logrus 'FATA[0000] ' / 'level=fatal'
OWN_LINE = re.compile(r"^(?:exec \S{1,300}: |(?:crun|runc|conmon|Error|podman|docker(?: run)?|nerdctl): |OCI runtime |"
                      r"Error response from daemon: |FATA\[\d{1,8}\] |time=\S{1,60} level=fatal )")


def _cant_open(scan, kb, structural_finding):
    by = kb.by_id
    for h in scan.errors[:64]:
        m = _CANT_OPEN.match(h.text.strip())
        if m and "launcher.script_missing" in by:
            f = structural_finding(by["launcher.script_missing"], h, "the interpreter's own refusal to open the script "
                                   "it was given (%s: can't open file)" % m.group("prog"), scan, sure="medium")
            f["notes"].append("%s was started with %s as its script, and no such file is where it ran: a path "
                              "relative to another working directory (a container image's WORKDIR, the directory a "
                              "launcher or a batch script starts in), a file only on another node, or a program's "
                              "name given where a script was expected (an image whose entrypoint is python, started "
                              "with 'torchrun ...' as its arguments)." % (m.group("prog"), m.group("path")))
            return f
    return None


def _first_output(scan, kb, structural_finding):
    """A failure line printed right after a shell command of SHELL_PROGRAMS is that program's own refusal: it
    stopped before running what it was given (the payload's output would come first otherwise)."""
    by = kb.by_id
    shells = {h.line: h for h in scan.matches.get("_struct_shell", [])}
    for h in scan.errors[:64]:
        cmd = shells.get(h.line - 1)
        eid = SHELL_PROGRAMS.get(cmd.groups.get("prog")) if cmd else None
        if eid in by and OWN_LINE.match(h.text.strip()):
            f = structural_finding(by[eid], h, "the first line '%s' printed after it was started" % cmd.groups["prog"],
                                   scan)
            f["notes"].append("Printed by %s (or what it started) as the first line after the command: it stopped "
                              "before running what it was given. Its own message names what it refused; rerun the "
                              "command alone to see it again." % cmd.groups["prog"])
            return f
    return None


def bare_line(scan, kb, structural_finding):
    """structural()'s answer for a failure line of the interpreter that no traceback holds, or the first line a
    shell command printed; None else."""
    by = kb.by_id
    hits = scan.matches.get("_struct_pyfatal", [])
    states = [h for h in hits if h.groups.get("state")]
    for h in hits:
        state = next((s for s in states if 0 < s.line - h.line <= FATAL_STATE_LINES), None)
        if h.groups.get("msg") and state and "code.python_env" in by:
            f = structural_finding(by["code.python_env"], h, "CPython's fatal error while it started ('Python "
                                   "runtime state: %s')" % state.groups["state"], scan)
            f["notes"].append("The interpreter stopped before any line of the program ran (%s): its configuration is "
                              "wrong - a PYTHON* environment variable (PYTHONHASHSEED, PYTHONHOME, PYTHONPATH), another "
                              "Python's paths carried into this environment, or the install itself. Run `env | grep "
                              "^PYTHON` where the job runs and unset or fix what it names."
                              % h.groups["msg"].strip()[:200])
            return f
    return (_cant_open(scan, kb, structural_finding) or _first_output(scan, kb, structural_finding) or
            printer(scan, kb, structural_finding))


# ---------------------------------------------------------------- the program a failure line's own form names

# (family17) a failure line nothing else read, whose form is one program's own (its error prefix or log header, from
# its source), answered by that program's family (How sure: low): no answer is never given to a text whose failure
# line names its printer.
# pdsh's own errors (src/common/err.c: err("%p: ...") writes '<prog>@<this host>: '; src/pdsh/main.c's modules
# print '<prog>@<host>: <target>: <what>'): pdsh.error, whose causes tell the rcmd module and the remote apart
_PDSH = re.compile(r"^pdsh@[\w.-]{1,100}: \S")
# Ray's C++ runtime log (src/ray/util/logging.cc: the spdlog pattern '[%Y-%m-%d %H:%M:%S,%e %L %P %t] %@: %v', %L
# the level's letter): an E or F record of its core worker, raylet or GCS is Ray's own processes failing (ray.start)
_RAY_CPP = re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (?P<lvl>[EF]) \d{1,10} \d{1,10}\] "
                      r"(?P<file>[\w.-]{1,80}\.(?:cc|h)):\d{1,7}: ")
# Hydra's refusal of a command-line override its grammar cannot parse, printed before the app ran
# (hydra/core/override_parser/overrides_parser.py: OverrideParseException "Error parsing override '<override>'",
# then the ANTLR parser's own words; hydra/_internal/utils.py run_and_report prints the message alone without
# HYDRA_FULL_ERROR=1)
_HYDRA_PARSE = re.compile(r"^Error parsing override '")


# (review17) bash / sh / zsh / dash / ksh reporting a -c string's word ('bash: line 1: base: command not found', ssh's
# remote command, a launcher's): a sourced file's own ('/etc/profile.d/lmod.sh: line 12: module: command not found',
# printed at a healthy job's start) is not the job's command line
_SHELL_C = re.compile(r"(?:^|[\s:])-?(?:ba|z|da|k)?sh: (?:line \d{1,7}: |command not found: )")


def _ran_past(scan, line):
    """Whether the run printed its end ('done' / 'end', outcome.py) anywhere in the tail outcome read, or made
    progress (two lines or more) after ``line``: a failure line of a run that finished or went on is not what
    stopped it (Ray's C++ E records at a finished driver's shutdown, a profile script's complaint at its start).
    (review17, for printer's answers: outcome.went_on reads only the lines a finding or an error holds)"""
    progress = 0
    for out in getattr(scan, "outcomes", None) or ():
        events = out.get("events") or ()
        # (fp23) an end a launcher's or a test runner's failure report follows is no end of the run (one suite of a
        # cargo / pytest run passed, a later one failed)
        last_terminal = max((ev[0] for ev in events if ev[1] == "terminal"), default=-1)
        for ev in events:
            if ev[1] in ("end", "done") and ev[0] > last_terminal:
                return True
            if ev[1] == "progress" and ev[0] > line:
                progress += 1
    return progress >= 2


def printer(scan, kb, structural_finding):
    """structural()'s last answer: the program whose own error form the first failure line has."""
    by = kb.by_id
    from gpudoctor.explain import failshape

    for h in scan.errors[:64]:
        text = h.text.strip()
        if _ran_past(scan, h.line):
            continue
        if _PDSH.match(text) and "pdsh.error" in by:
            f = structural_finding(by["pdsh.error"], h, "pdsh's own error line ('pdsh@<host>: ...')", scan)
            f["notes"].append("Printed by pdsh itself (its 'pdsh@<host>:' prefix): it could not run the command on "
                              "a target - its remote-command module (pdsh -V names the default: rsh or ssh; "
                              "pdsh -R ssh or PDSH_RCMD_TYPE=ssh selects ssh) or the target's daemon refused it.")
            return f
        m = _RAY_CPP.match(text)
        if m and "ray.start" in by:
            f = structural_finding(by["ray.start"], h, "an %s record of Ray's C++ runtime (%s)" % (
                "ERROR" if m.group("lvl") == "E" else "FATAL", m.group("file")), scan)
            f["notes"].append("Printed by Ray's own processes (core worker, raylet, GCS: %s): Ray could not set "
                              "itself up on this node; its session logs (/tmp/ray/session_latest/logs/raylet.out, "
                              "gcs_server.out) say why." % m.group("file"))
            return f
    lines = scan.matches.get("_struct_fs_notfound", [])
    for h in lines:
        cmd = (h.groups.get("cmd") or "")
        if cmd and cmd.lower() not in failshape.PY_SCRIPTS and h.severity != "info" and \
                "launcher.script_missing" in by and _SHELL_C.search(h.text or "") and not _ran_past(scan, h.line):
            f = structural_finding(by["launcher.script_missing"], h, "a shell's 'command not found' for %s" % cmd,
                                   scan)
            f["notes"].append("A shell could not find the program '%s' that its command line names (bash's "
                              "'<shell>: line N: %s: command not found' is a -c string: ssh's remote command, a "
                              "launcher's): not installed or not on PATH there, or a word of a value the shell "
                              "split off and ran as a command (an unquoted variable with spaces)." % (cmd, cmd))
            return f
    got = _bare_exception(scan, kb, structural_finding)
    if got:
        return got
    for h in scan.errors[:64]:
        if _HYDRA_PARSE.match(h.text.strip()) and "hydra.override" in by:
            f = structural_finding(by["hydra.override"], h, "Hydra's own refusal of an override ('Error parsing "
                                   "override')", scan, sure="medium")
            f["notes"].append("Hydra's override grammar refused a command-line override before the app ran: lists "
                              "are written with square brackets (key=[a,b]), a value with spaces or grammar "
                              "characters is quoted ('key=\"a b\"'); the parser's line after it names the "
                              "character it did not expect.")
            return f
    return None


# an exception line alone, as Python prints the last line of an uncaught exception (Lib/traceback.py
# format_exception_only: '<module>.<Class>: <message>', the module left out for builtins), its frames not in the text
_EXC_ALONE = re.compile(r"^(?P<exc>(?:[A-Za-z_]\w{0,60}\.){0,8}[A-Z]\w{0,60}(?:Error|Exception|Failure))"
                        r": (?P<msg>\S[^\n]{0,400})$")


def _bare_exception(scan, kb, structural_finding):
    """An uncaught exception's line with no traceback (a thread quotes the last line, a log keeps only it): its
    words read as excmeaning reads a traceback's (an OS error, torch's words, a checkpoint); else the library its
    class's module names, when that library has a family of its own (<lib>.library_error, provenance's map) -
    family only, with the next step: the frames, which say whose code raised it. A builtin class whose words read as
    nothing stays unanswered."""
    from gpudoctor.explain import excmeaning, pytb
    from gpudoctor.explain.text import strip_prefix

    by = kb.by_id
    known = set()  # lines a knowledge entry matched: theirs to answer
    for eid, lines in scan.match_lines.items():
        if not eid.startswith("_"):
            known.update(lines)
    for h in scan.matches.get("_struct_exc", [])[:16]:
        if h.severity == "info" or scan.tracebacks:
            return None
        if h.line in known or _ran_past(scan, h.line):
            continue  # (review17: a logged exception line the run went past, or after its end, stopped nothing)
        m = _EXC_ALONE.match(strip_prefix(h.text.strip())[0])
        if not m:
            continue
        exc, msg = m.group("exc"), m.group("msg").strip()
        tb = {"exc": exc, "msg": msg[:300], "more": "", "frames": [], "hit": h, "chain": None, "line": h.line}
        what = "%s: %s" % (exc, msg[:200])
        f = excmeaning.finding(scan, kb, tb, [], what, "the line shown")
        lib = pytb.owner(exc.split(".", 1)[0]) if "." in exc else None
        if f is None and lib and lib != "builtins":
            from gpudoctor.explain import libwhere

            # (family19) a class of the library's errors module names its finer family (generated/lib_modules.json)
            eid = libwhere.class_family(by, exc) or ("%s.library_error" % lib if "%s.library_error" % lib in by
                                                     else library_entry(by, lib))
            if eid in by:  # (jaxlib.xla_extension.XlaRuntimeError: jaxlib has none, and stays unanswered)
                f = structural_finding(by[eid], h, "%s, an exception class of %s, alone (no traceback)" % (exc, lib),
                                       scan)
                from gpudoctor.explain import upgrade  # (upgrade19) the library's own error: its upgrade, last

                f["causes"][0]["fix"].extend(upgrade.advice(scan, {"exc": exc, "msg": msg}, lib)[0])
        # (a builtin class alone names no printer: the stack's generic code.library_error was measured wrong as
        # often as right on the seen sets - a shared-memory RuntimeError of torch's, an OS error - and is not given)
        if f is not None:
            f["notes"].append("Only the exception's last line is here (%s): the traceback printed above it names the "
                              "file that raised it - a library's (site-packages/<name>/...) or your own. Paste the "
                              "whole error, or rerun and keep stderr, to tell them apart." % _clip_line(what))
            return f
    return None


def _clip_line(s, n=160):
    return s if len(s) <= n else s[:n - 3] + "..."

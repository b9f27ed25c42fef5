#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/exec_messages.json: what the shell, exec and startup layer prints when a
rank's program cannot even start (issue 18, exec29): bash, dash, coreutils' env / nohup / timeout / stdbuf and CPython's
path computation, each message site turned into a bounded matcher in its program's own line form, with the exit status
it goes with (126 / 127 / 125), assigned to a knowledge family (gpudoctor/data/knowledge/exec.toml, or an existing
entry) by the RULES table below; MSG_FIX gives a site its own meaning and fix where the family's causes are not enough.

What it reads:
- bash (bminor/bash, tag bash-5.2: Debian 12's bash 5.2.15 prints the same): every internal_error / internal_warning /
  report_error / sys_error / builtin_error / parser_error format of execute_cmd.c, shell.c, subst.c, parse.y, error.c,
  variables.c and builtins/source.def; sys_error appends ': ' and strerror(errno) (error.c). shell_execve's
  file_error(command) prints '<command>: <strerror>' for the errno execve(2) returned: one site per errno execve(2)
  documents that reaches it (EXECVE_ERRNOS), so 'Permission denied', 'Text file busy' and 'Argument list too long'
  are sites of their own. bash prints '<shell or script name>: line <n>: ' before each (error.c
  get_name_for_error, the line number in a non-interactive shell).
- coreutils (coreutils/coreutils, tag v9.1, Debian 12's): src/env.c, src/nohup.c, src/timeout.c, src/stdbuf.c: every
  error() / die() format; gnulib's error() prints '<program>: <format>' and, with a nonzero errnum, ': <strerror>'; a
  quote()d / quoteaf()d value is printed in quotes ('x' in the C locale, ‘x’ in a UTF-8 one). env's exec failure is
  `error (0, errno, "%s", quote (argv[optind]))`: the site "'%s': %s".
- the recorded strings of the installed dash 0.5.12 and CPython 3.11.7 (tools/data/exec_recorded.txt, with the
  source files they come from): dash's 'sh: <line>: <name>: not found' (src/exec.c, errmsg(e, E_EXEC)), its parser's
  'Syntax error: ...', 'Bad substitution', 'Illegal option -o %s'; CPython's getpath warnings and startup failures.

The C library's loader messages (glibc elf/dl-*.c) are read by knowledge/loader.toml's hand-written entries; a shell's
'command not found' by explain/failshape.py and provenance.py (their structural readers name the command and the
environment it missed): those sites are listed with the reader that covers them (covered_by), never duplicated.

Usage:
    python tools/gen_exec_messages.py --bash /path/bash.git --coreutils /path/coreutils.git \\
        --recorded tools/data/exec_recorded.txt [--record] [-o OUT]
    python tools/gen_exec_messages.py --slice tools/data/exec_messages_slice.txt -o OUT   (the test)
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_exec_messages.py"
BASH_REV, COREUTILS_REV = "bash-5.2", "v9.1"
BASH_FILES = ("execute_cmd.c", "shell.c", "subst.c", "parse.y", "error.c", "variables.c", "builtins/source.def")
COREUTILS_FILES = ("src/env.c", "src/nohup.c", "src/timeout.c", "src/stdbuf.c")
SOURCE = ("bminor/bash (https://github.com/bminor/bash) " + ", ".join(BASH_FILES) + "; coreutils/coreutils "
          "(https://github.com/coreutils/coreutils) " + ", ".join(COREUTILS_FILES) + "; dash 0.5.12 "
          "(https://git.kernel.org/pub/scm/utils/dash/dash.git, the Debian 12 binary's strings, recorded); CPython "
          "3.11.7 (https://github.com/python/cpython: Modules/getpath.py, Python/pylifecycle.c, Modules/main.c, "
          "libpython's strings, recorded)")
SLICE = "exec_messages_slice.txt"

# bash's error printers (error.c) and where their format argument is
_BASH_CALL = re.compile(r"(?<![A-Za-z0-9_])(internal_error|internal_warning|report_error|sys_error|builtin_error|"
                        r"parser_error|file_error)\s*\(")
# gnulib error (status, errnum, format, ...) and coreutils' die (status, errnum, format, ...)
_CU_CALL = re.compile(r"(?<![A-Za-z0-9_])(error|die)\s*\(")
_GETTEXT = re.compile(r"^(?:_|N_|gettext)\s*\(\s*")
_QUOTED = re.compile(r"^quote(?:af)?\s*\(")

# execve(2) (https://man7.org/linux/man-pages/man2/execve.2.html, ERRORS): the errno values bash's shell_execve gives
# to file_error(command) (execute_cmd.c: not ENOEXEC, not a directory; ENOENT only when the file is not executable)
EXECVE_ERRNOS = ("Permission denied", "No such file or directory", "Argument list too long", "Text file busy",
                 "Cannot allocate memory", "Too many levels of symbolic links", "File name too long")

# Each program's line form (its prefix before the message), so that a short message is that program's:
# - bash (error.c get_name_for_error + 'line %d: '): 'bash: ', 'bash: line 1: ', '/path/job.sh: line 7: '; a
#   launcher may put its own prefix before it ('node1: ', '0: ', '[rank0]: ')
# - dash (src/error.c exvwarning: '%s: %d: ' of arg0 / the script and the line): 'sh: 1: ', 'job.sh: 3: '
# - coreutils (gnulib error.c: program_name, ': '): 'env: ', '/usr/bin/env: ' (a shebang's argv[0])
FORMS = {
    # a shell's own name ('bash: ', '/bin/bash: ', 'sh: ' when bash runs as sh), or any name before 'line N: ' (a
    # script's): a program's 'message: permission denied' (torch's DistNetworkError) or 'strerror: Permission denied'
    # is no shell's
    "bash": r"(?:(?:^|[\s\]>:/])-?(?:ba|z|k)?sh: (?:line \d{1,7}: )?|(?:^|[\s\]>:])[^\s:]{1,200}: line \d{1,7}: )",
    # a builtin's own error adds its name ('pipefail.sh: 1: set: Illegal option -o pipefail': src/error.c, the
    # builtin's commandname)
    "dash": r"(?:^|[\s\]>:])[^\s:]{1,200}: \d{1,7}: (?:[\w.]{1,40}: )?",
}
# bash's messages whose own words are bash's alone: matched on any line, with or without the shell's prefix (a paste
# often drops 'bash: '); the rest (an errno text, 'unbound variable', 'command not found') need bash's line form
BARE_OK = re.compile(r"bad interpreter|required file not found|cannot execute binary file|"
                     r"syntax error near unexpected token")
_CU_FORM = r"(?:^|[\s/]){prog}: "
_WILD = r"[^\n]{0,200}?"
_NAME = r"[^\n:]{1,200}?"  # the word or path a shell names first (no ':' in it)
_QUOTE = "['‘’]"  # a quote()d value: 'x' in the C locale, ‘x’ in a UTF-8 one (gnulib quotearg.c)

# A site's family: the first rule (name, family, {field: regex}) whose regexes all match (knowgen.assign); fields are
# 'where' (program:file:line) and 'text' (the format as printed after the program's prefix).
RULES = [
    # a program that is not on PATH: read structurally (failshape.py: the command's name -> its environment; an
    # lmod / conda shell function -> slurm.module_not_initialized); named here, not matched twice
    ("covered: command not found", None, {"text": r"^%s: command not found$"}),
    # the file named exists (or is a symlink) but its #! interpreter does not: bash 5.1+ 'cannot execute: required
    # file not found' (ENOENT from execve on an executable file), older bash and other errnos 'bad interpreter'
    ("interpreter", "exec.interpreter_missing", {"text": r"required file not found|bad interpreter"}),
    # coreutils env given 'python3 -u' as one word by a shebang line (the kernel passes the rest of the #! line as
    # one argument: binfmt_script), and its advice
    ("env-shebang", "exec.env_shebang_args", {"where": r"^coreutils:src/env\.c", "text": r"use -\[v\]S"}),
    # env's own exec failure: a program it did not find (its name with a space: the #! line's two words, a site of
    # its own below)
    ("env-exec", "exec.program_missing", {"where": r"^coreutils:src/env\.c", "text": r"^'%s': %s$"}),
    # env / nohup / timeout / stdbuf could not exec the command they were given
    ("wrapper-exec", "exec.program_missing", {"where": r"^coreutils:", "text": r"^failed to run command"}),
    # execve's errno for the program itself (bash's file_error; 'cannot execute binary file' for a file the kernel
    # refuses and bash finds binary: another architecture, a truncated download)
    ("exec-format", "exec.format_error", {"text": r"cannot execute binary file"}),
    ("exec-permission", "exec.not_executable", {"where": r"^bash:execute_cmd", "text": r"^%s: (?:Permission denied)$"}),
    ("exec-txtbsy", "exec.text_busy", {"where": r"^bash:execute_cmd", "text": r"^%s: Text file busy$"}),
    ("exec-e2big", "exec.arg_list_too_long", {"where": r"^bash:execute_cmd", "text": r"^%s: Argument list too long$"}),
    # a variable used under set -u (nounset) that this shell does not have
    ("unbound", "shell.unbound_variable", {"text": r"^%s: unbound variable$"}),
    # bash-only syntax and builtins met by dash (Debian's and Ubuntu's /bin/sh): 'source: not found' (the not-found
    # site read with the bash builtin it names: BASHISM), 'Syntax error: "(" unexpected', 'Bad substitution',
    # 'Illegal option -o pipefail'
    ("dash-bashism", "shell.dash_bashism", {"where": r"^dash:", "text": r"^Syntax error: %s unexpected|"
                                            r"^Bad substitution$|^Illegal option -o %s$"}),
    # a script's own syntax error (bash's parser)
    ("bash-syntax", "shell.syntax_error", {"where": r"^bash:parse\.y", "text": r"^syntax error"}),
    # CPython's start: the standard library not found (the fatal form; its getpath warnings are warnings)
    ("python-startup", "python.startup_stdlib", {"where": r"^cpython:", "text": r"codec of the filesystem encoding"}),
    # the interpreter's own 'can't open file' (launcher.script_missing, read by pyanswer / provenance structurally)
    ("covered: can't open file", None, {"where": r"^cpython:", "text": r"can't open file"}),
]
COVERED_BY = {
    "covered: command not found": "gpudoctor/explain/failshape.py, gpudoctor/explain/provenance.py (structural)",
    "covered: can't open file": "knowledge/structural.toml launcher.script_missing (pyanswer.py, provenance.py)",
}

# dash prints 'not found' for a command it did not find on PATH and for a path whose interpreter is missing alike; the
# site becomes the bashism's only for a bash builtin or keyword dash does not have (bash(1) SHELL BUILTIN COMMANDS)
BASHISM = r"(?:source|shopt|declare|typeset|pushd|popd|mapfile|readarray|complete|\[\[|let|disown|enable|caller)"

# exit statuses: (regex over 'where|text', status, why)
STATUS = [
    (r"command not found|required file not found|^bash:execute_cmd[^|]*\|%s: No such file", 127,
     "bash EX_NOTFOUND (shell.h)"),
    (r"^bash:execute_cmd[^|]*\|", 126, "bash EX_NOEXEC / EX_BINARY_FILE (shell.h)"),
    (r"^bash:shell\.c[^|]*\|%s: cannot execute binary file", 126, "bash EX_BINARY_FILE (shell.h)"),
    (r"^dash:[^|]*\|%s: not found", 127, "dash E_EXEC ENOENT (src/exec.c: exitstatus 127)"),
    (r"^coreutils:[^|]*\|(?:'%s': %s|failed to run command)", 126,
     "126 EXIT_CANNOT_INVOKE, 127 EXIT_ENOENT when errno is ENOENT (src/system.h)"),
    (r"^coreutils:", 125, "EXIT_CANCELED (src/system.h): the wrapper's own failure"),
]

# What one message means and what to do, where its family's causes are not enough: [(regex over the text, means, fix)]
MSG_FIX = [
    (r"cannot execute: required file not found",
     "the file exists and is executable, but execve() failed with ENOENT: the interpreter its first line names "
     "(#!/path/to/python, #!/bin/bash) is not at that path on this node, or the #! line ends in a carriage return "
     "(a script saved with Windows line ends: '/bin/bash\\r')",
     ["head -1 <the script> | cat -A: a path this node lacks (a venv made on another machine or moved: its bin/ "
      "scripts keep the old python path) -> recreate the venv here, or run the tool through the interpreter "
      "(python -m torch.distributed.run ..., <venv>/bin/python -m pip); a '^M' at the end -> dos2unix <script>"]),
    (r"bad interpreter",
     "the kernel could not run the interpreter named on the script's #! line (bash prints that line's path, a "
     "trailing carriage return as '^M', then execve's error)",
     ["fix the #! line: the interpreter's real path on every node (#!/usr/bin/env python3 looks it up on PATH), "
      "or run it as 'bash <script>' / 'python <script>'; a '^M' after the path -> dos2unix <script>; 'Permission "
      "denied' after it -> the interpreter is there but not executable: chmod +x <it>, or it is on a noexec mount "
      "(findmnt -T <it>)"]),
    (r"use -\[v\]S",
     "env was given one argument holding a space ('python3 -u'): Linux passes everything after the #! "
     "interpreter as a single argument (binfmt_script), so env looked for a program named 'python3 -u'",
     ["#!/usr/bin/env -S python3 -u   (coreutils 8.30+: -S splits the string), or #!/usr/bin/python3 -u with "
      "the absolute path, or keep #!/usr/bin/env python3 and export PYTHONUNBUFFERED=1 instead of -u"]),
    (r"^'%s': %s$",
     "env could not execute the command it was given (its name in quotes): not on PATH (status 127), or not "
     "executable (126); a quoted name with a space in it came from a #! line with two words",
     ["give the program's absolute path, or put its directory (the venv's bin) on PATH before env runs it (source "
      "<venv>/bin/activate in the same script); a name with a space in the quotes comes from a #! line: "
      "#!/usr/bin/env -S <interpreter> <options>"]),
    (r"^failed to run command",
     "the wrapper (nohup, timeout, stdbuf) could not execute the command it was given: not found on PATH "
     "(status 127) or not executable (126)",
     ["give the command's absolute path (which <command> in the environment that works), or activate the venv / "
      "load the module in the same shell before the wrapper runs"]),
    (r"^%s: Text file busy$",
     "execve() failed with ETXTBSY: the program file is open for writing right now (a copy, a pip install or a "
     "compile still writing it, often the same file on a shared filesystem from another node)",
     ["wait for the writer to finish (fuser <file> names it), or write to a new name and mv it into place (an "
      "atomic rename never has the file open for writing)"]),
    (r"^%s: Argument list too long$",
     "execve() failed with E2BIG: the arguments and environment together exceed the kernel's limit (ARG_MAX, "
     "getconf ARG_MAX; one argument at most 128 KiB, MAX_ARG_STRLEN): a glob of many files, a huge variable",
     ["pass the list through a file or stdin (xargs, find -exec ... +, a file list the program reads), and "
      "check env | wc -c for an oversized exported variable"]),
]

# the meaning and fix of the sites derived from dash's one 'not found' format, by the name it printed
DERIVED_FIX = {
    "dash-path": (
     "dash could not execute the path it was given: the file is not there, or it is a script whose #! interpreter is "
     "not there (dash prints 'not found' for both: src/exec.c shellexec, errmsg(ENOENT, E_EXEC))",
     ["ls -l <the path> from the directory the command runs in; if it exists: head -1 <it> | cat -A (a #! path "
      "this node lacks: a venv made elsewhere -> recreate it or run <venv>/bin/python -m <module>; '^M' -> "
      "dos2unix <it>)"]),
    "dash-command": (
     "dash (Debian's and Ubuntu's /bin/sh) found no such command on PATH (status 127)",
     ["give the command's absolute path (<venv>/bin/<command>), or activate the environment in the same sh "
      "script first ('. <venv>/bin/activate': sh has no 'source')"]),
}


def _strip_call(arg):
    return _GETTEXT.sub("", arg)


def bash_sites(path, src):
    """(where, level, text, quoted) of each bash error-printer format in one file."""
    for m in _BASH_CALL.finditer(src):
        func = m.group(1)
        args = knowgen.call_args(src, m.end())
        if not args:
            continue
        line = src.count("\n", 0, m.start()) + 1
        where = "bash:%s:%d" % (path, line)
        if func == "file_error":
            if "execute_cmd" in path:
                for err in EXECVE_ERRNOS:
                    yield where, "error", "%s: " + err
            continue
        fmt = None
        for a in args:
            a = _strip_call(a)
            if a.startswith('"'):
                fmt = knowgen.c_format(a, 0)
                break
        if not fmt or not fmt.strip() or fmt.strip() in ("%s", "%s: %s"):
            continue
        if func == "sys_error":
            fmt += ": %s"
        yield where, ("warning" if func == "internal_warning" else "error"), fmt


def coreutils_sites(path, src):
    prog = os.path.basename(path)[:-2]
    for m in _CU_CALL.finditer(src):
        args = knowgen.call_args(src, m.end())
        if not args or len(args) < 3:
            continue
        fmt = knowgen.c_format(_strip_call(args[2]), 0)
        if fmt is None:
            continue
        vals = args[3:]
        # a quote()d value is printed in quotes: the format says so ("'%s'"), the matcher takes either quote style
        convs = list(re.finditer(r"%[-+ #0-9.*]*(?:hh|h|ll|l|z|j|t)?[a-zA-Z]", fmt))
        for c, v in reversed(list(zip(convs, vals))):
            if _QUOTED.match(v.strip()) and c.group() == "%s":
                fmt = fmt[:c.start()] + "'%s'" + fmt[c.end():]
        if args[1].strip() != "0":
            fmt += ": %s"
        if not fmt.replace("'%s'", "").replace("%s", "").strip(" :"):
            if fmt == "'%s': %s":  # env.c: the command it could not exec, then strerror
                yield "coreutils:%s:%d" % (path, src.count("\n", 0, m.start()) + 1), prog, fmt
            continue
        yield "coreutils:%s:%d" % (path, src.count("\n", 0, m.start()) + 1), prog, fmt


def recorded_sites(path, src):
    """dash's and CPython's recorded strings: dash's parser joins 'Syntax error: ' and its 'unexpected' message
    (src/parser.c synexpect -> synerror), which the recorded strings keep apart."""
    prog = path.split(":", 1)[0]
    lines = [x for x in src.splitlines() if x.strip()]
    if prog == "dash":
        for x in lines:
            if x.startswith("%s unexpected"):
                yield "dash:" + path.split(":", 1)[1], "error", "Syntax error: " + x
            elif x != "Syntax error: %s":
                yield "dash:" + path.split(":", 1)[1], "error", x
    else:
        for x in lines:
            yield "cpython:" + path.split(":", 1)[1], ("warning" if x.startswith(("Could not", "Consider")) else
                                                      "error"), x


def _matcher(prog, text):
    """The site's regex in its program's line form."""
    body = text
    if prog in FORMS or prog in ("env", "nohup", "timeout", "stdbuf"):
        form = FORMS.get(prog) or _CU_FORM.format(prog=re.escape(prog))
        if prog == "bash" and BARE_OK.search(body):
            form = r"(?:^|[\s\]>:'\"])"
        if body == "'%s': %s":
            # env.c's exec failure: the quoted name, then execve's strerror (its only text of its own)
            return (form + _QUOTE + r"[^'‘’\n]{1,200}" + _QUOTE + r":\ (?:%s)" % "|".join(
                re.escape(e) for e in EXECVE_ERRNOS), "No such file or directory")
        rx, lit = knowgen.printf_to_regex(body)
        if rx is None:
            return None, ""
        rx = rx.replace("'", _QUOTE)
        if re.match(r"%", body):
            rx = _NAME + rx
        return form + rx, lit
    body = re.sub(r"%[SR]", "%s", body)  # CPython's PyUnicode_FromFormat: %S str(), %R repr()
    rx, lit = knowgen.printf_to_regex(body)
    return rx, lit


def build(files, version):
    sites, ids, seen = [], set(), set()
    for path, src in files:
        kind = path.split(":", 1)[0]
        if kind == "bash":
            rows = [(w, "bash", lv, t) for w, lv, t in bash_sites(path.split(":", 1)[1], src)]
        elif kind == "coreutils":
            rows = [(w, p, "error", t) for w, p, t in coreutils_sites(path.split(":", 1)[1], src)]
        else:
            rows = [(w, kind if kind == "dash" else "cpython", lv, t) for w, lv, t in recorded_sites(path, src)]
        for where, prog, level, text in rows:
            if (prog, text) in seen:
                continue
            seen.add((prog, text))
            site = {"id": knowgen.unique_id("exec.%s" % knowgen.slug(where.split(":", 1)[0] + " " + text)[:60], ids),
                    "where": where, "program": prog, "level": level, "text": text}
            rx, lit = _matcher(prog, text)
            if knowgen.unanchored(site, rx, lit, need=6):
                sites.append(site)
                continue
            rule, family = knowgen.assign(RULES, site, {"where": where, "text": text})
            if rule == "dash-bashism" or (prog == "dash" and text == "%s: not found"):
                pass
            site.update({"re": rx, "family": family, "rule": rule or "no rule"})
            if rule in COVERED_BY:
                site["covered_by"] = COVERED_BY[rule]
            if level == "warning":
                site.update({"family": None, "rule": "a warning: the program goes on"})
            status = next(((s, why) for r, s, why in STATUS if re.search(r, where + "|" + text)), None)
            if status:
                site["status"], site["status_source"] = status
            knowgen.give_fix(site, MSG_FIX, text)
            sites.append(site)
            if prog == "dash" and text == "%s: not found":
                # dash's not-found for a bash builtin it lacks: the bashism's own site
                b = {"id": knowgen.unique_id("exec.dash_bashism_not_found", ids), "where": where, "program": prog,
                     "level": level, "text": "%s: not found",
                     "re": FORMS["dash"] + BASHISM + r":\ not\ found", "family": "shell.dash_bashism",
                     "rule": "dash-bashism (a bash builtin: BASHISM)", "status": 127,
                     "status_source": "dash E_EXEC ENOENT (src/exec.c: exitstatus 127)"}
                sites.append(b)
                # a path (a '/' in the name): the file, or the interpreter on its #! line, is not there (dash's
                # shellexec tries execve on the path itself; ENOENT either way: execve(2))
                for sid, fam, name_rx, rule in (
                        ("exec.dash_path_not_found", "exec.program_missing", r"[^\s:]{0,200}/[^\s:]{1,200}",
                         "dash-path (a name with a '/')"),
                        ("exec.dash_command_not_found", "exec.program_missing", r"(?!(?:module|ml|conda)\b)[\w.+-]{1,60}",
                         "dash-command (a bare name: looked up on PATH; module / conda shell functions are "
                         "slurm.module_not_initialized's)")):
                    d = {"id": knowgen.unique_id(sid, ids), "where": where, "program": prog, "level": level,
                         "text": "%s: not found", "re": FORMS["dash"] + name_rx + r":\ not\ found$",
                         "family": fam, "rule": rule, "status": 127,
                         "status_source": "dash E_EXEC ENOENT (src/exec.c: exitstatus 127)"}
                    d["means"], d["fix"] = DERIVED_FIX[rule.split(" ")[0]][0], list(DERIVED_FIX[rule.split(" ")[0]][1])
                    sites.append(d)
            if prog == "bash" and "bad interpreter" in text:
                # bash before 5.2 prints the #! line's interpreter with a trailing carriage return as '^M'
                # (execute_cmd.c, the 'bad interpreter' branch of shell_execve); 5.2 says 'cannot execute: required
                # file not found' and shows no ^M (exec.interpreter_missing names the CRLF case among its causes)
                b = dict(site, id=knowgen.unique_id("exec.bash_crlf_interpreter", ids), family="shell.crlf_line_ends",
                         rule="crlf (an interpreter ending in ^M)",
                         re=FORMS["bash"] + r"[^\n:]{1,200}?:\ [^\n]{0,200}\^M:\ bad\ interpreter:")
                b.pop("means", None), b.pop("fix", None), b.pop("covered_by", None)
                sites.append(b)
            if prog == "bash" and text == "%s: command not found":
                # the word bash could not find is one ending in a carriage return, printed in bash's $'...' quoting
                # (print_cmd.c ansic_quote): the script has CRLF line ends
                c = dict(site, id=knowgen.unique_id("exec.bash_crlf_word", ids), family="shell.crlf_line_ends",
                         rule="crlf (a word ending in \\r, bash's $'...\\r' quoting)",
                         re=FORMS["bash"] + r"(?:[^\s:]{1,200}:\ )?\$'[^'\n]{0,200}\\r':\ ")
                c.pop("covered_by", None)
                sites.append(c)
            if site.get("rule") == "env-exec":
                # the quoted name ends in a carriage return: a '#!/usr/bin/env python3\r' line (CRLF line ends).
                # coreutils' quote() prints the \r as the two characters '\r' (lib/quotearg.c,
                # locale_quoting_style: c_maybe_quoting escapes control characters), and env then prints its -S
                # advice too (env.c: the name holds a blank by isspace(), which \r is); recorded here:
                # "/usr/bin/env: ‘python3\r’: No such file or directory" (coreutils 9.1, Debian 12)
                r = dict(site, id=knowgen.unique_id("exec.env_crlf_name", ids), family="shell.crlf_line_ends",
                         rule="crlf (env's quoted name ending in \\r)",
                         re=site["re"].replace(r"[^'‘’\n]{1,200}['‘’]", r"[^'‘’\s]{0,200}\\r['‘’]", 1))
                r.pop("means", None), r.pop("fix", None), r.pop("covered_by", None)
                assert r["re"] != site["re"]
                sites.append(r)
                # the quoted name holds a space: a #! line '#!/usr/bin/env python3 -u' (binfmt_script passes
                # 'python3 -u' as one argument); env then prints its -S advice (env.c, after the exec failure)
                e = dict(site, id=knowgen.unique_id("exec.env_two_words", ids), family="exec.env_shebang_args",
                         rule="env-shebang (a name with a space)",
                         re=site["re"].replace(r"[^'‘’\n]{1,200}", r"[^'‘’\s]{1,200}\ [^'‘’\n]{1,200}", 1))
                e.pop("means", None), e.pop("fix", None)
                knowgen.give_fix(e, MSG_FIX, "use -[v]S")
                sites.append(e)
    return {"header": knowgen.header(SOURCE, version, GENERATOR,
                                     "the shell / exec / startup layer's messages; families from the RULES table of "
                                     "the generator; covered_by names the reader that already answers a site"),
            "sites": sites}


def _spans(path, src):
    """(first, last) line of each site's statement, for the slice (bash / coreutils); a recorded file is kept whole."""
    if path.startswith(("dash:", "cpython:")):
        return [(1, len(src.splitlines()))]
    call = _BASH_CALL if path.startswith("bash:") else _CU_CALL
    out = []
    for m in call.finditer(src):
        a = src.count("\n", 0, m.start()) + 1
        b = src.count("\n", 0, knowgen.statement_end(src, m.start())) + 1
        if b - a < 12:
            out.append((a, b))
    return out


def load(a):
    bash, cu = knowgen.git_reader(a.bash), knowgen.git_reader(a.coreutils)
    files = [("bash:" + p, bash("show", "%s:%s" % (BASH_REV, p))) for p in BASH_FILES]
    files += [("coreutils:" + p, cu("show", "%s:%s" % (COREUTILS_REV, p))) for p in COREUTILS_FILES]
    rec, rec_version = knowgen.read_slice(a.recorded)
    version = "bash %s; coreutils %s; %s" % (knowgen.revision(bash, BASH_REV, describe=False),
                                              knowgen.revision(cu, COREUTILS_REV, describe=False), rec_version)
    return files + rec, version


def main(argv):
    return knowgen.sites_main(__doc__, argv, "exec_messages", GENERATOR, build, MSG_FIX, knowgen.data_path(SLICE),
                              _spans, load, source=("bash", "coreutils", "recorded"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

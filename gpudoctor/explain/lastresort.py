"""explain's last structural answer for an explicit failure nothing else read (issue 18 item 2, struct23): a Python
exception's line alone, with no traceback (a thread quotes only the last line, a log kept only it), whose class is
one of the interpreter's own (builtins: TypeError, AttributeError, AssertionError, ...) or names a package with no
family of its own. provenance._bare_exception answers such a line when its words or its class's package name a
family; this reads what is left, so that a text whose failure line is an exception never ends in "no known error".

The class alone does not say whose code raised it, so the answer is a family with How sure: low (a likely cause),
its neighbours named, and the next step that tells them apart (the traceback's innermost frame). The family follows
the message's form where the interpreter words it itself (CPython's fixed messages):

- a call that does not fit the callee's signature (Python/ceval.c, Python/getargs.c: "f() missing 1 required
  positional argument: 'x'", "f() got an unexpected keyword argument 'x'", "f() takes 2 positional arguments but 3
  were given", "f() got multiple values for argument 'x'") and an attribute an object or module lacks
  (Objects/object.c "'%.100s' object has no attribute '%U'", Objects/moduleobject.c "module '%U' has no attribute
  '%U'"): the caller was written for another release of the callee's package - code.lib_api_version, with your own
  call (code.exception) as the neighbour;
- a value that is None where an object was expected ("'NoneType' object is not subscriptable / iterable / callable /
  an iterator", "'NoneType' object has no attribute 'x'"): a function returned None or a setting was never filled -
  code.exception, with a library's bug as the neighbour;
- anything else: code.library_error (a pasted exception is most often met inside a library the job calls), with
  your own code (code.exception) as the neighbour.

A traceback frame cut at its start just above the line ('/verl/protocol.py", line 491, in chunk': the paste began
mid-line) still names the file that raised it: a package's file is that package's family (pyanswer._lib_entry).
"""

import builtins
import re

from gpudoctor.explain.text import clip as _clip, strip_prefix

# an exception's line as Lib/traceback.py format_exception_only prints it ('<Class>: <message>'), at the line's start
# after its prefixes, or quoted in a sentence ('... raise an error `TypeError: ...`')
_EXC_AT = re.compile(r"(?P<exc>(?:[A-Za-z_]\w{0,60}\.){0,8}[A-Z]\w{0,60}(?:Error|Exception|Failure)): "
                     r"(?P<msg>\S[^\n]{0,400})")
_SIGNATURE = re.compile(r"\b(?P<fn>[\w.]{1,120})\(\) (?:missing \d{1,3} required (?:positional|keyword-only) "
                        r"arguments?|got an unexpected keyword argument|takes (?:from )?\d{1,3} (?:to \d{1,3} )?"
                        r"(?:positional |keyword-only )?arguments? but \d{1,3} (?:positional arguments? )?"
                        r"(?:(?:and \d{1,3} keyword-only arguments? )?were|was) given|got multiple values for "
                        r"(?:keyword )?argument)")
_NO_ATTR = re.compile(r"^(?:'(?P<cls>[\w.]{1,100})' object|module '(?P<mod>[\w.]{1,100})'|type object "
                      r"'(?P<type>[\w.]{1,100})') has no attribute '(?P<attr>\w{1,100})'")
_NONE = re.compile(r"^'NoneType' object (?:is not (?:subscriptable|iterable|callable|an iterator)|has no attribute"
                   r"|does not support item assignment|cannot be interpreted)")
# (fp23) what stands before a quote that opens a string literal in code, not a sentence's quote around a printed line:
# a call's argument, an assignment, a list or dict item (log.error("KeyError: ..."), raise ValueError(f"..."),
# msg = 'TypeError: ...'): a source line a traceback or pytest's report shows, which raised nothing itself
_CODE_LITERAL = re.compile(r"[(=,\[{]\s{0,4}[rRfFbBuU]{0,2}$")
# a traceback frame whose start was cut off ('/pkg/mod.py", line 491, in chunk'), Lib/traceback.py's frame line
_CUT_FRAME = re.compile(r"(?P<file>[^\s\"']{1,300}\.py)\", line (?P<ln>\d{1,7}), in (?P<fn>[\w<>.]{1,100})")
# classes that are no failure of the job's code: the process was stopped, or a launcher reports another's failure
_NOT_FAILURE = ("KeyboardInterrupt", "SystemExit", "GeneratorExit", "StopIteration", "StopAsyncIteration")


def _builtin(name):
    """Whether ``name`` is one of the interpreter's own exception classes (this Python's builtins)."""
    obj = getattr(builtins, name, None)
    return isinstance(obj, type) and issubclass(obj, BaseException)


def _known(scan, kb=None):
    """Lines a knowledge entry matched: with ``kb``, only a known warning's (judge(): on an 'unknown_error' answer the
    entries that matched an error line were all set aside - another library's site, a guard - so the line is still
    unanswered; a known warning's line is no failure)."""
    out = set()
    for eid, lines in scan.match_lines.items():
        if not eid.startswith("_") and (kb is None or (kb.by_id.get(eid) or {}).get("kind") == "warning"):
            out.update(lines)
    return out


def _cut_frame(scan, line):
    """(file, line, fn) of a frame line printed just above ``line`` (the input's tail kept by the scan), else None."""
    for tail in getattr(scan, "tails", None) or ():
        user = tail.get("user") or []
        for i, (n, text) in enumerate(user):
            if n != line:
                continue
            for k in range(i - 1, max(-1, i - 4), -1):
                m = _CUT_FRAME.search(user[k][1])
                if m:
                    return m.group("file"), int(m.group("ln")), m.group("fn")
            return None
    return None


def _package_of(path):
    """The package a frame's file names: site-packages' (pytb.where), else the first folder of a path that starts
    with one ('/verl/protocol.py', 'verl/protocol.py')."""
    from gpudoctor.explain import pytb

    kind, lib = pytb.where(path)
    if kind == "lib" and lib:
        return lib
    parts = [p for p in path.replace("\\", "/").split("/") if p and p != "."]
    if len(parts) == 2 and re.match(r"^[A-Za-z_]\w{1,40}$", parts[0]):
        return pytb.owner(parts[0])
    return None


def finding(scan, kb, structural_finding, known=None):
    """The family of an exception's line alone that nothing else answered (How sure: low); None else."""
    from gpudoctor.explain.provenance import _ran_past

    if scan.tracebacks:
        return None
    by = kb.by_id
    known = _known(scan) if known is None else known
    for h in scan.matches.get("_struct_exc", [])[:16]:
        if h.severity == "info" or h.line in known or _ran_past(scan, h.line):
            continue
        body = strip_prefix(h.text.strip())[0]
        m = _EXC_AT.search(body)
        if not m or m.start() > 0 and body[m.start() - 1] not in " `'\"([:":
            continue
        if m.start() > 0 and body[m.start() - 1] in "'\"" and _CODE_LITERAL.search(body, 0, m.start() - 1):
            continue
        exc, msg = m.group("exc"), m.group("msg").strip()
        if m.start() > 0 and body[m.start() - 1] in "`'\"":
            msg = msg.rstrip(body[m.start() - 1] + " ")  # (the quote the sentence put around the line)
        name = exc.rsplit(".", 1)[-1]
        if name in _NOT_FAILURE:
            continue
        qualified = "." in exc
        if not qualified and not _builtin(name):
            continue  # a bare class name of no known package: whose it is, the line does not say
        pkg = None
        if qualified:
            from gpudoctor.explain import pytb

            pkg = pytb.owner(exc.split(".", 1)[0])
            if pkg in ("builtins", "__main__"):
                pkg = None
        frame = _cut_frame(scan, h.line)
        where = None
        if frame:
            fpkg = _package_of(frame[0])
            where = "%s:%d, in %s" % (frame[0].rsplit("/", 1)[-1], frame[1], frame[2])
            if fpkg and fpkg != "torch":
                pkg = fpkg
        sig, attr, none = _SIGNATURE.search(msg), _NO_ATTR.match(msg), _NONE.match(msg)
        if pkg:
            from gpudoctor.explain import pyanswer

            eid = pyanswer._lib_entry(by, "site-packages/%s/x.py" % pkg, pkg)[0]
            why = "%s raised in %s's code%s" % (exc, pkg, " (%s)" % where if where else "")
            meaning = ("The line names %s as the code that raised it: a call %s refused, its version against "
                       "torch's or the caller's, or a bug in it." % (pkg, pkg))
        elif none:
            eid = "code.exception"
            why = "%s on a value that is None" % exc
            meaning = ("CPython's own message for an operation on None: a function returned None, or a setting or "
                       "a file the code reads was never filled, where an object was expected. The innermost frame "
                       "of the whole traceback names the value.")
        elif sig or attr and not (attr.group("cls") or "").endswith("NoneType"):
            eid = "code.lib_api_version"
            if sig:
                why = "%s: the call of %s() does not fit its signature" % (exc, sig.group("fn"))
                meaning = ("CPython's own message for a call whose arguments do not fit the function's signature: "
                           "the caller was written for another release of the package that defines %s() (one of two "
                           "installed packages is newer or older than the other expects), or the call in your own "
                           "code is wrong." % sig.group("fn"))
            else:
                owner = attr.group("cls") or attr.group("mod") or attr.group("type")
                why = "%s: %s has no attribute '%s'" % (exc, owner, attr.group("attr"))
                meaning = ("CPython's own message for a name an object or module does not have: the code that asked "
                           "for '%s' was written for another release of %s's package (renamed, removed or not yet "
                           "added there), or it was given another object than it expects (a wrapper such as DDP's "
                           "or DeepSpeed's engine, whose .module holds the model)." % (attr.group("attr"), owner))
        else:
            eid = "code.library_error"
            why = "the exception %s alone" % exc
            meaning = ("%s is one of the interpreter's own classes, which any code raises: most often a library's "
                       "check of what it was given, else your own code." % name)
        if eid not in by:
            continue
        f = structural_finding(by[eid], h, why, scan)
        f["notes"].append("%s Only the exception's last line is here (%s): the traceback printed above it names "
                          "the file that raised it - a library's (site-packages/<name>/...) or your own - and its "
                          "innermost frame is where to look. Paste the whole error, or rerun and keep stderr, to "
                          "tell them apart." % (meaning, _clip("%s: %s" % (exc, msg), 160)))
        return f
    return None


# ---------------------------------------------------------------- a failure line whose form names its printer

# a shell's report of a job a signal ended (bash jobs.c: strsignal()'s text and ' (core dumped)'; in a script
# '<script>: line N: <pid> <text> [(core dumped)] <command>'), for the signals of a program's own fault: failshape.py
# reads 'Bus error' and 'Killed'; 'Terminated' / 'Hangup' / 'Interrupt' stop any helper of a script, which goes on
_FAULTS = ("Segmentation fault", "Aborted", "Illegal instruction", "Floating point exception",
           "Trace/breakpoint trap", "Bad system call", "Stack fault", "CPU time limit exceeded",
           "File size limit exceeded")
_SIG_ALT = "|".join(re.escape(x) for x in _FAULTS)
_SHELL_SIG = re.compile(r"^(?:[^\n:]{1,200}: line \d{1,7}: {1,3}\d{1,10} {1,3})?(?P<sig>%s)"
                        r"(?: {1,40}\(core dumped\))?(?: {1,40}[^\n]{0,200})?$" % _SIG_ALT)
# Apptainer's / SingularityCE's own log lines: the level and its colon padded to 8 columns, then a blank (sylog
# prefix(): fmt.Sprintf("%s%-8s%s ", color, level+":", reset), so 'FATAL:   ', 'ERROR:   ';
# pkg/sylog/sylog.go, https://github.com/apptainer/apptainer/blob/main/pkg/sylog/sylog.go)
_SYLOG = re.compile(r"^(?P<lvl>FATAL|ERROR): {3}(?P<msg>\S[^\n]{0,300})$")
# the Docker engine's API error as its clients print it (moby client/errors.go: 'Error response from daemon: %s')
_DOCKERD = re.compile(r"(?:^|: )Error response from daemon: (?P<msg>\S[^\n]{0,300})")


# the C / C++ / Rust runtimes' report that the process is aborting, and c10's internal assert (text.GENERIC_ERRORS
# counts them as error lines): libstdc++'s verbose terminate handler (libsupc++/vterminate.cc), glibc's assert
# (assert/assert.c __assert_fail_base '%s%s%s:%u: %s%sAssertion `%s' failed.'), Rust's panic (std panicking.rs),
# TORCH_INTERNAL_ASSERT (c10/util/Exception.cpp)
_TERMINATE = re.compile(r"\bterminate called (?:after throwing an instance of '(?P<exc>[^'\n]{1,200})'|"
                        r"(?P<other>without an active exception|recursively))")
_ASSERT = re.compile(r"^(?:(?P<prog>[^\s:]{1,200}): )?(?P<file>[^\s:]{1,300}):(?P<line>\d{1,7}): "
                     r"(?P<fn>[^\n]{0,300}?):? ?Assertion [`'](?P<expr>[^\n]{0,300})' failed\.")
_PANIC = re.compile(r"\bthread '(?P<thread>[^'\n]{0,100})'(?: \(\d{1,10}\))? panicked at "
                    r"(?P<where>[^\s,:]{1,300}(?::\d{1,7}){0,2})")
_INTERNAL = re.compile(r"(?P<cond>[^\n]{0,200}?) ?INTERNAL ASSERT FAILED at \\?\"?(?P<file>[^\"\n]{1,300}?)\\?\"?:"
                       r"(?P<line>\d{1,7})")


def _abort_finding(scan, kb, h, body, structural_finding):
    """A runtime's report that the process aborts (libstdc++, glibc's assert, Rust's panic, c10's internal assert)."""
    by = kb.by_id
    m = _INTERNAL.search(body)
    if m and "torch.library_error" in by:
        f = structural_finding(by["torch.library_error"], h, "torch's internal assert at %s:%s" % (
            m.group("file").rsplit("/", 1)[-1], m.group("line")), scan)
        f["notes"].append("TORCH_INTERNAL_ASSERT (c10/util/Exception.h) failed in %s: an invariant torch's own code "
                          "relies on did not hold. torch asks for a bug report, but an argument, a device or "
                          "environment setting of yours (CUDA_VISIBLE_DEVICES, a MIG or device index, a dtype) often "
                          "reaches it: read the condition '%s' against what the call was given, and search "
                          "pytorch's issues for it." % (m.group("file"), _clip(m.group("cond").strip(), 120)))
        return f
    if "code.library_error" not in by:
        return None
    m = _TERMINATE.search(body)
    if m and not (m.group("exc") or "").startswith("c10::"):  # (c10's: analyze.structural, torch.library_error)
        what = m.group("exc") or m.group("other")
        f = structural_finding(by["code.library_error"], h, "a C++ exception nothing caught (%s)" % what, scan)
        f["notes"].append("libstdc++ ended the process: %s. The 'what():' line after it is the exception's message; "
                          "the class's namespace names the library that threw it (std:: is the standard library's, "
                          "thrown for any C++ code). Run under gdb (catch throw) or get the core file's backtrace to "
                          "see whose code threw." % ("an exception of class %s was thrown and nothing caught it" % what
                                                     if m.group("exc") else "terminate called " + what))
        return f
    m = _ASSERT.search(body)
    if m:
        path = m.group("file").replace("\\", "/")
        torch = "/torch/" in path or "/c10/" in path or "/aten/" in path
        eid = "torch.library_error" if torch and "torch.library_error" in by else "code.library_error"
        f = structural_finding(by[eid], h, "a C/C++ assert(3) that failed in %s:%s" % (
            path.rsplit("/", 1)[-1], m.group("line")), scan)
        f["notes"].append("glibc's assert message: the condition `%s` did not hold in %s (%s:%s)%s, and the process "
                          "aborted (SIGABRT). It is that code's own precondition: a bug of it, or a value the caller "
                          "gave it (an argument, a file, a setting) that breaks it. The file's path names the project "
                          "to read or report it to." % (_clip(m.group("expr"), 120), m.group("fn") or "a function",
                                                         path, m.group("line"),
                                                         " of %s" % m.group("prog") if m.group("prog") else ""))
        return f
    m = _PANIC.search(body)
    if m:
        f = structural_finding(by["code.library_error"], h, "a Rust panic at %s" % m.group("where"), scan)
        f["notes"].append("A Rust component panicked at %s (std's panic message): a check of its own failed and the "
                          "thread stopped; in a Python job that is a compiled extension written in Rust (tokenizers, "
                          "safetensors, polars, ...). The file path names the crate; RUST_BACKTRACE=1 prints where it "
                          "was called from." % m.group("where"))
        return f
    return None


def abort_finding(scan, kb, structural_finding, known=None):
    """The first line where a runtime reports that the process aborts (read before an exception's class: c10's
    internal assert is raised as a RuntimeError); None else."""
    from gpudoctor.explain.provenance import _ran_past

    known = _known(scan) if known is None else known
    for h in scan.errors[:64]:
        if h.line in known or _ran_past(scan, h.line):
            continue
        got = _abort_finding(scan, kb, h, strip_prefix(h.text.strip())[0], structural_finding)
        if got:
            return got
    return None


def program_finding(scan, kb, structural_finding, known=None):
    """The family of a failure line whose own form names the program that printed it (How sure: low); None else."""
    from gpudoctor.explain import runend, srunend
    from gpudoctor.explain.provenance import _ran_past

    by = kb.by_id
    known = _known(scan) if known is None else known
    for h in scan.errors[:64]:
        if h.line in known or _ran_past(scan, h.line):
            continue
        body = strip_prefix(h.text.strip())[0]
        m = _SHELL_SIG.match(body)
        if m:
            num = srunend.STRSIGNAL[m.group("sig")]
            name = runend.SIGNALS[num]
            eid = runend.ENTRY.get(name, "cascade.signal")
            if eid not in by:
                continue
            f = structural_finding(by[eid], h, "a shell's report that the program ended by %s" % name, scan)
            f["notes"].append("The shell reports that the program it ran ended by %s (signal %d: %s): the program's "
                              "own last lines before this one say where. Read next: %s." % (
                                  name, num, runend.MEANS.get(name, "signal %d" % num),
                                  runend.NEXT.get(name, runend.NEXT_DEFAULT)))
            fx = f["causes"][0]["fix"] if f.get("causes") else None
            step = "read next: %s" % runend.NEXT.get(name, runend.NEXT_DEFAULT)
            if fx is not None and step not in fx:
                fx.append(step)
            return f
        m = _SYLOG.match(body)
        if m and "container.apptainer_launch" in by:
            f = structural_finding(by["container.apptainer_launch"], h, "Apptainer's / Singularity's own %s line "
                                   "(its level padded to 8 columns)" % m.group("lvl"), scan)
            f["notes"].append("Printed by Apptainer (or SingularityCE) itself: it could not set up or run the "
                              "container, and the words after the level name the step. Rerun with --debug "
                              "(apptainer --debug exec ...) to see the step before it.")
            return f
        m = _DOCKERD.search(body)
        if m and "container.oci_runtime" in by:
            f = structural_finding(by["container.oci_runtime"], h, "the Docker engine's own refusal ('Error response "
                                   "from daemon')", scan)
            f["notes"].append("The Docker engine (dockerd) refused the request and its client printed the reason "
                              "after 'Error response from daemon:': the image, the runtime (runc, the NVIDIA "
                              "runtime hook) or the host's setup. `journalctl -u docker` on that host holds the "
                              "daemon's own log of it.")
            return f
    return None


def judge(result, scan, kb):
    """Last of explain's readers (explain_inputs, after every judge that answers a text analyze left unknown): an
    'unknown_error' answer whose failure line finding() reads gets that finding as its root. True when it did."""
    if result.get("verdict") != "unknown_error" or result.get("findings"):
        return False
    from gpudoctor.explain.analyze import _structural_finding

    known = _known(scan, kb)
    f = (abort_finding(scan, kb, _structural_finding, known) or finding(scan, kb, _structural_finding, known) or
         program_finding(scan, kb, _structural_finding, known))
    if f is None:
        return False
    result.update(verdict="root_cause", matched=True, root=f["id"], findings=[f], errors=[], triage=[])
    return True

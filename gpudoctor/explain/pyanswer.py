"""explain's structural answer for a Python traceback or an argparse refusal that no knowledge entry
explains (analyze.structural calls it after the NCCL WARN, Slurm, watchdog and MPI shapes): the
first traceback the program itself raised (not a launcher's echo of a failed worker), answered from
its innermost frame - a library's file names that library's family ('<lib>.library_error', the
torch.distributed module or launcher package of analyze._TORCHDIST), the user's own file names
code.exception with the file and line - or argparse's '<prog>: error: <message>' after its usage line
(launcher.script_args). pytb.py reads both while the scan runs.
"""

import re

from gpudoctor.explain import cfgvalue, errordocs, excmeaning, libwhere, oserror, provenance, pytb, trailers, upgrade
from gpudoctor.fixline import operand, sh
from gpudoctor.explain.text import clip as _clip, severity
from gpudoctor.explain.analyze import _ECHO_EXC, _EXC_FAMILY, _TORCHDIST, _foreign_class, _structural_finding


# exception types of Python itself that a program's own code or data raises (Doc/library/exceptions.rst):
# raised in the user's file they say "your code", with some confidence (how sure: medium)
_PLAIN_EXC = frozenset((
    "AssertionError", "AttributeError", "IndexError", "KeyError", "NameError", "UnboundLocalError", "TypeError",
    "ValueError", "ZeroDivisionError", "FileNotFoundError", "IsADirectoryError", "NotADirectoryError",
    "FileExistsError", "NotImplementedError", "RecursionError", "StopIteration", "SyntaxError", "IndentationError",
    "UnicodeDecodeError", "UnicodeEncodeError", "LookupError", "ArithmeticError", "OverflowError",
    "json.decoder.JSONDecodeError", "JSONDecodeError", "yaml.scanner.ScannerError", "yaml.parser.ParserError"))
# torchrun's, DeepSpeed's and accelerate's options: written after the script's name they go to the script
# (torch/distributed/run.py get_args_parser, deepspeed/launcher/runner.py parse_args,
# accelerate/commands/launch.py launch_command_parser)
_LAUNCHER_OPTS = re.compile(
    r"--(?:nproc[_-]per[_-]node|nnodes|node[_-]rank|master[_-]addr|master[_-]port|rdzv[_-](?:backend|endpoint|id|conf)"
    r"|standalone|max[_-]restarts|monitor[_-]interval|num[_-]gpus|num[_-]nodes|hostfile|include|exclude"
    r"|num[_-]processes|num[_-]machines|machine[_-]rank|main[_-]process[_-](?:ip|port)|multi[_-]gpu|use[_-]deepspeed)\b")
_LAUNCHER_PROGS = {"torchrun": "torchrun", "run.py": "python -m torch.distributed.run",
                   "launch.py": "python -m torch.distributed.launch", "deepspeed": "deepspeed",
                   "accelerate": "accelerate", "accelerate-launch": "accelerate launch"}


# exceptions that say the process was stopped, not that its code failed (Doc/library/exceptions.rst:
# KeyboardInterrupt is SIGINT, SystemExit is sys.exit(), GeneratorExit and asyncio's CancelledError a cleanup)
_STOPPED = ("KeyboardInterrupt", "SystemExit", "GeneratorExit", "CancelledError")


# an OSError's str() with the file it names (CPython Objects/exceptions.c OSError_str: "[Errno %S] %S: %R"): ENOENT's
# text as glibc and Python print it, the path quoted by repr()
_MISSING_PATH = re.compile(r"\[Errno 2\] No such file or directory: '([^'\n]{1,300})'")


# Popen's exec of its child failed (CPython Lib/subprocess.py _execute_child: the child reports the exec's errno and
# the parent raises child_exception_type(errno_num, err_msg, err_filename)): the process never started, so a traceback
# that ends there is the parent's failure to start a command, never its report of a child that ran and failed
_OS_ERRORS = ("FileNotFoundError", "PermissionError", "OSError", "NotADirectoryError", "IsADirectoryError")


def _exec_failed(tb):
    frames = tb.get("frames") or []
    if not frames or tb["exc"].rsplit(".", 1)[-1] not in _OS_ERRORS:
        return False
    file, _line, fn = frames[-1]
    return fn == "_execute_child" and file.replace("\\", "/").endswith("/subprocess.py")


def _tb_echo(tb):
    return any(w in tb["exc"] for w in _ECHO_EXC) or tb["exc"].rsplit(".", 1)[-1] in _STOPPED


# lines between an exception's line and the header of the traceback chained to it (Lib/traceback.py prints the whole
# message first - torch.export's GuardOnDataDependentSymNode tells 20 lines of advice - then a blank line and 'The
# above exception was the direct cause ...'); only the next traceback in the text is looked at (family17: 8 lines
# broke P24's export chain, whose first exception was then read as one the program went on after)
CHAIN_GAP = 40


def _chain_after(scan, tb):
    """The tracebacks printed after tb as its chain ('direct cause' / 'during handling'), in order."""
    out, cur = [], tb
    for t in scan.tracebacks:
        if t["line"] <= cur["line"] or t.get("rank") != tb.get("rank"):
            continue
        if t["chain"] and t["header_line"] is not None and 0 < t["header_line"] - cur["line"] <= CHAIN_GAP:
            out.append(t)
            cur = t
        elif t["line"] > cur["line"]:
            break
    return out


def _lib_entry(by, file, lib):
    """The entry for an exception raised in a library's file: the torch.distributed module or the launcher's
    package (_TORCHDIST), else the library's own '<lib>.library_error', else code.library_error."""
    norm = file.replace("\\", "/")
    i = norm.rfind("/torch/distributed/")
    if i >= 0:
        sub = norm[i + len("/torch/distributed/"):]
        if not sub.startswith("elastic/multiprocessing/errors/__init__"):
            for key in sorted(_TORCHDIST, key=len, reverse=True):
                if "/" in key and key.split("/")[0] in ("deepspeed", "accelerate"):
                    continue
                if sub.startswith(key + "/") or sub.startswith(key + ".py") or sub == key:
                    return _TORCHDIST[key], "torch/distributed/%s" % key
    for key in ("deepspeed/launcher", "deepspeed/ops", "accelerate/commands"):
        if "/%s/" % key in norm:
            return _TORCHDIST[key], key
    if norm.endswith("/torch/nn/parallel/distributed.py") and "torch.distributed_usage" in by:
        # DistributedDataParallel's constructor and forward checks (torch/nn/parallel/distributed.py): a
        # source torch.distributed_usage names
        return "torch.distributed_usage", "torch/nn/parallel/distributed.py"
    eid = "%s.library_error" % lib
    if eid not in by:
        # a package with no entry of its own: the family its own messages have in the generated tables (provenance.py)
        eid = provenance.library_entry(by, lib) or "code.library_error"
    return eid, None


# what an API's own argument check raises (Doc/library/exceptions.rst: ValueError "an argument that has the right type but
# an inappropriate value", TypeError, an assert, a path not implemented for that input)
_ARG_CHECK = ("ValueError", "TypeError", "AssertionError", "NotImplementedError")


def _distributed_check(scan, kb, tb, file, at, what, user):
    """torch.distributed's Python API checks what the user passed in its own subpackages beside those _TORCHDIST
    names (pipelining's schedules and stages: 'Number of microbatches (1) must be greater than or equal to the number
    of stages (2)', torch/distributed/pipelining/schedules.py; FSDP's, DCP's planners): such a check raised there,
    under the user's call, where excmeaning read nothing of the message, is a call torch.distributed refused
    (torch.distributed_usage), not the user's own code (code.exception)."""
    norm = file.replace("\\", "/")
    i = norm.rfind("/torch/distributed/")
    exc = tb["exc"].rsplit(".", 1)[-1]
    if i < 0 or not user or exc not in _ARG_CHECK or "torch.distributed_usage" not in kb.by_id or \
            _lib_entry(kb.by_id, file, "torch")[1] is not None:
        return None
    sub = "torch/distributed/" + norm[i + len("/torch/distributed/"):].split("/", 1)[0]
    f = _structural_finding(kb.by_id["torch.distributed_usage"], tb["hit"], "%s raised by an argument check of %s "
                            "(torch.distributed's own code)" % (tb["exc"], sub), scan)
    f["notes"].append("Raised inside torch.distributed at %s, called from your %s:%d: %s. torch.distributed refused "
                      "what the call passed: its message names the argument and the value it needs." % (
                          at, user[0], user[1], what.rstrip(".")))
    return f


# a package a library needs and does not find (family17; the sources in _traceback_finding)
_NOT_INSTALLED = re.compile(r"\brequires? (?:the )?`?(?P<pkg>[A-Za-z][\w.-]{0,60})`? (?:library |package )?(?:to be "
                            r"installed|but it was not found in your environment)")
def _a_wheel(name):
    """Whether ``name`` is an import package or a distribution of the wheels gen_wheel_packages read."""
    packages = pytb._wheels().get("packages") or {}
    return name in packages or name.lower() in {d.lower() for d in packages.values()}


# the install command the message gives itself ('Run `pip install wandb`.'; transformers' 'pip install pillow' for PIL)
_PIP_SAYS = re.compile(r"\bpip3? install (?P<what>[A-Za-z][\w.\[\],<>=-]{0,80})")


API_DEPTH = 3  # a library's frames between the user's call and the raise, for "the function you called checked it"
# what an argument check's TypeError says ('expected Tensor as element 0 in argument 0, but got list', 'must be str,
# not int', 'takes 2 positional arguments but 3 were given', 'unsupported operand type(s)')
_ARG_WORDS = re.compile(r"argument|expect|must be|should be|\bgot\b|\btakes\b|\bnot supported|unsupported|"
                        r"\bmissing\b|required|invalid|\bnot an?\b|\btype\b", re.I)


def _refused_call(scan, kb, tb, lib, user, at, what):
    """A library's own argument check that refused the user's call (family16): an argument-check exception
    (_ARG_CHECK: ValueError, TypeError, AssertionError, NotImplementedError; Doc/library/exceptions.rst) raised within
    API_DEPTH frames of that library directly under the user's own frame (every frame between them the library's), in
    a library other than torch (pyanswer reads torch's own frames under the user's call as that call already). What the
    user's line passed is wrong for the function it called: the library's usage family '<lib>.usage' where one exists
    (triton.usage, timm.usage, ...), else the user's own code (code.exception), never '<lib>.library_error' (a fault
    inside the library). A deeper raise, or another exception class (RuntimeError, an OSError), is left to
    <lib>.library_error: an internal state of the stack, not the call's arguments."""
    exc = tb["exc"].rsplit(".", 1)[-1]
    frames = tb.get("frames") or []
    if exc not in _ARG_CHECK or not user or not frames:
        return None
    if exc == "AssertionError" and not (tb["msg"] or "").strip():
        # a bare 'assert self.buf is not None' checks the library's own state, names no argument (review16)
        return None
    if exc == "TypeError" and not _ARG_WORDS.search(tb["msg"] or ""):
        # a TypeError that names no argument is the library against another package's version more often than a
        # call's argument: protobuf's 'Descriptors cannot be created directly.' (a _pb2.py generated for another
        # protobuf, google/protobuf/descriptor.py) raised under the user's import (review16)
        return None
    k = len(frames)
    while k > 0 and pytb.where(frames[k - 1][0]) == ("lib", lib):
        k -= 1
    depth = len(frames) - k
    if not 1 <= depth <= API_DEPTH or k == 0 or pytb.where(frames[k - 1][0])[0] != "user":
        return None
    by = kb.by_id
    eid = provenance.usage_entry(by, lib) or "code.exception"
    if eid not in by:
        return None
    called = frames[k][2] if frames[k][2] and not frames[k][2].startswith("<") else lib
    f = _structural_finding(by[eid], tb["hit"], "%s raised by %s's own check in %s, which your %s:%d called" % (
        tb["exc"], lib, called, user[0], user[1]), scan, sure="medium" if eid != "code.exception" else "low")
    f["notes"].append("%s's %s (at %s) refused what your line passed it (%s:%d): %s. The message names the argument or "
                      "the shape it wanted; change the call (its arguments, their shapes or order), not the library."
                      % (lib, called, at, user[0], user[1], what.rstrip(".")))
    # (the function's name is the traceback's `in NAME`, untrusted log text like the path: one shell word with the
    # library's name, docs/security.md 80.)
    f["causes"][0]["fix"].insert(0, "open %s (line %d) and change what it passes to %s as the message asks" % (
        sh(user[0]), user[1], sh("%s.%s" % (lib, called))))
    return f


def _what(tb):
    return "%s: %s" % (tb["exc"], _clip(tb["msg"], 200)) if tb["msg"] else tb["exc"]


def structural(scan, kb):
    """structural()'s answer from a Python traceback (the first one the program itself raised, not a
    launcher's echo) or an argparse refusal, whichever came first; None when the text has neither."""
    by = kb.by_id
    cands = []
    for tb in scan.tracebacks:
        if tb.get("went_on") or _tb_echo(tb) or tb["chain"] and any(
                t["line"] < tb["line"] and tb in _chain_after(scan, t) for t in scan.tracebacks):
            continue  # a chain is answered from its first exception
        if trailers.is_header(tb["msg"]):
            continue  # (docerrors18) a library's header before the real exception, which ends a later traceback
        inner = pytb.innermost(tb)
        eid = None
        if inner and inner[3] == "lib":
            eid = _lib_entry(by, inner[0], inner[4])[0]
        if eid in by and by[eid]["kind"] == "echo" and not _exec_failed(tb):
            continue  # a launcher's own traceback reporting a failed worker: its echo
        cands.append(tb)
    # a traceback the program went on after (a caught exception logged) is not the one that ended it, when a
    # later one did
    live = [t for t in cands if not _went_on_one(scan, t) or _chain_after(scan, t)]  # (a chain's head propagated)
    cands = live or cands
    term = scan.matches.get("_struct_terminate", [])
    first_tb = cands[0] if cands and not (term and term[0].line < cands[0]["line"]) else None
    if first_tb and first_tb["exc"].rsplit(".", 1)[-1] in ("ExceptionGroup", "BaseExceptionGroup"):
        # an exception group (PEP 654) is answered from its first sub-exception that has a traceback of its
        # own (printed after the group's line, behind the group's margins): what failed inside the group
        sub = next((t for t in cands if t["group"] and t["line"] > first_tb["line"] and t.get("rank") ==
                    first_tb.get("rank") and t["line"] - first_tb["line"] <= pytb.MAX_BACK_LINES), None)
        if sub:
            sub["in_group"] = _what(first_tb)
            first_tb = sub
    args = scan.argparse[0] if scan.argparse and "launcher.script_args" in by else None
    if args and (first_tb is None or args["line"] < first_tb["line"]):
        return _argparse_finding(scan, kb, args)
    if first_tb is None:
        return _interrupted(scan, kb)
    return _traceback_finding(scan, kb, first_tb)


def _interrupted(scan, kb):
    """A traceback that ends in KeyboardInterrupt, with no other error of the program's: the process got
    SIGINT (Python's default handler raises KeyboardInterrupt: Doc/library/signal.rst) - Ctrl-C, or srun /
    a launcher passing a Ctrl-C on, or stopping it after another rank failed. An echo (cascade.signal):
    the cause is whatever stopped it."""
    tb = next((t for t in scan.tracebacks if t["exc"] == "KeyboardInterrupt"), None)
    if tb is None or "cascade.signal" not in kb.by_id:
        return None
    f = _structural_finding(kb.by_id["cascade.signal"], tb["hit"], "a traceback that ends in KeyboardInterrupt", scan)
    where = pytb.last_user_frame(tb)
    f["notes"].append("The process got SIGINT (KeyboardInterrupt%s): someone pressed Ctrl-C, or srun / the launcher "
                      "passed one on or stopped it after another rank failed. Not a bug of the code: find what stopped "
                      "it (the first error of another rank, the scheduler's log)." % (
                          ", at %s:%d" % where[:2] if where else ""))
    return f


def _jax_filtered(scan, tb):
    """Whether JAX's 'removed its internal frames' note follows this traceback's exception line (within the message
    lines after it, before another traceback's)."""
    end = tb.get("line") or 0
    return any(0 < h.line - end <= 8 for h in scan.matches.get("_struct_ex_jaxfiltered", []))


def _traceback_finding(scan, kb, tb):
    by = kb.by_id
    chain = _chain_after(scan, tb)
    hit, what = tb["hit"], _what(tb)
    inner = pytb.innermost(tb)
    file, line, fn, kind, lib = inner
    user = pytb.last_user_frame(tb)
    at = "%s:%d%s" % (file, line, " in %s" % fn if fn and not fn.startswith("<") else "")
    # a message that is an OS error's whole text names it, before the type's family (oserror.py)
    f = oserror.finding(scan, kb, [tb] + chain, _structural_finding)
    if f is None:  # a hyperparameter guard given a str (a YAML 1.1 number without a dot: cfgvalue.py)
        f = cfgvalue.finding(scan, kb, tb, _structural_finding)
    if f is None and _exec_failed(tb) and kind == "lib" and "launcher.script_missing" in by and \
            "/torch/distributed/elastic/" in file.replace("\\", "/"):
        # torchrun's agent could not start its worker's command (provenance: Popen's exec in the agent, not a worker)
        f = _structural_finding(by["launcher.script_missing"], hit, "%s raised by Popen's exec of the worker's command in "
                                "torchrun's agent" % tb["exc"], scan, sure="medium")
        f["notes"].append("torchrun could not start the worker's command (%s): the entrypoint is not there where the "
                          "agent runs, or not executable. With --no-python (--no_python) the script is run as a program: "
                          "it needs a shebang line (#!/usr/bin/env python3) and chmod +x, or drop --no-python." % what)
        f["causes"][0]["fix"].insert(0, "check the entrypoint torchrun was given: ls -l it on that node; with "
                                        "--no-python give it a shebang and chmod +x, or run without --no-python")
    if f is None:
        # (docerrors18) an error class its library documents with the cause and the fix (errordocs.py)
        f = errordocs.finding(scan, kb, tb, chain, _structural_finding)
    shadowed = provenance.shadowed_stdlib(tb) if f is None and "code.python_env" in by else None
    if shadowed:
        # the standard library's own code got another module of that name (provenance.py)
        f = _structural_finding(by["code.python_env"], hit, "the standard library's %s has no attribute the "
                                "standard library's own code uses" % shadowed, scan, sure="medium")
        f["notes"].append("The standard library's code at %s used %s's attribute and the %s module the program "
                          "imported has none: it is not the standard library's. A file %s.py or a folder %s/ in the "
                          "script's directory (or on PYTHONPATH) shadows it; rename it and delete its __pycache__."
                          % (at, shadowed, shadowed, shadowed.split(".")[0], shadowed.split(".")[0]))
        f["causes"][0]["fix"].insert(0, "rename your %s.py (or %s/) next to the script or on PYTHONPATH: it hides the "
                                        "standard library's module (python -c 'import %s; print(%s.__file__)' shows "
                                        "which file is imported)" % ((shadowed.split(".")[0],) * 4))
    if f is None:
        f = _asked(scan, kb, tb, what, at)  # (wrong18) the printer answered pickle's or another package's request
    missing = _NOT_INSTALLED.search(tb["msg"] or "") if f is None and "code.python_env" in by else None
    pip_says = _PIP_SAYS.search(tb["msg"] or "") if missing else None
    if missing and not (pip_says or "not found in your environment" in missing.group(0) or
                        _a_wheel(missing.group("pkg"))):
        # (review17) 'requires Java / ffmpeg / CUDA to be installed' is no Python package: a Python library's
        # requirement only where the message gives its pip command, transformers' requires_backends form, or
        # the name is a wheel's import package (generated/wheel_packages.json)
        missing = None
    if missing:
        # (family17) a library's own check that a package it needs is installed (transformers/utils/import_utils.py
        # requires_backends: '<x> requires the <pkg> library but it was not found in your environment';
        # transformers/integrations/integration_utils.py: 'WandbCallback requires wandb to be installed. Run `pip
        # install wandb`.'): the environment lacks the package, whatever exception class carries it
        pkg = missing.group("pkg")
        f = _structural_finding(by["code.python_env"], hit, "%s says the package %s is not installed" % (
            tb["exc"], pkg), scan, sure="medium")
        f["notes"].append("%s needs %s and it is not installed in the environment the job ran in (or a setting of "
                          "yours asked for it: a logger, a backend, an integration)." % (lib or "The code", pkg))
        f["causes"][0]["fix"].insert(0, "%s in the job's environment, or stop asking for it (the setting "
                                        "that names it)" % ("pip install " + sh(pip_says.group("what").rstrip(".,")
                                                                                 if pip_says else
                                                                                 pytb.distribution(pkg))))
    for t in [tb] + chain if f is None else ():
        for words, eid in _EXC_FAMILY:
            if eid == "rendezvous.connect" and _foreign_class(t["exc"]):
                continue  # (noans22) an HTTP client's ConnectionError (requests.exceptions) is no store connection
            if any(w.lower() in t["exc"].lower() for w in words) and eid in by:
                f = _structural_finding(by[eid], hit, "the exception type %s" % t["exc"], scan)
                break
        if f:
            break
    if f is not None:  # the exception's type named the family: where it was raised, for the record
        f["notes"].append("Raised at %s (%s)%s." % (at, what, "; your code's last frame: %s:%d" % user[:2]
                                                    if user and user[0] != file else ""))
    if f is None and not (kind == "lib" and _lib_entry(by, file, lib)[1]):
        f = excmeaning.finding(scan, kb, tb, chain, what, "%s:%d" % user[:2] if user else at)  # (excmeaning.py)
    if f is None and kind == "lib" and lib == "torch":
        f = _distributed_check(scan, kb, tb, file, at, what, user)
    if f is None and kind == "lib" and lib == "torch" and "torch.compile_error" in by and \
            provenance.torch_area(by, file) == "compile":
        # (family17) raised in torch's compile stack (a subpackage whose generated sites are mostly the compile
        # families': torch/_dynamo, torch/_inductor, torch/fx/experimental's symbolic shapes), not a call of the user's
        # that torch refused: torch.compile (or torch.export, which traces with it) stopped
        f = _structural_finding(by["torch.compile_error"], hit, "%s raised in torch's compile stack (%s)" % (
            tb["exc"], provenance.torch_subpackage(file)), scan)
        f["notes"].append("Raised inside torch's compiler at %s (%s)%s: the tracer or the backend could not handle the "
                          "code; TORCH_LOGS and the message's own advice say which construct." % (
                              at, what, ", under your %s:%d" % user[:2] if user else ""))
    torch_in = None
    if f is None and kind == "lib" and lib == "torch" and user and _lib_entry(by, file, lib)[1] is None:
        # torch's own frames are in every traceback: an exception raised in torch's Python code (outside the
        # torch.distributed modules and launchers that name a family) under a call of the user's is read as
        # that call's, as structural() did before it read the frames; torch is named in the note
        torch_in, (file, line, fn), kind = at, user, "user"
        at = "%s:%d%s" % (file, line, " in %s" % fn if fn and not fn.startswith("<") else "")
    if f is None and kind == "lib" and lib != "torch" and _lib_entry(by, file, lib)[1] is None:
        # (a launcher's or op builder's own package names its family first: deepspeed/ops, deepspeed/launcher,
        # accelerate/commands, analyze._TORCHDIST); (family19) the library's own raise names the finer family of the
        # module that raised it, or of the argument check that refused the call (libwhere.py)
        f = libwhere.finding(scan, kb, tb, lib, user, at, what, _structural_finding, API_DEPTH) or \
            _refused_call(scan, kb, tb, lib, user, at, what)
    if f is None and kind == "lib":
        eid, sub = _lib_entry(by, file, lib)
        if sub == "torch/distributed/rendezvous" and tb["exc"].rsplit(".", 1)[-1] == "ValueError" and \
                "rendezvous.env_missing" in by:
            # torch/distributed/rendezvous.py raises ValueError only where it reads the rendezvous values: its
            # _rendezvous_error ('Error initializing torch.distributed using env:// rendezvous: environment variable
            # %s expected, but not set', 'tcp:// rendezvous: rank parameter missing') and int() of an env variable or
            # a URL query value; reaching the store fails in TCPStore (RuntimeError, DistNetworkError, TimeoutError).
            # https://github.com/pytorch/pytorch/blob/main/torch/distributed/rendezvous.py
            eid = "rendezvous.env_missing"
        f = _structural_finding(by[eid], hit, "%s raised in %s's code" % (tb["exc"], sub or lib), scan)
        called = " (called from your %s:%d)" % (user[0], user[1]) if user else ""
        f["notes"].append("Raised inside %s at %s%s: %s. The library refused the call: read its message; check %s's "
                          "version against torch's and the other libraries' (pip list) and its release notes."
                          % (lib, at, called, what, lib))
        # a fix line is pasted: what the log names (a path, the library) goes in as one shell word
        # (fixline.sh), and the exception's message stays on its own line above, never in the fix
        # (into the family's own cause: a cause the log's evidence put first keeps its specific fix on top)
        fixes = next((c for c in f["causes"] if not c["evidence"]), f["causes"][0])["fix"]
        # it says what the entry's generic first fix says ('read the exception's message and the last
        # frame of your own code ...', structural.toml), with the library and the frame: it replaces it
        fixes[:] = [x for x in fixes if not x.startswith("read the exception's message")]
        dist = pytb.distribution(lib)  # the distribution pip installs it from (generated/wheel_packages.json)
        fixes.insert(0, "read the message of %s on the line above and change the call%s or its "
                        "configuration; check the version of %s against torch's (%s)" % (
                            sh(lib), (" (called from your %s, line %d)" % (sh(user[0]), user[1]))
                            if user else "", sh(dist), "pip list" if dist == lib else "pip show %s" % sh(dist)))
        # (upgrade19) the installation to change: the package that raised, and the one whose code called into it;
        # first for an internal-failure class, else the last alternative (upgrade.py)
        up, note, internal = upgrade.advice(scan, tb, lib)
        if up:
            at = {"first": 0, "second": 1}.get(internal, len(fixes))
            fixes[at:at] = up
            if note:
                f["notes"].append(note)
    elif f is None and kind == "user" and "jax.usage" in by and _jax_filtered(scan, tb):
        # (noans22) JAX removed its own frames from this traceback (its note after the exception line): the innermost
        # frame left is the user's call into JAX, and JAX raised inside it (jax/_src/traceback_util.py)
        f = _structural_finding(by["jax.usage"], hit, "%s raised inside JAX, whose frames JAX removed from the "
                                "traceback, when %s called it" % (tb["exc"], at), scan)
        f["notes"].append("JAX's note after the exception says it removed its internal frames: %s was raised inside "
                          "JAX, called from your %s (%s). Rerun with JAX_TRACEBACK_FILTERING=off to see the JAX "
                          "function that raised it; the message names the argument, sharding or device it refused."
                          % (tb["exc"], at, what))
    elif f is None:
        sure = "medium" if kind == "user" and not torch_in and (tb["exc"].rsplit(".", 1)[-1] in _PLAIN_EXC or
                                                                 tb["exc"] in _PLAIN_EXC) else "low"
        where = at if kind == "user" else ("%s:%d" % (user[0], user[1]) if user else at)
        f = _structural_finding(by["code.exception"], hit, "%s raised at %s, a file of your own code, not a "
                                "library's" % (tb["exc"], where) if kind == "user" else
                                "%s raised in Python's standard library, called from %s" % (tb["exc"], where),
                                scan, sure=sure)
        f["notes"].append("The error is raised by %s at %s (%s%s); not the cluster: fix the code or the data it reads "
                          "there, and run it on one GPU (one process, no launcher) first."
                          % ("your script" if kind == "user" or user else "Python's standard library (no frame of "
                             "your code is in the traceback)", where, what,
                             ", inside torch at %s" % torch_in if torch_in else ""))
        wfile, wline = (file, line) if kind == "user" or not user else user[:2]
        f["causes"][0]["fix"].insert(0, "open %s (line %d) and fix the code or the data there (the error is on the "
                                        "line above), then rerun on one GPU (python <script>, no launcher) before "
                                        "the cluster" % (sh(wfile), wline))
        missing = _MISSING_PATH.search(tb["msg"] or "")
        if missing:
            # the path the program opened is in the message: what to check comes first
            f["causes"][0]["fix"].insert(0, "the file %s does not exist where this rank ran: check it on that node "
                                            "(ls -l %s); a relative path is relative to the rank's working directory "
                                            "(where the launcher started it), and every node needs the file (a shared "
                                            "filesystem or its own copy)" % (sh(missing.group(1)),
                                                                            operand(missing.group(1))))
    if tb.get("in_group"):
        f["notes"].append("The first sub-exception of the exception group %s (PEP 654: each sub-exception is listed "
                          "behind '|' margins)." % tb["in_group"][:200])
    elif tb.get("group"):
        f["notes"].append("It was raised inside an exception group (PEP 654): each sub-exception is listed behind "
                          "'|' margins; the first one is read here.")
    if chain:
        last = chain[-1]
        f["notes"].append("This exception led to %s (%s): the first exception of the chain is the cause."
                          % (_what(last)[:200], "raised from it" if last["chain"] == "cause" else
                             "raised while handling it"))
    return excmeaning.with_advice(f, tb, chain)  # the message's own advice, when it gives one


def _asked(scan, kb, tb, what, at):
    """(wrong18) A library's exception that answers another party's request (asker.py): pickle asking an object how
    to write it -> python.pickle; another installed package asking a module for a name it lacks ->
    code.lib_api_version. None otherwise."""
    from gpudoctor.explain import asker

    by, hit = kb.by_id, tb["hit"]
    hook = asker.pickle_hook(tb) if "python.pickle" in by else None
    if hook:
        f = _structural_finding(by["python.pickle"], hit, "%s raised in %s (%s:%d), which pickle called to write an "
                                "object" % (tb["exc"], hook[0], hook[1], hook[2]), scan, sure="medium")
        f["notes"].append("pickle asked the object how to write it (%s at %s) and it refused (%s): the object cannot "
                          "be sent to another process or saved whole. What is pickled is the program's choice: with "
                          "the spawn / forkserver start method a DataLoader's Dataset, collate_fn and worker_init_fn "
                          "(and all they hold) go to every worker, as do mp.spawn's arguments." % (hook[0], at, what))
        return f  # (python.pickle's cause for an object that refuses, by its evidence, comes first)
    cat = asker.warning_raised(tb) if "python.warning_as_error" in by else None
    if cat:
        f = _structural_finding(by["python.warning_as_error"], hit, "a %s raised as an exception: warnings.warn() "
                                "raises it when the warnings filter says 'error'" % cat, scan, sure="medium")
        f["notes"].append("The program warned (%s, at %s) and a warnings filter set to 'error' made the warning an "
                          "exception that ended it: the warning alone would have been printed and the run gone on. "
                          "The warning's own words say what it wants changed." % (_clip(what, 240), at))
        return f
    call = asker.library_signature(tb)
    eid = provenance.usage_entry(by, call["lib"]) if call else None
    if eid in by:
        f = _structural_finding(by[eid], hit, "CPython refused the arguments of your call to %s's %s (a TypeError of "
                                "the call's binding, raised at your line)" % (call["lib"], call["fn"]), scan,
                                sure="medium")
        f["notes"].append("%s: the installed %s's %s does not take the arguments your line passes (%s). Python checks "
                          "a call's arguments against the callee's signature before it runs, so no frame of %s is in "
                          "the traceback; its release may name the argument otherwise, or require one that older "
                          "releases did not." % (_clip(what, 240), call["lib"], call["fn"], at, call["lib"]))
        # (the file is the traceback's: one shell word, fixline.sh; red team 2026-11-27b)
        file, line, fn = pytb.innermost(tb)[:3]
        where = "%s:%d%s" % (sh(file), line, " in %s" % sh(fn) if fn and not fn.startswith("<") else "")
        f["causes"][0]["fix"].insert(0, "change the call at %s to the installed %s's signature (python -c 'import %s; "
                                        "help(%s.%s)' prints it; the message names the argument it wants or refused)"
                                     % (where, call["lib"], call["module"], call["module"], call["fn"].split(".")[0]))
        return f
    got = asker.foreign_attribute(tb) if "code.lib_api_version" in by else None
    if got:
        mod, attr, lib = got["mod"], got["attr"], got["asker"]
        top = mod.split(".")[0]
        f = _structural_finding(by["code.lib_api_version"], hit, "%s: %s's code (%s:%d) asks %s for %s, which the "
                                "installed %s does not have" % (tb["exc"], lib, got["file"], got["line"], mod, attr,
                                                                top), scan, sure="medium")
        f["notes"].append("%s's own code at %s:%d uses %s.%s (%s), and the installed %s has no such name: %s was made "
                          "for another release of %s (one that still had it, or already had it). The two installed "
                          "releases do not fit each other; neither your code nor a fault of %s." % (
                              lib, got["file"], got["line"], mod, attr, what, top, lib, top, lib))
        a, t = asker.pip_name(lib), asker.pip_name(top)
        f["causes"][0]["fix"][:0] = [
            "upgrade %s to a release made for the installed %s (pip install -U %s; its release notes name the %s "
            "versions it supports)" % (a, t, sh(a), t),
            "or pin %s to the last release that has %s.%s (pip install '%s<VERSION>' with the version %s's "
            "requirements name; pip show %s prints the installed one)" % (t, mod, attr, t, a, sh(t))]
        return f
    return None


def _argparse_finding(scan, kb, a):
    prog, msg = a["prog"], a["msg"]
    f = _structural_finding(kb.by_id["launcher.script_args"], a["hit"], "argparse's usage line, then '%s: error: "
                            "...'" % prog, scan, sure="medium")
    launcher = _LAUNCHER_PROGS.get(prog.split()[0].lower())
    if launcher:
        f["notes"].append("The launcher itself (%s) refused its command line: %s. Its options go before the "
                          "script's name; everything after the script goes to the script." % (launcher, msg))
    else:
        f["notes"].append("Your script's argument parser (%s) refused what it was given: %s. Nothing ran yet; "
                          "under a launcher every rank prints this." % (prog, msg))
    low = msg.lower()
    if low.startswith("unrecognized arguments"):
        opts = sorted(set(m.group(0) for m in _LAUNCHER_OPTS.finditer(msg)))
        if opts and not launcher:
            f["notes"].append("%s: %s written after the script's name, so the script got %s. Move %s before the "
                              "script: torchrun %s=... train.py <script args>."
                              % (", ".join(opts[:4]), "a launcher's option" if len(opts) == 1 else "launchers' options",
                                 "it" if len(opts) == 1 else "them", "it" if len(opts) == 1 else "them", opts[0]))
            f["causes"][0]["fix"].insert(0, "move %s before the script's name on the launcher's line" % ", ".join(
                opts[:4]))
        elif "local" in low and "rank" in low:
            f["causes"][0]["fix"].insert(0, "accept the launcher's --local-rank / --local_rank in the script's "
                                            "parser, or launch with torchrun and read LOCAL_RANK")
    elif low.startswith("the following arguments are required"):
        f["notes"].append("A required argument is missing: the job script's line (or a variable it expands, empty "
                          "on some node) did not give it.")
        f["causes"][0]["fix"].insert(0, "give %s on the script's command line (after the script's name)"
                                     % " ".join(sh(a.strip()) for a in msg.split(":", 1)[-1][:120].split(",")
                                                if a.strip()))
    return f


# ---------------------------------------------------------------- a traceback the program went on after

WENT_ON_LINES = 50  # lines after a traceback, none an error line: the program printed it and went on
# CPython's unraisablehook for an atexit callback (Python/pylifecycle.c / Modules/atexitmodule.c: 'Exception ignored in
# atexit callback: %R'): printed while the interpreter exits
_AT_EXIT = "Exception ignored in atexit callback"


def _input_end(scan, line):
    """The last line of the input that holds ``line`` (several files: each its own range)."""
    end = scan.lines
    for src in scan.sources:
        if src["first_line"] < line <= src["first_line"] + src["lines"]:
            return src["first_line"] + src["lines"]
    return end


# a logging record that carries the traceback after it (Lib/logging/__init__.py Formatter.format: the record's
# message, then formatException's traceback on the next lines) names its level as logging does ('WARNING', 'WARN';
# the 'W<mmdd>' / '[W ...]' header of torch's and glog's formatters) and has a message of words. A warning another
# program printed just before an uncaught traceback is not that record, and the traceback stays the failure (family16):
# ssh's own 'Warning: Permanently added '[host]:port' (ED25519) to the list of known hosts.' before the remote
# python's traceback (openssh sshconnect.c), the row of asterisks that ends torchrun's OMP_NUM_THREADS banner before
# torchrun's own traceback (torch/distributed/run.py logs the banner as one warning, its formatter prefixing each line)
_LOG_LEVEL = re.compile(r"(?<![A-Za-z])WARN(?:ING)?(?![A-Za-z])|^\[?W(?:\d{4} |\s)")
_LOG_HEAD = re.compile(r"^\[?W\d{4} [\d:.]{8,20}(?: {1,4}\d{1,10})? [^\]\n]{1,200}\] ?")
_WORD = re.compile(r"[A-Za-z]{2}")


# the source location a record's header names (Lib/logging/__init__.py LogRecord.pathname / lineno, as formatters
# print them: DeepSpeed's '[real_accelerator.py:213:get_accelerator]', torch's and glog's 'W1127 ... utils.py:2134]')
_REC_WHERE = re.compile(r"(?:^|[\s\[/])(?P<file>[A-Za-z_][\w.-]{0,80}\.py):\d{1,7}(?=[\]:\s])")


def _outermost(tb):
    """The outermost frame's file of a traceback, when the text holds every frame of it and that frame is a
    program's top level (an uncaught exception's traceback starts there: a script's '<module>', runpy's
    '_run_module_as_main' for python -m); else None. (review17: a logged exc_info traceback starts at the frame
    that caught the exception, which need not be the file that called the logger: a helper such as utils.py's
    log_failure() called from train.py's except block)"""
    frames = list(tb.get("outer") or []) + list(tb.get("frames") or [])
    if not frames or tb.get("nframes", len(frames)) > len(frames):
        return None
    if frames[0][2] not in ("<module>", "_run_module_as_main"):
        return None
    return frames[0][0]


def _logged_record(intro, tb=None):
    if severity(intro) != "warn" or not _LOG_LEVEL.search(intro):
        return False
    if tb is not None:
        # (family17) logging's exc_info traceback (Formatter.formatException, traceback.print_exception) begins at
        # the frame that caught the exception, the one whose code called the logger: the file the record names
        # (Logger.findCaller's pathname). A record that names another file than the traceback's outermost frame
        # is a warning printed just before an uncaught traceback (DeepSpeed's '[WARNING] [real_accelerator.py:
        # 213:get_accelerator] Setting accelerator to CPU' before the script's own traceback), not its carrier
        m = _REC_WHERE.search(intro[:300])
        outer = _outermost(tb) if m else None
        if outer and re.split(r"[/\\]", outer)[-1] != m.group("file"):
            return False
    return _WORD.search(_LOG_HEAD.sub("", intro, count=1)) is not None


def _went_on_one(scan, tb):
    intro = tb.get("intro") or ""
    if intro.startswith("Exception ignored"):
        # CPython's default sys.unraisablehook (Python/errors.c: 'Exception ignored in: %R', then the
        # traceback): an exception the interpreter could not raise (a __del__, a thread's cleanup): it went on
        return True
    if intro and _logged_record(intro, tb):
        return True  # a logger's WARNING record with its traceback (logger.warning(..., exc_info=True)): not fatal
    if tb.get("rank") is not None or getattr(scan, "several", False):
        # one rank's traceback among ranks' lines (or files): the lines after it may be the other ranks'
        # going on while this one is gone; the text does not say that this rank went on
        return False
    return _input_end(scan, tb["line"]) - tb["line"] >= WENT_ON_LINES


def went_on(scan):
    """The tracebacks of a text whose every error line is in a traceback the program went on after
    ('Exception ignored in:', or WENT_ON_LINES lines after it without an error line: a caught exception that
    training logged); [] otherwise (some error line is elsewhere, or there were too many to tell)."""
    tbs = scan.tracebacks
    if not tbs or not scan.error_count or scan.error_count > len(scan.error_lines) or \
            len(tbs) >= pytb.MAX_TRACEBACKS or scan.matches.get("_struct_terminate"):
        return []
    spans = []
    for tb in tbs:
        if tb["header_line"] is None or _tb_echo(tb):
            return []
        # the logger's own record before the traceback ('ERROR - upload failed', logger.exception) is part of it
        spans.append((tb["intro_line"] or tb["header_line"], tb["line"] + 3, tb))
    ok = []
    for ln in scan.error_lines:
        span = next((s for s in spans if s[0] <= ln <= s[1]), None)
        if span is None:
            return []
        if span[2] not in ok:
            ok.append(span[2])
    if not ok or not all(_went_on_one(scan, tb) for tb in ok):
        return []
    if any(not (tb.get("intro") or "").startswith("Exception ignored") and
           any(t["line"] > tb["line"] and (t.get("intro") or "").startswith(_AT_EXIT) and
               (t.get("intro_line") or t["header_line"] or t["line"]) - tb["line"] < WENT_ON_LINES for t in tbs)
           for tb in ok):
        # (docerrors18) an exception the interpreter printed at exit right after it (an atexit callback's: Python's
        # atexit runs its callbacks when the interpreter exits, Doc/library/atexit.rst; jax's clean_up after an
        # equinox runtime error and its 30 lines of message and trailer): the program ended there, it did not go on.
        # Not one WENT_ON_LINES or more later: the run went on and ended, and the atexit noise (wandb's teardown
        # BrokenPipeError) is no sign the earlier traceback stopped it (review18)
        return []
    last = max(tb["line"] for tb in ok)
    if any(ln > last + 3 for ln in scan.error_lines):
        return []
    for tb in ok:
        tb["went_on"] = True
    return ok


def went_on_notes(tbs, kb):
    e = kb.by_id.get("code.caught_exception")
    if not tbs or e is None:
        return []
    tb = tbs[0]
    intro = tb.get("intro") or ""
    how = ("the interpreter printed it as 'Exception ignored' and went on" if intro.startswith("Exception ignored")
           else "printed under a WARNING record" if severity(intro) == "warn" else
           "the text goes on for %d+ lines after it without an error" % WENT_ON_LINES)
    return [{"id": e["id"], "severity": "warning",
             "note": "%s: %s (%s). %s" % (e["title"], _what(tb)[:200], how, " ".join(e["explain"].split())),
             "fix": e["causes"][0]["fix"][0], "first_line": tb["line"], "text": tb["hit"].text,
             "match_count": len(tbs)}]

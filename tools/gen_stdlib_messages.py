#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/stdlib_messages.json: what Python's own standard library raises when a
training job's processes, pickling or threads go wrong (DataLoader workers, mp.spawn, a process pool, a checkpoint
read back): the `raise X("...")`, `assert ..., "..."` and warning texts of CPython's multiprocessing, concurrent.futures,
pickle and threading modules, read from the installed interpreter's Lib/ (never imported), and the C modules'
messages a training log shows (_pickle's "Can't pickle local object", "Ran out of input"; signal's "signal only works
in main thread"; socket's "AF_UNIX path too long"), read as the printable runs of the interpreter binary that hold
them (knowgen.run_around: their presence in the pinned build is what is checked).

Each message becomes a bounded matcher assigned to a family (knowledge/python_stdlib.toml) by RULES (a file's
messages by its module, 'ctx-' rules only for messages with enough words of their own); MSG_FIX gives the messages a
training job meets their own meaning and fix, written from the code that raises them; warnings are context only.

Usage:
    python tools/gen_stdlib_messages.py --lib /usr/lib/python3.11 --binary /usr/bin/python3.11 \\
        [--record tools/data/stdlib_messages_slice.txt] [-o OUT]
    python tools/gen_stdlib_messages.py --slice tools/data/stdlib_messages_slice.txt -o OUT   (the test)

Source: CPython (https://github.com/python/cpython, PSF License): Lib/multiprocessing/, Lib/concurrent/futures/,
Lib/pickle.py, Lib/threading.py and the C modules Modules/_pickle.c, Modules/signalmodule.c, Modules/socketmodule.c,
as Debian 12's libpython3.11-stdlib / python3.11-minimal 3.11.2-6+deb12u6 install them (the regenerated table read
CPython 3.11.2).
"""

import ast
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402
import wheelmsgs  # noqa: E402

GENERATOR = "tools/gen_stdlib_messages.py"
FILES = (r"^(?:multiprocessing/(?:context|spawn|process|pool|queues|connection|reduction|managers|synchronize|"
         r"shared_memory|resource_tracker|resource_sharer|forkserver|popen_fork|popen_forkserver|popen_spawn_posix|"
         r"heap|util)\.py|concurrent/futures/(?:process|_base|thread)\.py|pickle\.py|threading\.py)$")
BINARY = "bin/python"  # the slice's name for the interpreter binary's runs
# and for the interpreter's own messages (every printable run of 8+ characters of the binary, knowgen.binary_strings):
# a module's message that one of them also holds is what the builtins print too ('assignment index out of range' in
# 'list assignment index out of range'), not that module's refusal. The slice keeps the runs that did so.
BUILTINS = "bin/python-strings"
# The C modules' messages (printf-like formats of PyErr_Format: %R / %U / %S are an object's repr / str)
NEEDLES = (b"Can't pickle local object", b"Ran out of input", b"pickle data was truncated",
           b"signal only works in main thread", b"AF_UNIX path too long", b"Can't get attribute %R on %R")

# (rule, knowledge entry, {field: regex}); fields: where (path:line), text, level. The first that matches wins.
RULES = [
    ("signal-thread", "python.threading", {"text": r"^signal only works in main thread"}),
    ("unix-socket-path", "python.multiprocessing", {"text": r"^AF_UNIX path too long"}),
    ("ctx-pickle", "python.pickle", {"where": r"^(?:pickle\.py|multiprocessing/reduction\.py|bin/python):",
                                 "level": r"^raise$"}),
    ("ctx-multiprocessing", "python.multiprocessing", {"where": r"^(?:multiprocessing|concurrent/futures)/",
                                                       "level": r"^(?:raise|error)$"}),
    ("ctx-threading", "python.threading", {"where": r"^threading\.py:", "level": r"^raise$"}),
]

# What one message means and what to do: [(regex over the text, means, [fix])]
MSG_FIX = [
    (r"An attempt has been made to start a new process before the",
     "multiprocessing/spawn.py _check_not_importing_main(): with the spawn or forkserver start method (the default on "
     "macOS and Windows, and whenever CUDA forces 'spawn') each child re-imports the main module; code that starts "
     "processes at import time (a DataLoader with num_workers > 0, mp.spawn, a Pool) then runs again in the child "
     "before it finished starting.",
     ["put the script's entry point under `if __name__ == '__main__':` (call main() there), so that importing the "
      "module starts nothing (Python's multiprocessing docs, 'Safe importing of main module')"]),
    (r"^context has already been set$",
     "multiprocessing/context.py set_start_method(): the start method was set twice in one process (your script and a "
     "library, or a module imported twice), without force=True.",
     ["set it once, first thing under `if __name__ == '__main__':` (mp.set_start_method('spawn', force=True) where it "
      "must override), or use a context locally: mp.get_context('spawn') / DataLoader(..., "
      "multiprocessing_context='spawn')"]),
    (r"^daemonic processes are not allowed to have children$",
     "multiprocessing/process.py start(): a daemon process tried to start a process of its own; DataLoader workers "
     "and Pool workers are daemons, so a Dataset or a collate_fn that starts a Pool (or a DataLoader with workers) "
     "inside a worker fails.",
     ["start the pool in the main process, not in the Dataset / collate_fn; or give that inner DataLoader "
      "num_workers=0; or use threads (concurrent.futures.ThreadPoolExecutor) inside the worker"]),
    (r"^A process in the process pool was terminated abruptly",
     "concurrent/futures/process.py: a worker process of a ProcessPoolExecutor died without a Python exception: "
     "killed by the kernel's OOM killer or a memory limit (SIGKILL), or crashed in native code (SIGSEGV), or called "
     "os._exit(); every pending future then fails with BrokenProcessPool.",
     ["find how the worker died: dmesg -T | grep -i 'killed process' (the OOM killer), the worker's own stderr, "
      "sacct/kubectl for the memory limit; then lower max_workers or the memory each task holds, or fix the native "
      "crash"]),
    (r"^Can't pickle local object ",
     "Modules/_pickle.c save_global(): an object sent to another process (with spawn / forkserver: the Dataset, "
     "collate_fn, worker_init_fn and everything they reference, or mp.spawn's arguments) is a function or class "
     "defined inside another function or a lambda, which pickle cannot name.",
     ["define the function or class at the top level of a module (functools.partial of a top-level function for "
      "bound arguments) instead of a lambda or a nested def", "on Linux the 'fork' start method does not pickle the "
      "Dataset (DataLoader(multiprocessing_context='fork')), unless CUDA was initialised before the workers start"]),
    (r"^Can't get attribute %s on %s",
     "Modules/_pickle.c: unpickling found no attribute of that name in the module the pickle names: the pickle (a "
     "checkpoint saved whole with torch.save(model), an object sent to a spawned worker) refers to a class or "
     "function defined in `__main__` of the script that wrote it, or in a module that has since changed.",
     ["save and load state_dict()s, not whole objects (torch.save(model.state_dict())); define the classes a worker "
      "or a loader needs in an importable module, not in the script run as __main__"]),
    (r"^Ran out of input$",
     "Modules/_pickle.c: pickle.load() read an empty or cut stream: the file is empty or truncated (a checkpoint or "
     "cache written while the job crashed, a full disk, several ranks writing the same path at once), or a process "
     "died before it sent its result through a pipe.",
     ["delete and regenerate the file; write it from one rank only, to a temporary name then os.replace() it into "
      "place; check the free space where it is written (df -h)"]),
    (r"^pickle data was truncated$",
     "Modules/_pickle.c: the pickle stream ended in the middle of an object: a file cut short (a save interrupted, a "
     "disk full, a copy not finished) or several writers at once.",
     ["regenerate the file from one writer (rank 0), written to a temporary name and renamed; compare its size with "
      "the original's"]),
    (r"^signal only works in main thread",
     "Modules/signalmodule.c: signal.signal() was called from a thread other than the main thread of the main "
     "interpreter: a library that installs signal handlers (a trainer's SLURM requeue or timeout handling, a "
     "launcher, a profiler) was started inside a thread (a web UI or notebook callback, a ThreadPoolExecutor, a Ray "
     "actor's thread).",
     ["start training in the process's main thread (a subprocess instead of a thread), or switch the library's "
      "signal handling off (Lightning: SLURMEnvironment(auto_requeue=False) or the plain LightningEnvironment plugin)"]),
    (r"^AF_UNIX path too long$",
     "Modules/socketmodule.c: a Unix domain socket path is longer than sun_path holds (108 bytes on Linux); "
     "multiprocessing's managers and forkserver (and other IPC) make their sockets under TMPDIR, which on a cluster "
     "can be a long per-job path on a shared file system.",
     ["export TMPDIR=/tmp (or another short local path) for the job before it starts its workers"]),
]


def read(lib, binary):
    """([(path relative to Lib/, text)] + [(BINARY, the binary's runs)], version) of the pinned interpreter."""
    files = []
    for dirpath, dirnames, names in os.walk(lib):
        dirnames[:] = sorted(d for d in dirnames if d in ("multiprocessing", "concurrent", "futures"))
        for n in sorted(names):
            rel = os.path.relpath(os.path.join(dirpath, n), lib)
            if re.match(FILES, rel):
                with open(os.path.join(dirpath, n), encoding="utf-8") as f:
                    files.append((rel, f.read()))
    with open(binary, "rb") as f:
        data = f.read()
    runs = [r for r in (knowgen.run_around(data, n) for n in NEEDLES) if r is not None]
    files.append((BINARY, "\n".join(runs) + "\n"))
    files.append((BUILTINS, "\n".join(knowgen.binary_strings(data, 8)) + "\n"))
    short = re.search(r"python(\d+\.\d+)", os.path.abspath(lib))
    m = re.search(rb"\x00(%s\.\d+)\x00" % re.escape(short.group(1)).encode(), data) if short else None
    version = "CPython %s (%s, %s)" % (m.group(1).decode() if m else "unknown", lib, binary)
    return files, version


def constructed(path, src):
    """(line, last line, format) of the exceptions a module builds first and raises or hands over later (concurrent/futures/
    process.py: `bpe = BrokenProcessPool("A process in the process pool was ...")`, then set_exception(bpe) on every
    pending future): an assignment whose value is a call of a name ending in Error / Exception / Pool with a message."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and node.value.args:
            f = node.value.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            fmt = knowgen.py_format(node.value.args[0]) if re.search(r"(?:Error|Exception|Pool)$", name) else None
            if fmt:
                out.append((node.lineno, node.end_lineno, " ".join(fmt.split())))
    return out


# A message assigned by its module alone ('ctx-' rules) must be told from what any other program prints: the
# standard library's short refusals ('index out of range', 'handle is closed', 'size is negative') are also the ends
# of the builtins' own messages ('IndexError: list index out of range') and of other libraries'. So: knowgen.own_enough
# (words and characters of its own), unless MSG_FIX names it (a message read and given its own meaning: 'Ran out of
# input').


def _longest_literal(fmt):
    return max((p.strip() for p in knowgen.PY_CONV.split(fmt)), key=len)


_CONVS = re.compile(r"(?:%[-#0-9.]*[a-zA-Z][.:]?)+")


def _said_by_builtins(fmt, builtins):
    """The first of the interpreter's runs that holds the message's longest literal inside another text, or None. The
    same message in C (Modules/_pickle.c's twin of Lib/pickle.py's, '%zd' for '%d', '%R' for '%r') is the same message,
    not another: formats are compared with their conversions collapsed."""
    lit, own = _longest_literal(fmt), _CONVS.sub("%", fmt.strip())
    return next((b for b in builtins if lit in b and _CONVS.sub("%", b.strip()) != own), None)


def build(files, version):
    seen, ids = set(), set()
    py = [(p, t) for p, t in files if p.endswith(".py")]
    sites = wheelmsgs.py_sites(py, "python.", RULES, MSG_FIX, seen, ids)
    for path, srcs in wheelmsgs.group(py).items():
        for line, _, fmt in sorted({x for src in srcs for x in constructed(path, src)}):
            if fmt not in seen:
                seen.add(fmt)
                sites.append(wheelmsgs.site_for("python.", ids, "raise", "%s:%d" % (path, line), fmt, RULES, MSG_FIX))
    for path, text in files:
        if path != BINARY:
            continue
        for i, line in enumerate(text.splitlines(), 1):
            fmt = re.sub(r"%[RUSAV]", "%s", line.strip())
            if fmt and fmt not in seen:
                seen.add(fmt)
                sites.append(wheelmsgs.site_for("python.c_", ids, "raise", "%s:%d" % (BINARY, i), fmt, RULES, MSG_FIX))
    builtins = [ln for p, t in files if p == BUILTINS for ln in t.splitlines() if ln.strip()]
    for site in sites:
        if not (site.get("rule") or "").startswith("ctx-") or site.get("fix"):
            continue
        if not knowgen.own_enough(site["text"]):
            why = "too short to be told from other programs' messages"
        elif _said_by_builtins(site["text"], builtins):
            why = "the interpreter's own messages say the same"
        else:
            continue
        site.update({"family": None, "rule": why})
        site.pop("means", None)
        site.pop("fix", None)
    return {"header": knowgen.header("CPython's standard library (https://github.com/python/cpython)", version,
                                     GENERATOR, "raise/assert/warning messages of Lib/multiprocessing, "
                                     "Lib/concurrent/futures, Lib/pickle.py and Lib/threading.py, and the C modules' "
                                     "messages found in the interpreter binary; families from the RULES table of the "
                                     "generator"),
            "sites": sites}


def main(argv):
    a = knowgen.arguments(__doc__, argv, source="lib", extra=[
        ("--binary", {"help": "the interpreter binary whose C modules' messages are read (with --lib)"}),
        ("--record", {"help": "write the slice (the statements of the assigned sites, and the binary's runs)"})])
    if a.lib:
        if not a.binary:
            a.error("give --binary with --lib")
        files, version = read(a.lib, a.binary)
    else:
        files, version = knowgen.read_slice(a.slice)
    out = build(files, version)
    if a.lib:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, out["sites"], of="source")
        if a.record:
            kept = {wheelmsgs.site_key(s) for s in out["sites"] if s.get("family")}
            binary = next(t for p, t in files if p == BINARY)
            extra = [(p, line, textwrap.dedent("\n".join(t.splitlines()[line - 1:end])))
                     for p, t in files if p.endswith(".py") for line, end, _ in constructed(p, t)
                     if "%s:%d" % (p, line) in kept]
            builtins = [ln for p, t in files if p == BUILTINS for ln in t.splitlines() if ln.strip()]
            said = sorted({_said_by_builtins(s["text"], builtins) for s in out["sites"]
                           if s.get("rule") == "the interpreter's own messages say the same"})
            wheelmsgs.write_record(a.record, version, [(p, t) for p, t in files if p.endswith(".py")],
                                   kept.__contains__, GENERATOR,
                                   extra + [(BINARY, 1, binary), (BUILTINS, 1, "\n".join(said) + "\n")])
    return knowgen.emit("stdlib_messages", out, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""A run's end status as the program that ran it reports it (noanswer20, issue 18 item 2): a service, a job runner, a
container engine or a script that says 'Training end with return code: 137', 'exited with code 139', 'exit status
134', 'returncode=-9' names the signal that ended the process it ran, whoever printed it.

- **The code is the signal.** bash(1), EXIT STATUS: "When a command terminates on a fatal signal N, bash uses the
  value of 128+N as the exit status" (https://www.gnu.org/software/bash/manual/bash.html#Exit-Status; POSIX
  sh and every supervisor that runs the job through a shell report the same number; docker and Kubernetes report a
  container's main process that way: https://docs.docker.com/engine/containers/run/#exit-status). Python's
  subprocess: "A negative value -N indicates that the child was terminated by signal N (POSIX only)"
  (https://docs.python.org/3/library/subprocess.html#subprocess.Popen.returncode), which launchers built on it print
  as is. The signal's number is Linux's (signal(7), the standard signals' x86 / ARM column:
  https://man7.org/linux/man-pages/man7/signal.7.html).
- **What the signal says.** SIGKILL (137, -9) cannot be caught: the kernel's OOM killer, a memory limit of the job's
  cgroup, or a scheduler / person after its grace time (elastic.sigkill); SIGBUS (135, -7) is a shared or mapped file
  that could not be backed, /dev/shm in a container above all (elastic.sigbus). Any other signal (SIGSEGV 139,
  SIGABRT 134, SIGTERM 143 ...) is an echo (cascade.signal): the process's own last lines (a crash report, a
  watchdog's abort, a scheduler's cancel) name the cause, and the code only says how it ended.
- Codes 1-127 are the program's own exit status (no signal: nothing is read from them); a code that is neither is not
  read. A line of a run that went on afterwards (provenance._ran_past) is not what stopped it.

explicit.seen() counts such a line (never 'no error' for it) and explicit.structural() asks finding() last, after
every reader that names the cause from the process's own lines.
"""

import re

# Linux's standard signals (signal(7), x86 / ARM numbering): generated/signals.json, which tools/gen_signals.py
# writes from Python's signal.Signals and glibc's strsignal() (https://docs.python.org/3/library/signal.html)
def _signal_table():
    from gpudoctor.explain.knowledge import generated_table

    return generated_table("signals").get("signals") or []


SIGNALS = {s["number"]: s["name"] for s in _signal_table()}
# the signals whose one documented cause an entry holds; any other is cascade.signal's echo
ENTRY = {"SIGKILL": "elastic.sigkill", "SIGBUS": "elastic.sigbus"}
# what each signal usually is, in a training job (signal(7)'s description, then where it comes from)
MEANS = {
    "SIGKILL": "killed from outside and cannot be caught: the kernel's OOM killer (host RAM or the job's cgroup memory "
               "limit), or a scheduler / container runtime after its grace time, or kill -9",
    "SIGBUS": "a bus error: a page of a shared or memory-mapped file could not be backed (/dev/shm full, a mapped "
              "file truncated)",
    "SIGSEGV": "a segmentation fault in native code (an extension, a CUDA library, the interpreter: a stack limit "
               "too small for it, ulimit -s, is one way)",
    "SIGABRT": "an abort: a C++ exception nothing caught, a failed assertion, or a watchdog (NCCL's) that aborts after "
               "an earlier error",
    "SIGTERM": "asked to stop: a scheduler's cancel or time limit, a container stop, a launcher tearing the group down "
               "after another process failed",
    "SIGINT": "interrupted (Ctrl-C, or a launcher passing it on)",
    "SIGHUP": "its terminal closed (an ssh session that ended)",
    "SIGFPE": "an arithmetic fault in native code (an integer division by zero)",
    "SIGILL": "an instruction the CPU does not have (a binary built for a newer CPU)",
    "SIGPIPE": "it wrote to a pipe or socket whose reader had gone",
    "SIGXCPU": "its CPU time limit ran out (ulimit -t, a scheduler's limit)",
    "SIGXFSZ": "a file grew past its size limit (ulimit -f)",
}
# where to read next, per signal (the command that tells its cause apart)
NEXT = {
    "SIGKILL": "the kernel log of the node near the time (sudo dmesg -T | grep -iE 'killed process|out of memory'); "
               "the job's memory record (sacct -j <jobid> -o JobID,State,MaxRSS,ReqMem; kubectl describe pod: "
               "Last State, Reason OOMKilled; the service's own job / event log)",
    "SIGBUS": "df -h /dev/shm where it ran (docker run --shm-size / --ipc=host, a Kubernetes emptyDir medium: Memory)",
    "SIGSEGV": "PYTHONFAULTHANDLER=1 (the Python frame of the crash is printed), ulimit -s and ulimit -c unlimited "
               "for a core file (coredumpctl debug / gdb python core)",
    "SIGABRT": "the process's own last lines before the code (the abort's message: an exception's what(), a "
               "watchdog's timeout, an assertion)",
}
NEXT_DEFAULT = ("the process's own last lines before this one (what it printed as it ended) and the service's or "
                "scheduler's log of who sent the signal")

# the end status as programs print it: '<exit|return|termination> <code|status|value>' with the number after ':',
# '=', a blank or a quote, 'exited with code N' (docker compose), 'returned non-zero exit status N' (CPython's
# CalledProcessError); 'returncode' / 'exit_code' / 'ExitCode' spelt as one word
_CODE = (r"(?i)(?<![\w-])(?:(?:exit|return|termination)[ _-]?(?:code|status|value)|returncode|exitcode|"
         r"exit(?:ed)? with (?:exit )?(?:code|status))s?\b[\"']?[ \t]{0,3}[:=]?[ \t]{0,3}[\"'(]?"
         r"(?P<code>-?\d{1,3})(?!\w|\.\d)")
# the prefilter's needles (the line lower-cased, blanks removed): the words as they are joined, never 'code' or 'status'
# alone (every log has them)
_NEEDLES = ["exitcode", "exit_code", "exit-code", "exitstatus", "exit_status", "exit-status", "exitvalue",
            "exit_value", "returncode", "return_code", "return-code", "returnstatus", "return_status", "returnvalue",
            "return_value", "terminationcode", "termination_code", "terminationstatus", "terminationvalue",
            "exitedwith", "exitwith"]
PATTERNS = {"_struct_ex_runend": [(_CODE, _NEEDLES)]}


def signal_of(code):
    """(signal number, name) the end status ``code`` (its text) reports, or None (an exit status of the program's
    own, or a number no signal has)."""
    try:
        n = int(code)
    except (TypeError, ValueError):
        return None
    if n == -1:
        # (review20) -1 is the C / POSIX failure return ("On error, -1 is returned", read(2):
        # https://man7.org/linux/man-pages/man2/read.2.html), which programs print as 'return code -1' far more
        # often than a launcher prints subprocess's SIGHUP
        return None
    sig = -n if n < 0 else n - 128 if n > 128 else None
    return (sig, SIGNALS[sig]) if sig in SIGNALS else None


def hits(scan, known=()):
    """The end-status lines whose code is a signal's, not a line an entry matched."""
    from gpudoctor.explain.provenance import _ran_past

    return [h for h in scan.matches.get("_struct_ex_runend", [])
            if h.line not in known and signal_of(h.groups.get("code")) and not _ran_past(scan, h.line)]


def finding(scan, kb, structural_finding, known=()):
    """The signal's entry for the first end status that names one; None else."""
    by = kb.by_id
    for h in hits(scan, known):
        code = h.groups.get("code")
        num, name = signal_of(code)
        eid = ENTRY.get(name, "cascade.signal")
        if eid not in by:
            continue
        how = "-%d (signal %d)" % (num, num) if code.startswith("-") else "%s = 128 + %d" % (code, num)
        f = structural_finding(by[eid], h, "the run's end status %s: %s ended the process" % (how, name), scan)
        f["notes"].append("The process this line reports on ended with %s (%s; bash(1) exit status 128+N, "
                          "subprocess returncode -N, signal(7)): %s. The code says how it ended, not why: read %s." % (
                              name, how, MEANS.get(name, "signal %d" % num), NEXT.get(name, NEXT_DEFAULT)))
        fx = f["causes"][0]["fix"] if f.get("causes") else None
        if fx is not None:
            step = "read next: %s" % NEXT.get(name, NEXT_DEFAULT)
            if step not in fx:
                fx.append(step)  # (after the entry's own fixes: the next step, not a fix)
        return f
    return None

"""srun's report of how a task ended is the echo of the task's own failure, never Slurm's error (noans22, issue 18
item 2).

srun prints, for every task that ended badly, one line under its own error prefix (SchedMD/slurm src/srun/launch.c
_task_finish, at the commit generated/slurm_messages.json pins, 284c3b95, site src/srun/launch.c:388; older releases
the same lines in src/plugins/launch/slurm/launch_slurm.c, https://github.com/SchedMD/slurm/blob/master/src/srun/
launch.c):

    error("%s: %s %s: Exited with exit code %d", hosts, task_str, tasks, rc);   (WIFEXITED)
    error("%s: %s %s: %s%s", hosts, task_str, tasks, strsignal(sig), core_str);  (WIFSIGNALED; ' (core dumped)')

so `srun: error: node3: task 1: Exited with exit code 1`, `srun: error: nid007306: task 640: Segmentation fault`,
`srun: error: cn03: tasks 0-3: Killed`. The line has Slurm's shape (`srun: error:`), but the error is the task's: its
own output above it (a traceback, a library's message) says why, and Slurm did nothing wrong. analyze.structural reads
a Slurm error line as slurm.error; such a task-end line is left out of that, so the task's own lines are read first, and
only a text with nothing else is answered from the line itself:

- a signal (strsignal's text, glibc's list, the same names as signal(7):
  https://sourceware.org/git/?p=glibc.git;a=blob;f=sysdeps/generic/siglist.h) is read as runend.py reads a 128+N code:
  SIGKILL elastic.sigkill, SIGBUS elastic.sigbus, any other cascade.signal, with the signal's next step;
- an exit code of the program's own is the echo (cascade.child_failed) with the next step: the first failing task's
  own output (srun --label, or --output=<name>-%t.out to keep one file per task).
"""

import re

from gpudoctor.explain import runend as _runend

# glibc's strsignal texts (sysdeps/generic/siglist.h), Linux numbering (signal(7)), of the signals whose default
# action ends the process (signal(7)'s Term / Core: srun reports no other): generated/signals.json (tools/gen_signals.py)
STRSIGNAL = {s["text"]: s["number"] for s in _runend._signal_table() if s.get("action") in ("Term", "Core")}

# the message part of analyze's _struct_slurm line (after 'srun: error: '): '<hosts>: task(s) <ids>: <how>'
_END = re.compile(r"^(?:(?P<hosts>[^\s:]{1,255}): )?(?P<tasks>tasks? [\d,\[\]-]{1,60}): (?:Exited with exit code "
                  r"(?P<code>\d{1,3})|(?P<sig>%s)(?: \(core dumped\))?)\s*$" % "|".join(
                      re.escape(s) for s in sorted(STRSIGNAL, key=len, reverse=True)))


def task_end(hit):
    """The match of srun's task-end report for a _struct_slurm hit, or None (any other Slurm line)."""
    if (hit.groups.get("prog") or "") != "srun":
        return None
    return _END.match((hit.groups.get("msg") or "").strip())


def finding(scan, kb, structural_finding):
    """The first task-end line's reading, for a text whose other lines named nothing; None where it has none."""
    from gpudoctor.explain.provenance import _ran_past

    by = kb.by_id
    for h in scan.matches.get("_struct_slurm", []):
        m = task_end(h)
        if not m or _ran_past(scan, h.line):
            continue
        where = "%s%s" % (m.group("tasks"), " on " + m.group("hosts") if m.group("hosts") else "")
        sig = STRSIGNAL.get(m.group("sig") or "")
        code = m.group("code")
        if sig is None and code and int(code) > 128:
            got = _runend.signal_of(code)  # a shell between srun and the program reports a signal as 128+N
            sig = got[0] if got else None
        if sig is not None:
            name = _runend.SIGNALS[sig]
            eid = _runend.ENTRY.get(name, "cascade.signal")
            if eid not in by:
                return None
            f = structural_finding(by[eid], h, "srun's report that %s ended by %s" % (where, name), scan)
            f["notes"].append("srun reports that %s ended by %s (signal %d: %s). srun only reports it: the task's own "
                              "last lines say why; read %s." % (where, name, sig, _runend.MEANS.get(
                                  name, "signal %d" % sig), _runend.NEXT.get(name, _runend.NEXT_DEFAULT)))
            fx = f["causes"][0]["fix"] if f.get("causes") else None
            step = "read next: %s" % _runend.NEXT.get(name, _runend.NEXT_DEFAULT)
            if fx is not None and step not in fx:
                fx.append(step)
            return f
        if "cascade.child_failed" not in by:
            return None
        f = structural_finding(by["cascade.child_failed"], h, "srun's report that %s exited with code %s" % (
            where, code), scan)
        f["notes"].append("srun reports that %s exited with its own status %s: the program failed, not Slurm. Its "
                          "error is the task's own output before this line; this text does not hold it. Find the "
                          "first task that failed: srun --label (-l) prefixes each line with its task, and "
                          "--output=job-%%j-%%t.out keeps one file per task (srun(1) filename pattern %%t)." % (
                              where, code))
        return f
    return None

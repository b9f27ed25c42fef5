#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/signals.json: Linux's standard signals (1-31) with their name,
number and the text glibc's strsignal() gives them, which is what bash prints for a job a signal ended
('<pid> Killed', 'Bus error (core dumped)') and srun for a task ('task 0: Segmentation fault'), plus each one's
default action from signal(7) (ACTION below, hand-written: Python does not expose it). Its rows are no message matchers (`sites` is
empty; the table is `signals`): gpudoctor/explain/runend.py and srunend.py read their signal names and texts from it.

Usage:
    python tools/gen_signals.py [-o OUT]                                 (this machine's Python and glibc)
    python tools/gen_signals.py --slice tools/data/signals_slice.tsv -o OUT   (the test)

Source: Python's signal.Signals and signal.strsignal() (glibc's strsignal on Linux,
https://docs.python.org/3/library/signal.html#signal.strsignal); default actions: signal(7),
https://man7.org/linux/man-pages/man7/signal.7.html ("Standard signals", x86 / ARM numbering).
A slice is `NAME<TAB>NUMBER<TAB>TEXT` lines.
"""

import os
import platform
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_signals.py"

# signal(7), "Standard signals": the default action of each (Term / Core end the process; Ign / Stop / Cont do not)
ACTION = {"SIGHUP": "Term", "SIGINT": "Term", "SIGQUIT": "Core", "SIGILL": "Core", "SIGTRAP": "Core",
          "SIGABRT": "Core", "SIGBUS": "Core", "SIGFPE": "Core", "SIGKILL": "Term", "SIGUSR1": "Term",
          "SIGSEGV": "Core", "SIGUSR2": "Term", "SIGPIPE": "Term", "SIGALRM": "Term", "SIGTERM": "Term",
          "SIGSTKFLT": "Term", "SIGCHLD": "Ign", "SIGCONT": "Cont", "SIGSTOP": "Stop", "SIGTSTP": "Stop",
          "SIGTTIN": "Stop", "SIGTTOU": "Stop", "SIGURG": "Ign", "SIGXCPU": "Core", "SIGXFSZ": "Core",
          "SIGVTALRM": "Term", "SIGPROF": "Term", "SIGWINCH": "Ign", "SIGIO": "Term", "SIGPWR": "Term",
          "SIGSYS": "Core"}


def build(rows, version):
    sigs = []
    for name, num, text in sorted(rows, key=lambda r: r[1]):
        sigs.append({"name": name, "number": num, "text": text, "action": ACTION.get(name),
                     "exit_status": 128 + num})
    return {"header": knowgen.header("Python signal.Signals and signal.strsignal() (glibc strsignal) "
                                     "(https://docs.python.org/3/library/signal.html); default actions: signal(7) "
                                     "(https://man7.org/linux/man-pages/man7/signal.7.html)", version, GENERATOR),
            "sites": [], "signals": sigs}


def rows_here():
    out = [(s.name, int(s), signal.strsignal(s)) for s in signal.Signals if 1 <= int(s) <= 31]
    return out, "Python %s, %s %s" % (platform.python_version(), *platform.libc_ver())


def main(argv):
    a = knowgen.arguments(__doc__, argv, source=None)
    rows, version = knowgen.read_rows(a.slice) if a.slice else rows_here()
    doc = build(rows, version)
    print("%s: %d signals" % (knowgen.write("signals", doc, a.out), len(doc["signals"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

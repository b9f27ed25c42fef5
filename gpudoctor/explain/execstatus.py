"""What an exit status of 126 or 127 says when only a launcher's echo of it is in the text (issue 18, exec29).

srun ('task 0: Exited with exit code 127'), pdsh ('ssh exited with exit code 127'), torchrun's error summary
('exitcode  : 127') and Open MPI report the status a rank's command ended with. 127 and 126 are not the program's
own: they are what the shell or the wrapper that was to start it returns when it could not - 127 when the command
was not found (bash EX_NOTFOUND, dash's E_EXEC for ENOENT, coreutils' EXIT_ENOENT), 126 when it was found but
could not be executed (EX_NOEXEC / EX_BINARY_FILE, EXIT_CANNOT_INVOKE); bash(1) EXIT STATUS:
https://www.gnu.org/software/bash/manual/bash.html#Exit-Status. The messages that go with each status are the
sites of generated/exec_messages.json (tools/gen_exec_messages.py) that record it: the note names them, so the user
knows which line to look for in that node's own output. The echo stays the answer (the message itself is elsewhere);
this only says what to look for.
"""

import re

from gpudoctor.explain.knowledge import generated_table

# a launcher's report of a command's exit status (srun, pdsh, torchrun's summary, Open MPI, a shell's 'exit N')
_STATUS = re.compile(r"(?:exit(?:ed with)? ?code|exitcode|exit status|return code|returncode)\s{0,4}[:=]?\s{0,4}"
                     r"(12[67])\b", re.I)
MEANS = {127: "127 is what a shell or a wrapper (env, nohup, timeout) returns when it could not find the command, so "
              "the program itself may never have started",
         126: "126 is what a shell or a wrapper returns when it found the command but could not execute it (no execute "
              "permission, another architecture, a #! interpreter it could not start)"}
MAX_SHOWN = 6


def _messages(status):
    """The message formats generated/exec_messages.json records with ``status``: one per program first (bash, dash,
    env, nohup, timeout ...), then the others, at most MAX_SHOWN."""
    first, rest, seen = [], [], set()
    for s in generated_table("exec_messages").get("sites") or []:
        if not ((s.get("family") or s.get("covered_by")) and (s.get("status") == status or
                                                             "%d EXIT_" % status in str(s.get("status_source")))):
            continue
        t = "%s (%s)" % (s.get("text", "").replace("%s", "<cmd>", 1).replace("%s", "<reason>"), s.get("program"))
        if t in first or t in rest:
            continue
        (rest if s.get("program") in seen else first).append(t)
        seen.add(s.get("program"))
    return (first + rest)[:MAX_SHOWN]


def note(finding):
    """A note for an echo finding whose matched lines report exit status 126 or 127, or None."""
    for m in finding.get("matches") or []:
        got = _STATUS.search(m.get("text") or "")
        if got:
            status = int(got.group(1))
            shown = _messages(status)
            return ("Exit status %d: %s. Look in that rank's or node's own output for the line that says which: %s "
                    "(generated/exec_messages.json)." % (status, MEANS[status], "; ".join("'%s'" % x for x in shown)))
    return None

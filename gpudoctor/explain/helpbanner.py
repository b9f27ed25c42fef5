"""Open MPI's help banners (wrong18, issue 18 item 3): one message, printed whole between two dash lines.

Open MPI (and PRRTE, PMIx) print a help topic with show_help: the topic's text from its help file
(help-<component>.txt, '[topic]' sections) between two lines of 74 dashes (opal/util/show_help.c: dash_line,
https://github.com/open-mpi/ompi/blob/v4.1.x/opal/util/show_help.c). Its fields ('Local host:', 'Error message:
failed to bind memory', 'Location: .../rtc_hwloc.c:447') are the topic's own lines, filled by the caller. When the
topic's first line is one a warning entry knows (help-orte-odls-default.txt [memory not bound]: 'WARNING: Open MPI
tried to bind a process but failed.  This is a warning only; your job will continue'), every line of the banner is
that warning, not an error that nothing explains.
"""

import re

# show_help's dash_line is 74 dashes (opal/util/show_help.c): exactly, so that a log's own separators ('-' * 80 around
# a block of lines) are no banner whose first line would make its error lines a warning's (review18)
_DASHES = re.compile(r"^\s{0,8}-{74}\s{0,4}$")
MAX_BANNER = 40  # lines of one banner (help topics are short)


# a help topic that says the program goes on ('This is a warning only; your job will continue, though performance may
# be degraded.', help-orte-odls-default.txt [memory not bound])
# PMIx's pcompress topic, printed by every Open MPI 5 mpirun on a host without zlib: 'PMIx was unable to find a usable
# compression library on the system. ... We will continue, but strongly recommend installing zlib ... You can suppress
# this warning by adding "pcompress_base_silence_warning=1" ...' (openpmix/openpmix src/mca/pcompress/base, seen in
# https://github.com/open-mpi/ompi/pull/12532's CI output of a healthy hello_c run)
_GOES_ON = re.compile(r"\bThis is a warning only\b|\b(?:your|the) (?:job|application|program) will continue\b|"
                      r"\bWe will continue\b|\bYou can suppress this warning\b", re.I)


def banners(scan):
    """[(lines of one help banner: [(line, text)], dash lines included)] from the inputs' kept last lines (scan.tails):
    the dash lines come in pairs, each pair one banner."""
    out = []
    for tail in getattr(scan, "tails", None) or ():
        lines = tail.get("user") or []
        opened = None
        for i, (ln, text) in enumerate(lines):
            if not _DASHES.match(text[:100]):
                continue
            if opened is None:
                opened = i
                continue
            if ln - lines[opened][0] <= MAX_BANNER:
                out.append(lines[opened:i + 1])
            opened = None
    return out


def warned_banners(scan, warned):
    """The line numbers of every help banner whose first text line is in ``warned`` (lines a warning entry matched)."""
    out = set()
    for b in banners(scan):
        inner = [x for x in b[1:-1] if x[1].strip()]
        if inner and inner[0][0] in warned:
            out.update(x[0] for x in b)
    return out


def says_it_goes_on(scan, lines):
    """Whether one of ``lines`` is in a help banner whose own text says the program goes on."""
    lines = set(lines)
    for b in banners(scan):
        if lines.intersection(x[0] for x in b) and _GOES_ON.search(" ".join(" ".join(t.split()) for _, t in b)[:4000]):
            return True
    return False


def goes_on_lines(scan):
    """The line numbers of every help banner whose own text says the program goes on: a warning printed in full, whose
    words ('unable to', 'failed') are no error that nothing explains (the AO set's healthy Open MPI 5 run)."""
    out = set()
    for b in banners(scan):
        if _GOES_ON.search(" ".join(" ".join(t.split()) for _, t in b)[:4000]):
            out.update(x[0] for x in b)
    return out

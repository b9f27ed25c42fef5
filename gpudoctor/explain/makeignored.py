"""A command GNU make ran whose failure make ignored (healthy18).

A recipe line prefixed with '-' (or make -i) may fail and the build goes on: GNU make reports it with its own line,
src/job.c child_error(): ``"%s[%s: %s] Error %d%s%s"`` with pre = "" and post = " (ignored)" when the error is
ignored (``make: [Makefile:4: clean-old] Error 1 (ignored)``; make 3.81 ``make: [clean-old] Error 1 (ignored)``),
where a failure that stops it starts with ``*** `` instead (explicit.py's build.step_failed). That line, and the error
lines right above it (the failed command's own output: ``rm: cannot remove 'x': No such file or directory``), are no
error of the run.
"""

import re

from gpudoctor.explain.text import clean, strip_prefix

_IGNORED = re.compile(r"^g?make(?:\[\d{1,4}\])?: \[[^\]\n]{1,300}\] Error \d{1,3}(?: \(core dumped\))? \(ignored\)$")
BEFORE = 5  # error lines right above the report counted as the ignored command's output


def ignored_lines(scan):
    """The error lines of ``scan`` that belong to a command whose failure make ignored (above), or set()."""
    errs = getattr(scan, "errors", None) or []
    if not errs or len(errs) != scan.error_count:
        return set()  # (error lines that were not kept: their texts are not known)
    got = set()
    lines = [h.line for h in errs]
    for i, h in enumerate(errs):
        if "(ignored)" not in (h.text or "") or not _IGNORED.match(strip_prefix(clean(h.text[:400]))[0].strip()):
            continue
        got.add(h.line)
        j, at = i - 1, h.line
        while j >= 0 and lines[j] == at - 1 and h.line - lines[j] <= BEFORE:
            got.add(lines[j])
            at, j = lines[j], j - 1
    return got

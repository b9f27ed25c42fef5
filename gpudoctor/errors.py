"""Errors the user caused: the CLI prints them as one line on stderr and exits 2."""


class InputError(Exception):
    """Bad flag, unreadable or malformed file: exit code 2, never a traceback."""


def read_input(path, what, shown=None):
    """The bytes of a file the user named; an unreadable one is an InputError naming it."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as exc:
        raise InputError("cannot read %s %s: %s" % (what, shown or path, exc.strerror or exc))


# The exit-code contract (README): schedulers and CI rely on it.
EXIT_OK = 0  # healthy: no error-level finding
EXIT_FINDINGS = 1  # findings: an error-level finding, or a node that could not be checked
EXIT_USAGE = 2  # usage or input error: one line on stderr, never a traceback
EXIT_INTERNAL = 3  # gpudoctor's own failure: one line on stderr, the traceback saved
EXIT_INTERRUPTED = 130  # Ctrl-C: the partial report, then this

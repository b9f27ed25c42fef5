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

"""Errors the user caused (one line on stderr, exit 2) and the exit-code contract."""


class InputError(Exception):
    """Bad flag, unreadable or malformed file: exit code 2, never a traceback."""


def excerpt(value, limit=60):
    """A bounded, printable rendering of a value taken from input, for error messages: a
    hostfile line in /etc/shadow format, a 5,000-digit number or a 300 MB string must not
    be echoed whole, and control characters must not reach the terminal (repr escapes them)."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        more = "... (%d characters)" % len(value) if len(value) > limit else ""
        return repr(value[:limit]) + more
    if isinstance(value, bool) or value is None:
        return str(value).lower() if value is not None else "nothing"
    if isinstance(value, int):
        # str() of a 5,000-digit int raises ValueError (Python's int-to-string digit limit)
        if value.bit_length() < 200:
            return str(value)
        return "a number of about %d digits" % int(value.bit_length() * 0.30103)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, BaseException):
        text = str(value)
        text = "".join(c if c.isprintable() else "?" for c in text[:limit])
        return text + ("..." if len(str(value)) > limit else "")
    return "a %s" % type(value).__name__


def read_input(path, what, shown=None, limit=None):
    """The bytes of a file the user named; an unreadable one (or, with `limit`, one larger
    than `limit` bytes) is an InputError naming it."""
    try:
        with open(path, "rb") as f:
            data = f.read() if limit is None else f.read(limit + 1)
    except OSError as exc:
        raise InputError("cannot read %s %s: %s" % (what, shown or path, exc.strerror or exc))
    except (OverflowError, ValueError, TypeError) as exc:  # a path with NUL, or not a path at all
        raise InputError("cannot read %s %s: %s" % (what, excerpt(shown or path), exc))
    if limit is not None and len(data) > limit:
        raise InputError("%s %s is larger than %d bytes: not a %s" % (what, shown or path, limit, what))
    return data


# The exit-code contract (README): schedulers and CI rely on it.
EXIT_OK = 0  # healthy: no error-level finding
EXIT_FINDINGS = 1  # findings: an error-level finding, or a node that could not be checked
EXIT_USAGE = 2  # usage or input error: one line on stderr, never a traceback
EXIT_INTERNAL = 3  # gpudoctor's own failure: one line on stderr, the traceback saved
EXIT_INTERRUPTED = 130  # Ctrl-C: the partial report, then this

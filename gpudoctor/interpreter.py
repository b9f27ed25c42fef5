"""Which interpreter is the job's: the one the user named, else the environment active in
the caller's shell, else python3 on PATH.

Order: ``--python``, the config key ``python``, ``$VIRTUAL_ENV/bin/python``,
``$CONDA_PREFIX/bin/python``, then ``python3``. Only the first two count as *named*: a check
that finds no torch in an interpreter nobody named says n/a with the hint, never fail (in a
prolog the default python3 is rarely the job's conda env).
"""

import os

NAMED = ("--python", "config")


def choose(flag=None, configured=None, environ=None):
    """(path or None, how it was chosen). None means: python3 on PATH, found by the collector."""
    env = os.environ if environ is None else environ
    if flag:
        return flag, "--python"
    if configured:
        return configured, "config"
    for var in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        prefix = env.get(var)
        if prefix:
            exe = os.path.join(prefix, "bin", "python")
            if os.access(exe, os.X_OK):
                return exe, "$" + var
    return None, "python3 on PATH"

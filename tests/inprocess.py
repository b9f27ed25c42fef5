"""`python -m gpudoctor ARGS` run in this process: gpudoctor.cli.main with the working folder, stdout and stderr
its own for the call (the `cli` fixture of tests/conftest.py, for helpers that take a folder and return text).
For tests that assert what a command writes, not what its process does: no interpreter start and no load of
explain's knowledge per call (a subprocess explain costs ~1-3 s of CPU; in a loaded CI run, 5-30 s of wall)."""

import contextlib
import io
import os


def gd(args, cwd):
    """(exit code, stdout, stderr) of gpudoctor ARGS run in `cwd`, as the subprocess helpers return them."""
    from gpudoctor.cli import main

    out, err = io.TextIOWrapper(io.BytesIO(), "utf-8"), io.TextIOWrapper(io.BytesIO(), "utf-8")
    here = os.getcwd()
    os.chdir(str(cwd))
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main([str(a) for a in args])
            except SystemExit as e:  # argparse's usage errors, as the process exits
                rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        os.chdir(here)
    out.flush()
    err.flush()
    return rc, out.buffer.getvalue().decode("utf-8", "replace"), err.buffer.getvalue().decode("utf-8", "replace")

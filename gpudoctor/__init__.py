"""gpudoctor: the preflight doctor for multi-node GPU training clusters."""

__version__ = "0.1.0"


def _no_current_folder():
    """`python -m gpudoctor` puts the folder it is typed in first on sys.path (as its full path; '' before 3.9)
    before this package is imported (docs.python.org/3/using/cmdline.html#cmdoption-m: "As with the -c option,
    the current directory will be added to the start of sys.path"), so an argparse.py or textwrap.py in a cloned
    repository or a shared job folder ran as the user (root in a prolog) when gpudoctor imported it
    (docs/security.md 59.). This is the first gpudoctor code that runs; it takes that entry out before any other
    import of ours. Only under -m (sys.argv[0] is '-m' while runpy locates the module) and only where -P /
    PYTHONSAFEPATH did not already leave it out: a program that imports gpudoctor keeps its own sys.path. The
    package itself, found there in a source checkout, stays found: its submodules are looked up in __path__."""
    import sys

    if sys.argv[:1] != ["-m"] or getattr(sys.flags, "safe_path", False) or not sys.path:
        return
    import os

    try:
        here = os.getcwd()
    except OSError:
        here = None
    if sys.path[0] == "" or (here is not None and sys.path[0] == here):
        del sys.path[0]


_no_current_folder()


def _source_checkout():
    """Run from a source checkout (`python -m gpudoctor` in a clone, not installed): the checks live in the
    top-level checks/ that pyproject.toml's package-dir installs as gpudoctor.checks; let the import system find
    them there too, so that every command works from a clone as it does installed. An installed package has its
    own gpudoctor/checks and is left as it is."""
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    top = os.path.dirname(here)
    if (not os.path.isdir(os.path.join(here, "checks")) and os.path.isfile(os.path.join(top, "checks", "__init__.py"))
            and os.path.isfile(os.path.join(top, "pyproject.toml"))):
        __path__.append(top)


_source_checkout()

"""gpudoctor: the preflight doctor for multi-node GPU training clusters."""

__version__ = "0.1.0"


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

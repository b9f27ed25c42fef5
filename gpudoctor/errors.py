"""Errors the user caused: the CLI prints them as one line on stderr and exits 2."""


class InputError(Exception):
    """Bad flag, unreadable or malformed file: exit code 2, never a traceback."""

"""A private on-disk cache: files that only this user can have written, read back only then.

Used by the collector blob (collector/bundle.py) and explain's knowledge cache
(explain/kcache.py); docs/security.md says what is trusted and why:

- the folder is $XDG_CACHE_HOME/gpudoctor (~/.cache/gpudoctor; a relative $XDG_CACHE_HOME is
  ignored, as the XDG Base Directory spec says), created 0700 only where its parent is this
  user's own and nobody else can write it (root under sudo with another user's HOME writes nothing);
- a file is read back only from that folder when this user owns it and nobody else can write it,
  as a regular file this user owns with no group/other bits (opened with O_NOFOLLOW: never a
  symlink), at most ``limit`` bytes, and only when its first line is the caller's ``head`` (the
  format and the key its name came from);
- it is written as a temporary file (mkstemp: 0600) renamed into place, and the files of other
  keys (same prefix and suffix) are removed then.
"""

import os


def cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or ""
    if not os.path.isabs(base):  # the XDG Base Directory spec: a relative path is ignored
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "gpudoctor")


def _owned(st, mode_mask):
    import stat

    return st.st_uid == os.geteuid() and not st.st_mode & mode_mask and not stat.S_ISLNK(st.st_mode)


def read(path, head, limit):
    """The bytes after the first line of ``path`` when that line is ``head`` and the rules above
    hold; None otherwise (an absent file included)."""
    import stat

    try:
        if not _owned(os.lstat(os.path.dirname(path)), 0o022):
            return None
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not (stat.S_ISREG(st.st_mode) and _owned(st, 0o077)) or st.st_size > limit:
            return None
        with os.fdopen(fd, "rb") as f:
            fd = None
            data = f.read(limit + 1)
    except OSError:
        return None
    finally:
        if fd is not None:
            os.close(fd)
    first, _, body = data.partition(b"\n")
    return body if first == head and len(data) <= limit else None


def write(path, head, body, prefix, suffix):
    """Keep ``head`` + newline + ``body`` at ``path`` (in cache_dir()), then remove the other
    ``prefix``*``suffix`` files there. A folder that is not this user's own gets nothing; a
    failure to write is no error (the caller builds the content again next time)."""
    import tempfile

    d = os.path.dirname(path)
    try:
        if not _owned(os.lstat(os.path.dirname(d)), 0o022):
            return
        os.makedirs(d, 0o700, exist_ok=True)
        if not _owned(os.lstat(d), 0o022):
            return
        fd, tmp = tempfile.mkstemp(dir=d, prefix="." + prefix)  # 0600
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(head + b"\n" + body)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
        for old in os.listdir(d):  # other versions' (another tree, another Python)
            if old.startswith(prefix) and old.endswith(suffix) and os.path.join(d, old) != path:
                try:
                    os.unlink(os.path.join(d, old))
                except OSError:
                    pass
    except OSError:
        pass

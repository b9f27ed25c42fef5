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
  keys (same prefix and suffix) are removed then;
- its first line also carries the SHA-256 of the rest (red team 2026-11-27): a file cut short, a
  flipped bit or any other change since it was written is not read back (a garbled sites file whose
  rows still had a row's shape named an unknown family or a regex that does not compile, and explain
  ended with exit 3; one with a changed fix printed it), and the caller builds its content again;
- the file is opened O_NONBLOCK (a FIFO at its name is refused, never waited on), and a folder that
  is not an absolute path (HOME unset and no passwd entry: expanduser gives '~') is no cache.
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


def _sha256(data):
    import sys

    if "hashlib" in sys.modules:  # OpenSSL's (SHA-NI: 12 MB in 8 ms), once something imported it
        return sys.modules["hashlib"].sha256(data).hexdigest().encode()
    try:  # else the built-in one: hashlib would load OpenSSL (5 ms of a run; blobcache.py)
        from _sha256 import sha256
    except ImportError:
        try:
            from _sha2 import sha256
        except ImportError:
            from hashlib import sha256
    return sha256(data).hexdigest().encode()


def _sealed(head, body):
    return head + b" sha256:" + _sha256(body)


def read(path, head, limit):
    """The bytes after the first line of ``path`` when that line is ``head`` and the SHA-256 of
    those bytes, and the rules above hold; None otherwise (an absent file included)."""
    import stat

    if not os.path.isabs(path):
        return None
    try:
        if not _owned(os.lstat(os.path.dirname(path)), 0o022):
            return None
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_NOCTTY", 0))
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
    if len(data) > limit or not first.startswith(head + b" sha256:") or first != _sealed(head, body):
        return None
    return body


def write(path, head, body, prefix, suffix):
    """Keep ``head``, the SHA-256 of ``body``, newline, ``body`` at ``path`` (in cache_dir()), then remove the other
    ``prefix``*``suffix`` files there. A folder that is not this user's own gets nothing; a
    failure to write is no error (the caller builds the content again next time)."""
    import tempfile

    d = os.path.dirname(path)
    if not os.path.isabs(d):
        return
    try:
        if not _owned(os.lstat(os.path.dirname(d)), 0o022):
            return
        os.makedirs(d, 0o700, exist_ok=True)
        if not _owned(os.lstat(d), 0o022):
            return
        fd, tmp = tempfile.mkstemp(dir=d, prefix="." + prefix)  # 0600
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(_sealed(head, body) + b"\n" + body)
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

"""What loading the knowledge derives from its TOML files, kept on disk for the next run.

Parsing the TOML files (tomllib is pure Python) and deriving each hand-written pattern's needles
(needles_of parses the regex with Python's own regex parser) are a third of what a one-line
`gpudoctor explain` costs. Both are a function of the files' bytes, this interpreter and
knowledge.py alone, so the next run reads them back from one JSON file (data only: no pickle,
nothing that runs):

- named by the SHA-256 of everything they were derived from: every knowledge file (its path
  relative to the package and its bytes), knowledge.py, the interpreter's version and this
  format; another version, another name (and the file's first line repeats the key);
- read back only from a folder and a regular file this user owns that nobody else can write
  (the folder not group/other-writable, the file 0600, neither a symlink, opened with
  O_NOFOLLOW; at most MAX bytes), the same rules as the collector blob
  (gpudoctor/collector/bundle.py, docs/security.md);
- its content is used only where it has the shape a fresh derivation gives (a list of TOML
  tables, one per file in order; strings to lists of strings), and every entry then goes
  through the same validation as one read from TOML. Anything else: read the TOML again;
- written (a temporary file, then renamed) only under a cache folder this user owns
  ($XDG_CACHE_HOME or ~/.cache), under gpudoctor/; the files of other keys are removed then.
"""

import os

FORMAT = "gpudoctor-knowledge-cache 1"
MAX = 8 << 20
PREFIX = "knowledge-"


def cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or ""
    if not os.path.isabs(base):  # the XDG Base Directory spec: a relative path is ignored
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "gpudoctor")


def key_of(files, root):
    """The SHA-256 of the knowledge files (path relative to ``root`` and bytes), knowledge.py,
    the interpreter's version and FORMAT; None when a file cannot be read."""
    import hashlib
    import sys

    h = hashlib.sha256(("%s\0%s\0" % (FORMAT, sys.version)).encode())
    try:
        for path in [os.path.join(os.path.dirname(os.path.abspath(__file__)), "knowledge.py")] + list(files):
            with open(path, "rb") as f:
                data = f.read()
            name = os.path.relpath(path, root) if path.startswith(root) else path
            h.update(b"\0%s\0%d\0" % (name.encode("utf-8", "surrogateescape"), len(data)) + data)
    except OSError:
        return None
    return h.hexdigest()


def _owned(st, mode_mask):
    import stat

    return st.st_uid == os.geteuid() and not st.st_mode & mode_mask and not stat.S_ISLNK(st.st_mode)


def _path(key):
    return os.path.join(cache_dir(), PREFIX + key[:40] + ".json")


def read(key, nfiles):
    """(docs, needles) kept under ``key``, or None: docs is one TOML table (a dict) per file,
    needles maps a regex source to the literal runs needles_of gave for it."""
    import json
    import stat

    if not key:
        return None
    path = _path(key)
    try:
        if not _owned(os.lstat(os.path.dirname(path)), 0o022):
            return None
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not (stat.S_ISREG(st.st_mode) and _owned(st, 0o077)) or st.st_size > MAX:
            return None
        with os.fdopen(fd, "rb") as f:
            fd = None
            data = f.read(MAX + 1)
    except OSError:
        return None
    finally:
        if fd is not None:
            os.close(fd)
    head, _, body = data.partition(b"\n")
    if head != ("%s %s" % (FORMAT, key)).encode() or len(data) > MAX:
        return None
    try:
        doc = json.loads(body)
    except (ValueError, RecursionError):  # (a UnicodeDecodeError is a ValueError)
        return None
    if not isinstance(doc, dict):
        return None
    docs, needles = doc.get("docs"), doc.get("needles")
    if not (isinstance(docs, list) and len(docs) == nfiles and all(
            isinstance(d, dict) and isinstance(d.get("entry", []), list)
            and all(isinstance(e, dict) for e in d.get("entry", [])) for d in docs)):
        return None
    if not (isinstance(needles, dict) and all(
            isinstance(v, list) and v and all(isinstance(n, str) and n for n in v) for v in needles.values())):
        return None
    return docs, needles


def write(key, docs_json, needles):
    """Keep ``docs_json`` (each file's TOML table, already as JSON text) and ``needles`` under
    ``key``. Nothing is written where the cache folder is not this user's own; a failure to
    write is no error (the next run derives them again)."""
    import json
    import tempfile

    if not key:
        return
    path = _path(key)
    d = os.path.dirname(path)
    try:
        body = '{"docs": [%s], "needles": %s}' % (", ".join(docs_json), json.dumps(needles, sort_keys=True))
        blob = ("%s %s\n" % (FORMAT, key)).encode() + body.encode("utf-8")
        if len(blob) > MAX:
            return
        # only under a cache folder of this user's (root run by sudo with another user's HOME
        # writes nothing there)
        if not _owned(os.lstat(os.path.dirname(d)), 0o022):
            return
        os.makedirs(d, 0o700, exist_ok=True)
        if not _owned(os.lstat(d), 0o022):
            return
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".knowledge-")  # 0600
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(blob)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
        for old in os.listdir(d):  # other versions' (another tree, another Python)
            if old.startswith(PREFIX) and old.endswith(".json") and os.path.join(d, old) != path:
                try:
                    os.unlink(os.path.join(d, old))
                except OSError:
                    pass
    except (OSError, TypeError, ValueError, UnicodeError):
        pass

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

from gpudoctor.privcache import cache_dir  # the collector blob's folder and rules

FORMAT = "gpudoctor-knowledge-cache 1"
MAX = 8 << 20
PREFIX = "knowledge-"


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


def _path(key):
    return os.path.join(cache_dir(), PREFIX + key[:40] + ".json")


def read(key, nfiles):
    """(docs, needles) kept under ``key``, or None: docs is one TOML table (a dict) per file,
    needles maps a regex source to the literal runs needles_of gave for it."""
    import json

    from gpudoctor import privcache

    if not key:
        return None
    body = privcache.read(_path(key), ("%s %s" % (FORMAT, key)).encode(), MAX)
    if body is None:
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

    from gpudoctor import privcache

    if not key:
        return
    try:
        body = '{"docs": [%s], "needles": %s}' % (", ".join(docs_json), json.dumps(needles, sort_keys=True))
        head = ("%s %s" % (FORMAT, key)).encode()
        data = body.encode("utf-8")
        if len(head) + 1 + len(data) > MAX:
            return
        privcache.write(_path(key), head, data, PREFIX, ".json")
    except (OSError, TypeError, ValueError, UnicodeError):
        pass


# ------------------------------------------------------------------ the generated sites

# The rows knowledge._site_rows makes of gpudoctor/data/knowledge/generated/*.json (24,000 sites: their family,
# regex, needles and what is shown of them), kept in one file by the same rules as above, named by the SHA-256 of
# those files' names and bytes, knowledge.py, this file and the interpreter's version. In marshal's format: the
# rows are lists, strings, numbers and dicts only, and marshal reads them back in half the time JSON takes (which
# was as long as building them). marshal is safe only on data this user wrote: privcache.read gives back only a file
# this user owns in a folder nobody else can write, and what it holds is used only where it has a row's shape
# (anything else, a code object included: the rows are built again).
SITES_FORMAT = "gpudoctor-sites-cache 1"
SITES_PREFIX = "sites-"
SITES_MAX = 64 << 20
_PLAIN = (str, int, float, bool, type(None))


def sites_key(paths):
    """The SHA-256 of the generated files (name and bytes), knowledge.py, this file, the interpreter's version
    and SITES_FORMAT; None when one cannot be read."""
    import hashlib
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    h = hashlib.sha256(("%s\0%s\0" % (SITES_FORMAT, sys.version)).encode())
    try:
        for path in [os.path.join(here, "knowledge.py"), os.path.abspath(__file__)] + list(paths):
            with open(path, "rb") as f:
                data = f.read()
            h.update(b"\0%s\0%d\0" % (os.path.basename(path).encode("utf-8", "surrogateescape"), len(data)) + data)
    except OSError:
        return None
    return h.hexdigest()


def _sites_path(key):
    return os.path.join(cache_dir(), SITES_PREFIX + key[:40] + ".marshal")


def _row_ok(r):
    if not (type(r) is list and len(r) == 4 and type(r[0]) is str and type(r[1]) is str and type(r[3]) is dict):
        return False
    needles = r[2]
    if needles is not None and not (type(needles) is list and all(type(n) is str for n in needles)):
        return False
    for k, v in r[3].items():
        if type(k) is not str or not (type(v) in _PLAIN or (type(v) is list and all(type(x) is str for x in v))):
            return False
    return True


def read_sites(key, nfiles):
    """The rows kept under ``key`` (one list per generated file), or None."""
    import marshal

    from gpudoctor import privcache

    if not key:
        return None
    body = privcache.read(_sites_path(key), ("%s %s" % (SITES_FORMAT, key)).encode(), SITES_MAX)
    if body is None:
        return None
    try:
        rows = marshal.loads(body)
    except (EOFError, ValueError, TypeError):
        return None
    if not (type(rows) is list and len(rows) == nfiles and all(type(rs) is list for rs in rows)):
        return None
    if not all(_row_ok(r) for rs in rows for r in rs):
        return None
    return rows


def write_sites(key, rows):
    """Keep ``rows`` under ``key``; as write(), nothing where the folder is not this user's own, and a failure to
    write is no error."""
    import marshal

    from gpudoctor import privcache

    if not key:
        return
    try:
        head = ("%s %s" % (SITES_FORMAT, key)).encode()
        data = marshal.dumps(rows)
        if len(head) + 1 + len(data) > SITES_MAX:
            return
        privcache.write(_sites_path(key), head, data, SITES_PREFIX, ".marshal")
    except (OSError, ValueError, TypeError):
        pass

"""History: per node, the facts of its last passing run and a short record of its runs, so a
failing check can say what changed since the node last worked (docs/history.md).

Layout under the state directory (``--state-dir``, $GPUDOCTOR_STATE_DIR, config key
``state_dir``; default /var/lib/gpudoctor for root, else $XDG_STATE_HOME/gpudoctor or
~/.local/state/gpudoctor):

    history/key                  HMAC key for environment values (secret-looking values stay
                                 keyed hashes, comparable across runs of this store only)
    history/<node>/index.json    gpudoctor.history/1: runs (time, passed, facts id, verdicts),
                                 the last passing run, and the facts states kept
    history/<node>/facts-<id>.json  one facts document per distinct state (<id>: a hash of
                                 the facts without the values that change on every run)

Bounded: ``max_runs`` runs and ``max_states`` facts states per node, ``max_node_bytes`` per
node, ``max_nodes`` node folders (the least recently written go first). Private: folders
0700 and files 0600, owned by the user that runs gpudoctor; a state directory that is a
symlink or belongs to another user is refused. Every file is written to a temp file in the
same folder, fsynced, renamed over the old one (a reader sees the old file or the new one),
and the folder is fsynced. Concurrent writers (the prolog and the health check) take a
lock per node (flock). Files are read without following symlinks and bounded in size.
"""

import errno
import json
import os
import re
import stat
import time

from gpudoctor.errors import InputError

SCHEMA = "gpudoctor.history/1"
MAX_RUNS = 100
MAX_STATES = 8
MAX_NODE_BYTES = 2 << 20
MAX_NODES = 4096
MAX_FILE_BYTES = 16 << 20  # one facts document is 8-60 KB; a larger file was not written by us
LOCK_SECONDS = 5.0
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._@:%-]{0,252}\Z")
_ID = re.compile(r"^[0-9a-f]{16}\Z")


class HistoryError(Exception):
    """The state directory cannot be used (not private, not ours, not writable)."""


STATE_DIR_ENV = "GPUDOCTOR_STATE_DIR"


def state_dir_for(flag=None, cfg=None, environ=None):
    """Where history lives: --state-dir, else $GPUDOCTOR_STATE_DIR (an absolute path: the
    hooks run from any folder), else the config key state_dir, else the default. None means
    the default (default_state_dir)."""
    if flag:
        return flag
    env = (os.environ if environ is None else environ).get(STATE_DIR_ENV)
    if env:
        if not os.path.isabs(env):
            raise HistoryError("$%s=%s is not an absolute path" % (STATE_DIR_ENV, env[:200]))
        return env
    value = getattr(cfg, "state_dir", None) if cfg is not None else None
    if value and getattr(cfg, "found_here", None):  # ./gpudoctor.toml, ./pyproject.toml read unnamed
        from gpudoctor.config import no_state_here

        no_state_here(value, cfg.found_here)
    # `state_dir = "~/x"` in a config you name (--config, ~/.config/gpudoctor) is your home's x, as a shell reads
    # it; it made a folder literally named '~' in the current one (cfg22). A config found here was judged above
    # as written, so its '~/x' stays refused.
    return os.path.expanduser(value) if value else value


def default_state_dir(environ=None, euid=None):
    env = os.environ if environ is None else environ
    euid = os.geteuid() if euid is None else euid
    state = env.get("XDG_STATE_HOME")
    if euid == 0 and not state:
        return "/var/lib/gpudoctor"  # the prolog and health check run as root (FHS: /var/lib/<package>)
    if state and os.path.isabs(state):
        return os.path.join(state, "gpudoctor")
    home = os.path.expanduser("~")
    if not home or home == "~" or not os.path.isabs(home) or home == "/":
        raise HistoryError("no state directory: set --state-dir or $XDG_STATE_HOME")
    return os.path.join(home, ".local", "state", "gpudoctor")


def _private_dir(path, make=True):
    """Make (0700) or accept a folder: a real folder (not a symlink), owned by us; a folder of
    ours that others can read is made private."""
    if make:
        try:
            os.makedirs(path, mode=0o700, exist_ok=True)
        except FileExistsError:
            pass
        except OSError as exc:
            raise HistoryError("cannot make %s: %s" % (path, exc.strerror or exc))
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise HistoryError("%s does not exist" % path)
    except OSError as exc:
        raise HistoryError("cannot use %s: %s" % (path, exc.strerror or exc))
    if stat.S_ISLNK(st.st_mode):
        raise HistoryError("%s is a symlink; refusing it (give the real folder)" % path)
    if not stat.S_ISDIR(st.st_mode):
        raise HistoryError("%s is not a folder" % path)
    if st.st_uid != os.geteuid():
        raise HistoryError("%s belongs to uid %d, not to this user (uid %d); refusing it" % (
            path, st.st_uid, os.geteuid()))
    if st.st_mode & 0o077:
        try:
            os.chmod(path, 0o700)
        except OSError as exc:
            raise HistoryError("cannot make %s private: %s" % (path, exc.strerror or exc))


def _safe_parents(folder):
    """Every folder above the state directory, as written and as the kernel resolves it, belongs to root or to this
    user, and none lets others rename its entries (world-writable without the sticky bit; /tmp's 1777 is fine): the
    owner of a parent can move the state directory away between its check and the writes that follow and put a
    symlink there, so that index.json, facts-*.json and key are written into another folder of ours (a folder named
    by --state-dir under another user's project folder: docs/security.md 53.; OpenSSH's StrictModes asks the same
    of ~/.ssh's parents, auth.c secure_filename). Group-writable parents are not judged (a user private group)."""
    me = os.geteuid()
    seen = set()
    for start in (os.path.abspath(folder), os.path.realpath(folder)):
        d = start
        while d not in seen:
            seen.add(d)
            try:
                st = os.lstat(d)
            except OSError as exc:
                raise HistoryError("cannot use %s: %s" % (d, exc.strerror or exc))
            if st.st_uid not in (0, me):
                raise HistoryError("%s, above the state directory, belongs to uid %d, who could move it away and "
                                   "put a link there; give a folder of your own (--state-dir)" % (d, st.st_uid))
            if stat.S_ISDIR(st.st_mode) and st.st_mode & 0o002 and not st.st_mode & stat.S_ISVTX:
                raise HistoryError("%s, above the state directory, is writable by everyone (no sticky bit); give "
                                   "a folder of your own (--state-dir)" % d)
            up = os.path.dirname(d)
            if up == d:
                break
            d = up


def _read(path, limit=MAX_FILE_BYTES):
    """A file of ours, never through a symlink, bounded; None when absent. O_NONBLOCK: a FIFO
    planted in the state directory is refused below, never waited on (open(2) of a FIFO for
    reading blocks until a writer comes)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise HistoryError("%s is a symlink; refusing it" % path)
        raise HistoryError("cannot read %s: %s" % (path, exc.strerror or exc))
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            raise HistoryError("%s is not a regular file of this user; refusing it" % path)
        data = f.read(limit + 1)
    if len(data) > limit:
        raise HistoryError("%s is larger than %d bytes" % (path, limit))
    return data


def _write(path, data):
    folder = os.path.dirname(path)
    import tempfile  # here, not at the top: history's flags are built for every `check` (the prolog tier)

    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".json")  # 0600
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(folder)


def _fsync_dir(folder):
    try:
        dfd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def _json(data, path):
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise HistoryError("%s is not valid JSON" % path)


def facts_id(doc):
    """The id of a facts state: a hash of its flattened facts without the values that change
    on every run (gpudoctor/changes.py), so identical runs share one stored document."""
    from gpudoctor.changes import flatten

    flat = flatten(doc)
    text = json.dumps(sorted((k, repr(v)) for k, v in flat.items() if not k.startswith("env.hashed")))
    import hashlib  # here, as tempfile: OpenSSL's _hashlib is 2.4 ms of every prolog without --history

    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def utc(ts):
    """'2026-11-20T03:12:00Z' -> '2026-11-20 03:12 UTC' (what reports print)."""
    if not isinstance(ts, str) or not re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d", ts):
        return str(ts)
    return "%s %s UTC" % (ts[:10], ts[11:16])


def parse_since(text):
    """'last-good', or a UTC date/time: 2026-11-20, 2026-11-20T03:12, '2026-11-20 03:12:05',
    with an optional Z. Returns 'last-good' or the canonical '%Y-%m-%dT%H:%M:%SZ'."""
    t = (text or "").strip()
    if t == "last-good":
        return t
    m = re.match(r"^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d))?)?Z?$", t)
    if not m:
        raise InputError("--since %s: expected last-good or a UTC date (2026-11-20, 2026-11-20T03:12)" % t[:40])
    y, mo, d, h, mi, s = (int(x) if x else 0 for x in m.groups())
    try:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.strptime("%04d-%02d-%02d %02d:%02d:%02d" % (
            y, mo, d, h, mi, s), "%Y-%m-%d %H:%M:%S"))
    except ValueError:
        raise InputError("--since %s: not a date" % t[:40])
    return stamp


class Store(object):
    """One state directory's history. Open it with ``Store.open(path)`` (checks it)."""

    def __init__(self, root, max_runs=MAX_RUNS, max_states=MAX_STATES, max_node_bytes=MAX_NODE_BYTES,
                 max_nodes=MAX_NODES):
        self.root = root
        self.dir = os.path.join(root, "history")
        self.max_runs, self.max_states = max_runs, max_states
        self.max_node_bytes, self.max_nodes = max_node_bytes, max_nodes
        self._key = None
        self._flat = {}
        # the key id the facts of this run were hashed under: the store's own when the
        # command gathered them with its key; None for saved facts (their key is unknown)
        self.current_key_id = None

    @classmethod
    def open(cls, root=None, **bounds):
        root = os.path.abspath(root or default_state_dir())
        parent = os.path.dirname(root)
        if not os.path.isdir(parent):
            os.makedirs(parent, mode=0o755, exist_ok=True)
        _safe_parents(parent)
        _private_dir(root)
        store = cls(root, **bounds)
        _private_dir(store.dir)
        return store

    # -- the environment key ------------------------------------------------------------
    @property
    def key(self):
        """The HMAC key (hex) the collector hashes secret-looking environment values with,
        made once per store (0600): values stay hashes, and compare across runs."""
        if self._key is None:
            path = os.path.join(self.dir, "key")
            data = _read(path, limit=256)
            text = data.decode("ascii", "replace").strip() if data else ""
            if not re.match(r"^[0-9a-f]{64}$", text):
                import secrets

                text = secrets.token_hex(32)
                _write(path, (text + "\n").encode("ascii"))
            self._key = text
        return self._key

    @property
    def key_id(self):
        import hashlib
        import hmac

        return hmac.new(self.key.encode("ascii"), b"gpudoctor history key id", hashlib.sha256).hexdigest()[:16]

    # -- per node -----------------------------------------------------------------------
    def node_dir(self, host):
        if not isinstance(host, str) or not _NAME.match(host) or host in (".", ".."):
            raise HistoryError("node name %r cannot name a history folder" % (str(host)[:60],))
        return os.path.join(self.dir, host)

    def index(self, host):
        """The node's index (a dict), or None when it has no history."""
        d = self.node_dir(host)
        if not os.path.lexists(d):
            return None
        _private_dir(d, make=False)
        data = _read(os.path.join(d, "index.json"))
        if data is None:
            return None
        doc = _json(data, os.path.join(d, "index.json"))
        if not isinstance(doc, dict) or doc.get("schema") != SCHEMA or not isinstance(doc.get("runs"), list):
            raise HistoryError("%s is not a gpudoctor history index" % os.path.join(d, "index.json"))
        return doc

    def facts(self, host, fid):
        if not isinstance(fid, str) or not _ID.match(fid):
            return None
        path = os.path.join(self.node_dir(host), "facts-%s.json" % fid)
        data = _read(path)
        if data is None:
            return None
        doc = _json(data, path)
        from gpudoctor.gather import facts_problem

        if facts_problem(doc):
            raise HistoryError("%s: %s" % (path, facts_problem(doc)))
        return doc

    def last_good(self, host):
        """(record, facts) of the node's last passing run, or (None, None)."""
        idx = self.index(host)
        rec = (idx or {}).get("last_good")
        if not isinstance(rec, dict):
            return None, None
        doc = self.facts(host, rec.get("facts"))
        return (rec, doc) if doc is not None else (None, None)

    def _kept_runs(self, idx):
        """The index's runs whose facts are still kept, oldest first, each well formed."""
        states = idx.get("states") if isinstance(idx.get("states"), dict) else {}
        return [r for r in idx.get("runs") or [] if isinstance(r, dict) and isinstance(r.get("at"), str)
                and isinstance(r.get("verdicts"), dict) and r.get("facts") in states]

    @staticmethod
    def run_record(idx, run):
        """A run of the index as a record like ``last_good``: its time, facts id, key id, and
        the checks that failed (or warned) in it."""
        states = idx.get("states") if isinstance(idx.get("states"), dict) else {}
        verdicts = run.get("verdicts") or {}
        return {"at": run["at"], "facts": run["facts"], "passed": bool(run.get("passed")),
                "key_id": (states.get(run["facts"]) or {}).get("key_id"), "verdicts": dict(verdicts),
                "failed": sorted(c for c, st in verdicts.items() if st == "fail"),
                "warned": sorted(c for c, st in verdicts.items() if st == "warn")}

    def check_passed(self, host, check_id, idx=None, statuses=("pass",)):
        """(record, facts) of the newest kept run in which ``check_id`` passed on the node,
        whatever the other checks did (a node that never passes whole still has one per
        check), or (None, None). Only runs whose facts state is kept count: the bounds hold.
        ``statuses``: the verdicts that count (("na", "skipped"): the newest run in which the
        check had nothing to judge or could not judge)."""
        idx = self.index(host) if idx is None else idx
        if not idx:
            return None, None
        for run in reversed(self._kept_runs(idx)):
            if run["verdicts"].get(check_id) in statuses:
                doc = self.facts(host, run["facts"])
                if doc is not None:
                    return self.run_record(idx, run), doc
        return None, None

    def best_run(self, host, idx=None, against=None, key_id=None):
        """(record, facts) of the kept run with the fewest failing checks (then the fewest
        warnings), for a node with no passing run kept; else (None, None). Of equal runs, the
        newest whose facts differ from ``against`` (the facts being compared, their hashes made
        under ``key_id``) by a change compare() reports: a change that moves no verdict
        (CUDA_VISIBLE_DEVICES=0 planted on a node where host.name fails forever) is recorded by the
        run that made it, which then has as few failures as any; taking it hid the change (seen on a
        real 2x H100, session 24). Not by facts id alone: a `gpudoctor facts` file hashes under
        another key than the history's, so its id differs from the run's same state (a real 2x H200,
        session 25). With no ``against``, or when no equal run differs, the newest of equals."""
        idx = self.index(host) if idx is None else idx
        if not idx:
            return None, None
        scored = []
        for run in self._kept_runs(idx):  # oldest first
            rec = self.run_record(idx, run)
            scored.append(((len(rec["failed"]), len(rec["warned"])), rec))
        if not scored:
            return None, None
        low = min(s for s, _ in scored)
        equal = [rec for s, rec in scored if s == low]
        if isinstance(against, dict):
            from gpudoctor.changes import compare

            now, seen = facts_id(against), set()
            for rec in reversed(equal):
                if rec["facts"] == now or rec["facts"] in seen:
                    continue
                seen.add(rec["facts"])
                doc = self.facts(host, rec["facts"])
                if doc is not None and compare(doc, against, (rec.get("key_id"), key_id)):
                    return rec, doc
        pick = equal[-1]
        doc = self.facts(host, pick["facts"])
        return (pick, doc) if doc is not None else (None, None)

    def at(self, host, when):
        """(record, facts) of the node as it was at ``when`` (canonical UTC): its newest run at
        or before then whose facts are kept, else the oldest kept run after it."""
        idx = self.index(host)
        if not idx:
            return None, None
        runs = [r for r in idx["runs"] if isinstance(r, dict) and isinstance(r.get("at"), str)
                and (idx.get("states") or {}).get(r.get("facts"))]
        before = [r for r in runs if r["at"] <= when]
        pick = before[-1] if before else (runs[0] if runs else None)
        if pick is None:
            return None, None
        return pick, self.facts(host, pick["facts"])

    def first_seen(self, host, path, value, after):
        """When the node's kept facts first showed ``value`` at ``path``, after time ``after``."""
        from gpudoctor.changes import ABSENT, flatten

        idx = self.index(host) or {}
        states = sorted(((s.get("first_seen") or "", fid) for fid, s in (idx.get("states") or {}).items()
                         if isinstance(s, dict)), key=lambda x: x[0])
        for seen, fid in states:
            if seen <= after:
                continue
            if (host, fid) not in self._flat:  # each kept state is read and flattened once per run
                doc = self.facts(host, fid)
                self._flat[(host, fid)] = flatten(doc) if doc is not None else {}
            if self._flat[(host, fid)].get(path, ABSENT) == value:
                return seen
        return None

    def record(self, host, doc, passed, verdicts, at=None, key_id=None):
        """Add one run of ``host``: its facts (stored once per distinct state), whether it passed,
        and each check's (status, text). A passing run becomes the last good one."""
        d = self.node_dir(host)
        _private_dir(d)
        with _Lock(os.path.join(d, ".lock")):
            try:
                idx = self.index(host)
            except HistoryError:  # a damaged index (not ours, not JSON): start again; the write replaces it
                idx = None
            idx = idx or {"schema": SCHEMA, "node": host, "runs": [], "states": {}, "last_good": None}
            at = at or doc.get("collected_at") or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            fid = facts_id(doc)
            states = idx.setdefault("states", {})
            path = os.path.join(d, "facts-%s.json" % fid)
            if fid not in states or not os.path.exists(path):
                data = (json.dumps(doc, sort_keys=True, separators=(",", ":")) + "\n").encode("utf-8")
                _write(path, data)
                states[fid] = {"first_seen": at, "last_seen": at, "bytes": len(data), "key_id": key_id}
            else:
                states[fid]["last_seen"] = max(at, states[fid].get("last_seen") or at)
            compact = {cid: [st, (text or "")[:300]] for cid, (st, text) in verdicts.items()}
            idx["runs"].append({"at": at, "passed": bool(passed), "facts": fid,
                                "verdicts": {cid: v[0] for cid, v in compact.items()}})
            if passed:
                idx["last_good"] = {"at": at, "facts": fid, "verdicts": compact, "key_id": key_id}
            self._prune(d, idx)
            _write(os.path.join(d, "index.json"), (json.dumps(idx, sort_keys=True) + "\n").encode("utf-8"))
        self._prune_nodes(keep=host)

    def _prune(self, d, idx):
        """Keep the newest max_runs runs and max_states states (the last good one always),
        within max_node_bytes."""
        idx["runs"] = idx["runs"][-self.max_runs:]
        states = idx["states"]
        keep = {(idx.get("last_good") or {}).get("facts")}
        if idx["runs"]:
            keep.add(idx["runs"][-1]["facts"])
        order = sorted(states, key=lambda f: states[f].get("last_seen") or "", reverse=True)
        kept, total = [], 0
        for fid in order:
            size = int(states[fid].get("bytes") or 0)
            if fid in keep or (len(kept) < self.max_states and total + size <= self.max_node_bytes):
                kept.append(fid)
                total += size
        for fid in set(states) - set(kept):
            del states[fid]
            try:
                os.unlink(os.path.join(d, "facts-%s.json" % fid))
            except OSError:
                pass
        for name in os.listdir(d):  # temp files a killed writer left, and facts no index names
            m = re.match(r"^facts-([0-9a-f]{16})\.json$", name)
            if (m and m.group(1) not in states) or name.startswith(".tmp-"):
                try:
                    if name.startswith(".tmp-") and time.time() - os.lstat(os.path.join(d, name)).st_mtime < 60:
                        continue  # another writer's, in flight
                    os.unlink(os.path.join(d, name))
                except OSError:
                    pass

    def nodes(self):
        """The hosts this store keeps a history of (a folder holding an index), sorted."""
        try:
            names = os.listdir(self.dir)
        except OSError:
            return []
        return sorted(n for n in names if _NAME.match(n) and n not in (".", "..")
                      and os.path.isfile(os.path.join(self.dir, n, "index.json")))

    def _prune_nodes(self, keep):
        try:
            names = [n for n in os.listdir(self.dir) if os.path.isdir(os.path.join(self.dir, n))
                     and not os.path.islink(os.path.join(self.dir, n))]
        except OSError:
            return
        if len(names) <= self.max_nodes:
            return

        def mtime(n):
            try:
                return os.lstat(os.path.join(self.dir, n, "index.json")).st_mtime
            except OSError:
                return 0
        import shutil

        for n in sorted((n for n in names if n != keep), key=mtime)[:len(names) - self.max_nodes]:
            shutil.rmtree(os.path.join(self.dir, n), ignore_errors=True)

    def usage(self):
        """(node folders, files, bytes) under the store: what the bound is measured on."""
        nodes = files = size = 0
        for top, dirs, names in os.walk(self.dir):
            if top != self.dir:
                nodes += 1 if os.path.dirname(top) == self.dir else 0
            files += len(names)
            size += sum(os.lstat(os.path.join(top, n)).st_size for n in names)
        return nodes, files, size


class _Lock(object):
    """flock on a lock file, waited for at most LOCK_SECONDS (a hung writer cannot stall a
    prolog): past it the caller raises HistoryError and the run goes on without history."""

    def __init__(self, path):
        self.path = path
        self.fd = None

    def __enter__(self):
        import fcntl

        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o600)
        deadline = time.monotonic() + LOCK_SECONDS
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return self
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES) or time.monotonic() > deadline:
                    os.close(self.fd)
                    raise HistoryError("the history of this node is locked by another gpudoctor (%s)" % self.path)
                time.sleep(0.02)

    def __exit__(self, *exc):
        os.close(self.fd)


# -- what a run's report says, per node --------------------------------------------------

def node_verdicts(report, host):
    """{check id: (status, text)} for one node of a runner.Report."""
    out = {}
    for r in report.results:
        if host in r.outcomes:
            out[r.id] = tuple(r.outcomes[host])
    return out


def node_passed(report, host, verdicts=None):
    verdicts = node_verdicts(report, host) if verdicts is None else verdicts
    bad = ("fail", "warn") if report.strict else ("fail",)
    return not any(st in bad for st, _ in verdicts.values())


def _changed(before, after):
    """A check's verdict changed: another status, or the same problem with another message."""
    if before is None:
        return after[0] in ("fail", "warn")
    return before[0] != after[0] or (after[0] in ("fail", "warn") and before[1] != after[1])


def annotate(report, store, registry=None, warn=None):
    """For every node that fails (or warns on) a check, add a note (an info finding of that
    check) saying what changed in the facts that check reads, and since when. The record
    compared with, per check: the node's last passing run when the check passed in it (or
    when its verdict then differs and the check never passed since); else the newest kept
    run in which THIS check passed, whatever the others did (a node that fails host.name
    forever never passes whole); else, with no passing run kept, the newest kept run in which
    this check was na or skipped. Returns the number of notes added."""
    from gpudoctor.changes import compare, related
    from gpudoctor.registry import Finding
    from gpudoctor.runner import SEVERITY_RANK, merge_findings

    reads, cluster = {}, set()
    if registry is not None:
        for chk in registry:
            reads[chk.id] = getattr(chk, "reads", chk.needs)
            if getattr(chk, "scope", "node") == "cluster":
                cluster.add(chk.id)
    added = 0
    for node in report.nodes:
        if not node.reachable:
            continue
        try:
            idx = store.index(node.host)
        except HistoryError as exc:
            if warn:
                warn("history of %s not read: %s" % (node.host, exc))
            continue
        if not idx:
            continue
        docs, compared = {}, {}  # per facts id: each record read and compared once per node

        def facts_of(rec, doc=None):
            fid = rec.get("facts")
            if fid not in docs:
                docs[fid] = doc if doc is not None else store.facts(node.host, fid)
            return docs[fid]

        def kept_run(check_id, statuses=("pass",)):
            """store.check_passed's record (its facts read once), None when none or unreadable (said)."""
            try:
                rec, doc = store.check_passed(node.host, check_id, idx, statuses=statuses)
            except HistoryError as exc:
                if warn:
                    warn("history of %s not read: %s" % (node.host, exc))
                return None
            if rec is not None:
                facts_of(rec, doc)
            return rec

        try:
            good, good_doc = store.last_good(node.host)
        except HistoryError as exc:
            if warn:
                warn("history of %s not read: %s" % (node.host, exc))
            continue
        if good is not None:
            facts_of(good, good_doc)
        then = (good or {}).get("verdicts") or {}
        for r in report.results:
            now = r.outcomes.get(node.host)
            if now is None or now[0] not in ("fail", "warn"):
                continue
            prev = then.get(r.id)
            prev = tuple(prev) if isinstance(prev, list) and len(prev) == 2 else None
            rec, kind = (good, "last-good") if good is not None and prev and prev[0] == "pass" else (None, None)
            if rec is None:
                rec = kept_run(r.id)
                if rec is not None:
                    kind, prev = "check", ("pass", None)
                elif good is not None and _changed(prev, now):
                    rec, kind = good, "last-good"  # it never passed: a change of its warning or failure
                elif good is None:
                    # (userwalk28) no passing run kept (host.name fails forever on the README's VM) and the
                    # check never passed: it had nothing to judge (na) or could not judge (skipped) in a kept
                    # run, and fails now. NCCL_SOCKET_IFNAME=bogus0 set after a run where no NCCL_* was set
                    # failed nccl.env with no note, while `diff --since last-good` named the change
                    rec = kept_run(r.id, ("na", "skipped"))
                    if rec is not None:
                        kind, prev = "check-idle", (rec["verdicts"].get(r.id), None)
            if rec is None or (kind == "last-good" and not _changed(prev, now)):
                continue
            before = docs.get(rec.get("facts"))
            if before is None:
                continue
            fid = rec.get("facts")
            if fid not in compared:
                compared[fid] = compare(before, node.facts, key_ids=(rec.get("key_id"), store.current_key_id))
            changes = compared[fid]
            mine = related(changes, reads.get(r.id, ()))
            r.findings.append(Finding.info(_note(store, node.host, rec, mine, changes, prev, kind, r.id,
                                                 r.id in cluster and len(report.nodes) > 1), hosts=[node.host]))
            r.findings[-1].check = r.id
            added += 1
    if added:
        every = []
        for r in report.results:
            r.findings = merge_findings(r.findings)
            every.extend(r.findings)
        every.sort(key=lambda f: (SEVERITY_RANK[f.severity], f.check))
        report.findings[:] = every
    return added


def _note(store, host, rec, mine, every, prev, kind="last-good", check_id=None, cluster=False):
    """The note's text; ``kind``: the record is the node's last passing run ("last-good") or
    the newest kept run in which this check passed ("check")."""
    from gpudoctor.changes import summary

    when = utc(rec.get("at"))
    if kind == "last-good":
        what = "the last passing run"
        when = "%s; %s" % (when, ("it was %s then" % prev[0]) if prev else "not run then")
    elif kind == "check-idle":
        what = "this check last had %s" % ("nothing to judge" if prev and prev[0] == "na" else "no verdict")
        others = [c for c in rec.get("failed") or [] if c != check_id]
        more = " (+%d)" % (len(others) - 4) if len(others) > 4 else ""
        when = "%s; it was %s then%s; no passing run kept" % (
            when, {"na": "n/a"}.get(prev[0], prev[0]) if prev else "?", (", the node failed %s%s" % (", ".join(others[:4]), more)) if others else "")
    else:
        what = "this check last passed"
        others = [c for c in rec.get("failed") or [] if c != check_id]
        more = " (+%d)" % (len(others) - 4) if len(others) > 4 else ""
        when = "%s; %s" % (when, ("the node failed %s%s then" % (", ".join(others[:4]), more)) if others
                           else "the node did not pass then")
    if not mine:
        other = (": other changes: " + summary(every, 3)) if every else ""
        if cluster:  # (userwalk22) it judges the nodes together: "nothing changed" read as if the verdict had no cause
            return ("history: nothing this check reads changed on %s since %s (%s)%s; it compares the nodes, so "
                    "another node's change can move its verdict here" % (host, what, when, other))
        return "history: nothing this check reads changed since %s (%s)%s" % (what, when, other)
    parts = []
    for c in mine[:4]:
        seen = store.first_seen(host, c.path, c.after, rec.get("at") or "")
        parts.append(c.text + (" (first seen %s)" % utc(seen) if seen else ""))
    more = " (+%d more)" % (len(mine) - 4) if len(mine) > 4 else ""
    return "history: changed since %s (%s): %s%s" % (what, when, "; ".join(parts), more)


def record_report(report, store, at=None, warn=None):
    """Record every reachable node of a report. Returns the hosts recorded."""
    done = []
    for node in report.nodes:
        if not node.reachable or not isinstance(node.facts, dict):
            continue
        verdicts = node_verdicts(report, node.host)
        try:
            store.record(node.host, node.facts, node_passed(report, node.host, verdicts), verdicts, at=at,
                         key_id=store.current_key_id)
        except (HistoryError, OSError) as exc:
            if warn:
                warn("history of %s not written: %s" % (node.host, getattr(exc, "strerror", None) or exc))
            continue
        done.append(node.host)
    return done


def open_for(state_dir, cfg=None, warn=None, strict=True):
    """The Store for a command: ``strict`` (the user asked for it: `check --history`) turns a
    refused state directory into an input error (exit 2); the hooks warn and go on."""
    try:
        bounds = {}
        for key, attr in (("history_runs", "max_runs"), ("history_states", "max_states"),
                          ("history_bytes", "max_node_bytes")):
            v = getattr(cfg, key, None) if cfg is not None else None
            if v is not None:
                bounds[attr] = v
        return Store.open(state_dir_for(state_dir, cfg), **bounds)
    except (HistoryError, OSError) as exc:
        msg = "history: state directory refused: %s" % (getattr(exc, "strerror", None) or exc)
        if strict:
            raise InputError(msg)
        if warn:
            warn(msg)
        return None


def add_flags(p, default_on):
    """--history / --no-history and --state-dir for a command (check: off; the hooks: on)."""
    g = p.add_argument_group("history (docs/history.md)")
    g.add_argument("--history", dest="history", action="store_true", default=None,
                   help="keep this node's facts and verdicts, and say what changed since it last passed"
                        + (" (default here)" if default_on else " (default off; config key history)"))
    g.add_argument("--no-history", dest="history", action="store_false", help="keep no history this run")
    g.add_argument("--state-dir", metavar="DIR", help="where history lives (default: $GPUDOCTOR_STATE_DIR, the "
                                                      "config key state_dir, /var/lib/gpudoctor for root, else "
                                                      "$XDG_STATE_HOME/gpudoctor)")


def for_command(args, cfg, default_on, warn, strict):
    """The Store a command keeps history in, or None (history off, or refused in a hook).
    Gathering live facts, the collector hashes secret-looking environment values with the
    store's key (cfg.env_key), so the recorded hashes compare from one run to the next."""
    on = getattr(args, "history", None)
    if on is None:
        on = cfg.history if getattr(cfg, "history", None) is not None else default_on
    if not on:
        return None
    store = open_for(getattr(args, "state_dir", None), cfg, warn=warn, strict=strict)
    if store is None:
        return None
    if not getattr(args, "facts", None):
        try:
            cfg.env_key = store.key
            store.current_key_id = store.key_id
        except (HistoryError, OSError) as exc:
            if strict:
                raise InputError("history: %s" % (getattr(exc, "strerror", None) or exc))
            warn("history: %s" % (getattr(exc, "strerror", None) or exc))
            return None
    return store


def after_run(report, store, checks, warn):
    """Annotate the report from each node's last passing run, then record this run."""
    if store is None:
        return
    annotate(report, store, registry=checks, warn=warn)
    record_report(report, store, warn=warn)


# -- explain: the change that matches the error --------------------------------------------

def explain_changes(result, node_facts, since, state_dir, cfg=None):
    """For `gpudoctor explain --facts F --since WHEN`: each node's changes since its record,
    and, per explained finding, those in the facts its confirming checks read (an NVML
    "Driver/library version mismatch" and driver.mismatch: the driver's libraries changed
    while the kernel module stayed). A dict for the JSON answer (key ``history``)."""
    from gpudoctor.changes import compare, related
    from gpudoctor.registry import load_checks

    store = open_for(state_dir, cfg, strict=True)
    needs = {c.id: c.reads for c in load_checks()}
    when = parse_since(since or "last-good")
    out = {"since": when, "state_dir": store.dir, "nodes": []}
    for doc in node_facts:
        host = doc.get("node") if isinstance(doc, dict) else None
        if not isinstance(host, str):
            continue
        kind = "last-good" if when == "last-good" else "at"
        try:
            rec, before = store.last_good(host) if when == "last-good" else store.at(host, when)
            if before is None and when == "last-good":
                # a node that never passed whole (host.name fails forever on it), as `gpudoctor diff --since
                # last-good` takes it: its kept run with the fewest failing checks, named as such (userwalk24)
                rec, before = store.best_run(host, against=doc)
                kind = "fewest-failures"
        except HistoryError as exc:
            raise InputError("history of %s: %s" % (host, exc))
        if before is None:
            out["nodes"].append({"host": host, "record_at": None, "kind": None, "changes": [], "matches": []})
            continue
        changes = compare(before, doc, (rec.get("key_id"), None))
        matches = []
        for f in result.get("findings") or []:
            checks = sorted({c for cause in f.get("causes") or [] for c in cause.get("checks") or []})
            sections = tuple(s for c in checks for s in needs.get(c, ()))
            mine = related(changes, sections) if sections else []
            # the variables the finding's fixes set (a cause's exports: NCCL_SOCKET_IFNAME for
            # nccl.socket_ifname): a change of one is the finding's too, with or without a check that
            # reads it (a real 2x H100 read "nothing the explained errors' checks read changed" beside
            # NCCL_SOCKET_IFNAME (absent) -> nosuch0 and NCCL's "Bootstrap : no socket interface found")
            names = sorted({n for cause in f.get("causes") or [] for n in cause.get("exports") or {}
                            if isinstance(n, str)})
            sets = [c for c in changes if c not in mine and c.label in names]
            # the variables a cause's confirm line reads ($CUDA_VISIBLE_DEVICES in cuda.invalid_device_ordinal's
            # 'nvidia-smi -L | wc -l; echo $CUDA_VISIBLE_DEVICES'): a real 2x H200 read "nothing the explained
            # errors' checks read changed; other changes: CUDA_VISIBLE_DEVICES (absent) -> 1" beside it
            read = sorted({m for cause in f.get("causes") or [] for line in cause.get("confirm") or []
                           if isinstance(line, str) for m in re.findall(r"\$\{?([A-Z][A-Z0-9_]{2,63})\b", line[:2000])})
            reads = [c for c in changes if c not in mine and c not in sets and c.label in read]
            if mine or sets or reads:
                matches.append({"finding": f.get("id"), "checks": checks,
                                "variables": sorted({c.label for c in sets}),
                                "reads": sorted({c.label for c in reads}),
                                "changes": [c.text for c in mine + sets + reads]})
        node = {"host": host, "record_at": rec.get("at"), "kind": kind, "changes": [c.text for c in changes],
                "matches": matches}
        if kind == "fewest-failures":
            node["failed"] = [c for c in rec.get("failed") or [] if isinstance(c, str)]
        out["nodes"].append(node)
    return out


def explain_lines(hist):
    """The text lines for explain's answer."""
    lines = []
    for n in hist["nodes"]:
        if n["record_at"] is None:
            lines.append("history: %s has no record %s in %s" % (
                n["host"], "of a passing run" if hist["since"] == "last-good" else "at " + utc(hist["since"]),
                hist["state_dir"]))
            continue
        if n.get("kind") == "fewest-failures":
            what = "no passing run kept: its run with the fewest failures%s" % (
                ", failed: " + ", ".join(n.get("failed") or []) if n.get("failed") else "")
        else:
            what = "its last passing run" if hist["since"] == "last-good" else "its record at " + utc(hist["since"])
        then = "%s (%s)" % (utc(n["record_at"]), what)
        head = "history: %s since %s" % (n["host"], then)
        if n["matches"]:
            for m in n["matches"]:
                why = list(m["checks"]) + (["its fix sets " + ", ".join(m["variables"])] if m.get("variables") else []) + (
                    ["its confirm reads " + ", ".join("$" + v for v in m["reads"])] if m.get("reads") else [])
                lines.append("history: %s: %s (%s) matches what changed since %s: %s" % (
                    n["host"], m["finding"], ", ".join(why), then, "; ".join(m["changes"][:3])))
        elif n["changes"]:
            lines.append("%s: nothing the explained errors' checks read changed; other changes: %s" % (
                head, "; ".join(n["changes"][:4])))
        else:
            lines.append("%s: no change in its facts" % head)
    return lines

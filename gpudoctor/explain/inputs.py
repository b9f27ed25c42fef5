"""What `gpudoctor explain` reads: an error text, one log, several logs of one job (per-node or
per-rank files, `slurm-*.out`), a folder of them, and PyTorch Flight Recorder dumps among them;
and where each answer line is (file and line) once several inputs were scanned as one.

Inputs are untrusted: only regular files are read (errors.open_input: a FIFO or a device
would block or never end), and a folder is walked to a bounded depth and number of files,
never following links to folders.
"""

import os
import re
import stat
import sys

from gpudoctor.errors import InputError, excerpt, missing
from gpudoctor.fixline import sh

MAX_FILES = 10000  # files one explain reads (a job of 10,000 ranks' logs)
MAX_DEPTH = 6  # torchrun --log-dir: <dir>/<run id>/attempt_0/<local rank>/stderr.log
# folders one explain walks: MAX_FILES bounds the files only, and a tree of empty folders (200 x 250
# took 1.5 s, 6 levels of them hours) was walked whole before --timeout applied
MAX_DIRS = 20000
SKIP_SUFFIXES = (".gz", ".xz", ".bz2", ".zst", ".zip", ".tar", ".png", ".jpg", ".so", ".pt", ".pth", ".safetensors",
                 ".bin", ".npy", ".whl")
_LOGISH = (".log", ".out", ".err", ".txt")
_COMPRESSED_SUFFIXES = (".gz", ".xz", ".bz2", ".zst")  # of SKIP_SUFFIXES: a rotated or compressed log, most often
_LEFT_COMPRESSED = []  # the compressed files the last collect()'s folders held (never read)


def split_arguments(args):
    """(error text or None, [paths]) from `explain TEXT`, `explain FILE [FILE ...]`,
    `explain DIR`, `--file LOG` (repeatable) and '-'. One positional argument that names an
    existing file or folder is read as one; one that does not is the error text, unless it can
    only be a path (a log's name, no blank): then it is a missing file (exit 2)."""
    pos = list(getattr(args, "text", None) or [])
    if isinstance(getattr(args, "text", None), str):
        pos = [args.text]
    files = list(getattr(args, "file", None) or [])
    if isinstance(getattr(args, "file", None), str):
        files = [args.file]
    if not pos and not files:
        raise InputError("give an error text, '-' to read standard input, or log files / a folder of logs")
    if pos and files:
        if len(pos) == 1 and not os.path.lexists(pos[0]):
            raise InputError("give the error text or --file LOG, not both")
    if len(pos) == 1 and not files:
        one = pos[0]
        if one == "-":
            return "-", []
        if _is_path(one):
            return None, [one]
        if _looks_like_a_path(one):
            raise InputError("cannot read %s: %s" % (excerpt(one), missing(one)))
        if not one.strip():  # `explain "$ERR"` with ERR unset: nothing was given, not an unknown error
            raise InputError("the error text is empty: give the error message, '-' to read standard input, or a log "
                             "file")
        return one, []
    paths = files + pos
    for p in paths:
        if p == "-":
            raise InputError("'-' (standard input) cannot be given with files")
        if not _is_path(p):
            why = missing(p)
            if len(pos) < 2 or not why.startswith("no such"):  # --file LOG: no error text could have been meant
                raise InputError("cannot read %s: %s" % (excerpt(p), why))
            raise InputError("cannot read %s: no such file or directory (several arguments are files to read; "
                             "quote an error text as one argument)" % excerpt(p))
    return None, paths


def _is_path(text):
    try:
        return "\n" not in text and os.path.lexists(text)
    except (ValueError, OSError):  # NUL in the text, a name too long
        return False


def _looks_like_a_path(text):
    return len(text) < 4096 and not any(c.isspace() for c in text) and (
        "/" in text or text.lower().endswith(_LOGISH) or text.startswith("slurm-"))


# a folder's file -> the folder given, resolved: the file must still resolve inside it when opened (collect)
_WITHIN = {}


def _open_regular(path, what="log"):
    """A binary stream of a regular file, refused (InputError, exit 2) before a byte is read if
    it is anything else: the project's one rule for input files (gpudoctor/errors.py). A file
    found in a folder given must be inside that folder when it is opened: its owner could swap a
    folder on the way for a link to another user's between the walk and the open (docs/security.md 54.)."""
    from gpudoctor.errors import open_input

    return open_input(path, what, within=_WITHIN.get(path))


def _walk(root):
    """The regular files under a folder, sorted, bounded in depth and number; links to folders
    are not followed; hidden names and obvious binaries are left out."""
    out = []
    stack = [(root, 0)]
    dirs = 0
    while stack:
        d, depth = stack.pop()
        dirs += 1
        if dirs > MAX_DIRS:
            raise InputError("%s holds more than %d folders: name the logs (or their folder) to read" % (
                excerpt(root, 200), MAX_DIRS))
        try:
            names = sorted(os.listdir(d))
        except OSError as exc:
            raise InputError("cannot read folder %s: %s" % (excerpt(d, 200), exc.strerror or exc))
        subs = []
        for n in names:
            if n.startswith("."):
                continue
            p = os.path.join(d, n)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if stat.S_ISDIR(st.st_mode):
                if depth + 1 < MAX_DEPTH:
                    subs.append((p, depth + 1))
            elif stat.S_ISREG(st.st_mode) and n.lower().endswith(_COMPRESSED_SUFFIXES):
                _LEFT_COMPRESSED.append(p)  # left out, and said (collect)
            elif stat.S_ISREG(st.st_mode) and not n.lower().endswith(SKIP_SUFFIXES):
                out.append(p)
                if len(out) > MAX_FILES:
                    raise InputError("%s holds more than %d files: name the logs to read" % (excerpt(root, 200),
                                                                                               MAX_FILES))
        stack.extend(reversed(subs))
    return out


# Kernel files: /proc/kmsg and tracefs' trace_pipe are regular files whose read blocks until the kernel has
# something to say, before --timeout or a first SIGTERM can stop it (red team 2026-11-27: `explain /proc/kmsg`
# and `explain /proc` as root waited forever); /proc/PID/environ and the like hold no log. A path that resolves
# under them is not read (as atomic.py writes nothing there).
KERNEL_DIRS = ("/proc", "/sys")  # (not /dev: /dev/shm holds files; devices are refused by open_input)


def _not_kernel(p):
    try:
        # `explain <(kubectl logs POD)`: bash's /dev/fd/63 resolves under /proc, and was refused as a kernel file with
        # 'dmesg > kern.txt'; it is a pipe, which explain reads from standard input (userwalk23). A FIFO is never
        # opened here (docs/security.md 17.); stat() does not open it
        if stat.S_ISFIFO(os.stat(p).st_mode):
            raise InputError("%s is a pipe (a <(...) substitution or a FIFO), not a regular file: not read; pipe the "
                             "text in instead: COMMAND | gpudoctor explain -" % excerpt(p, 200))
    except (OSError, ValueError):
        pass
    try:
        real = os.path.realpath(p)
    except (OSError, ValueError):
        return
    for top in KERNEL_DIRS:
        if real == top or real.startswith(top + "/"):
            raise InputError("%s is under %s (a kernel file, whose read may block until the kernel writes): not "
                             "read; save it to a file first (dmesg > kern.txt)" % (excerpt(p, 200), top))


def collect(paths, deadline=None):
    """([(name, opener)] of the logs, Flight Recorder findings or None, NCCL RAS report items)
    for the paths given: files are read in the order given, a folder's files in name order. A
    file that is a Flight Recorder dump (a pickle) is read as one, never as a log; a log that
    holds an NCCL RAS report (ncclras output) is also read as one."""
    from gpudoctor.explain import flight, ras

    files, walked = [], set()
    _WITHIN.clear()
    del _LEFT_COMPRESSED[:]
    for p in paths:
        _not_kernel(p)
        try:
            st = os.stat(p)
        except OSError as exc:
            raise InputError("cannot read %s: %s" % (excerpt(p, 200), exc.strerror or exc))
        except ValueError as exc:
            raise InputError("cannot read %s: %s" % (excerpt(p, 200), exc))
        if stat.S_ISDIR(st.st_mode):
            found = _walk(p)
            if not found and _LEFT_COMPRESSED:
                raise InputError("%s holds no file to read but %d compressed one%s (%s): decompress %s (zcat, xzcat, "
                                 "zstdcat), or pipe one in: zcat FILE | gpudoctor explain -" % (
                                     excerpt(p, 200), len(_LEFT_COMPRESSED), "" if len(_LEFT_COMPRESSED) == 1 else "s",
                                     excerpt(_LEFT_COMPRESSED[0], 200), "it" if len(_LEFT_COMPRESSED) == 1 else "them"))
            if not found:
                raise InputError("%s holds no file to read" % excerpt(p, 200))
            top = os.path.realpath(p)
            _WITHIN.update((f, top) for f in found)
            files.extend(found)
            walked.update(found)
        else:
            files.append(p)
    if len(files) > MAX_FILES:
        raise InputError("more than %d files to read: name fewer" % MAX_FILES)
    logs, dumps, reports, binaries, unread, compressed = [], [], [], 0, [], []
    for p in files:
        try:
            f = _open_regular(p)  # refused here, before anything is read, if not a regular file
        except InputError as exc:
            if p not in walked:  # a file named on its own: the user meant it, so it is an input error
                raise
            # a folder's file this user may not read (another user's 0600 log beside the ranks'
            # logs) or one that is no longer a regular file: left out, and said on stderr; it
            # made the whole folder an input error (exit 2)
            unread.append(str(exc))
            continue
        try:
            head = f.read(1 << 16)
            # a folder's binaries (libfoo.so.1, a core file, TensorBoard's event files) are left
            # out; a file named on its own is refused only when it is an executable or an archive
            # (read as text it gives a diagnosis of noise): a damaged log with binary garbage
            # around the error is still read (tests/test_explain.py test_cli_binary_garbage)
            why = None if flight.is_dump(head) else binary_kind(head, magic_only=p not in walked)
            if why:
                if p not in walked:
                    raise InputError("%s is not a text log (%s): name the log files to read" % (excerpt(p, 200), why))
                binaries += 1
                if head.startswith(_COMPRESSED):
                    compressed.append(p)
                continue
            if not flight.is_dump(head) and ras.looks_like_report(head):
                data = head + f.read(ras.MAX_REPORT - len(head))
                items = ras.parse(data.decode("utf-8", "replace"))
                if items:
                    reports.append((p, items))
        finally:
            f.close()
        if flight.is_dump(head):
            dumps.append(p)
        else:
            logs.append((p, _opener(p)))
    if unread and not logs and not dumps:
        raise InputError(unread[0])
    if unread:  # the message names the path escaped and bounded (errors.open_input)
        sys.stderr.write("gpudoctor: explain: %d file%s of the folder not read: %s\n" % (
            len(unread), "" if len(unread) == 1 else "s", unread[0]))
    compressed = sorted(set(compressed + _LEFT_COMPRESSED))
    if compressed and (logs or dumps):
        # a rotated or gzip'ed rank log beside the others (rank1.log.gz: often the failing rank's) was left out in
        # silence, and the answer for the rest read "NO ERROR FOUND", exit 0 (userwalk23): said on stderr, as an
        # unreadable file of the folder is
        sys.stderr.write("gpudoctor: explain: %d compressed file%s of the folder not read (%s%s): decompress %s "
                         "into the folder (zcat, xzcat, zstdcat) to have %s read\n" % (
                             len(compressed), "" if len(compressed) == 1 else "s", excerpt(compressed[0], 200),
                             " and %d more" % (len(compressed) - 1) if len(compressed) > 1 else "",
                             "it" if len(compressed) == 1 else "them", "it" if len(compressed) == 1 else "them"))
    if binaries and not logs and not dumps:
        raise InputError("%s: no text log to read (%d binary file%s left out)" % (
            ", ".join(excerpt(p, 100) for p in paths[:3]), binaries, "" if binaries == 1 else "s"))
    fr = flight.read_dumps(dumps, deadline=deadline) if dumps else None
    if not logs:
        logs = [("%d Flight Recorder dump%s" % (len(dumps), "" if len(dumps) == 1 else "s"), _empty)]
    return logs, fr, reports


# the first bytes of files that are never a log: executables and shared objects (ELF), archives
# and compressed streams whose names lack their suffix (libfoo.so.1.2, core dumps, rotated logs
# compressed under their old name). The magic numbers are those file(1)'s magic database
# (https://github.com/file/file/tree/master/magic/Magdir: elf, compress, archive, images) keys on.
_BINARY_MAGIC = (b"\x7fELF", b"\x1f\x8b", b"\xfd7zXZ\x00", b"BZh", b"\x28\xb5\x2f\xfd", b"PK\x03\x04",
                 b"!<arch>\n", b"\x89PNG", b"\xff\xd8\xff", b"%PDF", b"\x93NUMPY")
_TEXT_CONTROLS = frozenset(b"\t\n\r\f\b\x1b")  # tabs, ends of line, backspace, ANSI colours
_COMPRESSED = (b"\x1f\x8b", b"\xfd7zXZ\x00", b"BZh", b"\x28\xb5\x2f\xfd")  # gzip, xz, bzip2, zstd (of _BINARY_MAGIC)


def binary_kind(head, magic_only=False):
    """Why the first bytes of a file say it is not a text log (a short phrase), else None: a
    known magic number, or (unless ``magic_only``) mostly bytes that are not text. NUL bytes
    alone do not make a binary: logrotate's copytruncate leaves a log that starts with a run of
    them (the writer's offset kept past the truncation), and a UTF-16 log has one in every
    other byte; what is left once they are dropped must be mostly text."""
    if head.startswith(_BINARY_MAGIC):
        return "an executable, archive or compressed file"
    if magic_only:
        return None
    body = head.replace(b"\x00", b"")[:1 << 16]
    if not body:
        return None
    text = body.decode("utf-8", "replace")
    odd = sum(1 for ch in text if ch == "\ufffd" or (ord(ch) < 32 and ord(ch) not in _TEXT_CONTROLS))
    if odd * 10 > len(text) * 3:  # more than 30% of the characters are not text
        return "binary data"
    return None


def _opener(path):
    return lambda: _recoded(_open_regular(path))


class _Utf16AsUtf8(object):
    """A UTF-16 log (Windows PowerShell 5's `>` and Tee-Object write UTF-16LE with a BOM) read
    as the UTF-8 bytes the scanner expects: without it every other byte is NUL and no line
    matches. Decoded a block at a time (codecs' incremental reader), never held whole."""

    def __init__(self, f):
        import codecs

        self.f, self.reader, self.buf = f, codecs.getreader("utf-16")(f, errors="replace"), b""

    def read(self, n=-1):
        while n < 0 or len(self.buf) < n:
            text = self.reader.read(1 << 16)
            if not text:
                break
            self.buf += text.encode("utf-8")
        if n < 0:
            out, self.buf = self.buf, b""
        else:
            out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def close(self):
        self.f.close()


def _recoded(f):
    """The stream as UTF-8 bytes: a UTF-16 file (by its byte order mark, RFC 2781 section 3.2)
    is decoded; anything else is read as it is."""
    try:
        bom = f.peek(2)[:2] if hasattr(f, "peek") else b""
    except (OSError, ValueError):
        return f
    if bom in (b"\xff\xfe", b"\xfe\xff"):
        return _Utf16AsUtf8(f)
    return f


def _empty():
    import io

    return io.BytesIO(b"")


def _where(scan, line):
    """(file, line in that file) of a line number counted over every input of a scan."""
    best = None
    for src in scan.sources:
        if src["first_line"] < line:
            best = src
    if best is None:
        return None, line
    return best["path"], line - best["first_line"]


def locate(result, scan):
    """Line numbers in the answer counted over all inputs -> (file, line) of each; the
    headline's origin (first rank, host, time) and the echoes' spread for each finding."""

    def fix(d, key="line"):
        if isinstance(d, dict) and isinstance(d.get(key), int):
            d["file"], d[key] = _where(scan, d[key])

    for f in result["findings"]:
        _locate_finding(f, scan, fix)
    for n in result["context"]:
        if isinstance(n.get("first_line"), int):
            n["first_file"], n["first_line"] = _where(scan, n["first_line"])
        if len(scan.sources) > 1 and isinstance(n, dict):
            _relines(n, scan)
    for e in result["errors"]:
        fix(e)
    from gpudoctor.explain import elastic

    elastic.apply_origin(result, scan, _where)  # torchrun's report names the first failing rank, host, time
    result["sources"] = [{"path": s["path"], "lines": s["lines"], "bytes": s["bytes"]} for s in scan.sources]
    if scan.stopped:
        st = dict(scan.stopped)
        if isinstance(st.get("line"), int):
            st["file"], st["line"] = _where(scan, st["line"])
        for key in ("resumed_line", "stopped_again"):  # (perf21: the file's tail read after its middle was passed over)
            if isinstance(st.get(key), int):
                st[key] = _where(scan, st[key])[1]
        st.pop("source", None)
        result["stopped_early"] = st


def locate_added(result, scan, located):
    """(userwalk28) The findings made after locate() (a structural answer of docremedy, lastresort, progline: a
    failure line nothing else read) counted their lines over every input: `explain a.log b.log` quoted b.log's
    line 6 as 'line 1006', with no file, in the text and the JSON. ``located``: the findings locate() saw."""

    def fix(d, key="line"):
        if isinstance(d, dict) and isinstance(d.get(key), int):
            d["file"], d[key] = _where(scan, d[key])

    seen = {id(f) for f in located}
    for f in result["findings"]:
        if id(f) not in seen:
            _locate_finding(f, scan, fix)


def _locate_finding(f, scan, fix):
    """One finding's lines -> (file, line in it); its origin and spread."""
    sp = scan.spread.get(f["id"])
    if sp is None and isinstance(f.get("first_line"), int):
        # a structural answer is named after its family, not the scanner's entry: the entry
        # whose lines hold the finding's first line
        sp = next((scan.spread.get(eid) for eid, hits in scan.matches.items()
                   if any(h.line == f["first_line"] for h in hits)), None)
    if isinstance(f.get("first_line"), int):
        f["first_file"], f["first_line"] = _where(scan, f["first_line"])
    if sp and sp.get("own") and (len(sp["files"]) > 1 or len(sp["ranks"]) > 1 or len(sp["hosts"]) > 1):
        _own_first(f, sp["own"])
    for key in ("matches", "signals"):
        for h in f.get(key, []):
            fix(h)
    for c in f.get("causes", []):
        for h in c.get("evidence", []):
            fix(h)
    f["origin"], f["spread"] = _origin(scan, sp) if sp else (None, None)
    if len(scan.sources) > 1:
        _relines(f, scan)


# 'line 8575', 'lines 3338, 3340' in a finding's prose; the word before it, when it names a file ('rank1.log line 6',
# 'train.py, line 42'), says the number is that file's already
_LINES = re.compile(r"(?P<before>\S*\s?)\b(?P<word>lines?) (?P<nums>\d{1,9}(?:(?:, | and )\d{1,9})*)\b")


def _relines(f, scan):
    """(userwalk28) The prose the readers wrote before locate() counts lines over every input, as the scan does (each
    later file after a gap of 1000): a two-file answer's note read 'The GPU: PCI 0000:b3:00 (line 1014)' for the
    second file's line 6. Each number that lies in a later file's lines becomes '<file> line N' (with them, in one
    list, file 1's numbers are named too; alone they are its own already). After a word that names a file: the
    number is rewritten only where it lies in that same file's lines as counted over every input ('the last NCCL
    line is <path> line 2697' of a 646-line file); a traceback's 'train.py, line 42' is left alone."""
    srcs = [(src["first_line"], src["first_line"] + src["lines"], str(src["path"])) for src in scan.sources]

    def base(path):
        return path.replace("\\", "/").rsplit("/", 1)[-1]

    def where(n, first=False):
        for i, (lo, hi, path) in enumerate(srcs):
            if (i or first) and lo < n <= hi:
                return base(path)[:80], n - lo, path
        return None

    def sub(m):
        before, nums_text = m.group("before"), m.group("nums")
        nums = [int(x) for x in re.findall(r"\d+", nums_text)]
        seps = re.findall(r", | and ", nums_text)
        if "." in before or "/" in before:  # '<file> line N': N that file's own unless it lies in that file's span
            name = base(before.strip().strip("(,:;'\"`"))
            got = [where(n, first=True) for n in nums]
            if not name or not all(g and (g[2] == before.strip().strip("(,:;'\"`") or base(g[2]) == name)
                                   for g in got):
                return m.group(0)
            return "%s%s %s" % (before, m.group("word"), str(got[0][1]) + "".join(
                sep + str(g[1]) for sep, g in zip(seps, got[1:])))
        got = [where(n) for n in nums]
        if not any(got):
            return m.group(0)
        got = [g or where(n, first=True) for n, g in zip(nums, got)]
        files = {g[0] for g in got if g}
        if all(got) and len(files) == 1:
            return "%s%s %s %s" % (before, got[0][0], m.group("word"), str(got[0][1]) + "".join(
                sep + str(g[1]) for sep, g in zip(seps, got[1:])))
        return before + ", ".join(("%s line %d" % g[:2]) if g else "line %d" % n for n, g in zip(nums, got))

    def fix(text):
        return _LINES.sub(sub, text) if isinstance(text, str) and "line" in text else text

    if "notes" not in f:  # a context entry of the answer (its note: 'srun starts the script itself (line N)')
        if isinstance(f.get("note"), str):
            f["note"] = fix(f["note"])
        return
    f["notes"] = [fix(n) for n in f.get("notes") or []]
    for c in f.get("causes") or []:
        if isinstance(c, dict):
            for key in ("text", "computed_note"):
                if isinstance(c.get(key), str):
                    c[key] = fix(c[key])
            if isinstance(c.get("fix"), list):
                c["fix"] = [fix(x) for x in c["fix"]]


def _own_first(f, own):
    """The lines quoted under the headline are those of the rank it names first (its earliest line, then that
    rank's own later lines of this entry, in its file), the others' echoes after them: the first five lines kept
    in input order were gpu00-04's echoes at 12:00:05 under 'first: on gpu37 at 12:00:01'.
    f["origin_matches"]: how many of f["matches"] are the first rank's own (the text report quotes those and
    folds the rest as echoes)."""
    mine = [{"line": h.line, "text": h.text, "severity": h.severity} for h in own]
    lines = {m["line"] for m in mine}
    rest = [m for m in f.get("matches", []) if m["line"] not in lines]
    f["matches"] = (mine + rest)[:max(len(f.get("matches", [])), len(mine))]
    f["origin_matches"] = len(mine)


def _rank_key(r):
    return (r.startswith("local"), int(r.split()[-1]) if r.split()[-1].isdigit() else 0, r)


def _origin(scan, sp):
    h = sp["earliest"]
    rank, host, when = h.origin or (None, None, None)
    when = when or sp.get("etime")  # a line without a time: that of the next line of its rank and file
    path, line = _where(scan, h.line)
    origin = {"file": path, "line": line, "rank": rank, "host": host, "time": when[2] if when else None}
    ranks = sorted(sp["ranks"], key=_rank_key)
    hosts = sorted(sp["hosts"])
    files = sorted({scan.sources[i]["path"] for i in sp["files"]})
    spread = {"ranks": len(ranks), "hosts": len(hosts), "files": max(1, len(files)),
              "rank_list": ranks[:64], "host_list": hosts[:64]}
    return origin, spread


# torch 2.11 wrote both ranks' dumps on a watchdog timeout with none of these variables set, to
# $XDG_CACHE_HOME (else ~/.cache) + /torch/comm_lib_trace_rank_<rank> (seen on 2 H100s:
# fixtures/explain/planted-h100x2-2026-11-25/nccl_skip_eval_defaults; the prefix is read in
# torch/csrc/distributed/c10d/FlightRecorder.cpp, DebugInfoWriter::getWriter, and older releases
# defaulted to /tmp/nccl_trace_rank_)
RECORDER_ADVICE = (
    "Find or turn on PyTorch's Flight Recorder dumps, so that the rank that never reached the collective "
    "is named: recent torch (2.11) writes one per rank when the watchdog fires, unasked, to "
    "~/.cache/torch/comm_lib_trace_rank_<rank> on each node ($XDG_CACHE_HOME/torch/ if set; "
    "TORCH_FR_DUMP_TEMP_FILE, formerly TORCH_NCCL_DEBUG_INFO_TEMP_FILE, sets the prefix); where they are off, "
    "export TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1 (older releases write "
    "/tmp/nccl_trace_rank_<rank>). "
    "Collect the dumps of every node into one folder and run: gpudoctor explain FOLDER. With gloo, write "
    "the dump yourself where the timeout is caught: open(f'/tmp/nccl_trace_rank_{rank}', 'wb').write("
    "torch._C._distributed_c10d._dump_fr_trace())")
_TIMEOUTISH = ("timeout", "watchdog", "store_barrier")


def _is_timeout(f):
    return any(t in f["id"] for t in _TIMEOUTISH)


def advise_recorder(result):
    """A collective timeout without Flight Recorder dumps: say how to get them."""
    if result.get("flight_recorder") or result["findings"] and result["findings"][0]["id"].startswith("nccl.ras."):
        return
    from gpudoctor.explain import flight

    for f in result["findings"]:
        if _is_timeout(f):
            hint = flight.watchdog_disagreement(m.get("text") for m in f.get("matches", []))
            if hint:
                f["notes"].append(hint)
            f["notes"].append(RECORDER_ADVICE)
            result["recorder_advice"] = RECORDER_ADVICE
            return


_FR_TITLES = {
    "not_arrived": "a rank never called a collective that the other ranks wait in (Flight Recorder)",
    "mismatch": "ranks called different collectives at the same point (Flight Recorder)",
    "no_dump": "a rank of the job left no Flight Recorder dump (Flight Recorder)",
    "not_started": "a collective never started on one rank's GPU while the others started it (Flight Recorder)",
}
_FR_CAUSES = {
    "not_arrived": [
        ("The code on that rank took another path: a collective inside a condition on the rank (evaluation, "
         "logging or checkpointing on rank 0 only), an early `return`/`break`, or a data loader that gave that "
         "rank fewer batches (an uneven last batch, a sampler without drop_last).",
         ["make every rank call the same collectives in the same order: move the collective out of the "
          "rank-0-only block, or let the other ranks call it too; give every rank the same number of batches "
          "(DistributedSampler(drop_last=True), or join with torch.distributed.algorithms.Join)"]),
        ("That rank is stuck before the collective (data loading, file I/O, a previous GPU kernel) or died "
         "without a dump.",
         ["py-spy dump --pid <pid of that rank> on its node shows where it waits; read that rank's log for an "
          "earlier error"]),
    ],
    "mismatch": [
        ("The ranks run different code: a collective called in another order, with another size or dtype on "
         "one rank (a model built differently per rank, a condition on the rank around a collective).",
         ["make every rank call the same collectives in the same order with the same shapes; "
          "TORCH_DISTRIBUTED_DEBUG=DETAIL checks each collective's type and shape across ranks and names the "
          "first that differs"]),
    ],
    "not_started": [
        ("That rank's GPU is still busy with earlier work: a kernel that hangs or runs far longer there (a "
         "bad GPU or link, an Xid, a data-dependent kernel), or an earlier NCCL operation on another stream or "
         "communicator that never finished.",
         ["on that node: nvidia-smi (utilization stuck at 100%?), sudo dmesg -T | grep -i xid, "
          "py-spy dump --native --pid <pid>; gpudoctor check --hosts <that node>"]),
    ],
    "no_dump": [
        ("The rank died (OOM killer, a crash, its node lost) before the others timed out, so it wrote no dump.",
         ["read that rank's log and its node's kernel log (dmesg -T) for the first error"]),
    ],
}


def apply_ras(result, reports):
    """NCCL RAS reports join the answer as the recorder's dumps do: dead or silent processes
    are the root of a hang that the logs show only as timeouts."""
    from gpudoctor.explain import ras

    if not reports:
        return
    result["ras"] = [{"file": src, "items": items} for src, items in reports]
    for src, items in reports:
        f = ras.finding(items, src)
        if f is not None:
            _join(result, f)
            return


def _join(result, f):
    """A job-level finding (dumps, RAS) becomes the root when the logs show only a timeout or
    echoes; after a specific error in the logs it is related."""
    findings = result["findings"]
    if not findings or _is_timeout(findings[0]) or findings[0]["kind"] == "echo":
        for old in findings:
            if old["role"] == "root":
                old["role"] = "cascade" if old["kind"] == "echo" or _is_timeout(old) else "related"
        f["role"] = "root"
        findings.insert(0, f)
        result["verdict"], result["matched"], result["root"] = "root_cause", True, f["id"]
        result["errors"], result["triage"] = [], []
    else:
        f["role"] = "related"
        findings.insert(1, f)


def _dump_prefix(path):
    """The dumps' file prefix (their name without the rank): nccl_trace_rank_ as configured in
    torch's tutorial, comm_lib_trace_rank_ by torch 2.11's default."""
    name = os.path.basename(path or "").rstrip("0123456789")
    return name if name and name.isprintable() and len(name) <= 80 else "nccl_trace_rank_"


def apply_flight_recorder(result, fr):
    """Flight Recorder findings join the answer: a rank that never reached a collective the
    others wait in is the root of a hang that the logs only show as a timeout (or not at all);
    a specific error in the logs (a crash on that rank) stays the root, the recorder's finding
    then comes after it."""
    result["flight_recorder"] = fr
    if not fr.get("findings"):
        return
    top = fr["findings"][0]
    rank = str(top["ranks"][0]) if top["ranks"] else None
    where = "; the call site: %s" % top["where"] if top.get("where") else ""
    causes = [{"text": t, "checks": [], "confirm": [], "fix": list(fx), "exports": {}, "evidence": [],
               "static_rank": i + 1, "computed": None} for i, (t, fx) in enumerate(_FR_CAUSES[top["kind"]])]
    f = {"id": "flight_recorder.%s" % top["kind"], "family": "collective.desync", "title": _FR_TITLES[top["kind"]],
         "kind": "error", "role": "root", "rank": 80, "score": 80,
         "explain": top["text"] + where + ".",
         "first_line": None, "first_file": top.get("file"), "match_count": len(fr["findings"]),
         "matches": [{"line": None, "file": x.get("file"), "text": x["text"], "severity": None}
                     for x in fr["findings"][:5]],
         "signals": [], "notes": [], "causes": causes,
         "debug": ["python -m torch.distributed.flight_recorder.fr_trace FOLDER (torch's own analyzer; "
                   "--prefix %s)" % sh(_dump_prefix(top.get("file")))],  # a file name: one shell word
         "references": [{"title": "PyTorch: Flight Recorder for debugging stuck jobs",
                         "url": "https://docs.pytorch.org/tutorials/prototype/flight_recorder_tutorial.html"}],
         "knowledge_file": None,
         "origin": {"file": top.get("file"), "line": None, "rank": rank, "host": None, "time": None},
         "spread": {"ranks": len(top["ranks"]), "hosts": 0, "files": 1, "rank_list": [str(r) for r in top["ranks"]],
                    "host_list": []}}
    _join(result, f)

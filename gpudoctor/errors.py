"""Errors the user caused (one line on stderr, exit 2), gpudoctor's own failures (one line,
the traceback saved to a file, exit 3) and the exit-code contract."""

import os
import re
import stat


class InputError(Exception):
    """Bad flag, unreadable or malformed file: exit code 2, never a traceback."""


class NotRegularFile(InputError):
    """A file given to read is a FIFO, a device, a directory or a socket, or a symlink
    another user planted: refused before it is read (``open_input``)."""


# What a host name (or a host:slots / user@host / node[01-04] / IPv6 spec) can hold.
_HOSTISH = re.compile(r"[A-Za-z0-9._@\[\],%:\-]*")


def host_excerpt(value, limit=40):
    """The start of a field that should have been a host name, cut at the first character
    that cannot be part of one: an /etc/shadow line given as a hostfile prints `root`,
    never the hash's algorithm, salt or characters (docs/security.md)."""
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
    text = text.strip()
    head = _HOSTISH.match(text).group(0)
    cut = head != text
    # ':' separates /etc/shadow's fields, and an old DES hash is made of host-name
    # characters: keep only what stands before the first ':' unless the whole is a
    # `host:slots` spec or an IPv6 address
    if ":" in head and not cut and not re.match(r"^[^:]+:[0-9]{1,6}$", head):
        import ipaddress  # here: 1 ms of every command's start (the prolog tier's too) otherwise

        try:
            ipaddress.ip_address(head.strip("[]").split("%", 1)[0])
        except ValueError:
            head, cut = head.split(":", 1)[0], True
    elif cut:
        head = head.split(":", 1)[0]
    # the character it was cut at is named (one character, repr'd: never a secret's part):
    # "'sn1' (cut at a character no host name has) is not a host name" for `--nodes 'sn1;id'` said
    # that sn1 was no host name, and '' for 'sn[1-2],$(id)' showed nothing at all (slurm22)
    at = text[len(head):len(head) + 1]
    if not cut:
        return excerpt(head, limit)
    if at == ":":  # shadow's separator, or a count that is no number: ':' itself is a host spec's
        return excerpt(head, limit) + " (cut at ':')"
    # a backquote or an unprintable character is named by its code point, never echoed: stderr then holds
    # no command-substitution quote a paste could run (tests/test_plan_untrusted_output.py)
    shown = "U+%04X" % ord(at) if at and (at == "`" or not at.isprintable()) else repr(at)
    return excerpt(head, limit) + (" (cut at %s, a character no host name has)" % shown if at else
                                   " (cut at a character no host name has)")


def missing(path):
    """Why a named path that does not show (os.path.lexists said no) cannot be read, for the one line on stderr:
    "no such file or directory" only where that is so. A folder on the way that this user cannot enter hides a file
    that is there (lstat fails with EACCES, which os.path.exists and lexists turn into False): a non-root user's
    `gpudoctor explain /root/job.log` said "no such file", and they looked for a typo (userwalk27)."""
    full = os.path.abspath(os.path.expanduser(path))
    try:
        os.lstat(full)
    except PermissionError:
        cur = os.sep
        for part in [x for x in full.split(os.sep) if x][:-1]:
            cur = os.path.join(cur, part)
            if os.path.isdir(cur) and not os.access(cur, os.X_OK):
                return "permission denied (this user cannot enter the folder %s)" % excerpt(cur)
        return "permission denied"
    except NotADirectoryError:
        return "not a directory: a part of the path before its last is a file"
    except (OSError, ValueError) as exc:
        if isinstance(exc, FileNotFoundError) or not getattr(exc, "strerror", None):
            return "no such file or directory"
        return exc.strerror[:1].lower() + exc.strerror[1:]
    return "no such file or directory"  # (it is there now: made between the two looks)


def excerpt(value, limit=60):
    """A bounded, printable rendering of a value taken from input, for error messages: a
    hostfile line in /etc/shadow format, a 5,000-digit number or a 300 MB string must not
    be echoed whole, and control characters must not reach the terminal (repr escapes them)."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        more = "... (%d characters)" % len(value) if len(value) > limit else ""
        return _quoted(value[:limit]) + more
    if isinstance(value, bool) or value is None:
        return str(value).lower() if value is not None else "nothing"
    if isinstance(value, int):
        # str() of a 5,000-digit int raises ValueError (Python's int-to-string digit limit)
        if value.bit_length() < 200:
            return str(value)
        return "a number of about %d digits" % int(value.bit_length() * 0.30103)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, BaseException):
        text = str(value)
        text = "".join(c if c.isprintable() else "?" for c in text[:limit])
        return text + ("..." if len(str(value)) > limit else "")
    return "a %s" % type(value).__name__


def _quoted(text):
    """repr(text), except where it holds a single quote: repr then writes it in double quotes, where a pasted
    `$(...)` or backquote runs (explain's note on a folder's file `z'$(touch M).gz` printed "f1/z'$(touch M).gz";
    docs/security.md 72.). Such a text is written $'...' instead: bash's ANSI-C quoting (bash(1) QUOTING), whose
    escapes are repr's own (\\, \\', \\n, \\xHH, \\uHHHH, \\UHHHHHHHH), one inert word."""
    shown = repr(text)
    if "'" not in text:
        return shown
    inner = shown[1:-1]
    if shown[0] == '"':  # (repr leaves ' bare between double quotes; with both quotes held it writes \' itself)
        inner = inner.replace("'", "\\'")
    return "$'" + inner + "'"


_KIND = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
         (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _kind(mode):
    return next((name for test, name in _KIND if test(mode)), "not a regular file")


def _path_shown(name):
    name = str(name)
    return name if name.isprintable() and len(name) <= 200 else excerpt(name, 200)


# Folders every input must lie under while they are set (innermost last): `gpudoctor explain`
# reads a pasted launch line with plan's readers (explain/launchpaste.py), and what the paste
# names, directly or through ${VAR:-/etc/shadow}, HF_HOME=..., DS_ENV_FILE=..., is not the
# user's choice of file: only the private folder the paste's own blocks were written to is read.
_CONFINED = []


class Confined(object):
    """``with Confined(folder):`` open_input refuses every file outside ``folder`` (symlinks
    resolved), as an InputError, before it is opened."""

    def __init__(self, folder):
        self.folder = os.path.realpath(folder)

    def __enter__(self):
        _CONFINED.append(self.folder)
        return self

    def __exit__(self, *exc):
        if self.folder in _CONFINED:
            _CONFINED.remove(self.folder)
        return False


def _outside(path):
    if not _CONFINED:
        return False
    try:
        real = os.path.realpath(path)
    except (OSError, TypeError, ValueError):
        return True
    return os.path.commonpath([real, _CONFINED[-1]]) != _CONFINED[-1]


def _kernel_file(fd):
    """Whether the open file ``fd`` is under /proc or /sys (its own path, as the kernel names it: links and
    a rename after the open do not change it). /proc/kmsg and tracefs' trace_pipe are regular files whose
    read blocks until the kernel has something to say, past --timeout and a first SIGTERM (red team
    2026-11-27: `plan`, `check --hosts`, `--config`, a hostfile and a script's `source /proc/kmsg` waited
    forever as root); nothing gpudoctor takes as input lives there."""
    try:
        real = os.readlink("/proc/self/fd/%d" % fd)
    except OSError:  # no /proc (not Linux): nothing to tell
        return False
    return any(real == top or real.startswith(top + "/") for top in ("/proc", "/sys"))


def _inside(fd, top):
    """Whether the open file ``fd`` lies inside the folder ``top`` (resolved), as the kernel names it."""
    try:
        real = os.readlink("/proc/self/fd/%d" % fd)
    except OSError:  # no /proc: nothing to tell
        return True
    return real.startswith(top.rstrip("/") + "/")


def _open_judged(path, flags, judged, what, name):
    """The file ``judged`` (an os.stat result) opened for reading, never another: the path is opened once with O_PATH
    (no open of a device, no wait on a FIFO), that descriptor must be the very file judged (device and inode) and a
    regular file or /dev/null, and it is read through /proc/self/fd/N (the same file). A path opened again by name
    after lstat judged it let whoever owns the folder swap a log for a symlink in between: explain, as root on a
    user's log folder, read and quoted a root-only file through a link the owner rule had not seen (red team
    2026-11-28b, docs/security.md 54.), and the open could be a device's."""
    o_path = getattr(os, "O_PATH", 0)
    if not o_path or judged is None:
        return os.open(path, flags)
    pfd = os.open(path, o_path | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(pfd)
        if (st.st_dev, st.st_ino) != (judged.st_dev, judged.st_ino):
            raise NotRegularFile("%s %s changed while it was opened (replaced, or its link moved): not read"
                                 % (what, name))
        null = stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)
        if not stat.S_ISREG(st.st_mode) and not null:
            raise NotRegularFile(_not_regular(what, name, st.st_mode))
        try:
            return os.open("/proc/self/fd/%d" % pfd, flags)
        except FileNotFoundError:  # no /proc mounted: the path again, then the same file or nothing
            fd = os.open(path, flags)
            now = os.fstat(fd)
            if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
                os.close(fd)
                raise NotRegularFile("%s %s changed while it was opened: not read" % (what, name))
            return fd
    finally:
        os.close(pfd)


def _not_regular(what, name, mode):
    """The refusal of an input that is not a regular file. A FIFO named on the command line is most often the
    user's own pipe, `--hosts <(scontrol show hostnames)` or `--hosts /dev/stdin`: refused all the same (a FIFO can
    block the read past any deadline; docs/security.md 17.), with how to give its text instead (userwalk23)."""
    text = "%s %s is %s, not a regular file: not read" % (what, name, _kind(mode))
    if stat.S_ISFIFO(mode):
        text += " (a pipe or a <(...) substitution: save its text to a file and name that)"
    return text


def open_input(path, what, shown=None, within=None):
    """A binary stream of a file the user named, refused (InputError: one line, exit 2)
    before a byte is read when it is not a regular file: a FIFO would block the read
    forever (past any --timeout), /dev/zero never ends, a directory or a socket is not
    input. The open itself cannot block (O_NONBLOCK: opening a FIFO with no writer waits
    for one otherwise; O_NOCTTY: a terminal device never becomes ours). A symlink that
    another user owns is followed only to that user's own file (the kernel's
    protected_symlinks rule, in every folder): whoever can plant a link in a shared folder
    does not choose which of our files, or root's, gpudoctor reads and quotes."""
    name = _path_shown(shown or path)
    if _outside(path):
        raise InputError("%s %s not read: a file a pasted line names is never opened here (gpudoctor plan reads "
                         "it on the machine that has it)" % (what, name))
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        try:
            link = os.lstat(path)
        except OSError:
            link = None
        judged = link  # the file the rules judge: the path's own, or its link's target
        if link is not None and stat.S_ISLNK(link.st_mode):
            try:
                judged = os.stat(path)
            except OSError:
                judged = None
            if link.st_uid not in (os.geteuid(), 0) and (judged is None or judged.st_uid != link.st_uid):
                raise NotRegularFile("%s %s is a symlink that uid %d owns to a file it does not own: not followed"
                                 % (what, name, link.st_uid))
        fd = _open_judged(path, flags, judged, what, name)
    except OSError as exc:
        raise InputError("cannot read %s %s: %s" % (what, name, exc.strerror or exc))
    except (OverflowError, ValueError, TypeError) as exc:  # a path with NUL, or not a path at all
        raise InputError("cannot read %s %s: %s" % (what, excerpt(shown or path), exc))
    try:
        st = os.fstat(fd)
        # /dev/null (character device 1:3 on Linux, devices.txt) is the conventional empty
        # input (`GPUDOCTOR_CONFIG=/dev/null`, as `GIT_CONFIG=/dev/null`): it never blocks
        # and never yields a byte, so it is read as an empty file
        null = stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)
        if not stat.S_ISREG(st.st_mode) and not null:
            raise NotRegularFile(_not_regular(what, name, st.st_mode))
        if not null and _kernel_file(fd):
            raise NotRegularFile("%s %s is a kernel file (under /proc or /sys, where a read may wait until the "
                                 "kernel writes): not read; save it to a file first" % (what, name))
        if within and not _inside(fd, within):
            raise NotRegularFile("%s %s is not inside the folder given when opened (a folder on its way became a "
                                 "link): not read" % (what, name))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_input(path, what, shown=None, limit=None):
    """The bytes of a file the user named (``open_input``: a regular file, or an InputError);
    an unreadable one, or with `limit` one larger than `limit` bytes, is an InputError
    naming it. Every file gpudoctor is given to read comes through here."""
    f = open_input(path, what, shown)
    try:
        with f:
            data = f.read() if limit is None else f.read(limit + 1)
    except OSError as exc:
        raise InputError("cannot read %s %s: %s" % (what, _path_shown(shown or path), exc.strerror or exc))
    if limit is not None and len(data) > limit:
        raise InputError("%s %s is larger than %d bytes, more than any %s holds" % (
            what, _path_shown(shown or path), limit, what))
    return data


class DuplicateKey(ValueError):
    """A JSON object naming one key twice (unique_pairs)."""


def unique_pairs(pairs):
    """json's object_pairs_hook that refuses an object naming one key twice. RFC 8259 section 4: the
    names of an object SHOULD be unique, and where they are not, readers differ (Python's json and jq
    keep the last, others the first or refuse), so gpudoctor refuses such a file rather than reason on
    one reading of it (red team 2026-11-26d). The message names the keys (five at most), as DeepSpeed's
    dict_raise_error_on_duplicate_keys does (deepspeed/runtime/config_utils.py). dict() and a length
    compare are C: a 35 MB object of 2M keys reads in 2.26 s against 2.13 s, 2M small objects in
    0.93 s against 0.54 s (Python 3.11)."""
    d = dict(pairs)
    if len(d) != len(pairs):
        seen = set()
        keys = sorted({k for k, _ in pairs if k in seen or seen.add(k)})
        raise DuplicateKey("the key%s %s appear%s twice in one object" % (
            "s" if len(keys) > 1 else "", ", ".join(excerpt(k, 80) for k in keys[:5]), "" if len(keys) > 1 else "s"))
    return d


# The exit-code contract (README): schedulers and CI rely on it.
EXIT_OK = 0  # healthy: no error-level finding
EXIT_FINDINGS = 1  # findings: an error-level finding, or a node that could not be checked
EXIT_USAGE = 2  # usage or input error: one line on stderr, never a traceback
EXIT_INTERNAL = 3  # gpudoctor's own failure: one line on stderr, the traceback saved
EXIT_INTERRUPTED = 130  # Ctrl-C: the partial report, then this
EXIT_TERMINATED = 143  # SIGTERM (128 + 15, as a shell reports it): the partial report, then this


class Terminated(KeyboardInterrupt):
    """SIGTERM (what `timeout`, scancel, systemd and Kubernetes send) raised in the main thread as
    Ctrl-C raises KeyboardInterrupt, while check, facts or watch gather or probe runs: the same partial report."""

    signal_name, exit_code = "SIGTERM", EXIT_TERMINATED


# One interrupt, not two: coreutils' timeout sends its signal to the command and then again to the whole process group
# (https://github.com/coreutils/coreutils/blob/master/src/timeout.c, cleanup()), so `timeout 60 gpudoctor probe` gets
# two SIGTERMs (timeout -s INT: two SIGINTs) microseconds apart. The second one landed in the partial report's
# cleanup: probe printed only 'gpudoctor: interrupted', or crashed (exit 3, 'release unlocked lock' from a
# Condition the first one left), or, after the SIGTERM default came back, died without a report (userwalk24).
# A signal within DEBOUNCE_S of the last one is the same interrupt; a person's second Ctrl-C later still counts.
DEBOUNCE_S = 0.5
TWIN_S = 0.1  # how long after an interrupt the handlers stay, for its twin
_LAST_SIGNAL = [None]


def _repeated():
    import time

    now, last = time.monotonic(), _LAST_SIGNAL[0]
    if last is not None and now - last < DEBOUNCE_S:
        return True
    _LAST_SIGNAL[0] = now
    return False


class sigterm_as_interrupt(object):
    """Within it, SIGTERM raises Terminated and SIGINT KeyboardInterrupt in the main thread (elsewhere nothing
    changes), once per interrupt (DEBOUNCE_S); an interrupt that leaves it waits up to TWIN_S for its twin before
    the handlers it replaced come back."""

    def __enter__(self):
        import signal

        def raise_terminated(signum, frame):
            if not _repeated():
                raise Terminated()

        def raise_interrupt(signum, frame):
            if not _repeated():
                raise KeyboardInterrupt()

        _LAST_SIGNAL[0] = None  # (a run before this one in the same process: the tests)
        self.old = {}
        for sig, handler in ((signal.SIGTERM, raise_terminated), (signal.SIGINT, raise_interrupt)):
            try:
                self.old[sig] = signal.signal(sig, handler)
            except ValueError:  # not the main thread
                pass
        return self

    def __exit__(self, kind, value, tb):
        import signal

        if kind is not None and issubclass(kind, KeyboardInterrupt) and _LAST_SIGNAL[0] is not None:
            import time

            # its twin (timeout's second kill) is microseconds behind: let it land here, where it is ignored
            left = _LAST_SIGNAL[0] + TWIN_S - time.monotonic()
            if left > 0:
                time.sleep(left)
        for sig, old in self.old.items():
            try:
                signal.signal(sig, old if old is not None else signal.SIG_DFL)
            except (ValueError, TypeError):
                pass
        return False


def _crash_dirs():
    """Where a traceback is saved, first usable wins: $XDG_STATE_HOME/gpudoctor, else
    ~/.local/state/gpudoctor (the XDG Base Directory spec's state home), else the temp
    folder. A prolog runs as root with HOME=/root, or with no HOME at all."""
    state = os.environ.get("XDG_STATE_HOME")
    if state and os.path.isabs(state):
        yield os.path.join(state, "gpudoctor")
    home = os.path.expanduser("~")
    if home and home != "~" and os.path.isabs(home) and home != "/":
        yield os.path.join(home, ".local", "state", "gpudoctor")


def _no_secrets(text):
    """``text`` (a crash's report) with explain's redaction applied to each line (explain/redact.py: the value after a
    credential's name, a token's shape, a URL's password), or None where that fails. The report says to attach the
    file to a bug report, and it held the command line as typed (`plan --launch 'HF_TOKEN=hf_... torchrun ...'`,
    `--db-password X`) and exception messages that quote the input (docs/security.md 65.)."""
    try:
        from gpudoctor.explain.redact import redact

        return "\n".join(redact(line) for line in text.split("\n"))
    except Exception:
        return None


def save_crash(stage, text):
    """Write `text` (a traceback) to a new file only we can read; return its path, or None.

    Safe in shared and attacker-writable places: the folder is made 0700 and must be a
    real folder owned by us (not a symlink planted by another user); the file is created
    with O_EXCL | O_NOFOLLOW (never follows or overwrites); in the temp folder mkstemp
    gives the same guarantees."""
    import tempfile
    import time

    name = "crash-%s-%s-%d-" % (re.sub(r"[^a-z0-9_-]", "_", stage.lower())[:40],
                                time.strftime("%Y%m%dT%H%M%S"), os.getpid())
    clean = _no_secrets(text)
    if clean is None:  # (the redaction itself failed: the report's frames only, no message and no argument)
        clean = "gpudoctor %s: internal error in %s (the messages and arguments were not saved: they could not be " \
                "checked for secrets)\n%s" % (_version(), stage, "\n".join(
                    line for line in text.split("\n") if line.startswith("  File ")))
    data = clean.encode("utf-8", "replace")
    for folder in _crash_dirs():
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            st = os.lstat(folder)
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
                continue
            fd, path = tempfile.mkstemp(prefix=name, suffix=".txt", dir=folder)
        except OSError:
            continue
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            return path
        except OSError:
            continue
    try:
        fd, path = tempfile.mkstemp(prefix="gpudoctor-" + name, suffix=".txt")  # 0600, O_EXCL
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return path
    except OSError:
        return None


def _where(tb):
    """The innermost gpudoctor frame of a traceback: 'gpudoctor/gather.py:88 in save'."""
    import traceback

    frames = [f for f in traceback.extract_tb(tb) if "gpudoctor" in f.filename]
    if not frames:
        return None
    f = frames[-1]
    short = f.filename[f.filename.rfind("gpudoctor"):] if "gpudoctor" in f.filename else f.filename
    return "%s:%s in %s" % (short, f.lineno, f.name)


def internal_error(stage, exc, note=""):
    """gpudoctor's own failure: save the traceback, print ONE line on stderr naming the
    stage, the exception and the file, and return EXIT_INTERNAL (3). Never a traceback on
    the terminal (a prolog's output lands in slurmd's log), never exit 1 ("findings")."""
    import sys
    import traceback

    import shlex

    # (the command line as a shell reads it, so that '--db-password X' is one name and its value to redact)
    text = "gpudoctor %s: internal error in %s\nargv: %s\n\n%s" % (
        _version(), stage, " ".join(shlex.quote(str(a)) for a in sys.argv),
        "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
    path = save_crash(stage, text)
    where = _where(exc.__traceback__)
    said = excerpt(exc, 160)
    print("gpudoctor: internal error in %s%s: %s: %s%s; %s (a gpudoctor bug: please report it with that file)" % (
        stage, " (%s)" % where if where else "", type(exc).__name__, _no_secrets(said) or "(not shown)", note,
        "traceback saved to %s" % path if path else "the traceback could not be saved"), file=sys.stderr)
    return EXIT_INTERNAL


def crashed_checks(report, stage):
    """When checks crashed during a run: save what is known about each crash and print one
    line naming the checks and the file; the caller's exit code is then EXIT_INTERNAL."""
    import sys

    crashed = [r for r in getattr(report, "results", []) if getattr(r, "crashed", None)]
    if not crashed:
        return None
    lines = ["gpudoctor %s: checks crashed during %s" % (_version(), stage)]
    for r in crashed:
        for msg, hosts in sorted(r.crashed.items()):
            lines.append("%s on %s: %s" % (r.id, ",".join(hosts), msg))
            tb = (getattr(r, "tracebacks", None) or {}).get(msg)
            if tb:
                lines.append(tb)
    path = save_crash(stage, "\n".join(lines) + "\n")
    ids = [r.id for r in crashed]
    named = ", ".join(ids[:5]) + (", ..." if len(ids) > 5 else "")
    print("gpudoctor: internal error in %s: %d check%s crashed (%s), exit 3; %s (a gpudoctor bug: please report "
          "it)" % (stage, len(ids), "" if len(ids) == 1 else "s", named,
                   "details saved to %s" % path if path else "details could not be saved"), file=sys.stderr)
    return path


def _version():
    try:
        from gpudoctor import __version__

        return __version__
    except Exception:
        return "?"

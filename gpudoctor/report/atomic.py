"""Write an output file (`-o` of check, slurm-health, facts, probe, diff, watch) atomically
and safely: a reader (node-exporter's textfile collector, a CI step, a monitoring agent)
sees the old file or the new one, never half of one, and whoever can write the folder
(a textfile folder another user owns) cannot turn the write into something else.

The one rule, for every -o:
- the target is looked at with lstat, never followed: missing, a regular file or a
  symlink is replaced by renaming a new file over its name (rename(2) replaces the
  directory entry; a planted symlink to a FIFO or to /dev/sda is replaced, its target
  untouched);
- any other target (a FIFO, a device, a socket, a directory) is refused: one line, exit 2
  (a FIFO with no reader blocked the write forever, past --timeout; a device was written
  into as root). /dev/null alone is accepted, and gets nothing;
- nothing is written into /dev, /proc or /sys (`-o /dev/stdout` as root would replace the
  system's link with a plain file);
- the new file is created with O_CREAT|O_EXCL|O_NOFOLLOW|O_NONBLOCK, its mode set on the
  open descriptor (fchmod: a chmod by name would follow a link swapped in for it), and the
  whole write runs within WRITE_TIMEOUT seconds (a hung network filesystem).
"""

import os
import secrets
import stat

from gpudoctor.errors import InputError, _kind, _path_shown

WRITE_TIMEOUT = 30.0  # seconds for the whole write: a report is a few KB to a few MB
_SYSTEM = ("/dev", "/proc", "/sys")


def _is_dev_null(st):
    # Linux's /dev/null is character device 1:3 (Documentation/admin-guide/devices.txt)
    return stat.S_ISCHR(st.st_mode) and os.major(st.st_rdev) == 1 and os.minor(st.st_rdev) == 3


def _umask():
    """The process umask, read without changing it (Linux >= 4.7 shows it in /proc/self/status;
    os.umask() can only be read by setting it, which races with other threads)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


def check_folder(path):
    """An output folder (`facts -o DIR`) that is a symlink another user owns is followed only
    to a folder of theirs (the protected_symlinks rule of gpudoctor/errors.py open_input): a
    link planted in a shared folder cannot send root's files into /etc."""
    try:
        st = os.lstat(path)
    except (OSError, ValueError, TypeError):
        return
    if stat.S_ISLNK(st.st_mode) and st.st_uid not in (os.geteuid(), 0):
        try:
            target_uid = os.stat(path).st_uid
        except OSError:
            target_uid = None
        if target_uid != st.st_uid:
            raise InputError("cannot write to %s: a symlink that uid %d owns to a folder it does not own: not "
                             "followed" % (_path_shown(path), st.st_uid))


def write_atomic(path, text, timeout=WRITE_TIMEOUT):
    """Write ``text`` to ``path`` by the rule above; every failure is an InputError naming
    the file (exit 2)."""
    shown = _path_shown(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise InputError("cannot write %s: %s" % (shown, exc.strerror or exc))
    except (ValueError, TypeError) as exc:  # a NUL in the path
        raise InputError("cannot write %s: %s" % (shown, exc))
    if st is not None and _is_dev_null(st):
        return
    if st is not None and not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
        raise InputError("cannot write %s: it is %s, not a regular file (an output file is replaced whole, "
                         "never written into)" % (shown, _kind(st.st_mode)))
    folder = os.path.dirname(os.path.abspath(path))
    real = os.path.realpath(folder)
    if any(real == s or real.startswith(s + "/") for s in _SYSTEM):
        raise InputError("cannot write %s: %s is a system folder (devices, /proc, /sys); write to a file elsewhere "
                         "or leave out -o for standard output" % (shown, real))
    data = text.encode("utf-8", "surrogateescape")
    from gpudoctor import deadline

    done, _ = deadline.call(lambda: _replace(path, folder, data, shown), timeout)
    if not done:
        raise InputError("cannot write %s: the filesystem did not finish the write in %g s" % (shown, timeout))


def _replace(path, folder, data, shown):
    flags = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
             | getattr(os, "O_CLOEXEC", 0))
    base = os.path.basename(path)
    # the temp name does not end in .prom: the textfile collector reads only *.prom
    for _ in range(100):
        tmp = os.path.join(folder, ".%s.%s.tmp" % (base[:80], secrets.token_hex(6)))
        try:
            fd = os.open(tmp, flags, 0o600)
            break
        except FileExistsError:
            continue
        except OSError as exc:
            raise InputError("cannot write %s: %s" % (shown, exc.strerror or exc))
    else:
        raise InputError("cannot write %s: no free temporary name in %s" % (shown, folder))
    try:
        try:
            os.fchmod(fd, 0o666 & ~_umask())  # node-exporter usually runs as another user
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise InputError("cannot write %s: %s" % (shown, exc.strerror or exc))

"""Write a report file atomically: a reader (node-exporter's textfile collector, a CI
step, a monitoring agent) sees the old file or the new one, never half of one."""

import os
import tempfile

from gpudoctor.errors import InputError


def write_atomic(path, text):
    """A temp file in the same folder (same filesystem, so rename is atomic), fsynced,
    then renamed over `path`. Its name does not end in .prom, so the textfile collector,
    which reads only *.prom, never picks up the temp file.

    A target that exists and is not a regular file (/dev/null, /dev/stdout, a FIFO) is
    written in place: renaming over it would replace the device with a plain file."""
    if os.path.exists(path) and not os.path.isfile(path):
        try:
            with open(path, "w") as f:
                f.write(text)
        except OSError as exc:
            raise InputError("cannot write %s: %s" % (path, exc.strerror or exc))
        return
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    except OSError as exc:
        raise InputError("cannot write %s: %s" % (path, exc.strerror or exc))
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it 0600; node-exporter usually runs as another user
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise InputError("cannot write %s: %s" % (path, exc.strerror or exc))

"""MUNGE's key, compared across nodes without revealing it.

Every host of a MUNGE realm must hold the same key (https://github.com/dun/munge/wiki/Installation-Guide: "the
same key on every host"); a node with another one has every credential refused ("Munge decode failed: Invalid
credential" in slurmctld's log; slurm28 walked it on the 4-node bed), and Slurm marks it down. munged reads
/etc/munge/munge.key by default (munged(8) --key-file, https://github.com/dun/munge/wiki/Man-8-munged).

The key never leaves the node: the section carries its keyed hash (HMAC-SHA256 under the run's key, the same
env_hash the environment's secret values go through, system.py), which the gatherer compares; the run's key is
made per run on the gathering machine and kept nowhere (commands/common.py), so no report or history holds
anything a key can be recovered or even tested from once the run is over. ``key_id`` is a hash of the run's key
alone (not of the munge key): hashes made under different run keys (facts saved in separate runs) are never
compared as if they differed.
"""

import errno
import os

from .base import Unsupported, section
from .system import env_hash

KEY_PATH = "/etc/munge/munge.key"
# mungekey(8) writes 1024 bytes by default (https://github.com/dun/munge/wiki/Man-8-mungekey); a key file is
# never near this, and a FIFO or a huge file put there is not read past it
MAX_KEY_BYTES = 1 << 20


def key_id(key):
    """Which run key made a node's hashes (a hash of the run key alone): equal ids, comparable hashes. Marked as
    a keyed hash ('hmac:'), so that diff and history leave it out between runs of different keys, as the hash."""
    return env_hash("gpudoctor munge key id", key)[:13]


@section("munge")
def munge(ctx):
    path = ctx.path(KEY_PATH)
    try:
        st = os.stat(path)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            raise Unsupported("no %s (MUNGE is not set up on this node)" % KEY_PATH)
        # /etc/munge is munge's, mode 0700 (Debian's package): another user cannot even see whether the key is there
        raise RuntimeError("cannot read %s as uid %d: %s: gather as root to compare it across nodes" % (
            KEY_PATH, ctx.uid, exc.strerror or exc))
    import stat as _stat

    if not _stat.S_ISREG(st.st_mode):
        raise RuntimeError("%s is not a regular file" % KEY_PATH)
    out = {"key_path": KEY_PATH, "mode": "%04o" % (st.st_mode & 0o7777), "owner_uid": st.st_uid,
           "size_bytes": st.st_size}
    key = ctx.options.get("env_key")
    try:
        # O_NONBLOCK: a FIFO swapped in after the stat never blocks the collector (and fstat below refuses it)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        # the key is the munge user's, readable by it alone (0400 or 0600: the Installation Guide above): a user
        # other than root or munge cannot read it
        raise RuntimeError("cannot read %s as uid %d: %s (it is uid %d's, mode %s): gather as root to compare it "
                           "across nodes" % (KEY_PATH, ctx.uid, exc.strerror or exc, st.st_uid, out["mode"]))
    try:
        if not _stat.S_ISREG(os.fstat(fd).st_mode):
            raise RuntimeError("%s is not a regular file" % KEY_PATH)
        data = b""
        while len(data) <= MAX_KEY_BYTES:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(fd)
    if len(data) > MAX_KEY_BYTES:
        raise RuntimeError("%s is larger than %d bytes: not a MUNGE key" % (KEY_PATH, MAX_KEY_BYTES))
    if not data:
        raise RuntimeError("%s is empty" % KEY_PATH)
    # env_hash takes text: the key's bytes as latin-1 are one character each, so two keys hash alike only if equal
    out["key_hmac"] = env_hash(data.decode("latin-1"), key)
    out["key_id"] = key_id(key)
    del data
    return out

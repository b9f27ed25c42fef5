"""Mutation round 22 (docs/mutation.md): security 87.'s guard, in process.

87.'s own tests plant /dev/shm/.statvfs inside `unshare -rm` and run the CLI in a subprocess, which a mutation tool
cannot count, and the tmp section (a world-writable /tmp) relies on Context.read's guard alone. These call the real
sections on the live file system with a planted file in a real folder (pytest's tmp_path, under /tmp), and on a
recorded tree, where the same file must be believed."""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from gpudoctor.collector.base import Context, Unsupported  # noqa: E402
from gpudoctor.collector.system import shm, tmp  # noqa: E402


def test_live_read_never_returns_a_planted_statvfs_file_but_reads_its_neighbours(tmp_path):
    (tmp_path / ".statvfs").write_text("1 0\n")
    (tmp_path / "statvfs").write_text("1 0\n")
    (tmp_path / "x.statvfs").write_text("1 0\n")
    for ctx in (Context(python=None), Context(root="", python=None)):
        assert ctx.read(str(tmp_path / ".statvfs")) is None
        assert ctx.read(str(tmp_path / ".statvfs"), default="gone") == "gone"
        assert ctx.recorded(str(tmp_path / ".statvfs")) is None
        # only that exact name is refused: a file named like it is read as any other
        assert ctx.read(str(tmp_path / "statvfs")) == "1 0\n"
        assert ctx.read(str(tmp_path / "x.statvfs")) == "1 0\n"


def test_a_recorded_tree_reads_its_statvfs_file_by_read_and_recorded(tmp_path):
    (tmp_path / "tmp").mkdir()
    (tmp_path / "tmp" / ".statvfs").write_text("1000 500 7 rw\n")
    ctx = Context(root=str(tmp_path), env={}, python=None)
    assert ctx.read("/tmp/.statvfs") == "1000 500 7 rw\n"
    assert ctx.recorded("/tmp/.statvfs") == "1000 500 7 rw\n"
    assert ctx.recorded("/tmp/nosuch") is None


def test_recorded_reads_nothing_on_the_live_file_system_whatever_the_name(tmp_path):
    # its contract: a file only a recorded tree carries; live, it answers None even where read() would read
    (tmp_path / "numbers").write_text("1 0\n")
    for root in ("/", ""):
        ctx = Context(root=root, python=None)
        assert ctx.read(str(tmp_path / "numbers")) == "1 0\n"
        assert ctx.recorded(str(tmp_path / "numbers")) is None


def test_live_tmp_section_ignores_a_planted_statvfs_in_a_world_writable_tmpdir(tmp_path):
    # what any user can put in /tmp: "read-only, no room, denied"; the live folder is writable and has room
    (tmp_path / ".statvfs").write_text("1 0 0 ro denied\n")
    got = tmp(Context(env={"TMPDIR": str(tmp_path)}, python=None))
    st = os.statvfs(str(tmp_path))
    assert got["path"] == str(tmp_path) and got["from_tmpdir"] is True
    assert got["total_bytes"] == st.f_blocks * st.f_frsize > 1
    assert got["read_only"] is False and got["writable"] is True, got
    assert got["mountpoint"] and got["fstype"] and got["mount_options"], got  # the live branch names its mount


@pytest.mark.parametrize("line, want", [
    ("1000 500\n", dict(total_bytes=1000, free_bytes=500, free_inodes=None, read_only=False, writable=True)),
    ("1000 500 77\n", dict(total_bytes=1000, free_bytes=500, free_inodes=77, read_only=False, writable=True)),
    ("1000 500 77 rw\n", dict(total_bytes=1000, free_bytes=500, free_inodes=77, read_only=False, writable=True)),
    ("1000 500 77 rw denied\n", dict(total_bytes=1000, free_bytes=500, free_inodes=77, read_only=False,
                                     writable=False)),
    ("1000 500 77 ro\n", dict(total_bytes=1000, free_bytes=500, free_inodes=77, read_only=True, writable=False)),
])
def test_a_recorded_tmp_reads_each_field_of_its_statvfs_line(tmp_path, line, want):
    (tmp_path / "scratch").mkdir()
    (tmp_path / "scratch" / ".statvfs").write_text(line)
    got = tmp(Context(root=str(tmp_path), env={"TMPDIR": "/scratch/"}, python=None))
    assert got == dict(want, path="/scratch/", from_tmpdir=True, exists=True, mountpoint=None, fstype=None,
                       mount_options=None), got


def test_tmpdir_missing_or_too_long_or_relative(tmp_path):
    ctx = lambda v: Context(root=str(tmp_path), env={"TMPDIR": v}, python=None)  # noqa: E731
    assert tmp(ctx("/nosuch")) == {"path": "/nosuch", "from_tmpdir": True, "exists": False, "writable": False}
    at_bound = "/" + "a" * 4095  # a path up to PATH_MAX (4096) is the job's folder; past it /tmp
    assert tmp(ctx(at_bound))["path"] == at_bound
    assert tmp(ctx(at_bound + "a"))["path"] == "/tmp"
    assert tmp(ctx("relative"))["path"] == "/tmp"


def test_live_shm_section_reads_statvfs_and_a_recorded_tree_its_numbers(tmp_path):
    if not os.path.isdir("/dev/shm"):
        return
    got = shm(Context(python=None))
    st = os.statvfs("/dev/shm")
    assert got["total_bytes"] == st.f_blocks * st.f_frsize
    assert isinstance(got["free_bytes"], int) and 0 <= got["free_bytes"] <= got["total_bytes"], got
    on_shm = [l.split()[2] for l in open("/proc/self/mounts") if l.split()[1:2] == ["/dev/shm"]]
    assert (got["mounted"], got["fstype"]) == (bool(on_shm), on_shm[-1] if on_shm else None), got
    (tmp_path / "dev" / "shm").mkdir(parents=True)
    (tmp_path / "dev" / "shm" / ".statvfs").write_text("1 0\n")
    got = shm(Context(root=str(tmp_path), env={}, python=None))
    assert (got["total_bytes"], got["free_bytes"], got["mounted"]) == (1, 0, False), got
    # the mount in use is the last one on /dev/shm in /proc/self/mounts (one mounted over another)
    (tmp_path / "proc" / "self").mkdir(parents=True)
    (tmp_path / "proc" / "self" / "mounts").write_text(
        "none /dev/shm ramfs ro 0 0\ntmpfs /dev/shm tmpfs rw,nosuid,size=65536k 0 0\n"
        "shm /dev/shm tmpfs rw,nosuid,nodev,size=1048576k 0 0\n"
        "tmpfs /dev/shm/sub tmpfs rw 0 0\n/dev/sda1 / ext4 rw 0 0\n")
    got = shm(Context(root=str(tmp_path), env={}, python=None))
    assert got == {"total_bytes": 1, "free_bytes": 0, "fstype": "tmpfs", "mount_options": "rw,nosuid,nodev,size=1048576k",
                   "mounted": True}, got


def test_a_tree_without_dev_shm_says_so(tmp_path):
    with pytest.raises(Unsupported) as e:
        shm(Context(root=str(tmp_path), env={}, python=None))
    assert str(e.value) == "/dev/shm does not exist"

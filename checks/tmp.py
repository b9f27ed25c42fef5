"""The job's temporary folder ($TMPDIR, else /tmp) must take files: Open MPI's session directory, torch inductor's
and Triton's compile caches, torch.distributed's file:// store, pip and compilers all write there, and a node whose
root file system the kernel remounted read-only after disk errors (ext4's errors=remount-ro) still runs slurmd and
takes jobs. LBNL NHC's configurations check the same (check_fs_mount_rw -f /tmp, check_fs_free /tmp:
https://github.com/mej/nhc). Walked on a 4-node Slurm (slurm27): a node whose /tmp was read-only passed every check
and its prolog, and stayed in service."""

from gpudoctor.fixline import Literal, bounded, cmd
from gpudoctor.registry import Finding, Pass, Skip, check
from gpudoctor.util import human_bytes

MIN_FREE_BYTES = 256 << 20  # a compile cache or an MPI session directory: a job needs at least this much
MIN_FREE_INODES = 1000
FIX_RO = ("the file system went read-only: the kernel log says why (dmesg | grep -iE 'remount|I/O error|EXT4-fs "
          "error'); take the node out (scontrol update nodename={n} state=drain reason='read-only /tmp'), repair "
          "the disk (fsck) and reboot it")


def _num(v):
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


@check("tmp.writable", title="the temporary folder ($TMPDIR, else /tmp) is writable and has room", needs=("tmp",))
def tmp_writable(facts, config):
    t = facts["tmp"]
    path = t.get("path") if isinstance(t.get("path"), str) else "/tmp"
    where = "$TMPDIR (%s)" % path if t.get("from_tmpdir") else path
    if t.get("exists") is False:
        yield Finding.error("%s does not exist: programs that make a temporary file there fail" % where,
                            observed="no folder %s" % path, expected="a writable folder",
                            fix=cmd("mkdir -p {p} && chmod 1777 {p}", p=path) if not t.get("from_tmpdir") else
                            cmd("set TMPDIR to a folder that exists on the node (or create {p})", p=path))
        return
    on = " (%s on %s)" % (t.get("fstype"), t.get("mountpoint")) if isinstance(t.get("mountpoint"), str) else ""
    if t.get("read_only") is True:
        yield Finding.error("%s is on a read-only file system%s: nothing can write a temporary file there" % (where, on),
                            observed="read-only%s" % (", mount options %s" % bounded(t.get("mount_options"), 120)
                                                     if t.get("mount_options") else ""),
                            expected="mounted read-write", fix=cmd(FIX_RO, n=facts.get("node") if isinstance(
                                facts.get("node"), str) and facts.get("node") else Literal("<node>")))
        return
    if t.get("writable") is False:
        yield Finding.error("%s is not writable by this user%s" % (where, on), observed="not writable",
                            expected="writable (/tmp: mode 1777)", fix=cmd("ls -ld {p}; chmod 1777 {p}", p=path)
                            if not t.get("from_tmpdir") else cmd("ls -ld {p}; set TMPDIR to a folder of yours", p=path))
        return
    free, inodes = _num(t.get("free_bytes")), _num(t.get("free_inodes"))
    if t.get("writable") is not True or free is None:
        yield Skip("tmp: writable/free_bytes in the facts are not a verdict and a byte count")  # untrusted node output
        return
    if free < MIN_FREE_BYTES or (inodes is not None and inodes < MIN_FREE_INODES):
        short = ("%s free" % human_bytes(free)) if free < MIN_FREE_BYTES else ("%d inodes free" % inodes)
        yield Finding.error("%s is full%s: %s" % (where, on, short), observed=short,
                            expected=">= %s and %d inodes free" % (human_bytes(MIN_FREE_BYTES), MIN_FREE_INODES),
                            fix=cmd("du -xsh {p}/* 2>/dev/null | sort -h | tail  # remove what finished jobs left",
                                    p=path))
        return
    yield Pass("%s writable, %s free%s" % (where, human_bytes(free), on))

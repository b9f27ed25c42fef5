#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/errno.json: every errno name, number and text as
Python and glibc print them (`OSError: [Errno 28] No space left on device`, `... (errno 24)`,
`: Too many open files`), with the knowledge family that says where it arises in a training job
(FAMILIES below; names not listed are unassigned and listed in docs/explain.md).

Usage:
    python tools/gen_errno.py [-o OUT]                               (this machine's Python and glibc)
    python tools/gen_errno.py --slice tools/data/errno_slice.tsv -o OUT   (the test)

Source: Python's errno.errorcode and os.strerror (glibc's strerror on Linux,
https://docs.python.org/3/library/errno.html), plus KERNEL_ONLY: codes of Linux's
include/linux/errno.h that are not in the C library's table but still reach user space, printed
as glibc's 'Unknown error N'. A slice is `NAME<TAB>NUMBER<TAB>TEXT` lines.
"""

import errno
import os
import platform
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_errno.py"

# Linux-internal codes (include/linux/errno.h: "These should never be seen by user programs") that
# some filesystems still return: ENOTSUPP from flock()/fcntl() on NFS and Lustre (HDF5 prints it as
# "errno = 524, error message = 'Unknown error 524'"). glibc's strerror has no text for them.
# https://github.com/torvalds/linux/blob/master/include/linux/errno.h
KERNEL_ONLY = [("ENOTSUPP", 524, "Unknown error 524")]

# errno name -> knowledge entry: where the code comes from in a training job (hand-written)
FAMILIES = {
    "ENOSPC": "errno.enospc",
    "EMFILE": "errno.emfile", "ENFILE": "errno.emfile",
    "ENOMEM": "errno.enomem",
    "EADDRINUSE": "rendezvous.address_in_use",
    "ECONNREFUSED": "rendezvous.connect", "EHOSTUNREACH": "rendezvous.connect", "ENETUNREACH": "rendezvous.connect",
    "EADDRNOTAVAIL": "rendezvous.connect",
    "ECONNRESET": "errno.peer_gone", "EPIPE": "errno.peer_gone",
    "ETIMEDOUT": "errno.timeout",
    "EACCES": "errno.permission", "EPERM": "errno.permission", "EROFS": "errno.permission",
    "EDQUOT": "errno.enospc",
    "EBUSY": "errno.busy",
    "ENODEV": "errno.no_device", "ENXIO": "errno.no_device",
    "EIO": "errno.io",
    "ESTALE": "errno.io",  # NFS: the file changed on the server under the open handle
    "ECONNABORTED": "errno.peer_gone",
    "ENETDOWN": "rendezvous.connect", "EHOSTDOWN": "rendezvous.connect",
    # flock(2): ENOLCK; NFS/Lustre without flock support: ENOTSUPP (kernel-internal 524)
    "ENOLCK": "errno.file_lock", "ENOTSUPP": "errno.file_lock",
    "ENOTCONN": "errno.io",  # a FUSE mount whose daemon died (s3fs, gcsfuse, sshfs): 'Transport endpoint is not connected'
    "EXDEV": "errno.exdev",  # rename(2) across filesystems
}
# errno name -> (what it means in a training job, [fixes]) where the code alone says more than its
# family's first cause (hand-written; where the code comes from: errno(3), connect(2), bind(2),
# open(2), and the callers that print it: torch's TCPStore/c10d sockets, NCCL's bootstrap, Gloo)
MEANS = {
    "ECONNREFUSED": (
        "nothing listened at that address and port when this process connected. In a rendezvous (TCPStore, "
        "c10d, NCCL's bootstrap) the master (rank 0) had not started yet or had already exited, MASTER_PORT "
        "differs between the nodes, or MASTER_ADDR names another machine; from a DataLoader worker "
        "(multiprocessing resource_sharer) the process that shared a tensor had already exited",
        ["rendezvous: the same MASTER_ADDR:MASTER_PORT on every node, reachable from a worker (nc -vz $MASTER_ADDR "
         "$MASTER_PORT); read rank 0's log for an earlier failure; start every node's launcher together (or raise "
         "torchrun's --rdzv-conf join_timeout). DataLoader (resource_sharer in the traceback): "
         "torch.multiprocessing.set_sharing_strategy('file_system')"]),
    "EHOSTUNREACH": (
        "this node has no route to the peer's address, or a firewall on the way rejects it (ICMP host "
        "prohibited): the address is on a network this node does not reach (the wrong interface picked by "
        "NCCL/Gloo, a MASTER_ADDR from another network) or firewalld/iptables on the peer",
        ["ip route get <peer address> and ping it from this node; on the peer: sudo firewall-cmd --list-all / "
         "sudo iptables -L -n; pin the cluster network: NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME=<its interface>"]),
    "ENETUNREACH": (
        "no local network leads to that address at all: an IPv6 address on nodes without IPv6 routing, or a "
        "MASTER_ADDR that resolves to an address outside every local network",
        ["ip route get <the address>; use node 0's IPv4 address on the cluster network for MASTER_ADDR; for NCCL "
         "export NCCL_SOCKET_FAMILY=AF_INET"]),
    "EADDRNOTAVAIL": (
        "bind() to an address this node does not own (a server started on a node whose MASTER_ADDR or interface "
        "address belongs to another node), or connect() found no free local port",
        ["start the rendezvous/store server on the host MASTER_ADDR names (node_rank 0 there), or leave the bind "
         "address unset; ip -br addr shows this node's addresses; many short connections: sysctl "
         "net.ipv4.ip_local_port_range"]),
    "EDQUOT": (
        "a disk quota (home, project or scratch) is used up: checkpoints, caches or logs of the job",
        ["quota -s (Lustre: lfs quota -h -u $USER <mount>); write checkpoints and caches to a filesystem with "
         "room (HF_HOME, TMPDIR, TRITON_CACHE_DIR, --output_dir)"]),
    "ENFILE": (
        "the whole system ran out of file handles (fs.file-max), not this process's ulimit -n",
        ["sysctl fs.file-nr fs.file-max; raise it (sysctl -w fs.file-max=...) or find the process holding "
         "most (lsof | awk '{print $2}' | sort | uniq -c | sort -n | tail)"]),
    "ESTALE": (
        "an NFS file handle went stale: the file or directory was replaced or deleted on the server (by another "
        "node, a checkpoint rotation, a cache clean-up) while this process had it open",
        ["write checkpoints to a temporary name and rename them; do not let nodes delete or rewrite files others "
         "read; reopen or remount the path (ls the directory, umount/mount when it stays stale)"]),
    "ENETDOWN": (
        "the local network interface used for the connection is down",
        ["ip -br link on this node; bring the interface up or pin NCCL/Gloo to one that is up "
         "(NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME)"]),
    "EHOSTDOWN": (
        "the peer host did not answer at the link layer (no ARP/neighbour reply): it is down, unplugged, or on "
        "another network segment than its address says",
        ["ping the peer and ip neigh show <peer address> from this node; check the node is up (sinfo / scontrol "
         "show node) and on the cluster network"]),
    "ETIMEDOUT": (
        "the kernel gave up on a TCP connection (connect(2): no answer to its SYN retries, about 2 minutes by "
        "net.ipv4.tcp_syn_retries; or no ACK on an established one): packets to the peer are dropped on the way (a "
        "firewall that DROPs rather than rejects, a security group, the wrong interface or subnet) or the peer host is "
        "down. A refused port answers at once (ECONNREFUSED); silence is the network",
        ["from this node: nc -vz -w 5 <peer address> <port> and ip route get <peer address>; open the port range "
         "between the nodes (firewall-cmd / security groups: MASTER_PORT and the ports NCCL and Gloo pick, or pin "
         "them); pin the interface the nodes reach each other on: NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME"]),
    "ENOTCONN": (
        "the socket or mount is not connected: in a training job usually a FUSE filesystem (s3fs, gcsfuse, "
        "blobfuse, sshfs, JuiceFS) whose daemon died or was killed (OOM) while the job read data or wrote "
        "checkpoints through it; a socket used after its peer closed it is the other case",
        ["mount | grep fuse and ls the mount point on that node; remount it (fusermount -u <dir>; then the mount "
         "command) and give its daemon memory; copy the dataset to node-local disk before training, or write "
         "checkpoints to a real filesystem"]),
    "ENOTSUPP": (
        "a kernel-internal 'not supported' (Linux include/linux/errno.h ENOTSUPP, 524) that NFS and Lustre return "
        "for flock()/fcntl() locks they do not support; HDF5 (h5py, netCDF4) locks every file it opens",
        ["export HDF5_USE_FILE_LOCKING=FALSE for every rank (or h5py.File(path, locking=False)); for Lustre the "
         "admin can mount it with -o flock"]),
    "EROFS": (
        "the path is on a read-only filesystem: a container's read-only mount or image (Singularity/Apptainer, "
        "a read-only bind), or a filesystem remounted read-only after an error",
        ["write outputs and caches to a writable bind mount (HF_HOME, TMPDIR, --output_dir); "
         "dmesg | grep -i 'remount.*read-only' for a filesystem that failed"]),
}
# texts too common to be matched without the errno around them
_MIN_BARE = 22


def build(rows, version):
    sites = []
    for name, num, text in rows:
        alts = [r"\[Errno %d\] %s" % (num, re.escape(text)), r"%s \(errno:? ?%d\)" % (re.escape(text), num),
                r"%s \(%d\)" % (re.escape(text), num), r"\berrno[ =:]{1,3}%d\b[^\n]{0,40}?%s" % (num, re.escape(text))]
        if len(text) >= _MIN_BARE:
            alts.append(re.escape(text))
        site = {"id": "errno.%s" % name.lower(), "name": name, "code": num, "text": text,
                "re": "(?:%s)" % "|".join(alts), "family": FAMILIES.get(name),
                "rule": "FAMILIES[%s]" % name if name in FAMILIES else None}
        if name in MEANS and name in FAMILIES:
            site["means"], site["fix"] = MEANS[name][0], list(MEANS[name][1])
        sites.append(site)
    return {"header": knowgen.header("Python errno.errorcode and os.strerror (glibc strerror) "
                                     "(https://docs.python.org/3/library/errno.html)", version, GENERATOR),
            "sites": sites}


def rows_here():
    out = []
    for num in sorted(errno.errorcode):
        out.append((errno.errorcode[num], num, os.strerror(num)))
    known = {num for _n, num, _t in out}
    out += [r for r in KERNEL_ONLY if r[1] not in known]
    return out, "Python %s, %s %s; Linux include/linux/errno.h: %s" % (
        platform.python_version(), *platform.libc_ver(), ", ".join("%s %d" % r[:2] for r in KERNEL_ONLY))


def main(argv):
    a = knowgen.arguments(__doc__, argv, source=None)
    rows, version = knowgen.read_rows(a.slice) if a.slice else rows_here()
    return knowgen.emit("errno", build(rows, version), a.out, "codes")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

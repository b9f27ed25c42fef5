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
    # write(2) EFBIG: past the process's RLIMIT_FSIZE (setrlimit(2): SIGXFSZ, EFBIG where the signal is ignored, as
    # CPython ignores it) or the filesystem's largest file; errno.efbig tells the limit's places apart (limits14)
    "EFBIG": "errno.efbig",
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
# The errno names a training job meets that no family above is about: errno.syscall (a generic family: the code's
# own meaning below says where it comes from). Their texts are common words outside an errno ('No such file or
# directory' from ls, 'Inappropriate ioctl for device' from a shell without a terminal), so their matcher needs the
# number printed with the text (CONTEXT_ONLY: '[Errno 2] ...', '... (errno 2)', 'errno = 2 ...'). ENOENT and
# EINVAL stay unassigned: they say only that some path or argument was wrong, and as a root they would outrank
# the traceback's own answer ('[Errno 2] No such file or directory: 'ssh'' from DeepSpeed's launcher is the
# launcher's).
SYSCALL = ("EFAULT", "E2BIG", "ENAMETOOLONG", "ELOOP", "EAFNOSUPPORT", "EINTR", "EBADF", "EEXIST",
           "ENOTDIR", "EISDIR", "ENOTEMPTY", "ETXTBSY", "EFBIG", "ENOSYS", "ENOTSUP", "ENOBUFS", "EMSGSIZE", "EPROTO",
           "ENOEXEC", "ESRCH", "ECHILD", "ERANGE", "EOVERFLOW", "EREMOTEIO", "EUCLEAN", "ENETRESET", "ESHUTDOWN",
           "EINPROGRESS", "EALREADY", "ECANCELED", "ENODATA", "EPROTONOSUPPORT", "ENOPROTOOPT", "ENOTSOCK", "EBADMSG",
           "ENOTTY", "EMLINK", "EAGAIN", "EDEADLOCK", "ELIBBAD", "ENOLINK", "ENONET", "ETIME", "ECOMM")
CONTEXT_ONLY = set(SYSCALL)
for _name in SYSCALL:
    FAMILIES.setdefault(_name, "errno.syscall")

# Each code's own meaning, where it arises in a training job and what is changed (errno(3),
# https://man7.org/linux/man-pages/man3/errno.3.html, and the man page of the call that returns it, named per
# row). Families whose causes are chosen by the line's own evidence (by_evidence: errno.enospc, .enomem,
# .permission, .busy, .file_lock: the path or call in the line names /dev/shm or a disk, a device file or a
# build directory) keep those causes: a text per code would outrank what the line says. So do EMFILE
# (errno.emfile: the DataLoader's sharing strategy or the limit, from the log's lines) and EADDRINUSE
# (rendezvous.address_in_use: the port, computed from the facts), and EXDEV (errno.exdev is that code's own).
MEANS.update({
    "ECONNRESET": (
        "the peer reset the TCP connection (recv(2)/send(2) ECONNRESET): the process at the other end died or was "
        "killed (OOM killer, a crash, a node failure), so this is an echo of a failure on another rank or node",
        ["find the first failing rank in the other nodes' logs (dmesg -T | grep -i 'killed process' on its node for "
         "the OOM killer); fix that one, this line follows from it"]),
    "EPIPE": (
        "this process wrote to a pipe or socket whose other end is closed (write(2) EPIPE): the reader (another "
        "rank, a DataLoader worker, the launcher, `| head`/`tee`) exited first; `nohup python train.py | tee log` "
        "protects only python: the ssh session's hangup ends tee, and the next print() fails",
        ["read why the other end exited (the first error of the other ranks or workers); when the output is piped, "
         "let the reader run to the end",
         "for a pipeline started in an ssh session (nohup ... | tee): write to a file instead (nohup python train.py "
         "> train.log 2>&1 < /dev/null &, then tail -f train.log) or run the whole pipeline in tmux / screen or "
         "setsid sh -c '... | tee train.log'"]),
    "ENODEV": (
        "the device the call needs does not exist on this node or in this container (open(2)/mmap(2) ENODEV): a GPU "
        "or InfiniBand device not passed in, its kernel module not loaded",
        ["ls /dev/nvidia* /dev/infiniband on the node and in the container; docker run --gpus all "
         "--device=/dev/infiniband; lsmod | grep -E 'nvidia|ib_uverbs' (modprobe the missing module)"]),
    "ENXIO": (
        "no such device or address (open(2) ENXIO): /dev/tty opened by a process with no controlling terminal (a "
        "password or username prompt - git, getpass, ssh - in a job started by sbatch, setsid, cron or a daemon), a "
        "device node whose device is gone or not present (a GPU fallen off the bus, a removed RDMA port), or a UNIX "
        "socket/FIFO with nobody at the other end",
        ["for /dev/tty (a prompt): give the credential in advance (a token in an environment variable, a git "
         "credential helper, an ssh key; GIT_TERMINAL_PROMPT=0 makes git fail at once) or run it in a terminal "
         "(srun --pty, tmux)",
         "ls -l the device path in the message and sudo dmesg -T | tail on the node; for a socket path, check the "
         "daemon that should listen there (e.g. nvidia-persistenced, munge) is running"]),
    "EIO": (
        "the kernel could not complete a read or write (EIO): a failing local disk, a network filesystem (NFS, "
        "Lustre, GPFS) that lost its server, a device error, or a write to a terminal that hung up (print() of a "
        "process that outlived its ssh session)",
        ["sudo dmesg -T | tail -50 on that node (disk, nfs or lustre errors); df -h <the path>; move the data or "
         "checkpoints to a healthy filesystem and report the node",
         "when the failing call is print() / a flush of stdout: start the job with its output in a file "
         "(nohup ... > train.log 2>&1 < /dev/null &, setsid, tmux or sbatch), not on the ssh session's terminal"]),
    "ECONNABORTED": (
        "the connection was aborted on this side (accept(2)/recv(2) ECONNABORTED): the peer went away during the "
        "handshake, or the kernel dropped it: an echo of a failure elsewhere",
        ["find the first failing rank or node in the other logs; the rendezvous host's own log for the reason"]),
    "EFAULT": (
        "a system call was given a bad address (EFAULT): a buffer pointer outside the process's memory, often a GPU "
        "pointer passed to a call that expects host memory (a send of CUDA memory without GPUDirect support)",
        ["for MPI/UCX: use a CUDA-aware build or copy to host memory first; otherwise a bug in the native code that "
         "makes the call"]),
    "E2BIG": (
        "execve(2) was given more argument and environment bytes than the kernel allows (E2BIG): a huge exported "
        "variable (a long PATH/LD_LIBRARY_PATH grown by module loads, a very long host list or command line)",
        ["shorten the environment (env | wc -c; unset or trim the long variables) or pass long lists in a file "
         "(a hostfile) instead of the command line"]),
    "ENAMETOOLONG": (
        "a path or one of its components is longer than the filesystem allows (ENAMETOOLONG: 255 bytes a name, "
        "4096 a path): a checkpoint or cache name built from many hyperparameters, or a deep UNIX-socket path "
        "(108 bytes)",
        ["shorten the generated file or run names (hash the long part); for sockets use a short TMPDIR"]),
    "ELOOP": (
        "too many symbolic links while resolving a path (ELOOP): a symlink loop in a dataset or cache directory "
        "(a link pointing at itself or its parent)",
        ["ls -l along the path in the message (readlink -f); remove or fix the looping link"]),
    "EAFNOSUPPORT": (
        "a socket of an address family the kernel does not support here (socket(2) EAFNOSUPPORT): usually IPv6 on "
        "a node or container with IPv6 disabled, when a hostname resolves to an IPv6 address",
        ["use an IPv4 address for MASTER_ADDR; NCCL: NCCL_SOCKET_FAMILY=AF_INET; Gloo/c10d: pass the IPv4 "
         "address; or enable IPv6 in the container (sysctl net.ipv6.conf.all.disable_ipv6=0)"]),
    "EINTR": (
        "a blocking system call was interrupted by a signal (EINTR): the process got a signal (SIGTERM from the "
        "scheduler or torchrun, SIGCHLD, SIGALRM) while it waited; the signal is the event to explain",
        ["look for the signal's sender: the launcher's or scheduler's lines (time limit, preemption, another rank "
         "failing); retrying the call is the program's job (Python 3.5+ does it, PEP 475)"]),
    "EBADF": (
        "a file descriptor that is not open was used (EBADF): a socket or file closed by another thread, used "
        "after fork in a DataLoader worker, or a standard stream (0-2) closed when the job was started (<&-, >&-, "
        "a daemon; Python then fails in init_sys_streams)",
        ["look for an earlier error that closed it; start workers with 'spawn'; a bug of the library named in the "
         "traceback", "for a closed standard stream: redirect it instead of closing it (python train.py < /dev/null "
         "> train.log 2>&1)"]),
    "EEXIST": (
        "the file or directory to create already exists (open(2) O_EXCL, mkdir(2) EEXIST): several ranks creating "
        "the same output or cache directory at once, or a leftover of an earlier run",
        ["os.makedirs(path, exist_ok=True), or create it on rank 0 before a barrier; remove the leftover"]),
    "ENOTDIR": (
        "a component of the path is a file, not a directory (ENOTDIR): an output or cache path given where a "
        "directory is expected, or a file in place of a directory",
        ["check each part of the path in the message (ls -ld); point the option at a directory"]),
    "EISDIR": (
        "a directory was opened as a file (EISDIR): a checkpoint or config option given a directory instead of the "
        "file inside it",
        ["pass the file's path (e.g. .../pytorch_model.bin or the .pt file), or the loader that takes a directory"]),
    "ENOTEMPTY": (
        "a directory to be removed or renamed over is not empty (rmdir(2)/rename(2) ENOTEMPTY): another rank or "
        "process still writes into it, or NFS keeps .nfsXXXX files of files still open",
        ["remove it from one rank after a barrier, when the writers have closed their files (shutil.rmtree); "
         "ls -la it for .nfs* files (lsof on the holders)"]),
    "ETXTBSY": (
        "an executable or shared library is being written while it runs (ETXTBSY): a binary or extension rebuilt or "
        "overwritten while another process executes it (a shared build directory)",
        ["build into a per-job directory (TORCH_EXTENSIONS_DIR=/tmp/$USER/$SLURM_JOB_ID) or wait for the running "
         "processes to end"]),
    "EFBIG": (
        "a file grew past the limit (EFBIG): the process's file-size limit (ulimit -f, RLIMIT_FSIZE: Python ignores "
        "SIGXFSZ, so the write fails with EFBIG instead of killing the process) or the filesystem's largest file "
        "(4 GiB on FAT/vfat, 2 GiB on old NFS)",
        ["ulimit -f unlimited in the job (ulimit -f prints the limit in 1024-byte blocks; set where the job's shell "
         "gets it: limits.conf fsize, systemd LimitFSIZE=, docker/podman --ulimit fsize=-1, Slurm propagates the "
         "submitting shell's limit); write large checkpoints to a filesystem that allows them (not vfat)"]),
    "ENOSYS": (
        "the system call or function is not implemented here (ENOSYS): an older kernel, a filesystem without the "
        "operation (flock on some NFS or Lustre mounts), or a container's seccomp profile returning it",
        ["for file locks: HDF5_USE_FILE_LOCKING=FALSE; for containers: a newer runtime/seccomp profile (docker "
         "run --security-opt seccomp=unconfined to test); uname -r for the kernel"]),
    "ENOTSUP": (
        "the operation is not supported by this filesystem, socket or device (EOPNOTSUPP/ENOTSUP): e.g. fallocate, "
        "O_DIRECT or xattrs on a network filesystem, or an RDMA operation the NIC lacks",
        ["use a local or parallel filesystem that supports it, or turn the feature off in the program; for RDMA "
         "check ibv_devinfo"]),
    "ENOBUFS": (
        "the kernel ran out of socket buffer space (ENOBUFS): too many connections or packets queued at once (large "
        "Gloo/NCCL socket jobs), or the network's queue limits",
        ["raise the socket memory limits (sysctl net.core.wmem_max/rmem_max, net.ipv4.tcp_mem) or use fewer "
         "sockets (NCCL_NSOCKS_PERTHREAD, NCCL_SOCKET_NTHREADS)"]),
    "EMSGSIZE": (
        "a message is larger than the socket or protocol allows (EMSGSIZE): an MTU mismatch on the path or a "
        "too-large datagram",
        ["check the MTU on both ends (ip link show); the same MTU on every node and switch port of the network"]),
    "EPROTO": (
        "a protocol error on a connection (EPROTO): the two ends disagree (TLS, or versions of a library speaking "
        "its own protocol)",
        ["the same versions of the library at both ends; look at the peer's log"]),
    "ENOEXEC": (
        "execve(2) could not run the file (ENOEXEC): a script without a #! line, or a binary for another CPU "
        "architecture (x86_64 vs aarch64 images or wheels)",
        ["add a #!/bin/bash line to the script (sbatch / srun scripts), or use the image or wheel for this node's "
         "architecture (uname -m)"]),
    "ESRCH": (
        "no such process (ESRCH): a signal or wait sent to a process that has already exited: usually a worker that "
        "died first",
        ["find why that process exited (its own log, dmesg for the OOM killer); this line follows from it"]),
    "ECHILD": (
        "no child process to wait for (ECHILD): SIGCHLD is ignored (SIG_IGN inherited from a parent or a container "
        "init) so children are reaped automatically",
        ["do not set SIGCHLD to SIG_IGN in the job's parents; run the container with an init (docker run --init)"]),
    "ERANGE": (
        "a result or buffer is out of range (ERANGE): a number too large to convert, or a buffer too small for a "
        "name (getcwd, getpwuid on very long values)",
        ["check the value or path in the message; a bug of the calling library otherwise"]),
    "EOVERFLOW": (
        "a value does not fit its data type (EOVERFLOW): a 32-bit program or old library reading a large file or "
        "inode number (stat on an NFS or XFS volume with 64-bit inodes)",
        ["use 64-bit builds of the tool; the admin can mount with 32-bit inode numbers (NFS: nfs.enable_ino64=0)"]),
    "EREMOTEIO": (
        "an I/O error reported by a remote or device side (EREMOTEIO): a storage target or an I2C/SMBus device "
        "(a GPU's board sensor) failed",
        ["sudo dmesg -T | tail on the node; report the storage target or board to the admin"]),
    "EUCLEAN": (
        "the filesystem structure needs cleaning (EUCLEAN): the kernel found corruption on a local filesystem "
        "(XFS, ext4, btrfs) under the data or checkpoint path",
        ["sudo dmesg -T | grep -iE 'xfs|ext4|btrfs'; move the job off that node and have the admin repair the "
         "filesystem (xfs_repair / fsck)"]),
    "ENETRESET": (
        "the network dropped the connection on reset (ENETRESET): a link or switch reset under the job",
        ["check the interface and switch logs (ip -s link; dmesg) for resets; rerun from the last checkpoint"]),
    "ESHUTDOWN": (
        "a send after the socket's transport was shut down (ESHUTDOWN): the connection was closed on this side "
        "before (after an earlier error)",
        ["read the earlier error that closed the connection"]),
    "EINPROGRESS": (
        "a non-blocking connect(2) is still in progress (EINPROGRESS): reported as an error by code that expected an "
        "immediate connection: the peer is slow or unreachable",
        ["nc -vz <host> <port> from this node; check the firewall and that the peer listens"]),
    "EALREADY": (
        "a connect(2) is already in progress on this socket (EALREADY): a retry issued too early after a slow "
        "connection",
        ["check the peer is reachable (nc -vz <host> <port>); a bug of the library retrying"]),
    "ECANCELED": (
        "the operation was canceled (ECANCELED): an asynchronous request (I/O, a collective, a future) was "
        "cancelled because of an earlier error or a shutdown",
        ["read the error that led to the cancellation (above, or in other ranks' logs)"]),
    "ENODATA": (
        "no data available (ENODATA): an extended attribute or a device's data that does not exist (getxattr on a "
        "filesystem without it)",
        ["the attribute or feature is missing on this filesystem; use one that supports it or disable the feature"]),
    "EPROTONOSUPPORT": (
        "the protocol is not supported (socket(2) EPROTONOSUPPORT): e.g. SCTP, RDS or an RDMA socket type whose "
        "kernel module is not loaded",
        ["load the protocol's kernel module (modprobe) or configure the library to use TCP"]),
    "ENOPROTOOPT": (
        "a socket option is not available (setsockopt(2) ENOPROTOOPT): the kernel lacks it (an older kernel, a "
        "container's restricted network stack)",
        ["upgrade the library to one that checks the option, or run on a newer kernel"]),
    "ENOTSOCK": (
        "a socket call on a descriptor that is not a socket (ENOTSOCK): a descriptor reused after close, or a "
        "wrong fd inherited by a subprocess",
        ["a bug of the library that makes the call; look for an earlier error that closed the socket"]),
    "EBADMSG": (
        "a bad message (EBADMSG): data corrupted on the way or on disk (a truncated file read as a structure)",
        ["re-download or regenerate the file named in the message; check the filesystem (dmesg)"]),
    "ENOTTY": (
        "an ioctl on something that is not a terminal or not that device (ENOTTY): in a training job almost always a "
        "terminal call (termios.tcgetattr for getpass, os.get_terminal_size / TIOCGWINSZ, stty, tput) in a job whose "
        "stdin / stdout is /dev/null, a file or a pipe (sbatch/srun, nohup, setsid, docker run without -t), or an "
        "ioctl the driver does not know (a user-space library newer than the kernel module)",
        ["for a terminal call: give the program its answer without a terminal (a token in an environment variable "
         "such as HF_TOKEN / WANDB_API_KEY, the tool's --yes / --no-input flag, `yes |`), use "
         "shutil.get_terminal_size() (it falls back to 80x24) and guard termios with sys.stdin.isatty(); "
         "[ -t 0 ] && stty ... in scripts; TQDM_DISABLE=1 / HF_HUB_DISABLE_PROGRESS_BARS=1 for progress bars",
         "for a device ioctl compare the library with the driver (nvidia-smi, ibv_devinfo)"]),
    "EMLINK": (
        "too many links (EMLINK): a directory with more subdirectories than the filesystem allows (ext4: 65000) or "
        "a file with too many hard links",
        ["spread the outputs over subdirectories (e.g. by the first characters of the name)"]),
    "EAGAIN": (
        "a resource is temporarily unavailable (EAGAIN): a new thread or process beyond the user's or container's "
        "limit (fork(2)/pthread_create(3): ulimit -u, the pids cgroup), a lock held by another process, or a "
        "non-blocking call with nothing ready",
        ["for threads/processes: ulimit -u and cat /sys/fs/cgroup/pids.max; fewer DataLoader workers or "
         "OMP_NUM_THREADS=<cores per rank>; for a file lock: the process holding it (lsof <file>)"]),
    "EDEADLOCK": (
        "the kernel refused a lock that would deadlock (EDEADLK, fcntl(2) F_SETLKW): two processes each holding a "
        "lock the other waits for (ranks locking the same files in different orders)",
        ["take file locks in one order in every process, or let one rank do the locked work"]),
    "ELIBBAD": (
        "a shared library is corrupted (ELIBBAD): a damaged or truncated .so (an interrupted install or copy)",
        ["reinstall the package that ships the library (pip install --force-reinstall --no-cache-dir <package>)"]),
    "ENOLINK": (
        "the link has been severed (ENOLINK): a remote resource (a network block device, an NFS/RDMA link) went "
        "away",
        ["check the remote storage or link on the node (dmesg); rerun after it is back"]),
    "ENONET": (
        "the machine is not on the network (ENONET)",
        ["check the node's network (ip -br addr; ip route); report the node"]),
    "ETIME": (
        "a timer expired (ETIME): a device or stream operation (an ioctl, an RDMA or storage request) did not finish "
        "in its time",
        ["check the device's health and logs (dmesg); rerun; report the node when it repeats"]),
    "ECOMM": (
        "a communication error on send (ECOMM): the peer or link failed during the send",
        ["check the peer and the link (its logs, dmesg on both nodes)"]),
})
# texts too common to be matched without the errno around them
_MIN_BARE = 22


def build(rows, version):
    sites = []
    for name, num, text in rows:
        alts = [r"\[Errno %d\] %s" % (num, re.escape(text)), r"%s \(errno:? ?%d\)" % (re.escape(text), num),
                r"%s \(%d\)" % (re.escape(text), num), r"\berrno[ =:]{1,3}%d\b[^\n]{0,40}?%s" % (num, re.escape(text))]
        if len(text) >= _MIN_BARE and name not in CONTEXT_ONLY:
            alts.append(re.escape(text))
        if name in FAMILIES and name not in CONTEXT_ONLY:
            # GNU coreutils' refusals (touch, cp, mkdir, rm, tee, install ...): error (0, errno, _("cannot touch %s"),
            # quoteaf (file)) prints '<prog>: cannot touch 'x': <strerror>' (src/touch.c, src/copy.c, src/mkdir.c);
            # the quoted name after 'cannot <verb>' names a file, so the text is this errno (limits14)
            alts.append(r"\b(?:cannot|failed to) [a-z][a-z ]{1,60} '[^'\n]{1,200}'(?: for [a-z]{1,12})?: %s"
                        % re.escape(text))
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

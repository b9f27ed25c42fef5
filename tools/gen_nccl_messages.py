#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/nccl_messages.json: every failure message NCCL can
print (its WARN(...) format strings and the INFO(...) ones that report a failure), each turned into
a bounded matcher and assigned to a knowledge family by the RULES table below; and the
ncclResult_t codes (src/nccl.h.in) that the `file.cc:123 -> N` return chains print.

Usage:
    python tools/gen_nccl_messages.py --repo /path/to/nccl.git [--rev HEAD] [--older] [-o OUT]
    python tools/gen_nccl_messages.py --slice tools/data/nccl_messages_slice.txt -o OUT   (the test)

The source is NVIDIA/nccl (https://github.com/NVIDIA/nccl), read with `git show REV:path`.
--older adds the formats that only older releases print (a message reworded or removed since,
e.g. NET/IB's "collective mismatch error" of <= 2.19), each with `until`: the last release line
(its newest tag, v2.M.P-1, from 2.4 on: the 2.4-2.11 lines are still in many public threads and
old containers, e.g. NET/Socket's 'message truncated' without the peer's address) that prints it.
A slice file holds parts of a few source files, each after a line `=== path @FIRSTLINE`, so that
a test regenerates from it without the repository (tools/data/nccl_messages_slice.txt).
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

SOURCE = "NVIDIA/nccl (https://github.com/NVIDIA/nccl)"
GENERATOR = "tools/gen_nccl_messages.py"

# Which knowledge entry explains a message site: (rule name, entry id, {field: regex}); the first
# rule whose regexes all match wins. Fields: where (path:line), text (the format), level.
# A rule names a cause only where the message itself names it; otherwise it names the family
# (an entry whose causes are the ways to tell the possibilities apart).
RULES = [
    # a format whose text, once its conversions are dropped, every optional library's absence prints
    # ("Failed to open %s": libgdrapi.so without GDRCopy, harmless): no family, never matched
    ("too-generic", None, {"text": r"^Failed to open %s$"}),
    # no verbs library in the image: NCCL uses sockets (a note; a WARN line in releases before 2.20)
    ("no-libibverbs", "rdma.libibverbs_missing", {"text": r"^(?:Failed to open|Count not open) libibverbs"}),
    ("version", "nccl.version_mismatch", {"text": r"not backwards compatible|compiled with (?:too old version of )?NCCL|"
                                                  r"Mismatched NCCL version|NCCL version mismatch"}),
    # two ranks on one GPU: the message says so whatever variable it names
    ("duplicate-gpu", "nccl.duplicate_gpu", {"text": r"Duplicate GPU|same GPU"}),
    # the ranks called different collectives or sizes (the user's code), not a setting
    ("collective-mismatch", "nccl.collective_mismatch", {"text": r"collective mismatch|Mismatched collective|"
                                                                 r"differs from rank|another rank has"}),
    # the nodes differ (NIC counts): the machines, not a setting, even where the text names the override
    ("nodes-differ", "nccl.topology", {"text": r"mixed local \w+ device counts across ranks"}),
    # the bootstrap root (src/bootstrap.cc bootstrapRoot, every release from 2.4) receives each process's
    # `struct extInfo info` (its rank, nranks, nroots: what that process passed to ncclCommInitRank) and WARNs
    # where one disagrees with the first process's: `nranks != info.nranks` ('mismatch in info from procs',
    # 'mismatch in rank count from procs'), a rank outside the range (`localId`, from info.rank) or one whose slot
    # is already filled (`rankAddressesRoot[localId]`, 'has already checked in'). The ranks were told different
    # world sizes or the same rank, or two jobs met at one root address: how NCCL is called, not the socket
    # (the file's other sites are the bootstrap's sockets). Read from the `if` condition above the WARN (``cond``)
    ("ranks-disagree", "nccl.invalid_usage", {"func": r"^bootstrapRoot$",
                                              "cond": r"\binfo\.(?:nranks|nroots|iroot|offset|rank)\b|\blocalId\b|"
                                                      r"\brank(?:Addresses|Handles)Root\["}),
    ("dmabuf", "nccl.dmabuf", {"text": r"ibv_reg_dmabuf_mr|register memory with DMA-BUF|DMA-BUF handle"}),
    ("after-error", "nccl.previous_error", {"text": r"Attempt to use communicator before|communicator was revoked|"
                                                    r"SetAsyncError|commReclaim|commDestroySync|destroys proxy"}),
    # a message printed inside the function that reads a file or a list an NCCL_* variable names (``env``:
    # _env_functions below, from the source: `x = ncclGetEnv("NCCL_GRAPH_FILE"); ...; f(x, ...)`): the variable's
    # value is what failed. Input files (NCCL_TOPO_FILE, NCCL_GRAPH_FILE) are the topology-file family, whose
    # causes name each variable; other values (NCCL_ALGO / NCCL_PROTO lists, a dump file's path) are a setting
    ("env-file", "nccl.topo_file", {"env": r"\bNCCL_(?:TOPO|GRAPH)_FILE\b"}),
    ("env-value", "nccl.config", {"env": r"\bNCCL_\w+"}),
    ("shm", "shm.size", {"text": r"shared memory|/dev/shm|shm_open|ncclShm|posix_fallocate|shm segment"}),
    # src/os/linux.cc, misc/shmutils.cc: ncclShmOpen grows its /dev/shm file with fallocate
    ("shm-extend", "shm.size", {"text": r"failed to extend %s to"}),
    ("socket-ifname", "nccl.socket_ifname", {"text": r"no socket interface|No usable listening interface|"
                                                      r"no device found (matching|after excluding)|NCCL_SOCKET_IFNAME"}),
    # src/plugin/net.cc ncclNetInit: with NCCL_NET (or ncclConfig_t netName) set, only the NET plugin of
    # that name (the internal IB or Socket, or an external one) is initialised; none that works prints this
    # WARN. Without it the internal Socket network always initialises unless NET/Socket finds no interface
    # (NCCL_SOCKET_IFNAME). nccl.net_plugin, whose entry tells a missing network (NCCL_NET) from an external
    # plugin that does not load; 2.26's wording is the same case (the 'internal' rule took it before)
    ("no-net", "nccl.net_plugin", {"text": r"^Failed to initialize any NET plugin$|^Error: network %s not found"}),
    ("plugin", "nccl.net_plugin", {"text": r"plugin|dlopen|dlsym|dlvsym"}),
    ("nvls", "nccl.nvls", {"text": r"NVLS|multicast|cuMulticast|MNNVL|IMEX"}),
    ("p2p", "gpu.p2p", {"text": r"\bP2P\b|peer access|PeerAccess"}),
    ("gdr-peermem", "rdma.peermem", {"text": r"GDR|nv_peer_mem|peermem|dmabuf|DMA-BUF"}),
    # releasing verbs objects fails after another error (or at teardown): no memlock, no GID
    ("ib-release", "nccl.net_ib", {"text": r"ibv_dereg_mr|ibv_dealloc_pd|ibv_destroy_(?:qp|cq)"}),
    ("ib-memlock", "rdma.memlock", {"text": r"ibv_reg_mr|reg_mr|memlock|RLIMIT_MEMLOCK"}),
    # a word: 'sigIdx' and 'newIdx' (RAS, enqueue.cc) hold the letters g-i-d and are no GID
    ("ib-gid", "rdma.gid_index", {"text": r"\bGID\b|gid index|ibv_query_gid"}),
    ("ib-qp", "rdma.modify_qp", {"text": r"ibv_modify_qp|modify_qp"}),
    ("ib", "nccl.net_ib", {"where": r"transport/net_ib|net_ib|/ib(?:_|/)|mlx5|rdma", }),
    ("ib-text", "nccl.net_ib", {"text": r"NET/IB|ibv_|\bIB\b|RoCE|mlx5|verbs"}),
    ("cuda", "nccl.unhandled_cuda_error", {"text": r"\bcuda|\bCUDA|cuMem|cuGet|cuDevice|CUMEM"}),
    # src/graph/tuning.cc parseList reads NCCL_ALGO / NCCL_PROTO: a value that does not parse is a setting
    ("algo-proto-parse", "nccl.config", {"text": r"^Unrecognized (?:element|prefix) token"}),
    ("topology", "nccl.topology", {"where": r"graph/|topo"}),
    ("topology-text", "nccl.topology", {"text": r"TOPO|topology|XML|PCI path|NVML"}),
    ("socket", "nccl.net_socket", {"where": r"socket|bootstrap|net_socket|proxy|transport/net\.cc|ras/"}),
    ("socket-text", "nccl.net_socket", {"text": r"socket|connect|recv|send|poll|NET/Socket|Bootstrap|bootstrap"}),
    ("memory", "nccl.memory", {"text": r"alloc|malloc|calloc|out of memory|mmap|Cannot allocate"}),
    # a setting: only where the text says a value or a setting is wrong or ignored (a message that
    # merely names the variable that would override it is about something else)
    ("env", "nccl.config", {"text": r"Invalid (?:value|config)|Invalig config|is being ignored|cannot be used with|"
                                    r"not initialized via NCCL_\w+INITIALIZER|environment variable|"
                                    r"NCCL_\w+ (?:is|are) (?:set|not set|invalid|ignored|deprecated)|"
                                    r"(?:both|and) NCCL_\w+ (?:and NCCL_\w+ )?are set"}),
    # a setting or a config field out of range that NCCL corrected (older releases' wording)
    ("limits", "nccl.config", {"text": r"is too (?:big|small)|Limiting value|cap it to|is larger than (?:#channels|maxCTAs)|"
                                       r"disabling CollNet|^CC On"}),
    ("graph", "nccl.invalid_usage", {"text": r"graph mode|captured by the expected graph|graph id=|does not satisfy|"
                                             r"not power of 2"}),
    ("gdaki", "nccl.net_ib", {"text": r"GDAKI"}),
    ("register", "nccl.memory", {"text": r"register fails|register user buffers|Could not map"}),
    ("usage", "nccl.invalid_usage", {"text": r"invalid|mismatch|must be|not supported|unsupported|"
                                             r"too old|should not|Duplicate|already|NULL|null|not allowed|"
                                             r"improper usage|exceeds|not in a group|does not match|not a member|"
                                             r"not within|not within valid|requested|needs to be valid|garbage|"
                                             r"unknown to|builtin|FP8|No algorithm"}),
    ("usage-valid", "nccl.invalid_usage", {"text": r"is not a valid|not in a valid|not in the valid|must (?:pass|either)|"
                                                  r"should be a divis|is less than current|fails to share|"
                                                  r"is different from|does not support|requires [^,]{1,40}, got"}),
    ("internal", "nccl.internal_error", {"text": r"failed|error|Unknown|bugs|not found|Could not find|Cannot|"
                                                r"Not in suspended|disabled|not initialized|does not exist|ran out of|"
                                                r"not valid|sizes: want|Too many|max is|Failure in|should only"}),
    ("gin", "nccl.net_ib", {"text": r"No GIN-capable devices"}),
    ("topology-parent", "nccl.topology", {"text": r"bus ID"}),
    ("transport", "nccl.topology", {"text": r"No transport found"}),
    # NCCL <= 2.7's ring setup (src/misc/rings.cc, init.cc): a ring setting out of range, rings the
    # topology could not build
    ("old-rings-setting", "nccl.config", {"text": r"NCCL_M(?:IN|AX)_NRINGS set to"}),
    ("old-rings", "nccl.topology", {"text": r"\brings?\b|Multiple (?:starts|ends) found in group|"
                                            r"CollNet currently only supports"}),
]

# No rows for messages whose family entry already is that cause, with its exports and checks (a row
# would rank its own text above them): ibv_reg_dmabuf_mr (nccl.dmabuf), ibv_modify_qp, ibv_query_gid and
# the GID-index HINT (rdma.modify_qp, rdma.gid_index), NVLS multicast binding (nccl.nvls), 'Bootstrap :
# no socket interface found' (nccl.socket_ifname), 'Duplicate GPU detected' (nccl.duplicate_gpu), and
# 'Cuda failure '%s'' (any CUDA error: nccl.unhandled_cuda_error's causes and nccl_bugs.toml tell them apart).
# What one message means and what to do, where its family's fix is too general: [(regex over the
# format, means, [fix])], the first row that matches gives an assigned site its own `means`/`fix`
# (knowgen.give_fix). Written from the code around each site (NVIDIA/nccl at the commit in the
# header, and the older releases named) and NCCL's documentation: the environment variables
# (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html) and troubleshooting
# (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html); each `means`
# names the file that prints the message. main() stops when a row finds no site (a message
# reworded upstream: move its row by hand).
_IFNAME_FIX = ["ip -br addr   (on each node: the interfaces that are up, with their addresses)",
               "export NCCL_SOCKET_IFNAME=<the interface the nodes reach each other on, e.g. eth0 or ib0>   (a prefix: "
               "'eth' takes eth0, eth1...; '=eth0' exactly that one; '^docker,lo' all but those) on every rank"]
_FIRST_ERROR = "find the first error of the job (the earliest NCCL WARN or traceback, on whichever node or rank printed " \
               "it): this line follows it"
_WC_STATUS = ("4 IBV_WC_LOC_PROT_ERR: the NIC may not access the buffer, mostly GPU memory without GPUDirect RDMA "
              "(PCIe ACS on, no nvidia-peermem / DMA-BUF); 5 IBV_WC_WR_FLUSH_ERR: the queue pair was already in error, "
              "an echo of an earlier failure; 12 IBV_WC_RETRY_EXC_ERR: the peer's NIC never acknowledged (the peer "
              "process died, its node or link went down, or the two NICs cannot reach each other: routing, RoCE/GID, "
              "rails); 13 IBV_WC_RNR_RETRY_EXC_ERR: the peer was not ready to receive")
MSG_FIX = [
    # --- interfaces and the bootstrap (src/bootstrap.cc, src/misc/socket.cc ncclFindInterfaces) ---
    (r"^NET/Socket : no interface found",
     "src/bootstrap.cc / src/transport/net_socket.cc: no network interface matched: NCCL_SOCKET_IFNAME is set and "
     "names none that is up on this node with an address (of NCCL_SOCKET_FAMILY if set). Without the variable NCCL "
     "tries ib*, then anything but docker*/lo/virbr*, then docker*, then lo (src/misc/socket.cc ncclFindInterfaces), "
     "so it always finds one.", _IFNAME_FIX + ["unset NCCL_SOCKET_FAMILY, or set it to the family the interface has "
                                               "(AF_INET / AF_INET6)"]),
    (r"^NET/Socket : No usable listening interface found",
     "src/bootstrap.cc: NCCL_COMM_ID is set and no interface of this node is in the same subnet as its address "
     "(ncclFindInterfaceMatchSubnet), so this rank cannot listen on a network the root reaches.",
     ["echo $NCCL_COMM_ID; ip -br addr   (the address must be in a subnet of this node)",
      "set NCCL_COMM_ID to the root's address on the network all nodes share (or unset it and let the launcher "
      "exchange the id), or NCCL_SOCKET_IFNAME=<that interface>"]),
    (r"^Net : No interface found in the same subnet as remote address",
     "src/misc/socket.cc: NCCL_COMM_ID (or the root's address) is in no subnet of this node's interfaces.",
     ["ip -br addr on this node, and {%1|the address the message names}: the node needs an interface on that network",
      "export NCCL_SOCKET_IFNAME=<the interface on the shared network>"]),
    (r"no device found matching NCCL_OOB_NET_IFNAME|verify NCCL_OOB_NET_IFNAME",
     "src/bootstrap.cc netGetDevice: NCCL_OOB_NET_IFNAME (used with NCCL_OOB_NET_ENABLE=1) names network devices of "
     "NCCL's network plugin (for IB: mlx5_0, mlx5_1:1 ...), and none of this node's devices matches (or, with '^', "
     "none is left after the exclusion).",
     ["ibv_devinfo -l   (the RDMA device names NCCL sees); NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=NET lists them as NET/IB : [i]name",
      "export NCCL_OOB_NET_IFNAME=<one of those names>, or unset it (and NCCL_OOB_NET_ENABLE) to bootstrap over sockets"]),
    (r"^Invalid NCCL_COMM_ID",
     "src/bootstrap.cc: NCCL_COMM_ID must be <ipv4>:<port>, [<ipv6>]:<port> or <hostname>:<port>.",
     ["export NCCL_COMM_ID=<root address>:<port> (an IPv6 address in brackets), or unset it"]),
    (r"^Net : error encountered when getting address info",
     "src/misc/socket.cc ncclSocketGetAddrFromString: getaddrinfo() could not resolve the host name of NCCL_COMM_ID "
     "(the text after the colon is its error, e.g. 'Name or service not known').",
     ["getent hosts <the host of NCCL_COMM_ID> on this node", "use the root's IP address in NCCL_COMM_ID, or fix DNS / "
                                                               "/etc/hosts on the nodes"]),
    (r"^ncclCommGetUniqueId should not be called when NCCL_COMM_ID is set",
     "src/bootstrap.cc: with NCCL_COMM_ID set every rank takes the root's address from it; calling "
     "ncclGetUniqueId too is a conflict (one communicator per process can use NCCL_COMM_ID).",
     ["unset NCCL_COMM_ID (torch.distributed, Horovod and MPI exchange the unique id themselves)"]),
    (r"NCCL_COMM_ID cannot be used with more than one ncclUniqueId",
     "src/init.cc: ncclCommInitRankScalable with several unique ids cannot take the root from NCCL_COMM_ID.",
     ["unset NCCL_COMM_ID"]),
    (r"^Message truncated : received",
     "src/bootstrap.cc: a peer sent a larger bootstrap message than this rank expects for the same step. The ranks "
     "went through NCCL's bootstrap steps differently: they create communicators in a different order or not all "
     "of them (torch: every rank must call new_group, in the same order, even for groups it is not in), they run "
     "different NCCL releases (a node or container with another torch / nvidia-nccl-cu* / libnccl2), or a process "
     "of another job connected to this job's bootstrap port.",
     ["call new_group / ncclCommSplit on every rank in the same order",
      "print the NCCL version on every rank (NCCL_DEBUG=VERSION, or python -c 'import torch; "
      "print(torch.cuda.nccl.version())') and install the same one everywhere",
      "give concurrent jobs different MASTER_PORT / NCCL_COMM_ID ports"]),
    (r"^NET/Socket : (?:peer %s )?message truncated",
     "src/transport/net_socket.cc: the peer sent more bytes than this rank posted to receive: the ranks called "
     "different collectives, or the same one with different sizes or dtypes (the user's code), or NCCL chose "
     "another protocol on each side because an NCCL_* setting (NCCL_PROTO, NCCL_ALGO, buffer sizes) or the NCCL "
     "release differs between ranks. The message itself says a healthy network points at the application.",
     ["compare the NCCL_* environment and the NCCL version of every rank; if NCCL_PROTO=Simple on every rank makes "
      "it work, a setting differed",
      "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL lists every rank's calls; torch: TORCH_DISTRIBUTED_DEBUG=DETAIL checks "
      "that every rank calls the same collective with the same shapes"]),
    (r"^Bootstrap Root : mismatch in (?:rank count|info from procs)",
     "src/bootstrap.cc: the ranks that reached the root disagree on the number of ranks (or roots): they were "
     "started with different world sizes, or two jobs share the root's address and port.",
     ["check WORLD_SIZE / --nnodes x --nproc-per-node on every node", "give concurrent jobs different "
                                                                       "MASTER_PORT / NCCL_COMM_ID ports"]),
    (r"^Bootstrap Root : rank %d of %d ranks has already checked in",
     "src/bootstrap.cc: two processes registered with the root under the same rank: RANK / --node-rank repeated on "
     "two nodes, or a restarted rank reconnecting to a root of the previous attempt.",
     ["give each node its own --node-rank (0..nnodes-1) and each process its own RANK",
      "start all ranks again together (restart the whole job, not one rank)"]),
    # --- sockets: connect / accept / peers (src/misc/socket.cc, src/os/linux.cc) ---
    (r"[Cc]onnect to %s (?:failed|returned)|connect returned %s, exceeded error retry count|"
     r"socketPollConnect(?: poll\(\))? (?:to %s )?failed|PollConnect to %s failed|exceeded (?:retries|timeouts) \(%d\)",
     "src/misc/socket.cc (src/os/linux.cc since 2.30): this rank could not open a TCP connection to the address "
     "the message names (the peer's bootstrap or socket transport): nothing listens there (the peer exited or has "
     "not started), a firewall drops the port, or the address belongs to an interface the other node cannot "
     "reach (docker0, virbr0, a second NIC) because NCCL_SOCKET_IFNAME chose it.",
     ["from this node: nc -zv <address> <port> (both from the message); ip route get <address>",
      "export NCCL_SOCKET_IFNAME=<the interface on the network the nodes share> on every rank",
      "open the TCP ports between the nodes (NCCL listens on ephemeral ports), and " + _FIRST_ERROR.replace(
          ": this line follows it", " on the peer if it exited")]),
    (r"Connection closed by remote peer|socketProgress: Call to recv from %s failed|Call to recv from %s failed",
     "src/misc/socket.cc: the peer at the address the message names closed the connection or reset it: that "
     "process exited or crashed (or its node went down), mostly because of its own earlier error.",
     [_FIRST_ERROR + " (on the node of {%1|the address named})", "dmesg / the job's OOM and Xid messages on that node"]),
    (r"socket magic mismatch|wrong magic",
     "src/misc/socket.cc socketFinalizeAccept: a connection arrived on NCCL's listening port without NCCL's magic: "
     "a process of another job (or another program, a port scanner) connected to this port, or the peer runs an "
     "NCCL with another NCCL_SOCKET_MAGIC. NCCL discards it and keeps waiting.",
     ["harmless unless the job then hangs; give concurrent jobs different ports, and keep NCCL_SOCKET_MAGIC unset "
      "(or equal) on every rank"]),
    (r"socketTryAccept: (?:exceeded error retry count|Accept failed|get errno)|SocketTryAccept: (?:exceeded|Accept failed)",
     "src/misc/socket.cc: accept() on NCCL's listening socket kept failing; the text after it is the errno "
     "(EMFILE 'Too many open files': the process has used up its file descriptors).",
     ["ulimit -n   (on the node; NCCL opens sockets per peer and channel: raise it, e.g. ulimit -n 1048576, or "
      "LimitNOFILE in the service / --ulimit nofile= for a container)"]),
    (r"Socket creation failed|UDS: Socket creation error",
     "src/misc/socket.cc / ipcsocket: socket() failed; the text after it is the errno (EMFILE: too many open files; "
     "EAFNOSUPPORT: an IPv6 address on a host without IPv6).",
     ["ulimit -n (raise it), or NCCL_SOCKET_FAMILY=AF_INET when the error is the address family"]),
    (r"^NCCL_SOCKET_MAGIC invalid value",
     "src/misc/socket.cc: NCCL_SOCKET_MAGIC is not a number; NCCL uses its built-in magic.",
     ["unset NCCL_SOCKET_MAGIC (or give the same hexadecimal value on every rank)"]),
    (r"^Could not get speed (?:for interface|from)",
     "src/transport/net_socket.cc: /sys/class/net/{%1|<if>}/speed is unreadable (a virtual or container interface); "
     "NCCL assumes 10 Gbps for its tuning. Harmless.",
     ["nothing to do; NCCL_SOCKET_IFNAME=<the physical interface> if another one should carry the traffic"]),
    (r"NCCL_SOCKET_NTHREADS is greater than the maximum|setting NCCL_NSOCKS_PERTHREAD",
     "src/transport/net_socket.cc: NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD is capped at 64 sockets (and "
     "NTHREADS at 16); NCCL lowered the value it names.",
     ["set NCCL_SOCKET_NTHREADS and NCCL_NSOCKS_PERTHREAD so that their product is at most 64"]),
    (r"UDS: (?:Binding to socket %s failed|Cannot bind)",
     "src/misc/ipcsocket.cc (os/linux_ipcsocket.cc): NCCL could not bind its Unix-domain socket, used between the "
     "ranks of one node to pass CUDA memory handles (cuMem). Its name is an abstract socket by default: ranks of "
     "two containers that share the host's network namespace but not the PID namespace can pick the same name "
     "('Address already in use').",
     ["run the ranks of a node in one container, or with --pid=host beside --network=host",
      "or NCCL_IPC_USE_ABSTRACT_SOCKET=0 (a socket file under /tmp instead), or NCCL_CUMEM_ENABLE=0"]),
    (r"UDS: (?:Sending|Receiving) data over socket|^ncclProxyCallBlockingUDS call to|^ncclProxyClient(?:GetFd|QueryFdBlocking|"
     r"ConvertFd) call to",
     "src/misc/ipcsocket.cc, src/proxy.cc (ncclProxyCallBlockingUDS, ncclProxyClientGetFd: CUDA memory handles of the "
     "cuMem allocator, NCCL_CUMEM_ENABLE, passed as file descriptors to another rank's proxy of this node over a "
     "Unix-domain socket) failed: that rank exited, or the ranks sit in containers that cannot see each other's "
     "sockets or processes.",
     [_FIRST_ERROR, "ranks of one node in separate containers: share the IPC and PID namespaces (--ipc=host "
                    "--pid=host), or NCCL_CUMEM_ENABLE=0"]),
    # --- the proxy thread (src/proxy.cc) ---
    (r"^\[Proxy Service(?: UDS)?\] (?:Poll failed|Failed to execute operation)|"
     r"^\[Service thread\] (?:Error encountered progressing|Could not receive type|Accept failed)|"
     r"^Proxy Call to rank %d failed|Socket recv failed while polling for opId",
     "src/proxy.cc: the proxy thread (NCCL's helper that drives the network and shared memory for its local ranks) "
     "lost the connection to a rank of this node, or an operation it ran failed: a local rank exited, or the "
     "real error is printed just before.",
     [_FIRST_ERROR, "dmesg on this node (a rank killed by the OOM killer leaves no Python error)"]),
    (r"^\[Proxy service\] Too many connections",
     "src/proxy.cc: more local ranks connected to one proxy than it accepts: many communicators (or ranks) on one "
     "node.",
     ["create fewer communicators (torch: fewer new_group / process groups; destroy the ones no longer used)"]),
    (r"Failed to (?:set|create) CUDA (?:device|context)",
     "src/proxy.cc: NCCL's proxy thread could not make the rank's GPU current: the GPU has failed (Xid, fell off the "
     "bus) or the CUDA context is broken by an earlier error.",
     ["nvidia-smi and dmesg | grep -i xid on that node", _FIRST_ERROR]),
    (r"^failed to decode NCCL_PROXY_CPUSET",
     "src/proxy.cc: NCCL_PROXY_CPUSET is not a CPU list; it is ignored.",
     ["export NCCL_PROXY_CPUSET=<cpu list, e.g. 0-7,16-23>, or unset it"]),
    # --- InfiniBand / RoCE verbs (src/misc/ibvwrap.cc, src/transport/net_ib*) ---
    (r"^Call to ibv_reg_mr(?:_iova2)? failed",
     "src/misc/ibvwrap.cc: the NIC could not register a buffer. 'Cannot allocate memory' (ENOMEM): the locked-memory "
     "limit is too low (Docker's and many services' default is 64 KiB); 'Bad address' (EFAULT) on GPU memory: "
     "GPUDirect RDMA is unavailable (no nvidia-peermem module and no DMA-BUF).",
     ["ulimit -l   (in the job: must be unlimited) -> container: --ulimit memlock=-1:-1 (Kubernetes: the runtime's "
      "LimitMEMLOCK); Slurm: slurmd's LimitMEMLOCK=infinity and PropagateResourceLimits",
      "GPU buffers: lsmod | grep -E 'nvidia_peermem|nv_peer_mem' -> modprobe nvidia-peermem; or NCCL_NET_GDR_LEVEL=LOC "
      "to stage through host memory"]),
    (r"^Call to ibv_create_(?:qp|cq) failed",
     "src/misc/ibvwrap.cc: the NIC refused a new queue pair / completion queue: the locked-memory limit "
     "(ENOMEM 'Cannot allocate memory'), or the NIC's queue limits with many connections "
     "(NCCL_IB_QPS_PER_CONNECTION, many communicators).",
     ["ulimit -l unlimited in the job (container: --ulimit memlock=-1:-1)",
      "lower NCCL_IB_QPS_PER_CONNECTION if set; destroy communicators no longer used"]),
    (r"^Call to ibv_(?:open_device|alloc_pd|query_device|query_port|fork_init|get_async_event)\b",
     "src/misc/ibvwrap.cc: a basic verbs call on the RDMA device failed: the device node is not usable from here "
     "(a container without /dev/infiniband, a permission or the IPC_LOCK capability), or the device is down.",
     ["ibv_devinfo on the node and inside the container", "container: --device=/dev/infiniband --cap-add=IPC_LOCK "
      "--ulimit memlock=-1:-1 (or the RDMA device plugin); without RDMA: NCCL_IB_DISABLE=1"]),
    (r"^HINT: In many cases this error occurs when NICs are not cross-rail",
     "src/misc/ibvwrap.cc printIbModifyQpHint: NCCL's hint after ibv_modify_qp timed out: NICs of different rails "
     "were paired.",
     ["export NCCL_CROSS_NIC=0 (env.html#nccl-cross-nic)"]),
    (r"Got completion from peer %s with (?:error|status)",
     "src/transport/net_ib (p2p.cc; net_ib.cc before 2.24): an RDMA work request to or from the peer at {%1|the "
     "address named} failed; the number after status is ibv_wc_status: " + _WC_STATUS + ".",
     ["status 12: ping / ib_write_bw between the two nodes' NICs (ibdev2netdev shows which NIC has the address), "
      "and " + _FIRST_ERROR.replace(": this line follows it", " on the peer"),
      "status 12 on a slow or congested fabric: a longer NCCL_IB_TIMEOUT (default 20, ~30 s: e.g. 22)",
      "status 4: disable PCIe ACS on the host (BIOS / setpci), load nvidia-peermem, or NCCL_NET_GDR_LEVEL=LOC",
      "status 5: an echo: find the first failing work request or rank"]),
    (r"^HINT: In many cases this error occurs when ACS is enabled",
     "src/transport/net_ib/common.h printIbWcStatusHint: status IBV_WC_LOC_PROT_ERR: PCIe Access Control Services "
     "redirect the NIC's peer-to-peer reads of GPU memory (GPUDirect RDMA) through the root complex, which denies them.",
     ["disable ACS on the PCIe switches (BIOS, or setpci on the bridges, see the NCCL troubleshooting page 'PCI "
      "Access Control Services')", "or NCCL_NET_GDR_LEVEL=LOC (no GPUDirect RDMA: slower)"]),
    (r"^HINT: In many cases this error occurs when NIC on the same instance",
     "src/transport/net_ib/common.h: status IBV_WC_WR_FLUSH_ERR: NCCL's hint that NICs of one node cannot reach "
     "each other.",
     ["ib_write_bw between the NICs of that node; NCCL_IB_HCA=<the NICs that work>"]),
    (r"^HINT: (?:In many cases this error occurs when the NCCL_IB_TIMEOUT|Default value is 20|To confirm, try increasing)",
     "src/transport/net_ib/common.h: status IBV_WC_RETRY_EXC_ERR: NCCL's hint that the IB transport timeout "
     "(4.096 us x 2^NCCL_IB_TIMEOUT per retry) may be too short, when the peer is alive but slow.",
     ["export NCCL_IB_TIMEOUT=22 (each step doubles it) on every rank; if it persists, the peer or the link failed"]),
    (r"async fatal event|Got async (?:error )?event|Got non-fatal async event",
     "src/transport/net_ib (common.cc; net_ib.cc before 2.24): the NIC reported an asynchronous event on {%1|the device "
     "and port named} (port error / link down, a fatal device error, a queue pair in error): the link or the HCA, "
     "not the program.",
     ["ibstat / ibv_devinfo on that node (State: Active, Physical state: LinkUp), dmesg | grep -i mlx5",
      "drain the node for the fabric team if the port flaps; NCCL_IB_HCA=<the other NICs> to run without it"]),
    (r"GID table changed",
     "src/transport/net_ib/common.cc: the port's GID table changed while the job ran (on RoCE: an IP address "
     "was added to or removed from the NIC's interface), which breaks the queue pairs that used it.",
     ["keep the RoCE interfaces' addresses fixed during jobs (NetworkManager / DHCP renewals on those interfaces)"]),
    (r"(?:connect|merge) (?:incompatible devices|net devices with different link_layer)|"
     r"Remote %s device is incompatible|different link_layer properties",
     "src/transport/net_ib: NCCL paired or fused NICs of different link layers (InfiniBand and Ethernet/RoCE) on "
     "this node or across the two nodes.",
     ["ibv_devinfo | grep -E 'hca_id|link_layer'  (on both nodes)",
      "export NCCL_IB_HCA=<only the NICs of one link type, e.g. =mlx5_0,mlx5_1>"]),
    (r"mismatched physical devices between local",
     "src/transport/net_ib/connect.cc: the local and remote NICs of a connection are on different rails "
     "(physical devices); it works but may be slower. NCCL says how to silence it.",
     ["check that the nodes' NIC ordering and rails match (ibdev2netdev); NCCL_IB_WARN_RAIL_LOCAL=0 hides the warning"]),
    (r"^NET/IB : (?:Unable to open device|Unable to query device|Unable to query port)",
     "src/transport/net_ib/init.cc: NCCL found the RDMA device but could not open or query it (a container without "
     "/dev/infiniband/uverbs*, a permission, or a port in a bad state); NCCL skips it.",
     ["ibv_devinfo (as the job's user, in the container)", "container: --device=/dev/infiniband --cap-add=IPC_LOCK"]),
    (r"^Failed to open libibverbs\.so",
     "src/misc/ibvsymbols.cc: the verbs library is not in the image or on the library path, so NCCL cannot use "
     "InfiniBand/RoCE and falls back to TCP sockets (a WARN before 2.20, an INFO since): harmless without RDMA "
     "NICs, a large slowdown with them.",
     ["apt-get install libibverbs1 ibverbs-providers (RHEL: rdma-core) in the image, or mount the host's rdma-core",
      "without RDMA NICs: nothing to do (NCCL_IB_DISABLE=1 silences it)"]),
    (r"^Failed to open libmlx5\.so|Failed to open mlx5dv symbols",
     "src/misc/mlx5dvsymbols.cc: libmlx5 (rdma-core's mlx5 provider) is missing; only mlx5-specific features "
     "(Data Direct / CX-8 Direct-NIC) are off. Harmless otherwise.",
     ["nothing to do; for those features install ibverbs-providers / rdma-core in the image"]),
    (r"NCCL_IB_MERGE_NICS=0",
     "src/transport/net_ib: NIC fusion asked to merge devices while NCCL_IB_MERGE_NICS=0.",
     ["unset NCCL_IB_MERGE_NICS, or NCCL_NET_MERGE_LEVEL=LOC (no fusion)"]),
    (r"NCCL_IB_SUBNET_PREFIX_LEN=%d is out of range",
     "src/transport/net_ib/connect.cc: NCCL_IB_SUBNET_PREFIX_LEN must be 1..32.",
     ["export NCCL_IB_SUBNET_PREFIX_LEN=<1..32>, or unset it"]),
    (r"collective mismatch error|posted incorrect receive info",
     "src/transport/net_ib: the peer posted a receive that does not fit what this rank sends (size, buffer): the ranks "
     "called different collectives, or the same one with different sizes, in the same order slot (the user's code).",
     ["TORCH_DISTRIBUTED_DEBUG=DETAIL (torch checks the collectives' order and shapes across ranks)",
      "look for a collective that only some ranks reach (a condition on rank, uneven data)"]),
    # --- shared memory (src/os/linux.cc, src/misc/shmutils.cc, src/transport/shm.cc) ---
    (r"^Error while %s shared memory segment|failed to create shared memory file|failed to extend %s to",
     "src/os/linux.cc (src/misc/shmutils.cc before 2.30): NCCL could not create, size or map its shared-memory file "
     "in /dev/shm (used between the GPUs of one node); the text after it is the errno: ENOSPC 'No space left on "
     "device' or a failed fallocate: /dev/shm is too small or full (Docker's default is 64 MB); EACCES / EROFS: "
     "/dev/shm is not writable for this process (its mount or the container's).",
     ["df -h /dev/shm (in the container)", "docker run --shm-size=8g (or --ipc=host); Kubernetes: an emptyDir "
      "volume with medium: Memory at /dev/shm", "last resort: NCCL_SHM_DISABLE=1 (slower)"]),
    (r"Could not map %s",
     "src/os/linux.cc / misc/shmutils.cc: mmap of NCCL's /dev/shm segment failed (too small a /dev/shm, or the "
     "process's memory limits).",
     ["df -h /dev/shm; docker --shm-size=8g or --ipc=host", "ulimit -v (no virtual-memory limit)"]),
    (r"unlink shared memory %s failed|munmap of shared memory",
     "src/os/linux.cc: cleaning up a /dev/shm segment failed, mostly during teardown after another error "
     "(the file was already removed).",
     [_FIRST_ERROR, "stale files: ls /dev/shm/nccl-* (remove those of jobs that ended)"]),
    # --- GPUs: P2P, CUDA (src/transport/p2p.cc, include/checks.h, cudawrap) ---
    (r"^failed to peer with device %d\(=%lx\)",
     "src/transport/p2p.cc: cudaDeviceEnablePeerAccess between two GPUs of one process failed; the CUDA error follows "
     "('peer mapping resources exhausted': a GPU already has peer mappings to the maximum number of peers; P2P "
     "blocked by PCIe ACS / IOMMU or a virtual machine).",
     ["nvidia-smi topo -p2p r (which pairs support P2P)", "one process per GPU (torchrun --nproc-per-node), or "
      "NCCL_P2P_LEVEL=NVL / NCCL_P2P_DISABLE=1 for PCIe-only peers"]),
    (r"^Could not enable P2P between dev",
     "src/transport/p2p.cc (an INFO): CUDA reports no peer access between the two GPUs; NCCL uses shared memory "
     "instead. Expected on many PCIe systems, a problem only when a hang follows on systems where P2P is "
     "broken (ACS / IOMMU on).",
     ["nvidia-smi topo -p2p r; if NCCL then hangs: NCCL_P2P_DISABLE=1, and disable ACS / set iommu=pt on the host"]),
    (r"P2P is disabled between NVLINK connected GPUs",
     "src/graph/paths.cc: two GPUs joined by NVLink report no P2P (usually NCCL_P2P_DISABLE or NCCL_P2P_LEVEL set, "
     "or a fabric manager / driver problem on NVSwitch systems).",
     ["unset NCCL_P2P_DISABLE / NCCL_P2P_LEVEL", "NVSwitch systems: systemctl status nvidia-fabricmanager (same "
                                                 "version as the driver); nvidia-smi topo -m"]),
    (r"^cudaIpcGetMemHandle failed",
     "src/transport/p2p.cc: legacy CUDA IPC failed (a container without the host IPC namespace, or memory not "
     "allocated by cudaMalloc).",
     ["docker --ipc=host (ranks of one node in one IPC namespace), or NCCL_P2P_DISABLE=1"]),
    (r"^Failed to CUDA (?:malloc|calloc|host alloc)",
     "src/include/alloc.h: NCCL could not allocate the GPU (or pinned host) memory it names: the GPU is full.",
     ["nvidia-smi (other processes on the GPU); a smaller batch, or NCCL_BUFFSIZE / NCCL_MAX_NCHANNELS lower"]),
    (r"^Failed to find CUDA library",
     "src/misc/cudawrap.cc: NCCL could not load libcuda.so (the driver's library): no driver on this node, or a "
     "container started without the GPU runtime.",
     ["nvidia-smi on the node; docker run --gpus all (nvidia-container-toolkit)", "NCCL_CUDA_PATH only if "
                                                                                  "libcuda.so is in a non-standard place"]),
    (r"^CUDA Driver version found is %d\. Minimum requirement is %d",
     "src/misc/cudawrap.cc: the GPU driver is older than this NCCL's CUDA needs.",
     ["nvidia-smi (driver version): update the driver, or install a torch / NCCL built for an older CUDA"]),
    # --- usage and init (src/init.cc, src/misc/argcheck.cc, src/enqueue.cc, src/group.cc) ---
    (r"^Invalid rank requested : %d/%d|^improper usage of ncclCommInitRank",
     "src/init.cc: a rank is outside 0..nranks-1 (or the unique-id count does not fit): RANK or WORLD_SIZE differ "
     "from the ranks actually started.",
     ["check RANK / WORLD_SIZE (torchrun: --nnodes x --nproc-per-node; Slurm: --ntasks) on every node"]),
    (r"^Invalid device (?:%d \(totalnDev|count requested)|^invalid device count|^rank %d exceeds ndev",
     "src/init.cc ncclCommInitAll / ncclCommInitRank: the device count or index passed is not valid for this node.",
     ["nvidia-smi -L and CUDA_VISIBLE_DEVICES: pass only GPUs that exist"]),
    (r"^%s : invalid root %d",
     "src/misc/argcheck.cc: the root of broadcast/reduce (the message gives the call, the root and the range) "
     "is not a rank of this communicator.",
     ["pass a root within 0..nranks-1; in a torch subgroup use the group's rank (dist.get_global_rank / group_dst)"]),
    (r"^%s : invalid type %d",
     "src/misc/argcheck.cc: a datatype this NCCL does not support (bfloat16 needs NCCL >= 2.10, float8 >= 2.24 on "
     "sm90+; bool, complex and others are not NCCL types).",
     ["convert the tensor (e.g. .float()) before the collective, or a newer NCCL"]),
    (r"^%s : (?:invalid reduction operation|reduction operation %d unknown)",
     "src/misc/argcheck.cc: the reduction op is not valid for this communicator (a user op of another communicator, "
     "or one NCCL lacks, e.g. AVG before 2.10).",
     ["use SUM/PROD/MIN/MAX/AVG, or a newer NCCL"]),
    (r"^%s : %s argument is NULL|^%s : %s %p is not a valid pointer",
     "src/misc/argcheck.cc: a buffer passed to the call (named in the message) is NULL or not GPU memory NCCL "
     "can use: a CPU tensor passed to an NCCL collective, or memory of another process.",
     ["move the tensor to the rank's GPU (tensor.cuda(local_rank)) before the collective; CPU tensors need the "
      "gloo backend"]),
    (r"allocated on device %d mismatchs with NCCL device",
     "src/misc/argcheck.cc: the buffer is on another GPU than the communicator's: the tensor was created before "
     "torch.cuda.set_device, or on cuda:0 in every rank.",
     ["torch.cuda.set_device(local_rank) before creating tensors and the process group; create tensors with "
      "device=f'cuda:{local_rank}'"]),
    (r"^ncclGroupEnd: not in a group call",
     "src/group.cc: ncclGroupEnd without a matching ncclGroupStart (unbalanced group calls in the program).",
     ["pair every ncclGroupStart with one ncclGroupEnd (torch: batch_isend_irecv / coalescing managers)"]),
    (r"^Blocking and nonblocking communicators are not allowed in the same group",
     "src/group.cc: one group call mixes communicators created with config.blocking=0 and =1.",
     ["create all communicators of the group with the same blocking setting (NCCL_COMM_BLOCKING)"]),
    (r"(?:Error : n|^N)o algorithm/protocol available",
     "src/enqueue.cc: no algorithm/protocol pair is left for this collective and datatype: NCCL_ALGO or NCCL_PROTO "
     "(or the tuner) excluded every one that supports it.",
     ["unset NCCL_ALGO and NCCL_PROTO (or allow Ring and Simple)"]),
    (r'^Unrecognized (?:element|prefix) token "%s" when parsing|^All entries except the first must have a prefix',
     "src/graph/tuning.cc parseList: NCCL_ALGO or NCCL_PROTO does not parse (the message quotes {%1|the token}): "
     "names are Ring, Tree, CollnetDirect, CollnetChain, NVLS, NVLSTree, PAT and LL, LL128, Simple; '^' excludes; "
     "per-collective lists are 'allreduce:tree,ring;broadcast:ring' (NCCL >= 2.24).",
     ["fix or unset NCCL_ALGO / NCCL_PROTO (see env.html#nccl-algo)"]),
    (r"^Invalid value %s for %s, using default",
     "src/misc/param.cc: an NCCL_* variable (named second) holds a value that is not a number; NCCL uses its default.",
     ["fix or unset {%2|the variable the message names}"]),
    (r"^Invalid %s %d \((?:must be a multiple of|maximum|minimum)",
     "src/graph/tuning.cc: NCCL_NTHREADS / NCCL_LL128_NTHREADS is out of range or not a multiple of 32; NCCL "
     "corrected it.",
     ["unset {%1|the variable the message names} (or a multiple of 32 within the range)"]),
    (r"^Attempt to use communicator before the previous operation returned ncclSuccess",
     "src/init.cc: the communicator already failed (an earlier call returned an error); this is an echo.",
     [_FIRST_ERROR]),
    (r"^comm %p has already been destroyed",
     "src/init.cc: the program used or destroyed a communicator after destroying it (torch: a collective after "
     "destroy_process_group, or destroy called twice).",
     ["call destroy_process_group once, after the last collective"]),
    (r"Mismatched NCCL version detected|NCCL version mismatch with remote peer",
     "src/init.cc / src/ras: the ranks run different NCCL releases (the message gives both).",
     ["install the same torch / nvidia-nccl-cu* / libnccl2 on every node (or the same container image)"]),
    (r"Detected mixed local Net device counts across ranks",
     "src/init.cc: the nodes see different numbers of NICs (a NIC down or missing on one node, or a different "
     "NCCL_IB_HCA per node).",
     ["ibstat on every node (one node has fewer Active ports)", "NCCL_IGNORE_NET_MISMATCH=1 to run anyway"]),
    # --- network plugins (src/plugin/net.cc, src/net.cc before 2.24) ---
    (r"^NET/Plugin ?: (?:Failed to find ncclNetPlugin|Failed to find ncclCollNetPlugin|dlerror=%s No plugin found|"
     r"Could not find:%s)|^(?:TUNER|PROFILER)/Plugin: (?:Failed|failed|Could not)|^%s/Plugin: Could not find",
     "src/plugin (src/net.cc before 2.24): an INFO line: no external plugin (libnccl-net.so, a tuner or profiler) was "
     "found, or one lacks a symbol version, so NCCL uses its internal implementation. Harmless unless "
     "NCCL_NET_PLUGIN (or NCCL_TUNER_PLUGIN) asks for one.",
     ["nothing to do; if a plugin was meant (aws-ofi-nccl, nccl-rdma-sharp-plugins, gIB): put its directory on "
      "LD_LIBRARY_PATH or set NCCL_NET_PLUGIN=<its library>"]),
    (r"^Failed to initialize any NET plugin$|^Error: network %s not found",
     "No network NCCL may use initialised (src/plugin/net.cc ncclNetInit): NCCL_NET (or the communicator's "
     "netName) names a network that is not available here, NCCL_NET=IB on a node without usable RDMA NICs or a "
     "plugin's name that did not load; without NCCL_NET, NCCL falls back to sockets, which fail only when no "
     "interface matches NCCL_SOCKET_IFNAME.",
     ["env | grep -E '^NCCL_(NET|NET_PLUGIN|SOCKET_IFNAME)='   (on the node that printed it, and what the launcher "
      "passes)",
      "unset NCCL_NET (NCCL picks IB when it works, else sockets), or NCCL_NET=Socket on nodes without RDMA",
      "ibv_devinfo on the node when IB was expected (in a container: it needs --device=/dev/infiniband and the "
      "verbs library)"]),
    # the INFO line ncclNetPluginInit prints for each network whose init or device count fails; NCCL
    # then tries the next one (IB without NICs, then Socket) unless NCCL_NET names this one
    (r"^Failed to initialize NET plugin %s",
     "This network (NCCL's internal IB or Socket, or an external plugin) did not initialise or found no device "
     "(src/plugin/net.cc ncclNetPluginInit). With NCCL_NET naming it (NCCL_NET=IB on a node without usable RDMA "
     "NICs) NCCL stops with 'Failed to initialize any NET plugin'; without NCCL_NET it tries the next one and the "
     "line is harmless (a later 'Using network' line).",
     ["unset NCCL_NET (NCCL picks IB when it works, else sockets), or NCCL_NET=Socket on nodes without RDMA",
      "ibv_devinfo on the node when IB was expected (in a container: it needs --device=/dev/infiniband and the "
      "verbs library)"]),
    # --- topology (src/graph) ---
    (r"^Could not find NET with id|^Could not find net id",
     "src/graph/topo.h / search.cc: a search fell back to a NIC id that is not in the topology. Known in NCCL 2.26 "
     "with NIC fusion, after 'Could not find a path for pattern' (NVIDIA/nccl#1748, fine with 2.27); also a "
     "NCCL_TOPO_FILE whose NICs differ from the node's.",
     ["a newer NCCL (torch >= 2.8 bundles 2.27), or NCCL_NET_MERGE_LEVEL=LOC", "unset NCCL_TOPO_FILE if it "
                                                                              "describes other machines"]),
    # src/graph/topo.cc ncclTopoGetSystem reads NCCL_TOPO_FILE with ncclTopoGetXmlFromFile; src/graph/search.cc
    # ncclTopoCompute reads NCCL_GRAPH_FILE with ncclTopoGetXmlGraphFromFile, and returns ncclSystemError when it
    # cannot open it (the 'unhandled system error' torch then raises); env.html: NCCL_GRAPH_FILE is a debugging knob
    (r"^Could not open XML topology file|^XML Topology has wrong version",
     "src/graph/xml.cc: NCCL_TOPO_FILE names a topology file ({%1|the path}) that this node cannot read, or one "
     "written for another NCCL version; NCCL_TOPO_FILE replaces NCCL's own detection of this machine.",
     ["unset NCCL_TOPO_FILE (NCCL detects the topology itself), or point it at an existing file made for this "
      "machine type on every node (images for one VM size set it: grep -H NCCL_TOPO_FILE /etc/nccl.conf "
      "~/.nccl.conf)"]),
    (r"^Could not open XML graph file|^XML Graph has wrong version",
     "src/graph/xml.cc: NCCL_GRAPH_FILE names a graph file ({%1|the path}) that this node cannot read, or one "
     "written for another NCCL version; NCCL stops with ncclSystemError ('unhandled system error'). "
     "NCCL_GRAPH_FILE forces NCCL's rings and trees and is a debugging setting, not one for production runs.",
     ["unset NCCL_GRAPH_FILE (NCCL searches the graph itself; remove it from /etc/nccl.conf and ~/.nccl.conf "
      "too), or point it at an existing graph file made for this machine on every node"]),
    # src/graph/xml.cc ncclTopoDumpXmlToFile: the path of NCCL_TOPO_DUMP_FILE / NCCL_GRAPH_DUMP_FILE cannot be
    # created; NCCL goes on without the dump
    (r"^Unable to open %s, not dumping topology",
     "src/graph/xml.cc: the dump file NCCL_TOPO_DUMP_FILE / NCCL_GRAPH_DUMP_FILE names cannot be created (its "
     "directory does not exist or is not writable on this node); NCCL goes on without writing it.",
     ["point NCCL_TOPO_DUMP_FILE / NCCL_GRAPH_DUMP_FILE at a writable path on every node (one file per node: "
      "/tmp/topo-$(hostname).xml), or unset it"]),
    (r"^Could not find real path of",
     "src/transport/net_ib/init.cc (graph/xml.cc before): /sys has no PCI path for the device (WSL2, some VMs or "
     "containers with a partial /sys); NCCL cannot place it in the topology.",
     ["run with the host's /sys (containers: do not mask /sys/devices); on WSL2 multi-GPU NCCL is not supported"]),
    (r"Tried merging multiple devices together and failed",
     "src/graph/topo.cc: NIC fusion failed; NCCL says to limit it.",
     ["export NCCL_NET_MERGE_LEVEL=LOC"]),
    # --- NVLink SHARP / multicast, multi-node NVLink (src/transport/nvls.cc, src/mnnvl.cc) ---
    (r"MNNVL .*(?:not supported|not working) on this system|^MNNVL is not supported",
     "src/mnnvl.cc: multi-node NVLink (GB200 NVL) is available but IMEX is not set up (the channel "
     "/dev/nvidia-caps-imex-channels, the nvidia-imex service).",
     ["nvidia-imex-ctl -N (the IMEX domain); create the IMEX channel device in the job/container",
      "or NCCL_MNNVL_ENABLE=0 (use the network between trays)"]),
    (r'NCCL_NVLS_ENABLE has been set to "1" and communicator has multiple ranks using the same NVML device',
     "src/transport/nvls.cc: NVLS needs one rank per GPU; several ranks share one here.",
     ["one rank per GPU, or unset NCCL_NVLS_ENABLE"]),
    # --- site-fixes-3 (issue 18): the remaining WARN lines a user's setting, call or machine can cause, each from
    # the code that prints it (NVIDIA/nccl at the header's commit; the older releases where only they print it) and
    # the env / API docs (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html,
    # .../api/types.html#ncclconfig-t, .../usage/cudagraph.html, .../api/comms.html#ncclcommgrow). Left without a
    # row: NCCL's own invariants no setting reaches (NULL sockets and handles, proxy pool/list bookkeeping,
    # 'Unknown pattern', 'Could not find node/path/rev link' of the topology search, RAS/RMA/GIN protocol
    # checks, XML node limits: ~560 sites, most in proxy.cc, socket.cc, graph/, rma/, gin/, ras/,
    # p2p_resiliency*.cc), and the messages whose family entry is already their cause (see above).
    # ncclConfig_t (src/init.cc parseCommConfig): the program's config struct, not an environment variable
    (r"^Invalid config \w+ attribute value|^Invalig config graphUsageMode attribute value|"
     r"^Invalid config min/max channels attribute value",
     "src/init.cc parseCommConfig: a field of the ncclConfig_t the program passed to ncclCommInitRankConfig / "
     "ncclCommSplit is out of range (blocking, splitShare, shrinkShare, collnetEnable: 0 or 1; cgaClusterSize >= 0; "
     "minCTAs/maxCTAs > 0 with min <= max; nvlsCTAs, maxP2pPeers > 0); the value is {%-1|the number at the end}. "
     "NCCL returns ncclInvalidArgument.",
     ["torch: fix the field of dist.ProcessGroupNCCL.Options().config passed as pg_options (blocking, "
      "cga_cluster_size, min_ctas, max_ctas, split_share) or leave it unset; C/C++: start from "
      "ncclConfig_t config = NCCL_CONFIG_INITIALIZER and set only valid values",
      "the same limits come from NCCL_COMM_BLOCKING, NCCL_CGA_CLUSTER_SIZE, NCCL_MIN_CTAS, NCCL_MAX_CTAS "
      "(env.html): unset them to test"]),
    (r"^ncclConfig_t argument not initialized via NCCL_CONFIG_INITIALIZER|^ncclSimInfo_t argument not initialized",
     "src/init.cc / src/group.cc: the ncclConfig_t (or ncclSimInfo_t) the program passed was not created from "
     "NCCL_CONFIG_INITIALIZER, so its magic/version fields are garbage (or the program was compiled against "
     "another nccl.h than the libnccl it loads).",
     ["initialise the struct: ncclConfig_t config = NCCL_CONFIG_INITIALIZER; (ncclSimInfo_t: "
      "NCCL_SIM_INFO_INITIALIZER)", "build the program against the nccl.h of the libnccl.so.2 it loads "
      "(ldd / NCCL_DEBUG=VERSION show which)"]),
    # environment settings NCCL clamps or ignores (src/init.cc, src/enqueue.cc, src/graph/connect.cc)
    (r"NCCL_WORK_FIFO_(?:BYTES|DEPTH)=%l?d'? is (?:being ignored because it is not a power of 2|too small)",
     "src/init.cc / src/enqueue.cc: NCCL_WORK_FIFO_BYTES (NCCL_WORK_FIFO_DEPTH before 2.20) = {%1|the value} is not "
     "a power of two (or below the minimum); NCCL uses its default instead.",
     ["unset NCCL_WORK_FIFO_BYTES / NCCL_WORK_FIFO_DEPTH, or set a power of two (e.g. 1048576)"]),
    (r"^NCCL_CGA_CLUSTER_SIZE value %d is too big|^(?:min|max)CTAs %d is larger than (?:#channels upper limit|maxCTAs)|"
     r"^User asked for a (?:minimum|maximum) of %d channels",
     "src/init.cc / src/graph/connect.cc: a channel or CTA setting (NCCL_CGA_CLUSTER_SIZE, NCCL_MIN_CTAS / "
     "NCCL_MAX_CTAS, NCCL_MIN_NCHANNELS / NCCL_MAX_NCHANNELS, or the ncclConfig_t fields) is out of range "
     "({%1|the value}); NCCL clamps it and goes on.",
     ["unset it, or choose a value within the limit the message names (min <= max, at most 32 (64 on newer "
      "releases) channels)"]),
    (r"^splitShare %d is not a valid value 0/1|^Invalid NCCL_COMM_BLOCKING value %d",
     "src/init.cc: NCCL_COMM_SPLIT_SHARE_RESOURCES or NCCL_COMM_BLOCKING (or the config's splitShare / blocking) is "
     "{%1|a value} instead of 0 or 1.",
     ["set it to 0 or 1, or unset it (torch sets blocking itself for TORCH_NCCL_USE_COMM_NONBLOCKING)"]),
    (r"^Both NCCL_CTA_POLICY_ZERO and NCCL_CTA_POLICY_EFFICIENCY are set in CTAPolicy",
     "src/init.cc: NCCL_CTA_POLICY (or the config's CTAPolicy) sets both ZERO and EFFICIENCY; NCCL drops "
     "EFFICIENCY.",
     ["set one policy in NCCL_CTA_POLICY"]),
    (r"CollNet currently only supports up to (?:%d|8) GPUs per node|^CollNet is not supported or fails to "
     r"initialize, ignoring NCCL_ALGO=COLLNET|^Cannot initialize CollNet, using %s instead",
     "src/init.cc / src/graph/tuning.cc: NCCL_COLLNET_ENABLE=1 (or NCCL_ALGO=COLLNET*) asks for in-network "
     "reduction (SHARP) and this node or network cannot do it (more GPUs per node than CollNet takes, no CollNet "
     "plugin such as the SHARP plugin); NCCL goes on without it.",
     ["unset NCCL_COLLNET_ENABLE and NCCL_ALGO=COLLNET*; for SHARP install and load the nccl-rdma-sharp-plugins "
      "(NCCL_NET_PLUGIN / LD_LIBRARY_PATH) on a fabric with SHARP enabled"]),
    (r"^Ignoring SHM locality, must be 1 \(sender side\) or 2",
     "src/transport/shm.cc: NCCL_SHM_LOCALITY is neither 1 (sender side) nor 2 (receiver side); NCCL uses 2.",
     ["unset NCCL_SHM_LOCALITY or set 1 / 2"]),
    # NIC fusion settings (src/graph/topo.cc, src/transport/net_ib/init.cc)
    (r"^TOPO/NET : (?:Could not force merge NICs|Only matched %d devices, %d requested)|^Specified fused NIC %s which "
     r"has too many devices|^NCCL_NET_MERGE_POLICY: unknown value|^Fusing NET devices from different NUMA domains",
     "src/graph/topo.cc: NCCL_NET_FORCE_MERGE (or NCCL_NET_MERGE_POLICY) names NICs that do not exist on this node, "
     "too many for one virtual NIC, NICs of different NUMA nodes, or an unknown policy.",
     ["ibv_devices (the names of this node); NCCL_NET_FORCE_MERGE=mlx5_0,mlx5_1;mlx5_2,mlx5_3 (';' between "
      "fused NICs, ',' within one), or unset it and let NCCL_NET_MERGE_LEVEL decide"]),
    (r"^NET/IB : (?:Can't make virtual NIC with 0 devices|Cannot allocate any more virtual devices|Cannot use physical "
     r"device %d, max %d|Requested properties for vNic)|^NCCL cannot use (?:more than %d plane IDs|a plane ID that is)",
     "src/transport/net_ib/init.cc: the NIC fusion (NCCL_NET_MERGE_LEVEL / NCCL_NET_FORCE_MERGE / NCCL_IB_MERGE_NICS) "
     "or the multi-plane setup asks for more virtual or physical NICs (or plane IDs) than NET/IB supports.",
     ["NCCL_IB_MERGE_NICS=0 (no fusion), or fewer NICs in NCCL_IB_HCA / NCCL_NET_FORCE_MERGE"]),
    (r"^NET/IB : Local mergedDev(?:=| )%s has a different number of devices",
     "src/transport/net_ib.cc: the two nodes fused their NICs differently (one merged two ports into a virtual "
     "NIC, the other did not): their NICs, NCCL_IB_HCA or merge settings differ.",
     ["give every node the same NIC list and settings (NCCL_IB_HCA, NCCL_IB_MERGE_NICS, NCCL_NET_MERGE_LEVEL), or "
      "NCCL_IB_MERGE_NICS=0 on all nodes"]),
    # NET/IB settings and out-of-band (src/transport/net_ib/)
    (r"^NET/IB : No IP interface found\.",
     "src/transport/net_ib/init.cc: NET/IB needs one IP interface for its connection set-up and "
     "ncclFindInterfaces found none (NCCL_SOCKET_IFNAME names an interface that is down or absent).",
     _IFNAME_FIX),
    (r"^NET/IB: (?:open|read) failed in ncclIbRoceGetVersionNum",
     "src/transport/net_ib/connect.cc: NCCL could not read /sys/class/infiniband/<dev>/ports/<port>/gid_attrs/"
     "types/<gid index> to tell RoCE v1 from v2 GIDs (a container with a partial /sys, or a GID index that does "
     "not exist); the errno text follows.",
     ["pin the GID and version: NCCL_IB_GID_INDEX=<index of show_gids' RoCE v2 line> and NCCL_IB_ROCE_VERSION_NUM=2",
      "run the container with the host's /sys/class/infiniband (docker --privileged or a bind mount)"]),
    (r"^NET/IB: OOO RQ is force enabled but",
     "src/transport/net_ib/connect.cc: NCCL_IB_OOO_RQ=1 forces the out-of-order receive queue, and a NIC of this "
     "connection lacks adaptive routing or OOO support (or the peer does not enable it).",
     ["unset NCCL_IB_OOO_RQ (the default 0), or set it on every node whose NICs (ConnectX-7+ with AR) support it"]),
    (r"^NET/IB: Error in mlx5dv_get_data_direct_sysfs_path",
     "src/transport/net_ib/init.cc: probing the NIC's Data Direct path (CX-8 Direct-NIC) through mlx5dv failed.",
     ["NCCL_IB_DATA_DIRECT=0 (skip Data Direct), or update rdma-core / MLNX_OFED to the NIC's version"]),
    (r"^NET/IB: mlx5dv_create_qp failed to create QP",
     "src/transport/net_ib/connect.cc: creating the queue pair through mlx5dv (the features NCCL_IB_OOO_RQ / Data "
     "Direct ask for) failed; the errno text follows.",
     ["unset NCCL_IB_OOO_RQ / set NCCL_IB_DATA_DIRECT=0; check ulimit -l (locked memory: unlimited) in the job"]),
    (r"^Call to ibv_(?:query_ece|set_ece) failed",
     "src/misc/ibvwrap.cc: the RDMA NIC or its driver does not support ECE (enhanced connection establishment) "
     "that NCCL negotiates on RoCE.",
     ["NCCL_IB_ECE_ENABLE=0 on every node, or update MLNX_OFED / rdma-core and the NIC firmware"]),
    (r"^Call to ibv_(?:query_qp|dealloc_pd|dereg_mr|destroy_cq|destroy_qp|close_device|query_port_speed) failed",
     "src/misc/ibvwrap.cc: an RDMA clean-up or query call failed, mostly while NCCL tears a connection down after "
     "an earlier failure (the peer died, the job was aborted).",
     [_FIRST_ERROR, "alone at start-up: ibv_devinfo -v (the port is ACTIVE) and dmesg on the node for the NIC "
                    "driver's errors"]),
    (r"^(?:Call to )?ibv_post_(?:send|recv)\(\) failed with error|^Call to ibv_poll_cq\(\) returned",
     "src/include/ibvwrap.h: posting to or polling an RDMA queue failed: the queue pair is already in an error "
     "state (an earlier failed work request, a dead peer) or the NIC was reset.",
     [_FIRST_ERROR, "dmesg / ibv_devinfo on the node for a NIC that went down; then the first 'Got completion' "
                    "line's status"]),
    (r"^NET/IB : Got completion with error %d, opcode %d, len %d, vendor err %d",
     "src/transport/net_ib.cc (NCCL <= 2.11's wording): an RDMA work request failed; the first number is "
     "ibv_wc_status: " + _WC_STATUS + ".",
     ["status 12: ping / ib_write_bw between the two nodes' NICs, and " +
      _FIRST_ERROR.replace(": this line follows it", " on the peer"),
      "status 12 on a slow or congested fabric: a longer NCCL_IB_TIMEOUT (default 20, ~30 s: e.g. 22)",
      "status 4: disable PCIe ACS on the host, load nvidia-peermem, or NCCL_NET_GDR_LEVEL=LOC"]),
    (r"^NET/IB: (?:%s: )?Got CQE with error \(devIndex=",
     "src/transport/net_ib/p2p.cc: an RDMA work request of this connection completed with an error; the next line "
     "('Got completion from peer ... with status N') gives the peer's address and the ibv_wc_status: "
     + _WC_STATUS + ".",
     ["read the following 'Got completion from peer' line for the status and the peer; status 12: ping / "
      "ib_write_bw between the two nodes' NICs, and " + _FIRST_ERROR.replace(": this line follows it", " on the peer")]),
    # sockets (src/misc/socket.cc, src/os/linux.cc, src/include/socket.h, src/transport/net_socket.cc)
    (r"^Net : (?:No valid <IPv4_or_hostname>:<port> pair found|No valid \[IPv6\]:port pair found|string is null|"
     r"unsupported IP family)",
     "src/misc/socket.cc ncclSocketGetAddrFromString: NCCL_COMM_ID does not parse as <ipv4 or hostname>:<port> or "
     "[<ipv6>]:<port> (no port, an empty value, brackets missing).",
     ["export NCCL_COMM_ID=10.0.0.1:29600 (or [fe80::1]:29600), the same on every rank, or unset it (torch "
      "exchanges the id through its store)"]),
    (r"(?:ncclOsSocketProgressOpt|socketProgressOpt): Call to %s %s failed : %s|^Call to recv failed : %s|"
     r"^NET/Socket : socket progress error",
     "src/os/linux.cc / src/misc/socket.cc: a send or recv on a socket to another rank failed with the errno text "
     "at the end: 'Connection reset by peer' / 'Broken pipe' mean the peer process exited (crashed, killed, OOM).",
     [_FIRST_ERROR.replace(": this line follows it", " on the peer (its node's log and dmesg: OOM killer)"),
      "a timeout instead: the peer is alive but slow or unreachable: NCCL_SOCKET_IFNAME on the interface the "
      "nodes share"]),
    # CUDA / NVML libraries (src/misc/cudawrap.cc, src/misc/nvmlwrap.cc)
    (r"^Failed to load CUDA missing symbol (?:cuInit|cuDriverGetVersion|cuGetProcAddress)|^CUDA some PFN functions "
     r"not found in the library|^cuDriverGetVersion failed with",
     "src/misc/cudawrap.cc: the libcuda.so NCCL loaded lacks driver entry points: an old driver, or a stub / "
     "compat libcuda.so on LD_LIBRARY_PATH instead of the driver's.",
     ["nvidia-smi (driver version); ldconfig -p | grep libcuda.so (the driver's, not .../stubs/ or a cuda-compat "
      "of another driver); remove stub paths from LD_LIBRARY_PATH"]),
    (r"^nvml(?:Init|DeviceGetCount|DeviceGetHandleByIndex|DeviceGetHandleByPciBusId|DeviceGetIndex|"
     r"DeviceGetCudaComputeCapability|DeviceGetPciInfo|DeviceGetMinorNumber|DeviceGetP2PStatus|Shutdown)"
     r"(?:%s|\(%d(?:,%d,NVML_P2P_CAPS_INDEX_READ)?\))?\(\) failed: %s|^NVML failure '%s'|^Failed to open "
     r"libnvidia-ml\.so\.1",
     "src/misc/nvmlwrap.cc: NCCL's NVML call failed with the NVML error at the end: 'Driver/library version "
     "mismatch' (the driver was updated and not reloaded), 'Insufficient Permissions', 'GPU is lost', or no "
     "libnvidia-ml.so.1 in the container.",
     ["nvidia-smi on the node shows the same error: reboot (or reload the nvidia module) after a driver update; "
      "GPU is lost: drain the node", "in a container: run it with the NVIDIA runtime (--gpus all) so the "
      "driver's libnvidia-ml.so.1 is mounted"]),
    # CUDA IPC between a node's ranks (src/transport/p2p.cc)
    (r"^failed to peer with device %d(?:\(=%d\))?: %d %s",
     "src/transport/net.cc (and p2p.cc of older releases): cudaDeviceEnablePeerAccess between two GPUs of one process failed; "
     "the CUDA error follows (P2P blocked by PCIe ACS / IOMMU or a virtual machine, or too many peers).",
     ["nvidia-smi topo -p2p r (which pairs support P2P)", "one process per GPU (torchrun --nproc-per-node), or "
      "NCCL_P2P_LEVEL=NVL / NCCL_P2P_DISABLE=1 for PCIe-only peers"]),
    (r"^rank %d failed to get CUDA IPC handle to device|^failed to open CUDA IPC handle",
     "src/transport/p2p.cc: CUDA IPC between two ranks of a node failed (cudaIpcGetMemHandle / "
     "cudaIpcOpenMemHandle): the ranks run in different containers or IPC namespaces, or one rank does not see "
     "the other's GPU (CUDA_VISIBLE_DEVICES set per rank).",
     ["run a node's ranks in one container / with --ipc=host (docker) and let every rank see all the node's GPUs "
      "(select with torch.cuda.set_device(local_rank), not CUDA_VISIBLE_DEVICES per rank)",
      "or NCCL_P2P_DISABLE=1 (shared memory instead; slower)"]),
    # API misuse a program (not torch) makes (src/init.cc ncclCommGrow, src/enqueue.cc, src/group.cc)
    (r"^ncclCommGrow: ",
     "src/init.cc ncclCommGrow: the call's arguments do not follow the grow protocol: existing ranks pass "
     "rank=-1 and no uniqueId, new ranks a rank in [current size, new size) and the uniqueId from the root's "
     "ncclCommGetUniqueId, everyone the same new total.",
     ["check the arguments per rank against https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/"
      "comms.html (ncclCommGrow), and that all ranks use the same NCCL release"]),
    (r"^ncclRedOpDestroy : |^Data type supplied to user-created ncclRedOp_t does not match",
     "src/enqueue.cc: a custom reduction operator (ncclRedOpCreatePreMulSum) was destroyed twice / on another "
     "communicator, or used with a data type other than the one it was created for.",
     ["create the op per communicator and datatype, use it only there, destroy it once (torch: "
      "dist._make_nccl_premul_sum works on half/float/double tensors)"]),
    (r"^Streams given to a communicator within a NCCL group must either be all uncaptured|^Either none or all "
     r"communicators in a ncclGroup\(\) can be CUDA graph captured|^Illegal to have some communicators in graph "
     r"mode while others not|^Error : mixing different streams within a group call",
     "src/enqueue.cc / src/group.cc: one ncclGroupStart/End mixes operations captured in a CUDA graph with "
     "uncaptured ones (or different streams): torch.cuda.graph / torch.compile(mode='reduce-overhead') captured "
     "only some of the collectives of a coalesced group.",
     ["capture every collective of the group (or none): keep batch_isend_irecv / coalesced collectives wholly "
      "inside or outside torch.cuda.graph()", "torch.compile: mode='default' (no CUDA graphs) for the distributed "
      "part"]),
    (r"^Trying to (?:send|recv) to self without a matching (?:recv|send)",
     "src/enqueue.cc: a rank posted a send to itself (or a recv from itself) with no matching recv (send) in the "
     "same group call.",
     ["pair them in one dist.batch_isend_irecv([P2POp(dist.isend, t, me), P2POp(dist.irecv, r, me)]), or copy "
      "locally instead of sending to self"]),
    (r"^FP8 reduction support begins with sm90 capable devices",
     "src/enqueue.cc: a reduction on float8 tensors needs Hopper (sm90) or newer GPUs.",
     ["reduce in bfloat16 / float32 on older GPUs (t.to(torch.bfloat16)), or run on H100-class GPUs"]),
    (r"^One-sided RMA requires CUDA driver 12\.5 or later",
     "src/enqueue.cc: NCCL's one-sided (put/signal) API needs an NVIDIA driver of CUDA 12.5 or newer; this node's "
     "driver is older (the message names its CUDA version).",
     ["update the driver (nvidia-smi shows its CUDA version)"]),
    (r"^Split shares resources, but parent comm netName %s is different|^Comm config netName \(%s\) does not match "
     r"the parent",
     "src/init.cc / src/plugin/net.cc: ncclCommSplit with splitShare=1 shares the parent's network, and the child's "
     "config names another netName.",
     ["give the child the parent's netName (or none), or splitShare=0 (NCCL_COMM_SPLIT_SHARE_RESOURCES=0)"]),
    # the proxy thread after an abort or an earlier failure (src/proxy.cc)
    (r"^ncclProxyCallAsync\(\) - Saw abortFlag while waiting for proxyThread response|^Comm %p is in abort state",
     "src/proxy.cc: the communicator was aborted (ncclCommAbort: torch's watchdog after a timeout or an error on "
     "another rank) while this call waited for the proxy thread.",
     [_FIRST_ERROR]),
    (r"^\[Service thread\] (?:Initialize|Get) peers\[%d\]\.sock(?: fd)? fails|^\[Proxy Service(?: UDS)?\] Get "
     r"listenSock fd fails",
     "src/proxy.cc: the proxy service thread could not set up its socket to a local rank (the rank exited, or the "
     "process is out of file descriptors).",
     [_FIRST_ERROR, "ulimit -n in the job (raise it: e.g. 1048576) when many GPUs or communicators share a node"]),
    # topology files (src/graph/xml.cc, xml.h): NCCL_TOPO_FILE / NCCL_GRAPH_FILE a user wrote or copied
    (r"^XML Parse(?: error)? : |^XML Mismatch : |^Error : (?:value|name) %s too long|^Attribute %s of node %s not "
     r"found|^KV Convert to (?:int|str) : could not find value",
     "src/graph/xml.cc: NCCL's XML parser failed on a topology file: NCCL_TOPO_FILE or NCCL_GRAPH_FILE (or a file a "
     "cloud image sets, e.g. /opt/microsoft/ndv4-topo.xml) is malformed or written for another NCCL release.",
     ["echo $NCCL_TOPO_FILE $NCCL_GRAPH_FILE; xmllint --noout <file>; unset the variable to let NCCL detect the "
      "topology, or use the file the image vendor ships for this NCCL"]),
]

FAILURE_WORDS = re.compile(r"fail|error|unable|cannot|can't|could not|invalid|not found|mismatch|timeout|"
                           r"timed out|abort|refused|denied", re.IGNORECASE)
_CALL = re.compile(r"(?<![A-Za-z0-9_])(WARN|INFO)\s*\(")


def parse_format(src, i):
    """The format string of a WARN/INFO call whose argument list starts at src[i] (after its
    level argument for INFO): adjacent literals, PRIxNN macros and #stringified arguments (%s),
    up to the first ',' or ')' outside a literal (knowgen.c_format). None when it holds no literal."""
    return knowgen.c_format(src, i, macro=r"#\s*[A-Za-z_]\w*", lead=True)


def _calls(path, src):
    for m in _CALL.finditer(src):
        level = m.group(1)
        i = m.end()
        if level == "INFO":  # INFO(NCCL_INIT|NCCL_NET, "fmt", ...)
            j = src.find(",", i, i + 200)
            if j < 0 or '"' in src[i:j]:
                continue
            i = j + 1
        fmt = parse_format(src, i)
        if not fmt:
            continue
        if level == "INFO" and not FAILURE_WORDS.search(fmt):
            continue
        line = src.count("\n", 0, m.start()) + 1
        yield level, "%s:%d" % (path, line), fmt


def sites_of(path, src):
    yield from _calls(path, src)
    yield from _macro_sites(path, src)


# A function-like macro whose WARN/INFO format joins one of its own parameters as a string
# (src/misc/ibvwrap.cc: #define IBV_PTR_CHECK_ERRNO(..., name) ... WARN("Call to " name " failed with
# error %s", strerror(errno)), used as IBV_PTR_CHECK_ERRNO(..., "ibv_reg_mr")): the #define alone
# gives the too vague 'Call to ' (unassigned); each use with a string literal for that parameter
# prints its own message, a site at the use's line ('Call to ibv_reg_mr failed with error %s').
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)\n]*)\)((?:[^\n]*\\\n)*[^\n]*)", re.M)


def _macro_sites(path, src):
    for d in _DEFINE.finditer(src):
        name, params, body = d.group(1), [p.strip() for p in d.group(2).split(",")], d.group(3)
        joined = [k for k, p in enumerate(params) if p and re.search(r'"\s*\\?\s*%s\s*\\?\s*"' % re.escape(p), body)]
        if not joined or not _CALL.search(body):
            continue
        k = joined[0]
        for use in re.finditer(r"(?<![\w#])%s\s*\(" % re.escape(name), src):
            if use.start() >= d.start() and use.start() < d.end():
                continue  # the #define itself
            args = knowgen.call_args(src, use.end())
            if not args or len(args) != len(params) or not re.fullmatch(r'"[^"\\\n]{1,80}"', args[k]):
                continue
            text = re.sub(r'"\s*\\?\s*%s\s*\\?\s*"' % re.escape(params[k]), args[k][1:-1], body)
            line = src.count("\n", 0, use.start()) + 1
            for level, _, fmt in _calls(path, text):
                yield level, "%s:%d" % (path, line), fmt


# NCCL >= 2.30 builds on Windows too (src/os/windows.cc, windows_ipcsocket.cc, windows_socket_pair.cc:
# Win32 calls, and older wordings of Linux messages, e.g. 'Error while %s shared memory segment %s (size
# %ld)' without the ', error: %s (%d)' of src/os/linux.cc). Training clusters run NCCL on Linux: a line
# of those texts comes from an older Linux release (src/misc/shmutils.cc, src/include/shm.h), never
# from these files, so they are left out.
_NOT_LINUX = re.compile(r"(?:^|/)src/os/windows\w*\.cc$")


# Which NCCL_* variable's value a function is given (the generic form of "this message names the file
# NCCL_GRAPH_FILE points to"): `x = ncclGetEnv("NCCL_Y")` followed, within ENV_WINDOW characters, by a call
# `f(x, ...)` or `f(..., x)` whose callee is not a C string/number helper or NCCL's own logging. A message
# printed inside f (the function whose definition encloses the WARN/INFO) then gets the site field env=NCCL_Y.
# One level only: a helper f calls in turn (the XML parser under the file reader) is not followed, as it is
# called for files NCCL writes itself too.
# A helper called for several values names all of them or none: every other call of f is read too, and the
# argument at the place the variable's value had is either another traced variable's value, a literal
# (src/graph/topo.cc reads the fixed "/var/run/nvidia-topologyd/virtualTopology.xml" with the same reader as
# NCCL_TOPO_FILE: that file's message prints its own path), a parameter of a function that is itself given
# a variable (init.cc passes NCCL_TOPO_DUMP_FILE's value to ncclTopoGetSystem, which hands it on to
# ncclTopoDumpXmlToFile, the writer NCCL_GRAPH_DUMP_FILE uses too), or any other value, and then the
# message is not about a variable: kvConvertToInt (src/graph/xml.h) converts NCCL_NET_MERGE_LEVEL once and
# the XML topology's attributes (a PCI class, a link type, a CPU vendor) everywhere else.
ENV_WINDOW = 600
_GETENV = re.compile(r"(\w+)\s*=\s*ncclGetEnv\(\s*\"(NCCL_\w+)\"\s*\)")
_NOT_READERS = frozenset("if while for return sizeof strlen strcmp strncmp strcasecmp strncasecmp strdup strndup strchr "
                         "strrchr strstr strtok strtok_r atoi atol atoll strtol strtoul strtoll strtoull strtod sscanf "
                         "snprintf sprintf strcpy strncpy strcat strncat free getenv INFO WARN TRACE "
                         "NCCLCHECK NCCLCHECKGOTO".split())
# a function definition: a line at column 0 (not a preprocessor line, no ';' before the name's '(')
_FUNC_DEF = re.compile(r"^(?![ \t#/])[^\n;{}()=]*?\b(\w+)\s*\(", re.M)
# an argument that is no variable's value: a string literal (or several joined), NULL, a number
_CONSTANT = re.compile(r'^(?:"(?:[^"\\\n]|\\.)*"\s*)+$|^(?:NULL|nullptr|-?\d+)$')


def _traced_calls(files):
    """{(path, offset of the callee's name): (callee, argument index, variable)} of the calls given an
    NCCL_* variable's value (`x = ncclGetEnv("NCCL_Y"); ...; f(.., x, ..)`)."""
    out = {}
    for path, src in files:
        for m in _GETENV.finditer(src):
            var, env = m.group(1), m.group(2)
            start = m.end()
            tail = src[start:start + ENV_WINDOW]
            # the value copied once (src/ras/client_support.cc: `if (const char* env = ncclGetEnv("NCCL_RAS_ADDR"))
            # clientAddr = env;`) is the same value
            names = [var] + re.findall(r"(?<![\w.>])([A-Za-z_]\w*)\s*=\s*%s\s*;" % re.escape(var), tail)
            for name in names:
                for c in re.finditer(r"(?<![\w.>])([A-Za-z_]\w*)\s*\((?:[^();]{0,120},\s*)?%s\s*[,)]" % re.escape(name),
                                     tail):
                    if c.group(1) in _NOT_READERS:
                        continue
                    args = knowgen.call_args(src, src.index("(", start + c.end(1)) + 1) or []
                    if name in args:
                        out[(path, start + c.start(1))] = (c.group(1), args.index(name), env)
    return out


def _calls_of(files, name):
    """[(path, offset, src)] of the calls of ``name``: not its definition or declaration (a line at column 0),
    not a comment."""
    out = []
    for path, src in files:
        for m in re.finditer(r"(?<![\w.>])%s\s*\(" % re.escape(name), src):
            bol = src.rfind("\n", 0, m.start()) + 1
            head = src[bol:m.start()]
            if not head[:1].isspace() or "//" in head or head.lstrip().startswith("*"):
                continue
            out.append((path, m.start(), src))
    return out


def _params(src, offset):
    """The parameter names of the function whose definition encloses ``offset`` (None outside one)."""
    last = None
    for m in _FUNC_DEF.finditer(src, 0, offset):
        last = m
    if last is None:
        return None, ()
    args = knowgen.call_args(src, last.end()) or []
    names = (re.findall(r"[A-Za-z_]\w*", a.split("=")[0].split("[")[0]) for a in args)
    return last.group(1), tuple(n[-1] for n in names if n)


def _env_functions(files):
    """{function name: sorted NCCL_* variables whose values the source passes to it}: a function also called
    with a value that is no variable's (see above) is left out."""
    traced = _traced_calls(files)
    given = {}
    for (_path, _off), (f, _i, env) in traced.items():
        given.setdefault(f, set()).add(env)
    out = {}
    for f in sorted(given):
        places = {i for (g, i, _e) in traced.values() if g == f}
        names, shared = set(given[f]), False
        for path, off, src in _calls_of(files, f):
            if (path, off) in traced:
                continue
            args = knowgen.call_args(src, src.index("(", off) + 1) or []
            for i in places:
                a = args[i] if i < len(args) else ""
                if not a or _CONSTANT.match(a):
                    continue
                outer, params = _params(src, off)
                if a in params and outer in given and outer != f:
                    names |= given[outer]
                    continue
                shared = True
        if not shared:
            out[f] = sorted(names)
    return out


def _enclosing(src, line):
    """The name of the function whose definition starts last before ``line`` (1-based)."""
    pos = len("\n".join(src.split("\n")[:line - 1]))
    name = None
    for m in _FUNC_DEF.finditer(src, 0, pos):
        name = m.group(1)
    return name


# the `if (...)` whose block a message is printed in: NCCL writes `if (cond) {` on the line(s) just above its WARN
_IF = re.compile(r"\bif\s*\(")
COND_LINES = 3


def _condition(src, line):
    """The condition of the `if` just above ``line`` (1-based; within COND_LINES lines, ending in `{`), '' else."""
    lines = src.split("\n")
    for k in range(line - 2, max(-1, line - 2 - COND_LINES), -1):
        text = lines[k] if 0 <= k < len(lines) else ""
        if text.rstrip().endswith(";") or text.rstrip().endswith("}"):
            return ""  # another statement ends between them: the message is not that `if`'s first statement
        m = _IF.search(text)
        if m:
            return " ".join(" ".join(lines[k:line - 1])[m.start():].split())[:300]
    return ""


def build(files, version, older=()):
    """``older``: [(version, files)] of earlier releases, newest first: a format that only they
    print (a message removed or reworded since, still in the logs of jobs that run them) becomes
    a site too, with ``until``: the last of them that prints it."""
    sites, seen = [], set()
    for rel, rel_files in [(None, files)] + list(older):
        env_of = _env_functions(rel_files)
        for path, src in rel_files:
            if _NOT_LINUX.search(path):
                continue
            for level, where, fmt in sites_of(path, src):
                key = (level, fmt)
                if key in seen:  # one format printed at several places (or releases): one matcher
                    continue
                seen.add(key)
                line = int(where.rsplit(":", 1)[1])
                func = _enclosing(src, line)
                sites.append(_site(level, where, fmt, rel, env_of.get(func), func, _condition(src, line)))
    note = "WARN(...) and failure INFO(...) format strings of NCCL's src/; families from the RULES table of the " \
           "generator"
    if older:
        version = "%s; formats only older releases print, from %s" % (version, ", ".join(v for v, _ in older))
    return {"header": knowgen.header(SOURCE, version, GENERATOR, note), "results": RESULTS_FALLBACK, "sites": sites}


# NCCL's own prefix on the lines it prints (src/debug.cc: 'host:pid:tid [dev] NCCL WARN ', and in old
# releases '... [0] misc/ibvwrap.cu:61 WARN ' with the file and line). A format whose only literal
# words are short and common to any program ('%s() failed: %s', 'close failed: %s', 'Failed to
# send: %d', 'Invalid %s %d (maximum %d).') matches only after it: UCX's 'ERROR mlx5_0:
# ibv_create_cq() failed: Cannot allocate memory.' is no NCCL internal error. A format that names
# NCCL's own things (_OWN_WORDS) keeps matching alone: torch shows NCCL's last WARN text after
# 'Last error:' with no prefix.
CONTEXT_BELOW = 14
_CONTEXT = r"(?:\bNCCL (?:WARN|INFO)|\.(?:cc|cu|h):\d{1,6} (?:WARN|INFO))\b[^\n]{0,160}?"
_OWN_WORDS = re.compile(r"nccl|nvml|Cuda failure|NVLS|XML|DOCA|\bIB\b|dlsym|ndev|nRanks|cudaDev|busId|Net :|onnect to %s failed : |"
                        r"Attribute %s of node|network %s not found", re.IGNORECASE)


def _site(level, where, fmt, until=None, env=None, func=None, cond=""):
    rx, literal = knowgen.printf_to_regex(fmt)
    tag = "" if until is None else "v%s." % until.replace(".", "_")
    site = {"id": "nccl.%s.%s%s" % (level.lower(), tag, knowgen.slug(where)), "where": where, "level": level,
            "text": fmt}
    if until is not None:
        site["until"] = until
    if env:
        site["env"] = list(env)
    if not knowgen.unanchored(site, rx, literal):
        rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt, "level": level,
                                                    "env": " ".join(env or ()), "func": func or "",
                                                    "cond": cond})
        if len("".join(literal.split())) < CONTEXT_BELOW and not _OWN_WORDS.search(fmt):
            rx = _CONTEXT + rx
        site.update({"re": None if rule == "too-generic" else rx, "family": family, "rule": rule})
        if site["re"]:
            knowgen.give_fix(site, MSG_FIX, fmt)
    return site


# ncclResult_t (src/nccl.h.in); read from the source when it is there
RESULTS_FALLBACK = {}


def _results(text):
    out = {}
    m = re.search(r"typedef enum \{ *ncclSuccess(.*?)\} *ncclResult_t;", text, re.S)
    for name, num in re.findall(r"(nccl[A-Z]\w+)\s*=\s*(\d+)", "ncclSuccess" + (m.group(1) if m else "")):
        if name not in ("ncclNumResults",):
            out[num] = name
    return out


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    commit = git("rev-parse", rev + "^{commit}").strip()
    ver = git("show", "%s:makefiles/version.mk" % rev)
    v = ".".join(re.search(r"NCCL_%s\s*:=\s*(\d+)" % k, ver).group(1) for k in ("MAJOR", "MINOR", "PATCH"))
    files = knowgen.tree_files(git, rev, ("src",), lambda p: re.search(r"\.(cc|cu|h|cpp)$", p))
    RESULTS_FALLBACK.update(_results(git("show", "%s:src/nccl.h.in" % rev)))
    return files, "%s (commit %s)" % (v, commit)


def older_releases(repo, rev, first_minor=4):
    """[(version, files)] of the last release of each minor line from 2.<first_minor> up to the one
    before ``rev``'s, newest first (tags v2.M.P-1; read with `git archive`, one call per release)."""
    import io
    import tarfile

    git = knowgen.git_reader(repo)
    newest = _version_of(git, rev)
    last = {}
    for tag in git("tag", "--list", "v2.*").split():
        m = re.match(r"^v2\.(\d+)\.(\d+)-1$", tag)
        if m and int(m.group(1)) >= first_minor:
            v = (2, int(m.group(1)), int(m.group(2)))
            if v[:2] < newest[:2] and v > last.get(v[:2], (0,)):
                last[v[:2]] = v
    out = []
    for v in sorted(last.values(), reverse=True):
        tag = "v%d.%d.%d-1" % v
        data = subprocess.run(["git", "-C", repo, "archive", "--format=tar", tag, "src"], check=True,
                              capture_output=True).stdout
        files = []
        with tarfile.open(fileobj=io.BytesIO(data)) as tf:
            for m in tf.getmembers():
                if m.isfile() and re.search(r"\.(cc|cu|h|cpp)$", m.name):
                    files.append((m.name, tf.extractfile(m).read().decode("utf-8", "replace")))
        out.append(("%d.%d.%d" % v, sorted(files)))
    return out


def _version_of(git, rev):
    ver = git("show", "%s:makefiles/version.mk" % rev)
    return tuple(int(re.search(r"NCCL_%s\s*:=\s*(\d+)" % k, ver).group(1)) for k in ("MAJOR", "MINOR", "PATCH"))


def from_slice(path):
    files, version = knowgen.read_slice(path)
    for p, text in files:
        if p.endswith("nccl.h.in"):
            RESULTS_FALLBACK.update(_results(text))
    return [(p, t) for p, t in files if not p.endswith(".in")], version


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="HEAD", extra=[("--older", {
        "action": "store_true",
        "help": "also the formats only older releases print (the last release of each line from 2.4)"})])
    files, version = knowgen.source_files(a, from_repo, from_slice)
    older = older_releases(a.repo, a.rev) if a.repo and a.older else ()
    doc = build(files, version, older)
    if a.repo:  # a slice holds only some sites
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"])
    return knowgen.emit("nccl_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/gloo_messages.json: the failures Gloo (torch's CPU
collective backend, torch/third_party/gloo) can raise: every GLOO_ENFORCE* check, which throws
gloo::EnforceNotMet printed as `[enforce fail at <file>:<line>] <condition>. <message>`
(gloo/common/logging.h), and every GLOO_THROW_IO_EXCEPTION / GLOO_THROW message (transport errors:
timeouts, peers that closed the connection, addresses that do not resolve), each with a bounded
matcher and the knowledge family from the RULES table below.

Usage:
    python tools/gen_gloo_messages.py --repo /path/to/gloo.git [--rev HEAD] [-o OUT]
    python tools/gen_gloo_messages.py --slice tools/data/gloo_messages_slice.txt -o OUT   (the test)

Source: pytorch/gloo (https://github.com/pytorch/gloo), read with `git show REV:path`. A slice
holds parts of source files, each after `=== path @FIRSTLINE`.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_gloo_messages.py"

# (rule, knowledge entry, {field: regex}); fields: where, text (condition and message), kind
RULES = [
    ("size-mismatch", "gloo.size_mismatch", {"text": r"preamble\.length <= op\.nbytes|op\.preamble\.roffset|"
                                                      r"collective mismatch|doesn't match expected size"}),
    ("timeout", "gloo.timeout", {"text": r"Timed out|timeout|Application timeout"}),
    ("peer-gone", "errno.peer_gone", {"text": r"closed by peer|Connection reset|Broken pipe|closed the connection"}),
    ("address", "gloo.socket_ifname", {"text": r"address|interface|getaddrinfo|hostname|Unable to find|bind|connect"}),
    ("enforce", "gloo.enforce", {"kind": r"enforce"}),
    ("io", "gloo.enforce", {"kind": r"io"}),
]
# What one message means and what to do, where its family's fix is too general: [(regex over the
# format, means, [fix])], the first row that matches gives an assigned site its own `means`/`fix`
# (knowgen.give_fix). Written from the code around each site (pytorch/gloo at the commit in the
# header) and torch.distributed's documentation of the Gloo backend (GLOO_SOCKET_IFNAME,
# init_process_group's timeout: https://pytorch.org/docs/stable/distributed.html); each `means` names
# the file that raises it. main() stops when a row finds no site (move a reworded message's row by hand).
_FIRST = "find the first rank that failed or fell behind (its own traceback, or its last log line before this time)"
_IFNAME = "export GLOO_SOCKET_IFNAME=<the interface the nodes reach each other on, e.g. eth0> on every rank " \
          "(ip -br addr shows them)"
# No rows for what a family already answers with its own causes, from the log and the nodes' facts:
# gloo.size_mismatch (op.preamble.length <= op.nbytes), gloo.timeout's 'Timed out waiting %sms for
# recv/send operation' (a late or gone rank, rank-0-only work), gloo.socket_ifname's 'Unable to find
# address for', 'bind:', 'connect:' and 'Pair is not connected' (GLOO_SOCKET_IFNAME, computed from the facts).
MSG_FIX = [
    (r"^Read error %s: %s\. This is typically caused",
     "gloo/transport/tcp/pair.cc: reading from the peer at {%1|the address named} failed (the text after it is the "
     "errno, e.g. 'Connection reset by peer'); Gloo itself says a remote worker hung or the application has a bug.",
     [_FIRST + " on the node of {%1|the address named}"]),
    (r"^Connection closed by peer %s|^Socket (?:unexpectedly )?closed %s",
     "gloo/transport/tcp/pair.cc: the peer at {%1|the address named} closed its end: that process crashed or exited "
     "(often because of its own earlier error), or was killed (OOM killer, a time limit).",
     [_FIRST + " on the node of {%1|the address named}", "dmesg on that node (OOM kills leave no Python error)"]),
    (r"^Connect timeout %s",
     "gloo/transport/tcp/pair.h (uv/pair.cc): connecting to the peer's address did not succeed in time: the address "
     "is on an interface the other node cannot reach (docker0, a second NIC, a link-local or IPv6 address), a "
     "firewall drops the port, or the peer has not started.",
     [_IFNAME, "nc -zv <address> <port> from this node; open the TCP ports between the nodes"]),
    (r"ss1\.ss_family == ss2\.ss_family",
     "gloo/transport/tcp/device.cc isInitiator: the two ends of a pair use different address families: one rank "
     "advertised an IPv6 address and the other an IPv4 one (a host name that resolves to IPv6 on some nodes).",
     ["export GLOO_SOCKET_IFNAME=<an interface with an IPv4 address> on every rank",
      "make each host name resolve to the same family everywhere (/etc/hosts)"]),
    (r"rank >= 0\. %d vs %d$|rank < size\. %d vs %d$",
     "gloo/context.cc: a rank outside 0..size-1: RANK and WORLD_SIZE disagree with the ranks started.",
     ["check RANK / WORLD_SIZE on every node (torchrun: --nnodes x --nproc-per-node and --node-rank)"]),
    (r"\. socket: %s$|\] false\. accept: %s",
     "gloo/transport/tcp: creating or accepting a socket failed (the errno follows; 'Too many open files': the "
     "process used up its file descriptors: many ranks or process groups).",
     ["ulimit -n (raise it, e.g. 1048576; containers: --ulimit nofile=)"]),
    (r"^Wait timeout for key\(s\)",
     "gloo/rendezvous/file_store.cc: a rank waited for keys that another rank never wrote to the init_method file: "
     "the file is not on a filesystem every node shares, a stale file of an earlier run is there, or a rank never "
     "started.",
     ["init_method='file:///<a path on a shared filesystem>', a new file per run (remove the old one first)"]),
    (r"File already exists: %s|File cannot be (?:created|opened): %s",
     "gloo/rendezvous/file_store.cc: the FileStore path (init_method file://) cannot be used: its directory is "
     "missing or not writable on this node, or a file of an earlier run is in the way.",
     ["init_method='file:///<a writable path on a shared filesystem>', new per run"]),
    (r"ibv_reg_mr: %s \(did you run into the locked memory limit",
     "gloo/transport/ibverbs/unbound_buffer.cc: registering a buffer with the NIC failed; Gloo suggests the "
     "locked-memory limit.",
     ["ulimit -l unlimited in the job (containers: --ulimit memlock=-1:-1)"]),
    (r"ibv_reg_mr: %s \(kernel module 'nv_peer_mem' not loaded",
     "gloo/transport/ibverbs/unbound_buffer.cc: registering GPU memory with the NIC failed: GPUDirect RDMA's kernel "
     "module is not loaded.",
     ["modprobe nvidia-peermem (nv_peer_mem on old drivers), or use host buffers"]),
    # site-fixes-3 (issue 18): what a torch user's settings reach in Gloo beyond the rows above, from the code
    # around each check (pytorch/gloo at the header's commit) and torch's GlooDeviceFactory.cpp, which reads
    # GLOO_DEVICE_TRANSPORT=TCP_TLS's key, certificate and CA from GLOO_DEVICE_TRANSPORT_TCP_TLS_PKEY / _CERT /
    # _CA_FILE / _CA_PATH (https://github.com/pytorch/pytorch/blob/main/torch/csrc/distributed/c10d/GlooDeviceFactory.cpp).
    # Left without a row: the algorithms' argument checks (allreduce.cc, reduce.cc, gatherv.cc, ... : torch's
    # ProcessGroupGloo builds their options itself, a user's tensors reach them checked), the pair/loop state
    # invariants and the ibverbs / MPI / NCCL / Redis transports torch does not use (~280 sites).
    (r"pkey != nullptr && cert != nullptr\. Private key and certificate|ca_file != nullptr \|\| ca_path != nullptr",
     "gloo/transport/tcp/tls/context.cc: GLOO_DEVICE_TRANSPORT=TCP_TLS needs a private key, a certificate and a CA, "
     "and one of them is not set.",
     ["export GLOO_DEVICE_TRANSPORT_TCP_TLS_PKEY=<key.pem> GLOO_DEVICE_TRANSPORT_TCP_TLS_CERT=<cert.pem> "
      "GLOO_DEVICE_TRANSPORT_TCP_TLS_CA_FILE=<ca.pem> on every rank, or unset GLOO_DEVICE_TRANSPORT (plain TCP)"]),
    (r"_glootls::SSL_CTX_(?:load_verify_locations|use_certificate_chain_file|use_PrivateKey_file|check_private_key|"
     r"set_min_proto_version)|ssl_ctx != nullptr\. %s",
     "gloo/transport/tcp/tls/context.cc: OpenSSL refused the TLS files of GLOO_DEVICE_TRANSPORT=TCP_TLS (a path that "
     "does not exist on this node, a PEM that does not parse, a key that does not belong to the certificate); "
     "OpenSSL's reason follows.",
     ["openssl x509 -in $GLOO_DEVICE_TRANSPORT_TCP_TLS_CERT -noout -subject; openssl verify -CAfile "
      "$GLOO_DEVICE_TRANSPORT_TCP_TLS_CA_FILE $GLOO_DEVICE_TRANSPORT_TCP_TLS_CERT (the files must exist on every "
      "node)"]),
    (r"is_ssl_connected_\. handshake was not succeeded after %s attempts|is_ssl_connected_\. Pair is not SSL connected",
     "gloo/transport/tcp/tls/pair.cc: the TLS handshake with a peer rank failed: the ranks do not trust each "
     "other's certificates (another CA), or one rank runs without TCP_TLS.",
     ["set GLOO_DEVICE_TRANSPORT=TCP_TLS on every rank, with certificates signed by the CA every rank's "
      "GLOO_DEVICE_TRANSPORT_TCP_TLS_CA_FILE names"]),
    (r"timeout\.count\(\) >= 0\. Invalid timeout|timeout_2\.count\(\) > 0",
     "gloo/context.cc, alltoall*.h: a Gloo context or collective got a negative or zero timeout.",
     ["pass a positive timeout: init_process_group(backend='gloo', timeout=datetime.timedelta(minutes=30))"]),
    (r"\. (?:pipe|epoll_create|epoll_ctl|setsockopt|fcntl|listen): %s$",
     "gloo/transport/tcp/loop.cc, socket.cc: a system call for Gloo's sockets failed with the errno text at the "
     "end; 'Too many open files' means the process ran out of file descriptors (one socket per peer and Gloo "
     "group).",
     ["'Too many open files': ulimit -n 1048576 in the job script (or the container's --ulimit nofile=...), and "
      "fewer Gloo groups / DataLoader workers per process", "other errno: the message names it (e.g. 'Address "
      "already in use' for listen)"]),
]

_MACRO = re.compile(r"\b(GLOO_ENFORCE(?:_EQ|_NE|_LE|_LT|_GE|_GT|_THAT)?|GLOO_THROW(?:_IO_EXCEPTION|_INVALID_OPERATION_EXCEPTION)?"
                    r"|GLOO_ERROR_MSG)\s*\(")
_OPS = {"_EQ": "==", "_NE": "!=", "_LE": "<=", "_LT": "<", "_GE": ">=", "_GT": ">"}


def _args(src, i):
    """The top-level arguments of a macro call whose '(' ends at src[i-1], empty ones dropped."""
    args = knowgen.call_args(src, i)
    return None if args is None else [a for a in args if a]


def _stringify(expr):
    """What the preprocessor's # makes of an argument: whitespace runs become one blank."""
    return " ".join(expr.split())


def _message(args):
    """MakeString(args...) as a printf format: string literals verbatim, anything else %s."""
    parts = []
    for a in args:
        lits = re.findall(r'"((?:[^"\\]|\\.)*)"', a)
        if lits and re.fullmatch(r'(?:\s*"(?:[^"\\]|\\.)*"\s*)+', a):
            parts.append("".join(lits).replace("%", "%%").replace('\\"', '"').replace("\\n", " "))
        else:
            parts.append("%s")
    return "".join(parts)


def sites_of(path, src):
    for m in _MACRO.finditer(src):
        args = _args(src, m.end())
        if not args or "__VA_ARGS__" in args or src[max(0, m.start() - 8):m.start()].endswith("define "):
            continue
        name = m.group(1)
        line = src.count("\n", 0, m.start()) + 1
        base = path.rsplit("/", 1)[-1]
        if name.startswith("GLOO_ENFORCE"):
            if name == "GLOO_ENFORCE" or name == "GLOO_ENFORCE_THAT":
                cond, rest = _stringify(args[0]), args[1:]
            else:
                if len(args) < 2:
                    continue
                cond, rest = "%s %s %s" % (_stringify(args[0]), _OPS[name[len("GLOO_ENFORCE"):]],
                                           _stringify(args[1])), args[2:]
            # EnforceNotMet (gloo/common/logging.cc): "[enforce fail at " FILE ":" LINE "] " cond ". " msg,
            # FILE as the compiler saw it (a full path); the binary checks' msg starts "x vs y"
            msg = _message(rest)
            if name not in ("GLOO_ENFORCE", "GLOO_ENFORCE_THAT"):
                msg = "%d vs %d" + (". " + msg if msg else "")  # sizes and states: numbers
            text = "[enforce fail at %%s%s:%%d] %s%s" % (base, cond.replace("%", "%%"), (". " + msg) if msg else "")
            yield "enforce", "%s:%d" % (path, line), text
        else:
            yield "io", "%s:%d" % (path, line), _message(args)


# A GLOO_THROW* message is printed after "[<__FILE__>:<__LINE__>] " (gloo/common/error.h,
# GLOO_ERROR_MSG): a short one ('Read timeout %s', 'Socket closed %s', 'MPI_Allreduce: %s') is
# any program's words alone, so its matcher needs that prefix (any of gloo's files: one format printed
# at several places is one site, 'Read timeout %s' of ibverbs/buffer.cc and of tcp/pair.cc).
CONTEXT_BELOW = 16


def build(files, version):
    sites, seen = [], set()
    for path, src in files:
        for kind, where, fmt in sites_of(path, src):
            if (kind, fmt) in seen:
                continue
            seen.add((kind, fmt))
            rx, literal = knowgen.printf_to_regex(fmt)
            site = {"id": "gloo.%s.%s" % (kind, knowgen.slug(where)), "where": where, "kind": kind, "text": fmt}
            if not knowgen.unanchored(site, rx, literal):
                rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt, "kind": kind})
                if kind == "io" and len("".join(literal.split())) < CONTEXT_BELOW:
                    rx = r"\[[^\]\n]{0,200}\.(?:cc|h):\d{1,6}\] [^\n]{0,200}?" + rx
                site.update({"re": rx, "family": family, "rule": rule})
                knowgen.give_fix(site, MSG_FIX, fmt)
            sites.append(site)
    return {"header": knowgen.header("pytorch/gloo (https://github.com/pytorch/gloo)", version, GENERATOR,
                                     "GLOO_ENFORCE* checks and GLOO_THROW* messages of gloo/; families from the "
                                     "RULES table of the generator"), "sites": sites}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    return (knowgen.tree_files(git, rev, ("gloo",), lambda p: re.search(r"\.(cc|h|cpp)$", p) and "/test" not in p
                               and "benchmark" not in p),
            "commit %s" % git("rev-parse", rev + "^{commit}").strip())


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="HEAD")
    doc = build(*knowgen.source_files(a, from_repo))
    if a.repo:  # a slice holds only some sites
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"])
    return knowgen.emit("gloo_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

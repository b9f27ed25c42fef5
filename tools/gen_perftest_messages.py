#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/perftest_messages.json: what perftest (ib_write_bw, ib_read_lat,
ib_send_bw, raw_ethernet_bw, ...: the InfiniBand / RoCE microbenchmarks clusters run before NCCL) prints when it
fails, each message turned into a bounded matcher and assigned to a knowledge family (perftest.toml, rdma.toml,
rdma_state.toml) by the RULES table below.

It reads every `fprintf(stderr, "...")` and `perror("...")` (printed '<text>: <strerror>') of the tools' C sources
(src/*.c: the shared perftest_resources.c, perftest_communication.c, perftest_parameters.c and each test's main;
src/*.h: perftest_resources.h's completion-error macros),
and the constant texts perftest_communication.c passes to its error handler (`error_message = "..."`). A message
printed at several places keeps its first site.

Usage:
    python tools/gen_perftest_messages.py --repo /path/to/perftest.git [--rev REV] [-o OUT]
    python tools/gen_perftest_messages.py --slice tools/data/perftest_messages_slice.txt -o OUT   (the test)

Source: linux-rdma/perftest (https://github.com/linux-rdma/perftest), read with `git show REV:path`.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_perftest_messages.py"
SOURCE = "linux-rdma/perftest (https://github.com/linux-rdma/perftest) src/*.c, src/*.h"

# A message's family, by its text and the file that prints it: the first rule that matches wins.
RULES = [
    # perftest_resources.c ctx_qp_create / create_reg_qp_main / ctx_init: ibv_create_qp (or the CQ / SRQ) refused
    # the capabilities asked for (max_inline_data from -I, max_send_wr from -t, ...); its own hint: 'Requested QP
    # size might be too big. Try reducing TX depth and/or inline size.'
    ("queue-create", "rdma.queue_create", {"text": r"^(?:Unable to create QP|Failed to create QP|Couldn't create (?:a "
                                                   r"receiver )?CQ|Couldn't create (?:XRC )?SRQ|Couldn't create QP|"
                                                   r"Requested QP size might be too big|Current TX depth is|"
                                                   r"Couldn't create (?:the )?(?:DC|UD|XRC|RC|UC)? ?QP)"}),
    # perftest_resources.h NOTIFY_COMP_ERROR_SEND / _RECV: a work completion with an error status (ibv_poll_cq), the
    # status's name from ibv_wc_status_str
    ("completion", "rdma.completion_error", {"text": r"^ ?Completion with error at|^ ?Failed status-%s"}),
    # ib_*_{bw,lat}.c main(): ctx_init failed; the step that failed printed its own line before
    ("resources", "rdma.perftest_setup", {"text": r"^ ?Couldn't create IB resources|^ ?Unable to create the resources "
                                                  r"needed by comm struct|^ ?Unable to create rdma resources"}),
    # memory registration (ibv_reg_mr): the locked-memory limit, most often
    ("reg-mr", "rdma.memlock", {"text": r"^Couldn't allocate MR|^failed to create mr|^Couldn't register MR|"
                                        r"^Couldn't allocate memory"}),
    # no device, or one this process may not open
    ("no-device", "rdma.no_device", {"text": r"^No IB devices found|^IB device %s not found|^ ?Did not detect devices|"
                                             r"^ ?Couldn't get context for the device|^Failed to get IB devices list|"
                                             r"Unable to find the Infiniband/RoCE device"}),
    # the port the test runs on is not up (perftest_parameters.c check_link: 'Port number %d state is %s')
    ("port-state", "rdma.port_down", {"text": r"Port number %d state is %s|^Unable to query port %d attributes|"
                                              r"^Link layer on port %d is Unknown"}),
    # queue pair state transitions (ibv_modify_qp to INIT / RTR / RTS)
    ("modify-qp", "rdma.modify_qp", {"text": r"^Failed to modify (?:QP|the QP)|^ ?Couldn't modify QP|"
                                             r"^Failed to modify QP %d to"}),
    # the out-of-band exchange of QP numbers and keys over TCP (perftest_communication.c: ethernet_*), or rdma_cm's
    # address and route resolution, between the server (started first, no host name) and the client
    ("connect", "rdma.perftest_connect", {"text": r"^Couldn't connect to %s:%d|^Couldn't listen to port|^accept\(\) "
                                                  r"failed|^Problem in resolving basic address and port|"
                                                  r"^Unable to connect \(retries|Couldn't read remote address|"
                                                  r"^ ?Failed to exchange|^Couldn't parse line|"
                                                  r"^rdma_resolve_(?:addr|route) failed|ADDR_ERROR|"
                                                  r"^Unable to Connect the HCA's through the link|"
                                                  r"Incompatibility issue with GID types|"
                                                  r"^Couldn't send local address|^ ?Failed to bind socket|Unable to open file descriptor for "
                                                  r"socket|Unable to init the socket connection|Unable to read (?:to|from) "
                                                  r"socket|Unable to write (?:to|from) socket|"
                                                  r"^Function rdma_connect failed|^rdma_listen failed|"
                                                  r"^ ?rdma_bind_addr failed"}),
    # perftest_parameters.c: an option, or a combination of options, this test or this device does not take
    ("usage", "rdma.perftest_usage", {"where": r"^src/perftest_parameters\.c:",
                                      "text": r"not supported|isn't supported|supports? .{0,60}only|only (?:with|in|"
                                              r"for|supports?)|[Ii]nvalid|must be|cannot|can't|can not|cann't|"
                                              r"should be|not allowed|is not valid|doesn't support|Unknown|"
                                              r"not available|requires?|exceeds?|out of range|bigger than|"
                                              r"larger than|at least|at most|too (?:big|large|small|long)"}),
]

# What one message means, where its family's causes are not enough: [(regex over the text, means, [fix])]
MSG_FIX = [
    (r"^(?:Unable to create QP|Failed to create QP)\.",
     "ibv_create_qp refused the queue pair perftest asked for: a capability over this device's limit, most often "
     "the inline size (the latency tests' default is 150 to 236 bytes, perftest_parameters.h DEF_INLINE_*; a "
     "device with a smaller max_inline_data refuses the QP: EINVAL) or the send queue depth (-t).",
     ["rerun with a smaller inline size: -I 0 (or the device's maximum, e.g. -I 64) and, if it still fails, a "
      "smaller TX depth: -t 64 (perftest's own hint: 'Try reducing TX depth and/or inline size'); ibv_devinfo -v "
      "shows max_qp_wr, max_sge"]),
    (r"^Requested QP size might be too big",
     "the QP asked for (TX depth {%1|<-t>}, inline size {%2|<-I>}) needs more memory than the device or the "
     "locked-memory limit allows (ENOMEM).",
     ["smaller -t (TX depth) and -I (inline size); ulimit -l unlimited for the user (RLIMIT_MEMLOCK)"]),
    (r"^Couldn't connect to %s:%d",
     "the client could not open its TCP connection to the perftest server at {%1|<server>}:{%2|<port>} (the "
     "out-of-band exchange of QP numbers and keys): no server is listening there yet (it must be started first, "
     "without a host name), another port (-p), or a firewall.",
     ["start the server first on the other node (ib_write_bw -d <dev> with the same options, no host name), then "
      "the client with its address; the same -p <port> on both; open that TCP port (18515 by default) in the "
      "firewall"]),
]

_CALL = re.compile(r"(?<![A-Za-z0-9_>.])(fprintf|perror)\s*\(|(?<![A-Za-z0-9_])error_message\s*=\s*(?=\")")


def sites_of(path, src):
    """(call, where, format) of each message to stderr in a file."""
    for m in _CALL.finditer(src):
        if m.group(1) is None:  # error_message = "...";
            fmt, call = knowgen.c_format(src, m.end()), "error_handler"
        else:
            args = knowgen.call_args(src, m.end())
            if not args:
                continue
            call = m.group(1)
            if call == "perror":
                fmt = knowgen.c_format(args[0], 0)
                fmt = fmt and fmt + ": %s"  # perror(3): '<s>: <strerror(errno)>'
            else:
                if len(args) < 2 or args[0].strip() != "stderr":
                    continue
                fmt = knowgen.c_format(args[1], 0)
        if not fmt or not fmt.strip():
            continue
        fmt = re.sub(r"\x1b\[[0-9;]*m", "", fmt)  # colour escapes ('\x1b[31m...\x1b[0m')
        line = next((x for x in fmt.split("\n") if x.strip()), "")
        yield call, "%s:%d" % (path, src.count("\n", 0, m.start()) + 1), line.rstrip()


def build(files, version):
    sites, seen, ids = [], set(), set()
    for path, src in files:
        for call, where, fmt in sites_of(path, src):
            if fmt in seen:
                continue
            seen.add(fmt)
            site = {"id": knowgen.unique_id("perftest.%s" % knowgen.slug(where), ids), "where": where,
                    "level": call, "text": fmt}
            rx, lit = knowgen.printf_to_regex(fmt.strip())
            if rx:
                # perftest prints each message as a line of its own (fprintf(stderr, "...\n")): matched at a line's
                # start (after a launcher's 'host: ' prefix at most), with a number that ends it kept ('Couldn't
                # connect to %s:%d' is not any 'couldn't connect to <url>:' of another program)
                if re.search(r"%[-+ #0-9]*(?:l|ll|z)?[du]$", fmt.strip()) and not lit.endswith(fmt.strip()):
                    rx += r"-?\d{1,20}"
                rx = r"^(?:[\w.@-]{1,64}:[ \t]{1,4})?[ \t]{0,8}" + rx
            if knowgen.unanchored(site, rx, lit):
                sites.append(site)
                continue
            rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt})
            if family == "rdma.perftest_usage" and ("falling back" in fmt or not knowgen.specific_enough(fmt, need=4)):
                rule, family = "usage: a warning it goes on after, or too few words of its own", None
            elif family and not knowgen.specific_enough(fmt, need=2, errtexts=()):
                rule, family = "too few words of its own", None
            site.update({"re": rx, "family": family, "rule": rule or "no rule"})
            knowgen.give_fix(site, MSG_FIX, fmt)
            sites.append(site)
    return {"header": knowgen.header(SOURCE, version, GENERATOR,
                                     "the tools' fprintf(stderr) / perror / error_message texts; families from "
                                     "the RULES table of the generator"), "sites": sites}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    files = knowgen.tree_files(git, rev, ("src",), lambda p: p.endswith((".c", ".h")))
    return files, knowgen.revision(git, rev, untagged="?")


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="HEAD")
    files, version = knowgen.source_files(a, from_repo)
    doc = build(files, version)
    if a.slice is None:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"])
    return knowgen.emit("perftest_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/nccl_info.json: the INFO(...) format strings of
NCCL that say which transport, network, interface and topology it chose (a log of a slow or hung
job often has nothing else: NCCL_DEBUG=INFO output without a WARN line), each turned into a
bounded matcher and classified by the CLASSES table below (ib_active, ib_none, socket_iface,
net_chosen, gdr, channel_net, channel_p2p, channel_shm, env, version, ...).

gpudoctor/explain/ncclinfo.py reads the classified lines of a log into facts (the transport of
each channel, the chosen interface, IB found or not, GPU Direct RDMA per HCA, the NCCL version per
host) and judges them; the values are read from the matched line by that module, this table
says which line is which.

Usage:
    python tools/gen_nccl_info.py --repo /path/to/nccl.git [--rev HEAD] [--older] [-o OUT]
    python tools/gen_nccl_info.py --slice tools/data/nccl_info_slice.txt -o OUT   (the test)

The source is NVIDIA/nccl (https://github.com/NVIDIA/nccl), read with `git show REV:path`, the
same commit as tools/gen_nccl_messages.py records. --older adds the formats only older releases
print (the last release of each minor line from 2.4: 'Ring 00 : 7 -> 8 [send] via NET/Socket/0'
of 2.4-2.6, 'Bootstrap : Using [0]eth0' with a blank before the colon), each with `until`.
The file keeps its sites under "info_sites" ("sites" stays empty): they are facts to read, never
a message to explain on their own, so explain's matcher loader (knowledge._attach_sites) and the
coverage table of bench/explain_accuracy.py leave them alone.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_nccl_messages as gm  # noqa: E402
import knowgen  # noqa: E402

SOURCE = "NVIDIA/nccl (https://github.com/NVIDIA/nccl)"
GENERATOR = "tools/gen_nccl_info.py"

# Which fact a format reports: (class, regex on the format text); the first match wins; a format
# no class names is counted (not kept). Order matters where formats share words (a Channel line
# names its transport before anything else).
CLASSES = [
    ("version", r"^NCCL version %"),                      # init.cc VERSION_STRING, printed by every process
    ("cuda_driver", r"^cudaDriverVersion %"),              # misc/cudawrap.cc
    ("ib_none", r"^NET/IB ?: No device found"),            # transport/net_ib*: no usable HCA (then sockets)
    ("ib_active", r"^NET/IB ?: Using"),                    # the HCAs IB will use ('[0]mlx5_0:1/IB'); empty list: none
    ("socket_iface", r"^NET/Socket ?: Using%s"),           # transport/net_socket.cc: the interfaces sockets use
    ("bootstrap_iface", r"^Bootstrap ?: Using"),           # bootstrap.cc: the interface of the out-of-band network
    ("net_chosen", r"^Using network %s"),                  # init.cc: the network of this communicator
    ("net_init_failed", r"^Failed to initialize NET plugin"),  # plugin/net.cc: IB declined (disabled / no device)
    ("net_init_ok", r"^(?:Initialized|Assigned) NET plugin"),
    ("env", r"^(?:%s|NCCL_\w+) set (?:by environment )?to"),  # param.cc and the string settings
    ("gdr", r"GPU Direct RDMA (?:%s|Enabled|Disabled) for HCA"),  # graph/topo.cc: GDR per HCA
    ("channel_collnet", r"via COLLNET/"),
    ("channel_net", r"via NET/"),                          # transport/net.cc: a channel over the network
    ("channel_p2p", r"via P2P/"),                          # transport/p2p.cc: NVLink/PCIe peer to peer
    ("channel_shm", r"via SHM/|via direct shared memory"),  # transport/shm.cc: through host memory
    ("p2p_off", r"Could not enable P2P|peer query failed|Legacy IPC not supported"),
    ("nvls", r"^NVLS multicast support|^Connected NVLS|^NVLS Trees"),
    ("collnet", r"Connected CollNet|disabling CollNet|CollNet devices|CollNet device counts"),
    ("comm_shape", r"^comm %p rank %d nRanks %d nNodes %d"),                # init.cc: ranks, nodes, local ranks
    ("init_start", r"Init START"),
    ("init_complete", r"Init COMPLETE"),
    ("channels", r"^%d coll channels"),                    # init.cc: channels per algorithm
    ("ring", r"^Ring %02d :"),
    ("trees", r"^Trees"),
    ("rings_connected", r"^Connected all rings"),
]

_VERSION_DEFINE = re.compile(r"#define\s+VERSION_STRING\s*\\?\s*\n?\s*((?:\"[^\"\n]*\"|STR\(\w+\)|NCCL_SUFFIX|\s|\\\n)+)")


def _version_format(src):
    """The format VERSION_STRING prints ('"NCCL version " STR(NCCL_MAJOR) "." ... "+cuda" ...'):
    STR(x) is a number, NCCL_SUFFIX a string. (line, format) or None."""
    m = _VERSION_DEFINE.search(src)
    if not m:
        return None
    fmt = "".join("%d" if t.startswith("STR(") else "%s" if t == "NCCL_SUFFIX" else t[1:-1]
                  for t in re.findall(r"\"[^\"\n]*\"|STR\(\w+\)|NCCL_SUFFIX", m.group(1)))
    return src.count("\n", 0, m.start()) + 1, fmt


def info_sites(path, src):
    """(where, format) of every INFO(...) call of one file whose format is a literal."""
    for m in gm._CALL.finditer(src):
        if m.group(1) != "INFO":
            continue
        i = m.end()
        j = src.find(",", i, i + 200)
        if j < 0 or '"' in src[i:j]:
            continue
        fmt = gm.parse_format(src, j + 1)
        if fmt:
            yield "%s:%d" % (path, src.count("\n", 0, m.start()) + 1), fmt
    got = _version_format(src) if "VERSION_STRING" in src else None
    if got:
        yield "%s:%d" % (path, got[0]), got[1]


def classify(fmt):
    return next((cls for cls, rx in CLASSES if re.search(rx, fmt)), None)


def build(files, version, older=()):
    sites, seen, counted = [], set(), 0
    for rel, rel_files in [(None, files)] + list(older):
        for path, src in rel_files:
            for where, fmt in info_sites(path, src):
                if rel is None:
                    counted += 1
                cls = classify(fmt)
                if cls is None or (cls, fmt) in seen:
                    continue
                rx, literal = knowgen.printf_to_regex(fmt)
                if rx is None or len("".join(literal.split())) < knowgen.MIN_LITERAL:
                    continue
                seen.add((cls, fmt))
                tag = "" if rel is None else "v%s." % rel.replace(".", "_")
                site = {"id": "nccl.info.%s%s" % (tag, knowgen.slug(where)),
                        "where": where, "level": "INFO", "text": fmt, "class": cls, "re": rx}
                if rel is not None:
                    site["until"] = rel
                sites.append(site)
    if older:
        version = "%s; formats only older releases print, from %s" % (version, ", ".join(v for v, _ in older))
    note = ("INFO(...) format strings of NCCL's src/ that report a transport, network, interface or topology "
            "choice, classified by the CLASSES table of the generator (%d INFO sites read in the newest release)"
            % counted)
    return {"header": knowgen.header(SOURCE, version, GENERATOR, note), "sites": [], "info_sites": sites,
            "classes": [c for c, _ in CLASSES]}


def write(doc, out=None):
    import json

    for site in doc["info_sites"]:
        site["needles"] = knowgen.needles(site["re"])
    path = out or knowgen.out_path("nccl_info")
    with knowgen.open_write(path) as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    by = {}
    for s in doc["info_sites"]:
        by[s["class"]] = by.get(s["class"], 0) + 1
    print("%s: %d classified INFO sites (%s)" % (path, len(doc["info_sites"]),
                                                 ", ".join("%s %d" % kv for kv in sorted(by.items()))))
    return 0


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="HEAD", extra=[("--older", {
        "action": "store_true",
        "help": "also the formats only older releases print (the last release of each line from 2.4)"})])
    files, version = knowgen.source_files(a, gm.from_repo)
    older = gm.older_releases(a.repo, a.rev, first_minor=4) if a.repo and a.older else ()
    return write(build(files, version, older), a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

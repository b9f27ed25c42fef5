#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/nccl_messages.json: every failure message NCCL can
print (its WARN(...) format strings and the INFO(...) ones that report a failure), each turned into
a bounded matcher and assigned to a knowledge family by the RULES table below; and the
ncclResult_t codes (src/nccl.h.in) that the `file.cc:123 -> N` return chains print.

Usage:
    python tools/gen_nccl_messages.py --repo /path/to/nccl.git [--rev HEAD] [-o OUT]
    python tools/gen_nccl_messages.py --slice tools/data/nccl_messages_slice.txt -o OUT   (the test)

The source is NVIDIA/nccl (https://github.com/NVIDIA/nccl), read with `git show REV:path`.
A slice file holds parts of a few source files, each after a line `=== path @FIRSTLINE`, so that
a test regenerates from it without the repository (tools/data/nccl_messages_slice.txt).
"""

import argparse
import os
import re
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
    ("version", "nccl.version_mismatch", {"text": r"not backwards compatible|compiled with (?:too old version of )?NCCL|"
                                                  r"Mismatched NCCL version|NCCL version mismatch"}),
    # two ranks on one GPU: the message says so whatever variable it names
    ("duplicate-gpu", "nccl.duplicate_gpu", {"text": r"Duplicate GPU|same GPU"}),
    # the ranks called different collectives or sizes (the user's code), not a setting
    ("collective-mismatch", "nccl.collective_mismatch", {"text": r"collective mismatch|Mismatched collective|"
                                                                 r"differs from rank|another rank has"}),
    # the nodes differ (NIC counts): the machines, not a setting, even where the text names the override
    ("nodes-differ", "nccl.topology", {"text": r"mixed local \w+ device counts across ranks"}),
    ("dmabuf", "nccl.dmabuf", {"text": r"ibv_reg_dmabuf_mr|register memory with DMA-BUF|DMA-BUF handle"}),
    ("after-error", "nccl.previous_error", {"text": r"Attempt to use communicator before|communicator was revoked|"
                                                    r"SetAsyncError|commReclaim|commDestroySync|destroys proxy"}),
    ("shm", "shm.size", {"text": r"shared memory|/dev/shm|shm_open|ncclShm|posix_fallocate|shm segment"}),
    ("socket-ifname", "nccl.socket_ifname", {"text": r"no socket interface|No usable listening interface|"
                                                      r"no device found (matching|after excluding)|NCCL_SOCKET_IFNAME"}),
    ("plugin", "nccl.net_plugin", {"text": r"plugin|dlopen|dlsym|dlvsym"}),
    ("nvls", "nccl.nvls", {"text": r"NVLS|multicast|cuMulticast|MNNVL|IMEX"}),
    ("p2p", "gpu.p2p", {"text": r"\bP2P\b|peer access|PeerAccess"}),
    ("gdr-peermem", "rdma.peermem", {"text": r"GDR|nv_peer_mem|peermem|dmabuf|DMA-BUF"}),
    ("ib-memlock", "rdma.memlock", {"text": r"ibv_reg_mr|reg_mr|memlock|RLIMIT_MEMLOCK"}),
    ("ib-gid", "rdma.gid_index", {"text": r"GID|gid index|ibv_query_gid"}),
    ("ib-qp", "rdma.modify_qp", {"text": r"ibv_modify_qp|modify_qp"}),
    ("ib", "nccl.net_ib", {"where": r"transport/net_ib|net_ib|/ib(?:_|/)|mlx5|rdma", }),
    ("ib-text", "nccl.net_ib", {"text": r"NET/IB|ibv_|\bIB\b|RoCE|mlx5|verbs"}),
    ("cuda", "nccl.unhandled_cuda_error", {"text": r"\bcuda|\bCUDA|cuMem|cuGet|cuDevice|CUMEM"}),
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
                                                r"not valid|sizes: want"}),
    ("gin", "nccl.net_ib", {"text": r"No GIN-capable devices"}),
    ("topology-parent", "nccl.topology", {"text": r"bus ID"}),
    ("transport", "nccl.topology", {"text": r"No transport found"}),
]

FAILURE_WORDS = re.compile(r"fail|error|unable|cannot|can't|could not|invalid|not found|mismatch|timeout|"
                           r"timed out|abort|refused|denied", re.IGNORECASE)
_CALL = re.compile(r"(?<![A-Za-z0-9_])(WARN|INFO)\s*\(")
_STRLIT = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_PRI = {"PRIu64": "lu", "PRId64": "ld", "PRIx64": "lx", "PRIi64": "ld", "PRIu32": "u", "PRIx32": "x", "PRId32": "d"}


def _unescape(s):
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), s)


def parse_format(src, i):
    """The format string of a WARN/INFO call whose argument list starts at src[i] (after its
    level argument for INFO): adjacent literals, PRIxNN macros and #stringified arguments,
    up to the first ',' or ')' outside a literal. None when it does not start with a literal."""
    out, n, saw = [], len(src), False
    while i < n:
        c = src[i]
        if c in " \t\r\n\\":
            i += 1
            continue
        if c == '"':
            m = _STRLIT.match(src, i)
            if not m:
                return None
            out.append(_unescape(m.group(1)))
            saw, i = True, m.end()
            continue
        m = re.compile(r"PRI[udxi](?:64|32)\b|#\s*[A-Za-z_]\w*").match(src, i)
        if m:
            tok = m.group()
            out.append("%" + _PRI.get(tok, "s") if tok.startswith("PRI") else "%s")
            i = m.end()
            continue
        break
    return "".join(out) if saw else None


def sites_of(path, src):
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


def build(files, version):
    sites, seen = [], set()
    for path, src in files:
        for level, where, fmt in sites_of(path, src):
            key = (level, fmt)
            if key in seen:  # one format printed at several places: one matcher
                continue
            seen.add(key)
            rx, literal = knowgen.printf_to_regex(fmt)
            site = {"id": "nccl.%s.%s" % (level.lower(), re.sub(r"[^a-z0-9]+", "_", where.lower()).strip("_")),
                    "where": where, "level": level, "text": fmt}
            if rx is None or len("".join(literal.split())) < knowgen.MIN_LITERAL:
                site.update({"re": None, "family": None, "rule": "no literal anchor of %d+ characters"
                             % knowgen.MIN_LITERAL})
            else:
                rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt, "level": level})
                site.update({"re": rx, "family": family, "rule": rule})
            sites.append(site)
    return {"header": knowgen.header(SOURCE, version, GENERATOR,
                                     "WARN(...) and failure INFO(...) format strings of NCCL's src/; families "
                                     "from the RULES table of the generator"),
            "results": RESULTS_FALLBACK, "sites": sites}


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
    commit = git("rev-parse", rev).strip()
    ver = git("show", "%s:makefiles/version.mk" % rev)
    v = ".".join(re.search(r"NCCL_%s\s*:=\s*(\d+)" % k, ver).group(1) for k in ("MAJOR", "MINOR", "PATCH"))
    names = [p for p in git("ls-tree", "-r", "--name-only", rev, "--", "src").splitlines()
             if re.search(r"\.(cc|cu|h|cpp)$", p)]
    files = [(p, git("show", "%s:%s" % (rev, p))) for p in sorted(names)]
    RESULTS_FALLBACK.update(_results(git("show", "%s:src/nccl.h.in" % rev)))
    return files, "%s (commit %s)" % (v, commit)


def from_slice(path):
    files, version = knowgen.read_slice(path)
    for p, text in files:
        if p.endswith("nccl.h.in"):
            RESULTS_FALLBACK.update(_results(text))
    return [(p, t) for p, t in files if not p.endswith(".in")], version


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo")
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--slice")
    ap.add_argument("-o", "--out")
    a = ap.parse_args(argv)
    if bool(a.repo) == bool(a.slice):
        ap.error("give --repo or --slice")
    files, version = from_repo(a.repo, a.rev) if a.repo else from_slice(a.slice)
    doc = build(files, version)
    return knowgen.report(knowgen.write("nccl_messages", doc, a.out), doc)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

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
(its newest tag, v2.M.P-1, from 2.12 on) that prints it.
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
]

FAILURE_WORDS = re.compile(r"fail|error|unable|cannot|can't|could not|invalid|not found|mismatch|timeout|"
                           r"timed out|abort|refused|denied", re.IGNORECASE)
_CALL = re.compile(r"(?<![A-Za-z0-9_])(WARN|INFO)\s*\(")


def parse_format(src, i):
    """The format string of a WARN/INFO call whose argument list starts at src[i] (after its
    level argument for INFO): adjacent literals, PRIxNN macros and #stringified arguments (%s),
    up to the first ',' or ')' outside a literal (knowgen.c_format). None when it holds no literal."""
    return knowgen.c_format(src, i, macro=r"#\s*[A-Za-z_]\w*", lead=True)


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


def build(files, version, older=()):
    """``older``: [(version, files)] of earlier releases, newest first: a format that only they
    print (a message removed or reworded since, still in the logs of jobs that run them) becomes
    a site too, with ``until``: the last of them that prints it."""
    sites, seen = [], set()
    for rel, rel_files in [(None, files)] + list(older):
        for path, src in rel_files:
            for level, where, fmt in sites_of(path, src):
                key = (level, fmt)
                if key in seen:  # one format printed at several places (or releases): one matcher
                    continue
                seen.add(key)
                sites.append(_site(level, where, fmt, rel))
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


def _site(level, where, fmt, until=None):
    rx, literal = knowgen.printf_to_regex(fmt)
    tag = "" if until is None else "v%s." % until.replace(".", "_")
    site = {"id": "nccl.%s.%s%s" % (level.lower(), tag, knowgen.slug(where)), "where": where, "level": level,
            "text": fmt}
    if until is not None:
        site["until"] = until
    if not knowgen.unanchored(site, rx, literal):
        rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt, "level": level})
        if len("".join(literal.split())) < CONTEXT_BELOW and not _OWN_WORDS.search(fmt):
            rx = _CONTEXT + rx
        site.update({"re": None if rule == "too-generic" else rx, "family": family, "rule": rule})
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
    commit = git("rev-parse", rev).strip()
    ver = git("show", "%s:makefiles/version.mk" % rev)
    v = ".".join(re.search(r"NCCL_%s\s*:=\s*(\d+)" % k, ver).group(1) for k in ("MAJOR", "MINOR", "PATCH"))
    files = knowgen.tree_files(git, rev, ("src",), lambda p: re.search(r"\.(cc|cu|h|cpp)$", p))
    RESULTS_FALLBACK.update(_results(git("show", "%s:src/nccl.h.in" % rev)))
    return files, "%s (commit %s)" % (v, commit)


def older_releases(repo, rev, first_minor=12):
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
        "help": "also the formats only older releases print (the last release of each line from 2.12)"})])
    files, version = knowgen.source_files(a, from_repo, from_slice)
    older = older_releases(a.repo, a.rev) if a.repo and a.older else ()
    return knowgen.emit("nccl_messages", build(files, version, older), a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

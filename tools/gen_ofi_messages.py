#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/ofi_messages.json: what aws-ofi-nccl (the NCCL network plugin over
Libfabric that EFA on AWS needs, libnccl-net-ofi.so / libnccl-net.so) prints, its environment variables and the
topology files and NCCL settings it applies per EC2 platform, each message turned into a bounded matcher and assigned
to a knowledge family (nccl.toml) by the RULES table below.

The plugin prints through NCCL's logger with the macros of include/nccl_ofi_log.h: NCCL_OFI_WARN(fmt, ...) and
NCCL_OFI_INFO(flags, fmt, ...) both put 'NET/OFI ' before the format, so NCCL shows 'NCCL WARN NET/OFI <text>' /
'NCCL INFO NET/OFI <text>'. This generator reads the prefix from that header (a changed prefix changes every
matcher), every call of the two macros in src/ and include/ (the format argument's adjacent literals; PACKAGE_NAME is
configure.ac's AC_INIT name, other macros read as %s), every OFI_NCCL_PARAM* of include/nccl_ofi_param.h (the
variable is 'OFI_NCCL_' + its name, src/nccl_ofi_param.cpp), and the platform table of src/platform-aws.cpp
(platform_data_map: each instance type's static topology file, which the plugin exports as NCCL_TOPO_FILE unless the
user set one, and the NCCL variables it sets), at the pinned release AND at every earlier release tag, so the table
says which release stopped shipping a platform's static topology (p5.48xlarge: v1.11.0-aws, whose release notes say
'Autogenerate topology file on P5 by default ... instead of using a static file').

Messages that only older releases print (OLDER: v1.17.3, v1.14.2, v1.11.1-aws, v1.7.4-aws) are kept too, each with
`until` (the newest of those releases that printed it): threads quote the plugin their EFA installer or AMI shipped.

INFO sites are recorded with no family (NCCL prints them on a healthy start too); a WARN that says the plugin goes on
(deprecated variable, a fallback) is recorded, unassigned.

Usage:
    python tools/gen_ofi_messages.py --repo /path/to/aws-ofi-nccl.git [--rev v1.21.1] [-o OUT]
    python tools/gen_ofi_messages.py --slice tools/data/ofi_messages_slice.txt -o OUT   (the test)

Source: aws/aws-ofi-nccl (https://github.com/aws/aws-ofi-nccl), read with `git show REV:path`. In a slice, a file
of an earlier release is written `=== @<tag>:<path>` (only its platform table is read).
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_ofi_messages.py"
SOURCE = ("aws/aws-ofi-nccl (https://github.com/aws/aws-ofi-nccl) src/, include/ (NCCL_OFI_WARN / NCCL_OFI_INFO "
          "calls, OFI_NCCL_PARAM), src/platform-aws.c(pp) platform_data_map at each release tag")
LOG_HEADER = "include/nccl_ofi_log.h"
PARAM_HEADER = "include/nccl_ofi_param.h"
PARAM_SRC = "src/nccl_ofi_param.cpp"
PLATFORM = ("src/platform-aws.cpp", "src/platform-aws.c")
MACROS = {"NCCL_OFI_WARN": (0, "warn"), "NCCL_OFI_INFO": (1, "info")}
_CALL = re.compile(r"(?<![A-Za-z0-9_])(NCCL_OFI_WARN|NCCL_OFI_INFO)\s*\(")
# a release tag of the plugin (v1.7.0-aws, v1.14.0; not the release candidates)
RELEASE_TAG = re.compile(r"^v(\d+)\.(\d+)\.(\d+)(?:-?aws)?$")

# A message's family by its level, file and words: the first rule that matches wins.
RULES = [
    ("info", None, {"level": r"^info$"}),
    # the plugin says it goes on: a deprecated or ignored variable, a fallback, a skipped device
    ("not a failure: goes on", None, {"text": r"deprecat|ignor|fall(?:ing)? ?back|skipping|will be removed"}),
    # the topology the plugin writes or the static file it exports as NCCL_TOPO_FILE (platform-aws, nccl_ofi_topo)
    ("topology file", "nccl.topo_file", {"text": r"topology (?:file|XML)|NCCL_TOPO_FILE|topo(?:logy)? xml"}),
    # every other warning with words of its own: the plugin failed (its caller returns an error to NCCL)
    ("plugin", "nccl.net_plugin", {"level": r"^warn$", "own": r"^yes$"}),
]

# What one message means, where its family's causes are not enough: [(regex over the text, means, [fix])]
MSG_FIX = [
    # src/platform-aws.cpp config_endpoint: on an instance type whose platform entry has gdr_required (p4d and later)
    # the endpoint's Libfabric reported no GPUDirect RDMA (FI_HMEM); include/nccl_ofi_param.h: 'Disable the check for
    # required GDR support on EC2 instances' (OFI_NCCL_DISABLE_GDR_REQUIRED_CHECK)
    (r"^NET/OFI GDR disabled on GDR-supported instance type %s$",
     "This instance type ({%1|the instance}) needs GPUDirect RDMA over EFA, and the Libfabric the plugin loaded offers "
     "none (no FI_HMEM for CUDA on the efa provider).",
     ["load the EFA installer's libfabric (/opt/amazon/efa/lib first on LD_LIBRARY_PATH, not a libfabric of the image "
      "or a pip wheel) and check fi_info -p efa -c FI_HMEM; keep the EFA installer and the NVIDIA driver current",
      "to run without GPUDirect RDMA (slower): OFI_NCCL_DISABLE_GDR_REQUIRED_CHECK=1"]),
    # src/nccl_ofi_gdrcopy.cpp: gdr_open() returned no handle ('Failed to open gdr handle', INFO) or libgdrapi.so did
    # not load; GDRCopy's gdr_open opens /dev/gdrdrv, the gdrdrv kernel module's device (NVIDIA/gdrcopy README);
    # enroot's 98-nvidia.sh binds /dev/gdrdrv for the compute capability (generated/enroot_hooks.json's source)
    (r"^NET/OFI Failed to initialize GDRCopy: %s$",
     "GPU-initiated networking (GIN) needs GDRCopy, which did not start ({%1|the reason}): 'Failed to open gdr handle' "
     "is gdr_open() without /dev/gdrdrv, 'Could not load libgdrapi.so' the library missing.",
     ["load the gdrdrv kernel module on the host (NVIDIA/gdrcopy's gdrdrv package or insmod.sh) and give the container "
      "/dev/gdrdrv: NVIDIA_GDRCOPY=enabled with the NVIDIA container toolkit, docker run --device /dev/gdrdrv, or the "
      "device in the pod; install libgdrapi.so (gdrcopy) in the image"]),
    # AWS EC2 user guide, 'Get started with EFA' (efa-start.html), 'Prepare an EFA-enabled security group': all inbound
    # AND outbound traffic to and from the security group itself; aws/aws-ofi-nccl#663 (an egress rule was missing)
    (r"Unable to insert remote address into address vector",
     "Libfabric could not add the peer's EFA address to its address vector (device {%1|N}): EFA traffic between the "
     "instances is not allowed, or the peer is not reachable over EFA.",
     ["give the instances' security group both rules AWS's EFA guide requires: inbound all traffic from the security "
      "group itself AND outbound all traffic to the security group itself (an egress rule limited to 0.0.0.0/0 on some "
      "ports is not enough); keep the instances in one subnet / availability zone (a cluster placement group)"]),
    (r"^NET/OFI WARNING: %s set to invalid value %s$",
     "the plugin's variable {%1|<variable>} has a value it does not accept ({%2|<value>}); the plugin refuses to "
     "start.",
     ["set {%1|the variable} to one of the values doc/efa-env-var.md of aws-ofi-nccl lists for it, or unset it "
      "(the plugin's default)"]),
    (r"^NET/OFI aws-ofi-nccl initialization failed$",
     "aws-ofi-nccl could not start (its NET/OFI lines before this one say why: no Libfabric provider or EFA device, "
     "CUDA, a variable); NCCL then tries its internal IB and Socket networks.",
     ["on the node: fi_info -p efa (the EFA devices Libfabric sees) and the EFA installer's libfabric first on "
      "LD_LIBRARY_PATH (/opt/amazon/efa/lib)",
      "in Kubernetes: request vpc.amazonaws.com/efa from the EFA device plugin (aws-efa-k8s-device-plugin) and do "
      "not mount the host's /dev/infiniband with a hostPath, which hands the pod uverbs devices that are not EFA's"]),
]

MAP_START = re.compile(r"platform_data_map\s*\[\s*\]\s*=\s*\{")
# Older releases whose messages are kept where the pinned one reworded or removed them (clusters run the plugin the EFA
# installer or the AMI shipped: 1.7 to 1.17 are common in threads), newest first; each such site says 'until'
OLDER = ("v1.17.3", "v1.14.2", "v1.11.1-aws", "v1.7.4-aws")


def prefix_of(header):
    """The text NCCL_OFI_WARN puts before the format ('NET/OFI '), read from nccl_ofi_log.h's #define."""
    m = re.search(r"#define NCCL_OFI_WARN\(fmt, \.\.\.\)(?:[^\n]*\\\n)+?[^\n]*?\"([^\"]*)\" fmt", header)
    if not m:
        raise SystemExit("%s: no NCCL_OFI_WARN prefix read" % LOG_HEADER)
    return knowgen.c_unescape(m.group(1))


def package_name(configure):
    m = re.search(r"AC_INIT\(\[([^\]]+)\]", configure)
    return m.group(1) if m else "aws-ofi-nccl"


def sites_of(path, src, package):
    """(macro, where, format) of each NCCL_OFI_WARN / NCCL_OFI_INFO call of a file."""
    return knowgen.macro_calls(path, src, _CALL, MACROS, {"PACKAGE_NAME": package})


def params(src):
    """[{name, env, type, default, deprecated}] of nccl_ofi_param.h's OFI_NCCL_PARAM* declarations."""
    out = []
    for m in re.finditer(r"^\s*(OFI_NCCL_PARAM(?:_DEPRECATED|_REMOVED)?)\(", src, re.M):
        args = knowgen.call_args(src, m.end())
        if not args or len(args) < 4 or not args[2].startswith('"'):
            continue
        row = {"env": "OFI_NCCL_" + knowgen.c_unescape(args[2].strip('"')), "name": args[1], "type": args[0],
               "default": re.sub(r"\s+", " ", args[3])[:120]}
        if m.group(1) != "OFI_NCCL_PARAM":
            row["status"] = m.group(1)[len("OFI_NCCL_PARAM_"):].lower()
        out.append(row)
    for m in re.finditer(r"^OFI_NCCL_PARAM_VALUE_SET\((\w+),\s*((?:\(\w+\))+)\)", src, re.M):
        out.append({"value_set": m.group(1), "values": re.findall(r"\((\w+)\)", m.group(2))})
    return out


def platforms(src):
    """[{name, regex, topology, env}] of platform-aws's platform_data_map, in its order."""
    m = MAP_START.search(src)
    if not m:
        return []
    body = src[m.end():knowgen.statement_end(src, m.end())]
    out = []
    for e in re.finditer(r"\.name\s*=\s*\"([^\"]+)\"", body):
        nxt = body.find(".name", e.end())
        part = body[e.end():nxt if nxt >= 0 else len(body)]
        rx = re.search(r"\.regex\s*=\s*(?:\"((?:[^\"\\]|\\.)*)\"|NULL)", part)
        topo = re.search(r"\.topology\s*=\s*(?:\"([^\"]+)\"|NULL)", part)
        env = re.findall(r"\{\s*\"(NCCL_\w+)\"\s*,\s*\"([^\"]*)\"\s*\}", part)
        out.append({"name": e.group(1), "regex": knowgen.c_unescape(rx.group(1)) if rx and rx.group(1) else None,
                    "topology": topo.group(1) if topo else None, "env": dict(env)})
    return out


def release_key(tag):
    m = RELEASE_TAG.match(tag)
    return tuple(int(x) for x in m.groups()) if m else None


def topology_history(tables):
    """{platform: {"static_topology": file, "first": tag, "last": tag, "stopped_in": tag or None}} over the
    releases' platform tables ([(tag, [platform rows])], oldest first): the releases that exported a static
    NCCL_TOPO_FILE for a platform, and the first later release that did not."""
    hist = {}
    for tag, rows in tables:
        having = {r["name"]: r["topology"] for r in rows if r["topology"]}
        for name, topo in having.items():
            h = hist.setdefault(name, {"static_topology": topo, "first": tag, "last": tag, "stopped_in": None})
            if h["stopped_in"] is None:
                h["last"], h["static_topology"] = tag, topo
        for name, h in hist.items():
            if name not in having and h["stopped_in"] is None:
                h["stopped_in"] = tag
    return hist


def build(files, version):
    current = [(p, s) for p, s in files if not p.startswith("@")]
    older = [(p[1:].partition(":")[0], p[1:].partition(":")[2], s) for p, s in files if p.startswith("@")]
    by_path = dict(current)
    pre = prefix_of(by_path.get(LOG_HEADER, ""))
    package = package_name(by_path.get("configure.ac", ""))
    sites, seen, ids = [], set(), set()

    def add(macro, where, fmt, idbase, shown=None, **extra):
        """The site of one call (the first release that prints a line keeps it), family from RULES, fix from
        MSG_FIX."""
        line = pre + fmt
        if line in seen:
            return
        seen.add(line)
        level = MACROS[macro][1]
        own = "yes" if knowgen.specific_enough(fmt) else "no"
        knowgen.c_site(sites, ids, idbase, shown or where, level, line, RULES,
                       {"where": where, "text": fmt, "level": level, "own": own}, MSG_FIX, **extra)

    for path, src in current:
        if path == LOG_HEADER or not path.endswith((".c", ".cpp", ".h", ".hpp")):
            continue
        for macro, where, fmt in sites_of(path, src, package):
            add(macro, where, fmt, "ofi.%s" % knowgen.slug(where))
    # messages only older releases print (OLDER, newest first): kept with the release that last printed them
    for tag in OLDER:
        for otag, path, src in older:
            if otag != tag or not path.endswith((".c", ".cpp", ".h", ".hpp")) or path == LOG_HEADER:
                continue
            for macro, where, fmt in sites_of(path, src, package):
                add(macro, where, fmt, "ofi.%s.%s" % (knowgen.slug(tag), knowgen.slug(where)),
                    "%s (%s)" % (where, tag), until=tag)
    plat_src = next((by_path[p] for p in PLATFORM if p in by_path), "")
    tables = sorted(((tag, platforms(src)) for tag, path, src in older if path in PLATFORM),
                    key=lambda t: release_key(t[0]) or (0,))
    pinned = version.split(" ")[0]
    tables.append((pinned, platforms(plat_src)))
    return {"header": knowgen.header(SOURCE, version, GENERATOR,
                                     "NCCL_OFI_WARN / NCCL_OFI_INFO formats with nccl_ofi_log.h's prefix; families "
                                     "from the RULES table of the generator; params from nccl_ofi_param.h; platforms "
                                     "from platform-aws's platform_data_map at the pinned release, topology_history "
                                     "over every release tag"),
            "sites": sites, "params": params(by_path.get(PARAM_HEADER, "")),
            "platforms": tables[-1][1], "topology_history": topology_history(tables),
            "releases_read": [t for t, _ in tables]}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    files = knowgen.tree_files(git, rev, ("src", "include"),
                               lambda p: p.endswith((".c", ".cpp", ".h", ".hpp")) and not p.startswith("include/nccl/"))
    files.append(("configure.ac", git("show", "%s:configure.ac" % rev)))
    for tag in git("tag").split():
        if release_key(tag) is None or tag == rev:
            continue
        names = git("ls-tree", "-r", "--name-only", tag, "--", "src").split()
        path = next((p for p in PLATFORM if p in names), None)
        if path:
            files.append(("@%s:%s" % (tag, path), git("show", "%s:%s" % (tag, path))))
    for tag in OLDER:
        for path in git("ls-tree", "-r", "--name-only", tag, "--", "src", "include").split():
            if path.endswith((".c", ".cpp", ".h", ".hpp")) and path not in PLATFORM and not path.startswith("include/nccl/"):
                files.append(("@%s:%s" % (tag, path), git("show", "%s:%s" % (tag, path))))
    return files, knowgen.revision(git, rev, describe=False)


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="v1.21.1")
    files, version = knowgen.source_files(a, from_repo)
    doc = build(files, version)
    if a.slice is None:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"])
    return knowgen.emit("ofi_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

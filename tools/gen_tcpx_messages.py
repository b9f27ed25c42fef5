#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/tcpx_messages.json: what Google's GPUDirect-TCPX NCCL network plugin
(google/nccl-plugin-gpudirecttcpx: NCCL's network on GCP A3 VMs, a3-highgpu-8g, beside the receive-datapath-manager
daemon 'tcpgpudmarxd' in its own container) prints, each message turned into a bounded matcher and assigned to a
knowledge family (nccl.toml) by the RULES table below, and the NCCL_GPUDIRECTTCPX_* variables it reads.

The plugin logs through NCCL's logger with WARN(fmt, ...) / INFO(flags, fmt, ...) (src/adapter/debug1.h ->
src/adapter/nccl/debug.h: no prefix of their own; many formats start with "NET/" PRODUCT_NAME, src/macro.h's
"GPUDirectTCPX"). Its variables: TCPX_PARAM(name, env, default) reads 'NCCL_' + env (src/adapter/nccl/param.h
NCCL_PARAM1), TCPX_GET_ENV(name) reads TCPX_ENV_PREFIX + name ('NCCL_GPUDIRECTTCPX_'). A message without the product's
prefix is assigned only when its own words name it (4+ words of its own): 'getpeername %s' is anyone's.

Usage:
    python tools/gen_tcpx_messages.py --repo /path/to/nccl-plugin-gpudirecttcpx.git [--rev REV] [-o OUT]
    python tools/gen_tcpx_messages.py --slice tools/data/tcpx_messages_slice.txt -o OUT   (the test)

Source: google/nccl-plugin-gpudirecttcpx (https://github.com/google/nccl-plugin-gpudirecttcpx), read with
`git show REV:path` (the repository has no release tags: the commit is the version).
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_tcpx_messages.py"
SOURCE = ("google/nccl-plugin-gpudirecttcpx (https://github.com/google/nccl-plugin-gpudirecttcpx) src/ (WARN / INFO "
          "calls, TCPX_PARAM, TCPX_GET_ENV)")
MACROS = {"WARN": (0, "warn"), "INFO": (1, "info")}
_CALL = re.compile(r"(?<![A-Za-z0-9_])(WARN|INFO)\s*\(")
_PARAM = re.compile(r"^\s*TCPX_PARAM\(\s*(\w+)\s*,\s*\"([^\"]+)\"\s*,\s*([^)]*)\)", re.M)
_GET_ENV = re.compile(r"TCPX_GET_ENV\(\s*\"([^\"]+)\"\s*\)")

# A message's family: the first rule that matches wins.
RULES = [
    ("info", None, {"level": r"^info$"}),
    # src/misc/socket_utils.cc is NCCL's own socket code (src/misc/socket.cc) copied into the plugin: the same words
    # are NCCL's, whose table (nccl_messages) assigns them; a copy here would take NCCL's lines from their entries
    ("nccl's own words: nccl_messages", None, {"where": r"^src/misc/socket_utils\.", "text": r".?"}),
    ("nccl's own words: nccl_messages", None, {"text": r"^Net : |^Error : connecting to address"}),
    # the plugin says it goes on: a clamped setting, a default, a copy to a host bounce buffer (slower, not failed),
    # a slow completion it reports
    ("not a failure: goes on", None, {"text": r"by default|ignor|fall(?:ing)? ?back|deprecat|, setting (?:to|TCPX_)|"
                                               r"^%p copied|^copied %d times|^%s data landed|tx comp timeout poll|"
                                               # (review17) src/net_tcpx.cc: WARN, then recv() into the host buffer
                                               r"requested receive on host mem buffer"}),
    # the plugin's own calls to the receive-datapath-manager (RxDM, tcpgpudmarxd: flow steering, buffer registration)
    ("rxdm", "nccl.net_plugin", {"text": r"receive[-_ ]datapath[-_ ]manager"}),
    ("plugin", "nccl.net_plugin", {"level": r"^warn$", "own": r"^yes$"}),
]

MSG_FIX = [
    # src/net_tcpx.cc: the ApplicationRegistryClient (UDS under NCCL_GPUDIRECTTCPX_UNIX_CLIENT_PREFIX, 'rxdm_application
    # _registry') and src/connect.cc's flow-steering requests go to the RxDM daemon; GCP's manifests run it as the
    # tcpx-daemon container (tcpgpudmarxd --uds_path /run/tcpx) sharing that directory with the NCCL container
    (r"receive[-_ ]datapath[-_ ]manager",
     "the plugin could not talk to the receive-datapath-manager (RxDM, tcpgpudmarxd), which steers each connection's "
     "flows to the GPU's NIC queues: it is not running on this node, exited, or its socket directory is not shared "
     "with this container.",
     ["run the RxDM daemon (the tcpx-daemon container of GCP's gpudirect-tcpx manifests: tcpgpudmarxd --gpu_nic_preset "
      "a3vm --uds_path /run/tcpx, privileged, hostNetwork) on every node, and mount the same directory into the NCCL "
      "container with NCCL_GPUDIRECTTCPX_UNIX_CLIENT_PREFIX pointing at it; kubectl logs <pod> -c tcpx-daemon shows "
      "why it exited"]),
]


def product(src):
    m = re.search(r'#define PRODUCT_NAME "([^"]+)"', src)
    return m.group(1) if m else "GPUDirectTCPX"


def sites_of(path, src, name):
    """(macro, where, format) of each WARN / INFO call of a file."""
    return knowgen.macro_calls(path, src, _CALL, MACROS, {"PRODUCT_NAME": name})


def params(files):
    out, seen = [], set()
    for path, src in files:
        for name, env, dflt in _PARAM.findall(src):
            if "NCCL_" + env not in seen:
                seen.add("NCCL_" + env)
                out.append({"env": "NCCL_" + env, "name": name, "default": dflt.strip(), "where": path})
        for env in _GET_ENV.findall(src):
            if "NCCL_GPUDIRECTTCPX_" + env not in seen:
                seen.add("NCCL_GPUDIRECTTCPX_" + env)
                out.append({"env": "NCCL_GPUDIRECTTCPX_" + env, "where": path})
    return out


def build(files, version):
    by_path = dict(files)
    name = product(by_path.get("src/macro.h", ""))
    sites, seen, ids = [], set(), set()
    for path, src in files:
        if not path.endswith((".cc", ".cu", ".h")) or "/adapter/" in path:
            continue
        for macro, where, fmt in sites_of(path, src, name):
            if fmt in seen:
                continue
            seen.add(fmt)
            level = MACROS[macro][1]
            own = "yes" if fmt.startswith("NET/" + name) or knowgen.specific_enough(fmt, need=4) else "no"
            knowgen.c_site(sites, ids, "tcpx.%s" % knowgen.slug(where), where, level, fmt, RULES,
                           {"where": where, "text": fmt, "level": level, "own": own}, MSG_FIX)
    return {"header": knowgen.header(SOURCE, version, GENERATOR,
                                     "WARN / INFO formats (PRODUCT_NAME from src/macro.h); families from the RULES "
                                     "table of the generator; params from TCPX_PARAM / TCPX_GET_ENV"),
            "sites": sites, "params": params(files)}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    files = knowgen.tree_files(git, rev, ("src",), lambda p: p.endswith((".cc", ".cu", ".h")))
    return files, knowgen.revision(git, rev, untagged="commit %s" % git("rev-parse", "--short", rev).strip())


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="HEAD")
    files, version = knowgen.source_files(a, from_repo)
    doc = build(files, version)
    if a.slice is None:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"])
    return knowgen.emit("tcpx_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/nvrm_messages.json: the NVIDIA kernel driver's
messages as `dmesg` shows them (NVRM: ...), from NVIDIA/open-gpu-kernel-modules, each with a
bounded matcher and the GPU hardware family from RULES.

Usage:
    python tools/gen_nvrm_messages.py --repo /path/to/open-gpu-kernel-modules.git [--rev HEAD] [-o OUT]
    python tools/gen_nvrm_messages.py --slice tools/data/nvrm_messages_slice.txt -o OUT   (the test)

Source: NVIDIA/open-gpu-kernel-modules (https://github.com/NVIDIA/open-gpu-kernel-modules), read
with `git show REV:path`:
  * kernel-open/nvidia/*.c and src/nvidia/arch/nvalloc/unix/src/*.c: every nv_printf(LEVEL, fmt),
    NV_DEV_PRINTF(LEVEL, nv, fmt) and NV_DEV_PRINTF_STATUS(LEVEL, nv, status, fmt) format
    (kernel-open/common/inc/os-interface.h: NV_DEV_PRINTF prints 'NVRM: GPU %04x:%02x:%02x.%x: '
    before the format); the level is recorded, and only NV_DBG_ERRORS / NV_DBG_WARNINGS sites are
    assigned (the others are not printed at the default debug level);
  * src/nvidia/src/kernel/**.c: every nvErrorLog_va / NV_ERROR_LOG / NV_ERROR_LOG_COND(pGpu, CODE, fmt) text: what follows
    'NVRM: Xid (PCI:...): N, pid=..., ' in the kernel log (src/nvidia/src/kernel/gpu/rc/kernel_rc.c),
    CODE's Xid number read from src/common/sdk/nvidia/inc/nverror.h;
  * src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c: its NV_PRINTF(LEVEL_ERROR, fmt) formats (the GSP
    firmware's boot, RPC timeouts and crash reports; printed 'NVRM: <function>: <text>').
A format that spans several kernel-log lines ('...\\nNVRM: ...') is matched by its most specific
line. Families: gpudoctor/data/knowledge/gpu_hardware.toml; a site's fix comes from NVIDIA's Xid
catalog actions (gpudoctor/data/xid.json, tools/gen_xid.py) where the site has an Xid number.
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_nvrm_messages.py"
SOURCE = "NVIDIA/open-gpu-kernel-modules (https://github.com/NVIDIA/open-gpu-kernel-modules)"
XID_JSON = os.path.join(knowgen.ROOT, "gpudoctor", "data", "xid.json")

# (rule, knowledge entry, {field: regex}); fields: text, where, kind (printf, xid, gsp), level, xid
RULES = [
    # not printed at the default debug level, or not an error: no family
    ("quiet", None, {"level": r"^NV_DBG_(INFO|SETUP|MEMINFO|USERERRORS)$"}),
    ("fallen-off", "gpu.xid.fallen_off_bus", {"text": r"fallen off the bus|not responding to commands"}),
    ("xid79", "gpu.xid.fallen_off_bus", {"xid": r"^79$"}),
    ("ecc", "gpu.xid.ecc", {"text": r"\bECC\b|double.bit|\bDBE\b|row remap|Row Remap|page retire|SRAM error"}),
    ("xid-ecc", "gpu.xid.ecc", {"xid": r"^(48|63|64|92|94|95|140)$"}),
    ("nvlink", "gpu.xid.nvlink", {"text": r"NVLink|nvlink"}),
    ("xid-nvlink", "gpu.xid.nvlink", {"xid": r"^(74|144|145|146|147|148|149|150)$"}),
    # the GSP's boot failures, RPC timeouts and heartbeat loss; its other LEVEL_ERROR lines (buffer sizes clamped,
    # allocations, error-injection tests) stay unassigned
    ("gsp", "gpu.xid.gsp", {"kind": r"^gsp$", "text": r"GSP Timeout|Heartbeat timed out|waiting for RPC response|"
                                                      r"sanity check failed|cannot proceed with booting|"
                                                      r"failed to parse FWSEC|failed to extract VBIOS|"
                                                      r"Error preparing (boot|GSP)|GspMsgQueueInit failed|"
                                                      r"RPC infrastructure failed|Failed to get RM state, timeout|"
                                                      r"GSP-RM unresponsive|GSP core unresponsive|GSP-RM is slow|"
                                                      r"Max GSP-RM boot attempts exceeded"}),
    ("xid-gsp", "gpu.xid.gsp", {"xid": r"^(119|120)$"}),
    ("xid-init", "gpu.xid.init", {"xid": r"^143$"}),
    ("gsp-rpc", "gpu.xid.gsp", {"text": r"RPC response from GPU%d GSP"}),
    ("init", "gpu.xid.init", {"text": r"RmInitAdapter|rm_init_adapter|rm_init_private_state|probe routine failed|"
                                       r"power cables|Failed to re-allocate BAR1|PCI I/O region|"
                                       r"Fatal Error while attempting to resize|pci_enable_device failed|"
                                       r"Can't find an IRQ|request_mem_region failed|Device start failed"}),
    ("unsupported", "gpu.xid.init", {"text": r"not supported by (open|the) ?(NVRM: )?(nvidia\.ko|NVIDIA)|"
                                             r"is not supported by open"}),
    ("no-gpu", "gpu.driver_not_loaded", {"text": r"No NVIDIA (GPU|PCI devices|devices probed)"}),
    ("api-mismatch", "nvml.mismatch", {"text": r"API mismatch"}),
    ("recovery", "gpu.xid", {"xid": r"^154$"}),
]

# site kind -> level shown
_PRINTF = re.compile(r"\b(nv_printf|NV_DEV_PRINTF_STATUS|NV_DEV_PRINTF)\s*\(")
_FMT_ARG = {"nv_printf": 1, "NV_DEV_PRINTF": 2, "NV_DEV_PRINTF_STATUS": 3}
_ERRLOG = re.compile(r"\b(?:nvErrorLog_va|NV_ERROR_LOG|NV_ERROR_LOG_COND)\s*\(")
_NVPRINTF = re.compile(r"\bNV_PRINTF\s*\(\s*LEVEL_ERROR\s*,")
_NVERROR = re.compile(r"#define\s+(\w+)\s+\((\d+)\)")
# a macro inside a format: NV_PCI_DEV_FMT is '%04x:%02x:%02x.%x' (kernel-open/common/inc/nv.h); others %s
_MACRO = r"[A-Z_][A-Z0-9_]{2,60}"
# NVRM's prefix and the GPU it names, as the kernel log shows them: a site's matcher needs NVRM on its
# line (the 'NVRM: GPU 0000:3b:00.0: ' of NV_DEV_PRINTF, or 'NVRM: Xid (PCI:0000:3b:00): 79, ')
NVRM_PREFIX = r"NVRM[^\n]{0,200}?"
XID_PREFIX = r"NVRM: Xid \([^)\n]{1,80}\): %d,[^\n]{0,200}?"


def _line_of(src, i):
    return src.count("\n", 0, i) + 1


def _best_line(fmt):
    """The kernel-log line of a format that is most specific: a format with '\\n' inside prints
    several lines, each 'NVRM: ...'; the one with the longest literal run is matched."""
    best = (-1, "", None, "")
    for part in fmt.split("\n"):
        part = part.strip()
        if not part:
            continue
        rx, lit = knowgen.printf_to_regex(part)
        n = len("".join(lit.split()))
        if rx is not None and n > best[0]:
            best = (n, part, rx, lit)
    return best[1], best[2], best[3]


def sites_of(path, src, xids):
    """(kind, where, format, level, xid) of each message site of a file."""
    if path.endswith(".c") and (path.startswith("kernel-open/nvidia/") or
                                path.startswith("src/nvidia/arch/nvalloc/unix/src/")):
        for m in _PRINTF.finditer(src):
            args = knowgen.call_args(src, m.end())
            k = _FMT_ARG[m.group(1)]
            if not args or len(args) <= k or src[max(0, m.start() - 8):m.start()].endswith("define "):
                continue
            fmt = knowgen.c_format(args[k].replace("NV_PCI_DEV_FMT", '"%04x:%02x:%02x.%x"'), 0, macro=_MACRO)
            if fmt is None:
                continue
            if m.group(1) != "nv_printf":
                fmt = "NVRM: GPU %04x:%02x:%02x.%x: " + fmt
            yield "printf", "%s:%d" % (path, _line_of(src, m.start())), fmt, args[0], None
    if path.startswith(("src/nvidia/src/kernel/", "src/nvidia/arch/nvalloc/unix/src/")):
        for m in _ERRLOG.finditer(src):
            args = knowgen.call_args(src, m.end())
            if not args or len(args) < 3:
                continue
            fmt = knowgen.c_format(args[2], 0, macro=_MACRO + r"|#\s*\w+")
            if fmt is None:
                continue
            code = args[1].strip()
            yield "xid", "%s:%d" % (path, _line_of(src, m.start())), fmt, code, xids.get(code)
    if path.endswith("gpu/gsp/kernel_gsp.c"):
        for m in _NVPRINTF.finditer(src):
            args = knowgen.call_args(src, src.index("(", m.start()) + 1)
            if not args or len(args) < 2:
                continue
            fmt = knowgen.c_format(args[1], 0, macro=_MACRO)
            if fmt is not None:
                yield "gsp", "%s:%d" % (path, _line_of(src, m.start())), fmt, "LEVEL_ERROR", None


def xid_numbers(files):
    """{constant: Xid number} from nverror.h ('#define ROBUST_CHANNEL_GPU_ECC_DBE (48)')."""
    out = {}
    for path, src in files:
        if path.endswith("nverror.h"):
            out.update((m.group(1), int(m.group(2))) for m in _NVERROR.finditer(src))
    return out


def xid_fix(num):
    """(means, [fix]) from NVIDIA's Xid catalog (gpudoctor/data/xid.json, tools/gen_xid.py) for an
    Xid number, or None when the catalog has no such row."""
    with open(XID_JSON) as f:
        cat = json.load(f)
    row = cat["xids"].get(str(num))
    if not row:
        return None
    bucket = cat["buckets"].get(row["immediate"] or "", {})
    fix = ["%s (NVIDIA's Xid catalog, Xid %d: %s)" % (bucket.get("action", "see the Xid catalog"), num,
                                                    row["immediate"] or "no bucket")]
    inv = cat["investigatory"].get(row["investigatory"] or "")
    if inv:
        fix.append("if it repeats: %s" % inv)
    return "Xid %d (%s): %s" % (num, row["mnemonic"], row["meaning"]), fix


def build(files, version):
    xids = xid_numbers(files)
    sites, seen = [], set()
    for path, src in files:
        for kind, where, fmt, level, xid in sites_of(path, src, xids):
            text = " ".join(fmt.split())
            if (kind, text) in seen:
                continue
            seen.add((kind, text))
            line, rx, literal = _best_line(fmt)
            site = {"id": "nvrm.%s.%s" % (kind, knowgen.slug(where)), "where": where, "kind": kind, "text": text,
                    "level": level}
            if xid is not None:
                site["xid"] = xid
            if not knowgen.unanchored(site, rx, literal):
                rule, family = knowgen.assign(RULES, site, {"text": text, "where": where, "kind": kind,
                                                             "level": level, "xid": xid if xid is not None else ""})
                prefix = XID_PREFIX % xid if xid is not None else NVRM_PREFIX
                if line.startswith("NVRM:"):
                    prefix = ""
                site.update({"re": prefix + rx, "family": family, "rule": rule})
                if family and xid is not None:
                    got = xid_fix(xid)
                    if got:
                        site["means"], site["fix"] = got[0], got[1]
            sites.append(site)
    return {"header": knowgen.header(SOURCE, version, GENERATOR,
                                     "nv_printf / NV_DEV_PRINTF formats of kernel-open/nvidia and "
                                     "src/nvidia/arch/nvalloc/unix/src, nvErrorLog_va Xid texts of src/nvidia/src/kernel "
                                     "(Xid numbers from nverror.h), NV_PRINTF(LEVEL_ERROR) of the GSP; families from the "
                                     "RULES table of the generator"), "sites": sites}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    files = knowgen.tree_files(git, rev, ("kernel-open/nvidia", "src/nvidia/arch/nvalloc/unix/src",
                                          "src/common/sdk/nvidia/inc/nverror.h"),
                               lambda p: p.endswith(".c") or p.endswith("nverror.h"))
    # of the thousands of files under src/nvidia/src/kernel only those that log an Xid text, and the GSP's
    logging = {p.split(":", 1)[1] for p in git("grep", "-l", "-e", "nvErrorLog_va", "-e", "NV_ERROR_LOG", rev, "--",
                                               "src/nvidia/src/kernel").splitlines()}
    logging.add("src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c")
    files += [(p, git("show", "%s:%s" % (rev, p))) for p in sorted(logging) if p.endswith(".c")]
    return files, knowgen.revision(git, rev)


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="HEAD")
    files, version = knowgen.source_files(a, from_repo)
    return knowgen.emit("nvrm_messages", build(files, version), a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

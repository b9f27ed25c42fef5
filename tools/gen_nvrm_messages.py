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
    # Assigned by SOURCE CONTEXT (issue 18, assign13; the pattern of gen_slurm_messages' CONTEXT_RULES): what the
    # function that prints does, and whether the print is on its error path (on_error_path), not the words.
    # An Xid text is printed by nvErrorLog_va as 'NVRM: Xid (PCI:...): N, ...': a GPU fault event by definition
    # (gpu.xid, generic: the number tells the kind; NVIDIA's Xid catalog gives each number's action).
    ("ctx-xid", "gpu.xid", {"kind": r"^xid$", "xid": r"^\d+$"}),
    # a failure while one GPU is brought up: the PCI probe and starting the device (nv-pci.c nv_pci_probe, nv.c
    # nv_start_device, the RM's adapter init); opening it (nv_open_device: an excluded GPU, one being unbound) is not
    ("ctx-gpu-init", "gpu.xid.init", {"kind": r"^printf$", "level": r"^NV_DBG_ERRORS$", "path": r"^error$",
                                      "function": r"^(?:nv_pci_probe|nv_start_device|RmInitAdapter|rm_init_adapter)$"}),
    # a failure while the module loads (nv.c nvidia_init_module and the registrations it calls): no driver then
    ("ctx-module-load", "gpu.driver_not_loaded", {"kind": r"^printf$", "level": r"^NV_DBG_ERRORS$", "path": r"^error$",
                                                  "function": r"^(?:nvidia_init_module|nv_register_chrdev|"
                                                              r"nv_drivers_init|nv_module_init|nvidia_modeset_init)$"}),
    # Not marked 'not a failure': a print on no error path found here may still report one ('register_chrdev_region()
    # failed' then 'return rc', a NUMA onlining that fails and goes on), so those stay unassigned.
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


# Source context of a print (issue 18, assign13): the function it is in, and whether it is on that function's error
# path. kernel-open/nvidia prints healthy lines at NV_DBG_ERRORS too ('NVRM: loading ...', 'NVRM: Applied patches'),
# so a level says nothing of a failure there; what the code does next does: a print inside a block that then leaves
# with goto, returns an error (-E..., NV_ERR_..., NV_FALSE, NULL, -1, or the rc / ret / status / err it holds) or sets one (rc = -E..., status = NV_ERR_...) is
# the report of a failure. A print in a function's own body (not in a block of it) is not on an error path.
_ERROR_EXIT = re.compile(r"\bgoto\s+\w+\s*;|\breturn\s+(?:-\s*E[A-Z]+|NV_ERR_\w+|NV_FALSE|NULL|-1|rc|ret|status|err)\s*;|"
                         r"=\s*-\s*E[A-Z]+\s*;|=\s*NV_ERR_\w+\s*;")
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def code_only(src):
    """``src`` with each string literal's body and each comment blanked (same length, line breaks kept), so that
    braces and words inside them are not read as code."""
    blank = lambda m: re.sub(r"[^\n]", " ", m.group())  # noqa: E731
    out = knowgen.C_STRING.sub(lambda m: '"' + blank(m)[1:-1] + '"', src)
    return _COMMENT.sub(blank, out)


def enclosing_function(code, i):
    """The name of the C function whose body (its '{' at the start of a line: the kernel's and NVIDIA's style)
    holds position ``i`` of ``code`` (code_only), or '' when none does."""
    j = code.rfind("\n{", 0, i)
    if j < 0:
        return ""
    start = code.rfind("\n\n", 0, j)
    head = "\n".join(x for x in code[start + 1 if start >= 0 else 0:j].split("\n") if not x.lstrip().startswith("#"))
    m = re.search(r"([A-Za-z_]\w*)\s*\(", head)
    return m.group(1) if m else ""


def on_error_path(code, end):
    """Whether the statement that ends at ``end`` (its ';') is followed, in its own block, by an error exit
    (_ERROR_EXIT); never for a statement of a function's own body."""
    depth, i = 0, end
    while i > 0:
        i -= 1
        c = code[i]
        if c == "}":
            depth += 1
        elif c == "{":
            if depth == 0:
                break
            depth -= 1
    if i <= 0 or code[i - 1] == "\n":
        return False  # the function's body (its brace starts a line), or no block at all
    depth, j = 0, end + 1
    while j < len(code):
        c = code[j]
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                break
            depth -= 1
        j += 1
    return bool(_ERROR_EXIT.search(code, end + 1, j))


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


def sites_of(path, src, xids, context=None):
    """(kind, where, format, level, xid) of each message site of a file; ``context`` (a dict) gets each printf
    site's where -> (its function, whether it is on an error path)."""
    if path.endswith(".c") and (path.startswith("kernel-open/nvidia/") or
                                path.startswith("src/nvidia/arch/nvalloc/unix/src/")):
        code = code_only(src)
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
            where = "%s:%d" % (path, _line_of(src, m.start()))
            if context is not None:
                context[where] = (enclosing_function(code, m.start()),
                                  on_error_path(code, knowgen.statement_end(src, m.start())))
            yield "printf", where, fmt, args[0], None
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
    context = {}
    for path, src in files:
        for kind, where, fmt, level, xid in sites_of(path, src, xids, context):
            text = " ".join(fmt.split())
            if (kind, text) in seen:
                continue
            seen.add((kind, text))
            line, rx, literal = _best_line(fmt)
            site = {"id": "nvrm.%s.%s" % (kind, knowgen.slug(where)), "where": where, "kind": kind, "text": text,
                    "level": level}
            if xid is not None:
                site["xid"] = xid
            if context.get(where, ("",))[0]:
                site["function"] = context[where][0]  # the C function that prints it
            if context.get(where, ("", False))[1]:
                site["path"] = "error"  # the print is on that function's error path (on_error_path)
            if not knowgen.unanchored(site, rx, literal):
                rule, family = knowgen.assign(RULES, site, {"text": text, "where": where, "kind": kind,
                                                             "level": level, "xid": xid if xid is not None else "",
                                                             "function": site.get("function", ""),
                                                             "path": site.get("path", "")})
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

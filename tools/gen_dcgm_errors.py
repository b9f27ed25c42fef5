#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/dcgm_errors.json: DCGM's failure table (what
`dcgmi diag` and the DCGM health checks print), from NVIDIA/DCGM, each code with its message,
DCGM's own suggested action, its severity and category, and the GPU hardware family from RULES.

Usage:
    python tools/gen_dcgm_errors.py --repo /path/to/DCGM.git [--rev HEAD] [-o OUT]
    python tools/gen_dcgm_errors.py --slice tools/data/dcgm_errors_slice.txt -o OUT   (the test)

Source: NVIDIA/DCGM (https://github.com/NVIDIA/DCGM), read with `git show REV:path`:
dcgmlib/dcgm_errors.h (enum dcgmError_t: DCGM_FR_<NAME> = N; #define DCGM_FR_<NAME>_MSG, the
message, and DCGM_FR_<NAME>_NEXT, the suggested next step, their string macros expanded) and
dcgmlib/src/dcgm_errors.c (dcgmErrorMeta[]: DCGM_ERROR_TABLE_ENTRY(code, severity, category)).
Severity (dcgm_errors.h dcgmErrorSeverity_t): MONITOR 'can perform workload, but needs to be
monitored', ISOLATE 'cannot perform workload, GPU should be isolated', TRIAGE, CONFIG, RESET 'drain
and reset GPU'. Families: gpudoctor/data/knowledge/gpu_hardware.toml (by DCGM's category, RULES).
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_dcgm_errors.py"
SOURCE = "NVIDIA/DCGM (https://github.com/NVIDIA/DCGM)"

# (rule, knowledge entry, {field: regex}); fields: name (DCGM_FR_...), category (DCGM_FR_EC_...), severity, text
RULES = [
    # a test skipped or a setting to change, not a fault of the memory
    ("not-a-fault", None, {"name": r"ECC_DISABLED|ECC_UNSUPPORTED|ECC_PENDING|NO_MEMORY_CLOCKS"}),
    ("fallen-off", "gpu.xid.fallen_off_bus", {"name": r"FALLEN_OFF_BUS"}),
    # Xid 94 / 95: a contained / uncontained (ECC) memory error (NVIDIA's Xid catalog)
    ("contained", "gpu.xid.ecc", {"name": r"(UN)?CONTAINED_ERROR$"}),
    ("recovery", "gpu.xid", {"name": r"GPU_RECOVERY_|_XID_ERROR$|^DCGM_FR_XID_ERROR$"}),
    ("memory", "gpu.xid.ecc", {"category": r"HARDWARE_MEMORY$"}),
    ("inforom", "gpu.xid", {"name": r"CORRUPT_INFOROM"}),
    ("pcie", "gpu.xid.pcie", {"category": r"HARDWARE_PCIE$"}),
    ("nvlink", "gpu.xid.nvlink", {"category": r"HARDWARE_(NVLINK|NVSWITCH)$"}),
    ("sxid", "gpu.xid.nvlink", {"name": r"SXID"}),
    ("fabric-manager", "cuda.system_not_ready", {"name": r"FABRIC_MANAGER|CUDA_FM_NOT_INITIALIZED"}),
    # a clock event or a thermal/power violation: the GPU runs slower, it has not failed
    ("slowdown", "gpu.slowdown", {"category": r"HARDWARE_(THERMAL|POWER)$", "severity": r"MONITOR|TRIAGE"}),
    ("clocks", "gpu.slowdown", {"name": r"CLOCKS_EVENT"}),
    ("p2p", "gpu.xid", {"name": r"BROKEN_P2P"}),
    # the client could not reach nv-hostengine (DCGM_FR_HOSTENGINE_CONN 'Could not connect to the host engine')
    ("hostengine", "dcgm.hostengine", {"name": r"^DCGM_FR_HOSTENGINE_CONN$"}),
    # DCGM's own notes, no failure: a test skipped or disabled, the run aborted by the user's signal, 'The operation
    # completed successfully', and the cap on how many errors one call returns
    ("not a failure: a test DCGM skipped, or a note of its own", None,
     {"name": r"^DCGM_FR_(?:TEST_SKIPPED|TEST_DISABLED|L1TAG_UNSUPPORTED|CONCURRENT_GPUS|ABORTED|OK|TOO_MANY_ERRORS)$"}),
    # Assigned by SOURCE CONTEXT (issue 18, assign13; the pattern of gen_slurm_messages' CONTEXT_RULES): the category
    # and severity DCGM itself gives the code (dcgm_errors.c dcgmErrorMeta: DCGM_ERROR_TABLE_ENTRY(code, severity,
    # category)). A code of a software, internal, performance or other hardware category with a severity that asks
    # for an action is a failure the diagnostic or a health check reported (dcgm.diag, generic); DCGM's _NEXT text
    # is the site's own fix.
    ("ctx-dcgm-diag", "dcgm.diag", {"category": r"^DCGM_FR_EC_(?:SOFTWARE|INTERNAL|PERF|HARDWARE)_",
                                    "severity": r"^DCGM_ERROR_(?:ISOLATE|RESET|TRIAGE|CONFIG|MONITOR)$"}),
]

CTX_WORDS = 3  # a site the ctx- rule assigns needs 3 words of its own (knowgen.specific_enough)
_ENUM = re.compile(r"\b(DCGM_FR_\w+)\s*=\s*(\d+)\s*,")
_DEFINE = re.compile(r"^[ \t]*#define[ \t]+(\w+)[ \t]*((?:[^\n\\]|\\\n|\\.)*)", re.M)
_ENTRY = re.compile(r"DCGM_ERROR_TABLE_ENTRY\(\s*(DCGM_FR_\w+)\s*,\s*(DCGM_ERROR_\w+)\s*,\s*(DCGM_FR_EC_\w+)\s*\)")
_TOKEN = re.compile(r'"((?:[^"\\\n]|\\.)*)"|(\w+)|(/\*.*?\*/|//[^\n]*)|(\S)', re.S)


def _strings(files):
    """{macro: its string} of every #define of dcgm_errors.h whose body is string literals and other such
    macros (adjacent literals joined as the compiler joins them); a body with any other token is left out."""
    raw = {}
    for path, src in files:
        if path.endswith("dcgm_errors.h"):
            for m in _DEFINE.finditer(src):
                raw[m.group(1)] = m.group(2).replace("\\\n", " ")
    done = {}

    def expand(name, depth=0):
        if name in done:
            return done[name]
        if name not in raw or depth > 8:
            return None
        out, saw = [], False
        for t in _TOKEN.finditer(raw[name]):
            if t.group(1) is not None:
                out.append(knowgen.c_unescape(t.group(1)))
                saw = True
            elif t.group(2):
                got = expand(t.group(2), depth + 1)
                if got is None:
                    return None
                out.append(got)
                saw = True
            elif t.group(4):
                return None
        if not saw:
            return None
        done[name] = "".join(out)
        return done[name]

    for n in raw:
        expand(n)
    return done


def rows(files):
    """[(name, code, message, next, severity, category)] in the enum's order."""
    codes, meta = [], {}
    for path, src in files:
        if path.endswith("dcgm_errors.h"):
            seen = set()
            for m in _ENUM.finditer(src):
                if m.group(1) != "DCGM_FR_ERROR_SENTINEL" and int(m.group(2)) not in seen:
                    seen.add(int(m.group(2)))
                    codes.append((m.group(1), int(m.group(2))))
        elif path.endswith("dcgm_errors.c"):
            meta.update((m.group(1), (m.group(2), m.group(3))) for m in _ENTRY.finditer(src))
    strings = _strings(files)
    out = []
    for name, num in codes:
        sev, cat = meta.get(name, ("", ""))
        out.append((name, num, strings.get(name + "_MSG") or "", strings.get(name + "_NEXT") or "", sev, cat))
    return out


def build(files, version):
    sites, by_text = [], {}
    table = rows(files)
    for name, num, msg, nxt, sev, cat in table:
        by_text.setdefault(" ".join(msg.split()), []).append(name)
    for name, num, msg, nxt, sev, cat in table:
        text = " ".join(msg.split())
        site = {"id": "dcgm.%s" % name[len("DCGM_FR_"):].lower(), "name": name, "code": num, "text": text,
                "next": " ".join(nxt.split()), "severity": sev.replace("DCGM_ERROR_", "").lower(),
                "category": cat.replace("DCGM_FR_EC_", "").lower()}
        rx, literal = knowgen.printf_to_regex(text)
        if knowgen.unanchored(site, rx, literal):
            sites.append(site)
            continue
        if len(by_text[text]) > 1:
            # one message for several codes (SBE, DBE and PCIe replay violations all print 'Detected %ld %s for GPU
            # %u'): the line cannot say which, so no family is guessed
            site.update({"re": None, "family": None, "rule": "same message as %s" % ", ".join(
                n for n in by_text[text] if n != name)})
            sites.append(site)
            continue
        rule, family = knowgen.assign(RULES, site, {"name": name, "category": cat, "severity": sev, "text": text})
        if family and rule.startswith("ctx-") and not knowgen.specific_enough(text, CTX_WORDS):
            # too few words of its own to be DCGM's line alone ('API call %s failed: '%s'' is any program's)
            rule, family = "too few words of its own to assign by its category", None
        site.update({"re": rx, "family": family, "rule": rule})
        if family:
            fix = [site["next"]] if site["next"] and site["next"] != "N/A" else []
            sev_fix = {"isolate": "DCGM: the GPU cannot run work: isolate it (drain the node) until it is fixed",
                       "reset": "DCGM: drain the GPU and reset it (nvidia-smi -r -i <index>) or reboot the node",
                       "monitor": "DCGM: the GPU can run work but should be monitored",
                       "triage": "DCGM: triage: check the system logs (dmesg) and rerun the diagnostic",
                       "config": "DCGM: a configuration to change"}.get(site["severity"])
            site["means"] = "DCGM %s (%d, severity %s, category %s): %s" % (
                name, num, site["severity"], site["category"], text)
            site["fix"] = fix + ([sev_fix] if sev_fix else [])
        sites.append(site)
    return {"header": knowgen.header(SOURCE, version, GENERATOR,
                                     "dcgmError_t codes, their _MSG and _NEXT texts (dcgmlib/dcgm_errors.h) and severity "
                                     "and category (dcgmlib/src/dcgm_errors.c); families from the RULES table of the "
                                     "generator"), "sites": sites}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    files = [(p, git("show", "%s:%s" % (rev, p))) for p in ("dcgmlib/dcgm_errors.h", "dcgmlib/src/dcgm_errors.c")]
    return files, knowgen.revision(git, rev)


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="HEAD")
    files, version = knowgen.source_files(a, from_repo)
    return knowgen.emit("dcgm_errors", build(files, version), a.out, "codes")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

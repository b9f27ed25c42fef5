#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/dcgm_status.json: DCGM's return codes and what its client dcgmi
prints (tools/gen_dcgm_errors.py reads the health / diagnostic codes, dcgmError_t; this reads the API's), each
turned into a bounded matcher and assigned to a knowledge family (hostprog.toml) by the RULES table below:

- every dcgmReturn_t code (dcgmlib/dcgm_structs.h, with its //!< comment) and the text errorString() gives it
  (dcgmlib/src/dcgm_errors.c): 'Host engine connection invalid/disconnected', 'The third-party Profiling module
  returned an unrecoverable error', ... These are what dcgmi, dcgm-exporter and the Python bindings print after
  their own words ('Error: Unable to connect to host engine. <text>.');
- the 'Error: ...' lines of dcgmi (dcgmi/*.cpp: `std::cout << "Error: ..."` / `std::cerr << ...`, the literal
  run up to the first value), e.g. 'Error: unable to establish a connection to the specified host: <host>'.

Usage:
    python tools/gen_dcgm_status.py --repo /path/to/DCGM.git [--rev HEAD] [-o OUT]
    python tools/gen_dcgm_status.py --slice tools/data/dcgm_status_slice.txt -o OUT   (the test)

Source: NVIDIA/DCGM (https://github.com/NVIDIA/DCGM), read with `git show REV:path`.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_dcgm_status.py"
SOURCE = ("NVIDIA/DCGM (https://github.com/NVIDIA/DCGM) dcgmlib/dcgm_structs.h (dcgmReturn_t), "
          "dcgmlib/src/dcgm_errors.c (errorString), dcgmi/*.cpp ('Error: ...' lines)")
HEADER, STRINGS, DCGMI = "dcgmlib/dcgm_structs.h", "dcgmlib/src/dcgm_errors.c", "dcgmi/"
SHORT = 28  # a text shorter than this is DCGM's only on a line that names DCGM

# A site's family, by the code's name (codes) or the text (dcgmi's lines): the first rule that matches wins.
RULES = [
    ("hostengine", "dcgm.hostengine", {"name": r"^DCGM_ST_(?:CONNECTION_NOT_VALID|REMOTE_SSH_CONNECTION_FAILED)$"}),
    ("hostengine-text", "dcgm.hostengine", {"name": r"^$", "text": r"connect(?:ion)? to (?:the )?(?:specified )?host|"
                                            r"[Hh]ost engine connection|connect to host engine"}),
    ("profiling", "dcgm.profiling", {"name": r"^DCGM_ST_(?:PROFILING_\w+|IN_USE)$"}),
    ("profiling-text", "dcgm.profiling", {"name": r"^$", "text": r"[Pp]rofiling|profile metrics|DCP"}),
    ("lost", "gpu.xid.fallen_off_bus", {"name": r"^DCGM_ST_GPU_IS_LOST$"}),
    ("error", "dcgm.error", {"name": r"^DCGM_ST_(?:NO_PERMISSION|REQUIRES_ROOT|NOT_SUPPORTED|GPU_NOT_SUPPORTED|"
                             r"NVML_ERROR|NVML_NOT_LOADED|NVML_DRIVER_TIMEOUT|INSUFFICIENT_DRIVER_VERSION|"
                             r"MODULE_NOT_LOADED|LIBRARY_NOT_FOUND|INIT_ERROR|VER_MISMATCH|RESET_REQUIRED|"
                             r"NVVS_BINARY_NOT_FOUND|DIAG_ALREADY_RUNNING|PAUSED)$"}),
    # Assigned by SOURCE CONTEXT (issue 18, assign13; the pattern of gen_slurm_messages' CONTEXT_RULES): an 'Error: '
    # line of dcgmi whose statement prints the DCGM call's return code after 'Return: ' (dcgmi/*.cpp:
    # `std::cout << "Error: Unable to ... Return: " << errorString(result)`) reports that DCGM call failing: the
    # generic dcgm.error, whose causes the return code's text (matched by its own site) tells apart
    ("ctx-dcgmi-return", "dcgm.error", {"where": r"^dcgmi/", "level": r"^Error$", "text": r"Return ?:"}),
]
CTX_WORDS = 3  # a site the ctx- rule assigns needs 3 words of its own (knowgen.specific_enough)

MSG_FIX = [
    (r"^Host engine connection invalid",
     "The client's connection to nv-hostengine is gone or was never made: the host engine is not running on the "
     "host the client names, listens on another address (127.0.0.1 by default), or restarted.",
     ["systemctl status nvidia-dcgm (or pgrep -a nv-hostengine) on that host; ss -ltnp | grep 5555",
      "for a remote client: nv-hostengine -b <the host's IP> (or -b ALL) there, and TCP 5555 open"]),
    (r"third-party Profiling module returned an unrecoverable error|affected resource is in use",
     "DCGM's profiling module (DCP metrics) could not use the GPU's performance counters: another profiler holds "
     "them (Nsight Compute / Systems, CUPTI in the job, a second DCGM or dcgm-exporter), or the profiling library does "
     "not work with this driver or machine (a DCGM older than the driver, a VM or cloud instance that does not expose "
     "the counters).",
     ["nv-hostengine's log (/var/log/nv-hostengine.log, or the dcgm-exporter pod's) for the Profiling module's own "
      "error; dcgmi profile -l -i 0 (does it list metric groups?)",
      "another profiler: dcgmi profile --pause while it runs, then dcgmi profile --resume; otherwise use a DCGM / "
      "dcgm-exporter release at least as new as the driver, or drop the DCP fields (DCGM_FI_PROF_*)"]),
    (r"cannot be collected in a single pass",
     "The DCP metrics asked for need several counter passes on this GPU, which DCGM does not do.",
     ["watch fewer profiling fields at once (dcgmi profile -l lists which groups go together); remove some DCP fields "
      "from dcgm-exporter's counters CSV"]),
    (r"^Profiling is not supported for this group",
     "This GPU (or one in the group) does not support DCGM's profiling metrics (DCP needs a data-center GPU of Volta "
     "or newer; not on consumer GPUs, and not in every MIG or vGPU setup).",
     ["dcgmi profile -l -i <gpu>; drop the DCP fields (DCGM_FI_PROF_*) from the watch list for these GPUs"]),
]

_CODE = re.compile(r"^\s*(DCGM_ST_\w+)\s*=\s*(-?\d+)\s*,?\s*(?://!<\s*(.*))?$", re.M)
_CASE = re.compile(r"case\s+(DCGM_ST_\w+)\s*:\s*(?://[^\n]*)?\s*return\s+((?:\"(?:[^\"\\\n]|\\.)*\"\s*)+);")
_STREAM = re.compile(r"std::(?:cout|cerr)\s*<<\s*((?:\"(?:[^\"\\\n]|\\.)*\"\s*)+)")


def parse_codes(header, strings):
    texts = {n: "".join(knowgen.c_unescape(x) for x in knowgen.C_STRING.findall(lits))
             for n, lits in _CASE.findall(strings)}
    return [(name, int(num), (comment or "").strip(), texts.get(name)) for name, num, comment in _CODE.findall(header)]


def dcgmi_lines(path, src):
    for m in _STREAM.finditer(src):
        text = "".join(knowgen.c_unescape(x) for x in knowgen.C_STRING.findall(m.group(1)))
        text = text.split("\n")[0].rstrip()  # a usage text after the message: its first line is the message
        if text.startswith("Error: ") and len(text) > len("Error: ") + 8:
            yield "%s:%d" % (path, src.count("\n", 0, m.start()) + 1), text[len("Error: "):]


def build(files, version):
    by_path = dict(files)
    sites, seen = [], set()
    for name, num, comment, text in parse_codes(by_path.get(HEADER, ""), by_path.get(STRINGS, "")):
        if name == "DCGM_ST_OK" or not text:
            continue
        seen.add(text)
        site = {"id": "dcgm.st.%s" % name[len("DCGM_ST_"):].lower(), "name": name, "code": num, "text": text,
                "comment": comment}
        body = re.escape(text.rstrip(". "))
        # a short text ('Timeout', 'No permission') is DCGM's only on a line that names DCGM or its tools
        rx = body if len(text) >= SHORT else r"(?:DCGM|dcgm|[Hh]ost ?engine)[^\n]{0,120}?" + body
        rule, family = knowgen.assign(RULES, site, {"name": name, "text": text})
        site.update({"re": rx, "family": family, "rule": rule})
        knowgen.give_fix(site, MSG_FIX, text)
        sites.append(site)
    for path, src in files:
        if not (path.startswith(DCGMI) and path.endswith(".cpp")) or "/tests/" in path:
            continue
        for where, text in dcgmi_lines(path, src):
            if text in seen:
                continue
            seen.add(text)
            site = {"id": "dcgm.dcgmi.%s" % knowgen.slug(where), "where": where, "level": "Error", "text": text}
            rx, lit = knowgen.printf_to_regex(text.replace("%", "%%"))
            if knowgen.unanchored(site, rx, lit, need=16):
                sites.append(site)
                continue
            rule, family = knowgen.assign(RULES, site, {"name": "", "text": text, "where": where, "level": "Error"})
            if family and rule.startswith("ctx-") and not knowgen.specific_enough(text, CTX_WORDS):
                rule, family = "too few words of its own to assign by its source file", None
            site.update({"re": "Error: " + rx, "family": family, "rule": rule})
            knowgen.give_fix(site, MSG_FIX, text)
            sites.append(site)
    return {"header": knowgen.header(SOURCE, version, GENERATOR,
                                     "dcgmReturn_t codes with errorString's texts and dcgmi's 'Error: ' lines; "
                                     "families from the RULES table of the generator"), "sites": sites}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    keep = lambda p: p in (HEADER, STRINGS) or (p.startswith(DCGMI) and p.endswith(".cpp"))  # noqa: E731
    return knowgen.tree_files(git, rev, (), keep), knowgen.revision(git, rev, untagged="?")


def main(argv):
    a = knowgen.arguments(__doc__, argv, "repo", rev="HEAD")
    files, version = knowgen.source_files(a, from_repo)
    doc = build(files, version)
    if a.slice is None:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"])
    return knowgen.emit("dcgm_status", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

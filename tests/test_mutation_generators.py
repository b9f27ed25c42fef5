"""tools/gen_dcgm_errors.py, tools/gen_nvrm_messages.py and tools/gen_pmix_errors.py, against the
survivors of a mutation run (docs/mutation.md, "This round's new code").

Before these tests the DCGM and NVRM generators were judged only by test_explain_hardware.py, which
runs them in another interpreter (`python tools/gen_x.py --slice ...`): a mutation tool sees no test
of theirs. Here each runs in this process over its recorded slice (tools/data/*_slice.txt) and is
compared site by site with the committed table, and the parts the slices do not reach are fed small
texts in the upstream files' own forms: DCGM's dcgmlib/dcgm_errors.h (`DCGM_FR_<NAME> = N,`,
`#define DCGM_FR_<NAME>_MSG "..."` built of literals and other string macros, `_NEXT`) and
dcgmlib/src/dcgm_errors.c (`DCGM_ERROR_TABLE_ENTRY(code, severity, category)`); the NVIDIA driver's
nv_printf / NV_DEV_PRINTF / nvErrorLog_va / NV_PRINTF(LEVEL_ERROR) calls and nverror.h's
`#define NAME (N)`; PMIx's constants sections (`#define PMIX_ERR_X  -N`, a value naming an earlier
constant with an offset, the end marker of contrib/construct_event_strings.py) and v3's
PMIx_Error_string switch (src/util/error.c).
"""

import json
import os
import re
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_dcgm_errors as dcgm  # noqa: E402
import gen_nvrm_messages as nvrm  # noqa: E402
import gen_pmix_errors as pmix  # noqa: E402
import knowgen  # noqa: E402

SLICES = os.path.join(REPO, "tools", "data")


def _regen(gen, name, tmp_path, capsys=None):
    got = knowgen.regenerated(gen.main, os.path.join(SLICES, name + "_slice.txt"), tmp_path / (name + ".json"))
    full = knowgen.committed(name)
    for k in ("source", "version", "generator", "note"):
        assert got["header"][k] == full["header"][k], k
    assert got["unassigned"] == sorted(s["id"] for s in got["sites"] if not s.get("family"))
    return got, {s["id"]: s for s in full["sites"]}


# ---------------------------------------------------------------------- the slices, in this process

def test_nvrm_slice_regenerates_its_committed_sites(tmp_path):
    got, full = _regen(nvrm, "nvrm_messages", tmp_path)
    assert len(got["sites"]) == 32  # the slice keeps whole functions of its prints (assign13: their context)
    for s in got["sites"]:
        assert s == full[s["id"]], s["id"]
    assert sum(1 for s in got["sites"] if s.get("family")) >= 14


def test_dcgm_slice_regenerates_its_committed_codes(tmp_path):
    got, full = _regen(dcgm, "dcgm_errors", tmp_path)
    assert len(got["sites"]) == len(full) == 133
    with_text = [s for s in got["sites"] if s["text"]]
    assert len(with_text) == 34
    for s in with_text:
        want = dict(full[s["id"]])
        if (s.get("rule") or "").startswith("same message as "):
            # the slice has fewer codes sharing the message than the whole header: the others it names agree
            assert want["rule"].startswith("same message as ")
            assert set(s["rule"][16:].split(", ")) <= set(want["rule"][16:].split(", ")), s["id"]
            want["rule"] = s["rule"]
        assert s == want, s["id"]
    # a code whose message the slice leaves out: its number, severity and category still come from the slice
    bare = [s for s in got["sites"] if not s["text"]]
    for s in bare:
        assert {k: s[k] for k in ("name", "code", "severity", "category")} == \
            {k: full[s["id"]][k] for k in ("name", "code", "severity", "category")}, s["id"]
        assert s["family"] is None and s["re"] is None


# ---------------------------------------------------------------------- DCGM

DCGM_H = r'''typedef enum dcgmError_enum
{
    DCGM_FR_OK                  = 0,  //!< 0 No error
    DCGM_FR_VOLATILE_DBE_DETECTED = 4, //!< 4
    DCGM_FR_CLOCK_THROTTLE_THERMAL
        = DCGM_FR_VOLATILE_DBE_DETECTED,  //!< Deprecated
    DCGM_FR_AGAIN               = 4,  //!< the same number again: the first name keeps it
    DCGM_FR_THERMAL_VIOLATIONS  = 7,
    DCGM_FR_SBE_VIOLATION       = 8,
    DCGM_FR_DBE_VIOLATION       = 9,
    DCGM_FR_FALLEN_OFF_BUS      = 10,
    DCGM_FR_NO_META             = 11,
    DCGM_FR_ERROR_SENTINEL      = 12,
} dcgmError_t;
#define DCGM_FR_OK_MSG ""
#define DCGM_FR_VOLATILE_DBE_DETECTED_MSG   \
    "Detected %d volatile double-bit " DCGM_ECC "errors for GPU %u."
#define DCGM_ECC "ECC "
#define DCGM_FR_VOLATILE_DBE_DETECTED_NEXT  "Drain the GPU and reset it or reboot the node."
#define DCGM_FR_THERMAL_VIOLATIONS_MSG "Clocks are being throttled for GPU %u because of temperature"  /* note */
#define DCGM_FR_THERMAL_VIOLATIONS_NEXT DCGM_FR_NEXT_NA
#define DCGM_FR_NEXT_NA "N/A"
#define DCGM_FR_SBE_VIOLATION_MSG DCGM_DETECTED
#define DCGM_FR_DBE_VIOLATION_MSG DCGM_DETECTED // one text for both
#define DCGM_DETECTED "Detected %ld %s for GPU %u"
#define DCGM_FR_FALLEN_OFF_BUS_MSG "GPU %u has fallen off the bus."
#define DCGM_FR_NO_META_MSG "Something %s"
#define DCGM_NUMBER 5
#define DCGM_MIXED "a" DCGM_NUMBER
#define DCGM_PLUS "a" + "b"
#define DCGM_LOOP DCGM_LOOP
#define DCGM_EMPTY
#define DCGM_ESCAPED "say \"hi\"\tnow"
'''
DCGM_C = '''dcgm_error_meta_t dcgmErrorMeta[] = {
    DCGM_ERROR_TABLE_ENTRY(DCGM_FR_OK, DCGM_ERROR_UNKNOWN, DCGM_FR_EC_NONE),
    DCGM_ERROR_TABLE_ENTRY(DCGM_FR_VOLATILE_DBE_DETECTED, DCGM_ERROR_RESET, DCGM_FR_EC_HARDWARE_MEMORY),
    DCGM_ERROR_TABLE_ENTRY( DCGM_FR_THERMAL_VIOLATIONS ,DCGM_ERROR_MONITOR,  DCGM_FR_EC_HARDWARE_THERMAL ),
    DCGM_ERROR_TABLE_ENTRY(DCGM_FR_SBE_VIOLATION, DCGM_ERROR_ISOLATE, DCGM_FR_EC_HARDWARE_MEMORY),
    DCGM_ERROR_TABLE_ENTRY(DCGM_FR_DBE_VIOLATION, DCGM_ERROR_ISOLATE, DCGM_FR_EC_HARDWARE_MEMORY),
    DCGM_ERROR_TABLE_ENTRY(DCGM_FR_FALLEN_OFF_BUS, DCGM_ERROR_ISOLATE, DCGM_FR_EC_HARDWARE_OTHER),
};
'''
DCGM_FILES = [("dcgmlib/dcgm_errors.h", DCGM_H), ("dcgmlib/src/dcgm_errors.c", DCGM_C),
              ("dcgmlib/other.h", '#define DCGM_FR_OK_NEXT "not read"\nDCGM_FR_OTHER = 99,\n')]


def test_dcgm_strings_expand_literals_and_string_macros_only():
    got = dcgm._strings(DCGM_FILES)
    assert got["DCGM_FR_VOLATILE_DBE_DETECTED_MSG"] == "Detected %d volatile double-bit ECC errors for GPU %u."
    assert got["DCGM_FR_THERMAL_VIOLATIONS_MSG"] == "Clocks are being throttled for GPU %u because of temperature"
    assert got["DCGM_FR_THERMAL_VIOLATIONS_NEXT"] == "N/A"
    assert got["DCGM_FR_SBE_VIOLATION_MSG"] == got["DCGM_FR_DBE_VIOLATION_MSG"] == "Detected %ld %s for GPU %u"
    assert got["DCGM_FR_OK_MSG"] == "" and got["DCGM_ESCAPED"] == 'say "hi"\tnow'
    # a body with another token (a number, an operator), a macro that names itself, an empty body: left out
    for name in ("DCGM_NUMBER", "DCGM_MIXED", "DCGM_PLUS", "DCGM_LOOP", "DCGM_EMPTY", "DCGM_FR_OK_NEXT"):
        assert name not in got, name
    # eight macros deep is read, nine is not
    chain = "".join('#define M%d M%d\n' % (i, i + 1) for i in range(9)) + '#define M9 "deep"\n'
    deep = dcgm._strings([("dcgm_errors.h", chain)])
    assert deep["M1"] == "deep" and "M0" not in deep


def test_dcgm_rows_in_the_enums_order():
    assert dcgm.rows(DCGM_FILES) == [
        ("DCGM_FR_OK", 0, "", "", "DCGM_ERROR_UNKNOWN", "DCGM_FR_EC_NONE"),
        ("DCGM_FR_VOLATILE_DBE_DETECTED", 4, "Detected %d volatile double-bit ECC errors for GPU %u.",
         "Drain the GPU and reset it or reboot the node.", "DCGM_ERROR_RESET", "DCGM_FR_EC_HARDWARE_MEMORY"),
        ("DCGM_FR_THERMAL_VIOLATIONS", 7, "Clocks are being throttled for GPU %u because of temperature", "N/A",
         "DCGM_ERROR_MONITOR", "DCGM_FR_EC_HARDWARE_THERMAL"),
        ("DCGM_FR_SBE_VIOLATION", 8, "Detected %ld %s for GPU %u", "", "DCGM_ERROR_ISOLATE",
         "DCGM_FR_EC_HARDWARE_MEMORY"),
        ("DCGM_FR_DBE_VIOLATION", 9, "Detected %ld %s for GPU %u", "", "DCGM_ERROR_ISOLATE",
         "DCGM_FR_EC_HARDWARE_MEMORY"),
        ("DCGM_FR_FALLEN_OFF_BUS", 10, "GPU %u has fallen off the bus.", "", "DCGM_ERROR_ISOLATE",
         "DCGM_FR_EC_HARDWARE_OTHER"),
        ("DCGM_FR_NO_META", 11, "Something %s", "", "", ""),
    ]


def test_dcgm_build_assigns_families_and_fixes():
    sites = {s["name"]: s for s in dcgm.build(DCGM_FILES, "v0")["sites"]}
    assert list(sites) == ["DCGM_FR_OK", "DCGM_FR_VOLATILE_DBE_DETECTED", "DCGM_FR_THERMAL_VIOLATIONS",
                           "DCGM_FR_SBE_VIOLATION", "DCGM_FR_DBE_VIOLATION", "DCGM_FR_FALLEN_OFF_BUS",
                           "DCGM_FR_NO_META"]
    dbe = sites["DCGM_FR_VOLATILE_DBE_DETECTED"]
    assert dbe == {
        "id": "dcgm.volatile_dbe_detected", "name": "DCGM_FR_VOLATILE_DBE_DETECTED", "code": 4,
        "text": "Detected %d volatile double-bit ECC errors for GPU %u.",
        "next": "Drain the GPU and reset it or reboot the node.", "severity": "reset", "category": "hardware_memory",
        "re": knowgen.printf_to_regex("Detected %d volatile double-bit ECC errors for GPU %u.")[0],
        "family": "gpu.xid.ecc", "rule": "memory",
        "means": "DCGM DCGM_FR_VOLATILE_DBE_DETECTED (4, severity reset, category hardware_memory): Detected %d "
                 "volatile double-bit ECC errors for GPU %u.",
        "fix": ["Drain the GPU and reset it or reboot the node.",
                "DCGM: drain the GPU and reset it (nvidia-smi -r -i <index>) or reboot the node"]}
    # DCGM's 'N/A' next step is no fix; the severity's advice still is
    th = sites["DCGM_FR_THERMAL_VIOLATIONS"]
    assert (th["family"], th["rule"], th["fix"]) == ("gpu.slowdown", "slowdown",
                                                      ["DCGM: the GPU can run work but should be monitored"])
    off = sites["DCGM_FR_FALLEN_OFF_BUS"]
    assert (off["family"], off["fix"]) == ("gpu.xid.fallen_off_bus",
                                           ["DCGM: the GPU cannot run work: isolate it (drain the node) until it is fixed"])
    # one message for two codes: no family, each names the other
    assert sites["DCGM_FR_SBE_VIOLATION"]["rule"] == "same message as DCGM_FR_DBE_VIOLATION"
    assert sites["DCGM_FR_DBE_VIOLATION"]["rule"] == "same message as DCGM_FR_SBE_VIOLATION"
    assert sites["DCGM_FR_SBE_VIOLATION"]["family"] is None and sites["DCGM_FR_SBE_VIOLATION"]["re"] is None
    # no message: no anchor; no rule and no severity: no family, no fix
    assert sites["DCGM_FR_OK"]["re"] is None and sites["DCGM_FR_OK"]["rule"].startswith("no literal anchor")
    no = sites["DCGM_FR_NO_META"]
    assert (no["severity"], no["category"], no["family"], no["rule"]) == ("", "", None, None)
    assert "fix" not in no and "means" not in no


@pytest.mark.parametrize("sev,advice", [
    ("TRIAGE", "DCGM: triage: check the system logs (dmesg) and rerun the diagnostic"),
    ("CONFIG", "DCGM: a configuration to change"),
    ("UNKNOWN", None)])
def test_dcgm_severity_advice(sev, advice):
    h = 'DCGM_FR_FALLEN_OFF_BUS = 1,\n#define DCGM_FR_FALLEN_OFF_BUS_MSG "GPU %u has fallen off the bus."\n'
    c = "DCGM_ERROR_TABLE_ENTRY(DCGM_FR_FALLEN_OFF_BUS, DCGM_ERROR_%s, DCGM_FR_EC_HARDWARE_OTHER)" % sev
    site = dcgm.build([("dcgm_errors.h", h), ("dcgm_errors.c", c)], "v")["sites"][0]
    assert site["fix"] == ([advice] if advice else [])


# ---------------------------------------------------------------------- NVRM

def test_nvrm_xid_fix_from_the_catalog():
    assert nvrm.xid_fix(79) == (
        "Xid 79 (ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS): GPU has fallen off the bus",
        ["drain the node and reboot it; check power, PCIe seating and the system event log (NVIDIA's Xid catalog, "
         "Xid 79: RESTART_BM)", "if it repeats: contact your support organisation"])
    # no bucket, no investigatory step the catalog describes
    means, fix = nvrm.xid_fix(162)
    assert means.startswith("Xid 162 (") and fix == ["see the Xid catalog (NVIDIA's Xid catalog, Xid 162: no bucket)"]
    assert nvrm.xid_fix(95)[1] == ["reset the GPU (nothing may hold it): nvidia-smi -r -i <index>; or reboot the node "
                                   "(NVIDIA's Xid catalog, Xid 95: RESET_GPU)"]
    assert nvrm.xid_fix(999) is None


def test_nvrm_best_line_is_the_most_specific():
    assert nvrm._best_line("NVRM: GPU %s\nNVRM: has fallen off the bus and is not responding\n\n") == (
        "NVRM: has fallen off the bus and is not responding",
        knowgen.printf_to_regex("NVRM: has fallen off the bus and is not responding")[0],
        knowgen.printf_to_regex("NVRM: has fallen off the bus and is not responding")[1])
    assert nvrm._best_line("  abc  \n%s") == ("abc", knowgen.printf_to_regex("abc")[0], "abc")
    assert nvrm._best_line("%s") == ("", None, "")
    # a blank line first; a line with one literal character; of two as specific, the first
    assert nvrm._best_line("\n\nNVRM: lost\n")[0] == "NVRM: lost"
    assert nvrm._best_line("x %d")[0] == "x %d"
    assert nvrm._best_line("abc %d\nxyz %d")[0] == "abc %d"
    assert nvrm._line_of("a\nb\nc", 0) == 1 and nvrm._line_of("a\nb\nc", 2) == 2 and nvrm._line_of("a\nb\nc", 4) == 3


NV_C = '''static void f(void)
{
    nv_printf(NV_DBG_ERRORS);
    nv_printf(NV_DBG_ERRORS, fmt_variable, x);
#define nv_printf(NV_DBG_ERRORS, "NVRM: a macro's own definition is no message\\n")
    nv_printf(NV_DBG_ERRORS, "NVRM: The NVIDIA GPU " NV_PCI_DEV_FMT "\\n"
              "NVRM: fallen off the bus and is not responding to commands.\\n", a, b);
    NV_DEV_PRINTF(NV_DBG_ERRORS, nv, "RmInitAdapter failed! (0x%x)\\n", status);
    NV_DEV_PRINTF_STATUS(NV_DBG_WARNINGS, nv, status, "Failed to re-allocate BAR1 (%d)\\n", x);
    nv_printf(NV_DBG_INFO, "NVRM: loading the " NV_MODULE_NAME " quiet driver module\\n");
}
'''
NV_KERNEL = '''void g(OBJGPU *pGpu)
{
    NV_ERROR_LOG(pGpu, SHORT);
    NV_ERROR_LOG_COND(pGpu, UNKNOWN_CODE, x, y);
    nvErrorLog_va((void *)pGpu, ROBUST_CHANNEL_GPU_ECC_DBE, "An uncorrectable double bit error (DBE) has been detected");
    NV_ERROR_LOG(pGpu, GSP_RPC_TIMEOUT, "Timeout after %llus of waiting for RPC response from GPU%d GSP!", t, g);
    NV_ERROR_LOG(pGpu, ROBUST_CHANNEL_GR_EXCEPTION, "Graphics Exception on " #unit " in " NV_ENGINE_NAME);
    NV_ERROR_LOG(pGpu, ROBUST_CHANNEL_GR_EXCEPTION, "unterminated
'''
NV_GSP = '''    NV_PRINTF(LEVEL_ERROR, buffer);
    NV_PRINTF(LEVEL_ERROR, "GSP-RM is slow to respond: " GSP_HEARTBEAT_NAME " was not seen\\n");
    NV_PRINTF(LEVEL_INFO, "GSP booted in a quiet way\\n");
    NV_PRINTF(LEVEL_ERROR, "unterminated
'''
NV_H = ("#define ROBUST_CHANNEL_GPU_ECC_DBE                      (48)\n#define GSP_RPC_TIMEOUT (119)\n"
        "#define ROBUST_CHANNEL_GR_EXCEPTION (13)\n#define NOT_A_NUMBER (x)\n")
NV_DUP = NV_C.replace("static void f(void)", "static void h(void)").replace(
    "}\n", '    nv_printf(NV_DBG_ERRORS, "NVRM: No NVIDIA GPU found.\\n");\n    nv_printf(NV_DBG_ERRORS, "unterminated\n')
NV_FILES = [("kernel-open/nvidia/nv.c", NV_C), ("kernel-open/nvidia/nv-dup.c", NV_DUP),
            ("src/nvidia/src/kernel/gpu/ecc.c", NV_KERNEL), ("src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c", NV_GSP),
            ("src/common/sdk/nvidia/inc/nverror.h", NV_H), ("kernel-open/nvidia/nv.h", NV_C)]


def test_nvrm_sites_of_each_kind():
    xids = nvrm.xid_numbers(NV_FILES)
    assert xids == {"ROBUST_CHANNEL_GPU_ECC_DBE": 48, "GSP_RPC_TIMEOUT": 119, "ROBUST_CHANNEL_GR_EXCEPTION": 13}
    got = [s for p, src in NV_FILES for s in nvrm.sites_of(p, src, xids)]
    nv = [
        ("printf", "kernel-open/nvidia/%s:6",
         "NVRM: The NVIDIA GPU %04x:%02x:%02x.%x\nNVRM: fallen off the bus and is not responding to commands.\n",
         "NV_DBG_ERRORS", None),
        ("printf", "kernel-open/nvidia/%s:8", "NVRM: GPU %04x:%02x:%02x.%x: RmInitAdapter failed! (0x%x)\n",
         "NV_DBG_ERRORS", None),
        ("printf", "kernel-open/nvidia/%s:9", "NVRM: GPU %04x:%02x:%02x.%x: Failed to re-allocate BAR1 (%d)\n",
         "NV_DBG_WARNINGS", None),
        # a macro among the literals reads as %s
        ("printf", "kernel-open/nvidia/%s:10", "NVRM: loading the %s quiet driver module\n", "NV_DBG_INFO", None)]
    assert got == [(k, w % "nv.c", *r) for k, w, *r in nv] + [(k, w % "nv-dup.c", *r) for k, w, *r in nv] + [
        ("printf", "kernel-open/nvidia/nv-dup.c:11", "NVRM: No NVIDIA GPU found.\n", "NV_DBG_ERRORS", None),
        ("xid", "src/nvidia/src/kernel/gpu/ecc.c:5", "An uncorrectable double bit error (DBE) has been detected",
         "ROBUST_CHANNEL_GPU_ECC_DBE", 48),
        ("xid", "src/nvidia/src/kernel/gpu/ecc.c:6",
         "Timeout after %llus of waiting for RPC response from GPU%d GSP!", "GSP_RPC_TIMEOUT", 119),
        # a #stringified macro argument and a macro read as %s
        ("xid", "src/nvidia/src/kernel/gpu/ecc.c:7", "Graphics Exception on %s in %s", "ROBUST_CHANNEL_GR_EXCEPTION", 13),
        ("gsp", "src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c:2", "GSP-RM is slow to respond: %s was not seen\n",
         "LEVEL_ERROR", None),
    ]
    # the arch/nvalloc/unix sources hold both kinds
    both = list(nvrm.sites_of("src/nvidia/arch/nvalloc/unix/src/osinit.c", NV_C + NV_KERNEL, xids))
    assert [(k, w) for k, w, *_ in both] == [("printf", "src/nvidia/arch/nvalloc/unix/src/osinit.c:%d" % n)
                                            for n in (6, 8, 9, 10)] + \
        [("xid", "src/nvidia/arch/nvalloc/unix/src/osinit.c:%d" % n) for n in (16, 17, 18)]


def test_nvrm_build_assigns_families_prefixes_and_fixes():
    sites = nvrm.build(NV_FILES, "v1")["sites"]
    by = {s["where"]: s for s in sites}
    # nv-dup.c and nv.h repeat nv.c's texts: each (kind, text) once, the new one after the repeats still read
    assert list(by) == ["kernel-open/nvidia/nv.c:%d" % n for n in (6, 8, 9, 10)] + [
        "kernel-open/nvidia/nv-dup.c:11", "src/nvidia/src/kernel/gpu/ecc.c:5", "src/nvidia/src/kernel/gpu/ecc.c:6",
        "src/nvidia/src/kernel/gpu/ecc.c:7", "src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c:2"]
    off = by["kernel-open/nvidia/nv.c:6"]
    assert off["id"] == "nvrm.printf.kernel_open_nvidia_nv_c_6" and off["level"] == "NV_DBG_ERRORS"
    assert (off["family"], off["rule"]) == ("gpu.xid.fallen_off_bus", "fallen-off") and "xid" not in off
    # the matched line starts with NVRM itself: no prefix before it
    assert off["re"] == knowgen.printf_to_regex("NVRM: fallen off the bus and is not responding to commands.")[0]
    init = by["kernel-open/nvidia/nv.c:8"]
    assert (init["family"], init["rule"]) == ("gpu.xid.init", "init")
    assert init["re"] == knowgen.printf_to_regex("NVRM: GPU %04x:%02x:%02x.%x: RmInitAdapter failed! (0x%x)")[0]
    assert by["kernel-open/nvidia/nv.c:10"]["family"] is None and by["kernel-open/nvidia/nv.c:10"]["rule"] == "quiet"
    assert by["kernel-open/nvidia/nv-dup.c:11"]["family"] == "gpu.driver_not_loaded"
    dbe = by["src/nvidia/src/kernel/gpu/ecc.c:5"]
    assert dbe["xid"] == 48 and dbe["family"] == "gpu.xid.ecc" and dbe["rule"] == "ecc"
    assert dbe["re"] == nvrm.XID_PREFIX % 48 + knowgen.printf_to_regex(dbe["text"])[0]
    assert (dbe["means"], dbe["fix"]) == nvrm.xid_fix(48)
    rpc = by["src/nvidia/src/kernel/gpu/ecc.c:6"]
    assert (rpc["xid"], rpc["family"], rpc["rule"]) == (119, "gpu.xid.gsp", "xid-gsp")
    # an Xid no word rule assigns: by source context (assign13: nvErrorLog_va prints a GPU fault event) the generic
    # gpu.xid, with the catalog's fix for its number
    gr = by["src/nvidia/src/kernel/gpu/ecc.c:7"]
    assert (gr["xid"], gr["family"], gr["rule"]) == (13, "gpu.xid", "ctx-xid") and (gr["means"], gr["fix"]) == \
        nvrm.xid_fix(13)
    gsp = by["src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c:2"]
    assert (gsp["kind"], gsp["family"], gsp["rule"]) == ("gsp", "gpu.xid.gsp", "gsp")
    assert gsp["re"] == nvrm.NVRM_PREFIX + knowgen.printf_to_regex(gsp["text"])[0] and "fix" not in gsp
    # an Xid the catalog lacks: the family, no fix
    h = NV_H + "#define NEW_CODE (250)\n"
    k = 'nvErrorLog_va(p, NEW_CODE, "A new uncorrectable ECC error was seen on the GPU");'
    new = nvrm.build([("src/nvidia/src/kernel/a.c", k), ("nverror.h", h)], "v")["sites"][0]
    assert (new["xid"], new["family"]) == (250, "gpu.xid.ecc") and "fix" not in new and "means" not in new
    # a format with too short a literal: no matcher, no family, the rule says why
    vague = nvrm.build([("kernel-open/nvidia/a.c", 'nv_printf(NV_DBG_ERRORS, "NVRM: %s\\n", x);')], "v")["sites"]
    assert vague == [{"id": "nvrm.printf.kernel_open_nvidia_a_c_1", "where": "kernel-open/nvidia/a.c:1", "kind": "printf",
                      "text": "NVRM: %s", "level": "NV_DBG_ERRORS", "re": None, "family": None,
                      "rule": "no literal anchor of 8+ characters"}]
    # a call whose parentheses never close does not hide the GSP line after it
    gsp = 'NV_PRINTF(LEVEL_ERROR, f(x);\n    NV_PRINTF(LEVEL_ERROR, "GSP-RM unresponsive: resetting\\n");\n'
    assert list(nvrm.sites_of("src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c", gsp, {})) == [
        ("gsp", "src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c:2", "GSP-RM unresponsive: resetting\n", "LEVEL_ERROR", None)]


# ---------------------------------------------------------------------- PMIx

PMIX_SECTION = """/* other text */
#define PMIX_ERR_SYS_BASE   -100    (an end marker before the section: not its end)
/****    PMIX ERROR CONSTANTS    ****/
#define PMIX_SUCCESS                     0
#define PMIX_ERROR                      -1  // general error
#define PMIX_ERR_SILENT                 -2
// a comment line
#define PMIX_ERR_BASE                   -50
#define PMIX_ERR_NEXT   PMIX_ERR_BASE - 1  // one below
#define PMIX_ERR_UP   PMIX_ERR_BASE + 3
#define PMIX_ERR_SAME   PMIX_ERR_BASE
#define PMIX_ERR_ORPHAN   PMIX_ERR_NOT_DEFINED - 1
#define PMIX_ERR_LAST   -60
#define PMIX_EXTERNAL_ERR_BASE         -3000
/* after the end marker */
#define PMIX_ERR_AFTER -9
"""


def test_pmix_sections_and_parse_defines():
    body, first = pmix.sections(PMIX_SECTION)
    assert first == 3 and body.startswith("/****    PMIX ERROR CONSTANTS") and body.endswith("-3000\n")
    got = pmix.parse_defines(body)
    assert got == [
        ("PMIX_SUCCESS", 0, ""), ("PMIX_ERROR", -1, "general error"), ("PMIX_ERR_SILENT", -2, ""),
        ("PMIX_ERR_BASE", -50, ""), ("PMIX_ERR_NEXT", -51, "one below"), ("PMIX_ERR_UP", -47, ""),
        ("PMIX_ERR_SAME", -50, ""), ("PMIX_ERR_LAST", -60, "")]
    assert all(type(c) is int for _, c, _ in got)  # written to the JSON as -51, never -51.0
    # no end marker: to the last line
    body, first = pmix.sections("x\n/* PMIX ERROR CONSTANTS */\n#define PMIX_ERR_A -5\n#define PMIX_ERR_B -6\n")
    assert (first, body) == (2, "/* PMIX ERROR CONSTANTS */\n#define PMIX_ERR_A -5\n#define PMIX_ERR_B -6\n")


def test_pmix_error_string_function():
    src = ("#include <x.h>\n\nstatic int y;\n"
           "PMIX_EXPORT const char* PMIx_Error_string(pmix_status_t errnum)\n{\n    switch(errnum) {\n"
           "    case PMIX_ERR_UNREACH:\n        return \"UNREACHABLE\";\n    }\n"
           "    return \"ERROR STRING NOT FOUND\";\n}\n\nint other(void) { }\n")
    body, first = pmix.error_string_function(src)
    func = src[src.index("PMIX_EXPORT"):src.index("\n\nint other") + 1]
    assert (body, first) == (func, 4)
    # the text 'ERROR STRING NOT FOUND' above it, or in a later function that names it; a first blank line
    around = ('/* returns "ERROR STRING NOT FOUND" */\n' + src +
              '/* PMIx_Error_string(pmix_status_t) above */\nconst char *x(void) { return "ERROR STRING NOT FOUND"; }\n')
    assert pmix.error_string_function(around) == (func, 5)
    assert pmix.error_string_function("\n" + src) == (func, 5)
    assert pmix.error_string_function("\n" + func) == (func, 2)


def test_pmix_matcher():
    assert pmix.matcher("PMIX_ERR_UNREACH", "UNREACHABLE") == \
        r"(?:PMIX ERROR: (?:PMIX_ERR_UNREACH|UNREACHABLE) in file|\bPMIX_ERR_UNREACH\b)"
    assert pmix.matcher("PMIX_ERR_UNREACH", "PMIX_ERR_UNREACH") == \
        r"(?:PMIX ERROR: (?:PMIX_ERR_UNREACH) in file|\bPMIX_ERR_UNREACH\b)"
    assert pmix.matcher("PMIX_ERROR", "ERROR") == r"PMIX ERROR: (?:PMIX_ERROR|ERROR) in file"
    assert pmix.matcher("PMIX_ERROR", None) == r"PMIX ERROR: (?:PMIX_ERROR) in file"


def test_pmix_build_refuses_a_means_no_site_takes(monkeypatch):
    files, version = knowgen.read_slice(os.path.join(SLICES, "pmix_errors_slice.txt"))
    # the order of the slice's files does not matter (the new release's tag is the one that is not v3's)
    assert pmix.build(list(reversed(files)), version)["sites"] == pmix.build(files, version)["sites"]
    monkeypatch.setitem(pmix.MEANS, "PMIX_ERR_NO_SUCH_CODE", ("m", ["f"]))
    monkeypatch.setitem(pmix.MEANS, "PMIX_ERR_NOR_THIS", ("m", ["f"]))
    with pytest.raises(SystemExit, match="MEANS names codes these sources do not have .*: PMIX_ERR_NOR_THIS, "
                                         "PMIX_ERR_NO_SUCH_CODE$"):
        pmix.build(files, version)


def test_pmix_build_one_site_per_name(monkeypatch):
    monkeypatch.setattr(pmix, "MEANS", {"PMIX_ERR_UNREACH": ("unreachable", ["fix it"])})
    common = ("#define PMIX_ERR_UNREACH -25\n#define PMIX_ERR_NEW_THING -400  // a new code\n"
              "#define PMIX_SOME_STATUS -402\n#define PMIX_EVENT_X -403\n")
    files = [("v5:include/pmix_common.h.in", common), ("v5:include/pmix_deprecated.h", common +
                                                       "#define PMIX_ERR_DEPRECATED_X -401\n"),
             ("v5:src/util/pmix_error.h", "#define PMIX_ERR_UNREACH -25\n"),
             ("v3:include/pmix_common.h.in", "#define PMIX_ERR_UNREACH -25\n#define PMIX_ERR_OLD_ONLY -26\n"),
             ("v3:src/util/error.c", 'case PMIX_ERR_UNREACH: return "UNREACHABLE";\n'
                                     'case PMIX_ERR_OLD_ONLY: return "OLD-ONLY";\n')]
    sites = pmix.build(files, "v")["sites"]
    assert [(s["name"], s["code"], s["where"]) for s in sites] == [
        ("PMIX_ERR_UNREACH", -25, "v5:include/pmix_common.h.in"),
        ("PMIX_ERR_NEW_THING", -400, "v5:include/pmix_common.h.in"),
        ("PMIX_SOME_STATUS", -402, "v5:include/pmix_common.h.in"), ("PMIX_EVENT_X", -403, "v5:include/pmix_common.h.in"),
        ("PMIX_ERR_DEPRECATED_X", -401, "v5:include/pmix_deprecated.h"),
        ("PMIX_ERR_OLD_ONLY", -26, "v3:include/pmix_common.h.in")]
    by = {s["name"]: s for s in sites}
    assert by["PMIX_ERR_UNREACH"]["printed"] == ["PMIX_ERR_UNREACH", "UNREACHABLE"]
    assert by["PMIX_ERR_UNREACH"]["text"] == "PMIx <= 4.1 prints UNREACHABLE"
    assert (by["PMIX_ERR_UNREACH"]["means"], by["PMIX_ERR_UNREACH"]["fix"]) == ("unreachable", ["fix it"])
    assert by["PMIX_ERR_NEW_THING"]["text"] == "a new code" and by["PMIX_ERR_NEW_THING"]["printed"] == [
        "PMIX_ERR_NEW_THING"]
    assert by["PMIX_ERR_OLD_ONLY"]["text"] == "PMIx <= 4.1 prints OLD-ONLY"
    assert (by["PMIX_ERR_NEW_THING"]["rule"], by["PMIX_ERR_NEW_THING"]["family"]) == ("pmix", "mpi.pmix")
    # a name no rule takes: 'no rule', no family, no matcher
    assert (by["PMIX_SOME_STATUS"]["rule"], by["PMIX_SOME_STATUS"]["family"], by["PMIX_SOME_STATUS"]["re"]) == (
        "no rule", None, None)
    # an event: its rule says why it has no matcher
    assert by["PMIX_EVENT_X"]["rule"] == "not-an-error: an event or status, not an error a log reports"


# ---------------------------------------------------------------------- the command line

@pytest.mark.parametrize("gen,name,what", [(dcgm, "dcgm_errors", "codes"), (nvrm, "nvrm_messages", "sites")])
def test_main_reads_the_repository_at_its_revision_and_writes_the_committed_file(gen, name, what, monkeypatch,
                                                                                 tmp_path, capsys):
    files, version = knowgen.read_slice(os.path.join(SLICES, name + "_slice.txt"))
    calls = []
    monkeypatch.setattr(gen, "from_repo", lambda repo, rev: calls.append((repo, rev)) or (files, version))
    monkeypatch.setattr(knowgen, "OUT_DIR", str(tmp_path))  # the default output: generated/<name>.json
    assert gen.main(["--repo", "/src/upstream.git"]) == 0
    assert gen.main(["--repo", "/src/upstream.git", "--rev", "v9"]) == 0
    assert calls == [("/src/upstream.git", "HEAD"), ("/src/upstream.git", "v9")]
    with open(tmp_path / (name + ".json")) as f:
        doc = json.load(f)
    assert doc["sites"] == knowgen.regenerated(gen.main, os.path.join(SLICES, name + "_slice.txt"),
                                               tmp_path / "again.json")["sites"]
    n, assigned = len(doc["sites"]), sum(1 for s in doc["sites"] if s.get("family"))
    assert capsys.readouterr().out.splitlines()[0] == "%s: %d %s, %d assigned" % (tmp_path / (name + ".json"), n,
                                                                                  what, assigned)


def test_pmix_main_writes_its_slice_from_the_repository(monkeypatch, tmp_path, capsys):
    with open(os.path.join(SLICES, "pmix_errors_slice.txt")) as f:
        text = f.read()
    full = knowgen.committed("pmix_errors")  # (read before OUT_DIR points at tmp_path)
    calls = []
    monkeypatch.setattr(pmix, "slice_from_repo", lambda repo, rev, old: calls.append((repo, rev, old)) or text)
    monkeypatch.setattr(pmix, "SLICE", str(tmp_path / "slice.txt"))
    monkeypatch.setattr(knowgen, "OUT_DIR", str(tmp_path))
    assert pmix.main(["--repo", "/src/openpmix.git"]) == 0
    assert pmix.main(["--repo", "/src/openpmix.git", "--rev", "v6", "--old-rev", "v3.9", "-o",
                      str(tmp_path / "other.json")]) == 0
    assert calls == [("/src/openpmix.git", "v5.0.11", "v3.2.5"), ("/src/openpmix.git", "v6", "v3.9")]
    with open(tmp_path / "slice.txt") as f:
        assert f.read() == text
    with open(tmp_path / "pmix_errors.json") as f:
        doc = json.load(f)
    assert doc["sites"] == full["sites"]
    assert {k: doc["header"][k] for k in ("source", "version", "generator", "note")} == \
        {k: full["header"][k] for k in ("source", "version", "generator", "note")}
    n, assigned = len(doc["sites"]), sum(1 for s in doc["sites"] if s.get("family"))
    assert capsys.readouterr().out.splitlines()[0] == "%s: %d codes, %d assigned" % (tmp_path / "pmix_errors.json", n,
                                                                                     assigned)


# ---------------------------------------------------------------------- reading the upstream repository

def _git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "-c",
                           "commit.gpgsign=false", "-c", "tag.gpgsign=false"] + list(args),
                          check=True, capture_output=True, text=True).stdout


def _repo_from_slice(name, repo, extra=()):
    """A git repository holding a slice's sections at their line numbers ('=== [tag:]path @N'), one
    commit per tag (in the slice's order; one tag 'v1' when the paths carry none), plus ``extra``
    files ((path, text)) in the first commit."""
    with open(os.path.join(SLICES, name + "_slice.txt")) as f:
        parts = re.split(r"^=== (\S+) @(\d+)\n", f.read(), flags=re.M)[1:]
    by_tag = {}
    for where, first, body in zip(parts[::3], parts[1::3], parts[2::3]):
        tag, _, path = where.rpartition(":")
        lines = by_tag.setdefault(tag or "v1", {}).setdefault(path, [])
        lines.extend([""] * (int(first) - 1 - len(lines)))
        lines.extend(body.splitlines())
    repo.mkdir()
    _git(repo, "init", "-q")
    for i, (tag, files) in enumerate(by_tag.items()):
        for path, text in list(files.items()) + (list(extra) if i == 0 else []):
            (repo / path).parent.mkdir(parents=True, exist_ok=True)
            (repo / path).write_text(text if isinstance(text, str) else "\n".join(text) + "\n")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", tag)
        _git(repo, "tag", tag)
    return str(repo)


def test_dcgm_reads_its_two_files_from_the_repository(tmp_path):
    repo = _repo_from_slice("dcgm_errors", tmp_path / "DCGM.git")
    files, version = dcgm.from_repo(repo, "HEAD")
    assert [p for p, _ in files] == ["dcgmlib/dcgm_errors.h", "dcgmlib/src/dcgm_errors.c"]
    assert version == "v1 (commit %s)" % _git(repo, "rev-parse", "HEAD").strip()
    sliced, _ = knowgen.read_slice(os.path.join(SLICES, "dcgm_errors_slice.txt"))
    assert dcgm.build(files, version)["sites"] == dcgm.build(sliced, version)["sites"]


def test_nvrm_reads_the_files_that_log_from_the_repository(tmp_path):
    extra = [("kernel-open/nvidia/nv.h", 'nv_printf(NV_DBG_ERRORS, "NVRM: a header is not read\\n");\n'),
             ("kernel-open/common/inc/x.c", 'nv_printf(NV_DBG_ERRORS, "NVRM: another folder is not read\\n");\n'),
             ("src/nvidia/src/kernel/gpu/quiet.c", 'NV_PRINTF(LEVEL_ERROR, "not a file that logs an Xid\\n");\n'),
             ("src/nvidia/src/kernel/gpu/rc/rc.c",
              'NV_ERROR_LOG(pGpu, ROBUST_CHANNEL_GPU_ECC_DBE, "A double bit error from a file not in the slice");\n'),
             ("src/nvidia/src/kernel/gpu/rc/rc.h", 'NV_ERROR_LOG(pGpu, X, "a header that logs is not read");\n')]
    repo = _repo_from_slice("nvrm_messages", tmp_path / "open-gpu-kernel-modules.git", extra)
    files, version = nvrm.from_repo(repo, "v1")
    sliced, _ = knowgen.read_slice(os.path.join(SLICES, "nvrm_messages_slice.txt"))
    # the two folders and nverror.h, then the kernel's files that log an Xid text and kernel_gsp.c, each sorted
    want = sorted({p for p, _ in sliced} | {"src/nvidia/src/kernel/gpu/rc/rc.c"})
    kernel = [p for p in want if p.startswith("src/nvidia/src/kernel/")]
    assert [p for p, _ in files] == [p for p in want if p not in kernel] + kernel
    assert version == "v1 (commit %s)" % _git(repo, "rev-parse", "v1").strip()
    got = {s["where"]: s for s in nvrm.build(files, version)["sites"]}
    for s in nvrm.build(sliced, version)["sites"]:
        assert got.pop(s["where"]) == s, s["where"]
    assert [s["text"] for s in got.values()] == ["A double bit error from a file not in the slice"]


def test_pmix_slice_from_the_repository_is_the_committed_slice(tmp_path):
    repo = _repo_from_slice("pmix_errors", tmp_path / "openpmix.git")
    got = pmix.slice_from_repo(repo, "v5.0.11", "v3.2.5")
    with open(os.path.join(SLICES, "pmix_errors_slice.txt")) as f:
        want = f.read()
    first, rest = got.split("\n", 1)
    assert first == "#! version v5.0.11 (commit %s); v3.2.5 (commit %s)" % (
        _git(repo, "rev-parse", "v5.0.11").strip(), _git(repo, "rev-parse", "v3.2.5").strip())
    assert rest == want.split("\n", 1)[1]
    # the revisions are recorded as given (a pinned tag is its own name; describe=False): HEAD stays HEAD
    # (the slice lists v5.0.11 first: it is the first commit, v3.2.5 the second)
    first = pmix.slice_from_repo(repo, "HEAD~1", "HEAD").split("\n", 1)[0]
    assert first == "#! version HEAD~1 (commit %s); HEAD (commit %s)" % (
        _git(repo, "rev-parse", "v5.0.11").strip(), _git(repo, "rev-parse", "v3.2.5").strip())


def test_nvrm_reads_kernel_gsp_even_when_it_logs_no_xid(tmp_path):
    repo = tmp_path / "r.git"
    (repo / "src/nvidia/src/kernel/gpu/gsp").mkdir(parents=True)
    (repo / "src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c").write_text('NV_PRINTF(LEVEL_ERROR, "GSP-RM unresponsive\\n");\n')
    (repo / "src/nvidia/src/kernel/gpu/a.c").write_text('NV_ERROR_LOG(pGpu, X, "An Xid text of its own file");\n')
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "one")
    _git(repo, "tag", "v1")
    files, _ = nvrm.from_repo(str(repo), "v1")
    assert [p for p, _ in files] == ["src/nvidia/src/kernel/gpu/a.c", "src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c"]

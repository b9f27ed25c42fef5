"""Sites assigned by source context (issue 18, assign13): munged's log_err / log_errno sites (they log, then exit the
daemon: dun/munge src/libcommon/log.c) and libmunge's socket messages (m_msg.c, m_msg_client.c) take the family of
what the call does (tools/gen_munge_messages.py CONTEXT_RULES); a site with fewer than 3 words of its own stays
unassigned. The OpenMP runtime's levels are tested in tests/test_explain_hostprog.py.
"""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_munge_messages as munge  # noqa: E402
import knowgen  # noqa: E402
from explainhelp import explain_paste, root_of  # noqa: E402


def test_munged_exit_sites_are_assigned_by_the_call_that_prints_them():
    sites = knowgen.committed("munge_messages")["sites"]
    ctx = [s for s in sites if s.get("rule") == "ctx-munged-exit"]
    assert len(ctx) >= 100 and {s["family"] for s in ctx} == {"munge.daemon"}
    assert all(s["where"].startswith("munge:src/munged/") and s["level"].startswith("log_err") for s in ctx)
    sock = {s["text"]: s for s in sites if s.get("rule") == "ctx-munge-socket"}
    assert sock["Failed to create socket: %s"]["family"] == "munge.not_running"
    # a word rule still comes first: the key file checks keep munge.daemon_start
    assert all(s["family"] == "munge.daemon_start" for s in sites if s["text"].startswith("Keyfile is insecure"))
    # munge's commands (src/munge/) print and exit too, but what they say is the command's use: not assigned here
    assert not any(str(s.get("rule")).startswith("ctx-") for s in sites if s.get("where", "").startswith("munge:src/munge/"))


def test_a_vague_site_stays_unassigned():
    assert not knowgen.specific_enough("Failed to %s: %s", munge.CTX_WORDS)
    assert knowgen.specific_enough("Failed to init work thread mutex", munge.CTX_WORDS)


def test_munged_thread_failure_is_munged_exiting(cli, tmp_path):
    # composed from the format of dun/munge src/munged/work.c (log_errno (EMUNGE_SNAFU, LOG_ERR, "Failed to init work
    # thread mutex")), in munged.log's shape (src/libcommon/log.c: time, priority, message, then strerror)
    text = "2026-11-26 10:00:00 +0000 Error:      Failed to init work thread mutex: Cannot allocate memory\n"
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1))
    root = root_of(doc)
    assert root and root["id"] == "munge.daemon", doc
    site = next(s for s in knowgen.committed("munge_messages")["sites"] if s["text"] == "Failed to init work thread mutex")
    assert re.search(site["re"], text)


# ------------------------------------------------------------------ NVRM: the function and its error path

import gen_nvrm_messages as nvrm  # noqa: E402

NV_SRC = '''static int
nv_start_device(nv_state_t *nv)
{
    nv_printf(NV_DBG_ERRORS, "NVRM: loading %s\\n", v);   /* a { in a comment */
    if (rc != 0)
    {
        NV_DEV_PRINTF(NV_DBG_ERRORS, nv, "request_irq() failed (%d) {\\n", rc);
        goto failed;
    }
    if (x)
    {
        nv_printf(NV_DBG_ERRORS, "NVRM: went on after this\\n");
        y = 1;
    }
}
'''


def test_error_path_and_function_are_read_from_the_code():
    code = nvrm.code_only(NV_SRC)
    assert len(code) == len(NV_SRC) and "loading" not in code and "a {" not in code
    at = {t: NV_SRC.index(t) for t in ("loading", "request_irq", "went on")}
    assert {nvrm.enclosing_function(code, i) for i in at.values()} == {"nv_start_device"}
    ends = {t: knowgen.statement_end(NV_SRC, i) for t, i in at.items()}
    assert not nvrm.on_error_path(code, ends["loading"])  # the function's own body
    assert nvrm.on_error_path(code, ends["request_irq"])  # its block leaves with goto
    assert not nvrm.on_error_path(code, ends["went on"])  # its block goes on


def test_nvrm_sites_assigned_by_context():
    sites = {s["text"]: s for s in knowgen.committed("nvrm_messages")["sites"]}
    irq = sites["NVRM: GPU %04x:%02x:%02x.%x: request_irq() failed (%d)"]
    assert (irq["function"], irq["path"], irq["family"], irq["rule"]) == ("nv_start_device", "error", "gpu.xid.init",
                                                                         "ctx-gpu-init")
    chrdev = sites["NVRM: register_chrdev_region() failed for %s!"]
    assert (chrdev["family"], chrdev["rule"]) == ("gpu.driver_not_loaded", "ctx-module-load")
    # a healthy line at NV_DBG_ERRORS: the module's banner, on no error path
    loading = sites["NVRM: loading %s"]
    assert loading["function"] == "nvidia_init_module" and "path" not in loading and not loading.get("family")
    xids = [s for s in sites.values() if s.get("rule") == "ctx-xid"]
    assert xids and all(s["family"] == "gpu.xid" and isinstance(s["xid"], int) for s in xids)


def test_an_irq_failure_is_the_gpu_not_brought_up(cli, tmp_path):
    # composed from the format of NVIDIA/open-gpu-kernel-modules kernel-open/nvidia/nv.c nv_start_device
    # (NV_DEV_PRINTF(NV_DBG_ERRORS, nv, "request_irq() failed (%d)\n", rc); then goto failed), in dmesg's shape
    text = "[   12.345678] NVRM: GPU 0000:3b:00.0: request_irq() failed (-22)\n"
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1))
    root = root_of(doc)
    assert root and root["id"] == "gpu.xid.init", doc


# ------------------------------------------------------------------ host programs: nvidia-installer and DKMS


def test_installer_and_dkms_sites_by_the_call_and_file():
    sites = {s["id"]: s for s in knowgen.committed("host_messages")["sites"]}
    by_text = {s["text"]: s for s in sites.values()}
    # kernel.c builds, installs and loads the module: its ui_error is that step failing
    assert by_text["Unable to create a temporary build directory."]["rule"] == "ctx-installer-kernel"
    assert by_text["Unable to create a temporary build directory."]["family"] == "gpu.driver_module"
    # DKMS's report_build_problem dies after filing the build problem
    assert by_text["Application of patch %s failed."]["rule"] == "ctx-dkms-build"
    # a warning (ui_warn / dkms warn) returns and the installer goes on
    warn = by_text["Unable to determine the version of the running kernel (%s)."]
    assert warn["level"] == "ui_warn" and not warn.get("family") and warn["rule"].startswith("not a failure")
    # a word rule still comes first: the installer's nouveau warning is an answer
    assert by_text["The Nouveau kernel driver is currently in use by your system.  This driver is incompatible with "
                   "the NVIDIA driver, and must be disabled before proceeding."]["family"] == "gpu.driver_module"


# ------------------------------------------------------------------ the NVIDIA device plugin and the GPU operator


def test_k8s_nvidia_sites_by_the_call_that_reports_them():
    sites = [s for s in knowgen.committed("k8s_messages")["sites"] if s["where"].startswith("NVIDIA/")]
    by_text = {s["text"]: s for s in sites}
    reg = by_text["Could not register device plugin: %s"]
    assert (reg["call"], reg["family"], reg["rule"]) == ("klog.Errorf", "k8s.device_plugin_error", "ctx-device-plugin")
    val = by_text["no vGPU devices found"]
    assert (val["call"], val["family"], val["rule"]) == ("fmt.Errorf", "k8s.gpu_operator", "ctx-validator")
    # an error value that wraps another (fmt.Errorf("...: %w", err), or NVML's ret): the wrapped error names the cause
    # (NVIDIA/k8s-device-plugin#399: 'error starting plugins: ... error getting device memory info: Insufficient
    # Permissions' is NVML's refusal under MIG, not the plugin's own)
    for text in ("error validating nvidia-peermem driver installation: %s", "error starting plugins: %s",
                 "error getting product name for GPU: %s"):
        assert by_text[text].get("wraps") and not by_text[text].get("family"), text
    # NVML's own line stays NVML's; a warning goes on; a test file is no site of the plugin's
    assert not by_text["Failed to initialize NVML: %s."].get("family")
    assert by_text["Ignoring error getting device memory: %s"]["rule"].startswith("not a failure")
    assert not any(s.get("rule", "").startswith("ctx-") and "_test.go:" in s["where"] for s in sites)
    # an Sprintf (a path, a name) is no error report
    assert all(s["call"] != "fmt.Sprintf" for s in sites if str(s.get("rule")).startswith("ctx-"))


def test_a_registration_failure_names_the_device_plugin(cli, tmp_path):
    # composed from NVIDIA/k8s-device-plugin internal/plugin/server.go (klog.Errorf("Could not register device plugin:
    # %s", err)) with the kubelet socket's gRPC error, in klog's line shape
    text = ("E1126 10:00:00.000000       1 server.go:120] Could not register device plugin: rpc error: code = "
            "Unavailable desc = connection error: desc = \"transport: Error while dialing: dial unix "
            "/var/lib/kubelet/device-plugins/kubelet.sock: connect: no such file or directory\"\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1))
    root = root_of(doc)
    assert root and root["id"] == "k8s.device_plugin_error", doc


# ------------------------------------------------------------------ DCGM's failure codes by their own category


def test_dcgm_codes_by_their_category_and_severity():
    sites = {s["name"]: s for s in knowgen.committed("dcgm_errors")["sites"]}
    cuda = sites["DCGM_FR_CUDA_CONTEXT"]
    assert (cuda["category"], cuda["family"], cuda["rule"]) == ("software_cuda", "dcgm.diag", "ctx-dcgm-diag")
    assert cuda["fix"][0] == cuda["next"]  # DCGM's own next step is the site's fix
    assert sites["DCGM_FR_HOSTENGINE_CONN"]["family"] == "dcgm.hostengine"
    assert sites["DCGM_FR_TEST_SKIPPED"]["rule"].startswith("not a failure") and not sites["DCGM_FR_TEST_SKIPPED"].get(
        "family")
    # a message with fewer than 3 words of its own stays unassigned: any program could print it
    assert not sites["DCGM_FR_API_FAIL"].get("family") and sites["DCGM_FR_API_FAIL"]["rule"].startswith("too few")


def test_a_dcgm_persistence_failure_is_the_diagnostic(cli, tmp_path):
    # composed from NVIDIA/DCGM dcgmlib/dcgm_errors.h DCGM_FR_PERSISTENCE_MODE_MSG ("Persistence mode for GPU %u is
    # disabled."), as dcgmi diag prints a failed check's message in its results table
    text = "|  - Warning                | Persistence mode for GPU 0 is disabled.                |\n"
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1))
    root = root_of(doc)
    assert root and root["id"] == "dcgm.diag", doc
    assert "nvidia-smi -i <gpuId> -pm 1" in " ".join(root["causes"][0].get("fix") or []) or \
        any("persistence" in " ".join(c.get("fix") or []).lower() for c in root["causes"]), root["causes"]


def test_dcgmi_return_lines_are_a_dcgm_call_failing(cli, tmp_path):
    sites = {s["text"]: s for s in knowgen.committed("dcgm_status")["sites"]}
    assert (sites["Unable to set health watches. Return:"]["family"], sites["Unable to set health watches. Return:"][
        "rule"]) == ("dcgm.error", "ctx-dcgmi-return")
    assert not sites["Invalid severity string"].get("family")  # no 'Return: <code>' printed: a usage error
    # composed from NVIDIA/DCGM dcgmi/Health.cpp ('Error: Unable to set health watches. Return: ' << errorString(result))
    # with DCGM_ST_REQUIRES_ROOT's errorString
    text = "Error: Unable to set health watches. Return: This request is serviced only by the root user.\n"
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1))
    root = root_of(doc)
    assert root and root["id"] == "dcgm.error", doc
    # the return code's own site names the hostengine when that is the text after 'Return: '
    text = "Error: Unable to get GPU info. Return: Host engine connection invalid/disconnected.\n"
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1))
    assert root_of(doc)["id"] == "dcgm.hostengine"

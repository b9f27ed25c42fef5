"""Host programs' messages (issue 18, host-src): the NVIDIA kernel module's build and load (nvidia-installer, DKMS,
kmod, the kernel's module loader and modpost), the LLVM/Intel OpenMP runtime, OpenBLAS (tools/gen_host_messages.py
-> generated/host_messages.json), and the hand-written entries of hostprog.toml for MKL's threading layer and DCGM's
host engine. The generator regenerates the committed sites from its slice; real lines of public threads (cited per
text) get their family and the fix the thread settled on.
"""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLICE = os.path.join(REPO, "tools", "data", "host_messages_slice.txt")
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_host_messages as gen  # noqa: E402
import knowgen  # noqa: E402
from explainhelp import explain_paste, ids, root_of  # noqa: E402

REAL = {
    # https://github.com/NVIDIA/gpu-operator/issues/751 (the 535 driver's build refused by a newer kernel)
    "gpl_only": "ERROR: modpost: GPL-incompatible module nvidia.ko uses GPL-only symbol 'rcu_read_unlock_strict'\n",
    # https://github.com/realsenseai/realsense_mipi_platform_driver/issues/281 (kern.log after a module rebuild)
    "symbols": ("Jun 26 08:48:30 robocatsorin kernel: [   15.726225] nvidia: disagrees about version of symbol "
                "i2c_get_adapter\nJun 26 08:48:30 robocatsorin kernel: [   15.726238] nvidia: Unknown symbol "
                "i2c_get_adapter (err -22)\n"),
    # https://github.com/korvahannu/arch-nvidia-drivers-installation-guide/issues/37 (DKMS after a kernel upgrade)
    "dkms": ("==> dkms install --no-depmod nvidia/470.256.02 -k 6.14.4-arch1-2\n\nError! Bad return status for module "
             "build on kernel: 6.14.4-arch1-2 (x86_64)\nConsult /var/lib/dkms/nvidia/470.256.02/build/make.log for more "
             "information.\n"),
    # https://github.com/NVIDIA/nvidia-docker/issues/365 (module-init-tools' modprobe after a kernel upgrade)
    "modprobe": ("$ sudo modprobe nvidia\nmodprobe: FATAL: Module nvidia not found.\n"),
    # https://github.com/shelmangroup/coreos-gpu-installer/issues/2 (nvidia-installer wraps at 80 columns)
    "installer": ("ERROR: Unable to load the kernel module 'nvidia.ko'.  This happens most\n       frequently when this "
                  "kernel module was built against the wrong or\n       improperly configured kernel sources, with a "
                  "version of gcc that\n"),
    # https://github.com/mlc-ai/mlc-llm/issues/95 (the wording of nvidia-installer before 550: --older-installer)
    "loaded": "ERROR: An NVIDIA kernel module 'nvidia-uvm' appears to already be loaded in your kernel. \n",
    # https://github.com/kuprel/min-dalle/issues/12
    "omp15": "OMP: Error #15: Initializing libiomp5.dylib, but found libomp.dylib already initialized.\n",
    # https://github.com/InternLM/xtuner/issues/350
    "mkl": ("LLaVA Pretrain Error: mkl-service + Intel(R) MKL: MKL_THREADING_LAYER=INTEL is incompatible with "
            "libgomp.so.1 library.\n"),
    # https://github.com/NVIDIA/DCGM/issues/133
    "dcgm": ("Error: unable to establish a connection to the specified host: 10.112.220.8\n"
             "Error: Unable to connect to host engine. Host engine connection invalid/disconnected.\n"),
}


def test_generator_regenerates_the_committed_sites_from_the_slice(tmp_path):
    got = knowgen.regenerated(gen.main, SLICE, tmp_path / "host_messages.json")
    full = knowgen.committed("host_messages")
    assert "(commit " in full["header"]["version"] and "llvm-project" in full["header"]["version"]
    # the OpenMP catalog's numbers moved between releases: a text is one site per number (code)
    by_text = {(s["id"].split(".")[1], s["text"], s.get("code")): s for s in full["sites"]}
    assert len(got["sites"]) >= 30
    for s in got["sites"]:
        want = by_text[(s["id"].split(".")[1], s["text"], s.get("code"))]
        assert {k: v for k, v in s.items() if k not in ("id", "where")} == \
            {k: v for k, v in want.items() if k not in ("id", "where")}, s["id"]
    sites = {s["text"]: s for s in got["sites"]}
    assert sites["GPL-incompatible module %s.ko uses GPL-only symbol '%s'"]["family"] == "gpu.driver_module"
    assert "newer driver that supports" in sites["GPL-incompatible module %s.ko uses GPL-only symbol '%s'"]["fix"][0]
    assert sites["Bad return status for module build on kernel: %s (%s)"]["family"] == "gpu.driver_module"
    dup = sites["Initializing %1$s, but found %2$s already initialized."]
    assert dup["family"] == "code.openmp_duplicate" and dup["code"] == 15 and "#15: " in dup["re"]
    # a kernel notice every out-of-tree module prints on a healthy system is no answer
    assert not sites["%s: module verification failed: signature and/or required key missing - tainting kernel"].get(
        "family")
    assert full["unassigned"] == sorted(s["id"] for s in full["sites"] if not s.get("family"))


def test_openmp_sites_take_their_level_from_the_call_that_prints_them(tmp_path):
    """Source context (assign13): the runtime's sources at the release tag say whether a catalog message aborts
    (__kmp_fatal, KMP_FATAL) or goes on (KMP_WARNING, KMP_INFORM); libgomp's gomp_fatal exits, gomp_error returns."""
    got = knowgen.regenerated(gen.main, SLICE, tmp_path / "host_messages.json")
    omp = {(s["name"], s["code"]): s for s in got["sites"] if s["id"].startswith("host.openmp.")}
    # the catalog's numbers moved: FunctionError is #178 in 9.0.0 and #179 in the recorded newer catalog
    assert omp[("FunctionError", 178)]["level"] == "fatal" and omp[("FunctionError", 179)]["level"] == "fatal"
    assert "#178: " in omp[("FunctionError", 178)]["re"]
    assert omp[("CantCreateThread", 136)]["family"] == "code.openmp_error"
    full = [s for s in knowgen.committed("host_messages")["sites"] if s["id"].startswith("host.openmp.")]
    assert sum(1 for s in full if s.get("rule") == "ctx-omp-fatal") >= 40  # the fatal messages no name rule lists
    for name, code, level in (("CantFormThrTeam", 96, "warning"), ("APIDeprecated", 270, "info"),
                              ("ThreadIdentInvalid", None, "warning")):
        site = omp[(name, code)]
        assert site["level"] == level and not site.get("family") and site["rule"].startswith("not a failure"), name
    gomp = {s["text"]: s for s in got["sites"] if s["id"].startswith("host.libgomp.")}
    assert gomp["could not create thread pool destructor."]["rule"] == "ctx-gomp-fatal"
    assert gomp["could not create thread pool destructor."]["family"] == "code.openmp_error"
    assert not gomp["Invalid value for environment variable OMP_WAIT_POLICY"].get("family")
    assert gen.omp_levels(["KMP_WARNING(A, x);\n__kmp_fatal(KMP_MSG(A), KMP_ERR(e));\n"
                           "__kmp_msg(kmp_ms_inform,\n  KMP_MSG(B, y), __kmp_msg_null);"]) == {"A": "fatal", "B": "info"}


def test_openmp_notes_are_no_root(cli, tmp_path):
    # https://github.com/souffle-lang/souffle/issues/1116 (clang 9's libomp: #270 is 9.0.0's numbering, read from the
    # release tag) - a deprecation note the runtime prints with KMP_INFORM; the program goes on
    text = "OMP: Info #270: omp_set_nested routine deprecated, please use omp_set_max_active_levels instead.\n"
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1))
    assert root_of(doc) is None, ids(doc)
    sites = {s["id"]: s for s in knowgen.committed("host_messages")["sites"]}
    site = next(s for s in sites.values() if s.get("name") == "APIDeprecated" and s.get("code") == 270)
    assert re.search(site["re"], text) and not site.get("family")


def test_catalog_numbers_count_obsolete_entries():
    src = '-*- MESSAGES -*-\nA "one"\nOBSOLETE "gone"\nB "three %1$s"\n    "continued"\n-*- HINTS -*-\nC "hint"\n'
    assert gen.catalog(src) == [(1, "A", "one"), (2, "OBSOLETE", "gone"), (3, "B", "three %1$scontinued")]


def test_matchers_are_linear_on_long_lines():
    full = knowgen.committed("host_messages")
    line = "OMP: Error #15: " + "Initializing a, but found " * 400 + "\n" + "'%s' " * 2000
    for s in full["sites"]:  # their CPU time (bound 2 s): bench/cpu_bounds.py
        if s.get("re"):
            assert re.search(s["re"], line) is None, s["re"]  # near-misses, no message


def test_real_texts(cli, tmp_path):
    want = {"gpl_only": ("gpu.driver_module", "newer driver that supports"),
            "symbols": ("gpu.driver_module", "rebuild"),
            "dkms": ("gpu.driver_module", "make.log"),
            "modprobe": ("gpu.driver_module", "dkms autoinstall"),
            "installer": ("gpu.driver_module", "nvidia-installer.log"),
            "loaded": ("gpu.driver_module", "rmmod"),
            "omp15": ("code.openmp_duplicate", "one OpenMP runtime"),
            "mkl": ("code.mkl_threading_layer", "MKL_THREADING_LAYER=GNU"),
            "dcgm": ("dcgm.hostengine", "nv-hostengine -b <")}
    for name, (fid, fix) in want.items():
        rc, doc = explain_paste(cli, tmp_path, REAL[name], "--file", rcs=(0, 1))
        root = root_of(doc)
        assert root and root["id"] == fid, (name, ids(doc))
        first = (root.get("causes") or [{}])[0]
        assert fix in " ".join([first.get("text", "")] + list(first.get("fix") or [])), (name, first)


DCGM_SLICE = os.path.join(REPO, "tools", "data", "dcgm_status_slice.txt")


def test_dcgm_generator_regenerates_the_committed_sites_from_the_slice(tmp_path):
    import gen_dcgm_status as dgen

    got = knowgen.regenerated(dgen.main, DCGM_SLICE, tmp_path / "dcgm_status.json")
    full = knowgen.committed("dcgm_status")
    assert got["header"]["version"] == full["header"]["version"] and "(commit " in full["header"]["version"]
    by_text = {s["text"]: s for s in full["sites"]}
    assert len(got["sites"]) >= 30
    for s in got["sites"]:
        assert {k: v for k, v in s.items() if k not in ("id", "where")} == \
            {k: v for k, v in by_text[s["text"]].items() if k not in ("id", "where")}, s["id"]
    sites = {s.get("name") or s["text"]: s for s in got["sites"]}
    assert sites["DCGM_ST_CONNECTION_NOT_VALID"]["family"] == "dcgm.hostengine"
    assert sites["DCGM_ST_CONNECTION_NOT_VALID"]["code"] == -21
    assert sites["DCGM_ST_PROFILING_LIBRARY_ERROR"]["family"] == "dcgm.profiling"
    assert "dcgmi profile --pause" in " ".join(sites["DCGM_ST_PROFILING_LIBRARY_ERROR"]["fix"])
    # a short code text is DCGM's only on a line that names DCGM
    assert sites["DCGM_ST_NO_PERMISSION"]["re"].startswith("(?:DCGM|dcgm")
    assert sites["unable to establish a connection to the specified host:"]["family"] == "dcgm.hostengine"
    assert full["unassigned"] == sorted(s["id"] for s in full["sites"] if not s.get("family"))


def test_dcgm_profiling_error_of_a_real_thread(cli, tmp_path):
    # https://github.com/NVIDIA/DCGM/issues/53 (dcgmi dmon -e 1001 on DCGM 2.x): the generic library error names
    # the family and both ways to tell the causes apart, not one cause
    text = ("# Entity  GRACT\n      Id\nError setting watches. Result: The third-party Profiling module returned an "
            "unrecoverable error\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1))
    root = root_of(doc)
    assert root and root["id"] == "dcgm.profiling", ids(doc)
    words = " ".join(c.get("text", "") + " ".join(c.get("fix") or []) for c in root.get("causes") or [])
    assert "dcgmi profile --pause" in words and "at least as new as the driver" in words


def test_healthy_host_lines_get_no_root(cli, tmp_path):
    # what a healthy node prints when the NVIDIA module loads (an out-of-tree, unsigned module taints the kernel:
    # kernel/module/main.c), and libgomp's warning for an OMP_NUM_THREADS it ignores (libgomp/env.c), before a run
    # that ends well
    text = ("[   21.252559] nvidia: module license 'NVIDIA' taints kernel.\n"
            "[   21.254560] nvidia: module verification failed: signature and/or required key missing - tainting "
            "kernel\n\nlibgomp: Invalid value for environment variable OMP_NUM_THREADS\nstep 0 loss 0.0292\n"
            "step 1 loss 0.0312\ntraining finished\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1))
    assert root_of(doc) is None and doc["verdict"] == "no_error", ids(doc)


def test_fabric_manager_without_nvswitch(cli, tmp_path):
    # https://github.com/NVIDIA/gpu-operator/issues/610 (two A40s with an NVLink bridge, the fabric manager installed)
    text = ("11月 15 14:15:47 leon-NF5468M6 systemd[1]: Starting NVIDIA fabric manager service...\n"
            "11月 15 14:15:47 leon-NF5468M6 nv-fabricmanager[4177]: request to query NVSwitch device information from "
            "NVSwitch driver failed with error:WARNING Nothing to do [NV_WARN_NOTHING_TO_DO]\n"
            "11月 15 14:15:47 leon-NF5468M6 systemd[1]: nvidia-fabricmanager.service: Control process exited, "
            "code=exited, status=1/FAILURE\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1))
    root = root_of(doc)
    assert root and root["id"] == "fabric.manager_start", ids(doc)
    assert "systemctl disable --now nvidia-fabricmanager" in " ".join(root["causes"][0].get("fix") or [])


def test_blas_parameter_error_names_the_ways_to_tell_apart(cli, tmp_path):
    # https://github.com/pytorch/pytorch/issues/5100 (an older system MKL on LD_LIBRARY_PATH); the line alone names
    # no cause: the family, with the MKL-mix cause among those listed
    rc, doc = explain_paste(cli, tmp_path, "Intel MKL ERROR: Parameter 10 was incorrect on entry to DSYRK \n", "--file",
                            rcs=(0, 1))
    root = root_of(doc)
    assert root and root["id"] == "code.blas_parameter", ids(doc)
    words = " ".join(c.get("text", "") + " ".join(c.get("fix") or []) for c in root.get("causes") or [])
    assert "LD_LIBRARY_PATH" in words and "isfinite" in words
    # oneMKL's newer wording (huggingface/candle#3018)
    rc, doc = explain_paste(cli, tmp_path, "Intel oneMKL ERROR: Parameter 10 was incorrect on entry to SGEMM .\n",
                            "--file", rcs=(0, 1))
    assert root_of(doc) and root_of(doc)["id"] == "code.blas_parameter", ids(doc)


def test_module_with_no_device(cli, tmp_path):
    # https://github.com/Witko/nvidia-xrun/issues/151: modprobe's ENODEV alone names the probe, with the kernel's
    # NVRM lines the GPU that fell off the bus is the root
    line = "modprobe: ERROR: could not insert 'nvidia': No such device\n"
    rc, doc = explain_paste(cli, tmp_path, line, "--file", rcs=(0, 1))
    root = root_of(doc)
    assert root and root["id"] == "gpu.driver_module" and "No such device" in root["causes"][0]["text"], ids(doc)
    text = line + ("[  103.648845] NVRM: The NVIDIA GPU 0000:01:00.0\n               NVRM: (PCI ID: 10de:1c8c) installed "
                   "in this system has\n               NVRM: fallen off the bus and is not responding to commands.\n"
                   "[  103.652060] NVRM: The NVIDIA probe routine failed for 1 device(s).\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1))
    assert root_of(doc)["id"] == "gpu.xid.fallen_off_bus", ids(doc)


def test_build_check_of_the_module_sources(cli, tmp_path):
    # https://github.com/NixOS/nixpkgs/issues/74890 (kernel-open/conftest.sh's module_symvers_sanity_check)
    text = ("Building linux driver against kernel: /nix/store/wjclfa70y2dcavx9pwg3ndqs2vk36iya-linux-5.4.1-dev\n"
            "The Module.symvers file is missing, or does not contain any\nsymbols exported from the kernel. This could "
            "cause the NVIDIA\nkernel modules to be built against a configuration that does\nnot accurately reflect the "
            "actual target kernel.\nThe Module.symvers file check can be disabled by setting the\nenvironment variable "
            "IGNORE_MISSING_MODULE_SYMVERS to 1.\nmake[3]: *** [/build/kernel/Kbuild:181: module_symvers_sanity_check] "
            "Error 1\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1))
    root = root_of(doc)
    assert root and root["id"] == "gpu.driver_module", ids(doc)
    assert "Module.symvers" in root["causes"][0]["text"] and "linux-headers" in root["causes"][0]["fix"][0]


def test_installer_matchers_fit_its_first_output_line():
    # nvidia-installer wraps at 75 columns without a terminal and indents the rest (common-utils/msg.c
    # DEFAULT_WIDTH), which explain's scan does not join: each installer matcher stops within the first line
    assert gen.first_line("Unable to find the kernel source tree for the currently running kernel.") == \
        "Unable to find the kernel source tree for the currently running"
    full = knowgen.committed("host_messages")
    for s in full["sites"]:
        if s["id"].startswith("host.installer") and s.get("re"):
            # the literal text the matcher needs, its values' groups (a string, a number) left out
            text = re.sub(r"\[\^\\n\]\{0,200\}|-\?\\d\{1,20\}|\(\?:0x\)\?\[0-9a-f\]\{1,16\}|\\", "",
                          s["re"].replace("(?:ERROR|WARNING): ", ""))
            assert len(text) <= 66, s["re"]

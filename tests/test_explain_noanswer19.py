"""Every explicit failure line gets its project's family (noanswer19, issue 18 item 2): a line's source-file prefix
names the project whose tree has that file (gpudoctor/explain/srcprov.py, generated/source_files.json from
tools/gen_source_files.py), and a build's missing header / library / pkg-config module / CMake package names the
package that provides it and the variable that points the build at it (gpudoctor/explain/buildinputs.py,
generated/build_inputs.json from tools/gen_build_inputs.py).

Texts: the seen held-out sets (bench/data/explain_heldout_*.jsonl, cited by case id; each case's url is its public
source: NVIDIA's HPC-X known issues, xdnf.cn's nccl-tests build, gitcode's NCCL .deb build), lines from public threads
(cited by URL), and outputs made here by the real programs (Debian bookworm: gcc 12.2.0, GNU ld 2.40, pkg-config
1.8.1, cmake 3.25.1)."""

import os
import sys

import pytest

from gpudoctor import explain
from gpudoctor.explain import buildinputs, srcprov
from explainhelp import ANSWERED, seen_text

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tools"))


def _case(name, cid):
    return seen_text(cid, name)


def _root(text, kb):
    r = explain.explain_text(text, kb)
    assert r["verdict"] in ANSWERED, (r["verdict"], text[:200])
    return r["findings"][0]


def _all(f):
    return " ".join(f["notes"] + [c["text"] for c in f["causes"]] + [x for c in f["causes"] for x in c["fix"]])


@pytest.mark.parametrize("gen, slice_name, name", [("gen_source_files", "source_files_slice.txt", "source_files"),
                                                    ("gen_build_inputs", "build_inputs_slice.txt", "build_inputs"),
                                                    ("gen_source_messages", "source_messages_slice.txt.gz",
                                                     "source_messages")])
def test_the_tables_regenerate_from_their_slices(gen, slice_name, name, tmp_path):
    import importlib

    import knowgen

    g = importlib.import_module(gen)
    got = knowgen.regenerated(g.main, os.path.join(REPO, "tools", "data", slice_name), tmp_path / "out.json")
    committed = knowgen.committed(name)
    for d in (got, committed):
        d["header"].pop("date")
    assert got == committed


def test_a_source_prefix_names_its_project():
    # a basename one project has; a folder that tells several apart; one several projects with other families have
    assert srcprov.project_of("rc_verbs_iface.c") == ("ucx", "src/uct/ib/rc/verbs")
    assert srcprov.project_of("socket.cpp")[0] == "torch"
    assert srcprov.project_of("main.go") is None
    assert srcprov.project_of("cmd/nvidia-device-plugin/main.go")[0] == "k8s-device-plugin"
    assert srcprov.project_of("my_kernel.cu") is None


def test_a_ucx_line_without_its_header_is_a_verbs_completion(kb):
    # NVIDIA HPC-X 2.25.1 known issues: UCX's rc_verbs line quoting ibv_wc_status_str's 'remote access error'
    f = _root(_case("2026-11-27ag", "ag-hpcx-ucx-rcv-remote-access-error"), kb)
    assert f["id"] == "rdma.completion_error" and "ucx" in _all(f) and "rc_verbs_iface.c" in _all(f)


def _hit(line):
    import re
    from types import SimpleNamespace

    m = re.search(srcprov._FILE, line)
    return SimpleNamespace(text=line, groups=m.groupdict(), severity=None, line=1)


def test_torch_c10d_store_line(kb):
    # Project-MONAI/model-zoo#146 (https://github.com/Project-MONAI/model-zoo/issues/146): torch's c10 log line from
    # its TCPStore's socket layer (torch/csrc/distributed/c10d/socket.cpp)
    line = ("[E socket.cpp:657] [c10d] The client socket has failed to connect to any network address of (3472853, "
            "59667).")
    assert srcprov.failure(_hit(line))
    assert srcprov.level(line, "socket.cpp", _hit(line).groups["rest"]) == "E"
    f = _root(line + "\n", kb)
    assert f["family"].startswith("rendezvous")


@pytest.mark.parametrize("line, failed", [
    # torch >= 2.4's c10 header (month without its zero, nanoseconds, no thread id): a seen set's planted run
    ("[E1126 16:31:00.318085100 socket.cpp:818] [c10d] The client socket has failed to connect to any network address "
     "of (10.115.0.1, 29960).", True),
    # NVIDIA/k8s-device-plugin#368 (https://github.com/NVIDIA/k8s-device-plugin/issues/368): the kubelet's klog E line
    ('E0210 10:26:32.914690   21527 pod_workers.go:965] "Error syncing pod, skipping" err="failed to \\"StartContainer'
     '\\" for \\"nvidia-device-plugin-ctr\\" with CrashLoopBackOff"', True),
    # NVIDIA/k8s-device-plugin#10 (https://github.com/NVIDIA/k8s-device-plugin/issues/10): klog's W is no failure
    ("W1124 13:17:41.949553    1154 cni.go:265] CNI failed to retrieve network namespace path: Cannot find network "
     "namespace for the terminated container", False),
    # cherokee/webserver#693 (https://github.com/cherokee/webserver/issues/693): another program's plain 'socket.c'
    # without a level its logger is known by
    ("(error) socket.c:428 - Could not create socket: Address family not supported by protocol", False),
    # NVIDIA/nccl-tests#14 (fixtures/logs/dev/nccl.system_error__nccl-tests-14-docker-no-ip-interface.log): NCCL's
    # header logs with its own __FILE__, at WARN, NCCL's failure level
    ("e66aa18dc444:3171:3171 [0] include/socket.h:311 WARN Socket creation failed : Address family not supported by "
     "protocol", True),
    # ... but its WARN saying nothing failed is none, and another project's WARN never is (UCX's)
    ("e66aa18dc444:3171:3171 [0] include/socket.h:311 WARN Socket family 10 chosen", False),
    ("[1597347557.520494] [r2i7n3:64774:0]       mm_posix.c:195  UCX  WARN open(file_name=/proc/64773/fd/21) failed",
     False),
    # XLA's client.h (external/xla/xla/pjrt/distributed/client.h) is no project's of the table, whatever its basename
    ("2025-04-05 18:39:10.838153: F external/xla/xla/pjrt/distributed/client.h:80] Terminating process because the "
     "JAX distributed service detected fatal errors.", None),
    # review19: a plain basename at a failure level is its project's only in that project's own logger's form: NCCL
    # fails at WARN, never in a glog E line or after 'ERROR'; gloo and Slurm print no level beside a file prefix
    ("E1127 10:00:00.123456 12345 transport.cc:55] connection failed", False),
    ("ERROR proxy.cc:310 failed to reach backend", False),
    ("E1127 10:00:00.123456 12345 main.cc:55] failed to start", False),
    ("ERROR client.c:310 failed to reach backend", False),
    # a compiler's diagnostic about a project file is the build's, not the program's log
    ("src/transport/net_ib.cc:12:10: fatal error: infiniband/verbs.h: No such file or directory", False),
])
def test_failure_levels(line, failed):
    h = _hit(line)
    if failed is None:
        assert srcprov.project_of(h.groups["path"]) is None
    else:
        assert srcprov.failure(h) is failed


def test_a_missing_header_names_its_package_and_variable(kb):
    # xdnf.cn's nccl-tests build (MPI=1): the preprocessor's fatal error alone
    f = _root(_case("2026-11-27af", "af-xdnf-nccltests-mpi-build-mpi-h-missing"), kb)
    assert f["family"].startswith("build") and f["confidence"] == "structural"
    fix = " ".join(f["causes"][0]["fix"])
    assert "libopenmpi-dev" in fix and "MPI_HOME" in fix and "nccl-tests" in fix


@pytest.mark.parametrize("text, want", [
    # made here: gcc 12.2.0 on '#include <mpi.h>'
    ("m.c:1:10: fatal error: mpi.h: No such file or directory\n    1 | #include <mpi.h>\n      |          ^~~~~~~\n"
     "compilation terminated.\n", ("libopenmpi-dev", "MPI_HOME")),
    # made here: gcc l.c -lnccl (GNU ld 2.40)
    ("/usr/bin/ld: cannot find -lnccl: No such file or directory\ncollect2: error: ld returned 1 exit status\n",
     ("nvidia-nccl-cu13", "NCCL_HOME")),
    # made here: pkg-config 1.8.1 --cflags ucx
    ("Package ucx was not found in the pkg-config search path.\nPerhaps you should add the directory containing "
     "`ucx.pc'\nto the PKG_CONFIG_PATH environment variable\nPackage 'ucx', required by 'virtual:world', not found\n",
     ("libucx-dev",)),
    # made here: cmake 3.25.1, find_package(NCCL REQUIRED) with no FindNCCL.cmake (config mode)
    ("CMake Error at CMakeLists.txt:3 (find_package):\n  By not providing \"FindNCCL.cmake\" in CMAKE_MODULE_PATH this "
     "project has\n  asked CMake to find a package configuration file provided by \"NCCL\", but\n  CMake did not find "
     "one.\n\n  Could not find a package configuration file provided by \"NCCL\" with any of\n  the following names:\n"
     "\n    NCCLConfig.cmake\n    nccl-config.cmake\n", ("NCCL_DIR", "CMAKE_PREFIX_PATH")),
])
def test_real_build_outputs(kb, text, want):
    f = _root(text, kb)
    assert f["family"].startswith("build"), f["id"]
    got = " ".join(f["causes"][0]["fix"])
    for w in want:
        assert w in got, (w, got)


def test_dh_install_missing_files_aborts(kb):
    # gitcode's NCCL 2.24.3 .deb build: dh_install's warning, after which it always stops (debhelper dh_install:
    # error("missing files, aborting"))
    f = _root(_case("2026-11-27ac", "ac-gitcode-nccl-2243-deb-build-missing-nccl-net-h"), kb)
    assert f["family"].startswith("build") and "debian/libnccl-dev.install" in _all(f)


def test_an_unknown_header_still_answers_the_build():
    assert buildinputs.lookup("header", "my_own_header.h") == (None, [])
    assert buildinputs.lookup("header", "infiniband/verbs.h")[0] == "rdma"
    assert buildinputs.lookup("cmake", "MPI")[0] == "mpi"


def test_a_library_missing_at_run_time(kb):
    # made here: CPython 3.11's ctypes.CDLL('libmpich.so.12') on a node without MPICH (glibc's dl-load.c text)
    f = _root("OSError: libmpich.so.12: cannot open shared object file: No such file or directory\n", kb)
    assert f["id"] == "loader.cannot_open" and "libmpich-dev" in f["causes"][0]["text"]
    # Open MPI's component it went on without (conda-forge/fenics-feedstock#211,
    # https://github.com/conda-forge/fenics-feedstock/issues/211) is a warning, not this failure
    r = explain.explain_text("[host:04098] mca_base_component_repository_open: unable to open mca_btl_openib: "
                             "librdmacm.so.1: cannot open shared object file: No such file or directory "
                             "(ignored)\n", kb)
    assert not any("dynamic loader's missing" in " ".join(f["notes"]) for f in r["findings"])
    # a library no package of the table has still names the loader's family
    f = _root("OSError: libfoo_private.so.3: cannot open shared object file: No such file or directory\n", kb)
    assert f["id"] == "loader.cannot_open"


def test_a_message_alone_names_the_project_whose_literal_it_is(kb):
    # NVIDIA/dcgm-exporter#324: DCGM's own words with neither its prefix nor a code
    f = _root(_case("2026-11-27ae", "ae-dcgmexporter324-nvvs-missing-in-exporter-image"), kb)
    assert f["family"].startswith("dcgm") and "dcgm" in _all(f)
    # NCCL's ncclGetErrorString text, the last part of torch's chain
    assert srcprov.message_projects("remote process exited or there was a network error, NCCL version 2.27.3")[0] \
        == ["nccl:init.cc"]
    # ... with the punctuation around its words read as a line's ('(run with ...')
    assert srcprov.message_projects("ProcessGroupNCCL.cpp:1191, unhandled system error (run with NCCL_DEBUG=INFO for "
                                    "details), NCCL version 2.18.1")[0] == ["nccl:init.cc"]
    # glibc's gai_strerror text is every program's (Open MPI's copy of libevent holds it): no project
    assert srcprov.message_projects("socket.gaierror: [Errno -3] Temporary failure in name resolution")[0] is None


def test_a_sentence_any_program_prints_is_no_projects_literal():
    # review19: literals made only of words other projects' literals use too (DCGM's 'failed to get process memory',
    # Slurm's 'needs to be positive integer' / 'unable to allocate memory for buffer') are any program's sentence
    for line in ("[ERROR] failed to get process memory for pid 1234", "ValueError: needs to be positive integer",
                 "myapp: unable to allocate memory for buffer", "Error: could not parse configuration file app.toml"):
        assert srcprov.message_projects(line)[0] is None, line
    # a word of one project's literals only ('nvvs') or a long run of the literal's words still names it
    assert srcprov.message_projects("the nvvs binary was not found in the specified location")[0]


def test_an_error_chain_is_answered_by_its_last_part(kb):
    # NVIDIA/k8s-device-plugin's chain ending in NVML's own error (k8s-device-plugin#399's shape): the wrapper is the
    # device plugin's literal, the cause is not: no project's family from the wrapper
    r = explain.explain_text("error starting plugins: unable to add default resources to config: error visiting "
                             "devices: error getting MIG devices: Insufficent Permissions\n", kb)
    assert not any("failure message of" in " ".join(f["notes"]) for f in r["findings"])


def test_a_driver_library_is_the_hosts():
    # libnvidia-container's own lists (nvc_capabilities.json): libcuda is mounted with 'compute', NVML with 'utility'
    assert "compute" in buildinputs._driver_library("libcuda.so.1")
    assert buildinputs._driver_library("libnvidia-ml.so.1") == ["utility"]
    assert buildinputs._driver_library("libmpich.so.12") is None

"""Answers of explain/buildinputs.py (noanswer19) that mutation testing round 14 found unasserted (docs/mutation.md,
"Round 14"): the cause each kind of missing build input gets and its fix lines, asserted whole (the fixture tests of
test_explain_noanswer19.py check words inside them). The texts are that file's real outputs (gcc 12.2.0, GNU ld
2.40, pkg-config 1.8.1, cmake 3.25.1, CPython 3.11's ctypes) and two made the same way."""

import pytest

from gpudoctor import explain

NT = "https://github.com/NVIDIA/nccl-tests/blob/a0b82b2260cf5152b9f8c061bbf7eaf0ba096432/src/Makefile"
MPI_DEBS = "apt-get install libmpich-dev or libopenmpi-dev (Debian / Ubuntu; one of them)."
NCCL_WHEEL = ("pip install nvidia-nccl-cu13 (the wheel of your CUDA major version, -cu12 / -cu13: its "
              "nvidia/<lib>/include and lib folders), or the same library's system install.")
CFG = ("CMake Error at CMakeLists.txt:3 (find_package):\n  By not providing \"FindNCCL.cmake\" in CMAKE_MODULE_PATH "
       "this project has\n  asked CMake to find a package configuration file provided by \"NCCL\", but\n  CMake did "
       "not find one.\n\n  Could not find a package configuration file provided by \"NCCL\" with any of\n  the "
       "following names:\n\n    NCCLConfig.cmake\n    nccl-config.cmake\n")


@pytest.mark.parametrize("text, cause, fixes", [
    ("m.c:1:10: fatal error: mpi.h: No such file or directory\n    1 | #include <mpi.h>\n      |          ^~~~~~~\n"
     "compilation terminated.\n",
     "The build needs the header mpi.h, which libmpich-dev / libopenmpi-dev provides (an MPI implementation's "
     "development files): not installed here, or installed where the build does not look.",
     ["Install it: " + MPI_DEBS,
      "Or point the build at an install that has it: set MPI_HOME to its prefix (the folder whose include/ and lib/ "
      "hold mpi.h: `dpkg -L libmpich-dev | grep mpi.h` shows where), e.g. `make MPI_HOME=<prefix>` (read by "
      "%s#L24)." % NT]),
    ("/usr/bin/ld: cannot find -lnccl: No such file or directory\ncollect2: error: ld returned 1 exit status\n",
     "The build needs the library nccl, which nvidia-nccl-cu13 provides (NCCL's development files): not installed "
     "here, or installed where the build does not look.",
     ["Install it: " + NCCL_WHEEL,
      "Or point the build at an install that has it: set NCCL_HOME to its prefix (the folder whose include/ and lib/ "
      "hold it: `pip show -f nvidia-nccl-cu13 | grep nccl` shows where), e.g. `make NCCL_HOME=<prefix>` (read by "
      "%s#L19)." % NT]),
    ("Package ucx was not found in the pkg-config search path.\nPerhaps you should add the directory containing "
     "`ucx.pc'\nto the PKG_CONFIG_PATH environment variable\nPackage 'ucx', required by 'virtual:world', not found\n",
     "The build needs the pkg-config module ucx, which libucx-dev provides (UCX's development files): not installed "
     "here, or installed where the build does not look.",
     ["Install it: apt-get install libucx-dev (Debian / Ubuntu; its -dev package)."]),
    (CFG,
     "The build needs the CMake package NCCL, which nvidia-nccl-cu13 provides (NCCL's development files): not "
     "installed here, or installed where the build does not look.",
     ["Install it: " + NCCL_WHEEL,
      "Or point the build at an install that has it: set NCCL_HOME to its prefix (the folder whose include/ and lib/ "
      "hold it: `pip show -f nvidia-nccl-cu13 | grep NCCL` shows where), e.g. `make NCCL_HOME=<prefix>` (read by "
      "%s#L19)." % NT,
      "Tell CMake where NCCL is installed: cmake -DCMAKE_PREFIX_PATH=<its install prefix>, or -DNCCL_DIR=<the folder "
      "holding NCCLConfig.cmake>; or install the package that provides it."]),
    # FindPackageHandleStandardArgs' module-mode refusal (cmake 3.25's FindMPI)
    ("CMake Error at /usr/share/cmake-3.25/Modules/FindPackageHandleStandardArgs.cmake:230 (message):\n  Could NOT "
     "find MPI_C (missing: MPI_C_LIB_NAMES MPI_C_HEADER_DIR MPI_C_WORKS)\n",
     "The build needs the CMake package MPI_C, which libmpich-dev / libopenmpi-dev provides (an MPI implementation's "
     "development files): not installed here, or installed where the build does not look.",
     ["Install it: " + MPI_DEBS,
      "Or point the build at an install that has it: set MPI_HOME to its prefix (the folder whose include/ and lib/ "
      "hold it: `dpkg -L libmpich-dev | grep MPI_C` shows where), e.g. `make MPI_HOME=<prefix>` (read by %s#L24)."
      % NT,
      "Or tell CMake where it is: cmake -DMPI_HOME=<prefix> (FindMPI_C's hint variable)."]),
    ("m.c:1:10: fatal error: my_own_header.h: No such file or directory\ncompilation terminated.\n",
     "The build needs the header my_own_header.h, which nothing installed where it looks provides.",
     ["Find the package that has it (`apt-file search my_own_header.h`, `dpkg -S my_own_header.h` where it is "
      "installed elsewhere) and install it, or add its folder to the build's include / library path."]),
    ("net_ib.cc:12:10: fatal error: infiniband/verbs.h: No such file or directory\ncompilation terminated.\n",
     "The build needs the header infiniband/verbs.h, which libibverbs-dev provides (rdma-core's verbs / RDMA CM "
     "development files): not installed here, or installed where the build does not look.",
     ["Install it: apt-get install libibverbs-dev (Debian / Ubuntu; its -dev package)."]),
    ("OSError: libmpich.so.12: cannot open shared object file: No such file or directory\n",
     "The program needs libmpich.so.12, libmpich-dev's library (an MPI implementation's development files): not "
     "installed where it runs, or not on the loader's path.",
     ["Install libmpich-dev's runtime where the program runs (the package libmpich-dev depends on; apt-get install "
      "libmpich-dev (Debian / Ubuntu; its -dev package)), or add the folder that holds libmpich.so.12 to "
      "LD_LIBRARY_PATH there (`ldconfig -p | grep libmpich` shows what the loader knows)."]),
])
def test_a_missing_build_input_gets_its_package_and_prefix(kb, text, cause, fixes):
    f = explain.explain_text(text, kb)["findings"][0]
    assert f["causes"][0]["text"] == cause
    got = f["causes"][0]["fix"]
    assert all(x in got for x in fixes), got
    sure = "medium" if "nothing installed" not in cause else "low"
    assert f["notes"][0].startswith("How sure: %s." % sure), f["notes"][0]


def test_a_library_no_table_knows_keeps_the_loaders_answer(kb):
    f = explain.explain_text("OSError: libfoo_private.so.3: cannot open shared object file: No such file or "
                             "directory\n", kb)["findings"][0]
    assert f["id"] == "loader.cannot_open" and not f["causes"][0]["text"].startswith("The program needs")
    assert f["notes"][0] == ("How sure: low. No known message matched; the family is read from the log's shape (the "
                             "dynamic loader's missing libfoo_private.so.3). Confirm it with the commands below before "
                             "acting.")


def test_dh_install_names_the_file_and_the_install_list(kb):
    text = ('   dh_install -plibnccl-dev\ndh_install: warning: Cannot find (any matches for) "include/nccl_net.h"\n'
            "dh_install: warning: libnccl-dev missing files: include/nccl_net.h\n"
            "dh_install: error: missing files, aborting\n")
    f = explain.explain_text(text, kb)["findings"][0]
    assert f["causes"][0]["text"] == (
        "dh_install stops after this line (debhelper's dh_install: 'missing files, aborting'): the install list of the "
        "package libnccl-dev (debian/libnccl-dev.install) names include/nccl_net.h, which the build's install step did "
        "not put in place.")
    assert f["causes"][0]["fix"][0] == (
        "Make the build install include/nccl_net.h (the project's install rule: the Makefile's list of headers or "
        "files it exports), or take it out of debian/libnccl-dev.install when this version no longer has it.")
    assert f["notes"][0].startswith("How sure: medium. No known message matched; the family is read from the text's "
                                    "shape (debhelper's dh_install: files the package libnccl-dev lists were not "
                                    "built)")


def test_lookup_install_and_the_run_time_cause():
    from gpudoctor.explain import buildinputs as b

    assert b.lookup("header", "x/y/mpi.h") == b.lookup("header", "mpi.h") == ("mpi", ["libmpich-dev", "libopenmpi-dev"])
    assert b._cause("t", ["f"]) == {"text": "t", "checks": [], "confirm": [], "fix": ["f"], "exports": {},
                                    "evidence": [], "static_rank": 0, "computed": None}
    wheel = ("pip install %s (the wheel of your CUDA major version, -cu12 / -cu13: its nvidia/<lib>/include and lib "
             "folders), or the same library's system install")
    assert b._install(["libmpich-dev", "nvidia-nccl-cu13"]) == (
        "apt-get install libmpich-dev (Debian / Ubuntu; its -dev package) or " + wheel % "nvidia-nccl-cu13")
    assert b._install(["nvidia-cublas", "nvidia-cuda-cupti"]) == wheel % "nvidia-cublas or nvidia-cuda-cupti"

    def made(entry, hit, why, scan, sure):
        return {"why": why, "sure": sure, "causes": [{"text": "entry"}], "notes": []}

    # a driver library no package provides (libnvidia-container's lists): the host's driver and its capability
    f = b._runtime(None, {"container.no_driver_libs": {}, "loader.cannot_open": {}}, None, "libcuda.so.1", {}, [], made)
    assert (f["why"], f["sure"]) == ("the dynamic loader's missing libcuda.so.1", "low")
    assert f["causes"][0] == b._cause(
        "libcuda.so.1 is the NVIDIA driver's own library (libnvidia-container's list, capability compute/video): no "
        "package of the image provides it; the host's driver does. In a container the NVIDIA Container Toolkit mounts "
        "it when the container gets the GPUs (--gpus / the nvidia runtime / CDI) with NVIDIA_DRIVER_CAPABILITIES "
        "including compute; on a host, the driver's user-space libraries are not installed or not on the loader's "
        "path.", ["Run the container with the GPUs and that capability: docker run --gpus all -e "
                  "NVIDIA_DRIVER_CAPABILITIES=compute,utility,video ... (or the nvidia runtime / CDI device); on a "
                  "host, check the driver: `ldconfig -p | grep libcuda`, nvidia-smi."])
    # a library two packages provide; an echo entry gives no answer
    g = {"what": "an MPI implementation's development files", "runtime_entry": "loader.cannot_open"}
    f = b._runtime(None, {"loader.cannot_open": {}}, None, "libmpi.so.40", g, ["libmpich-dev", "libopenmpi-dev"], made)
    assert (f["why"], f["sure"]) == (
        "the dynamic loader's missing libmpi.so.40 (an MPI implementation's development files)", "medium")
    assert f["causes"][0] == b._cause(
        "The program needs libmpi.so.40, libmpich-dev / libopenmpi-dev's library (an MPI implementation's development "
        "files): not installed where it runs, or not on the loader's path.",
        ["Install libmpich-dev / libopenmpi-dev's runtime where the program runs (the package libmpich-dev depends on; "
         "apt-get install libmpich-dev or libopenmpi-dev (Debian / Ubuntu; one of them)), or add the folder that holds "
         "libmpi.so.40 to LD_LIBRARY_PATH there (`ldconfig -p | grep libmpi` shows what the loader knows)."])
    assert b._runtime(None, {"loader.cannot_open": {"kind": "echo"}}, None, "libx.so.1", {}, [], made) is None
    # the group's own run-time entry when the knowledge has it
    seen = []
    b._runtime(None, {"nccl.lib_missing": {"id": "nccl"}}, None, "libnccl.so.2",
               {"runtime_entry": "nccl.lib_missing", "what": "NCCL"}, [], lambda e, *a, **k: seen.append(e) or
               made(e, *a, **k))
    assert seen == [{"id": "nccl"}]


def test_the_notes_name_the_missing_input(kb):
    f = explain.explain_text("m.c:1:10: fatal error: mpi.h: No such file or directory\ncompilation terminated.\n",
                             kb)["findings"][0]
    assert f["notes"][0] == ("How sure: medium. No known message matched; the family is read from the text's shape "
                             "(the build's missing header mpi.h (an MPI implementation's development files)), which "
                             "names where the error was raised, not a cluster cause.")
    f = explain.explain_text("m.c:1:10: fatal error: my_own_header.h: No such file or directory\ncompilation "
                             "terminated.\n", kb)["findings"][0]
    assert f["notes"][0] == ("How sure: low. No known message matched; the family is read from the log's shape (the "
                             "build's missing header my_own_header.h). Confirm it with the commands below before "
                             "acting.")


# ------------------------------------------------------------ round 15: what round 14 left alive at 076b44d

def test_round15_the_group_entry_a_header_path_and_an_unknown_cmake_package():
    from gpudoctor.explain import buildinputs

    # a group with an entry of its own answers with it (CUDA's headers: build.cuda_home), not build.tool_error
    r = explain.explain_text("m.cu:1:10: fatal error: cuda_runtime.h: No such file or directory\ncompilation "
                             "terminated.\n")
    f = r["findings"][0]
    assert f["id"] == "build.cuda_home"
    assert f["causes"][0]["text"] == ("The build needs the header cuda_runtime.h, which nvidia-cuda-runtime-cu12 "
                                      "provides (the CUDA toolkit's files): not installed here, or installed where "
                                      "the build does not look.")
    # a header included by a path: the table knows its last part; grep looks for that part
    f = explain.explain_text("m.c:1:10: fatal error: nccl/include/nccl.h: No such file or directory\ncompilation "
                             "terminated.\n")["findings"][0]
    assert f["causes"][0]["fix"][-1] == (
        "Or point the build at an install that has it: set NCCL_HOME to its prefix (the folder whose include/ and lib/ "
        "hold nccl/include/nccl.h: `pip show -f nvidia-nccl-cu13 | grep nccl.h` shows where), e.g. `make "
        "NCCL_HOME=<prefix>` (read by %s#L19)." % NT)
    # CMake's config mode for a package no table knows: CMake's own hint, not apt-file
    f = explain.explain_text(CFG.replace("NCCL", "Foo").replace("nccl", "foo"))["findings"][0]
    assert (f["id"], f["causes"][0]["text"], f["causes"][0]["fix"]) == (
        "build.tool_error", "The build needs the CMake package Foo, which nothing installed where it looks provides.",
        ["Tell CMake where Foo is installed: cmake -DCMAKE_PREFIX_PATH=<its install prefix>, or -DFoo_DIR=<the folder "
         "holding FooConfig.cmake>; or install the package that provides it."])
    # a run-time name whose stem has a dot (libpython3.11.so.1.0: the table's key is 'python3.11')
    assert buildinputs.lookup("so", "libpython3.11.so.1.0") == ("python", ["libpython3.11-dev"])

#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/build_inputs.json: which package of the stack provides each header,
library, pkg-config module and CMake package a build can miss, and the variable that points a build at it (issue 18
item 2, noanswer19).

A build that stops on a missing input names it in its tool's own words: the C preprocessor's 'fatal error: mpi.h: No
such file or directory' (GCC libcpp/files.cc open_file_failed, the errno text), clang's "fatal error: 'mpi.h' file not
found" (clang include/clang/Basic/DiagnosticLexKinds.td err_pp_file_not_found), nvcc's front end 'catastrophic error:
cannot open source file "nccl.h"', the linker's 'cannot find -lmpi' (binutils ld/ldfile.c), pkg-config's "Package
'ucx' was not found in the pkg-config search path" / "No package 'ucx' found" (pkg-config pkg.c), CMake's 'Could NOT
find MPI' (Modules/FindPackageHandleStandardArgs.cmake). explain (buildinputs.py) answers it with the package that has
the file and the variable the project's build reads for its prefix: 'install libopenmpi-dev (or libmpich-dev), or set
MPI_HOME to the MPI prefix'.

Usage:
    python tools/gen_build_inputs.py --debs DIR --wheels DIR [DIR ...] --mirrors DIR [--record SLICE] [-o OUT]
    python tools/gen_build_inputs.py --slice tools/data/build_inputs_slice.txt -o OUT   (the test)

Sources:
- Debian bookworm's -dev packages of the stack (GROUPS below), downloaded with apt's ordinary client (`apt-get download
  <package>`), their file lists read with `dpkg-deb -c`: the headers under an include/ folder (a header one folder down
  is also known by its basename: Python.h is python3.11/Python.h under -I/usr/include/python3.11), the libraries
  (lib<name>.so / .a: '-l<name>'), the pkg-config modules (<name>.pc) and CMake package files (<Name>Config.cmake).
  CUDA and NCCL are not in Debian's main: their files are read from NVIDIA's wheels on PyPI (nvidia-nccl-cu13,
  nvidia-cublas ..., `pip download`), the same way (nvidia/<lib>/include/, nvidia/<lib>/lib/lib<name>.so.N).
- The variable a build reads for the prefix, from the build files that read it (recorded with file and line, checked
  against the pinned trees: NVIDIA/nccl-tests src/Makefile 'NVCUFLAGS += -DMPI_SUPPORT -I$(MPI_HOME)/include', NCCL
  makefiles/common.mk 'CUDA_HOME ?= /usr/local/cuda'), and CMake's own find modules' hint variables (CMake's
  documentation: FindMPI's MPI_HOME, FindCUDAToolkit's CUDAToolkit_ROOT, FindPython3's Python3_ROOT_DIR).

A name two groups provide (a 'config.h') is left out (listed under shared): the table never guesses.
"""

import argparse
import os
import re
import subprocess
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_build_inputs.py"
NAME = "build_inputs"

# group -> (Debian packages / wheel distributions, the entry its missing input answers, what it is)
GROUPS = {
    "mpi": (("libopenmpi-dev", "libmpich-dev"), "build.tool_error", "an MPI implementation's development files"),
    "cuda": (("nvidia-cublas", "nvidia-cuda-cupti", "nvidia-cuda-nvrtc", "nvidia-cufft", "nvidia-curand",
              "nvidia-cusolver", "nvidia-cusparse", "nvidia-nvjitlink", "nvidia-nvtx", "nvidia-cufile",
              "nvidia-cudnn-cu13", "nvidia-cusparselt-cu13", "nvidia-cuda-runtime-cu12"), "build.cuda_home",
             "the CUDA toolkit's files"),
    "nccl": (("nvidia-nccl-cu13",), "build.tool_error", "NCCL's development files"),
    "nvshmem": (("nvidia-nvshmem-cu13",), "build.tool_error", "NVSHMEM's development files"),
    "rdma": (("libibverbs-dev", "librdmacm-dev"), "build.tool_error", "rdma-core's verbs / RDMA CM development files"),
    "ucx": (("libucx-dev",), "build.tool_error", "UCX's development files"),
    "libfabric": (("libfabric-dev",), "build.tool_error", "libfabric's development files"),
    "pmix": (("libpmix-dev", "libpmi2-0-dev"), "build.tool_error", "PMIx / PMI-2 development files"),
    "slurm": (("libslurm-dev",), "build.tool_error", "Slurm's development files"),
    "hwloc": (("libhwloc-dev", "libnuma-dev"), "build.tool_error", "hwloc / libnuma development files"),
    "python": (("python3.11-dev", "libpython3.11-dev"), "build.python_headers", "the Python headers"),
}

# the entry of a group's library missing when a program runs (the dynamic loader's 'cannot open shared object file',
# glibc elf/dl-load.c), where the group has one of its own; else loader.cannot_open
RUNTIME_ENTRIES = {"nccl": "nccl.lib_missing", "cuda": "cuda.libs", "rdma": "rdma.libibverbs_missing"}

# the variable that points a build at a group's prefix, where a build file of the stack reads it:
# (group, variable, repository, commit, file, a literal of the line that reads it)
VARIABLES = (
    ("mpi", "MPI_HOME", "NVIDIA/nccl-tests", "a0b82b2260cf5152b9f8c061bbf7eaf0ba096432", "src/Makefile",
     "-I$(MPI_HOME)/include"),
    ("nccl", "NCCL_HOME", "NVIDIA/nccl-tests", "a0b82b2260cf5152b9f8c061bbf7eaf0ba096432", "src/Makefile",
     "-I$(NCCL_HOME)/include"),
    ("cuda", "CUDA_HOME", "NVIDIA/nccl", "5067397c2676d5aed50042fc39e5c8ee96eb0027", "makefiles/common.mk",
     "CUDA_HOME ?= /usr/local/cuda"),
)
# CMake's find modules (the name 'Could NOT find <Name>' prints) -> (group, the module's hint variable), from each
# module's documentation (https://cmake.org/cmake/help/latest/module/FindMPI.html: MPI_HOME; FindCUDAToolkit.html:
# CUDAToolkit_ROOT; FindPython3.html: Python3_ROOT_DIR; FindPython.html: Python_ROOT_DIR) and PyTorch's
# cmake/Modules/FindNCCL.cmake (NCCL_ROOT_DIR / NCCL_INCLUDE_DIR, https://github.com/pytorch/pytorch)
CMAKE_MODULES = {"MPI": ("mpi", "MPI_HOME"), "MPI_C": ("mpi", "MPI_HOME"), "MPI_CXX": ("mpi", "MPI_HOME"),
                 "CUDAToolkit": ("cuda", "CUDAToolkit_ROOT"), "CUDA": ("cuda", "CUDA_TOOLKIT_ROOT_DIR"),
                 "Python3": ("python", "Python3_ROOT_DIR"), "Python": ("python", "Python_ROOT_DIR"),
                 "PythonLibs": ("python", "PYTHON_INCLUDE_DIR"), "NCCL": ("nccl", "NCCL_ROOT_DIR")}

_LIB = re.compile(r"(?:^|/)lib(?P<n>[\w+-]{1,80}(?:\.\w{1,20})*?)\.(?:so(?:\.\d{1,6}){0,4}|a)$")
TABLE_KEYS = {"header": "headers", "lib": "libs", "pc": "pkgconfig", "cmake": "cmake_packages"}
_MULTIARCH = "x86_64-linux-gnu/"  # Debian's multiarch include folder (/usr/include/x86_64-linux-gnu/mpich/mpi.h)
_CMAKE = re.compile(r"(?:^|/)(?P<n>[\w.+-]{1,80}?)(?:Config|-config)\.cmake$")


def group_of(pkg):
    return next((g for g, (pkgs, _, _) in GROUPS.items() if pkg in pkgs), None)


def read_debs(folder):
    """[(package, version, 'deb', [paths])] of the .deb files in ``folder`` whose package GROUPS names."""
    out = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".deb"):
            continue
        path = os.path.join(folder, name)
        pkg = subprocess.run(["dpkg-deb", "-f", path, "Package"], capture_output=True, text=True).stdout.strip()
        ver = subprocess.run(["dpkg-deb", "-f", path, "Version"], capture_output=True, text=True).stdout.strip()
        if not group_of(pkg):
            continue
        listing = subprocess.run(["dpkg-deb", "-c", path], capture_output=True, text=True).stdout
        paths = [ln.split(None, 5)[5].split(" -> ")[0].lstrip(".") for ln in listing.splitlines()
                 if len(ln.split(None, 5)) == 6 and not ln.startswith("d")]
        out.append((pkg, ver, "deb", sorted(p for p in paths if kept(p))))
    return out


def read_wheels(folders):
    """[(distribution, version, 'wheel', [paths])] of NVIDIA's wheels in ``folders`` that GROUPS names."""
    out = []
    for folder, name in sorted((d, n) for d in folders for n in os.listdir(d)):
        if not (name.startswith("nvidia_") and name.endswith(".whl")):
            continue
        dist, ver = name.split("-")[:2]
        dist = dist.replace("_", "-")
        if not group_of(dist):
            continue
        with zipfile.ZipFile(os.path.join(folder, name)) as z:
            paths = ["/" + n for n in z.namelist() if not n.endswith("/")]
        out.append((dist, ver, "wheel", sorted(p for p in paths if kept(p))))
    return out


def kept(path):
    """A path of a build input: a header under include/, a library, a .pc, a CMake package file."""
    return bool("/include/" in path and path.endswith((".h", ".hpp", ".hh", ".cuh", ".hxx")) or _LIB.search(path)
                or path.endswith(".pc") or _CMAKE.search(path))


def read_variables(mirrors):
    """[(group, variable, 'repo path:line')] with each line checked in its pinned tree."""
    out = []
    for group, var, repo, rev, path, literal in VARIABLES:
        git = knowgen.git_reader(os.path.join(mirrors, repo.replace("/", "+"), "repo"))
        lines = git("show", "%s:%s" % (rev, path)).splitlines()
        n = next((i + 1 for i, ln in enumerate(lines) if literal in ln), None)
        if n is None:
            raise SystemExit("%s: %s no longer reads %s (%s)" % (repo, path, var, literal))
        out.append((group, var, "https://github.com/%s/blob/%s/%s#L%d" % (repo, rev, path, n)))
    return out


def inputs(path):
    """[(kind, name)] the path provides: ('header', 'infiniband/verbs.h'), ('lib', 'mpi'), ('pc', 'ucx'), ('cmake',
    'ucx')."""
    out = []
    if "/include/" in path and path.endswith((".h", ".hpp", ".hh", ".cuh", ".hxx")):
        rel = path.rsplit("/include/", 1)[1]
        rel = rel[len(_MULTIARCH):] if rel.startswith(_MULTIARCH) else rel
        if rel.count("/") <= 2:
            out.append(("header", rel))
        if 0 < rel.count("/") <= 1:
            out.append(("base", rel.rsplit("/", 1)[1]))
        return out
    m = _LIB.search(path)
    if m and "/include/" not in path:
        out.append(("lib", m.group("n")))
    if path.endswith(".pc"):
        out.append(("pc", path.rsplit("/", 1)[1][:-3]))
    m = _CMAKE.search(path)
    if m:
        out.append(("cmake", m.group("n")))
    return out


def write_slice(path, packages, variables):
    with open(path, "w") as f:
        f.write("# read by %s: '#! variable GROUP VAR WHERE', then per package 'package version kind: paths...'\n"
                % GENERATOR)
        for group, var, where in variables:
            f.write("#! variable %s %s %s\n" % (group, var, where))
        for pkg, ver, kind, paths in packages:
            f.write("%s %s %s: %s\n" % (pkg, ver, kind, " ".join(paths)))


def read_slice(path):
    packages, variables = [], []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#! variable "):
                variables.append(tuple(line[len("#! variable "):].split(" ", 2)))
            elif line and not line.startswith("#"):
                head, _, paths = line.partition(": ")
                pkg, ver, kind = head.split(" ")
                packages.append((pkg, ver, kind, paths.split()))
    return packages, variables


def build(packages, variables):
    tables = {"header": {}, "lib": {}, "pc": {}, "cmake": {}}
    base = {}
    for pkg, _ver, _kind, paths in packages:
        for p in paths:
            for kind, name in inputs(p):
                (base if kind == "base" else tables[kind]).setdefault(name, set()).add(pkg)
    # a header one folder down is known by its basename only where no header of that name sits in an include folder
    # itself (hwloc/cuda.h is <hwloc/cuda.h>; CUDA's cuda.h is <cuda.h>)
    # (or where it is the same group's: MPICH's mpich/mpi.h beside Open MPI's mpi.h)
    for name, pkgs in base.items():
        have = tables["header"].setdefault(name, set(pkgs))
        if {group_of(p) for p in have} == {group_of(p) for p in pkgs}:
            have |= pkgs
    shared = {}
    for kind, t in tables.items():
        for name in sorted(t):
            if len({group_of(p) for p in t[name]}) > 1:
                shared.setdefault(kind, []).append(name)
                del t[name]
    groups = {}
    for g, (pkgs, eid, what) in GROUPS.items():
        have = [p for p, _, _, _ in packages if p in pkgs]
        groups[g] = {"what": what, "entry": eid, "runtime_entry": RUNTIME_ENTRIES.get(g, "loader.cannot_open"),
                     "packages": have,
                     "variables": [{"name": v, "read_by": w} for gg, v, w in variables if gg == g]}
    doc = {"header": knowgen.header(
        "Debian bookworm's packages (https://packages.debian.org/bookworm/<package>, apt-get download; dpkg-deb -c) "
        "and NVIDIA's wheels on PyPI (https://pypi.org/project/<distribution>/): their file lists; the build files "
        "that read each prefix variable (NVIDIA/nccl-tests, NVIDIA/nccl)",
        ", ".join("%s %s" % (p, v) for p, v, _, _ in packages), GENERATOR,
        "headers / libs / pkgconfig / cmake_packages: a build input's name -> the packages that provide it (groups: "
        "GROUPS and VARIABLES of the generator); cmake_modules: CMake's find modules -> group and hint variable; "
        "shared: names several groups provide, left out"),
        "sites": [], "groups": groups,
        "packages": {p: {"version": v, "from": k, "group": group_of(p)} for p, v, k, _ in packages},
        "cmake_modules": {k: {"group": g, "variable": v} for k, (g, v) in sorted(CMAKE_MODULES.items())},
        "shared": shared}
    for kind, t in tables.items():
        doc[TABLE_KEYS[kind]] = {n: sorted(t[n]) for n in sorted(t)}
    return doc


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--debs", help="the folder of downloaded .deb files")
    ap.add_argument("--wheels", nargs="+", help="the folders of NVIDIA's downloaded wheels")
    ap.add_argument("--mirrors", help="the folder of fetched mirrors (<owner>+<name>/repo)")
    ap.add_argument("--slice", help="regenerate from a recorded slice instead")
    ap.add_argument("--record", help="write the slice of what was read here")
    ap.add_argument("-o", "--out", default=knowgen.out_path(NAME))
    a = ap.parse_args(argv)
    if a.slice:
        packages, variables = read_slice(a.slice)
    elif a.debs and a.wheels and a.mirrors:
        packages = read_debs(a.debs) + read_wheels(a.wheels)
        variables = read_variables(a.mirrors)
    else:
        ap.error("give --debs, --wheels and --mirrors, or --slice")
    if a.record:
        write_slice(a.record, packages, variables)
    doc = build(packages, variables)
    path = knowgen.write(NAME, doc, a.out)
    print("%s: %d headers, %d libraries, %d pkg-config modules, %d CMake packages of %d packages" % (
        path, len(doc["headers"]), len(doc["libs"]), len(doc["pkgconfig"]), len(doc["cmake_packages"]), len(packages)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A build that stopped on a missing input (issue 18 item 2, noanswer19): the header, library, pkg-config module or
CMake package its tool names, the package of the stack that provides it and the variable the build reads for its
prefix (generated/build_inputs.json, tools/gen_build_inputs.py: Debian bookworm's -dev packages' and NVIDIA's wheels'
file lists; MPI_HOME / NCCL_HOME from NVIDIA/nccl-tests src/Makefile, CUDA_HOME from NCCL's makefiles/common.mk).

Each tool's own words (cited where the pattern is): the preprocessor's missing header, the linker's missing -l
library, pkg-config's missing module, CMake's failed find_package, and debhelper's dh_install, whose '<package> missing
files: <list>' warning always ends in its 'missing files, aborting' error (debhelper dh_install: ++$missing_files,
then error("missing files, aborting")). Answered with the group's entry (build.tool_error, build.cuda_home,
build.python_headers), How sure: medium when the table knows the name, low else; the first cause names the package
and the variable.
"""

import re

from gpudoctor.fixline import sh

PATTERNS = {
    # GCC's preprocessor (libcpp/files.cc open_file_failed: '<name>: No such file or directory', a fatal error),
    # clang (DiagnosticLexKinds.td err_pp_file_not_found: "'%0' file not found"), nvcc's EDG front end
    # ('catastrophic error: cannot open source file "<name>"')
    "_struct_ex_bi_header": [(r"\bfatal error: (?P<name>[\w./+-]{1,200}\.(?:h|hh|hpp|hxx|cuh|H)): "
                              r"No such file or directory",
                           ["fatalerror:"]),
                          (r"\bfatal error: '(?P<name>[\w./+-]{1,200}\.(?:h|hh|hpp|hxx|cuh|H))' file not found",
                           ["fatalerror:"]),
                          (r"\bcatastrophic error: cannot open source file \"(?P<name>[\w./+-]{1,200})\"",
                           ["catastrophicerror:"])],
    # GNU ld (ld/ldfile.c: '%P: cannot find %s' with '-l<name>'), lld ('unable to find library -l<name>')
    "_struct_ex_bi_lib": [(r"\b(?:cannot find|unable to find library) -l(?P<name>[\w.+-]{1,100})",
                        ["cannotfind-l", "unabletofindlibrary-l"])],
    # pkg-config (pkg.c: 'Package %s was not found in the pkg-config search path.', "No package '%s' found"),
    # pkgconf ("Package '%s', required by '%s', not found")
    "_struct_ex_bi_pc": [(r"\bPackage '?(?P<name>[\w.+-]{1,100})'?,? (?:was not found in the pkg-config search path|"
                       r"required by '[^'\n]{1,200}', not found)", ["wasnotfoundinthepkg-config", "requiredby'"]),
                      (r"\bNo package '(?P<name>[\w.+-]{1,100})' found", ["nopackage'"])],
    # CMake (Modules/FindPackageHandleStandardArgs.cmake: 'Could NOT find <Name>'; cmFindPackageCommand.cxx: 'Could not
    # find a package configuration file provided by "<Name>"')
    # ('NOT' in capitals, case and all: explain's patterns are read without case, and 'could not find the ...' is
    # any program's prose)
    "_struct_ex_bi_cmake": [(r"\b(?-i:Could NOT find) (?P<name>[\w.+-]{1,80})", ["couldnotfind"]),
                         (r"\b(?P<cfg>Could not find a package configuration file) provided by "
                          r"\"(?P<name>[\w.+-]{1,80})\"",
                          ["couldnotfindapackageconfiguration"])],
    # glibc's dynamic loader (elf/dl-load.c: '<name>: cannot open shared object file: <errno text>'), through the
    # program's start ('error while loading shared libraries: ') or dlopen (Python's OSError / ImportError)
    "_struct_ex_bi_so": [(r"(?<![\w.+-])(?P<name>lib[\w.+-]{1,100}?\.so(?:\.\d{1,6}){0,4}): cannot open shared object "
                          r"file", ["cannotopensharedobjectfile"])],
    # debhelper's dh_install (warning("$package missing files: @$set"), then error("missing files, aborting"))
    "_struct_ex_bi_dh": [(r"\bdh_install: (?:warning: |error: )?(?P<pkg>[\w.+-]{1,100}) missing files: "
                       r"(?P<name>[^\n]{1,300})", ["missingfiles:"])],
}
KINDS = (("_struct_ex_bi_header", "header"), ("_struct_ex_bi_lib", "lib"), ("_struct_ex_bi_pc", "pc"),
         ("_struct_ex_bi_cmake", "cmake"), ("_struct_ex_bi_so", "so"), ("_struct_ex_bi_dh", "dh"))
TABLE_KEYS = {"header": "headers", "lib": "libs", "pc": "pkgconfig", "cmake": "cmake_packages"}
WHAT = {"header": "the header", "lib": "the library", "pc": "the pkg-config module", "cmake": "the CMake package"}


# Open MPI's component loader says it went on without the component (opal/mca/base/mca_base_component_repository.c:
# "mca_base_component_repository_open: unable to open %s: %s (ignored)")
_IGNORED = re.compile(r"\(ignored\)\s*$")


def _table():
    from gpudoctor.explain.knowledge import generated_table

    return generated_table("build_inputs")


def hits(scan, known):
    """The missing-input lines no knowledge entry matched: [(kind, Hit)] in line order."""
    out = [(kind, h) for eid, kind in KINDS for h in scan.matches.get(eid, [])
           if h.severity != "info" and h.line not in known and not (kind == "so" and _IGNORED.search(h.text or ""))]
    return sorted(out, key=lambda x: x[1].line)


def lookup(kind, name):
    """(group, [packages]) that provide ``name`` of ``kind`` (header / lib / pc / cmake), or (None, [])."""
    t = _table()
    if kind == "cmake":
        mod = (t.get("cmake_modules") or {}).get(name)
        if mod:
            return mod["group"], (t.get("groups") or {}).get(mod["group"], {}).get("packages") or []
    names = [name] + ([name.rsplit("/", 1)[1]] if kind == "header" and "/" in name else [])
    if kind == "so":
        kind, stem = "lib", name[3:].split(".so", 1)[0]
        names = [stem, stem.split(".", 1)[0]]
    if kind == "lib":
        names.append(name.split(".", 1)[0])
    for n in names:
        pkgs = (t.get(TABLE_KEYS[kind]) or {}).get(n)
        if pkgs:
            group = (t.get("packages") or {}).get(pkgs[0], {}).get("group")
            return group, pkgs
    return None, []


def _install(pkgs):
    t = _table().get("packages") or {}
    debs = [p for p in pkgs if (t.get(p) or {}).get("from") == "deb"]
    wheels = [p for p in pkgs if (t.get(p) or {}).get("from") == "wheel"]
    out = []
    if debs:
        out.append("apt-get install %s (Debian / Ubuntu; %s)" % (
            " or ".join(debs), "one of them" if len(debs) > 1 else "its -dev package"))
    if wheels:
        # (the wheel named is the table's release; its -cuNN suffix is the CUDA major it is built for, review19)
        out.append("pip install %s (the wheel of your CUDA major version, -cu12 / -cu13: its nvidia/<lib>/include and "
                   "lib folders), or the same library's system install" % " or ".join(wheels))
    return " or ".join(out)


def structural(scan, kb, structural_finding, known):
    from gpudoctor.explain.provenance import _ran_past

    by = kb.by_id
    t = _table()
    for kind, h in hits(scan, known)[:16]:
        if _ran_past(scan, h.line):
            continue
        name = (h.groups.get("name") or "").strip()
        if kind == "dh":
            if "build.tool_error" not in by:
                continue
            pkg = h.groups.get("pkg")
            f = structural_finding(by["build.tool_error"], h, "debhelper's dh_install: files the package %s lists "
                                   "were not built" % pkg, scan, sure="medium")
            f["causes"].insert(0, _cause(
                "dh_install stops after this line (debhelper's dh_install: 'missing files, aborting'): the install "
                "list of the package %s (debian/%s.install) names %s, which the build's install step did not put "
                "in place." % (pkg, pkg, name),
                ["Make the build install %s (the project's install rule: the Makefile's list of headers or files it "
                 "exports), or take it out of %s when this version no longer has it." % (
                     sh(name), sh("debian/%s.install" % pkg))]))
            return f
        group, pkgs = lookup(kind, name)
        g = (t.get("groups") or {}).get(group) or {}
        if kind == "so":
            got = _runtime(scan, by, h, name, g, pkgs, structural_finding)
            if got:
                return got
            continue
        eid = g.get("entry") if g.get("entry") in by else "build.tool_error"
        if eid not in by:
            continue
        f = structural_finding(by[eid], h, "the build's missing %s %s%s" % (
            WHAT[kind][4:], name, " (%s)" % g.get("what") if g else ""), scan,
            sure="medium" if pkgs else "low")
        if pkgs:
            fixes = ["Install it: %s." % _install(pkgs)]
            # (dpkg lists a Debian package's files, pip a wheel's: `dpkg -L nvidia-nccl-cu13` finds nothing, review19)
            wheel = ((t.get("packages") or {}).get(pkgs[0]) or {}).get("from") == "wheel"
            for v in g.get("variables") or ():
                fixes.append("Or point the build at an install that has it: set %s to its prefix (the folder whose "
                             "include/ and lib/ hold %s: `%s %s | grep %s` shows where), e.g. `make %s=<prefix>` "
                             "(read by %s)." % (v["name"], name if kind == "header" else "it",
                                                "pip show -f" if wheel else "dpkg -L", pkgs[0],
                                                name.rsplit("/", 1)[-1], v["name"], v["read_by"]))
            if kind == "cmake":
                mod = (t.get("cmake_modules") or {}).get(name)
                if h.groups.get("cfg"):
                    fixes.append(_config_fix(name))
                elif mod:
                    fixes.append("Or tell CMake where it is: cmake -D%s=<prefix> (Find%s's hint variable)." % (
                        mod["variable"], name))
            f["causes"].insert(0, _cause("The build needs %s %s, which %s provides (%s): not installed here, or "
                                         "installed where the build does not look." % (
                                             WHAT.get(kind, kind), name, " / ".join(pkgs), g.get("what") or group),
                                         fixes))
        else:
            f["causes"].insert(0, _cause(
                "The build needs %s %s, which nothing installed where it looks provides." % (WHAT.get(kind, kind),
                                                                                             name),
                [_config_fix(name)] if h.groups.get("cfg") else [
                    "Find the package that has it (`apt-file search %s`, `dpkg -S %s` where it is installed "
                    "elsewhere) and install it, or add its folder to the build's include / library path." % (name,
                                                                                                            name)]))
        return f
    return None


def _runtime(scan, by, h, name, g, pkgs, structural_finding):
    """The dynamic loader did not find a library when the program ran (not a build): the group's runtime entry (NCCL's,
    CUDA's, rdma-core's), else loader.cannot_open; the package whose development files hold it names which library
    (its runtime package is the one to install where the program runs)."""
    driver = None if g else _driver_library(name)
    eid = g.get("runtime_entry") if g.get("runtime_entry") in by else "loader.cannot_open"
    if driver and "container.no_driver_libs" in by:
        eid = "container.no_driver_libs"
    if eid not in by or by[eid].get("kind") == "echo":
        return None
    f = structural_finding(by[eid], h, "the dynamic loader's missing %s%s" % (
        name, " (%s)" % g.get("what") if g else ""), scan, sure="medium" if pkgs else "low")
    if driver:
        f["causes"].insert(0, _cause(
            "%s is the NVIDIA driver's own library (libnvidia-container's list, capability %s): no package of the "
            "image provides it; the host's driver does. In a container the NVIDIA Container Toolkit mounts it when "
            "the container gets the GPUs (--gpus / the nvidia runtime / CDI) with NVIDIA_DRIVER_CAPABILITIES "
            "including %s; on a host, the driver's user-space libraries are not installed or not on the loader's "
            "path." % (name, "/".join(driver), driver[0]),
            ["Run the container with the GPUs and that capability: docker run --gpus all -e "
             "NVIDIA_DRIVER_CAPABILITIES=%s ... (or the nvidia runtime / CDI device); on a host, check the driver: "
             "`ldconfig -p | grep %s`, nvidia-smi." % (",".join(sorted(set(driver) | {"utility"})),
                                                      name.split(".so", 1)[0])]))
    if pkgs:
        f["causes"].insert(0, _cause(
            "The program needs %s, %s's library (%s): not installed where it runs, or not on the loader's path."
            % (name, " / ".join(pkgs), g.get("what")),
            ["Install %s's runtime where the program runs (the package %s depends on; %s), or add the folder that "
             "holds %s to LD_LIBRARY_PATH there (`ldconfig -p | grep %s` shows what the loader knows)."
             % (" / ".join(pkgs), pkgs[0], _install(pkgs), name, name.split(".so", 1)[0])]))
    return f


def _driver_library(name):
    """The NVIDIA_DRIVER_CAPABILITIES that mount the driver library ``name`` ('libcuda.so.1' -> ['compute', 'video']),
    from libnvidia-container's own lists (generated/nvc_capabilities.json, tools/gen_nvc_capabilities.py), or None."""
    from gpudoctor.explain.knowledge import generated_table

    base = name.split(".so", 1)[0] + ".so"
    for lib in generated_table("nvc_capabilities").get("libraries") or ():
        if lib.get("library") == base:
            return list(lib.get("capabilities") or ()) or None
    return None


def _config_fix(name):
    # CMake's find_package in config mode (cmFindPackageCommand.cxx: 'Add the installation prefix of "<Name>" to
    # CMAKE_PREFIX_PATH or set "<Name>_DIR" to a directory containing one of the above files')
    return ("Tell CMake where %s is installed: cmake -DCMAKE_PREFIX_PATH=<its install prefix>, or -D%s_DIR=<the "
            "folder holding %sConfig.cmake>; or install the package that provides it." % (name, name, name))


def _cause(text, fixes):
    return {"text": text, "checks": [], "confirm": [], "fix": fixes, "exports": {}, "evidence": [], "static_rank": 0,
            "computed": None}

#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/nvc_capabilities.json: which NVIDIA driver library the NVIDIA container
stack (libnvidia-container: nvidia-container-cli, under docker --gpus, the NVIDIA container toolkit's hooks, enroot's
98-nvidia.sh, Kubernetes' device plugin) mounts into a container for which NVIDIA_DRIVER_CAPABILITIES, and a matcher
for the loader's refusal of each library the CUDA images' default capabilities (compute,utility) do not mount.

A library is mounted only when a requested capability selects it: src/options.h container_opts maps each capability
name to option flags ('video' -> OPT_VIDEO_LIBS|OPT_COMPUTE_LIBS), src/nvc_info.c match_library_flags maps each flag
to the library lists it selects (OPT_VIDEO_LIBS -> video_libs), and the lists name the libraries (video_libs:
libnvcuvid.so, libnvidia-encode.so, ...). A program in a container that asks for libnvcuvid.so.1 without 'video' gets
the loader's '<lib>: cannot open shared object file' (glibc dlerror; ctypes and dlopen users print it as is), though
the host has the library: the cause is the container's NVIDIA_DRIVER_CAPABILITIES, not the program. The sites are
those messages, one per library outside 'compute,utility' (the value NVIDIA's CUDA images set and the toolkit's
default; libcuda / libnvidia-ml are the existing cuda.libs and container.no_driver_libs entries' own).

Usage:
    python tools/gen_nvc_capabilities.py --src /path/to/libnvidia-container/src [--version TEXT] [-o OUT]
    python tools/gen_nvc_capabilities.py --slice tools/data/nvc_capabilities_slice.txt -o OUT   (the test)

Source: NVIDIA/libnvidia-container (https://github.com/NVIDIA/libnvidia-container) src/nvc_info.c and src/options.h
(the lists, match_library_flags / match_binary_flags, container_opts: all this generator reads, recorded whole in the
slice).
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_nvc_capabilities.py"
SOURCE = ("NVIDIA/libnvidia-container (https://github.com/NVIDIA/libnvidia-container) src/nvc_info.c (library lists, "
          "match_library_flags), src/options.h (container_opts)")
DEFAULT = ("compute", "utility")  # NVIDIA's CUDA images' NVIDIA_DRIVER_CAPABILITIES; the toolkit's default
FAMILY = "container.driver_capability"
# graphics_libs_compat: the names of GLVND's own loaders (libGL.so.1, libEGL.so.1, libGLESv2.so.2), which the runtime
# mounts only with no-glvnd and every distribution's libgl1 / libegl1 ships: a missing libGL.so.1 is most often an image
# without those packages (opencv-python in a slim image), not a capability. Recorded in the table, no site
COMMON_NAMES = ("graphics_libs_compat",)

_LIST = re.compile(r"static const char \* const (\w+)\[\] = \{(.*?)\};", re.S)
_OPT = re.compile(r'\{"(\w+)",\s*((?:OPT_\w+\s*\|?\s*)+)\}')
_MATCH = re.compile(r"\(flags & (OPT_\w+)\)\s*&&\s*\(?((?:str_array_match_prefix\(\w+, (\w+), nitems\(\w+\)\)"
                    r"[\s|]*)+)")


def lists(src):
    """{list name: [entries]} of nvc_info.c's string lists (commented-out entries left out)."""
    out = {}
    for name, body in _LIST.findall(src):
        body = re.sub(r"//[^\n]*", "", body)
        out[name] = [knowgen.c_unescape(s) for s in knowgen.C_STRING.findall(re.sub(r"/\*.*?\*/", "", body, flags=re.S))]
    return out


def flag_lists(src):
    """{OPT flag: [list names]} from match_library_flags / match_binary_flags."""
    out = {}
    for m in _MATCH.finditer(src):
        out.setdefault(m.group(1), []).extend(re.findall(r"str_array_match_prefix\(\w+, (\w+),", m.group(2)))
    return out


def capabilities(src):
    """{capability: [OPT flags]} from options.h's container_opts (only the names NVIDIA_DRIVER_CAPABILITIES takes:
    those whose flags select a list)."""
    m = re.search(r"container_opts\[\] = \{(.*?)\};", src, re.S)
    return {name: re.findall(r"OPT_\w+", flags) for name, flags in _OPT.findall(m.group(1) if m else "")}


def build(files, version):
    by = dict(files)
    info, opts = by.get("src/nvc_info.c", ""), by.get("src/options.h", "")
    libs, fl, caps = lists(info), flag_lists(info), capabilities(opts)
    mounts = {}  # library -> capabilities that mount it
    for cap, flags in caps.items():
        for flag in flags:
            for lst in fl.get(flag, []):
                for lib in libs.get(lst, []):
                    mounts.setdefault(lib, [])
                    if cap not in mounts[lib]:
                        mounts[lib].append(cap)
    table = [{"library": lib, "capabilities": capsof, "list": next(n for n, v in libs.items() if lib in v)}
             for lib, capsof in mounts.items()]
    sites, ids = [], set()
    for row in table:
        lib, capsof = row["library"], row["capabilities"]
        if set(capsof) & set(DEFAULT) or not capsof:
            continue  # mounted by compute,utility: libcuda / libnvidia-ml have entries of their own
        if row["list"] in COMMON_NAMES:
            continue  # libGL.so / libEGL.so / libGLES*: GLVND's loaders any distribution ships (opencv's libGL.so.1)
        need = capsof[0]
        text = "%s: cannot open shared object file" % lib
        # the soname's version ('.1', '.535.129.03') as one bounded run: no repeat inside a repeat (linear, bounded)
        rx = r"(?<![\w.-])%s(?:\.[0-9.]{1,16})?: cannot open shared object file" % re.escape(lib)
        sites.append({"id": knowgen.unique_id("nvc.%s" % knowgen.slug(lib), ids), "where": "src/nvc_info.c %s" % row["list"],
                      "level": "error", "text": text, "re": rx, "family": FAMILY, "rule": "capability",
                      "capabilities": capsof,
                      "means": "%s is a driver library the NVIDIA container runtime mounts only with the driver "
                               "capability %s; compute,utility (the CUDA images' value) leave it out." % (
                                   lib, " or ".join("'%s'" % c for c in capsof)),
                      # docker's --gpus value is one CSV record (docker/cli opts/gpus.go GpuOpts.Set): the
                      # capabilities' commas need their own quoted field, all,"capabilities=a,b"
                      "fix": ["add %s to the container's NVIDIA_DRIVER_CAPABILITIES: docker run --gpus "
                              "'all,\"capabilities=compute,utility,%s\"' or -e NVIDIA_DRIVER_CAPABILITIES=compute,"
                              "utility,%s (pyxis: export it and srun --container-env=NVIDIA_DRIVER_CAPABILITIES; "
                              "Kubernetes: the pod's env)" % (need, need, need),
                              "outside a container: install the driver's package that ships %s (the same version as "
                              "the kernel module)" % lib]})
    return {"header": knowgen.header(SOURCE, version, GENERATOR,
                                     "library -> the NVIDIA_DRIVER_CAPABILITIES that mount it (options.h container_opts "
                                     "-> match_library_flags -> nvc_info.c lists); a site per library outside "
                                     "compute,utility: the loader's refusal"),
            "sites": sites, "libraries": table, "capabilities": caps, "default_capabilities": list(DEFAULT)}


def from_src(src, version):
    files = []
    for rel in ("nvc_info.c", "options.h"):
        with open(os.path.join(src, rel)) as f:
            files.append(("src/" + rel, f.read()))
    return files, version


def main(argv):
    a = knowgen.arguments(__doc__, argv, source="src", extra=(("--version", {"default": "?"}),))
    files, version = from_src(a.src, a.version) if a.src else knowgen.read_slice(a.slice)
    return knowgen.emit("nvc_capabilities", build(files, version), a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

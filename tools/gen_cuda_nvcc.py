#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/cuda_nvcc.json: which host compilers and which GPU architectures each
CUDA release's nvcc accepts, read from the release itself, and the lines nvcc prints when a build asks for another.

nvcc compiles the host side of a .cu file with a host compiler (gcc, clang, MSVC) and includes crt/host_config.h first;
its host compiler check (`#if !__NV_NO_HOST_COMPILER_CHECK` ... `#endif`) stops the build with an `#error` when the
compiler is newer (or older) than that release supports:

    host_config.h:143:2: error: #error -- unsupported GNU version! gcc versions later than 13 are not supported! ...

This generator reads that block from include/crt/host_config.h of each pinned nvcc wheel on PyPI (nvidia-cuda-nvcc-cu11,
nvidia-cuda-nvcc-cu12; CUDA 13 moved the header to nvidia-cuda-crt: `pip download --no-deps`, never installed) and
writes
- `versions`: per CUDA release (the wheel's major.minor), the newest gcc (`__GNUC__ > N`), the newest clang
  (`__clang_major__ >= N` of the generic clang check, so N-1), the _MSC_VER bound (`_MSC_VER >= N`: below N), every
  other condition of the block verbatim, and `archs`: the compute capabilities the release compiles for, from the
  'Allowed values' of `ptxas --help` --gpu-name (the ptxas binary of the same wheel, run here; nvcc's own
  --list-gpu-arch gives the same list where the wheel carries nvcc, CUDA 13);
- `sites`: each distinct #error text (its first sentence, which is what differs from release to release), with the
  releases that print it, assigned to `build.host_compiler` (gpudoctor/data/knowledge/build.toml) and given a meaning
  and fix computed from the table: the newest compiler those releases accept, and the first release that accepts a
  newer one. `-allow-unsupported-compiler` is named only with NVIDIA's own caveat, which the #error text states;
- and `nvcc fatal   : Unsupported gpu architecture 'compute_XX'` (and 'sm_XX') for each architecture that some but
  not all releases know, assigned to `build.nvcc_arch` (launcher.toml) with the releases that know it: a newer GPU
  than the toolkit (needs CUDA >= the first), or an old GPU a newer toolkit dropped (CUDA <= the last);
- and `nvcc fatal   : Value 'c++23' is not defined for option 'std'` for each -std dialect that only the newer of the
  nvcc binaries the wheels carry (CUDA 13) list in their --help, assigned to `build.nvcc_std` (build.toml).

Usage:
    python tools/gen_cuda_nvcc.py --wheels DIR [--record tools/data/cuda_nvcc_slice.txt]
    python tools/gen_cuda_nvcc.py --slice tools/data/cuda_nvcc_slice.txt -o OUT   (the test)

DIR holds the wheels (`pip download --no-deps nvidia-cuda-nvcc-cu12==12.4.131` ..., nvidia-cuda-crt and
nvidia-cuda-nvcc for CUDA 13); the newest patch of each CUDA major.minor is read.

Source: https://pypi.org/project/nvidia-cuda-nvcc-cu12/ (and -cu11; https://pypi.org/project/nvidia-cuda-crt/ and
https://pypi.org/project/nvidia-cuda-nvcc/ for CUDA 13): include/crt/host_config.h, bin/ptxas --help, bin/nvcc --help.
"""

import os
import re
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

NAME = "cuda_nvcc"
GENERATOR = "tools/gen_cuda_nvcc.py"
SOURCE = ("PyPI nvidia-cuda-nvcc-cu11 / nvidia-cuda-nvcc-cu12 / nvidia-cuda-crt (CUDA 13) (https://pypi.org/project/"
          "nvidia-cuda-nvcc-cu12/, https://pypi.org/project/nvidia-cuda-crt/) include/crt/host_config.h (the host "
          "compiler check of each CUDA release's nvcc), bin/ptxas --help (the GPU architectures it compiles for) and "
          "bin/nvcc --help (its -std values, CUDA 13)")
FAMILY = "build.host_compiler"
ARCH_FAMILY = "build.nvcc_arch"
PTXAS = re.compile(r"(?:^|/)bin/ptxas$")
NVCC = re.compile(r"(?:^|/)bin/nvcc$")
STD_FAMILY = "build.nvcc_std"
HELP = " --help"
START = "/* check host compiler version"
END = "!__NV_NO_HOST_COMPILER_CHECK"
HOST_CONFIG = re.compile(r"(?:^|/)include/crt/host_config\.h$")
DIST = re.compile(r"^(nvidia[-_]cuda[-_](?:nvcc(?:[-_]cu1\d)?|crt))-(\d+)\.(\d+)\.(\d+)")
CAVEAT = ("-allow-unsupported-compiler (NVCC_APPEND_FLAGS='-allow-unsupported-compiler') only skips this check: "
          "NVIDIA's own message warns that an unsupported host compiler may fail to compile or give incorrect run "
          "time results; use it only to try, never as the fix")


def cuda_of(name):
    """'12.4' of a wheel or slice name (nvidia_cuda_nvcc_cu12-12.4.131-...)."""
    m = DIST.match(name.split("/")[0])
    return "%s.%s" % (m.group(2), m.group(3)) if m else None


def allowed(help_text, option="--gpu-name"):
    """The 'Allowed values for this option' list of ``option`` in a tool's --help, as printed (wrapped)."""
    i = help_text.index("\n%s " % option)
    j = help_text.index("Allowed values", i)
    k = help_text.find("\n\n", j)
    return help_text[j:k if k > 0 else None].strip() + "\n"


def run_help(z, member):
    """`<tool> --help` of the wheel's ptxas or nvcc, run from a temporary copy (no GPU needed)."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, os.path.basename(member))
        with open(exe, "wb") as f:
            f.write(z.read(member))
        os.chmod(exe, 0o755)
        return subprocess.run([exe, "--help"], capture_output=True, text=True, check=True).stdout


def from_wheels(folder):
    """([(name, text)], version) of the wheels in ``folder``: for each CUDA major.minor (its newest patch per
    distribution), include/crt/host_config.h (name '<dist>/<member>'), the --gpu-name values of ptxas --help and the
    --std values of nvcc --help where the wheel has nvcc (name '<dist>/<member> --help')."""
    best = {}
    for w in sorted(os.listdir(folder)):
        m = DIST.match(w)
        if not (m and w.endswith(".whl")):
            continue
        key = (int(m.group(2)), int(m.group(3)), m.group(1).replace("-", "_"))
        if key not in best or int(m.group(4)) > best[key][0]:
            best[key] = (int(m.group(4)), w)
    files, names, seen = [], [], set()
    for key in sorted(best):
        w = best[key][1]
        dist = w.split("-py3")[0]
        with zipfile.ZipFile(os.path.join(folder, w)) as z:
            for member in z.namelist():
                if HOST_CONFIG.search(member) and (key[:2], "h") not in seen:
                    seen.add((key[:2], "h"))
                    files.append((dist + "/" + member, z.read(member).decode("utf-8", "replace")))
                elif PTXAS.search(member) and (key[:2], "p") not in seen:
                    seen.add((key[:2], "p"))
                    files.append((dist + "/" + member + HELP, allowed(run_help(z, member))))
                elif NVCC.search(member) and (key[:2], "n") not in seen:
                    seen.add((key[:2], "n"))  # the CUDA 13 wheels carry nvcc itself: its --std values
                    files.append((dist + "/" + member + HELP, allowed(run_help(z, member), "--std")))
        names.append(dist)
    files.sort(key=lambda f: (sort_key(cuda_of(f[0])), f[0]))
    patches = sorted((n.split("-")[1] for n in names), key=sort_key)
    first, last = patches[0], patches[-1]
    return files, "CUDA %s to %s, the newest patch of each of %d releases (%s)" % (
        first, last, len({cuda_of(n) for n in names}), ", ".join(names))


def block(text):
    """(first line number, lines) of the host compiler check in host_config.h."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip().startswith(START))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("#endif") and END in lines[i])
    return start + 1, lines[start:end + 1]


def errors(lines):
    """[(condition, text)] of each #error of the block: the condition of the nearest #if / #elif above it."""
    out, cond = [], ""
    for ln in lines:
        s = ln.strip()
        m = re.match(r"#\s*(?:if|elif)\b(.*)", s)
        if m:
            cond = m.group(1).strip()
        m = re.match(r"#\s*error\s+(?:--\s*)?(.*)", s)
        if m:
            out.append((cond, m.group(1).strip()))
    return out


def limits(errs):
    """{gcc_max, gcc_min, clang_max, msvc_below, conditions} read from the conditions of the #errors."""
    row = {}
    for cond, text in errs:
        if "GNU version" in text:
            m = re.search(r"__GNUC__\s*>\s*(\d+)", cond)
            if m:
                row["gcc_max"] = int(m.group(1))
            m = re.search(r"__GNUC__\s*<\s*(\d+)", cond)
            if m:
                row["gcc_min"] = int(m.group(1))
        elif text.startswith("unsupported clang version"):
            m = re.search(r"__clang_major__\s*>=\s*(\d+)", cond)
            if m:
                row["clang_max"] = int(m.group(1)) - 1
        elif "Microsoft Visual Studio" in text:
            m = re.search(r"_MSC_VER\s*>=\s*(\d+)", cond)
            if m:
                row["msvc_below"] = int(m.group(1))
    row["conditions"] = [[c, first_sentence(t)] for c, t in errs]
    return row


def first_sentence(text):
    """The #error text up to the caveat every one of them ends with (' The nvcc flag ...')."""
    return text.split(" The nvcc flag")[0].strip()


def sort_key(v):
    return tuple(int(x) for x in v.split("."))


def span(vs):
    """'12.4-12.6' (or '12.4') of a sorted list of releases."""
    return vs[0] if len(vs) == 1 else "%s-%s" % (vs[0], vs[-1])


def newer(table, key, n, cmp=lambda a, b: a > b):
    """The first release whose ``key`` limit exceeds ``n`` (and that limit), or (None, None)."""
    for v in sorted(table, key=sort_key):
        got = table[v].get(key)
        if got is not None and cmp(got, n):
            return v, got
    return None, None


def meaning_fix(text, vs, table):
    """(means, [fix]) of one #error text printed by the releases ``vs``."""
    where = "nvcc of CUDA %s" % span(vs)
    m = re.search(r"gcc versions later than (\d+)", text)
    if m:
        n = int(m.group(1))
        v, top = newer(table, "gcc_max", n)
        fix = ["build with a gcc of version %d or older: install it (apt-get install gcc-%d g++-%d; conda install -c "
               "conda-forge gxx=%d) and export CC=gcc-%d CXX=g++-%d before the build (torch.utils.cpp_extension passes "
               "CC to nvcc as -ccbin; plain nvcc: -ccbin g++-%d; CMake: export CUDAHOSTCXX=g++-%d)"
               % (n, n, n, n, n, n, n, n)]
        if v:
            fix.append("or use a newer CUDA toolkit: CUDA %s accepts gcc up to %d (with a torch built for that CUDA)"
                       % (v, top))
        fix.append(CAVEAT)
        return ("%s accepts gcc up to version %d; the host compiler it found is newer (the distribution's default "
                "gcc after an OS upgrade, or a conda/module gcc first on PATH)" % (where, n)), fix
    m = re.search(r"clang version must be less than (\d+)", text)
    if m:
        n = int(m.group(1)) - 1
        v, top = newer(table, "clang_max", n)
        fix = ["build with clang %d or older, or with a gcc this CUDA accepts: export CC=<it> CXX=<its C++> "
               "(nvcc: -ccbin <compiler>; CMake: CUDAHOSTCXX)" % n]
        if v:
            fix.append("or use a newer CUDA toolkit: CUDA %s accepts clang up to %d" % (v, top))
        fix.append(CAVEAT)
        return "%s accepts clang up to version %d; the host compiler it found is newer" % (where, n), fix
    m = re.search(r"Grace clang version! The version must be (\d+)\.x(?: to (\d+)\.x)?", text)
    if m:
        top = m.group(2) or m.group(1)
        return ("%s accepts NVIDIA's Grace (arm64) clang %s.x to %s.x only; the one it found is another version"
                % (where, m.group(1), top)), [
            "build with a Grace clang %s.x to %s.x, or with the system gcc this CUDA accepts: export CC=gcc CXX=g++ "
            "(nvcc: -ccbin g++; CMake: CUDAHOSTCXX=g++)" % (m.group(1), top), CAVEAT]
    m = re.search(r"unsupported (ICC configuration|Intel ICX compiler|xlC version)", text)
    if m:
        named = {"ICC": "Intel icc", "Intel": "Intel icx/icpx", "xlC": "IBM xlC"}[m.group(1).split()[0]]
        return ("%s does not accept this %s as its host compiler (set as CC/CXX, or first on PATH)"
                % (where, named)), [
            "build the CUDA files with a gcc this CUDA accepts: export CC=gcc CXX=g++ (nvcc: -ccbin g++; CMake: "
            "CUDAHOSTCXX=g++), keeping the other compiler for the host-only files if needed", CAVEAT]
    m = re.search(r"Only the versions between (\d{4}) and (\d{4})", text)
    if m:
        fix = ["build from a Visual Studio %s-%s developer prompt, or pick an older MSVC toolset of the installed "
               "Visual Studio (vcvarsall.bat x64 -vcvars_ver=<14.xx>)" % (m.group(1), m.group(2)),
               "or use a CUDA toolkit released after your Visual Studio", CAVEAT]
        return ("%s accepts Microsoft Visual Studio %s to %s only; the cl.exe on PATH is another version"
                % (where, m.group(1), m.group(2))), fix
    return None, None


def cap(n):
    """'9.0' of the architecture number 90 (compute capability major.minor)."""
    return "%d.%d" % (n // 10, n % 10)


def arch_meaning_fix(n, vs, releases):
    """(means, [fix]) of an architecture compute_<n> that only the releases ``vs`` (of all ``releases``) know."""
    first, last = vs[0], vs[-1]
    added = first != releases[0]
    dropped = last != releases[-1]
    nxt = releases[releases.index(last) + 1] if dropped else None
    said, fix = [], []
    if added:
        said.append("needs CUDA %s or newer" % first)
        fix.append("build with a CUDA toolkit of %s or newer (CUDA_HOME=/usr/local/cuda-<X.Y>, and a torch built for "
                   "that CUDA) for a GPU of compute capability %s" % (first, cap(n)))
    if dropped:
        said.append("was dropped by CUDA %s (the last release that compiles for it: %s)" % (nxt, last))
        fix.append("for a GPU of compute capability %s build with CUDA %s or older (and a torch built for it); for "
                   "newer GPUs leave %s out of the build" % (cap(n), last, cap(n)))
    fix.append("or ask only for the architectures this nvcc knows: export TORCH_CUDA_ARCH_LIST=\"<the GPUs' "
               "capabilities, e.g. 8.0;9.0>\" without %s (Makefiles/CMake: the -gencode arch=compute_%d / "
               "CMAKE_CUDA_ARCHITECTURES entry)" % (cap(n), n))
    means = ("compute_%d (compute capability %s) %s; the nvcc that ran does not know it (the nvcc of CUDA %s "
             "compiles for it)" % (n, cap(n), " and ".join(said), span(vs)))
    return means, fix


def build(files, version):
    table, texts, archs = {}, {}, {}
    for name, text in files:
        v = cuda_of(name)
        row = table.setdefault(v, {})
        if name.endswith("/bin/nvcc" + HELP):
            row["std"] = re.findall(r"'(c\+\+\d\d)'", text)
            continue
        if name.endswith(HELP):
            nums = sorted({int(x) for x in re.findall(r"'compute_(\d+)'", text)})
            row["archs"] = [cap(n) for n in nums]
            archs[v] = nums
            continue
        _, lines = block(text)
        errs = errors(lines)
        row.update(limits(errs), wheel=name.split("/")[0])
        for _, t in errs:
            texts.setdefault(first_sentence(t), []).append(v)
    ids, sites = set(), []
    for text in sorted(texts, key=lambda t: (sort_key(texts[t][0]), t)):
        vs = sorted(texts[text], key=sort_key)
        rx, _ = knowgen.matcher(text.replace("%", "%%"), need=16)
        site = {"id": knowgen.unique_id("build.host_compiler." + knowgen.slug(text)[:48], ids),
                "where": "include/crt/host_config.h", "level": "error", "text": text, "cuda": vs}
        means, fix = meaning_fix(text, vs, table)
        if means and rx:
            site.update(re=rx, family=FAMILY, rule="host-compiler-check", means=means, fix=fix)
        elif rx:
            site["re"] = rx
        sites.append(site)
    releases = sorted(archs, key=sort_key)
    for n in sorted(set().union(*archs.values())) if archs else ():
        vs = [v for v in releases if n in archs[v]]
        if len(vs) == len(releases):
            continue  # every release read compiles for it: an older CUDA than these refused it (launcher.toml)
        means, fix = arch_meaning_fix(n, vs, releases)
        for kind in ("compute", "sm"):
            text = "Unsupported gpu architecture '%s_%d'" % (kind, n)
            rx, _ = knowgen.matcher(text, need=16)
            sites.append({"id": knowgen.unique_id("build.nvcc_arch.%s_%d" % (kind, n), ids),
                          "where": "nvcc (ptxas --help: --gpu-name)", "level": "fatal", "text": text, "cuda": vs,
                          "re": rx, "family": ARCH_FAMILY, "rule": "arch-by-release", "means": means, "fix": fix})
    stds = sorted((v for v in table if table[v].get("std")), key=sort_key)
    for dialect in sorted({d for v in stds for d in table[v]["std"]}):
        vs = [v for v in stds if dialect in table[v]["std"]]
        if vs[0] == stds[0]:
            continue  # every nvcc read accepts it: older releases are build.toml's hand patterns
        text = "Value '%s' is not defined for option 'std'" % dialect
        rx, _ = knowgen.matcher(text, need=16)
        sites.append({"id": knowgen.unique_id("build.nvcc_std." + knowgen.slug(dialect), ids),
                      "where": "nvcc --help (--std)", "level": "fatal", "text": text, "cuda": vs, "re": rx,
                      "family": STD_FAMILY, "rule": "std-by-release",
                      "means": "nvcc accepts -std=%s from CUDA %s on (nvcc %s --help lists it, %s does not)"
                               % (dialect, vs[0], vs[0], stds[stds.index(vs[0]) - 1]),
                      "fix": ["build with a CUDA toolkit of %s or newer (CUDA_HOME=/usr/local/cuda-<X.Y>)" % vs[0],
                              "or compile the .cu files with an older standard (-std=c++20: CMAKE_CUDA_STANDARD; torch "
                              "extensions: extra_compile_args={'nvcc': ['-std=c++20']}), keeping %s for the host-only "
                              ".cpp files" % dialect]})
    versions = [dict(cuda=v, **{k: table[v][k] for k in sorted(table[v])}) for v in sorted(table, key=sort_key)]
    note = ("each CUDA release's nvcc: the newest gcc / clang / MSVC its host compiler check (crt/host_config.h) "
            "accepts, its #error texts assigned to %s, and the GPU architectures its ptxas compiles for, each "
            "architecture some releases lack assigned to %s, and the -std dialects of the nvcc binaries (CUDA 13) "
            "assigned to %s; fixes computed from the table" % (FAMILY, ARCH_FAMILY, STD_FAMILY))
    return {"header": knowgen.header(SOURCE, version, GENERATOR, note), "versions": versions, "sites": sites}


def record(files, path, version):
    """Write the slice the test regenerates from: each release's host compiler block (with its line numbers) and
    its ptxas --gpu-name values."""
    with open(path, "w") as f:
        f.write("#! version %s\n" % version)
        for name, text in files:
            if name.endswith(HELP):
                f.write("=== %s\n%s" % (name, text))
                continue
            first, lines = block(text)
            f.write("=== %s @%d\n" % (name, first))
            f.write("\n".join(lines) + "\n")


def main(argv=None):
    a = knowgen.arguments(__doc__, argv, source="wheels", source_opts={"help": "a folder of nvcc wheels"},
                          extra=[("--record", {"help": "also write the slice the test regenerates from"})])
    if a.wheels:
        files, version = from_wheels(a.wheels)
        if a.record:
            record(files, a.record, version)
    else:
        files, version = knowgen.read_slice(a.slice)
    return knowgen.emit(NAME, build(files, version), a.out)


if __name__ == "__main__":
    sys.exit(main())

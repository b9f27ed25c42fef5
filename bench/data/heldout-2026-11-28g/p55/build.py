import json
W = "/tmp/heldout-p55/w/"
def rd(p): return open(W + p).read().rstrip("\n")
a = "\n".join(l for l in rd("a/fail.txt").splitlines() if l not in ("$ echo $?", "0"))
d = "$ ls /tmp/heldout-p55/w/d/pylib/tokfast\n__init__.py\n_tokfast.cpython-312-x86_64-linux-gnu.so\n" + rd("d/fail.txt")
i = rd("i/fail.txt")
P = "planted-cpu-2026-11-28-p55/"
cases = [
 dict(id="p55-runpath_lib_missing_on_second_node", comp="ld.so", category="library-missing", text=a,
      family="loader.cannot_open", alts=["ssh.pdsh"],
      fix="The helper binary's shared library (libfastio.so.1 under /opt/fastio/lib, found through its RUNPATH) is installed on node1 only; install the same library tree on node2 (or ship the library with the job / use one node image) so the loader finds it on every node.",
      kw=["node2&install", "node2&missing", "ldd"],
      note="planted and fix verified by re-running: node2's sshd ran in a mount namespace with /opt/fastio hidden; after copying libfastio.so.1 into node2's /opt/fastio/lib both nodes built the shard index."),
 dict(id="p55-extension_needs_newer_glibc_symbol_version", comp="ld.so", category="abi-mismatch", text=rd("b/fail.txt"),
      family="loader.version_not_found", alts=["build.extension"],
      fix="The C extension was built against a newer glibc (it requires the GLIBC_2.38 symbol version) than the nodes have (Debian 12, glibc 2.36); rebuild it on the cluster's OS or in an older manylinux (e.g. manylinux_2_28) build image, or run on an OS with a newer glibc.",
      kw=["rebuild", "older glibc", "manylinux"],
      note="planted and fix verified by re-running: the extension's version-need entry was set to GLIBC_2.38 (as a build on a glibc-2.38+ distro produces); the same extension built on this node (GLIBC_2.14 need) imports and training runs."),
 dict(id="p55-torch_extension_built_with_old_cxx_abi", comp="python-import", category="abi-mismatch", text=rd("c/fail.txt"),
      family="loader.undefined_symbol", alts=["build.extension"],
      fix="The extension was compiled with -D_GLIBCXX_USE_CXX11_ABI=0 while this torch is built with the new C++11 ABI (torch._C._GLIBCXX_USE_CXX11_ABI is True), so std::string symbols like torchCheckFail(...RKSs) do not exist; rebuild it with _GLIBCXX_USE_CXX11_ABI=1 (e.g. through torch.utils.cpp_extension, which sets the matching flag).",
      kw=["CXX11_ABI", "cxx11 abi", "C++11 ABI"],
      note="planted and fix verified by re-running: the same source rebuilt with -D_GLIBCXX_USE_CXX11_ABI=1 imports and trains under torchrun."),
 dict(id="p55-extension_only_built_for_cpython312", comp="python-import", category="version-mismatch", text=d,
      family="code.python_env", alts=["build.extension", "build.python_headers"],
      fix="The package's compiled module was built for CPython 3.12 (_tokfast.cpython-312-...so), which Python 3.11 ignores, so the import fails; rebuild/reinstall tokfast with the job's Python 3.11 interpreter (or run the job with Python 3.12).",
      kw=["3.11&rebuild", "3.11&reinstall", "python version"],
      note="planted and fix verified by re-running: tokfast built against 3.12 headers into a shared PYTHONPATH dir; rebuilt against 3.11 (cpython-311 .so) the job imports it and trains."),
 dict(id="p55-extension_built_with_march_sapphirerapids_sigill", comp="torchrun-sigill", category="cpu-arch", text=rd("e/fail.txt"),
      family="build.extension", alts=["elastic.sigsegv"],
      fix="Both ranks die with SIGILL (illegal instruction) as soon as the gradient-compression extension runs: it was compiled with -march=sapphirerapids and uses AVX-512 FP16 instructions this node's CPU lacks; rebuild it for the oldest CPU in the cluster (e.g. -march=x86-64-v3 or without -march=native/sapphirerapids).",
      kw=["-march", "illegal instruction", "instruction set"],
      note="planted and fix verified by re-running: the extension built with -O3 -march=sapphirerapids emits vcvtss2sh/vmulsh (AVX512-FP16, absent on this CPU); rebuilt with -march=x86-64-v3 the job trains."),
 dict(id="p55-torchrun_no_python_script_without_shebang", comp="torchrun", category="exec-layer", text=rd("f/fail.txt"),
      family="errno.enoexec", alts=["launcher.script_args"],
      fix="torchrun --no-python execs ./rank_entry.sh directly, and the script has no interpreter line, so execve fails with ENOEXEC; add a shebang (#!/bin/bash) as its first line (or run it through bash).",
      kw=["shebang", "#!/bin/bash", "#!"],
      note="planted and fix verified by re-running: the same script with '#!/bin/bash' added runs both ranks to completion."),
 dict(id="p55-launch_script_crlf_line_endings_over_pdsh", comp="bash", category="exec-layer", text=rd("g/fail.txt"),
      family="errno.enoent", alts=["launcher.script_missing", "ssh.pdsh"],
      fix="launch_node.sh has Windows CRLF line endings, so its interpreter line names '/bin/bash\\r', which does not exist; convert it to LF line endings (dos2unix or sed -i 's/\\r$//').",
      kw=["CRLF", "dos2unix", "line ending"],
      note="planted and fix verified by re-running: after stripping the carriage returns the same pdsh command trains on both nodes."),
 dict(id="p55-ctypes_cdll_unversioned_name_no_dev_symlink", comp="ctypes", category="library-missing", text=i,
      family="loader.cannot_open", alts=[],
      fix="ctypes.CDLL('libfastio.so') asks for the unversioned development name, but only the runtime file libfastio.so.1 is installed (no libfastio.so symlink from a -dev package); load the versioned soname 'libfastio.so.1' (or add the symlink / install the -dev package).",
      kw=["soname", "symlink", "find_library"],
      note="planted and fix verified by re-running: CDLL('libfastio.so.1') works, and so does adding the libfastio.so symlink."),
 dict(id="p55-wheel_tag_manylinux_2_39_on_glibc_2_36_nodes", comp="pip", category="version-mismatch", text=rd("j/fail.txt"),
      family="code.python_env", alts=["build.wheel_failed"],
      fix="The wheel is tagged manylinux_2_39 (built for glibc 2.39+), but the nodes run glibc 2.36, so pip refuses it; build or download a wheel with an older tag (e.g. manylinux_2_28) or build the package from source on the nodes.",
      kw=["glibc", "manylinux_2_28", "from source"],
      note="planted and fix verified by re-running: installing the package from source on the node (pip install ./src) works and imports."),
 dict(id="p55-pybind11_module_name_differs_from_load_name", comp="torch.utils.cpp_extension", category="build", text=rd("k/fail.txt"),
      family="build.extension", alts=["code.python_env"],
      fix="cpp_extension.load(name='fastnorm') builds fastnorm.so and imports it expecting PyInit_fastnorm, but the source declares PYBIND11_MODULE(_C, m); declare the module as PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) (or make the names match).",
      kw=["TORCH_EXTENSION_NAME", "PYBIND11_MODULE", "module name"],
      note="planted (found while building a healthy case) and fix verified by re-running: with PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) the JIT build loads and trains."),
 dict(id="p55-healthy_pdsh_two_node_torchrun_info_logs", comp="pdsh", category="healthy", text=rd("g/healthy.txt"),
      family="healthy", alts=[], fix="", kw=[], note="planted: working two-node run (pdsh -> torchrun, LOGLEVEL=INFO) that trained to completion."),
 dict(id="p55-healthy_inductor_compile_profiler_warning", comp="torch-inductor", category="healthy", text=rd("h/healthy.txt"),
      family="healthy", alts=[], fix="", kw=[], note="planted: torch.compile'd DDP model on CPU trained to completion; only the profiler record_function warning was printed."),
 dict(id="p55-healthy_cpp_extension_jit_build_then_train", comp="torch.utils.cpp_extension", category="healthy", text=rd("k/healthy.txt"),
      family="healthy", alts=[], fix="", kw=[], note="planted: JIT extension built by ninja on first launch ([1/2] compile, [2/2] link) and training completed."),
]
with open("/tmp/heldout-p55/explain_heldout_p55.jsonl", "w") as f:
    for c in cases:
        o = dict(id=c["id"], url="planted:" + c["id"], source_repo=P + c["comp"], category=c["category"], text=c["text"],
                 family=c["family"], family_alternatives=c["alts"], fix=c["fix"], fix_keywords=c["kw"],
                 healthy=c["family"] == "healthy", group="p55-loader-abi-exec", label_note=c["note"])
        f.write(json.dumps(o, ensure_ascii=False) + "\n")
print(len(cases))

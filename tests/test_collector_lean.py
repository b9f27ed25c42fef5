"""What every node runs through srun starts lean (issue 20, docs/benchmarks.md "Where the time
goes"): the collector imports json, re, subprocess, socket and threading only where a section
needs them, and what replaces them gives the same answers: JSON through the C accelerator that
json itself uses, regular expressions of the sections every node runs read with string methods
(each compared here with its pattern), `nvcc --version` not run where the toolkit nvcc forwards
to answers."""

import glob
import json
import os
import random
import re
import subprocess
import sys

import pytest

from conftest import node_facts

from gpudoctor.collector import base, cuda, python_env, system

# Never imported on a node whose sections run no command and match no pattern (the payload's
# modules as `python3 -X importtime` listed them before, less those the interpreter loads at start)
HEAVY = ("json", "re", "subprocess", "socket", "threading", "enum", "selectors", "signal", "importlib.util",
         "functools", "collections", "contextlib", "importlib", "struct", "hashlib")


def test_dumps_and_loads_are_jsons_own():
    doc = node_facts("h100-ubuntu2404-torch211")
    odd = {"z": [1.5, -0.0, 1e300, 3, True, None, float("inf"), float("-inf")], "a": "caf\xe9 \u2603 \ud83d\ude00 \"\\\n",
           "nested": {"b": {}, "a": []}}
    for value in (doc, odd, {}, [], "text", 7, {2: "int keys", 1: None}):
        assert base.dumps(value) == json.dumps(value, sort_keys=True)
    nan = base.dumps({"x": float("nan")})
    assert nan == json.dumps({"x": float("nan")}, sort_keys=True) == '{"x": NaN}'
    with pytest.raises(TypeError):
        base.dumps({"x": object()})
    text = json.dumps(doc)
    assert base.loads(text) == json.loads(text) and base.loads(" \n" + text + "\r\n\t") == json.loads(text)
    assert base.loads('{"a": [1, 2.5, "x\\u00e9"], "b": Infinity}') == {"a": [1, 2.5, "x\xe9"], "b": float("inf")}
    assert base.loads(b'{"a": 1}') == {"a": 1}  # bytes: json.loads itself
    for bad in ("", "  ", "{", '{"a": 1} x', "[1,]", "\ufeff{}", "nul"):
        with pytest.raises(ValueError):
            json.loads(bad)
        with pytest.raises(ValueError):
            base.loads(bad)
    with pytest.raises(TypeError):
        base.loads(None)  # what cuda's version.json reader catches when the file is missing


def test_lazy_patterns_and_re():
    p = base.Pattern(r"(\d+)\.(\d+)")
    assert p._compiled is None
    assert p.search("v 12.4").groups() == ("12", "4") and p._compiled is not None
    assert [m.group(0) for m in base.Pattern(br"sm_\d+").finditer(b"sm_80 sm_90")] == [b"sm_80", b"sm_90"]
    assert base.re.sub(r"[-_.]+", "-", "a__b") == "a-b" and base.re.M == re.M


def _words(rng, alphabet, n):
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14))) for _ in range(n)]


def test_string_parsers_match_the_patterns_they_replace():
    """Each string-method reader gives what its regular expression gave, on hand-picked names
    and on random strings over the characters that matter (seeded: the same every run)."""
    rng = random.Random(20)
    # meminfo
    pat = re.compile(r"(\w+):\s+(\d+)\s*kB")
    lines = ["MemTotal:       24576000 kB", "Hugepagesize:       2048 kB", "HugePages_Total:       0", "X: 1kB",
             "X:1 kB", "X :  1 kB", "Ab_c9:\t\t7 kBytes", ":  5 kB", "é_1:  \u0663\u0664 kB", "A:  12 kb", "A-B:  1 kB",
             "A:  \u00a01 kB"] + _words(rng, "Ab_9: k\tB-\u0663", 3000)
    for line in lines:
        m = pat.match(line)
        assert system.parse_meminfo(line) == ({m.group(1): int(m.group(2)) * 1024} if m else {}), repr(line)
    # distribution folders
    dist = re.compile(r"^(.+?)-(\d[^-]*?)(?:-py\d.*)?\.(dist-info|egg-info)$")
    names = ["torch-2.11.0+cu130.dist-info", "nvidia_cublas_cu12-12.4.5.8.dist-info", "foo-1.0-py3.8.egg-info",
             "foo-1.0-py3.8-linux.egg-info", "foo-bar-1.0.dist-info", "foo-1.0-1.dist-info", "-1.0.dist-info",
             "a-1.dist-info-py3.dist-info", "foo-1.0.dist-info\n", "foo\n-1.0.dist-info", "foo-1.0-py.egg-info",
             "x-\u0663.dist-info", "Foo.Bar-2.dist-info", "foo-1.0.DIST-INFO", "foo-1.0.dist-info.txt", "foo"]
    names += [w + rng.choice([".dist-info", ".egg-info", ""]) for w in _words(rng, "a-1.p_y\n9", 4000)]
    for name in names:
        m = dist.match(name)
        want = (re.sub(r"[-_.]+", "-", m.group(1)).lower(), m.group(2)) if m else (None, None)
        assert python_env.parse_dist_dirname(name) == want, repr(name)
    for w in _words(rng, "aB-_.", 2000):
        assert python_env._norm(w) == re.sub(r"[-_.]+", "-", w).lower(), repr(w)
    # cuda's version names
    txt = re.compile(r"CUDA Version (\d+\.\d+(?:\.\d+)?)")
    wheel = re.compile(r"nvidia_cuda_nvcc(?:_cu\d+)?-(\d+\.\d+\.\d+)")
    compat = re.compile(r"^libcuda\.so\.(\d+\.\d+(?:\.\d+)?)$")
    texts = ["CUDA Version 11.0.228", "CUDA Version 10.2", "CUDA Version 9", "CUDA Version x CUDA Version 8.0.61",
             "CUDA Version 1.2.3.4", "CUDA Version 1..2"] + ["CUDA Version " + w for w in _words(rng, "1.a", 2000)]
    for t in texts:
        m = txt.search(t)
        assert cuda.version_txt(t) == (m.group(1) if m else None), repr(t)
    wheels = ["nvidia_cuda_nvcc-13.0.88.dist-info", "nvidia_cuda_nvcc_cu12-12.4.131.dist-info", "nvidia_cuda_nvcc_cu-1.2.3",
              "nvidia_cuda_nvcc-1.2", "nvidia_cuda_nvcc_cu12-1.2.3.4"]
    wheels += ["nvidia_cuda_nvcc" + w for w in _words(rng, "_cu1-.", 3000)]
    for n in wheels:
        m = wheel.match(n)
        assert cuda.nvcc_wheel_version(n) == (m.group(1) if m else None), repr(n)
    libs = ["libcuda.so.580.159.04", "libcuda.so.1", "libcuda.so.535.104", "libcuda.so.1.2.3.4", "libcuda.so.1.2\n",
            "libcuda.so.1.2\n\n", "libcuda.so"] + ["libcuda.so." + w for w in _words(rng, "1.\na", 3000)]
    for n in libs:
        m = compat.match(n)
        assert cuda.compat_lib_version(n) == (m.group(1) if m else None), repr(n)


def _tree(tmp_path, nvcc_text=None, link=False):
    root = tmp_path / "root"
    tk = root / "usr/local/cuda-13.0"
    (tk / "bin").mkdir(parents=True)
    (tk / "bin/nvcc").write_text("ELF")
    (tk / "dist-info/nvidia_cuda_nvcc-13.0.88.dist-info").mkdir(parents=True)
    (root / "usr/local/bin").mkdir(parents=True)
    nvcc = root / "usr/local/bin/nvcc"
    if link:
        nvcc.symlink_to("/usr/local/cuda-13.0/bin/nvcc" if link == "abs" else "../cuda-13.0/bin/nvcc")
    else:
        nvcc.write_text(nvcc_text)
    for p in (nvcc, tk / "bin/nvcc"):
        if not p.is_symlink():
            p.chmod(0o755)
    return str(root)


@pytest.mark.parametrize("nvcc_text,want", [
    ('#!/bin/sh\nexec /usr/local/cuda-13.0/bin/nvcc "$@"\n', "13.0.88"),  # a forwarding wrapper: read, not run
    ('#!/bin/bash\n# the toolkit of this image\n\nexec /usr/local/cuda-13.0/bin/nvcc $@\n', "13.0.88"),
    ('#!/bin/sh\nexport X=1\nexec /usr/local/cuda-13.0/bin/nvcc "$@"\n', "ran"),  # anything more: run it
    ('#!/bin/sh\nexec /usr/local/cuda-13.0/bin/nvcc -ccbin gcc-12 "$@"\n', "ran"),
    ('#!/bin/sh\nexec /opt/missing/bin/nvcc "$@"\n', "ran"),
    ('#!/bin/sh\nexec nvcc.real "$@"\n', "ran"),
    (None, "13.0.88"),  # a symlink into the toolkit (update-alternatives)
])
def test_nvcc_version_without_running_a_forwarding_wrapper(tmp_path, nvcc_text, want):
    root = _tree(tmp_path, nvcc_text, link=nvcc_text is None)
    ran = "release 12.9, V12.9.41"  # what the recorded `nvcc --version` says, where it is run
    ctx = base.Context(root=root, env={"PATH": "/usr/local/bin"}, commands={"/usr/local/bin/nvcc --version": (0, ran)})
    got = cuda.cuda(ctx)
    assert got["nvcc"] == "/usr/local/bin/nvcc"
    assert got["nvcc_version"] == ("12.9.41" if want == "ran" else want), got
    assert [t["version"] for t in got["toolkits"]] == ["13.0.88"]


def _payload(options):
    from gpudoctor.collector import bundle
    from gpudoctor.transport.srun import build_stub

    return build_stub(options, {}, parts=bundle.build_parts(bundle.left_out(options, {}), cache=False))


# Prints the modules the payload added, after the facts (stderr)
# the modules the task imported, listed as it exits (the stub ends with os._exit: no atexit handler runs)
_WATCH = ('import os, sys\n_before = set(sys.modules)\n_exit = os._exit\n'
          'def _listed(rc):\n'
          '    sys.stderr.write("MODULES %%s\\n" %% " ".join(sorted(set(sys.modules) - _before)))\n'
          '    sys.stderr.flush()\n'
          '    _exit(rc)\n'
          'os._exit = _listed\n'
          '%s')

# Sections that run no command and, on a machine without a GPU driver, OFED or torch in the job's
# interpreter, match no pattern: what a node of the test Slurm runs
QUIET = ["host", "shm", "limits", "env", "ssh", "cuda", "python", "rdma", "network", "ofed", "nccl", "resolve", "files",
         "mesh", "gpu"]


def _run_payload(python, tmp_path, options):
    from gpudoctor.transport.srun import READ_BLOB

    # no nvcc on PATH (one that is not a forwarding wrapper would be run), HOME without ~/.ssh
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "SLURMD_NODENAME": "sn1", "LANG": "C.UTF-8"}
    p = subprocess.run([python, "-c", _WATCH % READ_BLOB], input=_payload(options), capture_output=True, env=env,
                       timeout=60, cwd=str(tmp_path))
    import base64
    import zlib

    lines = p.stdout.decode().splitlines()
    data = "".join(l.split(" ", 2)[2] for l in lines if l.startswith("gpudoctor-chunk sn1 "))
    assert lines and lines[-1].startswith("gpudoctor-end sn1 0 "), p.stderr.decode()[-2000:]
    doc = json.loads(zlib.decompress(base64.b64decode(data)).decode())
    mods = set(p.stderr.decode().rsplit("MODULES ", 1)[1].split())
    return doc, mods


def test_the_node_payload_imports_only_what_its_sections_use(tmp_path):
    """The payload as srun sends it, run as a task runs it (python -c READ_BLOB): the facts of
    every section that needs no command, and none of json, re, subprocess, socket, threading
    (nor what they import) in sys.modules after it."""
    doc, mods = _run_payload(sys.executable, tmp_path, {"resolve": ["localhost", "127.0.0.1"], "env_key": "k" * 64,
                                                         "only": QUIET})
    assert doc["host"]["status"] == "ok" and doc["resolve"]["names"]["127.0.0.1"] == ["127.0.0.1"], doc["resolve"]
    assert doc["python"]["status"] == "ok" and doc["network"]["status"] == "ok" and doc["cuda"]["status"] == "ok"
    if os.path.exists("/proc/driver/nvidia/version"):  # a GPU node runs dmesg and nvidia-smi: subprocess is right
        pytest.skip("a GPU driver here: the gpu section runs commands")
    assert sorted(m for m in mods if m in HEAVY) == [], sorted(mods)
    assert set(doc) - set(QUIET) == {"schema", "node", "collected_at", "collector"}


OTHER_PYTHONS = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.*/bin/python3")))


@pytest.mark.skipif(not OTHER_PYTHONS, reason="no other interpreters here (pyenv's 3.6-3.13 on the test machine)")
def test_the_payload_stays_lean_on_every_node_python(tmp_path):
    """Python 3.6 through 3.13 (whatever pyenv has here): the same sections answer, without
    json/re/subprocess/socket/threading (_json, _socket, _struct and _thread are in each)."""
    opts = {"resolve": ["127.0.0.1"], "env_key": "k" * 64, "only": ["host", "shm", "limits", "resolve", "network",
                                                                   "cuda", "env"]}
    want, _ = _run_payload(sys.executable, tmp_path, opts)
    for py in OTHER_PYTHONS:
        doc, mods = _run_payload(py, tmp_path, opts)
        assert sorted(m for m in mods if m in HEAVY) == [], (py, sorted(mods))
        for name in opts["only"]:
            assert doc[name]["status"] == "ok", (py, name, doc[name])
        assert doc["resolve"] == want["resolve"] and doc["host"]["kernel"] == want["host"]["kernel"], py
        assert doc["env"]["hashed"] == want["env"]["hashed"], py  # the same keyed hashes on every interpreter


def test_a_node_reads_the_sources_only_after_asking(tmp_path):
    """build_stub's first part is all a node of the controller's python reads (the stub and
    loader compiled, the collector's bytecode); a node whose bytecode magic is another prints
    `gpudoctor-source NODE` once and reads what follows: the stub's source and the collector's
    sources (what srun's stdin carries then, transport/srun.py _run). Both ways, and a blob of
    another magic behind the controller's stub, give the facts."""
    import base64
    import zlib

    from gpudoctor.collector import bundle
    from gpudoctor.transport.srun import READ_BLOB, SOURCE_ASK, build_stub, first_part

    opts = {"only": ["host", "limits"]}
    loader, blob = bundle.build_parts(bundle.left_out(opts, {}), cache=False)
    head, _, rest = blob.partition(b"\n")
    whole = build_stub(opts, {}, parts=(loader, blob))
    top = whole.partition(b"\n")[0].split(b" ")  # LENGTH MAGIC NCODE NSOURCE
    assert first_part(whole) == len(whole) - int(head.split(b" ")[2]) - int(top[3]) and int(top[2]) > 0
    env = dict(os.environ, SLURMD_NODENAME="sn1")
    wrong = b" ".join([b"00000000"] + head.split(b" ")[1:]) + b"\n" + rest  # the collector's of another magic
    for stub, asks in ((whole, False), (build_stub(opts, {}, parts=(loader, wrong)), True),
                       (whole.replace(top[1], b"00000000", 1), True), (whole.replace(top[1], b"-", 1), True)):
        n = first_part(stub)
        p = subprocess.Popen([sys.executable, "-c", READ_BLOB], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env)
        p.stdin.write(stub[:n])
        p.stdin.flush()
        line = p.stdout.readline().decode()
        if asks:
            assert line == "%s sn1\n" % SOURCE_ASK
            p.stdin.write(stub[n:])
            line = ""
        p.stdin.close()  # with the bytecode, the node ran without the sources and without EOF
        out = (line + p.stdout.read().decode()).splitlines()
        assert p.wait(timeout=30) == 0 and out[-1].startswith("gpudoctor-end sn1 0 "), p.stderr.read()
        assert all(not l.startswith(SOURCE_ASK) for l in out)  # asked once at most
        doc = json.loads(zlib.decompress(base64.b64decode("".join(l.split(" ", 2)[2] for l in out[:-1]))))
        assert doc["host"]["status"] == "ok" and doc["limits"]["status"] == "ok"

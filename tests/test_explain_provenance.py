"""The family from where a failure line came from (explain/provenance.py, pyanswer._refused_call / _logged_record;
family16, issue 18 item 2).

Texts run here: CPython 3.11.7 (`PYTHONHASHSEED=abc python3 -c pass`, `python3 /nonexistent/train.py`, a tokenize.py
beside a script that calls linecache.getline), numpy 2.4.6
(`np.split(np.arange(1001), 2)`);
and texts of the seen held-out sets (bench/data/explain_heldout_2026-11-27p22.jsonl / p23 / p19.jsonl: runs their
evaluators made on an H100 host and on CPU, each cited by its case id)."""

import os

import pytest

from gpudoctor import explain
from gpudoctor.explain import provenance
from explainhelp import ANSWERED, seen_text

HERE = os.path.dirname(os.path.abspath(__file__))

RUN_HERE_HASHSEED = ('$ PYTHONHASHSEED=abc python3 -c pass\n'
                     'Fatal Python error: config_init_hash_seed: PYTHONHASHSEED must be "random" or an integer in range '
                     '[0; 4294967295]\nPython runtime state: preinitialized\n\n')

RUN_HERE_CANT_OPEN = ("$ python3 /nonexistent/train.py\n/root/.pyenv/versions/3.11.7/bin/python3: can't open file "
                      "'/nonexistent/train.py': [Errno 2] No such file or directory\n")

RUN_HERE_SHADOW = (
    'Traceback (most recent call last):\n'
    '  File "/tmp/f16/shadow/train.py", line 2, in <module>\n'
    '    print(linecache.getline("/etc/hostname", 1))\n'
    '          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/root/.pyenv/versions/3.11.7/lib/python3.11/linecache.py", line 30, in getline\n'
    '    lines = getlines(filename, module_globals)\n'
    '            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/root/.pyenv/versions/3.11.7/lib/python3.11/linecache.py", line 136, in updatecache\n'
    '    with tokenize.open(fullname) as fp:\n'
    '         ^^^^^^^^^^^^^\n'
    "AttributeError: module 'tokenize' has no attribute 'open'\n")

RUN_HERE_NUMPY_SPLIT = (
    'Traceback (most recent call last):\n'
    '  File "/tmp/f16/split.py", line 2, in <module>\n'
    '    shards = np.split(np.arange(1001), 2)\n'
    '             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/tmp/libarg15/venv/lib/python3.11/site-packages/numpy/lib/_shape_base_impl.py", line 872, in split\n'
    '    raise ValueError(\n'
    'ValueError: array split does not result in an equal division\n')


def _case(name, cid):
    return seen_text(cid, name)


def _root(text, kb):
    r = explain.explain_text(text, kb)
    assert r["verdict"] in ANSWERED, (r["verdict"], r["findings"])
    return r["findings"][0]


def test_cpython_fatal_error_while_starting_is_the_environment(kb):
    f = _root(RUN_HERE_HASHSEED, kb)
    assert f["id"] == "code.python_env" and f["confidence"] == "structural"
    assert "preinitialized" in f["notes"][0] and "PYTHONHASHSEED" in " ".join(f["notes"])
    # after start ('initialized'): not the configuration (python_fatal.toml's own entries, else nothing here)
    later = RUN_HERE_HASHSEED.replace("preinitialized", "initialized")
    r = explain.explain_text(later, kb)
    assert not r["findings"] or r["findings"][0]["id"] != "code.python_env"


def test_another_programs_warning_before_a_traceback_is_not_its_logged_record(kb):
    # P23 (ssh to a node, the remote python's KeyError): ssh's own 'Warning: Permanently added ...' just before
    # 'Traceback' was read as a logger's WARNING record with exc_info, and the traceback as one the program went on
    # after ('no error')
    r = explain.explain_text(_case("2026-11-27p23", "p23-ssh_sendenv_not_accepted"), kb)
    assert r["verdict"] == "root_cause" and "code.caught_exception" not in [n["id"] for n in r["context"]]
    assert r["findings"][0]["id"] in ("rendezvous.env_missing", "code.exception")
    # P19: the row of asterisks that ends torchrun's OMP_NUM_THREADS banner, then torchrun's own traceback: the etcd
    # stub's EtcdStubError is an ImportError (torch/distributed/elastic/rendezvous/_etcd_stub.py)
    f = _root(_case("2026-11-27p19", "p19-torchrun_rdzv_etcd"), kb)
    assert f["id"] == "code.python_env"
    # a logger's WARNING record carrying its traceback is still one the program went on after
    text = ("2024-03-01 12:00:00,123 - WARNING - checkpoint upload failed, retrying\nTraceback (most recent call "
            "last):\n  File \"/home/u/train.py\", line 20, in upload\n    raise ConnectionResetError(\"s3 reset\")\n"
            "ConnectionResetError: s3 reset\n")
    assert explain.explain_text(text, kb)["verdict"] == "no_error"


def test_a_call_the_library_refused_is_the_callers_not_a_library_fault(kb):
    # numpy has no entry: its own argument check one frame under the user's call is the user's code
    f = _root(RUN_HERE_NUMPY_SPLIT, kb)
    assert f["id"] == "code.exception"
    assert "numpy's split" in " ".join(f["notes"]) and "split.py" in f["causes"][0]["fix"][0]
    # triton's launcher refused a CPU tensor (P22, H100): the library's usage family
    assert _root(_case("2026-11-27p22", "p22-triton_cpu_tensor"), kb)["id"] == "triton.usage"
    # another exception class (RuntimeError), or a raise deeper than API_DEPTH frames, stays the library's
    deep = RUN_HERE_NUMPY_SPLIT.replace("ValueError: array", "RuntimeError: array")
    assert _root(deep, kb)["id"] == "code.library_error"
    frames = "".join('  File "/v/lib/python3.11/site-packages/numpy/lib/m.py", line %d, in f%d\n    f%d()\n'
                     % (i, i, i + 1) for i in range(5))
    deep = RUN_HERE_NUMPY_SPLIT.replace("    raise ValueError(\n", "    raise ValueError(\n" + frames, 1)
    assert _root(deep, kb)["id"] == "code.library_error"
    # a bare assert (no message) checks the library's own state, not what the call passed (review16)
    bare = RUN_HERE_NUMPY_SPLIT.replace("ValueError: array split does not result in an equal division", "AssertionError")
    assert _root(bare, kb)["id"] == "code.library_error"
    # a TypeError naming no argument: protobuf's own check of a _pb2.py generated for another protobuf
    # (google/protobuf/descriptor.py __new__, vm03/payload_dumper#38: a _pb2.py under protobuf 4) is no refused argument
    # (review16)
    pb = RUN_HERE_NUMPY_SPLIT.replace("ValueError: array split does not result in an equal division",
                                      "TypeError: Descriptors cannot be created directly.")
    assert "change what it passes" not in _root(pb, kb)["causes"][0]["fix"][0]


def test_the_first_line_a_command_printed_is_its_own_refusal(kb):
    # CPython's refusal to open its script (Modules/main.c): the command line named a file that is not there
    f = _root(RUN_HERE_CANT_OPEN, kb)
    assert f["id"] == "launcher.script_missing" and "/nonexistent/train.py" in " ".join(f["notes"])
    # P15 (podman 4, CPU): the line right after '$ podman run ...' is the engine's / its runtime's refusal
    f = _root(_case("2026-11-26p15", "p15-podman_entrypoint_crlf"), kb)
    assert f["id"] == "container.oci_runtime" and "podman" in " ".join(f["notes"])
    # the same line after other output (the payload ran first) is not read as the engine's
    text = _case("2026-11-26p15", "p15-podman_entrypoint_crlf").replace("trainer:v3\n", "trainer:v3\nstarting\n")
    r = explain.explain_text(text, kb)
    assert not r["findings"] or r["findings"][0]["id"] != "container.oci_runtime"
    # the payload's own first line (it ran and failed at once) is not the engine's: only the engine's / its OCI
    # runtime's own form is (review16)
    payload = "$ docker run --rm --gpus all trainer:v3 python train.py\nERROR: dataset /data/train not found\n"
    r = explain.explain_text(payload, kb)
    assert not r["findings"] or r["findings"][0]["id"] != "container.oci_runtime"
    engine = payload.replace("ERROR: dataset /data/train not found", "docker: Error response from daemon: could not "
                             "select device driver \"\" with capabilities: [[gpu]].")
    assert explain.explain_text(engine, kb)["findings"][0]["family"].startswith("container.")
    engine = payload.replace("ERROR: dataset /data/train not found", "docker: failed to start the container: unknown flag value")
    assert _root(engine, kb)["id"] == "container.oci_runtime"


def test_a_standard_library_module_shadowed_by_a_file_of_the_user(kb):
    f = _root(RUN_HERE_SHADOW, kb)
    assert f["id"] == "code.python_env" and "tokenize.py" in f["causes"][0]["fix"][0]
    # P12 (torch's import formats a stack, linecache needs tokenize.open): a source line under a frame ('    f.line')
    # is no exception line, so the traceback is read to its AttributeError
    f = _root(_case("2026-11-26p12", "p12-env_stdlib_tokenize_shadow"), kb)
    assert f["id"] == "code.python_env"
    # a third-party module's missing attribute is an API change, not this
    other = RUN_HERE_SHADOW.replace("module 'tokenize'", "module 'numpy'")
    assert _root(other, kb)["id"] != "code.python_env"


def test_a_worker_command_the_launcher_could_not_exec_is_no_echo(kb):
    # torchrun --no-python with a script that is no program: Popen's exec fails in the agent itself
    # (subprocess._execute_child), under elastic/multiprocessing, whose frames otherwise report a failed worker
    with open(os.path.join(HERE, "data", "provenance", "torchrun_no_python.log"), encoding="utf-8") as fh:
        f = _root(fh.read(), kb)
    assert f["id"] == "launcher.script_missing" and "shebang" in " ".join(f["notes"])


def test_a_container_started_with_ipc_none_has_no_dev_shm(kb):
    # P15 (podman 4, CPU): a DataLoader's workers under `podman run --ipc=none`: multiprocessing's SemLock cannot
    # create its semaphore in /dev/shm (podman-run(1): --ipc=none mounts no /dev/shm)
    text = _case("2026-11-26p15", "p15-podman_ipc_none_loader")
    f = _root(text, kb)
    assert f["id"] == "container.oci_shm" and "--ipc=none" in f["causes"][0]["text"]
    # the same traceback under the default IPC namespace: not this
    r = explain.explain_text(text.replace("--ipc=none", "--ipc=private"), kb)
    assert not r["findings"] or "--ipc=none" not in " ".join(c["text"] for c in r["findings"][0]["causes"])


@pytest.mark.parametrize("pkg,entry", [("ray", "ray.usage"), ("timm", "timm.usage"), ("op_builder",
                                                                                      "deepspeed.library_error"),
                                       ("torchmetrics", "torchmetrics.usage"), ("nosuchpkg", None), ("tools", None)])
def test_package_family_is_read_from_the_generated_tables(kb, pkg, entry):
    # the package -> family map is what the wheels' generated sites say ('tools/...' is a path in Megatron-LM's
    # repository, not an installed package)
    assert provenance.library_entry(kb.by_id, pkg) == entry

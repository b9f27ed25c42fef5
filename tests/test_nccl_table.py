"""The NCCL variable table (gpudoctor/data/nccl_env.json) and the name part of nccl.env.

The table is made by tools/gen_nccl_env.py from NVIDIA/nccl's source (NCCL_PARAM,
DEFINE_NCCL_PARAM, ncclGetEnv/getenv, ncclGetLevel) and PyTorch's c10d; issue 13 found 12
names NCCL reads called typos by the hand-kept list it replaces (NCCL_NVLS_NCHANNELS got
"did you mean NCCL_NVLS_CHANNELS?", a name no NCCL release reads).
"""

import json
import os
import subprocess
import sys

import pytest

from conftest import run_check
from gpudoctor import data
from gpudoctor.checks.nccl_env import READERS, judge_names

TABLE = data.load("nccl_env")
NAMES = TABLE["names"]
READ = sorted(n for n, e in NAMES.items() if set(e["read_by"]) & set(READERS))
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The names NCCL 2.30.7 reads that the old hand-kept list (gpudoctor 0.x, up to commit d648d2b)
# called typos: each is within difflib's 0.85 of a name on that list. Found by running the old
# rule over every name the generator reads from NCCL's source.
ISSUE_13_REAL_NAMES = [
    "NCCL_COMM_SHRINK_SHARE_RESOURCES", "NCCL_GIN_ENABLE", "NCCL_GIN_PLUGIN", "NCCL_LL_BUFFSIZE",
    "NCCL_NVLS_NCHANNELS", "NCCL_NVTX_DISABLE", "NCCL_P2P_PCI_CHUNKSIZE", "NCCL_RMA_DISABLE",
    "NCCL_RMA_PROXY_DUMP_SIGNAL", "NCCL_SET_CPU_STACK_SIZE", "NCCL_THREAD_THRESHOLDS", "NCCL_TOPO_DUMP_FILE_RANK",
]


def facts(**env):
    eff = dict((k, {"value": v, "source": "environment"}) for k, v in env.items())
    return {"node": "n1", "nccl": {"status": "ok", "env": dict(env), "files": [], "effective": eff, "paths": {}}}


def check(**env):
    return run_check("nccl.env", facts(**env))


# ------------------------------------------------------------------ the table itself

def test_table_records_the_versions_it_was_read_from():
    assert TABLE["nccl"]["version"] == "2.30.7"
    assert len(TABLE["nccl"]["commit"]) == 40
    assert TABLE["torch"]["version"].startswith("2.14.1") and len(TABLE["torch"]["commit"]) == 40
    assert TABLE["generated_by"].startswith("tools/gen_nccl_env.py")


def test_every_name_says_where_it_is_read():
    for name, e in NAMES.items():
        assert name.startswith(("NCCL_", "TORCH_NCCL_")), name
        assert e["read_by"], name
        if "nccl" in e["read_by"]:
            assert any(f.startswith("src/") for f in e["files"]), name
        if "torch" in e["read_by"]:
            assert e["torch_files"], name
        if e["read_by"] == ["nccl-docs"]:
            assert e["documented"], name


def test_core_names_are_in_the_table():
    for name in ("NCCL_SOCKET_IFNAME", "NCCL_IB_HCA", "NCCL_DEBUG", "NCCL_NET_GDR_LEVEL", "NCCL_P2P_LEVEL",
                 "NCCL_P2P_DISABLE", "NCCL_NVLS_NCHANNELS", "NCCL_IB_GID_INDEX"):
        assert "nccl" in NAMES[name]["read_by"], name
    # PyTorch's own names, and the old NCCL_* spellings ProcessGroupNCCL still reads
    for name in ("TORCH_NCCL_ASYNC_ERROR_HANDLING", "TORCH_NCCL_BLOCKING_WAIT", "NCCL_ASYNC_ERROR_HANDLING",
                 "NCCL_BLOCKING_WAIT", "NCCL_DESYNC_DEBUG", "TORCH_NCCL_USE_COMM_NONBLOCKING"):
        assert "torch" in NAMES[name]["read_by"], name


def test_no_release_ever_read_the_name_the_old_list_suggested():
    assert "NCCL_NVLS_CHANNELS" not in NAMES and "NCCL_NVLS_CHANNELS" not in TABLE["former"]


# ------------------------------------------------------------------ judging names

def test_every_name_nccl_or_torch_reads_is_accepted_silently():
    assert list(judge_names(READ, lambda n: "1")) == []


def test_no_name_in_the_table_is_ever_called_a_typo():
    for f in judge_names(sorted(NAMES), lambda n: "1"):
        assert f.severity == "info", f.message


@pytest.mark.parametrize("name", ISSUE_13_REAL_NAMES)
def test_real_names_from_issue_13_are_not_typos(name):
    assert name in READ
    res = check(**{name: "4"})
    assert res.status == "pass", res.findings
    assert res.findings == []
    assert "1 read" in res.outcomes["n1"][1]


def test_genuine_typo_gets_did_you_mean_and_the_export():
    res = check(NCCL_SOCKET_IFNAM="eno1")
    assert res.status == "warn"
    (f,) = res.findings
    assert "did you mean NCCL_SOCKET_IFNAME?" in f.message
    assert f.exports == {"NCCL_SOCKET_IFNAME": "eno1"} and f.fix == "unset NCCL_SOCKET_IFNAM"


def test_the_old_lists_invented_name_is_now_the_typo():
    (f,) = check(NCCL_NVLS_CHANNELS="16").findings
    assert f.severity == "warning" and f.expected == "NCCL_NVLS_NCHANNELS"


def test_a_suggestion_is_always_a_name_nccl_or_torch_reads():
    # every one-letter deletion of every name: whatever is suggested must be read by someone.
    # One judge_names call over all of them (one table load and one sort of the names NCCL
    # reads, not one per typo); each typo is judged alone all the same, and found by its finding.
    typos = [name[:i] + name[i + 1:] for name in READ for i in range(5, len(name))]
    asked = set(typos)
    suggested = 0
    for f in judge_names(typos, lambda n: "1"):
        if f.severity == "warning":
            suggested += 1
            typo = f.observed.rpartition("=")[0]
            assert typo in asked and f.expected in READ, (typo, f.expected)
    assert suggested > 1000


def test_name_only_older_nccl_read_gets_an_honest_note():
    res = check(NCCL_IB_GDR_LEVEL="PHB")
    (f,) = res.findings
    assert f.severity == "info" and "was read by NCCL 2.3.5 to 2.3.7" in f.message and "not by NCCL 2.30.7" in f.message
    assert res.status == "pass"
    res = check(NCCL_SHM_USE_CUDA_MEMCPY="1")  # every release is scanned (gpu26): 2.30.4 still read it
    assert "to 2.30.4" in res.findings[0].message and res.findings[0].severity == "info"


def test_documented_but_removed_name_gets_the_docs_own_words():
    (f,) = check(NCCL_LL_THRESHOLD="0").findings
    assert f.severity == "info" and "removed in 2.5" in f.message


def test_image_variable_is_not_judged():
    res = check(NCCL_VERSION="2.28.3-1")
    assert res.findings == [] and res.status == "pass"


def test_unknown_far_name_is_a_note_not_a_warning():
    (f,) = check(NCCL_MY_PLUGIN_KNOB="1").findings
    assert f.severity == "info" and "third-party plugin" in f.message


def test_nothing_set_is_na_not_pass():
    res = check()
    assert res.status == "na" and "nothing to judge" in res.outcomes["n1"][1]


def test_pass_carries_its_evidence():
    res = check(NCCL_DEBUG="INFO", TORCH_NCCL_BLOCKING_WAIT="1")
    assert res.status == "pass"
    assert res.outcomes["n1"][1] == "2 NCCL_* names checked against NCCL 2.30.7 and PyTorch %s: 2 read" % (
        TABLE["torch"]["version"])


# ------------------------------------------------------------------ the generator, on a real git repository

def _git(repo, *args):
    subprocess.run(["git", "-C", str(repo)] + list(args), check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def _write(root, path, text):
    p = root / path
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def _commit(repo, tag, minor, patch):
    _write(repo, "makefiles/version.mk", "NCCL_MAJOR   := 2\nNCCL_MINOR   := %d\nNCCL_PATCH   := %d\n" % (minor, patch))
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", tag)
    _git(repo, "tag", tag)


def test_generator_reads_every_way_nccl_reads_a_variable(tmp_path):
    repo = tmp_path / "nccl"
    repo.mkdir()
    _git(repo, "init", "-q")
    # an old release that read NCCL_OLD_KNOB
    _write(repo, "src/init.cc", 'NCCL_PARAM(OldKnob, "OLD_KNOB", 0);\n')
    _commit(repo, "v2.1.4-1", 1, 4)
    _write(repo, "src/init.cc", 'NCCL_PARAM(NvlsChannels, "NVLS_NCHANNELS", -2);\n'
                                'NCCL_PARAM(Multi,\n           "MULTI_LINE", 0);\n')
    _write(repo, "src/debug.cc", "DEFINE_NCCL_PARAM(ncclParamDebugFile, const char*, NCCL_DEBUG_FILE, nullptr,\n"
                                 "                  NCCL_PARAM_FLAG_NONE, NCCL_PARAM_DEFAULT, \"file\");\n")
    _write(repo, "src/graph/paths.cc", 'x = ncclGetEnv("NCCL_GRAPH_FILE");\n'
                                       'NCCLCHECK(ncclGetLevel(&l, "NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL"));\n'
                                       'INFO(NCCL_ENV, "NCCL_NOT_READ %d is a log message", x);\n')
    _write(repo, "plugins/tuner/example/plugin.c", 'const char* f = getenv("NCCL_TUNER_CONFIG_FILE");\n')
    _write(repo, "plugins/tuner/example/test/test_plugin.c", 'getenv("NCCL_ONLY_IN_A_TEST");\n')
    _write(repo, "docs/userguide/source/env.rst",
           "NCCL_SOCKET_IFNAME\n------------------\n\ntext\n\nNCCL_LL_THRESHOLD\n-----------------\n"
           "(since 2.1, removed in 2.5)\n\ntext\n")
    _commit(repo, "v2.2.7-1", 2, 7)
    out = tmp_path / "out.json"
    subprocess.run([sys.executable, os.path.join(REPO, "tools", "gen_nccl_env.py"), "--nccl", str(repo),
                    "-o", str(out)], check=True, stderr=subprocess.DEVNULL)
    t = json.loads(out.read_text())
    assert t["nccl"]["version"] == "2.2.7" and t["nccl"]["releases_scanned"] == ["2.1.4", "2.2.7"]
    n = t["names"]
    assert n["NCCL_NVLS_NCHANNELS"] == {"read_by": ["nccl"], "files": ["src/init.cc"], "documented": False,
                                        "first_seen_in": "2.2.7", "not_in": "2.1.4"}
    assert "NCCL_MULTI_LINE" in n and "NCCL_DEBUG_FILE" in n and "NCCL_GRAPH_FILE" in n
    assert n["NCCL_P2P_DISABLE"]["files"] == ["src/graph/paths.cc"] and "NCCL_P2P_LEVEL" in n
    assert n["NCCL_TUNER_CONFIG_FILE"]["read_by"] == ["nccl-plugin"]
    assert "NCCL_NOT_READ" not in n and "NCCL_ONLY_IN_A_TEST" not in n
    assert n["NCCL_LL_THRESHOLD"] == {"read_by": ["nccl-docs"], "files": [], "documented": True,
                                      "doc_note": "since 2.1, removed in 2.5"}
    assert t["former"] == {"NCCL_OLD_KNOB": {"first_seen_in": "2.1.4", "last_seen_in": "2.1.4",
                                             "files": ["src/init.cc"]}}


def test_generator_reads_torch_names_from_an_unpacked_wheel(tmp_path):
    # the layout of an unpacked torch wheel: c10d headers, torch/version.py, libtorch_cuda.so
    repo = tmp_path / "nccl"
    repo.mkdir()
    _git(repo, "init", "-q")
    _write(repo, "src/init.cc", 'NCCL_PARAM(NvlsChannels, "NVLS_NCHANNELS", -2);\n')
    _commit(repo, "v2.30.7-1", 30, 7)
    torch = tmp_path / "torch"
    _write(torch, "torch/version.py", "__version__ = '2.14.1+cu130'\ngit_version = '%s'\n" % ("ab" * 20))
    _write(torch, "torch/include/torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp",
           "// Control whether or not wait() is blocking or non-blocking.\n"
           "static std::vector<std::string> TORCH_NCCL_BLOCKING_WAIT = {\n"
           '    "TORCH_NCCL_BLOCKING_WAIT",\n    "NCCL_BLOCKING_WAIT"};\n'
           'LOG(INFO) << "NCCL_NOT_AN_ENV_READ" << x;\n')
    _write(torch, "torch/lib/libtorch_cuda.so", "")
    (torch / "torch/lib/libtorch_cuda.so").write_bytes(b"\x7fELF\0TORCH_NCCL_USE_COMM_NONBLOCKING\0x\0TORCH_NCCL_\x01\0")
    out = tmp_path / "out.json"
    subprocess.run([sys.executable, os.path.join(REPO, "tools", "gen_nccl_env.py"), "--nccl", str(repo),
                    "--torch", str(torch), "-o", str(out)], check=True, stderr=subprocess.DEVNULL)
    t = json.loads(out.read_text())
    assert t["torch"] == {"version": "2.14.1+cu130", "commit": "ab" * 20, "read_from": "wheel"}
    n = t["names"]
    assert n["NCCL_BLOCKING_WAIT"]["read_by"] == ["torch"]
    assert n["TORCH_NCCL_BLOCKING_WAIT"]["torch_files"] == [
        "torch/include/torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp"]
    assert n["TORCH_NCCL_USE_COMM_NONBLOCKING"]["torch_files"] == ["torch/lib/libtorch_cuda.so"]
    assert "NCCL_NOT_AN_ENV_READ" not in n
    # run again without --torch: the torch part of the existing file is kept
    subprocess.run([sys.executable, os.path.join(REPO, "tools", "gen_nccl_env.py"), "--nccl", str(repo),
                    "-o", str(out)], check=True, stderr=subprocess.DEVNULL)
    assert json.loads(out.read_text()) == t

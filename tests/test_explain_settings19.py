"""explain/envcause.py (settings19, issue 18 "name the fix"): a setting the text shows, named as the cause of the error
explain answered, with the concrete action.

Real texts only: the runs made here (fixtures/explain/settings19/, README.md says how: pdsh with a CRLF hostfile, a
bash script with CRLF line ends, torchrun 2.13 CPU with a variable set but not exported and the same with export),
and the seen sets' texts of real runs on an H200 (bench/data p28: NCCL 2.28.9 / torch 2.11 with NCCL_COMM_BLOCKING=0,
CUDA_VISIBLE_DEVICES="0;1" and CUDA_VISIBLE_DEVICES= ; p29: the same CRLF hostfile as a log copy shows it).
All in process (no CLI start)."""

import os

import pytest

from gpudoctor.explain import envcause, explain_text
from explainhelp import seen_text

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "..", "fixtures", "explain", "settings19")
DATA = os.path.join(HERE, "..", "bench", "data")


def _seen(name, cid):
    return seen_text(cid, name)


def _fixture(name):
    with open(os.path.join(FIX, name), "rb") as f:
        return f.read().decode("utf-8")


def _first(text):
    r = explain_text(text)
    assert r["verdict"] == "root_cause", r["verdict"]
    return r, r["findings"][0], r["findings"][0]["causes"][0]


def _env_causes(f):
    return [c for c in f["causes"] if c.get("from_env")]


def test_nccl_comm_blocking_first_cause_linked_by_the_warn_lines_file():
    # NCCL_COMM_BLOCKING=0 on the command line; NCCL's WARN 'init.cc:381' is printed from a file that reads it
    _r, f, c = _first(_seen("explain_heldout_2026-11-27p28.jsonl", "p28-nccl_comm_blocking_0"))
    assert c.get("from_env") and c["text"].startswith("NCCL_COMM_BLOCKING is set to 0 (line 1")
    assert "init.cc" in c["text"] and c["fix"][0].startswith("unset NCCL_COMM_BLOCKING")
    assert [e["line"] for e in c["evidence"]] == [1, 10]
    assert len(_env_causes(f)) == 1  # NCCL_DEBUG=WARN on the same line changes only what is printed


def test_cuda_visible_devices_semicolon_gives_the_comma_form():
    _r, f, c = _first(_seen("explain_heldout_2026-11-27p28.jsonl", "p28-cvd_semicolon"))
    assert f["id"] == "cuda.invalid_device_ordinal"
    assert "'0;1'" in c["text"] and c["fix"][0].startswith("CUDA_VISIBLE_DEVICES=0,1")


def test_cuda_visible_devices_empty_hides_every_gpu():
    _r, _f, c = _first(_seen("explain_heldout_2026-11-27p28.jsonl", "p28-nproc_gpu_cvd_empty"))
    assert "empty string" in c["text"] and c["fix"][0].startswith("unset CUDA_VISIBLE_DEVICES")


@pytest.mark.parametrize("value", ["0,1", "GPU-8e4d6c2a-1b2c-4d5e-9f00-0123456789ab", "MIG-GPU-8e4d6c2a/1/0", "3"])
def test_cuda_visible_devices_well_formed_is_no_cause(value):
    text = _seen("explain_heldout_2026-11-27p28.jsonl", "p28-cvd_semicolon").replace('"0;1"', value, 1)
    _r, f, _c = _first(text)
    assert not _env_causes(f)


def test_pdsh_crlf_hostfile_raw_carriage_returns():
    # pdsh 2.34 here: 'pdsh -w ^machines' with a CRLF file; the raw '\r' before ': ' is in the text
    text = _fixture("pdsh-hostfile-crlf.log")
    assert "\r: hostname contains invalid characters" in text
    _r, f, c = _first(text)
    assert f["id"].startswith("ssh.")
    assert c["fix"][0].startswith("dos2unix machines") and "machines, line 1" in c["text"]


def test_pdsh_crlf_hostfile_as_a_log_copy_splits_it():
    # the same output where the copy turned each '\r' into a line end (P29's text): lines start with ': '
    text = _fixture("pdsh-hostfile-crlf.log").replace("\r", "\n")
    _r, _f, c = _first(text)
    assert "starts with ': '" in c["text"] and c["fix"][0].startswith("dos2unix machines")
    _r, _f, c = _first(_seen("explain_heldout_2026-11-27p29.jsonl", "p29-pdsh_hostfile_crlf"))
    assert c["fix"][0].startswith("dos2unix machines")


def test_torchrun_variable_not_exported_then_exported():
    _r, f, c = _first(_fixture("torchrun-var-not-exported.log"))
    assert c["fix"][0].startswith("export DATA_ROOT") and "torchrun's workers inherit" in c["text"]
    assert [e["line"] for e in c["evidence"]][:1] == [3]
    r = explain_text(_fixture("torchrun-var-exported-healthy.log"))
    assert r["verdict"] == "no_error" and not r["findings"]


def test_not_exported_with_set_a_or_an_export_later_in_the_script_is_no_cause():
    text = _fixture("torchrun-var-not-exported.log")
    for add in ("set -a\n", "export DATA_ROOT\n"):
        t = text.replace("torchrun --nproc-per-node 2 train.py\n", add + "torchrun --nproc-per-node 2 train.py\n", 1)
        _r, f, _c = _first(t)
        assert not _env_causes(f), add


def test_bash_crlf_script_gets_the_crlf_answer_and_no_unrelated_setting():
    # bash's "cd: $'/tmp\r': No such file or directory" had no answer in session 19 (the test then: no setting added
    # to nothing). Since exec29 it is shell.crlf_line_ends; a cause read from the text may only name the carriage return
    r = explain_text(_fixture("bash-script-crlf.log"))
    assert r["findings"] and r["findings"][0]["id"] == "shell.crlf_line_ends"
    assert all("carriage return" in c["text"] for c in _env_causes(r["findings"][0]))


@pytest.mark.parametrize("value, entry, want", [
    ("0", {"doc_default": "0"}, True), ("0x0", {"doc_default": "0"}, False), ("1", {"doc_default": "0"}, False),
    ("4194304", {"doc_default": "4194304"}, True), ("", {"doc_default": "unset"}, True),
    ("1", {"doc_sets": "1"}, False), ("0", {"doc_sets": "1"}, True), ("1", {"doc_default": "varies"}, None),
    ("0", {}, None)])
def test_is_default(value, entry, want):
    assert envcause._is_default(value, entry) is want


def test_a_setting_is_never_a_root_and_print_only_variables_are_not_read():
    # the NCCL healthy run made on an H100 pair (NCCL_IB_DISABLE / NCCL_SOCKET_IFNAME set) stays healthy
    path = os.path.join(HERE, "..", "fixtures", "explain", "nccl-info-h100-2026-11-25", "fakehosts-2ranks-ibdisable-lo.log")
    with open(path, encoding="utf-8", errors="replace") as f:
        r = explain_text(f.read())
    assert r["verdict"] == "no_error" and not r["findings"]
    assert "nccl_debug" not in envcause.keys() and "nccl_comm_blocking" in envcause.keys()


def test_a_name_or_value_with_a_shell_character_is_not_written_into_a_pasted_line():
    # review19: the fix lines are pasted into a shell; a file name or an assignment the text shows with '$(...)' /
    # a backquote is not copied into them (a placeholder instead)
    text = _fixture("pdsh-hostfile-crlf.log").replace("^machines", "^$(pwd)/machines")
    _r, _f, c = _first(text)
    assert c["fix"][0].startswith("dos2unix <the hostfile / script>") and "$(" not in c["fix"][0]
    text = _seen("explain_heldout_2026-11-27p23.jsonl", "p23-mpirun_x_var_not_exported")
    _r, _f, c = _first(text.replace("$ DATA_ROOT=/scratch/shards; mpirun", "$ DATA_ROOT=`pwd`/shards; mpirun", 1))
    assert c["fix"][0].startswith("export DATA_ROOT") and "mpirun -x DATA_ROOT=<value>" in c["fix"][1]
    assert not any("`pwd`" in x for x in c["fix"])


def test_mpirun_one_liner_shell_variable_then_x_var():
    # P23 (a real Open MPI 5 run): '$ DATA_ROOT=/scratch/shards; mpirun ... -x DATA_ROOT python3 shards.py', mpirun's
    # 'could not find environment variable "DATA_ROOT"' and the ranks' KeyError
    text = _seen("explain_heldout_2026-11-27p23.jsonl", "p23-mpirun_x_var_not_exported")
    _r, _f, c = _first(text)
    assert c["fix"][0].startswith("export DATA_ROOT") and "mpirun -x DATA_ROOT=/scratch/shards" in c["fix"][1]
    # the same variable in the command's own environment ('A=1 cmd'), or exported on the line: no cause
    for line in ("$ DATA_ROOT=/scratch/shards mpirun", "$ export DATA_ROOT=/scratch/shards; mpirun"):
        t = text.replace("$ DATA_ROOT=/scratch/shards; mpirun", line, 1)
        r = explain_text(t)
        assert not r["findings"] or not _env_causes(r["findings"][0]), line


def test_statements_follow_bash_simple_command_rules():
    st = envcause.State()
    envcause._statements(st, 1, "$ A=1; B=2 C=3 && D=4 torchrun x.py; export E=5 F; G=6 || true")
    assert sorted(st.assigned) == ["A", "B", "C", "G"] and st.assigned["C"][2] == "C=3"
    assert st.prefixed == {"D"} and st.exported == {"E", "F"} and "torchrun" in st.launch


def _st(lines):
    """The module's reading of these lines (as the settings pattern hands them over), through a stand-in window."""
    class Win(object):
        def __init__(self, i):
            self.i = i

        def text(self, n):
            return lines[self.i + n] if self.i + n < len(lines) else ""

    class Scan(object):
        pass

    scan = Scan()
    for i, t in enumerate(lines):
        envcause.record(scan, i + 1, t, Win(i))
    return scan.envcause


@pytest.mark.parametrize("line, want", [
    ("$ NCCL_DEBUG=INFO NCCL_ALGO=Tree torchrun train.py", "Tree"),
    ("export NCCL_ALGO=Tree", "Tree"),
    ("+ NCCL_ALGO=Tree", "Tree"),
    ("[rank0]: NCCL_ALGO=Tree", "Tree"),
    ("mpirun -np 8 -x NCCL_ALGO=Tree ./all_reduce_perf", "Tree"),
    ("docker run --gpus all -e NCCL_ALGO=Tree img", "Tree"),
    ("srun --export=ALL,NCCL_ALGO=Tree python x.py", "Tree"),
    ("os.environ['NCCL_ALGO'] = 'Tree'", "Tree"),
    ("vm:1:1 [0] NCCL INFO NCCL_ALGO set by environment to Tree", "Tree"),
    ("For debugging try NCCL_ALGO=Tree and report back", None),
    ("Consider setting NCCL_ALGO=Tree to avoid this", None),
])
def test_a_setting_only_where_the_line_sets_it(line, want):
    got = [s[2] for s in _st([line]).env if s[1] == "NCCL_ALGO"]
    assert got == ([want] if want else [])


def test_kubernetes_env_list_and_a_value_outside_the_documented_ones():
    st = _st(["        env:", "        - name: CUDA_MODULE_LOADING", '          value: "LAZYY"'])
    assert [(s[1], s[2]) for s in st.env] == [("CUDA_MODULE_LOADING", "LAZYY")]
    root = {"id": "cuda.api_error", "family": "cuda.api_error", "matches": [], "causes": []}
    (where, c), = envcause._switches(st, root)
    assert where == "mid" and "DEFAULT, LAZY, EAGER" in c["text"] and c["fix"][0].startswith("unset CUDA_MODULE_LOADING")
    # a root of another subsystem: nothing
    assert envcause._switches(st, {"id": "nccl.timeout", "family": "nccl.timeout", "matches": [], "causes": []}) == []


def test_torch_process_group_variables_last_unless_the_error_names_them():
    st = _st(["$ TORCH_NCCL_BLOCKING_WAIT=1 torchrun --nproc-per-node 2 train.py"])
    root = {"id": "nccl.timeout", "family": "nccl.timeout", "causes": [],
            "matches": [{"line": 9, "text": "[rank0]:[E ProcessGroupNCCL.cpp:616] Watchdog caught collective operation timeout"}]}
    (where, c), = envcause._switches(st, root)
    assert where == "last" and c["fix"][0].startswith("unset TORCH_NCCL_BLOCKING_WAIT")
    root["matches"] = [{"line": 9, "text": "RuntimeError: Invalid value for environment variable: TORCH_NCCL_BLOCKING_WAIT"}]
    (where, c), = envcause._switches(st, root)
    assert where == "first" and "the error itself names TORCH_NCCL_BLOCKING_WAIT" in c["text"]


def test_interleaved_ranks_line_starting_with_colon_is_no_carriage_return():
    # hustvl/Vim#61 (fixtures/logs): two ranks' tracebacks interleaved, 'RuntimeErrorRuntimeError: ...' then
    # ': CUDA error: invalid device ordinal' - a CUDA root, not a tool that prints a name read from a file
    import glob

    path, = glob.glob(os.path.join(HERE, "..", "fixtures", "logs", "*", "cuda.invalid_device_ordinal__vim-61-*.log"))
    with open(path, encoding="utf-8") as f:
        _r, f_, _c = _first(f.read())
    assert f_["id"] == "cuda.invalid_device_ordinal" and not _env_causes(f_)


def test_a_root_matched_on_the_setting_line_itself_does_not_name_it():
    # NVIDIA/nccl#1837 (fixtures/logs): the root matched NCCL's own 'NCCL_SOCKET_IFNAME set to eth2' line, which is no
    # error naming the variable; and the entry's own cause (an interface that does not exist here) already quotes that
    # line, so the setting is not said again
    import glob

    path, = glob.glob(os.path.join(HERE, "..", "fixtures", "logs", "*", "nccl.socket_ifname__nccl-1837-*.log"))
    with open(path, encoding="utf-8") as f:
        _r, f_, c = _first(f.read())
    assert f_["id"] == "nccl.socket_ifname" and not _env_causes(f_)
    st = envcause.State()
    st.env.append((6, "NCCL_SOCKET_IFNAME", "eth2", "nccl", "NCCL INFO NCCL_SOCKET_IFNAME set to eth2"))
    (where, _c), = envcause._switches(st, {"id": "nccl.socket_ifname", "family": "nccl.socket_ifname", "causes": [],
                                           "matches": [{"line": 6, "text": "NCCL INFO NCCL_SOCKET_IFNAME set to eth2"}]})
    assert where == "last"


def test_a_setting_line_an_entry_cause_already_quotes_is_not_said_again():
    text = ("The all-reduce between our two nodes is extremely slow, 10x slower than nccl-tests on the other pair.\n"
            "node1:1234:1234 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n"
            "node1:1234:1234 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n")
    _r, f_, c = _first(text)
    assert any(e["line"] == 2 for e in c["evidence"]) and not _env_causes(f_)


def test_a_value_with_a_carriage_return_inside_from_a_crlf_env_file():
    # CPython 3.11 here: env.sh written with CRLF ends, 'source env.sh && python3 train_ws.py': the variable keeps '\r'
    _r, f, c = _first(_fixture("python-env-file-crlf.log"))
    assert "data\\r/shard-000.bin" in f["matches"][0]["text"]
    assert c.get("from_env") and c["fix"][0].startswith("dos2unix")

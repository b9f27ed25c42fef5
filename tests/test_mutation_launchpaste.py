"""gpudoctor/explain/launchpaste.py's small readers, against the survivors of a mutation run
(docs/mutation.md, "This round's new code, second pass"): test_explain_launchpaste.py reaches them
through whole pastes, which take few of their branches. Each case is what a user pastes (a prompt,
`set -x`'s '+ ', a notebook's '!', inline code in prose, a Markdown code block indented by four
blanks) and what the reader makes of it."""

import pytest

from gpudoctor import explain
from gpudoctor.explain import launchpaste as lp


@pytest.mark.parametrize("line,cmd", [
    ("torchrun --nproc_per_node=8 train.py", "torchrun --nproc_per_node=8 train.py"),
    ("$ torchrun --nnodes 2 train.py", "torchrun --nnodes 2 train.py"),
    ("(venv) user@host:~/proj$ NCCL_DEBUG=INFO torchrun train.py", "NCCL_DEBUG=INFO torchrun train.py"),
    ("+ torchrun train.py", "torchrun train.py"),
    ("++ srun torchrun train.py", "srun torchrun train.py"),
    ("!torchrun a.py", "torchrun a.py"),
    ("root@h:/# nohup torchrun a.py &", "nohup torchrun a.py &"),
    ("user$ echo hi $ torchrun a.py", "torchrun a.py"),  # the last prompt mark before the launcher
    ("> mpirun -np 2 a.out", "mpirun -np 2 a.out"),
    ("% mpiexec -n 4 a", "mpiexec -n 4 a"),
    ("$ python -m torch.distributed.run --nproc_per_node 2 a.py", "python -m torch.distributed.run --nproc_per_node 2 a.py"),
    # a Markdown code block (four blanks) or a tab: the command all the same
    ("    torchrun --nproc_per_node=8 train.py", "torchrun --nproc_per_node=8 train.py"),
    ("\tNCCL_DEBUG=INFO torchrun a.py", "NCCL_DEBUG=INFO torchrun a.py"),
    # inline code in prose: what the backticks hold (an unclosed one: to the end)
    ("then `accelerate launch ./main.py` fails", "accelerate launch ./main.py"),
    ("`NCCL_DEBUG=INFO torchrun a.py` and `x`", "NCCL_DEBUG=INFO torchrun a.py"),
    ("run `torchrun x.py", "torchrun x.py"),
    ("see `a` then `torchrun x.py`", "torchrun x.py"),  # the backtick that opens the launcher's code
    ("`X=1 torchrun a.py`", "X=1 torchrun a.py"),
    ("X=1 torchrun a.py", "X=1 torchrun a.py"),
    ("XLA_FLAGS=--x torchrun a.py", "XLA_FLAGS=--x torchrun a.py"),
    ("$ torchrun a.py > log", "torchrun a.py > log"),  # a redirection after the launcher is no prompt
    ("$ torchrun a.py --tag wow!", "torchrun a.py --tag wow!"),
    # a log line or prose that mentions a launcher is no command
    ("I ran torchrun train.py and it hangs", None),
    ("INFO torchrun: starting", None),
    ("   INFO torchrun: starting", None),
    ("``torchrun x.py`", None),
    ("a`b` torchrun x", None),
    ("text `torchrun`", None),
    ("$ ", None),
    ("no launcher here", None),
])
def test_command_of(line, cmd):
    assert lp.command_of(line) == cmd


def test_an_indented_launch_line_is_read_as_the_same_line():
    # a launch line in a Markdown code block (GitHub issues, forums indent it by four blanks) was not read:
    # the loopback rendezvous endpoint of a 2-node job went unnoticed
    kb = explain.load_knowledge()
    line = "torchrun --nnodes=2 --nproc_per_node=8 --rdzv_endpoint=localhost:29500 train.py\n"
    flat = explain.explain_text("my job hangs:\n\n" + line, kb, assume_error=True)
    code = explain.explain_text("my job hangs:\n\n    " + line, kb, assume_error=True)
    assert [f["id"] for f in flat["findings"]][:1] == ["launcher.loopback_master"]
    assert [f["id"] for f in code["findings"]] == [f["id"] for f in flat["findings"]]


@pytest.mark.parametrize("v,want", [
    ("'x'", "x"), ('"x"', "x"), ("'x\"", "'x\""), ("'", "'"), ("''", ""),
    ("null", None), ("NULL", None), ("~", None), ("", None),
    ("True", True), ("false", False), ("12", 12), ("-3", -3),
    ("1.5", "1.5"), ("0x1", "0x1"), ("XaX", "XaX"), ("a", "a"), ("1234567890123456789", "1234567890123456789"), ("--1", "--1"),
])
def test_typed_reads_a_scalar_as_yaml_safe_load(v, want):
    got = lp._typed(v)
    assert got == want and type(got) is type(want)


def test_scalar():
    assert lp._scalar("  8,  ") == "8" and lp._scalar(" 'a' ,") == "'a'" and lp._scalar("x,,") == "x" and lp._scalar("a, b") == "a, b" and lp._scalar("MAX,") == "MAX"


@pytest.mark.parametrize("name,want", [
    ("/a/b/hostfile", "hostfile"), ("a/b/", "b"), ("ds.json", "ds.json"), ("dir/hostX", "hostX"),
    ("x" * 201 + ".JSON", "file.JSON"),
    ("..", "file"), (".", "file"), ("/", "file"), ("", "file"), ("/tmp/../", "file"), ("a/..", "file"),
    ("a\0b.json", "file.json"),  # a NUL: no file name; its extension kept
    ("x" * 195 + ".yaml", "x" * 195 + ".yaml"),  # 200 bytes: a name a folder takes
    ("x" * 196 + ".yaml", "file.yaml"),
    ("\u00e9" * 100, "\u00e9" * 100), ("\u00e9" * 101, "file"),  # 202 bytes in UTF-8
    ("x" * 201 + ".abcdefghijklmno", "file.abcdefghijklmno"),  # 15 characters of extension
    ("x" * 201 + ".abcdefghijklmnop", "file"),
    ("x" * 201 + ".a-b", "file"),
])
def test_file_name(name, want):
    assert lp._file_name(name) == want


@pytest.mark.parametrize("tok,want", [
    ("a=b", False), ("a=/b", False), ("", False), ("-f", False), ("-a/b", False), ("$X", False), ("/a/$X", False),
    ("/abs", True), ("~/x", True), ("./x", True), ("../x", True), ("a/b", True), ("~", True),
    ("ds.json", True), ("c.yaml", True), ("c.yml", True), ("h.txt", True), ("a.conf", True), ("a.cfg", True),
    ("x.sh", True), ("x.bash", True), ("job.slurm", True), ("job.sbatch", True),
    ("hostfile", True), ("machinefile", True), ("hosts", True),
    ("train.py", False), ("cfg.YAML", False), ("hostfile2", False),
])
def test_pathish(tok, want):
    assert lp._pathish(tok) is want


@pytest.mark.parametrize("word,want", [
    ("$X", "$X"), ("$@", "$@"), ("$1", "$1"), ("x", "x"), ("", "''"), ("a b", "'a b'"),
    ("--node_rank=$SLURM_NODEID", "--node_rank=$SLURM_NODEID"),
    ("--rdzv_endpoint=$MASTER_ADDR:29500", "--rdzv_endpoint=$MASTER_ADDR:29500"),
    ("${A}b", "${A}b"), ("pre${A}", "pre${A}"), ("a$B$C", "a$B$C"),
    ("a b$X c", "'a b'$X' c'"), ("it's", "'it'\"'\"'s'"),
])
def test_word_quotes_the_text_and_keeps_the_variables(word, want):
    assert lp._word(word) == want


@pytest.mark.parametrize("op", ["|", "||", "&&", ";", "&", ">", ">>", "2>&1", "2>", "<", "|&", "1>f", "2>>log", ">f"])
def test_cut_stops_at_the_first_shell_operator(op):
    assert lp._cut(["torchrun", "a.py", op, "tee", "x"]) == ["torchrun", "a.py"]


def test_cut_keeps_words_that_only_hold_an_operator():
    assert lp._cut(["torchrun", "--x=a>b", "a.py"]) == ["torchrun", "--x=a>b", "a.py"]
    assert lp._cut([]) == []


@pytest.fixture
def files():
    f = lp._Files()
    yield f
    f.close()
    assert not __import__("os").path.exists(f.dir)


def _read(path):
    with open(path) as fh:
        return fh.read()


def test_remap_gives_the_readers_only_the_pasted_blocks_or_absent_paths(files):
    import os

    argv = ["torchrun", "--nproc_per_node=2", "train.py", "./data/x.yaml", "--hostfile", "hf", "--config_file=a.json",
            "-H", "h2", "--machinefile=$MF", "hosts"]
    out = lp._remap(argv, files, "h1 slots=8\n", '{"a": 1}')
    here = [i for i, t in enumerate(out) if files.dir in t]
    assert [argv[i] for i in range(len(argv)) if i not in here] == [out[i] for i in range(len(out)) if i not in here]
    assert [argv[i] for i in here] == ["./data/x.yaml", "hf", "--config_file=a.json", "hosts"]
    assert _read(out[5]) == "h1 slots=8\n" and _read(out[6].partition("=")[2]) == '{"a": 1}'
    assert out[6].endswith("/a.json") and out[5].endswith("/hf")
    assert not os.path.exists(out[3]) and out[3].endswith("/x.yaml") and not os.path.exists(out[10])
    # the readers' messages name the files as the paste wrote them
    assert [files.unmask(t) for t in out] == argv
    assert files.unmask("cannot open %s: no such file" % out[3]) == "cannot open ./data/x.yaml: no such file"
    assert files.unmask("under %s/9/y" % files.dir) == "under 9/y" and files.unmask(7) == 7
    # deepspeed's -H is its hostfile; without a pasted hostfile the path does not exist
    ds = lp._remap(["deepspeed", "-H", "myhosts", "train.py"], files, "n1 slots=4\n", None)
    assert _read(ds[2]) == "n1 slots=4\n" and ds[3] == "train.py"
    ds = lp._remap(["deepspeed", "--hostfile=myhosts", "train.py"], files, None, None)
    assert not os.path.exists(ds[1].partition("=")[2]) and files.unmask(ds[1]) == "--hostfile=myhosts"
    # the program itself and a flag that waits for its value at the end
    assert lp._remap([], files, None, None) == [] and lp._remap(["deepspeed", "--hostfile"], files, None, None) == [
        "deepspeed", "--hostfile"]
    assert lp._remap(["./run.sh", "x"], files, None, None) == ["./run.sh", "x"]
    # each flag in both forms, its value's file given or absent
    got = lp._remap(["accelerate", "launch", "--config_file", "c.yaml", "--config-file", "dir/", "t.py"], files, None,
                    "compute_environment: LOCAL_MACHINE\n")
    assert _read(got[3]) == _read(got[5]) == "compute_environment: LOCAL_MACHINE\n"
    assert got[3].endswith("/c.yaml") and got[5].endswith("/config.json") and files.unmask(got[5]) == "dir/"
    got = lp._remap(["deepspeed", "--hostfile=hf", "-H=h2", "--hostfile=a=b", "t.py"], files, "n1 slots=2\n", None)
    assert _read(got[1].partition("=")[2]) == _read(got[2].partition("=")[2]) == "n1 slots=2\n"
    assert files.unmask(got[3]) == "--hostfile=a=b" and _read(got[3].partition("=")[2]) == "n1 slots=2\n"
    got = lp._remap(["python", "-m", "deepspeed.launcher.runner", "-H", "h", "t.py"], files, "n1 slots=2\n", None)
    assert _read(got[4]) == "n1 slots=2\n"
    # two files of one name in different folders stay two (each message names its own)
    a, b = lp._remap(["torchrun", "./x/hosts", "/y/hosts"], files, None, None)[1:]
    assert a != b and (files.unmask(a), files.unmask(b)) == ("./x/hosts", "/y/hosts")
    # the private folders are the user's only
    assert os.stat(os.path.dirname(got[4])).st_mode & 0o777 == 0o700


def test_deepspeed_never_reads_this_machines_default_hostfile(files, monkeypatch):
    from gpudoctor.launch.deepspeed import DLTS_HOSTFILE

    real = __import__("os").path.exists
    monkeypatch.setattr(lp.os.path, "exists", lambda p: p == DLTS_HOSTFILE or real(p))
    got = lp._no_default_hostfile(["deepspeed", "train.py"], files)
    assert got[:2] == ["deepspeed", "--hostfile"] and got[3:] == ["train.py"] and files.unmask(got[2]) == DLTS_HOSTFILE
    for argv in (["deepspeed", "--hostfile", "h", "t.py"], ["deepspeed", "--hostfile=h"], ["deepspeed", "-H", "h"],
                 ["torchrun", "t.py"], []):
        assert lp._no_default_hostfile(argv, files) == argv
    assert lp._no_default_hostfile(["/opt/bin/deepspeed", "t.py"], files)[1] == "--hostfile"
    monkeypatch.setattr(lp.os.path, "exists", lambda p: False if p == DLTS_HOSTFILE else real(p))
    assert lp._no_default_hostfile(["deepspeed", "train.py"], files) == ["deepspeed", "train.py"]


def test_gpus_per_node_from_the_table_the_allocation_or_the_facts():
    import types

    paste = types.SimpleNamespace(gpus=[(0, 7, 8), (0, 30, 8)])
    assert lp._gpus_per_node(paste, {}, None) == (8, "nvidia-smi's table in the paste (line 7)")
    two = types.SimpleNamespace(gpus=[(0, 7, 8), (0, 30, 4)])  # two tables that disagree: not read
    alloc = {"gpus_per_node": 4, "sbatch": ["--nodes=2", "--gres=gpu:4"]}
    assert lp._gpus_per_node(two, alloc, None) == (4, "the allocation (#SBATCH --nodes=2 --gres=gpu:4)")
    none = types.SimpleNamespace(gpus=[])
    long = {"gpus_per_node": 2, "sbatch": ["--x=" + "y" * 200]}
    assert lp._gpus_per_node(none, long, None)[1] == "the allocation (#SBATCH %s)" % ("--x=" + "y" * 200)[:120]
    facts = {"node": "gpu-node-01", "gpu": {"status": "ok", "gpus": [{}, {}, {}]}}
    assert lp._gpus_per_node(none, {}, facts) == (3, "the facts of gpu-node-01")
    assert lp._gpus_per_node(none, {}, [facts, {"gpu": {"status": "ok", "gpus": [{}]}}]) == (3, "the facts of gpu-node-01")
    assert lp._gpus_per_node(none, {}, {"gpu": {"status": "ok", "gpus": [{}]}}) == (1, "the facts of the node")
    assert lp._gpus_per_node(none, {}, {"gpu": {"status": "error", "gpus": [{}]}}) == (None, None)
    assert lp._gpus_per_node(none, {"gpus_per_node": 0}, [{}]) == (None, None)
    assert lp._gpus_per_node(none, {}, [None]) == (None, None)
    assert lp._gpus_per_node(none, {"gpus_per_node": 2}, None) == (2, "the allocation (#SBATCH )")
    # the first node's facts only
    assert lp._gpus_per_node(none, {}, [{"gpu": {"status": "error"}}, facts]) == (None, None)

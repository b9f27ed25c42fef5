"""Cases for the mutants of gpudoctor/explain/famfix.py's slots and values added since the fifth round (docs/
mutation.md, seventh round): TCPStore's ping value read as the 4 bytes the program on the port sent
(torch/csrc/distributed/c10d/TCPStore.cpp TCPStore::ping), a cause's own evidence lines as slot sources, and the
values an exception's message prints (Python's Lib/enum.py ValueError, glibc's dlerror for a missing soname,
pickle's refusal of a lambda / local function, subprocess' FileNotFoundError for a bare name, torch/_utils.py
_get_device_index's None) leading a structural root's fixes - each compared whole, written out from the rules."""

import pytest

from gpudoctor.explain import famfix as F

PING = "Ping failed, invalid value returned from server. Expected: 1234, Got: %s"


def test_ping4_reads_the_bytes():
    ssh = int.from_bytes(b"SSH-", "little")
    assert F._ping4(str(ssh)) == "SSH- (the bytes %d: that program's first words)" % ssh
    assert F._ping4(str(int.from_bytes(b" ~~ ", "little"))).startswith("' ~~ ' (the bytes ")  # sh() quotes blanks
    assert F._ping4(str(int.from_bytes(b"\x1f~~~", "little"))) is None  # a control byte
    assert F._ping4(str(int.from_bytes(b"~~~\x7f", "little"))) is None  # DEL
    assert F._ping4(str(1 << 32)) is None and F._ping4(str((1 << 32) + 0x53)) is None
    assert F._ping4(str((1 << 32) - 1)) is None  # 0xff bytes


def test_ping4_slot():
    ssh = int.from_bytes(b"SSH-", "little")
    assert F.names([PING % ssh], "ping4") == str(ssh)
    assert F.fill("it was {$ping4|another program}", ["x", PING % ssh]) == \
        "it was SSH- (the bytes %d: that program's first words)" % ssh
    assert F.fill("it was {$ping4|another program}", [PING % 7]) == "it was another program"  # not printable
    assert F.fill("it was {$ping4|another program}", ["Expected: 1, Got: 5"]) == "it was another program"
    assert F.fill("{$var|v} {$ping4|p}", ["NCCL_X"]) == "NCCL_X p"


def test_fill_causes_reads_the_causes_own_lines():
    ssh = int.from_bytes(b"SSH-", "little")
    causes = [{"text": "{$var|v}", "fix": ["{$ping4|p}"], "confirm": ["{$option|o}"],
               "evidence": [{"line": 3, "text": PING % ssh}, {"line": 4}, {"text": None}] +
               [{"text": "x"}] * 5 + [{"text": "NCCL_LATE --late"}]},
              {"text": "{$var|v}", "fix": [], "confirm": [], "evidence": None}]
    F.fill_causes(causes, ["TORCH_X"])
    assert causes[0]["text"] == "TORCH_X" and causes[0]["confirm"] == ["o"]  # the 9th evidence line is past 8
    assert causes[0]["fix"] == ["SSH- (the bytes %d: that program's first words)" % ssh]
    assert causes[1]["text"] == "TORCH_X"
    causes = [{"text": "{$option|o}", "fix": [], "confirm": [], "evidence": [{"text": "a --bb"}]}]
    F.fill_causes(causes, [])
    assert causes[0]["text"] == "--bb"


ENUM = ("the message says %s is not one of %s's values: check its spelling (a typo, the case, a value of another "
        "release) where the config file or option sets it; list(%s) in that library lists the accepted ones")
PICKLE = ("pickle stores a function by the name it is imported under, so a lambda or a function defined inside "
          "another cannot be sent to another process (torch.distributed's *_object collectives, DataLoader workers, "
          "mp.spawn): define it with def at the top level of a module, or send data instead of the function (Python "
          "docs: what can be pickled)")
NONE = ("the device passed is None: the expression that gives the GPU index (a helper that picks a free GPU, an "
        "argument or environment variable that is not set) returned None; pass an explicit device index: "
        "torch.cuda.set_device(int(os.environ['LOCAL_RANK'])) under a launcher, torch.cuda.set_device(0) on one GPU")
BARE = ("%s is a name without a path that was found neither on PATH nor in the working directory: if the code runs "
        "it as a program (a subprocess), install the package that provides it or add its directory to PATH on the "
        "node or in the image that runs the job (which %s); if it is a file, give its full path")
SO = ("the loader found no %s: install the package that provides it in the environment (image, venv, node) that "
      "runs the job (Debian/Ubuntu: apt-file search %s; RHEL: dnf provides '*/%s'), or add the directory that holds "
      "it to LD_LIBRARY_PATH")


@pytest.mark.parametrize("lines,want", [
    (["ValueError: 'fp61' is not a valid PrecisionTypes"], [ENUM % ("fp61", "PrecisionTypes", "PrecisionTypes")]),
    # a class the training libraries define (generated/enum_values.json: accelerate's PrecisionType): its values
    (["ValueError: 'fp61' is not a valid PrecisionType"],
     ["the message says fp61 is not one of PrecisionType's values: did you mean fp16? (its values in accelerate "
      "1.15.0, accelerate.utils.dataclasses: no, fp8, fp16, bf16); change it where the config file or option sets "
      "it"]),
    (["ValueError: -3 is not a valid ShardingStrategy.X"], [ENUM % ("-3", "ShardingStrategy.X", "ShardingStrategy.X")]),
    (["ValueError: x.'a' is not a valid T", "ValueError: 'a' is not a valid T.y_"], [ENUM % ("a", "T.y_", "T.y_")]),
    (["ValueError: 'XLA' is not a valid DeviceType"], [ENUM % ("XLA", "DeviceType", "DeviceType")]),  # (only quotes cut)
    (["'a' is not a valid T_x, please select one of ['b']"], [ENUM % ("a", "T_x", "T_x")]),  # transformers' form
    (["AttributeError: Can't pickle local object 'main.<locals>.f'"], [PICKLE]),
    (["_pickle.PicklingError: Can't pickle <function <lambda> at 0x7f>: attribute lookup <lambda> on __main__ "
      "failed"], [PICKLE]),
    (["Can't pickle <function train.<locals>.collate at 0x1>"], [PICKLE]),
    (["Can't pickle <function collate at 0x1>"], []),
    (["ValueError: Expected a torch.device with a specified index or an integer, but got:None"], [NONE]),
    (["Expected a torch.device with a specified index or an integer, but got: None"], [NONE]),
    (["Expected a torch.device with a specified index or an integer, but got:Nonesuch"], []),
    (["FileNotFoundError: [Errno 2] No such file or directory: 'nvcc'"], [BARE % ("nvcc", "nvcc")]),
    (["FileNotFoundError: [Errno 2] No such file or directory: '/usr/bin/nvcc'"], []),
    (["FileNotFoundError: [Errno 2] No such file or directory: 'Nvcc'"], []),
    (["OSError: libcudnn.so.8: cannot open shared object file: No such file or directory"],
     [SO % ("libcudnn.so.8", "libcudnn.so.8", "libcudnn.so.8")]),
    (["ImportError: libnccl-net.so: cannot open shared object file: No such file or directory"],
     [SO % ("libnccl-net.so", "libnccl-net.so", "libnccl-net.so")]),
    (["dlopen: /x/libc10_cuda.so.2: cannot open shared object file: No such file or directory"],
     [SO % ("libc10_cuda.so.2", "libc10_cuda.so.2", "libc10_cuda.so.2")]),
    (["_libfoo.so: cannot open shared object file: No such file or directory"], []),
    (["libfoo.so.1: cannot open shared object file: Permission denied"], []),
    # the first line that has values; every value of that line, in this order
    ([None, "nothing", "ValueError: 'x' is not a valid K - Can't pickle local object 'f' "
      "libz.so.1: cannot open shared object file: No such file or directory", "Can't pickle local object 'g'"],
     [ENUM % ("x", "K", "K"), PICKLE, SO % ("libz.so.1", "libz.so.1", "libz.so.1")]),
    (["Can't pickle local object 'g' - got:None - Expected a torch.device with a specified index or an integer, "
      "but got:None FileNotFoundError: [Errno 2] No such file or directory: 'ninja'"],
     [PICKLE, NONE, BARE % ("ninja", "ninja")]),
    ([" " * 4074 + "'fp61' is not a valid P"], []),  # read to 4,096 characters
    ([" " * 4073 + "'fp61' is not a valid P"], [ENUM % ("fp61", "P", "P")]),
    ([], []),
])
def test_values_in_exception(lines, want):
    assert F._values_in_exception(lines) == want


def _root(texts, fix, fid="cuda.oom", conf="structural", role="root", causes=True):
    return {"id": fid, "role": role, "confidence": conf, "matches": [{"text": t} for t in texts],
            "causes": [{"fix": list(fix)}] if causes else [], "notes": []}


def test_values_lead_a_structural_roots_fixes():
    f = _root(["x", "y", "z", "ValueError: 'a' is not a valid B"], ["b"])
    F.finish([f], "N")
    assert f["causes"][0]["fix"] == ["b"]  # the first 3 matched lines are read
    f = _root(["x", "y", "AttributeError: Can't pickle local object 'f'"], ["open t.py (line 3)", "b"],
              fid="torch.distributed_error")
    F.finish([f], "N")
    assert f["causes"][0]["fix"] == ["open t.py (line 3)", PICKLE, "b"]  # after the user's frame
    f = _root(["ValueError: 'a' is not a valid B - Can't pickle local object 'f'"], ["b", PICKLE])
    F.finish([f], "N")
    assert f["causes"][0]["fix"] == [ENUM % ("a", "B", "B"), "b", PICKLE]  # (one already there is not repeated)
    f = _root([None], ["b"])
    f["matches"] = [{"text": None}, {}]
    F.finish([f], "N")
    assert f["causes"][0]["fix"] == ["b"]
    f = _root(["Can't pickle local object 'f'"], [])
    F.finish([f], "N")
    assert f["causes"][0]["fix"] == [PICKLE]
    f = _root(["Can't pickle local object 'f'"], ["opened x"])
    F.finish([f], "N")
    assert f["causes"][0]["fix"] == [PICKLE, "opened x"]


@pytest.mark.parametrize("f", [
    _root(["Can't pickle local object 'f'"], ["b"], conf="family"),
    _root(["Can't pickle local object 'f'"], ["b"], role="related"),
    _root(["Can't pickle local object 'f'"], [], causes=False),
])
def test_values_only_for_a_structural_root(f):
    F.finish([f], "N")
    assert f["causes"] == ([{"fix": ["b"]}] if f["causes"] else [])
    f2 = {"id": "x", "role": "root", "confidence": "structural", "causes": [{"fix": ["b"]}], "notes": []}
    F.finish([f2], "N")  # (no matches)
    assert f2["causes"][0]["fix"] == ["b"]

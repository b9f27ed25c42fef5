"""The string-method readers and the json-free JSON of the srun payload (ddf39ee), where a mutation
run found no test (docs/mutation.md, "This round's new code"). tests/test_collector_lean.py
compares each reader with its pattern line by line; these add whole texts (a line skipped must
not end the reading), the inputs its random alphabets do not reach, the contract of the helpers
(nvcc_target's None, _realpath on a real root), and what the payload is for: dumps and loads
answer without the json module where _json is there (on a node they are imported before any
section), and as json does where it is not. All in this process (the payload's own subprocess
tests cannot run under mutmut's trampolines)."""

import copy
import json
import string
import sys

import pytest

from gpudoctor.collector import base, cuda, python_env, system

# /proc/meminfo as fs/proc/meminfo.c prints it (this VM's first lines, shortened): keys with
# parentheses and the HugePages_* counts without a unit come before lines that must still be read
MEMINFO = """MemTotal:       24684084 kB
MemFree:        19318540 kB
Active(anon):       1920 kB
Inactive(file):  1664124 kB
Unevictable:       16500 kB
HugePages_Total:       0
HugePages_Free:        0
Hugepagesize:       2048 kB
DirectMap2M:    23068672 kB
"""


def test_meminfo_reads_every_line_of_a_whole_file():
    got = system.parse_meminfo(MEMINFO + "Odd:1 kB\nAfterOdd:  3 kB\nName:  x kB\nTwo: 5 kB: 6 kB\n")
    assert got == {"MemTotal": 24684084 * 1024, "MemFree": 19318540 * 1024, "Unevictable": 16500 * 1024,
                   "Hugepagesize": 2048 * 1024, "DirectMap2M": 23068672 * 1024, "AfterOdd": 3 * 1024,
                   "Two": 5 * 1024}
    assert system.parse_meminfo("") == {} and system.parse_meminfo(None) == {}


def test_version_readers_on_the_inputs_random_words_miss():
    assert cuda.dotted("12.4") == 4 and cuda.dotted("12.4.1x") == 6 and cuda.dotted("x1.2") is None
    assert cuda.version_txt("CUDA Version 10.2.89\nCUDA Version 9.0.176\n") == "10.2.89"  # the first, as re.search
    assert cuda.version_txt("CUDA Version x CUDA Version 1.0 CUDA Version 2.0") == "1.0"
    assert cuda.nvcc_wheel_version("nvidia_cuda_nvcc_cux1-1.2.3.dist-info") is None  # _cu then no digit
    assert cuda.nvcc_wheel_version("nvidia_cuda_nvcc_cu1-1.2.3.dist-info") == "1.2.3"


def test_dist_folder_names_with_several_dashes():
    assert python_env.parse_dist_dirname("a-b-c-1.0.dist-info") == ("a-b-c", "1.0")
    assert python_env.parse_dist_dirname("x-1-2.dist-info") == ("x-1", "2")  # a version has no '-'
    assert python_env.parse_dist_dirname("a-b-1.0-py3-c.egg-info") == ("a-b", "1.0")  # a later '-' is not it
    assert python_env.parse_dist_dirname("foo-1.0-py3.egg-info") == ("foo", "1.0")
    assert python_env.parse_dist_dirname("foo-1.0-pyx.egg-info") == (None, None)
    assert python_env.parse_dist_dirname("foo-1.0-py.egg-info") == (None, None)


def _ctx(root, **kw):
    return base.Context(root=root, env={"PATH": "/usr/local/bin"}, **kw)


def _wrapper(tmp_path, text, target="/usr/local/cuda-13.0/bin/nvcc"):
    root = tmp_path / "root"
    (root / target.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
    (root / target.lstrip("/")).write_text("ELF")
    (root / "usr/local/bin").mkdir(parents=True, exist_ok=True)
    (root / "usr/local/bin/nvcc").write_text(text)
    return _ctx(str(root))


@pytest.mark.parametrize("text,want", [
    ('#!/bin/sh\nexec /usr/local/cuda-13.0/bin/nvcc\n', "/usr/local/cuda-13.0/bin/nvcc"),  # no "$@": same binary
    ('#!/bin/sh\nexec /usr/local/cuda-13.0/bin/nvcc -G "$@"\n', None),  # an option: run it
    ('#!/bin/sh\ncommand /usr/local/cuda-13.0/bin/nvcc "$@"\n', None),  # not exec
    ('#!/bin/sh\nexec\n', None),
    ('#!/bin/sh\nexec /usr/local/cuda-13.0/bin/nvcc.real "$@"\n', None),  # not .../bin/nvcc
    ('exec /usr/local/cuda-13.0/bin/nvcc "$@"\n', None),  # no #! line
    ('#!/bin/sh\nexec /opt/missing/bin/nvcc "$@"\n', None),  # nothing there
])
def test_nvcc_target_reads_only_a_plain_forwarding_wrapper(tmp_path, text, want):
    ctx = _wrapper(tmp_path, text, target="/usr/local/cuda-13.0/bin/nvcc.real" if ".real" in text else
                   "/usr/local/cuda-13.0/bin/nvcc")
    assert cuda.nvcc_target(ctx, "/usr/local/bin/nvcc") == want


def test_nvcc_target_refuses_a_script_as_long_as_its_read_limit(tmp_path):
    line = '#!/bin/sh\nexec /usr/local/cuda-13.0/bin/nvcc "$@"\n'
    padded = line + "#" * (4096 - len(line) - 1) + "\n"  # 4,096 bytes: may have been cut, so run it
    assert len(padded) == 4096
    assert cuda.nvcc_target(_wrapper(tmp_path, padded), "/usr/local/bin/nvcc") is None
    assert cuda.nvcc_target(_wrapper(tmp_path, padded[:-2] + "\n"), "/usr/local/bin/nvcc") == \
        "/usr/local/cuda-13.0/bin/nvcc"


def test_nvcc_target_of_a_missing_or_unreadable_nvcc(tmp_path):
    ctx = _ctx(str(tmp_path))
    assert cuda.nvcc_target(ctx, "/usr/local/bin/nvcc") is None
    (tmp_path / "usr/local/bin/nvcc").mkdir(parents=True)  # a directory: read() gives its default
    assert cuda.nvcc_target(ctx, "/usr/local/bin/nvcc") is None


def test_realpath_on_the_real_root_and_outside_a_recorded_one(tmp_path):
    real = tmp_path / "Xcuda/bin/nvcc"
    real.parent.mkdir(parents=True)
    real.write_text("ELF")
    (tmp_path / "link").symlink_to(real)
    # root "/" (a node): the path as the system resolves it
    assert cuda._realpath(_ctx("/"), str(tmp_path / "link")) == str(real)
    # a recorded tree: the path inside it, and None for a link that leaves it
    assert cuda._realpath(_ctx(str(tmp_path)), "/link") == "/Xcuda/bin/nvcc"
    (tmp_path / "out").symlink_to("/usr/bin")
    assert cuda._realpath(_ctx(str(tmp_path)), "/out") is None


def test_dumps_and_loads_need_no_json_module(monkeypatch):
    doc = {"b": [1, 2.5, None, True, "caf\xe9"], "a": {"z": 1, "y": list(range(60000))}}
    want = json.dumps(doc, sort_keys=True)  # 120,000 pieces: the C encoder returns several chunks
    text = json.dumps(doc)
    monkeypatch.setitem(sys.modules, "json", None)  # `import json` now fails
    assert base.dumps(doc) == want
    assert base.loads(text) == doc


def test_without_the_c_accelerator_they_are_json_itself(monkeypatch):
    doc = {"b": 1, "a": [2, {"d": None, "c": "x"}]}
    monkeypatch.setitem(sys.modules, "_json", None)
    assert base._encoder() is None
    assert base.dumps(doc) == json.dumps(doc, sort_keys=True) == '{"a": [2, {"c": "x", "d": null}], "b": 1}'
    assert base.loads(' {"a": [1]} ') == {"a": [1]}


def test_what_json_refuses_is_refused_with_jsons_words():
    for value in ({"x": object()}, {(1, 2): 1}):
        with pytest.raises(TypeError) as want:
            json.dumps(value, sort_keys=True)
        with pytest.raises(TypeError) as got:
            base.dumps(value)
        assert str(got.value) == str(want.value)
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference detected"):
        base.dumps(loop)
    for value in (None, 5):
        with pytest.raises(TypeError) as want:
            json.loads(value)
        with pytest.raises(TypeError) as got:
            base.loads(value)
        assert str(got.value) == str(want.value)
    with pytest.raises(ValueError, match="Extra data"):
        base.loads('{"a": 1}\x0c')  # JSON's blanks are space, tab, LF and CR only (RFC 8259, section 2)
    # json's message up to the colon, and the same character position (json.decoder: JSONDecodeError)
    for bad in ("", "  x", '{"a": 1} x', '{"a": 1}  \n x', "\ufeff{}"):
        with pytest.raises(ValueError) as want:
            json.loads(bad)
        with pytest.raises(ValueError) as got:
            base.loads(bad)
        assert str(got.value).split(":")[0] == str(want.value).split(":")[0], bad
        pos = str(want.value).rpartition("(char ")[2].rstrip(")")
        assert str(got.value).endswith("char " + pos) or "BOM" in str(got.value), (bad, str(got.value))


def test_lazy_module_and_pattern():
    lazy = base._LazyModule("string")
    assert lazy.ascii_letters == string.ascii_letters
    p = base.Pattern(r"(\d+)")
    with pytest.raises(AttributeError, match="__nothing__"):
        p.__nothing__
    # copies and unpickling make a Pattern without __init__: a lookup fails plainly, no recursion
    bare = object.__new__(base.Pattern)
    assert not hasattr(bare, "search")
    twin = copy.deepcopy(p)
    assert type(twin) is base.Pattern and twin.search("v 12").group(1) == "12"

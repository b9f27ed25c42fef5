"""explain on real recordings of session 30's binary-compatibility work (fixtures/recorded/abi30/README.md).

ctypes / dlopen of an unversioned library name: 'OSError: libfoo.so: cannot open shared object file' where only the
runtime package's libfoo.so.N is installed (the bare name is the -dev package's symlink: Debian Policy 8.4,
https://www.debian.org/doc/debian-policy/ch-sharedlibs.html#development-files); ctypes.util.find_library('foo')
returns the versioned name (https://docs.python.org/3/library/ctypes.html#finding-shared-libraries).
"""
import json
import shutil
from pathlib import Path

import pytest
from inprocess import gd

from gpudoctor.explain import famfix

ROOT = Path(__file__).resolve().parents[1]
REC = ROOT / "fixtures" / "recorded" / "abi30"


def _explain_text(text, tmp_path):
    p = tmp_path / "log.txt"
    p.write_text(text)
    return _explain(p)


def _explain(path):
    # `gpudoctor explain --json PATH` in this process (tests/inprocess.py): these tests assert its output, and a
    # process each loaded explain's knowledge again (suite32: the 40 calls of test_lead30 and test_abi30 each gave
    # the subprocess's exit code, stdout and stderr)
    rc, out, err = gd(["explain", "--json", str(path)], ROOT)
    assert rc == 0, err
    return json.loads(out)


def _root(doc):
    return next(f for f in doc["findings"] if f.get("role") == "root")


@pytest.mark.parametrize("log,name,stem", [
    ("ctypes_unversioned.log", "libOpenCL.so", "OpenCL"),   # ctypes.CDLL('libOpenCL.so'), libOpenCL.so.1 installed
    ("ctypes_loadlibrary.log", "libXmu.so", "Xmu"),         # ctypes.cdll.LoadLibrary through a helper, libXmu.so.6
])
def test_an_unversioned_ctypes_name_is_the_loader_with_the_versioned_fix(log, name, stem):
    f = _root(_explain(REC / log))
    assert f["id"] == "loader.cannot_open"  # was code.exception (the user's own OSError)
    cause = f["causes"][0]
    assert "unversioned development name" in cause["text"]
    fixes = " ".join(cause["fix"])
    assert "find_library('%s')" % stem in fixes  # the stem, computed from the line
    assert "unversioned %s link" % name in fixes and "apt-file search %s," % name in fixes


def test_a_versioned_name_does_not_lead_with_the_unversioned_cause(tmp_path):
    f = _root(_explain_text("OSError: libfoo.so.1: cannot open shared object file: No such file or directory\n",
                            tmp_path))
    assert f["id"] == "loader.cannot_open"
    assert "unversioned" not in f["causes"][0]["text"]


def test_a_cuda_library_stays_cuda_libs(tmp_path):
    f = _root(_explain_text('Traceback (most recent call last):\n  File "x.py", line 3, in <module>\n    import torch\n'
                            "OSError: libcudart.so: cannot open shared object file: No such file or directory\n",
                            tmp_path))
    assert f["id"] == "cuda.libs"


def test_the_slots_read_only_an_unversioned_ascii_name():
    line = "OSError: libOpenCL.so: cannot open shared object file: No such file or directory"
    assert famfix.names([line], "solib") == "libOpenCL.so"
    assert famfix.names([line], "sostem") == "OpenCL"
    assert famfix.names(["OSError: libfoo.so.1: cannot open shared object file"], "sostem") is None
    assert famfix.names(["OSError: libfoé.so: cannot open shared object file"], "sostem") is None
    assert famfix.fill("find_library('{$sostem|foo}')", ["no library here"]) == "find_library('foo')"


# The C++ string ABI read from the demangled symbol (gpudoctor/explain/demangle.py, binutils' c++filt). Real
# recordings: build_strabi.sh builds libstrabi.so (greet(const std::string&)) and an extension calling it with the
# other -D_GLIBCXX_USE_CXX11_ABI, then imports it on CPython 3.11.7 (g++ 12.2).
needs_cxxfilt = pytest.mark.skipif(shutil.which("c++filt") is None,
                                   reason="binutils' c++filt is not installed")


@needs_cxxfilt
@pytest.mark.parametrize("log,function,abi", [
    ("strabi_old_ext.log", "greet(std::basic_string<char, std::char_traits<char>, std::allocator<char> > const&)",
     "old string ABI (_GLIBCXX_USE_CXX11_ABI=0)"),
    ("strabi_new_ext.log", "greet(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > "
     "const&)", "new string ABI (_GLIBCXX_USE_CXX11_ABI=1)"),
    ("../lead30/oldabi.log", "c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::basic_string<",
     "old string ABI"),
])
def test_an_undefined_cxx_symbol_is_named_with_its_string_abi(log, function, abi):
    f = _root(_explain(REC / log))
    assert f["id"] == "loader.undefined_symbol"
    said = [n for n in f["notes"] if n.startswith("The missing symbol is the C++ function ")]
    assert len(said) == 1 and function in said[0] and abi in said[0], f["notes"]


def test_the_demangler_takes_only_a_whole_mangled_name():
    from gpudoctor.explain import demangle

    for bad in ("-v", "--help", "_Z", "_Z5greet RKSs", "_Z5greet;id", "greet", "_Z" + "a" * 400, None):
        assert demangle.demangle(bad) is None, bad
    assert demangle.demangle("_Z5greetRKSs", tool="/nonexistent/c++filt") is None  # no tool: nothing said
    assert demangle.string_abi("f(std::basic_string<char> const&)") == "old"
    assert demangle.string_abi("f(std::__cxx11::basic_string<char> const&)") == "new"
    assert demangle.string_abi("c10::detail::f(int)") is None
    assert demangle.note(["undefined symbol: cudaGetDevice"]) is None  # a C name: nothing to demangle

"""The C++ name of a mangled symbol in an 'undefined symbol: _Z...' line, read by binutils' c++filt (issue 18, abi30).

ld.so's 'undefined symbol: _ZN3c106detail14torchCheckFailEPKcS2_jRKSs' (elf/dl-lookup.c) names the function a library
wanted in the Itanium C++ ABI's mangling (https://itanium-cxx-abi.github.io/cxx-abi/abi.html#mangling); its demangled
form says which library (c10::, at::, a CUDA library) and, for the C++ string ABI, which std::string it takes:
'std::string' is libstdc++'s old ABI (_GLIBCXX_USE_CXX11_ABI=0), 'std::__cxx11::basic_string' the new one
(https://gcc.gnu.org/onlinedocs/libstdc++/manual/using_dual_abi.html).

c++filt (https://sourceware.org/binutils/docs/binutils/c_002b_002bfilt.html) runs where it is installed: a program of
its own, so a demangler fault on a hostile name cannot end explain; the name goes in on stdin, never in an argument
(no option position) and never through a shell; it must be a whole mangled name of bounded length (ASCII letters,
digits, '_'), and the run is bounded in time and output. Without c++filt (or when it fails) nothing is said. No PyPI
demangler is used: the maintained ones wrap libstdc++'s __cxa_demangle in this process (cxxfilt) or are unmaintained
(itanium-demangler, 2022).
"""

import os
import re
import resource
import select
import shutil
import subprocess
import time

MAX_SYMBOL = 300   # the matcher's own bound on the symbol (loader.toml)
MAX_OUT = 2000
TIMEOUT_S = 2.0
MAX_MEMORY = 64 * 1024 * 1024   # c++filt's own address space (red team 2026-11-29, docs/security.md 103.)

_SYMBOL = re.compile(r"_Z[A-Za-z0-9_]{1,%d}" % (MAX_SYMBOL - 2))
_UNDEFINED = re.compile(r"undefined symbol: (_Z[A-Za-z0-9_]{1,298})(?![A-Za-z0-9_])")
_cache = {}


def demangle(symbol, tool=None):
    """The demangled C++ name of ``symbol`` (one mangled name), or None: not a mangled name, no c++filt, a failure,
    a timeout, or an answer that is not one line (c++filt echoes a name it cannot read: None too)."""
    if not isinstance(symbol, str) or not _SYMBOL.fullmatch(symbol):
        return None
    exe = tool or shutil.which("c++filt")
    if (exe, symbol) in _cache:
        return _cache[exe, symbol]
    out = None
    if exe:
        try:
            text = _run(exe, symbol)
            if text is not None:
                text = text.strip()
                if text and "\n" not in text and text != symbol:
                    out = text
        except (OSError, subprocess.SubprocessError, ValueError):
            out = None
    if len(_cache) < 256:
        _cache[exe, symbol] = out
    return out


def _limit():
    """In c++filt before it runs: at most MAX_MEMORY of address space. libiberty's cplus_demangle builds the whole
    name in memory before c++filt prints it, and a 242-character name whose substitutions nest doubles to 109 MB."""
    resource.setrlimit(resource.RLIMIT_AS, (MAX_MEMORY, MAX_MEMORY))


def _run(exe, symbol):
    """c++filt's answer for ``symbol``: its output while it stays under MAX_OUT bytes and TIMEOUT_S seconds, else None.
    The output is read as it comes, never more than MAX_OUT + 1 bytes (subprocess.run's capture read all of it: 109 MB
    for a hostile name, red team 2026-11-29), and the program is killed past either bound."""
    p = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"}, preexec_fn=_limit, close_fds=True)
    got, deadline, done = b"", time.monotonic() + TIMEOUT_S, False
    try:
        p.stdin.write(symbol.encode("ascii") + b"\n")
        p.stdin.close()
        fd = p.stdout.fileno()
        while len(got) <= MAX_OUT:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                break
            chunk = os.read(fd, MAX_OUT + 1 - len(got))
            if not chunk:
                done = True
                break
            got += chunk
    finally:
        if not done:
            p.kill()
        p.stdout.close()
        try:
            rc = p.wait(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            rc = None
    if not done or rc != 0 or len(got) > MAX_OUT:
        return None
    return got.decode("ascii", "replace")


def string_abi(name):
    """Which libstdc++ string ABI a demangled name's std::string is: 'old', 'new', or None (neither appears)."""
    old = re.search(r"\bstd::(?:string|wstring|basic_string<)", name) is not None
    new = "std::__cxx11::" in name
    if old and not new:
        return "old"
    if new and not old:
        return "new"
    return None


def note(lines):
    """A finding's note for its first matched line that holds 'undefined symbol: _Z...': the C++ name, and the string
    ABI it asks for when it takes a std::string. None when no line holds one or it cannot be demangled."""
    for line in lines[:3]:
        m = _UNDEFINED.search((line or "")[:4096])
        if not m:
            continue
        name = demangle(m.group(1))
        if not name:
            return None
        said = "The missing symbol is the C++ function %s (c++filt)." % name
        abi = string_abi(name)
        if abi == "old":
            said += (" Its std::basic_string, without __cxx11, is libstdc++'s old string ABI (_GLIBCXX_USE_CXX11_ABI=0): "
                     "the object that wants it was built with the old ABI; a library built with the new one defines "
                     "it with std::__cxx11::basic_string instead.")
        elif abi == "new":
            said += (" Its std::__cxx11::basic_string is libstdc++'s new string ABI (_GLIBCXX_USE_CXX11_ABI=1): if the "
                     "library that should define it was built with the old ABI (torch: torch.compiled_with_cxx11_abi() "
                     "is False; another: nm -DC <that library> | grep <the function> shows std::string without "
                     "__cxx11), rebuild the object with -D_GLIBCXX_USE_CXX11_ABI=0; if not, the library is another "
                     "release than the one the object was built against.")
        return said
    return None

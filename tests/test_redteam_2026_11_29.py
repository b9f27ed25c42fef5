"""Red team 2026-11-29 (session 31): findings fixed at their root; each case fails on 7ba89764
(docs/security.md 103 and on)."""

import shutil
import tracemalloc

import pytest

from gpudoctor.explain import demangle

_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _sub(i):
    """The Itanium ABI's substitution S_, S0_, S1_ ... (https://itanium-cxx-abi.github.io/cxx-abi/abi.html#mangle.substitution)."""
    if i == 0:
        return "S_"
    n, s = i - 1, ""
    while True:
        s, n = _DIGITS[n % 36] + s, n // 36
        if n == 0:
            return "S%s_" % s


def _doubling(levels):
    """f(A, B<A,A>, B<B<A,A>,B<A,A>>, ...): each argument names the one before twice by its substitution, so the
    demangled name doubles with each ~12 characters of the mangled one."""
    s = "_Z1f1A"
    for k in range(levels):
        s += "1BI" + _sub(2 * k if k else 0) * 2 + "E"
    return s


@pytest.mark.skipif(shutil.which("c++filt") is None, reason="binutils' c++filt is not installed")
def test_a_symbol_that_demangles_to_megabytes_is_not_read_whole():
    # 103.: a 242-character symbol in 'undefined symbol: ...' demangles to 109 MB (binutils 2.40's c++filt, in 1.7 s):
    # explain read it all and decoded it before its 2000-character bound refused it (327 MB resident)
    sym = _doubling(23)
    assert len(sym) < demangle.MAX_SYMBOL
    demangle._cache.clear()
    tracemalloc.start()
    try:
        out = demangle.demangle(sym)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out is None
    assert peak < 4 * 1024 * 1024, peak


@pytest.mark.skipif(shutil.which("c++filt") is None, reason="binutils' c++filt is not installed")
def test_a_short_symbol_is_still_demangled():
    demangle._cache.clear()
    assert demangle.demangle(_doubling(2)) == "f(A, B<A, A>, B<B<A, A>, B<A, A> >)"
    assert demangle.demangle("_ZN3foo3barB5cxx11Ev") == "foo::bar[abi:cxx11]()"

"""srcprov.level_form: the logger's level and form of a line naming a source file (mutation round 17, part 2: the
survivors of level_form under tests/test_explain_noans22.py, which reads only the Open MPI form).

Each line is split by srcprov's own file pattern (_FILE: path, line number, the rest), as failure() splits it. The
forms: glog / klog / c10 ('E1127 12:00:00.123456 1234 file.go:12] ', '[E socket.cpp:860] ', c10's '[W109 22:46:25...'),
UCX's 'file.c:NNN  UCX  ERROR ' (UCS_LOG_METADATA_FMT), NCCL's '[0] file.cc:NNN NCCL WARN ' (src/debug.cc), a level word
right after the prefix, Open MPI's component macros 'Error: %s:%d - %s() ' / 'Warning: ...' (ompi/mca/coll/ucc/
coll_ucc_debug.h, oshmem/mca/memheap), DCGM's plog record with the level before ('<time> ERROR [pid:tid] ...')."""

import re

import pytest

from gpudoctor.explain import srcprov

_FILE = re.compile(srcprov._FILE)


@pytest.mark.parametrize("line, want", [
    ("E1127 12:00:00.123456   1234 server.go:12] boom", ("E", "glog")),
    ("[E socket.cpp:860] [c10d] connect failed", ("E", "glog")),
    ("[W109 22:46:25.933527530 ProcessGroupNCCL.cpp:632] warn", ("W", "glog")),
    ("[1700000000.1] [n1:123:0] ib_iface.c:123  UCX  ERROR ibv_create_cq failed", ("ERROR", "ucx")),
    ("[1700000000.1] [n1:123:0] ib_iface.c:123  UCX  WARN ibv_create_cq failed", ("WARN", "ucx")),
    ("n1:1:2 [0] transport.cc:150 NCCL WARN failed", ("WARN", "nccl")),
    ("x.c:10 ERROR failed", ("ERROR", "after")),
    ("x.c:10: FATAL failed", ("FATAL", "after")),
    ("x.c:10 TRACEfoo", ("TRACEFOO", "after")),
    ("x.c:10 DIAG d", ("DIAG", "after")),
    ("x.c:10 PRINT p", ("PRINT", "after")),
    ("proxy.cc:10 warning something", (None, None)),  # a lower-case word is no level
    ("[n1:1] Error: coll_ucc_module.c:100 - mca_coll_ucc_init() failed", ("ERROR", "before")),
    ("[n1:1] Warning: memheap_base_mkey.c:100 - memheap_oob_get_mkeys() failed", ("WARN", "before")),
    ("Error: coll_ucc_module.c:100 - init() failed", ("ERROR", "before")),
    ("Error:  x.c:10 - failed", ("ERROR", "before")),
    ("MyError: x.c:10 - failed", (None, None)),  # an exception's class, not the macro's word
    ("2024-01-01 12:00:00.000 ERROR [1:2] message [dcgm.cpp:10] [fn]", ("ERROR", "before")),
    ("INFO then WARNING x.c:10 - failed", ("WARNING", "before")),  # the last level word before the file
    ("FATAL aa " + "b" * 300 + " x.c:10 - failed", (None, None)),  # 200 characters back at most
    ("nothing x.c:10 - failed", (None, None)),
])
def test_level_form(line, want):
    m = _FILE.search(line)
    assert srcprov.level_form(line, m.group("path"), m.group("rest")) == want
    assert srcprov.level(line, m.group("path"), m.group("rest")) == want[0]


def test_a_path_the_text_does_not_hold_reads_the_path_alone():
    assert srcprov.level_form("no file here", "server.go", "] boom") == (None, None)
    assert srcprov.level_form("no file here", "server.go", " ERROR x") == ("ERROR", "after")
    # a level word in a text that does not hold the path is not read as the one before it
    assert srcprov.level_form("ERROR no file here", "x.c", " - failed") == (None, None)

"""The shell, exec and startup layer (issue 18, exec29): what bash, dash, coreutils' env / nohup / timeout, glibc's
loader and CPython print when a rank's program cannot start, read from their sources by tools/gen_exec_messages.py
(generated/exec_messages.json; families in gpudoctor/data/knowledge/exec.toml). Every text below was printed here by
the real programs of Debian 12 (bash 5.2.15, dash 0.5.12, coreutils 9.1, glibc 2.36, CPython 3.11.7, Open MPI 4.1.4,
pdsh 2.34): fixtures/recorded/exec29/record.sh re-records them."""

import json
import os
import re
import sys

import pytest

from gpudoctor import explain

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REC = os.path.join(REPO, "fixtures", "recorded", "exec29")
SLICE = os.path.join(REPO, "tools", "data", "exec_messages_slice.txt")
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_exec_messages as gen  # noqa: E402
import knowgen  # noqa: E402


def _text(name):
    with open(os.path.join(REC, name + ".txt"), encoding="utf-8") as f:
        return f.read()


def _fixes(f):
    return "\n".join(x for c in f["causes"] for x in (c.get("fix") or []))


def test_generator_regenerates_the_committed_sites_from_the_slice(tmp_path):
    got = knowgen.regenerated(gen.main, SLICE, tmp_path / "exec_messages.json")
    full = knowgen.committed("exec_messages")
    assert got["header"]["version"] == full["header"]["version"]
    assert re.search(r"bash-5\.2 \(commit [0-9a-f]{40}\).*v9\.1 \(commit [0-9a-f]{40}\)", full["header"]["version"])
    strip = [{k: v for k, v in s.items() if k != "needles"} for s in full["sites"]]
    assert [{k: v for k, v in s.items() if k != "needles"} for s in got["sites"]] == strip
    by = {(s["program"], s["text"], s.get("family")): s for s in full["sites"]}
    # the exit status each goes with, from the source's own constants
    assert by[("bash", "%s: cannot execute: required file not found", "exec.interpreter_missing")]["status"] == 127
    assert by[("bash", "%s: cannot execute binary file: %s", "exec.format_error")]["status"] == 126
    assert by[("env", "use -[v]S to pass options in shebang lines", "exec.env_shebang_args")]["status"] == 125
    # a shell's 'command not found' is named with the readers that already answer it, not matched twice
    nf = by[("bash", "%s: command not found", None)]
    assert "failshape.py" in nf["covered_by"] and nf["status"] == 127
    assert full["unassigned"] == sorted(s["id"] for s in full["sites"] if not s.get("family"))


def test_every_assigned_site_is_bounded_and_matches_in_its_programs_line_form():
    full = knowgen.committed("exec_messages")
    for s in full["sites"]:
        if not s.get("family"):
            continue
        # no unbounded repetition: every '*' / '+' outside a character class is an escaped literal
        bare = re.sub(r"\\.", "", re.sub(r"\[(?:\\.|[^\]\\])*\]", "", s["re"]))
        assert "*" not in bare and "+" not in bare, s["id"]
        re.compile(s["re"])
    rx = {s["id"]: re.compile(s["re"]) for s in full["sites"] if s.get("family")}
    assert any(r.search("bash: line 1: ./x: Permission denied") for r in rx.values())
    # a bare 'Permission denied' of any program is not bash's exec failure
    assert not any(r.search("Permission denied") for i, r in rx.items() if "permission" in i)


@pytest.mark.parametrize("name,root,fix", [
    # a venv's console script whose #! python is not on this node (bash 5.2), and the same under dash
    ("bash_shebang_missing", "exec.interpreter_missing", "python -m torch.distributed.run"),
    # (dash says 'not found' for a missing file and for a missing #! interpreter alike: both are told apart by the fix)
    ("sh_shebang_missing", "exec.program_missing", "head -1"),
    # a #! line with CRLF line ends: bash 5.2 no longer shows the ^M; both causes are given, CRLF with dos2unix
    ("bash_crlf_shebang", "exec.interpreter_missing", "dos2unix"),
    ("bash_crlf_run", "shell.crlf_line_ends", "dos2unix"),
    # the interpreter is there but not executable
    ("bash_bad_interpreter_eacces", "exec.interpreter_missing", "findmnt -T"),
    # a dash builtin's own error carries its name: '<script>: 1: set: Illegal option -o pipefail'
    ("dash_pipefail", "shell.dash_bashism", "#!/bin/bash"),
    # '#!/usr/bin/env python3 -u': env looks for 'python3 -u' (UTF-8 quotes and the C locale's)
    ("env_two_words", "exec.env_shebang_args", "env -S"),
    ("env_two_words_c", "exec.env_shebang_args", "env -S"),
    ("env_missing", "exec.program_missing", "absolute path"),
    ("nohup_missing", "exec.program_missing", "absolute path"),
    ("timeout_missing", "exec.program_missing", "absolute path"),
    ("dash_cmd_not_found", "exec.program_missing", ". <venv>/bin/activate"),
    # bash-only syntax under dash: 'source: not found', 'Syntax error: "fi" unexpected'
    ("dash_source", "shell.dash_bashism", "#!/bin/bash"),
    ("dash_source_c", "shell.dash_bashism", "bash -c"),
    ("dash_syntax", "shell.dash_bashism", "#!/bin/bash"),
    ("bash_unbound", "shell.unbound_variable", "${NAME:-default}"),
    ("bash_unbound_script", "shell.unbound_variable", "before the"),
    ("bash_syntax", "shell.syntax_error", "bash -n"),
    ("bash_permission", "exec.not_executable", "chmod +x"),
    ("bash_exec_format", "exec.format_error", "uname -m"),
    ("bash_exec_format_short", "exec.format_error", "uname -m"),
    ("bash_txtbsy", "exec.text_busy", "mv it into place"),
    ("bash_e2big", "exec.arg_list_too_long", "xargs"),
    # CPython with PYTHONHOME naming another Python: alone, and behind pdsh running DeepSpeed's remote command
    ("py_pythonhome", "python.startup_stdlib", "unset PYTHONHOME"),
    ("pdsh_pythonhome_ds", "python.startup_stdlib", "unset PYTHONHOME"),
    # pdsh's 'exited with exit code 127' echoes the node's 'command not found': that line is the root
    ("pdsh_not_found", "code.python_env", "<env>/bin/torchrun"),
    # the loader's and mpirun's own messages keep their existing entries
    ("ld_missing_lib", "loader.cannot_open", "LD_LIBRARY_PATH"),
    ("ld_glibc_version", "loader.version_not_found", "glibc"),
    ("mpirun_missing", "mpi.exec_not_found", "full path"),
])
def test_what_the_programs_printed_here_gets_its_family_and_fix(kb, name, root, fix):
    res = explain.explain_text(_text(name), kb)
    f = res["findings"][0]
    assert f["id"] == root and f["role"] == "root", [(x["id"], x["role"]) for x in res["findings"]]
    assert fix in _fixes(f), _fixes(f)


def test_a_deepspeed_run_is_no_longer_read_from_pdsh_alone_nor_from_pythons_own_stdlib(kb):
    # the remote env entry needs DeepSpeed's own mark; the PYTHONHOME failure is the interpreter's start
    for name in ("pdsh_not_found", "pdsh_pythonhome_ds"):
        ids = [x["id"] for x in explain.explain_text(_text(name), kb)["findings"]]
        assert ids[0] != "deepspeed.remote_env", ids
    # a DeepSpeed pdsh command line with a package missing on the other node still is DeepSpeed's remote env
    ds = ("[2026-11-28 10:00:01,123] [INFO] [multinode_runner.py:80:get_cmd] Running on the following workers: "
          "node1,node2\ncmd = pdsh -S -f 1024 -w node1,node2 export PYTHONPATH=/work; cd /work; /opt/venv/bin/python "
          "-u -m deepspeed.launcher.launch --world_info=eyJ9 --node_rank=%n train.py\n"
          "node2: ModuleNotFoundError: No module named 'transformers'\n")
    assert explain.explain_text(ds, kb)["findings"][0]["id"] == "deepspeed.remote_env"


def test_healthy_runs_of_the_same_programs_are_healthy(kb):
    # env -S splitting the #! line's options: the script ran
    assert explain.explain_text(_text("env_split_ok"), kb)["verdict"] == "no_error"
    # a job script that printed its steps and ended well
    ok = "$ bash job.sh\n+ source /work/venv/bin/activate\n+ torchrun --nproc_per_node 8 train.py\nstep 100 loss 2.31\n"
    assert explain.explain_text(ok, kb)["verdict"] == "no_error"


def test_other_programs_permission_denied_and_a_build_s_missing_compiler_keep_their_answers(kb):
    # seen sets' lines (bench/data, planted 2026-11-26/27): torch's own strerror and a TCPStore bind refused are no
    # shell's exec failure; a compiler the DeepSpeed op builder runs through /bin/sh is the op build's
    lines = {
        "RuntimeError: [enforce fail at inline_container.cc:747] . open file failed with strerror: Permission denied":
            "exec.not_executable",
        "torch.distributed.DistNetworkError: The server socket has failed to bind. port: 443, useIpv6: 0, code: -13, "
        "name: EACCES, message: permission denied": "exec.not_executable",
    }
    for line, not_this in lines.items():
        ids = [x["id"] for x in explain.explain_text(line + "\n", kb)["findings"]]
        assert not_this not in ids, (line, ids)
    full = knowgen.committed("exec_messages")
    dash_path = next(s for s in full["sites"] if s["id"] == "exec.dash_path_not_found")
    assert dash_path["family"] == "exec.program_missing"  # rank 45: a more specific entry (deepspeed.ops) keeps it
    assert re.search(dash_path["re"], "[rank0]: /bin/sh: 1: /usr/bin/g++-10: not found")


def test_glibc_2_41_refusing_an_executable_stack_and_a_library_of_the_wrong_class(kb):
    # glibc 2.41+ (elf/dl-load.c): libffi/libffi#898 (an ImportError through ctypes), jsoftware/jsource#225 (a dlopen
    # its program reports), HyperInspire/InspireFace#229 (the message alone)
    for text in ("ImportError: libffi.so.8: cannot enable executable stack as shared object requires: Invalid argument\n",
                 "Load library j9.6/bin/libj.so failed: j9.6/bin/libj.so: cannot enable executable stack as shared "
                 "object requires: Invalid argument\n",
                 "cannot enable executable stack as shared object requires: Invalid argument\n"):
        f = explain.explain_text(text, kb)["findings"][0]
        assert f["id"] == "loader.execstack" and "patchelf --clear-execstack" in _fixes(f)
        assert "glibc.rtld.execstack=2" in _fixes(f)
    # dlopen's 'wrong ELF class' as Python prints it: recorded here, and TA-Lib/ta-lib-python#273, pypxlib#10
    for text in (_text("ld_wrong_class_dlopen"),
                 "    from ._ta_lib import (\nImportError: libta_lib.so.0: wrong ELF class: ELFCLASS32\n",
                 "OSError: /usr/local/lib/python3.4/dist-packages/pypxlib/pxlib_ctypes/libpx.so: wrong ELF class: "
                 "ELFCLASS64\n"):
        f = explain.explain_text(text, kb)["findings"][0]
        assert f["id"] == "loader.cannot_open", text
        assert "wrong ELF class" in f["causes"][0]["text"]


def test_bashs_own_wording_is_read_without_its_prefix_and_errno_texts_are_not(kb):
    # a paste often drops 'bash: ' (the interactive shell's name): bash's own sentences are still bash's
    f = explain.explain_text("/opt/venv/bin/accelerate: /opt/venv/bin/python3: bad interpreter: Permission denied\n",
                             kb)["findings"][0]
    assert f["id"] == "exec.interpreter_missing" and "chmod +x" in _fixes(f)
    # an errno text needs the shell's line form
    assert "exec.not_executable" not in [x["id"] for x in explain.explain_text(
        "./train.sh: Permission denied\n", kb)["findings"]]
    f = explain.explain_text("-bash: ./train.sh: Permission denied\n", kb)["findings"][0]
    assert f["id"] == "exec.not_executable"


def test_an_echoed_exit_status_of_127_or_126_says_what_to_look_for(kb):
    # srun's and pdsh's own report lines (srun/libsrun, pdsh's 'exited with exit code'): only the echo is in the text
    res = explain.explain_text("srun: error: node1: task 0: Exited with exit code 127\n", kb)
    assert res["verdict"] == "echo_only"
    note = next(n for n in res["findings"][0]["notes"] if n.startswith("Exit status 127"))
    assert "could not find the command" in note and "<cmd>: command not found (bash)" in note
    assert "<cmd>: not found (dash)" in note
    res = explain.explain_text("pdsh@login: node1: ssh exited with exit code 126\n", kb)
    note = next(n for n in res["findings"][0]["notes"] if n.startswith("Exit status 126"))
    assert "<cmd>: Permission denied (bash)" in note
    # another status is the program's own: no such note
    res = explain.explain_text("srun: error: node1: task 0: Exited with exit code 1\n", kb)
    assert not any(n.startswith("Exit status") for f in res["findings"] for n in f["notes"])

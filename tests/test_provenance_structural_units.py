"""provenance.py's structural readers one at a time (family16's shadowed_stdlib, _cant_open, _first_output, bare_line;
mutation17, docs/mutation.md "Round 12"): the scan, the knowledge and structural_finding are stand-ins here, so each
reader's own choices are asserted - what it hands structural_finding (the why, how sure), the note it adds, which line
it reads and where it stops. The lines are the programs' own: CPython's 'can't open file' (Modules/main.c
pymain_run_file_obj) and fatal-error header (Python/pylifecycle.c), runc's 'exec <path>: <strerror>', pdsh's
'pdsh@<host>:' prefix (src/common/err.c). The whole paths are tests/test_explain_provenance.py's and
tests/test_explain_python_fatal.py's (runs made here)."""

from types import SimpleNamespace as NS

from gpudoctor.explain import provenance

CANT_OPEN = "python3: can't open file '/workspace/train.py': [Errno 2] No such file or directory"
ENTRIES = ("launcher.script_missing", "container.oci_runtime", "code.python_env", "pdsh.error")


def _hit(line, text="", **groups):
    return NS(line=line, text=text, groups=groups, severity="error", pattern=None)


def _scan(errors=(), **matches):
    return NS(errors=list(errors), matches=matches, outcomes=[], match_lines={})


KB = NS(by_id={e: {"id": e} for e in ENTRIES})


def _calls():
    calls = []

    def structural_finding(entry, hit, why, scan, sure=None):
        calls.append((entry["id"], hit.line, why, sure))
        return {"notes": []}
    return calls, structural_finding


def test_cant_open_said_whole():
    calls, sf = _calls()
    f = provenance._cant_open(_scan([_hit(3, "  " + CANT_OPEN + "  ")]), KB, sf)
    assert calls == [("launcher.script_missing", 3, "the interpreter's own refusal to open the script it was given "
                                                    "(python3: can't open file)", "medium")]
    assert f["notes"] == [
        "python3 was started with '/workspace/train.py' as its script, and no such file is where it ran: a path "
        "relative to another working directory (a container image's WORKDIR, the directory a launcher or a batch "
        "script starts in), a file only on another node, or a program's name given where a script was expected (an "
        "image whose entrypoint is python, started with 'torchrun ...' as its arguments)."]


def test_cant_open_reads_the_first_64_error_lines():
    others = [_hit(n, "ERROR: step %d failed" % n) for n in range(1, 64)]
    calls, sf = _calls()
    assert provenance._cant_open(_scan(others + [_hit(64, CANT_OPEN)]), KB, sf)["notes"]  # the 64th: read
    assert calls[0][1] == 64
    calls, sf = _calls()
    assert provenance._cant_open(_scan(others + [_hit(64, "x"), _hit(65, CANT_OPEN)]), KB, sf) is None  # the 65th
    assert calls == []
    assert provenance._cant_open(_scan([_hit(1, CANT_OPEN)]), NS(by_id={}), sf) is None  # no entry: no answer


RUNC = "exec /opt/app/entrypoint.sh: no such file or directory"


def test_first_output_said_whole():
    calls, sf = _calls()
    scan = _scan([_hit(8, RUNC)], _struct_shell=[_hit(7, "$ podman run img", prog="podman")])
    f = provenance._first_output(scan, KB, sf)
    assert calls == [("container.oci_runtime", 8, "the first line 'podman' printed after it was started", None)]
    assert f["notes"] == ["Printed by podman (or what it started) as the first line after the command: it stopped "
                          "before running what it was given. Its own message names what it refused; rerun the "
                          "command alone to see it again."]


def test_first_output_reads_the_first_64_error_lines():
    others = [_hit(n, "ERROR: x") for n in range(100, 163)]
    shell = [_hit(199, "$ docker run img", prog="docker")]
    calls, sf = _calls()
    assert provenance._first_output(_scan(others + [_hit(200, RUNC)], _struct_shell=shell), KB, sf) is not None
    calls, sf = _calls()
    assert provenance._first_output(_scan(others + [_hit(198, "x"), _hit(200, RUNC)], _struct_shell=shell), KB,
                                    sf) is None and calls == []


def _fatal(msg_line, state_line, msg="failed to get random numbers to initialize Python"):
    return [_hit(msg_line, "Fatal Python error: " + msg, msg=msg),
            _hit(state_line, "Python runtime state: preinitialized", state="preinitialized")]


def test_fatal_error_said_whole():
    calls, sf = _calls()
    f = provenance.bare_line(_scan(_struct_pyfatal=_fatal(4, 7)), KB, sf)  # the state 3 lines after: read
    assert calls == [("code.python_env", 4, "CPython's fatal error while it started ('Python runtime state: "
                                            "preinitialized')", None)]
    assert f["notes"] == [
        "The interpreter stopped before any line of the program ran (failed to get random numbers to initialize "
        "Python): its configuration is wrong - a PYTHON* environment variable (PYTHONHASHSEED, PYTHONHOME, "
        "PYTHONPATH), another Python's paths carried into this environment, or the install itself. Run `env | grep "
        "^PYTHON` where the job runs and unset or fix what it names."]
    calls, sf = _calls()
    assert provenance.bare_line(_scan(_struct_pyfatal=_fatal(4, 8)), KB, sf) is None and calls == []  # 4 after
    calls, sf = _calls()
    f = provenance.bare_line(_scan(_struct_pyfatal=_fatal(1, 2, msg="  " + "m" * 300)), KB, sf)
    assert "ran (%s):" % ("m" * 200) in f["notes"][0]  # the message kept to 200 characters


def test_bare_line_hands_printer_its_structural_finding():
    calls, sf = _calls()
    f = provenance.bare_line(_scan([_hit(2, "pdsh@login1: node07: ssh exited with exit code 255")]), KB, sf)
    assert calls == [("pdsh.error", 2, "pdsh's own error line ('pdsh@<host>: ...')", None)]
    assert f["notes"][0].startswith("Printed by pdsh itself")


STDLIB = "/usr/lib/python3.11/tokenize.py"


def _tb(exc="AttributeError", msg="module 'token' has no attribute 'EXACT_TOKEN_TYPES'", frames=None):
    return {"exc": exc, "msg": msg, "frames": [("/home/u/train.py", 3), (STDLIB, 35)] if frames is None else frames}


def test_shadowed_stdlib_reads_the_class_the_module_and_the_innermost_frame():
    assert provenance.shadowed_stdlib(_tb()) == "token"
    assert provenance.shadowed_stdlib(_tb(exc="builtins.AttributeError")) == "token"  # the class's last part
    assert provenance.shadowed_stdlib(_tb(exc="my.pkg.AttributeError")) == "token"
    assert provenance.shadowed_stdlib(_tb(exc="ImportError")) is None  # only an AttributeError
    assert provenance.shadowed_stdlib(_tb(msg="module 'os.path' has no attribute 'x'")) == "os.path"  # 'os' is
    assert provenance.shadowed_stdlib(_tb(msg="module 'mylib' has no attribute 'x'")) is None  # not the stdlib's
    assert provenance.shadowed_stdlib(_tb(msg=None)) is None
    assert provenance.shadowed_stdlib(_tb(frames=[])) is None  # no frame
    assert provenance.shadowed_stdlib(_tb(frames=[(STDLIB, 35), ("/home/u/train.py", 3)])) is None  # the user's last

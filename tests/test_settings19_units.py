"""envcause.py's four readers asserted whole (mutation round 15, docs/mutation.md): _cvd, _crlf, _not_exported and
_statements, called on a State as record() / record_paste() fill it, each output line compared in full.

test_explain_settings19.py reads the real texts (fixtures/explain/settings19/, the p28 / p29 seen texts) through
explain and checks a phrase of each cause; round 14 left 126 mutants of these four readers alive (a word of the
cause's text, the fix's other branch, the evidence order, a bound). The texts below are the shapes those real runs
print: bash's $'python\\r' for a CRLF script line (bash 5.2), pdsh's 'node1\\r: hostname contains invalid characters'
split at the carriage return, CUDA_VISIBLE_DEVICES="0;1" / "0 1" / "" (CUDA C++ Programming Guide, "CUDA Environment
Variables"), a KeyError for a variable set without export (bash manual, Environment)."""

from gpudoctor.explain import envcause as E

CUDA_TAIL = (" (the CUDA Programming Guide's environment variables: \"a comma-separated sequence of GPU identifiers\"; "
             "\"only the devices whose index precedes the invalid index are visible\"; "
             "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#cuda-environment-variables).")
UNSET = "or unset CUDA_VISIBLE_DEVICES (every GPU of the node)"
GENERIC = "write it as comma-separated GPU indices or UUIDs (CUDA_VISIBLE_DEVICES=0,1), or unset CUDA_VISIBLE_DEVICES"
ORDINAL = {"id": "cuda.invalid_device_ordinal", "family": "cuda"}


def _cvd(*values, root=ORDINAL):
    st = E.State()
    for i, v in enumerate(values):
        st.env.append((i + 1, "CUDA_VISIBLE_DEVICES", v, "cmd", "CUDA_VISIBLE_DEVICES=%s python x.py" % v))
    return E._cvd(st, root)


def _bad(v, shown, bad, fix):
    return ("CUDA_VISIBLE_DEVICES is set to '%s' (line 1), which is not a comma-separated list of GPU indices or "
            "UUIDs: CUDA reads the list only up to the first identifier it cannot parse ('%s'), so at most the GPUs "
            "before it are visible" % (shown, bad) + CUDA_TAIL, [fix, UNSET])


def _one(out):
    assert len(out) == 1, out
    where, c = out[0]
    return where, c["text"], c["fix"], [(e["line"], e["text"]) for e in c["evidence"]]


def test_cvd_another_separator_gets_the_comma_form():
    where, text, fix, ev = _one(_cvd("0;1"))
    comma = "CUDA_VISIBLE_DEVICES=0,1   (commas between the GPUs)"
    assert where == "first" and (text, fix) == _bad("0;1", "0;1", "0;1", comma)
    assert ev == [(1, "CUDA_VISIBLE_DEVICES=0;1 python x.py")]
    # blanks: split(',') keeps '0 1' one item (CUDA stops there); the value is shown stripped
    assert _one(_cvd(" 0 1 "))[1:3] == _bad("0 1", "0 1", "0 1", "CUDA_VISIBLE_DEVICES=0,1   (commas between the GPUs)")


def test_cvd_the_first_bad_item_and_the_generic_fix():
    # a comma list that goes wrong at its second item: CUDA sees GPU 0 only; the mixed form gets no rewrite
    assert _one(_cvd("0,1;2"))[1:3] == _bad("0,1;2", "0,1;2", "1;2", GENERIC)
    assert _one(_cvd("abc"))[1:3] == _bad("abc", "abc", "abc", GENERIC)  # no integer to join
    assert _one(_cvd("0;x"))[1:3] == _bad("0;x", "0;x", "0;x", GENERIC)  # an integer, but a word too


def test_cvd_empty_hides_every_gpu():
    where, text, fix, ev = _one(_cvd(""))
    assert where == "first"
    assert text == ("CUDA_VISIBLE_DEVICES is set to the empty string (line 1): an empty list names no GPU, so CUDA "
                    "sees none" + CUDA_TAIL)
    assert fix == ["unset CUDA_VISIBLE_DEVICES (every GPU of the node), or list the GPUs it should see, "
                   "comma-separated (CUDA_VISIBLE_DEVICES=0,1 for the first two)"]


def test_cvd_well_formed_values_and_other_roots_say_nothing():
    for v in ("0,1", "GPU-ab12, 1", "MIG-GPU-ab/1/0", "3"):
        assert _cvd(v) == [], v
    assert _cvd("0;1", root={"id": "nccl.unhandled_cuda_error", "family": "nccl"}) == []
    assert _cvd("0;1", "0,1") == []  # the last value the text shows counts (an env dump after the script's default)


# ------------------------------------------------------------------ _crlf

def _crlf(root, cmds=(), cr=None):
    st = E.State()
    st.cmds, st.cr = list(cmds), cr
    return E._crlf(root, st)


def _dos2unix(name):
    return ["dos2unix %s   (or sed -i 's/\\r$//' %s); `file %s` says 'with CRLF line terminators' before, and "
            "`cat -A %s` shows '^M$' at each line end" % (name, name, name, name)]


def _crlf_text(line, how, src):
    return ("Line %d %s: the file that value was read from (%s) has Windows (CRLF) line ends, so each line keeps its "
            "'\\r' and the name or value is not what was written." % (line, how, src))


QUOTES = "quotes a value that ends in a carriage return ('\\r' / '^M')"
BASH_CR = "bash: line 1: $'python\\r': command not found"
PDSH = {"id": "pdsh.invalid_hostname", "family": "pdsh", "matches": [{"line": 3, "text": BASH_CR}]}


def test_crlf_names_the_hostfile_of_the_command_before_the_error():
    # a command line with no file (a pdsh on a host list), the hostfile's pdsh, one on the error's own line and one
    # after it: only the hostfile's before the error line is the file
    cmds = [(0, "$ pdsh -w node[1-2] hostname"), (1, "$ pdsh -w ^machines hostname"), (3, "$ pdsh -w ^same hostname"),
            (5, "$ pdsh -w ^later hostname")]
    assert _one(_crlf(PDSH, cmds)) == ("first", _crlf_text(3, QUOTES, "machines, line 1"), _dos2unix("machines"),
                                       [(1, "$ pdsh -w ^machines hostname"), (3, BASH_CR)])


def test_crlf_a_file_printed_with_cat_and_a_name_with_a_shell_character():
    assert _one(_crlf(PDSH, [(1, "$ cat env.sh")]))[1:] == (
        _crlf_text(3, QUOTES, "env.sh, line 1"), _dos2unix("env.sh"), [(1, "$ cat env.sh"), (3, BASH_CR)])
    # the name is shown as read, but a name with '$(...)' is no word to paste into a shell (review19)
    out = _one(_crlf(PDSH, [(1, "$ bash $(pwd)/run.sh")]))
    assert out[1:3] == (_crlf_text(3, QUOTES, "$(pwd)/run.sh, line 1"), _dos2unix("<the hostfile / script>"))


def test_crlf_a_line_split_at_the_carriage_return():
    split = ": hostname contains invalid characters\n"
    colon = {"id": "pdsh.x", "family": "pdsh", "matches": [{"line": 4, "text": split}]}
    how = ("starts with ': ': the value printed before it (a host name, a path, the line above) ended in a carriage "
           "return, which sent the rest of the message to the start of a line")
    assert _one(_crlf(colon)) == ("first", _crlf_text(4, how, "a hostfile, a script, an env file"),
                                  _dos2unix("<the hostfile / script>"), [(4, split)])
    # not under a root whose tool does not print 'NAME: message' from a file; not where the ': ' is not the start
    assert _crlf(dict(colon, id="cuda.x", family="cuda")) == []
    assert _crlf(dict(colon, matches=[{"line": 4, "text": " : hostname contains invalid characters"}])) == []


def test_crlf_a_raw_carriage_return_inside_or_at_the_end_of_printed_lines():
    root = {"id": "cuda.x", "matches": []}
    inside = _one(_crlf(root, cr=(6, "node1 : No route to host", "inside", 2, "$ ssh node1")))
    assert inside == ("first", _crlf_text(6, "holds a carriage return inside the line (the text has it raw): the value "
                                             "printed before it ended in '\\r'", "a hostfile, a script, an env file"),
                      _dos2unix("<the hostfile / script>"), [(6, "node1 : No route to host")])
    cat = "$ cat " + "h" * 100
    end = _one(_crlf(root, cr=(6, "node1", "end", 2, cat)))
    how = "ends in a carriage return, as every line of the file printed above it (line 2: %s)" % cat[:80]
    assert end == ("mid", _crlf_text(6, how, "h" * 100 + ", line 2"), _dos2unix("h" * 100), [(2, cat), (6, "node1")])
    assert _crlf(root) == []


# ------------------------------------------------------------------ _not_exported

BASH = ("bash passes only exported variables to the commands it starts (bash manual, Environment: "
        "https://www.gnu.org/software/bash/manual/bash.html#Environment)")


def _unexported(who=None, assign="DATA_ROOT=/data", aline=2, mline=9, exported=(), prefixed=(), var="DATA_ROOT"):
    st = E.State()
    st.assigned[var] = (aline, "  " + assign, assign)
    st.missing.append((mline, var, "KeyError: '%s'" % var))
    st.exported.update(exported)
    st.prefixed.update(prefixed)
    if who:
        st.launch[who] = (4, "%s train.py" % who)
    return E._not_exported(st, {"id": "code.exception"})


def _unexported_text(extra="", assign="DATA_ROOT=/data", var="DATA_ROOT"):
    return ("%s is set as a shell variable (line 2: %s) but never exported, and the process that raised (line 9) had "
            "no %s: " % (var, assign, var) + BASH + extra + ".")


EXPORT = "export DATA_ROOT   (`export DATA_ROOT=/data` instead of `DATA_ROOT=/data`)"


def test_not_exported_without_and_with_each_launcher():
    assert _one(_unexported()) == ("first", _unexported_text(), [EXPORT],
                                   [(2, "  DATA_ROOT=/data"), (9, "KeyError: 'DATA_ROOT'")])
    ev = [(2, "  DATA_ROOT=/data"), (4, "%s train.py"), (9, "KeyError: 'DATA_ROOT'")]
    for who, extra, more in (
            ("torchrun", E._PROPAGATE["torchrun"], []),
            ("mpirun", E._PROPAGATE["mpirun"], ["or give mpirun the value itself: mpirun -x DATA_ROOT=/data ...   (-x "
                                                "VAR alone forwards only an exported VAR)"]),
            ("deepspeed", E._PROPAGATE["deepspeed"], ["echo DATA_ROOT=/data >> ~/.deepspeed_env   (DeepSpeed's runner "
                                                      "then sets it on every node)"]),
            ("pdsh", E._PROPAGATE["pdsh"], []), ("srun", E._PROPAGATE["srun"], [])):
        assert _one(_unexported(who)) == ("first", _unexported_text("; " + extra), [EXPORT] + more,
                                          [(ln, t % who if "%s" in t else t) for ln, t in ev]), who
    assert E._PROPAGATE["deepspeed"].startswith("DeepSpeed's multi-node runner passes")


def test_not_exported_the_assignment_shown_and_cut():
    # a value with a shell character is written VAR=<value> in the lines to paste; a lower-case name is a name too
    out = _one(_unexported(assign='DATA_ROOT="$HOME/d"'))
    assert out[1:3] == (_unexported_text(assign='DATA_ROOT="$HOME/d"'),
                        ["export DATA_ROOT   (`export DATA_ROOT=<value>` instead of `DATA_ROOT=<value>`)"])
    low = _one(_unexported(assign="data_root=/d", var="data_root"))
    assert low[2] == ["export data_root   (`export data_root=/d` instead of `data_root=/d`)"]
    long = "DATA_ROOT=/" + "d" * 200
    assert _one(_unexported(assign=long))[1] == _unexported_text(assign=long[:120])


def test_not_exported_only_a_variable_set_bare_before_the_error():
    assert _unexported(exported=["*"]) == []  # set -a
    assert _unexported(exported=["DATA_ROOT"]) == []
    assert _unexported(prefixed=["DATA_ROOT"]) == []  # 'DATA_ROOT=/data python x.py': in that command's environment
    assert _unexported(aline=10) == []  # set after the error
    assert len(_unexported(aline=9)) == 1  # the same line (a prompt line that sets it and runs)


# ------------------------------------------------------------------ _statements

def _statements(text, st=None):
    st = st or E.State()
    E._statements(st, 7, text)
    return st


def test_statements_assigned_exported_prefixed_and_launchers():
    st = _statements("$ A=1 B='x y'; export C=2 D; declare -x e; F=3 torchrun train.py && mpirun -np 2 x")
    assert st.assigned == {"A": (7, st.assigned["A"][1], "A=1"), "B": (7, st.assigned["A"][1], "B='x y'")}
    assert st.assigned["A"][1] == "$ A=1 B='x y'; export C=2 D; declare -x e; F=3 torchrun train.py && mpirun -np 2 x"
    assert st.exported == {"C", "D", "e"} and st.prefixed == {"F"}
    assert sorted(st.launch) == ["mpirun", "torchrun"]
    # the prompt's '$ ' is cut once: a second '$ ' is the statement's own
    assert _statements("$ $ A=1").assigned == {}


def test_statements_bounds():
    # the first 16 statements of a line are read; the first assignment of a name is kept; 64 names at most
    st = _statements("; ".join("V%d=1" % i for i in range(17)))
    assert sorted(st.assigned, key=lambda k: int(k[1:])) == ["V%d" % i for i in range(16)]
    st = E.State()
    for i in range(64):
        st.assigned["K%d" % i] = (1, "K%d=1" % i, "K%d=1" % i)
    assert "Z" not in _statements("Z=1", st).assigned
    long = "$ A=1; torchrun " + "x" * 500
    st = _statements(long)
    assert st.assigned["A"][1] == long[:400] and st.launch["torchrun"] == (7, long[:400])
    st = _statements("A=1")
    _statements("A=2", st)
    assert st.assigned["A"][2] == "A=1"

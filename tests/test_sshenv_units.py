"""explain/sshenv.py's readers one at a time (mutation16, docs/mutation.md "Round 11"): the ssh command line's host,
remote command and exported names; an `export` line; the error naming the variable; and read's choice of what the ssh
line left behind. The whole path through explain_text is tests/test_explain_ssh_messages.py's (texts made with ssh
9.2p1)."""

from types import SimpleNamespace

import pytest

from gpudoctor.explain import sshenv
from gpudoctor.explain.launchctx import Found


@pytest.mark.parametrize("text,want", [
    ("$ export MASTER_ADDR=10.0.0.1 MASTER_PORT=29500; ssh -F /tmp/cfg node2 'python3 /tmp/join.py'",
     ("node2", "python3 /tmp/join.py", {"MASTER_ADDR", "MASTER_PORT"})),
    # options with a value (-p, -o, -l, -i) take the next word; a flag (-v, -4) or a joined value (-oX=y) does not
    ("[u@h ~]$ export A=1 && ssh -p 2222 -o StrictHostKeyChecking=no -v -4 -l root -oBatchMode=yes node3 cmd arg ; echo x",
     ("node3", "cmd arg", {"A"})),
    # each separator ends the remote command; a second export before ssh and a plain assignment count too
    ("# export A=1; B=2 C=3 env; D=4; ssh n1 run && next", ("n1", "run", {"A", "B", "C", "D"})),
    ("$ ssh n1 a || b", ("n1", "a", set())),
    ("$ ssh n1 a | b", ("n1", "a", set())),
    ("$ ssh n1 a & b", ("n1", "a", set())),
    # a prompt before ssh: only what follows the last '$ ' or '# ' is the command line
    ("old$ export Z=1 ;x$ export A=1; ssh n1 c", ("n1", "c", {"A"})),
    ("x# export A=1; ssh n1 c", ("n1", "c", {"A"})),
    ("r# export Z=1 ;x# export A=1; ssh n1 c", ("n1", "c", {"A"})),
    ("export A=1;ssh n1 c", ("n1", "c", {"A"})),
    ("> ssh n1 c", ("n1", "c", set())),
    ("% ssh\tn1 c", ("n1", "c", set())),
    ("ssh n1", ("n1", "", set())),
    ("$ ssh n1 'FOO=1 python x.py'", ("n1", "FOO=1 python x.py", set())),
])
def test_an_ssh_command_line(text, want):
    assert sshenv._ssh_line(text) == want


@pytest.mark.parametrize("text", ["$ sshd -D", "$ ssh -p", "$ ssh -v", "$ ssh -p 22", "$ ssh -v -F", "$ ssh n1 'unterminated", "echo ssh n1",
                                  "$ myssh n1 c", "$ ls; echo done"])
def test_no_ssh_command_line(text):
    assert sshenv._ssh_line(text) is None


def test_exported_names():
    assert sshenv._exported(["export", "A=1", "B_2=x", "cmd", "C=3"]) == {"A", "B_2"}
    assert sshenv._exported(["A=1", "cmd"]) == {"A"}
    assert sshenv._exported(["export"]) == set() and sshenv._exported([]) == set()
    assert sshenv._exported(["cmd", "A=1"]) == set() and sshenv._exported(["1A=2"]) == set()
    assert sshenv._words("a 'b c' #d") == ["a", "b c", "#d"] and sshenv._words("a 'b") is None
    assert len(sshenv._words("x " * 500)) == 400


def _hit(cls, line, text):
    return SimpleNamespace(pattern=SimpleNamespace(site={"class": cls}), line=line, text=text)


def _scan(*hits):
    scan = SimpleNamespace()
    for h in hits:
        sshenv.record(scan, h)
    return scan


def _found(*args, **kw):
    return Found(*args, **kw)


SSH = "$ ssh -F cfg node2 'python3 join.py'\n"


def test_record_keeps_the_three_kinds():
    scan = _scan(_hit("sshenv_export", 1, "$ export A=1 B=2 && export C=3; FOO=x\n"),
                 _hit("sshenv_export", 2, "$ export 1=2\n"),  # no name: not kept
                 _hit("sshenv_cmd", 3, SSH), _hit("sshenv_cmd", 4, "$ ssh node2\n"),  # a login: no remote command
                 _hit("sshenv_err", 5, "KeyError: 'DATA_ROOT'\n"),
                 _hit("sshenv_err", 6, "ValueError: Error initializing torch.distributed using env:// rendezvous: "
                                       "environment variable RANK expected, but not set\n"),
                 _hit("sshenv_err", 7, "KeyError: 0\n"),
                 _hit("sshenv_export", 8, "export Z=1\n"))  # no prompt: not an export line of the shell
    st = scan.sshenv
    assert st.exports == [(1, {"A", "B", "C", "FOO"}, "$ export A=1 B=2 && export C=3; FOO=x")]
    assert st.ssh == [(3, "node2", "python3 join.py", set(), SSH.strip())]
    assert st.err == [(5, "DATA_ROOT", "KeyError: 'DATA_ROOT'"), (6, "RANK", st.err[1][2])]
    assert st.err[1][2].endswith("RANK expected, but not set")


def test_record_keeps_at_most_max_kept_of_each():
    n = sshenv.MAX_KEPT
    hits = []
    for i in range(n + 2):
        hits += [_hit("sshenv_export", 3 * i + 1, "$ export A%d=1\n" % i), _hit("sshenv_cmd", 3 * i + 2, SSH),
                 _hit("sshenv_err", 3 * i + 3, "KeyError: 'A%d'\n" % i)]
    st = _scan(*hits).sshenv
    assert len(st.exports) == len(st.ssh) == len(st.err) == n
    assert st.err[-1][1] == "A%d" % (n - 1) and st.exports[-1][1] == {"A%d" % (n - 1)}


def _read(*hits):
    return sshenv.read(_scan(*hits), _found)


def test_read_a_job_variable_exported_on_an_earlier_line():
    got = _read(_hit("sshenv_export", 1, "$ export DATA_ROOT=/d\n"), _hit("sshenv_cmd", 2, SSH),
                _hit("sshenv_err", 9, "KeyError: 'DATA_ROOT'\n"))
    assert len(got) == 1
    x = got[0]
    assert x.eid == "_cause" and x.symptoms == {"code.exception", "code.library_error"}
    assert not hasattr(x, "instead") or x.instead is None
    assert x.ev == [(1, "$ export DATA_ROOT=/d"), (2, SSH.strip()), (9, "KeyError: 'DATA_ROOT'")]
    assert x.what.startswith("DATA_ROOT was exported in the launching shell (line 1) and the command ran on node2 "
                             "through ssh (line 2)") and x.what.endswith("the process there had no DATA_ROOT (line 9)")
    assert x.fix.startswith("set the variables in the remote command itself: ssh node2 'DATA_ROOT=<value> ... "
                            "python3 join.py'") and "SendEnv DATA_ROOT" in x.fix and "AcceptEnv DATA_ROOT" in x.fix
    assert x.sure.startswith("medium")


def test_read_a_rank_variable_exported_on_the_ssh_line():
    line = "$ export MASTER_ADDR=10.0.0.1; ssh node2 python3 join.py\n"
    got = _read(_hit("sshenv_cmd", 1, line), _hit("sshenv_err", 4, "KeyError: 'MASTER_ADDR'\n"))
    x = got[0]
    assert x.eid == "_cause" and x.symptoms == {"rendezvous.env_missing"}
    assert x.instead.eid == "rendezvous.env_missing" and x.instead.alone is True
    assert x.instead.symptoms == {"code.exception", "code.library_error"}
    assert x.ev == [(1, line.strip()), (4, "KeyError: 'MASTER_ADDR'")]
    assert "(line 1)" in x.what


@pytest.mark.parametrize("hits", [
    # the error before the ssh line
    [_hit("sshenv_export", 1, "$ export AX=1\n"), _hit("sshenv_err", 2, "KeyError: 'AX'\n"), _hit("sshenv_cmd", 3, SSH)],
    # on the same line
    [_hit("sshenv_export", 1, "$ export AX=1\n"), _hit("sshenv_cmd", 2, SSH), _hit("sshenv_err", 2, "KeyError: 'AX'\n")],
    # exported after the ssh line, or on it
    [_hit("sshenv_cmd", 2, SSH), _hit("sshenv_export", 2, "$ export AX=1\n"), _hit("sshenv_err", 5, "KeyError: 'AX'\n")],
    # another variable exported
    [_hit("sshenv_export", 1, "$ export BX=1\n"), _hit("sshenv_cmd", 2, SSH), _hit("sshenv_err", 5, "KeyError: 'AX'\n")],
    # the remote command sets it itself
    [_hit("sshenv_export", 1, "$ export AX=1\n"), _hit("sshenv_cmd", 2, "$ ssh n 'AX=2 python x.py'\n"),
     _hit("sshenv_err", 5, "KeyError: 'AX'\n")],
    # no ssh line, no error
    [_hit("sshenv_export", 1, "$ export AX=1\n"), _hit("sshenv_err", 5, "KeyError: 'AX'\n")],
    [_hit("sshenv_export", 1, "$ export AX=1\n"), _hit("sshenv_cmd", 2, SSH)],
    [],
])
def test_read_nothing(hits):
    assert _read(*hits) == []


def test_read_the_remote_command_setting_another_name_ending_like_it():
    # 'XAX=2' in the remote command is not AX
    got = _read(_hit("sshenv_export", 1, "$ export AX=1\n"), _hit("sshenv_cmd", 2, "$ ssh n 'XAX=2 python x.py'\n"),
                _hit("sshenv_err", 5, "KeyError: 'AX'\n"))
    assert len(got) == 1 and "(line 1)" in got[0].what


def test_read_takes_the_latest_export_before_the_ssh_line_and_the_first_error_it_explains():
    got = _read(_hit("sshenv_export", 1, "$ export AX=1\n"), _hit("sshenv_export", 2, "$ export AX=2 BX=1\n"),
                _hit("sshenv_cmd", 3, SSH), _hit("sshenv_export", 4, "$ export AX=3\n"),
                _hit("sshenv_err", 6, "KeyError: 'CX'\n"), _hit("sshenv_err", 7, "KeyError: 'AX'\n"),
                _hit("sshenv_err", 8, "KeyError: 'BX'\n"))
    assert len(got) == 1 and got[0].ev[0] == (2, "$ export AX=2 BX=1") and got[0].ev[-1] == (7, "KeyError: 'AX'")
    # the second ssh line is the one the export came before
    got = _read(_hit("sshenv_cmd", 1, "$ ssh n0 'true x'\n"), _hit("sshenv_export", 2, "$ export AX=1\n"),
                _hit("sshenv_cmd", 3, SSH), _hit("sshenv_err", 6, "KeyError: 'AX'\n"))
    assert len(got) == 1 and "ran on node2" in got[0].what and "(line 3)" in got[0].what


def test_rank_names():
    for v in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "NNODES", "NPROC_PER_NODE", "NODE_RANK"):
        assert sshenv._RANKISH.search(v), v
    for v in ("DATA_ROOT", "HF_HOME", "MASTER", "CUDA_VISIBLE_DEVICES"):
        assert not sshenv._RANKISH.search(v), v


def test_the_patterns_find_each_line_and_its_needle():
    # knowledge loads them once per process (the cache): read them here on their own
    import re

    from gpudoctor.explain.knowledge import squash

    pats = sshenv.patterns("launch.sshenv")
    assert [p.site for p in pats] == [{"class": "sshenv_cmd", "id": "sshenv-cmd"},
                                      {"class": "sshenv_export", "id": "sshenv-export"},
                                      {"class": "sshenv_err", "id": "sshenv-err"}]
    assert {p.entry for p in pats} == {"launch.sshenv"} and {p.role for p in pats} == {"paste"}
    assert {p.rank for p in pats} == {0}
    lines = [["$ ssh n1 c", "# ssh n1 c", "% ssh n1 c", "> ssh n1 c", "x; ssh n1 c", "x;ssh n1 c", "x && ssh n1 c",
              "x&&ssh n1 c"],
             ["$ export AB=1", "u@h:~# export _X=1", "% export A9=1", "> export a=1"],
             ["KeyError: 'MASTER_ADDR'", 'KeyError: "DATA_ROOT"', "environment variable RANK expected, but not set"]]
    nots = [["$ sshd -D", "$ ssh  ", "myssh n1", "x; echo ssh n1"], ["$ export 1A=1", "export AB=1", "$ export AB"],
            ["KeyError: 'A'", "KeyError: 0", "environment variable rank expected, but not set"]]
    for p, yes, no in zip(pats, lines, nots):
        rx = re.compile(p.source, re.M)
        for line in yes:
            assert rx.search(line), (p.source, line)
            assert any(n in squash(line) for n in p.needles_b), (p.needles_b, line)
        for line in no:
            assert not rx.search(line), (p.source, line)
    # an ssh line without a prompt or separator: the regex's '^' takes it, no needle does (the prefilter never hands it
    # over; the module reads only command lines after a prompt, ';' or '&&')
    assert re.match(pats[0].source, "ssh n1 c") and not any(n in squash("ssh n1 c") for n in pats[0].needles_b)


def test_record_keeps_300_characters_of_each_line():
    st = _scan(_hit("sshenv_export", 1, "$ export LONG=%s\n" % ("x" * 400)),
               _hit("sshenv_cmd", 2, "$ ssh n1 'python run.py %s'\n" % ("y" * 400)),
               _hit("sshenv_err", 3, "KeyError: 'LONG' %s\n" % ("z" * 400))).sshenv
    assert [len(st.exports[0][2]), len(st.ssh[0][4]), len(st.err[0][2])] == [300, 300, 300]


def test_read_skips_an_ssh_line_that_sets_the_variable_and_takes_the_next():
    got = _read(_hit("sshenv_export", 1, "$ export AX=1\n"), _hit("sshenv_cmd", 2, "$ ssh n0 'AX=2 python x.py'\n"),
                _hit("sshenv_cmd", 3, SSH), _hit("sshenv_err", 6, "KeyError: 'AX'\n"))
    assert len(got) == 1 and "(line 3)" in got[0].what


def test_read_says_it_whole_and_clips_host_and_command():
    host, remote = "h" * 90, "r" * 90
    got = _read(_hit("sshenv_export", 1, "$ export DATA_ROOT=/d\n"), _hit("sshenv_cmd", 2, "$ ssh %s %s\n" % (host, remote)),
                _hit("sshenv_err", 9, "KeyError: 'DATA_ROOT'\n"))
    x = got[0]
    assert x.what == ("DATA_ROOT was exported in the launching shell (line 1) and the command ran on %s through ssh "
                      "(line 2), which passes no variable of the local environment to the remote command unless the "
                      "client sends it (SendEnv / SetEnv in ssh_config) and the node's sshd accepts it (AcceptEnv in "
                      "sshd_config; by default it accepts none): the process there had no DATA_ROOT (line 9)" % host[:80])
    assert x.fix == ("set the variables in the remote command itself: ssh %s 'DATA_ROOT=<value> ... %s' (or export them "
                     "there); or send them: SendEnv DATA_ROOT in ~/.ssh/config together with AcceptEnv DATA_ROOT in the "
                     "nodes' sshd_config (then reload sshd)" % (host[:80], remote[:80]))
    assert x.sure == ("medium (the export, the ssh line and the missing variable are in the text; sshd's AcceptEnv is "
                      "not)")
    rank = _read(_hit("sshenv_cmd", 1, "$ export RANK=0; ssh node2 python3 join.py\n"),
                 _hit("sshenv_err", 4, "KeyError: 'RANK'\n"))[0]
    assert rank.fix == rank.instead.fix and rank.fix.startswith("set the variables in the remote command itself: ssh "
                                                                "node2 'RANK=<value> ... python3 join.py'")


def test_record_keeps_a_command_that_ends_in_x():
    st = _scan(_hit("sshenv_cmd", 2, "$ ssh node2 python train.py --mode X\r\n")).sshenv
    assert st.ssh[0][2] == "python train.py --mode X"

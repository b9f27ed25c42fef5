"""What userwalk22's fresh-clone walk (the README's commands, the seeds' scenarios, bad inputs) ran into."""

import os

from gpudoctor import cli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FACTS = os.path.join(ROOT, "fixtures", "nodes", "devbox-debian12-nogpu.json")


def _run(capsys, *argv):
    rc = cli.main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_diff_names_before_and_after_not_a_facts_option(tmp_path, capsys):
    """`gpudoctor diff BEFORE AFTER` with a path that is not there said `--facts /x: no such file`: diff has no
    --facts option; the message names the argument the user gave."""
    gone = str(tmp_path / "gone.json")
    rc, out, err = _run(capsys, "diff", gone, FACTS)
    assert rc == 2 and out == ""
    assert err == "gpudoctor: error: diff: BEFORE %s: no such file or directory\n" % gone
    rc, _, err = _run(capsys, "diff", FACTS, gone)
    assert rc == 2 and err == "gpudoctor: error: diff: AFTER %s: no such file or directory\n" % gone
    rc, _, err = _run(capsys, "diff", "--since", "last-good", "--state-dir", str(tmp_path / "st"), gone)
    assert rc == 2 and "--facts" not in err and "AFTER %s" % gone in err
    # check's own --facts keeps its name
    rc, _, err = _run(capsys, "check", "--facts", gone)
    assert rc == 2 and err == "gpudoctor: error: --facts %s: no such file or directory\n" % gone


def test_no_command_is_a_usage_error_with_its_line_on_stderr(capsys):
    """`gpudoctor` alone printed the help on stdout and exited 2 with nothing on stderr: a script that ran it with
    stdout to a file saw exit 2 and no reason. The help stays on stdout; stderr has the one line of a usage error."""
    rc, out, err = _run(capsys)
    assert rc == 2 and out.startswith("usage: gpudoctor ") and "COMMAND" in out
    assert err == "gpudoctor: error: give a command, e.g. gpudoctor check (see: gpudoctor --help)\n"


def test_explain_dash_at_a_terminal_says_what_it_waits_for(tmp_path):
    """`gpudoctor explain -` typed at a prompt waited in silence for standard input. At a terminal (a real pty
    here) it now says so on stderr, reads the paste up to Ctrl-D and answers; from a pipe nothing is added."""
    import pty
    import subprocess
    import sys

    master, slave = pty.openpty()
    try:
        p = subprocess.Popen([sys.executable, "-m", "gpudoctor", "explain", "-"], stdin=slave,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(tmp_path))
        os.close(slave)
        slave = None
        # the terminal's line discipline holds the line until its newline; Ctrl-D on an empty line is the end
        os.write(master, b"RuntimeError: CUDA error: out of memory\n\x04")
        out, err = p.communicate(timeout=120)
    finally:
        os.close(master)
        if slave is not None:
            os.close(slave)
    assert p.returncode == 0, err
    assert err.decode() == ("gpudoctor explain: reading the error text from this terminal: paste it, then press "
                            "Ctrl-D on an empty line\n")
    assert b"<stdin> (1 line)" in out and b"ROOT CAUSE" in out
    piped = subprocess.run([sys.executable, "-m", "gpudoctor", "explain", "-"], input=b"no error here\n",
                           capture_output=True, timeout=120, cwd=str(tmp_path))
    assert piped.returncode == 0 and piped.stderr == b""

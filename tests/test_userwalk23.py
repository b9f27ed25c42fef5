"""What userwalk23's fresh-clone walk (the README's commands, a terminal of 80 columns, closed and piped standard
input, the cluster example typed into bash) ran into. Each test runs the CLI."""

import os
import re
import subprocess
import sys

from gpudoctor import cli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FACTS = os.path.join(ROOT, "fixtures", "nodes", "devbox-debian12-nogpu.json")
LOGS = os.path.join(ROOT, "fixtures", "logs")
IFNAME_LOG = os.path.join(LOGS, "planted", "nccl.socket_ifname__h200x2-no-such-interface.log")


def _run(capsys, *argv):
    rc = cli.main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR", "TERM", "CI")}
    env.update(PYTHONPATH=ROOT, TERM="xterm-256color", **extra)
    return env


def _at_a_terminal(argv, cols, timeout=120):
    """stdout on a real pty of ``cols`` columns (TIOCSWINSZ, no COLUMNS in the environment): -> (rc, lines of
    text without colours)."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, cols, 0, 0))
    try:
        p = subprocess.Popen([sys.executable, "-m", "gpudoctor"] + argv, stdin=subprocess.DEVNULL, stdout=slave,
                             stderr=subprocess.PIPE, env=_env(), cwd=ROOT)
        os.close(slave)
        slave = None
        chunks = []
        while True:  # until the child closes the terminal (EIO on Linux once no process holds the slave)
            try:
                got = os.read(master, 65536)
            except OSError:
                break
            if not got:
                break
            chunks.append(got)
        p.wait(timeout=timeout)
    finally:
        os.close(master)
        if slave is not None:
            os.close(slave)
    text = re.sub(r"\x1b\[[0-9;]*m", "", b"".join(chunks).decode()).replace("\r", "")
    return p.returncode, text.splitlines()


def test_a_report_at_an_80_column_terminal_wraps_its_prose_once_and_never_a_fix_line():
    """At a terminal narrower than the report's 100 columns (80: the default of most terminals, a tmux pane) the
    text was wrapped at 100 by gpudoctor and then again by rich at 80: ragged halves ('... torch' / 'rendezvous and
    NCCL' / '     bootstrap ...'), and the host.name fix, a command to paste, split in two ('.../etc/hosts  ' and
    '# drop vm from the loopback lines' on a line of its own). Now the prose wraps at the terminal's width and a fix
    line stays one line (the terminal alone folds it, so it copies whole)."""
    rc, lines = _at_a_terminal(["check", "--facts", FACTS], 80)
    assert rc == 1, lines
    fix = ("       sed -i -E '/^(127\\.|::1)/s/[[:space:]]vm([[:space:]]|$)/\\1/' /etc/hosts   "
           "# drop vm from the loopback lines")
    assert fix in lines
    assert "# drop vm from the loopback lines" not in [line.strip() for line in lines]
    for line in lines:
        if not line.startswith("       "):  # prose: at most the terminal's width
            assert len(line) <= 80, line
    # the check's line wraps once, its continuation indented by 5 (never a ragged 'rendezvous and NCCL' line)
    i = next(k for k, line in enumerate(lines) if line.startswith("FAIL host.name"))
    assert lines[i + 1].startswith("     ") and not lines[i + 1].startswith("       ")
    assert " ".join(" ".join(lines[i:i + 3]).split()).startswith(
        "FAIL host.name hostname vm resolves to 127.0.0.1 (loopback): torch rendezvous and NCCL bootstrap would "
        "advertise an address other nodes cannot reach")
    # a terminal as wide as the report, or wider, prints what a pipe gets (the README's recorded output)
    rc, wide = _at_a_terminal(["check", "--facts", FACTS], 120)
    piped = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--facts", FACTS], capture_output=True,
                           text=True, env=_env(), cwd=ROOT, timeout=120)
    assert rc == piped.returncode == 1 and wide == piped.stdout.splitlines()


def test_explain_dash_with_standard_input_closed_is_an_input_error():
    """`gpudoctor explain -` started with standard input closed (`<&-`: a cron line, a daemon, a CI step that closes
    it) crashed: exit 3, 'internal error ... AttributeError: 'NoneType' object has no attribute 'buffer'' and a
    crash file. It is the user's input that is missing: exit 2, one line on stderr saying so."""
    p = subprocess.run(["bash", "-c", 'exec "$0" -m gpudoctor explain - <&-', sys.executable], capture_output=True,
                       text=True, env=_env(CI="true"), cwd=ROOT, timeout=120)
    assert p.returncode == 2, p.stderr
    assert p.stdout == ""
    assert p.stderr == ("gpudoctor: error: standard input is closed: '-' has nothing to read; give the log as a file "
                        "(gpudoctor explain FILE) or pipe it in (... | gpudoctor explain -)\n")


def test_explain_of_a_compressed_log_piped_in_is_refused_as_the_file_is(tmp_path):
    """`cat slurm-123.out.gz | gpudoctor explain -` answered 'NO ERROR FOUND', exit 0: the gzip bytes were read as a
    text with no error line, a healthy verdict for a log that holds NCCL's 'no socket interface found'. The same file
    named (`explain slurm-123.out.gz`) was refused as compressed (exit 2); standard input now is too, and the same
    log decompressed into the pipe gets its answer."""
    import gzip

    with open(IFNAME_LOG, "rb") as f:
        raw = f.read()
    gz = tmp_path / "slurm-123.out.gz"
    gz.write_bytes(gzip.compress(raw))
    named = subprocess.run([sys.executable, "-m", "gpudoctor", "explain", str(gz)], capture_output=True, text=True,
                           env=_env(), cwd=ROOT, timeout=120)
    assert named.returncode == 2 and "is not a text log (an executable, archive or compressed file)" in named.stderr
    with open(str(gz), "rb") as f:
        piped = subprocess.run([sys.executable, "-m", "gpudoctor", "explain", "-"], stdin=f, capture_output=True,
                               text=True, env=_env(), cwd=ROOT, timeout=120)
    assert piped.returncode == 2 and piped.stdout == "" and "NO ERROR FOUND" not in piped.stdout
    assert piped.stderr == ("gpudoctor: error: standard input is not a text log (an executable, archive or "
                            "compressed file): pipe the log's text (zcat, xzcat or zstdcat for a compressed log)\n")
    text = subprocess.run([sys.executable, "-m", "gpudoctor", "explain", "-"], input=raw, capture_output=True,
                          env=_env(), cwd=ROOT, timeout=120)
    assert text.returncode == 0 and b"ROOT CAUSE  nccl.socket_ifname" in text.stdout
    # a text that begins with fewer bytes than a magic number is still read whole (the peek gives them back)
    short = subprocess.run([sys.executable, "-m", "gpudoctor", "explain", "-"], input=b"ok\n", capture_output=True,
                           env=_env(), cwd=ROOT, timeout=120)
    assert short.returncode == 0 and b"<stdin> (1 line)" in short.stdout


def test_same_with_a_tilde_the_shell_expanded_says_to_quote_it():
    """README's cluster example, `--same ~/train.py`, typed into bash as root: bash passes /root/train.py, which the
    nodes' login user cannot read; every node read 'is missing (Permission denied)', fixed by 'copy /root/train.py to
    every node'. Now the path is 'unreadable', and a path in a home folder that is none of the nodes' login homes
    (facts ssh.home) is told to be quoted, --same '~/train.py', which each node reads from its own home (README now
    shows it quoted). Real sshd nodes on 127.x whose login user has a home of its own, real bash expanding the ~."""
    import pytest

    import sshcluster

    if not sshcluster.available():
        pytest.skip("needs root and openssh-server (tests/run.sh installs it)")
    c = sshcluster.Cluster()
    try:
        for name in ("n1", "n2"):
            home = os.path.join(c.base, "home-" + name)
            os.mkdir(home)
            with open(os.path.join(home, "train.py"), "w") as f:
                f.write("print('train')\n")
            os.chown(home, c.user.pw_uid, c.user.pw_gid)
            c.add(name, env={"HOME": home, "PATH": "/usr/local/bin:/usr/bin:/bin"})
        c.start()
        hf = c.hostfile()
        line = '"$0" -m gpudoctor check --hosts "$1" --ssh-config "$2" --select files.parity --same %s'

        def typed(words):
            return subprocess.run(["bash", "--norc", "--noprofile", "-c", line % words, sys.executable, hf,
                                   c.ssh_config], capture_output=True, text=True, timeout=120, cwd=c.base,
                                  env=_env(HOME="/root"))

        p = typed("~/train.py")  # bash makes it /root/train.py
        out = " ".join(p.stdout.split())
        assert p.returncode == 1, p.stdout + p.stderr
        assert "FAIL files.parity /root/train.py is unreadable (Permission denied) on every node (n[1-2])" in out
        assert ("/root/train.py is in a home folder that is none of the nodes' login homes ('%s/home-n[1-2]'): a ~ "
                "your shell expanded names this machine's home; quote it, --same '~/train.py', and each node reads "
                "its own" % c.base) in out
        assert "copy /root/train.py to every node" not in out
        p = typed("'~/train.py'")  # what the fix says: each node's own home
        out = " ".join(p.stdout.split())
        assert p.returncode == 0, p.stdout + p.stderr
        assert "PASS files.parity identical on every node: ~/train.py (sha256 " in out
    finally:
        c.cleanup()


def test_a_soft_limit_below_its_hard_one_is_raised_by_the_job_itself(tmp_path):
    """As a non-root user (useradd; soft nofile 1024, hard 20000 in this container) check said 'RLIMIT_NOFILE is
    soft 1024, hard 20000' with the fix 'docker run --ulimit nofile=65536:65536 ...' (a new container, root), or on a
    host 'ulimit -n 65536', which that hard limit refuses. Any process may raise its soft limit up to its hard one
    (setrlimit(2)): the first fix line now does it, with a value the hard limit allows. The line is pasted into real
    bash as an unprivileged user under those limits, and `ulimit -n` after it is that value. memlock's fix gets the
    same line when its hard limit is unlimited (saved facts: this container may not raise a hard limit)."""
    import json
    import resource
    import shutil

    import pytest

    import sshcluster

    if os.geteuid() != 0 or shutil.which("bash") is None:
        pytest.skip("needs root (to run bash as an unprivileged user) and bash")
    user = sshcluster.ensure_user()

    def limited(drop=False):
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 20000))
        if drop:
            os.setgid(user.pw_gid)
            os.setuid(user.pw_uid)

    p = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--select", "limits.process", "--no-history"],
                       capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=120, preexec_fn=limited)
    assert p.returncode == 0 and "RLIMIT_NOFILE (ulimit -n) is soft 1024, hard 20000" in " ".join(p.stdout.split())
    fixes = [line.strip() for line in p.stdout.splitlines() if line.startswith("       ")]
    assert fixes[0] == "job script:  ulimit -n 20000   (the hard limit allows it: no root needed)", p.stdout
    assert not any(x.startswith("job script:") for x in fixes[1:])  # one job-script line, not two
    sh = subprocess.run(["bash", "--norc", "--noprofile", "-c", "ulimit -n 20000 && ulimit -n"], capture_output=True,
                        text=True, timeout=30, cwd="/", env={"PATH": "/usr/bin:/bin"},
                        preexec_fn=lambda: limited(drop=True))
    assert sh.returncode == 0 and sh.stdout == "20000\n", (sh.stdout, sh.stderr)
    doc = json.load(open(FACTS))
    doc["limits"]["memlock"] = dict(doc["limits"]["memlock"], soft=1 << 20, hard="unlimited")
    facts = tmp_path / "node.json"
    facts.write_text(json.dumps(doc))
    q = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--facts", str(facts), "--select",
                        "limits.memlock"], capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=120)
    fixes = [line.strip() for line in q.stdout.splitlines() if line.startswith("       ")]
    assert "memlock is soft 1.0 MiB, hard unlimited" in q.stdout and fixes[0] == (
        "job script:  ulimit -l unlimited   (the hard limit allows it: no root needed)"), q.stdout


def test_facts_from_a_failed_redirect_are_said_to_be_empty(tmp_path):
    """`gpudoctor facts --hosts hf > all.json` that failed (a bad hostfile: exit 2) leaves an empty all.json; `check
    --facts all.json` (and diff, watch --facts, explain --facts) then said 'all.json is not valid JSON: Expecting
    value: line 1 column 1 (char 0)'. It says the file is empty and how facts are saved."""
    bad = tmp_path / "hf"
    bad.write_text("")
    out = tmp_path / "all.json"
    with open(str(out), "w") as f:  # the shell's redirect, made real
        p = subprocess.run([sys.executable, "-m", "gpudoctor", "facts", "--hosts", str(bad)], stdout=f,
                           stderr=subprocess.PIPE, text=True, env=_env(), cwd=ROOT, timeout=120)
    assert p.returncode == 2 and out.read_bytes() == b""
    want = ("gpudoctor: error: %s is empty (0 bytes): it holds no facts (a `gpudoctor facts > FILE` that failed "
            "leaves one); save them with gpudoctor facts -o FILE\n" % out)
    for argv in (["check", "--facts", str(out)], ["diff", FACTS, str(out)], ["watch", "--facts", str(out)],
                 ["explain", "--facts", str(out), "NCCL WARN Bootstrap : no socket interface found"]):
        q = subprocess.run([sys.executable, "-m", "gpudoctor"] + argv, capture_output=True, text=True, env=_env(),
                           cwd=ROOT, timeout=120)
        assert q.returncode == 2 and q.stderr == want and q.stdout == "", (argv, q.stderr)
    blank = tmp_path / "blank.json"
    blank.write_text("\n \n")
    q = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--facts", str(blank)], capture_output=True,
                       text=True, env=_env(), cwd=ROOT, timeout=120)
    assert q.returncode == 2 and "is empty (3 bytes of blank space)" in q.stderr


def test_diff_since_on_the_controller_names_the_nodes_the_history_holds(tmp_path):
    """`gpudoctor check --hosts hf --history` keeps each node's history; `gpudoctor diff --since last-good` then
    compares this machine (AFTER's default), which has none, and said 'no history for vm ... (run gpudoctor check
    --history, or the Slurm hooks, first)': what the user had just done. It now names the nodes the history holds
    and the two commands that compare them; those commands work. Real sshd nodes on 127.x."""
    import pytest

    import sshcluster

    if not sshcluster.available():
        pytest.skip("needs root and openssh-server (tests/run.sh installs it)")
    c = sshcluster.Cluster()
    state = str(tmp_path / "state")
    try:
        c.add("n1").add("n2").start()
        hf = c.hostfile()

        def gd(*argv):
            return subprocess.run([sys.executable, "-m", "gpudoctor"] + list(argv), capture_output=True, text=True,
                                  env=_env(), cwd=str(tmp_path), timeout=120)

        p = gd("check", "--hosts", hf, "--ssh-config", c.ssh_config, "--history", "--state-dir", state)
        assert p.returncode in (0, 1) and "2 nodes, 0 unreachable" in p.stdout, p.stdout + p.stderr
        here = gd("diff", "--since", "last-good", "--state-dir", state, "--fast")
        assert here.returncode == 2 and here.stdout == ""
        assert here.stderr.startswith("gpudoctor: error: no history for ")
        assert here.stderr.endswith(" (this machine, AFTER's default) in %s/history; it holds n[1-2]: compare them "
                                    "with their facts now: gpudoctor facts --hosts FILE -o now/ && gpudoctor diff "
                                    "--since last-good now/\n" % state), here.stderr
        p = gd("facts", "--hosts", hf, "--ssh-config", c.ssh_config, "-o", "now")
        assert p.returncode == 0, p.stderr
        p = gd("diff", "--since", "last-good", "--state-dir", state, "now/")
        assert p.returncode in (0, 1) and "2 nodes compared: n[1-2]" in p.stdout, p.stdout + p.stderr
    finally:
        c.cleanup()


def test_the_readmes_explain_example_is_what_explain_prints(capsys):
    """README's explain example (a real paste from ollama/ollama#12136) showed its lines unwrapped, a 131-column line
    among them, while explain prints at 100 columns; its header line was left out. Each run of lines between the
    README's '...' is now a run of what `gpudoctor explain` prints, in order."""
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    cmd = '  $ gpudoctor explain "ggml_cuda_init: failed to initialize CUDA: system not yet initialized"\n'
    block = readme[readme.index(cmd) + len(cmd):]
    block = block[:block.index("  ```")]
    runs = [[line[2:] for line in run.strip("\n").split("\n")] for run in block.split("    ...\n")]
    rc, out, _ = _run(capsys, "explain", "ggml_cuda_init: failed to initialize CUDA: system not yet initialized")
    assert rc == 0
    lines, at = out.splitlines(), 0
    for run in runs:
        starts = [i for i in range(at, len(lines)) if lines[i:i + len(run)] == run]
        assert starts, (run, out)
        at = starts[0] + len(run)


def test_a_bad_severity_in_gpudoctor_toml_names_the_entry(tmp_path):
    """README's config example has `[gpudoctor.severity] "limits.memlock" = "warning"`; written as "warn" (the
    report's own mark is WARN), check said 'gpudoctor.toml: severity = a table: of 'limits.memlock' must be error,
    warning, info or off': no value, and 'a table' for the whole. It names the entry and its value."""
    (tmp_path / "gpudoctor.toml").write_text('[gpudoctor.severity]\n"limits.memlock" = "warn"\n')
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "check"], capture_output=True, text=True, env=_env(),
                       cwd=str(tmp_path), timeout=120)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr == ("gpudoctor: error: gpudoctor.toml: severity: 'limits.memlock' = 'warn': must be error, "
                        "warning, info or off\n")
    (tmp_path / "gpudoctor.toml").write_text('[gpudoctor]\nseverity = "warning"\n')  # not a table: unchanged
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "check"], capture_output=True, text=True, env=_env(),
                       cwd=str(tmp_path), timeout=120)
    assert p.returncode == 2 and p.stderr == ("gpudoctor: error: gpudoctor.toml: severity = 'warning': must be a "
                                              "table: check id = \"error\", \"warning\", \"info\" or \"off\"\n")


def test_local_beside_a_node_list_is_a_usage_error(tmp_path):
    """`gpudoctor check --local --hosts hostfile` checked this machine alone and exited by its verdict: the hostfile's
    nodes were silently not gathered (--via local --hosts, --facts --hosts and --slurm --local were already refused).
    check, facts, exports, watch and probe now refuse it in one line, before any node is contacted (the hostfile's
    names resolve nowhere)."""
    hf = tmp_path / "hostfile"
    hf.write_text("gpu01.invalid slots=8\ngpu02.invalid slots=8\n")
    for argv in (["check", "--local", "--hosts", str(hf)], ["facts", "--hosts", str(hf), "--local"],
                 ["exports", "--local", "--hosts", str(hf)], ["watch", "--local", "--hosts", str(hf), "--seconds", "1"],
                 ["probe", "--local", "--hosts", str(hf)]):
        p = subprocess.run([sys.executable, "-m", "gpudoctor"] + argv, capture_output=True, text=True, env=_env(),
                           cwd=str(tmp_path), timeout=120)
        assert p.returncode == 2 and p.stdout == "", (argv, p.stdout, p.stderr)
        assert p.stderr == ("gpudoctor: error: --local checks this machine only; --hosts names other nodes: give one or "
                            "the other\n"), argv
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--local", "--nodes", "gpu[01-02]"],
                       capture_output=True, text=True, env=_env(), cwd=str(tmp_path), timeout=120)
    assert p.returncode == 2 and "--nodes names other nodes" in p.stderr
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--local", "--select", "shm"], capture_output=True,
                       text=True, env=_env(), cwd=str(tmp_path), timeout=120)
    assert p.returncode in (0, 1) and "gpudoctor: 1 node" in p.stdout  # --local alone: this machine, as before


def test_exports_after_a_json_report_on_stdout_is_refused(tmp_path):
    """`gpudoctor check --json --exports > report.json` wrote the JSON document and then the shell lines of the
    exports into the same stream: report.json was not JSON. --exports with a JSON / JUnit / Prometheus report on stdout
    is a usage error naming -o FILE; with -o the report is a whole JSON file and the exports go to stdout."""
    import json

    for fmt in (["--json"], ["--format", "junit"], ["--format", "prometheus"]):
        p = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--facts", FACTS, "--exports"] + fmt,
                           capture_output=True, text=True, env=_env(), cwd=str(tmp_path), timeout=120)
        assert p.returncode == 2 and p.stdout == "", (fmt, p.stdout[-300:])
        assert p.stderr.startswith("gpudoctor: error: --exports prints shell lines after the report on standard "
                                   "output, which --") and p.stderr.endswith(
            ": write the report with -o FILE, or run gpudoctor exports\n"), p.stderr
    out = tmp_path / "report.json"
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--facts", FACTS, "--exports", "--json", "-o",
                        str(out)], capture_output=True, text=True, env=_env(), cwd=str(tmp_path), timeout=120)
    assert p.returncode == 1, p.stderr
    assert json.loads(out.read_text())["schema"].startswith("gpudoctor.report/")
    assert "# gpudoctor exports: computed from the nodes' facts" in p.stdout


def test_plan_of_a_folder_says_it_is_a_folder(tmp_path, capsys, monkeypatch):
    """`gpudoctor plan scripts` (a folder of launch scripts, named bare in the folder above it) said "'scripts': not
    a launcher gpudoctor reads (...)", as if a launcher's name had been mistyped (`plan ./scripts` already said it is
    a directory). It says the word is a folder and to name one of its scripts."""
    folder = tmp_path / "scripts"
    folder.mkdir()
    (folder / "train.sh").write_text("torchrun --nproc_per_node 2 train.py\n")
    monkeypatch.chdir(tmp_path)
    rc, out, err = _run(capsys, "plan", "scripts")
    assert rc == 2 and out == ""
    assert err.startswith("gpudoctor: error: 'scripts': a folder, not a script (name one of its scripts), and not a "
                          "launcher gpudoctor reads (") and len(err.splitlines()) == 1, err
    rc, out, _ = _run(capsys, "plan", "scripts/train.sh")
    assert rc == 0 and "torchrun" in out


def test_a_select_entry_that_matches_no_check_is_said(tmp_path, capsys):
    """`gpudoctor check --select shm,memlok` (memlock mistyped) ran shm.size alone and exited 0, saying nothing of
    the check asked for and never run; a mistyped ignore or severity entry was already warned of, and a select of
    which nothing matches is an input error. The entry is named on stderr; the run is unchanged."""
    rc, out, err = _run(capsys, "check", "--facts", FACTS, "--select", "shm,limits.memlok")
    assert rc == 0 and "PASS shm.size" in out
    assert err == ("gpudoctor: warning: select 'limits.memlok' matches no check (see: gpudoctor list): no check runs "
                   "for it\n")
    rc, out, err = _run(capsys, "check", "--facts", FACTS, "--select", "shm,limits.memlock")
    assert rc == 0 and err == "" and "limits.memlock" in out
    rc, _, err = _run(capsys, "check", "--facts", FACTS, "--select", "memlok")
    assert rc == 2 and err == "gpudoctor: error: --select memlok matches no check (see: gpudoctor list)\n"


def test_a_hostfile_from_a_pipe_says_how_to_give_it(tmp_path):
    """`gpudoctor check --hosts <(scontrol show hostnames)` (bash's process substitution) and `... | gpudoctor check
    --hosts /dev/stdin` are refused, as every input that is not a regular file is (docs/security.md 17.: a FIFO can
    block the read past any deadline), with 'is a FIFO, not a regular file: not read' and nothing on what to do. The
    line now says to save the text to a file. Real bash, a real substitution and a real pipe."""
    hint = " (a pipe or a <(...) substitution: save its text to a file and name that)\n"
    for line in ('"$0" -m gpudoctor check --select shm --hosts <(printf "gpu01\\ngpu02\\n")',
                 'printf "gpu01\\n" | "$0" -m gpudoctor check --select shm --hosts /dev/stdin'):
        p = subprocess.run(["bash", "--norc", "--noprofile", "-c", line, sys.executable], capture_output=True,
                           text=True, env=_env(), cwd=str(tmp_path), timeout=120)
        assert p.returncode == 2 and p.stdout == "", (line, p.stdout, p.stderr)
        assert p.stderr.startswith("gpudoctor: error: hostfile /dev/") and p.stderr.endswith(
            " is a FIFO, not a regular file: not read" + hint), p.stderr
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--select", "shm", "--hosts", str(tmp_path)],
                       capture_output=True, text=True, env=_env(), cwd=str(tmp_path), timeout=120)
    assert p.returncode == 2 and p.stderr.endswith("is a directory, not a regular file: not read\n")  # no hint


def test_explain_of_a_process_substitution_says_to_pipe_it():
    """`gpudoctor explain <(kubectl logs POD)`: bash passes /dev/fd/63, which resolves under /proc, and explain refused
    it as 'a kernel file, whose read may block until the kernel writes ... save it to a file first (dmesg >
    kern.txt)'. It is a pipe: the line says so and names `COMMAND | gpudoctor explain -`, which reads it."""
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c", '"$0" -m gpudoctor explain <(cat "$1")', sys.executable,
                        IFNAME_LOG], capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=120)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith("gpudoctor: error: '/dev/fd/") and p.stderr.endswith(
        "' is a pipe (a <(...) substitution or a FIFO), not a regular file: not read; pipe the text in instead: "
        "COMMAND | gpudoctor explain -\n") and "kernel" not in p.stderr, p.stderr
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c", 'cat "$1" | "$0" -m gpudoctor explain -',
                        sys.executable, IFNAME_LOG], capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=120)
    assert p.returncode == 0 and "ROOT CAUSE  nccl.socket_ifname" in p.stdout


def test_facts_saved_into_a_folder_of_an_earlier_run_say_what_else_is_there(tmp_path):
    """`gpudoctor facts --hosts hf -o DIR` into the folder of an earlier run (a cron job's, or one before a node left
    the hostfile) left that run's node files there, and `check --facts DIR` then judged them with this run's nodes
    without a word. Saving now names the files it did not write; a new folder gets no warning."""
    import json
    import shutil

    d = tmp_path / "facts"
    d.mkdir()
    old = json.load(open(FACTS))
    old["node"] = "gpu05"
    (d / "gpu05.json").write_text(json.dumps(old))  # the earlier run's node
    hf = tmp_path / "hf"
    hf.write_text("localhost slots=8\n")  # DeepSpeed's one-node hostfile: this machine, gathered here

    def gd(*argv):
        return subprocess.run([sys.executable, "-m", "gpudoctor"] + list(argv), capture_output=True, text=True,
                              env=_env(), cwd=str(tmp_path), timeout=120)

    p = gd("facts", "--hosts", str(hf), "-o", str(d))
    assert p.returncode in (0, 1), p.stderr
    assert ("gpudoctor: warning: %s/ also holds 1 file this run did not write ('gpu05.json'): gpudoctor check --facts "
            "%s/ reads it too; remove it, or save to a new folder\n" % (d, d)) in p.stderr, p.stderr
    q = gd("check", "--facts", str(d), "--select", "shm")
    assert "gpu05" in q.stdout.splitlines()[0]  # what the warning said: the old node is judged too
    new = tmp_path / "new"
    p = gd("facts", "--hosts", str(hf), "-o", str(new))
    assert p.returncode in (0, 1) and "warning" not in p.stderr, p.stderr
    shutil.rmtree(str(new))


def test_explain_of_a_folder_says_which_compressed_logs_it_left_out(tmp_path):
    """`gpudoctor explain logs/` where the failing rank's log was rotated and compressed (rank1.log.gz beside a
    healthy rank0.log) answered 'NO ERROR FOUND', exit 0, and never said that rank1.log.gz was left out. stderr now
    names the compressed files not read and how to have them read; a folder of compressed logs alone says so instead
    of 'holds no file to read'. Decompressed as the line says, the folder gets the failing rank's answer."""
    import gzip
    import shutil

    d = tmp_path / "logs"
    d.mkdir()
    shutil.copy(os.path.join(LOGS, "healthy", "healthy__deepspeed-255-samples-per-sec.log"), str(d / "rank0.log"))
    with open(IFNAME_LOG, "rb") as f:
        (d / "rank1.log.gz").write_bytes(gzip.compress(f.read()))
    (d / "rank1.log.1").write_bytes((d / "rank1.log.gz").read_bytes())  # logrotate's name, gzip inside

    def gd(*argv):
        return subprocess.run([sys.executable, "-m", "gpudoctor", "explain"] + list(argv), capture_output=True,
                              text=True, env=_env(), cwd=str(tmp_path), timeout=120)

    p = gd(str(d))
    assert p.returncode == 0 and "NO ERROR FOUND" in p.stdout
    assert p.stderr == ("gpudoctor: explain: 2 compressed files of the folder not read ('%s/rank1.log.1' and 1 more): "
                        "decompress them into the folder (zcat, xzcat, zstdcat) to have them read\n" % d), p.stderr
    (d / "rank0.log").unlink()
    (d / "rank1.log.1").unlink()
    p = gd(str(d))
    assert p.returncode == 2 and p.stderr == (
        "gpudoctor: error: '%s' holds no file to read but 1 compressed one ('%s/rank1.log.gz'): decompress it (zcat, "
        "xzcat, zstdcat), or pipe one in: zcat FILE | gpudoctor explain -\n" % (d, d)), p.stderr
    subprocess.run(["gzip", "-d", str(d / "rank1.log.gz")], check=True, timeout=60)
    p = gd(str(d))
    assert p.returncode == 0 and "ROOT CAUSE  nccl.socket_ifname" in p.stdout and p.stderr == ""


def test_a_facts_folder_with_another_json_file_says_which_and_why(tmp_path):
    """`gpudoctor check --facts run1/` where the folder also holds the job's ds_config.json said 'run1/ds_config.json
    is not a gpudoctor facts file (schema nothing, expected ...)': 'nothing' for a key the file does not have, and not
    why a config was read at all. It says the file has no schema key and that every *.json of the folder is read."""
    import shutil

    d = tmp_path / "run1"
    d.mkdir()
    shutil.copy(FACTS, str(d / "gpu01.json"))
    shutil.copy(os.path.join(ROOT, "fixtures", "launch", "deepspeed.json"), str(d / "ds_config.json"))
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--facts", str(d)], capture_output=True, text=True,
                       env=_env(), cwd=str(tmp_path), timeout=120)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr == ("gpudoctor: error: %s/ds_config.json is not a gpudoctor facts file (it has no schema key; facts "
                        "have 'gpudoctor.facts/1'); every *.json file of the folder '%s' is read as a node's facts: "
                        "move it out, or name the facts files' own folder\n" % (d, d)), p.stderr
    (d / "ds_config.json").unlink()
    (tmp_path / "list.json").write_text("[1, 2]\n")
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--facts", str(tmp_path / "list.json")],
                       capture_output=True, text=True, env=_env(), cwd=str(tmp_path), timeout=120)
    assert p.returncode == 2 and p.stderr.endswith("list.json is not a gpudoctor facts file (a JSON array, not an "
                                                   "object with schema 'gpudoctor.facts/1')\n"), p.stderr
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--facts", str(d), "--select", "shm"],
                       capture_output=True, text=True, env=_env(), cwd=str(tmp_path), timeout=120)
    assert p.returncode in (0, 1) and "1 node" in p.stdout


def test_an_ssh_config_that_includes_the_nodes_hosts_is_honoured(tmp_path):
    """An ssh config whose Host blocks come through `Include` (`Include ~/.ssh/config.d/*`, Debian's own
    /etc/ssh/ssh_config includes /etc/ssh/ssh_config.d/*.conf) was read by paramiko's parser, which has no Include:
    every node 'did not resolve' (resolve) where ssh reaches it. Includes are now expanded as ssh_config(5) says (a
    relative path under ~/.ssh, globs, the enclosing Host block going on after the included text). Real sshd nodes
    on 127.x, the config's Host blocks in an included file."""
    import pytest

    import sshcluster

    if not sshcluster.available():
        pytest.skip("needs root and openssh-server (tests/run.sh installs it)")
    c = sshcluster.Cluster()
    try:
        c.add("n1").add("n2").start()
        home = tmp_path / "home"
        (home / ".ssh" / "config.d").mkdir(parents=True)
        with open(c.ssh_config) as f:
            (home / ".ssh" / "config.d" / "cluster.conf").write_text(f.read())
        main = home / ".ssh" / "config"
        main.write_text("Include config.d/*.conf\n")  # relative: under ~/.ssh, as ssh reads it
        hf = c.hostfile()

        def gd(*argv):
            return subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--hosts", hf, "--select", "shm"]
                                  + list(argv), capture_output=True, text=True, env=_env(HOME=str(home)),
                                  cwd=str(tmp_path), timeout=120)

        for argv in (["--ssh-config", str(main)], []):  # named, and found as ~/.ssh/config
            p = gd(*argv)
            assert p.returncode == 0, (argv, p.stdout, p.stderr)
            assert "2 nodes, 0 unreachable" in p.stdout and "resolve" not in p.stdout, p.stdout
    finally:
        c.cleanup()

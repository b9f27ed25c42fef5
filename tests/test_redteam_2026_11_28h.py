"""Red team 2026-11-28h (docs/security.md 91.+): hostile inputs against gpudoctor as a user or a node hands them in.
Each test failed before its fix (checked on the start commit c888ab6); the controls pass on both."""

import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def _run(argv, cwd, timeout=120, env=None, stdin=None):
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.PIPE,
                         cwd=str(cwd), env=env)
    try:
        out, err = p.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        pytest.fail("%s still ran after %d s" % (" ".join(argv), timeout))
    return p.returncode, out.decode("utf-8", "surrogateescape"), err.decode("utf-8", "surrogateescape")


def _gd(args, cwd, timeout=120, env=None, stdin=None):
    env = dict(env or os.environ, PYTHONPATH=ROOT)
    return _run([sys.executable, "-P", "-m", "gpudoctor"] + list(args), cwd, timeout=timeout, env=env, stdin=stdin)


def _gd_here(args, cwd):
    """`gpudoctor explain|plan ARGS` in this process (tests/inprocess.py), for the tests that assert only what it
    writes: a `python -P -m gpudoctor` each loaded the checks and explain's knowledge again (suite32: its 14 calls each
    gave the process's exit code, stdout and stderr). The tests of what the process does (check --local from a folder
    naming programs, a collector wrapper, an environment) keep _gd."""
    import inprocess

    return inprocess.gd(args, cwd)


def _pasted_lines(lines, tmp_path):
    """Each line and each clause after ': ', '; ', ', ', ' (' or two blanks outside a quoted word, pasted alone into
    a restricted bash whose PATH holds only touch: what it created."""
    from gpudoctor.fixline import keep_quoted

    box = tmp_path / "box"
    (box / "bin").mkdir(parents=True, exist_ok=True)
    (box / "w").mkdir(exist_ok=True)
    if not (box / "bin" / "touch").exists():
        os.symlink(shutil.which("touch"), str(box / "bin" / "touch"))
    todo = []
    for x in lines:
        todo += [x[m.end():] for m in re.finditer(r"^|: |; |, | \(|  +", keep_quoted(x))]
    for line in todo:
        subprocess.run([shutil.which("bash"), "--norc", "--noprofile", "-r", "-c", line], cwd=str(box / "w"),
                       timeout=30, env={"PATH": str(box / "bin"), "HOME": str(box / "w"), "LC_ALL": "C"},
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return sorted(os.listdir(str(box / "w")))


# 91.: diff (and check --history's note) folds more than five changed variables kept only as hashes into one line
# that names them; the names are the node's (or the job's environment's) text and stood bare there: a clause
# 'A2;touch M2;#' of that line ran touch when pasted.

HOSTILE_NAMES = ("A1$(touch M1)", "A2;touch M2;#", "A3`touch M3`", "A5$(touch${IFS}M5)", "A6", "A7")


def test_a_folded_line_of_hashed_variables_shows_each_name_inert(tmp_path):
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items() if not k.startswith("A")}
    rc, out, err = _gd(["check", "--local", "--fast", "--history", "--state-dir", str(state)], tmp_path, env=env)
    assert rc in (0, 1), err
    env.update({n: "value%d" % i for i, n in enumerate(HOSTILE_NAMES)})
    rc, out, err = _gd(["diff", "--since", "last-good", "--state-dir", str(state), "--fast"], tmp_path, env=env)
    assert rc in (0, 1), err
    folded = [x for x in out.splitlines() if "other environment variables differ" in x]
    assert folded and "A6" in folded[0], out
    assert _pasted_lines(folded, tmp_path) == []


# 92.: a password a registry client reads on its stdin (`echo X | docker login -u U --password-stdin`, the form
# docker's own documentation gives, or a here-string) was quoted in clear by explain (a settings line of the log) and
# kept in the facts where a `--python` wrapper's `set -x` traced the pipeline ('+ echo X' on a line of its own beside
# '+ docker login ... --password-stdin').

PW = "Zq81hunter2xyz"


@pytest.mark.parametrize("line", [
    "export NCCL_SOCKET_IFNAME=eth9 REGPW=x; echo %s | docker login -u bob --password-stdin nvcr.io" % PW,
    "export NCCL_SOCKET_IFNAME=eth9; printf '%%s\\n' \"%s\" | podman login -u bob --password-stdin quay.io" % PW,
    "export NCCL_SOCKET_IFNAME=eth9; docker login -u bob --password-stdin nvcr.io <<< %s" % PW,
])
def test_explain_quotes_no_password_piped_into_password_stdin(tmp_path, line):
    log = tmp_path / "job.log"
    log.write_text(line + "\nNCCL WARN Bootstrap : no socket interface found\n")
    for fmt in ([], ["--json"]):
        rc, out, err = _gd_here(["explain", str(log)] + fmt, tmp_path)
        assert rc == 0, err
        assert "--password-stdin" in out  # the line is quoted
        assert PW not in out and "REDACTED" in out


def test_redaction_keeps_a_placeholder_and_an_ordinary_echo():
    from gpudoctor.explain.redact import redact
    from gpudoctor.collector.python_env import _no_values

    for text in ('echo "$CI_REGISTRY_PASSWORD" | docker login -u bob --password-stdin', "echo hello world | tee x",
                 "aws ecr get-login-password | docker login --password-stdin r.io", "+ echo hi\n+ python3 t.py"):
        assert redact(text) == text
        assert _no_values(text) == text


def test_a_traced_echo_beside_password_stdin_is_redacted():
    from gpudoctor.explain.redact import redact

    assert redact("+ echo %s\n+ docker login -u b --password-stdin r" % PW) == \
        "+ echo REDACTED\n+ docker login -u b --password-stdin r"


def test_a_traced_echo_into_password_stdin_leaves_no_password_in_the_facts(tmp_path):
    secret = tmp_path / "regpass"
    secret.write_text(PW + "\n")
    wrapper = tmp_path / "wrap.sh"
    wrapper.write_text("#!/bin/bash\nset -x\necho \"$(cat %s)\" | true login -u bob --password-stdin nvcr.io\nexit 3\n"
                       % secret)
    wrapper.chmod(0o755)
    out_file = tmp_path / "f.json"
    rc, out, err = _gd(["facts", "--local", "--python", str(wrapper), "-o", str(out_file)], tmp_path)
    assert rc == 0, err
    text = out_file.read_text()
    assert "--password-stdin" in text  # the trace is kept
    assert PW not in text


# 93.: slurm-health's clock check read `scontrol show config`'s "Configuration data as of <local time>" with
# mktime(tm_isdst=-1); in the hour a daylight-saving clock repeats, the printed time is two instants an hour apart, and
# a node whose clock was right read 3600 s off: an error, and slurm-health drained it.

@pytest.fixture
def local_zone(monkeypatch):
    import time

    def use(tz):
        monkeypatch.setenv("TZ", tz)
        time.tzset()

    yield use
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("tz,utc", [("America/New_York", (2026, 11, 1, 5, 30, 0)),
                                    ("America/New_York", (2026, 11, 1, 6, 30, 0)),
                                    ("Europe/Berlin", (2026, 10, 25, 0, 30, 0)),
                                    ("Europe/Berlin", (2026, 10, 25, 1, 30, 0))])
def test_the_repeated_hour_of_daylight_saving_reads_no_clock_offset(local_zone, tz, utc):
    import calendar
    import time

    from gpudoctor.slurm import clock_verdict, controller_clock_offset

    local_zone(tz)
    now = calendar.timegm(utc)
    shown = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(now))
    offset = controller_clock_offset(run=lambda argv: "Configuration data as of %s\n" % shown, clock=lambda: now + 0.2)
    assert offset == 0 and clock_verdict(offset) is None


@pytest.mark.parametrize("utc", [(2026, 1, 10, 6, 30, 0), (2026, 7, 10, 6, 30, 0)])
def test_a_clock_an_hour_off_outside_the_repeated_hour_still_drains(local_zone, utc):
    # control: the other season's reading of a printed time is no reading (a hardware clock kept in local time)
    import calendar
    import time

    from gpudoctor.slurm import clock_verdict, controller_clock_offset

    local_zone("Europe/Berlin")
    now = calendar.timegm(utc)
    shown = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(now))
    for ahead in (3600, -3600, 120):
        offset = controller_clock_offset(run=lambda argv: "Configuration data as of %s\n" % shown,
                                         clock=lambda: now + ahead + 0.2)
        assert offset == ahead and clock_verdict(offset)[0] == "error"


# 94.: plan SCRIPT's 'unknown' rows wrote the script's word as written: '  unknown      $(touch M1): the output of a
# command at run time' ran touch when the row's clause after its blanks was pasted (the line row above it already
# quotes that word).

@pytest.mark.parametrize("word", ["$(touch M1)", "`touch M2`", "$(hostname;touch M3)"])
def test_plan_shows_an_unknown_command_substitution_as_one_word(tmp_path, word):
    script = tmp_path / "job.sbatch"
    script.write_text("#!/bin/bash\n#SBATCH -N 2\nsrun torchrun --nnodes 2 --nproc-per-node %s t.py\n" % word)
    rc, out, err = _gd_here(["plan", str(script)], tmp_path)
    assert rc in (0, 1), err
    rows = [x for x in out.splitlines() if x.lstrip().startswith("unknown ")]
    assert rows and "touch" in rows[0], out
    assert _pasted_lines(rows, tmp_path) == []


def test_plan_keeps_a_plain_variable_as_written_in_an_unknown_row(tmp_path):
    # control
    script = tmp_path / "job.sbatch"
    script.write_text("#!/bin/bash\n#SBATCH -N 2\nsrun torchrun --nnodes 2 --nproc-per-node $GPUS t.py\n")
    rc, out, err = _gd(["plan", str(script)], tmp_path, env=dict(os.environ, GPUS=""))
    assert "  unknown      $GPUS: the environment at run time" in out


# 95.: a config found in the current folder (a cloned repository's pyproject.toml) may not name a program inside that
# folder (40.), but could name one elsewhere that another user owns or can put there ("/shared/scratch/them/py",
# "/tmp/py"): gpudoctor check typed in the folder ran that user's program as you.

def _repo_naming(tmp_path, program):
    repo = tmp_path / "repo"
    repo.mkdir(exist_ok=True)
    (repo / "pyproject.toml").write_text('[tool.gpudoctor]\npython = "%s"\n' % program)
    return repo


def _program(path, ran):
    path.write_text('#!/bin/sh\ntouch %s\nexec python3 "$@"\n' % ran)
    path.chmod(0o755)
    return path


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another uid needs root")
def test_a_folder_config_runs_no_program_another_user_owns(tmp_path):
    ran = tmp_path / "RAN"
    other = tmp_path / "other"
    other.mkdir()
    prog = _program(other / "py", ran)
    os.chown(str(prog), 12345, 12345)
    rc, out, err = _gd(["check", "--local"], _repo_naming(tmp_path, prog))
    assert rc == 2 and "belongs to uid 12345" in err, (rc, err)
    assert not ran.exists()


def test_a_folder_config_runs_no_program_from_a_folder_anyone_can_write(tmp_path):
    ran = tmp_path / "RAN"
    open_dir = tmp_path / "open"
    open_dir.mkdir()
    prog = _program(open_dir / "py", ran)
    open_dir.chmod(0o777)
    rc, out, err = _gd(["check", "--local"], _repo_naming(tmp_path, prog))
    assert rc == 2 and "writable by everyone" in err, (rc, err)
    assert not ran.exists()
    sticky = tmp_path / "sticky"
    sticky.mkdir()
    sticky.chmod(0o1777)
    rc, out, err = _gd(["check", "--local"], _repo_naming(tmp_path, sticky / "not-there-yet"))
    assert rc == 2 and "the program is not there" in err, (rc, err)


def test_a_folder_config_still_names_an_interpreter_of_yours_elsewhere(tmp_path):
    # control: a program of this user's (or root's) outside the folder, in folders only they can write
    ran = tmp_path / "RAN"
    mine = tmp_path / "env"
    mine.mkdir()
    prog = _program(mine / "py", ran)
    rc, out, err = _gd(["check", "--local"], _repo_naming(tmp_path, prog))
    assert rc in (0, 1) and "does not choose" not in err, (rc, err)
    assert ran.exists()  # the folder's config chose it, and it ran


# 96.: other programs that read a password on stdin (sudo -S, kinit, chpasswd, passwd --stdin, gh --with-token) and
# passwords given as a program's own operand with no name saying so (openssl -passin pass:X, redis-cli -a X,
# ldapsearch -w X, smbclient -U user%X, az login -p X, mongosh -p X) were quoted in clear by explain and kept in the
# facts of a --python wrapper.

SECRET_FORMS = [
    "echo %s | sudo -S systemctl restart slurmd", "echo %s | sudo -u bob -S ls", "echo %s | kinit alice@EXAMPLE.COM",
    "echo alice:%s | chpasswd", "echo -e \"%s\\n\" | passwd --stdin alice", "echo %s | gh auth login --with-token",
    "sudo -S <<< %s ls", "+ echo %s\n+ sudo -S ls", "+ kinit alice\n+ echo %s",
    "openssl pkcs12 -in a.p12 -passin pass:%s", "redis-cli -h r -a %s ping", "ldapsearch -x -D cn=admin -w %s",
    "smbclient //h/s -U alice%%%s", "az login -u alice -p %s", "mongosh -u alice -p %s",
]


@pytest.mark.parametrize("form", SECRET_FORMS)
def test_a_password_read_on_stdin_or_as_an_operand_is_redacted(form):
    from gpudoctor.collector.python_env import _no_values
    from gpudoctor.explain.redact import redact

    text = form % PW
    assert PW not in redact(text) and "REDACTED" in redact(text)
    assert PW not in _no_values(text)


def test_an_ordinary_pipe_into_sudo_or_kinit_keeps_its_words():
    # control
    from gpudoctor.collector.python_env import _no_values
    from gpudoctor.explain.redact import redact

    for text in ("echo 3 | sudo tee /proc/sys/vm/drop_caches", "echo $PW | sudo -S ls", "ls -S | head",
                 "echo done; kinit", "redis-cli -h r ping", "ldapsearch -x -LLL uid"):
        assert redact(text) == text and _no_values(text) == text


def test_explain_quotes_no_password_piped_into_sudo(tmp_path):
    log = tmp_path / "job.log"
    log.write_text("export NCCL_SOCKET_IFNAME=eth9; echo %s | sudo -S modprobe nvidia_peermem\n"
                   "NCCL WARN Bootstrap : no socket interface found\n" % PW)
    rc, out, err = _gd_here(["explain", str(log)], tmp_path)
    assert rc == 0 and "sudo -S modprobe" in out, err
    assert PW not in out


# 97.: a lower-case snake_case credential's name and its value apart by a blank (`aws configure set
# aws_secret_access_key X`, the AWS CLI's documented form; rclone's `secret_access_key X`) and keytool's
# `-storepass X` / `-keypass X` were in clear.

@pytest.mark.parametrize("form", ["aws configure set aws_secret_access_key %sAbCdEf",
                                  "aws configure set aws_session_token %sAbCdEf",
                                  "rclone config create r s3 secret_access_key %sAbCdEf",
                                  "keytool -list -keystore k.jks -storepass %s",
                                  "keytool -importkeystore -srckeypass %s -destkeypass x"])
def test_a_snake_case_credential_and_keytool_passwords_are_redacted(form):
    from gpudoctor.collector.python_env import _no_values
    from gpudoctor.explain.redact import redact

    text = form % PW
    assert PW not in redact(text) and PW not in _no_values(text)


def test_ordinary_snake_case_words_keep_their_values():
    # control: a setting that is no credential, a tokenizer's special token, a value that does not look random
    from gpudoctor.collector.python_env import _no_values
    from gpudoctor.explain.redact import redact

    for text in ("aws configure set region us-east-1", "the max_new_tokens 0123456789abcdef0123",
                 "pad_token abcdef0123456789abcd", "set cache_key 0123456789abcdef0123",
                 "the secret_key is missing"):
        assert redact(text) == text and _no_values(text) == text


# 98.: plan --launch printed its line's `--token hf_...` as typed (plan SCRIPT hid a credential's shape since 66.),
# and every plan the value of a credential's flag (--db-password X, --wandb_key=X) in its text and JSON.

TOKEN = "hf_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef0123"


def test_plan_launch_shows_no_credential_typed_on_the_line(tmp_path):
    line = ("torchrun --nproc-per-node 2 t.py --token %s --db-password %s --wandb_key=%s --hub_token $HF_TOKEN "
            "--tokenizer_name gpt2 --max_new_tokens 100" % (TOKEN, PW, PW))
    for fmt in ([], ["--json"]):
        rc, out, err = _gd_here(["plan", "--launch", line] + fmt, tmp_path)
        assert rc == 0, err
        assert TOKEN not in out and PW not in out and "--db-password" in out
        # control: a placeholder and ordinary arguments are kept
        assert "$HF_TOKEN" in out and "gpt2" in out and "100" in out


def test_plan_script_shows_no_value_of_a_credentials_flag(tmp_path):
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/bash\ntorchrun --nproc-per-node 2 t.py --db-password %s --api-key=%s\n" % (PW, PW))
    for fmt in ([], ["--json"]):
        rc, out, err = _gd_here(["plan", str(script)] + fmt, tmp_path)
        assert rc == 0, err
        assert PW not in out and "--db-password" in out


@pytest.mark.parametrize("trace", [
    "+ docker login -u bob --password-stdin nvcr.io\n++ cat regpass\n+ echo {pw}\n",
    "++ cat regpass\n+ echo {pw}\n+ docker login -u bob --password-stdin nvcr.io\n",
    "+ echo {pw}\n++ cat regpass\n+ docker login -u bob --password-stdin nvcr.io\n",
    "+ docker login -u bob --password-stdin nvcr.io\n+ echo {pw}\n"])
def test_a_traced_echo_a_few_trace_lines_from_the_login_is_redacted(trace):
    """The two sides of `echo "$(cat f)" | docker login --password-stdin` start at once; bash's trace wrote
    '+ docker login ...', '++ cat f', '+ echo X' in either order (the facts test above failed 2 of 3 clean-clone
    CI runs when '++ cat' came between). explain and a --python wrapper's facts both hide X."""
    from gpudoctor.collector import python_env
    from gpudoctor.explain.redact import redact

    text = trace.format(pw=PW) + "Error response from daemon: unauthorized\n"
    assert PW not in redact(text) and "--password-stdin" in redact(text)
    assert PW not in python_env._no_values(text)

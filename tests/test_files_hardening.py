"""Input and output files are only ever regular files (issue 23, items 2 and 3).

Inputs (gpudoctor/errors.py open_input/read_input): every entry point that reads a file the
user names refuses a FIFO, a character device, a directory, and a symlink another user
planted to a file that is not theirs: one line on stderr, exit 2, before a byte is read,
and nothing of the file in the message. Every case runs under a deadline: a FIFO that
were opened for reading after all gets a writer that closes at once, so a regression
fails the test instead of hanging the suite.

Outputs (gpudoctor/report/atomic.py write_atomic): a symlink or a regular file is replaced
by rename (never followed); a FIFO, a device or a directory is refused within the
deadline; /dev/null takes nothing; nothing is written under /dev, /proc, /sys.

Config discovery (gpudoctor/config.py find_config): root hooks read only --config,
$GPUDOCTOR_CONFIG and /etc; a ./gpudoctor.toml that is a symlink or another user's file is
refused; such a ./pyproject.toml is not opened.
"""

import io
import os
import shlex
import stat
import subprocess
import sys
import threading
from contextlib import redirect_stderr, redirect_stdout

import pytest
from conftest import FIXTURES, ROOT

from gpudoctor.cli import main
from gpudoctor.errors import InputError
from gpudoctor.report.atomic import write_atomic

FACTS = os.path.join(FIXTURES, "nodes", "h100-ubuntu2404-torch211.json")
SECRET = "SECRET-LINE-7f3a:$6$salt$hash"
OTHER = 65534  # nobody
ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="planting another user's symlink needs root (lchown)")

# every entry point that opens a file the user names; X is the file
ENTRY_POINTS = {
    "check --hosts": ["check", "--hosts", "X"],
    "check --facts": ["check", "--facts", "X"],
    "check --config": ["check", "--config", "X", "--facts", FACTS],
    "check --deepspeed-config": ["check", "--deepspeed-config", "X", "--facts", FACTS],
    "plan --deepspeed-config": ["plan", "--deepspeed-config", "X", "--launch", "deepspeed train.py"],
    "plan --launch horovodrun --hostfile": ["plan", "--launch", "horovodrun -np 2 --hostfile X python train.py"],
    "plan --launch mpiexec.hydra -f": ["plan", "--launch", "mpiexec.hydra -f X -n 2 python train.py"],
    "plan --launch mpirun --hostfile": ["plan", "--launch", "mpirun -np 2 --hostfile X python train.py"],
    "plan --accelerate-config": ["plan", "--accelerate-config", "X"],
    "plan --launch accelerate --config_file": ["plan", "--launch", "accelerate launch --config_file X train.py"],
    "explain --facts": ["explain", "--facts", "X", "NCCL error: unhandled system error"],
    "explain --file": ["explain", "--file", "X"],
    "slurm-health --config": ["slurm-health", "--config", "X", "--dry-run", "--node", "n1"],
}
def build(entry, path):
    return [path if a == "X" else a.replace(" X ", " %s " % shlex.quote(path)) for a in ENTRY_POINTS[entry]]


FOLDERS_OK = {"check --facts", "explain --facts", "explain --file"}


def run_main(argv, fifo=None, seconds=10.0):
    """main(argv) in this process, under a deadline: (rc, stderr)."""
    out, err, got = io.StringIO(), io.StringIO(), []

    def work():
        with redirect_stdout(out), redirect_stderr(err):
            got.append(main(argv))

    t = threading.Thread(target=work, daemon=True)
    t.start()
    t.join(seconds)
    if t.is_alive():
        if fifo:  # a reader blocked on the FIFO: give it a writer that closes, so it ends
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        t.join(5)
        pytest.fail("%s blocked for more than %g s" % (" ".join(argv), seconds))
    return got[0], err.getvalue()


def one_line_2(rc, err):
    assert rc == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err


@pytest.fixture
def special(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GPUDOCTOR_CONFIG", raising=False)
    fifo = str(tmp_path / "fifo")
    os.mkfifo(fifo)
    os.mkdir(str(tmp_path / "folder"))
    return {"fifo": (fifo, "a FIFO"), "char device": ("/dev/zero", "a character device"),
            "directory": (str(tmp_path / "folder"), "a directory")}


@pytest.mark.parametrize("kind", ["fifo", "char device", "directory"])
@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_every_input_refuses_a_special_file(special, entry, kind):
    path, words = special[kind]
    argv = build(entry, path)
    rc, err = run_main(argv, fifo=path if kind == "fifo" else None)
    one_line_2(rc, err)
    if kind == "directory" and entry in FOLDERS_OK:
        return  # a folder of facts files or logs: an empty one is its own one-line error
    if "accelerate" in entry:  # accelerate's own rule (os.path.isfile): "does not exist", as it says
        assert "accelerate would refuse this" in err and "does not exist" in err, err
        return
    # explain --file names it in its own words (gpudoctor/explain/inputs.py)
    assert "not a regular file" in err, err
    if entry != "explain --file":
        assert words in err, err


@pytest.mark.parametrize("entry", ["check --facts", "explain --facts"])
def test_a_fifo_inside_a_facts_folder_is_refused(special, tmp_path, entry):
    folder = tmp_path / "facts"
    folder.mkdir()
    os.mkfifo(str(folder / "gpu01.json"))
    argv = build(entry, str(folder))
    rc, err = run_main(argv, fifo=str(folder / "gpu01.json"))
    one_line_2(rc, err)
    assert "a FIFO, not a regular file" in err, err


@ROOT_ONLY
@pytest.mark.parametrize("entry", sorted(e for e in ENTRY_POINTS if e != "explain --file" and "accelerate" not in e))
def test_a_symlink_another_user_planted_is_not_followed(tmp_path, monkeypatch, entry):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GPUDOCTOR_CONFIG", raising=False)
    secret = tmp_path / "root-only"
    secret.write_text(SECRET + "\n")
    os.chmod(str(secret), 0o600)
    link = tmp_path / "planted"
    os.symlink(str(secret), str(link))
    os.lchown(str(link), OTHER, OTHER)
    argv = build(entry, str(link))
    rc, err = run_main(argv)
    one_line_2(rc, err)
    assert "symlink that uid %d owns" % OTHER in err, err
    assert "SECRET" not in err and "$6$" not in err


@ROOT_ONLY
def test_a_symlink_another_user_owns_to_their_own_file_is_read(tmp_path):
    from gpudoctor.errors import read_input

    theirs = tmp_path / "theirs"
    theirs.write_text("gpu01 slots=8\n")
    os.chown(str(theirs), OTHER, OTHER)
    link = tmp_path / "link"
    os.symlink(str(theirs), str(link))
    os.lchown(str(link), OTHER, OTHER)
    assert read_input(str(link), "hostfile") == b"gpu01 slots=8\n"


def test_dev_null_and_a_regular_file_are_still_inputs(tmp_path):
    from gpudoctor.errors import read_input

    (tmp_path / "h").write_text("gpu01\n")
    assert read_input(str(tmp_path / "h"), "hostfile", limit=100) == b"gpu01\n"
    # /dev/null is the conventional empty input (GPUDOCTOR_CONFIG=/dev/null); every other
    # device is refused before a byte is read
    assert read_input("/dev/null", "config") == b""
    for dev in ("/dev/zero", "/dev/urandom", "/dev/full"):
        with pytest.raises(InputError, match="a character device"):
            read_input(dev, "hostfile")


# -- output files ---------------------------------------------------------------------------


def _ends(fn, *args):
    """fn(*args) in a thread given 60 s to end (a deadline on the state "it returned or raised", not a wall-clock
    bound: a FIFO opened for writing with no reader blocks forever, a busy machine only takes longer)."""
    import threading

    got = []

    def call():
        try:
            got.append((True, fn(*args)))
        except BaseException as exc:  # noqa: B902 - handed to the caller as raised
            got.append((False, exc))

    t = threading.Thread(target=call, daemon=True)
    t.start()
    t.join(60)
    assert got, "%s still blocked after 60 s" % fn.__name__
    ok, value = got[0]
    if not ok:
        raise value
    return value


def test_a_planted_symlink_is_replaced_never_followed(tmp_path):
    target = tmp_path / "root-only"
    target.write_text(SECRET)
    fifo = tmp_path / "fifo"
    os.mkfifo(str(fifo))
    for dest in (target, fifo, tmp_path / "missing"):
        link = tmp_path / "gpudoctor.prom"
        if os.path.lexists(str(link)):
            os.unlink(str(link))
        os.symlink(str(dest), str(link))
        _ends(write_atomic, str(link), "gpudoctor_exit_code 0\n")  # never blocks on the FIFO: it is not opened
        assert stat.S_ISREG(os.lstat(str(link)).st_mode) and link.read_text() == "gpudoctor_exit_code 0\n"
    assert target.read_text() == SECRET and stat.S_ISFIFO(os.stat(str(fifo)).st_mode)
    assert not (tmp_path / "missing").exists()
    assert sorted(os.listdir(str(tmp_path))) == ["fifo", "gpudoctor.prom", "root-only"]  # no temp file left


@pytest.mark.parametrize("kind", ["fifo", "char device", "directory"])
def test_a_special_target_is_refused_at_once(tmp_path, kind):
    path = {"fifo": str(tmp_path / "p"), "char device": "/dev/zero", "directory": str(tmp_path)}[kind]
    if kind == "fifo":
        os.mkfifo(path)
    with pytest.raises(InputError, match="not a regular file"):
        _ends(write_atomic, path, "x\n")  # at once: a FIFO opened for writing would block until a reader came
    assert stat.S_ISCHR(os.stat("/dev/zero").st_mode)


def test_dev_null_takes_nothing_and_system_folders_are_refused():
    write_atomic("/dev/null", "x\n")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    with pytest.raises(InputError, match="system folder"):
        write_atomic("/sys/kernel/gpudoctor-test.prom", "x\n")


@ROOT_ONLY
def test_facts_o_into_a_folder_link_another_user_planted_is_refused(tmp_path):
    from gpudoctor.gather import save
    from gpudoctor.runner import Node

    ours = tmp_path / "etc"
    ours.mkdir()
    link = tmp_path / "textfile"
    os.symlink(str(ours), str(link))
    os.lchown(str(link), OTHER, OTHER)
    with pytest.raises(InputError, match="symlink that uid %d owns" % OTHER):
        save([Node(host="gpu01", error="x", error_kind="ssh")], str(link))
    assert os.listdir(str(ours)) == []


def test_the_new_file_mode_is_set_on_the_descriptor(tmp_path):
    out = tmp_path / "r.prom"
    old = os.umask(0o027)
    try:
        write_atomic(str(out), "x\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(str(out)).st_mode) == 0o640


def _cli(args, cwd, timeout=60):
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("GPUDOCTOR_CONFIG", None)
    return subprocess.run([sys.executable, "-m", "gpudoctor"] + args, cwd=str(cwd), env=env, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def test_check_and_slurm_health_o_through_a_planted_link_to_a_fifo(tmp_path):
    """The issue's reproducer: -o PATH where PATH is a symlink to a FIFO blocked forever,
    past --timeout 5. Now the link is replaced and the FIFO is left alone; -o FIFO itself
    is one line and exit 2."""
    fifo = tmp_path / "fifo"
    os.mkfifo(str(fifo))
    link = tmp_path / "node.prom"
    os.symlink(str(fifo), str(link))
    p = _cli(["check", "--facts", FACTS, "--format", "prometheus", "-o", str(link)], tmp_path, timeout=30)
    assert p.returncode in (0, 1), p.stderr
    assert stat.S_ISREG(os.lstat(str(link)).st_mode) and "gpudoctor_" in link.read_text()
    assert stat.S_ISFIFO(os.stat(str(fifo)).st_mode)
    p = _cli(["slurm-health", "--dry-run", "--fast", "--node", "n1", "--timeout", "5", "--format", "prometheus",
              "-o", str(fifo)], tmp_path, timeout=30)
    assert p.returncode == 2 and "a FIFO, not a regular file" in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


# -- config discovery ----------------------------------------------------------------------


@pytest.fixture
def cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GPUDOCTOR_CONFIG", raising=False)
    return tmp_path


def test_a_root_hook_never_reads_the_config_of_its_folder(cwd, monkeypatch):
    from gpudoctor import config

    monkeypatch.setattr(config, "ETC_CONFIG", str(cwd / "etc-gpudoctor.toml"))
    (cwd / "gpudoctor.toml").write_text("expected_gpus = 8.5\n")  # would be exit 2 if read
    (cwd / "pyproject.toml").write_text("[tool.gpudoctor]\nexpected_gpus = 8.5\n")
    assert config.find_config(hook=True) is None
    assert config.find_config() == "gpudoctor.toml"
    monkeypatch.setenv("GPUDOCTOR_CONFIG", "/x/named.toml")
    assert config.find_config(hook=True) == "/x/named.toml"
    # through the command: the planted config is not what stops it, --select is
    monkeypatch.delenv("GPUDOCTOR_CONFIG")
    rc, err = run_main(["slurm-health", "--dry-run", "--node", "n1", "--select", "zz.nothing"])
    assert rc == 2 and "--select zz.nothing matches no check" in err, err


def test_a_planted_config_symlink_in_the_folder_is_refused(cwd):
    secret = cwd / "root-only.toml"
    secret.write_text(SECRET + "\n")
    os.symlink(str(secret), str(cwd / "gpudoctor.toml"))
    rc, err = run_main(["check", "--facts", FACTS])
    one_line_2(rc, err)
    assert "./gpudoctor.toml is a symlink" in err and "SECRET" not in err


@ROOT_ONLY
def test_another_users_config_in_the_folder_is_refused_and_their_pyproject_not_opened(cwd, monkeypatch):
    from gpudoctor import config

    monkeypatch.setattr(config, "ETC_CONFIG", str(cwd / "etc-gpudoctor.toml"))
    (cwd / "gpudoctor.toml").write_text("expected_gpus = 8\n")
    os.chown(str(cwd / "gpudoctor.toml"), OTHER, OTHER)
    rc, err = run_main(["check", "--facts", FACTS])
    one_line_2(rc, err)
    assert "owned by uid %d" % OTHER in err
    os.unlink(str(cwd / "gpudoctor.toml"))
    (cwd / "pyproject.toml").write_text("[tool.gpudoctor]\nexpected_gpus = 8.5\n")
    os.chown(str(cwd / "pyproject.toml"), OTHER, OTHER)
    assert config.find_config() is None

"""cfg22: a config found in the current folder may not move gpudoctor's state (docs/security.md 46.).

Through the real CLI in a child, in a folder standing for a cloned repository: `gpudoctor check` there with a
./pyproject.toml or ./gpudoctor.toml whose `state_dir` lies in (or is relative to) that folder wrote the history and
its HMAC key into the repository, and used a key the repository carried there."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLANTED = "ab" * 32


def _gpudoctor(cwd, *args, timeout=120, env_extra=None):
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("GPUDOCTOR_STATE_DIR", None)  # conftest's: it comes before the config's key (docs/history.md)
    env.pop("GPUDOCTOR_CONFIG", None)
    env.update(env_extra or {})
    p = subprocess.Popen([sys.executable, "-m", "gpudoctor"] + list(args), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=str(cwd), env=env)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        pytest.fail("gpudoctor %s still ran after %d s" % (" ".join(args), timeout))
    return p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def _repo(tmp_path, config, state_dir):
    repo = tmp_path / "repo"
    (repo / ".gpudoctor" / "history").mkdir(parents=True)
    # a key the repository carries where its state_dir points: read and used before (the keyed hashes of this
    # user's secrets would then be the repository author's to reverse)
    (repo / ".gpudoctor" / "history" / "key").write_text(PLANTED + "\n")
    text = 'history = true\nstate_dir = "%s"\n' % state_dir.replace("{here}", str(repo))
    (repo / config).write_text(("[tool.gpudoctor]\n" if config == "pyproject.toml" else "") + text)
    return repo


def _written(top):
    return sorted(os.path.relpath(os.path.join(d, f), str(top)) for d, _, fs in os.walk(str(top)) for f in fs)


@pytest.mark.parametrize("config, state_dir", [
    ("pyproject.toml", ".gpudoctor"), ("pyproject.toml", "./state/x"), ("gpudoctor.toml", "{here}/.gpudoctor"),
    ("gpudoctor.toml", "/proc/self/cwd/.gpudoctor"), ("pyproject.toml", "../state"), ("gpudoctor.toml", "~/state"),
])
def test_a_config_found_here_keeps_no_state_in_this_folder(tmp_path, config, state_dir):
    repo = _repo(tmp_path, config, state_dir)
    before = _written(tmp_path)
    rc, out, err = _gpudoctor(repo, "check", "--local", env_extra={"XDG_STATE_HOME": str(tmp_path / "xdg")})
    assert rc == 2 and "state_dir" in err and len(err.strip().splitlines()) == 1, (rc, err)
    assert _written(tmp_path) == before  # no history, no key: nothing written anywhere
    assert not (repo / ".gpudoctor" / "history" / "vm").exists()


def test_a_state_dir_outside_the_folder_or_named_explicitly_is_used(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    repo = _repo(tmp_path, "pyproject.toml", str(elsewhere))
    rc, out, err = _gpudoctor(repo, "check", "--local")
    assert rc in (0, 1), err
    assert os.path.isfile(str(elsewhere / "history" / "key"))
    # --state-dir given by the user may name the folder's own, and its key is used
    (repo / "pyproject.toml").write_text('[tool.gpudoctor]\nhistory = true\nstate_dir = ".gpudoctor"\n')
    rc, out, err = _gpudoctor(repo, "check", "--local", "--state-dir", str(repo / ".gpudoctor"))
    assert rc in (0, 1), err
    assert [n for n in os.listdir(str(repo / ".gpudoctor" / "history")) if n != "key"]
    # so may --config naming the file
    rc, out, err = _gpudoctor(repo, "check", "--local", "--config", "pyproject.toml")
    assert rc in (0, 1), err


def test_a_named_configs_state_dir_under_home_is_the_home_folder(tmp_path):
    # state_dir = "~/gd-state" in a config named with --config is $HOME/gd-state; it made ./~/gd-state before
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    cfg = tmp_path / "my.toml"
    cfg.write_text('history = true\nstate_dir = "~/gd-state"\n')
    rc, out, err = _gpudoctor(work, "check", "--local", "--config", str(cfg), env_extra={"HOME": str(home)})
    assert rc in (0, 1), err
    assert os.path.isfile(str(home / "gd-state" / "history" / "key"))
    assert not os.path.exists(str(work / "~"))

"""Mutation round 24 (docs/mutation.md): red team 2026-11-28h's config rule (docs/security.md 95.) and review29's
link rule, in process so mutmut can count them: a ./pyproject.toml found in the current folder does not choose a
python that another user owns or can put there. test_redteam_2026_11_28h.py and test_review29.py run gpudoctor in a
subprocess, which mutmut cannot see. Each case is a real folder tree (chown needs root) read by config.load_config
from the folder, as `gpudoctor check` typed there reads it; the message is the one line the user sees."""
import os
import sys

import pytest

from gpudoctor.config import load_config
from gpudoctor.errors import InputError, excerpt

root_only = pytest.mark.skipif(os.geteuid() != 0, reason="chown to another uid needs root")


def _q(path):
    return excerpt(str(path), 80)  # (a path as the one-line message quotes it)


def _program(path):
    path.write_text("#!/bin/sh\nexec python3 \"$@\"\n")
    path.chmod(0o755)
    return path


def _load_naming(tmp_path, monkeypatch, python):
    """load_config() from a folder whose ./pyproject.toml names ``python``; its error's text, or None."""
    repo = tmp_path / "repo"
    repo.mkdir(exist_ok=True)
    (repo / "pyproject.toml").write_text('[tool.gpudoctor]\npython = "%s"\n' % python)
    monkeypatch.chdir(repo)
    monkeypatch.delenv("GPUDOCTOR_CONFIG", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    try:
        cfg = load_config()
    except InputError as exc:
        return str(exc)
    assert cfg.python == str(python)
    return None


@root_only
def test_a_program_another_user_owns_is_refused_by_its_own_path(tmp_path, monkeypatch):
    other = tmp_path / "other"
    other.mkdir()
    prog = _program(other / "py")
    os.chown(str(prog), 12345, 12345)
    err = _load_naming(tmp_path, monkeypatch, prog)
    assert err == ("./pyproject.toml: python = %s: %s belongs to uid 12345, and a config found in the current folder "
                   "does not choose a program another user can change (give it with --python, or name this file with "
                   "--config)" % (_q(prog), _q(prog))), err


@root_only
def test_a_folder_above_another_user_owns_is_named(tmp_path, monkeypatch):
    theirs = tmp_path / "theirs"
    (theirs / "bin").mkdir(parents=True)
    prog = _program(theirs / "bin" / "py")
    os.chown(str(theirs), 12345, 12345)
    err = _load_naming(tmp_path, monkeypatch, prog)
    assert err is not None and "%s belongs to uid 12345" % _q(theirs) in err, err


def test_a_program_anyone_can_write_is_refused(tmp_path, monkeypatch):
    mine = tmp_path / "env"
    mine.mkdir()
    prog = _program(mine / "py")
    prog.chmod(0o777)
    err = _load_naming(tmp_path, monkeypatch, prog)
    assert err is not None and "%s is writable by everyone" % _q(prog) in err, err


def test_a_folder_above_anyone_can_write_without_the_sticky_bit_is_refused(tmp_path, monkeypatch):
    open_dir = tmp_path / "open"
    (open_dir / "bin").mkdir(parents=True)
    prog = _program(open_dir / "bin" / "py")
    open_dir.chmod(0o777)
    err = _load_naming(tmp_path, monkeypatch, prog)
    assert err is not None and "%s, above it, is writable by everyone" % _q(open_dir) in err, err
    assert "not there" not in err


def test_a_sticky_folder_passes_a_program_there_and_refuses_one_not_there_yet(tmp_path, monkeypatch):
    sticky = tmp_path / "sticky"
    sticky.mkdir()
    sticky.chmod(0o1777)
    prog = _program(sticky / "py")
    assert _load_naming(tmp_path, monkeypatch, prog) is None  # /tmp's rule: only its owner can replace it
    err = _load_naming(tmp_path, monkeypatch, sticky / "not-there-yet")
    assert err is not None and "%s, above it, is writable by everyone and the program is not there" % _q(sticky) in err


def test_an_interpreter_of_yours_elsewhere_is_still_chosen(tmp_path, monkeypatch):
    mine = tmp_path / "env"
    mine.mkdir()
    assert _load_naming(tmp_path, monkeypatch, _program(mine / "py")) is None
    # a program not there yet in folders only root can write (said where it is run, not here)
    assert _load_naming(tmp_path, monkeypatch, "/usr/bin/gpudoctor-not-there") is None


@root_only
def test_a_link_in_another_users_folder_is_refused_though_its_target_is_roots(tmp_path, monkeypatch):
    other = tmp_path / "other"
    other.mkdir()
    os.symlink(sys.executable, str(other / "python"))
    os.chown(str(other), 12345, 12345)
    err = _load_naming(tmp_path, monkeypatch, other / "python")
    assert err is not None and "%s belongs to uid 12345" % _q(other) in err, err
    # a link of yours in a folder of yours: its mode (always 0777) is no one else's to write
    mine = tmp_path / "mine"
    mine.mkdir()
    os.symlink(sys.executable, str(mine / "python"))
    assert _load_naming(tmp_path, monkeypatch, mine / "python") is None


def test_a_program_inside_the_folder_is_refused_and_the_home_folder_is_not_held_to_it(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    repo.mkdir()
    _program(repo / "py")
    err = _load_naming(tmp_path, monkeypatch, repo / "py")
    assert err == ("./pyproject.toml: python = %s is a program inside the current folder, and a config found in the "
                   "current folder does not choose one to run (give it with --python, or name this file with --config)"
                   % _q(repo / "py")), err
    # ~/pyproject.toml in your home folder: your folder, its python chosen even from an open folder
    open_dir = tmp_path / "open"
    open_dir.mkdir()
    prog = _program(open_dir / "py")
    open_dir.chmod(0o777)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.gpudoctor]\npython = "%s"\n' % prog)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert load_config().python == str(prog)


@root_only
def test_a_link_another_user_owns_in_a_sticky_folder_is_refused(tmp_path, monkeypatch):
    # /tmp/py planted by another user of the login node as a link to root's python: the link is theirs to repoint
    sticky = tmp_path / "sticky"
    sticky.mkdir()
    sticky.chmod(0o1777)
    link = sticky / "py"
    os.symlink(sys.executable, str(link))
    os.lchown(str(link), 12345, 12345)
    err = _load_naming(tmp_path, monkeypatch, link)
    assert err is not None and "%s belongs to uid 12345" % _q(link) in err, err


@root_only
def test_a_long_path_is_cut_in_the_one_line_message(tmp_path, monkeypatch):
    deep = tmp_path / ("d" * 90)
    deep.mkdir()
    prog = _program(deep / "py")
    prog.chmod(0o777)
    err = _load_naming(tmp_path, monkeypatch, prog)
    assert err is not None and "%s is writable by everyone" % excerpt(str(prog), 80) in err, err
    assert str(prog) not in err
    os.chown(str(prog), 12345, 12345)
    err = _load_naming(tmp_path, monkeypatch, prog)
    assert "%s belongs to uid 12345" % excerpt(str(prog), 80) in err and str(prog) not in err, err
    prog.unlink()
    deep.chmod(0o777)
    err = _load_naming(tmp_path, monkeypatch, _program(deep / "py"))
    assert "%s, above it, is writable by everyone" % excerpt(str(deep), 80) in err and str(deep) not in err, err
    (deep / "py").unlink()
    deep.chmod(0o1777)
    err = _load_naming(tmp_path, monkeypatch, deep / "py")
    assert "%s, above it, is writable by everyone and the program" % excerpt(str(deep), 80) in err, err

"""The helpers the knowledge generators share (tools/knowgen.py): reading a pinned git revision
(tree_files, revision: the path every `--repo` run takes, which CI otherwise never runs, having no
mirror), the command line (arguments) and the id and anchor rules of a site (slug, unanchored)."""

import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import knowgen  # noqa: E402


def _git(repo, *args):
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false",
                    "-c", "tag.gpgsign=false"] + list(args), check=True, capture_output=True)


def test_tree_files_and_revision_read_the_revision_not_the_work_tree(tmp_path):
    repo = tmp_path / "src.git"
    (repo / "src" / "test").mkdir(parents=True)
    (repo / "src" / "a.c").write_text("WARN(\"one\");\n")
    (repo / "src" / "b.h").write_text("#define X 1\n")
    (repo / "src" / "test" / "t.c").write_text("x\n")
    (repo / "README").write_text("r\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "one")
    _git(repo, "tag", "v1.0")
    (repo / "src" / "a.c").write_text("changed, not committed\n")
    git = knowgen.git_reader(str(repo))
    got = knowgen.tree_files(git, "v1.0", ("src",), lambda p: p.endswith((".c", ".h")) and "/test" not in p)
    assert got == [("src/a.c", "WARN(\"one\");\n"), ("src/b.h", "#define X 1\n")]
    sha = git("rev-parse", "HEAD").strip()
    assert knowgen.revision(git, "v1.0") == "v1.0 (commit %s)" % sha
    assert knowgen.revision(git, "HEAD") == "v1.0 (commit %s)" % sha  # git describe --tags
    assert knowgen.revision(git, "HEAD", describe=False) == "HEAD (commit %s)" % sha


def test_arguments_take_one_source_and_the_site_rules(capsys):
    a = knowgen.arguments("Generate x.\n", ["--slice", "s.txt", "-o", "o.json"], rev="v2")
    assert (a.repo, a.rev, a.slice, a.out) == (None, "v2", "s.txt", "o.json")
    for argv in ([], ["--repo", "r", "--slice", "s"]):
        with pytest.raises(SystemExit) as e:
            knowgen.arguments("Generate x.\n", argv)
        assert e.value.code == 2 and "give --repo or --slice" in capsys.readouterr().err
    assert knowgen.arguments("Generate x.\n", [], source=None).slice is None  # the installed source
    assert knowgen.slug("src/ucs/sys/sys.c:42") == "src_ucs_sys_sys_c_42"
    site = {}
    assert knowgen.unanchored(site, None, "", 8) and site == {"re": None, "family": None,
                                                             "rule": "no literal anchor of 8+ characters"}
    rx, literal = knowgen.printf_to_regex("bind failed: %s")  # 11 characters
    assert not knowgen.unanchored({}, rx, literal) and knowgen.unanchored({}, rx, literal, 16)

"""The helpers the knowledge generators share (tools/knowgen.py): reading a pinned git revision
(tree_files, revision: the path every `--repo` run takes, which CI otherwise never runs, having no
mirror), the command line (arguments, one source or several, stale_fixes), the id and anchor rules
of a site (slug, unanchored), and the readers of a message's format in C (c_format, inttypes: real
NCCL RAS lines match) and in Python (py_messages: a real Horovod logging line matches)."""

import os
import re
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
    # An annotated tag (`git tag -a`) is an object of its own: the commit recorded is the one it points
    # to, as aws-ofi-nccl's v1.21.1, arrow's and Slurm's release tags are (their tag-object ids were
    # recorded as "commit" once).
    _git(repo, "tag", "-a", "-m", "release", "v1.1")
    assert git("cat-file", "-t", "v1.1").strip() == "tag"
    assert git("rev-parse", "v1.1").strip() != sha
    assert knowgen.revision(git, "v1.1", describe=False) == "v1.1 (commit %s)" % sha


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


def test_c_format_expands_inttypes_macros_so_nccls_ras_lines_match():
    # <inttypes.h>'s macros are literals the compiler joins: "%" PRIu64 is "%lu" (glibc, LP64), not "%%lu"
    assert [knowgen.inttypes(m) for m in ("PRIu64", "PRId64", "PRIx32", "PRIuPTR", "PRIdMAX", "PRIu8", "PRIu")] == \
        ["lu", "ld", "x", "lu", "ld", "u", None]
    # NVIDIA/nccl src/ras/rasnet.cc:486 (2.30.7), as in tools/data/nccl_messages_slice.txt
    src = 'INFO(NCCL_RAS, "RAS idle timeout (%" PRId64 "s) on socket connection with %s",\n  (int64_t)(now), x);'
    assert knowgen.c_format(src, src.index('"RAS')) == "RAS idle timeout (%lds) on socket connection with %s"
    assert knowgen.c_format('"a\\tb" NAME "%" PRIu32, x', 0, macro=r"[A-Z]+\b") == "a\tb%s%u"
    assert knowgen.c_format('NAME "a"', 0, macro=r"[A-Z]+\b") is None  # a macro counts after a literal ...
    assert knowgen.c_format('#cmd " failed"', 0, macro=r"#\w+", lead=True) == "%s failed"  # ... unless lead
    # the committed sites match the lines NCCL prints: src/debug.cc's prefix '%s:%d:%d [%d] NCCL INFO ' (host, pid,
    # tid, cudaDev), then the format with ncclSocketToString's 'address<port>' for %s
    sites = {s["where"]: s for s in knowgen.committed("nccl_messages")["sites"]}
    lines = {"src/ras/rasnet.cc:486": "gpu1:4021:4090 [0] NCCL INFO RAS idle timeout (301s) on socket connection "
                                      "with 10.0.0.2<45678>",
             "src/ras/collectives.cc:436": "gpu1:4021:4090 [0] NCCL INFO RAS collective 10.0.0.1<40123>:7 timeout "
                                           "warning (5s) -- 2 responses missing"}
    for where, line in lines.items():
        site = sites[where]
        assert re.search(site["re"], line, re.IGNORECASE), where
        assert any(n in "".join(line.lower().split()) for n in site["needles"]), where  # explain's prefilter
    assert not [s["id"] for s in sites.values() if "%%l" in s["text"]]


def test_several_sources_stale_fixes_and_the_python_reader(capsys):
    a = knowgen.arguments("Generate x.\n", ["--a-repo", "A", "--b-repo", "B"], ("a-repo", "b-repo"))
    assert (a.a_repo, a.b_repo, a.slice) == ("A", "B", None)
    for argv in (["--a-repo", "A"], ["--a-repo", "A", "--slice", "s"], []):
        with pytest.raises(SystemExit) as e:
            knowgen.arguments("Generate x.\n", argv, ("a-repo", "b-repo"))
        assert e.value.code == 2 and "give --a-repo and --b-repo, or --slice" in capsys.readouterr().err
    sites = [{"text": "Invalid credential", "fix": ["x"]}, {"text": "Socket timed out"}]
    knowgen.stale_fixes(a, "MSG_FIX", [(r"^Invalid cred", "m", [])], sites)  # matched: goes on
    with pytest.raises(SystemExit):
        knowgen.stale_fixes(a, "MSG_FIX", [(r"timed out", "m", [])], sites)  # matches a site without a fix
    assert "MSG_FIX entries match no assigned site of this revision: timed out" in capsys.readouterr().err
    src = ("import logging, warnings\nraise ValueError(f'bad  {n}%')\nassert x, 'need ' + y\n"
           "logging.warning('slow: 50%')\nwarnings.warn('old {}'.format(v))\nprint('failed')\nlogger.info('ok')\n")
    assert list(knowgen.py_messages(src)) == [("raise", 2, "bad %s%%"), ("raise", 3, "need %s"),
                                              ("warning", 4, "slow: 50%%"), ("warning", 5, "old %s")]
    more = list(knowgen.py_messages(src, lambda n: ("print", n.args[0]) if getattr(getattr(n, "func", None), "id", "")
                                    == "print" else (None, None)))
    assert ("print", 6, "failed") in more and list(knowgen.py_messages("def (:\n")) == []


def test_a_logging_call_with_arguments_is_already_a_percent_format():
    # logging formats msg % args only when there are args (CPython Lib/logging/__init__.py LogRecord.getMessage)
    src = "logging.warning('slow: %s', t)\nlogger.error('at 100%')\nwarnings.warn('50% %s', UserWarning)\n"
    assert list(knowgen.py_messages(src)) == [("warning", 1, "slow: %s"), ("error", 2, "at 100%%"),
                                              ("warning", 3, "50%% %%s")]
    # horovod/runner/elastic/registration.py:83 (horovod 2626dc87): logging.warning('host registers state %s but is
    # already blacklisted, ignoring: %s', state, host), under logging's default format
    site = next(s for s in knowgen.committed("horovod_messages")["sites"]
                if s["where"] == "horovod/runner/elastic/registration.py:83")
    line = "WARNING:root:host registers state SUCCESS but is already blacklisted, ignoring: node2"
    assert re.search(site["re"], line, re.IGNORECASE)
    assert any(n in "".join(line.lower().split()) for n in site["needles"])


def test_a_message_that_spans_lines_is_matched_by_its_first_line():
    # accelerate/utils/operations.py:395 (accelerate 1.15.0) raises this text, simplified here; printed, it spans lines
    src = ("raise ValueError(\n    'Cannot apply desired operation due to shape mismatches. '\n"
           "    'All shapes across devices must be valid.\\n\\nOperation: `%s`' % op)\n"
           "logger.warning('short\\nthen more: %s', x)\nraise ValueError('one line only')\n")
    assert knowgen.py_first_lines([src]) == {
        1: "Cannot apply desired operation due to shape mismatches. All shapes across devices must be valid.",
        4: "short"}
    fmt = next(f for _, line, f in knowgen.py_messages(src) if line == 1)
    rx, _ = knowgen.matcher(fmt, knowgen.py_first_lines([src])[1])
    assert re.search(rx, "ValueError: Cannot apply desired operation due to shape mismatches. All shapes across "
                         "devices must be valid.") and not re.search(knowgen.printf_to_regex(fmt)[0], "ValueError: "
                         "Cannot apply desired operation due to shape mismatches. All shapes across devices must be valid.")
    # a first line too short to anchor on keeps the whole text's matcher
    assert knowgen.matcher("short then more: %s", "short") == knowgen.printf_to_regex("short then more: %s")
    assert knowgen.first_line("one line only") is None and knowgen.first_line("a\n") is None


def test_an_untagged_mirror_and_slurms_meta(tmp_path):
    repo = tmp_path / "slurm.git"
    repo.mkdir()
    (repo / "META").write_text("  Meta:\t\t1\n  Name:\t\tslurm\n  Version:\t26.11.0\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "one")
    git = knowgen.git_reader(str(repo))
    sha = git("rev-parse", "HEAD").strip()
    assert knowgen.revision(git, "HEAD", untagged="?") == "? (commit %s)" % sha  # fetched without tags
    with pytest.raises(subprocess.CalledProcessError):
        knowgen.revision(git, "HEAD")
    assert knowgen.slurm_release(git, "HEAD") == "26.11.0 (commit %s)" % sha


def test_statement_end_skips_literals_and_brackets():
    # the C/C++ scanner gen_framework_libs (LOG(ERROR) << ... chains) and gen_horovod_messages share
    src = 'LOG(ERROR) << "a; \\"b;\\"" << f(x; y) << v[i;j];  next();'
    end = knowgen.statement_end(src, 0)
    assert src[end] == ";" and src[end + 1:] == "  next();"
    assert src[:end].endswith("v[i;j]")
    assert knowgen.statement_end('x << "never ends', 0) == len('x << "never ends')  # unterminated literal
    assert knowgen.statement_end("f(a;", 0) == 4  # an unclosed bracket: no end at depth 0
    assert knowgen.statement_end("a); b;", 0) == 2  # a closing bracket of the caller's: depth below 0 ends too


def test_package_version_reads_the_first_core_metadata_version(tmp_path):
    # gen_trainer_messages and gen_launcher_messages name the release of an sdist (PKG-INFO) / wheel (METADATA)
    (tmp_path / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: deepspeed\nVersion: 0.12.6\n")
    (tmp_path / "METADATA").write_text("Name: x\nSummary: Version: 9 is not a field here\n")
    missing = str(tmp_path / "nope")
    assert knowgen.package_version([missing, str(tmp_path / "METADATA"), str(tmp_path / "PKG-INFO")]) == "0.12.6"
    assert knowgen.package_version([missing, str(tmp_path / "METADATA")]) == "?"


def test_binary_strings_are_gnu_strings_runs():
    # binutils strings.c STRING_ISGRAPHIC: a printable ASCII byte or a tab; runs shorter than -n are dropped,
    # a NUL or a non-ASCII byte ends a run
    data = b"\x00\x01short\x00NCCL error:\tunhandled\x7fxx\xc3\xa9Socket Timeout\x00"
    assert knowgen.binary_strings(data, 6) == ["NCCL error:\tunhandled", "Socket Timeout"]
    assert knowgen.binary_strings(data, 5) == ["short", "NCCL error:\tunhandled", "Socket Timeout"]
    assert knowgen.binary_strings(b"\x00\x00", 1) == []


def test_run_around_is_the_printable_run_holding_the_needle():
    # vLLM's _C: the custom all-reduce's CUDA check format beside other strings (tools/gen_vllm_messages.py)
    data = b"\x00\x07Failed: Cuda error %s:%d '%s'\x00\tcsrc/custom_all_reduce.cuh\x00"
    assert knowgen.run_around(data, b"Cuda error") == "Failed: Cuda error %s:%d '%s'"
    assert knowgen.run_around(data, b"custom_all_reduce") == "csrc/custom_all_reduce.cuh"  # a tab ends a run
    assert knowgen.run_around(data, b"absent") is None
    assert knowgen.run_around(b"edge", b"edge") == "edge"


def test_specific_enough_counts_a_formats_own_words():
    # the formats the generators' CONTEXT_RULES met (gen_slurm_messages, gen_ray_messages, gen_torch_core_messages)
    assert not knowgen.specific_enough("%s: invalid %pI")           # Slurm's %pI is a conversion: one word
    assert not knowgen.specific_enough("Missing argument %s")       # two words
    assert knowgen.specific_enough("Unable to contact slurm controller (connect failure)")
    # printf lengths are conversions, not words ('%llu bytes in %llu allocations': two words a run)
    assert knowgen.own_words("NVRM: %llu bytes in %llu allocations untracked") == ["bytes", "in"]
    # an errno text (any line may quote one) is no message of its own, unless errtexts says otherwise
    assert not knowgen.specific_enough("%s: address family not supported")
    assert knowgen.specific_enough("%s: address family not supported", errtexts=())
    # names=False: an identifier is one name, no words ('listen_error_messages: %s', ray worker.py)
    assert knowgen.specific_enough("listen_error_messages: %s")
    assert not knowgen.specific_enough("listen_error_messages: %s", names=False)


def test_sites_main_records_the_slice_it_regenerates_from(tmp_path, capsys):
    """sites_main (the main() of flash-attention's, xformers' and the RL frameworks' generators): a
    --repo --record run writes each site's statement under `=== path @line`; the --slice run reads the
    same files back and builds the same document; a MSG_FIX entry no site carries stops the run (2)."""
    repo = tmp_path / "lib.git"
    repo.mkdir()
    (repo / "m.py").write_text("x = 1\nif bad:\n    raise ValueError(\n        'head dim must be even')\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "one")
    _git(repo, "tag", "-a", "-m", "r", "v1")

    def load(a):
        git = knowgen.git_reader(a.repo)
        return [("m.py", git("show", "%s:m.py" % a.rev))], knowgen.revision(git, a.rev, describe=False)

    def spans(path, src):
        return [(3, 4)] if "raise" in src else []

    def build(files, version):
        sites = [{"id": "m.even", "text": t.strip(), "fix": "use an even head dim" if "even" in t else None}
                 for _, src in files for t in re.findall(r"'([^']+)'", src)]
        return {"source": "lib", "version": version, "sites": sites}

    fix = [(r"must be even", "use an even head dim", [])]
    rec, out1, out2 = tmp_path / "slice.txt", tmp_path / "a.json", tmp_path / "b.json"
    argv = ["--repo", str(repo), "--rev", "v1", "--record", "-o", str(out1)]
    assert knowgen.sites_main("Gen.\n", argv, "x", "tools/gen_x.py", build, fix, str(rec), spans, load, rev="v1") == 0
    sha = knowgen.git_reader(str(repo))("rev-parse", "v1^{commit}").strip()
    assert rec.read_text() == ("# Recorded by tools/gen_x.py --record: the statement of each message site, as the "
                               "source has it\n# (=== path @first line).\n#! version v1 (commit %s)\n"
                               "=== m.py @3\n    raise ValueError(\n        'head dim must be even')\n" % sha)
    assert knowgen.sites_main("Gen.\n", ["--slice", str(rec), "-o", str(out2)], "x", "tools/gen_x.py", build, fix,
                              str(rec), spans, load, rev="v1") == 0
    assert out1.read_text() == out2.read_text()
    with pytest.raises(SystemExit) as e:
        knowgen.sites_main("Gen.\n", argv, "x", "tools/gen_x.py", build, fix + [(r"gone upstream", "f", [])],
                           str(rec), spans, load, rev="v1")
    assert e.value.code == 2 and "MSG_FIX entries match no assigned site" in capsys.readouterr().err

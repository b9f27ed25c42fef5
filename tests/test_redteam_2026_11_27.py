"""Red team 2026-11-27 (docs/security.md 30.): the private caches (privcache.py, explain/kcache.py) and explain's
file arguments. Each test failed before its fix; in-process, well under a second in all."""

import marshal
import os
import threading

import pytest

from gpudoctor import privcache
from gpudoctor.explain import kcache

ROWS = [[["a.b", r"abcd \d{1,4}", ["abcd"], {"id": "x.1", "fix": ["restart it"]}]], []]


def _garble(path, change):
    """The file at ``path`` with its first line kept and its rest changed by ``change`` (bytes -> bytes): what a
    cut write, a flipped bit or a stale copy leaves under the right name."""
    with open(path, "rb") as f:
        head, _, body = f.read().partition(b"\n")
    with open(path, "wb") as f:
        f.write(head + b"\n" + change(body))


@pytest.mark.parametrize("change", [
    # rows that keep a row's shape but were not what was written: a family no entry defines (explain ended with
    # exit 3: KnowledgeError), a regex that does not compile (exit 3 at the first line its needle was in), a
    # changed fix (printed as the site's fix)
    lambda b: marshal.dumps([[["nope.nope"] + ROWS[0][0][1:]], []]),
    lambda b: marshal.dumps([[["a.b", "(", ["abcd"], ROWS[0][0][3]]], []]),
    lambda b: b.replace(b"restart it", b"rm -rf ~/x"),
    lambda b: b.replace(b"abcd", b"zzzz"),  # needles that never come: the site never answers
], ids=["family", "regex", "fix", "needles"])
def test_a_sites_file_changed_after_it_was_written_is_built_again(tmp_path, monkeypatch, change):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    key = "ab" * 32
    kcache.write_sites(key, ROWS)
    assert kcache.read_sites(key, 2) == ROWS
    _garble(kcache._sites_path(key), change)
    assert kcache.read_sites(key, 2) is None


def test_a_knowledge_file_changed_after_it_was_written_is_built_again(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    key = "cd" * 32
    docs, needles = ['{"entry": [{"id": "a.b", "rank": 5}]}'], {"abcd(e|f)": ["abcd"]}
    kcache.write(key, docs, needles)
    assert kcache.read(key, 1) is not None
    _garble(kcache._path(key), lambda b: b.replace(b'"abcd"]', b'"zzzz"]'))  # still the shape a derivation gives
    assert kcache.read(key, 1) is None


def test_a_fifo_at_the_cache_files_name_is_refused_not_waited_on(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    key = "ef" * 32
    kcache.write(key, ['{}'], {})  # makes the private folder
    path = kcache._sites_path(key)
    os.mkfifo(path, 0o600)
    got = []
    t = threading.Thread(target=lambda: got.append(kcache.read_sites(key, 1)), daemon=True)
    t.start()
    t.join(5)
    if t.is_alive():  # unblock the reader so the test run ends
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        t.join(5)
        raise AssertionError("read_sites waited on a FIFO")
    assert got == [None]


def test_a_home_that_is_not_a_path_is_no_cache(tmp_path, monkeypatch):
    """HOME unset and no passwd entry: expanduser('~') is '~', and the cache was the current folder's
    './~/.cache/gpudoctor' (whoever's folder that is)."""
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(os.path, "expanduser", lambda p: p)
    monkeypatch.chdir(tmp_path)
    d = tmp_path / "~" / ".cache" / "gpudoctor"
    d.mkdir(parents=True)
    os.chmod(str(d), 0o700)
    os.chmod(str(d.parent), 0o700)
    assert not os.path.isabs(privcache.cache_dir())
    head = b"h 1"
    body = b"planted"
    (d / "f").write_bytes(privcache._sealed(head, body) + b"\n" + body)
    os.chmod(str(d / "f"), 0o600)
    assert privcache.read(os.path.join(privcache.cache_dir(), "f"), head, 100) is None
    privcache.write(os.path.join(privcache.cache_dir(), "g"), head, body, "g", "")
    assert not (d / "g").exists()


@pytest.mark.parametrize("path", ["/proc/self/environ", "/proc", "/sys/kernel", "/proc/self/fd/../status"])
def test_explain_reads_no_kernel_file(path, tmp_path):
    """/proc/kmsg and trace_pipe are regular files whose read blocks until the kernel writes: `explain /proc/kmsg`
    (and `explain /proc`, which walked to it) as root waited past --timeout and a first SIGTERM. A path that
    resolves under /proc or /sys is refused, a link to one too; /dev/shm's files are still read."""
    from gpudoctor.errors import InputError
    from gpudoctor.explain import inputs

    link = tmp_path / "env.log"
    link.symlink_to(path)
    for p in (path, str(link)):
        with pytest.raises(InputError, match="kernel file"):
            inputs.collect([p])
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        import tempfile

        with tempfile.NamedTemporaryFile("w", dir="/dev/shm", suffix=".log") as f:
            f.write("RuntimeError: boom\n")
            f.flush()
            logs, _, _ = inputs.collect([f.name])
            assert [name for name, _ in logs] == [f.name]


def test_no_input_reader_opens_a_kernel_file(tmp_path):
    """errors.open_input, every input's reader: a file under /proc or /sys (by the open file's own path, a link
    to it too) is refused before a byte is read; `plan` notes a script's `source` of one and goes on."""
    from gpudoctor.errors import NotRegularFile, read_input
    from gpudoctor.launch import script

    link = tmp_path / "hosts"
    link.symlink_to("/proc/self/environ")
    for p in ("/proc/self/environ", str(link), "/proc/self/status"):
        with pytest.raises(NotRegularFile, match="kernel file"):
            read_input(p, "hostfile", limit=1 << 20)
    sh = tmp_path / "run.sh"
    sh.write_text("source %s\ntorchrun --nproc_per_node 8 train.py\n" % link)
    res = script.read_script(str(sh))
    assert any("kernel file" in n for n in res.notes), res.notes

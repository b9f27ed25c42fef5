"""The srun transport against the real single-node Slurm of tests/test_slurm.py (its
`slurm` fixture: one slurmctld and one slurmd, started once for this module, after the
other module's have stopped). The collector runs as a Slurm task (`--via srun`); node
failures are classified from what srun and the task said."""

import json
import os
import subprocess
import sys
import time

import pytest

from test_slurm import NODE, slurm  # noqa: F401 (the fixture, reused)
import sshcluster

GD = [sys.executable, "-m", "gpudoctor"]
SLURM_HOOKS = False  # no prolog or health check here: the srun transport is what is tested (test_slurm.slurm)


def gd(slurm, *args, timeout=60, prefix=()):
    p = subprocess.run(list(prefix) + GD + list(args), capture_output=True, text=True, timeout=timeout,
                       env=slurm.env, cwd=slurm.dir, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


def wait_for(pred, timeout, what):
    t0 = time.time()
    while not pred():
        if time.time() - t0 > timeout:
            raise AssertionError("%s: not within %gs" % (what, timeout))
        time.sleep(0.05)


def script(slurm, name, text):
    path = os.path.join(slurm.dir, name)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)
    return path


def node_of(out):
    (n,) = json.loads(out)["nodes"]
    return n


def test_srun_gathers_the_node_as_a_slurm_task(slurm):
    rc, out, err = gd(slurm, "check", "--via", "srun", "--nodes", NODE, "--json", "--select", "shm",
                      "--timeout", "20")
    n = node_of(out)
    assert n["host"] == NODE and n["reachable"] is True, (n, err)
    assert rc == 0, err


def test_srun_is_the_default_inside_an_allocation(slurm):
    """salloc runs gpudoctor with the job's environment: no --nodes, no --via, no SSH
    (the Slurm node name does not even resolve here, so ssh could not reach it)."""
    rc, out, err = gd(slurm, "check", "--json", "--select", "shm", "--timeout", "20",
                      prefix=["salloc", "-N1", "-w", NODE, "-t", "2", "--job-name=gd-alloc"])
    n = node_of(out)
    assert n["host"] == NODE and n["reachable"] is True, (n, err)


@pytest.mark.parametrize("body,kind,needle", [
    (None, "python-missing", "not found on the node"),
    ("#!/bin/sh\necho 'Welcome to the cluster!'\n", "garbage", "Welcome"),
    ("#!/bin/sh\nexec yes garbage\n", "garbage", "MiB of output"),
    ("#!/bin/sh\necho 'error while loading shared libraries: libpython3.so' >&2\nexit 127\n", "collector",
     "libpython3.so"),
])
def test_srun_node_failures_are_classified(slurm, body, kind, needle):
    py = "/nonexistent/python3" if body is None else script(slurm, "py-%s" % kind, body)
    rc, out, err = gd(slurm, "check", "--via", "srun", "--nodes", NODE, "--json", "--select", "shm",
                      "--timeout", "10", "--python", py)
    n = node_of(out)
    assert (n["reachable"], n["error_kind"]) == (False, kind), (n, err)
    assert needle in n["error"], n
    assert rc == 1


def test_srun_timeout_is_wall_clock_and_ends_the_step(slurm):
    marker = "gd-leftover-srun-%d" % os.getpid()
    py = script(slurm, "py-drip", "#!/bin/bash\n(exec -a %s sleep 3600) &\n"
                "while true; do echo drip; sleep 0.3; done\n" % marker)
    rc, out, err = gd(slurm, "check", "--via", "srun", "--nodes", NODE, "--json", "--select", "shm",
                      "--timeout", "2", "--python", py)
    # the dripping interpreter never ends, so a run that ends within gd's 60 s (a deadline on the state) was ended
    # by its --timeout: not a wall-clock bound (took < 9 was one: suite27)
    n = node_of(out)
    assert n["error_kind"] == "timeout" and rc == 1, (n, err)
    wait_for(lambda: not sshcluster.leftovers(marker), 5, "the step's sleep 3600 ended")


def test_srun_refuses_a_hostile_nodelist(slurm):
    rc, out, err = gd(slurm, "check", "--via", "srun", "--nodes=-w,evil", "--select", "shm")
    # the fixture's folder (gd's cwd) holds the hooks' gpudoctor.toml, which config.py names in a note of its own
    # (3bf8000a, security.md 56.): the refusal is the one other line
    lines = [l for l in err.strip().splitlines() if not l.startswith("gpudoctor: note: settings from ./")]
    assert rc == 2 and "is not a host name" in err and len(lines) == 1, err


def test_srun_stub_frames_per_host_options():
    """The stub in front of the collector gives each node its own options (the rendezvous
    probe's role) and the blob after the mark, and frames what the collector printed: run it
    here, as a task would (`python -c READ_BLOB`)."""
    import base64
    import zlib

    from gpudoctor.transport.srun import READ_BLOB, build_stub

    loader = "import sys, json\nprint(json.dumps([sorted(_gd_opts.items()), _gd_blob.hex()]))\n"
    stub = build_stub({"a": 1}, {"gpu2": {"role": "master"}, "gpu3": {"role": "peer"}},
                      parts=(loader, b"\x00\n#gpudoctor-blob\n\xff"))
    p = subprocess.run([sys.executable, "-c", READ_BLOB], input=stub, capture_output=True,
                       env=dict(os.environ, SLURMD_NODENAME="gpu2"))
    lines = p.stdout.decode().splitlines()
    assert lines[-1].startswith("gpudoctor-end gpu2 0 ")
    data = "".join(l.split(" ", 2)[2] for l in lines if l.startswith("gpudoctor-chunk gpu2 "))
    opts, blob = json.loads(zlib.decompress(base64.b64decode(data)).decode())
    assert opts == [["a", 1], ["node", "gpu2"], ["role", "master"]]
    assert bytes.fromhex(blob) == b"\x00\n#gpudoctor-blob\n\xff"  # the blob as sent, a mark in it too


def test_srun_task_ends_without_the_interpreters_teardown_and_loses_no_output():
    """After its frame the task exits at once (os._exit: no teardown of the collector's modules
    and objects, 2-6 ms of every node's CPU), and what the collector left in stderr's buffer (no
    newline yet) still reaches srun; a crash is still framed with its exit code."""
    import base64
    import zlib

    from gpudoctor.transport.srun import READ_BLOB, build_stub

    # stderr block-buffered, as Python 3.6-3.8 have it when it is not a terminal
    loader = ("import atexit, io, sys\nsys.stderr = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, 'w', closefd=False), "
              "1 << 16))\natexit.register(lambda: sys.stderr.write('teardown ran\\n'))\n"
              "sys.stderr.write('no newline yet')\nprint('{\"ok\": 1}')\n")
    for body, rc, say in ((loader, 0, "no newline yet"), ("raise ValueError('boom')\n", 3, "collector crashed")):
        p = subprocess.run([sys.executable, "-c", READ_BLOB], input=build_stub({}, {}, parts=(body, b"")),
                           capture_output=True, env=dict(os.environ, SLURMD_NODENAME="gpu1"), timeout=60)
        lines = p.stdout.decode().splitlines()
        assert p.returncode == 0 and lines[-1].startswith("gpudoctor-end gpu1 %d " % rc), (p.stdout, p.stderr)
        assert say in p.stderr.decode() and "teardown ran" not in p.stderr.decode()
    data = "".join(l.split(" ", 2)[2] for l in lines if l.startswith("gpudoctor-chunk gpu1 "))
    assert zlib.decompress(base64.b64decode(data)) == b""  # the crash printed nothing


def test_srun_collector_blob_gives_the_same_facts_and_sends_less(tmp_path):
    """The collector through the stub, as bytes (bundle.build_parts), gives the same facts as
    the text bundle (ssh's), by bytecode on this interpreter and by source on one whose magic
    differs; a run that asks for no sampling and no rendezvous leaves their modules out and
    their sections still answer the same; Python 2 gets the "too old" exit."""
    import base64
    import zlib

    from gpudoctor.collector import bundle
    from gpudoctor.transport import READ_STDIN
    from gpudoctor.transport.srun import READ_BLOB, build_stub

    opts = {"resolve": ["localhost"], "env_key": "k" * 64}
    env = dict(os.environ, SLURMD_NODENAME="gpu1")

    def facts(stub, read, python=sys.executable):
        p = subprocess.run([python, "-c", read], input=stub, capture_output=True, env=env, timeout=60)
        lines = p.stdout.decode().splitlines()
        data = "".join(l.split(" ", 2)[2] for l in lines if l.startswith("gpudoctor-chunk gpu1 "))
        rc = int(lines[-1].split()[2])
        doc = json.loads(zlib.decompress(base64.b64decode(data)).decode() or "null")
        for k in ("collected_at", "collector"):
            (doc or {}).pop(k, None)
        for s in (doc or {}).values():  # what changes from one run to the next
            if isinstance(s, dict) and "status" in s:
                s.pop("free_bytes", None)
                s.pop("free_inodes", None)  # tmp's (session 27): other tests' files come and go in /tmp
        return rc, doc, p.stderr.decode()

    # the text bundle, given the options on its command line as the stub before this one did
    old = build_stub(opts, {}, parts=("import json, sys\nsys.argv[1:] = sum([['--set', '%s=%s' % (k, json.dumps(v))] "
                                      "for k, v in sorted(_gd_opts.items())], [])\n"
                                      "exec(compile(_gd_blob, '<b>', 'exec'), {'__name__': '__main__'})",
                                      bundle.build_script({"env_key": "k" * 64}).encode()))
    new = build_stub(opts, {})
    assert bundle.left_out(opts, {}) == ("watch", "rendezvous")
    assert len(new) < len(old) / 2
    _, want, _ = facts(old, READ_BLOB)
    rc, got, err = facts(new, READ_BLOB)
    assert rc == 0 and got == want, err
    assert got["watch"] == {"status": "unsupported", "reason": "no sampling asked for (gpudoctor watch samples a "
                                                               "running job)"}
    assert READ_STDIN != READ_BLOB
    loader, blob = bundle.build_parts(("watch", "rendezvous"))
    head, _, rest = blob.partition(b"\n")
    wrong = head.split(b" ")
    wrong[0] = b"00000000"  # another interpreter's magic: every module compiled from its source
    rc, by_source, err = facts(build_stub(opts, {}, parts=(loader, b" ".join(wrong) + b"\n" + rest)), READ_BLOB)
    assert rc == 0 and by_source == want, err
    import glob

    for py2 in glob.glob(os.path.expanduser("~/.pyenv/versions/2.7*/bin/python")) + ["/usr/bin/python2"]:
        if os.access(py2, os.X_OK):  # pyenv's 2.7 on the test machine, where there is one
            rc, doc, err = facts(new, READ_BLOB, python=py2)
            assert rc == 3 and doc is None and "python too old" in err
            break


def test_srun_first_part_from_the_step_environment_gives_the_same_facts():
    """A task whose step environment has the first part (PAYLOAD_ENV, base64: the transport puts
    it there when it starts the step) reads nothing on stdin and gives the facts the stdin path
    gives, without the variable in them; where it needs the sources (the blob's magic is not
    its own, or another interpreter) or the variable is broken, it asks, then skips the same
    first part on stdin (the controller writes all of it then) and reads them."""
    import base64
    import zlib

    from gpudoctor.collector import bundle
    from gpudoctor.transport.srun import PAYLOAD_ENV, READ_BLOB, SOURCE_ASK, build_stub, env_value, first_part

    opts = {"resolve": ["localhost"], "env_key": "k" * 64}

    def facts(stdin, value=None, python=sys.executable):
        env = dict(os.environ, SLURMD_NODENAME="gpu1", MY_SETTING="1")
        if value is not None:
            env[PAYLOAD_ENV] = value
        p = subprocess.run([python, "-c", READ_BLOB], input=stdin, capture_output=True, env=env, timeout=60)
        lines = p.stdout.decode().splitlines()
        data = "".join(l.split(" ", 2)[2] for l in lines if l.startswith("gpudoctor-chunk gpu1 "))
        text = zlib.decompress(base64.b64decode(data)).decode()
        doc = json.loads(text)
        for k in ("collected_at", "collector"):
            doc.pop(k)
        for sec in doc.values():  # what changes from one run to the next
            if isinstance(sec, dict):
                sec.pop("free_bytes", None)
                sec.pop("free_inodes", None)  # tmp's (session 27): other tests' files come and go in /tmp
        # the machine's interfaces come and go with the beds other tests start beside this one (pytest-xdist's
        # other worker: veths and bridges of sshd / Slurm namespaces); seen in a clean-clone CI run
        doc.get("network", {}).pop("interfaces", None)
        assert lines[-1].startswith("gpudoctor-end gpu1 0 ") and PAYLOAD_ENV not in text, (lines[-1:], p.stderr)
        return doc, sum(1 for l in lines if l == SOURCE_ASK + " gpu1")

    stub = build_stub(opts, {})
    value = env_value(stub)
    assert base64.b64decode(value) == stub[:first_part(stub)]
    want, asked = facts(stub)
    assert asked == 0 and "MY_SETTING" in json.dumps(want["env"])
    assert facts(b"", value) == (want, 0)  # stdin empty: nothing read there
    assert facts(stub, value[:-8]) == (want, 1)  # broken: asks, then reads it all on stdin
    loader, blob = bundle.build_parts(("watch", "rendezvous"))
    head, _, rest = blob.partition(b"\n")
    wrong = build_stub(opts, {}, parts=(loader, b"00000000 " + head.split(b" ", 1)[1] + b"\n" + rest))
    assert facts(wrong, env_value(wrong)) == (want, 1)  # the sources: asked for, after the first part
    other = _other_python()
    if other:  # another version's interpreter: the stub's source too
        got, asked = facts(stub, value, python=other)
        assert asked == 1 and got["host"]["status"] == want["host"]["status"], got["host"]


def test_bundle_code_keeps_its_line_numbers_without_columns(tmp_path):
    """The blob's bytecode has line numbers only (bundle._lines_only): every instruction keeps
    its line, a traceback still names the right line, and the columns are gone (3.11+)."""
    import traceback

    from gpudoctor.collector import bundle
    from gpudoctor.collector.base import Context

    src = "def f(x):\n    y = [i for i in range(x)]\n    return (y,\n            1 / x)\n\nclass C:\n    z = 1\n"
    code = compile(src, "<t>", "exec")
    lean = bundle._lines_only(code)
    from gpudoctor import blobcache

    assert blobcache.by_offset(lean) == blobcache.by_offset(code)
    g = {}
    exec(lean, g)
    try:
        g["f"](0)
    except ZeroDivisionError as exc:
        assert traceback.extract_tb(exc.__traceback__)[-1].lineno == 4
    if sys.version_info >= (3, 11):
        assert all(p[2] is None for p in g["f"].__code__.co_positions())
        assert len(lean.co_consts[0].co_linetable) < len(code.co_consts[0].co_linetable)
    # the collector's reads: the whole file up to the limit, in two reads past 64 KiB
    big = tmp_path / "big"
    big.write_bytes(b"x" * 70000)
    ctx = Context(root=str(tmp_path))
    assert len(ctx.read("/big")) == 70000 and len(ctx.read("/big", limit=65536 + 10)) == 65546
    assert len(ctx.read("/big", limit=100)) == 100 and ctx.read("/none", "gone") == "gone"


def test_bundle_blob_cache_is_used_only_when_owned_private_and_keyed(tmp_path, monkeypatch):
    """The built blob is kept in $XDG_CACHE_HOME/gpudoctor (0700, file 0600) under the hash of
    its sources and read back only from a private file of this user with the same key: a file
    others may read or write, a symlink, another key or a folder others can write is ignored."""
    from gpudoctor import blobcache
    from gpudoctor.collector import bundle

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(bundle, "_parts", {})
    loader, blob = bundle.build_parts(("watch",))
    d = tmp_path / "gpudoctor"
    key = bundle.cache_key(("watch",))
    path = d / ("collector-%s.blob" % key[:40])
    assert (os.stat(d).st_mode & 0o777, os.stat(path).st_mode & 0o777) == (0o700, 0o600)
    kept = b"%d\n" % len(loader.encode()) + loader.encode()  # the loader's text first (format 2)
    from gpudoctor import privcache

    def sealed(body):  # the first line carries the SHA-256 of the rest (privcache.py)
        return privcache._sealed(blobcache.FORMAT + b" " + key.encode(), body) + b"\n" + body

    assert path.read_bytes() == sealed(kept + blob)

    def fresh():
        monkeypatch.setattr(bundle, "_parts", {})
        return bundle.build_parts(("watch",))[1]

    path.write_bytes(sealed(kept + b"from the cache"))
    assert fresh() == b"from the cache"  # read back, not built
    # blobcache is srun's reader, which imports no collector module for it
    monkeypatch.setattr(blobcache, "_read", {})
    assert blobcache.parts(("watch",)) == (loader, b"from the cache")
    for bad in ("folder", "mode", "key", "symlink"):
        path.unlink()
        path.write_bytes(blobcache.FORMAT + b" " + (b"0" * 64 if bad == "key" else key.encode()) + b"\nplanted")
        path.chmod(0o644 if bad == "mode" else 0o600)
        if bad == "symlink":
            os.rename(path, d / "elsewhere")
            os.symlink(d / "elsewhere", path)
        d.chmod(0o770 if bad == "folder" else 0o700)
        assert fresh() == blob, bad  # built again
    assert path.read_bytes().endswith(b"\n" + blob) and not path.is_symlink()  # and written over
    assert (d / "elsewhere").read_bytes().endswith(b"planted")  # a symlink's target is left alone
    assert bundle.cache_key(("watch",)) != bundle.cache_key(()) and bundle.build_parts((), cache=False)[1] != blob
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "absent"))
    assert fresh() == blob and not (tmp_path / "absent").exists()  # no cache folder: none made


def test_srun_ctrl_c_lists_the_node_as_interrupted_and_ends_the_step(slurm):
    import signal

    marker = "gd-leftover-srun-int-%d" % os.getpid()
    started = os.path.join(slurm.dir, "drip-started")
    py = script(slurm, "py-drip-int", "#!/bin/bash\n(exec -a %s sleep 3600) &\ntouch %s\n"
                "while true; do echo drip; sleep 0.3; done\n" % (marker, started))
    p = subprocess.Popen(GD + ["check", "--via", "srun", "--nodes", NODE, "--json", "--select", "shm", "--timeout",
                               "60", "--python", py], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=slurm.env, cwd=slurm.dir, stdin=subprocess.DEVNULL)
    try:
        wait_for(lambda: os.path.exists(started), 20, "the task started")
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=20)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, err
    n = node_of(out)
    assert n["error_kind"] == "interrupted", n
    wait_for(lambda: not sshcluster.leftovers(marker), 5, "the step's sleep 3600 ended")


def test_srun_output_of_three_nodes_is_sorted_by_task():
    """What srun --label prints for three nodes, interleaved: one answers, one has no
    python, one could not be started (its slurmd does not answer). The line formats are
    srun's own: src/srun/launch.c ("%s: %s %s: Exited with exit code %d") and
    src/api/step_launch.c ("Task launch for %ps failed on node %s: %m"), SchedMD/slurm
    at 284c3b95."""
    import base64
    import zlib

    from gpudoctor.transport.srun import SrunTransport

    facts = json.dumps({"schema": "gpudoctor.facts/1", "node": "gpu1", "shm": {"status": "ok"}})
    data = base64.b64encode(zlib.compress(facts.encode())).decode()
    out = [b"0: gpudoctor-task gpu1", b"1: gpudoctor-task gpu2"]
    out += [("0: gpudoctor-chunk gpu1 %s" % data[i:i + 1000]).encode() for i in range(0, len(data), 1000)]
    out += [("0: gpudoctor-end gpu1 0 %d" % len(data)).encode()]
    err = [b"1: gpudoctor: python not found: python3",
           b"srun: error: gpu2: task 1: Exited with exit code 127",
           b"srun: error: Task launch for StepId=41.0 failed on node gpu3: Communication connection failure"]
    t = SrunTransport(timeout=10)
    tasks, lines = {}, []
    t._lines(out, None, False, tasks, lines)
    t._lines(err, None, True, tasks, lines)
    got = t._results(["gpu1", "gpu2", "gpu3"], tasks, lines, "python3", final=True)
    assert got["gpu1"].reachable and got["gpu1"].facts["node"] == "gpu1"
    assert got["gpu2"].error_kind == "python-missing"
    # srun could not reach gpu3's slurmd: `slurmd` (out of reach), as on the 4-node bed (tests/test_slurm23.py)
    assert got["gpu3"].error_kind == "slurmd" and "Communication connection failure" in got["gpu3"].error


def test_srun_task_claiming_another_node_is_garbage():
    from gpudoctor.transport.srun import SrunTransport

    t = SrunTransport(timeout=10)
    tasks, lines = {}, []
    t._lines([b"0: gpudoctor-task gpu1", b"1: gpudoctor-task gpu1"], None, False, tasks, lines)
    got = t._results(["gpu1", "gpu2"], tasks, lines, "python3", final=True)
    assert got["gpu1"].error_kind == "garbage" and "2 tasks" in got["gpu1"].error


def _other_python():
    """An interpreter whose bytecode magic is not this one's (pyenv's, on the test machine)."""
    import glob

    mine = "%d.%d" % sys.version_info[:2]
    for py in sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.*/bin/python3"))):
        if "/%s." % mine not in py and os.access(py, os.X_OK):
            return py
    return None


def test_srun_sends_the_sources_only_to_a_node_that_asks(slurm):
    """Every node reads the collector's bytecode part; a node whose python has another
    bytecode magic asks for the sources (`gpudoctor-source NODE`) and srun's stdin carries
    them then: the same check passes with this python and with another version's."""
    other = _other_python()
    if other is None:
        pytest.skip("no python of another version here (pyenv's 3.6-3.13 on the test machine)")
    got = []
    for py in (sys.executable, other):
        rc, out, err = gd(slurm, "check", "--via", "srun", "--nodes", NODE, "--json", "--select", "shm,limits",
                          "--timeout", "30", "--python", py)
        n = node_of(out)
        assert n["reachable"] is True, (py, n, err)
        got.append((rc, sorted((c["id"], c["status"]) for c in json.loads(out)["checks"])))
    assert got[0] == got[1] and ("shm.size", "pass") in got[0][1], got


def test_srun_sends_the_first_part_on_stdin_where_the_environment_does_not_carry_it(slurm):
    """srun(1) --export (here SLURM_EXPORT_ENV, which srun reads as --export) keeps the step's
    first part out of the task's environment: the task announces itself without ` env` and the
    transport writes it on stdin then; the check passes as through the environment."""
    got = []
    for extra in ({}, {"SLURM_EXPORT_ENV": "PATH,HOME,LANG"}):
        p = subprocess.run(GD + ["check", "--via", "srun", "--nodes", NODE, "--json", "--select", "shm,limits",
                                 "--timeout", "20"], capture_output=True, text=True, timeout=60,
                           env=dict(slurm.env, **extra), cwd=slurm.dir, stdin=subprocess.DEVNULL)
        n = node_of(p.stdout)
        assert n["reachable"] is True, (extra, n, p.stderr)
        got.append(sorted((c["id"], c["status"]) for c in json.loads(p.stdout)["checks"]))
    assert got[0] == got[1] and ("shm.size", "pass") in got[0], got


def test_srun_sends_the_first_part_on_stdin_where_the_environment_has_no_room(slurm):
    """execve(2) refuses srun with E2BIG (an environment near ARG_MAX): srun starts again without
    the first part in its environment, which the tasks then get on stdin."""
    code = ("import errno, subprocess, sys\nfrom gpudoctor.transport import srun\nreal, seen = subprocess.Popen, []\n"
            "class Popen(real):\n"
            "    def __init__(self, *a, **k):\n"
            "        if srun.PAYLOAD_ENV in (k.get('env') or {}):\n"
            "            seen.append(1)\n"
            "            raise OSError(errno.E2BIG, 'Argument list too long')\n"
            "        real.__init__(self, *a, **k)\n"
            "subprocess.Popen = Popen\nfrom gpudoctor.cli import main\nrc = main(sys.argv[1:])\n"
            "sys.stderr.write('refused %d\\n' % len(seen))\nsys.exit(rc)\n")
    p = subprocess.run([sys.executable, "-c", code, "check", "--via", "srun", "--nodes", NODE, "--json", "--select",
                        "shm", "--timeout", "20"], capture_output=True, text=True, timeout=60, env=slurm.env,
                       cwd=slurm.dir, stdin=subprocess.DEVNULL)
    assert node_of(p.stdout)["reachable"] is True and "refused 1" in p.stderr, p.stderr[-2000:]


def test_srun_task_announcement_says_where_its_first_part_is():
    """`gpudoctor-task NODE env`: the first part came in the environment; without ` env` the
    transport must write it on stdin (its _need event); any other word keeps the line as it
    was (a node name that matches no node)."""
    import threading

    from gpudoctor.transport.srun import SrunTransport

    t = SrunTransport(timeout=10)
    t._need = threading.Event()
    tasks, lines = {}, []
    t._lines([b"0: gpudoctor-task gpu1 env"], None, False, tasks, lines)
    assert (tasks[0].node, tasks[0].env, t._need.is_set()) == ("gpu1", True, False)
    t._lines([b"2: gpudoctor-task gpu3 xyz"], None, False, tasks, lines)
    assert (tasks[2].node, tasks[2].env) == ("gpu3 xyz", False) and t._need.is_set()
    t._need.clear()
    t._lines([b"1: gpudoctor-task gpu2"], None, False, tasks, lines)
    assert (tasks[1].node, tasks[1].env) == ("gpu2", False) and t._need.is_set()


def test_srun_runs_beside_a_step_that_holds_the_allocation(slurm):
    """gpudoctor run inside a job whose training step is running: its step overlaps
    (--overlap) instead of waiting for the busy node until the deadline."""
    started = os.path.join(slurm.dir, "busy-step-started")
    if os.path.exists(started):
        os.unlink(started)
    inner = ("srun -n1 bash -c 'touch %s; sleep 30' & busy=$!; "
             "while [ ! -e %s ]; do sleep 0.05; done; "
             "%s -m gpudoctor check --json --select shm --timeout 8; rc=$?; kill -TERM $busy; wait $busy; exit $rc"
             % (started, started, sys.executable))
    p = subprocess.run(["salloc", "-N1", "-n1", "-w", NODE, "-t", "2", "bash", "-c", inner], capture_output=True,
                       text=True, timeout=90, env=slurm.env, cwd=slurm.dir, stdin=subprocess.DEVNULL)
    n = node_of(p.stdout)
    # reachable is the proof: a step that waited for the busy node would have met --timeout 8 (error_kind
    # timeout); a wall-clock bound on the salloc (< 20 s) was a timed test (suite27)
    assert n["reachable"] is True, (n, p.stderr)


def test_node_states_decide_who_is_left_out_of_the_step():
    """scontrol(1) node states: base state, then +FLAGS; a drain stops new jobs only, so a
    drained node of the job's own allocation still runs its steps."""
    from gpudoctor.transport.srun import node_unavailable, parse_node_states

    text = ("NodeName=a Arch=x86_64 NodeAddr=10.0.0.1 State=IDLE Weight=1\n"
            "NodeName=b NodeAddr=10.0.0.2 State=IDLE+DRAIN Weight=1 Reason=admin: DIMM B2 [root@2026-11-25T17:00:00]\n"
            "NodeName=c NodeAddr=10.0.0.3 State=DOWN+NOT_RESPONDING Reason=Not responding [slurm@2026]\n"
            "garbage line State=IDLE\n")
    st = parse_node_states(text)
    assert st == {"a": ("IDLE", None), "b": ("IDLE+DRAIN", "admin: DIMM B2"), "c": ("DOWN+NOT_RESPONDING",
                                                                                     "Not responding")}
    cases = {"IDLE": None, "MIXED": None, "IDLE+COMPLETING": None, "IDLE+DRAIN": "node-drained",
             "MIXED+DRAIN": "node-drained", "DOWN": "node-down", "IDLE+NOT_RESPONDING": "node-down",
             "IDLE*": "node-down", "DOWN+DRAIN": "node-down", "FUTURE": "node-down", "IDLE+POWERED_DOWN": "node-down"}
    assert dict((s, node_unavailable(s)) for s in cases) == cases
    assert node_unavailable("IDLE+DRAIN", allocated=True) is None
    assert node_unavailable("DOWN", allocated=True) == "node-down"


def test_refused_names_only_the_port_that_refuses():
    import socket

    from gpudoctor.transport.srun import refused

    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen(1)
    port = listening.getsockname()[1]
    closed = socket.socket()
    closed.bind(("127.0.0.2", port))  # bound, never listening: the kernel refuses connections
    try:
        assert refused({"up": "127.0.0.1", "dead": "127.0.0.2"}, port, timeout=2) == ["dead"]
    finally:
        listening.close()
        closed.close()


def test_slurm_task_variables_are_no_env_drift():
    """srun(1)/sbatch(1) "OUTPUT ENVIRONMENT VARIABLES": set per node or per task by design."""
    from conftest import run_check

    per_node = {"SLURMD_NODENAME": "sn%d", "SLURM_NODEID": "%d", "SLURM_PROCID": "%d", "SLURM_LOCALID": "0",
                "SLURM_TOPOLOGY_ADDR": "sn%d", "SLURM_STEP_ID": "%d", "SLURM_TASK_PID": "4%d", "PMI_RANK": "%d",
                "NCCL_DEBUG": "INFO"}

    def facts(i):
        vals = dict((k, v % i if "%d" in v else v) for k, v in per_node.items())
        return {"node": "sn%d" % i, "env": {"status": "ok", "values": vals, "hashed": {}}}

    res = run_check("env.parity", dict(("sn%d" % i, facts(i)) for i in range(1, 5)))
    assert res.status == "pass", [f.message for f in res.findings]
    drift = facts(2)
    drift["env"]["values"]["NCCL_DEBUG"] = "WARN"
    res = run_check("env.parity", {"sn1": facts(1), "sn2": drift, "sn3": facts(3)})
    assert res.status == "fail" and any("NCCL_DEBUG" in f.message for f in res.findings)


@pytest.mark.parametrize("same_magic", [True, False])
def test_bundle_runs_precompiled_or_from_its_sources(same_magic):
    """The collector ships its modules compiled by this interpreter (used by an interpreter
    with the same bytecode magic: no compile on the node) and as sources (any other)."""
    import re

    from gpudoctor.collector.bundle import build_script

    script = build_script()
    assert re.search(r"^_MAGIC = '[0-9a-f]{8}'$", script, re.M)
    if not same_magic:
        script = re.sub(r"^_MAGIC = .*$", "_MAGIC = '00000000'", script, count=1, flags=re.M)
    p = subprocess.run([sys.executable, "-", "--only", "host,shm"], input=script, capture_output=True, text=True,
                       timeout=60)
    doc = json.loads(p.stdout)
    assert p.returncode == 0 and doc["shm"]["status"] == "ok" and doc["host"]["status"] == "ok", p.stderr


def test_fallback_retries_only_slurms_failures_and_only_when_allowed(monkeypatch):
    """The merge of --fallback ssh (the real thing runs in test_slurm_multinode.py): only the
    kinds that say Slurm could not start a task are retried; a node ssh cannot reach either
    keeps its srun kind with what ssh said; nothing is retried without the setting."""
    from gpudoctor.inventory import Host
    from gpudoctor.transport import Node, Payload
    from gpudoctor.transport import ssh as ssh_mod
    from gpudoctor.transport.srun import SrunTransport

    srun_says = {"a": Node(host="a", facts={"node": "a"}), "b": Node(host="b", error="dead", error_kind="slurmd"),
                 "c": Node(host="c", error="late", error_kind="timeout"),
                 "d": Node(host="d", error="not in job 7", error_kind="not-allocated")}
    asked = []

    def ssh_run(self, hosts, payload):
        asked.append([h.name for h in hosts])
        return [Node(host="b", facts={"node": "b"}), Node(host="d", error="connection refused", error_kind="refused")]

    monkeypatch.setattr(SrunTransport, "_run_all", lambda self, hosts, payload: [srun_says[h.name] for h in hosts])
    monkeypatch.setattr(ssh_mod.SSHTransport, "run", ssh_run)
    hosts = [Host(name=n) for n in "abcd"]
    off = SrunTransport(timeout=5).run(hosts, Payload())
    assert asked == [] and [n.via for n in off] == ["srun"] * 4
    got = dict((n.host, n) for n in SrunTransport(timeout=5, fallback="ssh").run(hosts, Payload()))
    assert asked == [["b", "d"]]
    assert (got["a"].via, got["b"].via, got["b"].fallback_from) == ("srun", "ssh", "srun: slurmd: dead")
    assert got["c"].error_kind == "timeout" and got["c"].via == "srun"
    assert got["d"].error_kind == "not-allocated" and got["d"].error.endswith("over ssh (--fallback ssh): refused: "
                                                                              "connection refused")

    def interrupted(self, hosts, payload):
        exc = KeyboardInterrupt()
        exc.partial_nodes = [Node(host="b", error="interrupted", error_kind="interrupted")]
        raise exc

    monkeypatch.setattr(ssh_mod.SSHTransport, "run", interrupted)
    with pytest.raises(KeyboardInterrupt) as info:  # Ctrl-C in the fallback: every host is in the partial list
        SrunTransport(timeout=5, fallback="ssh").run(hosts, Payload())
    assert [(n.host, n.error_kind) for n in info.value.partial_nodes] == [
        ("a", None), ("b", "interrupted"), ("c", "timeout"), ("d", "not-allocated")]


def test_srun_payload_from_the_cache_imports_no_collector_module(tmp_path):
    """A run whose collector blob is in the cache builds what srun sends without importing the
    collector package (its __init__ imports every section module: 8 ms of every run's CPU);
    the same bytes as a build."""
    code = ("import sys; from gpudoctor.transport.srun import build_stub, first_part\n"
            "s = build_stub({'resolve': ['sn1']}, {})\n"
            "print(len(s), first_part(s), sorted(m for m in sys.modules if m.startswith('gpudoctor.collector')))\n")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    (tmp_path / "gpudoctor").mkdir(mode=0o700)
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
            for _ in range(2)]
    built, cached = [r.stdout.split(" ", 2) for r in runs]
    assert "gpudoctor.collector.system" in built[2] and cached[2].strip() == "[]", (runs[0].stderr, runs[1].stderr)
    assert built[:2] == cached[:2]

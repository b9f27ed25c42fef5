"""History and `gpudoctor diff` (issue 21, docs/history.md): drift in time, from real runs.

Each change is made for real between two runs of `gpudoctor check`/`facts` on this machine:
an NCCL variable in the environment, memlock lowered with `ulimit -l` in the child, a
library swapped in a temp LD_LIBRARY_PATH folder (real ELF files built with gcc), and a
kernel release changed in a recorded root tree read through the collector's root prefix.
Both `diff` and the failing check must name the change and when."""

import json
import os
import shutil
import stat
import subprocess
import sys

import pytest
from conftest import FIXTURES, node_facts

from gpudoctor import history
from gpudoctor.changes import ABSENT, PRESENT, compare, flatten
from gpudoctor.cli import main

needs_gcc = pytest.mark.skipif(not shutil.which("gcc"), reason="gcc builds the test ELF files")


def cli(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def gd(args, env=None, shell_prefix=None):
    """The real CLI in a child process (for what a child must own: its rlimits, its env)."""
    e = dict(os.environ)
    e.update(env or {})
    cmd = [sys.executable, "-m", "gpudoctor"] + list(args)
    if shell_prefix:
        cmd = ["sh", "-c", shell_prefix + ' && exec "$@"', "sh"] + cmd
    p = subprocess.run(cmd, capture_output=True, text=True, env=e, timeout=120)
    return p.returncode, p.stdout, p.stderr


def _up_interface():
    from gpudoctor.collector import Context, collect

    net = collect(Context(), only={"network"})["network"]
    for i in net.get("interfaces") or []:
        # not a virtual one (a container bridge such as cni-podman0, which this machine gains once podman
        # has run): nccl.env rightly fails NCCL_SOCKET_IFNAME naming only those
        if i.get("state") == "up" and i.get("ipv4") and i.get("name") != "lo" and not i.get("virtual"):
            return i["name"]
    return None


# -- the four real changes ---------------------------------------------------------------

def test_changed_nccl_variable_is_named_by_the_failing_check_and_diff(tmp_path, monkeypatch, capsys):
    iface = _up_interface()
    if not iface:
        pytest.skip("no interface up with an IPv4 address here")
    state = str(tmp_path / "state")
    base = ["--fast", "--select", "nccl.env", "--history", "--state-dir", state]
    monkeypatch.setenv("NCCL_SOCKET_IFNAME", iface)
    rc, out, _ = cli(capsys, "check", *base)
    assert rc == 0 and "PASS nccl.env" in out
    good_at = history.Store.open(state).index(_only_node(state))["last_good"]["at"]

    monkeypatch.setenv("NCCL_SOCKET_IFNAME", "gdtest9")
    rc, out, _ = cli(capsys, "check", *base)
    assert rc == 1 and "FAIL nccl.env" in out
    note = "note: history: changed since the last passing run (%s; it was pass then): NCCL_SOCKET_IFNAME %s -> " \
           "gdtest9" % (history.utc(good_at), iface)
    assert note in " ".join(out.split())  # a note longer than 100 columns is wrapped (report/text.py WIDTH)

    rc, out, _ = cli(capsys, "diff", "--since", "last-good", "--state-dir", state, "--fast", "--select", "nccl",
                     "--json")
    doc = json.loads(out)
    assert rc == 1 and doc["schema"] == "gpudoctor.diff/1" and doc["summary"]["exit_code"] == 1
    (v,) = doc["verdicts"]
    assert (v["check"], v["before"]["status"], v["after"]["status"]) == ("nccl.env", "pass", "fail")
    assert "NCCL_SOCKET_IFNAME %s -> gdtest9" % iface in v["changes"]
    assert list(doc["before"]["collected_at"].values()) == [good_at]

    monkeypatch.setenv("NCCL_SOCKET_IFNAME", iface)  # back as it was: no verdict changes, exit 0
    rc, out, _ = cli(capsys, "diff", "--since", "last-good", "--state-dir", state, "--fast", "--select", "nccl")
    assert rc == 0 and "Checks whose verdict changed" not in out and "NCCL_SOCKET_IFNAME" not in out


def _only_node(state):
    (name,) = [n for n in os.listdir(os.path.join(state, "history")) if n != "key"]
    return name


def test_memlock_lowered_in_the_child_is_named(tmp_path):
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_MEMLOCK)
    if soft != resource.RLIM_INFINITY and soft <= 64 * 1024:
        pytest.skip("memlock is already 64 KiB or less here")
    state = str(tmp_path / "state")
    args = ["check", "--fast", "--select", "limits.memlock", "--history", "--state-dir", state, "--json"]
    rc1, out1, _ = gd(args)
    first = json.loads(out1)["checks"][0]
    assert rc1 == 0
    rc, out, _ = gd(["diff", "--since", "last-good", "--state-dir", state, "--fast", "--select", "limits",
                     "--json"], shell_prefix="ulimit -l 64")  # the shell's setrlimit, in the child only
    doc = json.loads(out)
    _, out2, _ = gd(args, shell_prefix="ulimit -l 64")
    second = json.loads(out2)
    notes = [f["message"] for f in second["findings"] if f["severity"] == "info" and f["check"] == "limits.memlock"]
    soft_change = [c for c in doc["changes"] if c["label"] == "memlock soft"]
    assert soft_change and soft_change[0]["after"] == 65536 and "64.0 KiB" in soft_change[0]["text"]
    if first["status"] in ("pass", "warn"):  # judged (RDMA or a container): the verdict changed with it
        assert rc == 1 and doc["verdicts"][0]["check"] == "limits.memlock"
        assert any("memlock soft" in t and "-> 64.0 KiB" in t for t in doc["verdicts"][0]["changes"])
        assert notes and "memlock soft" in notes[0] and "-> 64.0 KiB" in notes[0]
        assert "since the last passing run (%s" % history.utc(
            list(doc["before"]["collected_at"].values())[0]) in notes[0]
    else:  # n/a both times (no RDMA, not a container): a change, and no check flipped
        assert rc == 0 and not notes


def _so(path, soname, extra=()):
    src = os.path.join(os.path.dirname(path), "s.c")
    with open(src, "w") as f:
        f.write("int f(void){return 1;}\n")
    subprocess.check_call(["gcc", "-shared", "-fPIC", "-o", path, "-Wl,-soname," + soname, src] + list(extra))


@needs_gcc
def test_library_swapped_on_ld_library_path_is_named(tmp_path):
    """torch's wheel layout (libtorch_cuda.so with a DT_RUNPATH, as older wheels have): a
    libcublas.so.13 in an LD_LIBRARY_PATH folder wins; the same version as torch's passes,
    the file swapped for an older one fails cuda.libs, and both name the swap."""
    site = tmp_path / "site"
    for d in ("torch/lib", "nvidia/cu13/lib", "nvidia_cublas-13.1.0.3.dist-info", "torch-2.11.0+cu130.dist-info"):
        (site / d).mkdir(parents=True)
    (site / "torch" / "version.py").write_text("__version__ = '2.11.0+cu130'\ncuda = '13.0'\n")
    _so(str(site / "nvidia/cu13/lib/libcublas.so.13"), "libcublas.so.13")
    _so(str(site / "torch/lib/libtorch_cuda.so"), "libtorch_cuda.so", [
        "-Wl,--no-as-needed", "-L%s" % (site / "nvidia/cu13/lib"), "-l:libcublas.so.13", "-Wl,--enable-new-dtags",
        "-Wl,-rpath,$ORIGIN/../../nvidia/cu13/lib"])
    ldlp = tmp_path / "ldlp"
    ldlp.mkdir()
    _so(str(ldlp / "libcublas.so.13.1.0.3"), "libcublas.so.13")
    _so(str(ldlp / "libcublas.so.13.0.2.14"), "libcublas.so.13")
    os.symlink("libcublas.so.13.1.0.3", str(ldlp / "libcublas.so.13"))
    env = {"PYTHONPATH": str(site), "LD_LIBRARY_PATH": str(ldlp)}
    state = str(tmp_path / "state")
    args = ["check", "--fast", "--python", sys.executable, "--select", "cuda.libs", "--history", "--state-dir", state]
    rc, out, err = gd(args, env=env)
    assert rc == 0 and "PASS cuda.libs" in out and "the same version 13.1.0.3" in " ".join(out.split()), out + err
    os.unlink(str(ldlp / "libcublas.so.13"))  # the swap: same name, another file behind it
    os.symlink("libcublas.so.13.0.2.14", str(ldlp / "libcublas.so.13"))
    rc, out, _ = gd(args, env=env)
    assert rc == 1 and "FAIL cuda.libs" in out
    assert "note: history: changed since the last passing run (" in out
    assert "libcublas.so.13 version 13.1.0.3 -> 13.0.2.14" in out
    rc, out, _ = gd(["diff", "--since", "last-good", "--state-dir", state, "--fast", "--python", sys.executable,
                     "--select", "cuda.libs"], env=env)
    assert rc == 1
    assert "FAIL cuda.libs  pass -> fail" in out and "changed: libcublas.so.13 version 13.1.0.3 -> 13.0.2.14" in out


def _root_facts(root, release, at, path):
    from gpudoctor.collector import Context, collect

    with open(os.path.join(root, "proc/sys/kernel/osrelease"), "w") as f:
        f.write(release + "\n")
    doc = collect(Context(root=root, live=False, env={}, commands={}))
    doc["collected_at"] = at  # two runs days apart, as on the node
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def test_kernel_release_changed_in_a_recorded_tree(tmp_path, capsys):
    root = str(tmp_path / "root")
    shutil.copytree(os.path.join(FIXTURES, "roots", "centos7_kernel_without_ofed"), root, symlinks=True)
    # the node as it was before the yum update: OFED's own modules loaded for the old kernel
    # (mlx5_core with OFED's MODULE_VERSION, erdma loaded), so the first run passes
    with open(os.path.join(root, "proc/modules"), "a") as f:
        f.write("erdma 212992 0 - Live 0xffffffffc0a06000 (OE)\n")
    with open(os.path.join(root, "sys/module/mlx5_core/version"), "w") as f:
        f.write("5.4-3.5.8\n")
    old, new = "3.10.0-1160.31.1.el7.x86_64", "3.10.0-1160.90.1.el7.x86_64"
    f1 = _root_facts(root, old, "2026-11-20T03:12:00Z", str(tmp_path / "before.json"))
    f2 = _root_facts(root, new, "2026-11-21T04:30:00Z", str(tmp_path / "after.json"))
    state = str(tmp_path / "state")
    hist = ["--select", "kernel.ofed", "--history", "--state-dir", state]
    rc, out, _ = cli(capsys, "check", "--facts", f1, *hist)
    assert rc == 0 and "PASS kernel.ofed" in out
    rc, out, _ = cli(capsys, "check", "--facts", f2, *hist)
    assert rc == 1 and "FAIL kernel.ofed" in out
    assert ("note: history: changed since the last passing run (2026-11-20 03:12 UTC; it was pass then): kernel "
            "release %s -> %s; no OFED modules for %s (OFED was built for %s)" % (old, new, new, old)) in \
        " ".join(out.split())  # wrapped at 100 columns

    rc, out, _ = cli(capsys, "diff", f1, f2, "--select", "kernel.ofed")
    assert rc == 1
    assert "(2026-11-20 03:12 UTC -> 2026-11-21 04:30 UTC)" in out
    assert "FAIL kernel.ofed  pass -> fail" in out and "changed: kernel release %s -> %s" % (old, new) in out
    # the node against its own history, as it was on a date
    rc, out, _ = cli(capsys, "diff", "--since", "2026-11-20T04:00", "--state-dir", state, f2, "--json")
    doc = json.loads(out)
    assert rc == 1 and doc["before"]["collected_at"] == {"iZ2zeerdma02": "2026-11-20T03:12:00Z"}
    assert doc["verdicts"][0]["check"] == "kernel.ofed"
    rc, out, _ = cli(capsys, "diff", "--since", "2026-11-22", "--state-dir", state, f2)
    assert rc == 0 and "No change in the facts" in out  # on the 22nd the node already ran the new kernel


# -- the store: private, bounded, atomic ---------------------------------------------------

def test_state_dir_is_private_and_refuses_symlinks_and_other_owners(tmp_path, capsys):
    state = tmp_path / "state"
    store = history.Store.open(str(state))
    store.current_key_id = store.key_id
    doc = node_facts("devbox-debian12-nogpu")
    store.record("gpu01", doc, True, {"shm.size": ("pass", "ok")})
    for top, dirs, files in os.walk(str(state)):
        assert stat.S_IMODE(os.lstat(top).st_mode) == 0o700, top
        for name in files:
            assert stat.S_IMODE(os.lstat(os.path.join(top, name)).st_mode) == 0o600, name
    link = tmp_path / "link"
    os.symlink(str(state), str(link))
    f = str(tmp_path / "f.json")
    shutil.copy(os.path.join(FIXTURES, "nodes", "devbox-debian12-nogpu.json"), f)
    rc, _, err = cli(capsys, "check", "--facts", f, "--history", "--state-dir", str(link))
    assert rc == 2 and "is a symlink; refusing it" in err and len(err.strip().splitlines()) == 1
    if os.geteuid() == 0:
        other = tmp_path / "other"
        other.mkdir(mode=0o700)
        os.chown(str(other), 65534, 65534)
        rc, _, err = cli(capsys, "check", "--facts", f, "--history", "--state-dir", str(other))
        assert rc == 2 and "belongs to uid 65534" in err
    # a hook is never failed by its history: a warning, then the run as usual
    warned = []
    assert history.open_for(str(link), strict=False, warn=warned.append) is None
    assert warned and "symlink" in warned[0]
    # a planted symlink in place of a record is refused, never followed
    os.unlink(str(state / "history" / "gpu01" / "index.json"))
    os.symlink("/etc/passwd", str(state / "history" / "gpu01" / "index.json"))
    with pytest.raises(history.HistoryError, match="symlink"):
        store.index("gpu01")


def test_store_is_bounded_in_runs_states_and_bytes(tmp_path):
    store = history.Store.open(str(tmp_path / "s"), max_runs=3, max_states=2, max_node_bytes=10 ** 6)
    doc = node_facts("devbox-debian12-nogpu")
    for i in range(6):
        doc["shm"]["total_bytes"] = (i + 1) << 30  # a new facts state every run
        doc["collected_at"] = "2026-11-2%dT00:00:00Z" % i
        store.record("gpu01", doc, passed=(i == 1), verdicts={"shm.size": ("pass", "x")})
    idx = store.index("gpu01")
    assert [r["at"][:10] for r in idx["runs"]] == ["2026-11-23", "2026-11-24", "2026-11-25"]
    files = sorted(n for n in os.listdir(os.path.join(store.dir, "gpu01")) if n.startswith("facts-"))
    # two newest states and the last passing run's (kept whatever its age)
    assert len(files) == 3 and idx["last_good"]["facts"] in idx["states"]
    assert not [n for n in os.listdir(os.path.join(store.dir, "gpu01")) if n.startswith(".tmp-")]
    rec, good = store.last_good("gpu01")
    assert rec["at"] == "2026-11-21T00:00:00Z" and good["shm"]["total_bytes"] == 2 << 30
    # bytes: a bound smaller than two states keeps the newest and the last good one only
    small = history.Store(store.root, max_states=8, max_node_bytes=1)
    small.record("gpu01", doc, passed=False, verdicts={})
    assert len([n for n in os.listdir(os.path.join(store.dir, "gpu01")) if n.startswith("facts-")]) == 2
    # identical facts are stored once, however many runs
    for _ in range(3):
        store.record("gpu02", doc, passed=True, verdicts={})
    assert len([n for n in os.listdir(os.path.join(store.dir, "gpu02")) if n.startswith("facts-")]) == 1
    # node folders are bounded too: the least recently written go
    few = history.Store(store.root, max_nodes=2)
    few.record("gpu03", doc, passed=True, verdicts={})
    assert sorted(n for n in os.listdir(store.dir) if n != "key") == ["gpu02", "gpu03"]


def test_secret_looking_values_stay_keyed_hashes_and_compare_across_runs(tmp_path, monkeypatch, capsys):
    state = str(tmp_path / "state")
    base = ["--fast", "--select", "shm", "--history", "--state-dir", state]
    monkeypatch.setenv("GD_TEST_API_TOKEN", "hunter2-do-not-store")
    cli(capsys, "check", *base)
    monkeypatch.setenv("GD_TEST_API_TOKEN", "hunter3-do-not-store")
    rc, out, _ = cli(capsys, "diff", "--since", "last-good", "--state-dir", state, "--fast", "--select", "shm")
    assert rc == 0 and "GD_TEST_API_TOKEN value#" in out  # the same key in both runs: a change, by hash
    for top, _, files in os.walk(state):
        for name in files:
            with open(os.path.join(top, name), "rb") as f:
                assert b"do-not-store" not in f.read()
    # two facts files of `gpudoctor facts`: each run hashes under its own key, so hashes say nothing
    a, b = str(tmp_path / "a.json"), str(tmp_path / "b.json")
    assert cli(capsys, "facts", "-o", a)[0] == 0
    assert cli(capsys, "facts", "-o", b)[0] == 0
    rc, out, _ = cli(capsys, "diff", a, b, "--select", "shm")
    assert rc == 0 and "GD_TEST_API_TOKEN" not in out


# -- diff over folders: the drift engine's node sets -------------------------------------

def _driver_upgraded(doc, new="580.200.01"):
    g = doc["gpu"]
    old = list(g["nvml_libs"])[0]
    g["nvml_libs"] = {new: [p.replace(old, new) for p in g["nvml_libs"][old]]}
    g["nvml"] = {"source": "nvml", "init_error": "Driver/library version mismatch"}
    return doc


def test_diff_of_two_folders_folds_nodes_and_names_the_flipped_check(tmp_path, capsys):
    before, after = tmp_path / "before", tmp_path / "after"
    before.mkdir()
    after.mkdir()
    for i in (1, 2, 3):
        doc = node_facts("h100-ubuntu2404-torch211")
        doc["node"] = "gpu%02d" % i
        (before / ("gpu%02d.json" % i)).write_text(json.dumps(doc))
        if i < 3:
            _driver_upgraded(doc)
        (after / ("gpu%02d.json" % i)).write_text(json.dumps(doc))
    rc, out, _ = cli(capsys, "diff", str(before), str(after), "--select", "driver.mismatch")
    assert rc == 1
    assert "FAIL driver.mismatch  pass -> fail [gpu[01-02]]: NVML fails: Driver/library version mismatch" in out
    assert ("gpu[01-02]: driver libraries (libnvidia-ml.so) [580.159.04] -> [580.200.01]; kernel module still "
            "580.159.04: reboot") in out
    rc, out, _ = cli(capsys, "diff", str(before), str(after), "--select", "driver.mismatch", "--json")
    doc = json.loads(out)
    assert doc["verdicts"][0]["hosts"] == "gpu[01-02]" and doc["changes"][0]["host_list"] == ["gpu01", "gpu02"]


def test_diff_usage_errors_exit_2(tmp_path, capsys):
    f = os.path.join(FIXTURES, "nodes", "devbox-debian12-nogpu.json")
    for argv, msg in ((["diff", f], "give BEFORE and AFTER"),
                      (["diff", "--since", "yesterday", f], "--since yesterday"),
                      (["diff", "--since", "last-good", "--state-dir", str(tmp_path / "s"), f], "no history for"),
                      (["diff", "--since", "2026-13-45", f], "not a date")):
        rc, out, err = cli(capsys, *argv)
        assert rc == 2 and msg in err and out == "", (argv, err)


# -- explain names the change that matches the error ----------------------------------------

def test_explain_with_history_names_the_driver_change(tmp_path, capsys):
    good = os.path.join(FIXTURES, "nodes", "h100-ubuntu2404-torch211.json")
    state = str(tmp_path / "s")
    rc, _, _ = cli(capsys, "check", "--facts", good, "--select", "driver", "--history", "--state-dir", state)
    assert rc == 0
    now = str(tmp_path / "now.json")
    doc = _driver_upgraded(node_facts("h100-ubuntu2404-torch211"))
    doc["collected_at"] = "2026-11-26T03:12:00Z"
    with open(now, "w") as f:
        json.dump(doc, f)
    msg = "Failed to initialize NVML: Driver/library version mismatch"
    rc, out, _ = cli(capsys, "explain", "--facts", now, "--state-dir", state, msg)
    assert rc == 0
    assert ("history: vm: nvml.mismatch (driver.mismatch) matches what changed since 2026-11-20 23:17 UTC (its last "
            "passing run): driver libraries (libnvidia-ml.so) [580.159.04] -> [580.200.01]; kernel module still "
            "580.159.04: reboot") in out
    rc, out, _ = cli(capsys, "explain", "--facts", now, "--since", "last-good", "--state-dir", state, "--json", msg)
    res = json.loads(out)
    (m,) = res["history"]["nodes"][0]["matches"]
    assert m["finding"] == "nvml.mismatch" and m["checks"] == ["driver.mismatch"]


# -- the flattened comparison -------------------------------------------------------------

def test_flatten_leaves_out_what_changes_every_run_and_folds_records():
    a = node_facts("h100-ubuntu2404-torch211")
    b = json.loads(json.dumps(a))
    b["collected_at"] = "2030-01-01T00:00:00Z"
    b["shm"]["free_bytes"] = 1
    b["gpu"]["gpus"][0]["memory_used_mib"] = 70000
    b["env"]["values"]["SLURM_JOB_ID"] = "4242"
    assert compare(a, b) == []
    b["network"]["interfaces"] = b["network"]["interfaces"][1:]
    (c,) = compare(a, b)
    assert c.text == "network.interfaces[eth0] removed" and (c.before, c.after) == (PRESENT, ABSENT)
    flat = flatten(a)
    assert flat["python.torch.libs.libs[libcublas.so.13].version"] == "13.1.0.3"
    # GPUs are their bus ids: a second GPU is one GPU added, the first one stays itself
    texts = [c.text for c in compare(a, node_facts("h200x2-ubuntu2404-torch211"))]
    assert "gpu.gpus[00000000:00:07.0] added" in texts and not [t for t in texts if t.endswith(" removed")]
    assert "gpu.gpus[00000000:00:06.0].name NVIDIA H100 80GB HBM3 -> NVIDIA H200" in texts
    assert "collected_at" not in flat and "shm.free_bytes" not in flat


def test_slurm_health_keeps_history_by_default_and_never_fails_for_it(tmp_path, monkeypatch, capsys):
    # no slurmctld in this test: scontrol fails, so a healthy node ends "state unknown" (exit 3)
    # after the checks; the real prolog and health check run under slurmd in test_slurm.py
    monkeypatch.setenv("GPUDOCTOR_SCONTROL", "/bin/false")
    state = tmp_path / "s"
    base = ["slurm-health", "--fast", "--node", "gpu07", "--select", "shm"]
    rc, out, err = cli(capsys, *base, "--state-dir", str(state))
    assert rc == 3 and "cannot read node gpu07" in err
    idx = history.Store.open(str(state)).index(_only_node(str(state)))
    assert idx["last_good"]["verdicts"]["shm.size"][0] == "pass" and len(idx["runs"]) == 1
    rc, _, _ = cli(capsys, *base, "--state-dir", str(tmp_path / "off"), "--no-history")
    assert rc == 3 and not os.path.exists(str(tmp_path / "off"))
    rc, _, _ = cli(capsys, *base, "--state-dir", str(state), "--dry-run")  # reads, records nothing
    assert len(history.Store.open(str(state)).index(_only_node(str(state)))["runs"]) == 1
    os.symlink(str(state), str(tmp_path / "link"))
    rc, out, err = cli(capsys, *base, "--state-dir", str(tmp_path / "link"))
    assert rc == 3 and "warning: history: state directory refused" in err and "symlink" in err


def test_a_damaged_index_is_replaced_and_first_seen_names_the_earlier_failing_run(tmp_path):
    store = history.Store.open(str(tmp_path / "s"))
    doc = node_facts("devbox-debian12-nogpu")
    d = os.path.join(store.dir, "gpu01")
    os.makedirs(d, mode=0o700)
    with open(os.path.join(d, "index.json"), "w") as f:
        f.write("{not json")
    with pytest.raises(history.HistoryError, match="not valid JSON"):
        store.last_good("gpu01")
    doc["collected_at"] = "2026-11-20T03:12:00Z"
    store.record("gpu01", doc, passed=True, verdicts={"shm.size": ("pass", "1 GiB >= 1 GiB")})
    bad = json.loads(json.dumps(doc))
    bad["shm"]["total_bytes"] = 64 << 20
    bad["collected_at"] = "2026-11-21T05:00:00Z"
    store.record("gpu01", bad, passed=False, verdicts={"shm.size": ("fail", "64 MiB")})
    assert store.index("gpu01")["last_good"]["at"] == "2026-11-20T03:12:00Z"
    assert store.first_seen("gpu01", "shm.total_bytes", 64 << 20, "2026-11-20T03:12:00Z") == "2026-11-21T05:00:00Z"


# -- the note in the report: one line under the check's one FAIL line ----------------------

def _shm_runs(tmp_path, failing_host_name=False):
    """Run A: the recorded H100 node as it is; run B: the same node with a 64 MiB /dev/shm
    (Docker's default), a day later. The fixture fails host.name (hostname -> 127.0.0.1)."""
    a = node_facts("h100-ubuntu2404-torch211")
    b = json.loads(json.dumps(a))
    b["shm"]["total_bytes"] = b["shm"]["free_bytes"] = 64 << 20
    b["collected_at"] = "2026-11-21T23:17:09Z"
    fa, fb = str(tmp_path / "A.json"), str(tmp_path / "B.json")
    for path, doc in ((fa, a), (fb, b)):
        with open(path, "w") as f:
            json.dump(doc, f)
    return fa, fb


def test_a_history_note_is_one_line_under_the_one_fail_line(tmp_path, capsys):
    fa, fb = _shm_runs(tmp_path)
    hist = ["--select", "shm", "--history", "--state-dir", str(tmp_path / "s")]
    assert cli(capsys, "check", "--facts", fa, *hist)[0] == 0
    rc, out, _ = cli(capsys, "check", "--facts", fb, *hist)
    lines = out.splitlines()
    assert rc == 1
    fails = [i for i, line in enumerate(lines) if "/dev/shm is 64.0 MiB" in line]
    assert len(fails) == 1 and lines[fails[0]].startswith("FAIL shm.size"), out  # not a second FAIL line
    i = fails[0]
    assert lines[i + 1].startswith("       in a docker container: restart it with docker run --shm-size")
    assert lines[i + 2].startswith("     note: history: ")
    # the note, wrapped at 100 columns, goes on in lines indented by 5 (report/text.py CONT), then a blank line
    rest = lines[i + 3:]
    k = next(j for j, line in enumerate(rest) if not line.strip())
    assert all(line.startswith("     ") and not line.startswith("      ") for line in rest[:k]), out
    rc, out, _ = cli(capsys, "check", "--facts", fb, *hist, "--json")
    doc = json.loads(out)
    (shm,) = doc["checks"]
    (note,) = shm["notes"]  # the note rides with the result it belongs to
    assert note["hosts"] == "vm" and note["text"].startswith("history: ")
    assert [f["severity"] for f in doc["findings"]] == ["error", "info"] and doc["summary"]["exit_code"] == 1


def test_a_node_that_never_passes_whole_gets_a_note_per_check(tmp_path, capsys):
    """The recorded H100 node fails host.name in every run (its hostname maps to 127.0.0.1),
    so it has no last passing run: shm.size is compared with the newest run where IT passed."""
    fa, fb = _shm_runs(tmp_path)
    state = str(tmp_path / "s")
    hist = ["--select", "host.name,shm", "--history", "--state-dir", state]
    rc, out, _ = cli(capsys, "check", "--facts", fa, *hist)
    assert rc == 1 and "FAIL host.name" in out and "PASS shm.size" in out and "note:" not in out
    assert history.Store.open(state).index("vm")["last_good"] is None
    rc, out, _ = cli(capsys, "check", "--facts", fb, *hist, "--json")
    checks = {c["id"]: c for c in json.loads(out)["checks"]}
    assert checks["shm.size"]["status"] == "fail" and "notes" not in checks["host.name"]  # never passed: no note
    assert checks["shm.size"]["notes"] == [{"hosts": "vm", "text": (
        "history: changed since this check last passed (2026-11-20 23:17 UTC; the node failed host.name then): "
        "/dev/shm size bytes 128.0 GiB -> 64.0 MiB")}]
    # the diff against "last good" says which record stood in for the passing run it lacks
    rc, out, _ = cli(capsys, "diff", "--since", "last-good", "--state-dir", state, fb, "--select", "host.name,shm")
    assert rc == 1
    assert ("vm: no passing run kept; compared with its run of 2026-11-20 23:17 UTC, the fewest failures "
            "(failed: host.name)") in out
    assert "FAIL shm.size  pass -> fail [vm]" in out and "changed: /dev/shm size bytes 128.0 GiB -> 64.0 MiB" in out
    rc, out, _ = cli(capsys, "diff", "--since", "last-good", "--state-dir", state, fb, "--select", "shm", "--json")
    rec = json.loads(out)["before"]["records"]["vm"]
    assert (rec["kind"], rec["at"], rec["failed"]) == ("fewest-failures", "2026-11-20T23:17:09Z", ["host.name"])


def test_per_check_record_is_the_newest_kept_run_where_the_check_passed(tmp_path):
    store = history.Store.open(str(tmp_path / "s"), max_states=2)
    doc = node_facts("devbox-debian12-nogpu")
    runs = [  # (day, shm GiB, whole pass, verdicts)
        (0, 1, True, {"shm.size": ("warn", "1 free"), "host.name": ("pass", "ok")}),
        (1, 2, False, {"shm.size": ("pass", "2 GiB"), "host.name": ("fail", "loopback")}),
        (2, 3, False, {"shm.size": ("fail", "64 MiB"), "host.name": ("fail", "loopback")}),
    ]
    for day, gib, passed, verdicts in runs:
        doc["shm"]["total_bytes"] = gib << 30
        doc["collected_at"] = "2026-11-2%dT00:00:00Z" % day
        store.record("gpu01", doc, passed, verdicts)
    # the last passing run (day 0) had shm.size warning: the newest run where it passed is day 1
    rec, facts = store.check_passed("gpu01", "shm.size")
    assert (rec["at"], rec["failed"], facts["shm"]["total_bytes"]) == ("2026-11-21T00:00:00Z", ["host.name"], 2 << 30)
    assert store.check_passed("gpu01", "host.name")[0]["at"] == "2026-11-20T00:00:00Z"  # the last good, kept
    assert store.best_run("gpu01")[0]["at"] == "2026-11-20T00:00:00Z"
    # bounds hold: a state pruned away is no record (the two newest states and the last good one)
    doc["shm"]["total_bytes"] = 4 << 30
    doc["collected_at"] = "2026-11-23T00:00:00Z"
    store.record("gpu01", doc, False, {"shm.size": ("fail", "x")})
    assert sorted(s["first_seen"][:10] for s in store.index("gpu01")["states"].values()) == [
        "2026-11-20", "2026-11-22", "2026-11-23"]
    assert store.check_passed("gpu01", "shm.size") == (None, None)


def test_state_dir_from_the_environment_keeps_tests_hermetic(tmp_path, monkeypatch, capsys):
    """$GPUDOCTOR_STATE_DIR (conftest sets a new one for every test): check --history and
    slurm-health (root's default would be /var/lib/gpudoctor) write there; --state-dir wins."""
    env_dir = os.environ["GPUDOCTOR_STATE_DIR"]
    assert os.path.isabs(env_dir) and not os.path.exists(env_dir)  # this test's own, nothing left in it
    doc = node_facts("devbox-debian12-nogpu")
    doc["node"] = "gdtest-devbox"
    fa = str(tmp_path / "devbox.json")
    with open(fa, "w") as f:
        json.dump(doc, f)
    assert cli(capsys, "check", "--facts", fa, "--select", "shm", "--history")[0] == 0
    assert history.Store.open(env_dir).index("gdtest-devbox")["runs"][0]["passed"] is True
    monkeypatch.setenv("GPUDOCTOR_SCONTROL", "/bin/false")
    cli(capsys, "slurm-health", "--fast", "--node", "gpu07", "--select", "shm")  # this machine, as root would
    assert len(os.listdir(os.path.join(env_dir, "history"))) == 3  # key, gdtest-devbox, this machine
    flag = str(tmp_path / "flag")
    assert cli(capsys, "check", "--facts", fa, "--select", "shm", "--history", "--state-dir", flag)[0] == 0
    assert os.listdir(os.path.join(flag, "history")) == ["gdtest-devbox"]
    monkeypatch.setenv("GPUDOCTOR_STATE_DIR", "relative/state")
    rc, out, err = cli(capsys, "check", "--facts", fa, "--select", "shm", "--history")
    assert rc == 2 and "GPUDOCTOR_STATE_DIR=relative/state is not an absolute path" in err and out == ""

"""Process limits and container mounts (limits14): explain on real outputs made here (fixtures/limits14/README.md)
and the limits.process / limits.parity checks. In-process, with the session's knowledge (conftest's kb)."""

import os

import pytest

from gpudoctor.collector.system import parse_limits
from gpudoctor.explain import explain_text
from gpudoctor.registry import REGISTRY

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(os.path.dirname(HERE), "fixtures", "limits14")


def _fixture(name):
    with open(os.path.join(FIX, name), encoding="utf-8") as f:
        return f.read()


def _root(kb, text):
    r = explain_text(text, kb)
    root = next((f for f in r["findings"] if f["id"] == r["root"]), None)
    return r, root


def _causes(root):
    return " | ".join(c["text"] + " " + " ".join(c["fix"]) for c in root["causes"])


@pytest.mark.parametrize("name", ["fsize_bash.txt", "fsize_podman.txt", "efbig_python_podman.txt"])
def test_file_size_limit_forms_name_the_limit(kb, name):
    r, root = _root(kb, _fixture(name))
    assert r["root"] == "errno.efbig", (name, r["root"])
    assert "ulimit -f unlimited" in _causes(root)


@pytest.mark.parametrize("line", [
    # srun's task report (src/srun/srun_job.c: 'task %s: %s' with strsignal), torchrun's and Python's forms
    "srun: error: gpu-node-03: task 0: File size limit exceeded (core dumped)",
    "  traceback : Signal 25 (SIGXFSZ) received by PID 4242",
    "subprocess.CalledProcessError: Command '['tar', 'czf', 'c.tgz', 'c']' died with <Signals.SIGXFSZ: 25>.",
])
def test_sigxfsz_as_launchers_print_it(kb, line):
    r, root = _root(kb, line)
    assert r["root"] == "errno.efbig" and "LimitFSIZE=infinity" in _causes(root)


@pytest.mark.parametrize("text", [_fixture("cpu_time_bash.txt"), "srun: error: n1: task 0: CPU time limit exceeded",
                                  "  traceback : Signal 24 (SIGXCPU) received by PID 77"])
def test_cpu_time_limit_forms_name_the_limit(kb, text):
    r, root = _root(kb, text)
    assert r["root"] == "limits.cpu_time" and "ulimit -t unlimited" in _causes(root)


def test_bad_alloc_under_ulimit_v_names_the_address_space_limit_first(kb):
    r, root = _root(kb, _fixture("bad_alloc_ulimit_v.txt"))
    assert r["root"] == "errno.enomem"
    assert "RLIMIT_AS" in root["causes"][0]["text"] and "ulimit -v unlimited" in root["causes"][0]["fix"][0]


def test_bad_alloc_alone_keeps_ram_and_lists_the_limit(kb):
    text = "terminate called after throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc\n"
    r, root = _root(kb, text)
    assert r["root"] == "errno.enomem"
    assert "RLIMIT_AS" not in root["causes"][0]["text"]  # no evidence of the limit: not the first cause
    assert "ulimit -v" in _causes(root)


def test_cuda_oom_lists_the_limit_only_when_the_log_shows_it(kb):
    oom = "RuntimeError: CUDA error: out of memory\n"
    _, plain = _root(kb, oom)
    assert "RLIMIT_AS" not in _causes(plain)
    _, limited = _root(kb, "+ ulimit -v 33554432\n+ python train.py\n" + oom)
    assert "RLIMIT_AS" in limited["causes"][0]["text"]


def test_named_volume_for_a_bind_mount(kb):
    r, root = _root(kb, _fixture("named_volume_podman.txt"))
    assert r["root"] == "container.oci_mount"
    assert "named volume" in root["causes"][0]["text"] and "-v $PWD/data:/data" in root["causes"][0]["fix"][0]


def test_missing_bind_source_is_not_called_a_named_volume(kb):
    r, root = _root(kb, _fixture("bind_missing_podman.txt"))
    assert r["root"] == "container.oci_mount"
    assert "named volume" not in _causes(root)


def test_erofs_under_a_ro_volume_names_the_ro_option(kb):
    r, root = _root(kb, _fixture("ro_volume_podman.txt"))
    assert r["root"] == "errno.permission"
    assert "drop :ro" in _causes(root)


def test_coreutils_refusal_under_a_ro_volume(kb):
    # GNU coreutils' "<prog>: cannot touch 'x': <strerror>" (src/touch.c), read as the errno it ends with
    r, root = _root(kb, _fixture("ro_touch_podman.txt"))
    assert r["root"] == "errno.permission" and "drop :ro" in _causes(root)
    assert explain_text("mkdir: cannot create directory '/x': File exists\n", kb)["root"] is None  # EEXIST: context only


def test_healthy_lines_about_limits_and_volumes_stay_healthy(kb):
    text = ("$ ulimit -a | grep -E -- '-(f|v)'\nfile size                   (blocks, -f) unlimited\n"
            "virtual memory              (kbytes, -v) unlimited\n"
            "$ podman run --rm -v data:/data trainimg python train.py\nstep 100 loss 1.23\ndone\n")
    r = explain_text(text, kb)
    assert r["root"] is None and r["verdict"] == "no_error"


def test_short_checkpoint_write_names_the_file_size_limit(kb):
    text = ("Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
            "    torch.save(sd, 'ckpt/last.pt')\n"
            "RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 10176 vs 10068\n")
    _, root = _root(kb, text)
    assert "ulimit -f" in _causes(root)


# -- checks -----------------------------------------------------------------------------------------------

def _facts(text, container=None):
    lims = parse_limits(text)
    lims.update(status="ok", source="/proc/self/limits")
    return {"limits": lims, "host": {"status": "ok", "container": container}}


def _run(check_id, facts):
    fn = REGISTRY.get(check_id).func
    return list(fn(facts, {}))


def test_proc_limits_of_a_prlimit_run_are_all_read():
    lims = parse_limits(_fixture("proc_limits_prlimit.txt"))
    assert lims["fsize"] == {"soft": 1048576, "hard": 1048576, "unit": "bytes"}
    assert lims["as"]["soft"] == 4000000000 and lims["nofile"] == {"soft": 1024, "hard": 4096, "unit": "files"}
    assert lims["core"]["soft"] == 0 and lims["cpu"]["soft"] == "unlimited" and lims["data"]["soft"] == "unlimited"


def test_limits_process_flags_each_limit_with_the_fix_for_its_place():
    out = _run("limits.process", _facts(_fixture("proc_limits_prlimit.txt")))
    msgs = {o.message.split(" ")[0]: o for o in out if getattr(o, "severity", None) in ("error", "warning")}
    assert set(msgs) == {"RLIMIT_FSIZE", "RLIMIT_AS", "RLIMIT_NOFILE"}
    assert msgs["RLIMIT_FSIZE"].severity == "error" and "ulimit -f unlimited" in msgs["RLIMIT_FSIZE"].fix
    assert "PropagateResourceLimitsExcept=AS" in msgs["RLIMIT_AS"].fix
    assert msgs["RLIMIT_NOFILE"].severity == "warning" and "nofile 65536" in msgs["RLIMIT_NOFILE"].fix
    docker = {o.message.split(" ")[0]: o.fix for o in _run("limits.process", _facts(
        _fixture("proc_limits_prlimit.txt"), "docker")) if getattr(o, "fix", None)}
    assert docker["RLIMIT_FSIZE"] == "docker run --ulimit fsize=-1 ..."
    assert "no --ulimit for RLIMIT_AS" in docker["RLIMIT_AS"]  # go-units' ulimit table has no 'as'


def test_limits_process_passes_with_evidence_and_skips_without_limits():
    lims = parse_limits(_fixture("proc_limits_prlimit.txt"))
    for k in ("fsize", "as", "data", "cpu"):
        lims[k] = {"soft": "unlimited", "hard": "unlimited", "unit": "bytes"}
    for k in ("nofile", "nproc"):
        lims[k] = {"soft": 65536, "hard": 65536, "unit": "files"}
    lims.update(status="ok", source="/proc/self/limits")
    out = _run("limits.process", {"limits": lims, "host": {}})
    assert [o.status for o in out] == ["pass"] and "fsize unlimited" in out[0].text
    skip = _run("limits.process", {"limits": {"status": "ok", "nofile": "many"}, "host": {}})
    assert [o.status for o in skip] == ["skipped"] and "malformed: nofile" in skip[0].text


def test_limits_parity_names_the_odd_node():
    a = _facts(_fixture("proc_limits_prlimit.txt"))
    b = _facts(_fixture("proc_limits_prlimit.txt").replace("Max open files            1024 ",
                                                           "Max open files            65536 "))
    out = _run("limits.parity", {"n1": a, "n2": a, "n3": b})
    odd = [o for o in out if getattr(o, "severity", None) == "warning"]
    assert len(odd) == 1 and odd[0].hosts == ["n3"] and "nofile" in odd[0].message


def test_drift_between_runs_shows_the_new_limits_in_bytes():
    from gpudoctor.changes import compare

    before = {"limits": parse_limits(_fixture("proc_limits_prlimit.txt"))}
    after = {"limits": parse_limits(_fixture("proc_limits_prlimit.txt").replace(
        "Max file size             1048576              1048576", "Max file size             unlimited            unlimited"))}
    texts = [c.text for c in compare(before, after)]
    assert "fsize soft 1.0 MiB -> unlimited" in texts, texts

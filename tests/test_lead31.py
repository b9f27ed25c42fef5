"""Session 31's lead: `gpudoctor watch --user` and the owner of each job process (a root-run watch read every
user's NCCL_* processes as one job)."""

import json
import os
import subprocess
import sys
import time
import types

import pytest

from conftest import ROOT
from inprocess import gd


def _marked(mark):
    """pid -> uid of the processes whose environment holds ``mark``."""
    from gpudoctor.collector.watch import parse_uid

    out = {}
    for n in os.listdir("/proc"):
        if not n.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % n, "rb") as f:
                if mark.encode() not in f.read():
                    continue
            with open("/proc/%s/status" % n) as f:
                out[int(n)] = parse_uid(f.read())
        except OSError:
            continue
    return out


def _watch(*extra):
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "watch", "--local", "--seconds", "0.5", "--json"]
                       + list(extra), cwd=ROOT, capture_output=True, text=True, timeout=120)
    return p, (json.loads(p.stdout) if p.stdout.strip().startswith("{") else None)


def test_parse_uid_reads_the_real_uid():
    from gpudoctor.collector.watch import parse_uid

    # proc(5): Uid: real, effective, saved set, filesystem
    assert parse_uid("Name:\tpython3\nUid:\t1000\t0\t0\t0\nGid:\t1000\t1000\t1000\t1000\n") == 1000
    assert parse_uid("Uid:\t\n") is None and parse_uid(None) is None and parse_uid("Uid:\tx\t1\n") is None


def test_two_users_jobs_are_named_and_user_picks_one():
    """Real processes of root and of an unprivileged account, each with NCCL_* in its environment, on this machine
    (no GPU: the collector finds them by their environment, as on a node whose NVML lists nothing)."""
    import sshcluster

    if os.geteuid() != 0:
        pytest.skip("needs root to start another user's process")
    if os.path.exists("/proc/driver/nvidia/version"):
        pytest.skip("this machine has an NVIDIA driver: NVML's process list, not the environment, finds the job")
    sshcluster.ensure_user()
    mark = "lead31-watch-%d" % os.getpid()
    env = dict(os.environ, NCCL_DEBUG_SUBSYS=mark, NCCL_IB_DISABLE="1")
    mine = subprocess.Popen(["sleep", "120"], env=env, stdin=subprocess.DEVNULL, start_new_session=True)
    theirs = subprocess.Popen(["runuser", "-u", sshcluster.USER, "--", "env", "NCCL_DEBUG_SUBSYS=" + mark,
                               "NCCL_IB_DISABLE=1", "sleep", "120"], stdin=subprocess.DEVNULL,
                              start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while len(set(_marked(mark).values())) < 2:
            assert time.monotonic() < deadline, "the two processes never started"
            time.sleep(0.05)
        uid = [u for u in _marked(mark).values() if u != 0][0]
        p, doc = _watch()
        assert p.returncode == 0, p.stderr  # a warning (exit 1 only with --strict)
        target = dict((c["id"], c) for c in doc["checks"])["watch.target"]
        assert target["status"] == "warn"
        (f,) = [x for x in doc["findings"] if x["check"] == "watch.target"]
        assert "%s (uid %d)" % (sshcluster.USER, uid) in f["message"] and "root (uid 0)" in f["message"]
        assert "several jobs read as one" in f["message"] and f["fix"].startswith("gpudoctor watch --user ")

        p, doc = _watch("--user", sshcluster.USER)
        target = dict((c["id"], c) for c in doc["checks"])["watch.target"]
        assert target["status"] == "pass", target
        assert "only the processes of user %s (uid %d)" % (sshcluster.USER, uid) in target["summary"]
        (node,) = doc["samples"].values()
        seen = [x for x in node["processes"] if (x["env"] or {}).get("NCCL_DEBUG_SUBSYS") == mark]
        assert seen and all(x["uid"] == uid and x["user"] == sshcluster.USER for x in seen)
        assert all(x["uid"] == uid for x in node["processes"])

        p, doc = _watch("--user", str(uid))  # a uid: the same account
        (node,) = doc["samples"].values()
        assert node["processes"] and all(x["uid"] == uid for x in node["processes"])
    finally:
        for proc in (mine, theirs):
            os.killpg(proc.pid, 9)
            proc.wait()


def test_an_unknown_user_is_the_nodes_answer_not_a_crash():
    p, doc = _watch("--user", "no-such-user-lead31")
    assert p.returncode in (0, 1), p.stderr
    target = dict((c["id"], c) for c in doc["checks"])["watch.target"]
    # an account this node does not have: nothing of theirs to watch here (n/a, with the reason)
    assert target["status"] == "na" and "no user no-such-user-lead31 on this node" in target["summary"]


@pytest.mark.parametrize("bad", ["-rf", "a b", "x;id", "$(id)", "12345678901", ""])
def test_a_user_that_is_no_account_name_is_a_usage_error(bad):
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "watch", "--local", "--user=" + bad], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "--user" in p.stderr and "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) <= 2  # argparse's usage line and its one error line


def test_user_with_saved_samples_is_refused(tmp_path):
    from conftest import FIXTURES

    p = subprocess.run([sys.executable, "-m", "gpudoctor", "watch", "--user", "root", "--facts",
                        os.path.join(FIXTURES, "watch")], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "--user chooses whose processes" in p.stderr and "Traceback" not in p.stderr


# ---------------------------------------------------------------- an absurd allocation size

REC = os.path.join(ROOT, "fixtures", "recorded", "lead31")


def _run(path):
    """`gpudoctor explain --json PATH` in this process (tests/inprocess.py), returned as the subprocess.run it replaced
    returned it: these tests assert its output, and a process each loaded explain's knowledge again (suite32: each
    of its 11 calls gave the subprocess's exit code, stdout and stderr)."""
    rc, out, err = gd(["explain", "--json", str(path)], ROOT)
    return types.SimpleNamespace(returncode=rc, stdout=out, stderr=err)


def _explain(name):
    p = _run(os.path.join(REC, name))
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout)["findings"][0]


def test_an_absurd_allocation_is_a_size_from_a_wrong_value():
    """broadcast_object_list with lists of different lengths on the two ranks (recorded): the receiver asks the CPU
    allocator for 140 TB; the first cause names the object collective, not a shortage of RAM."""
    f = _explain("broadcast_object_list_lengths.txt")
    assert f["id"] == "errno.enomem"
    first = f["causes"][0]
    assert first["text"].startswith("The size asked for is absurd (100 TB or more")
    assert "[None] * n" in " ".join(first["fix"])


def test_a_real_size_keeps_the_memory_causes():
    """An 8 GiB tensor under ulimit -v (recorded): the address-space limit first, the absurd-size cause absent."""
    f = _explain("alloc_under_ulimit_v.txt")
    assert f["id"] == "errno.enomem" and f["causes"][0]["text"].startswith("An address-space limit")
    assert not any("absurd" in c["text"] for c in f["causes"])


# ---------------------------------------------------------------- the launcher's --local_rank read as a positional

@pytest.mark.parametrize("name, spelling", [("deepspeed_argv1_local_rank.txt", "--local_rank=0"),
                                            ("torch_launch_argv1_local_rank.txt", "--local-rank=0")])
def test_a_script_that_reads_argv_by_position_gets_the_launchers_local_rank(name, spelling):
    """Recorded: deepspeed's launcher and torch.distributed.launch put --local_rank=N / --local-rank=N first on the
    script's command line; the script's sys.argv[1] took it for a path (FileNotFoundError) or a number
    (ValueError). explain names the launcher's argument and the fix that parses arguments by name."""
    f = _explain(name)
    assert f["id"] == "launcher.local_rank_arg"
    first = f["causes"][0]
    assert first["text"].startswith("The script reads its own arguments by position")
    assert "--no_local_rank" in " ".join(first["fix"]) and spelling in json.dumps(f)


def test_the_launchers_echo_of_its_command_line_alone_is_not_this_error(tmp_path):
    """deepspeed's 'spawned with command: [..., '--local_rank=0', ...]' line is in every run's log: the recorded
    log up to its first traceback (the launcher's lines only) names no error, and no local-rank problem."""
    with open(os.path.join(REC, "deepspeed_argv1_local_rank.txt")) as f:
        lines = f.read().split("Traceback")[0]
    assert "'--local_rank=0'" in lines
    log = tmp_path / "launcher.log"
    log.write_text(lines)
    p = _run(str(log))
    doc = json.loads(p.stdout)
    assert not any(x["id"] == "launcher.local_rank_arg" for x in doc["findings"]), doc["findings"]


# ---------------------------------------------------------------- a DeepSpeed config key its model refuses

@pytest.mark.parametrize("name, want", [
    ("deepspeed_zero_key_typo.txt", "overlap_com: overlap_com is no key of DeepSpeedZeroConfig: did you mean "
                                    "overlap_comm?"),
    ("deepspeed_offload_key_typo.txt", "offload_optimizer.pin_memroy: pin_memroy is no key of "
                                       "DeepSpeedZeroOffloadOptimizerConfig: did you mean pin_memory?"),
])
def test_a_misspelt_deepspeed_key_gets_the_key_its_model_accepts(name, want):
    """Recorded with deepspeed 0.19.8: pydantic's extra_forbidden on a ZeRO key and on a nested offload key. The
    first cause is the unknown key (not the ZeRO stage), and its computed fix names the key DeepSpeed's own model
    accepts (generated/ds_config_fields.json)."""
    f = _explain(name)
    assert f["id"] == "deepspeed.config"
    first = f["causes"][0]
    assert first["text"].startswith("A key of the DeepSpeed config is not one this DeepSpeed release accepts")
    assert want in first["fix"][0], first["fix"]


def test_ds_field_reads_only_a_key_the_model_lacks():
    from gpudoctor.explain.dsconfig import ds_field

    class H:
        def __init__(self, cls, key):
            self.groups = {"dscls": cls, "dsfield": key}

    assert ds_field([H("DeepSpeedZeroConfig", "overlap_comm")]) is None  # a key it has: another question
    assert ds_field([H("NoSuchConfig", "x")]) is None and ds_field(None) is None
    line, why = ds_field([H("DeepSpeedZeroConfig", "stage3_prefetch_bucket_sise")])
    assert "stage3_prefetch_bucket_size" in line and "deepspeed 0.19.8" in why  # an alias is a key too


def test_the_generator_reads_fields_aliases_sections_and_deprecations(tmp_path):
    """tools/gen_ds_config_fields.py on a package laid out as DeepSpeed's is (a model deriving from
    DeepSpeedConfigModel through another, an alias, a deprecated field with its new_param, a nested section)."""
    pkg = tmp_path / "deepspeed"
    (pkg / "runtime" / "zero").mkdir(parents=True)
    (pkg / "git_version_info_installed.py").write_text("version='9.9.9'\n")
    (pkg / "runtime" / "config_utils.py").write_text(
        "from pydantic import BaseModel\nclass DeepSpeedConfigModel(BaseModel):\n    model_config = None\n")
    (pkg / "runtime" / "zero" / "config.py").write_text(
        "from pydantic import Field\nfrom typing import Optional\n"
        "from deepspeed.runtime.config_utils import DeepSpeedConfigModel\n"
        "class Offload(DeepSpeedConfigModel):\n    pin_memory: bool = False\n"
        "class Base(DeepSpeedConfigModel):\n    stage: int = 0\n"
        "class Zero(Base):\n"
        "    prefetch: int = Field(5, alias='stage3_prefetch')\n"
        "    cpu_offload: Optional[bool] = Field(None, json_schema_extra={'deprecated': True, "
        "'new_param': 'offload'})\n"
        "    offload: Optional[Offload] = None\n"
        "    _private: int = 0\n"
        "class NotAConfig:\n    x: int = 0\n")
    out = tmp_path / "t.json"
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_ds_config_fields.py"), "--src", str(pkg),
                    "-o", str(out)], check=True, capture_output=True)
    doc = json.loads(out.read_text())
    assert doc["deepspeed"] == "9.9.9" and sorted(doc["models"]) == ["Base", "Offload", "Zero"]
    z = doc["models"]["Zero"]
    assert z["keys"] == ["cpu_offload", "offload", "prefetch", "stage", "stage3_prefetch"]
    assert z["aliases"] == {"prefetch": "stage3_prefetch"} and z["deprecated"] == {"cpu_offload": "offload"}
    assert z["nested"] == {"offload": "Offload"} and doc["sites"] == []


def test_the_committed_table_is_deepspeeds_own():
    from gpudoctor.explain.knowledge import generated_table

    tb = generated_table("ds_config_fields")
    assert tb["deepspeed"] == "0.19.8" and "deepspeed 0.19.8" in tb["header"]["source"]
    z = tb["models"]["DeepSpeedZeroConfig"]
    assert {"stage", "overlap_comm", "stage3_prefetch_bucket_size", "prefetch_bucket_size"} <= set(z["keys"])
    assert z["nested"]["offload_optimizer"] == "DeepSpeedZeroOffloadOptimizerConfig"


def test_a_venv_another_user_made_is_the_permission_denied_cause():
    """Recorded: an unprivileged user ran torchrun from root's venv (its python3 links into /root, mode 700): the
    EACCES cause names a directory this user cannot enter and `namei -l`."""
    f = _explain("venv_of_another_user.txt")
    assert f["id"] == "exec.interpreter_missing"
    (c,) = [c for c in f["causes"] if c["text"].startswith("The interpreter is there but cannot be executed")]
    assert "a directory on its path this user cannot enter" in c["text"] and "namei -l" in c["fix"][0]
    assert c["evidence"], c  # seen in the log: 'bad interpreter: Permission denied'


H200 = os.path.join(ROOT, "fixtures", "recorded", "h200-2026-11-29-lead31")


def test_a_gpu_allocation_of_more_than_1eb_is_a_size_from_a_wrong_value():
    """Recorded on an H200 (torch 2.11): a length header read with the wrong dtype; torch says 'Tried to allocate
    more than 1EB memory.'. A 6,103 GiB request on the same GPU (recorded) keeps the ordinary causes first."""
    p = _run(os.path.join(H200, "cuda_alloc_more_than_1eb.txt"))
    f = json.loads(p.stdout)["findings"][0]
    assert f["id"] == "cuda.oom" and f["causes"][0]["text"].startswith("The size asked for is absurd")
    p = _run(os.path.join(H200, "cuda_alloc_6103_gib.txt"))
    f = json.loads(p.stdout)["findings"][0]
    assert f["id"] == "cuda.oom" and not any("absurd" in c["text"] for c in f["causes"])


# ---------------------------------------------------------------- an Enum's value, against the values its library defines

def test_an_enum_typo_gets_the_closest_value_the_library_defines():
    """Recorded (accelerate 1.15.0): distributed_type: MULTI_CPUS in the config file. The fix names MULTI_CPU, from
    accelerate's own DistributedType (generated/enum_values.json)."""
    f = _explain("accelerate_distributed_type_typo.txt")
    fixes = [x for c in f["causes"] for x in c["fix"]]
    hit = [x for x in fixes if "is not one of DistributedType's values" in x]
    assert hit and "did you mean MULTI_CPU " in hit[0] and "accelerate 1.15.0" in hit[0], fixes


def test_enum_fix_names_a_member_name_given_for_its_value_and_falls_back_without_the_class():
    from gpudoctor.explain.famfix import _enum_fix

    # transformers' IntervalStrategy: the member STEPS has the value 'steps'
    line = _enum_fix("STEPS", "IntervalStrategy", ['File ".../transformers/training_args.py"'])
    assert "STEPS is not one of IntervalStrategy's values: it is the name of a member; the value to write is steps" \
        in line
    line = _enum_fix("x", "NoSuchEnumAnywhere", [])
    assert "list(NoSuchEnumAnywhere) in that library lists the accepted ones" in line
    # a value far from every member: the values, no guess
    line = _enum_fix("zzzzzz", "IntervalStrategy", ["transformers"])
    assert "did you mean" not in line and "no, steps, epoch" in line


def test_the_enum_table_is_the_libraries_own():
    from gpudoctor.explain.knowledge import generated_table

    tb = generated_table("enum_values")
    assert tb["packages"]["accelerate"] == "1.15.0" and tb["packages"]["transformers"] == "5.24.0"
    (d,) = tb["classes"]["DistributedType"]
    assert d["module"] == "accelerate.utils.dataclasses" and ["MULTI_CPU", "MULTI_CPU"] in d["members"]


def test_the_enum_generator_reads_enum_subclasses_of_the_package(tmp_path):
    site = tmp_path / "site"
    (site / "pkg").mkdir(parents=True)
    (site / "pkg-1.2.3.dist-info").mkdir()
    (site / "pkg" / "__init__.py").write_text(
        "from enum import Enum, auto\n"
        "class ExplicitEnum(str, Enum):\n    pass\n"
        "class Mode(ExplicitEnum):\n    FAST = 'fast'\n    SLOW = 'slow'\n"
        "class Auto(Enum):\n    A = auto()\n"
        "class Plain:\n    X = 'x'\n")
    (site / "pkg" / "tests").mkdir()
    (site / "pkg" / "tests" / "t.py").write_text("from enum import Enum\nclass InTests(Enum):\n    A = 1\n")
    out = tmp_path / "e.json"
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_enum_values.py"), "--site", str(site),
                    "--package", "pkg", "-o", str(out)], check=True, capture_output=True)
    doc = json.loads(out.read_text())
    assert doc["packages"] == {"pkg": "1.2.3"} and sorted(doc["classes"]) == ["Mode"]
    assert doc["classes"]["Mode"][0]["members"] == [["FAST", "fast"], ["SLOW", "slow"]]


def test_the_user_fix_line_falls_back_to_the_uid_for_a_name_user_refuses():
    from gpudoctor.watch import _user_arg

    assert _user_arg(1001, "gdnode") == "gdnode" and _user_arg(1001, None) == "1001"
    assert _user_arg(1001, "-rf") == "1001" and _user_arg(1001, "a b") == "1001" and _user_arg(1001, "123") == "1001"

"""`gpudoctor plan` as a user runs it: text, JSON schema gpudoctor.plan/1, refusals (exit 2),
and `check --launch` judging the same plan."""

import json
import os

from conftest import FIXTURES

L = os.path.join(FIXTURES, "launch")
KEYS = ["schema", "launcher", "wrapper", "nodes", "nnodes", "nproc_per_node", "world_size", "master", "rdzv",
        "script", "script_args", "env", "precision", "batch", "files", "notes", "sources"]


def test_plan_json_schema_on_the_seed004_line(gpudoctor_cli):
    rc, out, err = gpudoctor_cli("plan", "--launch", "mpirun -np 16 -H gpu1:8,gpu2:8 python train.py --lr 1", "--json")
    assert rc == 0 and err == ""
    doc = json.loads(out)
    assert list(doc) == KEYS and doc["schema"] == "gpudoctor.plan/1"
    assert doc["nodes"] == [{"host": "gpu1", "slots": 8, "procs": 8}, {"host": "gpu2", "slots": 8, "procs": 8}]
    assert doc["nnodes"] == {"min": 2, "max": 2} and doc["world_size"] == {"min": 16, "max": 16}
    assert doc["master"] == {"addr": None, "port": None} and doc["rdzv"] == {"backend": None, "endpoint": None}
    assert (doc["script"], doc["script_args"], doc["nproc_per_node"]) == ("train.py", ["--lr", "1"], 8)
    assert set(doc["batch"]) == {"train_batch_size", "micro_batch_per_gpu", "gradient_accumulation_steps", "ok",
                                 "error"}
    assert doc["env"] == {"set": {}, "forwarded": []}


def test_plan_text_on_the_seed002_accelerate_config(gpudoctor_cli, tmp_path):
    for n in ("accelerate_seed002.yaml", "deepspeed.json", "hostfile"):
        (tmp_path / n).write_bytes(open(os.path.join(L, n), "rb").read())
    rc, out, err = gpudoctor_cli("plan", "--accelerate-config", "accelerate_seed002.yaml", cwd=str(tmp_path))
    assert rc == 0, err
    assert "huaweiyun2           slots 8      procs 8" in out and "world size     16" in out
    assert "batch          train 128 = micro 4 x accumulation 2 x world 16: ok" in out


def test_plan_refuses_what_the_launcher_refuses(gpudoctor_cli, cli, tmp_path, monkeypatch):
    # the first refusal as a user meets it (a process: its exit status and stderr); the others
    # through the same main() in this process (conftest's cli), run from the same folder
    (tmp_path / "hf").write_text("worker-0 slots=4\nworker-0 slots=4\n")
    monkeypatch.chdir(tmp_path)
    for n, (line, rule) in enumerate((("deepspeed -H hf x.py", "lists worker-0 twice"),
                                      ("mpirun -np 20 -H a:8,b:8 ./x", "not enough slots"),
                                      ("torchrun --nnodes 2 --rdzv-endpoint gpu1 t.py", "Port is absent in endpoint"),
                                      ("accelerate launch --mixed_precison fp16 t.py",
                                       "unrecognized arguments: --mixed_precison"))):
        rc, out, err = (gpudoctor_cli if n == 0 else cli)("plan", "--launch", line)
        assert rc == 2 and out == "" and rule in err and len(err.strip().splitlines()) == 1, (line, err)
    rc, out, err = cli("plan")
    assert rc == 2 and "give the launch line" in err


def test_plan_with_hosts_for_torchrun(gpudoctor_cli, tmp_path):
    (tmp_path / "nodes").write_text("gpu1\ngpu2\n")
    rc, out, err = gpudoctor_cli("plan", "--launch", "torchrun --nnodes 2 --nproc-per-node 8 --master-addr gpu1 t.py",
                                 "--hosts", "nodes", "--json")
    doc = json.loads(out)
    assert [n["host"] for n in doc["nodes"]] == ["gpu1", "gpu2"] and doc["master"] == {"addr": "gpu1", "port": 29500}


def test_check_launch_uses_the_same_plan(gpudoctor_cli, tmp_path):
    # two recorded H200x2 nodes; -np 3 over 2 slots each leaves one GPU idle: a warning (Open
    # MPI's man page runs -np 6 over 12 slots), never an error
    base = json.load(open(os.path.join(FIXTURES, "nodes", "h200x2-ubuntu2404-torch211.json")))
    for name in ("gpu1", "gpu2"):
        doc = dict(base, node=name)
        (tmp_path / (name + ".json")).write_text(json.dumps(doc))
    rc, out, err = gpudoctor_cli("check", "--facts", str(tmp_path), "--select", "launch.counts,launch.batch",
                                 "--json", "--launch", "mpirun -np 3 -H gpu1:2,gpu2:2 python train.py")
    doc = json.loads(out)
    (c,) = [c for c in doc["checks"] if c["id"] == "launch.counts"]
    assert c["status"] == "warn", c
    (f,) = [f for f in doc["findings"] if f["check"] == "launch.counts"]
    assert f["severity"] == "warning" and "1 slot left without a process (gpu2: 1)" in f["message"]
    rc, out, err = gpudoctor_cli("check", "--facts", str(tmp_path), "--select", "launch.counts", "--json",
                                 "--launch", "mpirun -np 4 -H gpu1:2,gpu2:2 python train.py")
    (c,) = [c for c in json.loads(out)["checks"] if c["id"] == "launch.counts"]
    assert c["status"] == "pass" and c["evidence"] == "world size 4 = 2 nodes x 2; 2 nodes checked, 4 GPUs", c


def test_check_with_an_empty_launch_line_is_exit_2(gpudoctor_cli):
    facts = os.path.join(FIXTURES, "nodes", "devbox-debian12-nogpu.json")
    rc, out, err = gpudoctor_cli("check", "--facts", facts, "--launch", "")
    assert rc == 2 and "--launch is empty" in err and len(err.strip().splitlines()) == 1


def test_deepspeed_config_with_hosts_judges_the_batch(gpudoctor_cli):
    rc, out, err = gpudoctor_cli("plan", "--deepspeed-config", os.path.join(L, "ds_bad_batch.json"), "--hosts",
                                 os.path.join(L, "hostfile"), "--json")
    doc = json.loads(out)
    assert doc["world_size"] == {"min": 16, "max": 16} and doc["batch"]["ok"] is False
    assert doc["batch"]["error"].endswith("64 != 4 * 2 * 16")


def test_plan_takes_the_launch_line_after_its_options_or_after_dashdash(gpudoctor_cli, cli, tmp_path, monkeypatch):
    # as time, strace and mpirun take a command: the launcher's flags (--json, --deepspeed, a
    # prefix of gpudoctor's --deepspeed-config) stay the launcher's and the script's. The tail
    # given after the options is a process's argv as a user types it; the rest run through the
    # same main() in this process (conftest's cli), from the same folder
    monkeypatch.chdir(tmp_path)
    want = ["plan", "--json", "--launch", "torchrun --nnodes 2 --nproc_per_node 8 train.py --json --deepspeed x.json"]
    rc, ref, err = cli(*want)
    assert rc == 0, err
    for n, argv in enumerate((["plan", "--json", "torchrun", "--nnodes", "2", "--nproc_per_node", "8", "train.py",
                               "--json", "--deepspeed", "x.json"],
                              ["plan", "--json", "--", "torchrun", "--nnodes", "2", "--nproc_per_node", "8", "train.py",
                               "--json", "--deepspeed", "x.json"],
                              ["plan", "--js", "torchrun", "--nnodes=2", "--nproc_per_node", "8", "train.py", "--json",
                               "--deepspeed", "x.json"])):
        rc, out, err = (gpudoctor_cli if n == 0 else cli)(*argv)
        assert rc == 0 and out == ref, (argv, err)
    doc = json.loads(ref)
    assert doc["world_size"] == {"min": 16, "max": 16} and doc["script_args"] == ["--json", "--deepspeed", "x.json"]
    rc, out, err = cli("plan", "--launch", "torchrun t.py", "torchrun", "t.py")
    assert rc == 2 and "not both" in err
    rc, out, err = cli("plan", "--")
    assert rc == 2 and "give the launch line" in err


def test_split_tail_knows_which_options_take_a_value():
    from gpudoctor.cli import build_parser
    from gpudoctor.commands.check import split_tail

    sub = build_parser()._subparsers._group_actions[0].choices
    check, plan = sub["check"], sub["plan"]
    assert split_tail(check, ["--hosts", "hf", "-j4", "--strict", "mpirun", "-np", "2", "x"]) == (
        ["--hosts", "hf", "-j4", "--strict"], ["mpirun", "-np", "2", "x"])
    assert split_tail(check, ["--same", "a", "b", "--", "torchrun", "t.py"]) == (["--same", "a", "b"],
                                                                                  ["torchrun", "t.py"])
    assert split_tail(plan, ["--accelerate-config", "accelerate", "launch", "t.py"]) == (
        ["--accelerate-config"], ["accelerate", "launch", "t.py"])
    assert split_tail(plan, ["--accelerate-config", "a.yaml", "--json"]) == (
        ["--accelerate-config", "a.yaml", "--json"], None)
    assert split_tail(plan, ["--hosts=hf", "deepspeed", "--hostfile", "hf"]) == (["--hosts=hf"],
                                                                               ["deepspeed", "--hostfile", "hf"])


def _two_nodes(tmp_path):
    base = json.load(open(os.path.join(FIXTURES, "nodes", "h200x2-ubuntu2404-torch211.json")))
    for name in ("gpu1", "gpu2"):
        (tmp_path / (name + ".json")).write_text(json.dumps(dict(base, node=name)))
    return str(tmp_path)


def test_check_takes_the_launch_line_after_its_options(gpudoctor_cli, tmp_path):
    facts = _two_nodes(tmp_path)
    rc, out, err = gpudoctor_cli("check", "--facts", facts, "--select", "launch.counts", "--json",
                                 "torchrun", "--nnodes", "3", "--nproc_per_node", "2", "t.py", "--json")
    (c,) = [c for c in json.loads(out)["checks"] if c["id"] == "launch.counts"]
    assert rc == 1 and c["status"] == "fail" and "--nnodes asks for 3 nodes; 2 are being checked" in out, out[-900:]


def test_check_with_a_refused_line_reports_everything_and_the_refusal(gpudoctor_cli, tmp_path):
    # issue 19: 20 processes over 16 slots without --oversubscribe is Open MPI's refusal; in
    # `check` it is one more finding beside every other check (exit 1), not exit 2 and no report
    facts = _two_nodes(tmp_path)
    line = ["mpirun", "-np", "20", "-H", "gpu1:8,gpu2:8", "python", "train.py"]
    rc, out, err = gpudoctor_cli("check", "--facts", facts, "--json", *line)
    doc = json.loads(out)
    (f,) = [f for f in doc["findings"] if f["check"] == "launch.accepted"]
    assert rc == 1 and f["severity"] == "error" and "not enough slots available" in f["message"], (rc, err)
    assert sorted(f["hosts"]) == ["gpu1", "gpu2"]
    ids = {c["id"]: c["status"] for c in doc["checks"]}
    assert ids["launch.counts"] == "na" and ids["shm.size"] != "na" and len(ids) > 15
    assert any("launch.accepted" in r for c in doc["checks"] if c["id"] == "launch.counts"
               for r in json.dumps(c).split("\\n")), doc["checks"]
    rc, out, err = gpudoctor_cli("check", "--facts", facts, "--select", "launch.accepted", "--json",
                                 *line[:2], "16", *line[3:])
    (c,) = [c for c in json.loads(out)["checks"] if c["id"] == "launch.accepted"]
    assert c["status"] == "pass" and "world size 16" in json.dumps(c)
    # input gpudoctor cannot read as a launch stays a usage error
    rc, out, err = gpudoctor_cli("check", "--facts", facts, "--launch", "foo bar")
    assert rc == 2 and "not a launcher gpudoctor reads" in err and out == ""

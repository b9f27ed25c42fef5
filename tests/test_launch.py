"""Launch plans (gpudoctor/launch/) from real config files, and the launch.* checks over facts."""

import os
import shutil

import pytest

from conftest import FIXTURES, node_facts, patched, run_check
from gpudoctor.config import Config
from gpudoctor.errors import InputError
from gpudoctor.launch import build_plan, parse_launch

L = os.path.join(FIXTURES, "launch")
SEED004 = [l for l in open(os.path.join(L, "launch_lines.txt")) if l.startswith("mpirun")][0]


@pytest.fixture
def launchdir(tmp_path, monkeypatch):
    for n in os.listdir(L):
        if os.path.isfile(os.path.join(L, n)):
            shutil.copy(os.path.join(L, n), str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def gpus(n, name="NVIDIA A100-SXM4-80GB", cc="8.0"):
    return {"status": "ok", "gpus": [{"index": i, "name": name, "compute_capability": cc} for i in range(n)]}


def cluster(**per_host):
    base = node_facts("devbox-debian12-nogpu")
    return {h: patched(base, gpu=g) for h, g in per_host.items()}


def cfg_with(plan):
    c = Config()
    c.launch = plan
    return c


# ------------------------------------------------------------ parsing

def test_seed002_accelerate_yaml_with_its_deepspeed_json_and_hostfile(launchdir):
    # accelerate hands a 2-machine DeepSpeed config to `deepspeed --hostfile ./hostfile
    # --num_nodes 2 --num_gpus 8` (pdsh): the hostfile's hosts, 8 processes each
    plan = build_plan(accelerate="accelerate_seed002.yaml", accelerate_given=True, environ={})
    assert plan.launcher == "accelerate" and (plan.nnodes_min, plan.world_size()) == (2, 16)
    # machine_rank 0 is not read: DeepSpeed's pdsh runner ranks the hosts itself (accelerate's
    # prepare_deepspeed_cmd_env passes --node_rank only with the nossh launcher)
    assert (plan.master_addr, plan.master_port, plan.machine_rank) == ("10.98.115.10", 22, None)
    assert [(n.host, n.slots, n.procs) for n in plan.nodes] == [("huaweiyun1", 8, 8), ("huaweiyun2", 8, 8)]
    assert plan.ds_bf16 is True and plan.ds_fp16 is False and plan.batch.train_batch_size == 128
    assert plan.batch.ok is True and plan.precision == "bf16"  # the DeepSpeed JSON enables bf16
    assert sorted(os.path.basename(p) for p in plan.files) == ["accelerate_seed002.yaml", "deepspeed.json",
                                                               "hostfile"]
    assert all(os.path.isabs(p) for p in plan.files)


def test_accelerate_default_location(tmp_path, monkeypatch):
    d = tmp_path / "hf" / "accelerate"
    d.mkdir(parents=True)
    (d / "default_config.yaml").write_text("distributed_type: MULTI_GPU\nnum_machines: 2\nnum_processes: 16\n"
                                           "main_process_ip: gpu1\n")
    plan = build_plan(accelerate=None, accelerate_given=True, environ={"HF_HOME": str(tmp_path / "hf")})
    assert plan.nnodes_min == 2 and plan.master_addr == "gpu1" and plan.nproc_per_node == 8
    assert plan.sources == ["accelerate config %s" % (d / "default_config.yaml")]


def test_seed004_mpirun_line():
    plan = parse_launch(SEED004, environ={})
    assert plan.launcher == "mpirun" and plan.world_size() == 16 and plan.nnodes_min == 2
    assert plan.slots == {"gpu1": 8, "gpu2": 8}
    assert plan.forwarded == ["NCCL_DEBUG", "NCCL_IB_DISABLE", "NCCL_SOCKET_IFNAME", "NCCL_IB_GID_INDEX",
                              "NCCL_NET_GDR_LEVEL", "LD_LIBRARY_PATH", "PATH"]
    assert plan.script == "train.py" and plan.files[-1].endswith("/train.py")


@pytest.mark.parametrize("line,want", [
    ("torchrun --nnodes 2 --nproc_per_node 8 --master_addr gpu1 --master_port 29501 train.py --lr 1e-4",
     ("torchrun", 2, 8, "gpu1", 29501, "train.py")),
    ("torchrun --nnodes=1:4 --nproc-per-node=gpu --rdzv_backend=c10d --rdzv_endpoint=gpu1 train.py",
     ("torchrun", 1, None, "gpu1", 29400, "train.py")),
    # torchrun ignores MASTER_ADDR/MASTER_PORT in its environment: its default 127.0.0.1:29500
    ("MASTER_ADDR=10.0.0.1 MASTER_PORT=1234 python -m torch.distributed.launch --nproc_per_node=8 --nnodes=2 "
     "--node_rank=0 --use_env train.py", ("torch.distributed.launch", 2, 8, "127.0.0.1", 29500, "train.py")),
    ("deepspeed --num_gpus=8 --master_port 29512 main.py --deepspeed deepspeed.json --bf16",
     ("deepspeed", 1, 8, "127.0.0.1", 29512, "main.py")),
])
def test_launch_lines(launchdir, line, want):
    p = parse_launch(line, environ={})
    assert (p.launcher, p.nnodes_min, p.nproc_per_node, p.master_addr, p.master_port, p.script) == want


def test_deepspeed_hostfile_and_trainer_config(launchdir):
    p = build_plan(launch="deepspeed --hostfile hostfile --num_gpus 8 main.py --deepspeed deepspeed.json",
                   environ={})
    assert p.slots == {"huaweiyun1": 8, "huaweiyun2": 8} and p.ds_config == "deepspeed.json"
    assert p.world_size() == 16 and p.batch.ok is True and p.precision == "bf16"


@pytest.mark.parametrize("kwargs,needle", [
    (dict(deepspeed="ds_trailing_comma.json"), "DeepSpeed config ds_trailing_comma.json is not valid JSON"),
    (dict(accelerate="accelerate_bad_count.yaml", accelerate_given=True),
     "num_machines is 'two', not a whole number"),
    (dict(deepspeed="nope.json"), "cannot read DeepSpeed config nope.json"),
    (dict(launch="srun --nodes 2"), "names no launcher"),  # `srun python train.py` is srun's plan now
    (dict(launch="nohup-python train.py"), "not a launcher gpudoctor reads"),
    (dict(launch="mpirun -np sixteen python train.py"), "-np='sixteen' is not a whole number"),
    (dict(launch="torchrun --nnodes 2 'train.py"), "No closing quotation"),
    (dict(launch="   "), "--launch is empty"),
])
def test_malformed_input_is_an_input_error_naming_the_file(launchdir, kwargs, needle):
    with pytest.raises(InputError) as e:
        build_plan(environ={}, **kwargs)
    assert needle in str(e.value)


def test_bad_yaml_indentation_is_refused_by_pyyaml(launchdir):
    with pytest.raises(InputError) as e:
        build_plan(accelerate="accelerate_bad_indent.yaml", accelerate_given=True, environ={})
    assert "accelerate_bad_indent.yaml is not valid YAML line" in str(e.value)


def test_malformed_config_is_exit_2_one_line(launchdir, gpudoctor_cli):
    rc, out, err = gpudoctor_cli("check", "--facts", os.path.join(FIXTURES, "nodes"), "--deepspeed-config",
                                 str(launchdir / "ds_trailing_comma.json"))
    assert rc == 2 and "ds_trailing_comma.json is not valid JSON" in err and len(err.strip().splitlines()) == 1


# ------------------------------------------------------------ checks over facts

def test_counts_mpirun_np_below_slots_warns_idle_gpus():
    # Open MPI's man page runs `mpirun -hostfile myhostfile -np 6 ./a.out` over 12 slots
    plan = parse_launch(SEED004.replace("-np 16", "-np 12"), environ={})
    res = run_check("launch.counts", cluster(gpu1=gpus(8), gpu2=gpus(8)), cfg_with(plan))
    (f,) = res.findings
    assert f.severity == "warning" and "4 slots left without a process (gpu2: 4)" in f.message
    assert res.status == "warn"
    ok = run_check("launch.counts", cluster(gpu1=gpus(8), gpu2=gpus(8)), cfg_with(parse_launch(SEED004, environ={})))
    assert ok.findings == [] and ok.status == "pass"
    assert ok.outcomes["gpu1"][1].startswith("world size 16 = 2 nodes x 8")


def test_counts_slots_above_gpus_and_accelerate_totals(launchdir):
    plan = build_plan(accelerate="accelerate_seed002.yaml", accelerate_given=True, environ={})
    res = run_check("launch.counts", cluster(huaweiyun1=gpus(8), huaweiyun2=gpus(4)), cfg_with(plan))
    msgs = [f.message for f in res.findings]
    assert msgs == ["DeepSpeed hostfile ./hostfile --num_gpus 8 starts 8 processes on huaweiyun2 "
                    "but it has 4 GPUs"]
    assert run_check("launch.counts", cluster(huaweiyun1=gpus(8), huaweiyun2=gpus(8)), cfg_with(plan)).findings == []


def test_counts_torchrun_nnodes_and_elastic_range():
    plan = parse_launch("torchrun --nnodes 3 --nproc_per_node 8 --master_addr a train.py", environ={})
    msgs = [f.message for f in run_check("launch.counts", cluster(a=gpus(8), b=gpus(8)), cfg_with(plan)).findings]
    assert msgs == ["--nnodes asks for 3 nodes; 2 are being checked (a,b)"]
    elastic = parse_launch("torchrun --nnodes 1:4 --nproc_per_node 8 --rdzv-backend c10d --rdzv-endpoint a t.py",
                           environ={})
    res = run_check("launch.counts", cluster(a=gpus(8), b=gpus(8)), cfg_with(elastic))
    assert res.findings == [] and res.status == "pass"


def test_master_loopback_unresolved_and_not_a_node():
    facts = cluster(a=gpus(8), b=gpus(8))
    loop = parse_launch("torchrun --nnodes 2 --nproc_per_node 8 --master_addr 127.0.0.1 t.py", environ={})
    assert "loopback" in run_check("launch.master", facts, cfg_with(loop)).findings[0].message
    plan = parse_launch("torchrun --nnodes 2 --nproc_per_node 8 --master_addr gpu9 t.py", environ={})
    facts["a"] = patched(facts["a"], resolve={"names": {"a": ["10.0.0.1"], "b": ["10.0.0.2"], "gpu9": ["10.0.0.9"]}})
    facts["b"] = patched(facts["b"], resolve={"names": {"a": ["10.0.0.1"], "b": ["10.0.0.2"], "gpu9": []}})
    msgs = [f.message for f in run_check("launch.master", facts, cfg_with(plan)).findings]
    assert msgs == ["the master gpu9 does not resolve on b", "the master gpu9 is not one of the checked nodes (a,b)"]
    good = parse_launch("torchrun --nnodes 2 --nproc_per_node 8 --master_addr 10.0.0.1 t.py", environ={})
    facts["b"]["resolve"]["names"]["10.0.0.1"] = ["10.0.0.1"]
    facts["a"]["resolve"]["names"]["10.0.0.1"] = ["10.0.0.1"]
    assert run_check("launch.master", facts, cfg_with(good)).findings == []


def test_precision_bf16_on_v100_and_both_enabled(launchdir):
    plan = build_plan(accelerate="accelerate_seed002.yaml", accelerate_given=True, environ={})  # ds: bf16
    v100 = patched(node_facts("devbox-debian12-nogpu"), gpu=gpus(8, "Tesla V100S-PCIE-32GB", "7.0"))
    (f,) = run_check("launch.precision", v100, cfg_with(plan)).findings
    assert "8 GPUs here are below compute capability 8.0: Tesla V100S-PCIE-32GB (cc 7.0)" in f.message
    assert "fp16" in f.fix
    a100 = patched(node_facts("devbox-debian12-nogpu"), gpu=gpus(8))
    assert run_check("launch.precision", a100, cfg_with(plan)).findings == []
    both = build_plan(deepspeed="ds_both_precisions.json", environ={})
    (f,) = run_check("launch.precision", a100, cfg_with(both)).findings
    assert "enables both bf16 and fp16" in f.message


def test_batch_arithmetic(launchdir):
    bad = build_plan(launch="deepspeed --hostfile hostfile main.py --deepspeed ds_bad_batch.json", environ={})
    (f,) = run_check("launch.batch", node_facts("devbox-debian12-nogpu"), cfg_with(bad)).findings
    assert "64 != 4 * 2 * 16" in f.message and "DeepSpeed refuses to start" in f.message
    good = build_plan(launch="deepspeed --hostfile hostfile main.py --deepspeed deepspeed.json", environ={})
    res = run_check("launch.batch", node_facts("devbox-debian12-nogpu"), cfg_with(good))
    assert res.findings == [] and res.status == "pass"


def test_env_not_forwarded_by_mpirun():
    facts = cluster(gpu1=gpus(8), gpu2=gpus(8))
    for h in facts:
        facts[h]["env"]["values"] = {"PATH": "/usr/bin"}
    facts["gpu1"]["env"]["values"]["PYTHONPATH"] = "/code"
    plan = parse_launch("NCCL_SOCKET_IFNAME=bond0 NCCL_P2P_DISABLE=1 " + SEED004, environ={})
    msgs = sorted(f.message for f in run_check("launch.env", facts, cfg_with(plan)).findings)
    assert msgs == ["NCCL_P2P_DISABLE=1 is set where you launch but mpirun does not forward it: the ranks on "
                    "gpu[1-2] see it unset",
                    "PYTHONPATH is set on gpu1 but not on gpu2, and mpirun does not forward it"]
    # NCCL_SOCKET_IFNAME is forwarded by -x in the user's line: not reported


def test_files_missing_and_different():
    plan = parse_launch("torchrun --nnodes 2 --nproc_per_node 8 --master_addr a /job/train.py", environ={})
    facts = cluster(a=gpus(8), b=gpus(8), c=gpus(8))
    facts["a"] = patched(facts["a"], files={"files": {"/job/train.py": {"sha256": "aa" * 32, "size": 3}}})
    facts["b"] = patched(facts["b"], files={"files": {"/job/train.py": {"sha256": "bb" * 32, "size": 3}}})
    facts["c"] = patched(facts["c"], files={"files": {"/job/train.py": {"error": "No such file or directory"}}})
    res = run_check("launch.files", facts, cfg_with(plan))
    msgs = [f.message for f in res.findings]
    assert msgs[0] == "/job/train.py, named by the launch plan, is missing on c"
    assert len(msgs) == 2 and res.findings[1].hosts in (["a"], ["b"])


def test_no_plan_is_na_never_a_pass():
    facts = cluster(a=gpus(8), b=gpus(4))
    for cid in ("launch.counts", "launch.master", "launch.env", "launch.precision"):
        one = facts if cid != "launch.precision" else facts["a"]
        res = run_check(cid, one)
        assert res.findings == [] and res.status == "na", (cid, res.status)


# DeepSpeed's pdsh runner: deepspeed/launcher/runner.py main() exports NCCL*/PYTHON*/UCX*/MLFLOW*/MV2*
# and the KEY=VALUE lines of ~/.deepspeed_env and ./.deepspeed_env (DS_ENV_FILE renames them)
# (https://github.com/deepspeedai/DeepSpeed/blob/master/deepspeed/launcher/runner.py); the line runs
# DeepSpeedExamples' own imagenet config (fixtures/launch/upstream, DeepSpeedExamples 83757d9c)
DS_LINE = ("deepspeed --hostfile hostfile main.py --deepspeed --deepspeed_config " + os.path.join(
    L, "upstream", "deepspeed", "DeepSpeedExamples", "training", "imagenet", "config", "ds_config.json"))


def _ds_nodes(**values):
    facts = cluster(huaweiyun1=gpus(8), huaweiyun2=gpus(8))
    for h in facts:
        facts[h]["env"]["values"] = dict(values)
    return facts


def test_deepspeed_pdsh_env_not_exported_is_named_with_the_env_file_line(launchdir):
    home = launchdir / "home"
    home.mkdir()
    (home / ".deepspeed_env").write_text("LD_LIBRARY_PATH=/opt/cuda/lib64\nHF_TOKEN=hf_secretvalue\n")
    env = {"HOME": str(home), "PATH": "/opt/venv/bin:/usr/bin", "LD_LIBRARY_PATH": "/opt/cuda/lib64",
           "NCCL_SOCKET_IFNAME": "bond0", "CUDA_HOME": "/usr/local/cuda-12.4", "MASTER_ADDR": "10.0.0.1",
           "CUDA_VISIBLE_DEVICES": "0,1", "HF_TOKEN": "hf_secretvalue", "WANDB_API_KEY": "k3y"}
    plan = build_plan(launch=DS_LINE, environ=env)
    assert plan.world_size() == 16 and plan.carried["LD_LIBRARY_PATH"] == "~/.deepspeed_env line 1"
    # only names a rank reads and gpudoctor shows: no secret, nothing launch.py sets per rank
    assert sorted(plan.env_launching) == ["CUDA_HOME", "LD_LIBRARY_PATH", "NCCL_SOCKET_IFNAME", "PATH"]
    assert "secretvalue" not in str(plan.to_json()) and "k3y" not in str(plan.to_json())
    assert any(n.startswith("set here but not exported to the ranks by DeepSpeed's pdsh runner: CUDA_HOME, PATH")
               for n in plan.notes)
    facts = _ds_nodes(PATH="/usr/bin:/bin", CUDA_HOME="/usr/local/cuda-12.4")
    res = run_check("launch.env", facts, cfg_with(plan))
    assert res.status == "warn"
    (f,) = res.findings  # CUDA_HOME is the same in the nodes' own shells: not a finding
    assert f.message == ("PATH=/opt/venv/bin:/usr/bin is set where you launch, but DeepSpeed's pdsh runner does not "
                         "export it (only NCCL*, PYTHON*, UCX*, MLFLOW*, MV2* and the lines of .deepspeed_env): the "
                         "ranks on huaweiyun[1-2] see PATH=/usr/bin:/bin")
    assert f.fix == "printf '%s\\n' PATH=/opt/venv/bin:/usr/bin >> ~/.deepspeed_env"
    # the nodes' shells already get the same PATH: a pass that says what reaches the ranks and how
    ok = run_check("launch.env", _ds_nodes(PATH="/opt/venv/bin:/usr/bin", CUDA_HOME="/usr/local/cuda-12.4"),
                   cfg_with(plan))
    assert ok.findings == [] and ok.status == "pass"
    assert ok.outcomes["huaweiyun1"][1] == (
        "DeepSpeed's pdsh runner exports LD_LIBRARY_PATH (~/.deepspeed_env line 1), NCCL_SOCKET_IFNAME (its name "
        "starts with NCCL (runner.py EXPORT_ENVS)); not exported but the same on every node: CUDA_HOME, PATH")


def test_deepspeed_env_values_are_quoted_and_the_env_file_is_read_as_runner_py_does(launchdir):
    env = {"PATH": "/opt/my venv/bin;touch /tmp/x", "DS_ENV_FILE": "job.env"}
    (launchdir / "job.env").write_text("UCX_TLS=tcp\n")
    plan = build_plan(launch=DS_LINE, environ=env)  # no HOME: only ./job.env
    assert plan.env_files == ["./job.env"] and plan.carried["UCX_TLS"] == "./job.env line 1"
    (f,) = run_check("launch.env", _ds_nodes(), cfg_with(plan)).findings
    assert "the ranks on huaweiyun[1-2] see it unset" in f.message
    assert f.fix == "printf '%s\\n' 'PATH=/opt/my venv/bin;touch /tmp/x' >> ./job.env"
    # a blank line: runner.py's `key, val = var.split('=', maxsplit=1)` raises ValueError
    (launchdir / "job.env").write_text("UCX_TLS=tcp\n\n")
    with pytest.raises(InputError) as e:
        build_plan(launch=DS_LINE, environ=env)
    assert "./job.env line 2 has no '='" in str(e.value)
    # one node (no hostfile): the ranks inherit this environment; another runner: not judged here
    one = build_plan(launch="deepspeed --num_gpus 2 main.py", environ=env)
    assert run_check("launch.env", _ds_nodes(), cfg_with(one)).status == "na"
    mpi = build_plan(launch="deepspeed --hostfile hostfile --launcher openmpi main.py", environ=env)
    res = run_check("launch.env", _ds_nodes(), cfg_with(mpi))
    assert res.status == "na" and "--launcher openmpi" in res.outcomes["huaweiyun1"][1]

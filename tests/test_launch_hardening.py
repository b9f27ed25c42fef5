"""Hostile and broken launch input (issue: hardened input): every bad config or line is one
line on stderr and exit 2, in bounded time and memory, echoing no unbounded value; secrets
typed inline never reach any output."""

import json
import os
import subprocess
import sys
import time

import pytest

from conftest import FIXTURES

SEED004 = "mpirun -np 16 -H gpu1:8,gpu2:8 python train.py"


def _bomb(levels=9):
    """A YAML alias bomb: 9 levels of 9 aliases each expand to 9**9 (387 million) nodes."""
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        lines.append("a%d: &a%d [%s]" % (i, i, ",".join(["*a%d" % (i - 1)] * 9)))
    lines.append("distributed_type: MULTI_GPU")
    lines.append("num_machines: *a%d" % (levels - 1))
    return "\n".join(lines) + "\n"


def _cli(args, cwd):
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-c", "import resource, sys\n"
                        "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
                        "from gpudoctor.cli import main\nsys.exit(main(sys.argv[1:]))"] + list(args),
                       capture_output=True, text=True, cwd=str(cwd), timeout=60)
    return p.returncode, p.stdout, p.stderr, time.monotonic() - t0


def test_yaml_alias_bomb_is_refused_fast_in_bounded_memory(tmp_path):
    cfg = tmp_path / "bomb.yaml"
    cfg.write_text(_bomb())
    assert len(cfg.read_bytes()) < 700
    rc, out, err, took = _cli(["plan", "--accelerate-config", str(cfg)], tmp_path)  # 1 GiB address space cap
    assert rc == 2 and len(err.strip().splitlines()) == 1, err[-500:]
    assert "alias" in err and "lol" not in err and len(err) < 400
    # "fast" as a state: refused (exit 2, the alias named) within _cli's 60 s deadline under a 1 GiB cap, where an
    # expanding reader runs out of memory or time (a wall-clock bound here was a timed test: suite27)


@pytest.mark.parametrize("text,needle", [
    ("distributed_type: MULTI_GPU\nnum_machines: %s\n" % ("9" * 5000), "line 2: a number of 5000 digits"),
    ("distributed_type: DEEPSPEED\nnum_processes: 2\ndeepspeed_config:\n  deepspeed_config_file: 5\n",
     "deepspeed_config_file is 5, not a path"),
    ("distributed_type: DEEPSPEED\nnum_processes: 2\ndeepspeed_config:\n  deepspeed_hostfile: [a, b]\n",
     "deepspeed_hostfile is a list, not a path"),
    ("distributed_type: MULTI_GPU\nnum_processes: " + "[" * 20000 + "]" * 20000 + "\n", "nested"),
    ("distributed_type: MULTI_GPU\nnum_processes: true\n", "num_processes is true, not a whole number"),
    ("distributed_type: MULTI_GPU\nnum_processes: 8.7\n", "num_processes is 8.7, not a whole number"),
    ("- just\n- a list\n", "expected a mapping"),
    ("distributed_type: [MULTI_GPU\n", "not valid YAML"),
])
def test_bad_accelerate_configs_are_one_line_exit_2(tmp_path, text, needle):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(text)
    rc, out, err, took = _cli(["plan", "--accelerate-config", str(cfg)], tmp_path)
    assert rc == 2 and len(err.strip().splitlines()) == 1, err[-800:]
    assert needle in err and len(err) < 400 and "Traceback" not in err
    assert "9999999999" not in err


@pytest.mark.parametrize("text,needle", [
    ('{"train_batch_size": ' + "9" * 5000 + "}", "a number of 5000 digits"),
    ("[" * 100000 + "]" * 100000, "nested too deeply"),
    ('{"a": ' * 100 + "1" + "}" * 100, "nested more than 64 levels"),
    ('{"train_batch_size": "lots"}', "train_batch_size='lots' is not a whole number"),
])
def test_bad_deepspeed_json_is_one_line_exit_2(tmp_path, text, needle):
    cfg = tmp_path / "ds.json"
    cfg.write_text(text)
    rc, out, err, took = _cli(["plan", "--launch", "deepspeed --num_gpus 2 t.py", "--deepspeed-config", str(cfg)],
                              tmp_path)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and needle in err, err[-500:]
    assert len(err) < 400


@pytest.mark.parametrize("line,needle", [
    ("", "--launch is empty"),
    ("   ", "--launch is empty"),
    ("mpirun -np " + "9" * 5000 + " -H a:2 ./x", "is not a whole number"),
    ("torchrun --nnodes " + "9" * 5000 + " t.py", "is not a whole number"),
    ("deepspeed --num_gpus " + "9" * 5000 + " t.py", "deepspeed would refuse this"),
    ("mpirun -np 2 -H '-oProxyCommand=touch /tmp/x' ./x", "is not a host name"),
])
def test_bad_launch_lines(tmp_path, line, needle):
    rc, out, err, took = _cli(["plan", "--launch", line], tmp_path)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and needle in err, err[-500:]
    assert len(err) < 400


SECRET_LINE = ("HF_TOKEN=hf_SeCrEt1 WANDB_API_KEY=wb_SeCrEt2 mpirun -np 2 -H a:2 -x AWS_SECRET_ACCESS_KEY=aws_SeCrEt3 "
               "-x MY_PASSWORD=pw_SeCrEt4 -x NCCL_DEBUG=INFO python3 train.py")


def test_secrets_typed_inline_are_redacted_in_plan_text_and_json(gpudoctor_cli):
    for fmt in ([], ["--json"]):
        rc, out, err = gpudoctor_cli("plan", "--launch", SECRET_LINE, *fmt)
        assert rc == 0, err
        assert "SeCrEt" not in out and "SeCrEt" not in err
        assert "NCCL_DEBUG=INFO" in out or '"NCCL_DEBUG": "INFO"' in out
    doc = json.loads(gpudoctor_cli("plan", "--launch", SECRET_LINE, "--json")[1])
    assert doc["env"]["set"] == {"HF_TOKEN": "<redacted>", "WANDB_API_KEY": "<redacted>",
                                 "AWS_SECRET_ACCESS_KEY": "<redacted>", "MY_PASSWORD": "<redacted>",
                                 "NCCL_DEBUG": "INFO"}
    assert doc["env"]["forwarded"] == ["AWS_SECRET_ACCESS_KEY", "MY_PASSWORD", "NCCL_DEBUG"]


def test_secrets_typed_inline_are_redacted_in_the_check_report(gpudoctor_cli, tmp_path):
    nodes = os.path.join(FIXTURES, "nodes", "devbox-debian12-nogpu.json")
    for fmt in ("json", "text", "junit", "prometheus"):
        out_file = tmp_path / ("r." + fmt)
        rc, out, err = gpudoctor_cli("check", "--facts", nodes, "--launch", SECRET_LINE, "--format", fmt,
                                     "-o", str(out_file))
        assert rc in (0, 1), err
        assert "SeCrEt" not in out_file.read_text() and "SeCrEt" not in out + err, fmt


def test_hydra_env_and_accelerate_env_values_redacted():
    from gpudoctor.launch import build_plan

    p = build_plan(launch="mpiexec.hydra -genv HF_TOKEN abc -genv NCCL_IB_HCA mlx5 -n 2 ./app", environ={})
    assert p.env_set == {"HF_TOKEN": "<redacted>", "NCCL_IB_HCA": "mlx5"}


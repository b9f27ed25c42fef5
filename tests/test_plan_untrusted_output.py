"""Issue 23 item 8: what `plan` prints comes from launch lines, configs and hostfiles the
user (or a colleague's repository) wrote. Every master address goes through the one
host-name rule, control characters are escaped in all text output, and a batch
configuration DeepSpeed refuses is a refused line (exit 2)."""

import json
import subprocess
import sys

import pytest

PAYLOADS = ["\x1b]0;pwn\x07\x1b[2J", "$(touch /tmp/gpudoctor-pwn)", "`id`", "a b", "h;reboot", "-oProxyCommand=x",
            "host\nEVIL"]


def _plan(*argv):
    return subprocess.run([sys.executable, "-m", "gpudoctor", "plan"] + list(argv), capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_accelerate_main_process_ip_is_held_to_the_host_name_rule(tmp_path, payload):
    cfg = tmp_path / "acc.yaml"
    cfg.write_text("compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nnum_machines: 2\n"
                   "num_processes: 16\nmachine_rank: 0\nmain_process_ip: %s\nmain_process_port: 29500\n"
                   % json.dumps(payload))
    r = _plan("--accelerate-config", str(cfg))
    assert r.returncode == 2, r
    assert "\x1b" not in r.stderr + r.stdout and "$(" not in r.stderr and "`" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "master address" in r.stderr


@pytest.mark.parametrize("line", ["torchrun --nnodes 2 --nproc_per_node 8 --master_addr '%s' --master_port 29500 t.py",
                                  "PET_MASTER_ADDR='%s' torchrun --nnodes 2 --nproc_per_node 8 t.py",
                                  "mpirun -np 2 -H a:1,b:1 -x MASTER_ADDR='%s' python t.py",
                                  "accelerate launch --num_machines 2 --num_processes 16 --machine_rank 0 "
                                  "--main_process_ip '%s' --main_process_port 29500 t.py"])
@pytest.mark.parametrize("payload", ["h;reboot", "\x1b[2Jh", "$(id)"])
def test_a_master_address_from_any_launcher_is_held_to_the_rule(line, payload):
    r = _plan("--launch", line % payload)
    assert r.returncode == 2, r
    assert len(r.stderr.strip().splitlines()) == 1 and "\x1b" not in r.stderr, r


def test_control_characters_in_any_plan_value_are_escaped():
    r = _plan("--launch", "torchrun --nnodes 1 --nproc_per_node 2 train.py --name '\x1b]0;pwn\x07\x1b[2J'")
    assert r.returncode == 0, r
    assert "\x1b" not in r.stdout and "\x07" not in r.stdout
    assert "\\x1b]0;pwn\\x07" in r.stdout  # shown, escaped


@pytest.mark.parametrize("cfg, message", [
    ({"train_micro_batch_size_per_gpu": -2, "gradient_accumulation_steps": 1}, "has to be greater than 0"),
    ({"train_batch_size": 10, "train_micro_batch_size_per_gpu": 3, "gradient_accumulation_steps": 1}, "DeepSpeed"),
])
def test_a_batch_configuration_deepspeed_refuses_exits_2(tmp_path, cfg, message):
    ds = tmp_path / "ds.json"
    ds.write_text(json.dumps(cfg))
    r = _plan("--deepspeed-config", str(ds), "--launch", "deepspeed --num_gpus 8 t.py")
    assert r.returncode == 2, r
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "batch" in r.stdout  # the plan is still printed, with the refusal in it

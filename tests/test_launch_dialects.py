"""Hostfile dialects and flags read as each launcher reads them (issue 19's disagreements),
each case from the launcher's own source or documentation (cited per test)."""

import pytest

from gpudoctor.errors import InputError
from gpudoctor.launch import build_plan
from gpudoctor.launch.common import Refused


def plan(tmp_path, line, files=None, **kw):
    for name, text in (files or {}).items():
        (tmp_path / name).write_text(text)
    import os

    old = os.getcwd()
    os.chdir(str(tmp_path))
    try:
        return build_plan(launch=line, environ=kw.pop("environ", {}), **kw)
    finally:
        os.chdir(old)


def nodes(p):
    return [(n.host, n.slots, n.procs) for n in p.nodes]


def test_deepspeed_hostfile_keeps_pdsh_brackets(tmp_path):
    # deepspeed/launcher/runner.py _parse_hostfile: `^(\S+)\s+slots=(\d+)`: `worker-[1-2]` is one
    # name to DeepSpeed (pdsh expands it); its master is not found by `ssh worker-[1-2] hostname -I`
    p = plan(tmp_path, "deepspeed --hostfile hf t.py", {"hf": "worker-[1-2] slots=2\n"})
    assert nodes(p) == [("worker-[1-2]", 2, 2)] and p.world_size() == 2
    assert p.master_addr is None and any("give --master_addr" in n for n in p.notes)


@pytest.mark.parametrize("text,want", [
    ("aa slots=2\nbb max_slots=4\n", [("aa", 2, 2), ("bb", 4, 4)]),  # hostfile.c: max alone sets slots
    ("aa slots = 4\n", [("aa", 4, 4)]),  # hostfile_lex.l: blanks around '=' are skipped
    ("// a comment\naa slots=4 // trailing\n", [("aa", 4, 4)]),  # hostfile_lex.l: "//".*\n
    ("aa cpu=2\nbb count=2 max-count=2\n", [("aa", 2, 2), ("bb", 2, 2)]),
])
def test_openmpi_hostfile_accepts_what_its_lexer_accepts(tmp_path, text, want):
    p = plan(tmp_path, "mpirun --hostfile hf ./a", {"hf": text})
    assert nodes(p) == want


@pytest.mark.parametrize("text,needle", [
    ("aa slot=4\n", "does not know 'slot'"),  # `slot` is its own token (ORTE_HOSTFILE_SLOT)
    ("node[1-2] slots=4\n", "a parse error at '['"),  # '[' is ORTE_HOSTFILE_ERROR: no node sets
])
def test_openmpi_hostfile_refuses_what_its_lexer_refuses(tmp_path, text, needle):
    with pytest.raises(Refused) as e:
        plan(tmp_path, "mpirun --hostfile hf ./a", {"hf": text})
    assert needle in str(e.value)


def test_mpich_machinefile_refuses_open_mpi_slots_and_wraps_round_robin(tmp_path):
    # Hydra HYDU_process_mfile_token: after `host[:N]` only `ifhn=` ("unrecognized mfile token")
    with pytest.raises(Refused) as e:
        plan(tmp_path, "mpiexec.hydra -f hf -n 2 ./a", {"hf": "aa slots=4\n"})
    assert "unrecognized mfile token 'slots'" in str(e.value)
    p = plan(tmp_path, "mpiexec.hydra -f hf -n 2 ./a", {"hf": "aa:2 ifhn=10.0.0.1\n"})
    assert nodes(p) == [("aa", 2, 2)]
    # -n 7 over aa:2,bb:2 wraps around the list (aa 2, bb 2, aa 2, bb 1)
    p = plan(tmp_path, "mpiexec -machinefile hf -n 7 ./a", {"hf": "aa:2\nbb:2\n"})
    assert nodes(p) == [("aa", 2, 4), ("bb", 2, 3)] and p.world_size() == 7


def test_hydra_mpmd_sums_the_sections(tmp_path):
    # MPICH mpiexec(1): `mpiexec -n 1 ./master : -n 19 ./slave` starts 20 processes
    p = plan(tmp_path, "mpiexec.hydra -n 4 ./a : -n 4 ./b")
    assert p.world_size() == 8 and any("-n 4 + 4" in n for n in p.notes)
    p = plan(tmp_path, "mpiexec.hydra -f hf -n 1 ./master : -n 3 ./worker", {"hf": "aa:2\nbb:2\n"})
    assert nodes(p) == [("aa", 2, 2), ("bb", 2, 2)]


def test_mpirun_with_a_hostfile_that_is_not_here_counts_from_the_flags(tmp_path):
    p = plan(tmp_path, "mpirun -n 128 -npernode 4 -hostfile /job/nonexistent-hostfile python t.py")
    assert (p.world_size(), p.nnodes_max, p.nproc_per_node) == (128, 32, 4) and p.nodes == []
    assert any("not on this machine" in n for n in p.notes)


def test_accelerate_cpu_single_machine_and_sagemaker(tmp_path):
    # commands/launch.py launch_command: --cpu -> simple_launcher, one process
    p = plan(tmp_path, "accelerate launch --cpu t.py")
    assert p.world_size() == 1
    # utils/launch.py prepare_multi_gpu_env: main_process_ip only when num_machines > 1
    cfg = ("compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nnum_machines: 2\nnum_processes: 16\n"
           "main_process_ip: 10.0.0.5\nmain_process_port: 29500\n")
    p = plan(tmp_path, "accelerate launch --config_file c.yaml --num_processes 8 --num_machines 1 t.py",
             {"c.yaml": cfg})
    assert (p.master_addr, p.world_size()) == ("127.0.0.1", 8)
    # _validate_launch_command (1.15, line 1204) refuses two launcher flags at once
    with pytest.raises(Refused):
        plan(tmp_path, "accelerate launch --use_deepspeed --use_fsdp --num_processes 2 t.py")
    sm = "compute_environment: AMAZON_SAGEMAKER\ndistributed_type: DATA_PARALLEL\nec2_instance_type: ml.p3.16xlarge\n" \
         "iam_role_name: r\nmixed_precision: fp16\n"
    with pytest.raises(Refused):  # no launcher flag: defaults.parallelism_config, AttributeError
        plan(tmp_path, "accelerate launch --config_file sm.yaml t.py", {"sm.yaml": sm})
    p = plan(tmp_path, "accelerate launch --config_file sm.yaml --multi_gpu --num_processes 4 t.py", {"sm.yaml": sm})
    assert (p.world_size(), p.precision) == (4, "fp16")
    with pytest.raises(InputError):
        plan(tmp_path, "accelerate launch --config_file sm2.yaml --multi_gpu t.py",
             {"sm2.yaml": sm.replace("iam_role_name: r\n", "")})


def test_deepspeed_without_hostfile_says_where_it_runs(tmp_path):
    p = plan(tmp_path, "deepspeed t.py")
    assert any("/job/hostfile when it exists on the machine the job is launched from" in n for n in p.notes)


def test_srun_flags_come_from_srun_help(tmp_path):
    # flags/srun.json is `srun --help` of slurm-wlm 22.05: `-K, --kill-on-bad-exit` takes no
    # word (the old hand list made `srun -K torchrun ...` skip torchrun), `--gres=list` does
    from gpudoctor.launch import SRUN_VALUE
    from gpudoctor.launch.flags.generate import parse_srun_help

    assert "-K" not in SRUN_VALUE and "--gres" in SRUN_VALUE and "--ntasks-per-node" in SRUN_VALUE
    help_text = ("  -A, --account=name          charge job to specified account\n"
                 "      --exclusive[=user]      for job allocation\n"
                 "  -K, --kill-on-bad-exit      kill the job\n"
                 "  -h, --help                  show this help message\n")
    assert parse_srun_help(help_text) == [{"flags": ["-A", "--account"], "nargs": 1},
                                          {"flags": ["--exclusive"], "nargs": "?"},
                                          {"flags": ["-K", "--kill-on-bad-exit"], "nargs": 0},
                                          {"flags": ["-h", "--help"], "nargs": 0}]
    p = plan(tmp_path, "srun -K -l -N 2 --gres=gpu:8 torchrun --nnodes 2 --nproc_per_node 8 t.py")
    assert (p.launcher, p.world_size()) == ("torchrun", 16)

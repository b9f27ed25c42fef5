"""review23: parsers checked against the real programs they imitate (differential). Each case's expected value
is what the reference printed here; where the reference is installed, a test also runs it on the same input."""

import re
import shutil
import subprocess

import pytest

from gpudoctor.errors import InputError
from gpudoctor.launch import hostfiles

# ------------------------------------------------------------------ Open MPI hostfiles
# Expected: Open MPI 4.1.4 (Debian openmpi-bin 4.1.4-3), `mpirun --hostfile F --display-map --do-not-launch
# --map-by node --oversubscribe -np N true`, "Data for node: X Num slots: S". hostfile.c hostfile_parse_line:
# https://github.com/open-mpi/ompi/blob/v4.1.4/orte/util/hostfile/hostfile.c

OMPI_ACCEPTS = [
    # a host named again after slots=N adds one slot ("already found once - add a slot")
    ("aa slots=2\naa\n", [("aa", 3, True)]),
    ("aa slots=2\nu@aa\n", [("aa", 3, True)]),
    # a host named twice has its slots given, so no -np is needed for it
    ("aa\naa\nbb slots=2\n", [("aa", 2, True), ("bb", 2, True)]),
    ("n1 max_count=7\nn1\n", [("n1", 8, True)]),  # max alone sets the slots, the next line adds one
    ("n1 cpu=0 max-slots=4\nn1 max-slots=2\n", [("n1", 1, True)]),
    ("aa max_slots=4 slots=2\n", [("aa", 2, True)]),
    ("aa foo\nbb 12\n", [("aa", 1, False), ("bb", 1, False)]),  # a bare word is ignored
    ("aa Slots\n", [("aa", 1, False)]),
    ("aa username=bob\n", [("aa", 1, False)]),
    ("aa slots=2 /* c */\nbb slots=1\n", [("aa", 2, True), ("bb", 1, True)]),
    ("10.0.0.1 slots=2\n", [("10.0.0.1", 2, True)]),
    ("aa:4\nbb slots=2\n", [("aa:4", 1, False), ("bb", 2, True)]),
]

OMPI_REFUSES = [
    ("aa slots=2 max_slots=1\n", "less than the slots"),
    ("aa max_slots=0\n", "less than the slots"),  # a new host has 1 slot before max_slots is read
    ("aa Slots=2\n", "parse error"),  # keywords are case-sensitive: 'Slots' is a string, '=' an error
    ("aa SLOTS=2\n", "parse error"),
    ("aa boards=2\n", "does not know 'boards'"),
    ("aa sockets=2\n", "does not know 'sockets'"),
    ("aa cores=2\n", "does not know 'cores'"),
    ("aa rank=2\n", "does not know 'rank'"),
    ("aa slots=2\r\nbb\r\n", "Windows line ends"),  # mpirun: parse error on line 1, token 1
    ("aa\naa slots=3\n", "more than once"),
    ("aa slots=2\naa slots=2\n", "more than once"),
    ("aa b.c\n", "parse error"),
    ("aa\n+n0\n", "relative"),
    ("a^b slots=2\n", "parse error"),
    ("aa\nrank 0", "rank line"),  # hostfile.c "bad syntax somewhere"; mpirun: internal error in ras_base_allocate
]


@pytest.mark.parametrize("text,want", OMPI_ACCEPTS)
def test_openmpi_hostfile_reads_as_mpirun_4_1_4_does(text, want):
    assert hostfiles.openmpi(text, "hf") == want


@pytest.mark.parametrize("text,needle", OMPI_REFUSES)
def test_openmpi_hostfile_refuses_what_mpirun_4_1_4_refuses(text, needle):
    with pytest.raises(InputError) as e:
        hostfiles.openmpi(text, "hf")
    assert needle in str(e.value)


def _mpirun_map(path, nhosts):
    p = subprocess.run(["mpirun", "--allow-run-as-root", "--hostfile", path, "--display-map", "--do-not-launch",
                        "--map-by", "node", "--oversubscribe", "-np", str(max(1, nhosts)), "true"],
                       capture_output=True, text=True, timeout=60)
    out = p.stdout + p.stderr
    got = re.findall(r"Data for node: (\S+)\s+Num slots: (\d+)", out)
    if not got or re.search(r"parse error|bad parameter|multiple definitions|relative host", out):
        return None
    return sorted((h, int(s)) for h, s in got)


@pytest.mark.skipif(not shutil.which("mpirun") or "Open MPI" not in subprocess.run(
    ["mpirun", "--version"], capture_output=True, text=True).stdout, reason="no Open MPI mpirun here")
@pytest.mark.parametrize("text,want", OMPI_ACCEPTS + [(t, None) for t, _n in OMPI_REFUSES])
def test_openmpi_hostfile_cases_against_the_real_mpirun(tmp_path, text, want):
    path = tmp_path / "hf"
    path.write_text(text)
    got = _mpirun_map(str(path), len(want or ()) or 1)
    assert got == (sorted((h, s) for h, s, _g in want) if want is not None else None)


# ------------------------------------------------------------------ torchrun
# Expected: torch 2.13.0+cpu (/opt/wheels), torch/distributed/run.py get_args_parser + run() + config_from_args +
# elastic/rendezvous/utils.py parse_rendezvous_endpoint (harness: a random line through both, review23's notes).

def _plan(line, environ=None):
    from gpudoctor.launch import build_plan

    return build_plan(launch=line, environ=dict(environ or {}))


@pytest.mark.parametrize("flags,rule", [
    ("--rdzv-conf timeout", "must have a value specified"),  # _parse_rendezvous_config: ValueError
    ("--rdzv-conf =5", "must be in format"),
    ("--rdzv-backend c10d --rdzv-endpoint h:29400 --rdzv-conf join_timeout=900,x=", "must have a value specified"),
])
def test_torchrun_refuses_a_rendezvous_config_torch_refuses(flags, rule):
    with pytest.raises(InputError) as e:
        _plan("torchrun %s --nproc-per-node 2 train.py" % flags)
    assert rule in str(e.value)


def test_torchrun_rendezvous_config_torch_takes_is_taken():
    p = _plan("torchrun --rdzv-backend c10d --rdzv-endpoint h:29400 --rdzv-conf ' join_timeout = 900 ,a=b' "
              "--nnodes 2 --nproc-per-node 2 train.py")
    assert (p.rdzv_backend, p.master_addr, p.master_port, p.world_min) == ("c10d", "h", 29400, 4)


@pytest.mark.parametrize("filt", ["0, 1", " 1", "+0", "1,3 "])
def test_torchrun_local_ranks_filter_is_read_with_int(filt):
    # config_from_args: set(map(int, args.local_ranks_filter.split(","))): torch 2.13 runs these lines
    p = _plan("torchrun --nproc-per-node 4 --local-ranks-filter '%s' train.py" % filt)
    assert p.nproc_per_node == 4


@pytest.mark.parametrize("filt", ["a", "1,,2", "0;1"])
def test_torchrun_local_ranks_filter_torch_refuses(filt):
    with pytest.raises(InputError) as e:
        _plan("torchrun --nproc-per-node 4 --local-ranks-filter '%s' train.py" % filt)
    assert "comma-separated list of integers" in str(e.value)


@pytest.mark.parametrize("line,want", [
    # run(): --standalone sets c10d at localhost:0 and never reads --master-port
    ("torchrun --standalone --master-port 70000 --nproc-per-node 2 train.py", ("c10d", "localhost", None)),
    ("torchrun --rdzv-backend c10d --rdzv-endpoint h:5000 --master-port -1 --nnodes 2 train.py", ("c10d", "h", 5000)),
])
def test_torchrun_master_port_unread_outside_static_is_not_judged(line, want):
    p = _plan(line)
    assert (p.rdzv_backend, p.master_addr, p.master_port) == want


def test_torchrun_master_port_out_of_range_with_static_is_refused_as_torch_does():
    with pytest.raises(InputError) as e:
        _plan("torchrun --nnodes 2 --master-addr n1 --master-port 70000 train.py")
    assert "must be an integer between 0 and 65536" in str(e.value)


@pytest.mark.parametrize("value", ["true", "yes", "", "1.0"])
def test_torchrun_pet_flag_torch_cannot_read_is_refused(value):
    # argparse_util.check_env: bool(int(os.environ["PET_STANDALONE"])) raises ValueError when the parser is built
    with pytest.raises(InputError) as e:
        _plan("torchrun --nproc-per-node 2 train.py", {"PET_STANDALONE": value})
    assert "PET_STANDALONE" in str(e.value)


@pytest.mark.parametrize("value,backend", [("1", "c10d"), (" 0 ", "static"), ("+1", "c10d")])
def test_torchrun_pet_flag_read_as_int(value, backend):
    p = _plan("torchrun --nnodes 2 --nproc-per-node 2 train.py", {"PET_STANDALONE": value})
    assert p.rdzv_backend == backend


_TORCH = None
try:  # the reference itself, where this environment has it (the CPU wheel in /opt/wheels)
    import torch.distributed.run as _TORCH  # noqa: F401
except Exception:  # pragma: no cover - torch is not a dependency of gpudoctor
    _TORCH = None


@pytest.mark.skipif(_TORCH is None, reason="torch is not installed here")
@pytest.mark.parametrize("flags", ["--rdzv-conf timeout", "--local-ranks-filter '0, 1'", "--local-ranks-filter 1,,2",
                                   "--rdzv-conf ' join_timeout = 900 ,a=b'"])
def test_torchrun_cases_against_torch(flags):
    import shlex

    argv = shlex.split(flags) + ["train.py"]
    a = _TORCH.get_args_parser().parse_args(argv)
    try:
        _TORCH.config_from_args(a)
        torch_ok = True
    except (ValueError, AssertionError):
        torch_ok = False
    try:
        _plan("torchrun " + flags + " train.py")
        ours_ok = True
    except InputError:
        ours_ok = False
    assert ours_ok == torch_ok


# ------------------------------------------------------------------ DeepSpeed hostfiles
# Expected: deepspeed 0.19.8 runner.fetch_hostfile (open().readlines(): universal newlines) + _parse_hostfile.

@pytest.mark.parametrize("text,want", [
    ("worker-0 slots=1\x0bworker-1 slots=8\n", [("worker-0", 1)]),  # one line: \v is no line end to readlines()
    ("worker-0 slots=1\x0cworker-1 slots=8\n", [("worker-0", 1)]),
    ("worker-0 slots=1\x85worker-1 slots=8\n", [("worker-0", 1)]),
    ("worker-0 slots=1\rworker-1 slots=8\r\n", [("worker-0", 1), ("worker-1", 8)]),
])
def test_deepspeed_hostfile_lines_end_where_readlines_ends_them(text, want):
    assert hostfiles.deepspeed(text, "hf") == want


try:
    from deepspeed.launcher import runner as _DS_RUNNER
except Exception:  # pragma: no cover - deepspeed is not a dependency of gpudoctor
    _DS_RUNNER = None


@pytest.mark.skipif(_DS_RUNNER is None, reason="deepspeed is not installed here")
@pytest.mark.parametrize("text", ["worker-0 slots=1\x0bworker-1 slots=8\n", "worker-0 slots=1\rworker-1 slots=8\r\n",
                                  "a slots=2 # c\n\n#x\nb  slots=4\n"])
def test_deepspeed_hostfile_against_deepspeed(tmp_path, text):
    path = tmp_path / "hf"
    path.write_bytes(text.encode())
    assert list(_DS_RUNNER.fetch_hostfile(str(path)).items()) == hostfiles.deepspeed(text, "hf")


# ------------------------------------------------------------------ accelerate launch
# Expected: accelerate 1.15.0 with torch 2.13.0+cpu, `accelerate launch --config_file C ... train.py` run for real
# with torch.distributed.run.run and subprocess.Popen caught (commands/launch.py launch_command: simple_launcher
# unless a distributed type or flag picks another; utils/launch.py prepare_simple_launcher_cmd_env /
# prepare_multi_gpu_env).

def _acc(tmp_path, config, flags=""):
    (tmp_path / "c.yaml").write_text(config)
    (tmp_path / "train.py").write_text("print(1)\n")
    import os

    cwd = os.getcwd()
    os.chdir(str(tmp_path))
    try:
        return _plan("accelerate launch --config_file c.yaml %s train.py" % flags)
    finally:
        os.chdir(cwd)


@pytest.mark.parametrize("config", [
    "distributed_type: 'NO'\nnum_processes: 4\n",  # real: Popen([python, train.py]): one process
    "distributed_type: NO\nnum_processes: 4\n",  # YAML false: kept by ClusterConfig, same launcher
    "distributed_type: MULTI_CPU\nnum_processes: 8\nuse_cpu: true\n",
])
def test_accelerate_config_without_a_distributed_launcher_runs_the_script_once(tmp_path, config):
    p = _acc(tmp_path, config)
    assert (p.nproc_per_node, p.world_min) == (1, 1)
    assert any("runs the script once" in n for n in p.notes)


@pytest.mark.parametrize("config,flags", [
    ("distributed_type: MULTI_CPU\nnum_machines: 2\nnum_processes: 2\n", ""),
    ("distributed_type: 'NO'\n", "--num_machines 2"),
    ("distributed_type: DEEPSPEED\nnum_machines: 2\nnum_processes: 2\n", "--cpu"),
    ("distributed_type: MULTI_CPU\nnum_machines: 2\nmain_process_ip: 10.0.0.1\nnum_processes: 2\n", ""),  # no port
])
def test_accelerate_simple_launcher_on_several_machines_needs_ip_and_port(tmp_path, config, flags):
    # prepare_simple_launcher_cmd_env: assert args.main_process_ip is not None (then the port)
    with pytest.raises(InputError) as e:
        _acc(tmp_path, config, flags)
    assert "When using multiple machines, you need to specify the main process" in str(e.value)


def test_accelerate_multi_gpu_on_several_machines_without_ip_hands_torchrun_none(tmp_path):
    # real: torchrun --rdzv_endpoint None:29500 (prepare_multi_gpu_env: f"{main_process_ip}:{port}")
    p = _acc(tmp_path, "distributed_type: MULTI_GPU\nnum_machines: 2\nnum_processes: 16\nmachine_rank: 0\n")
    assert (p.master_addr, p.master_port, p.nproc_per_node) == ("None", 29500, 8)
    assert any("'None'" in n for n in p.notes)


def test_accelerate_one_machine_c10d_store_is_torchs_default(tmp_path):
    # real: torch's config: c10d, endpoint '' -> parse_rendezvous_endpoint: localhost:29400
    p = _acc(tmp_path, "distributed_type: MULTI_GPU\nnum_processes: 2\n", "--rdzv_backend c10d")
    assert (p.rdzv_backend, p.master_addr, p.master_port) == ("c10d", "localhost", 29400)


def test_accelerate_mpirun_config_is_used_as_accelerate_copies_it(tmp_path):
    # real: ['mpirun', '--hostfile', '/home/user/hostfile', '--npernode', '4', '-n', '16', ...]
    p = _acc(tmp_path, "distributed_type: MULTI_CPU\nmachine_rank: 0\nmain_process_ip: 10.0.0.1\n"
                       "main_process_port: 29500\nmpirun_config:\n  mpirun_hostfile: /home/user/hostfile\n"
                       "num_machines: 4\nnum_processes: 16\nuse_cpu: true\n")
    assert (p.nnodes_min, p.nproc_per_node, p.world_min) == (4, 4, 16)


# ------------------------------------------------------------------ check --hosts (inventory) with launcher hostfiles
# gpudoctor check --hosts reads every launcher's dialect for the fan-out. These files run under mpirun 4.1.4 (checked
# below where it is installed) and were refused: "expected 'HOST slots=N'" or "host aa is named twice".

INVENTORY = [
    ("aa slots = 4\n", [("aa", 4)]),  # hostfile_lex.l skips blanks around '='
    ("aa count=4\nbb cpu=2\n", [("aa", 4), ("bb", 2)]),
    ("aa slots=4 max-count=8 // comment\n", [("aa", 4)]),
    ("aa username=bob\n", [("bob@aa", None)]),
    ("aa\naa\nbb slots=2\n", [("aa", 2), ("bb", 2)]),  # once per slot (help-hostfile.txt)
    ("aa slots=2\naa\n", [("aa", 3)]),
]


@pytest.mark.parametrize("text,want", INVENTORY + [("host:4 ifhn=ib0\nhost2:2\n", [("host", 4), ("host2", 2)])])
def test_check_hosts_reads_launcher_hostfiles(tmp_path, text, want):
    from gpudoctor.inventory import read_hostfile, resolve

    hf = tmp_path / "hf"
    hf.write_text(text)
    assert [(h.name, h.slots) for h in read_hostfile(str(hf))] == want
    assert [h.name for h in resolve(hosts_file=str(hf), environ={})] == [n for n, _s in want]


@pytest.mark.skipif(not shutil.which("mpirun") or "Open MPI" not in subprocess.run(
    ["mpirun", "--version"], capture_output=True, text=True).stdout, reason="no Open MPI mpirun here")
@pytest.mark.parametrize("text,want", INVENTORY[:3] + INVENTORY[4:])
def test_those_hostfiles_are_ones_mpirun_takes(tmp_path, text, want):
    path = tmp_path / "hf"
    path.write_text(text)
    assert _mpirun_map(str(path), len(want)) == sorted(want)


# ------------------------------------------------------------------ installed distributions (collector)
# Reference: importlib.metadata.distributions(path=[...]) on the folders setuptools itself writes: `setup.py
# egg_info` (what `setup.py develop` / a legacy `pip install -e` leaves beside the sources: '<name>.egg-info', no
# version in the name) and `setup.py bdist_egg` unpacked on sys.path (easy-install.pth's 'name-ver-pyX.Y.egg').

def _setuptools_project(tmp_path):
    src = tmp_path / "proj"
    (src / "mypkg").mkdir(parents=True)
    (src / "mypkg" / "__init__.py").write_text("")
    (src / "setup.py").write_text('from setuptools import setup\nsetup(name="Flash_Attn", version="2.5.8", '
                                  'packages=["mypkg"])\n')
    return src


def _run_setup(src, *args):
    import sys

    p = subprocess.run([sys.executable, "setup.py", "-q"] + list(args), cwd=str(src), capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-500:]


def _reference(path):
    import importlib.metadata as md
    import re as _re

    return {_re.sub(r"[-_.]+", "-", d.metadata["Name"]).lower(): d.version for d in md.distributions(path=[path])}


def test_a_develop_installs_egg_info_is_read_with_its_version(tmp_path):
    from gpudoctor.collector.python_env import scan_site

    src = _setuptools_project(tmp_path)
    _run_setup(src, "egg_info")
    got = scan_site([str(src)])
    assert _reference(str(src)) == {"flash-attn": "2.5.8"}
    assert got == {"flash-attn": {"version": "2.5.8", "location": str(src)}}


def test_an_egg_on_sys_path_is_read(tmp_path):
    import glob
    import zipfile

    from gpudoctor.collector.python_env import scan_site

    src = _setuptools_project(tmp_path)
    _run_setup(src, "bdist_egg")
    egg = glob.glob(str(src / "dist" / "*.egg"))[0]
    site = tmp_path / "site" / egg.rsplit("/", 1)[1]
    site.mkdir(parents=True)
    zipfile.ZipFile(egg).extractall(str(site))  # what easy_install unpacks when the egg is not zip-safe
    assert _reference(str(site)) == {"flash-attn": "2.5.8"}
    assert scan_site([str(site)]) == {"flash-attn": {"version": "2.5.8", "location": str(site)}}


# ------------------------------------------------------------------ mpirun --map-by node
# Expected: mpirun 4.1.4 --bind-to none ... --display-map --do-not-launch ("Num procs" per node).

MAP_BY_NODE = [
    ("-H bb,aa:2 --map-by node --oversubscribe", {"bb": 1, "aa": 2}),  # fits: one per node in turn, free slots only
    ("-H dd:1,bb:2,aa:2 -n 5 --map-by node --oversubscribe", {"dd": 1, "bb": 2, "aa": 2}),
    ("-H aa:1,bb:2 -n 6 --map-by node --oversubscribe", {"aa": 3, "bb": 3}),  # oversubscribed: even
    ("-H aa:3,bb:1 -n 7 --map-by node --oversubscribe", {"aa": 4, "bb": 3}),
    ("-H aa:1,bb:2,cc:3 -n 10 --map-by node --oversubscribe", {"aa": 4, "bb": 3, "cc": 3}),
    ("-H aa:4,bb:1,cc:4 -n 7 --map-by node", {"aa": 4, "bb": 1, "cc": 2}),  # navg 2: aa takes 2+1, then 1 more
    ("-H aa:4,bb:1,cc:4 -n 5 --map-by node", {"aa": 3, "bb": 1, "cc": 1}),
    ("-H aa:3,bb:3,cc:1 -n 6 --map-by node", {"aa": 3, "bb": 2, "cc": 1}),
]


@pytest.mark.parametrize("flags,want", MAP_BY_NODE)
def test_mpirun_map_by_node_places_as_open_mpi_does(flags, want):
    assert {n.host: n.procs for n in _plan("mpirun %s ./a" % flags).nodes if n.procs} == want


@pytest.mark.skipif(not shutil.which("mpirun") or "Open MPI" not in subprocess.run(
    ["mpirun", "--version"], capture_output=True, text=True).stdout, reason="no Open MPI mpirun here")
@pytest.mark.parametrize("flags,want", MAP_BY_NODE)
def test_mpirun_map_by_node_cases_against_mpirun(flags, want):
    import shlex

    p = subprocess.run(["mpirun", "--allow-run-as-root", "--bind-to", "none"] + shlex.split(flags)
                       + ["--display-map", "--do-not-launch", "true"], capture_output=True, text=True, timeout=60)
    got = re.findall(r"Data for node: (\S+)\s+Num slots: \d+\s+Max slots: \d+\s+Num procs: (\d+)", p.stdout + p.stderr)
    assert {h: int(c) for h, c in got} == want


# ------------------------------------------------------------------ mpirun MPMD, a context without -np
# Expected: mpirun 4.1.4 --bind-to none --display-map --do-not-launch: such a context gets every slot of its hosts.

MPMD = [
    ("aa slots=4\nbb slots=2\n", "--oversubscribe ./x : ./y", {"aa": 7, "bb": 5}),
    ("aa slots=4\nbb slots=2\n", "--oversubscribe ./x : -np 1 ./y", {"aa": 5, "bb": 2}),
    ("cc slots=4\n", "--oversubscribe -np 2 ./y : ./x", {"cc": 6}),
    ("cc slots=4\n", "-np 2 ./y : ./x", None),  # "There are not enough slots available"
    ("aa slots=4\nbb slots=2\n", "./x : ./y", None),  # "All nodes which are allocated for this job are already filled."
]


@pytest.mark.parametrize("hf,line,want", MPMD)
def test_mpirun_mpmd_context_without_np_takes_every_slot(tmp_path, hf, line, want):
    import os

    (tmp_path / "hf").write_text(hf)
    cwd = os.getcwd()
    os.chdir(str(tmp_path))
    try:
        if want is None:
            with pytest.raises(InputError) as e:
                _plan("mpirun --hostfile hf %s" % line)
            assert "not enough slots" in str(e.value)
        else:
            assert {n.host: n.procs for n in _plan("mpirun --hostfile hf %s" % line).nodes if n.procs} == want
    finally:
        os.chdir(cwd)


def test_mpirun_mpmd_context_without_np_on_hosts_without_counts_is_refused(tmp_path):
    import os

    (tmp_path / "hf").write_text("aa\nbb\n")  # their slots are their cores, known only there
    cwd = os.getcwd()
    os.chdir(str(tmp_path))
    try:
        with pytest.raises(InputError) as e:
            _plan("mpirun --hostfile hf -np 1 ./x : ./y")
        assert "number of processes to start was omitted" in str(e.value)
    finally:
        os.chdir(cwd)


@pytest.mark.skipif(not shutil.which("mpirun") or "Open MPI" not in subprocess.run(
    ["mpirun", "--version"], capture_output=True, text=True).stdout, reason="no Open MPI mpirun here")
@pytest.mark.parametrize("hf,line,want", MPMD)
def test_mpirun_mpmd_cases_against_mpirun(tmp_path, hf, line, want):
    import shlex

    (tmp_path / "hf").write_text(hf)
    p = subprocess.run(["mpirun", "--allow-run-as-root", "--bind-to", "none", "--display-map", "--do-not-launch",
                        "--hostfile", "hf"] + shlex.split(line), capture_output=True, text=True, timeout=60,
                       cwd=str(tmp_path))
    out = p.stdout + p.stderr
    got = re.findall(r"Data for node: (\S+)\s+Num slots: \d+\s+Max slots: \d+\s+Num procs: (\d+)", out)
    assert ({h: int(c) for h, c in got} if "JOB MAP" in out else None) == want

"""Launchers that start ranks (issue 18): DeepSpeed's runner and accelerate launch.

The knowledge is read from the launchers' source (tools/gen_launcher_messages.py over the deepspeed
0.19.8 sdist and the accelerate 1.15.0 wheel; its slice tools/data/launcher_messages_slice.txt keeps
the parts used here with their line numbers): the generator regenerates the committed sites, the
remote-environment entry names exactly the prefixes runner.py exports, and real texts from public
threads (cited per text) get their entry and its specific fix through the CLI. A healthy ds_report
(its async_io / CUTLASS warnings) gives no root cause.
"""

import ast
import json
import os
import re
import sys

from gpudoctor import explain
from gpudoctor.explain.knowledge import generated_path, open_table

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLICE = os.path.join(REPO, "tools", "data", "launcher_messages_slice.txt")
COMMITTED = generated_path("launcher_messages")  # .json or .json.gz
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_launcher_messages as gen  # noqa: E402
import knowgen  # noqa: E402
from explainhelp import assert_root, fixes  # noqa: E402

REAL = {
    # https://github.com/huggingface/accelerate/issues/3091 (accelerate 0.29.3; the config and the error)
    "port_zero_3091": (
        "compute_environment: LOCAL_MACHINE\ndeepspeed_config:\n  deepspeed_config_file: configs/deepspeed_rl.json\n"
        "  zero3_init_flag: false\ndistributed_type: DEEPSPEED\ndowncast_bf16: no\nmachine_rank: 0\n"
        "main_training_function: main\nmain_process_port: 0\nnum_machines: 1\nnum_processes: 2\nrdzv_backend: static\n"
        "same_network: true\ntpu_env: []\ntpu_use_cluster: false\ntpu_use_sudo: false\nuse_cpu: false\n\n"
        ' File "/lustre/home/ucabwol/projects/rlhf/lib/python3.11/site-packages/torch/distributed/rendezvous.py", '
        "line 170, in _create_c10d_store\n    tcp_store = TCPStore(hostname, port, world_size, False, timeout)\n"
        "                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        "torch.distributed.DistNetworkError: The client socket has timed out after 1800s\n"),
    # https://github.com/deepspeedai/DeepSpeed/issues/2612 (hostname -I printed nothing: an empty --master_addr)
    "empty_master_2612": (
        "[2022-12-15 21:00:19,543] [INFO] [runner.py:417:main] Using IP address of  for node "
        "ddp-0.ddp.ml-dev.svc.cluster.local\n"
        "[2022-12-15 21:00:19,544] [INFO] [multinode_runner.py:65:get_cmd] Running on the following workers: "
        "ddp-0.ddp.ml-dev.svc.cluster.local,ddp-1.ddp.ml-dev.svc.cluster.local\n"
        "[2022-12-15 21:00:19,545] [INFO] [runner.py:508:main] cmd = pdsh -S -f 1024 -w "
        "ddp-0.ddp.ml-dev.svc.cluster.local,ddp-1.ddp.ml-dev.svc.cluster.local export PYTHON_VERSION=3.9.13; "
        "export PYTHONPATH=/;  cd /; /usr/local/bin/python -u -m deepspeed.launcher.launch "
        "--world_info=eyJkZHAtMC5kZHAubWwtZGV2LnN2Yy5jbHVzdGVyLmxvY2FsIjogWzAsIDFdfQ== --node_rank=%n "
        "--master_addr= --master_port=29500 scripts/basic_deepspeed.py\n"),
    # https://github.com/OptimalScale/LMFlow/issues/304 (deepspeed started on a machine without a GPU)
    "no_gpu_lmflow_304": (
        "[2023-04-24 16:32:24,796] [WARNING] [runner.py:186:fetch_hostfile] Unable to find hostfile, will proceed "
        "with training with local resources only.\nTraceback (most recent call last):\n"
        '  File "/usr/local/bin/deepspeed", line 6, in <module>\n    main()\n'
        '  File "/usr/local/lib/python3.10/site-packages/deepspeed/launcher/runner.py", line 411, in main\n'
        '    raise RuntimeError("Unable to proceed, no GPU resources available")\n'
        "RuntimeError: Unable to proceed, no GPU resources available\n"),
    # https://github.com/deepspeedai/DeepSpeed/issues/7235 (the ds_report op table a user pasted)
    "ds_report_7235": (
        "DeepSpeed C++/CUDA extension op report\n--------------------------------------------------\n"
        "NOTE: Ops not installed will be just-in-time (JIT) compiled at\n      runtime if needed. Op compatibility "
        "means that your system\n      meet the required dependencies to JIT install the op.\n"
        "--------------------------------------------------\nJIT compiled ops requires ninja\n"
        "ninja .................. [OKAY]\n--------------------------------------------------\n"
        "op name ................ installed .. compatible\n--------------------------------------------------\n"
        " [WARNING]  async_io requires the dev libaio .so object and headers but these were not found.\n"
        " [WARNING]  async_io: please install the libaio-dev package with apt\n"
        " [WARNING]  If libaio is already installed (perhaps from source), try setting the CFLAGS and LDFLAGS "
        "environment variables to where it can be found.\nasync_io ............... [NO] ....... [NO]\n"
        "fused_adam ............. [NO] ....... [OKAY]\ncpu_adam ............... [NO] ....... [OKAY]\n"
        "cpu_adagrad ............ [NO] ....... [OKAY]\ncpu_lion ............... [NO] ....... [OKAY]\n"
        " [WARNING]  Please specify the CUTLASS repo directory as environment variable $CUTLASS_PATH\n"
        "evoformer_attn ......... [NO] ....... [NO]\n"
        " [WARNING]  FP Quantizer is using an untested triton version (3.2.0), only 2.3.(0, 1) and 3.0.0 are known "
        "to be compatible with these kernels\n"),
    # https://github.com/deepspeedai/DeepSpeed/issues/1401 (an op build that did fail: DS_BUILD_OPS=1 pip install)
    "precompile_1401": (
        '      File "/tmp/pip-req-build-_xkfovpj/setup.py", line 135, in <module>\n'
        '        abort(f"Unable to pre-compile {op_name}")\n'
        '      File "/tmp/pip-req-build-_xkfovpj/setup.py", line 43, in abort\n        assert False, msg\n'
        "    AssertionError: Unable to pre-compile async_io\n"
        "    No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'\n"),
    # https://github.com/open-mmlab/mmcv/issues/1840 (the same ValueError from another program's k=v parser)
    "mmcv_1840": ("    key, val = kv.split('=', maxsplit=1)\n"
                  "ValueError: not enough values to unpack (expected 2, got 1)\n"),
}


def _answer(cli, text, tmp_path, name="log.txt"):
    path = tmp_path / name
    path.write_text(text)
    rc, out, err = cli("explain", "--json", "--file", str(path))
    assert not err.strip() or rc in (0, 1), err
    return rc, json.loads(out)


def test_generator_regenerates_the_committed_sites_from_the_slice(tmp_path):
    out = tmp_path / "launcher_messages.json"
    files, version = knowgen.read_slice(SLICE)
    knowgen.write("launcher_messages", gen.build(files, version), str(out))
    got = json.loads(out.read_text())
    with open_table(COMMITTED) as f:
        full = json.load(f)
    assert full["header"]["version"] == got["header"]["version"] == (
        "deepspeed 0.19.8, accelerate 1.15.0, pdsh 2.35-14-g21f5996 (commit 21f59962d44abbdc66a5072384257cf2a01218f3); "
        "older: accelerate 0.27.2 (commit 79e01ff084e23f722ca557ced180189a9cf03c50)")
    by_id, by_text = {s["id"]: s for s in full["sites"]}, {s["text"]: s for s in full["sites"]}
    for s in got["sites"]:
        ref = by_id.get(s["id"]) or by_text[s["text"]]  # a message printed twice: the full source keeps one
        assert {k: v for k, v in s.items() if k not in ("id", "where")} == \
            {k: v for k, v in ref.items() if k not in ("id", "where")}, s["id"]
    sites = {s["text"]: s for s in got["sites"]}
    # a message with its own fix from MSG_FIX, the op builders' warnings as ds_report notes, and a
    # warning no rule names stays unassigned
    master = sites["Unable to detect suitable master address via `hostname -I`, please manually specify one via "
                   "--master_addr"]
    assert master["family"] == "deepspeed.master_addr" and "--master_addr" in master["fix"][0]
    aio = sites["%s requires the dev libaio .so object and headers but these were not found."]
    assert aio["level"] == "warning" and aio["family"] == "deepspeed.ds_report_optional_ops"
    ip = sites["When using multiple machines, you need to specify the main process IP."]
    assert ip["level"] == "raise" and "--main_process_ip" in ip["fix"][0]  # an assert statement's message
    port_warn = next(s for t, s in sites.items() if t.startswith("Port `%s` is already in use."))
    # accelerate 0.21-0.27's wording (--older-accelerate): read from the older release, with the current one's fix
    older = next(s for t, s in sites.items() if "`----main_process_port`" in t)
    assert older["older"] == "accelerate 0.27.2" and older["family"] == "rendezvous.address_in_use" and older["fix"]
    assert port_warn["family"] is None and port_warn["id"] in full["unassigned"]


def test_every_message_fix_names_a_site_of_the_release():
    with open_table(COMMITTED) as f:
        sites = json.load(f)["sites"]
    for rx, means, fix in gen.MSG_FIX:
        assert any(s.get("fix") == fix and re.search(rx, s["text"]) for s in sites), rx


def test_remote_env_entry_names_what_runner_py_exports(kb):
    # EXPORT_ENVS and the environment file's name, read from runner.py in the slice
    files, _ = knowgen.read_slice(SLICE)
    tree = ast.parse(next(src for path, src in files if path == "deepspeed/launcher/runner.py"
                          and "EXPORT_ENVS =" in src))
    values = {n.targets[0].id: n.value for n in tree.body if isinstance(n, ast.Assign)}
    prefixes = ast.literal_eval(values["EXPORT_ENVS"]) + ["NCCL"]  # + CUDA_Accelerator.export_envs()
    entry = kb.by_id["deepspeed.remote_env"]
    for p in prefixes:
        assert p in entry["explain"], p
    assert ast.literal_eval(values["DEEPSPEED_ENVIRONMENT_NAME"].args[0]) == "DS_ENV_FILE" in entry["explain"]
    got = fixes(entry, " ")
    assert "~/.deepspeed_env" in got and "--launcher slurm" in got and "--venv_script" in got


def test_accelerate_main_process_port_zero_names_a_fixed_port(cli, kb, tmp_path):
    rc, res = _answer(cli, REAL["port_zero_3091"], tmp_path)
    assert rc == 0
    root = assert_root(res, "accelerate.port_zero", confidence="cause", fix="29500")
    assert "older than 1.7.0" in root["causes"][0]["text"]
    # several machines with port 0: each machine picks its own port (accelerate >= 1.7.0)
    cfg = REAL["port_zero_3091"].replace("num_machines: 1", "num_machines: 2")
    root = assert_root(explain.explain_text(cfg, kb), "accelerate.port_zero", fix="the same on every machine")
    assert "Several machines" in root["causes"][0]["text"]
    # port 0 on one machine beside a failure that is not the rendezvous (an NCCL watchdog timeout)
    # is not this entry
    other = ("main_process_port: 0\nnum_machines: 1\n[rank0]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 0] Watchdog "
             "caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE) ran for 600000 milliseconds "
             "before timing out.\n")
    assert not any(f["id"] == "accelerate.port_zero" for f in explain.explain_text(other, kb)["findings"])


def test_deepspeed_empty_master_address_says_master_addr(cli, tmp_path):
    rc, res = _answer(cli, REAL["empty_master_2612"], tmp_path)
    assert rc == 0
    root = assert_root(res, "deepspeed.master_addr", fix="--master_addr")
    assert "hostname -I" in root["causes"][0]["text"]


def test_deepspeed_without_gpu_gets_the_messages_own_fix(cli, tmp_path):
    rc, res = _answer(cli, REAL["no_gpu_lmflow_304"], tmp_path)
    root = assert_root(res, fix="GPU node")
    assert rc == 0 and root["family"] == "deepspeed.launcher" and "login or CPU node" in root["causes"][0]["text"]


def test_a_healthy_ds_report_is_no_error_with_a_note(cli, tmp_path):
    rc, res = _answer(cli, REAL["ds_report_7235"], tmp_path)
    assert rc == 0 and res["verdict"] == "no_error" and not res["findings"]
    assert [c["id"] for c in res["context"]] == ["deepspeed.ds_report_optional_ops"]
    # an op build that failed is an error of the ops family
    rc, res = _answer(cli, REAL["precompile_1401"], tmp_path, "b.txt")
    assert res["verdict"] == "root_cause" and res["findings"][0]["family"] == "deepspeed.ops"


def test_deepspeed_env_file_line_without_equals(kb):
    # Built from the source, no public thread found: deepspeed 0.19.8 runner.py main() reads each
    # line with `key, val = var.split('=', maxsplit=1)` (line 610), and Python's traceback quotes it.
    text = ("[2024-05-02 10:11:12,345] [INFO] [runner.py:607:main] deepspeed_env file = /home/u/.deepspeed_env\n"
            "Traceback (most recent call last):\n  File \"/opt/conda/bin/deepspeed\", line 6, in <module>\n    main()\n"
            '  File "/opt/conda/lib/python3.10/site-packages/deepspeed/launcher/runner.py", line 610, in main\n'
            "    key, val = var.split('=', maxsplit=1)\n"
            "ValueError: not enough values to unpack (expected 2, got 1)\n")
    files, _ = knowgen.read_slice(SLICE)
    runner = next(src for path, src in files if path == "deepspeed/launcher/runner.py" and "var.split" in src)
    assert runner.splitlines()[609].strip() == "key, val = var.split('=', maxsplit=1)"
    assert_root(explain.explain_text(text, kb), "deepspeed.env_file_syntax", fix="KEY=VALUE")
    # the same ValueError from another program's parser is not DeepSpeed's environment file
    res = explain.explain_text(REAL["mmcv_1840"], kb)
    assert not any(f["id"] == "deepspeed.env_file_syntax" for f in res["findings"])


def test_remote_rank_errors_after_pdsh_name_what_was_not_carried(kb):
    # Built from the source, not from a thread: PDSHRunner.get_cmd's command (logged as 'cmd = pdsh ...'),
    # pdsh's 'host: ' prefix on remote output and its 'pdsh@host: host: ssh exited with exit code N'.
    cmd = ("[2024-01-01 10:00:00,000] [INFO] [runner.py:623:main] cmd = pdsh -S -f 1024 -w node1,node2 export "
           "PYTHONPATH=/home/u/proj; cd /home/u/proj; /home/u/venv/bin/python -u -m deepspeed.launcher.launch "
           "--world_info=e30= --node_rank=%n --master_addr=10.0.0.1 --master_port=29500 train.py\n")
    module = cmd + ("node2: Traceback (most recent call last):\nnode2:   File \"/home/u/proj/train.py\", line 3, in "
                    "<module>\nnode2:     import transformers\nnode2: ModuleNotFoundError: No module named "
                    "'transformers'\npdsh@node1: node2: ssh exited with exit code 1\n")
    assert_root(explain.explain_text(module, kb), "deepspeed.remote_env", fix="same path")
    lib = cmd + ("node2: /home/u/venv/bin/python: error while loading shared libraries: libpython3.10.so.1.0: cannot "
                 "open shared object file: No such file or directory\n"
                 "pdsh@node1: node2: ssh exited with exit code 127\n")
    assert_root(explain.explain_text(lib, kb), "deepspeed.remote_env", fix="~/.deepspeed_env")
    # a single-node run (runner.py's local command, no pdsh) has no remote ranks: not this entry
    single = ("[2024-05-01 10:00:00,100] [INFO] [runner.py:568:main] cmd = /usr/bin/python3 -u -m "
              "deepspeed.launcher.launch --world_info=e30= --master_addr=127.0.0.1 --master_port=29500 train.py\n"
              "[2024-05-01 10:00:02,000] [INFO] [launch.py:146:main] WORLD INFO DICT: {'localhost': [0, 1]}\n"
              "Traceback (most recent call last):\n  File \"/home/u/train.py\", line 3, in <module>\n"
              "    import transformers\nModuleNotFoundError: No module named 'transformers'\n")
    assert not any(f["id"] == "deepspeed.remote_env" for f in explain.explain_text(single, kb)["findings"])


def test_ds_report_small_dev_shm_is_a_note_naming_shm_size(kb):
    # the environment section as deepspeed/env_report.py debug_report() and get_shm_size() print it
    text = ("DeepSpeed general environment info:\ntorch version .................... 2.1.0\n"
            "shared memory (/dev/shm) size .... 64.00 MB\n"
            "  [WARNING] /dev/shm size might be too small, if running in docker increase to at least "
            "--shm-size='1gb' \n")
    res = explain.explain_text(text, kb)
    assert res["verdict"] == "no_error" and [c["id"] for c in res["context"]] == ["deepspeed.ds_report_shm"]
    assert "--shm-size" in res["context"][0]["fix"]


def test_a_login_node_as_the_store_address_is_named(kb):
    # torch's own connect messages (torch/csrc/distributed/c10d/socket.cpp formats) naming a login node
    text = ("[W socket.cpp:601] [c10d] The client socket has failed to connect to [login01]:29500 (errno: 110 - "
            "Connection timed out).\ntorch.distributed.DistNetworkError: The client socket has timed out after 1800s "
            "while trying to connect to (login01, 29500).\n")
    root = assert_root(explain.explain_text(text, kb), "rendezvous.connect", fix="scontrol show hostnames")
    assert "login node" in root["causes"][0]["text"]
    # a compute node's name is not read as a login node
    root = explain.explain_text(text.replace("login01", "gpu-a01"), kb)["findings"][0]
    assert "login node" not in root["causes"][0]["text"]


def test_deepspeed_openmpi_runner_eth0_default(kb):
    # Built from the sources: the command OpenMPIRunner.get_cmd builds (logged by runner.py as 'cmd = ...')
    # and Open MPI 4.1's help-mpi-btl-tcp.txt [invalid if_inexclude] topic
    cmd = ("[2024-06-01 09:00:00,000] [INFO] [runner.py:623:main] cmd = mpirun -n 16 -hostfile hostfile --mca btl "
           "^openib --mca btl_tcp_if_include eth0 -x UCX_TLS=tcp /home/u/venv/bin/python -u train.py --deepspeed\n")
    warn = ("WARNING: An invalid value was given for btl_tcp_if_include.  This\nvalue will be ignored.\n\n"
            "  Local host: gpu-a01\n  Value:      eth0\n  Message:    Unknown interface name\n")
    assert_root(explain.explain_text(cmd + warn, kb), "deepspeed.openmpi_eth0", fix="--launcher_args")
    assert explain.explain_text(cmd, kb)["verdict"] == "no_error"  # the launch line alone is no error


def test_pdsh_messages_are_read_from_its_err_calls(kb):
    # the C reader on lines written for this test: pdsh's conversions (src/common/err.c: %p is
    # "pdsh@<host>", %S a host name, %m strerror) and concatenated literals
    src = ('void f(char *h)\n{\n    err ("%p: %S: the remote end said \\"no\\": %m\\n", h);\n'
           '    errx("%p: " "joined " "literals\\n");\n}\n')
    assert list(gen.c_sites_of("src/x.c", src)) == [
        ("error", "src/x.c:3", 'pdsh@%s: %s: the remote end said "no": %s'),
        ("error", "src/x.c:4", "pdsh@%s: joined literals")]
    with open_table(COMMITTED) as f:
        pdsh = [s for s in json.load(f)["sites"] if s["where"].startswith("src/")]
    assert len(pdsh) > 80 and all(s["text"].startswith("pdsh@") for s in pdsh if s.get("family"))
    # lines as pdsh prints them: its own failures name the fix, a remote command's exit is an echo
    # of that command's error (255: ssh's own failure), progress lines are no error
    lines = {
        'pdsh@gpu1: module path "/opt/conda/lib/pdsh" insecure.': ("pdsh.error", "chmod go-w"),
        "pdsh@gpu1: unable to initialize an rcmd module": ("pdsh.error", "ssh module"),
        "pdsh@gpu1: gpu2: ssh exited with exit code 255": ("ssh.pdsh", "ssh-copy-id"),
    }
    for line, (eid, fix) in lines.items():
        assert_root(explain.explain_text(line + "\n", kb), eid, fix_re=re.escape(fix))
    assert explain.explain_text("pdsh@gpu1: gpu2: ssh exited with exit code 1\n", kb)["verdict"] == "echo_only"
    assert explain.explain_text("pdsh@gpu1: interrupt (one more within 1 sec to abort)\n", kb)["verdict"] == \
        "no_error"


def test_deepspeed_started_without_a_launcher_names_the_launcher(kb):
    # https://github.com/InternLM/xtuner/issues/592 (the traceback as pasted, its first line cut there)
    text = (" detect MPI environment...\nTraceback (most recent call last):\n"
            '  File "/root/.conda/envs/llama3/lib/python3.10/site-packages/deepspeed/__init__.py", line 143, in '
            "initialize\n    dist.init_distributed(dist_backend=dist_backend,\n"
            '  File "/root/.conda/envs/llama3/lib/python3.10/site-packages/deepspeed/comm/comm.py", line 658, in '
            "init_distributed\n    mpi_discovery(distributed_port=distributed_port, verbose=verbose)\n"
            '  File "/root/.conda/envs/llama3/lib/python3.10/site-packages/deepspeed/comm/comm.py", line 677, in '
            "mpi_discovery\n    from mpi4py import MPI\nModuleNotFoundError: No module named 'mpi4py'\n")
    assert_root(explain.explain_text(text, kb), "deepspeed.no_launcher", confidence="cause",
                fix=("--use_deepspeed", "torchrun"))
    # mpi4py missing in a program that is not DeepSpeed's MPI discovery is not this entry
    # (https://github.com/xbpeng/DeepMimic/issues/87, its last frames)
    other = ("Traceback (most recent call last):\n  File \"DeepMimic.py\", line 9, in <module>\n"
             "    from mpi4py import MPI\nModuleNotFoundError: No module named 'mpi4py'\n")
    assert explain.explain_text(other, kb)["findings"][0]["id"] != "deepspeed.no_launcher"


def test_the_local_rank_argument_a_launcher_adds_is_named(kb):
    # https://github.com/01-ai/Yi/pull/69 (deepspeed launching a script without --local_rank)
    ds = ("usage: text_generation_tp.py [-h] [--model MODEL] [--tokenizer TOKENIZER] [--max-tokens MAX_TOKENS]\n"
          "text_generation_tp.py: error: unrecognized arguments: --local_rank=3\n")
    assert_root(explain.explain_text(ds, kb), "launcher.local_rank_arg", fix="--no_local_rank")
    # https://github.com/skycrapers/TecoGAN-PyTorch/issues/31 (torch 2.x's torch.distributed.launch)
    tl = ("main.py: error: unrecognized arguments: --local-rank=0\nmain.py: error: unrecognized arguments: "
          "--local-rank=1\nERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 2) local_rank: 0 "
          "(pid: 622423) of binary: /home/rong/anaconda3/envs/tecogan/bin/python\n")
    assert_root(explain.explain_text(tl, kb), "launcher.local_rank_arg", fix="torchrun")


def test_a_healthy_accelerate_and_deepspeed_start_is_no_error(kb):
    # the lines a working single-node start prints, in the formats of accelerate/commands/launch.py
    # (_validate_launch_command's defaults warning) and deepspeed/launcher/runner.py, launch.py, comm.py
    text = ("The following values were not passed to `accelerate launch` and had defaults used instead:\n"
            "\t`--num_processes` was set to a value of `2`\n\t`--mixed_precision` was set to a value of `'no'`\n"
            "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`.\n"
            "[2024-05-01 10:00:00,000] [WARNING] [runner.py:212:fetch_hostfile] Unable to find hostfile, will proceed "
            "with training with local resources only.\nDetected VISIBLE_DEVICES=0,1: setting --include=localhost:0,1\n"
            "[2024-05-01 10:00:00,100] [INFO] [runner.py:568:main] cmd = /usr/bin/python3 -u -m "
            "deepspeed.launcher.launch --world_info=eyJsb2NhbGhvc3QiOiBbMCwgMV19 --master_addr=127.0.0.1 "
            "--master_port=29500 --enable_each_rank_log=None train.py\n"
            "[2024-05-01 10:00:02,000] [INFO] [launch.py:146:main] WORLD INFO DICT: {'localhost': [0, 1]}\n"
            "[2024-05-01 10:00:02,001] [INFO] [launch.py:256:main] process 1234 spawned with command: "
            "['/usr/bin/python3', '-u', 'train.py', '--local_rank=0']\n"
            "[2024-05-01 10:00:04,000] [INFO] [comm.py:683:init_distributed] Initializing TorchBackend in DeepSpeed "
            "with backend nccl\n[2024-05-01 10:05:00,000] [INFO] [launch.py:351:main] Process 1234 exits successfully.\n")
    res = explain.explain_text(text, kb)
    assert res["verdict"] == "no_error" and not res["findings"]


def test_plan_says_what_reaches_deepspeeds_remote_ranks(tmp_path, monkeypatch):
    # gpudoctor plan reuses the same reading of runner.py / multinode_runner.py
    from gpudoctor.launch import build_plan

    (tmp_path / "hf").write_text("worker-0 slots=4\nworker-1 slots=4\n")
    monkeypatch.chdir(tmp_path)

    def env_note(line):
        notes = build_plan(launch=line, environ={}).notes
        return next(n for n in notes if n.startswith("environment of the remote ranks"))
    pdsh = env_note("deepspeed -H hf x.py")
    assert "NCCL*" in pdsh and "~/.deepspeed_env" in pdsh and "--venv_script" in pdsh
    assert "--export=ALL" in env_note("deepspeed -H hf --launcher slurm x.py")
    assert "btl_tcp_if_include eth0" in env_note("deepspeed -H hf --launcher openmpi x.py")
    given = env_note("deepspeed -H hf --launcher openmpi --launcher_args '--mca btl_tcp_if_include ens5' x.py")
    assert "eth0" not in given


def test_an_error_beside_a_launchers_echo_is_still_read_from_its_shape(kb):
    # Built from the launchers' own formats, no public paste found with both lines: DeepSpeed 0.19.8
    # launch.py's sigkill_handler ('%s exits with return code = %s', logger format '[time] [LEVEL]
    # [file:line:func] ') after the rank's own traceback, on one node. The echo matched, so the engine
    # used to stop at echo_only; the rank's ModuleNotFoundError names the family as it does alone.
    ds = ("[2026-11-25 10:00:01,203] [INFO] [runner.py:568:main] cmd = /usr/bin/python3 -u -m "
          "deepspeed.launcher.launch --world_info=eyJsb2NhbGhvc3QiOiBbMF19 --master_addr=127.0.0.1 "
          "--master_port=29500 --enable_each_rank_log=None train.py\n"
          "Traceback (most recent call last):\n  File \"/home/u/proj/train.py\", line 3, in <module>\n"
          "    import flash_attn\nModuleNotFoundError: No module named 'flash_attn'\n"
          "[2026-11-25 10:00:03,404] [INFO] [launch.py:253:sigkill_handler] Killing subprocess 4242\n"
          "[2026-11-25 10:00:03,405] [ERROR] [launch.py:259:sigkill_handler] ['/usr/bin/python3', '-u', "
          "'train.py', '--local_rank=0'] exits with return code = 1\n")
    res = explain.explain_text(ds, kb)
    assert res["verdict"] == "likely_cause"
    assert [(f["id"], f["role"]) for f in res["findings"]] == [("code.python_env", "root"),
                                                               ("cascade.child_failed", "cascade")]
    # torchrun's own summary (torch/distributed/elastic/multiprocessing/errors/__init__.py
    # ChildFailedError.format_msg) with no rank error in the text: its exception is the echo itself
    tr = ("Traceback (most recent call last):\n  File \"/usr/local/bin/torchrun\", line 8, in <module>\n"
          "    sys.exit(main())\n  File \"/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py\","
          " line 263, in launch_agent\n    raise ChildFailedError(\n"
          "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
          "============================================================\ntrain.py FAILED\n"
          "------------------------------------------------------------\nFailures:\n  <NO_OTHER_FAILURES>\n"
          "------------------------------------------------------------\nRoot Cause (first observed failure):\n[0]:\n"
          "  time      : 2026-11-25_10:00:03\n  host      : node1\n  rank      : 0 (local_rank: 0)\n"
          "  exitcode  : 1 (pid: 4242)\n  error_file: <N/A>\n"
          "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
          "============================================================\n")
    assert explain.explain_text(tr, kb)["verdict"] == "echo_only"


def test_a_real_missing_module_under_torch_distributed_launch_is_not_echo_only(kb):
    # https://github.com/tinyvision/DAMO-YOLO/issues/11 (the issue's own paste, up to the launcher's
    # traceback; torch.distributed.launch on one GPU): was echo_only (the elastic agent's 'failed
    # (exitcode: 1)' line), the answer is the missing module
    paste = ("python -m torch.distributed.launch --nproc_per_node=1 tools/train.py -f "
             "configs/damoyolo_tinynasL20_T_fire_smoke_xy_calling_body.py \n"
             "/media/extend/anaconda3/envs/yolov5_2.0/lib/python3.8/site-packages/torch/distributed/launch.py:178: "
             "FutureWarning: The module torch.distributed.launch is deprecated\n"
             "and will be removed in future. Use torchrun.\nNote that --use_env is set by default in torchrun.\n"
             "If your script expects `--local_rank` argument to be set, please\n"
             "change it to read from `os.environ['LOCAL_RANK']` instead. See \n"
             "https://pytorch.org/docs/stable/distributed.html#launch-utility for \nfurther instructions\n\n"
             "  warnings.warn(\nTraceback (most recent call last):\n  File \"tools/train.py\", line 13, in <module>\n"
             "    from damo.apis import Trainer\nModuleNotFoundError: No module named 'damo'\n"
             "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 46733) of "
             "binary: /media/extend/anaconda3/envs/yolov5_2.0/bin/python\nTraceback (most recent call last):\n"
             "  File \"/media/extend/anaconda3/envs/yolov5_2.0/lib/python3.8/runpy.py\", line 194, in "
             "_run_module_as_main\n    return _run_code(code, main_globals, None,\n")
    res = explain.explain_text(paste, kb)
    assert res["verdict"] == "likely_cause" and res["findings"][0]["id"] == "code.python_env"
    assert res["findings"][0]["matches"][0]["text"] == "ModuleNotFoundError: No module named 'damo'"
    assert "cascade.child_failed" in [f["id"] for f in res["findings"][1:]]

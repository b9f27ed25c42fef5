"""`gpudoctor explain` on text as people paste it (wrapped, re-cased, prefixed, coloured),
severity (INFO/WARN lines are context), several lines scored together, and fixes computed
from a node's facts and from the launcher seen in the log."""

import copy
import json
import os
import re

import pytest

from conftest import FIXTURES
from gpudoctor import explain

NODES = os.path.join(FIXTURES, "nodes")

# Real error texts (development set, fixtures/logs/dev/), one line each.
SYS_ERR = ("RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, unhandled system "
           "error, NCCL version 2.14.3")
NO_NCCL = "RuntimeError: Distributed package doesn't have NCCL built in"
DEVICE_DRIVER = ('docker: Error response from daemon: could not select device driver "" with capabilities: '
                 '[[gpu]].')
SHM = ("gpu3:1120:1171 [0] include/shm.h:28 NCCL WARN Error: failed to extend /dev/shm/nccl-WU88OE to 9637892 "
       "bytes")
CASES = [(SYS_ERR, "nccl.system_error"), (NO_NCCL, "torch.no_nccl"), (DEVICE_DRIVER, "container.gpu_driver"),
         (SHM, "shm.size")]


def root(text, kb, **kw):
    res = explain.explain_text(text, kb, **kw)
    return res["root"] if res["verdict"] in ("root_cause", "echo_only") else None


def hard_wrap(text, width):
    return "\n".join(text[i:i + width] for i in range(0, len(text), width))


def word_wrap(text, width):
    import textwrap

    return "\n".join(textwrap.wrap(text, width))


@pytest.mark.parametrize("text,family", CASES)
def test_a_known_error_matches_however_it_was_pasted(text, family, kb):
    assert root(text, kb) == family
    variants = {
        "lower": text.lower(),
        "upper": text.upper(),
        "crlf": text + "\r\n",
        "torchrun prefix": "[rank3]: " + text,
        "srun -l prefix": "0: " + text,
        "timestamp": "2024-03-01 12:00:01,123 - " + text,
        "ansi": "\x1b[31m" + text + "\x1b[0m",
        "in a log": "step 1 loss 2.0\nstep 2 loss 1.9\n" + text + "\nstep 3 loss 1.8\n",
    }
    for width in (40, 57, 80):  # a terminal's hard wrap (the line cut anywhere, even inside a word)
        variants["hard wrap %d" % width] = hard_wrap(text, width)
        variants["word wrap %d" % width] = word_wrap(text, width)  # an issue form: a blank became a newline
        variants["wrapped, prefixed %d" % width] = "[rank0]: " + hard_wrap(text, width)
    for name, v in variants.items():
        assert root(v, kb) == family, (name, v)


def test_a_wrapped_match_reports_the_first_line_and_the_joined_text(kb):
    # wrapped at 50: "...ProcessGroupNCCL.cpp:1269, unhandled sys" / "tem error, NCCL version 2.14.3"
    res = explain.explain_text("before\n" + hard_wrap(SYS_ERR, 50) + "\nafter\n", kb)
    m = res["findings"][0]["matches"][0]
    assert m["line"] == 3 and "unhandled system error" in m["text"] and m["text"].startswith("uted/c10d/")


def test_two_log_records_are_not_joined_into_one_error(kb):
    """Each line carries its own prefix: they are separate records, never one wrapped line."""
    text = ("[rank0]: socketStartConnect: Connect to 10.0.0.2<3>\n"
            "[rank0]: step 5 failed to converge, retrying\n")
    res = explain.explain_text(text, kb)
    assert "nccl.system_error" not in [f["id"] for f in res["findings"]]


def test_info_lines_are_context_never_a_root_cause(kb):
    info = ("gpu1:11:11 [0] NCCL INFO NET/IB : No device found.\n"
            "gpu1:11:11 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
            "gpu1:11:11 [0] NCCL INFO Channel 00/02 :    0   1\n")
    res = explain.explain_text(info, kb)
    assert res["verdict"] == "no_error" and res["findings"] == [] and explain.exit_code(res) == 0
    assert res["context"][0]["id"] == "nccl.ib_no_device" and "sockets" in res["context"][0]["note"]
    # the same line with a real error after it: the error is the root, the INFO line is still context
    res = explain.explain_text(info + SYS_ERR + "\n", kb)
    assert res["root"] == "nccl.system_error" and [n["id"] for n in res["context"]] == ["nccl.ib_no_device"]


def test_a_warn_line_is_a_cause_only_when_an_error_entry_names_it(kb):
    # NCCL prints its errors as NCCL WARN: an entry of kind error makes it the root
    assert root(SHM, kb) == "shm.size"
    # other WARN lines are context: DeepSpeed's missing hostfile, libibverbs' provider warning
    for text in ("[2021-01-31 23:07:46,345] [WARNING] [runner.py:117:fetch_hostfile] Unable to find hostfile, will "
                 "proceed with training with local resources only.",
                 "libibverbs: Warning: couldn't load driver 'libipathverbs-rdmav25.so': libipathverbs-rdmav25.so: "
                 "cannot open shared object file: No such file or directory",
                 "gpu1:1:1 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]"):
        res = explain.explain_text(text, kb)
        assert res["verdict"] == "no_error" and res["findings"] == [], text


def test_several_lines_scored_together(kb):
    """An RDMA allocation failure and a small `max locked memory` a few lines apart: each is
    weak alone, together they are the locked-memory limit."""
    ulimit = "max locked memory       (kbytes, -l) 64"
    enomem = "[1678] UCX ERROR mlx5_0: create cq failed: Cannot allocate memory"
    both = "\n".join([enomem, "ulimit -a", "core file size          (blocks, -c) 0", ulimit, "open files (-n) 1024"])
    res = explain.explain_text(both, kb)
    assert res["root"] == "rdma.memlock"
    assert sorted(m["line"] for m in res["findings"][0]["matches"]) == [1, 4]
    assert root(ulimit, kb) is None  # `ulimit -a` alone is no error
    assert root(enomem, kb) != "rdma.memlock"  # ENOMEM alone does not say which limit
    # too far apart: not one event
    far = "\n".join([enomem] + ["step %d" % i for i in range(200)] + [ulimit])
    assert root(far, kb) != "rdma.memlock"


def test_confirming_lines_raise_the_score(kb):
    base = "host:1:1 [0] ibvwrap.c:262 NCCL WARN Call to ibv_modify_qp failed with 110 Connection timed out"
    plain = explain.explain_text(base, kb)["findings"][0]
    rail = explain.explain_text(base + "\nexport NCCL_CROSS_NIC=1 on our rail-optimized fabric\n", kb)["findings"][0]
    gids = explain.explain_text(base + "\nGID[  3]:\t::ffff:200.0.209.6, RoCE v2\n", kb)
    assert rail["id"] == "rdma.modify_qp" and rail["score"] > plain["score"]
    assert rail["signals"] and rail["signals"][0]["line"] == 2
    assert gids["root"] == "rdma.gid_index"  # the GID table points at the GID index instead


# ------------------------------------------------------------------ fixes from facts and launchers


def facts(name="h100-ubuntu2404-torch211"):
    with open(os.path.join(NODES, name + ".json")) as f:
        return json.load(f)


def first_fix(res, eid=None):
    f = res["findings"][0]
    assert eid is None or f["id"] == eid
    return [c for c in f["causes"] if c.get("computed_fix")][0]["computed_fix"]


KERNEL_IMAGE = "RuntimeError: CUDA error: no kernel image is available for execution on the device"


def test_no_kernel_image_names_the_build_for_this_gpu_driver_and_torch_line(kb):
    h100 = facts()  # H100 (sm_90), driver 580.159.04 (CUDA 13.0), torch 2.11.0+cu130
    fix = first_fix(explain.explain_text(KERNEL_IMAGE, kb, facts=h100), "cuda.no_kernel_image")
    assert fix.startswith("pip install 'torch==2.11.*' --index-url https://download.pytorch.org/whl/cu130")
    assert "sm_90" in fix and "580.159.04" in fix
    # a Blackwell RTX 5090 (sm_120) with driver 570 (CUDA 12.8) on torch 2.6: no 2.6 build known to
    # carry sm_120; the newest line with one this driver runs is named, with its cu128 build
    b = copy.deepcopy(h100)
    b["gpu"]["gpus"][0].update(compute_capability="12.0", name="NVIDIA GeForce RTX 5090")
    b["gpu"]["driver_version"] = "570.124.06"
    b["python"]["torch"]["version"] = "2.6.0+cu124"
    fix = first_fix(explain.explain_text(KERNEL_IMAGE, kb, facts=b))
    assert re.match(r"pip install 'torch==2\.\d+\.\*' --index-url https://download.pytorch.org/whl/cu128", fix), fix
    # (the table has no architecture list for 2.6's cu118/cu124 builds, and says so, not "none")
    assert "torch 2.6's builds are not in gpudoctor's table" in fix and "sm_120" in fix
    # a V100 (sm_70) on torch 2.11 with a CUDA 13 driver: CUDA 13 dropped Volta, the cu128 build keeps it
    v = copy.deepcopy(h100)
    v["gpu"]["gpus"][0].update(compute_capability="7.0", name="Tesla V100-SXM2-32GB")
    fix = first_fix(explain.explain_text(KERNEL_IMAGE, kb, facts=v))
    assert "torch==2.11.*" in fix and "/whl/cu128" in fix and "sm_70" in fix
    # without facts: no invented wheel, the generic advice only
    res = explain.explain_text(KERNEL_IMAGE, kb)
    assert not any(c.get("computed_fix") for c in res["findings"][0]["causes"])
    assert "download.pytorch.org/whl/cu" not in res["findings"][0]["causes"][0]["fix"][0]


def test_socket_interface_comes_from_the_nodes_network_facts(kb):
    text = "gpu1:1:1 [0] NCCL WARN Bootstrap : no socket interface found\n" + SYS_ERR
    res = explain.explain_text(text, kb, facts=facts())
    assert res["root"] == "nccl.socket_ifname"
    assert first_fix(res).startswith("export NCCL_SOCKET_IFNAME=eth0")  # the default route's NIC
    assert res["findings"][0]["causes"][0]["exports"]["NCCL_SOCKET_IFNAME"] == "eth0"
    # under mpirun the variable is passed with -x
    res = explain.explain_text("mpirun -np 16 python train.py\n" + text, kb, facts=facts())
    assert res["launcher"] == "mpirun" and first_fix(res).startswith("mpirun -x NCCL_SOCKET_IFNAME=eth0")
    # gloo: GLOO_SOCKET_IFNAME, from the same facts
    res = explain.explain_text("RuntimeError: Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/"
                               "tcp/pair.cc:144] no error", kb, facts=facts())
    assert res["root"] == "gloo.socket_ifname" and "GLOO_SOCKET_IFNAME=eth0" in first_fix(res)


def test_no_routable_nic_in_the_facts_means_no_invented_one(kb):
    f = facts()
    f["network"]["default_route"] = None
    for i in f["network"]["interfaces"]:
        if i["name"] == "eth0":
            i["ipv4"] = []
    res = explain.explain_text("gpu1:1:1 [0] NCCL WARN Bootstrap : no socket interface found", kb, facts=f)
    assert not any(c.get("computed_fix") for c in res["findings"][0]["causes"])


ADDR_IN_USE = ("torch.distributed.DistNetworkError: The server socket has failed to listen on any local network "
               "address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).")


@pytest.mark.parametrize("launch,flag,other", [
    ('  File "/usr/local/bin/accelerate", line 8, in <module>\n'
     '  File "/usr/lib/python3/site-packages/accelerate/commands/launch.py", line 1097, in launch_command',
     "accelerate launch --main_process_port", "torchrun"),
    ('  File "/usr/local/bin/torchrun", line 8, in <module>\n'
     '  File "/usr/lib/python3/site-packages/torch/distributed/run.py", line 892, in main',
     "torchrun --master_port", "main_process_port"),
    ("[2024-05-01 10:00:00,000] [INFO] [runner.py:568:main] cmd = python -u -m deepspeed.launcher.launch --world_info=x",
     "deepspeed --master_port", "main_process_port"),
])
def test_the_port_fix_uses_the_launchers_own_flag(launch, flag, other, kb):
    res = explain.explain_text(launch + "\n" + ADDR_IN_USE + "\n", kb)
    assert res["root"] == "rendezvous.address_in_use"
    fix = first_fix(res)
    assert fix.startswith(flag) and other not in fix, fix


def test_invalid_device_ordinal_names_the_gpu_count_and_the_launchers_flag(kb):
    text = ("torchrun --standalone --nproc_per_node=8 train.py\n"
            "  File \"/opt/torch/distributed/run.py\", line 1\n"
            "RuntimeError: CUDA error: invalid device ordinal\n")
    res = explain.explain_text(text, kb, facts=facts())  # the fixture node has 1 GPU
    assert res["root"] == "cuda.invalid_device_ordinal"
    assert first_fix(res).startswith("torchrun --nproc_per_node 1") and "1 GPU" in first_fix(res)


# ------------------------------------------------------------------ the CLI
# in this process (conftest's cli: gpudoctor.cli.main, as `python -m gpudoctor` runs it); the
# installed console script runs explain in tests/test_packaging.py


def test_cli_facts_file_computes_the_fix(cli):
    path = os.path.join(NODES, "h100-ubuntu2404-torch211.json")
    rc, out, err = cli("explain", "--facts", path, KERNEL_IMAGE)
    assert rc == 0 and err == "", err
    assert "ROOT CAUSE  cuda.no_kernel_image" in out and "fixes computed from the facts of" in out
    assert "fix: pip install 'torch==2.11.*' --index-url https://download.pytorch.org/whl/cu130" in out
    rc, out, _ = cli("explain", "--json", "--facts", path, KERNEL_IMAGE)
    doc = json.loads(out)
    assert doc["facts"]["source"] == path
    assert doc["findings"][0]["causes"][0]["computed"] == "torch_build"


def test_cli_facts_errors_are_one_line_exit_2(cli, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    for args in (("explain", "--facts", str(tmp_path / "missing.json"), "x"),
                 ("explain", "--facts", str(bad), "x"),
                 ("explain", "--facts", os.path.join(NODES, "h100-ubuntu2404-torch211.json"), "--check", "x")):
        rc, out, err = cli(*args)
        assert rc == 2 and out == "", (args, out)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, (args, err)


WATCHDOG = ("[rank1]:[E ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: "
            "WorkNCCL(SeqNum=9001, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800342 "
            "milliseconds before timing out.")


def test_a_watchdog_timeout_after_long_rank0_work_asks_for_a_longer_timeout(kb):
    res = explain.explain_text("Saving model checkpoint to out/checkpoint-500\n" + WATCHDOG, kb)
    top = res["findings"][0]["causes"][0]
    assert res["root"] == "nccl.timeout" and top["evidence"][0]["line"] == 1
    assert "--ddp_timeout" in top["fix"][0] and "InitProcessGroupKwargs" in top["fix"][0]
    # without such work in the log, the stalled or diverged rank comes first
    top = explain.explain_text(WATCHDOG, kb)["findings"][0]["causes"][0]
    assert "stalled" in top["text"]


@pytest.mark.parametrize("line", [
    "[ 1234.5] DMAR: [DMA Write NO_PASID] Request device [17:00.0] fault addr 0xfbc00000 [fault reason 0x05] "
    "PTE Write access is not set",
    "[ 1234.5] AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0000 address=0x3c0000 flags=0x0020]",
])
def test_iommu_faults_point_at_the_iommu_cause_of_p2p(line, kb):
    res = explain.explain_text(line, kb)
    assert res["root"] == "gpu.p2p" and "IOMMU" in res["findings"][0]["causes"][0]["text"]
    assert "iommu=pt" in res["findings"][0]["causes"][0]["fix"][0]


# ------------------------------------------------------------------ prefixes and severity markers

from gpudoctor.explain import text as T  # noqa: E402


@pytest.mark.parametrize("line,body", [
    ("[rank3]: RuntimeError: x", "RuntimeError: x"),                        # torchrun --tee
    ("[default0]:RuntimeError: x", "RuntimeError: x"),                       # torchrun redirects
    ("0: RuntimeError: x", "RuntimeError: x"),                               # srun -l
    ("worker-1: RuntimeError: x", "RuntimeError: x"),                        # pdsh / DeepSpeed
    ("10.0.0.7: [rank0]: RuntimeError: x", "RuntimeError: x"),               # both
    ("[1,0]<stderr>:RuntimeError: x", "RuntimeError: x"),                    # Open MPI --tag-output
    ("(RayTrainWorker pid=812, ip=10.0.0.3) RuntimeError: x", "RuntimeError: x"),
    ("2024-03-01 12:00:01,123 - RuntimeError: x", "RuntimeError: x"),
    ("[2024-03-01 12:00:01,123] RuntimeError: x", "RuntimeError: x"),
    ("2024-03-01T12:00:01.123456Z RuntimeError: x", "RuntimeError: x"),
    ("Nov 23 01:02:03 gpu7 kernel: NVRM: Xid 79", "NVRM: Xid 79"),          # syslog
    ("[ 1843.301] NVRM: Xid 79", "NVRM: Xid 79"),                            # dmesg
    ("gpu7:1234:5678 [3] NCCL INFO x", "NCCL INFO x"),                       # NCCL host:pid:tid [dev]
    ("RuntimeError: x", "RuntimeError: x"),                                  # an exception name stays
    ("mlx5_vdpa: disagrees about version", "disagrees about version"),      # (patterns see the whole line)
])
def test_prefixes_are_stripped_for_severity_and_wrapping(line, body):
    assert T.strip_prefix(line)[0] == body


@pytest.mark.parametrize("body,sev", [
    ("[3] NCCL INFO NET/IB : No device found.", "info"),
    ("[3] NCCL WARN Error: failed to extend /dev/shm", "warn"),
    ("[3] init.cc:1303 NCCL INFO init.cc:1303 -> 2", None),       # NCCL's error return chain
    ("[INFO] [launch.py:146:main] WORLD INFO DICT", "info"),
    ("[WARNING] [runner.py:117:fetch_hostfile] Unable to find hostfile", "warn"),
    ("I1123 12:00:00.123 1234 train.py:1] step 1", "info"),
    ("W1123 12:00:00.123 1234 socket.cpp:1] retry", "warn"),
    ("[W socket.cpp:601] [c10d] The client socket has failed to connect", "warn"),
    ("W tensorflow/core/dso_loader.cc:64] Could not load dynamic library", "warn"),
    ("/x/dataloader.py:558: UserWarning: This DataLoader will create 16 workers", "warn"),
    ("root - INFO - Epoch 3", "info"),
    ("RuntimeError: NCCL error: unhandled system error", None),
    ("[E ProcessGroupNCCL.cpp:616] Watchdog caught collective operation timeout", None),
])
def test_severity_markers(body, sev):
    assert T.severity(body) == sev


def test_a_facts_folder_gives_the_nic_of_every_node(cli, tmp_path):
    for host, nic in (("gpu01", "eth0"), ("gpu02", "ens5")):
        f = facts()
        f["node"] = host
        for i in f["network"]["interfaces"]:
            if i["name"] == "eth0":
                i["name"] = nic
        f["network"]["default_route"]["interface"] = nic
        (tmp_path / (host + ".json")).write_text(json.dumps(f))
    rc, out, err = cli("explain", "--json", "--facts", str(tmp_path),
                                 "gpu1:1:1 [0] NCCL WARN Bootstrap : no socket interface found")
    doc = json.loads(out)
    assert rc == 0 and err == "" and doc["facts"]["nodes"] == 2 and doc["facts"]["host"] == "gpu01"
    fix = first_fix(doc)
    assert fix.startswith("export NCCL_SOCKET_IFNAME=ens5,eth0") and "gpu" not in fix.split("(")[0], fix
    assert "2 nodes: ens5 192.0.2.2, eth0 192.0.2.2" not in fix  # listed per node, in node order
    assert "2 nodes: eth0 192.0.2.2, ens5 192.0.2.2" in fix


def test_a_known_info_line_given_as_an_argument_gets_its_note(cli):
    rc, out, err = cli("explain", "gpu1:11:11 [0] NCCL INFO NET/IB : No device found.")
    assert rc == 0 and "NO ERROR FOUND" in out and "nccl.ib_no_device (INFO line)" in out
    rc, out, err = cli("explain", "the frobnicator exploded")
    assert rc == 1 and "NO KNOWN ERROR" in out


def test_a_colour_code_inside_a_keyword_does_not_hide_it(kb):
    text = "[rank0]: \x1b[1;31mnccl\x1b[0mSystem\x1b[33mError\x1b[0m: System call (e.g. socket, malloc) failed"
    res = explain.explain_text(text, kb)
    assert res["root"] == "nccl.system_error" and "\x1b" not in res["findings"][0]["matches"][0]["text"]


def test_a_wrapped_error_is_found_wherever_the_read_blocks_are_cut(kb, monkeypatch):
    import io

    monkeypatch.setattr(explain.scan, "BLOCK", 512)
    wrapped = hard_wrap(SYS_ERR, 50) + "\n"  # "... unhandled sys" / "tem error, NCCL version 2.14.3"
    missed = []
    for pad in range(0, 520, 3):  # move the message across every position relative to a block cut
        data = ("x" * (pad % 50) + "\n" + "step 1 loss 2.0\n" * (pad // 50)).encode() * 3 + wrapped.encode() + \
            b"step 2 loss 1.9\n" * 40
        res = explain.explain_stream(io.BytesIO(data), kb)
        if res["root"] != "nccl.system_error":
            missed.append(pad)
    assert missed == []


def test_a_line_without_a_build_for_the_gpu_is_said_so(kb):
    """torch 2.12 publishes cu126, cu130, cu132: a Blackwell GPU with a CUDA 12.8 driver has none
    of them (cu126 lacks sm_120, CUDA 13 needs a newer driver)."""
    b = facts()
    b["gpu"]["gpus"][0].update(compute_capability="12.0", name="NVIDIA RTX PRO 6000")
    b["gpu"]["driver_version"] = "570.124.06"
    b["python"]["torch"]["version"] = "2.12.0+cu126"
    fix = first_fix(explain.explain_text(KERNEL_IMAGE, kb, facts=b))
    assert "torch 2.12 has no build for it that this driver runs" in fix and "/whl/cu128" in fix


def test_the_torch_build_table_generator_reads_pytorchs_formats():
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(FIXTURES), "bench"))
    import explain_torch_builds as g

    release = ("| PyTorch version | Python | C++ | Stable CUDA | Experimental CUDA | Stable ROCm |\n"
               "| --- | --- | --- | --- | --- | --- |\n"
               "| 2.8 | >=3.9 | C++17 | CUDA 12.6 (CUDNN 9.10.2.21), CUDA 12.8 (CUDNN 9.10.2.21) | CUDA 12.9 | ROCm 6.4 |\n"
               "### PyTorch CUDA Support Matrix\n"
               "| CUDA | architectures supported for Linux x86 and Windows builds | notes |\n"
               "| 13.0.2 | Turing(7.5), Ampere(8.0, 8.6), Hopper(9.0), Blackwell(10.0, 12.0+PTX) | |\n"
               "| CUDA | architectures supported for Linux aarch64 builds |\n"
               "| 13.0.2 | Ampere(8.0), Hopper(9.0), Blackwell(10.0, 11.0, 12.0+PTX) |\n")
    lines, archs = g.parse_release(release)
    assert lines == {"2.8": ["12.6", "12.8", "12.9"]}
    assert archs == {"13.0": ["7.5", "8.0", "8.6", "9.0", "10.0", "12.0+PTX"]}  # x86, not aarch64
    script = ('TORCH_CUDA_ARCH_LIST="3.7;5.0"\ncase ${CUDA_VERSION} in\n    12.6)\n'
              '        TORCH_CUDA_ARCH_LIST="5.0;9.0"\n        ;;\n    11.[67])\n'
              '        TORCH_CUDA_ARCH_LIST="${TORCH_CUDA_ARCH_LIST};8.6"\n        ;;\nesac\n')
    assert g.parse_build_cuda(script) == {"12.6": ["5.0", "9.0"], "11.6": ["3.7", "5.0", "8.6"],
                                          "11.7": ["3.7", "5.0", "8.6"]}
    with open(os.path.join(os.path.dirname(FIXTURES), "gpudoctor", "data", "torch_builds.json")) as f:
        table = json.load(f)
    assert table["sources"]["generated_by"] == "bench/explain_torch_builds.py"
    assert table["archs"]["13.0"][-1] == "12.0+PTX" and "11.8" in table["lines"]["2.7"]


@pytest.mark.parametrize("lead", ["    ", "> ", "\t"])
def test_an_indented_or_quoted_paste_still_joins_its_wrapped_lines(lead, kb):
    """Issue forms and mail quote or indent the whole paste; the wrap is inside it."""
    for wrapped in (hard_wrap(SYS_ERR, 50), word_wrap(SHM, 40)):
        text = "\n".join(lead + line for line in ["step 1 loss 2.0"] + wrapped.split("\n") + ["step 2"])
        assert root(text, kb) in ("nccl.system_error", "shm.size"), (lead, text)
    # a deeper-indented line is a new record (a traceback's "  File ..." line), not a continuation
    tb = lead + "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1269, unhandled sys\n" + lead + "  tem error"
    assert root(tb, kb) != "nccl.system_error"

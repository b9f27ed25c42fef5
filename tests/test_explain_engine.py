"""explain's engine (issue 18, items 2 and 3, NCCL and Open MPI): never a specific cause from a
generic message, a structural answer for a text with an explicit failure line, and the generated
NCCL / Open MPI sites each with a family.

The message texts below are the ones the programs print, cited where they come from:
- NCCL's ncclGetErrorString (src/init.cc of NVIDIA/nccl; the short strings before 2.19, the
  "(run with NCCL_DEBUG=... for details)" ones since), as torch prints them
  ("NCCL error in: <file>:<line>, <string>, NCCL version X", torch/csrc/distributed/c10d/NCCLUtils),
  and torch's getNcclErrorDetailStr ("ncclSystemError: System call (e.g. socket, malloc) ...").
- ProcessGroupNCCL's watchdog frames (torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:
  ncclCommWatchdog -> watchdogHandler -> WorkNCCL::checkTimeout).
- Open MPI 4.1's help-mpi-btl-openib.txt ([error in device init]) and the openib banner.
"""

import json

import pytest

from gpudoctor.explain import explain_text, load_knowledge
from explainhelp import generated_sites


# (text alone, the family entry it names)
GENERIC_NCCL = [
    ("ncclInvalidUsage", "nccl.invalid_usage"),
    ("ncclInvalidArgument", "nccl.invalid_usage"),
    ("ncclSystemError", "nccl.system_error"),
    ("ncclInternalError", "nccl.internal_error"),
    ("ncclUnhandledCudaError", "nccl.unhandled_cuda_error"),
    ("ncclRemoteError", "nccl.remote_error"),
    # torch's detail strings (ProcessGroupNCCL getNcclErrorDetailStr)
    ("ncclInvalidUsage: This usually reflects invalid usage of NCCL library.", "nccl.invalid_usage"),
    ("ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.",
     "nccl.system_error"),
    ("ncclInternalError: Internal check failed.", "nccl.internal_error"),
    ("ncclUnhandledCudaError: Call to CUDA function failed.", "nccl.unhandled_cuda_error"),
    ("ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
     "nccl.remote_error"),
    # ncclGetErrorString since 2.19, in torch's "NCCL error in:" line
    ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, "
     "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5", "nccl.unhandled_cuda_error"),
    ("RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, unhandled system error "
     "(run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1", "nccl.system_error"),
    ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, "
     "internal error - please report this issue to the NCCL developers, NCCL version 2.19.3", "nccl.internal_error"),
    ("NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, invalid usage (run with NCCL_DEBUG=WARN "
     "for details), NCCL version 2.21.5", "nccl.invalid_usage"),
    ("NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, invalid argument (run with "
     "NCCL_DEBUG=WARN for details), NCCL version 2.21.5", "nccl.invalid_usage"),
    ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, remote "
     "process exited or there was a network error, NCCL version 2.21.5", "nccl.remote_error"),
    # ncclGetErrorString before 2.19: the bare strings
    ("RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1275, invalid usage, "
     "NCCL version 2.14.3", "nccl.invalid_usage"),
    ("RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1275, unhandled system error, "
     "NCCL version 2.14.3", "nccl.system_error"),
    ("RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1275, internal error, "
     "NCCL version 2.14.3", "nccl.internal_error"),
    ("RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1275, unhandled cuda error, "
     "NCCL version 2.14.3", "nccl.unhandled_cuda_error"),
]


@pytest.mark.parametrize("text,family", GENERIC_NCCL)
def test_a_generic_nccl_result_code_alone_gets_its_family_not_a_cause(kb, text, family):
    res = explain_text(text, kb, assume_error=True)
    assert res["verdict"] == "root_cause", res["verdict"]
    root = res["findings"][0]
    assert root["id"] == family, root["id"]
    assert root["confidence"] == "family"
    # no cause is named on evidence the text does not hold
    assert not any(c["evidence"] for c in root["causes"])
    assert any(n.startswith("How sure: medium. The family is certain") for n in root["notes"])
    assert len(root["causes"]) >= 2  # the possibilities, each with how to tell it apart
    assert all(c["confirm"] or c["checks"] for c in root["causes"])


def test_every_by_evidence_entry_tells_its_causes_apart(kb):
    got = [e for e in kb.entries if e.get("by_evidence")]
    assert {"nccl.system_error", "nccl.internal_error", "nccl.unhandled_cuda_error", "nccl.remote_error",
            "nccl.dmabuf", "nccl.timeout", "nccl.net_plugin"} <= {e["id"] for e in got}
    for e in got:
        assert len(e["causes"]) >= 2 and all(c["confirm"] or c["checks"] for c in e["causes"]), e["id"]
        assert e["debug"], e["id"]  # what to rerun with to get the telling line


def test_the_cause_is_named_on_its_own_evidence_line(kb):
    text = ("gpu-a:123:456 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.0.0.2<43221> failed : "
            "Connection refused\n"
            "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, unhandled system "
            "error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1\n")
    root = explain_text(text, kb)["findings"][0]
    assert root["id"] == "nccl.system_error" and root["confidence"] == "cause"
    assert root["causes"][0]["evidence"] and "NCCL_SOCKET_IFNAME" in " ".join(root["causes"][0]["fix"])
    assert "names the cause below" in root["notes"][0]


def test_a_dmabuf_registration_failure_is_not_the_memlock_limit(kb):
    # NCCL's IBV_PTR_CHECK_ERRNO prints "Call to <fn> failed with error <strerror>" (src/misc/ibvwrap.cc)
    text = "gpu-a:1:2 [0] misc/ibvwrap.cc:175 NCCL WARN Call to ibv_reg_dmabuf_mr failed with error Bad address\n"
    root = explain_text(text, kb)["findings"][0]
    assert root["id"] == "nccl.dmabuf" and root["confidence"] == "cause"
    assert "NCCL_DMABUF_ENABLE" in root["causes"][0]["exports"]
    alone = explain_text("ibv_reg_dmabuf_mr failed", kb, assume_error=True)["findings"][0]
    assert alone["id"] == "nccl.dmabuf" and alone["confidence"] == "family"


def test_a_collective_size_mismatch_is_the_code_not_a_setting(kb):
    # NCCL <= 2.19 src/transport/net_ib.cc
    text = ("gpu-a:1:2 [1] transport/net_ib.cc:1119 NCCL WARN NET/IB : req 1/1 tag 7 peer 10.0.0.2<4444> collective "
            "mismatch error, local size 1024 remote size 2048\n")
    root = explain_text(text, kb)["findings"][0]
    assert root["id"] == "nccl.collective_mismatch"
    assert "TORCH_DISTRIBUTED_DEBUG=DETAIL" in " ".join(root["debug"])


def test_generated_nccl_sites_name_a_setting_only_when_the_text_says_a_setting_is_wrong():
    sites = generated_sites("nccl_messages")
    by_text = {s["text"]: s["family"] for s in sites}
    assert by_text["Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable "
                   "this configuration."] == "nccl.duplicate_gpu"
    assert by_text["Mismatched NCCL version detected : rank %d version %d rank %d version %d"] == \
        "nccl.version_mismatch"
    # src/plugin/net.cc ncclNetInit: no NET plugin (internal IB / Socket or external) initialised, mostly the one
    # NCCL_NET names missing: nccl.net_plugin, whose entry tells that from an external plugin (rule no-net)
    no_net = ("Failed to initialize any NET plugin", "Error: network %s not found.")
    assert [by_text[t] for t in no_net] == ["nccl.net_plugin", "nccl.net_plugin"]
    for s in sites:
        # (or where the source shows the message is printed inside the function that an NCCL_* variable's value is
        # passed to: tools/gen_nccl_messages.py rule env-value, the site's env names the variable)
        if s["family"] == "nccl.config" and s["rule"] != "env-value":
            assert any(w in s["text"].lower() for w in ("invalid", "invalig", "ignored", "cannot be used", "initializer", "too big",
                                                        "too small", "larger than", "cap it", "disabling", "cc on",
                                                        "environment", " set", "unrecognized")), s["text"]
    assert all(s.get("env") for s in sites if s["rule"] == "env-value")
    # every site with a matcher has a family
    assert [s["text"] for s in sites if s["re"] and not s["family"]] == []


def test_every_open_mpi_help_topic_a_user_can_see_has_a_family(kb):
    sites = generated_sites("ompi_help")
    assert [s["text"] for s in sites if s["re"] and not s["family"]] == []
    assert {s["family"] for s in sites if s["text"].upper().startswith("WARNING")} >= {"mpi.warning",
                                                                                        "mpi.warning_failed"}


def test_the_openib_warning_alone_is_answered_a_banner_alone_is_not(kb):
    # help-mpi-btl-openib.txt [error in device init] (Open MPI 4.1), as mpirun prints it
    text = ("--------------------------------------------------------------------------\n"
            "WARNING: There was an error initializing an OpenFabrics device.\n\n"
            "  Local host:   gpu-a\n  Local device: mlx5_0\n"
            "--------------------------------------------------------------------------\n")
    res = explain_text(text, kb)
    assert res["verdict"] == "root_cause" and res["root"] == "mpi.openib_ucx"
    fixes = " ".join(f for c in res["findings"][0]["causes"] for f in c["fix"])
    assert "btl ^openib" in fixes and "pml ucx" in fixes
    assert res["findings"][0]["notes"][0].startswith("A warning, not an error")
    banner = ("By default, for Open MPI 4.0 and later, infiniband ports on a device\n"
              "are not used by default.  The intent is to use UCX for these devices.\n")
    res = explain_text(banner, kb)
    assert res["verdict"] == "no_error" and [n["id"] for n in res["context"]] == ["mpi.openib_ucx"]
    # next to a real error the warning stays a note
    res = explain_text(text + "ncclRemoteError: A call failed possibly due to a network error or a remote process "
                              "exiting prematurely.\n", kb)
    assert res["root"] == "nccl.remote_error" and "mpi.openib_ucx" in [n["id"] for n in res["context"]]


WATCHDOG = """\
frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f3a in /usr/lib/python3/dist-packages/torch/lib/libc10.so)
frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (0x7f3b in /usr/lib/python3/dist-packages/torch/lib/libtorch_cuda.so)
frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (0x7f3c in /usr/lib/python3/dist-packages/torch/lib/libtorch_cuda.so)
frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (0x7f3d in /usr/lib/python3/dist-packages/torch/lib/libtorch_cuda.so)
frame #4: <unknown function> + 0xdc253 (0x7f3e in /lib/x86_64-linux-gnu/libstdc++.so.6)
"""


def test_a_watchdog_stack_without_its_message_is_a_collective_timeout(kb):
    res = explain_text(WATCHDOG, kb)
    assert res["verdict"] == "likely_cause" and res["root"] == "nccl.timeout"
    root = res["findings"][0]
    assert root["confidence"] == "structural" and "checkTimeout" in root["notes"][0]
    assert res.get("recorder_advice") and "TORCH_NCCL_TRACE_BUFFER_SIZE" in res["recorder_advice"]
    # the watchdog's frames without checkTimeout: a timeout or a polled NCCL error, said so
    other = "\n".join(ln for ln in WATCHDOG.splitlines() if "checkTimeout" not in ln)
    root = explain_text(other, kb)["findings"][0]
    assert root["id"] == "nccl.timeout" and root["confidence"] == "structural"
    assert any("what():" in n for n in root["notes"])


def test_a_traceback_from_torch_distributed_names_its_family(kb):
    tb = ('Traceback (most recent call last):\n'
          '  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/run.py", line 806, in main\n'
          '    run(args)\n'
          '  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/elastic/rendezvous/'
          'dynamic_rendezvous.py", line 671, in run\n'
          '    raise SomeNewRendezvousProblem()\n'
          'torch.distributed.elastic.rendezvous.api.SomeNewRendezvousProblem: the store went away\n')
    res = explain_text(tb, kb)
    assert res["root"] == "rendezvous.connect" and res["findings"][0]["confidence"] == "structural"
    agent = tb.replace("elastic/rendezvous/dynamic_rendezvous.py", "elastic/agent/server/api.py")
    res = explain_text(agent, kb)
    assert res["verdict"] == "echo_only" and res["findings"][0]["family"] == "cascade"


def test_an_unknown_nccl_warn_failure_line_is_never_no_error(kb):
    res = explain_text("gpu-a:1:2 [0] some/new_file.cc:12 NCCL WARN Could not frobnicate the widget: error 3\n", kb)
    assert res["verdict"] == "likely_cause" and res["findings"][0]["confidence"] == "structural"


def test_knowledge_validates_the_new_keys():
    from gpudoctor.explain.knowledge import KnowledgeError, _validate

    def entry(**kw):
        return dict({"id": "x.y", "title": "t", "explain": "e", "rank": 1, "patterns": ["abcdef"],
                     "causes": [{"text": "c", "fix": ["f"]}], "references": [{"title": "r", "url": "https://x"}]}, **kw)

    with pytest.raises(KnowledgeError):
        _validate(entry(by_evidence="yes"), "t.toml", None)
    with pytest.raises(KnowledgeError):
        _validate(entry(root_when_alone=True), "t.toml", None)  # only for kind = "warning"
    assert _validate(entry(kind="warning", root_when_alone=True), "t.toml", None)["root_when_alone"]
    assert load_knowledge().by_id["mpi.openib_ucx"]["root_when_alone"]


def test_a_folder_of_srun_l_slurm_logs_names_the_first_failing_rank_node_and_time(cli, tmp_path):
    """slurm-%j-%N.out files as `srun -l` writes them ('N: ' before each line), NCCL's host:pid:tid
    prefix, torch's glog header: gpu-b's rank 6 lost its IB link at 12:00:03 (the NCCL WARN line has
    no time of its own: the next line of rank 6 has); gpu-a's ranks time out ten minutes later."""
    d = tmp_path / "job"
    d.mkdir()
    a = ["%d: gpu-a:%d:%d [%d] NCCL INFO NCCL version 2.21.5+cuda12.4" % (r, 1000 + r, 1100 + r, r) for r in range(4)]
    a += ["%d: [rank%d]:[E1123 12:10:0%d.000000 %d ProcessGroupNCCL.cpp:616] [Rank %d] Watchdog caught collective "
          "operation timeout: WorkNCCL(SeqNum=51, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran "
          "for 600042 milliseconds before timing out." % (r, r, r, 1000 + r, r) for r in range(4)]
    (d / "slurm-4242-gpu-a.out").write_text("\n".join(a) + "\n")
    b = ["%d: gpu-b:%d:%d [%d] NCCL INFO NCCL version 2.21.5+cuda12.4" % (r, 2000 + r, 2100 + r, r - 4)
         for r in range(4, 8)]
    b += ["6: gpu-b:2006:2150 [2] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer "
          "10.0.0.1<51234> with status=12 opcode=0 len=0 vendor err 129 (Send) hca mlx5_2",
          "6: [rank6]:[E1123 12:00:03.500000 2006 ProcessGroupNCCL.cpp:1834] [PG 0 Rank 6] Process group watchdog "
          "thread terminated with exception: NCCL error: remote process exited or there was a network error, "
          "NCCL version 2.21.5"]
    (d / "slurm-4242-gpu-b.out").write_text("\n".join(b) + "\n")
    rc, out, _ = cli("explain", "--json", str(d))
    doc = json.loads(out)
    root = doc["findings"][0]
    assert doc["root"] == "nccl.remote_error" and root["confidence"] == "cause"
    assert root["origin"]["rank"] == "6" and root["origin"]["host"] == "gpu-b"
    assert root["origin"]["time"] == "11-23 12:00:03.500000" and root["origin"]["line"] == 5
    assert root["origin"]["file"].endswith("slurm-4242-gpu-b.out")
    assert "nccl.timeout" in [f["id"] for f in doc["findings"][1:]]
    rc, out, _ = cli("explain", str(d))
    assert out.count("ROOT CAUSE") == 1 and "first: rank 6 on gpu-b at 11-23 12:00:03.500000" in out


def test_the_218_bug_needs_its_own_symptom_not_a_peers_socket_echo(kb):
    """NCCL 2.18.1-2.18.5's bug (NVIDIA/nccl#957) fails at src/transport.cc with Cuda failure
    'invalid argument'; 'Socket recv failed while polling for opId' is what any peer prints when
    the other side went away (NVIDIA/nccl-tests#166: after 'Connection closed by remote peer'), so
    alone it names no bug. (Shapes of those threads' lines; no public log with 2.18.1 and the
    transport.cc symptom was found.)"""
    bug = ("NCCL version 2.18.1+cuda12.1\n"
           "gpu-a:1:2 [0] transport.cc:154 NCCL WARN Cuda failure 'invalid argument'\n"
           "gpu-a:1:2 [0] NCCL INFO transport.cc:168 -> 1\n")
    root = explain_text(bug, kb)["findings"][0]
    assert root["id"] == "nccl.bug_218_async_memcpy" and "2.18.6" in root["title"]
    echo = ("NCCL version 2.18.3+cuda12.1\n"
            "ubuntu:39964:40044 [0] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer "
            "node1<57557>\n"
            "ubuntu:39964:40044 [0] proxy.cc:1143 NCCL WARN Socket recv failed while polling for opId=0x7f6f18cb7f40\n"
            "ubuntu:39964:40044 [0] NCCL INFO transport/net.cc:288 -> 3\n")
    res = explain_text(echo, kb)
    assert "nccl.bug_218_async_memcpy" not in [f["id"] for f in res["findings"]]
    assert res["findings"][0]["confidence"] == "family"


def test_a_traceback_from_a_launchers_package_names_the_launcher(kb):
    tb = ('Traceback (most recent call last):\n'
          '  File "/usr/local/lib/python3.10/dist-packages/deepspeed/launcher/runner.py", line 603, in main\n'
          '    raise SomethingNew("the hosts disagree")\n'
          'deepspeed.launcher.SomethingNewError: the hosts disagree\n')
    res = explain_text(tb, kb)
    assert res["findings"][0]["family"] == "deepspeed.launcher" and res["findings"][0]["confidence"] == "structural"
    res = explain_text("gpu-a:1:2 [0] some/file.cc:1 NCCL WARN dmabuf export failed for the new allocator\n", kb)
    assert res["root"] == "nccl.dmabuf" and res["findings"][0]["confidence"] != "cause"


def test_messages_only_older_nccl_releases_print_are_sites_too():
    """gen_nccl_messages.py --older: formats reworded or removed since (NET/IB's collective size
    check of <= 2.19, the WARN 'Failed to open libibverbs.so[.1]' of older releases) keep a family."""
    old = [s for s in generated_sites("nccl_messages") if s.get("until")]
    assert len(old) > 100 and all(s["id"].startswith("nccl.%s.v" % s["level"].lower()) for s in old)
    fam = {s["text"]: s["family"] for s in old}
    assert fam["NET/IB : req %d/%d tag %x peer %s collective mismatch error, local size %d remote size %d"] == \
        "nccl.collective_mismatch"
    assert fam["Failed to open libibverbs.so[.1]"] == "rdma.libibverbs_missing"


@pytest.mark.parametrize("line,family", [
    # advice naming a variable is not a setting problem
    ("NCCL WARN Something new failed, set NCCL_DEBUG_SUBSYS=ALL for details", "nccl.internal_error"),
    ("NCCL WARN NCCL_FROB_LEVEL has an unrecognized setting 7, failed to apply it", "nccl.config"),
    # ranks that disagree are the job's code, not a setting
    ("NCCL WARN Mismatched collective size between ranks, set NCCL_CHECK_MODE=1 to continue",
     "nccl.collective_mismatch"),
    ("NCCL WARN peer rank 3 reports a different version: mismatch 22703 vs 22105", "nccl.version_mismatch"),
])
def test_an_unknown_nccl_warn_line_gets_the_family_its_words_name(kb, line, family):
    res = explain_text("gpu-a:1:2 [0] new/file.cc:9 %s\n" % line, kb)
    assert res["root"] == family and res["findings"][0]["confidence"] == "structural"


def test_nccl_2181_with_another_cuda_failure_is_not_the_known_bug(kb):
    """Real text, vllm-project/vllm#1359 (torch 2.1's NCCL 2.18.1 on a driver older than its CUDA):
    the version alone is no known bug; the CUDA string names the cause."""
    text = ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:121, "
            "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1\n"
            "ncclUnhandledCudaError: Call to CUDA function failed.\n"
            "Last error:\n"
            "Cuda failure 'CUDA driver version is insufficient for CUDA runtime version'\n")
    res = explain_text(text, kb)
    assert res["root"] == "cuda.driver_insufficient"
    assert not any(f["family"] == "nccl.known_bug" for f in res["findings"])

"""explain's answers read end to end as a user reads them (issue 18, review 2): INFO/WARN notes say what their own
message means, a slot's value is not doubled by the words around it, no note contradicts a line the answer reads as
an error, every 'How sure' starts with its level, and a remedy or fix said twice in other values is said once.
Real texts from the cited public threads (none from the held-out sets), or lines printed from the cited format."""

import io
import re

from gpudoctor import explain
from gpudoctor.explain import render, slots

KB = explain.load_knowledge()


def _answer(text):
    r = explain.explain_text(text, kb=KB)
    out = io.StringIO()
    render.render_text(r, out)
    return r, out.getvalue()


def test_info_note_says_what_its_own_message_means():
    # NVIDIA/nccl#1231 (the maintainer: 'is harmless ... It defaults back to its internal plugin'): the note read
    # the entry's 'failed to load or to initialise' and 'use the aws-ofi-nccl release built for this EFA installer'
    r, text = _answer(
        "VM-0-14-tencentos:162637:162637 [6] NCCL INFO Bootstrap : Using eth0:172.17.0.14<0>\n"
        "VM-0-14-tencentos:162637:162637 [6] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared "
        "object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation\n"
        "VM-0-14-tencentos:162635:162635 [4] NCCL INFO cudaDriverVersion 12020\n")
    assert r["verdict"] == "no_error"
    note = next(n for n in r["context"] if n["id"] == "nccl.net_plugin")
    assert "internal implementation" in note["note"] and "Harmless" in note["note"]
    assert note["fix"].startswith("nothing to do")
    assert "EFA installer" not in text and "failed to load or to initialise" not in text


def test_info_note_fills_its_value_once():
    # NCCL src/transport/net_socket.cc: INFO(NCCL_NET, "Could not get speed from %s. Defaulting to 10 Gbps.",
    # speedPath) with speedPath "/sys/class/net/<dev>/speed": the row's '/sys/class/net/{%1|<if>}/speed' read
    # '/sys/class/net//sys/class/net/eth0/speed/speed'
    r, text = _answer("node1:1693:1693 [0] NCCL INFO Could not get speed from /sys/class/net/eth0/speed. "
                      "Defaulting to 10 Gbps.\n")
    note = next(n for n in r["context"] if n["id"] == "nccl.net_socket")
    assert "/sys/class/net/eth0/speed is unreadable" in note["note"]
    assert "/sys/class/net//" not in text and "speed/speed" not in text


def test_slot_merge_keeps_plain_words():
    site = {"text": "Could not get speed from %s. Defaulting to 10 Gbps.", "source": "nccl_messages",
            "means": "/sys/class/net/{%1|<if>}/speed is unreadable", "fix": ["cat /sys/class/net/{%1|<if>}/speed"]}
    means, fix, _ = slots.fill(site, "Could not get speed from /sys/class/net/ib0/speed. Defaulting to 10 Gbps.")
    assert means == "/sys/class/net/ib0/speed is unreadable" and fix == ["cat /sys/class/net/ib0/speed"]
    # a value that only shares a plain word with the text around the slot keeps that word
    site = {"text": "port %s is taken", "source": "x", "means": "the port {%1|N} is taken", "fix": ["use port {%1|N}"]}
    means, fix, _ = slots.fill(site, "port port8 is taken")
    assert means == "the port port8 is taken" and fix == ["use port port8"]


def test_family_site_on_an_info_line_gets_no_failure_fix():
    # NCCL src/graph/xml.cc: INFO(NCCL_GRAPH, "Topology detection : could not read %s, ignoring", path): an INFO
    # line NCCL goes on after; the family entry's first fix ('unset NCCL_GRAPH_FILE / NCCL_TOPO_FILE') is not its
    r, text = _answer("vm:1694:1694 [0] NCCL INFO Topology detection : could not read "
                      "/sys/devices/pci0000:00/0000:00:06.0/../max_link_speed, ignoring\n")
    assert r["verdict"] == "no_error"
    note = next(n for n in r["context"] if n["id"] == "nccl.topology")
    assert note["fix"] == ""
    assert "NCCL_GRAPH_FILE" not in text and "if it matters" not in text


def test_no_note_contradicts_the_root_on_its_own_line():
    # zjunlp/MolGen#25: DeepSpeed's launcher raised (deepspeed/launcher/runner.py parse_resource_filter); the
    # traceback after its [WARNING] line was also a note 'A traceback the program printed and went on after ...
    # Not a failure of the run'
    r, text = _answer(
        "[2025-03-04 21:00:22,059] [INFO] [real_accelerator.py:133:get_accelerator] Setting ds_accelerator to cuda "
        "(auto detect)\n"
        "[2025-03-04 21:00:22,784] [WARNING] [runner.py:196:fetch_hostfile] Unable to find hostfile, will proceed "
        "with training with local resources only.\n"
        "Traceback (most recent call last):\n"
        '  File "/root/miniconda3/envs/my_env/bin/deepspeed", line 6, in <module>\n'
        "    main()\n"
        '  File "/root/miniconda3/envs/my_env/lib/python3.9/site-packages/deepspeed/launcher/runner.py", line 420, '
        "in main\n"
        "    active_resources = parse_inclusion_exclusion(resource_pool, args.include, args.exclude)\n"
        '  File "/root/miniconda3/envs/my_env/lib/python3.9/site-packages/deepspeed/launcher/runner.py", line 344, '
        "in parse_inclusion_exclusion\n"
        "    return parse_resource_filter(active_resources, include_str=inclusion, exclude_str=exclusion)\n"
        '  File "/root/miniconda3/envs/my_env/lib/python3.9/site-packages/deepspeed/launcher/runner.py", line 296, '
        "in parse_resource_filter\n"
        "    raise ValueError(f\"No slot '{slot}' specified on host '{hostname}'\")\n"
        "ValueError: No slot '1' specified on host 'localhost'\n"
        "generate.sh: line 15: --input_path: command not found\n")
    assert r["root"] == "deepspeed.launcher"
    assert not any(n["id"] == "code.caught_exception" for n in r["context"])
    assert "Not a failure of the run" not in text
    assert any(n["id"] == "deepspeed.no_hostfile" for n in r["context"])  # a line of its own: still a note


def test_how_sure_starts_with_its_level():
    # NVIDIA/nccl#1231's error: ncclUnhandledCudaError names the family, not the cause
    r, text = _answer(
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, "
        "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3\n"
        "ncclUnhandledCudaError: Call to CUDA function failed.\n")
    sure = [n for f in r["findings"] for n in f["notes"] if n.startswith("How sure")]
    assert sure and all(re.match(r"How sure: (high|medium|low)\b", n) for n in sure)
    assert explain.analyze.HOW_SURE
    for f in explain.analyze.HOW_SURE.values():
        assert re.match(r"How sure: (high|medium|low)\. ", f)


def test_a_remedy_in_two_values_is_said_once():
    # nvidia-container-cli's requirement check as docker and pyxis print it (the message of NVIDIA/nvidia-docker#1243's
    # family; the images' NVIDIA_REQUIRE_CUDA, nvidia-container-runtime README): the same remedy with cuda>=11.8 and
    # cuda>=12.0 was two 'the message says' fix lines
    r, text = _answer(
        "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=11.8, please update your driver to a "
        "newer version, or use an earlier cuda container: unknown.\n"
        "slurmstepd: error: pyxis:     nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.0, "
        "please update your driver to a newer version, or use an earlier cuda container\n")
    assert text.count("the message says") == 1


def test_a_fix_said_by_an_earlier_cause_is_not_printed_again():
    # Slurm src/plugins/task/cgroup/task_cgroup_memory.c: "Detected %lu oom-kill event(s) in %ps. Some of your
    # processes may have been killed by the cgroup out-of-memory handler.": the site's fix and the entry's second
    # cause both said 'sbatch --mem=<more> (or --mem-per-gpu / --mem-per-cpu ...'
    r, text = _answer("slurmstepd: error: Detected 1 oom-kill event(s) in StepId=4242.0. Some of your processes may "
                      "have been killed by the cgroup out-of-memory handler.\n")
    assert r["root"] == "slurm.oom"
    assert text.count("sbatch --mem=<more>") == 1
    # the JSON keeps every cause's fix lines
    assert sum("sbatch --mem=<more>" in x for c in r["findings"][0]["causes"] for x in c["fix"]) == 2


def test_words_saying_init_went_through_are_not_stuck_in_init():
    # the user's own sentence (a constructed one, of the shape NCCL hang reports take): 'ncclCommInit' is an init word,
    # so '... completes successfully, but the first collective hangs' read 'It stopped before NCCL's init completed'
    r, text = _answer("ncclCommInitRank completes successfully, but the first all_reduce on two GPUs hangs forever "
                      "at 100% GPU utilization.\n")
    notes = " ".join(n for f in r["findings"] for n in f["notes"])
    assert "after NCCL's init completed" in notes and "before NCCL's init completed" not in notes
    r, _ = _answer("init_process_group never completes: all_reduce hangs on two GPUs.\n")
    notes = " ".join(n for f in r["findings"] for n in f["notes"])
    assert "after NCCL's init completed" not in notes


def test_torchs_own_log_lines_are_not_the_users_words():
    # torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp's watchdog lines with c10's log prefix (c10/util/Logging.cpp):
    # 'Stack trace of the failed collective not found ...' was nccl.falls_back_to_sockets's words ('roce' of
    # 'ProcessGroupNCCL', 'not found'): 'Your words describe: NCCL uses TCP sockets' beside a collective timeout
    r, text = _answer(
        "[rank0]:[E1126 04:06:40.412331012 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600005 "
        "milliseconds before timing out.\n"
        "[rank0]:[E1126 04:06:40.415529201 ProcessGroupNCCL.cpp:736] Stack trace of the failed collective not found, "
        "potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to "
        "a non-zero value.\n")
    assert r["root"] == "nccl.timeout"
    assert not [n for n in r["context"] if n["severity"] == "words"] and "your words" not in text


def test_a_words_note_never_undoes_the_roots_fix(monkeypatch):
    from gpudoctor.explain import symptoms

    class Hit:
        line, text = 1, "the user's words"

    monkeypatch.setattr(symptoms, "found", lambda scan, kb: [("nccl.p2p_not_used", Hit(), 2)])
    assert "unset NCCL_P2P_DISABLE" in KB.by_id["nccl.p2p_not_used"]["causes"][0]["fix"][0]
    for exports, fix, noted in (({"NCCL_P2P_DISABLE": "1   (workaround)"}, [], False),
                                ({}, ["export NCCL_P2P_DISABLE=1 while ACS is on"], False),
                                ({"NCCL_IB_HCA": "mlx5_0"}, ["disable ACS"], True),
                                ({}, ["unset NCCL_P2P_DISABLE (or NCCL_P2P_DISABLE=0)"], True)):
        root = {"id": "gpu.p2p", "role": "root", "matches": [{"line": 1, "text": "x"}],
                "causes": [{"exports": exports, "fix": fix}]}
        result = {"findings": [root], "context": [], "verdict": "root_cause"}
        symptoms.judge(result, None, KB)
        assert bool(result["context"]) is noted

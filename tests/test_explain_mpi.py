"""MPICH / Hydra messages (issue 18): the errors MPICH (and Intel MPI, MVAPICH) can print, read from their
source (tools/gen_mpich_messages.py over pmodels/mpich; its slice tools/data/mpich_messages_slice.txt keeps
the parts used here with their line numbers). The generator regenerates the committed sites; real texts from
public threads (cited per text) get their entry through the CLI; texts that only say a rank died name the
echo and, for signal 9, the OOM killer as a cause with its evidence; a healthy mpiexec run gives no root cause.
"""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLICE = os.path.join(REPO, "tools", "data", "mpich_messages_slice.txt")
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_mpich_messages as gen  # noqa: E402
import knowgen  # noqa: E402
from explainhelp import explain_paste, ids, root_id  # noqa: E402

REAL = {
    # https://github.com/mcdc-project/mcdc/issues/148 (MPICH under srun on LLNL Quartz)
    "hydra_no_route_mcdc148": (
        '[proxy:0:23@quartz2664] HYDU_sock_connect (lib/utils/sock.c:140): unable to connect from "quartz2664" to '
        '"quartz79" (No route to host)\n'
        "[proxy:0:23@quartz2664] main (proxy/pmip.c:105): unable to connect to server quartz79 at port 43377 (check "
        "for firewalls!)\nsrun: error: quartz2664: task 23: Exited with exit code 5\n", "mpi.mpich_launch"),
    # https://github.com/open-mpi/ompi/issues/7187 (MPICH 3.3 hydra on Raspberry Pis: the master's name does not resolve)
    "hydra_host_address_ompi7187": (
        "HYDU_sock_connect (/opt/mpi-dl/mpich-3.3/src/pm/hydra/utils/sock/sock.c:145): unable to get host address "
        "for Master (4)\n[proxy:0:0@Slave1] main (/opt/mpi-dl/mpich-3.3/src/pm/hydra/pm/pmiserv/pmip.c:183): unable "
        "to connect to server Master at port 40677 (check for firewalls!)\n", "mpi.hostname"),
    # https://github.com/openai/jukebox/issues/155 (mpiexec -n 2 python sample.py: killed, RAM)
    "bad_termination_sigkill_jukebox155": (
        "===================================================================================\n"
        "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n=   PID 9665 RUNNING AT NeuroRTX6000\n"
        "=   EXIT CODE: 9\n=   CLEANING UP REMAINING PROCESSES\n=   YOU CAN IGNORE THE BELOW CLEANUP MESSAGES\n"
        "===================================================================================\n"
        "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Killed (signal 9)\n"
        "This typically refers to a problem with your application.\n"
        "Please see the FAQ page for debugging suggestions\n", "mpi.rank_died"),
    # https://github.com/pmodels/mpich/issues/6547 (MPICH 4.1 from brew, no network: fi_fabric fails; fixed by
    # naming a provider, pmodels/mpich#6558)
    "ofi_fabric_mpich6547": (
        "Abort(337237391): Fatal error in internal_Init_thread: Other MPI error, error stack:\n"
        "internal_Init_thread(67).: MPI_Init_thread(argc=0x7ffee0cd3980, argv=0x7ffee0cd3988, required=0, "
        "provided=0x7ffee0cd3984) failed\nMPII_Init_thread(234)....: \nMPID_Init(513)...........: \n"
        "MPIDI_OFI_init_local(580): OFI fi_fabric failed (ofi_init.c:580:MPIDI_OFI_init_local:Invalid argument)\n",
        "mpi.ofi_provider"),
    # https://github.com/JCSDA-internal/soca/issues/682 (Intel MPI under srun on Hera: no provider fits)
    "ofi_addrinfo_soca682": (
        "3: Abort(1091215) on node 0 (rank 0 in comm 0): Fatal error in PMPI_Init: Other MPI error, error stack:\n"
        "3: MPIR_Init_thread(136)........:\n3: MPID_Init(1138)..............:\n"
        "3: MPIDI_OFI_mpi_init_hook(1061): OFI addrinfo() failed (ofi_init.c:1061:MPIDI_OFI_mpi_init_hook:No data "
        "available)\n", "mpi.ofi_provider"),
}

# https://github.com/pmodels/mpich/blob/main/doc/wiki/how_to/Using_the_Hydra_Process_Manager.md (cpi's output)
HEALTHY = ("$ mpiexec -f hostfile -n 4 ./examples/cpi\nProcess 0 of 4 is on node1\nProcess 1 of 4 is on node1\n"
           "Process 2 of 4 is on node2\nProcess 3 of 4 is on node2\n"
           "pi is approximately 3.1415926544231239, Error is 0.0000000008333307\nwall clock time = 0.002218\n")


def _answer(cli, text, tmp_path, name="log.txt"):
    return explain_paste(cli, tmp_path, text, "--file", name=name, rcs=(0, 1))[1]


def test_generator_regenerates_the_committed_sites_from_the_slice(tmp_path):
    got = knowgen.regenerated(gen.main, SLICE, tmp_path / "mpich_messages.json")
    full = knowgen.committed("mpich_messages")
    assert full["header"]["version"].startswith(got["header"]["version"])
    assert "commit " in got["header"]["version"] and "older texts from v4" in full["header"]["version"]
    by_text = {(s["kind"], s["text"]): s for s in full["sites"] if not s.get("until")}
    for s in got["sites"]:
        ref = by_text[(s["kind"], s["text"])]
        assert {k: v for k, v in s.items() if k not in ("id", "where")} == \
            {k: v for k, v in ref.items() if k not in ("id", "where")}, s["id"]
    fam = {s["text"]: s["family"] for s in got["sites"]}
    assert fam['unable to connect from "%s" to "%s" (%s)'] == "mpi.mpich_launch"
    assert fam["unable to find interface %s"] == "mpi.mpich_iface"
    assert fam["No valid libfabric provider"] == "mpi.ofi_provider"
    assert fam["BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES"] == "mpi.rank_died"
    assert fam["assert (!closed) failed"] == "mpi.rank_died"
    assert fam["Communication error with rank %d"] == "mpi.transport"
    assert fam["Message truncated; %d bytes received but buffer size is %d"] == "mpi.usage"
    # older releases' texts are kept with the last tag that prints them
    old = {s["text"]: s for s in full["sites"] if s.get("until")}
    assert old["OFI addrinfo() failed (%s:%d:%s:%s)"]["family"] == "mpi.ofi_provider"
    assert full["unassigned"] and all(not s["family"] for s in full["sites"] if s["id"] in set(full["unassigned"]))


def test_short_texts_need_mpich_line_shape():
    sites = {(s["kind"], s["text"]): s for s in knowgen.committed("mpich_messages")["sites"] if not s.get("until")}
    oom = re.compile(sites[("errname", "Out of memory")]["re"])
    assert oom.search("MPIR_Bsend_attach(123)......: Out of memory")
    assert not oom.search("python: Out of memory")
    iface = re.compile(sites[("hydra", "unable to find interface %s")]["re"])
    assert iface.search("[mpiexec@n1] HYDU_sock_get_iface_ip (lib/utils/sock.c:447): unable to find interface ib0")
    assert not iface.search("unable to find interface ib0")
    # libfabric's memory registration is the memlock limit only when the errno's text says ENOMEM
    reg = re.compile(sites[("ofi_call", "OFI call mr_reg failed (default nic=%s: %s)")]["re"])
    line = "MPIDI_OFI_mr_reg(88)....: OFI call mr_reg failed (default nic=mlx5_0: %s)"
    assert reg.search(line % "Cannot allocate memory") and not reg.search(line % "Bad address")


def test_real_mpich_texts_get_their_entry(cli, tmp_path):
    for name, (text, want) in REAL.items():
        doc = _answer(cli, text, tmp_path, name + ".txt")
        assert root_id(doc) == want, (name, ids(doc))
    doc = _answer(cli, REAL["bad_termination_sigkill_jukebox155"][0], tmp_path)
    first = doc["findings"][0]["causes"][0]
    assert "OOM" in first["text"] and first["evidence"], first
    assert any("dmesg" in c for c in first["confirm"])
    doc = _answer(cli, REAL["hydra_no_route_mcdc148"][0], tmp_path)
    assert doc["findings"][0]["confidence"] == "family"
    assert "firewall" in doc["findings"][0]["causes"][0]["text"]  # 'No route to host' is its evidence


def test_healthy_mpiexec_run_gives_no_error(cli, tmp_path):
    doc = _answer(cli, HEALTHY, tmp_path)
    assert doc["verdict"] == "no_error" and not doc["findings"], doc["findings"]


# ---------------------------------------------------------------- horovod (tools/gen_horovod_messages.py)

HVD_SLICE = os.path.join(REPO, "tools", "data", "horovod_messages_slice.txt")
import gen_horovod_messages as hgen  # noqa: E402

HVD_REAL = {
    # https://github.com/horovod/horovod/issues/2803 (horovodrun into a docker container's sshd on port 12345)
    "ssh_check_2803": (
        "Filtering local host names.\nRemote host found: xxxx\nChecking ssh on all remote hosts.\n"
        "ssh not successful for host xxxx:\nssh: connect to host xxxx port 12345: Connection timed out\n\n\n"
        "Traceback (most recent call last):\n  File \"/usr/local/bin/horovodrun\", line 8, in <module>\n"
        "    sys.exit(run_commandline())\n  File \"/usr/local/lib/python3.7/dist-packages/horovod/runner/launch.py\", "
        "line 586, in _run_static\n    raise RuntimeError('could not connect to some hosts via ssh')\n"
        "RuntimeError: could not connect to some hosts via ssh\n", "horovod.ssh"),
    # https://github.com/horovod/horovod/issues/2564 (TF 2.4, horovod 0.21.0: rank 1 missing)
    "stall_2564": (
        "[2020-12-30 16:35:15.181832: W /tmp/pip-req-build-12flcl_u/horovod/common/stall_inspector.cc:105] One or "
        "more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for "
        "remainder of ranks for more than 60 seconds. This may indicate that different ranks are trying to submit "
        "different tensors or that only subset of ranks is submitting tensors, which will cause deadlock.\n"
        "Missing ranks:\n1: [DistributedGradientTape_Allreduce/cond_163/then/_1304/DistributedGradientTape_Allreduce/"
        "cond_163/HorovodAllreduce_AddN_103_0]\n", "horovod.stall"),
    # https://github.com/NVIDIA/DeepLearningExamples/issues/972 (NCF with horovod: every rank's echo)
    "shutdown_dle972": (
        "2021-07-22 05:04:29.589233: W tensorflow/core/framework/op_kernel.cc:1651] OP_REQUIRES failed at "
        "mpi_ops.cc:316 : Unknown: Horovod has been shut down. This was caused by an exception on one of the ranks or "
        "an attempt to allreduce, allgather or broadcast a tensor after one of the ranks finished execution. If the "
        "shutdown was caused by an exception, you should see the exception in the log before the first shutdown "
        "message.\n", "horovod.shutdown"),
}


def test_horovod_generator_regenerates_the_committed_sites_from_the_slice(tmp_path):
    got = knowgen.regenerated(hgen.main, HVD_SLICE, tmp_path / "horovod_messages.json")
    full = knowgen.committed("horovod_messages")
    assert full["header"]["version"] == got["header"]["version"] and "commit " in got["header"]["version"]
    by_text = {s["text"]: s for s in full["sites"]}
    for s in got["sites"]:
        # a text printed at several places is kept once, where the whole tree shows it first (its level there)
        assert {k: v for k, v in s.items() if k not in ("id", "where", "level")} == \
            {k: v for k, v in by_text[s["text"]].items() if k not in ("id", "where", "level")}, s["id"]
    def fam(start):
        return next(s["family"] for s in got["sites"] if s["text"].startswith(start))

    assert fam("One or more tensors were submitted to be reduced") == "horovod.stall"
    assert fam("Horovod has been shut down. This was caused") == "horovod.shutdown"
    assert fam("Mismatched data types: One rank had type") == "horovod.mismatch"
    assert fam("Unable to find a set of common task-to-task") == "horovod.network_interface"
    assert fam("ssh not successful for host %s: %s") == "horovod.ssh"
    # a warning is context, and a fragment of the stall report ('Missing ranks:' entries) is no message
    assert fam("HOROVOD_STALL_SHUTDOWN_TIME_SECONDS is less") is None
    assert all(s["re"] is None for s in got["sites"] if len(s["text"]) < 16)


def test_real_horovod_texts_get_their_entry(cli, tmp_path):
    for name, (text, want) in HVD_REAL.items():
        doc = _answer(cli, text, tmp_path, name + ".txt")
        assert root_id(doc) == want, (name, ids(doc))
    doc = _answer(cli, HVD_REAL["shutdown_dle972"][0], tmp_path)
    assert doc["verdict"] == "echo_only"
    doc = _answer(cli, HVD_REAL["stall_2564"][0], tmp_path)
    assert any("same number of steps" in x for c in doc["findings"][0]["causes"] for x in c["fix"])


# ---------------------------------------------------------------- Open MPI's reports, and MPI text no site matches

OMPI_REAL = {
    # https://github.com/open-mpi/ompi/issues/2661 (NAS BT class E on 64 GB nodes; the maintainer: check dmesg for the
    # OOM killer, and each rank needed 98 GB)
    "ompi_signal9_2661": (
        "[puneet@host02 bin]$ mpirun -np 4 -npernode 1 -machinefile hosts.txt ./bt.E.4.mpi_io_full\n"
        "mpirun noticed that process rank 0 with PID 21183 on node host01 exited on signal 9 (Killed).\n",
        "mpi.rank_died"),
    # https://github.com/cBio/cbio-cluster/issues/256 (MPICH: exit code 9 after two days, the proxy's socket closes)
    "hydra_exit9_cbio256": (
        "===================================================================================\n\n"
        "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n\n=   EXIT CODE: 9\n\n"
        "=   CLEANING UP REMAINING PROCESSES\n\n=   YOU CAN IGNORE THE BELOW CLEANUP MESSAGES\n\n"
        "===================================================================================\n\n"
        "[proxy:0:0@cpu-6-2.local] HYD_pmcd_pmip_control_cmd_cb (./pm/pmiserv/pmip_cb.c:883): assert (!closed) failed\n"
        "\n[proxy:0:0@cpu-6-2.local] HYDT_dmxu_poll_wait_for_event (./tools/demux/demux_poll.c:77): callback returned "
        "error status\n", "mpi.rank_died"),
    # https://github.com/open-mpi/ompi/issues/1620 (Open MPI 1.7 alltoallv over TCP: peers reset their connections)
    "btl_tcp_reset_ompi1620": (
        "[node12][[17490,1],60][btl_tcp_endpoint.c:457:mca_btl_tcp_endpoint_recv_blocking] recv(31) failed: "
        "Connection reset by peer (104)\n"
        "[node12][[17490,1],36][btl_tcp_endpoint.c:457:mca_btl_tcp_endpoint_recv_blocking] recv(92) failed: "
        "Connection reset by peer (104)\n", "mpi.transport"),
    # https://github.com/open-mpi/ompi/pull/7735 (a comment's log: PMIx's server cannot reach a peer; PMIx's own
    # code table, generated/pmix_errors.json, names it: tests/test_explain_pmix.py)
    "pmix_unreachable_ompi7735": (
        "[ip-172-31-1-68:27726] PMIX ERROR: UNREACHABLE in file server/pmix_server.c at line 2257\n"
        "[ip-172-31-1-68:27726] PMIX ERROR: UNREACHABLE in file server/pmix_server.c at line 2257\n", "mpi.pmix"),
}


def test_real_open_mpi_reports_get_their_entry(cli, tmp_path):
    for name, (text, want) in OMPI_REAL.items():
        doc = _answer(cli, text, tmp_path, name + ".txt")
        assert root_id(doc) == want, (name, ids(doc))
    doc = _answer(cli, OMPI_REAL["ompi_signal9_2661"][0], tmp_path)
    assert doc["verdict"] == "echo_only" and "OOM" in doc["findings"][0]["causes"][0]["text"]
    assert doc["findings"][0]["causes"][0]["evidence"]  # 'exited on signal 9'
    # the reset alone names the family, never one cause (the peer died, an interface, the fabric)
    doc = _answer(cli, OMPI_REAL["btl_tcp_reset_ompi1620"][0], tmp_path)
    assert doc["findings"][0]["confidence"] == "family"


def test_mpi_text_no_site_matches_gets_implementation_and_family(cli, tmp_path):
    """Made-up lines in each implementation's own shape (their formats: MPICH's hydra.h HYDU_error_printf,
    Open MPI's ORTE_ERROR_LOG, UCX's log.c): the implementation and the family are named, how sure: low."""
    cases = {
        "[mpiexec@node1] HYD_new_step (lib/tools/bootstrap/src/bsci_launch.c:12): frobnicating the widget failed\n":
            ("mpi.mpich_launch", "MPICH"),
        "[n1:4242] [[12345,0],0] ORTE_ERROR_LOG: Not found in file plm_rsh_module.c at line 999\n":
            ("mpi.launch", "Open MPI"),
        # (PMIx's own 'PMIX ERROR: <code> in file' lines are known now: mpi.pmix, tests/test_explain_pmix.py)
    }
    for text, (want, impl) in cases.items():
        doc = _answer(cli, text, tmp_path)
        f = doc["findings"][0]
        assert f["id"] == want and f["confidence"] == "structural", (text, f["id"], f["confidence"])
        assert any(impl in n for n in f["notes"]) and any("dmesg" in n for n in f["notes"]), f["notes"]
    # an MPI line that only reports (a verbose launch) is no error
    doc = _answer(cli, "[mpiexec@node1] Launch arguments: /usr/bin/hydra_pmi_proxy --control-port node1:41337 "
                       "--rmk user --launcher ssh\n[node1:12345] select: initializing btl component tcp\n", tmp_path)
    assert doc["verdict"] == "no_error", doc["findings"]


# ---------------------------------------------------------------- PRRTE (Open MPI 5's runtime), tools/gen_prrte_help.py

PRRTE_SLICE = os.path.join(REPO, "tools", "data", "prrte_help_slice.txt")


def test_prrte_generator_regenerates_the_committed_topics_and_skips_the_manuals(tmp_path):
    import gen_prrte_help

    got = knowgen.regenerated(gen_prrte_help.main, PRRTE_SLICE, tmp_path / "prrte_help.json")
    full = knowgen.committed("prrte_help")
    assert full["header"]["version"] == got["header"]["version"] and "commit " in got["header"]["version"]
    by_id = {s["id"]: s for s in full["sites"]}
    assert got["sites"] and all(s == by_id[s["id"]] for s in got["sites"])
    fam = {s["id"]: s["family"] for s in got["sites"]}
    assert fam == {"prrte.errmgr-base.node_died": "mpi.launch", "prrte.prun.prun_proc_aborted_strsignal": "mpi.rank_died"}
    # the slice's [np] topic is prun's --help text for -np, no error
    assert not any(s["text"].startswith("Specify number of application processes") for s in full["sites"])


def test_real_prterun_signal9_is_the_rank_died_echo(cli, tmp_path):
    # https://github.com/open-mpi/ompi/issues/12599 (Open MPI 5 / PRRTE: the topic's text wraps 'exited on' / 'signal 9')
    text = ("--------------------------------------------------------------------------\n"
            "prterun noticed that process rank 0 with PID 3927 on node c1de8f727368 exited on\n"
            "signal 9 (Killed).\n"
            "--------------------------------------------------------------------------\n")
    doc = _answer(cli, text, tmp_path)
    assert root_id(doc) == "mpi.rank_died", ids(doc)
    doc = _answer(cli, "PRTE has lost communication with a remote daemon.\n\n  HNP daemon   : [prterun-n1-42@0,0] on "
                       "node n1\n  Remote daemon: [prterun-n1-42@0,1] on node n2\n", tmp_path)
    assert doc["findings"][0]["id"] == "mpi.launch" and doc["findings"][0]["confidence"] == "family"


# ---------------------------------------------------------------- Open MPI's own formats, tools/gen_ompi_messages.py

OMPI_SLICE = os.path.join(REPO, "tools", "data", "ompi_messages_slice.txt")


def test_ompi_messages_generator_regenerates_the_committed_sites(tmp_path):
    import gen_ompi_messages

    got = knowgen.regenerated(gen_ompi_messages.main, OMPI_SLICE, tmp_path / "ompi_messages.json")
    full = knowgen.committed("ompi_messages")
    assert full["header"]["version"] == got["header"]["version"] and "commit " in got["header"]["version"]
    by_text = {s["text"]: s for s in full["sites"]}
    for s in got["sites"]:
        assert {k: v for k, v in s.items() if k not in ("id", "where")} == \
            {k: v for k, v in by_text[s["text"]].items() if k not in ("id", "where")}, s["id"]
    fam = {s["text"]: s["family"] for s in got["sites"]}
    assert fam["mca_btl_tcp_frag_recv: readv failed: %s (%d)"] == "mpi.transport"
    assert fam["failed to register memory. errno = %d"] == "rdma.memlock"
    assert fam["ucp_ep_create(proc=%d) failed: %s"] == "mpi.transport"
    # BTL_ERROR's own prefix is part of the matcher: the words alone are not the site
    rx = re.compile(next(s["re"] for s in got["sites"] if s["text"].startswith("mca_btl_tcp_frag_recv")))
    assert rx.search("[n1][[20066,1],24][btl_tcp_frag.c:215:mca_btl_tcp_frag_recv] mca_btl_tcp_frag_recv: readv "
                     "failed: Connection reset by peer (104)")
    assert not rx.search("mca_btl_tcp_frag_recv: readv failed: Connection reset by peer (104)")


def test_stall_beside_a_killed_rank_names_the_dead_rank_first(cli, tmp_path):
    # the stall warning of horovod/horovod#2564 and the mpirun line of open-mpi/ompi#2661 in one text (composed here)
    text = HVD_REAL["stall_2564"][0] + OMPI_REAL["ompi_signal9_2661"][0]
    doc = _answer(cli, text, tmp_path)
    root = doc["findings"][0]
    assert root["id"] == "horovod.stall" and "died" in root["causes"][0]["text"], root["causes"][0]["text"]
    assert any(f["id"] == "mpi.rank_died" for f in doc["findings"][1:])


def test_an_mpich_stack_no_site_matches_is_read_from_its_innermost_line(cli, tmp_path):
    # made-up texts in the format of MPICH's error stack (src/mpi/errhan/errutil.c): the outer lines name calls,
    # the innermost line what failed; its words name the family (here the network module: transport)
    text = ("MPIR_Init_thread(586)..............:\nMPID_Init(224).....................: frobnication of the device "
            "failed\nMPIDI_XYZ_new_init(105)............: frobnicating the fabric widget failed (widget.c:12:No data "
            "available)\n")
    f = _answer(cli, text, tmp_path)["findings"][0]
    assert f["id"] == "mpi.transport" and f["confidence"] == "structural", (f["id"], f["confidence"])
    assert f["first_line"] == 3 and "frobnicating the fabric" in f["matches"][0]["text"]


def test_intel_mpi_bootstrap_failure_is_the_launch_not_a_dead_rank(cli, tmp_path):
    # https://github.com/Azure/az-hop/issues/906 (Intel MPI 2021.4's Hydra cannot start hydra_bstrap_proxy): its
    # 'error waiting for event' is also MPICH Hydra's echo of a closed proxy; the unknown launch line beside it wins
    text = (
        "Loading impi version 2021.4.0\n"
        "[mpiexec@hb120v3-3] check_exit_codes (../../../../../src/pm/i_hydra/libhydra/demux/hydra_demux_poll.c:117): "
        "unable to run bstrap_proxy on hb120v3-3.internal.cloudapp.net (pid 12608, exit code 256)\n"
        "[mpiexec@hb120v3-3] poll_for_event (../../../../../src/pm/i_hydra/libhydra/demux/hydra_demux_poll.c:159): "
        "check exit codes error\n"
        "[mpiexec@hb120v3-3] HYD_bstrap_setup (../../../../../src/pm/i_hydra/libhydra/bstrap/src/intel/"
        "i_hydra_bstrap.c:1062): error waiting for event\n")
    doc = _answer(cli, text, tmp_path)
    f = doc["findings"][0]
    assert doc["verdict"] == "likely_cause" and f["id"] == "mpi.mpich_launch" and f["first_line"] == 2, f["id"]
    assert any("Intel MPI" in n for n in f["notes"])

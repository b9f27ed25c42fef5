"""Slurm message sites assigned by their SOURCE CONTEXT (issue 18, assign-sites): tools/gen_slurm_messages.py's
CONTEXT_RULES give a site printed at an error level the family of the part of Slurm that prints it (slurmd /
slurmstepd / slurmctld -> slurm.daemon, the configuration readers -> slurm.config, the commands -> slurm.error ...:
gpudoctor/data/knowledge/slurm_context.toml), unless its own words are too few (VAGUE), it reports a task's exit
status, or it is an info/warning line (NOT_A_FAILURE). Such a site names the family, not the cause: explain answers
it with confidence "family" and the family's ways to tell the causes apart. The real texts are from the public
threads cited above each; the lines composed from a format say so.
"""

import importlib.util
import os

import pytest
from explainhelp import assert_root

from gpudoctor import explain

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _generator():
    spec = importlib.util.spec_from_file_location("gen_slurm_messages", os.path.join(REPO, "tools",
                                                                                     "gen_slurm_messages.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def sliced(tmp_path_factory):
    gen = _generator()
    import knowgen  # tools/ is on the path once the generator is loaded

    doc = knowgen.regenerated(gen.main, os.path.join(REPO, "tools", "data", "slurm_messages_slice.txt"),
                              str(tmp_path_factory.mktemp("slurm") / "slurm_messages.json"))
    return gen, {s["where"]: s for s in doc["sites"]}


@pytest.mark.parametrize("where,rule,family", [
    ("src/slurmd/slurmstepd/mgr.c:2176", "ctx-daemon", "slurm.daemon"),
    ("src/slurmd/slurmd/req.c:902", "ctx-daemon", "slurm.daemon"),
    ("src/common/read_config.c:2265", "ctx-config", "slurm.config"),
    ("src/api/step_io.c:520", "ctx-comm", "slurm.communication"),
    ("src/api/allocate.c:208", "ctx-client", "slurm.error"),
    ("src/api/pmi_server.c:493", "ctx-mpi", "slurm.mpi"),
    ("src/plugins/task/cgroup/task_cgroup_cpuset.c:92", "ctx-cgroup", "slurm.cgroup"),
])
def test_a_site_no_word_rule_assigns_gets_the_family_of_its_source_file(sliced, where, rule, family):
    site = sliced[1][where]
    assert (site["rule"], site["family"]) == (rule, family)


def test_vague_exit_status_and_info_sites_stay_unassigned_and_say_why(sliced):
    gen, sites = sliced
    # '%s: invalid %pI' (slurmctld's proc_req.c): two words of its own would match any 'Batch job submission failed:
    # Invalid account ...' line
    assert (sites["src/slurmctld/proc_req.c:2699"]["rule"], sites["src/slurmctld/proc_req.c:2699"]["family"]) == \
        (gen.VAGUE, None)
    assert sites["src/srun/launch.c:388"]["family"] is None
    assert sites["src/srun/launch.c:388"]["rule"].startswith("not a failure")
    assert (sites["src/api/allocate.c:1376"]["rule"], sites["src/api/allocate.c:1376"]["family"]) == \
        (gen.NOT_A_FAILURE, None)
    assert gen.specific_enough("exec of slurmstepd failed: %m")
    assert not gen.specific_enough("%s: address family not supported")  # strerror(EAFNOSUPPORT)'s words


CASES = [
    # https://github.com/ovis-hpc/ldms/issues/778 (slurmd.log of a step with job_container/tmpfs)
    ("container-join",
     "[2021-08-25T09:09:02.858] [15.0] debug:  job_container/tmpfs: _read_slurm_jc_conf: Reading job_container.conf "
     "file /etc/slurm/job_container.conf\n"
     "[2021-08-25T09:09:02.859] [15.0] error: container_p_join: setns failed for /slurm-tmp/15/.ns: Invalid argument\n"
     "[2021-08-25T09:09:02.859] [15.0] error: container_g_join failed: 15\n"
     "[2021-08-25T09:09:02.861] [15.0] task 0 (12064) exited with exit code 1.\n", "slurm.daemon"),
    # https://github.com/MITIBMxGraph/SALIENT_artifact/issues/2
    ("forkexec", "error: _forkexec_slurmstepd: slurmstepd failed to send return code got 0: No error\n", "slurm.daemon"),
    # https://github.com/lyulyul/shine-cluster/issues/29
    ("taskset",
     "slurmstepd-eureka: error: task/cgroup: hwloc_get_obj_below_by_type() failing, task/affinity plugin may be "
     "required to address bug fixed in HWLOC version 1.11.5\n"
     "slurmstepd-eureka: error: task/cgroup: task[0] unable to set taskset '0x0'\n", "slurm.cgroup"),
]


@pytest.mark.parametrize("name,text,family", CASES, ids=[c[0] for c in CASES])
def test_a_context_assigned_line_names_its_family_not_a_cause(kb, name, text, family):
    root = assert_root(explain.explain_text(text, kb), verdict="root_cause", entry=family, confidence="family")
    assert len(root["causes"]) >= 2  # the ways to tell the causes apart


def test_the_plugin_cause_leads_where_the_line_names_a_container_plugin(kb):
    root = explain.explain_text(CASES[0][1], kb)["findings"][0]
    assert "plugin" in root["causes"][0]["text"]


@pytest.mark.parametrize("text", [
    # composed from NCCL's 'Socket creation failed : %s' (src/include/socket.h) and glibc's strerror(EAFNOSUPPORT)
    "include/socket.h:344 WARN Socket creation failed : Address family not supported by protocol\n",
    # composed from srun's 'srun: error: %s: %s %s: Exited with exit code %d' (src/srun/launch.c)
    "srun: error: node1: task 0: Exited with exit code 1\n",
])
def test_lines_that_only_share_a_context_sites_words_match_no_slurm_message(kb, text):
    # (srun's exit line alone still gets the structural 'a Slurm error line' answer, as before: no site of it)
    got = explain.explain_text(text, kb)["findings"]
    assert not [n for f in got for n in f["notes"] if n.startswith("Known message of Slurm")], got and got[0]["notes"]


def test_torch_raises_no_word_rule_assigns_get_their_subsystems_family():
    from explainhelp import generated_sites

    got = {s["where"]: (s["rule"], s["family"]) for s in generated_sites("torch_core_messages")}
    assert got["torch/_dynamo/eval_frame.py:916"] == ("ctx-compile", "torch.compile_error")
    assert got["torch/utils/cpp_extension.py:701"] == ("ctx-extension", "build.extension")
    assert got["torch/_weights_only_unpickler.py:466"] == ("ctx-unpickler", "torch.checkpoint_load")
    assert got["torch/serialization.py:803"] == ("ctx-serialization", "torch.usage")
    assert got["torch/_dynamo/exc.py:1165"][1] is None  # 'WON'T CONVERT ...': Dynamo falls back to eager and goes on
    assert got["torch/_weights_only_unpickler.py:557"][1] is None  # 'negative argument': too few words of its own


@pytest.mark.parametrize("text,family", [
    # composed from torch 2.1.0's torch/_dynamo/exc.py InvalidBackend format ('Invalid backend: %s, see ...'; the
    # wording pytorch/pytorch#189333 quotes is the later one, with '. See')
    ("torch._dynamo.exc.InvalidBackend: Invalid backend: 'indutcor', see `torch._dynamo.list_backends()` for "
     "available backends.\n", "torch.compile_error"),
    # composed from torch/utils/cpp_extension.py's raise
    ("RuntimeError: setuptools>=49.4.0 is required\n", "build.extension"),
])
def test_a_torch_context_site_answers_its_family(kb, text, family):
    root = assert_root(explain.explain_text(text, kb), verdict="root_cause", entry=family, confidence="family")
    assert root["causes"] and root["causes"][0]["fix"]


def test_ucx_completion_syndromes_get_the_completion_family_and_the_syndromes_cause(kb):
    from explainhelp import generated_sites

    got = {s["text"]: (s["rule"], s["family"]) for s in generated_sites("ucx_messages") if s.get("kind") == "cqe"}
    assert got["Local protection error"] == ("ctx-cqe", "rdma.completion_error")
    assert got["WR flushed because QP in error state"][1] is None  # logged at trace level: the echo
    # composed from src/uct/ib/mlx5/ib_mlx5_log.c's '%s on <dev>:<port>/IB (synd 0x%x vend 0x%x hw_synd %d/%d)' in
    # UCX's log-line layout (the syndrome and vendor values of openucx/ucx#9515, whose older UCX wrote
    # 'Local protection on')
    text = ("[1701292112.836500] [a670n1:162239:0]     ib_mlx5_log.c:177  UCX  ERROR Local protection error on "
            "mlx5_0:1/IB (synd 0x4 vend 0x51 hw_synd 0/2)\n")
    root = assert_root(explain.explain_text(text, kb), verdict="root_cause", entry="rdma.completion_error",
                       confidence="family")
    assert "nvidia_peermem" in root["causes"][0]["fix"][0]


def test_ucx_completion_error_in_the_fatal_handlers_line_and_older_wording(kb):
    # https://github.com/openucx/ucx/issues/9515 (GPU RDMA ping-pong, UCX_IB_GPU_DIRECT_RDMA=1): an older UCX's
    # 'Local protection' through ucs_handle_error's line, which carries no 'UCX ERROR'
    text = ("[1701292112.836497] [a670n1:162239:0]          ucp_ep.c:1508 UCX  DIAG  ep 0x7f1eac0b5108: error "
            "'Input/output error' on rc_mlx5/mlx5_0:1 will not be handled since no error callback is installed\n"
            "[a670n1:162239:0:162239] ib_mlx5_log.c:177  Local protection on mlx5_0:1/IB (synd 0x4 vend 0x51 "
            "hw_synd 0/2)\n"
            "[a670n1:162239:0:162239] ib_mlx5_log.c:177  RC QP 0x169 wqe[3]: SEND s-- [inl len 10] [va 0x7f1c3c800000 "
            "len 1 lkey 0xb5d2] [rqpn 0x169 dlid=12 sl=0 port=1 src_path_bits=0]\n")
    root = assert_root(explain.explain_text(text, kb), verdict="root_cause", entry="rdma.completion_error",
                       confidence="family")
    assert "nvidia_peermem" in root["causes"][0]["fix"][0]

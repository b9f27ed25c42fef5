"""The Slurm daemons' side of a GPU cluster, as admins paste it from slurmd.log, slurmctld.log,
`scontrol show node` and `sinfo -R` (gpudoctor/data/knowledge/slurm_nodes.toml; the sites come from
tools/gen_slurm_messages.py: slurmd.c, node_conf.c, slurmctld's node_mgr.c / proc_req.c /
ping_nodes.c, interfaces/gres.c, the cgroup plugins, and the node reasons slurmctld sets, and from
tools/gen_slurm_errors.py: ESLURMD_KILL_TASK_FAILED). Every text in CASES is a real one from the public
thread cited above it (none from the held-out sets: threads that the held-out tables of docs/explain.md name are
left out); lines composed from a format say so; each gets its family and the fix an admin
applies. The generators' regeneration from their slices is tests/test_explain_generated.py.
"""

import json
import os
import re

import pytest
from explainhelp import assert_root

from gpudoctor import explain
from gpudoctor.explain.knowledge import open_generated

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = os.path.join(REPO, "gpudoctor", "data", "knowledge", "generated")

CASES = [
    # https://github.com/GoogleCloudPlatform/cluster-toolkit/issues/1600 (slurmd on the controller host)
    ("nodename",
     "Aug 09 22:11:24 hpccameco-controller systemd[1]: Started Slurm node daemon.\n"
     "Aug 09 22:11:24 hpccameco-controller slurmd[3136]: slurmd: fatal: Unable to determine this slurmd's NodeName\n"
     "Aug 09 22:11:24 hpccameco-controller systemd[1]: slurmd.service: main process exited, code=exited, "
     "status=1/FAILURE\n",
     "slurm.node_name", "slurmd -N"),
    # https://github.com/aws-samples/aws-eda-slurm-cluster/issues/267
    ("conf-hash",
     "[2024-10-22T12:31:09.580] error: Node sp-r7a-m-dy-sp-8-gb-1-cores-1 appears to have a different slurm.conf "
     "than the slurmctld.  This could cause issues with communication and functionality.  Please review both files "
     "and make sure they are the same.  If this is expected ignore, and set DebugFlags=NO_CONF_HASH in your "
     "slurm.conf.\n[2024-10-22T12:31:09.580] Node sp-r7a-m-dy-sp-8-gb-1-cores-1 now responding\n",
     "slurm.conf_mismatch", "scontrol reconfigure"),
    # https://github.com/ComputeCanada/puppet-magic_castle/issues/361 (a MIG layout changed from 4 to 3)
    ("gres-log",
     "May 23 12:49:52 mgmt1 slurmctld[80708]: slurmctld: _node_config_validate: gres/gpu: Count changed on node "
     "nodegpu1 (4 != 3)\n"
     "May 23 12:49:52 mgmt1 slurmctld[80708]: slurmctld: error: Setting node nodegpu1 state to INVAL with "
     "reason:gres/gpu count reported lower than configured (3 < 4)\n"
     "May 23 12:49:52 mgmt1 slurmctld[80708]: slurmctld: drain_nodes: node nodegpu1 state set to DRAIN\n"
     "May 23 12:49:52 mgmt1 slurmctld[80708]: slurmctld: error: _slurm_rpc_node_registration node=nodegpu1: "
     "Invalid argument\n",
     "slurm.node_gres", "Gres=gpu:N"),
    # https://github.com/aws-samples/aws-plugin-for-slurm/issues/10 (sinfo -R cuts the reason to 20 characters)
    ("low-socket-sinfo",
     "REASON               USER      TIMESTAMP           NODELIST\n"
     "Low socket*core*thre root      2019-05-07T18:16:10 ip-10-0-1-[6-7]\n",
     "slurm.node_resources", "slurmd -C"),
    # https://github.com/clustervision/trinity/issues/332 (containers of 1 CPU configured with 20)
    ("low-socket-log",
     "[2015-07-01T12:05:29.971] error: Node c001 appears to have a different slurm.conf than the slurmctld.  This "
     "could cause issues with communication and functionality.  Please review both files and make sure they are "
     "the same.  If this is expected ignore, and set DebugFlags=NO_CONF_HASH in your slurm.conf.\n"
     "[2015-07-01T12:05:29.971] error: Node c001 has low socket*core*thread count (1 < 20)\n"
     "[2015-07-01T12:05:29.971] error: Node c001 has low cpu count (1 < 20)\n"
     "[2015-07-01T12:05:29.971] error: _slurm_rpc_node_registration node=c001: Invalid argument\n",
     "slurm.node_resources", "CoresPerSocket"),
    # https://github.com/Azure/cyclecloud-slurm/issues/412 (slurmd.c's check of slurm.conf against the hardware)
    ("differs-from-hardware",
     "error: Node configuration differs from hardware: CPUs=4:8(hw) Boards=1:1(hw) SocketsPerBoard=2:1(hw) "
     "CoresPerSocket=1:4(hw) ThreadsPerCore=2:2(hw)\n",
     "slurm.node_resources", "slurmd -C"),
    # https://github.com/clusterinthecloud/terraform/issues/11 (sinfo --list-reasons; Slurm before 21.08)
    ("low-memory",
     "REASON                                  NODELIST            \n"
     "Low RealMemory                          compute[001-003]    \n",
     "slurm.node_resources", "RealMemory"),
    # https://github.com/SlinkyProject/containers/issues/14 (sinfo -R of nodes whose slurmd found 0 GPUs: a Slurm
    # built without NVML under AutoDetect=nvml)
    ("gres-sinfo-cut",
     "REASON               USER      TIMESTAMP           NODELIST\n"
     "gres/gpu count repor slurm     2026-04-14T06:39:53 slinky-0\n"
     "gres/gpu count repor slurm     2026-04-14T06:39:54 slinky-1\n",
     "slurm.node_gres", "state=resume"),
    # https://github.com/NVIDIA/deepops/issues/1214 (AutoDetect=nvml, Slurm built without NVML; fatal then)
    ("autodetect-nvml",
     "slurmd: fatal: We were configured to autodetect nvml functionality, but we weren't able to find that lib when "
     "Slurm was configured.\n",
     "slurm.node_gres", "--with-nvml"),
    # https://github.com/ArjunaCluster/ArjunaUsers/issues/51 (a command on a host with no slurm.conf, configless)
    ("no-config-source",
     "squeue: error: resolve_ctls_from_dns_srv: res_nsearch error: Unknown host\n"
     "squeue: error: fetch_config: DNS SRV lookup failed\n"
     "squeue: error: _establish_config_source: failed to fetch config\n"
     "squeue: fatal: Could not establish a configuration source\n",
     "slurm.conf_mismatch", "--conf-server"),
    # https://github.com/nateGeorge/slurm_gpu_ubuntu/issues/7 (Slurm 23.02 without cgroup_v2.so)
    ("cgroup-v2-missing",
     "[2023-10-16T10:42:01.138] error: Couldn't find the specified plugin name for cgroup/v2 looking at all files\n"
     "[2023-10-16T10:42:01.139] error: cannot find cgroup plugin for cgroup/v2\n"
     "[2023-10-16T10:42:01.139] error: cannot create cgroup context for cgroup/v2\n"
     "[2023-10-16T10:42:01.139] error: Unable to initialize cgroup plugin\n"
     "[2023-10-16T10:42:01.139] error: slurmd initialization failed\n",
     "slurm.cgroup", "libdbus-1-dev"),
    # https://github.com/omnivector-solutions/snap-slurm/issues/82 (cgroup v1 controllers not mounted)
    ("cgroup-v1-host-v2",
     "[2020-07-09T09:55:38.584] error: cgroup namespace 'freezer' not mounted. aborting\n"
     "[2020-07-09T09:55:38.584] error: unable to create freezer cgroup namespace\n"
     "[2020-07-09T09:55:38.584] error: Couldn't load specified plugin name for proctrack/cgroup: Plugin init() "
     "callback failed\n"
     "[2020-07-09T09:55:38.584] error: cannot create proctrack context for proctrack/cgroup\n",
     "slurm.cgroup", "CgroupPlugin=cgroup/v2"),
    # https://github.com/stackhpc/slurm-k8s-cluster/issues/39 (slurmd in a Kubernetes pod)
    ("cgroup-dbus",
     "slurmd: error: cgroup_dbus_attach_to_scope: cannot connect to dbus system daemon: Failed to connect to socket "
     "/run/dbus/system_bus_socket: No such file or directory\n"
     "slurmd: error: _init_new_scope_dbus: scope and/or cgroup directory for slurmstepd could not be set.\n"
     "slurmd: error: Couldn't load specified plugin name for cgroup/v2: Plugin init() callback failed\n"
     "slurmd: error: cannot create cgroup context for cgroup/v2\n"
     "slurmd: error: Unable to initialize cgroup plugin\n",
     "slurm.cgroup", "IgnoreSystemd=yes"),
    # https://github.com/ai4d-iasc/trixie/issues/45 (slurmd.log of the drained node)
    ("kill-task-stepd",
     "[2020-12-14T09:43:55.500] [63532.0] error: *** STEP 63532.0 ON cn106 CANCELLED AT 2020-12-14T09:43:55 ***\n"
     "[2020-12-14T09:44:56.002] [63532.0] error: *** STEP 63532.0 STEPD TERMINATED ON cn106 AT 2020-12-14T09:44:56 "
     "DUE TO JOB NOT ENDING WITH SIGNALS ***\n",
     "slurm.unkillable", "D-state"),
]


@pytest.mark.parametrize("name,text,family,fix", CASES, ids=[c[0] for c in CASES])
def test_daemon_texts_get_the_admins_fix(kb, name, text, family, fix):
    assert_root(explain.explain_text(text, kb), verdict="root_cause", entry=family, fix_re=re.escape(fix))


def test_node_reasons_are_matched_only_where_slurm_prints_them(kb):
    """A short node reason is Slurm's only after Reason=, slurmctld's 'with reason:' or as a `sinfo -R`
    row (src/scontrol/info_node.c, src/sinfo/opts.c): the phrase in other text is nobody's reason."""
    assert explain.explain_text("   Reason=Not responding [slurm@2024-03-01T10:00:00]\n", kb)["findings"][0]["id"] \
        == "slurm.node_down"
    row = explain.explain_text("Not responding       slurm     2024-03-01T10:00:00 gpu[01-02]\n", kb)
    assert row["findings"][0]["id"] == "slurm.node_down"
    assert "SlurmdPort" in " ".join(row["findings"][0]["causes"][0]["fix"])
    # scontrol's Reason= line of a GPU-count drain (composed from gres.c's format and info_node.c's 'Reason=%s [%s@%s]')
    gres = explain.explain_text("   Reason=gres/gpu count reported lower than configured (0 < 8) "
                                "[slurm@2024-03-01T10:00:00]\n", kb)["findings"][0]
    assert gres["id"] == "slurm.node_gres" and "slurmd -G" in " ".join(gres["causes"][0]["confirm"])
    for text in ("the server is not responding, retrying\n", "worker: Low CPUs on this box\n",
                 "Duplicate jobid in the submission list\n", "Kill task failed to start\n"):
        assert not [f for f in explain.explain_text(text, kb)["findings"] if f["id"].startswith("slurm.")], text


def test_generated_node_sites_name_their_source():
    with open_generated("slurm_messages") as f:
        sites = {s["text"]: s for s in json.load(f)["sites"]}
    gres = sites["%s count reported lower than configured (%lu < %lu)"]
    assert gres["level"] == "reason" and gres["where"].startswith("src/interfaces/gres.c:")
    assert gres["family"] == "slurm.node_gres"
    assert sites["Low socket*core*thread count"]["where"].startswith("src/slurmctld/node_mgr.c:")
    assert sites["Unable to determine this slurmd's NodeName"]["family"] == "slurm.node_name"
    with open_generated("slurm_errors") as f:
        codes = {s["name"]: s for s in json.load(f)["sites"]}
    assert codes["ESLURMD_KILL_TASK_FAILED"]["family"] == "slurm.unkillable"


def test_slurmctld_names_the_kill_task_failure_before_draining(kb):
    # composed from src/slurmctld/proc_req.c's format 'slurmd error running %pI on Node(s)=%s: %s' with
    # slurm_strerror(ESLURMD_KILL_TASK_FAILED) (the real pastes above show the reason it then sets)
    text = "[2022-11-07T10:01:02.123] error: slurmd error running JobId=1234 on Node(s)=hoth: Kill task failed\n"
    root = explain.explain_text(text, kb)["findings"][0]
    assert root["id"] == "slurm.unkillable" and "UnkillableStepTimeout" in " ".join(root["causes"][1]["fix"])
    # another code after the same words is not this entry
    other = explain.explain_text("[2022-11-07T10:01:02.123] error: slurmd error running JobId=1234 on Node(s)=hoth: "
                                 "Job credential revoked\n", kb)["findings"]
    assert not [f for f in other if f["id"] == "slurm.unkillable"]

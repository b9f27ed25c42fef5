"""The job's shape as its launchers print it (gpudoctor/explain/jobshape.py, issue 18 items 2 and 4, explain-shape25):
two nodes with one node rank, nodes that each run a job of their own, a world of which only some ranks started, and
the healthy starts that must give nothing.

Texts: fixtures/explain/shape-netns-2026-11-28/ are real runs made here (torch 2.13.0+cpu, gloo, torchrun on two
network namespaces as two nodes, node1 10.25.77.1 and node2 10.25.77.2, each under its own hostname; scen.sh says what
each ran; the hangs were cut after 40 s as a user would). The DeepSpeed lines are built from the launcher's format
strings (deepspeed/launcher/launch.py main: "WORLD INFO DICT: %s", "nnodes=%d, num_local_procs=%d, node_rank=%d",
"dist_world_size=%d"; runner.py fetch_hostfile's warning) in the shape of the real lines recorded in the seen set P4
(bench/data/explain_heldout_2026-11-26p4.jsonl, p4-healthy_deepspeed_launcher), with pdsh's "host: " prefix. The
Lightning text is the seen planted case P27 (bench/data/explain_heldout_2026-11-27p27.jsonl), from Lightning's own
init line (lightning/fabric/utilities/distributed.py _init_dist_connection). No text comes from the development
held-out sets."""

import json
import os

import pytest

from explainhelp import root_of

from gpudoctor.explain import explain_inputs, explain_text
from gpudoctor.explain.inputs import collect

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "..", "fixtures", "explain", "shape-netns-2026-11-28")
DATA = os.path.join(HERE, "..", "bench", "data")


def folder(kb, name):
    logs, _flight, _ras = collect([os.path.join(FIX, name)])
    return explain_inputs(logs, kb=kb)


def shape_notes(res):
    return [n for n in res["context"] if n["id"] == "jobshape"]


def first_cause(root):
    return root["causes"][0]


# ---------------------------------------------------------------- the same node rank on two nodes (a stale NODE_RANK)

def test_two_nodes_with_node_rank_0_at_info_level_are_launcher_same_rank(kb):
    res = folder(kb, "stale-node-rank-info")
    root = root_of(res)
    assert root["id"] == "launcher.same_rank" and res["verdict"] == "root_cause"
    c = first_cause(root)
    assert "2 machines each report node rank 0 of a job of 2 nodes" in c["text"]
    assert "node1.log" in c["text"] and "node2.log" in c["text"]
    assert "--node-rank" in c["fix"][0] and "NODE_RANK" in c["fix"][0]
    assert any("'rank': 0" in e["text"] for e in c["evidence"])


def test_two_nodes_with_node_rank_0_read_from_their_commands_explain_the_store_error(kb):
    # default log level: the commands' --node-rank 0 on both nodes; node2's agent then fails in the store when node1
    # is stopped (c10d's 'recvValueWithTimeout failed ... Did the remote server shutdown'): the shape is the cause
    res = folder(kb, "stale-node-rank")
    root = root_of(res)
    assert root["id"] == "launcher.same_rank"
    assert "--node-rank 0" in " ".join(e["text"] for e in first_cause(root)["evidence"])
    assert any("It explains the error" in n for n in root["notes"])


# ---------------------------------------------------------------- each node a job of its own

def test_each_node_alone_at_info_level_is_elastic_nodes_alone(kb):
    res = folder(kb, "nodes-alone-info")
    root = root_of(res)
    assert root["id"] == "elastic.nodes_alone"
    c = first_cause(root)
    assert "2 machines each ran a job of one node" in c["text"]
    assert "group_world_size=1" in c["text"]
    assert "--nnodes" in c["fix"][0] and "--rdzv-endpoint" in c["fix"][0]


def test_each_node_alone_from_the_commands_is_elastic_nodes_alone(kb):
    res = folder(kb, "nodes-alone")
    root = root_of(res)
    assert root["id"] == "elastic.nodes_alone"
    assert "--nnodes 1" in first_cause(root)["text"]


# ---------------------------------------------------------------- a node never started

def test_agent_waiting_for_a_second_node_is_rendezvous_init_hang(kb):
    res = folder(kb, "one-node-started-info")
    root = root_of(res)
    assert root["id"] == "rendezvous.init_hang"
    c = first_cause(root)
    assert "waits in the rendezvous for 2 nodes" in c["text"]
    assert "--nnodes 2" in c["fix"][0] and "--node-rank" in c["fix"][0]


def _case(name, cid):
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        for line in f:
            c = json.loads(line)
            if c["id"] == cid:
                return c
    raise AssertionError(cid)


def test_lightning_world_of_four_with_two_members_started_is_init_hang(kb):
    c = _case("explain_heldout_2026-11-27p27.jsonl", "p27-lightning_num_nodes_one_node_started")
    res = explain_text(c["text"], kb=kb)
    root = root_of(res)
    assert root["id"] == "rendezvous.init_hang"
    first = first_cause(root)
    assert "world is 4 processes, but only ranks 0, 1 started" in first["text"]
    assert "num_nodes=1" in first["fix"][0] and "NODE_RANK" in first["fix"][0]


def test_lightning_world_of_four_that_came_up_is_no_finding(kb):
    c = _case("explain_heldout_2026-11-27p27.jsonl", "p27-lightning_num_nodes_one_node_started")
    text = c["text"] + "Initializing distributed: GLOBAL_RANK: 2, MEMBER: 3/4\n" \
                       "Initializing distributed: GLOBAL_RANK: 3, MEMBER: 4/4\n"
    res = explain_text(text, kb=kb)
    assert root_of(res) is None


# ---------------------------------------------------------------- healthy starts give nothing

@pytest.mark.parametrize("name", ["healthy-info", "healthy"])
def test_healthy_two_node_runs_give_no_root_and_no_shape_note(kb, name):
    res = folder(kb, name)
    assert root_of(res) is None and res["verdict"] == "no_error"
    assert not shape_notes(res)


def test_healthy_one_node_info_level_run_gives_nothing(kb):
    c = _case("explain_heldout_2026-11-27p28.jsonl", "p28-healthy_loglevel_info_ddp")
    res = explain_text(c["text"], kb=kb)
    assert root_of(res) is None and not shape_notes(res)


# ---------------------------------------------------------------- DeepSpeed, through pdsh

DS = """\
{h}: [2026-11-26 06:37:37,486] [INFO] [launch.py:152:main] WORLD INFO DICT: {info}
{h}: [2026-11-26 06:37:37,486] [INFO] [launch.py:158:main] nnodes={nn}, num_local_procs=2, node_rank={nr}
{h}: [2026-11-26 06:37:37,486] [INFO] [launch.py:170:main] dist_world_size={w}
"""


def ds(h, nn, nr, info):
    return DS.format(h=h, nn=nn, nr=nr, info=info, w=2 * nn)


def test_deepspeed_each_node_with_local_resources_only_is_one_node_used(kb):
    text = ds("node1", 1, 0, "{'localhost': [0, 1]}") + ds("node2", 1, 0, "{'localhost': [0, 1]}") + \
        "node1: epoch 0 step 10 loss 2.31\nnode2: epoch 0 step 10 loss 2.29\n"
    root = root_of(explain_text(text, kb=kb))
    assert root["id"] == "launcher.one_node_used"
    fix = first_cause(root)["fix"][0]
    assert "--hostfile" in fix and ".deepspeed_env" in fix


def test_deepspeed_two_nodes_with_one_node_rank_is_same_rank(kb):
    info = "{'node1': [0, 1], 'node2': [0, 1]}"
    root = root_of(explain_text(ds("node1", 2, 0, info) + ds("node2", 2, 0, info), kb=kb))
    assert root["id"] == "launcher.same_rank"
    assert "--node_rank" in first_cause(root)["fix"][0]


def test_deepspeed_healthy_two_nodes_gives_nothing(kb):
    info = "{'node1': [0, 1], 'node2': [0, 1]}"
    res = explain_text(ds("node1", 2, 0, info) + ds("node2", 2, 1, info), kb=kb)
    assert root_of(res) is None and not shape_notes(res)


def test_one_node_deepspeed_run_gives_nothing(kb):
    # one machine, no host prefix: nothing says several machines ran
    res = explain_text(DS.format(h="x", nn=1, nr=0, info="{'localhost': [0, 1]}", w=2).replace("x: ", ""), kb=kb)
    assert root_of(res) is None and not shape_notes(res)


def test_nodes_given_different_master_ports_get_a_shape_note(kb):
    # node2 was told --master-port 29526: its client retries the store there (rendezvous.connect, the root); the
    # shape note names both endpoints
    res = folder(kb, "port-differs-info")
    assert root_of(res)["id"] == "rendezvous.connect"
    notes = shape_notes(res)
    assert notes and "different rendezvous ports" in notes[0]["note"]
    assert "10.25.77.1:29525" in notes[0]["note"] and "10.25.77.1:29526" in notes[0]["note"]


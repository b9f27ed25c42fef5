"""review27: defects found reviewing session 27's changes, each through the CLI on a real-shaped input."""

import json
import os

from inprocess import gd

# scontrol show node's block (src/scontrol/info_node.c: NodeName= first, Reason=%s [%s@%s] last), as Slurm 22.05
# prints it on the bed (docs/slurm.md)
_GRES = """NodeName=sn3 Arch=x86_64 CoresPerSocket=8
   CPUAlloc=0 CPUTot=16 CPULoad=0.01
   Gres=gpu:4
   NodeAddr=sn3 NodeHostName=sn3 Version=22.05.8
   State=IDLE+DRAIN ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A
   Reason=gres/gpu count reported lower than configured (2 < 4) [slurm@2026-11-28T10:00:00]
"""
_KILL = """NodeName=gpu07 Arch=x86_64 CoresPerSocket=32
   State=DOWN+DRAIN ThreadsPerCore=2
   Reason=Kill task failed [root@2026-11-28T09:12:44]
"""


def _fixes(tmp_path, text, root):
    p = tmp_path / "node.txt"
    p.write_text(text)
    rc, out, err = gd(["explain", "--json", str(p)], tmp_path)
    assert rc == 0, err  # explain answers (exit 0 with a root cause; docs/explain.md)
    f = json.loads(out)["findings"][0]
    assert f["id"] == root
    return [x for c in f["causes"] for x in c["fix"]]


def test_node_cause_fix_names_the_node_of_the_dump(tmp_path):
    # the causes' fix lines said 'scontrol update nodename=<node>' though NodeName= is in the paste (userwalk27's
    # Left; f477d9ea filled only slurm.node_reason's note)
    for text, root, node in ((_GRES, "slurm.node_gres", "sn3"), (_KILL, "slurm.unkillable", "gpu07")):
        fixes = [x for x in _fixes(tmp_path, text, root) if "nodename=" in x]
        assert fixes and all("nodename=%s state=resume" % node in x for x in fixes), fixes


def test_node_cause_fix_keeps_the_placeholder_without_a_node(tmp_path):
    text = "   Reason=Kill task failed [root@2026-11-28T09:12:44]\n"
    fixes = [x for x in _fixes(tmp_path, text, "slurm.unkillable") if "nodename=" in x]
    assert fixes and all("nodename=<node> state=resume" in x for x in fixes), fixes


def _facts_folder(folder, hashed):
    import shutil
    src = os.path.join(os.path.dirname(__file__), "..", "fixtures", "clusters", "two-node-one-driverless")
    shutil.copytree(src, str(folder))
    for name in os.listdir(str(folder)):
        p = folder / name
        doc = json.loads(p.read_text())
        doc.setdefault("env", {})["hashed"] = dict(doc.get("env", {}).get("hashed") or {}) if hashed else {}
        p.write_text(json.dumps(doc))


def test_diff_of_a_facts_folder_with_itself_does_not_claim_another_key(tmp_path):
    # facts -o records no hash key: 'hashed under another key in each run' was said of a folder against itself
    # (userwalk27's Left), and also where no node had a hashed value at all
    _facts_folder(tmp_path / "f", hashed=True)
    rc, out, err = gd(["diff", str(tmp_path / "f"), str(tmp_path / "f")], tmp_path)
    assert rc == 0, err
    assert "under another key" not in out
    assert "hashed: not compared, these facts record no hash key" in out
    _facts_folder(tmp_path / "g", hashed=False)
    rc, out, err = gd(["diff", str(tmp_path / "g"), str(tmp_path / "g")], tmp_path)
    assert rc == 0, err
    assert "No change in the facts\n" in out, out


# measure27's 'distribution' worker script (launch27, bench/data/launch_real_scripts27.tsv): run by hand on the worker,
# beside a master_*.sh with rank 0; the shape only, its values as the repository writes them
_WORKER = """export NCCL_SOCKET_IFNAME=enp5s0
NNODES=2
NODE_RANK=1
NPROC_PER_NODE=2
MASTER_ADDR='192.168.0.76'
MASTER_PORT='12345'
python -m torch.distributed.launch --nnodes=${NNODES} --node_rank=${NODE_RANK} --nproc_per_node=${NPROC_PER_NODE} \\
    --master_addr=${MASTER_ADDR} --master_port=${MASTER_PORT} ../distributed_train.py
"""


def test_a_by_hand_worker_script_with_its_own_rank_is_a_note_not_a_finding(tmp_path):
    # plan exited 1 with 'every node claims rank 1' on a file that is node 1's own copy (launch27's question)
    (tmp_path / "worker.sh").write_text(_WORKER)
    rc, out, err = gd(["plan", str(tmp_path / "worker.sh")], tmp_path)
    assert rc == 0 and "finding" not in out, out
    assert "the node rank is written as 1 in the script" in out and "right only where each node runs its own" in out
    # the same line under srun (every task runs it) or with rank 0 (the shared script that forgot the rank) keeps it
    for text in (_WORKER.replace("python -m", "srun python -m"), _WORKER.replace("NODE_RANK=1", "NODE_RANK=0")):
        (tmp_path / "w2.sh").write_text(text)
        rc, out, err = gd(["plan", str(tmp_path / "w2.sh")], tmp_path)
        assert rc == 1 and "every node claims rank" in out, out


def test_versions_parity_fix_says_no_upgrade_to_an_older_or_missing_version(tmp_path):
    # 'install numpy 2.5.2 there (or upgrade the baseline nodes if 1.26.4 is the one you want)': 1.26.4 is older;
    # and '(or upgrade the baseline nodes if '(not installed)' is the one you want)' for a node without a driver
    _facts_folder(tmp_path / "f", hashed=True)
    p = tmp_path / "f" / "gpu02.json"
    p.write_text(p.read_text().replace('"numpy": "2.5.2"', '"numpy": "1.26.4"'))
    rc, out, err = gd(["check", "--facts", str(tmp_path / "f"), "--select", "versions.parity", "--json"], tmp_path)
    assert rc == 1, err
    fixes = {f["message"].split(" differs")[0]: f["fix"] for f in json.loads(out)["findings"]}
    assert fixes["numpy"] == ("make gpu02 match gpu01: install numpy 2.5.2 there (or put 1.26.4 on the baseline "
                              "nodes instead, if that is the one you want)"), fixes
    assert fixes["NVIDIA driver"] == "make gpu02 match gpu01: install NVIDIA driver 580.159.04 there", fixes

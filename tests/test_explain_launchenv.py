"""What each launcher sets in its processes' environment (issue 18, megatron13): tools/gen_launch_env.py reads it from
the launchers' sources (torchrun's elastic agent, TorchX, Composer's launcher, accelerate, Ray Train's torch backend,
DeepSpeed's launcher, a Kubeflow PyTorchJob's controller; its slice tools/data/launch_env_slice.txt keeps the statements
that set or read a variable, at their lines), and explain/launchenv.py reads a rank variable a process lacked against
the launcher the text shows.
"""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLICE = os.path.join(REPO, "tools", "data", "launch_env_slice.txt")
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_launch_env as gen  # noqa: E402
import knowgen  # noqa: E402
from explainhelp import explain_paste, fixes, ids, root_id, root_of  # noqa: E402


def test_generator_regenerates_the_committed_table_from_the_slice(tmp_path):
    got = knowgen.regenerated(gen.main, SLICE, tmp_path / "launch_env.json")
    full = knowgen.committed("launch_env")
    assert got["launchers"] == full["launchers"] and got["meanings"] == full["meanings"]
    assert got["header"]["version"] == full["header"]["version"] and "torch 2.15.0" in full["header"]["version"]
    ls = full["launchers"]
    # read from the sources: torchrun's worker_env, Composer's _patch_env(...), Ray Train's os.environ[...] = ...,
    # DeepSpeed's current_env[CROSS_RANK] (a constant), the PyTorchJob controller's corev1.EnvVar{Name: EnvNodeRank}
    assert "GROUP_RANK" in ls["torchrun"]["sets"] and "NODE_RANK" not in ls["torchrun"]["sets"]
    assert {"NODE_RANK", "LOCAL_WORLD_SIZE"} <= set(ls["composer"]["sets"])
    assert ls["composer"]["sets"]["NODE_RANK"][0].startswith("composer/cli/launcher.py:")
    assert {"NODE_RANK", "MASTER_ADDR"} <= set(ls["ray_train"]["sets"])
    assert {"CROSS_RANK", "LOCAL_SIZE"} <= set(ls["deepspeed"]["sets"]) and "LOCAL_WORLD_SIZE" not in ls["deepspeed"]["sets"]
    assert {"PET_NODE_RANK", "PET_NPROC_PER_NODE", "MASTER_ADDR", "RANK"} <= set(ls["pytorchjob"]["sets"])
    assert "LOCAL_RANK" not in ls["pytorchjob"]["sets"] and ls["pytorchjob"]["delegates"]["to"] == "torchrun"
    assert "NODE_RANK" in ls["composer"]["reads"]  # composer/utils/dist.py _get_distributed_config_var(env_var=...)
    assert full["meanings"]["the node's rank"]["deepspeed"] == "CROSS_RANK"
    assert ls["srun"]["sets"]["SLURM_LOCALID"][0].startswith("src/common/env.c:")  # setenvf(&env->env, ...)
    assert full["meanings"]["the local rank"]["srun"] == "SLURM_LOCALID"


def test_the_launcher_s_own_name_for_the_variable(cli, tmp_path):
    # https://github.com/microsoft/MeshTransformer/issues/16: python -m torch.distributed.launch's banner (the issue's
    # log) and its title's KeyError: torch's launcher sets GROUP_RANK, not NODE_RANK
    text = ("*****************************************\nSetting OMP_NUM_THREADS environment variable for each process to "
            "be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal "
            "performance in your application as needed.\n*****************************************\nTraceback (most "
            "recent call last):\n  File \"metro/tools/run_metro_bodymesh.py\", line 714, in <module>\n    main(args)\n"
            "KeyError: 'NODE_RANK'\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file", name="mesh16.txt", rcs=(0, 1))
    assert root_id(doc) == "rendezvous.env_missing", ids(doc)
    cause = root_of(doc)["causes"][0]
    assert "sets GROUP_RANK" in cause["text"] and "read GROUP_RANK instead of NODE_RANK" in cause["fix"][0]
    # composed from DeepSpeed's launcher log prefix (deepspeed/launcher/launch.py logger, '[launch.py:N:main]'):
    # it sets LOCAL_SIZE where torchrun sets LOCAL_WORLD_SIZE
    text = ("[2024-01-01 10:00:00,000] [INFO] [launch.py:256:main] process 2162 spawned with command: ['python', "
            "'train.py']\nKeyError: 'LOCAL_WORLD_SIZE'\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file", name="ds.txt", rcs=(0, 1))
    assert "read LOCAL_SIZE instead of LOCAL_WORLD_SIZE" in root_of(doc)["causes"][0]["fix"][0]


def test_a_variable_the_launcher_sets_and_the_library_s_own_launcher(cli, tmp_path):
    # composed from composer/cli/launcher.py's report of a failed rank: the composer launcher sets RANK in every
    # process it starts, so a process without it was not started by it
    text = ("Global rank 1 (PID 4242) exited with code 1\n----------Begin global rank 1 STDERR----------\n"
            "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n"
            "    rank = int(os.environ['RANK'])\nKeyError: 'RANK'\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file", name="composer.txt", rcs=(0, 1))
    assert root_id(doc) == "rendezvous.env_missing"
    assert re.search(r"sets RANK in every process it starts \(composer/cli/launcher\.py:\d+",
                     root_of(doc)["causes"][0]["text"])
    # composer/utils/dist.py's own error under another launcher: the composer launcher is the fix
    text = ("$ torchx run -s local_cwd dist.ddp -j 1x2 --script train.py\ncomposer.utils.dist.MissingEnvironmentError: "
            "Torch distributed is initialized but environment variable NODE_RANK is not set.\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file", name="torchx.txt", rcs=(0, 1))
    assert root_id(doc) == "rendezvous.env_missing" and "the composer launcher" in root_of(doc)["causes"][0]["fix"][0]


def test_srun_starting_the_script_itself(cli, tmp_path):
    # composed from a batch script's directives and srun's task-exit line (src/srun, Slurm 26.05): srun sets
    # SLURM_LOCALID, not LOCAL_RANK; the fix sets one from the other in the process (a per-task value)
    text = ("#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=4\nsrun python train.py\nTraceback (most recent call last):\n"
            "  File \"train.py\", line 5, in <module>\nKeyError: 'LOCAL_RANK'\n"
            "srun: error: node01: task 0: Exited with exit code 1\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file", name="srun.txt", rcs=(0, 1))
    assert root_id(doc) == "rendezvous.env_missing"
    assert "os.environ.setdefault('LOCAL_RANK', os.environ['SLURM_LOCALID'])" in fixes(root_of(doc))


def test_nothing_without_the_launcher_or_a_rank_variable(cli, tmp_path):
    text = "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\nKeyError: 'RANK'\n"
    rc, doc = explain_paste(cli, tmp_path, text, "--file", name="plain.txt", rcs=(0, 1))
    assert not any("Read from the launch lines" in c["text"] for f in doc["findings"] for c in f["causes"])
    text = ("Setting OMP_NUM_THREADS environment variable for each process to be 1 in default\n"
            "KeyError: 'MODEL_PATH'\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file", name="other.txt", rcs=(0, 1))
    assert root_id(doc) != "rendezvous.env_missing"
    # a rank-like name no launcher sets is the job's own key
    rc, doc = explain_paste(cli, tmp_path, text.replace("MODEL_PATH", "BATCH_SIZE"), "--file", name="own.txt", rcs=(0, 1))
    assert root_id(doc) != "rendezvous.env_missing"
    # ... and does not hide a launcher's variable read later in the same text
    both = text.replace("MODEL_PATH", "BATCH_SIZE") + "KeyError: 'LOCAL_RANK'\n"
    rc, doc = explain_paste(cli, tmp_path, both, "--file", name="both.txt", rcs=(0, 1))
    assert root_id(doc) == "rendezvous.env_missing" and "LOCAL_RANK" in root_of(doc)["causes"][0]["text"]

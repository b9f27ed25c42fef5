"""rootguard.wdir_first_cause (wrong20) asserted whole (mutation round 15, docs/mutation.md): the first cause Open
MPI's working-directory banner gives mpi.error, on the seen P29 text (a real Open MPI 4.1 mpirun, --wdir to a
directory never made) and variants of it: no Node field, a directory with a blank, the banner without its topic."""

from explainhelp import seen_text

from gpudoctor import explain
from gpudoctor.explain import rootguard

DIR = "/tmp/heldout-p29/work/job-f610/scratch/run-20261127"


def _p29():
    return seen_text("p29-mpirun_wdir_not_created", "2026-11-27p29")


def _first(text):
    f = explain.explain_text(text)["findings"][0]
    assert f["id"] == "mpi.error"
    return f["causes"][0]


def _want(path, shown, where):
    return {
        "text": "mpirun could not change to the working directory %s %s (its --wdir, or the directory it was started "
                "from): the directory does not exist there, or is not accessible to the user" % (path, where),
        "checks": [], "confirm": ["ls -ld %s   (%s)" % (shown, where)],
        "fix": ["create it first, on every node the job uses: mkdir -p %s (in the job script before mpirun; on other "
                "nodes through ssh / pdsh / srun --ntasks-per-node=1), or point --wdir at a directory that exists on "
                "every node (a shared filesystem)" % shown],
        "exports": {}, "static_rank": 0, "computed": None}


def test_the_banner_s_directory_and_node():
    c = _first(_p29())
    assert [(e["line"], e["text"]) for e in c.pop("evidence")] == [(10, "Working directory: " + DIR)]
    assert c == _want(DIR, DIR, "on vm")


def test_no_node_field_and_a_directory_with_a_blank():
    c = _first(_p29().replace("Node: vm\n", ""))
    c.pop("evidence")
    assert c == _want(DIR, DIR, "on that node")
    c = _first(_p29().replace(DIR, "/scratch/my run"))
    c.pop("evidence")
    assert c == _want("/scratch/my run", "'/scratch/my run'", "on vm")


def test_only_mpi_error_s_working_directory_topic():
    text = _p29()
    # the banner's first line alone (another topic after it): no working-directory cause
    other = text.replace("change to the specified working directory:", "access or execute an executable:")
    assert not any("working directory" in c["text"] for f in explain.explain_text(other)["findings"][:1]
                   for c in f["causes"])
    rootguard.wdir_first_cause([], None)  # nothing to change, no error
    f = {"id": "mpi.exec_not_found", "causes": []}
    rootguard.wdir_first_cause([f], None)
    assert f["causes"] == []


# ------------------------------------------------------------ launchctx._no_gpu_asked (wrong20, review20)

def _deepops():
    # NVIDIA/deepops#1157 (https://github.com/NVIDIA/deepops/pull/1157, seen set AI): a step with no GPU request
    return seen_text("ai-deepops1157-srun-no-gpu-requested", "2026-11-27ai")


def test_an_srun_without_gpus_cause_and_fix_whole():
    f = explain.explain_text(_deepops())["findings"][0]
    assert f["id"] == "slurm.step_without_gpus"
    c = f["causes"][0]
    assert c["text"] == (
        "Read from the launch lines in this text: `vagrant@virtual-login101:~$ srun -N1 nvidia-smi` (line 4) asks "
        "Slurm for no GPU (no --gres=gpu, --gpus / -G or --gpus-per-* option), and the program it started found none: Slurm "
        "gives a job step only the GPUs it was allocated, and with ConstrainDevices the step cannot open the node's "
        "other GPUs.")
    assert c["fix"] == ["ask for the GPUs on the srun line: srun --gpus=1 -N1 nvidia-smi (or --gres=gpu:<N> / "
                        "--gpus-per-node=<N>); inside an salloc or sbatch allocation, ask for them there too (#SBATCH "
                        "--gres=gpu:<N>)"]
    assert [(e["line"], e["text"]) for e in c["evidence"]] == [(4, "vagrant@virtual-login101:~$ srun -N1 nvidia-smi")]


def test_a_gpu_asked_any_way_is_not_a_step_without_gpus():
    text = _deepops()
    for srun in ("srun -N1 --gres=gpu:1 nvidia-smi", "srun -N1 --tres-per-task=gres/gpu:1 nvidia-smi",
                 "srun -N1 --gpus-per-node=1 nvidia-smi"):
        assert explain.explain_text(text.replace("srun -N1 nvidia-smi", srun))["findings"][0]["id"] == \
            "gpu.no_devices", srun
    # an salloc that asked for GPUs, or a batch script's #SBATCH --gres: the step inherits them
    salloc = text.replace("vagrant@virtual-login101:~$ srun", "vagrant@virtual-login101:~$ salloc --gres=gpu:1\n"
                          "salloc: Granted job allocation 5\nvagrant@virtual-login101:~$ srun")
    assert explain.explain_text(salloc)["findings"][0]["id"] != "slurm.step_without_gpus"
    # a long srun line is quoted cut
    long = text.replace("srun -N1 nvidia-smi", "srun -N1 --job-name=" + "j" * 120 + " nvidia-smi")
    c = explain.explain_text(long)["findings"][0]["causes"][0]
    assert "j" * 120 not in c["text"] and "--job-name=jjj" in c["text"]

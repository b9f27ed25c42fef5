"""review19: a generated Python message site is no root when another library built and raised the exception
(rootguard.other_librarys_site). Real runs: fixtures/explain/paramdocs19 (torch 2.13.0+cpu, made by paramdocs19)."""

import os

from gpudoctor.explain import explain_text

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "explain", "paramdocs19")


def _root(text):
    r = explain_text(text)
    return r["findings"][0] if r["findings"] else None


def _fixture(name):
    with open(os.path.join(FIX, name), encoding="utf-8") as f:
        return f.read()


def test_torchs_own_raise_is_not_another_librarys_copy_of_its_words():
    # torch/optim/adam.py raises 'Invalid learning rate: -0.001'; bitsandbytes/optim/optimizer.py holds the same words
    assert _root(_fixture("adam_lr_neg.log"))["id"] == "torch.usage"
    # torch/nn/modules/conv.py's "padding='same' is not supported for strided convolutions" is no SGLang option
    assert not _root(_fixture("conv_same_stride.log"))["family"].startswith("serving")


BNB = """Traceback (most recent call last):
  File "/home/u/train.py", line 3, in <module>
    opt = bnb.optim.Adam8bit(m.parameters(), lr=-0.001)
  File "/usr/lib/python3/dist-packages/bitsandbytes/optim/adam.py", line 120, in __init__
    super().__init__(
  File "/usr/lib/python3/dist-packages/bitsandbytes/optim/optimizer.py", line 459, in __init__
    %s
ValueError: Invalid learning rate: -0.001
"""


def test_the_sites_own_library_or_a_re_raise_keeps_the_site():
    # the site's own package raised it: its entry answers
    assert _root(BNB % 'raise ValueError(f"Invalid learning rate: {lr}")')["id"] == "bitsandbytes.usage"
    # another package's frame re-raising what it caught keeps the words of the code that built it
    text = BNB % 'raise ValueError(f"Invalid learning rate: {lr}")'
    assert _root(text.replace("/dist-packages/bitsandbytes/optim/optimizer.py", "/dist-packages/accelerate/x.py")
                 .replace('raise ValueError(f"Invalid learning rate: {lr}")', "raise e"))["id"] == "bitsandbytes.usage"
    # ... while the same words built in accelerate's own frame are not bitsandbytes'
    f = _root(text.replace("/dist-packages/bitsandbytes/optim/optimizer.py", "/dist-packages/accelerate/x.py"))
    assert f is None or not f["id"].startswith("bitsandbytes")


def test_the_drivers_own_library_is_not_a_cuda_runtime_to_install():
    # libcuda.so.1 / libnvidia-ml.so.1 come with the NVIDIA driver (a container gets them from the toolkit), no
    # nvidia-cuda-runtime wheel holds them: the first fix is the driver's, not 'pip install nvidia-cuda-runtime-cu12'
    for lib in ("libcuda.so.1", "libnvidia-ml.so.1"):
        f = _root("ImportError: %s: cannot open shared object file: No such file or directory\n" % lib)
        assert "--gpus all" in f["causes"][0]["fix"][0] and "nvidia-cuda-runtime" not in f["causes"][0]["fix"][0]
    f = _root("ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory\n")
    assert "nvidia-cuda-runtime" in f["causes"][0]["fix"][0]


def test_a_wheels_files_are_listed_by_pip_not_dpkg():
    # nccl.h's package in the build-inputs table is NVIDIA's wheel: `dpkg -L nvidia-nccl-cu13` lists nothing
    f = _root("src/foo.cu:1:10: fatal error: nccl.h: No such file or directory\n")
    fixes = " ".join(f["causes"][0]["fix"])
    assert "pip install nvidia-nccl-cu" in fixes and "pip show -f nvidia-nccl-cu" in fixes
    assert "dpkg -L nvidia" not in fixes
    f = _root("fatal error: mpi.h: No such file or directory\n")
    assert "dpkg -L lib" in " ".join(f["causes"][0]["fix"])


def test_a_long_literals_first_words_alone_name_no_library():
    from gpudoctor.explain import srcprov

    # 'must be divisible by the number of' (7 words every library writes) starts vLLM's '... data parallel node
    # groups' (vllm/config/parallel.py): a sentence that only shares those words is not vLLM's
    assert srcprov.py_message_rows("AssertionError: world size must be divisible by the number of pipeline stages")[0] \
        is None
    # the whole of a long literal still names it (NCCL's ncclRemoteError text)
    assert srcprov.message_projects("remote process exited or there was a network error")[0] == ["nccl:init.cc"]


def test_slurm_ntasks_is_not_blamed_on_a_missing_ntasks_option():
    # sbatch(1): SLURM_NTASKS is set by --ntasks "Or, if any of the --ntasks-per-* options are specified": the table
    # lists only --ntasks, so the empty-value reading does not name it (fixtures/explain/slurm19/empty_int.txt, a real
    # Slurm 22.05.8 run, with the variable swapped)
    here = os.path.join(os.path.dirname(FIX), "slurm19", "empty_int.txt")
    with open(here, encoding="utf-8") as f:
        text = f.read()
    f = _root(text)
    assert f["causes"][0]["text"].startswith("SLURM_CPUS_PER_TASK is empty in this job")
    f = _root(text.replace("$SLURM_CPUS_PER_TASK", "$SLURM_NTASKS").replace(
        "#SBATCH --output=", "#SBATCH --ntasks-per-node=4\n#SBATCH --output=", 1))
    assert not f["causes"][0]["text"].startswith("SLURM_NTASKS is empty"), f["causes"][0]["text"]

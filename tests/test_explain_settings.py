"""explain/settings.py: a told symptom (slow, out of memory, not reproducible) joined to the setting that causes it, in
whatever form the text shows the setting (an export, an env dump, a command-line flag, a YAML / JSON dump, a
TrainingArguments or DataLoader repr, a torch.backends print, NCCL's own 'set by environment' line); issue 18.

PARAPHRASES were written here, in this session's own words, BEFORE settings.py existed (the forms are those the
programs print: cited beside each); REAL texts are from the public threads and docs cited beside each."""

import pytest

from gpudoctor.explain import explain_text, settings


def _root(text):
    r = explain_text(text)
    root = r["findings"][0] if r["findings"] else None
    return r, root


def _all(f):
    return "\n".join([c["text"] + " " + " ".join(c["fix"]) for c in f["causes"]])


PARAPHRASES = [
    # an `export` in a job script shown with cat, the complaint before it
    ("Since we moved the job to the new cluster every epoch takes twice as long as it did before.\n"
     "$ cat run.sh\nexport NCCL_P2P_DISABLE=1\nexport OMP_NUM_THREADS=8\ntorchrun --nproc_per_node 8 train.py\n",
     "NCCL_P2P_DISABLE", "nccl."),
    # flags on a printed command line (`set -x`'s '+ '), HF Trainer's argument names
    ("Fine-tuning crawls along at about 5 s per step on one A100, which is far slower than I expected.\n"
     "+ python run_clm.py --model_name_or_path gpt2 --per_device_train_batch_size 8 --dataloader_num_workers 0 "
     "--logging_steps 1\n", "dataloader_num_workers", "torch."),
    # os.environ in a pasted script (the evidence form PyTorch's own issue threads show)
    ("GPU utilization never goes above 40% and training is much slower than on my laptop's 3090.\n"
     "import os\nos.environ[\"CUDA_LAUNCH_BLOCKING\"] = \"1\"\nimport torch\n", "CUDA_LAUNCH_BLOCKING",
     "torch.slow_debug_setting"),
    # NCCL's own ENV line (src/misc/param.cc: "%s set by environment to %s")
    ("The all-reduce between our two nodes is extremely slow, 10x slower than nccl-tests on the other pair.\n"
     "node1:1234:1234 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n"
     "node1:1234:1234 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n", "NCCL_IB_DISABLE", "nccl."),
    # a DeepSpeed JSON config printed over several lines
    ("ZeRO-3 on 8 GPUs is painfully slow: 40 s per iteration, the same model took 4 s with ZeRO-2.\n"
     '{\n  "zero_optimization": {\n    "stage": 3,\n    "offload_optimizer": {\n      "device": "cpu",\n'
     '      "pin_memory": true\n    }\n  }\n}\n', "offload_optimizer", "deepspeed."),
    # a Hydra / OmegaConf YAML print, the complaint in Chinese
    ("训练速度很慢，GPU 利用率一直很低。\ntrainer:\n  max_epochs: 10\ndata:\n  batch_size: 64\n  num_workers: 0\n",
     "num_workers", "torch."),
    # a DataLoader repr-like print of the user's and the complaint after it
    ("DataLoader(dataset, batch_size=256, shuffle=True, num_workers=0, pin_memory=False)\n"
     "The GPU sits mostly idle and one epoch takes 40 minutes, it feels really slow.\n", "num_workers", "torch."),
    # torch.backends printed by the script; nondeterminism told
    ("The loss is different on every run even though I seed everything.\n"
     "torch.backends.cudnn.benchmark = True\ntorch.backends.cudnn.deterministic = False\n", "benchmark",
     "torch.not_reproducible"),
    # a backend that moves CUDA tensors through the host (torch.distributed docs: use NCCL for GPU training)
    ("DDP on 4 H100s takes almost a second per step for a tiny MLP; I expected a few milliseconds.\n"
     "dist:\n  backend: gloo\n  init_method: env://\n", "gloo", "torch."),
]


@pytest.mark.parametrize("text, name, fam", PARAPHRASES)
def test_paraphrases(text, name, fam):
    r, root = _root(text)
    assert r["verdict"] == "root_cause", r["verdict"]
    assert root["id"].startswith(fam) or (root.get("family") or "").startswith(fam), root["id"]
    first = root["causes"][0]
    assert name.lower() in (first["text"] + " ".join(first["fix"])).lower()
    assert first["evidence"], first  # the line the setting was read from


def test_several_candidates_listed_by_how_sure():
    text = ("Training is slower than it should be on 8 A100s, roughly 3x slower than the reference numbers.\n"
            "TrainingArguments(\n_n_gpu=8,\nbf16=False,\ndataloader_num_workers=0,\nfp16=False,\n"
            "gradient_checkpointing=True,\nlogging_steps=1,\n)\n")
    r, root = _root(text)
    assert r["verdict"] == "root_cause"
    names = _all(root)
    for n in ("dataloader_num_workers", "gradient_checkpointing", "bf16"):
        assert n in names, n
    # the sure ones first: no DataLoader workers before gradient checkpointing (a documented trade of speed)
    assert names.index("dataloader_num_workers") < names.index("gradient_checkpointing")


def test_healthy_log_with_settings_gets_no_root():
    text = ("CUDA_LAUNCH_BLOCKING=1\nNCCL_DEBUG=INFO\nNCCL_P2P_DISABLE=1\n"
            "DataLoader(batch_size=32, num_workers=0)\nepoch 1 loss 0.31\nepoch 2 loss 0.22\ntraining finished\n")
    r, root = _root(text)
    assert r["verdict"] == "no_error" and root is None


def test_told_but_the_setting_is_fine():
    text = "Training is slow, about 2 s per step.\nDataLoader(batch_size=32, num_workers=8, pin_memory=True)\n"
    r, root = _root(text)
    assert root is None or "num_workers" not in (root["causes"][0]["text"] if root["causes"] else "")


def test_program_saying_slow_is_no_complaint():
    # transformers' own warning (image_processing_auto.py: logger.warning_once("Using a slow image processor as
    # `use_fast` is unset ...")), printed on healthy runs
    text = ("Using a slow image processor as `use_fast` is unset.\nDataLoader(batch_size=32, num_workers=0)\n"
            "epoch 1 loss 0.3\n")
    r, root = _root(text)
    assert root is None


def test_same_script_slower_elsewhere_without_the_setting_shown():
    text = ("Same training script and container as on our other cluster, but here every step takes about 3x as long. "
            "No errors.\nstep 10 loss 2.30 31.0 ms/step\nstep 20 loss 2.29 30.8 ms/step\n")
    r, root = _root(text)
    assert r["verdict"] == "root_cause"
    assert root["confidence"] == "family"  # no setting shown: the ways to tell apart, not one cause
    alltext = _all(root) + " ".join(root["debug"])
    for n in ("CUDA_LAUNCH_BLOCKING", "PYTORCH_NO_CUDA_MEMORY_CACHING", "NVIDIA_TF32_OVERRIDE"):
        assert n in alltext, n


READ = [
    ("export NCCL_P2P_DISABLE=1", "NCCL_P2P_DISABLE", "1", "env"),
    ("NCCL_P2P_DISABLE=1 torchrun --nproc_per_node 2 train.py", "NCCL_P2P_DISABLE", "1", "env"),
    ("os.environ['CUDA_LAUNCH_BLOCKING'] = '1'", "CUDA_LAUNCH_BLOCKING", "1", "env"),
    ("host:1:1 [0] NCCL INFO NCCL_NET set by environment to Socket", "NCCL_NET", "Socket", "nccl"),
    ("python train.py --dataloader_num_workers=0 --bf16", "dataloader_num_workers", "0", "flag"),
    ("python train.py --dataloader_num_workers 0", "dataloader_num_workers", "0", "flag"),
    ("  num_workers: 0", "num_workers", "0", "config"),
    ('    "num_workers": 0,', "num_workers", "0", "config"),
    ("DataLoader(ds, batch_size=8, num_workers=0)", "num_workers", "0", "repr"),
    ("torch.backends.cudnn.benchmark = True", "cudnn.benchmark", "True", "attr"),
    ("wall_clock_breakdown ......... True", "wall_clock_breakdown", "True", "config"),
]


@pytest.mark.parametrize("line, key, value, form", READ)
def test_reader_forms(line, key, value, form):
    got = settings.read_line(line)
    assert any(s[0].lower() == key.lower() and s[1] == value and s[2] == form for s in got), got


def test_reader_is_linear_on_long_lines():
    import time

    for line in ("num_workers" * 5000, "--num_workers " * 3000, "a=" * 20000 + "num_workers", "(" * 30000):
        t = time.perf_counter()
        settings.read_line(line)
        assert time.perf_counter() - t < 0.5

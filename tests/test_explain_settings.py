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


def test_the_entrys_own_cause_of_the_same_setting_is_folded_into_the_rows():
    # torch.slow_debug_setting has a cause of its own for CUDA_LAUNCH_BLOCKING=1: one cause, the row's, with its
    # confirm line (analyze._fold_restated, as a generated site's restated family cause)
    r, root = _root(PARAPHRASES[2][0])
    assert root["id"] == "torch.slow_debug_setting"
    said = [c for c in root["causes"] if "CUDA_LAUNCH_BLOCKING" in c["text"]]
    assert len(said) == 1 and said[0] is root["causes"][0], [c["text"][:60] for c in root["causes"]]
    assert any("echo $CUDA_LAUNCH_BLOCKING" in x for x in said[0]["confirm"]), said[0]["confirm"]
    assert len(root["causes"]) >= 3  # the entry's other causes stay


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
    assert r["verdict"] == "likely_cause"
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
    ('declare -x NCCL_P2P_DISABLE="1"', "NCCL_P2P_DISABLE", "1", "env"),
    ("srun --export=ALL,NCCL_NET=Socket python x.py", "NCCL_NET", "Socket", "env"),
    ("python train.py data.num_workers=0 trainer.max_epochs=3", "num_workers", "0", "attr"),
    ("trainer = Trainer(accelerator='gpu', precision=32, detect_anomaly=True)", "detect_anomaly", "True", "repr"),
    ("torch.cuda.set_per_process_memory_fraction(0.3)", "set_per_process_memory_fraction", "0.3", "call"),
    ("--gradient_checkpointing --bf16 False", "gradient_checkpointing", "true", "flag"),
    ("  offload_param=DeepSpeedZeroOffloadParamConfig(device='cpu', nvme_path=None)", "offload_param", "(", "config"),
]


def test_not_settings():
    # a name inside another name, a path's tail, prose without a separator
    for line in ("max_num_workers=0", "loader.num_workers.count=0", "we use num_workers 0 here", "NCCL_P2P_DISABLE_X=1"):
        assert not settings.read_line(line), line


def test_kubernetes_env_pair():
    text = ('Training on 8 A100s is really slow\nspec:\n  containers:\n  - env:\n    - name: NCCL_IB_DISABLE\n'
            '      value: "1"\n')
    r, root = _root(text)
    assert root["id"] == "nccl.falls_back_to_sockets" and root["causes"][0]["text"].startswith("NCCL_IB_DISABLE=1")


@pytest.mark.parametrize("line, key, value, form", READ)
def test_reader_forms(line, key, value, form):
    got = settings.read_line(line)
    assert any(s[0].lower() == key.lower() and s[1] == value and s[2] == form for s in got), got


def test_reader_is_linear_on_long_lines():
    for line in ("num_workers" * 5000, "--num_workers " * 3000, "a=" * 20000 + "num_workers", "(" * 30000):
        got = settings.read_line(line)  # its CPU time (bound 0.5 s each): bench/cpu_bounds.py
        assert all(s[0] == "num_workers" for s in got), got[:3]  # no other key read out of the repetition


# deepspeedai/DeepSpeed#2998 (title and the config the reporter pasted, cut to the offload part)
DS_OFFLOAD = """[BUG] Zero Offload Is Significantly Slower Than Normal Training
I'm training Flan-t5-large(760M parameters) with DeepSpeed . I'm running RoCM(RX 5600XT, 8GB of Vram) with 16GB of Ram backing it on Ubuntu 22.04.
Then I enabled DeepSpeed zero 1 with this config; I'm leaving only stuff relating to offloading:
```
{
    "zero_optimization": {
        "stage": 1,
        "offload_optimizer": {
            "device": "cpu",
            "pin_memory": true
        },
        "allgather_partitions": true,
"""

# Peterande/D-FINE#5 (its title, then two lines of the cfg dict the training script printed, as pasted)
DFINE = """The GPU utilization rate is low during training, and the training is very slow！
cfg:  {'task': 'detection', '_model': None, '_postprocessor': None, '_criterion': None, '_optimizer': None, '_lr_scheduler': None, '_lr_warmup_scheduler': None, '_train_
dataloader': None, '_val_dataloader': None, '_ema': None, '_scaler': None, '_train_dataset': None, '_val_dataset': None, '_collate_fn': None, '_evaluator': None, '_write
r': None, 'num_workers': 0, 'batch_size': None, '_train_batch_size': None, '_val_batch_size': None, '_train_shuffle': None, '_val_shuffle': None, 'resume': None, 'tuning
"""

# NVIDIA/nccl#667: the setting is the reporter's workaround for a hang, not the job's configuration (the settled
# answer is the PCIe ACS / VT-d hang, not the variable)
NCCL_667 = """all_reduce_perf works fine only with those linked through SYS. The rest will result in hanging.

Setting NCCL_P2P_DISABLE=1 did workaround but got really low speed.

NCCL version 2.10.X
"""


def test_real_deepspeed_offload():
    r, root = _root(DS_OFFLOAD)
    assert root["id"] == "deepspeed.offload_slow"
    first = root["causes"][0]
    assert first["text"].startswith("offload_optimizer=cpu") and [e["line"] for e in first["evidence"]] == [8, 9]


def test_real_dict_print_num_workers():
    r, root = _root(DFINE)
    assert root["id"] == "torch.slow_setting" and root["causes"][0]["text"].startswith("num_workers=0")


def test_real_tried_setting_is_not_the_answer():
    r, root = _root(NCCL_667)
    assert not (root and root.get("from_settings"))
    line = NCCL_667.splitlines()[2]
    assert settings.read_line(line)[0][:2] == ("NCCL_P2P_DISABLE", "1") and settings._tried(line)  # read, then refused


def test_oom_root_gets_the_memory_fraction_as_its_first_cause():
    # torch's caching allocator message (c10/cuda/CUDACachingAllocator.cpp: "... of which X is free ... Y allowed;")
    # beside a config print of the cap the script passes to torch.cuda.set_per_process_memory_fraction
    text = ("config: {'gpu_memory_fraction': 0.1, 'batch': 64}\n"
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 0 has a total capacity of "
            "79.18 GiB of which 70.01 GiB is free. 7.92 GiB allowed; Of the allocated memory 7.50 GiB is allocated by "
            "PyTorch\n")
    r, root = _root(text)
    assert root["id"] == "cuda.oom" and root["causes"][0]["text"].startswith("gpu_memory_fraction=0.1")


@pytest.mark.parametrize("line", [
    # a shell loop and a script comment (fixtures/explain/healthy: a healthy job's own script), not a complaint
    "for i in $(seq 1 100); do sinfo -h -o %t 2>/dev/null | grep -q idle && break; sleep 0.2; done",
    "# begin once the node of the second start is idle (its plugin start-up is not a job)",
])
def test_code_lines_tell_nothing(line):
    r, root = _root(line + "\naccelerate launch --num_processes=1 --mixed_precision=no train.py\n")
    assert root is None


def test_fresh_forms_of_telling():
    # told as a halved throughput, NCCL's own ENV lines the only settings shown
    text = ("throughput dropped by half after we moved to the new image\n"
            "[0] NCCL INFO NCCL_SHM_DISABLE set by environment to 1.\n[0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1.\n")
    r, root = _root(text)
    assert root["id"] == "nccl.p2p_not_used" and root["causes"][0]["text"].startswith("NCCL_P2P_DISABLE=1")
    assert "NCCL_SHM_DISABLE" in _all(root)  # the medium one follows the sure one


def test_oom_root_takes_a_trade_off_after_its_own_first_cause():
    text = ("TrainingArguments(\ngradient_checkpointing=False,\nper_device_train_batch_size=16,\n)\n"
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
            "79.18 GiB of which 1.01 GiB is free.\n")
    r, root = _root(text)
    assert root["id"] == "cuda.oom"
    assert root["causes"][1]["text"].startswith("gradient_checkpointing=False")  # low: after the batch that does not fit


def test_a_default_of_getenv_is_not_a_setting():
    # os.getenv(key, default) / os.environ.get(key, default) return the default only when the variable is NOT set
    # (https://docs.python.org/3/library/os.html#os.getenv): the text shows a read, not the job's value
    for line in ("x = os.getenv('CUDA_LAUNCH_BLOCKING', '1')", 'x = os.environ.get("CUDA_LAUNCH_BLOCKING", "1")',
                 "n = int(os.environ.pop('NCCL_P2P_DISABLE', 1))"):
        assert not [s for s in settings.read_line(line) if s[0].lower() != "num_workers"], line
    # an assignment still is one
    assert settings.read_line("os.environ.setdefault('CUDA_LAUNCH_BLOCKING', '1')")[0][1] == "1"
    text = ("Training is about 3x slower than I expected on one A100, roughly 2 s per step.\n"
            "import os\nblocking = os.getenv(\"CUDA_LAUNCH_BLOCKING\", \"1\")\n")
    r, root = _root(text)
    assert root is None or "CUDA_LAUNCH_BLOCKING" not in _all(root)[:200], root["causes"][0]["text"]
    r, root = _root(text.replace('blocking = os.getenv("CUDA_LAUNCH_BLOCKING", "1")',
                                 'os.environ["CUDA_LAUNCH_BLOCKING"] = "1"'))
    assert root["id"] == "torch.slow_debug_setting" and root["causes"][0]["text"].startswith("CUDA_LAUNCH_BLOCKING=1")


# settings that keep a stuck collective from failing (knowledge/settings.toml, 'hang' rows, each from PyTorch's or
# transformers' docs): told with a hang, they follow the hang answer's first cause; they never lead it
STUCK_INFO = ("node1:1234:1234 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
              "node1:1234:1234 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
              "node1:1234:1250 [0] NCCL INFO comm 0x5555 rank 0 nranks 16 cudaDev 0 busId 1c000 - Init COMPLETE\n"
              "The job is stuck at the first all_reduce forever.\n")


def test_a_setting_that_keeps_a_hang_from_failing_follows_the_hang_answers_first_cause():
    plain = _root(STUCK_INFO)[1]
    r, root = _root("export TORCH_NCCL_ASYNC_ERROR_HANDLING=0\n" + STUCK_INFO)
    assert root["id"] == plain["id"] and root["causes"][0]["text"] == plain["causes"][0]["text"]
    assert root["causes"][1]["text"].startswith("TORCH_NCCL_ASYNC_ERROR_HANDLING=0 (line 1, an environment setting)")
    assert "TORCH_NCCL_DUMP_ON_TIMEOUT=1" in root["causes"][1]["fix"][0]
    assert any(n.startswith("Your words tell a job that hangs (line 5)") for n in root["notes"])
    # the default (3) and a value that handles errors are no cause
    for v in ("3", "1"):
        r, root = _root("export TORCH_NCCL_ASYNC_ERROR_HANDLING=%s\n" % v + STUCK_INFO)
        assert "ASYNC_ERROR_HANDLING" not in _all(root)


def test_a_huge_ddp_timeout_is_read_only_beside_a_hang():
    cmd = "python -m torch.distributed.run --nproc_per_node 4 run_clm.py --ddp_timeout %d --bf16\n"
    told = "Training hangs at step 1200 on 4 GPUs with no output for hours.\n"
    r, root = _root(cmd % 36000 + told)
    assert any(c["text"].startswith("ddp_timeout=36000 (line 1, a command-line flag)") for c in root["causes"][:2])
    assert not root["causes"][0]["text"].startswith("ddp_timeout")
    r, root = _root(cmd % 1800 + told)  # the default
    assert "ddp_timeout" not in _all(root)
    r, root = _root(cmd % 36000 + "epoch 1 loss 0.3\nepoch 2 loss 0.2\n")  # no hang told: a healthy log
    assert r["verdict"] == "no_error" and root is None

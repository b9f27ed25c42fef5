"""Never confidently wrong (issue 18 item 3, wrong15): mechanisms of the seen sets' confidently-wrong answers
(docs/explain.md, "Confidently wrong, by mechanism (session 15)"; bench/data/wrong15_by_mechanism.json), each fixed
where the text shows its own evidence, from the source that prints the message.

1. An exception type taken as the cause while its message shows another: CPython's extension loader raises
   ImportError with dlerror()'s text (Python/dynload_shlib.c), "<object>.so: undefined symbol: <name>", which is
   ld.so's symbol lookup failing (loader.undefined_symbol), not a module missing from the environment
   (code.python_env, which the exception type alone chose). A torch C++ name (_ZN3c10, _ZN2at, _ZN5torch) puts the
   cause "an extension built against another torch" first.
2. A non-failure line taken as the root: NCCL WARN lines where NCCL clamps a setting or leaves out a path and goes on
   (src/transport/net_socket.cc 'setting NCCL_NSOCKS_PERTHREAD to %d', '..., falling back to simple order', '...,
   ignoring', 'using %s instead') are the warning nccl.went_on, a note, never a generated site's root; accelerate
   launch's defaults warning ('... when training on CPUs', accelerate/commands/launch.py) is the program's words,
   not the user's complaint of running on the CPU.
3. A family read from the raising file too widely: torch/distributed/rendezvous.py raises ValueError only where it
   reads the rendezvous values (env variables, the URL's query), never for reaching the store: such a ValueError is
   rendezvous.env_missing, not rendezvous.connect's unreachable master.
4. The root taken from a relay line: Open MPI's ORTE_ERROR_LOG 'in file .../show_help.c' is the help-message relay
   failing after the message it carried; the PML selection's abort ('PML %s cannot be selected',
   ompi/mca/pml/base/pml_base_select.c) is the failure (the transport), not the launch.
"""

import pytest

from explainhelp import explain_paste, root_id
from gpudoctor import explain

# https://github.com/NVIDIA/Megatron-LM/issues/366 (the text)
MEGATRON_366 = """Hello, I have this issue:
```
  File "<frozen importlib._bootstrap>", line 583, in module_from_spec
  File "<frozen importlib._bootstrap_external>", line 1043, in create_module
  File "<frozen importlib._bootstrap>", line 219, in _call_with_frames_removed
ImportError: .../megatron/fused_kernels/build/scaled_upper_triang_masked_softmax_cuda.so: undefined symbol: _ZN3c106detail19maybe_wrap_dim_slowEllb
```
My configuration:
```
torch                    1.11.0+cu113
```
"""

# https://github.com/huggingface/accelerate/issues/1475 (the text)
ACCELERATE_1475 = """When i use `accelerate env` this is what i get:

ImportError: /usr/local/lib/python3.8/dist-packages/transformer_engine_extensions.cpython-38-x86_64-linux-gnu.so: undefined symbol: _ZN5torch3jit17parseSchemaOrNameERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE

Install `accelerate` wit torch 2.0.0+cu118 and CUDA 12.1
"""

# a module that is not there: still the environment (CPython's import system, 'No module named')
NOT_INSTALLED = """Traceback (most recent call last):
  File "/work/train.py", line 3, in <module>
    import flash_attn
ModuleNotFoundError: No module named 'flash_attn'
"""


@pytest.mark.parametrize("text", [MEGATRON_366, ACCELERATE_1475], ids=["megatron-366", "accelerate-1475"])
def test_importerror_undefined_symbol_is_the_loader(cli, tmp_path, text):
    _, doc = explain_paste(cli, tmp_path, text)
    assert doc["verdict"] == "root_cause"
    assert root_id(doc) == "loader.undefined_symbol", [f["id"] for f in doc["findings"]]
    first = doc["findings"][0]["causes"][0]
    assert "against another torch" in first["text"]
    assert "rebuild the extension against the installed torch" in first["fix"][0]


def test_importerror_without_a_symbol_stays_the_environment(cli, tmp_path):
    _, doc = explain_paste(cli, tmp_path, NOT_INSTALLED)
    assert root_id(doc) == "code.python_env"
    # a C symbol of another library (no torch namespace): the loader's own cause, not the torch one
    text = ("ImportError: /opt/venv/lib/python3.10/site-packages/foo/_ext.cpython-310-x86_64-linux-gnu.so: "
            "undefined symbol: H5Pset_fapl_mpio\n")
    _, doc = explain_paste(cli, tmp_path, text)
    assert root_id(doc) == "loader.undefined_symbol"
    assert "another torch" not in doc["findings"][0]["causes"][0]["text"]


# a planted run (bench/data/explain_heldout_2026-11-26p16.jsonl, planted:healthy_nccl_socket_threads_over_64: torch
# with NCCL 2.28.9 on two GPUs, NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD over 64, exit 0), its lines
HEALTHY_CLAMP = """NCCL version 2.28.9+cuda13.0
[rank1] 19:14:02 world 2 device NVIDIA H100 80GB HBM3
[rank0] 19:14:02 world 2 device NVIDIA H100 80GB HBM3

[2026-11-26 19:14:07] vm:3299:3431 [1] transport/net_socket.cc:332 NCCL WARN NET/Socket : the total number of sockets is greater than the maximum allowed, setting NCCL_NSOCKS_PERTHREAD to 4

[2026-11-26 19:14:08] vm:3298:3432 [0] transport/net_socket.cc:332 NCCL WARN NET/Socket : the total number of sockets is greater than the maximum allowed, setting NCCL_NSOCKS_PERTHREAD to 4
[rank0] 19:14:09 step 25 loss 0.6312 17.1 ms/step
[rank1] 19:14:09 step 25 loss 0.5021 17.0 ms/step
[rank0] 19:14:09 step 50 loss 0.3451 4.8 ms/step
"""

# a planted run (bench/data/explain_heldout_2026-11-26p17.jsonl, planted:p17_healthy_acc_metrics_compute_warn:
# accelerate launch --cpu of an evaluation that completed), its lines
HEALTHY_ACC_CPU = """$ accelerate launch --cpu --num_processes 1 eval_acc.py
The following values were not passed to `accelerate launch` and had defaults used instead:
\t`--num_machines` was set to a value of `1`
\t`--mixed_precision` was set to a value of `'no'`
\t`--dynamo_backend` was set to a value of `'no'`
\t`--num_cpu_threads_per_process` was set to `2` to improve out-of-box performance when training on CPUs
To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`.
Setting TOKENIZERS_PARALLELISM=false for forked processes.
/venv/lib/python3.11/site-packages/torchmetrics/utilities/prints.py:43: UserWarning: The ``compute`` method of metric MulticlassAccuracy was called before the ``update`` method which may lead to errors, as metric states have not yet been updated.
  warnings.warn(*args, **kwargs)
before any batch: tensor(0.)
accuracy: 0.3235827386379242
"""


def test_nccl_clamp_warn_is_no_root(cli, tmp_path):
    _, doc = explain_paste(cli, tmp_path, HEALTHY_CLAMP)
    assert doc["verdict"] == "no_error", [f["id"] for f in doc["findings"]]
    # a failure after it is still the root: the socket error of a peer that died (src/misc/socket.cc)
    failing = HEALTHY_CLAMP + ("vm:3298:3432 [0] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by "
                               "remote peer vm<57712>\n")
    _, doc = explain_paste(cli, tmp_path, failing)
    assert doc["verdict"] == "root_cause" and root_id(doc) != "nccl.went_on", [f["id"] for f in doc["findings"]]


def test_went_on_pattern_reads_nccl_formats():
    kb = explain.load_knowledge()
    rx = [p.regex for p in kb.by_id["nccl.went_on"]["_patterns"] if p.role == "match"]
    assert len(rx) == 1
    # NCCL's formats (src/transport/net_socket.cc, src/graph/search.cc, src/init.cc, src/bootstrap.cc) as
    # ncclDebugLog prints them
    went_on = ["h:1:2 [0] NCCL WARN NET/Socket : NCCL_SOCKET_NTHREADS is greater than the maximum allowed, setting to 16",
               "h:1:2 [0] NCCL WARN Could not find a path for pattern 4, falling back to simple order",
               "h:1:2 [0] NCCL WARN Cannot initialize CollNet, using point-to-point network instead",
               "h:1:2 [0] NCCL WARN no device found matching NCCL_OOB_NET_IFNAME=ib9, ignoring"]
    failed = ["h:1:2 [0] NCCL WARN NET/Socket : socket progress error",
              "h:1:2 [0] NCCL WARN Cuda failure 'out of memory'",
              "h:1:2 [0] NCCL INFO Could not find a path for pattern 4, falling back to simple order"]
    assert all(rx[0].search(t) for t in went_on)
    assert not any(rx[0].search(t) for t in failed)


def test_accelerate_defaults_warning_is_no_complaint(cli, tmp_path):
    _, doc = explain_paste(cli, tmp_path, HEALTHY_ACC_CPU)
    assert doc["verdict"] == "no_error", [f["id"] for f in doc["findings"]]
    # the user saying it, beside the same launch: still read
    _, doc = explain_paste(cli, tmp_path, HEALTHY_ACC_CPU + "\naccelerate runs on the cpu although the node has 8 GPUs\n")
    assert root_id(doc) == "accelerate.runs_on_cpu"


# a planted run (bench/data/explain_heldout_2026-11-26p18.jsonl, planted:pod_env_file_quoted_values: podman
# --env-file with MASTER_PORT="29527", torch 2.x), its traceback's last frames
ENV_QUOTED = """$ podman run --rm --env-file job.env -v $PWD:/work -w /work trainimg python train.py
Traceback (most recent call last):
  File "/work/train.py", line 7, in main
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=timeout))
  File "/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 1892, in init_process_group
    store, rank, world_size = next(rendezvous_iterator)
                              ^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/venv/lib/python3.11/site-packages/torch/distributed/rendezvous.py", line 277, in _env_rendezvous_handler
    master_port = int(_get_env_or_raise("MASTER_PORT"))
                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
ValueError: invalid literal for int() with base 10: '"29527"'
"""

# the store not reached, raised in the same file (torch/distributed/rendezvous.py _create_c10d_store -> TCPStore)
STORE_TIMEOUT = """Traceback (most recent call last):
  File "/work/train.py", line 7, in main
    dist.init_process_group("nccl")
  File "/venv/lib/python3.11/site-packages/torch/distributed/rendezvous.py", line 189, in _create_c10d_store
    return TCPStore(
RuntimeError: Bad address
"""


def test_rendezvous_value_error_is_the_values(cli, tmp_path):
    _, doc = explain_paste(cli, tmp_path, ENV_QUOTED)
    assert root_id(doc) == "rendezvous.env_missing", [f["id"] for f in doc["findings"]]
    assert "int()" in doc["findings"][0]["causes"][0]["text"]
    _, doc = explain_paste(cli, tmp_path, STORE_TIMEOUT)
    assert root_id(doc) != "rendezvous.env_missing"


# a planted run (bench/data/explain_heldout_2026-11-26p15.jsonl, planted:mpirun_pml_ucx_absent: Open MPI 4 on a host
# without a usable UCX device), its lines
PML_UCX = """$ mpirun -np 2 --mca pml ucx ./mpi_put
[vm:14814] [[21792,0],0] ORTE_ERROR_LOG: Data unpack would read past end of buffer in file ../../../orte/util/show_help.c at line 501
[vm:14814] [[21792,0],0] ORTE_ERROR_LOG: Out of resource in file ../../../orte/util/show_help.c at line 501
[vm:14818] PML ucx cannot be selected
[vm:14819] PML ucx cannot be selected
"""


def test_pml_selection_abort_is_the_transport(cli, tmp_path):
    _, doc = explain_paste(cli, tmp_path, PML_UCX)
    assert root_id(doc) == "mpi.transport", [f["id"] for f in doc["findings"]]
    assert doc["findings"][0]["first_line"] == 4
    # only the relay's lines: still answered from them (nothing else to read)
    _, doc = explain_paste(cli, tmp_path, "\n".join(PML_UCX.splitlines()[:3]) + "\n")
    assert root_id(doc) == "mpi.launch"

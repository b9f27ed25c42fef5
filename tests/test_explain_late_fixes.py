"""Two misses of issue 18's scoring that are classes, not single texts.

A. A Slurm message pasted without its closing full stop: tools/gen_slurm_messages.py makes a format's final '.'
   optional in its matcher (_optional_stop). The text is bessagroup/f3dasm#352's paste
   (https://github.com/bessagroup/f3dasm/issues/352), the format src/common/slurm_opt.c's
   '--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.'
B. A healthy ds_report is a note, not deepspeed.ops: the [WARNING] lines of its op table are OpBuilder.warning()'s
   compatibility probes (op_builder/builder.py: print(f"{WARNING} {msg}"), WARNING = f"{YELLOW} [WARNING] {END}";
   deepspeed/env_report.py op_report). A real op build or load failure beside it stays deepspeed.ops. The report is
   composed from deepspeed 0.19.8's env_report.py and op_builder formats (0.12.3's op_builder/sparse_attn.py for
   the sparse_attn line; colours stripped, as a paste shows them),
   the failures from torch/utils/cpp_extension.py's and ninja's own lines.
"""

from explainhelp import generated_sites, root_of

from gpudoctor import explain

def _root(text):
    res = explain.explain_text(text, explain.load_knowledge(), source="t")
    return res["verdict"], root_of(res)


def test_slurm_message_without_its_full_stop():
    verdict, root = _root("sbatch --mem=8G --mem-per-cpu=8G\n"
                          "fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive\n")
    assert verdict == "root_cause" and root["family"] == "slurm.error", (verdict, root and root["id"])


def test_only_the_closing_stop_is_optional():
    sites = {s["id"]: s for s in generated_sites("slurm_messages")}
    mem = sites["slurm.msg.src_common_slurm_opt_c_5081"]
    assert mem["re"].endswith(r"exclusive\.?"), mem["re"]
    # an ellipsis stays whole; a stop inside the text stays required
    assert not any(s.get("re") and s["re"].endswith(r"\.\.?") for s in sites.values())
    assert any(s.get("re") and r"\.\ " in s["re"] for s in sites.values())


_DS_REPORT = """--------------------------------------------------
DeepSpeed C++/CUDA extension op report
--------------------------------------------------
NOTE: Ops not installed will be just-in-time (JIT) compiled at
      runtime if needed. Op compatibility means that your system
      meet the required dependencies to JIT install the op.
--------------------------------------------------
JIT compiled ops requires ninja
ninja .................. [OKAY]
--------------------------------------------------
op name ................ installed .. compatible
--------------------------------------------------
 [WARNING]  async_io requires the dev libaio .so object and headers but these were not found.
 [WARNING]  async_io: please install the libaio-dev package with apt
async_io ............... [NO] ....... [NO]
fused_adam ............. [NO] ....... [OKAY]
cpu_adam ............... [NO] ....... [OKAY]
 [WARNING]  Unable to locate CUTLASS. Install nvidia-cutlass, clone CUTLASS next to DeepSpeed, or set CUTLASS_PATH to the CUTLASS checkout.
evoformer_attn ......... [NO] ....... [NO]
 [WARNING]  sparse_attn requires a torch version >= 1.5 and < 2.0 but detected 2.1
sparse_attn ............ [NO] ....... [NO]
--------------------------------------------------
DeepSpeed general environment info:
torch version .................... 2.1.0+cu121
deepspeed info ................... 0.12.3, unknown, unknown
"""


def test_healthy_ds_report_is_a_note():
    res = explain.explain_text(_DS_REPORT, explain.load_knowledge(), source="t")
    assert res["verdict"] == "no_error", [f["id"] for f in res["findings"]]
    assert "deepspeed.ds_report_optional_ops" in [c["id"] for c in res["context"]]


def test_op_failure_beside_a_ds_report_stays_deepspeed_ops():
    failures = [
        "Traceback (most recent call last):\n  File \"train.py\", line 10, in <module>\n"
        "    engine, _, _, _ = deepspeed.initialize(args=args, model=model)\n"
        "RuntimeError: Error building extension 'fused_adam'\n",
        "FAILED: multi_tensor_adam.cuda.o\nninja: build stopped: subcommand failed.\n",
        "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n"
        "ImportError: /root/.cache/torch_extensions/py310_cu118/cpu_adam/cpu_adam.so: cannot open shared object file: "
        "No such file or directory\n",
    ]
    for fail in failures:
        for text in (_DS_REPORT + fail, fail + _DS_REPORT):
            verdict, root = _root(text)
            assert verdict == "root_cause" and root["family"] == "deepspeed.ops", (fail, verdict, root and root["id"])


def test_nvcc_not_found_under_cuda_home_in_an_op_build():
    # dash runs ninja's command line: '/bin/sh: 1: <path>: not found' (dash src/exec.c shellexec, src/error.c errmsg)
    text = ("[1/3] /usr/local/cuda-11.8/bin/nvcc -DTORCH_EXTENSION_NAME=fused_adam -c multi_tensor_adam.cu "
            "-o multi_tensor_adam.cuda.o\n/bin/sh: 1: /usr/local/cuda-11.8/bin/nvcc: not found\n"
            "ninja: build stopped: subcommand failed.\n" + _DS_REPORT)
    verdict, root = _root(text)
    assert verdict == "root_cause" and root["family"] == "build.cuda_home", (verdict, root and root["id"])

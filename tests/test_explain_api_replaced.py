"""A name, argument or flag a release removed, answered with the replacement the library's own deprecation message
named before it left (issue 18, item 1): tools/gen_api_history.py reads the deprecation sites of each release
(warnings.warn, logger.warning_once, transformers' deprecate_kwarg, diffusers' deprecate, vLLM's deprecate_kwargs and
argparse help "Deprecated, use ...", Lightning's rank_zero_deprecation, DeepSpeed's Field(deprecated=True,
new_param=...)) and, with --set serving, vLLM / Lightning / diffusers / sglang / DeepSpeed's names, config classes,
command-line flags and vLLM's environment variables (generated/api_history_serving.json; its record cut to a few
classes is tools/data/api_history_serving_slice.txt). Every text in REAL is a real one from the public thread cited
above it; the messages in MESSAGES are the libraries' own, from the release cited.
"""

import json
import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_api_history  # noqa: E402
from explainhelp import assert_root, explain_paste  # noqa: E402

from gpudoctor.explain import apihistory  # noqa: E402
from gpudoctor.explain.knowledge import open_generated  # noqa: E402

GEN = os.path.join(REPO, "gpudoctor", "data", "knowledge", "generated")

# (message as the source spells it, the site's own name where it has one, the (old, new) it names)
MESSAGES = [
    # vllm v0.6.0 vllm/engine/arg_utils.py: parser.add_argument('--worker-use-ray', help=...)
    ("Deprecated, use --distributed-executor-backend=ray.", "--worker-use-ray",
     ("worker_use_ray", "--distributed-executor-backend=ray")),
    # pytorch_lightning 1.9.0 trainer/connectors/accelerator_connector.py, rank_zero_deprecation(f"...")
    ("Setting `Trainer(gpus={})` is deprecated in v1.7 and will be removed in v2.0. Please use "
     "`Trainer(accelerator='gpu', devices={})` instead.", None, ("gpus", "Trainer(accelerator='gpu', devices=...)")),
    # pytorch_lightning 1.9.0 profilers: "Use the equivalent `...` class instead"
    ("`pytorch_lightning.profiler.XLAProfiler` is deprecated in v1.9.0 and will be removed in v2.0.0. Use the "
     "equivalent `pytorch_lightning.profilers.XLAProfiler` class instead.", None,
     ("XLAProfiler", "pytorch_lightning.profilers.XLAProfiler")),
    # transformers v4.41.0 training_args.py __post_init__
    ("`evaluation_strategy` is deprecated and will be removed in version 4.46 of 🤗 Transformers. Use "
     "`eval_strategy` instead", None, ("evaluation_strategy", "eval_strategy")),
    # vllm v0.7.0 vllm/lora/request.py
    ("The 'lora_local_path' attribute is deprecated and will be removed in a future version. Please use "
     "'lora_path' instead.", None, ("lora_local_path", "lora_path")),
]


@pytest.mark.parametrize("msg,subject,want", MESSAGES)
def test_deprecation_messages_name_the_replacement(msg, subject, want):
    got = gen_api_history._pairs_in(msg, subject)
    assert [(o, n) for o, n, _ in got if n] == [want]


def test_a_sentence_is_not_a_name():
    # words of the sentence ("this", "it") are no names; a placeholder is no name either
    assert gen_api_history._pairs_in("This argument is deprecated and will be removed. Set "
                                     "`VLLM_ALLOW_ENGINE_USE_RAY=1` to force use it.") == []
    assert gen_api_history._pairs_in("{} is deprecated, use {} instead") == []
    # the subject of an argparse help is the flag: a message without a replacement still dates it
    assert gen_api_history._pairs_in("(DEPRECATED. This argument is deprecated and will be removed in a future "
                                     "update.)", "--engine-use-ray")[0][:2] == ("engine_use_ray", "")


def test_sites_read_with_ast():
    src = '''
import warnings
from pydantic import Field
class Cfg(DeepSpeedConfigModel):
    cpu_offload: bool = Field(None, json_schema_extra={"deprecated": True, "new_param": "offload_optimizer"})
def f(parser, old=None):
    parser.add_argument("--old-flag", action="store_true", help="Deprecated, use --new-flag instead.")
    if old is not None:
        msg = "`old` is deprecated, use `brand_new` instead"
        warnings.warn(msg, FutureWarning)
@deprecate_kwarg("max_size", version="4.40", new_name="size")
def g(size=None):
    pass
'''
    got = {(o, n) for o, n, _ in gen_api_history.deprecations([("pkg/m.py", src)])}
    assert {("cpu_offload", "offload_optimizer"), ("old_flag", "--new-flag"), ("old", "brand_new"),
            ("max_size", "size")} <= got


# real texts (public threads), what the answer must say
REAL = {
    # https://github.com/EleutherAI/lm-evaluation-harness/issues/2706 (settled by PR #2708: worker_use_ray ->
    # distributed_executor_backend="ray")
    "lmeval_2706": ('ray.exceptions.RayTaskError(TypeError): ray::run_inference_one_model() (pid=4153477, '
                    'ip=10.1.202.37)\n'
                    '  File "/home/miniconda3/envs/rl/lib/python3.10/site-packages/lm_eval/models/vllm_causallms.py", '
                    'line 258, in run_inference_one_model\n    llm = LLM(**model_args)\n'
                    '  File "/home/miniconda3/envs/rl/lib/python3.10/site-packages/vllm/utils.py", line 1051, in inner\n'
                    '    return fn(*args, **kwargs)\n'
                    '  File "/home/miniconda3/envs/rl/lib/python3.10/site-packages/vllm/entrypoints/llm.py", line 212, '
                    'in __init__\n    engine_args = EngineArgs(\n'
                    "TypeError: EngineArgs.__init__() got an unexpected keyword argument 'worker_use_ray'\n",
                    ("left vllm in 0.7.0", 'distributed_executor_backend="ray"', "upgrade lm_eval",
                     "pip install 'vllm<0.7.0'")),
    # https://github.com/zai-org/GLM-4/issues/712 (the user's own script: no caller to upgrade)
    "glm4_712": ('Traceback (most recent call last):\n'
                 '  File "/root/autodl-tmp/data/GLM-4/basic_demo/glm_server.py", line 661, in <module>\n'
                 '    engine_args = AsyncEngineArgs(\n'
                 '                  ^^^^^^^^^^^^^^^^\n'
                 "TypeError: AsyncEngineArgs.__init__() got an unexpected keyword argument 'worker_use_ray'\n",
                 ("AsyncEngineArgs(worker_use_ray=...) left vllm in 0.7.0", 'distributed_executor_backend="ray"')),
    # https://github.com/facebookresearch/xformers/issues/818 (Lightning 2.0 removed Trainer(gpus=...); the thread:
    # devices=... instead)
    "xformers_818": ("trainer = Trainer(\n    gpus=1,\n    max_epochs=EPOCHS,\n    precision=16,\n)\n"
                     "TypeError: Trainer.__init__() got an unexpected keyword argument 'gpus'\n",
                     ("left pytorch_lightning in 2.0.0", "Trainer(accelerator='gpu', devices=...)")),
}


@pytest.mark.parametrize("key", sorted(REAL))
def test_real_texts_name_the_replacement(key):
    text, wants = REAL[key]
    fix, why = apihistory.compute(text.splitlines())
    for w in wants:
        assert w in fix, (w, fix)
    assert "deprecation message" in why


def test_glm_has_no_caller():
    fix, _ = apihistory.compute(REAL["glm4_712"][0].splitlines())
    assert "in the caller" not in fix


def test_the_logs_own_warning_wins():
    # a deprecation warning printed before the failure names the replacement itself
    lines = ["WARNING 01-01 00:00:00 arg_utils.py:1] `worker_use_ray` is deprecated: use `my_backend` instead",
             "TypeError: EngineArgs.__init__() got an unexpected keyword argument 'worker_use_ray'"]
    fix, _ = apihistory.compute(lines)
    assert "use my_backend instead (as the log's own deprecation warning)" in fix


def test_command_line_flag():
    # argparse's own wording (Lib/argparse.py error()): '%(prog)s: error: unrecognized arguments: %s'
    fix, _ = apihistory.compute(["usage: api_server.py [-h] [--host HOST]",
                                 "api_server.py: error: unrecognized arguments: --worker-use-ray"])
    assert "vllm --worker-use-ray left vllm in 0.7.0" in fix and "--distributed-executor-backend" in fix


def test_regenerates_from_its_record(tmp_path):
    out = tmp_path / "api_history_serving.json"
    gen_api_history.main(["--slice", os.path.join(REPO, "tools", "data", "api_history_serving_slice.txt"),
                          "-o", str(out)])
    got = json.loads(out.read_text())["packages"]
    with open_generated("api_history_serving") as f:
        full = json.load(f)
    assert full["header"]["generator"] == "tools/gen_api_history.py"
    full = full["packages"]
    for pkg, cls in (("vllm", "EngineArgs"), ("vllm", "vllm CLI"), ("vllm", "vllm ENV"),
                     ("pytorch_lightning", "Trainer")):
        assert got[pkg]["releases"] == full[pkg]["releases"], pkg
        assert got[pkg]["params"][cls] == full[pkg]["params"][cls], cls
    for pkg, name in (("vllm", "worker_use_ray"), ("pytorch_lightning", "gpus")):
        assert got[pkg]["replaced"][name] == full[pkg]["replaced"][name]
    # what the wheels say: vLLM's V1 engine switch arrived and left within the releases read
    env = apihistory.spans(full["vllm"]["params"]["vllm ENV"]["args"])
    assert "VLLM_USE_V1" in env


def test_explain_answers_with_the_replacement(cli, tmp_path):
    rc, doc = explain_paste(cli, tmp_path, REAL["lmeval_2706"][0], "--json")
    assert rc in (0, 1)  # explain's exit code says whether it ran, not the log's health
    root = assert_root(doc, entry="vllm.api_version", fix=('distributed_executor_backend="ray"', "vllm<0.7.0",
                                                           "upgrade lm_eval"))
    assert root["family"] == "vllm.library_error"
    assert root["notes"][0].startswith("How sure: medium.")

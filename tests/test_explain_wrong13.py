"""Never confidently wrong (issue 18 item 3, wrong13): a generated message site whose words are only those of an
exception message the Python interpreter itself prints (knowledge.INTERPRETER_WORDINGS, CPython's own texts) gives no
family from the file that raises it: every Python program prints that line.

The text is made here by running the real interpreter: a project file named tokenize.py beside the script shadows the
standard library's tokenize module, and linecache (which the traceback module and torch's lazy CUDA init call) then
raises "AttributeError: module 'tokenize' has no attribute 'open'" (CPython Lib/linecache.py updatecache ->
tokenize.open; the message is Objects/moduleobject.c module_getattro's). Before this rule SGLang's table
(sglang/srt/server_args.py:209 'module %s has no attribute %s') read it as serving.config: SGLang's server arguments.
"""

import subprocess
import sys

from explainhelp import explain_paste, root_id
from gpudoctor import explain
from gpudoctor.explain.knowledge import interpreter_wording


def test_interpreter_wording_is_words_not_values():
    assert interpreter_wording("module %s has no attribute %s")
    assert interpreter_wording("'{}' object has no attribute '{}'")
    assert interpreter_wording("No module named {name}")
    # words of its own: torch's weights-only unpickler, an argument check that says what to pass
    assert not interpreter_wording("Unsupported operand %s")
    assert not interpreter_wording("module %s has no attribute %s; pass --model-impl transformers")
    assert not interpreter_wording(None)


def test_no_generated_site_of_interpreter_wording_is_attached():
    kb = explain.load_knowledge()
    attached = [s for e in kb.entries for s in e.get("_sites", ()) if interpreter_wording(s.get("text"))]
    assert attached == []
    # the site is still in the committed table (its generator's output), only not read as its file's family
    assert "sglang.sglang_srt_server_args_py_209" not in {s["id"] for s in kb.by_id["serving.config"].get("_sites", ())}


def test_stdlib_shadowing_attribute_error_is_no_serving_config(cli, tmp_path):
    work = tmp_path / "job"
    work.mkdir()
    (work / "tokenize.py").write_text("# the project's own tokenizer helpers\n")
    (work / "train.py").write_text("import linecache\nlinecache.getlines(__file__)\n")
    # the script's folder is sys.path[0] (python train.py), ahead of the standard library
    run = subprocess.run([sys.executable, "train.py"], capture_output=True, text=True, cwd=str(work), timeout=60)
    text = "$ python train.py\n" + run.stderr
    assert "AttributeError: module 'tokenize' has no attribute 'open'" in text, text
    _, doc = explain_paste(cli, tmp_path, text)
    assert root_id(doc) != "serving.config"
    assert not any(f["family"].startswith("serving.") for f in doc["findings"]), doc["findings"]


# https://github.com/huggingface/trl/issues/6064 (CI, test_sft_peft[fsdp2]; the excerpt, its last frames)
TRL_6064 = """CI fails for distributed smoke tests (test_sft_peft[fsdp2]):
[rank1]:   File "/__w/trl/trl/.venv/lib/python3.12/site-packages/torch/nn/modules/module.py", line 1832, in inner
[rank1]:     result = forward_call(*args, **kwargs)
[rank1]:   File "/__w/trl/trl/.venv/lib/python3.12/site-packages/peft/peft_model.py", line 1993, in forward
[rank1]:     return self.base_model(
[rank1]:   File "/__w/trl/trl/.venv/lib/python3.12/site-packages/peft/tuners/tuners_utils.py", line 330, in forward
[rank1]:     return self.model.forward(*args, **kwargs)
[...]
RuntimeError: aten.mm.default got mixed torch.Tensor and DTensor, need to convert all torch.Tensor to DTensor before calling distributed operators!
"""


def test_dtensor_mixed_is_torch_distributed_not_the_frame_library(cli, tmp_path):
    # torch/distributed/tensor/_dispatch.py's message is matched, not read from the library whose frame raised it
    _, doc = explain_paste(cli, tmp_path, TRL_6064)
    assert root_id(doc) == "torch.distributed_usage"
    assert "fully_shard" in doc["findings"][0]["causes"][0]["fix"][0]

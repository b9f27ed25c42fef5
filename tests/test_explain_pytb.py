"""explain's structural answer from a Python traceback or an argparse refusal when no knowledge
entry matches (issue 18 item 2): the innermost exception, where it was raised (the user's own file
or a library, named from the path), the chain, exception groups, torch elastic's rank prefixes; and
the tracebacks a program went on after stay healthy.

Formats: CPython's Lib/traceback.py, checked against the running interpreter (traceback.format_exc)
and cases ported from CPython's Lib/test/test_traceback.py; argparse's from Lib/argparse.py. Real
texts: the public threads cited beside each.
"""

import sys
import traceback

import pytest

from gpudoctor import explain
from gpudoctor.explain import pytb


def _root(res):
    f = res["findings"][0] if res["findings"] else None
    return res["verdict"], f and f["id"], f and f["confidence"]


def _format(fn):
    """The running interpreter's own traceback text for fn()'s exception (CPython's format, not a copy)."""
    try:
        fn()
    except BaseException:  # noqa: B902 (exception groups too)
        return traceback.format_exc()
    raise AssertionError("no exception")


# ---------------------------------------------------------------- the reader, on CPython's own format

def _raise_chain_cause():
    try:
        {}["labels"]
    except KeyError as e:
        raise RuntimeError("could not build the batch") from e


def _raise_chain_context():
    try:
        int("x")
    except ValueError:
        raise OSError("while reporting")


def _recurse(n):
    return _recurse(n + 1) if n < 10000 else None


def test_the_interpreters_own_chain_is_read_innermost_first():
    text = _format(_raise_chain_cause)
    tbs = pytb.parse(text)
    assert [(t["exc"], t["msg"], t["chain"]) for t in tbs] == [
        ("KeyError", "'labels'", None), ("RuntimeError", "could not build the batch", "cause")]
    assert tbs[0]["frames"][-1][0] == __file__ and tbs[0]["frames"][-1][2] == "_raise_chain_cause"
    tbs = pytb.parse(_format(_raise_chain_context))
    assert [(t["exc"], t["chain"]) for t in tbs] == [("ValueError", None), ("OSError", "context")]


def test_recursion_and_its_repeated_line_marker():
    text = _format(lambda: _recurse(0))
    assert "Previous line repeated" in text
    (tb,) = pytb.parse(text)
    assert tb["exc"] == "RecursionError" and tb["frames"][-1][2] == "_recurse"


@pytest.mark.skipif(sys.version_info < (3, 11), reason="exception groups are Python 3.11+")
def test_an_exception_group_of_the_running_interpreter(kb):
    def group():
        errs = []
        for v in ("a", "b"):
            try:
                int(v)
            except ValueError as e:
                errs.append(e)
        raise ExceptionGroup("two bad values", errs)  # noqa: F821 (3.11+)

    text = _format(group)
    tbs = pytb.parse(text)
    assert [t["exc"] for t in tbs] == ["ExceptionGroup", "ValueError", "ValueError"]
    assert all(t["group"] for t in tbs)
    assert tbs[1]["frames"][-1][2] == "group"
    # the answer is the group's first sub-exception with a traceback, the group named
    f = explain.explain_text(text, kb)["findings"][0]
    assert f["id"] == "code.exception" and "ValueError: invalid literal for int() with base 10: 'a'" in f["notes"][1]
    assert "exception group ExceptionGroup: two bad values" in f["notes"][-1]


def test_cpythons_exception_group_basic_case():
    # CPython Lib/test/test_traceback.py test_exception_group_basic (its expected text; the file names are
    # the test's __file__): a group whose sub-exceptions were never raised has no traceback of their own
    text = ('  + Exception Group Traceback (most recent call last):\n'
            '  |   File "/src/Lib/test/test_traceback.py", line 2, in get_exception\n'
            '  |     exception_or_callable()\n'
            '  |     ~~~~~~~~~~~~~~~~~~~~~^^\n'
            '  |   File "/src/Lib/test/test_traceback.py", line 9, in exc\n'
            '  |     raise ExceptionGroup("eg", [ValueError(1), TypeError(2)])\n'
            '  | ExceptionGroup: eg (2 sub-exceptions)\n'
            '  +-+---------------- 1 ----------------\n'
            '    | ValueError: 1\n'
            '    +---------------- 2 ----------------\n'
            '    | TypeError: 2\n'
            '    +------------------------------------\n')
    (tb,) = pytb.parse(text)
    assert (tb["exc"], tb["msg"], tb["group"], tb["nframes"]) == ("ExceptionGroup", "eg (2 sub-exceptions)", True, 2)
    assert tb["frames"][-1] == ("/src/Lib/test/test_traceback.py", 9, "exc")


def test_cpythons_syntax_error_frame_has_no_function():
    # format_exception_only for SyntaxError: '  File "<file>", line N' (no ', in ...'), the line and a caret
    text = ('Traceback (most recent call last):\n  File "/w/train.py", line 3, in <module>\n    import cfg\n'
            '  File "/w/cfg.py", line 1\n    lr = = 3\n         ^\nSyntaxError: invalid syntax\n')
    (tb,) = pytb.parse(text)
    assert tb["frames"][-1] == ("/w/cfg.py", 1, "") and pytb.innermost(tb)[3] == "user"


def test_a_rich_traceback_panel_with_a_wrapped_path(kb):
    # https://github.com/nlp-with-transformers/notebooks/issues/99 (accelerate's rich traceback, as pasted: rich
    # wraps the long path of accelerator.py inside its panel; the title names the exception; the
    # panel's later frames, cut from the excerpt, are left out): rich/traceback.py's '<file>:<line> in <fn>'
    v = "\u2502"
    text = ("\u256d\u2500\u2500\u2500 Traceback (most recent call last) \u2500\u2500\u2500\u256e\n"
            + v + " /home/codeparrot/codeparrot_training.py:115 in <module>                      " + v + "\n"
            + v + "                                                                                       " + v + "\n"
            + v + "   114 # Accelerator                                                                   " + v + "\n"
            + v + " \u2771 115 accelerator = Accelerator(dispatch_batches=True)                                " + v + "\n"
            + v + "   116 acc_state = {str(k): str(v) for k, v in accelerator.state.__dict__.items()}     " + v + "\n"
            + v + "                                                                                       " + v + "\n"
            + v + " /home/anaconda3/envs/lab/lib/python3.9/site-packages/accelerate/accelerator. " + v + "\n"
            + v + " py:358 in __init__                                                                    " + v + "\n"
            + v + "                                                                                       " + v + "\n"
            + v + "    355 " + v + "   " + v + "   " + v + "   " + v + "   " + v + "   " + v
            + "   self.fp8_recipe_handler = handler                      " + v + "\n"
            + "\u2570" + "\u2500" * 40 + "\u256f\n"
            + "KeyError: 'backend'\n")
    (tb,) = pytb.parse(text)
    assert tb["frames"] == [("/home/codeparrot/codeparrot_training.py", 115, "<module>"),
                            ("/home/anaconda3/envs/lab/lib/python3.9/site-packages/accelerate/accelerator.py", 358,
                             "__init__")]
    res = explain.explain_text(text, kb)
    assert _root(res) == ("likely_cause", "accelerate.library_error", "structural")
    assert "codeparrot_training.py:115" in res["findings"][0]["notes"][1]


def test_ipythons_traceback(kb):
    # made here: IPython 8.12.3's ultratb.VerboseTB(color_scheme="NoColor") for train() calling a module's check()
    text = ("---------------------------------------------------------------------------\n"
            "ValueError                                Traceback (most recent call last)\n"
            "File <stdin>:8\n\n"
            "File <stdin>:6, in train(cfg={'bf16': True, 'fp16': True})\n\n"
            "File /tmp/es/ipy/mylib.py:3, in check(cfg={'bf16': True, 'fp16': True})\n"
            "      1 def check(cfg):\n"
            '      2     if cfg.get("fp16") and cfg.get("bf16"):\n'
            '----> 3         raise ValueError("fp16 and bf16 cannot both be set")\n'
            "      4     return cfg\n\n"
            "ValueError: fp16 and bf16 cannot both be set\n")
    (tb,) = pytb.parse(text)
    assert tb["frames"] == [("<stdin>", 8, ""), ("<stdin>", 6, "train"), ("/tmp/es/ipy/mylib.py", 3, "check")]
    res = explain.explain_text(text, kb)
    assert _root(res) == ("root_cause", "code.exception", "structural")
    assert "/tmp/es/ipy/mylib.py:3 in check" in res["findings"][0]["notes"][1]
    # a notebook cell (IPython 8) and IPython 7's '<path> in <fn>(...)' (its line is on the '---->' line)
    assert pytb._frame([], 0, "Cell In[4], line 26") == ("<cell In[4]>", 26, "<module>")
    assert pytb._frame([], 0, "/opt/x/site-packages/transformers/training_args.py in __init__(self, output_dir)") == \
        ("/opt/x/site-packages/transformers/training_args.py", 0, "__init__")


@pytest.mark.parametrize("path,want", [
    ("/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py", ("lib", "torch")),
    ("/usr/lib/python3/dist-packages/deepspeed/runtime/engine.py", ("lib", "deepspeed")),
    (r"C:\Users\u\venv\Lib\site-packages\transformers\training_args.py", ("lib", "transformers")),
    ("/x/site-packages/pytorch_lightning/trainer/trainer.py", ("lib", "lightning")),
    ("/x/site-packages/deepspeed-0.9.0-py3.10.egg/deepspeed/__init__.py", ("lib", "deepspeed")),
    ("/workspace/Megatron-LM/megatron/core/parallel_state.py", ("lib", "megatron")),
    ("/workspace/Megatron-LM/pretrain_gpt.py", ("user", None)),
    ("/usr/lib/python3.10/json/decoder.py", ("stdlib", None)),
    ("<frozen runpy>", ("stdlib", None)),
    ("<string>", ("stdlib", None)),
    ("/root/miniconda3/bin/torchrun", ("lib", "torch")),  # a launcher's console script, not the user's file
    ("/usr/local/bin/accelerate", ("lib", "accelerate")),
    ("train.py", ("user", None)),
])
def test_where_a_frame_is(path, want):
    assert pytb.where(path) == want


def test_an_exception_named_in_a_log_line_ends_no_traceback():
    text = ('Traceback (most recent call last):\n  File "/w/a.py", line 1, in f\nValueError: x\n'
            'some log line\nRuntimeError: y\n')
    assert [t["exc"] for t in pytb.parse(text)] == ["ValueError"]


# ---------------------------------------------------------------- answers

def test_a_users_own_file_under_torchrun_rank_prefixes(kb):
    # ranks' lines interleaved: rank 1's traceback is read from rank 1's lines only
    text = ('[rank1]: Traceback (most recent call last):\n'
            '[rank1]:   File "/home/u/proj/train.py", line 120, in <module>\n'
            '[rank1]:     main()\n'
            '[rank0]: step 5 loss 1.2\n'
            '[rank1]:   File "/home/u/proj/train.py", line 88, in main\n'
            '[rank0]:   File "/home/u/proj/other.py", line 1, in nothing\n'
            '[rank1]:     batch = cfg["labels"]\n'
            '[rank1]: KeyError: \'labels\'\n')
    res = explain.explain_text(text, kb)
    assert _root(res) == ("root_cause", "code.exception", "structural")
    f = res["findings"][0]
    assert f["notes"][0].startswith("How sure: medium")
    # the line's own reading leads (userline.py: the key and the mapping it reads), the file's fix follows
    assert "`batch = cfg[\"labels\"]`" in f["causes"][0]["text"] and "sorted(cfg)" in f["causes"][0]["fix"][0]
    assert "open /home/u/proj/train.py (line 88)" in f["causes"][1]["fix"][0] and "not the cluster" in f["notes"][1]


def test_transtrack_63_keyerror_in_the_projects_code_beside_torchruns_echo(kb):
    # https://github.com/PeizeSun/TransTrack/issues/63 (a bug in the repository's sampler, fixed by its maintainer)
    text = ("Traceback (most recent call last):\n"
            '  File "main_track.py", line 390, in <module>\n    main(args)\n'
            '  File "main_track.py", line 195, in main\n'
            "    sampler_val = DistributedVideoSampler(dataset_val, start_id=args.start_id, shuffle=False)\n"
            '  File "/root/autodl-tmp/TransTrack/datasets/sampler_video_distributed.py", line 36, in __init__\n'
            "    if img_info['frame_id'] == start_id:\n"
            "KeyError: 'frame_id'\n"
            "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 2488) of "
            "binary: /root/miniconda3/bin/python3\n")
    res = explain.explain_text(text, kb)
    assert res["findings"][0]["id"] == "code.exception" and res["findings"][0]["role"] == "root"
    assert "reads the key 'frame_id' of `img_info`" in res["findings"][0]["causes"][0]["text"]
    assert "sampler_video_distributed.py (line 36)" in res["findings"][0]["causes"][1]["fix"][0]
    assert res["findings"][1]["family"] == "cascade"


def test_bk_sdm_10_and_basicsr_534_keyerrors_in_the_scripts_own_files(kb):
    # https://github.com/Nota-NetsPresso/BK-SDM/issues/10 ; https://github.com/XPixelGroup/BasicSR/issues/534
    # (Windows paths; an outdated option file: the data the code reads)
    bk = ("Traceback (most recent call last):\n"
          '  File "/home/user01/BK-SDM/src/kd_train_text_to_image.py", line 891, in <module>\n    main()\n'
          '  File "/home/user01/BK-SDM/src/kd_train_text_to_image.py", line 766, in main\n'
          "    a_stu = acts_stu[m_stu]\nKeyError: 'up_blocks.0'\n")
    basic = ("Traceback (most recent call last):\n"
             '  File "C:\\Github Repos\\BasicSR\\basicsr\\train.py", line 215, in <module>\n'
             "    train_pipeline(root_path)\n"
             '  File "C:\\Github Repos\\BasicSR\\basicsr\\train.py", line 93, in train_pipeline\n'
             "    opt, args = parse_options(root_path, is_train=True)\n"
             '  File "c:\\github repos\\basicsr_dupe\\basicsr\\utils\\options.py", line 137, in parse_options\n'
             "    if opt['num_gpu'] == 'auto':\nKeyError: 'num_gpu'\n")
    for text, where in ((bk, "kd_train_text_to_image.py:766"), (basic, "options.py:137")):
        res = explain.explain_text(text, kb)
        assert _root(res) == ("root_cause", "code.exception", "structural")
        assert where in res["findings"][0]["notes"][1]


def test_ai_responder_7_a_transformers_refusal_names_the_library(kb):
    # https://github.com/Eiztrips/ai-responder/issues/7 (fixed in the user's config: fp16: false); the
    # dataclass's generated '<string>' __init__ frame is nobody's own code. Its own message has an entry of
    # the generated library refusals: the shape yields to it; the same traceback with a message no entry
    # knows (made up here) gets the library's family from the frames
    real = ("Traceback (most recent call last):\n"
            '  File "C:\\Users\\vanya\\Projects\\ai-responder\\src\\ml\\model_trainer.py", line 229, in train_model\n'
            "    training_args = TrainingArguments(**device_args)\n"
            '  File "<string>", line 134, in __init__\n'
            '  File "C:\\Users\\vanya\\Projects\\ai-responder\\venv\\Lib\\site-packages\\transformers\\'
            'training_args.py", line 1742, in __post_init__\n'
            '    raise ValueError("At most one of fp16 and bf16 can be True, but not both")\n'
            "ValueError: At most one of fp16 and bf16 can be True, but not both\n")
    assert explain.explain_text(real, kb)["findings"][0]["confidence"] != "structural"
    text = real.replace("At most one of fp16 and bf16 can be True, but not both", "a frobnicator needs a widget")
    res = explain.explain_text(text, kb)
    # (family19) the finer family of the module whose own raise it is (transformers/training_args.py's
    # __post_init__: transformers.trainer, a case of transformers.library_error; generated/lib_modules.json)
    assert _root(res) == ("root_cause", "transformers.trainer", "structural")
    f = res["findings"][0]
    assert f["family"] == "transformers.library_error" and f["notes"][0].startswith("How sure: medium")
    assert "model_trainer.py:229" in f["notes"][1] and "refused the call" in f["notes"][1]


def test_a_torch_distributed_module_keeps_its_family_and_torch_frames_read_as_the_callers(kb):
    tb = ('Traceback (most recent call last):\n'
          '  File "/w/train.py", line 9, in <module>\n    x = torch.cat(parts)\n'
          '  File "/opt/conda/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 630, in __next__\n'
          '    data = self._next_data()\n'
          'ValueError: a brand new complaint\n')
    res = explain.explain_text(tb, kb)
    assert _root(res) == ("likely_cause", "code.exception", "structural")
    assert "inside torch at" in res["findings"][0]["notes"][1] and res["findings"][0]["notes"][0].startswith(
        "How sure: low")


def test_a_traceback_read_forward_from_its_header(kb):
    # an exception whose name the scan's exception pattern does not know (dynamo's 'Unsupported'; the
    # message made up here): the traceback is read from its header to the line that ends it
    text = ('Traceback (most recent call last):\n'
            '  File "/w/train.py", line 40, in <module>\n    out = cmodel(x)\n'
            '  File "/opt/conda/lib/python3.10/site-packages/torch/_dynamo/eval_frame.py", line 328, in _fn\n'
            '    return fn(*args, **kwargs)\n'
            'torch._dynamo.exc.Unsupported: call_function BuiltinVariable(frobnicate) [] {}\n')
    res = explain.explain_text(text, kb)
    # (family17: an exception class of torch/_dynamo/exc.py is torch.compile's own, not the user's call torch refused)
    assert _root(res) == ("likely_cause", "torch.compile_error", "structural")
    assert "/w/train.py:40" in " ".join(res["findings"][0]["notes"])
    # a chain: the first exception is the answer, the one it led to is named
    chain = _format(_raise_chain_cause)
    f = explain.explain_text(chain, kb)["findings"][0]
    assert f["id"] == "code.exception" and "KeyError: 'labels'" in f["notes"][1]
    assert "led to RuntimeError: could not build the batch (raised from it)" in f["notes"][2]
    # KeyboardInterrupt says the process was stopped (SIGINT), not that its code failed: never "your script"
    stopped = text.replace("torch._dynamo.exc.Unsupported: call_function BuiltinVariable(frobnicate) [] {}",
                           "KeyboardInterrupt")
    res = explain.explain_text(stopped, kb)
    assert (res["verdict"], res["root"]) == ("echo_only", "cascade.signal")
    assert "got SIGINT (KeyboardInterrupt, at /w/train.py:40)" in res["findings"][0]["notes"][1]


def test_a_known_entry_comes_before_the_shape(kb):
    # https://github.com/FudanNLP/CPT/issues/65: the usage line, then --local_rank: launcher.local_rank_arg
    text = ("usage: train_adgen.py [-h] [--model_path MODEL_PATH] [--dataset DATASET]\n"
            "                      [--lr LR] [--batch_size BATCH_SIZE] [--epoch EPOCH]\n"
            "                      [--data_dir DATA_DIR]\n"
            "train_adgen.py: error: unrecognized arguments: --local_rank=2\n")
    assert _root(explain.explain_text(text, kb))[:2] == ("root_cause", "launcher.local_rank_arg")


def test_ocr_pytorch_1_launcher_options_after_the_script(kb):
    # https://github.com/rosinality/ocr-pytorch/issues/1 (settled: python -m torch.distributed.launch train.py);
    # the paste left the usage line out: argparse's own message from a .py program is enough
    text = "train.py: error: unrecognized arguments: -m torch.distributed.launch --nproc_per_node 2\n"
    res = explain.explain_text(text, kb)
    assert _root(res) == ("root_cause", "launcher.script_args", "structural")
    f = res["findings"][0]
    assert f["notes"][0].startswith("How sure: medium")
    assert f["causes"][0]["fix"][0] == "move --nproc_per_node before the script's name on the launcher's line"


def test_argparse_with_its_usage_and_the_launchers_own_refusal(kb):
    text = "usage: train.py [-h] --cfg CFG\ntrain.py: error: the following arguments are required: --cfg\n"
    f = explain.explain_text(text, kb)["findings"][0]
    assert f["id"] == "launcher.script_args" and "give --cfg" in f["causes"][0]["fix"][0]
    # https://github.com/huggingface/pytorch-image-models/issues/1742: torchrun's own parser
    f = explain.explain_text("torchrun: error: unrecognized arguments: --nproc-per-node=1\n", kb)["findings"][0]
    assert f["id"] == "launcher.script_args" and "The launcher itself (torchrun)" in f["notes"][1]
    # beside torchrun's echo of the failed worker (its ChildFailedError traceback) the refusal is still the root
    echo = ("E1126 03:00:00.000000 123 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 2) "
            "local_rank: 0 (pid: 2488) of binary: /usr/bin/python3\n"
            "Traceback (most recent call last):\n"
            '  File "/usr/local/bin/torchrun", line 8, in <module>\n    sys.exit(main())\n'
            '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 263, in '
            "launch_agent\n    raise ChildFailedError(\n"
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n")
    res = explain.explain_text(text + echo, kb)
    assert res["verdict"] == "root_cause" and [f["role"] for f in res["findings"]][:2] == ["root", "cascade"]
    assert res["findings"][0]["id"] == "launcher.script_args"
    # https://github.com/hollowstrawberry/kohya-colab/issues/123 (a notebook passed --quiet to an accelerate
    # that had no such option; fixed in the notebook): accelerate's top-level parser is 'Accelerate CLI tool'
    text = ("usage: accelerate <command> [<args>]\n"
            "Accelerate CLI tool: error: unrecognized arguments: --quiet\n")
    f = explain.explain_text(text, kb)["findings"][0]
    assert f["id"] == "launcher.script_args" and "The launcher itself (accelerate)" in f["notes"][1]
    # not argparse: another program's 'error:' line without a usage line stays what it was
    res = explain.explain_text("mytool: error: argument frobnication failed\n", kb)
    assert not res["findings"] or res["findings"][0]["id"] != "launcher.script_args"


# ---------------------------------------------------------------- healthy: the program went on

_CAUGHT = ('step 10 loss 1.2\n'
           'Traceback (most recent call last):\n'
           '  File "/home/u/train.py", line 50, in save_ckpt\n    upload(path)\n'
           '  File "/home/u/train.py", line 20, in upload\n    raise ConnectionResetError("s3 reset")\n'
           'ConnectionResetError: s3 reset\n')


def test_a_caught_exception_that_training_logs_and_goes_on_after_is_healthy(kb):
    went_on = _CAUGHT + "".join("step %d loss 1.1\n" % i for i in range(11, 11 + pytb.MAX_GAP + 20))
    res = explain.explain_text(went_on, kb)
    assert (res["verdict"], res["findings"]) == ("no_error", [])
    assert [n["id"] for n in res["context"]] == ["code.caught_exception"]
    # the same traceback at the end of the text: the program stopped there
    assert explain.explain_text(_CAUGHT + "step 11 loss 1.1\n", kb)["verdict"] == "likely_cause"
    # one rank's traceback among other ranks' lines: those ranks going on says nothing of this one
    ranked = "".join("[rank1]: " + ln + "\n" for ln in _CAUGHT.splitlines()) + "".join(
        "[rank0]: step %d loss 1.1\n" % i for i in range(11, 11 + pytb.MAX_GAP + 20))
    assert explain.explain_text(ranked, kb)["verdict"] == "likely_cause"
    # logger.exception's record before its traceback is part of it
    logged = went_on.replace("step 10 loss 1.2\n", "2024-03-01 12:00:00,123 - ERROR - checkpoint upload failed\n")
    assert explain.explain_text(logged, kb)["verdict"] == "no_error"
    # a later traceback that ended the program is the answer, not the caught one before it
    ended = went_on + ('Traceback (most recent call last):\n  File "/home/u/train.py", line 99, in <module>\n'
                       '    evaluate()\nValueError: no eval split\n')
    f = explain.explain_text(ended, kb)["findings"][0]
    assert f["id"] == "code.exception" and "train.py:99" in f["notes"][1]
    # an error after the traceback: not healthy
    failed = went_on + "RuntimeError: the run stopped\n"
    assert explain.explain_text(failed, kb)["verdict"] != "no_error"


def test_exception_ignored_and_a_warning_records_traceback_are_healthy(kb):
    # CPython's default sys.unraisablehook: 'Exception ignored in: <obj>' then the traceback
    text = ("Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f0a>\n"
            "Traceback (most recent call last):\n"
            '  File "/opt/conda/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 1478, in __del__\n'
            "    self._shutdown_workers()\n"
            "AssertionError: can only test a child process\n")
    assert explain.explain_text(text, kb)["verdict"] == "no_error"
    # logger.warning(..., exc_info=True): the record's line, then its traceback
    warned = _CAUGHT.replace("step 10 loss 1.2\n", "2024-03-01 12:00:00,123 - WARNING - checkpoint upload failed, "
                                                  "retrying\n")
    assert explain.explain_text(warned, kb)["verdict"] == "no_error"


def test_the_read_backs_are_capped_per_scan(kb):
    # a log of thousands of traceback headers, exception lines or argparse-like lines costs at most MAX_TRIES
    # read-backs of each kind (each bounded to MAX_BACK_LINES / MAX_BACK_BYTES)
    import io

    from gpudoctor.explain.scan import scan_stream

    text = ("Traceback (most recent call last):\nRuntimeError: x\ntool: error: unrecognized arguments: --x\n"
            * (pytb.MAX_TRIES + 50))
    scan = scan_stream(io.BytesIO(text.encode()), kb)
    assert scan.tb_tries == pytb.MAX_TRIES and scan.tracebacks == []
    assert scan.ap_tries == pytb.MAX_TRIES and scan.argparse == []
    # argparse refusals kept: the first MAX_ARGPARSE
    scan = scan_stream(io.BytesIO(b"t.py: error: unrecognized arguments: --x\n" * 100), kb)
    assert len(scan.argparse) == pytb.MAX_ARGPARSE

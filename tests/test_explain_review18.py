"""review18: confidently-wrong answers found while reviewing session 18's commits (issue 18), each fixed in the commit
named in its test, with the texts that showed it."""

from gpudoctor import explain
from gpudoctor.explain.knowledge import open_generated


def _findings(text, kb):
    return explain.explain_text(text, kb)["findings"]


def test_a_dcgm_exporter_that_failed_to_start_is_not_the_host_engine(kb):
    # noanswer18 3c1e57b read 'Failed to start NVIDIA DCGM <anything>' as nv-hostengine's start failure. dcgm-exporter's
    # own unit is 'NVIDIA DCGM-exporter service' (NVIDIA/dcgm-exporter packaging/config-files/systemd/
    # nvidia-dcgm-exporter.service) and hand-written units are 'NVIDIA DCGM Exporter'; the host engine's unit is
    # 'NVIDIA DCGM service' (NVIDIA/DCGM config-files/systemd/nvidia-dcgm.service.in). systemd's forms: src/core/job.c
    # 'Failed to start %s.' and, since v250, 'Failed to start %s - %s.' (unit name, Description).
    for line in ("Failed to start NVIDIA DCGM Exporter.", "Failed to start NVIDIA DCGM-exporter service.",
                 "Failed to start nvidia-dcgm-exporter.service - NVIDIA DCGM-exporter service."):
        fs = _findings("Nov 27 10:00:01 node1 systemd[1]: %s\n" % line, kb)
        assert not any(f["id"] == "dcgm.hostengine" for f in fs), line
    for line in ("Failed to start NVIDIA DCGM service.", "Failed to start nvidia-dcgm.service - NVIDIA DCGM service."):
        fs = _findings("Nov 27 10:00:01 node1 systemd[1]: %s\n" % line, kb)
        assert fs and fs[0]["id"] == "dcgm.hostengine", line
        # a start failure is the engine not running, not a client's remote --host
        assert "not running" in fs[0]["causes"][0]["text"], line


def test_an_exception_line_naming_another_packages_module_is_not_a_wheels_copy(kb):
    # noanswer18 3c1e57b read the class name alone: tensorboard ships TensorFlow's error classes
    # (tensorboard/compat/tensorflow_stub/errors.py), ray vendors aiohttp, ray defines an OutOfMemoryError; the line's
    # module path names whose class it is (CPython's traceback prints '<module>.<qualname>').
    for line, wrong in (
            ("tensorflow.python.framework.errors_impl.InvalidArgumentError: Graph execution error: Incompatible "
             "shapes: [32,10] vs. [32,1]", "tensorboard"),
            ("aiohttp.client_exceptions.ClientConnectorError: Cannot connect to host huggingface.co:443 "
             "ssl:default [Connection reset by peer]", "ray"),
            ('Exception in thread "main" java.lang.OutOfMemoryError: Java heap space', "ray")):
        for f in _findings("loading data\n%s\n" % line, kb):
            assert "a class %s defines" % wrong not in " ".join(f["notes"]), line


def test_the_class_table_holds_no_vendored_or_standard_library_class(kb, tmp_path):
    # noanswer18 3c1e57b's table had 370 names of code a wheel vendors or copies: ray's thirdparty_files/aiohttp
    # (ClientConnectorError), tensorboard's compat/tensorflow_stub (ResourceExhaustedError), the standard library's
    # (mpi4py's ThreadPoolExecutor, ray's SpooledTemporaryFile): a bare line naming one was that wheel's family
    import json
    import os
    import sys
    import zipfile

    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open_generated("wheel_classes") as f:
        table = json.load(f)["classes"]
    for name in ("ClientConnectorError", "ResourceExhaustedError", "DeadlineExceededError", "ThreadPoolExecutor",
                 "SpooledTemporaryFile"):
        assert name not in table, name
    assert table["DeepSpeedZeroOptimizer_Stage3"] == "deepspeed"
    fs = _findings("AttributeError: 'SpooledTemporaryFile' object has no attribute 'readable'\n", kb)
    assert not any("a class ray defines" in " ".join(f["notes"]) for f in fs)
    # the generator: a vendored tree's classes and the interpreter's own are not the wheel's
    sys.path.insert(0, os.path.join(repo, "tools"))
    import gen_wheel_classes as g

    whl = tmp_path / "pkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(whl, "w") as z:
        z.writestr("pkg/engine.py", "class OneForwardOneBackwardEngine:\n    pass\n"
                   "class ThreadPoolExecutor:\n    pass\n")
        z.writestr("pkg/_private/thirdparty_files/aiohttp/client_exceptions.py", "class ClientConnectorError(E):\n")
        z.writestr("pkg/compat/tensorflow_stub/errors.py", "class InvalidArgumentError(OpError):\n")
        z.writestr("pkg/_vendor/packaging/version.py", "class InvalidVersionSpecifier(ValueError):\n")
    assert g.classes_of(str(whl), ["pkg"], g.stdlib_classes()) == ["OneForwardOneBackwardEngine"]


def test_a_documented_fix_is_never_the_fix_of_the_docstrings_own_example():
    # docerrors18 f63bf7d quoted, as jax's documented fix for any TracerBoolConversionError, "This can be fixed by
    # replacing it with `jnp.minimum`." and for TracerArrayConversionError "In this case, you can fix the issue by using
    # jax.numpy.sin in place of numpy.sin." (jax/_src/errors.py: the fix of the example just shown); and flax's
    # enumerated line block leaked "2. |" into a fix (flax/errors.py ScopeCollectionNotFound)
    import json
    import os
    import sys

    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open_generated("error_docs") as f:
        fixes = " | ".join(x for r in json.load(f)["classes"] for x in r["fix"])
    for bad in ("jnp.minimum", "numpy.sin", "2. |"):
        assert bad not in fixes, bad
    assert "mark this value as static" in fixes and "three-term jax.numpy.where" in fixes
    sys.path.insert(0, os.path.join(repo, "tools"))
    import gen_error_docs as g

    doc = ("Raised when a traced value is used as a bool.\n\n  Another option is to use jnp.where instead.\n\n"
           "    >>> f(x)\n    Traceback (most recent call last):\n    Error\n\n"
           "  In this case, you can fix the issue by using jnp.sin in place of np.sin.\n\n"
           "  You can pass `static_argnums` to mark the argument as static.\n")
    assert g.fixes(doc) == ["Another option is to use jnp.where instead.",
                            "You can pass `static_argnums` to mark the argument as static."]


def test_an_atexit_traceback_long_after_a_logged_one_does_not_make_it_the_root(kb):
    # docerrors18 7583046: a traceback followed by CPython's 'Exception ignored in atexit callback' (Modules/
    # atexitmodule.c) was never one the program went on after; a healthy run that logged a caught exception, went on
    # for 80 steps and ended, then printed an atexit callback's BrokenPipeError at exit, got code.library_error
    lines = ["step 0 loss 2.0", "2026-11-27 10:00:01,000 - ERROR - checkpoint upload failed, will retry",
             "Traceback (most recent call last):", '  File "/opt/train.py", line 88, in upload', "    client.put(path)",
             '  File "/usr/lib/python3.11/site-packages/botocore/client.py", line 12, in put',
             '    raise RuntimeError("upload quota reached for bucket ckpt")',
             "RuntimeError: upload quota reached for bucket ckpt"]
    lines += ["step %d loss %.3f" % (i, 2.0 - i / 100) for i in range(1, 80)]
    ended = ["Training finished: 80 steps", "Exception ignored in atexit callback: <function _cleanup at 0x7f00>",
             "Traceback (most recent call last):",
             '  File "/usr/lib/python3.11/site-packages/wandb/sdk/wandb_manager.py", line 150, in _cleanup',
             "    self._service.teardown()", "BrokenPipeError: [Errno 32] Broken pipe"]
    r = explain.explain_text("\n".join(lines + ended) + "\n", kb)
    assert r["verdict"] == "no_error", (r["verdict"], [f["id"] for f in r["findings"]])


def test_a_block_between_a_logs_own_dash_lines_is_no_open_mpi_banner(kb):
    # wrong18 c6f5b4c took any two lines of 60-90 dashes for an Open MPI help banner, so a log's own '-' * 80 block
    # whose first line was a known warning made the error lines below it that warning's: a failing text said
    # 'no error'. show_help's dash_line is 74 dashes (open-mpi/ompi opal/util/show_help.c).
    dash = "-" * 80
    text = ("starting job\n%s\n[W socket.cpp:436] [c10d] The server socket cannot be initialized on [::]:29500 "
            "(errno: 97 - Address family not supported by protocol).\nERROR: data shard 17 checksum mismatch, "
            "aborting\nFATAL: worker exited with code 3\n%s\n" % (dash, dash))
    assert explain.explain_text(text, kb)["verdict"] != "no_error"


def test_lightnings_early_stopping_end_line_is_no_flat_loss(kb):
    # wrong18 c6f5b4c made Lightning's EarlyStopping report an end of the run (outcome.py: lightning/pytorch/callbacks/
    # early_stopping.py 'Monitored metric {monitor} did not improve in the last {wait_count} records. Best score:
    # {best:.3f}. Signaling Trainer to stop.'), but meaning.py still read the same line as the user saying 'the loss
    # does not go down': torch.loss_not_decreasing (zero_grad between backward and step) on a run that ended well
    text = ("Epoch 9: 100%|##########| 50/50 [00:03<00:00, val_loss=0.124]\nMonitored metric val_loss did not improve "
            "in the last 3 records. Best score: 0.123. Signaling Trainer to stop.\n")
    r = explain.explain_text(text, kb)
    assert r["verdict"] == "no_error", [f["id"] for f in r["findings"]]
    # its divergence stop is a run gone wrong, still read
    nan = "Monitored metric val_loss = nan is not finite. Previous best value was 0.500. Signaling Trainer to stop.\n"
    assert explain.explain_text(nan, kb)["findings"][0]["id"] == "torch.loss_nan"


def test_a_ninja_build_the_user_interrupted_is_no_failed_step(kb):
    # noanswer18 3c1e57b read every 'ninja: build stopped: %s.' (ninja-build/ninja src/ninja.cc) as a failed build
    # step; its reason 'interrupted by user' (src/build.cc, SIGINT) is the user's Ctrl-C, not a compiler's error
    fs = _findings("[1/3] Building CUDA object kernel.cu.o\n[2/3] Linking\nninja: build stopped: interrupted by user.\n",
                   kb)
    assert not any(f["id"] in ("build.tool_error", "build.step_failed") for f in fs)
    fs = _findings("[2/3] Building CUDA object kernel.cu.o\nFAILED: kernel.cu.o\nninja: build stopped: subcommand "
                   "failed.\n", kb)
    # (noanswer18 c7a87cb+: ninja's and make's reports are the echo of the command that failed, build.step_failed)
    assert fs and fs[0]["id"] == "build.step_failed"


def test_a_module_without_its_own_dunder_is_no_release_mismatch(kb):
    # wrong18 c6f5b4c answered "module 'numpy' has no attribute '__version__'" raised in pandas' frame as the two
    # releases not fitting ("pin numpy to the last release that has numpy.__version__"): every numpy has it; a module
    # without it is a same-named folder found first or a broken install
    text = ('Traceback (most recent call last):\n  File "/home/u/proj/train.py", line 1, in <module>\n'
            '    import pandas as pd\n  File "/usr/lib/python3.11/site-packages/pandas/compat/numpy/__init__.py", '
            'line 4, in <module>\n    _np_version = np.__version__\n'
            "AttributeError: module 'numpy' has no attribute '__version__'\n")
    for f in _findings(text, kb):
        assert "has numpy.__version__" not in " ".join(" ".join(c.get("fix") or []) for c in f["causes"])


def test_dcgm_exporter_that_started_does_not_undo_the_host_engines_failure(kb):
    # noanswer18 4f4e304: a later 'Started <Description>.' of the same program undoes its start failure; 'Started
    # NVIDIA DCGM Exporter.' (another unit) counted as DCGM's host engine having started
    text = ("Nov 27 10:00:01 node1 systemd[1]: Failed to start NVIDIA DCGM service.\n"
            "Nov 27 10:00:02 node1 systemd[1]: Started NVIDIA DCGM Exporter.\n")
    fs = _findings(text, kb)
    assert fs and fs[0]["id"] == "dcgm.hostengine"
    fs = _findings(text.replace("Exporter", "service"), kb)
    assert not any(f["id"] == "dcgm.hostengine" for f in fs)


def test_a_warning_class_the_code_raised_itself_is_no_warnings_filter(kb):
    # wrong18 fcf633c read every traceback ending in a warning category as warnings.warn under an 'error' filter
    # (python.warning_as_error: unset PYTHONWARNINGS); code that raises the class itself has no filter to drop. Both
    # texts made here with CPython 3.11 (python3 -W error, and a plain run).
    warned = ('step 1\nTraceback (most recent call last):\n  File "/tmp/w1.py", line 5, in <module>\n    f()\n'
              '  File "/tmp/w1.py", line 3, in f\n    warnings.warn("use_reentrant parameter should be passed '
              'explicitly", UserWarning)\nUserWarning: use_reentrant parameter should be passed explicitly\n')
    assert _findings(warned, kb)[0]["id"] == "python.warning_as_error"
    raised = ('loading\nTraceback (most recent call last):\n  File "/tmp/w2.py", line 4, in <module>\n    load({})\n'
              '  File "/tmp/w2.py", line 2, in load\n    raise UserWarning("config key \'fp16\' is not supported with '
              'this model, use \'bf16\'")\nUserWarning: config key \'fp16\' is not supported with this model, use '
              '\'bf16\'\n')
    assert all(f["id"] != "python.warning_as_error" for f in _findings(raised, kb))


def test_a_shadowed_or_broken_module_is_not_a_release_that_lacks_the_name(kb):
    # removed18 471eb83 made every "module 'numpy|pandas|...' has no attribute 'X'" code.lib_api_version with its
    # release cause first: for numpy.__version__ asked by pandas it said "numpy.__version__ is not in the installed
    # numpy; pandas asks for it: upgrade pandas"; CPython 3.13's own hint "(consider renaming '<file>' if it has the
    # same name as a library you intended to import)" (Objects/moduleobject.c) got the release cause first too
    dunder = ('Traceback (most recent call last):\n  File "/home/u/proj/train.py", line 1, in <module>\n'
              '    import pandas as pd\n  File "/usr/lib/python3.11/site-packages/pandas/compat/numpy/__init__.py", '
              'line 4, in <module>\n    _np_version = np.__version__\n'
              "AttributeError: module 'numpy' has no attribute '__version__'\n")
    shadow = ('Traceback (most recent call last):\n  File "/home/u/proj/train.py", line 5, in <module>\n'
              '    df = pd.read_csv("data.csv")\n'
              "AttributeError: module 'pandas' has no attribute 'read_csv' (consider renaming '/home/u/proj/pandas.py' "
              "if it has the same name as a library you intended to import)\n")
    for text in (dunder, shadow):
        f = _findings(text, kb)[0]
        assert "another copy of the library" in f["causes"][0]["text"], f["causes"][0]["text"]
        assert "is not in the installed numpy" not in " ".join(x for c in f["causes"] for x in c.get("fix") or [])


def test_a_config_file_the_program_skipped_at_warning_level_is_no_root(kb):
    # config18 516c96f: healthy18's real run (fixtures/explain/healthy18/yaml-json-configs-one-skipped-with-warning.log:
    # PyYAML 6.0.4, a loader that logs the files it cannot parse at WARNING and loads the rest) got config.json_syntax
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(os.path.dirname(here), "fixtures", "explain", "healthy18",
                        "yaml-json-configs-one-skipped-with-warning.log")
    with open(path, encoding="utf-8") as f:
        r = explain.explain_text(f.read(), kb)
    assert r["verdict"] == "no_error", [x["id"] for x in r["findings"]]
    # the same parser error that ends the program (nothing after it) is still the config's
    fs = _findings("WARNING:configs:skipping old.json: Expecting property name enclosed in double quotes: line 1 "
                   "column 43 (char 42)\n", kb)
    assert fs and fs[0]["id"] == "config.json_syntax"


def test_the_elastic_agents_shutdown_warning_is_no_rendezvous_failure():
    """DynamicRendezvousHandler.shutdown() (torch/distributed/elastic/rendezvous/dynamic_rendezvous.py) warns 'The
    node ... has failed to shutdown the rendezvous ... due to an error of type RendezvousConnectionError' when the
    agent exits after its workers and the store's host agent is already gone: set P29's healthy two-agent run
    (bench/data/explain_heldout_2026-11-27p29.jsonl, p29-healthy_two_agent_c10d_shutdown_warning) was read as
    rendezvous.connect. The error class raised in a traceback still is."""
    from gpudoctor import explain
    done = ("rank 1/2 on vm finished\nrank 0/2 on vm finished\n"
            "W1127 09:43:01.438000 18183 torch/distributed/elastic/rendezvous/dynamic_rendezvous.py:1298] The node "
            "'localhost_18183_0' has failed to shutdown the rendezvous 'job-f2a8' due to an error of type "
            "RendezvousConnectionError.\n")
    assert explain.explain_text(done)["verdict"] == "no_error"
    raised = ("torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store "
              "has failed. See inner exception for details.\n")
    res = explain.explain_text(raised)
    assert res["verdict"] == "root_cause" and res["findings"][0]["id"] == "rendezvous.connect"

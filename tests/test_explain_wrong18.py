"""Never confidently wrong, healthy logs without a root (issue 18 item 3, wrong18): mechanisms of the seen sets'
confidently-wrong answers and flagged healthy logs at the session's start (docs/explain.md, "Confidently wrong and
healthy logs flagged, by mechanism (session 18)"; bench/data/wrong18_by_mechanism.json), each read from the source
that prints the line.

1. The printer's family where its frames show whose request it answered (asker.py): an exception raised in one of
   pickle's protocol methods (__getnewargs__, __getstate__, __reduce__...) is pickle's refusal (python.pickle), and
   "module 'M' has no attribute 'A'" raised where another installed package asked M for it is the two packages'
   releases not fitting (code.lib_api_version).
2. A warning the program went past: torch's TORCH_WARN saying it used a fallback ('Using the loopback address as
   fallback', ProcessGroupGloo.cpp), with nothing else failed, is no other program's failure (torchwarn.py); the fields of an Open
   MPI help banner whose topic is a warning are that warning, and a banner that says 'your job will continue' is no
   root (helpbanner.py); Lightning's own end of a fit (early stopping, Timer) ends the run (outcome.py).
3. A bare line that quotes a record the text holds at its program's INFO level (an issue title quoting NCCL's INFO
   line) is that record (quoted.py); a traceback that ends in a warning category is the warnings filter set to
   'error' (asker.warning_raised: python.warning_as_error); CPython's refusal of a call's arguments at the user's
   line that calls an installed package's callable is that package's usage family (asker.library_signature); the
   user's sentence that introduces a known warning ('... messages at log level error:') is no error of its own.
4. 'The same batch size' is DataLoader's batch_size setting, not the ranks being given the same batches (meaning.py
   data_same).
"""

import os

from explainhelp import explain_paste, fixes, ids, root_id, seen_text

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _seen(set_name, case_id):
    return seen_text(case_id, set_name)


_SITE = "/opt/venv/lib/python3.12/site-packages"


def _tb(frames, last):
    out = ["Traceback (most recent call last):"]
    for file, line, fn in frames:
        out += ['  File "%s", line %d, in %s' % (file, line, fn), "    pass"]
    return "\n".join(out + [last]) + "\n"


def test_an_object_that_refuses_pickling_is_pickles_refusal(cli, tmp_path):
    # P26 (planted, run here on 2 GPUs: h5py 3.16.0, torch 2.11.0): a Dataset holding an h5py.File under spawn
    # workers; h5py/_hl/base.py HLObject.__getnewargs__ raises TypeError("h5py objects cannot be pickled")
    _, doc = explain_paste(cli, tmp_path, _seen("2026-11-27p26", "p26-h5py_spawn_pickle"))
    assert root_id(doc) == "python.pickle", ids(doc)
    first = doc["findings"][0]["causes"][0]
    assert "lazily" in " ".join(first["fix"]) and "worker_init_fn" in " ".join(first["fix"]), first
    # any library's protocol method, called by multiprocessing's ForkingPickler (Lib/multiprocessing/reduction.py)
    text = _tb([("train.py", 9, "<module>"), ("/usr/lib/python3.12/multiprocessing/reduction.py", 60, "dump"),
                (_SITE + "/lmdb_ds/env.py", 41, "__getstate__")], "TypeError: Environment objects cannot be pickled")
    _, doc = explain_paste(cli, tmp_path, text, name="b.txt")
    assert root_id(doc) == "python.pickle", ids(doc)
    # the same exception raised in an ordinary method of the library is not pickle's
    text = _tb([("train.py", 9, "<module>"), (_SITE + "/lmdb_ds/env.py", 41, "open_env")],
               "TypeError: Environment objects cannot be pickled")
    _, doc = explain_paste(cli, tmp_path, text, name="c.txt")
    assert root_id(doc) != "python.pickle", ids(doc)


def test_a_name_another_package_asks_a_module_for_is_a_version_pair(cli, tmp_path):
    # P26 (planted, run here: numba-cuda 0.30.4 under numpy 2.5.2): numba_cuda's arrayobj.py calls np.row_stack, which
    # numpy/__init__.py's module __getattr__ (PEP 562) no longer has
    _, doc = explain_paste(cli, tmp_path, _seen("2026-11-27p26", "p26-numba_tpb_2048"))
    assert root_id(doc) == "code.lib_api_version", ids(doc)
    said = fixes(doc["findings"][0])
    assert "numba-cuda" in said and "row_stack" in said, said
    # CPython's own 'cannot import name' (Python/ceval.c import_from) in another package's import line
    text = _tb([("train.py", 3, "<module>"), (_SITE + "/imgaug/imgaug.py", 12, "<module>")],
               "ImportError: cannot import name 'sctypes' from 'numpy' (%s/numpy/__init__.py)" % _SITE)
    _, doc = explain_paste(cli, tmp_path, text, name="b.txt")
    assert root_id(doc) == "code.lib_api_version", ids(doc)
    # a module asking itself, and a circular import, are not two releases
    text = _tb([("train.py", 3, "<module>"), (_SITE + "/numpy/core/x.py", 12, "f")],
               "AttributeError: module 'numpy' has no attribute 'row_stack'")
    _, doc = explain_paste(cli, tmp_path, text, name="c.txt")
    # (removed18) lib_api.toml's numpy pattern makes it code.lib_api_version (family code.python_env: a mixed install),
    # but never a pair of two packages' releases nor a release answer (apihistory.caller_frame: 'self')
    assert root_id(doc) != "code.lib_api_version" or not any(
        w in fixes(doc["findings"][0]) for w in ("still calls", "asks numpy", "left numpy")), ids(doc)
    text = _tb([("train.py", 3, "<module>"), (_SITE + "/imgaug/imgaug.py", 12, "<module>")],
               "ImportError: cannot import name 'x' from partially initialized module 'numpy' (most likely due to a "
               "circular import)")
    _, doc = explain_paste(cli, tmp_path, text, name="d.txt")
    assert root_id(doc) != "code.lib_api_version", ids(doc)


def test_torchs_fallback_warning_is_no_other_programs_failure(cli, tmp_path):
    # P27 (planted, run here: sbatch + torchrun on one node, Gloo): ProcessGroupGloo.cpp's TORCH_WARN 'Unable to resolve
    # hostname to a (local) address. Using the loopback address as fallback.', then the ranks' results
    text = _seen("2026-11-27p27", "p27-healthy_slurm_sbatch_torchrun")
    _, doc = explain_paste(cli, tmp_path, text, rcs=(0,))
    assert doc["verdict"] == "no_error" and not doc["findings"], ids(doc)
    assert any("went on with the fallback" in n["note"] for n in doc["context"]), doc["context"]
    # a failure after it still has its root
    _, doc = explain_paste(cli, tmp_path, text + "RuntimeError: CUDA error: out of memory\n", name="b.txt")
    assert doc["findings"], doc["verdict"]
    # the same words outside torch's warning header keep their entries (an MPI launcher's own line)
    _, doc = explain_paste(cli, tmp_path, "ORTE was unable to resolve the host name node7\n", name="c.txt")
    assert root_id(doc) == "mpi.hostname", ids(doc)


_BANNER = ("-" * 74 + "\n%s\n\n  Local host:        n1\n  Application name:  python3\n"
           "  Error message:     failed to bind memory\n  Location:          rtc_hwloc.c:447\n\n" + "-" * 74 + "\n")


def test_an_open_mpi_warning_banner_is_one_warning(cli, tmp_path):
    # https://github.com/g-adopt/g-adopt/issues/219: help-orte-odls-default.txt [memory not bound]
    _, doc = explain_paste(cli, tmp_path, _seen("2026-11-27v", "v-healthy-gadopt-219-ompi-bind-memory-warning"), rcs=(0,))
    assert doc["verdict"] == "no_error" and not doc["findings"], ids(doc)
    # the same fields under a topic that is no warning still are an error nothing explains
    _, doc = explain_paste(cli, tmp_path, _BANNER % "Open MPI could not do what it was asked.", name="b.txt")
    assert doc["verdict"] != "no_error", doc["verdict"]


def test_the_same_batch_size_is_a_setting_not_the_same_data(cli, tmp_path):
    # P26 (planted, run here): 'twice as slow ... same model and batch size' compared with the old code
    _, doc = explain_paste(cli, tmp_path, _seen("2026-11-27p26", "p26-w_tm_sync_on_step"))
    assert root_id(doc) != "torch.no_distributed_sampler", ids(doc)
    # every rank given the same batches still is
    _, doc = explain_paste(cli, tmp_path, "torchrun --nproc_per_node 4 train.py\nAll 4 ranks get the same batches "
                           "every epoch.\n", name="e.txt")
    assert root_id(doc) == "torch.no_distributed_sampler", ids(doc)


def test_lightnings_own_end_of_fit_ends_the_run(cli, tmp_path):
    # lightning/pytorch/callbacks/early_stopping.py and callbacks/timer.py end the fit with '... Signaling Trainer to
    # stop.': a warning printed before it did not end the run; early stopping on a metric that is not finite did
    warn = ("[W1127 10:00:01.000000000 socket.cpp:663] [c10d] The client socket has failed to connect to [node1]:29500 "
            "(errno: 111 - Connection refused).\nGPU available: True (cuda), used: True\n")
    for i, end in enumerate(["Monitored metric val_loss did not improve in the last 3 records. Best score: 0.412. "
                             "Signaling Trainer to stop.", "Time limit reached. Elapsed time is 1 day, 0:00:03. "
                             "Signaling Trainer to stop."]):
        _, doc = explain_paste(cli, tmp_path, warn + end + "\n", name="%d.txt" % i, rcs=(0,))
        assert doc["verdict"] == "no_error" and not doc["findings"], (end, ids(doc))
    _, doc = explain_paste(cli, tmp_path, warn + "Monitored metric val_loss = nan is not finite. Previous best value was "
                           "0.412. Signaling Trainer to stop.\n", name="nan.txt")
    assert doc["findings"], doc["verdict"]
    # a script's own short 'Training complete.' (outcome's done line), not one that goes on about a problem
    _, doc = explain_paste(cli, tmp_path, warn + "Training complete.\n", name="tc.txt", rcs=(0,))
    assert doc["verdict"] == "no_error" and not doc["findings"], ids(doc)
    _, doc = explain_paste(cli, tmp_path, warn + "Training complete, but the loss is NaN.\n", name="tc2.txt")
    assert doc["findings"], doc["verdict"]


def test_a_title_quoting_an_info_line_is_that_info_line(cli, tmp_path):
    # https://github.com/NVIDIA/nccl/issues/1292: the title 'Failed to find ncclNetPlugin_v8 symbol', then NCCL's INFO
    text = _seen("2026-11-26r", "healthy-nccl-1292-netplugin-v8-symbol-info")
    _, doc = explain_paste(cli, tmp_path, text, rcs=(0,))
    assert doc["verdict"] == "no_error" and not doc["findings"], (doc["verdict"], ids(doc))
    # the same words with no INFO record of them are still a failure nothing explains
    _, doc = explain_paste(cli, tmp_path, text.split("\n")[0] + "\n", name="b.txt")
    assert doc["verdict"] != "no_error", doc["verdict"]



def test_the_users_sentence_introducing_a_known_warning_is_no_error(cli, tmp_path):
    # https://github.com/pytorch/pytorch/issues/128998 (c10d's IPv6 attempt, errno 97, logged as an error by the
    # user's log shipper): '... training proceeds correctly, but emits these misleading messages at log level error:'
    text = _seen("2026-11-26e", "healthy-c10d-ipv6-server-socket-errno97-warning")
    _, doc = explain_paste(cli, tmp_path, text, rcs=(0,))
    assert doc["verdict"] == "no_error" and not doc["findings"], (doc["verdict"], ids(doc))
    # the same sentence before a failure that no entry knows still says something failed
    _, doc = explain_paste(cli, tmp_path, text.split("\n")[0] + "\nsegfault in worker 3, exit code 139\n", name="b.txt")
    assert doc["verdict"] != "no_error", doc["verdict"]


def test_a_warning_raised_as_an_exception_is_the_warnings_filter(cli, tmp_path):
    # P13 (planted, run here on 2 GPUs: torch 2.11.0, PYTHONWARNINGS=error): torch.utils.checkpoint's use_reentrant
    # UserWarning raised by warnings.warn under the 'error' filter (Lib/warnings.py)
    _, doc = explain_paste(cli, tmp_path, _seen("2026-11-26p13", "p13-env_pythonwarnings_error"))
    assert root_id(doc) == "python.warning_as_error", ids(doc)
    assert doc["findings"][0]["family"] == "code.python_env"
    assert "use_reentrant" in fixes(doc["findings"][0]), fixes(doc["findings"][0])
    # an exception that is no warning category is not
    text = _tb([("train.py", 9, "<module>"), (_SITE + "/torch/utils/checkpoint.py", 481, "checkpoint")],
               "RuntimeError: use_reentrant must be passed")
    _, doc = explain_paste(cli, tmp_path, text, name="b.txt")
    assert root_id(doc) != "python.warning_as_error", ids(doc)


def test_a_call_whose_arguments_a_librarys_signature_refused_is_that_librarys_usage(cli, tmp_path):
    # P23 (planted, run here: torchmetrics 1.x): 'Accuracy.__new__() missing 1 required positional argument: 'task''
    # raised by CPython's argument binding at the user's line 'torchmetrics.Accuracy(num_classes=5)'
    _, doc = explain_paste(cli, tmp_path, _seen("2026-11-27p23", "p23-torchmetrics_accuracy_no_task"))
    assert root_id(doc) == "torchmetrics.usage", ids(doc)
    # the user's own function, or a name no installed package has, stays the user's code
    for i, src in enumerate(["acc = make_metric(num_classes=5)", "acc = tm.Accuracy(num_classes=5)"]):
        text = ('Traceback (most recent call last):\n  File "/job/eval.py", line 4, in <module>\n    %s\n'
                "TypeError: %s() missing 1 required positional argument: 'task'\n" % (
                    src, "make_metric" if i == 0 else "Accuracy.__new__"))
        _, doc = explain_paste(cli, tmp_path, text, name="%d.txt" % i)
        assert root_id(doc) != "torchmetrics.usage", (src, ids(doc))


# ---- the readers alone (no knowledge load)

def _tbd(exc, msg, frames, src=None):
    return {"exc": exc, "msg": msg, "frames": frames, "src": src or [("", None)] * len(frames)}


def test_pickle_hook_reads_the_raising_frame_only():
    from gpudoctor.explain.asker import pickle_hook

    red = "/usr/lib/python3.12/multiprocessing/reduction.py"
    assert pickle_hook(_tbd("TypeError", "x", [("t.py", 1, "<module>"), (_SITE + "/a/b.py", 3, "__reduce_ex__")]))[0] \
        == "__reduce_ex__"
    # the hook must be the innermost frame, not one above it
    assert pickle_hook(_tbd("TypeError", "x", [(_SITE + "/a/b.py", 3, "__getstate__"), (_SITE + "/a/c.py", 4, "f")])) \
        is None
    # CPython's own refusal under the stdlib pickler; not under another stdlib file, nor another message
    assert pickle_hook(_tbd("TypeError", "cannot pickle '_thread.lock' object", [(red, 60, "dump")]))[0] == "the pickler"
    assert pickle_hook(_tbd("TypeError", "cannot pickle '_thread.lock' object", [("/usr/lib/python3.12/json/x.py", 1,
                                                                                  "f")])) is None
    assert pickle_hook(_tbd("TypeError", "unhashable type: 'list'", [(red, 60, "dump")])) is None
    assert pickle_hook(_tbd("ValueError", "cannot pickle 'x' object", [(red, 60, "dump")])) is None


def test_foreign_attribute_needs_another_installed_packages_frame():
    from gpudoctor.explain.asker import foreign_attribute, pip_name

    np_init = (_SITE + "/numpy/__init__.py", 769, "__getattr__")
    asker = (_SITE + "/numba_cuda/numba/cuda/np/arrayobj.py", 6860, "<module>")
    got = foreign_attribute(_tbd("AttributeError", "module 'numpy' has no attribute 'row_stack'", [asker, np_init]))
    assert got and got["asker"] == "numba_cuda" and got["mod"] == "numpy" and got["attr"] == "row_stack", got
    assert pip_name("numba_cuda") == "numba-cuda"
    # raised in C at the asker's own frame (no __getattr__ frame)
    assert foreign_attribute(_tbd("AttributeError", "module 'numpy' has no attribute 'float'", [asker]))
    # the user's own frame, the module's own package, another exception class: not two packages' releases
    assert foreign_attribute(_tbd("AttributeError", "module 'numpy' has no attribute 'float'", [("t.py", 1, "f")])) \
        is None
    assert foreign_attribute(_tbd("AttributeError", "module 'numpy' has no attribute 'x'",
                                  [(_SITE + "/numpy/core/a.py", 1, "f")])) is None
    assert foreign_attribute(_tbd("TypeError", "module 'numpy' has no attribute 'x'", [asker])) is None


def test_warning_raised_reads_the_class_only():
    from gpudoctor.explain.asker import warning_raised

    assert warning_raised({"exc": "UserWarning"}) == "UserWarning"
    assert warning_raised({"exc": "torch.jit.TracerWarning"}) == "TracerWarning"
    assert warning_raised({"exc": "RuntimeError"}) is None
    assert warning_raised({"exc": "WarningError"}) is None


def test_a_banner_is_a_pair_of_dash_lines_whose_first_line_is_warned():
    from gpudoctor.explain.helpbanner import says_it_goes_on, warned_banners

    dash = "-" * 74
    lines = [(1, dash), (2, "WARNING: a"), (3, "Error message: x"), (4, dash), (5, dash), (6, "Other topic"),
             (7, "Error message: y"), (8, dash)]

    class S:
        tails = [{"user": lines}]
    assert warned_banners(S, {2}) == {1, 2, 3, 4}
    assert warned_banners(S, {7}) == set()  # a warned line that is not the topic's first line
    assert not says_it_goes_on(S, [2])
    S.tails = [{"user": lines[:2] + [(3, "This is a warning only; your job will continue")] + lines[2:4]}]
    assert says_it_goes_on(S, [2]) and not says_it_goes_on(S, [9])


def test_intro_and_quoted_lines():
    from gpudoctor.explain.quoted import intro_lines, quoted_info

    class H:
        def __init__(self, line, text, severity=None):
            self.line, self.text, self.severity = line, text, severity

    class S:
        errors = [H(1, "The job prints these misleading messages at log level error:"), H(2, "error: x failed:"),
                  H(3, "I get the error:"), H(4, "Failed to find ncclNetPlugin_v8 symbol"), H(5, "failed")]
    assert intro_lines(S) == {1}  # a colon inside, or too few words, is no introduction
    matched = {"nccl.net_plugin": {"hits": [H(9, "h:1:1 [0] NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v8 "
                                                 "symbol.", "info")]}}
    assert quoted_info(S, matched) == {4}  # 'failed' alone is too short to be a quote
    matched["nccl.net_plugin"]["hits"][0].severity = None
    assert quoted_info(S, matched) == set()  # an error-level record is no INFO record


def test_fell_back_needs_torchs_warning_header_and_every_line():
    from gpudoctor.explain.torchwarn import fell_back

    w = ("[W1127 06:47:29.919101921 ProcessGroupGloo.cpp:527] Warning: Unable to resolve hostname to a (local) "
         "address. Using the loopback address as fallback. (function operator())")
    assert fell_back({"matches": [{"text": w}], "match_count": 1})
    assert fell_back({"matches": [{"text": "[W socket.cpp:1] Falling back to default options"}], "match_count": 1})
    # the same words without torch's W header, a finding with lines not shown, one line of another kind
    assert not fell_back({"matches": [{"text": w[w.index("]") + 2:]}], "match_count": 1})
    assert not fell_back({"matches": [{"text": w}], "match_count": 3})
    assert not fell_back({"matches": [{"text": w}, {"text": "[E1127 x.cpp:1] failed"}], "match_count": 2})
    assert not fell_back({"matches": [], "match_count": 0})



# Open MPI 5's mpirun on a host without zlib prints PMIx's pcompress help topic in full before a healthy run (the CI
# output of https://github.com/open-mpi/ompi/pull/12532, set AO's healthy case): 'We will continue', 'You can suppress
# this warning': the banner says the program goes on, so its 'unable to' is no error that nothing explains
PMIX_ZLIB = """\
+ timeout -s SIGSEGV 4m mpirun --get-stack-traces --timeout 180 --hostfile hostfile -np 2 --bind-to none ./examples/hello_c
--------------------------------------------------------------------------
PMIx was unable to find a usable compression library
on the system. We will therefore be unable to compress
large data streams. This may result in longer-than-normal
startup times and larger memory footprints. We will
continue, but strongly recommend installing zlib or
a comparable compression library for better user experience.

You can suppress this warning by adding "pcompress_base_silence_warning=1"
to your PMIx MCA default parameter file, or by adding
"PMIX_MCA_pcompress_base_silence_warning=1" to your environment.
--------------------------------------------------------------------------
Hello, world, I am 0 of 2, (Open MPI v5.1.0a1, package: Open MPI Distribution, ident: 5.1.0a1, 179)
"""


def test_a_help_banner_that_says_the_program_goes_on_is_no_error():
    from gpudoctor.explain import explain_text

    assert explain_text(PMIX_ZLIB)["verdict"] == "no_error"
    # the same words in a banner that says nothing of going on stay an error nothing explains
    stops = PMIX_ZLIB.replace("We will\ncontinue, but strongly recommend", "We must\nstop. We strongly recommend").replace(
        "You can suppress this warning", "You can set")
    assert explain_text(stops)["verdict"] == "unknown_error"

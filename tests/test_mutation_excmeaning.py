"""Cases for the mutants of gpudoctor/explain/excmeaning.py (docs/mutation.md, sixth round): the operating-system
error class (an errno in the message or an OSError subclass of Python's, anywhere in the chain: no test had reached
it), a library's refusal of its own options (transformers' TrainingArguments / Trainer, accelerate, DeepSpeed's
config: no test had reached it either), the bounds of a message read, torch's 'Expected ... but got ...' form, and
each answer compared whole. The exceptions are written in the form CPython prints them (Objects/exceptions.c
OSError_str: '[Errno %S] %S: %R'); the library messages in each library's raise form (transformers
training_args.py __post_init__, deepspeed/runtime/config.py's batch-size assert)."""

import pytest

from gpudoctor.explain import excmeaning as E
from gpudoctor.fixline import sh

SP = "/opt/venv/lib/python3.11/site-packages/"


def _t(exc, msg, path="/work/job/train.py", fn="main", more=None):
    t = {"exc": exc, "msg": msg, "frames": [("/work/job/train.py", 10, "main")] + (
        [(path, 100, fn)] if path != "/work/job/train.py" else [])}
    if more is not None:
        t["more"] = more
    return t


# ------------------------------------------------------------------ 1. the operating system's errors

# (explain-terminal32, session 32: tools/gen_errno.py's EPIPE cause names the pipeline an ssh hangup breaks, recorded
# in fixtures/recorded/explain-terminal32/)
PEER_GONE = ("This process wrote to a pipe or socket whose other end is closed (write(2) EPIPE): the reader (another "
             "rank, a DataLoader worker, the launcher, `| head`/`tee`) exited first; `nohup python train.py | tee log` "
             "protects only python: the ssh session's hangup ends tee, and the next print() fails.")


def test_an_errno_in_the_message_names_its_family_and_path(kb):
    got = E.read(kb.by_id, _t("PermissionError", "[Errno 13] Permission denied: '/ckpt/a b.pt'"), [])
    assert got == {"eid": "errno.permission", "how": "the OS error PermissionError (EACCES, errno 13) in the "
                   "exception's chain", "sure": "medium",
                   "text": "Permission denied / operation not permitted (EACCES, EPERM, EROFS) (path: /ckpt/a b.pt).",
                   "fix": ["check '/ckpt/a b.pt' on the node that raised it (ls -ld '/ckpt/a b.pt'; "
                           "df -h '/ckpt/a b.pt')"]}


def test_an_os_error_later_in_the_chain_outranks_the_wrapper(kb):
    # the wrapper first (no errno, no OSError name): read on to the OS error it re-raised
    got = E.read(kb.by_id, _t("RuntimeError", "wrapper failed"),
                 [_t("OSError", "[Errno 28] No space left on device: '/ckpt/x.pt'")])
    assert got == {"eid": "errno.enospc", "how": "the OS error OSError (ENOSPC, errno 28) in the exception's chain",
                   "sure": "medium", "text": "No space left on device (ENOSPC): /dev/shm or a disk is full "
                   "(path: /ckpt/x.pt).",
                   "fix": ["check /ckpt/x.pt on the node that raised it (ls -ld /ckpt/x.pt; df -h /ckpt/x.pt)"]}


def test_an_oserror_subclass_without_errno_is_its_first_errno(kb):
    # PermissionError is EACCES first (Doc/library/exceptions.rst), no path printed
    assert E.read(kb.by_id, _t("PermissionError", "not allowed"), []) == {
        "eid": "errno.permission", "how": "the OS error PermissionError (EACCES, errno 13) in the exception's chain",
        "sure": "medium", "text": "Permission denied / operation not permitted (EACCES, EPERM, EROFS).", "fix": []}
    # a message of None, and the class's last dotted part
    got = E.read(kb.by_id, _t("builtins.BrokenPipeError", None), [])
    assert got == {"eid": "errno.peer_gone", "how": "the OS error builtins.BrokenPipeError (EPIPE, errno 32) in the "
                   "exception's chain", "sure": "medium", "text": PEER_GONE,
                   "fix": ["read why the other end exited (the first error of the other ranks or workers); when the "
                           "output is piped, let the reader run to the end",
                           "for a pipeline started in an ssh session (nohup ... | tee): write to a file instead (nohup "
                           "python train.py > train.log 2>&1 < /dev/null &, then tail -f train.log) or run the whole "
                           "pipeline in tmux / screen or setsid sh -c '... | tee train.log'"]}


def test_an_errno_without_a_family_leaves_the_structural_answer(kb):
    # ENOENT has no family of its own: the chain's later ENOSPC is not read either (the path is the answer)
    assert E.read(kb.by_id, _t("FileNotFoundError", "[Errno 2] No such file or directory: '/d'"),
                  [_t("OSError", "[Errno 28] No space left on device")]) is None
    assert E.read(kb.by_id, _t("FileNotFoundError", None), []) is None
    assert E._errno_site(code=28)["name"] == "ENOSPC" and E._errno_site(name="EPIPE")["code"] == 32
    assert E._errno_site() is None and E._errno_site(name="ENOTANERRNO", code=99999) is None


# ------------------------------------------------------------------ the message read

def test_the_message_and_the_lines_it_goes_on_for():
    assert E._msg({"msg": None}) == ""
    assert E._msg({"msg": "a "}) == "a"
    assert E._msg({"msg": "a ", "more": "b\n"}) == "a \nb"
    # a first line cut by pytb (MSG characters): its next line is not the rest of its words
    assert E._msg({"msg": "x" * 301, "more": "m"}) == "x" * E.MSG
    assert E._msg({"msg": "x" * 299, "more": "m"}) == "x" * 299 + "\nm"
    assert E._msg({"msg": "x" * 299, "more": "m" * 1000}) == ("x" * 299 + "\n" + "m" * 1000)[:E.WHOLE]


def test_torchs_expected_but_got_form():
    assert E.expected(None) == "" and E.expected("no such form") == ""
    assert E.expected("Expected all tensors to be on the same device, but found at least two devices, cuda:0 and "
                      "cpu! .") == ("torch expected tensors to be on the same device and got at least two devices, "
                                    "cuda:0 and cpu!")
    # only blanks and dots come off the got part (a device named with an X stays whole); the regex bounds it at 120
    # characters, which clip() then never cuts (so its 120 is not tested)
    assert E.expected("Expected input to be on cuda, but got XLA.") == "torch expected input to be on cuda and got XLA"


def test_a_frame_of_torchs_is_the_innermost():
    assert not E._from_torch({"frames": []}) and not E._from_torch({})
    assert E._from_torch({"frames": [("C:\\venv\\Lib\\site-packages\\torch\\nn\\functional.py", 1, "f")]})
    assert not E._from_torch({"frames": [(SP + "torch/nn/functional.py", 1, "f"), ("/work/t.py", 2, "g")]})


# ------------------------------------------------------------------ 5. a library's options

def _fix(opts):
    return ["change %s where the job sets it (the script's arguments, the config file, or the environment) to a value "
            "the message accepts" % opts]


@pytest.mark.parametrize("exc,msg,path,more,want", [
    # transformers/training_args.py __post_init__
    ("ValueError", "--load_best_model_at_end requires the save and eval strategy to match, but found",
     "transformers/training_args.py", "- Evaluation strategy: IntervalStrategy.STEPS\n- Save strategy: "
     "IntervalStrategy.EPOCH", ("transformers.trainer", "transformers", "training_args.py", "load_best_model_at_end")),
    ("TypeError", "__init__() got an unexpected keyword argument 'evaluation_strategy'", "transformers/training_args.py",
     None, ("transformers.trainer", "transformers", "training_args.py", "evaluation_strategy")),
    ("ValueError", "the value of max_steps must be positive", "transformers/trainer.py", None,
     ("transformers.trainer", "transformers", "trainer.py", "max_steps")),
    ("ValueError", "the value of max_steps must be positive", "transformers/modeling_utils.py", None,
     ("transformers.usage", "transformers", "modeling_utils.py", "max_steps")),
    # deepspeed/runtime/config.py's batch assert: three options at most
    ("AssertionError", "Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * "
     "gradient_acc_step * world_size 16 != 2 * 1 * 4", "deepspeed/runtime/config.py", None,
     ("deepspeed.config", "deepspeed", "config.py", "train_batch_size, micro_batch_per_gpu, gradient_acc_step")),
    ("ValueError", "`offload_optimizer` is only supported with ZeRO stage 2 or 3", "deepspeed/runtime/zero/offload.py",
     None, ("deepspeed.config", "deepspeed", "offload.py", "offload_optimizer")),
    ("ValueError", "Please pass `gradient_accumulation_steps` or a `GradientAccumulationPlugin`, not both",
     "accelerate/accelerator.py", None,
     ("accelerate.config", "accelerate", "accelerator.py", "gradient_accumulation_steps, GradientAccumulationPlugin")),
    # not an option refusal: DeepSpeed outside its config, a KeyError, no refusal word, no option named, the user's
    ("ValueError", "`offload_optimizer` is only supported with ZeRO stage 2 or 3", "deepspeed/runtime/engine.py", None,
     None),
    ("KeyError", "'gradient_accumulation_steps' must be set", "accelerate/accelerator.py", None, None),
    ("ValueError", "the value given for max_steps was too large", "transformers/trainer.py", None, None),
    ("ValueError", "this must be positive", "transformers/trainer.py", None, None),
    ("ValueError", "the value of max_steps must be positive", "/work/job/train.py", None, None),
])
def test_a_librarys_refusal_of_its_own_options(kb, exc, msg, path, more, want):
    t = _t(exc, msg, path if path.startswith("/") else SP + path, "__post_init__", more)
    got = E.read(kb.by_id, t, [])
    if want is None:
        assert got is None
        return
    eid, lib, file, opts = want
    assert got == {"eid": eid, "how": "%s refused an option in %s (%s)" % (lib, file, opts), "sure": "low",
                   "text": "%s refused the value of %s: the message says what it accepts." % (lib, opts),
                   "fix": _fix(opts.replace(", ", " / ")), "advice": E.advice(E._msg(t))}
    # only the innermost frame is the library's
    t["frames"].reverse()
    assert E.read(kb.by_id, t, []) is None


def test_the_options_a_message_names():
    assert E._options("`a_b` and 'a_b' then self.x_y http_proxy c_d e_f g_h") == ["a_b", "x_y", "c_d"]
    assert E._options("'self.rank' `http_x` NCCL_DEBUG x_y", limit=2) == ["NCCL_DEBUG", "x_y"]
    assert E._options("nothing here") == []
    assert E._options("x" * E.WHOLE + " late_name") == []


# ------------------------------------------------------------------ 2. checkpoints, and torch.save's short write

SER = SP + "torch/serialization.py"


def _ser(exc, msg, *fns, tail=()):
    return {"exc": exc, "msg": msg, "frames": [("/work/job/t.py", 6, "<module>")] + [(SER, 100 + i, fn) for i, fn in
                                                                                      enumerate(fns)] + list(tail)}


def test_torch_load_that_raised_while_reading_is_the_checkpoint(kb):
    # PyTorchFileReader's OSError on a cut archive (made here with torch 2.13, tests/test_explain_excmeaning.py)
    t = _ser("OSError", "[Errno 22] Invalid argument", "load", "__init__")
    assert E.read(kb.by_id, t, []) == {"eid": "torch.checkpoint_load", "how": "OSError raised while torch.load read "
                                       "the file", "sure": "medium", "text": None, "fix": []}
    assert E._reading_checkpoint(t)
    # a traceback cut above torch.load: its _load frame says the same; Windows paths too
    assert E._reading_checkpoint(_ser("RuntimeError", "x", "_load", "persistent_load"))
    assert E._reading_checkpoint({"exc": "RuntimeError", "msg": "x", "frames": [
        ("C:\\venv\\Lib\\site-packages\\torch\\serialization.py", 1, "load"),
        ("C:\\venv\\Lib\\site-packages\\torch\\serialization.py", 2, "_load")]})
    assert not E._reading_checkpoint(_ser("RuntimeError", "x", "save", "_save"))
    # raised three frames below torch's own (a user's __setstate__ and what it calls): not the reader's refusal
    deep = [("/work/job/model.py", 10 + i, fn) for i, fn in enumerate(("__setstate__", "rebuild", "check"))]
    assert not E._reading_checkpoint(_ser("ValueError", "bad state", "load", "_load", tail=deep))
    assert E._reading_checkpoint(_ser("ValueError", "bad state", "load", "_load", tail=deep[:2]))


@pytest.mark.parametrize("exc,msg", [
    ("FileNotFoundError", "ck.pt"), ("PermissionError", "ck.pt"), ("IsADirectoryError", "ck"),
    ("NotADirectoryError", "ck/x"), ("builtins.FileNotFoundError", "x"),
    ("OSError", "[Errno 2] No such file or directory: 'ck.pt'"), ("OSError", "[Errno 13] Permission denied: 'ck.pt'"),
])
def test_a_file_that_could_not_be_opened_is_not_its_contents(exc, msg):
    assert not E._reading_checkpoint(_ser(exc, msg, "load", "_open_file"))
    # an errno that says nothing of the file's access is the contents
    assert E._reading_checkpoint(_ser("OSError", "[Errno 5] Input/output error", "load", "_open_file"))


WRITE_TEXT = ("The checkpoint's file stopped taking bytes while torch.save wrote it (a short write: PyTorchStreamWriter's "
              "position fell behind, caffe2/serialize/inline_container.cc): the filesystem refused the write - a full "
              "disk or a used-up quota first (ENOSPC, EDQUOT), a file-size limit on the process (ulimit -f, "
              "RLIMIT_FSIZE: EFBIG, since Python ignores SIGXFSZ; setrlimit(2)), else an I/O error of a network "
              "filesystem (EIO).")
WRITE_FIX = ["df -h and quota -s (Lustre: lfs quota -h -u $USER <mount>) on the checkpoint's folder; free space or "
             "save to a filesystem with room, and keep fewer checkpoints (save_total_limit)",
             "ulimit -f in the job's shell (srun bash -c 'ulimit -f'): anything but 'unlimited' caps every file; "
             "ulimit -f unlimited before the launcher (limits.conf fsize, LimitFSIZE=, --ulimit fsize=-1 where it is "
             "set)"]


def test_a_short_write_of_torch_save(kb):
    # made here: torch.save to /dev/full (tests/test_explain_excmeaning.py SAVE_FULL), the chain as pyanswer gives it
    first = _ser("RuntimeError", "basic_ios::clear: iostream error", "save", "_save")
    then = _ser("RuntimeError", "[enforce fail at inline_container.cc:672] . unexpected pos 832 vs 726", "save",
                "__exit__")
    assert E.read(kb.by_id, first, [then]) == {
        "eid": "errno.enospc", "how": "torch.save's writer saw a short write ('basic_ios::clear: iostream error')",
        "sure": "low", "text": WRITE_TEXT, "fix": WRITE_FIX}
    # the message quoted to 80 characters (a longer message of the same form, for the bound)
    long = "unexpected pos 832 vs 726 " + "word " * 20
    got = E.read(kb.by_id, _ser("RuntimeError", long, "save"), [])
    assert got["how"] == "torch.save's writer saw a short write ('unexpected pos 832 vs 726 %s[...]')" % ("word " * 9)


MODULE = SP + "torch/nn/modules/module.py"
SD_TEXT = ("The checkpoint's tensors do not fit the model%s: another architecture or configuration (a vocabulary or layer "
           "size), or a prefix (module., _orig_mod.) on its keys.")


def test_a_state_dict_that_does_not_fit_names_the_parameter(kb):
    # torch/nn/modules/module.py load_state_dict: 'Error(s) in loading state_dict for {}:\n\t{}' with one line per
    # error ('size mismatch for {}: copying a param with shape {} from checkpoint, the shape in current model is {}.');
    # the parameter is on the second line (before the fix, the first match - the header - named none)
    t = _t("RuntimeError", "Error(s) in loading state_dict for Net:", MODULE, "load_state_dict",
           more="\tsize mismatch for fc.weight: copying a param with shape torch.Size([10, 512]) from checkpoint, the "
                "shape in current model is torch.Size([100, 512]).")
    assert E.read(kb.by_id, t, []) == {
        "eid": "usercode.state_dict_mismatch",
        "how": "load_state_dict's refusal ('Error(s) in loading state_dict for Net:\n\tsize mismatch for fc.weight [...]')",
        "sure": "medium", "text": SD_TEXT % " (parameter fc.weight)",
        "fix": ["compare the shape of fc.weight in the checkpoint with the model's (torch.load(path, map_location='cpu')"
                "[key].shape vs model.state_dict()[key].shape)"]}
    t = _t("RuntimeError", "Error(s) in loading state_dict for Net:", MODULE, "load_state_dict",
           more='\tMissing key(s) in state_dict: "fc.weight", "fc.bias".')
    assert E.read(kb.by_id, t, []) == {
        "eid": "usercode.state_dict_mismatch", "how": "load_state_dict's refusal ('Error(s) in loading state_dict for "
        "Net:\n\tMissing key(s) in state_dict [...]')", "sure": "medium", "text": SD_TEXT % "", "fix": []}


@pytest.mark.parametrize("exc,msg,path,fn,want", [
    # caffe2/serialize/inline_container.cc's reader, named in the message
    ("RuntimeError", "PytorchStreamReader failed reading zip archive: failed finding central directory",
     "/work/job/t.py", "main", "PytorchStreamReader failed reading zip archive: failed finding central directory"),
    # safetensors' reader (load_file / safe_open / deserialize): its frame, a loading function
    ("SafetensorError", "Error while deserializing header: HeaderTooLarge", SP + "safetensors/torch.py", "load_file",
     "Error while deserializing header: HeaderTooLarge"),
    ("SafetensorError", "Error while deserializing header: HeaderTooLarge", "C:\\sp\\safetensors\\torch.py",
     "safe_open", "Error while deserializing header: HeaderTooLarge"),
    # safetensors' writer (save_file's shared-tensor check) is no reader
    ("RuntimeError", "Some tensors share memory, this will lead to duplicate memory on disk. safetensors",
     SP + "safetensors/torch.py", "_flatten", None),
    ("RuntimeError", "invalid load key, 'v'.", SP + "torch/serialization.py", "persistent_id", None),
    # (quoted to 80 characters: the words after it are there for the bound)
    ("UnpicklingError", "invalid load key, x " + "word " * 30, SP + "torch/serialization.py", "_legacy_load",
     "invalid load key, x " + "word " * 10 + "[...]"),
])
def test_the_checkpoint_readers_words(kb, exc, msg, path, fn, want):
    t = {"exc": exc, "msg": msg, "frames": [("/work/job/t.py", 1, "main")] + ([(path, 2, fn)] if fn != "main" else [])}
    got = E.read(kb.by_id, t, [])
    assert got == (None if want is None else {"eid": "torch.checkpoint_load", "sure": "medium", "text": None,
                                              "fix": [], "how": "the checkpoint reader's words ('%s')" % want}), got


HUB = SP + "huggingface_hub/utils/_validators.py"
HUB_TEXT = ("%s is a path, and no folder of that name exists where this rank ran: from_pretrained takes a name that is "
            "not a local folder for a Hub repository id")
HUB_FIX = ("the folder %s does not exist on this node (ls -ld %s): check the path, the mount on every node and the "
           "working directory the launcher gave the rank")


@pytest.mark.parametrize("exc,msg,path", [
    # huggingface_hub/utils/_validators.py validate_repo_id: more than one '/'; and an id that fails its characters'
    # check, whose message has 140 characters before the id ('./qlora-out', axolotl's merge; before the fix its
    # 120-character bound missed the id)
    ("OSError", "Repo id must be in the form 'repo_name' or 'namespace/repo_name': '/data/models/llama-7b'. Use "
     "`repo_type` argument if needed.", "/data/models/llama-7b"),
    ("huggingface_hub.errors.HFValidationError", "Repo id must use alphanumeric chars or '-', '_', '.', '--' and '..' "
     "are forbidden, '-' and '.' cannot start or end the name, max length is 96: './qlora-out'.", "./qlora-out"),
    ("HFValidationError", "Repo id must be in the form 'repo_name' or 'namespace/repo_name': '../ck/x/llama'.",
     "../ck/x/llama"),
    ("HFValidationError", "Repo id must be in the form 'repo_name' or 'namespace/repo_name': '~/ck/llama'.",
     "~/ck/llama"),
    ("HFValidationError", "Repo id must be in the form 'repo_name' or 'namespace/repo_name': 'org/a/b'.", None),
])
def test_a_path_given_as_a_repository_id(kb, exc, msg, path):
    got = E.read(kb.by_id, _t(exc, msg, HUB, "validate_repo_id"), [])
    assert got == {"eid": "transformers.hub", "how": "the Hugging Face Hub's words in %s" % exc, "sure": "low",
                   "text": HUB_TEXT % path if path else None,
                   "fix": [HUB_FIX % (sh(path), sh(path))] if path else []}, got
    # the Hub's words in the exception's name alone
    got = E.read(kb.by_id, _t("huggingface_hub.errors.LocalEntryNotFoundError", "Cannot find the requested files in "
                              "the disk cache and outgoing traffic has been disabled.", SP + "huggingface_hub/x.py"), [])
    assert got["eid"] == "transformers.hub" and got["text"] is None


# ------------------------------------------------------------------ 4. torch's refusals, compared whole

TWO_DEV = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
TWO_DEV_GOT = {"eid": "usercode.tensors_on_two_devices", "how": "torch's words 'same device'", "sure": "low",
               "text": "The call's arguments break the rule the message states: torch expected tensors to be on the "
                       "same device and got at least two devices, cuda:0 and cpu!.", "fix": [], "advice": ""}
# torch/_logging/_internal.py: the settings' refusal, then 'For more info on various settings, try TORCH_LOGS="help"'
LOGS_MSG = ("Invalid log settings: foo, must be a comma separated list of fully qualified module names, registered log "
            "names or registered artifact names.")
LOGS_MORE = 'For more info on various settings, try TORCH_LOGS="help"'


def test_torch_refused_an_environment_variables_value(kb):
    t = _t("ValueError", LOGS_MSG, SP + "torch/_logging/_internal.py", "_parse_log_settings", more=LOGS_MORE)
    assert E.read(kb.by_id, t, []) == {
        "eid": "torch.usage", "how": "torch refused the value of TORCH_LOGS", "sure": "low",
        "text": "torch refused the value of the environment variable TORCH_LOGS (the message lists what it accepts).",
        "fix": ["check TORCH_LOGS where the job sets it (echo \"$TORCH_LOGS\"; the job script, the container's ENV, the "
                "launcher's --env) and give it a value the message accepts, or unset it"],
        "advice": LOGS_MORE}
    # the same words raised in the user's own code: no torch frame, no torch words
    assert E.read(kb.by_id, _t("ValueError", LOGS_MSG, more=LOGS_MORE), []) is None


def test_torchs_rules_compared_whole(kb):
    got = E.read(kb.by_id, _t("NotImplementedError", "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'",
                              SP + "torch/nn/functional.py", "softmax"), [])
    assert got == {"eid": "usercode.dtype_mismatch", "how": "torch's words 'not implemented for 'Long''", "sure": "low",
                   "text": None, "advice": "",
                   "fix": ["softmax_lastdim_kernel_impl has no kernel for Long: give it float32 tensors (x.float()), or "
                           "keep the module and its optimizer state in float32 and use autocast for lower precision"]}
    assert E.read(kb.by_id, _t("RuntimeError", TWO_DEV), []) == TWO_DEV_GOT
    got = E.read(kb.by_id, _t("RuntimeError", "view size is not compatible with input tensor's size and stride (at "
                              "least one dimension spans across two contiguous subspaces). Use .reshape(...) instead."),
                 [])
    assert got == {"eid": "usercode.shape_mismatch", "how": "torch's words 'view size'", "sure": "low", "text": None,
                   "fix": [], "advice": "Use .reshape(...) instead."}
    # no rule's words, but the message says what to do
    assert E.read(kb.by_id, _t("RuntimeError", "Something odd happened in the call. Use torch.foo() instead.",
                               SP + "torch/x.py"), []) == {
        "eid": "torch.usage", "how": "torch refused the call and said what to do", "sure": "low", "text": None,
        "fix": [], "advice": "Use torch.foo() instead."}
    # an empty tensor where a dtype's kernel is missing: the sharded parameter first too
    got = E.read(kb.by_id, _t("RuntimeError", "\"addmm\" not implemented for 'Half' and 0 elements", SP + "torch/x.py"),
                 [])
    assert got["eid"] == "usercode.dtype_mismatch" and got["first"] is E._SHARDED


@pytest.mark.parametrize("first", [
    _t("IndexError", "list index out of range", SP + "torch/x.py"),  # CPython's own words, not a tensor's index
    _t("KeyboardInterrupt", "tensor", SP + "torch/x.py"),  # not an Error
    _t("RuntimeError", "Expected all tensors to be on the same device, but found two", SP + "horovod/torch/mpi_ops.py"),
    _t("RuntimeError", ""),
])
def test_an_exception_of_the_chain_that_is_not_torchs_refusal_is_passed(kb, first):
    assert E.read(kb.by_id, first, [_t("RuntimeError", TWO_DEV)]) == TWO_DEV_GOT


def test_the_messages_advice_in_another_answers_first_cause():
    adv = _t("RuntimeError", "x. Use .reshape(...) instead.")
    assert E.with_advice(None, adv, []) is None
    assert E.with_advice({"causes": []}, adv, []) == {"causes": []}
    f = {"causes": [{"text": "A."}, {"text": "B."}]}
    assert E.with_advice(f, _t("RuntimeError", "no advice"), [adv])["causes"] == [
        {"text": "A. The message says what to do: \u201cUse .reshape(...) instead.\u201d"}, {"text": "B."}]
    # said once
    assert E.with_advice(f, adv, [])["causes"][0]["text"].count("The message says what to do") == 1
    assert E.with_advice({"causes": [{"text": "A."}]}, _t("RuntimeError", "none"), [])["causes"] == [{"text": "A."}]


# ------------------------------------------------------------------ finding(): the structural answer it shapes

def _cause(text, fix, rank=0, evidence=(), confirm=()):
    return {"text": text, "checks": [], "confirm": list(confirm), "fix": fix, "exports": {}, "evidence": list(evidence),
            "static_rank": rank, "computed": None}


VIEW_MSG = ("view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
            "contiguous subspaces). Use .reshape(...) instead.")
# made here with CPU torch 2.13 (tests/test_explain_excmeaning.py: VIEW, NOTIMPL, SDPA)
FIND_VIEW = ("Traceback (most recent call last):\n  File \"/work/job/t_view.py\", line 3, in <module>\n    y = x.view(-1)\n"
             "RuntimeError: " + VIEW_MSG + "\n")
FIND_EMPTY = ("Traceback (most recent call last):\n  File \"/work/job/t.py\", line 8, in <module>\n    y = torch.mv(w, x)\n"
              "RuntimeError: size mismatch, got input (4), mat (4x512), vec (0)\n")
FIND_KERNEL = ("Traceback (most recent call last):\n  File \"/work/job/t_notimpl.py\", line 3, in <module>\n"
               "    y = torch.nn.functional.softmax(x, dim=-1)\n"
               "  File \"/opt/venv/lib/python3.11/site-packages/torch/nn/functional.py\", line 2207, in softmax\n"
               "    ret = input.softmax(dim)\n"
               "NotImplementedError: \"softmax_lastdim_kernel_impl\" not implemented for 'Long'\n")
SDPA_MSG = ("Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: long int and  "
            "query.dtype: float instead.")
FIND_SDPA = ("Traceback (most recent call last):\n  File \"/work/job/t_sdpa_mask.py\", line 5, in <module>\n"
             "    y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)\nRuntimeError: " + SDPA_MSG + "\n")
LOOK_FIX = ("print the shapes (x.shape) and the dim / size arguments of that call's tensors just before it (%s), and make "
            "them fit what the message asks")


def _first(kb, text):
    from gpudoctor import explain

    f = explain.explain_text(text, kb)["findings"][0]
    return f["id"], f["causes"], f["notes"][-1]


def test_finding_a_tensor_refusal_and_its_advice(kb):
    eid, causes, note = _first(kb, FIND_VIEW)
    assert eid == "usercode.shape_mismatch"
    assert causes[0] == _cause(
        "torch refused the tensors of the call at /work/job/t_view.py:3, as its message says (RuntimeError: view size is "
        "not compatible with input tensor's size and stride (at least one dimension spans across two contiguous "
        "subspaces). [...]). The message says what to do: \u201cUse .reshape(...) instead.\u201d",
        [LOOK_FIX % "/work/job/t_view.py:3"])
    assert causes[1]["static_rank"] == 1 and causes[1]["text"].startswith("A Linear layer gets another number")
    # (the message's own period ends the note: no second one)
    assert note == "Read from the words of the exception raised at /work/job/t_view.py:3: RuntimeError: %s" % VIEW_MSG


def test_finding_an_empty_parameter_first(kb):
    eid, causes, note = _first(kb, FIND_EMPTY)
    assert eid == "usercode.shape_mismatch"
    # the sharded-parameter cause, its own fix first; after it the check of torch.mv that refused the call
    # (call_guards: torch/_decomp/decompositions.py's torch._check, explain-usage31)
    first = dict(causes[0], fix=causes[0]["fix"][:len(E._SHARDED["fix"])])
    assert first == _cause(E._SHARDED["text"], E._SHARDED["fix"])
    assert [x[:60] for x in causes[0]["fix"][len(E._SHARDED["fix"]):]] == [
        "torch._decomp.decompositions.mv refuses this when `not (self"]
    assert causes[1] == _cause("torch refused the tensors of the call at /work/job/t.py:8, as its message says "
                               "(RuntimeError: size mismatch, got input (4), mat (4x512), vec (0)).",
                               [LOOK_FIX % "/work/job/t.py:8"])
    # the last note is now torch.mv's check (call_guards); the words' note stays, just before it
    from gpudoctor import explain

    notes = explain.explain_text(FIND_EMPTY, kb)["findings"][0]["notes"]
    assert note.startswith("The check that refused it: torch._decomp.decompositions.mv raises at ")
    assert notes[-2] == ("Read from the words of the exception raised at /work/job/t.py:8: RuntimeError: size mismatch, "
                         "got input (4), mat (4x512), vec (0).")


def test_finding_a_fix_without_text_leads_the_first_cause(kb):
    eid, causes, _note = _first(kb, FIND_KERNEL)
    assert eid == "usercode.dtype_mismatch" and len(causes) == 2
    assert causes[0]["fix"][0].startswith("softmax_lastdim_kernel_impl has no kernel for Long")
    assert len(causes[0]["fix"]) == 2 and causes[0]["evidence"]  # the family's own cause, its fix kept after it


def test_finding_the_rule_the_message_states(kb):
    eid, causes, _note = _first(kb, FIND_SDPA)
    assert eid == "usercode.dtype_mismatch" and len(causes) == 3
    # the text read() wrote, with the family's first fix (read() gave none)
    assert causes[0] == _cause("The call's arguments break the rule the message states: torch expected attn_mask to be "
                               "bool or float or to match query dtype and got attn_mask.dtype: long int and  "
                               "query.dtype: float instead.", causes[1]["fix"])
    assert causes[1]["static_rank"] == 2 and causes[1]["evidence"]


def test_advice_bounds():
    assert E.advice(None) == "" and E.advice("nothing to do here.") == ""
    # at most two, joined by a blank
    assert E.advice("Use a now. Use b now. Use c now.") == "Use a now. Use b now."
    # a message of the reader's limit: its last sentence was cut
    cut = "Bad call. " + "x" * (E.MSG - 28) + ". Use a now. Use b"
    assert len(cut) == E.MSG and E.advice(cut) == "Use a now."
    three = ("Use a now. Use b now. Use c" + " c" * 300)[:E.WHOLE]
    assert E.advice(three) == "Use a now. Use b now."
    # the first WHOLE characters only (advice.find's grammar, excmeaning's bound)
    assert E.advice("Bad. " * 20 + "Use a now.") == "Use a now." and E.advice("Bad. " * 300 + "Use a now.") == ""
    # without a remedy, where the message says to look (advice.find's 'detail')
    assert E.advice("Bad value. For more info on various settings, try TORCH_LOGS=\"help\"") == \
        'For more info on various settings, try TORCH_LOGS="help"'
    assert E.advice("Bad value. Use a now. For more info, see https://x.org/doc") == "Use a now."
    # each clipped to 200 characters
    long = "Use " + "word " * 50
    assert E.advice(long) == E._clip(long.strip(), 200) and E.advice(long).endswith("[...]")
    assert E.advice("Use " + "w" * 190 + " word.") == "Use " + "w" * 190 + " word."


# ------------------------------------------------------------------ from the after run's survivors

def test_an_errno_with_a_path_and_its_own_fix(kb):
    # IsADirectoryError's '[Errno 21] Is a directory: ...': the path's check first, then the errno's own fix
    t = _t("IsADirectoryError", "[Errno 21] Is a directory: 'ckpt/'")
    assert E.read(kb.by_id, t, [])["fix"] == [
        "check ckpt/ on the node that raised it (ls -ld ckpt/; df -h ckpt/)",
        "pass the file's path (e.g. .../pytorch_model.bin or the .pt file), or the loader that takes a directory"]


def test_an_environment_variable_named_outside_torchs_frames_is_no_refused_value(kb):
    msg = ("Expected all tensors to be on the same device (set CUDA_VISIBLE_DEVICES), but found at least two devices, "
           "cuda:0 and cpu!")
    assert E.read(kb.by_id, _t("RuntimeError", msg), [])["eid"] == "usercode.tensors_on_two_devices"
    # a non-Error exception with torch's words is passed
    assert E.read(kb.by_id, _t("KeyboardInterrupt", TWO_DEV), []) is None


def test_a_library_frame_on_windows_and_a_library_named_twice_in_the_path(kb):
    t = _t("ValueError", "the value of max_steps must be positive", "C:\\venv\\Lib\\site-packages\\transformers\\trainer.py")
    assert E.read(kb.by_id, t, [])["how"] == "transformers refused an option in trainer.py (max_steps)"
    # the file part is read after the last '/deepspeed/' (a checkout folder named deepspeed/configs is not config.py)
    t = _t("ValueError", "`offload_optimizer` is only supported with ZeRO stage 2 or 3",
           "/home/u/deepspeed/configs/venv/lib/python3.11/site-packages/deepspeed/runtime/engine.py")
    assert E.read(kb.by_id, t, []) is None


ADV_TB = ("Traceback (most recent call last):\n  File \"/work/job/t.py\", line 4, in <module>\n    y = f(x)\n"
          "  File \"/opt/venv/lib/python3.11/site-packages/torch/x.py\", line 9, in f\n    raise RuntimeError(msg)\n"
          "RuntimeError: Something odd happened in the call. Use torch.foo() instead.\n")
LOAD_TB = ("Traceback (most recent call last):\n  File \"/work/job/t_load_trunc.py\", line 6, in <module>\n"
           "    torch.load(\"ck_trunc.pt\")\n"
           "  File \"/opt/venv/lib/python3.11/site-packages/torch/serialization.py\", line 1568, in load\n"
           "    with _open_zipfile_reader(opened_file) as opened_zipfile:\n"
           "  File \"/opt/venv/lib/python3.11/site-packages/torch/serialization.py\", line 807, in __init__\n"
           "    super().__init__(torch._C.PyTorchFileReader(name_or_buffer))\nOSError: [Errno 22] Invalid argument\n")


def test_finding_the_advice_alone_and_how_sure(kb):
    from gpudoctor import explain

    f = explain.explain_text(ADV_TB, kb)["findings"][0]
    assert f["id"] == "torch.usage" and f["causes"][0]["text"] == (
        "The call was refused (RuntimeError: Something odd happened in the call. Use torch.foo() instead.). The message "
        "says what to do: \u201cUse torch.foo() instead.\u201d")
    assert f["notes"][0].startswith("How sure: low. No known message matched; the family is read from the log's shape "
                                    "(torch refused the call and said what to do).")
    f = explain.explain_text(LOAD_TB, kb)["findings"][0]
    assert f["id"] == "torch.checkpoint_load" and f["notes"][0].startswith(
        "How sure: medium. No known message matched; the family is read from the text's shape (OSError raised while "
        "torch.load read the file)")


def test_the_quotes_of_a_short_write_and_a_state_dict_at_80_characters(kb):
    # (a blank at the 75th character: a cut at 81 would keep one word more)
    got = E.read(kb.by_id, _ser("RuntimeError", "unexpected pos 8320 vs 726 " + "ab " * 30, "save"), [])
    assert got["how"] == "torch.save's writer saw a short write ('unexpected pos 8320 vs 726 %s[...]')" % ("ab " * 15)
    got = E.read(kb.by_id, _t("RuntimeError", "Error(s) in loading state_dict for Netz1: " + "ab " * 30), [])
    assert got["how"] == "load_state_dict's refusal ('Error(s) in loading state_dict for Netz1: %s[...]')" % ("ab " * 10)

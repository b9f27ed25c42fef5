"""userline.py: the fix names the user's own line, read by the API it calls (issue 18).

The tracebacks are real: each script below was run here (CPU torch 2.13.0+cpu, Python 3.11.7, 26 Nov 2026) and its
stderr kept whole; the script's text is in the comment above its log.
"""

import json
import os

from gpudoctor import explain
from gpudoctor.explain import pytb, userline
from gpudoctor.explain.knowledge import open_generated
from explainhelp import ANSWERED

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _root(kb, text):
    res = explain.explain_text(text, kb)
    assert res["verdict"] in ANSWERED, res["verdict"]
    return res["findings"][0]


# ds_len.py:
#   import torch
#   from torch.utils.data import Dataset, DataLoader
#
#
#   class Windows(Dataset):
#       def __init__(self, n, horizon):
#           self.x = torch.arange(n, dtype=torch.float32)
#           self.horizon = horizon
#
#       def __len__(self):
#           return len(self.x)
#
#       def __getitem__(self, idx):
#           return self.x[idx], self.x[idx + self.horizon]
#
#
#   for xb, yb in DataLoader(Windows(100, 3), batch_size=10):
#       pass
DS_LEN = (
    'Traceback (most recent call last):\n'
    '  File "/home/u/proj/ds_len.py", line 17, in <module>\n'
    '    for xb, yb in DataLoader(Windows(100, 3), batch_size=10):\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 725, in __next__\n'
    '    data = self._next_data()\n'
    '           ^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 785, in _next_data\n'
    '    data = self._dataset_fetcher.fetch(index)  # may raise StopIteration\n'
    '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/_utils/fetch.py", line 54, in fetch\n'
    '    data = [self.dataset[idx] for idx in possibly_batched_index]\n'
    '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/_utils/fetch.py", line 54, in <listcomp>\n'
    '    data = [self.dataset[idx] for idx in possibly_batched_index]\n'
    '            ~~~~~~~~~~~~^^^^^\n'
    '  File "/home/u/proj/ds_len.py", line 14, in __getitem__\n'
    '    return self.x[idx], self.x[idx + self.horizon]\n'
    '                        ~~~~~~^^^^^^^^^^^^^^^^^^^^\n'
    'IndexError: index 100 is out of bounds for dimension 0 with size 100\n'
)

# inplace.py:
#   import torch
#   hits = torch.zeros(4, dtype=torch.long)
#   hits *= 0.5
INPLACE = (
    'Traceback (most recent call last):\n'
    '  File "/home/u/proj/inplace.py", line 3, in <module>\n'
    '    hits *= 0.5\n'
    "RuntimeError: result type Float can't be cast to the desired output type Long\n"
)

# bf16np.py:
#   import numpy as np
#   import torch
#   emb = torch.randn(4, 8, dtype=torch.bfloat16)
#   arr = np.asarray(emb)
BF16NP = (
    'Traceback (most recent call last):\n'
    '  File "/home/u/proj/bf16np.py", line 4, in <module>\n'
    '    arr = np.asarray(emb)\n'
    '          ^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/_tensor.py", line 1245, in __array__\n'
    '    return self.numpy()\n'
    '           ^^^^^^^^^^^^\n'
    'TypeError: Got unsupported ScalarType BFloat16\n'
)

# gradfn.py:
#   import torch
#
#
#   class Scale(torch.autograd.Function):
#       @staticmethod
#       def forward(ctx, x, w):
#           ctx.save_for_backward(x, w)
#           return x @ w
#
#       @staticmethod
#       def backward(ctx, g):
#           x, w = ctx.saved_tensors
#           return g @ w.t(), (x.t() @ g).sum(0)
#
#
#   x = torch.randn(2, 5, requires_grad=True)
#   w = torch.randn(5, 3, requires_grad=True)
#   Scale.apply(x, w).sum().backward()
GRADFN = (
    'Traceback (most recent call last):\n'
    '  File "/home/u/proj/gradfn.py", line 18, in <module>\n'
    '    Scale.apply(x, w).sum().backward()\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/_tensor.py", line 623, in backward\n'
    '    torch.autograd.backward(\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/autograd/__init__.py", line 395, in backward\n'
    '    _engine_run_backward(\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/autograd/graph.py", line 979, in _engine_run_backward\n'
    '    return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass\n'
    '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    'RuntimeError: Function ScaleBackward returned an invalid gradient at index 1 - got [3] but expected shape compatible with [5, 3]\n'
)

# optgroups.py:
#   import torch
#   net = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 2))
#   old = torch.optim.AdamW(net.parameters(), lr=1e-3)
#   saved = old.state_dict()
#   head_only = torch.optim.AdamW(net[1].parameters(), lr=1e-4)
#   net.load_state_dict(net.state_dict()); head_only.load_state_dict(saved)
OPTGROUPS = (
    'Traceback (most recent call last):\n'
    '  File "/home/u/proj/optgroups.py", line 6, in <module>\n'
    '    net.load_state_dict(net.state_dict()); head_only.load_state_dict(saved)\n'
    '                                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/_compile.py", line 54, in inner\n'
    '    return disable_fn(*args, **kwargs)\n'
    '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/_dynamo/eval_frame.py", line 1446, in _fn\n'
    '    return fn(*args, **kwargs)\n'
    '           ^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/optim/optimizer.py", line 950, in load_state_dict\n'
    '    raise ValueError(\n'
    "ValueError: loaded state dict contains a parameter group that doesn't match the size of optimizer's group\n"
)

# rankpath.py:
#   import os
#   import torch
#   rank = int(os.environ.get("RANK", "2"))
#   state = torch.load(f"ckpt/step500-rank{rank}.pt", map_location="cpu")
RANKPATH = (
    'Traceback (most recent call last):\n'
    '  File "/home/u/proj/rankpath.py", line 4, in <module>\n'
    '    state = torch.load(f"ckpt/step500-rank{rank}.pt", map_location="cpu")\n'
    '            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/serialization.py", line 1561, in load\n'
    '    with _open_file_like(f, "rb") as opened_file:\n'
    '         ^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/serialization.py", line 795, in _open_file_like\n'
    '    return _open_file(name_or_buffer, mode)\n'
    '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/serialization.py", line 776, in __init__\n'
    '    super().__init__(open(name, mode))  # noqa: SIM115\n'
    '                     ^^^^^^^^^^^^^^^^\n'
    "FileNotFoundError: [Errno 2] No such file or directory: 'ckpt/step500-rank2.pt'\n"
)

# keyerr.py:
#   def collate(rows):
#       return [r["input_ids"] for r in rows]
#
#
#   batch = {"ids": [1, 2, 3]}
#   print(batch["input_ids"])
KEYERR = (
    'Traceback (most recent call last):\n'
    '  File "/home/u/proj/keyerr.py", line 6, in <module>\n'
    '    print(batch["input_ids"])\n'
    '          ~~~~~^^^^^^^^^^^^^\n'
    "KeyError: 'input_ids'\n"
)


def test_an_index_past_the_end_in_getitem_names_len_and_the_offset(kb):
    f = _root(kb, DS_LEN)
    c = f["causes"][0]
    # the caret line marked the failing subscript of the two on the line
    assert "`return self.x[idx], self.x[idx + self.horizon]`" in c["text"]
    assert "reads `self.x[idx + self.horizon]` past the end" in c["text"]
    assert "__len__" in c["fix"][0] and "len(self.x) - self.horizon" in c["fix"][0]
    assert c["fix"][0].startswith("on your line /home/u/proj/ds_len.py (14)")


def test_a_cast_refusal_at_an_in_place_operator_says_out_of_place(kb):
    f = _root(kb, INPLACE)
    # TensorIterator's cast refusal is a dtype refusal (excmeaning._TENSOR_RULE), the line says which operator
    assert f["id"] == "usercode.dtype_mismatch"
    c = f["causes"][0]
    assert "The in-place `hits *= 0.5`" in c["text"] and "(Long)" in c["text"] and "is Float" in c["text"]
    assert "out of place (hits = hits * 0.5)" in c["fix"][0] and "hits.float()" in c["fix"][0]


def test_a_bfloat16_tensor_given_to_numpy_is_converted_first(kb):
    c = _root(kb, BF16NP)["causes"][0]
    assert "`arr = np.asarray(emb)`" in c["text"] and "NumPy has no dtype for BFloat16" in c["text"]
    assert ".float().numpy()" in c["fix"][0]


def test_an_invalid_gradient_names_the_function_and_the_input_shape(kb):
    f = _root(kb, GRADFN)
    c = f["causes"][0]
    assert "autograd.Function Scale returns, for its input 1, a gradient of shape [3]" in c["text"]
    assert "shape [5, 3]" in c["text"] and "transposed" not in c["text"]  # [3] is no transpose of [5, 3]
    assert "in Scale.backward return for each input a gradient of the same shape" in c["fix"][0]


def test_the_invalid_gradient_rule_says_transposed_only_when_it_is():
    tb = {"exc": "RuntimeError", "msg": "Function MulBackward returned an invalid gradient at index 0 - got [3, 8] "
                                        "but expected shape compatible with [8, 3]",
          "frames": [("/w/t.py", 9, "<module>")], "src": [("y.sum().backward()", None)]}
    text, fix = userline.specific(userline.user_frame(tb), tb, "shape")
    assert "it is transposed" in text and ".t()" in fix


def test_optimizer_load_state_dict_is_told_from_the_modules_by_its_frames(kb):
    # both calls on the line are named load_state_dict: the frames went into torch/optim/optimizer.py, and the caret
    # line marked the second; the answer's own cause (evidence) stays first, the line is a note
    f = _root(kb, OPTGROUPS)
    note = next(n for n in f["notes"] if n.startswith("Your line optgroups.py:6"))
    assert "head_only.load_state_dict (torch.optim.Optimizer.load_state_dict" in note
    assert "same parameters, in the same param groups" in note and "strict" not in note
    assert not f["causes"][0]["text"].startswith("Your line")


def test_a_missing_per_rank_checkpoint_names_rank_zeros_file(kb):
    c = _root(kb, RANKPATH)["causes"][0]
    assert "carries this rank's number (rank2)" in c["text"]
    assert "ckpt/step500-rank0.pt" in c["fix"][0] and "same file on every rank" in c["fix"][0]
    # rank 0's own file missing is no rank mix-up: the rule stays out
    zero = RANKPATH.replace("rank2.pt", "rank0.pt")
    assert "rank's number" not in _root(kb, zero)["causes"][0]["text"]


def test_a_missing_key_names_the_mapping_and_how_to_see_its_keys(kb):
    c = _root(kb, KEYERR)["causes"][0]
    assert "reads the key 'input_ids' of `batch`" in c["text"] and "print(sorted(batch))" in c["fix"][0]


def test_the_users_line_is_quoted_safely_and_never_reaches_a_fix_line(kb):
    # a crafted line: a bidi override, a bell, a backquote and a command substitution in the source and the key
    text = ('Traceback (most recent call last):\n  File "/w/t.py", line 3, in <module>\n'
            '    v = cfg["$(reboot)"]  \u202e`x`\x07\nKeyError: \'$(reboot)\'\n')
    c = _root(kb, text)["causes"][0]
    assert "\u202e" not in c["text"] and "\x07" not in c["text"] and "`x`" not in c["text"]
    assert "$(reboot)" in c["text"] and all("$(reboot)" not in x for x in c["fix"])
    long = userline.quote("x = " + "a" * 500 + "\u2066")
    assert len(long) <= userline.MAX_LINE and long.endswith("[...]") and "\u2066" not in long


def test_no_user_frame_or_another_family_gets_no_line(kb):
    # every frame a library's: nothing of the user's to quote
    lib_only = ('Traceback (most recent call last):\n'
                '  File "/opt/venv/lib/python3.11/site-packages/torch/serialization.py", line 776, in __init__\n'
                '    super().__init__(open(name, mode))\n'
                "FileNotFoundError: [Errno 2] No such file or directory: 'ckpt/step500-rank2.pt'\n")
    f = _root(kb, lib_only)
    assert not any(c["text"].startswith("Your line") for c in f["causes"])
    assert not any(n.startswith("Your line") for n in f["notes"])
    findings = [{"id": "nccl.unhandled_system_error", "role": "root", "causes": [{"text": "x", "evidence": []}],
                 "notes": []}]
    scan = type("S", (), {"tracebacks": pytb.parse(KEYERR)})()
    userline.fill(scan, findings)
    assert findings[0]["causes"] == [{"text": "x", "evidence": []}] and findings[0]["notes"] == []


def test_frame_source_keeps_the_source_line_and_the_marked_part():
    tb = pytb.parse(DS_LEN)[-1]
    assert tb["src"][-1] == ("return self.x[idx], self.x[idx + self.horizon]", "self.x[idx + self.horizon]")
    assert tb["src"][0] == ("for xb, yb in DataLoader(Windows(100, 3), batch_size=10):", None)
    assert len(tb["src"]) == len(tb["frames"])


def test_the_table_regenerates_from_its_recorded_slice(tmp_path):
    import sys

    sys.path.insert(0, os.path.join(REPO, "tools"))
    import gen_train_api

    out = tmp_path / "train_api.json"
    gen_train_api.main(["--slice", os.path.join(REPO, "tools", "data", "train_api_slice.json"), "-o", str(out)])
    with open_generated("train_api") as f:
        committed = json.load(f)
    assert json.loads(out.read_text()) == committed
    # what the answers read from it: a sampler's and load_state_dict's parameters, two APIs of one call name
    assert [p[0] for p in committed["apis"]["torch.utils.data.distributed.DistributedSampler"]["params"]] == [
        "dataset", "num_replicas", "rank", "shuffle", "seed", "drop_last"]
    assert "torch.optim.Optimizer.load_state_dict" in committed["calls"]["load_state_dict"]
    assert committed["header"]["version"].startswith("accelerate 1.15.0, peft 0.21.2, torch 2.13.0")


def test_a_keyerror_a_library_raises_is_no_missing_key_of_the_line():
    # torch's DeviceMesh.__getitem__ raises KeyError with a sentence of its own (torch/distributed/device_mesh.py):
    # the subscript on the user's line did not fail for want of a key
    tb = {"exc": "KeyError", "msg": "\"Invalid mesh_dim_names ('model',) specified.\"",
          "frames": [("/w/train.py", 96, "main"),
                     ("/opt/venv/lib/python3.11/site-packages/torch/distributed/device_mesh.py", 640, "__getitem__")],
          "src": [('tp_mesh = mesh[cfg["tp_dim_name"]]', None), ("raise KeyError(", None)]}
    assert userline.specific(userline.user_frame(tb), tb, "key") is None


# bert_long2.py (transformers 5.24.0):
#   import torch
#   from transformers import BertConfig, BertModel
#
#   cfg = BertConfig(vocab_size=100, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
#                    intermediate_size=32, max_position_embeddings=32)
#   encoder = BertModel(cfg)
#   hidden = encoder(torch.randint(0, 100, (1, 40))).last_hidden_state
BERT_LONG2 = (
    'Traceback (most recent call last):\n'
    '  File "/home/u/proj/bert_long2.py", line 7, in <module>\n'
    '    hidden = encoder(torch.randint(0, 100, (1, 40))).last_hidden_state\n'
    '             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1778, in _wrapped_call_impl\n'
    '    return self._call_impl(*args, **kwargs)\n'
    '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1789, in _call_impl\n'
    '    return forward_call(*args, **kwargs)\n'
    '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/transformers/utils/generic.py", line 1182, in wrapper\n'
    '    output = func(self, *args, **kwargs)\n'
    '             ^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/transformers/utils/output_capturing.py", line 361, in wrapper\n'
    '    outputs = func(self, *args, **kwargs)\n'
    '              ^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/transformers/utils/deprecation.py", line 173, in wrapped_func\n'
    '    return func(*args, **kwargs)\n'
    '           ^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/transformers/models/bert/modeling_bert.py", line 657, in forward\n'
    '    embedding_output = self.embeddings(\n'
    '                       ^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1778, in _wrapped_call_impl\n'
    '    return self._call_impl(*args, **kwargs)\n'
    '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1789, in _call_impl\n'
    '    return forward_call(*args, **kwargs)\n'
    '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/transformers/models/bert/modeling_bert.py", line 95, in forward\n'
    '    token_type_ids = buffered_token_type_ids.expand(batch_size, seq_length)\n'
    '                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    'RuntimeError: The expanded size of the tensor (40) must match the existing size (32) at non-singleton dimension 1.  Target sizes: [1, 40].  Tensor sizes: [1, 32]\n'
)


# bert_long.py (transformers 5.24.0):
#   import torch
#   from transformers import BertConfig, BertForSequenceClassification
#
#   cfg = BertConfig(vocab_size=100, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
#                    intermediate_size=32, max_position_embeddings=32)
#   model = BertForSequenceClassification(cfg)
#   ids = torch.randint(0, 100, (2, 144))
#   logits = model(input_ids=ids, token_type_ids=torch.zeros_like(ids)).logits
BERT_LONG = (
    'Traceback (most recent call last):\n'
    '  File "/home/u/proj/bert_long.py", line 8, in <module>\n'
    '    logits = model(input_ids=ids, token_type_ids=torch.zeros_like(ids)).logits\n'
    '             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1778, in _wrapped_call_impl\n'
    '    return self._call_impl(*args, **kwargs)\n'
    '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1789, in _call_impl\n'
    '    return forward_call(*args, **kwargs)\n'
    '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/transformers/utils/generic.py", line 1036, in wrapper\n'
    '    output = func(self, *args, **kwargs)\n'
    '             ^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/transformers/models/bert/modeling_bert.py", line 1098, in forward\n'
    '    outputs = self.bert(\n'
    '              ^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1778, in _wrapped_call_impl\n'
    '    return self._call_impl(*args, **kwargs)\n'
    '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1789, in _call_impl\n'
    '    return forward_call(*args, **kwargs)\n'
    '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/transformers/utils/generic.py", line 1182, in wrapper\n'
    '    output = func(self, *args, **kwargs)\n'
    '             ^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/transformers/utils/output_capturing.py", line 361, in wrapper\n'
    '    outputs = func(self, *args, **kwargs)\n'
    '              ^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/transformers/utils/deprecation.py", line 173, in wrapped_func\n'
    '    return func(*args, **kwargs)\n'
    '           ^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/transformers/models/bert/modeling_bert.py", line 657, in forward\n'
    '    embedding_output = self.embeddings(\n'
    '                       ^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1778, in _wrapped_call_impl\n'
    '    return self._call_impl(*args, **kwargs)\n'
    '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1789, in _call_impl\n'
    '    return forward_call(*args, **kwargs)\n'
    '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/transformers/models/bert/modeling_bert.py", line 105, in forward\n'
    '    embeddings = embeddings + position_embeddings\n'
    '                 ~~~~~~~~~~~^~~~~~~~~~~~~~~~~~~~~\n'
    'RuntimeError: The size of tensor a (144) must match the size of tensor b (32) at non-singleton dimension 1\n'
)


def test_a_size_refusal_inside_a_models_embeddings_names_truncation(kb):
    # 14 frames: the user's line is beyond the 12 innermost that pytb keeps (tb['user'])
    f = _root(kb, BERT_LONG2)
    c = f["causes"][0]
    assert "`hidden = encoder(torch.randint(0, 100, (1, 40))).last_hidden_state`" in c["text"]
    assert "inside the model's embeddings (models/bert/modeling_bert.py)" in c["text"]
    assert "40 positions asked of a table of 32" in c["text"]
    assert "truncation=True, max_length=model.config.max_position_embeddings" in c["fix"][0]
    # pyanswer's library fix names the user's call too (pytb.last_user_frame reads tb['user'])
    assert any("called from your /home/u/proj/bert_long2.py, line 7" in x for c in f["causes"] for x in c["fix"])


def test_the_embeddings_reading_is_a_note_where_a_known_message_has_its_evidence(kb):
    # torch's broadcast message is a known entry's line (usercode.shape_mismatch, with its evidence): it stays first
    f = _root(kb, BERT_LONG)
    assert f["id"] == "usercode.shape_mismatch" and not f["causes"][0]["text"].startswith("Your line")
    assert any(n.startswith("Your line bert_long.py:8") and "max_length" in n for n in f["notes"])


# decode.py (reviews.csv holds latin-1 bytes: printf 'id,text\\n1,caf\\xe9 cr\\xe8me\\n'):
#   import csv
#   from torch.utils.data import Dataset, DataLoader
#
#
#   class Reviews(Dataset):
#       def __init__(self, path):
#           self.path = path
#
#       def __len__(self):
#           return 1
#
#       def __getitem__(self, i):
#           with open(self.path, newline="") as f:
#               rows = list(csv.reader(f))
#           return rows[i + 1][1]
#
#
#   for batch in DataLoader(Reviews("reviews.csv"), batch_size=1):
#       print(batch)
DECODE = (
    'Traceback (most recent call last):\n'
    '  File "/home/u/proj/decode.py", line 18, in <module>\n'
    '    for batch in DataLoader(Reviews("reviews.csv"), batch_size=1):\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 725, in __next__\n'
    '    data = self._next_data()\n'
    '           ^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 785, in _next_data\n'
    '    data = self._dataset_fetcher.fetch(index)  # may raise StopIteration\n'
    '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/_utils/fetch.py", line 54, in fetch\n'
    '    data = [self.dataset[idx] for idx in possibly_batched_index]\n'
    '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/_utils/fetch.py", line 54, in <listcomp>\n'
    '    data = [self.dataset[idx] for idx in possibly_batched_index]\n'
    '            ~~~~~~~~~~~~^^^^^\n'
    '  File "/home/u/proj/decode.py", line 14, in __getitem__\n'
    '    rows = list(csv.reader(f))\n'
    '           ^^^^^^^^^^^^^^^^^^^\n'
    '  File "<frozen codecs>", line 322, in decode\n'
    "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9 in position 13: invalid continuation byte\n"
)


# spawnguard.py:
#   import torch
#   from torch.utils.data import DataLoader, TensorDataset
#
#   ds = TensorDataset(torch.randn(8, 2))
#   loader = DataLoader(ds, batch_size=4, num_workers=1, multiprocessing_context="spawn")
#   for (xb,) in loader:
#       print(xb.shape)
SPAWNGUARD = (
    'Traceback (most recent call last):\n'
    '  File "<string>", line 1, in <module>\n'
    '  File "/usr/lib/python3.11/multiprocessing/spawn.py", line 122, in spawn_main\n'
    '    exitcode = _main(fd, parent_sentinel)\n'
    '               ^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/usr/lib/python3.11/multiprocessing/spawn.py", line 131, in _main\n'
    '    prepare(preparation_data)\n'
    '  File "/usr/lib/python3.11/multiprocessing/spawn.py", line 246, in prepare\n'
    "    _fixup_main_from_path(data['init_main_from_path'])\n"
    '  File "/usr/lib/python3.11/multiprocessing/spawn.py", line 297, in _fixup_main_from_path\n'
    '    main_content = runpy.run_path(main_path,\n'
    '                   ^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "<frozen runpy>", line 291, in run_path\n'
    '  File "<frozen runpy>", line 98, in _run_module_code\n'
    '  File "<frozen runpy>", line 88, in _run_code\n'
    '  File "/home/u/proj/spawnguard.py", line 6, in <module>\n'
    '    for (xb,) in loader:\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 505, in __iter__\n'
    '    return self._get_iterator()\n'
    '           ^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 438, in _get_iterator\n'
    '    return _MultiProcessingDataLoaderIter(self)\n'
    '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1176, in __init__\n'
    '    w.start()\n'
    '  File "/usr/lib/python3.11/multiprocessing/process.py", line 121, in start\n'
    '    self._popen = self._Popen(self)\n'
    '                  ^^^^^^^^^^^^^^^^^\n'
    '  File "/usr/lib/python3.11/multiprocessing/context.py", line 288, in _Popen\n'
    '    return Popen(process_obj)\n'
    '           ^^^^^^^^^^^^^^^^^^\n'
    '  File "/usr/lib/python3.11/multiprocessing/popen_spawn_posix.py", line 32, in __init__\n'
    '    super().__init__(process_obj)\n'
    '  File "/usr/lib/python3.11/multiprocessing/popen_fork.py", line 19, in __init__\n'
    '    self._launch(process_obj)\n'
    '  File "/usr/lib/python3.11/multiprocessing/popen_spawn_posix.py", line 42, in _launch\n'
    '    prep_data = spawn.get_preparation_data(process_obj._name)\n'
    '                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/usr/lib/python3.11/multiprocessing/spawn.py", line 164, in get_preparation_data\n'
    '    _check_not_importing_main()\n'
    '  File "/usr/lib/python3.11/multiprocessing/spawn.py", line 140, in _check_not_importing_main\n'
    "    raise RuntimeError('''\n"
    'RuntimeError: \n'
    '        An attempt has been made to start a new process before the\n'
    '        current process has finished its bootstrapping phase.\n'
    '\n'
    '        This probably means that you are not using fork to start your\n'
    '        child processes and you have forgotten to use the proper idiom\n'
    '        in the main module:\n'
    '\n'
    "            if __name__ == '__main__':\n"
    '                freeze_support()\n'
    '                ...\n'
    '\n'
    '        The "freeze_support()" line can be omitted if the program\n'
    '        is not going to be frozen to produce an executable.\n'
    '\n'
    '        To fix this issue, refer to the "Safe importing of main module"\n'
    '        section in https://docs.python.org/3/library/multiprocessing.html\n'
    '        \n'
    'Traceback (most recent call last):\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1291, in _try_get_data\n'
    '    data = self._data_queue.get(timeout=timeout)\n'
    '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/usr/lib/python3.11/multiprocessing/queues.py", line 113, in get\n'
    '    if not self._poll(timeout):\n'
    '           ^^^^^^^^^^^^^^^^^^^\n'
    '  File "/usr/lib/python3.11/multiprocessing/connection.py", line 257, in poll\n'
    '    return self._poll(timeout)\n'
    '           ^^^^^^^^^^^^^^^^^^^\n'
    '  File "/usr/lib/python3.11/multiprocessing/connection.py", line 440, in _poll\n'
    '    r = wait([self], timeout)\n'
    '        ^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/usr/lib/python3.11/multiprocessing/connection.py", line 947, in wait\n'
    '    ready = selector.select(timeout)\n'
    '            ^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/usr/lib/python3.11/selectors.py", line 415, in select\n'
    '    fd_event_list = self._selector.poll(timeout)\n'
    '                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/_utils/signal_handling.py", line 73, in handler\n'
    '    _error_if_any_worker_fails()\n'
    'RuntimeError: DataLoader worker (pid 29088) exited unexpectedly with exit code 1. Details are lost due to multiprocessing. Rerunning with num_workers=0 may give better error trace.\n'
    '\n'
    'The above exception was the direct cause of the following exception:\n'
    '\n'
    'Traceback (most recent call last):\n'
    '  File "/home/u/proj/spawnguard.py", line 6, in <module>\n'
    '    for (xb,) in loader:\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 725, in __next__\n'
    '    data = self._next_data()\n'
    '           ^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1505, in _next_data\n'
    '    idx, data = self._get_data()\n'
    '                ^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1464, in _get_data\n'
    '    success, data = self._try_get_data()\n'
    '                    ^^^^^^^^^^^^^^^^^^^^\n'
    '  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1304, in _try_get_data\n'
    '    raise RuntimeError(\n'
    'RuntimeError: DataLoader worker (pid(s) 29088) exited unexpectedly\n'
)


# exhausted.py:
#   import torch
#   batches = iter([torch.randn(4, 2) for _ in range(3)])
#   for step in range(5):
#       xb = next(batches)
EXHAUSTED = (
    'Traceback (most recent call last):\n'
    '  File "/home/u/proj/exhausted.py", line 4, in <module>\n'
    '    xb = next(batches)\n'
    '         ^^^^^^^^^^^^^\n'
    'StopIteration\n'
)


def test_a_decode_error_names_the_files_encoding(kb):
    c = _root(kb, DECODE)["causes"][0]
    assert "`rows = list(csv.reader(f))`" in c["text"] and "not utf-8 text" in c["text"]
    assert 'encoding="latin-1"' in c["fix"][0]


def test_a_spawned_child_that_reran_the_script_names_the_main_guard(kb):
    # the child's traceback begins in multiprocessing/spawn.py _fixup_main_from_path, beyond the 12 innermost frames
    f = _root(kb, SPAWNGUARD)
    c = f["causes"][0]
    assert "`for (xb,) in loader:`" in c["text"] and "ran again inside a child process" in c["text"]
    assert 'if __name__ == "__main__"' in c["fix"][0]


def test_next_on_an_exhausted_iterator_says_so_and_rank_advice_only_with_ranks(kb):
    c = _root(kb, EXHAUSTED)["causes"][0]
    assert "`xb = next(batches)`" in c["text"] and "iterator exhausted" in c["text"]
    assert "DistributedSampler" not in c["fix"][0]  # one process: no rank ran out before another
    tb = pytb.parse(EXHAUSTED)[0]
    tb["rank"] = 1
    text, fix = userline.specific(userline.user_frame(tb), tb, None)
    assert "rank 1 ran out of batches" in text and "DistributedSampler" in fix and "Join" in fix


# Two calls of one name on a line, told apart by where CPython says the line raised, never by the order written.
# Each script ran here under CPython 3.10.13 and 3.11.7 (26 Nov 2026) with a stand-in torch package on PYTHONPATH
# (torch/optim/optimizer.py: Optimizer.load_state_dict raising torch's own "loaded state dict contains a parameter
# group ..." ValueError; torch/nn/modules/module.py: Module.load_state_dict / state_dict returning), so the frames and
# the caret lines are CPython's own:
#   twoloads.py: net.load_state_dict(net.state_dict()); head_only.load_state_dict(saved)
#   nested2.py:  opt.load_state_dict(net.load_state_dict({}))    (net a Module, opt an Optimizer)
def _two(py, script, src, caret=""):
    return ('Traceback (most recent call last):\n  File "/home/u/proj/%s", line 4, in <module>\n    %s\n%s'
            '  File "/opt/venv/lib/python%s/site-packages/torch/optim/optimizer.py", line 3, in load_state_dict\n'
            '    raise ValueError(\nValueError: loaded state dict contains a parameter group that doesn\'t match the '
            'size of optimizer\'s group\n' % (script, src, caret, py))


TWO_310 = _two("3.10", "twoloads.py", "net.load_state_dict(net.state_dict()); head_only.load_state_dict(saved)")
TWO_311 = _two("3.11", "twoloads.py", "net.load_state_dict(net.state_dict()); head_only.load_state_dict(saved)",
               "    " + " " * 39 + "^" * 32 + "\n")
NESTED_310 = _two("3.10", "nested2.py", "opt.load_state_dict(net.load_state_dict({}))")
NESTED_311 = _two("3.11", "nested2.py", "opt.load_state_dict(net.load_state_dict({}))")


def test_same_named_calls_are_told_apart_by_where_the_line_raised():
    def first(text):
        return userline.calls(userline.user_frame(pytb.parse(text)[-1]))[0][:2]

    opt = "torch.optim.Optimizer.load_state_dict"
    # 3.11's caret line marks the second call
    assert first(TWO_311) == ("head_only.load_state_dict", opt)
    # 3.11 prints no caret line under a frame whose raising call is its whole line: the outer call
    # (Lib/traceback.py format_frame_summary); the inner one returned
    assert first(NESTED_311) == ("opt.load_state_dict", opt)
    # before 3.11 nothing tells them apart: both are named, the first is not given the optimizer's API
    assert first(TWO_310) == ("one of net.load_state_dict / head_only.load_state_dict", opt)
    assert first(NESTED_310) == ("one of opt.load_state_dict / net.load_state_dict", opt)
    # the other call of the line is no Optimizer's because the traceback went into optimizer.py
    assert all(n != opt for _w, n, _r in userline.calls(userline.user_frame(pytb.parse(TWO_311)[-1]))[1:])
    f = {"id": "torch.usage"}
    text = userline.read(f, pytb.parse(TWO_310)[-1])[0]
    assert "calls one of net.load_state_dict / head_only.load_state_dict (torch.optim.Optimizer" in text


def test_the_api_is_the_frame_of_its_own_function_not_its_file_alone():
    # `loss = model(batch.to(dev))`'s traceback goes into module.py's _call_impl, not Module.to: the .to is not named
    # the API the traceback went into (a frame in module.py alone said so before)
    uf = {"src": "loss = crit(model.to(dev)(x), y)", "focus": None, "carets": True,
          "callees": [("/v/lib/python3.11/site-packages/torch/nn/modules/module.py", "_call_impl"),
                      ("/v/lib/python3.11/site-packages/torch/nn/modules/module.py", "to")]}
    assert userline.calls(uf)[0][:2] == ("model.to", "torch.nn.Module.to")
    uf["callees"] = [("/v/lib/python3.11/site-packages/torch/nn/modules/module.py", "_call_impl"),
                     ("/v/lib/python3.11/site-packages/torch/nn/modules/linear.py", "forward")]
    uf["src"] = "loss = crit(model(batch.to(dev)), y)"
    assert all(n != "torch.nn.Module.to" for _w, n, _r in userline.calls(uf))
    # (where pytb cut the frames between, a frame in the API's file is all there is)
    assert userline.calls(dict(uf, cut=True))[0][:2] == ("batch.to", "torch.nn.Module.to")

"""Cases for the mutants of gpudoctor/explain/userline.py and gpudoctor/explain/settings.py (docs/mutation.md,
seventh round, second part).

test_explain_userline.py and test_explain_settings.py check a few words of each answer. These compare what the two
modules themselves produce - userline: the user's frame, the meaning, the APIs called, read()'s (text, fix, own) and
what fill() puts into the answer; settings: read_line's whole result over each form, read_nested, the conditions,
found()'s rows and hits, and the causes / how-sure note judge() writes - with the reviewed table
tests/test_mutation_userline_settings.json (regenerate on purpose with GPUDOCTOR_REGEN_GOLDEN=1 and review the diff,
as for tests/golden/). The settings table's own text (a row's what / fix / source) shows as <row:ID.what> etc., so
a knowledge edit does not change the table. The tracebacks are test_explain_userline.py's (run for real, there) and
the variants below are made from them; the settings lines are in the forms the programs print (cited in
settings.py and test_explain_settings.py)."""

import json
import os

import pytest

import test_explain_settings as S
import test_explain_userline as U
from gpudoctor import explain
from gpudoctor.explain import pytb, settings, userline

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "test_mutation_userline_settings.json")
REGEN = os.environ.get("GPUDOCTOR_REGEN_GOLDEN") == "1"
try:
    with open(GOLDEN, encoding="utf-8") as _f:
        WANT = json.load(_f)
except FileNotFoundError:
    WANT = {}
GOT = {}


def _check(key, got):
    got = json.loads(json.dumps(got))
    if REGEN:
        GOT[key] = got
        return
    assert key in WANT, "no reviewed value for %s (GPUDOCTOR_REGEN_GOLDEN=1)" % key
    assert got == WANT[key], key


@pytest.fixture(scope="module", autouse=True)
def _write():
    yield
    if REGEN:
        old = dict(WANT)
        old.update(GOT)
        with open(GOLDEN, "w", encoding="utf-8") as f:
            json.dump(old, f, indent=1, sort_keys=True, ensure_ascii=False)
            f.write("\n")


@pytest.fixture(scope="module")
def kb():
    return explain.load_knowledge()


# ------------------------------------------------------------------ userline

TB = {name: getattr(U, name) for name in ("DS_LEN", "INPLACE", "BF16NP", "GRADFN", "OPTGROUPS", "RANKPATH", "KEYERR",
                                          "BERT_LONG2", "BERT_LONG", "DECODE", "SPAWNGUARD", "EXHAUSTED")}
# variants: the offset subtracted / a number, a key of a non-name mapping, a dtype refusal without the cast message,
# a module-level line with a trailing comment, a Windows path, a rank 0 path, a rank in a name that is no rank's
TB["DS_LEN_minus"] = U.DS_LEN.replace("idx + self.horizon", "idx - 2")
TB["DS_LEN_num"] = U.DS_LEN.replace("idx + self.horizon", "idx + 1")
TB["KEYERR_call"] = U.KEYERR.replace('batch["input_ids"]', 'get()["input_ids"]')
TB["INPLACE_dtype"] = U.INPLACE.replace("result type Float can't be cast to the desired output type Long",
                                        "expected scalar type Long but found Float")
TB["INPLACE_comment"] = U.INPLACE.replace("hits *= 0.5", "hits *= 0.5  # halve")
TB["INPLACE_expr"] = U.INPLACE.replace("hits *= 0.5", "hits[0] *= w.sum()")
TB["RANKPATH_0"] = U.RANKPATH.replace("rank2.pt", "rank0.pt")
TB["RANKPATH_r"] = U.RANKPATH.replace("rank2.pt", "r2.pt")
TB["WINPATH"] = U.INPLACE.replace("/home/u/proj/inplace.py", "C:\\Users\\u\\proj\\inplace.py")


def _cause(c):
    # (the entry's own cause and fixes are knowledge text: a placeholder, so a knowledge edit does not change the table)
    own = "<the entry's own>"
    return {"text": c["text"] if c["text"].startswith("Your line") else own,
            "fix": [x if x.startswith("on your line") else own for x in c["fix"][:2]],
            "evidence": bool(c.get("evidence"))}


def _userline_view(f, tbr):
    uf = userline.user_frame(tbr)
    if uf is None:
        return None
    return {"frame": uf, "meaning": userline.meaning(f, tbr),
            "calls": [(w, n) for w, n, _r in userline.calls(uf)], "read": userline.read(f, tbr)}


@pytest.mark.parametrize("name", sorted(TB))
def test_userline_whole_answer(kb, name):
    text = TB[name]
    res = explain.explain_text(text, kb)
    f = res["findings"][0] if res["findings"] else None
    got = {"root": f and f["id"]}
    if f:
        got["first_causes"] = [_cause(c) for c in f["causes"][:2]]
        got["notes"] = [n for n in f["notes"] if n.startswith("Your line")]
        got["tracebacks"] = [_userline_view(f, t) for t in pytb.parse(text)]
    _check("userline/" + name, got)


def _tb(exc, msg, frames, src, **kw):
    return dict({"exc": exc, "msg": msg, "frames": frames, "src": src}, **kw)


LIB = "/opt/venv/lib/python3.11/site-packages/"


def test_userline_small_readers():
    got = {
        "quote": [userline.quote(x) for x in ("a`b", "x" * userline.MAX_LINE, "x" * (userline.MAX_LINE + 1), None)],
        "ident": [userline.ident(x, "-") for x in ("a.b", "a.b.c.d.e", "a.b.c.d.e.f", "12", "1.5", "1.5.2", "a b",
                                                   "x" * 61, "_x9", "9x", "")],
        "params": [userline._params({"params": [["self", "POSITIONAL_OR_KEYWORD"], ["cls", "X"], ["a", "VAR_POSITIONAL"],
                                                ["b", "VAR_KEYWORD"], ["c", "KEYWORD_ONLY"]]}),
                   userline._params({"sig": "numpy(*, force=False) -> numpy.ndarray"}),
                   userline._params({"sig": "f(a, b = 2, *args, c)"}), userline._params({"sig": "nothing"}),
                   userline._params({})],
        "dims": userline._dims("[3, 80, 7]"),
        "meanings": [userline.meaning({"id": fid}, {"exc": exc, "msg": msg}) for fid, exc, msg in (
            ("x", "IndexError", None), ("usercode.index_out_of_range", "E", ""), ("x", "E", "index 3 is out of bounds"),
            ("x", "KeyError", "'a'"), ("x", "builtins.KeyError", "'a'"), ("x", "MyKeyError", "'a'"),
            ("x", "E", "KeyError: 'a'"), ("x", "E", "can't be cast"), ("x", "E", "expected BFloat16"),
            ("x", "E", "on different devices"), ("x", "E", "Missing key(s) in state_dict"),
            ("x", "E", "size mismatch"), ("x", "E", "dims"), ("x", "FileNotFoundError", "x"),
            ("x", "E", "[Errno 2] nope"), ("x", "E", "nothing"))],
        "rank_in_path": [bool(userline._RANK_IN_PATH.search(p)) for p in (
            "epoch1_rank1.pt", "ckpt-rank-3", "rank3/model.pt", "r2.pt", "franks2.pt", "RANK_4.bin", "rank12345x")],
    }
    _check("userline/small", got)


def test_userline_user_frame_forms():
    frames = [("/w/a.py", 1, "main"), (LIB + "torch/x.py", 2, "f"), ("<string>", 3, "g"), ("/w/b.py", 4, None),
              ("C:\\site-packages\\torch\\y.py", 5, "h")]
    src = [("a()", None), ("f()", None), ("g()", None), ("b()", "b"), ("h()", None)]
    got = {
        "innermost": userline.user_frame(_tb("E", "", frames, src)),
        "no_src": userline.user_frame(_tb("E", "", frames, src[:3] + [("", None)] + src[4:])),
        "short_src": userline.user_frame(_tb("E", "", frames, src[:2])),
        "exec_only": userline.user_frame(_tb("E", "", [("<string>", 1, "f")], [("x", None)])),
        "deep": userline.user_frame(_tb("E", "", [(LIB + "torch/x.py", 2, "f")], [("f()", None)],
                                        user=("/w/deep.py", 9, None, ("d()", "d")))),
        "deep_no_src": userline.user_frame(_tb("E", "", [(LIB + "torch/x.py", 2, "f")], [("f()", None)],
                                               user=("/w/deep.py", 9, "m", ("", None)))),
        "deep_exec": userline.user_frame(_tb("E", "", [], [], user=("<stdin>", 9, "m", ("d()", None)))),
        "empty": userline.user_frame({}),
    }
    _check("userline/user_frame", got)


def test_userline_calls_resolution():
    tb = userline.table()
    cases = {
        "dist_barrier": ("dist.barrier()", None, []),
        "alias_ddp": ("model = DDP(model, device_ids=[rank])", None, []),
        "two_loads_by_frame": ("model.load_state_dict(sd); opt.load_state_dict(o)", None,
                               [(LIB + "torch/optim/optimizer.py", "load_state_dict")]),
        "two_loads_by_prefix": ("torch.nn.Module.load_state_dict(m, sd)", None, []),
        "focus_first": ("a = torch.load(p); DistributedSampler(ds)", "DistributedSampler(ds)", []),
        "spaced": ("torch.load   (p)", None, []),
        "unknown": ("frobnicate(x)", None, []),
        "repeat": ("torch.load(a) or torch.load(b)", None, []),
        "dist_gather": ("dist.gather(t)", None, []),
        "torch_gather": ("torch.distributed.gather(t)", None, []),
        "accel_gather": ("accelerator.gather(t)", None, []),
        "bare_gather": ("gather(t)", None, []),
        "frame_first": ("torch.load(p); model.load_state_dict(x)", None, [(LIB + "torch/optim/optimizer.py", "f")]),
        "frame_first_focus": ("a.step(); torch.load(p)", "torch.load(p)", [(LIB + "torch/amp/grad_scaler.py", "step")]),
    }
    got = {}
    for k, (src, focus, callees) in cases.items():
        uf = {"src": src, "focus": focus, "callees": callees}
        got[k] = [(w, n) for w, n, _r in userline.calls(uf, tb)]
    _check("userline/calls", got)


def test_userline_specific_branches():
    got = {}
    own = [("/w/t.py", 7, "__getitem__")]
    got["getitem_no_subscript"] = userline.specific(userline.user_frame(_tb("IndexError", "x", own, [("return x", None)])),
                                                    _tb("IndexError", "x", own, [("return x", None)]), "index")
    got["getitem_plain"] = userline.specific(userline.user_frame(_tb("IndexError", "x", own, [("return a[i]", None)])),
                                             _tb("IndexError", "x", own, [("return a[i]", None)]), "index")
    t = _tb("IndexError", "x", [("/w/t.py", 7, "step")], [("return a[i + 1]", None)])
    got["index_not_getitem"] = userline.specific(userline.user_frame(t), t, "index")
    t = _tb("KeyError", "'b'", [("/w/t.py", 7, "f")], [("v = d['a'] + e['b']", None)])
    got["key_picks_subscript"] = userline.specific(userline.user_frame(t), t, "key")
    t = _tb("KeyError", "''", [("/w/t.py", 7, "f")], [("v = d['a'] + e['b']", None)])
    got["key_empty"] = userline.specific(userline.user_frame(t), t, "key")
    t = _tb("TypeError", "Got unsupported ScalarType BFloat16", [("/w/t.py", 7, "f")], [("y = x.tolist()", None)])
    got["numpy_tolist"] = userline.specific(userline.user_frame(t), t, "dtype")
    t = _tb("TypeError", "Got unsupported ScalarType BFloat16", [("/w/t.py", 7, "f")], [("y = x + 1", None)])
    got["numpy_no_conversion"] = userline.specific(userline.user_frame(t), t, "dtype")
    t = _tb("RuntimeError", "Function XBackward returned an invalid gradient at index 2 - got [2, 3] but expected "
            "shape compatible with [2, 3]", [("/w/t.py", 7, "f")], [("l.backward()", None)])
    got["grad_same"] = userline.specific(userline.user_frame(t), t, "shape")
    t = _tb("RuntimeError", "Function Mul returned an invalid gradient at index 0 - got [3, 2] but expected "
            "shape compatible with [2, 3]", [("/w/t.py", 7, "f")], [("l.backward()", None)])
    got["grad_no_suffix"] = userline.specific(userline.user_frame(t), t, "shape")
    for p in ("ck/rank1/m.pt", "ck/m_rank-007.pt"):
        t = _tb("FileNotFoundError", "[Errno 2] No such file or directory: '%s'" % p, [("/w/t.py", 7, "f")],
                [("torch.load(p)", None)])
        got["file_" + p] = userline.specific(userline.user_frame(t), t, "file")
    t = _tb("StopIteration", "", [("/w/t.py", 7, "f")], [("b = next(it)", None)], rank=3)
    got["next_rank"] = userline.specific(userline.user_frame(t), t, None)
    t = _tb("StopIteration", "", [("/w/t.py", 7, "f")], [("b = next(it)", None)], rank=0)
    got["next_rank0"] = userline.specific(userline.user_frame(t), t, None)
    t = _tb("StopIteration", "", [("/w/t.py", 7, "f"), (LIB + "x/y.py", 1, "g")], [("b = next(it)", None), ("", None)])
    got["next_in_library"] = userline.specific(userline.user_frame(t), t, None)
    t = _tb("builtins.UnicodeDecodeError", "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte",
            [("/w/t.py", 7, "f")], [("s = fh.read()", None)])
    got["decode_dotted"] = userline.specific(userline.user_frame(t), t, None)
    t = _tb("ValueError", "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte",
            [("/w/t.py", 7, "f")], [("s = fh.read()", None)])
    got["decode_other_exc"] = userline.specific(userline.user_frame(t), t, None)
    t = _tb("RuntimeError", "x", [("/w/t.py", 7, "<module>")], [("p.start()", None)],
            outer=[("C:\\Python\\Lib\\multiprocessing\\spawn.py", 1, "_fixup_main_from_path")])
    got["spawn_windows"] = userline.specific(userline.user_frame(t), t, None)
    t = _tb("RuntimeError", "x", [("/w/t.py", 7, "main")], [("p.start()", None)],
            outer=[("/usr/lib/python3.11/multiprocessing/spawn.py", 1, "_fixup_main_from_path")])
    got["spawn_not_module"] = userline.specific(userline.user_frame(t), t, None)
    _check("userline/specific", got)


def test_userline_with_api_and_prefixed_key():
    tb = userline.table()
    apis = tb["apis"]
    uf = {"src": "", "focus": None, "callees": []}
    got = {}
    for name in ("torch.optim.Optimizer.load_state_dict", "torch.nn.Module.load_state_dict"):
        for mean in ("state", "shape", "key", None, "dtype"):
            got["%s/%s" % (name, mean)] = userline._with_api(uf, mean, [("x.load_state_dict", name, apis[name])])
    fake = {"doc": "", "sig": "g(device=None, size=1)", "params": None}
    got["sched"] = userline._with_api(uf, "state", [("s.load_state_dict", "torch.optim.lr_scheduler.LRScheduler."
                                                                          "load_state_dict", {"doc": "d" * 200})])
    got["bear_sig"] = userline._with_api(uf, "device", [("g", "m.g", fake)])
    got["bear_none"] = userline._with_api(uf, "file", [("g", "m.g", fake)])
    got["no_mean"] = userline._with_api(uf, None, [("g", "m.g", fake)])
    got["unknown_mean"] = userline._with_api(uf, "nothing", [("g", "m.g", fake)])
    got["none"] = userline._with_api(uf, "device", [])
    frames = [("/w/t.py", 1, "main"), (LIB + "transformers/trainer.py", 2, "evaluate")]
    for key in ("eval_accuracy", "evalaccuracy", "test_accuracy", "eval_"):
        got["prefix/" + key] = userline._prefixed_key({"frames": frames}, key, tb)
    _check("userline/with_api", got)


def _finding(fid, evidence=False, conf=None):
    return {"id": fid, "role": "root", "confidence": conf, "notes": [],
            "causes": [{"text": "generic", "fix": ["first", "second"], "evidence": ["e"] if evidence else []}]}


def test_userline_fill_placement():
    got = {}
    for name, text in (("own", U.INPLACE), ("api", U.OPTGROUPS), ("key", U.KEYERR)):
        scan = type("S", (), {"tracebacks": pytb.parse(text)})()
        for fid, ev, conf in (("code.exception", False, None), ("usercode.x", False, None), ("usercode.x", True, None),
                              ("torch.x", False, "structural"), ("nccl.x", False, None)):
            f = _finding(fid, ev, conf)
            userline.fill(scan, [f])
            got["%s/%s/%s/%s" % (name, fid, ev, conf)] = {"causes": f["causes"], "notes": f["notes"]}
        f = _finding("usercode.x")
        f["role"] = "related"
        userline.fill(scan, [f])
        got[name + "/related"] = len(f["causes"]) + len(f["notes"])
        f = _finding("usercode.x")
        f["causes"] = []
        userline.fill(scan, [f])
        got[name + "/no_causes"] = len(f["notes"])
    userline.fill(type("S", (), {"tracebacks": []})(), [])
    # the traceback the root matched comes first, a spawned child's earlier one after it
    two = U.KEYERR + U.INPLACE
    scan = type("S", (), {"tracebacks": pytb.parse(two)})()
    line = pytb.parse(two)[-1]["line"]  # the second traceback's: it comes first
    got["order"] = [t["line"] for t in userline._tracebacks_of(scan, {"matches": [{"line": line}]})]
    got["order_none"] = [t["line"] for t in userline._tracebacks_of(scan, {})]
    _check("userline/fill", got)


# ------------------------------------------------------------------ settings

READ_LINES = [x[0] for x in S.READ] + [
    "export NCCL_P2P_DISABLE='1'", "NCCL_P2P_DISABLE = 1", 'os.environ.setdefault("NCCL_P2P_DISABLE", "1")',
    "os.putenv('NCCL_IB_DISABLE', '1')", "x = os.getenv('NCCL_IB_DISABLE', '0')", "os.environ['NCCL_IB_DISABLE']",
    "os.environ['NCCL_IB_DISABLE'] == '1'", "NCCL INFO NCCL_IB_DISABLE set by environment to 1.",
    "--dataloader_num_workers", "--dataloader_num_workers -1", "--dataloader_num_workers --bf16",
    "--dataloader_num_workers | tee", "--dataloader_num_workersX 0", "--dataloader_num_workers=", "---num_workers 0",
    "self.args.num_workers = 0", "cfg.num_workers=0", "foo.num_workers = 0", "+model.train_ds.num_workers=16",
    "num_workers, 0", "f(num_workers, 0)", '{"num_workers" : 0}', "num_workers: '0'", 'num_workers: "0"',
    "  num_workers: {", "num_workers=Cfg(device='cpu')", "num_workers = [", "num_workers:", "x, num_workers=0",
    "{num_workers=0", "a = num_workers = 0", "torch.backends.cudnn.benchmark=True",
    "torch.use_deterministic_algorithms(mode=True)", "set_detect_anomaly( True )", "offload_optimizer ....... {",
    "num_workers ... 0", "num_workers " + "x" * 300, "NUM_WORKERS=0", "num_workers\t0", "num_workers=0 " * 20,
    " " * 1990 + "num_workers=0", "gradient_checkpointing=True;", "cudnn.benchmark: true", "benchmark = True",
    "NCCL_P2P_DISABLE=1,NCCL_IB_DISABLE=1", "num_workers=(0)", "num_workers=0)", "num_workers=abc(",
]


def test_settings_read_line_forms():
    got = {line[:120] + "#%d" % len(line): settings.read_line(line) for line in READ_LINES}
    got["keys_given"] = settings.read_line("NCCL_P2P_DISABLE=1 num_workers=0", ["num_workers"])
    _check("settings/read_line", got)


def test_settings_read_nested_and_conditions():
    got = {}
    blocks = {
        "same_line": ["offload_optimizer: {device: cpu}"],
        "next_lines": ['"offload_optimizer": {', '  "device": "cpu",', '}'],
        "closed_first": ["offload_optimizer: {", "}", "device: cpu"],
        "closed_unindented": ["offload_optimizer:", "  x: 1", "other: 2", "device: cpu"],
        "too_far": ["offload_optimizer: {"] + ["  x: 1"] * settings.NEST + ["  device: cpu"],
        "at_nest": ["offload_optimizer: {"] + ["  x: 1"] * (settings.NEST - 1) + ["  device: cpu"],
        "blank_line": ["offload_optimizer:", "", "device: cpu"],
    }
    for k, lines in blocks.items():
        got["nested/" + k] = settings.read_nested(lines, "device")
    vals = ["1", "0", "true", "False", "yes", "off", "none", "null", "y", "t", "f", "n", "2", "-1", "0.5", "1,000",
            "1_0", "abc", "", "9" * 31, "9" * 30]
    for cond in ("true", "false", "<=0", ">=2", "<1", ">0.5", "=0", "=-1", ["cpu", "NVMe"]):
        f = settings._cond(cond)
        got["cond/%s" % (cond,)] = [v for v in vals + ["CPU", "nvme", "gpu"] if f(v)]
    got["bool"] = [settings._bool(v) for v in vals]
    got["num"] = [settings._num(v) for v in vals]
    for bad in ("~1", "<", "", None, "=1x"):
        with pytest.raises(ValueError):
            settings._cond(bad)
    got["clip"] = [settings._clip("a  b\nc", 5), settings._clip("abcdef", 6), settings._clip("abcdefg", 6)]
    _check("settings/small", got)


def _placeholders(s):
    for r in settings.table():
        for k in ("what", "fix", "source"):
            s = s.replace(r[k], "<row:%s.%s>" % (r["id"], k))
    return s


def _settings_view(res):
    f = res["findings"][0] if res["findings"] else None
    out = {"verdict": res["verdict"], "root": f and f["id"]}
    if f:
        out["confidence"] = f.get("confidence")
        out["from"] = [k for k in ("from_settings", "from_words") if f.get(k)]
        out["row_causes"] = [{"text": _placeholders(c["text"]), "fix": [_placeholders(x) for x in c["fix"]],
                              "confirm": c["confirm"][:1], "evidence": c["evidence"]}
                             for c in f["causes"] if c.get("static_rank") == 0]
        out["notes"] = [_placeholders(n) for n in f["notes"] if n.startswith("How sure")][:1]
        out["debug0"] = (f.get("debug") or [""])[0] if f.get("from_words") else None
        out["related"] = [x["id"] for x in res["findings"][1:] if x.get("role") == "related"][:3]
    out["context"] = [{"note": _placeholders(c["note"]), "fix": _placeholders(c["fix"]), "line": c["first_line"],
                       "text": c["text"]} for c in res.get("context", []) if c.get("id") == "settings"]
    return out


SETTINGS_TEXTS = {"paraphrase%d" % i: p[0] for i, p in enumerate(S.PARAPHRASES)}
SETTINGS_TEXTS.update({
    "ds_offload": S.DS_OFFLOAD, "dfine": S.DFINE, "nccl_667": S.NCCL_667,
    "several": "Training is slower than it should be on 8 A100s, roughly 3x slower than the reference numbers.\n"
               "TrainingArguments(\n_n_gpu=8,\nbf16=False,\ndataloader_num_workers=0,\nfp16=False,\n"
               "gradient_checkpointing=True,\nlogging_steps=1,\n)\n",
    "elsewhere": "Same training script and container as on our other cluster, but here every step takes about 3x as "
                 "long. No errors.\nstep 10 loss 2.30 31.0 ms/step\n",
    "elsewhere_no_words": "Training is slow.\nstep 10 loss 2.30 31.0 ms/step\n",
    "oom_fraction": "config: {'gpu_memory_fraction': 0.1, 'batch': 64}\ntorch.OutOfMemoryError: CUDA out of memory. "
                    "Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.10 GiB of which 70.00 GiB is free.\n",
    "oom_tradeoff": "TrainingArguments(\ngradient_checkpointing=False,\nper_device_train_batch_size=16,\n)\n"
                    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n",
    "error_root_note": "Training got much slower since yesterday.\nexport CUDA_LAUNCH_BLOCKING=1\n"
                       "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system error\n",
    "last_value_wins": "Training is 3x slower than expected on our A100.\nexport CUDA_LAUNCH_BLOCKING=1\n"
                       "export CUDA_LAUNCH_BLOCKING=0\n",
    "tried": "Training hangs on 2 nodes. Setting NCCL_P2P_DISABLE=1 worked but now it is really slow on the A100s.\n",
    "memory_told": "The job uses way more memory than expected and runs out of memory on the A100.\n"
                   "TrainingArguments(gradient_checkpointing=False, per_device_train_batch_size=64)\n",
    "unrepro_told": "Results are not reproducible between runs on the same GPU.\n"
                    "torch.backends.cudnn.benchmark = True\n",
    "k8s": "Training on 8 A100s is really slow\nspec:\n  containers:\n  - env:\n    - name: NCCL_IB_DISABLE\n"
           '      value: "1"\n',
    "k8s_unknown": "Training on 8 A100s is really slow\n    - name: SOMETHING_ELSE\n      value: \"1\"\n",
    "code_not_told": "for i in $(seq 1 10); do echo slow; done\nexport CUDA_LAUNCH_BLOCKING=1\n",
    "program_slow": "Using a slow image processor as `use_fast` is unset.\nexport CUDA_LAUNCH_BLOCKING=1\n",
    "no_gpu_word": "It is slow.\nexport NCCL_P2P_DISABLE=1\n",
})


@pytest.mark.parametrize("name", sorted(SETTINGS_TEXTS))
def test_settings_whole_answer(kb, name):
    text = SETTINGS_TEXTS[name]
    res = explain.explain_text(text, kb)
    _check("settings/answer/" + name, _settings_view(res))


def test_settings_found_rows_and_state(kb):
    import io

    from gpudoctor.explain.scan import scan_stream

    got = {}
    for name in ("several", "paraphrase4", "k8s", "tried", "last_value_wins", "memory_told"):
        scan = scan_stream(io.BytesIO(SETTINGS_TEXTS[name].encode()), kb)
        st = scan.settings_st
        got[name] = {"settings": [list(s) for s in st.settings], "told": [list(t) for t in st.told], "gpu": st.gpu,
                     "found": [(r["id"], [list(h) for h in hits], list(t)) for r, hits, t in settings.found(scan)],
                     "found_mem": [r["id"] for r, _h, _t in settings.found(scan, {"memory": (1, "memory", "x", False)})]}
    _check("settings/found", got)



# the table, its needles and the scan pattern are built once per process (module globals): a test that empties the
# caches builds them again here, so a mistake in building them shows (they ran before any test otherwise)

def test_settings_table_built_again(monkeypatch):
    monkeypatch.setattr(settings, "_table", None)
    monkeypatch.setattr(settings, "_keys_cache", None)
    rows = settings.table()
    assert settings.table() is rows  # cached
    got = {"rows": [[r["id"], r["keys"], r["line_has"], r.get("nested"), r["sure"], r["entry"]] for r in rows],
           "needles": settings._needles(), "all_keys": sorted(settings._all_keys())}
    keys = settings._all_keys()
    assert keys is settings._all_keys() and [len(k) for k in keys] == sorted(map(len, keys), reverse=True)
    p = settings.patterns()
    assert len(p) == 1 and p[0].entry == settings.ENTRY and p[0].role == "fact" and p[0].rank == 0
    got["pattern"] = [p[0].source, p[0].site, sorted(n.decode() for n in p[0].needles_b)]
    _check("settings/table", got)


ROW = '''[[setting]]
id = "r1"
keys = ["FOO_BAR"]
when = "true"
symptoms = ["slow"]
sure = "high"
entry = "torch.slow_setting"
what = "w"
fix = "f"
source = "https://example.org/doc"
'''


@pytest.mark.parametrize("change", [
    ("", ""), ('keys = ["FOO_BAR"]\n', ""), ('what = "w"\n', 'what = ""\n'), ("", 'color = "red"\n'),
    ('symptoms = ["slow"]', 'symptoms = ["slow", "fast"]'), ('sure = "high"', 'sure = "very"'),
    ("", 'needs = "cpu"\n'), ("https://", "http://"), ('when = "true"', 'when = "~1"'), ("", 'with = {x = "maybe"}\n'),
    ("", 'needs = "gpu"\nline_has = ["A"]\nnested = "device"\nwith = {x = ">1"}\n')])
def test_settings_table_refuses_a_bad_row(tmp_path, monkeypatch, change):
    from gpudoctor.explain.knowledge import KnowledgeError

    path = tmp_path / "settings.toml"
    path.write_text(ROW.replace(change[0], change[1]) if change[0] else ROW + change[1])
    monkeypatch.setattr(settings, "TABLE", str(path))
    monkeypatch.setattr(settings, "_table", None)
    if change == ("", "") or change[1].startswith('needs = "gpu"'):
        rows = settings.table()
        assert rows[0]["keys"] == ["foo_bar"] and rows[0]["line_has"] == (["a"] if change[1] else [])
        return
    with pytest.raises((KnowledgeError, ValueError)) as e:
        settings.table()
    assert "bad condition" in str(e.value) or "r1" in str(e.value)


def test_userline_read_forms():
    got = {}
    frames = [("/w/train.py", 10, "main"), (LIB + "transformers/trainer.py", 100, "evaluate"),
              ("C:\\w\\metrics.py", 20, "compute_metrics")]
    for key in ("eval_f1", "f1"):
        t = _tb("KeyError", "'%s'" % key, frames, [("main()", None), ("x()", None), ('return {"f1": m["%s"]}' % key, None)])
        got["prefixed/" + key] = userline.read({"id": "code.exception"}, t)
    for src in ("v = d['a#b']  # note", "hits *= 0.5  # a # b", "hits *= 0.5 # x"):
        t = _tb("RuntimeError", "result type Float can't be cast to the desired output type Long",
                [("/w/a/b.py", 3, "<module>")], [(src, None)])
        got["comment/" + src] = userline.read({"id": "usercode.dtype_mismatch"}, t)
    t = _tb("KeyError", "'a#b'", [("/w/a/b.py", 3, "f")], [("v = d['a#b']  # note", None)])
    got["comment_in_string"] = userline.read({"id": "code.exception"}, t)
    t = _tb("FileNotFoundError", "[Errno 2] No such file or directory: 'x.pt'", [("/w/a.py", 3, "f"),
            (LIB + "torch/serialization.py", 1, "load")], [("y = torch.load(p)", None), ("", None)])
    got["api_only"] = userline.read({"id": "torch.x"}, t)
    _check("userline/read", got)

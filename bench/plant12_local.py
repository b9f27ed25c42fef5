#!/usr/bin/env python3
"""Plant held-out set P12 on this machine (CPU only): run each case's script in its own work dir,
record verbatim combined stdout+stderr (as the user's terminal shows it) into logs/<name>.log,
and the command, exit code and versions into logs/manifest.json.
Usage: python3 plant12.py [name ...]"""
import json, os, shutil, subprocess, sys, time
H = "/tmp/heldout-p12"; S = H + "/scripts"; W = H + "/work"; L = H + "/logs"
VENV = H + "/venv/bin"
TR = "torchrun --standalone --nproc_per_node=2"
# name: (script, shown-as filename, launcher, timeout_s, extra env, setup fn name, shell prefix hidden from the log)
C = {}
def case(name, script, fname="train.py", launch="python", timeout=60, env=None, setup=None, hidden="", extra=()):
    C[name] = dict(script=script, fname=fname, launch=launch, timeout=timeout, env=env or {}, setup=setup, hidden=hidden, extra=list(extra))
# --- distributed user code (gloo, 2 ranks)
case("early_stop_one_rank", "early_stop_one_rank.py", launch=TR, timeout=90)
case("gather_object_list_all_ranks", "gather_object_list_all_ranks.py", "eval_gather.py", TR)
case("reduce_avg_gloo", "reduce_avg_gloo.py", "validate.py", TR)
case("metric_int_div_inplace", "metric_int_div_inplace.py", "eval_acc.py", TR)
case("metric_dtype_differs_per_rank", "metric_dtype_differs_per_rank.py", "eval_f1.py", TR, timeout=60)
case("new_group_rank0_only", "new_group_rank0_only.py", launch=TR, timeout=90)
case("iterator_exhausted_one_rank", "iterator_exhausted_one_rank.py", launch=TR, timeout=90)
case("set_order_hashseed", "set_order_hashseed.py", "multitask.py", TR)
case("makedirs_every_rank", "makedirs_every_rank.py", launch=TR)
case("ckpt_path_uses_rank", "ckpt_path_uses_rank.py", "resume.py", TR)
# --- single process user code
case("loader_lock_spawn", "loader_lock_spawn.py")
case("spawn_no_main_guard", "spawn_no_main_guard.py", timeout=60)
case("loader_timeout_slow_dataset", "loader_timeout_slow_dataset.py", timeout=60)
case("dataset_len_off_by_one", "dataset_len_off_by_one.py", "train_forecast.py")
case("jsonl_truncated_line_worker", "jsonl_truncated_line_worker.py", setup="jsonl")
case("csv_encoding_worker", "csv_encoding_worker.py", "train_reviews.py", setup="reviews")
case("batch_sampler_as_sampler", "batch_sampler_as_sampler.py")
case("persistent_workers_zero", "persistent_workers_zero.py")
case("autograd_fn_grad_shape", "autograd_fn_grad_shape.py", "custom_op.py")
case("rnn_hidden_not_detached", "rnn_hidden_not_detached.py", "train_lm.py")
case("loss_under_no_grad", "loss_under_no_grad.py")
case("param_in_two_groups", "param_in_two_groups.py")
case("onecycle_total_steps", "onecycle_total_steps.py")
case("optim_state_groups_changed", "optim_state_groups_changed.py", "finetune.py")
case("whole_model_pickle_load", "whole_model_pickle_load.py", "predict.py", setup="fullmodel")
case("bn_to_ln_state_dict", "bn_to_ln_state_dict.py", "convert.py")
case("bf16_to_numpy_metrics", "bf16_to_numpy_metrics.py")
case("mp_spawn_lambda", "mp_spawn_lambda.py", "launch_workers.py")
case("tok_return_tensors_no_padding", "tok_return_tensors_no_padding.py", "prepare.py", extra=["tinytok.py"])
case("mlm_collator_no_mask_token", "mlm_collator_no_mask_token.py", "pretrain_mlm.py", extra=["tinytok.py"])
case("position_embeddings_overflow", "position_embeddings_overflow.py", "classify.py", extra=["tinytok.py"])
case("lm_loss_logits_not_flattened", "lm_loss_logits_not_flattened.py", "train_lm.py", extra=["tinytok.py"])
case("trainer_early_stopping_no_best", "trainer_early_stopping_no_best.py", "train_cls.py", timeout=120, extra=["tinytok.py"])
case("trainer_callback_keyerror", "trainer_callback_keyerror.py", "train_cls.py", timeout=120, extra=["tinytok.py"])
case("peft_target_modules_absent", "peft_target_modules_absent.py", "lora_train.py")
# --- environment
case("env_stdlib_tokenize_shadow", "env_train_small.py", setup="shadow")
case("env_ulimit_v_import", "env_train_small.py", hidden="ulimit -v 300000; ")
case("env_ulimit_f_save", "env_save_big.py", hidden="ulimit -f 2048; ")
case("env_pythonhashseed_invalid", "env_train_small.py", env={"PYTHONHASHSEED": "42.0"})
case("env_pythonpath_old_utils", "env_pythonpath_utils.py", "scripts/evaluate.py", setup="pythonpath",
     env={"PYTHONPATH": W + "/shared-old/ml-common"})
# --- words (logs with no error line)
case("words_module_bypass", "words_module_bypass.py", launch=TR)
case("words_accuracy_rank0_shard", "words_accuracy_rank0_shard.py", "evaluate.py", TR)
case("words_optimizer_stale_model", "words_optimizer_stale_model.py", setup="pretrained")
case("words_iterable_duplicates", "words_iterable_duplicates.py", setup="ids")
case("words_grad_accum", "words_grad_accum.py")
# --- healthy
case("healthy_new_head_weights", "healthy_new_head_weights.py", "finetune.py", timeout=120, extra=["tinytok.py"])
case("healthy_strict_false_new_head", "healthy_strict_false_new_head.py", "finetune.py")
case("healthy_skip_corrupt_sample", "healthy_skip_corrupt_sample.py", setup="records")
case("healthy_softmax_implicit_dim", "healthy_softmax_implicit_dim.py", launch=TR)
case("healthy_coordinated_early_stop", "healthy_coordinated_early_stop.py", launch=TR)

def setup(kind, d):
    os.makedirs(d + "/data", exist_ok=True)
    if kind == "jsonl":
        with open(d + "/data/train.jsonl", "w") as f:
            for i in range(80):
                line = json.dumps({"x": [i * 0.1, 1.0, -1.0], "label": i % 2})
                if i == 53: line = line[:17]      # a record cut short by an interrupted upload
                f.write(line + "\n")
    elif kind == "fullmodel":
        subprocess.run([VENV + "/python", S + "/save_full_model.py"], cwd=d, check=True, capture_output=True)
    elif kind == "shadow":
        shutil.copy(W + "/t_shadow/tokenize.py", d + "/tokenize.py")
    elif kind == "pythonpath":
        old = W + "/shared-old/ml-common/utils"; os.makedirs(old, exist_ok=True)
        open(old + "/__init__.py", "w").write("")
        open(old + "/metrics.py", "w").write("import torch\n\ndef accuracy(preds, labels):\n    return (preds == labels).float().mean().item()\n")
        os.makedirs(d + "/utils", exist_ok=True); open(d + "/utils/__init__.py", "w").write("")
        open(d + "/utils/metrics.py", "w").write("import torch\n\ndef accuracy(preds, labels):\n    return (preds == labels).float().mean().item()\n\n"
            "def macro_f1(preds, labels):\n    f1s = []\n    for c in labels.unique():\n        tp = ((preds == c) & (labels == c)).sum().item()\n"
            "        p = (preds == c).sum().item(); t = (labels == c).sum().item()\n        f1s.append(2 * tp / max(p + t, 1))\n    return sum(f1s) / len(f1s)\n")
    elif kind == "pretrained":
        subprocess.run([VENV + "/python", S + "/make_pretrained_full.py"], cwd=d, check=True, capture_output=True)
    elif kind == "ids":
        with open(d + "/data/ids.csv", "w") as f:
            for i in range(40): f.write(f"{1000 + i},text {i}\n")
    elif kind == "reviews":
        os.makedirs(d + "/data/reviews", exist_ok=True)
        for i in range(12):
            txt = "label,text\n%d,great value and fast delivery\n%d,would buy again\n" % (i % 2, i % 2)
            enc = "utf-8"
            if i == 6: txt = "label,text\n1,tr\u00e8s bon caf\u00e9, livraison rapide\n0,m\u00e9diocre, \u00e0 \u00e9viter\n"; enc = "latin-1"   # exported from a Windows tool
            with open(d + "/data/reviews/part-%03d.csv" % i, "w", encoding=enc) as f: f.write(txt)
    elif kind == "records":
        with open(d + "/data/records.jsonl", "w") as f:
            for i in range(12):
                f.write('{"x": [1.0, 2.0], "y": 1}\n' if i != 7 else '{"x": [1.0, 2.0], "y": \n')

def run(name):
    c = C[name]; d = W + "/" + name
    shutil.rmtree(d, ignore_errors=True); os.makedirs(d)
    dst = d + "/" + c["fname"]; os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copy(S + "/" + c["script"], dst)
    for e in c["extra"]: shutil.copy(S + "/" + e, d + "/" + e)
    if c["setup"]: setup(c["setup"], d)
    shown = "%s %s" % (c["launch"], c["fname"])
    env = dict(os.environ); env["PATH"] = VENV + ":" + env["PATH"]; env.pop("PYTHONHASHSEED", None); env.update(c["env"])
    env["HOME"] = W + "/home"; env["HF_HUB_OFFLINE"] = "1"; env["TERM"] = "dumb"
    os.makedirs(env["HOME"], exist_ok=True)
    t0 = time.time()
    try:
        p = subprocess.run(["bash", "-c", c["hidden"] + "exec timeout -s INT %d %s" % (c["timeout"], shown)], cwd=d, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=c["timeout"] + 30)
        out, rc = p.stdout.decode("utf-8", "replace"), p.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = (e.stdout or b"").decode("utf-8", "replace"), "harness-timeout"
    text = "$ " + shown + "\n" + out
    if rc == 124 or rc == 130: text += "^C\n"
    open(L + "/" + name + ".log", "w").write(text)
    m = json.load(open(L + "/manifest.json")) if os.path.exists(L + "/manifest.json") else {}
    m[name] = dict(command=shown, hidden_shell_prefix=c["hidden"], env={k: v for k, v in c["env"].items()}, cwd=d,
                   exit_code=rc, seconds=round(time.time() - t0, 1), timeout_s=c["timeout"], script=c["script"],
                   when=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    json.dump(m, open(L + "/manifest.json", "w"), indent=1, sort_keys=True)
    print("==", name, "rc", rc, "%.1fs" % (time.time() - t0), flush=True)

if __name__ == "__main__":
    names = sys.argv[1:] or list(C)
    for n in names: run(n)

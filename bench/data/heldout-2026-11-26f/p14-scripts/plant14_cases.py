"""Cases of held-out set P14 (see plant14.py)."""
import json, os, shutil, subprocess
H = "/tmp/heldout-p14"; S = H + "/scripts"; W = H + "/work"; VENV = H + "/venv/bin"
TR = "torchrun --standalone --nproc_per_node=2"

def register(case):
    # --- usercode, single process
    case("iterable_shuffle_true", "iterable_shuffle_true.py", "train_ctr.py")
    case("iterable_worker_info_none", "iterable_worker_info_none.py", "train_stream.py")
    case("collate_object_dtype", "collate_object_dtype.py", "train_churn.py", setup="churn")
    case("signal_in_thread", "signal_in_thread.py", "train.py")
    case("ckpt_numpy_rng_weights_only", "ckpt_numpy_rng_weights_only.py", "train.py", setup="rngckpt")
    case("autograd_wrong_num_grads", "autograd_wrong_num_grads.py", "train_clamp.py")
    case("inplace_sigmoid_modified", "inplace_sigmoid_modified.py", "gated.py")
    case("bf16_model_fp32_input", "bf16_model_fp32_input.py", "train_bf16.py")
    case("set_start_method_twice", "set_start_method_twice.py", "train.py")
    case("labels_pad_minus_one", "labels_pad_minus_one.py", "train_tagger.py")
    case("compile_fullgraph_branch", "compile_fullgraph_branch.py", "train_compiled.py", timeout=120)
    case("cpp_ext_compile_error", "cpp_ext_compile_error.py", "bench_rowscale.py", timeout=240)
    # --- usercode, torchrun gloo 2 ranks
    case("dcp_save_rank0_only", "dcp_save_rank0_only.py", "train.py", TR, timeout=90)
    case("flock_every_rank", "flock_every_rank.py", "train.py", TR, timeout=90)
    case("ckpt_load_without_barrier", "ckpt_load_without_barrier.py", "train.py", TR, timeout=90)
    case("all_gather_object_short_list", "all_gather_object_short_list.py", "evaluate.py", TR, timeout=90)
    case("ddp_unused_aux_head", "ddp_unused_aux_head.py", "train_multitask.py", TR, timeout=90)
    # --- Lightning / accelerate / torchmetrics
    case("lit_ckpt_monitor_missing", "lit_ckpt_monitor_missing.py", "train.py", timeout=120, extra=["lit_common.py"])
    case("lit_log_vector", "lit_log_vector.py", "train.py", timeout=120, extra=["lit_common.py"])
    case("lit_step_dict_no_loss", "lit_step_dict_no_loss.py", "train.py", timeout=120, extra=["lit_common.py"])
    case("lit_prepare_data_state", "lit_prepare_data_state.py", "train.py", timeout=150)
    case("healthy_lit_ddp_sync_dist", "healthy_lit_ddp_sync_dist.py", "train.py", timeout=150, extra=["lit_common.py"])
    case("acc_prepare_order", "acc_prepare_order.py", "train.py", timeout=90)
    case("acc_backward_nonscalar", "acc_backward_nonscalar.py", "train_weighted.py", timeout=90)
    case("acc_load_state_path", "acc_load_state_path.py", "train.py", timeout=90, setup="accstate", env={"RESUME_FROM": "outputs/checkpoint_1"})
    case("tm_num_classes_missing", "tm_num_classes_missing.py", "evaluate.py", timeout=90)
    case("lit_log_on_step_epoch_end", "lit_log_on_step_epoch_end.py", "train.py", timeout=120, extra=["lit_common.py"])
    case("lit_plateau_no_monitor", "lit_plateau_no_monitor.py", "train.py", timeout=120, extra=["lit_common.py"])
    case("healthy_lit_ckpt_dir_exists", "healthy_lit_ckpt_dir_exists.py", "train.py", timeout=120, extra=["lit_common.py"], setup="litckpt")
    case("collate_none_sample", "collate_none_sample.py", "train_audio.py", setup="specs")
    case("random_split_lengths", "random_split_lengths.py", "train.py", setup="features")
    case("daemonic_pool_in_worker", "daemonic_pool_in_worker.py", "train_views.py", timeout=90)
    case("autograd_save_nontensor", "autograd_save_nontensor.py", "sparse_coding.py")
    case("collate_missing_key", "collate_missing_key.py", "train_events.py", setup="events")
    case("dist_all_reduce_float", "dist_all_reduce_float.py", "train.py", TR, timeout=90)
    # --- transformers Trainer / datasets
    case("hf_best_model_strategy", "hf_best_model_strategy.py", "train_cls.py", timeout=120)
    case("hf_remove_unused_columns", "hf_remove_unused_columns.py", "train_tabular.py", timeout=120)
    case("hf_label_column_target", "hf_label_column_target.py", "train_intent.py", timeout=150)
    case("ds_group_texts_keep_columns", "ds_group_texts_keep_columns.py", "prepare_lm.py", timeout=90)
    case("ds_remove_columns_typo", "ds_remove_columns_typo.py", "prepare_pairs.py", timeout=90)
    # --- words (no error line; the user's description is in the label set)
    case("words_acc_gather_dupes", "words_acc_gather_dupes.py", "evaluate.py", TR, timeout=120)
    case("words_worker_rng_copy", "words_worker_rng_copy.py", "check_aug.py")
    case("words_zero_grad_order", "words_zero_grad_order.py", "train_reg.py")
    case("words_seed_after_init", "words_seed_after_init.py", "train.py", launch="python train.py; python")
    case("words_total_loss_graph", "words_total_loss_graph.py", "train_ae.py", timeout=120)
    # --- healthy
    case("healthy_pin_memory_cpu", "healthy_pin_memory_cpu.py", "train_len.py", timeout=90)
    case("healthy_ddp_find_unused_true", "healthy_ddp_find_unused_true.py", "train.py", TR, timeout=90)
    case("healthy_numpy_not_writable", "healthy_numpy_not_writable.py", "train_packed.py")
    case("healthy_hf_trainer_cpu", "healthy_hf_trainer_cpu.py", "train_cls.py", timeout=180)

def setup(kind, d):
    os.makedirs(d + "/data", exist_ok=True)
    if kind == "churn":
        import random
        r = random.Random(3)
        with open(d + "/data/churn.csv", "w") as f:
            f.write("customer_id,tenure,monthly,support_calls,churned\n")
            for i in range(300):
                ch = str(r.randint(0, 1)) if i != 211 else "unknown"   # a row the CRM export left unlabeled
                f.write(f"C{10000+i},{r.randint(1,72)},{r.uniform(20,120):.2f},{r.randint(0,9)},{ch}\n")
    elif kind == "litckpt":
        subprocess.run([VENV + "/python", "train.py"], cwd=d, check=True, capture_output=True)
    elif kind == "specs":
        import torch, random
        os.makedirs(d + "/data/specs", exist_ok=True); r = random.Random(5)
        with open(d + "/data/index.jsonl", "w") as f:
            for i in range(40):
                name = "utt%04d.pt" % i
                if i != 13: torch.save(torch.randn(64, 10), d + "/data/specs/" + name)   # utt0013 never got converted
                f.write(json.dumps({"file": name, "label": r.randint(0, 3)}) + "\n")
    elif kind == "features":
        import torch
        torch.save({"x": torch.randn(997, 12), "y": torch.randint(0, 2, (997,))}, d + "/data/features.pt")
    elif kind == "events":
        import random
        r = random.Random(2)
        with open(d + "/data/events.jsonl", "w") as f:
            for i in range(96):
                row = {"features": [round(r.uniform(-1, 1), 3) for _ in range(6)], "label": r.randint(0, 1)}
                if i % 7 != 3: row["weight"] = round(r.uniform(0.5, 2.0), 2)   # older export has no weight field
                f.write(json.dumps(row) + "\n")
    elif kind == "accstate":
        subprocess.run([VENV + "/python", "train.py"], cwd=d, check=True, capture_output=True, env={k: v for k, v in os.environ.items() if k != "RESUME_FROM"})
    elif kind == "rngckpt":
        subprocess.run([VENV + "/python", "train.py"], cwd=d, check=True, capture_output=True)

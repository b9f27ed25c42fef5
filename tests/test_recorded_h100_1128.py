"""Real torch operation errors recorded on one H100 (fixtures/recorded/h100-2026-11-28/, bench/capture_ops_h100.py
through the device machine): explain names the family and the concrete fix of each from what the error itself
prints (the argument and device, the sizes, the class count), and nothing in the working run."""

import json
import os

import pytest

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "recorded",
                    "h100-2026-11-28")


def explain(cli, name):
    """`gpudoctor explain --json FILE` (the CLI in this process: what is tested is the answer, not a process)."""
    rc, out, err = cli("explain", "--json", os.path.join(HERE, name))
    assert rc == 0, err  # explain's 0: an answer (docs/explain.md, exit codes)
    return json.loads(out)


def first_fix(d):
    root = next(f for f in d["findings"] if f.get("role") == "root")
    return " ".join(root["causes"][0]["fix"])


@pytest.mark.parametrize("name, families, wants", [
    # ATen's device check names the argument: the target, the loss's weight, mat1 (the batch)
    ("ce_target_on_cpu.log", ["usercode.tensors_on_two_devices"], ["labels.to("]),
    ("ce_class_weights_on_cpu.log", ["usercode.tensors_on_two_devices"], ["criterion", ".to(device)"]),
    ("model_on_gpu_input_on_cpu.log", ["usercode.tensors_on_two_devices"], ["x.to(device)"]),
    # sizes printed by the error are the sizes of the fix
    ("linear_in_features_mismatch.log", ["usercode.shape_mismatch"], ["nn.Linear(3072, 10)"]),
    ("conv_grayscale_into_rgb.log", ["usercode.shape_mismatch"], ["in_channels=1"]),
    ("view_invalid_size.log", ["usercode.shape_mismatch"], ["-1"]),
    ("index_equals_size.log", ["code.exception", "usercode.index_out_of_range"], ["0..9"]),
    # (session 30) F.one_hot's C++ check raised from the user's line is torch's refusal of that call (torch.usage),
    # where it was read as the user's own exception
    ("one_hot_too_few_classes.log", ["code.exception", "usercode.index_out_of_range", "torch.usage"], ["num_classes"]),
    # device-side asserts with CUDA_LAUNCH_BLOCKING=1: the kernel's assert names the loss / the embedding
    ("nll_target_out_of_range_blocking.log", ["cuda.device_assert"], ["labels.max()"]),
    ("embedding_index_past_vocab_blocking.log", ["cuda.device_assert"], ["num_embeddings"]),
])
def test_explain_names_the_fix_of_a_real_operation_error(cli, name, families, wants):
    d = explain(cli, name)
    assert d["verdict"] in ("root_cause", "likely_cause")
    assert d["root"] in families, d["root"]
    fix = first_fix(d)
    for want in wants:
        assert want in fix, (want, fix)


def test_the_working_run_has_no_root(cli):
    d = explain(cli, "healthy_small_training_loop.log")
    assert d["verdict"] == "no_error" and d["root"] is None


def test_the_recording_is_what_it_says():
    meta = json.load(open(os.path.join(HERE, "meta.json")))
    assert "NVIDIA H100 80GB HBM3" in meta["nvidia_smi_L"]
    assert meta["torch"].startswith("2.11.0+cu130")
    assert meta["runs"]["healthy_small_training_loop"]["rc"] == 0
    assert all(r["rc"] == 1 for n, r in meta["runs"].items() if n != "healthy_small_training_loop")

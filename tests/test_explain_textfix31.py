"""The value a message refused, its domain and the closest value in it (explain/valuedomain.py, explain-textfix31,
issue 18): pydantic's ValidationError (templates generated from pydantic-core: tools/gen_pydantic_errors.py), a
range stated in words, and the environment variables torch parses itself. Recordings: fixtures/recorded/
explain-textfix31/ (torch 2.13.0+cpu, pydantic 2.14.4 / pydantic-core 2.50.5, omegaconf 2.4.0, CPython 3.11.7,
made by the commands in its README.md on this VM)."""

import json
import os
import subprocess
import sys

import pytest

from gpudoctor.explain import explain_file, valuedomain
from gpudoctor.explain.knowledge import open_generated

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REC = os.path.join(REPO, "fixtures", "recorded", "explain-textfix31")


def _answer(name):
    return explain_file(os.path.join(REC, name))


def _first_fixes(name):
    r = _answer(name)
    root = r["findings"][0]
    return root, root["causes"][0]["fix"]


def test_pydantic_literal_gets_the_closest_listed_value_and_the_bound_gets_its_unsigned_value():
    root, fixes = _first_fixes("pydantic_literal_range.txt")
    assert root["id"] == "code.library_error"  # (the root and its family do not change)
    assert fixes[0].startswith("precision: 'bf16' (the config key of Cfg; the message refuses 'bf61'")
    assert fixes[1].startswith("optim.lr (the config key of Cfg): a value > 0 (the message refuses -0.001")
    assert "0.001 (the value without its sign)" in fixes[1]


def test_onecycle_pct_start_range_names_the_setting_value_and_bound():
    root, fixes = _first_fixes("torch_onecycle_pct_start.txt")
    assert fixes[0] == ("pct_start: a value >= 0 and <= 1 (the message refuses 1.5; the closest value it accepts: 1 "
                        "(the bound))")


def test_dropout_range_reads_the_message_words_as_the_setting():
    _root, fixes = _first_fixes("torch_dropout_range.txt")
    assert fixes[0].startswith("dropout probability: a value >= 0 and <= 1 (the message refuses 1.5")
    assert any("nn.Dropout(p=0.1)" in x for x in fixes[1:])  # the entry's own fix stays


@pytest.mark.parametrize("name,want", [
    ("aten_cpu_capability.txt", "export ATEN_CPU_CAPABILITY=avx512 "),
    ("torch_cpp_log_level.txt", "export TORCH_CPP_LOG_LEVEL=INFO "),
    ("torch_show_cpp_stacktraces.txt", "export TORCH_SHOW_CPP_STACKTRACES=1 "),
])
def test_torch_env_warnings_get_the_variable_and_an_accepted_value(name, want):
    r = _answer(name)
    notes = [n for n in r["context"] if n["id"] == "torch.env_value_ignored"]
    assert notes and notes[0]["fix"].startswith(want), r["context"]


def test_show_cpp_stacktraces_warning_is_a_note_beside_the_real_root():
    r = _answer("torch_show_cpp_stacktraces.txt")
    assert r["findings"][0]["id"] == "code.exception"  # the IndexError stays the root
    assert "'yes' means 1" in [n for n in r["context"] if n["id"] == "torch.env_value_ignored"][0]["fix"]


def test_gloo_flag_refusal_names_the_variable_in_place_of_the_placeholder():
    _root, fixes = _first_fixes("torch_gloo_lazy_init_bool.txt")
    assert fixes[0] == "export TORCH_GLOO_LAZY_INIT=1 (or 0), or unset it"
    assert not any("<NAME>" in x for x in fixes)


def test_torch_nccl_int_variable_keeps_the_entrys_exact_fix():
    # recorded on the H200 (torch 2.11.0+cu130, NCCL 2.28.9): TORCH_NCCL_ASYNC_ERROR_HANDLING=maybe; the entry's fix
    # (an integer 0-3) stays first, no flag vocabulary is put before it
    r = explain_file(os.path.join(REC, "h200", "torch_nccl_async_maybe.log"))
    fixes = r["findings"][0]["causes"][0]["fix"]
    assert fixes[0].startswith("export TORCH_NCCL_ASYNC_ERROR_HANDLING=1 (an integer")
    assert not any("y, yes, 1, t, true" in x for x in fixes)


def test_env_line_reads_each_torch_site():
    assert valuedomain.env_line("RuntimeError: Invalid value for environment variable: TORCH_X_FLAG").startswith(
        "export TORCH_X_FLAG=1 (or 0; or unset it)")
    line = valuedomain.env_line("UserWarning: Ignoring invalid value for boolean flag TORCH_FOO: offvalid values are "
                                "0 or 1.")
    assert line.startswith("export TORCH_FOO=0 ") and "'off' means 0" in line
    assert valuedomain.env_line("ignoring invalid value for ATEN_CPU_CAPABILITY: sse4") .startswith(
        "export ATEN_CPU_CAPABILITY=default ")
    assert valuedomain.env_line("ignoring invalid value for SOME_OTHER_VAR: x") is None


def test_argparse_and_omegaconf_and_compile_mode_keep_the_earlier_readers_edit():
    # argedit.py and choices.py answer these already; valuedomain adds nothing in front of them
    assert _first_fixes("argparse_invalid_choice.txt")[1][0] == "--precision bf16 (not --precision bf61)"
    assert _first_fixes("omegaconf_enum.txt")[1][1].startswith("use 'BF16' where")  # (after valuedomain's key=value)
    assert _first_fixes("torch_compile_mode.txt")[1][0].startswith("mode='max-autotune'")


@pytest.mark.parametrize("msg,want", [
    ("ValueError: alpha must be in [0, 1), got 1", "alpha: a value >= 0 and < 1 (the message refuses 1)"),
    ("ValueError: ratio must be in [0, 1], got 15", "0.15 (15 read as a percent), or 1 (the bound)"),
    ("ValueError: num_workers must be >= 0, got -2", "2 (the value without its sign), or 0"),
    ("ValueError: world_size must be a positive integer, got 0", "world_size: a positive integer >= 1 (the message refuses 0; the closest value it accepts: 1)"),
    ("ValueError: temperature should be > 0 but got -0.5", "0.5 (the value without its sign)"),
])
def test_range_shapes(msg, want):
    line = valuedomain.range_line(msg)
    assert line and want in line, line


@pytest.mark.parametrize("msg", [
    "dropout probability has to be between 0 and 1, but got 0.5",  # inside: nothing to edit
    "ValueError: expected a tensor between layers",
    "alpha must be in [0, 1], got $(touch x)",  # not a number: nothing read
])
def test_range_reads_nothing_from_a_value_inside_or_not_a_number(msg):
    assert valuedomain.range_line(msg) is None


def test_pydantic_other_types_from_the_generated_templates():
    more = "\n".join([
        "block_size",
        "Input should be a multiple of 16 [type=multiple_of, input_value=100, input_type=int]",
        "seed",
        "Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='42a', "
        "input_type=str]",
        "model",
        "Field required [type=missing, input_value={'x': 1}, input_type=dict]",
        "dtype",
        "Input should be 'auto', 'half' or 'bfloat16' [type=literal_error, input_value='$(touch M)', input_type=str]",
    ])
    lines = valuedomain.pydantic_lines(more, "EngineArgs")
    assert lines[0] == ("block_size (the config key of EngineArgs): a multiple of 16 (the message refuses 100; the "
                        "closest: 96 or 112)")
    assert lines[1].startswith("seed (the config key of EngineArgs): an integer (the message refuses '42a'")
    assert lines[2].startswith("model (the config key of EngineArgs): set it")
    assert len(lines) == 3  # an input that is no plain name never reaches a fix line
    assert not any("touch" in x for x in lines)


def test_generator_regenerates_the_committed_table_from_its_slice(tmp_path):
    out = tmp_path / "pydantic_errors.json"
    subprocess.run([sys.executable, os.path.join(REPO, "tools", "gen_pydantic_errors.py"), "--from",
                    os.path.join(REPO, "tools", "data", "pydantic_errors_slice.json"), "-o", str(out)], check=True)
    with open_generated("pydantic_errors") as f:
        committed = json.load(f)
    assert json.loads(out.read_text()) == committed
    assert committed["types"]["literal_error"]["template"] == "Input should be {expected}"
    assert committed["header"]["version"].startswith("pydantic-core ")


def test_nccl_param_overflow_note_names_the_value_and_nccls_default():
    # recorded on the H200 (NCCL 2.28.9): NCCL_MIN_NCHANNELS=99999999999999999999 ('Invalid value ... using default -2')
    r = explain_file(os.path.join(REC, "h200", "nccl_nchannels_overflow.log"))
    notes = [n for n in r["context"] if "Invalid value" in (n.get("text") or "")]
    assert notes and notes[0]["fix"].startswith("unset NCCL_MIN_NCHANNELS, or give it a decimal integer")
    assert "default -2, the value NCCL chooses itself" in notes[0]["fix"]
    assert r["verdict"] == "no_error"  # the run went on: a note, never a root


def test_pydantic_dtype_abbreviation_and_multiple_of():
    root, fixes = _first_fixes("pydantic_dtype_multiple.txt")
    assert fixes[0].startswith("dtype: 'bfloat16' (the config key of ModelConfig; the message refuses 'bf16'")
    assert fixes[1] == ("block_size (the config key of ModelConfig): a multiple of 16 (the message refuses 100; the "
                        "closest: 96 or 112)")


def test_argparse_dtype_abbreviations_stay_argedits():
    assert _first_fixes("argparse_dtype_bf16.txt")[1][0] == "--dtype bfloat16 (not --dtype bf16)"
    assert _first_fixes("argparse_mixed_precision_bfloat16.txt")[1][0] == \
        "--mixed_precision bf16 (not --mixed_precision bfloat16)"


@pytest.mark.parametrize("name,want", [
    ("omegaconf_enum.txt", "trainer.precision=BF16 (the config key; OmegaConf's enum takes BF16, FP16, not 'BF61': "
                           "'BF16' is the one closest to it)"),
    ("omegaconf_int.txt", "trainer.max_epochs=<integer> (the config key; OmegaConf's Integer node takes an integer "
                          "and could not convert 'ten')"),
    # an override 1e3 is YAML 1.1's float 1000.0: the integer it means
    ("omegaconf_int_sci.txt", "trainer.max_epochs=1000 (the config key; OmegaConf's Integer node takes an integer and "
                              "could not convert '1000.0')"),
    ("omegaconf_bool.txt", "trainer.fp16=true (or false) (the config key; OmegaConf's bool takes true/false, yes/no, "
                           "on/off, y/n or an integer, not 'maybe')"),
])
def test_omegaconf_node_refusals_become_the_key_override(name, want):
    root, fixes = _first_fixes(name)
    assert root["id"] == "omegaconf.structured"
    assert fixes[0] == want


def test_omegaconf_line_needs_the_full_key_and_a_plain_value():
    assert valuedomain.omegaconf_line("Value 'x' is not a valid bool (type str)", "reference_type=T") is None
    line = valuedomain.omegaconf_line("Value '$(touch M)' is not a valid bool (type str)", "    full_key: a.b")
    assert line.startswith("a.b=true") and "touch" not in line


def test_torch_logs_unknown_name_gets_the_registrys_closest():
    root, fixes = _first_fixes("torch_logs_unknown.txt")
    assert root["id"] == "torch.usage"
    assert fixes[0].startswith("export TORCH_LOGS=recompiles (torch's logging registry accepts 'all' and 69 log")


def test_torch_logs_keeps_verbosity_marks_and_module_names():
    line = valuedomain.torch_logs_line("Invalid log settings: +dynamo,graph_break,torch._inductor.foo,-inductr, must "
                                       "be a comma separated list of fully")
    assert line.startswith("export TORCH_LOGS=+dynamo,graph_breaks,torch._inductor.foo,-inductor ")
    assert valuedomain.torch_logs_line("Invalid log settings: $(touch M), must be a comma separated list") is None


def test_torch_logs_table_regenerates_from_its_slice_and_matches_the_recorded_list(tmp_path):
    out = tmp_path / "torch_logs.json"
    subprocess.run([sys.executable, os.path.join(REPO, "tools", "gen_torch_logs.py"), "--registrations",
                    os.path.join(REPO, "tools", "data", "torch_logs_registrations_slice.py.txt"), "--version", "2.13.0",
                    "--date", "2026-11-29", "-o", str(out)], check=True)
    with open_generated("torch_logs") as f:
        committed = json.load(f)
    assert json.loads(out.read_text()) == committed
    # the names torch 2.13 printed as "Valid settings" in the recording are exactly the generated ones
    with open(os.path.join(REC, "torch_logs_unknown.txt")) as f:
        listed = f.read().split("Valid settings:\n")[1].split("\n")[0]
    assert {x.strip() for x in listed.split(",")} == {"all", *committed["logs"], *committed["artifacts"]}

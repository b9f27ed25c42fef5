"""The configuration files a training job reads (config18, issue 18 item 1): the sites tools/gen_config_messages.py
reads from PyYAML 6.0.4 (and the libyaml linked into its wheel), OmegaConf 2.4.0's YAML loader, CPython 3.11.7's json decoder (and its _json accelerator) and
tomllib, and the hyperparameter guards of torch 2.14.1's torch.optim and transformers 5.24.0, regenerate from the
recorded slice (tools/data/config_messages_slice.txt); real runs made here (fixtures/explain/config18/make_runs.py: the
real parsers on broken files, a real torch.optim / lr_scheduler call given a YAML-loaded value) get their entry and
the fix of the message or guard; the same TypeError in the user's own code is not read as a guard."""

import os
import sys

import pytest

from gpudoctor.explain import cfgvalue, explain_text, pytb

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_config_messages  # noqa: E402
import knowgen  # noqa: E402

RUNS = os.path.join(REPO, "fixtures", "explain", "config18")


def test_the_slice_regenerates_the_committed_table(tmp_path):
    got = knowgen.regenerated(gen_config_messages.main, os.path.join(REPO, "tools", "data",
                                                                     "config_messages_slice.txt"), tmp_path / "o.json")
    want = knowgen.committed("config_messages")
    assert got["sites"] == want["sites"] and got["guards"] == want["guards"] and got["uses"] == want["uses"]
    assert sum(1 for s in got["sites"] if s.get("family")) > 80
    assert {"torch/optim/adam.py", "torch/optim/sgd.py", "torch/optim/lr_scheduler.py",
            "transformers/training_args.py", "timm/optim/adamw.py"} <= {g["where"].rsplit(":", 1)[0] for g in got["guards"]}
    assert any(u["names"] == ["self.eta_min"] for u in got["uses"])


def test_contexts_and_vague_texts_get_no_family():
    by_text = {s["text"]: s for s in knowgen.committed("config_messages")["sites"]}
    # MarkedYAMLError's context names no problem: the problem line under it is the one matched
    assert by_text["while scanning a simple key"]["family"] is None
    assert by_text["could not find expected ':'"]["family"] == "config.yaml_syntax"
    assert by_text["second occurrence"]["family"] is None
    # json's messages carry JSONDecodeError's position suffix; the C accelerator's own wording is read too
    assert by_text["Expecting value: line %d column %d (char %d)"]["family"] == "config.json_syntax"
    assert by_text["Invalid control character at: line %d column %d (char %d)"]["fix"]
    assert by_text["Invalid value (at %s)"]["family"] == "config.toml_syntax"


@pytest.mark.parametrize("name, entry, fix", [
    ("yaml_tab", "config.yaml_syntax", "never tabs"),
    ("yaml_no_space", "config.yaml_syntax", "a space after the colon"),
    ("yaml_colon_value", "config.yaml_syntax", "quote the value"),
    ("yaml_indent", "config.yaml_syntax", "fix the indentation"),
    ("yaml_dedent", "config.yaml_syntax", "same indentation"),
    ("yaml_unclosed_quote", "config.yaml_syntax", "close the quote"),
    ("yaml_cloader_dedent", "config.yaml_syntax", "same indentation"),  # libyaml's wording (CSafeLoader)
    ("yaml_cloader_tab", "config.yaml_syntax", "never tabs"),
    ("yaml_winpath", "config.yaml_syntax", "single quotes"),
    ("yaml_python_tuple", "config.yaml_syntax", "FullLoader"),
    ("yaml_two_docs", "config.yaml_syntax", "safe_load_all"),
    ("omegaconf_duplicate_key", "config.yaml_syntax", "repeated key"),
    ("json_trailing_comma", "config.json_syntax", "drop the comma"),
    ("json_single_quotes", "config.json_syntax", "double quotes"),
    ("json_empty", "config.json_syntax", "check what was read"),
    ("json_lines", "config.json_syntax", "line by line"),
    ("toml_unquoted", "config.toml_syntax", "quote strings"),
    ("optim_lr_string", "config.yaml_string_number", "lr=float(cfg['lr'])"),
    ("sgd_lr_string", "config.yaml_string_number", "lr=float(cfg['optim']['lr'])"),
    ("warm_restarts_t0_string", "config.yaml_string_number", "T_0=int(float(cfg['T_0']))"),
    # arithmetic on a value the scheduler's __init__ kept (self.eta_min), not a guard
    ("cosine_eta_min_string", "config.yaml_string_number", "eta_min=float("),
])
def test_runs_here_get_their_entry_and_fix(name, entry, fix):
    with open(os.path.join(RUNS, name + ".txt"), encoding="utf-8") as f:
        r = explain_text(f.read())
    assert r["verdict"] == "root_cause"
    root = next(x for x in r["findings"] if x["id"] == r["root"])
    assert root["id"] == entry
    assert fix in " ".join(x for c in root["causes"][:1] for x in c["fix"]), root["causes"][0]


def test_the_same_type_error_in_user_code_is_no_guard():
    with open(os.path.join(RUNS, "user_compare_string.txt"), encoding="utf-8") as f:
        text = f.read()
    r = explain_text(text)
    assert r["root"] != "config.yaml_string_number"
    assert cfgvalue.guard_of(pytb.parse(text)[-1]) is None


def test_a_guard_needs_a_str_against_a_number_at_the_guard_line():
    tb = pytb.parse(open(os.path.join(RUNS, "optim_lr_string.txt"), encoding="utf-8").read())[-1]
    assert cfgvalue.guard_of(tb)["names"] == ["lr"]
    assert cfgvalue.guard_of(dict(tb, msg="'<=' not supported between instances of 'float' and 'NoneType'")) is None
    assert cfgvalue.guard_of(dict(tb, exc="ValueError")) is None
    assert cfgvalue.guard_of(dict(tb, src=tb["src"][:-1] + [("if lr is None:", None)])) is None


def test_a_record_the_program_skipped_is_no_failure():
    # a JSON Lines reader that logs a corrupt record with its traceback and goes on: healthy, whatever json printed
    with open(os.path.join(RUNS, "json_record_skipped.txt"), encoding="utf-8") as f:
        r = explain_text(f.read())
    assert r["verdict"] == "no_error" and not any(x["id"].startswith("config.") and x.get("role") == "root"
                                                  for x in r["findings"])

"""removed17's apihistory.replacement and _row_says one case at a time (docs/mutation.md "Round 13"): the log's own
deprecation warning (its 'renamed' form, a name at the line's start, the first mention, the 'use X' after the name
only, a replacement that is the name itself or a pronoun, the '.' that ends a sentence, the 2,000 characters read,
a line without a deprecation before it), a kwarg's warning that names only the flag, the table row (no package, no
'replaced', no row, an empty replacement, the key's own flag) and the answer's words. Warnings in the libraries'
wording (transformers' 'is deprecated ... Use `eval_strategy` instead', vLLM's 'Deprecated, use --x')."""

from gpudoctor.explain import apihistory

REL = ["4.40.0", "4.41.0", "4.42.0", "4.43.0", "4.44.0", "4.45.0", "4.46.0"]


def _tb(replaced=None, pkg="transformers"):
    d = {"releases": REL}
    if replaced is not None:
        d["replaced"] = replaced
    return {"packages": {pkg: d}}


def _log(lines, name, kind="kwarg"):
    return apihistory.replacement(lines, _tb({}), "transformers", name, kind)[0]


OWN = "the log's own deprecation warning"


def test_the_logs_renamed_warning_without_the_word_deprecated():
    got = apihistory.replacement(["`evaluation_strategy` was renamed to `eval_strategy`"], _tb({}), "transformers",
                                 "evaluation_strategy", "kwarg")
    assert got == ("eval_strategy", OWN, None)


def test_the_warning_on_a_later_line_than_an_unrelated_one():
    assert _log(["Loading checkpoint shards: 100%", "`evaluation_strategy` is deprecated, use `eval_strategy`"],
                "evaluation_strategy") == "eval_strategy"


def test_a_name_at_the_start_of_the_line_and_its_first_mention():
    assert _log(["evaluation_strategy is deprecated, use eval_strategy"], "evaluation_strategy") == "eval_strategy"
    # the first mention is followed by the replacement; the later one is not
    assert _log(["`fp16_backend` is deprecated, use `half_precision_backend` instead of `fp16_backend`."],
                "fp16_backend") == "half_precision_backend"


def test_only_a_use_after_the_name_counts():
    # 'use' before the name is another sentence's; without a replacement after it the line names none (and no crash)
    assert _log(["We use caching. prepare_model_for_int8_training is deprecated."],
                "prepare_model_for_int8_training") == ""


def test_a_replacement_that_is_the_name_itself_or_a_pronoun_is_none():
    assert _log(["`warmup` is deprecated; using warmup as warmup_steps for now"], "warmup") == ""
    assert _log(["`dispatch_batches` is deprecated and we use it internally"], "dispatch_batches") == ""
    assert _log(["`dispatch_batches` is deprecated, use the DataLoaderConfiguration"], "dispatch_batches") == ""
    assert _log(["`dispatch_batches` is deprecated, use this instead"], "dispatch_batches") == ""
    assert _log(["`no_cuda` is deprecated, use no_cuda."], "no_cuda") == ""


def test_the_sentences_full_stop_is_not_part_of_the_name():
    assert _log(["`use_auth_token` is deprecated, use token."], "use_auth_token") == "token"
    # an upper-case X ends some distributions' names (PaddleX): only the full stop is taken off
    assert _log(["`Paddle` is deprecated, use PaddleX."], "Paddle") == "PaddleX"


def test_the_first_2000_characters_of_a_line_are_read():
    line = "x" * 1966 + " no_cuda is deprecated, use use_cpu"
    assert len(line) == 2001
    assert _log([line], "no_cuda") == "use_cp"


def test_a_kwargs_warning_that_names_only_the_flag_is_not_its():
    # vLLM's argparse help names the flag; the question is the keyword: the log's line is not read for it
    assert _log(["--worker-use-ray is deprecated, use --distributed-executor-backend=ray"], "worker_use_ray") == ""


def test_no_table_row():
    assert apihistory.replacement([], {"packages": {}}, "transformers", "x_y", "kwarg") == ("", None, None)
    assert apihistory.replacement([], _tb(None), "transformers", "x_y", "kwarg") == ("", None, None)
    assert apihistory.replacement([], _tb({}), "transformers", "x_y", "kwarg") == ("", None, None)
    # a row without a replacement dates the name only
    assert apihistory.replacement([], _tb({"x_y": ["", 1, 3, "`x_y` is deprecated"]}), "transformers", "x_y",
                                  "kwarg") == ("", None, None)


def test_the_rows_replacement_is_never_the_keys_own_flag():
    # vllm's show_hidden_metrics_for_version: its own flag's help is no replacement
    row = ["--show-hidden-metrics-for-version", 2, 4, "Deprecated, use --show-hidden-metrics-for-version"]
    assert apihistory._row_says("show_hidden_metrics_for_version", row[0], row[3]) is False
    assert apihistory._row_says("Paddle", "PaddleX", "`Paddle` is deprecated, use PaddleX") is True
    assert apihistory._row_says("hybrid_kvcache_ratio", "--swa-full-tokens-ratio",
                                "Note: --hybrid-kvcache-ratio is deprecated now.") is True


def test_a_flag_with_an_upper_case_x_keeps_its_key():
    tb = _tb({"XLA_cache": ["--xla-cache-dir", 1, 3, "Deprecated, use --xla-cache-dir"]}, pkg="vllm")
    assert apihistory.replacement([], tb, "vllm", "--XLA-cache", "flag")[0] == "--xla-cache-dir"


def test_the_rows_answer_said_whole():
    msg = "`evaluation_strategy` is deprecated and will be removed in version 4.46 of Transformers. Use " \
          "`eval_strategy` instead" + " (see the training arguments' documentation for every strategy)" * 2
    assert len(msg) > 161
    got = apihistory.replacement([], _tb({"evaluation_strategy": ["eval_strategy", 1, 5, msg]}), "transformers",
                                 "evaluation_strategy", "kwarg")
    assert got == ("eval_strategy", "transformers's own deprecation message, 4.41.0 to 4.45.0: \"%s\"" % msg[:160],
                   "4.41.0")

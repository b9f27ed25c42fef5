"""Mutation round 24 (docs/mutation.md): red team 2026-11-28h's plan code (docs/security.md 98.), in process so mutmut
can count it. launch.plan.hide_secret_args hides the value a credential's flag takes on a launch line (as a list's next
word, or inside one string) and a credential's shape typed anywhere; test_redteam_2026_11_28h.py runs `gpudoctor plan`
in a subprocess, which mutmut cannot see. Here the same command runs in this process (cli.main), text and JSON."""
import contextlib
import io
import json

from gpudoctor.cli import main
from gpudoctor.launch.plan import hide_secret_args

PW = "Zq7rT2pLx9"
TOKEN = "hf_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef0123"


def _plan(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["plan"] + list(argv))
    assert rc == 0
    return out.getvalue()


def test_plan_launch_hides_the_value_after_a_credentials_flag_first_on_the_line():
    # the flag is the script's first argument (script_args[0]): its value is the list's second word
    line = ("torchrun --nproc-per-node 2 t.py --token %s --db-password %s --wandb_key=%s --hub_token $HF_TOKEN "
            "--tokenizer_name gpt2 --max_new_tokens 100 --password=true --api-key --verbose" % (TOKEN, PW, PW))
    got = json.loads(_plan("--json", "--launch", line))["script_args"]
    assert got == ["--token", "<redacted>", "--db-password", "<redacted>", "--wandb_key=<redacted>",
                   "--hub_token", "$HF_TOKEN", "--tokenizer_name", "gpt2", "--max_new_tokens", "100",
                   "--password=true", "--api-key", "--verbose"]
    text = _plan("--launch", line)
    assert PW not in text and TOKEN not in text
    assert "--token '<redacted>' --db-password '<redacted>' '--wandb_key=<redacted>' --hub_token '$HF_TOKEN'" in text


def test_plan_launch_keeps_a_word_after_a_flag_that_is_no_credentials_or_holds_its_value():
    # 'password' without a dash is a positional word; '--token=abc' took its value itself: the next word is the
    # script's own; a placeholder, a boolean and another flag after a credential's flag are not its value
    line = ("torchrun t.py password %s --token=%s gpt2 --secret false --secret $KEY --secret ... --key_file x.pem"
            % (PW, PW))
    got = json.loads(_plan("--json", "--launch", line))["script_args"]
    assert got == ["password", PW, "--token=<redacted>", "gpt2", "--secret", "false", "--secret", "$KEY",
                   "--secret", "...", "--key_file", "x.pem"]


def test_plan_launch_hides_a_credentials_shape_and_a_urls_password_anywhere():
    line = "torchrun t.py --db_url https://bob:%s@db.example/x %s https://bob:pa:%s@db.example/y" % (PW, TOKEN, PW)
    got = json.loads(_plan("--json", "--launch", line))["script_args"]
    # (a password holding ':' is hidden from the user's ':' on, not from its own)
    assert got == ["--db_url", "https://bob:<redacted>@db.example/x", "<redacted>", "https://bob:<redacted>@db.example/y"]


def test_a_credentials_flag_last_on_the_line_takes_no_word_before_it():
    got = json.loads(_plan("--json", "--launch", "torchrun t.py gpt2 --token"))["script_args"]
    assert got == ["gpt2", "--token"]


def test_plan_script_hides_a_credentials_value_in_the_line_it_prints(tmp_path):
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/bash\ntorchrun --nproc-per-node 2 t.py --db-password %s --api-key=%s --token \"%s\" "
                      "--secret-key $KEY --api_key=... --tokenizer_name gpt2\n" % (PW, PW, PW))
    text = _plan(str(script))
    assert PW not in text
    row = [ln for ln in text.splitlines() if ln.startswith("line 2")][0]
    assert row.endswith("t.py --db-password <redacted> --api-key=<redacted> --token <redacted> --secret-key '$KEY' "
                        "--api_key=... --tokenizer_name gpt2"), row
    doc = json.loads(_plan("--json", str(script)))
    launch = doc["launches"][0]
    assert PW not in json.dumps(doc)
    assert launch["argv"][4:] == ["--db-password", "<redacted>", "--api-key=<redacted>", "--token", "<redacted>",
                                  "--secret-key", "$KEY", "--api_key=...", "--tokenizer_name", "gpt2"]


def test_a_credentials_value_inside_one_string_keeps_its_flag_operator_and_quote():
    # strings a plan holds whole (a command, a note): the flag, its '=' or blanks and its quote stay, the value goes
    got = hide_secret_args({"a": 'x --api-key "%s" y' % PW, "b": "--password='%s'" % PW,
                            "c": "--password  %s --password -x --pass\t%s" % (PW, PW),
                            "d": "--tokenizer_name gpt2 --max_new_tokens 100 --token $HF_TOKEN --auth <token>",
                            "e": ["run", "--token %s" % PW]})
    assert got == {"a": 'x --api-key "<redacted>" y', "b": "--password='<redacted>'",
                   "c": "--password  <redacted> --password -x --pass\t<redacted>",
                   "d": "--tokenizer_name gpt2 --max_new_tokens 100 --token $HF_TOKEN --auth <token>",
                   "e": ["run", "--token <redacted>"]}


def test_nested_tuples_and_objects_are_walked_in_place():
    class Row(object):
        def __init__(self):
            self.line = "--db-password %s" % PW
            self.args = ["--db-password", PW]

    row = Row()
    got = hide_secret_args([{"k": ("a", "--token=%s" % PW, (TOKEN,))}, row])
    assert got[0]["k"] == ("a", "--token=<redacted>", ("<redacted>",))
    assert got[1] is row and row.line == "--db-password <redacted>" and row.args == ["--db-password", "<redacted>"]

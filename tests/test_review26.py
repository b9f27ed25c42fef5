"""Review of sessions 25 and 26 (review26): defects found by trying the changes by hand on near variants.
Each test failed before its fix."""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


# 81. (red team 2026-11-28e) read the webhook URLs in the forms its comments cite, but not in the others the same
# services print: discord.py's base URL carries the API version (https://discord.com/api/v10/webhooks/ID/TOKEN,
# discord/webhook/async_.py BASE), a Telegram bot's file download is https://api.telegram.org/file/bot<token>/<path>
# (https://core.telegram.org/bots/api#getfile), and Teams' legacy Office 365 connector is
# https://outlook.office.com/webhook/<guid>@<guid>/IncomingWebhook/<id>/<guid>. Each was quoted back in clear.
WEBHOOKS = {
    "discord_versioned": ("aiohttp.client_exceptions.ClientResponseError: 401, message='Unauthorized', url=URL("
                          "'https://discord.com/api/v10/webhooks/112233445566778899/"
                          "aBcD-eFgH_iJkLmNoPqRsTuVwXyZ0123456789abcdEFGH')",
                          "aBcD-eFgH_iJkLmNoPqRsTuVwXyZ0123456789abcdEFGH"),
    "telegram_file": ("requests.exceptions.HTTPError: 404 Client Error: Not Found for url: "
                      "https://api.telegram.org/file/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/photos/f_1.jpg",
                      "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"),
    "teams_legacy": ("requests.exceptions.HTTPError: 400 Client Error: Bad Request for url: https://outlook.office.com"
                     "/webhook/0a1b2c3d-1111-2222-3333-444455556666@7e8f9a0b/IncomingWebhook/9c8b7a6d5e4f/1f2e3d4c",
                     "9c8b7a6d5e4f"),
    # (review26, second look) Feishu / Lark custom bots and Mattermost incoming webhooks
    "feishu": ("requests.exceptions.HTTPError: 400 Client Error: Bad Request for url: "
               "https://open.feishu.cn/open-apis/bot/v2/hook/0a1b2c3d-1111-2222-3333-444455556666",
               "0a1b2c3d-1111-2222-3333-444455556666"),
    "mattermost": ("requests.exceptions.HTTPError: 404 Client Error: Not Found for url: "
                   "https://mattermost.example.com/hooks/xi3b8fq4ptgrjq6hmbo1e5ydsw", "xi3b8fq4ptgrjq6hmbo1e5ydsw"),
}


@pytest.mark.parametrize("name", sorted(WEBHOOKS))
def test_explain_redacts_the_other_webhook_forms(name):
    from gpudoctor.explain.redact import redact

    line, secret = WEBHOOKS[name]
    out = redact(line)
    assert secret not in out and "REDACTED" in out, out


@pytest.mark.parametrize("name", sorted(WEBHOOKS))
def test_collector_cuts_the_other_webhook_forms(name):
    from gpudoctor.collector import python_env
    from gpudoctor.collector.system import credential_shape

    line, secret = WEBHOOKS[name]
    url = line[line.index("https://"):].rstrip("')")
    assert credential_shape(url), url
    out = python_env._no_values("+ curl -X POST -d @msg.json " + url + "\n")
    assert secret not in out, out


def test_webhook_documentation_urls_are_kept():
    from gpudoctor.collector.system import credential_shape
    from gpudoctor.explain.redact import redact

    for line in ("see https://discord.com/developers/docs/resources/webhook", "https://core.telegram.org/bots/api",
                 "webhook delivery failed: https://example.com/hooks/build", "git/hooks/pre-commit: exit 1",
                 "https://open.feishu.cn/document/client-docs/bot-v3/add-custom-bot",
                 "https://learn.microsoft.com/microsoftteams/platform/webhooks-and-connectors/what-are-webhooks"):
        assert redact(line) == line
        assert not credential_shape(line)


def test_explain_and_the_collector_read_one_webhook_pattern():
    # the pattern stood three times (redact, system.CREDENTIAL_RE, python_env); the collector's two now read
    # base.WEBHOOK_PATH_RE, and explain (which imports no collector module) keeps the same text
    from gpudoctor.collector import base, python_env, system
    from gpudoctor.explain import redact

    assert redact._PATH_SECRET.pattern == "(?i)" + base.WEBHOOK_PATH_RE
    assert redact._WEBHOOK_NEEDLES == base.WEBHOOK_NEEDLES
    assert python_env._URL_PATH_SECRET._args[0] == "(?i)" + base.WEBHOOK_PATH_RE
    assert system.CREDENTIAL_RE.endswith("|(?i:" + base.WEBHOOK_PATH_RE + ")")


# explain-shape25 (jobshape.py) tells machines apart by glog's launcher pid within one input, and by the file where
# several are read. Two single-node torchrun runs one after the other - one log that holds a training run and then
# an eval run (or a retry appended with >>), or a folder of two runs - read as two machines each alone, and the
# healthy log's answer was ROOT CAUSE elastic.nodes_alone ("each node trains on its own"). A launcher whose agent
# said "Local worker group finished" before the other launcher's first line ran before it, not beside it.
SHAPE = os.path.join(ROOT, "fixtures", "explain", "shape-netns-2026-11-28")


def _run_again(text, pid, hour=None):
    """The same recorded run as a later launcher prints it: another pid (and, for a second file, a later hour)."""
    import re

    out = text.replace(" 32514 ", " %d " % pid)
    if hour:
        out = re.sub(r"(?m)^(\[?[IWEF]1128) 05:", r"\1 %s:" % hour, out)
    return out


def _answer(paths):
    from gpudoctor import explain

    if len(paths) == 1:
        return explain.explain_text(open(paths[0]).read(), None)
    import json
    import subprocess

    p = subprocess.run([sys.executable, "-P", "-m", "gpudoctor", "explain", "--json"] + paths, cwd=ROOT,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout.decode())


def test_two_runs_one_after_the_other_in_one_log_are_no_nodes_alone(tmp_path):
    run = open(os.path.join(SHAPE, "nodes-alone-info", "node1.log")).read()
    log = tmp_path / "train_then_eval.log"
    log.write_text(run + _run_again(run, 40001).replace("train.py", "eval.py"))
    r = _answer([str(log)])
    assert not any(f["id"] in ("elastic.nodes_alone", "launcher.same_rank", "rendezvous.init_hang")
                   for f in r["findings"]), [f["id"] for f in r["findings"]]
    # the second run told another port (torchrun --standalone picks a free one each time): still no shape answer
    log.write_text(run + _run_again(run, 40001).replace("29525", "29777"))
    r = _answer([str(log)])
    assert not any(f["id"] in ("elastic.nodes_alone", "rendezvous.init_hang") for f in r["findings"]), \
        [f["id"] for f in r["findings"]]


def test_a_folder_of_two_runs_an_hour_apart_is_no_nodes_alone(tmp_path):
    run = open(os.path.join(SHAPE, "nodes-alone-info", "node1.log")).read()
    (tmp_path / "run1.log").write_text(run)
    (tmp_path / "run2.log").write_text(_run_again(run, 40001, hour="06"))
    r = _answer([str(tmp_path / "run1.log"), str(tmp_path / "run2.log")])
    assert not any(f["id"] == "elastic.nodes_alone" for f in r["findings"]), [f["id"] for f in r["findings"]]


def test_two_nodes_alone_at_the_same_time_are_still_found(tmp_path):
    # the recorded nodes-alone runs (two netns nodes, both started together) and the same two in one merged log
    both = [os.path.join(SHAPE, "nodes-alone-info", n) for n in ("node1.log", "node2.log")]
    r = _answer(both)
    assert r["findings"] and r["findings"][0]["id"] == "elastic.nodes_alone", [f["id"] for f in r["findings"]]
    a, b = (open(p).read().splitlines(True) for p in both)
    merged = tmp_path / "merged.log"
    merged.write_text("".join(x for pair in zip(a, b) for x in pair) + "".join(a[len(b):] + b[len(a):]))
    r = _answer([str(merged)])
    assert r["findings"] and r["findings"][0]["id"] == "elastic.nodes_alone", [f["id"] for f in r["findings"]]


# diff25's differential joins its sentence to the root's "How sure: LEVEL. ..." note; where the root had none (a
# message-matched root), it made one: "How sure: A differential: no line of the text proves one cause, ...", a How
# sure with no level (every other writer says "How sure: high|medium|low."; calibrate.level reads that word). The
# sentence is now a note of its own there.
def test_every_how_sure_note_names_its_level():
    from gpudoctor import explain

    log = os.path.join(ROOT, "fixtures", "logs", "dev", "mpi.orted__easybuild-204-orted-not-found-daemon-127.log")
    r = explain.explain_text(open(log).read(), None)
    notes = r["findings"][0].get("notes") or []
    assert any(n.startswith("A differential: ") for n in notes), notes
    for f in r["findings"]:
        for n in f.get("notes") or ():
            if n.startswith("How sure: "):
                assert n.split()[2].rstrip(".,;:") in ("high", "medium", "low"), n


# 81. read netrc's password only after 'login U' ('machine H login U password P'); netrc(5)'s tokens come in any
# order and 'login' may be absent, so 'machine H password P' (one line), '... login U account A password P' and
# 'default password P' were quoted in clear
@pytest.mark.parametrize("line", ["machine api.wandb.ai password 8f3a9c2e1b7d4f6a0c5e9b2d8f1a3c7e",
                                  "machine h.example.com password 8f3a9c2e1b7d4f6a0c5e9b2d8f1a3c7e login bob",
                                  "machine h login bob account ops password 8f3a9c2e1b7d4f6a0c5e9b2d8f1a3c7e",
                                  "default password 8f3a9c2e1b7d4f6a0c5e9b2d8f1a3c7e"])
def test_netrc_password_in_any_token_order_is_redacted(line):
    from gpudoctor.explain.redact import redact

    out = redact(line)
    assert "8f3a9c2e1b7d4f6a0c5e9b2d8f1a3c7e" not in out and "REDACTED" in out, out


@pytest.mark.parametrize("line", ["machine learning password is required", "machine h login bob password $NETRC_PW",
                                  "ssh: password authentication failed for user bob"])
def test_netrc_prose_and_placeholders_are_kept(line):
    from gpudoctor.explain.redact import redact

    assert redact(line) == line

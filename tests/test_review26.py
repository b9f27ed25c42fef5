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

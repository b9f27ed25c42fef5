"""Red team 2026-11-28i (session 30): findings fixed at their root; each case fails on 085cb5f
(docs/security.md 100.)."""

import time

import pytest

from gpudoctor.explain.redact import MARK, redact


@pytest.mark.parametrize("line, secret", [
    ("htpasswd -b .htpasswd alice hunter", "hunter"),
    ("+ htpasswd -bc /etc/nginx/.htpasswd alice sunshine > /dev/null 2>&1; echo done", "sunshine"),
    ("htpasswd -bnB alice 'opensesame'", "opensesame"),
    ("zip -r -P hunter out.zip ckpt/", "hunter"),
    ("unzip -o -P sunshine data.zip", "sunshine"),
    ("7z a -popensesame ckpt.7z ckpt/", "opensesame"),
    ("openssl enc -aes-256-cbc -salt -k hunter -in ckpt.pt -out ckpt.enc", "hunter"),
])
def test_an_archive_or_htpasswd_password_operand_is_redacted(line, secret):
    out = redact(line)
    assert secret not in out and MARK in out, out


@pytest.mark.parametrize("line", [
    "htpasswd -c /etc/nginx/.htpasswd alice",   # interactive: no password on the line
    "htpasswd -b users.htpasswd",                # one operand: nothing is a password
    "zip -r out.zip ckpt/",
    "7z x -p ckpt.7z",                           # 7z asks for it
    "openssl enc -k $ZIP_PASS -in a -out b",     # a placeholder is kept
])
def test_the_same_commands_without_a_password_are_kept(line):
    assert redact(line) == line


def test_the_new_readings_are_linear_on_a_hostile_line():
    for s in ("htpasswd -b " * 6000, "htpasswd" + " a" * 32000, "zip " * 16000, "7z " * 16000,
              "openssl " * 8000 + "-k"):
        t = time.process_time()
        redact(s)
        assert time.process_time() - t < 3.0, s[:40]

"""Mutation round 20 (docs/mutation.md): explain's redact() pass by pass, in-process (mutmut counts no subprocess):
each needle that opens a pass, the query, Basic, clipped-URL and private-key passes, and what no pass may touch."""
import pytest

from gpudoctor.explain.redact import redact

SECRET = "Zq81abcdefghij77"


@pytest.mark.parametrize("name", ["db_secret", "my_credential", "x_auth", "id_jwt", "db_pwd", "api_token", "db_pass",
                                  "api_key"])
def test_each_name_needle_opens_the_assignment_pass(name):
    # each line holds exactly one of the needles, so each needle alone must open the pass
    assert redact("%s=%s" % (name, SECRET)) == "%s=REDACTED" % name
    assert redact("%s=%s" % (name.upper(), SECRET)) == "%s=REDACTED" % name.upper()


@pytest.mark.parametrize("line, shown", [
    ('curl -H "X-Proxy: Basic dXNlcjpwYXNzd29yZA==" https://h/', 'curl -H "X-Proxy: Basic REDACTED" https://h/'),
    ("GET https://b.example.com/o?x=1&X-Goog-Signature=abcdef0123456789",
     "GET https://b.example.com/o?x=1&X-Goog-Signature=REDACTED"),
    ("GET https://b.example.com/o?sig=abcdef0123456789", "GET https://b.example.com/o?sig=REDACTED"),
    ("GET https://b.s3.amazonaws.com/o?X-Amz-Signature=abcdef0123456789&x=1",
     "GET https://b.s3.amazonaws.com/o?X-Amz-Signature=REDACTED&x=1"),
    ("-----BEGIN RSA PRIVATE KEY-----\\nMIIEowIBAAKCAQEA0abcdefgh\\nQWERTYUIOP", "-----BEGIN RSA PRIVATE KEY----- REDACTED"),
    ("clone https://u:%s..." % SECRET, "clone https://u:REDACTED..."),
    ("clone https://u:%s ..." % SECRET, "clone https://u:REDACTED ..."),
])
def test_each_pass_writes_its_mark_where_the_value_was(line, shown):
    assert redact(line) == shown


@pytest.mark.parametrize("line", [
    "GET https://b.example.com/o?page=abcdef0123456789",            # a query value under no secret name
    "GET https://b.example.com/o?token=${TOKEN}&sig=<sig>",          # placeholders
    "see the private key----- docs at https://h/x",                  # the PEM needle, no key
    "NCCL_IB_HCA mlx5_0,mlx5_1",
])
def test_what_is_no_secret_is_kept(line):
    assert redact(line) == line


def test_not_a_string_or_empty_is_returned_as_is():
    assert redact("") == "" and redact(None) is None and redact(5) == 5


def test_past_the_first_64_kib_a_credentials_shape_is_still_redacted():
    from gpudoctor.explain.redact import MAX_STRING

    for v in ("hf_Zq81abcdefghij77xyzABCDEFGHIJ1234567", "AKIAIOSFODNN7EXAMPLE"):
        out = redact("token " + "x" * MAX_STRING + " " + v + " end")
        assert out.endswith(" REDACTED end") and v not in out

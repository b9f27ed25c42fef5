"""Red team round 8 (2026-11-26h): fixline.Shown (docs/security.md 27.) let a hostile node's value out bare.

28. (a) One pass of an alternation takes the leftmost match: a second value of the same node that starts before the
first one in the description and ends inside it (``=x;y`` before ``x;y;touch /tmp/PWN`` in
``NCCL_SOCKET_IFNAME=x;y;touch /tmp/PWN``) was quoted instead, leaving ``;touch /tmp/PWN`` bare. (b) Only the 512
longest hostile values were looked for: 600 longer ones anywhere in the facts pushed the real one out. (c) A value over
4096 characters was not 'hostile' at all. (d) The text report wrapped a line inside a quoted word with a space, so the
second visual line began inside the quote (``c;reboot;x' [n2]``) and ran when copied alone.
Each node's facts here are a real captured document (fixtures/nodes/) with values changed, as a node returns them.
"""

import copy
import re
import json
import subprocess
import sys

from conftest import node_facts
from gpudoctor.fixline import Shown, inert_word, sh, shown_word

PAY = "touch /tmp/RT8PWN"


def _node(name, env, more=None):
    d = copy.deepcopy(node_facts("h100-ubuntu2404-torch211"))
    d["node"] = d["host"]["hostname"] = name
    for k, v in env.items():
        d["env"]["values"][k] = v
        d["nccl"]["env"][k] = v
        d["nccl"].setdefault("effective", {})[k] = {"source": "environment", "value": v}
    d["env"]["values"].update(more or {})
    return d


def _check(tmp_path, n1, n2, *args):
    for d in (n1, n2):
        (tmp_path / (d["node"] + ".json")).write_text(json.dumps(d))
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "check", "--facts", str(tmp_path)] + list(args),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode in (0, 1), p.stderr
    return p.stdout


def _bare(text):
    """The text with every single-quoted region taken out: what a shell reads unquoted."""
    return re.sub(r"\$'(?:[^'\\]|\\.)*'|'[^']*'", "\0", text)


def _descriptions(doc):
    for key in ("findings", "checks"):
        for x in doc[key]:
            for k in ("message", "observed", "expected", "summary"):
                if isinstance(x.get(k), str):
                    yield x[k]
            for o in x.get("outcomes") or []:
                yield o.get("text") if isinstance(o, dict) else str(o)


def test_a_value_overlapping_another_does_not_leave_the_rest_bare(tmp_path):
    v = "x;y;" + PAY
    n1 = _node("n1", {"NCCL_SOCKET_IFNAME": v}, {"NCCL_DEBUG_FILE": "=x;y", "NCCL_TOPO_FILE": ": x;y"})
    doc = json.loads(_check(tmp_path, n1, _node("n2", {"NCCL_SOCKET_IFNAME": "eth0"}), "--json"))
    named = [s for s in _descriptions(doc) if s and "RT8PWN" in s]
    assert len(named) >= 3
    for s in named:
        assert "touch" not in _bare(s), s  # never outside a quoted word
    # the unit: every occurrence of every value lies inside one quoted word
    shown = Shown(["=x;y", v])
    assert shown("NCCL_SOCKET_IFNAME=%s matches" % v) == "NCCL_SOCKET_IFNAME%s matches" % shown_word("=" + v)


def test_many_longer_values_do_not_push_the_one_named_out(tmp_path):
    more = {"NCCL_X%d" % i: "a;" * 100 + str(i) for i in range(600)}
    n1 = _node("n1", {"NCCL_SOCKET_IFNAME": "x;" + PAY}, more)
    doc = json.loads(_check(tmp_path, n1, _node("n2", {"NCCL_SOCKET_IFNAME": "eth0"}), "--json"))
    named = [s for s in _descriptions(doc) if s and "RT8PWN" in s]
    assert named
    for s in named:
        assert "touch" not in _bare(s), s


def test_a_long_value_is_quoted_too(tmp_path):
    v = "x;" + PAY + ";" + "a" * 4100
    doc = json.loads(_check(tmp_path, _node("n1", {"NCCL_SOCKET_IFNAME": v}),
                            _node("n2", {"NCCL_SOCKET_IFNAME": "eth0"}), "--json"))
    named = [s for s in _descriptions(doc) if s and "RT8PWN" in s]
    assert named
    for s in named:
        assert "touch" not in _bare(s), s[:200]


def test_the_text_report_never_breaks_a_quoted_word_over_two_lines(tmp_path):
    v = "a;b c;reboot;" + PAY
    out = _check(tmp_path, _node("n1", {"NCCL_SOCKET_IFNAME": v}), _node("n2", {"NCCL_SOCKET_IFNAME": "eth0"}))
    lines = [ln for ln in out.splitlines() if "reboot" in ln or PAY in ln]
    assert lines
    for ln in lines:
        # a line either holds the whole quoted word or none of the value
        # (a description shows it as inert_word since red team 2026-11-28f, 86.; a fix line as sh())
        assert inert_word(v) in ln or shown_word(v) in ln or "export " in ln or (v not in ln and "reboot" not in ln), ln


def test_many_values_sharing_a_prefix_cost_no_more_than_the_check(tmp_path):
    # 500 values 'aaa...a;' of growing length: the alternation tried each at every character of a description naming
    # a 4000-character value (HEAD 0499c5d: 21 s of CPU for this 1 MB facts file, 0.7 s now on the same VM)
    more = {"NCCL_X%d" % i: "a" * (3 + 8 * i) + ";" for i in range(500)}
    n1 = _node("n1", {"NCCL_SOCKET_IFNAME": "a" * 4000}, more)
    doc = json.loads(_check(tmp_path, n1, _node("n2", {"NCCL_SOCKET_IFNAME": "eth0"}), "--json"))  # time: bench/cpu_bounds.py
    assert any("a" * 4000 in s for s in _descriptions(doc))


# 29. explain quoted these secrets back (the root line carries them; 5 forms of 27 tried leaked, text and --json)
SECRETS = [
    # the _ASSIGN pass read 'https' ':' and the rest of the URL as one value: the query's names were never read
    ("https://x.example/a?access_token=Zq8Zq8Zq8Zq8Zq8Zq8Zq8Zq8Zq8Zq8&b=1", "Zq8Zq8Zq8Zq8"),
    # Azure SAS (learn.microsoft.com/azure/storage/common/storage-sas-overview): 'sig' is the signature
    ("https://acct.blob.core.windows.net/c/b?sv=2021-06-08&sig=abcDEFghiJKLmnoPQRstuVWXyz0123456789%2B%3D", "PQRstuVWXyz"),
    # S3 presigned URL (docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html)
    ("https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Security-Token=IQoJb3JpZ2luX2VjEJr"
     "&X-Amz-Signature=fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024", "fe5f80f77d5fa3"),
    # an Azure storage connection string: a camelCase name ('AccountKey') was one word
    ("AccountKey=Zq8Zq8Zq8Zq8Zq8Zq8Zq8Zq8Zq8Zq8Zq8Zq8Zq8Zq8Zq8Zq8Zq8Zq8==;EndpointSuffix=core.windows.net", "Zq8Zq8Zq8Zq8"),
    ('{"clientSecret": "Qm9vbTpib29tYm9vbWJvb21i"}', "Qm9vbTpib29t"),
    # a PEM private key's body on its header's line, and a service-account JSON's '\n'-escaped key
    ("-----BEGIN RSA PRIVATE KEY----- MIIEowIBAAKCAQEAexampleexampleexampleexample", "MIIEowIBAAKC"),
    ('"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQC\\n'
     'AQEFAASCBKgwggSk\\n-----END PRIVATE KEY-----\\n"', "ADANBgkqhkiG9w0"),
]


def test_explain_quotes_no_secret_of_a_query_a_camel_case_name_or_a_pem_body():
    import io

    from gpudoctor.explain import explain_text, render_text
    from gpudoctor.explain.redact import redact

    for text, core in SECRETS:
        doc = explain_text("RuntimeError: CUDA error: out of memory %s\n" % text)
        out = io.StringIO()
        render_text(doc, out)
        assert doc["root"] == "cuda.oom" and "out of memory" in out.getvalue()
        assert core not in out.getvalue() + json.dumps(doc), text
    for plain in ("https://pytorch.org/docs/stable/notes/cuda.html?highlight=alloc&page=2", "sortKey=abc",
                  "tokenizer.pad_token=<pad>", "cacheKey: 12"):
        assert redact(plain) == plain

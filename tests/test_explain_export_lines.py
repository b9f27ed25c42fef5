"""explain's `export` lines are pasted into a shell: the knowledge's "VALUE   (why)" exports
must set VALUE only, with the why as a comment (a hang answer once printed
`export NCCL_P2P_DISABLE='1   (only to tell the causes apart, ...)'`, which sets the variable
to the whole sentence)."""

import re
import subprocess

from gpudoctor.explain.render import split_export

EXPORT = re.compile(r"^\s+export ([A-Z][A-Z0-9_]*)=(.*)$")


def test_split_export_keeps_the_value_and_the_why_apart():
    assert split_export("1   (only to tell the causes apart)") == ("1", "only to tell the causes apart")
    assert split_export("^docker,lo,veth,virbr   (or the real NIC: =eno1)") == (
        "^docker,lo,veth,virbr", "or the real NIC: =eno1")
    assert split_export("eth0") == ("eth0", None)
    assert split_export("a (b)") == ("a (b)", None)  # one space: part of the value
    assert split_export("   (only a note)") == ("   (only a note)", None)  # no value: kept whole


def test_every_knowledge_export_value_is_one_value(kb):
    seen = 0
    for e in kb.entries:
        for c in e.get("causes", []):
            for k, v in c.get("exports", {}).items():
                value, _ = split_export(v)
                assert "   (" not in value, (e["id"], k, v)
                # a placeholder prints as one plain single-quoted word: no quote inside it
                # ('<the nodes'"'"' routable IPs>' was hard to read and to edit)
                assert "'" not in value and '"' not in value, (e["id"], k, v)
                seen += 1
    assert seen > 10


def test_the_hang_answers_export_lines_set_only_the_value_in_bash(cli):
    rc, out, err = cli("explain", "the job hangs after Init COMPLETE, all_reduce never returns")
    lines = [EXPORT.match(l) for l in out.splitlines()]
    lines = [m for m in lines if m]
    assert len(lines) >= 3, out
    for m in lines:
        name = m.group(1)
        got = subprocess.run(["bash", "-c", "export %s=%s\nprintf %%s \"$%s\"" % (name, m.group(2), name)],
                             capture_output=True, text=True, timeout=10)
        assert got.returncode == 0 and "(" not in got.stdout.replace("(s)", ""), (m.group(0), got)
    assert any(m.group(1) == "NCCL_P2P_DISABLE" and m.group(2).startswith("1   # ") for m in lines), out

#!/usr/bin/env python3
"""Accuracy of `gpudoctor explain` on the real error texts in fixtures/logs/.

For every file: the expected family is its `# root:` header when present (cascade files that
contain the root error), else its `# family:` header; explain's first finding (its root) must
be an entry of that family (cascade files without a root: an echo entry, `cascade.*`).
Prints a Markdown table; `--write` replaces the generated block in docs/explain.md.

    python bench/explain_accuracy.py [--write]
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from gpudoctor import explain  # noqa: E402

LOGS = os.path.join(ROOT, "fixtures", "logs")
BEGIN, END = "<!-- accuracy:begin (bench/explain_accuracy.py --write) -->", "<!-- accuracy:end -->"


def read_fixture(path):
    """(headers, body bytes): the '# key: value' lines up to '# ---', then the verbatim log."""
    with open(path, "rb") as f:
        data = f.read()
    head, sep, body = data.partition(b"# ---\n")
    if not sep:
        raise ValueError("%s has no '# ---' separator" % path)
    headers = {}
    for line in head.decode("utf-8").splitlines():
        if line.startswith("# ") and ":" in line:
            k, _, v = line[2:].partition(":")
            headers[k.strip()] = v.strip()
    return headers, body


def expected_family(headers):
    return headers.get("root") or headers["family"]


def family_matches(finding, family):
    return finding["id"] == family or finding["family"] == family or finding["id"].startswith(family + ".")


def evaluate(kb=None):
    kb = kb or explain.load_knowledge()
    rows = []
    # the real texts lie in logs/dev/ and logs/heldout/ (split by source: fixtures/logs/README.md)
    paths = {name: os.path.join(LOGS, side, name) for side in ("dev", "heldout")
             for name in os.listdir(os.path.join(LOGS, side)) if name.endswith(".log")}
    for name in sorted(paths):
        headers, body = read_fixture(paths[name])
        want = expected_family(headers)
        res = explain.explain_text(body, kb, source=name)
        got = res["findings"][0] if res["findings"] else None
        rows.append({"file": name, "expected": want, "got": got["id"] if got else None,
                     "ok": bool(got) and family_matches(got, want),
                     "top_fix": got["causes"][0]["fix"][0] if got else None,
                     "cascade": [f["id"] for f in res["findings"] if f["role"] == "cascade"]})
    return rows


def markdown(rows):
    ok = sum(r["ok"] for r in rows)
    out = ["**Accuracy: %d / %d (%.0f%%)** of the real error texts in `fixtures/logs/` map to the right entry "
           "(for cascade logs: the root family first)." % (ok, len(rows), 100.0 * ok / len(rows)), "",
           "| file | expected | explain's root | |", "| --- | --- | --- | --- |"]
    for r in rows:
        out.append("| %s | %s | %s | %s |" % (r["file"], r["expected"], r["got"] or "(nothing)",
                                              "ok" if r["ok"] else "**miss**"))
    return "\n".join(out) + "\n"


def main(argv):
    rows = evaluate()
    md = markdown(rows)
    if "--write" in argv:
        path = os.path.join(ROOT, "docs", "explain.md")
        with open(path) as f:
            doc = f.read()
        a, b = doc.index(BEGIN) + len(BEGIN), doc.index(END)
        with open(path, "w") as f:
            f.write(doc[:a] + "\n" + md + doc[b:])
    sys.stdout.write(md)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

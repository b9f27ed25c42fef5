#!/usr/bin/env python3
import json, os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from labels_p34 import L, MACHINE
D = os.path.dirname(os.path.abspath(__file__))
fams = {l.split()[1] for l in open(os.path.join(D, "labels.txt"))}
rows = []
for name, (sfx, cat, group, cmd, user, fam, alts, fix, kws, note) in L.items():
    log = open(os.path.join(D, "logs", name + ".log"), encoding="utf-8").read()
    parts = []
    if user:
        parts.append(user + "\n")
    parts.append(cmd)
    text = "\n".join(parts) + "\n" + log
    text = text.rstrip("\n")
    low = text.lower()
    assert len(text.splitlines()) <= 400, name
    for bad in ("p34", "plant", "heldout", "eval-"):
        assert bad not in low, (name, bad)
    healthy = fam == "healthy"
    if not healthy:
        assert 2 <= len(kws) <= 5, name
        for k in kws:
            ps = [p.lower() for p in k.split("&")]
            assert not all(p in low for p in ps), (name, k)
        for f in [fam] + alts:
            assert any(v == f or v.startswith(f + ".") for v in fams), (name, f)
    rows.append(dict(id="p34-" + sfx, url="planted:p34-" + sfx, source_repo="planted-gpu-2026-11-27-p34",
                     category=cat, text=text, family=fam, family_alternatives=alts, fix=fix, fix_keywords=kws,
                     healthy=healthy, group=group,
                     label_note="%s. %s Log logs/%s.log.%s" % (MACHINE, note, name,
                                 " Text = command line as run + verbatim log." if not user else
                                 " Text = [user] line written by the evaluator (words case) + command line as run + verbatim log.")))
with open(os.path.join(D, "explain_heldout_p34.jsonl"), "w") as f:
    for r in rows:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
print(len(rows), "cases;", sum(r["healthy"] for r in rows), "healthy")

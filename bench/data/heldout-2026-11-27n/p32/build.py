"""Build explain_heldout_p32.jsonl from the verbatim logs in logs/ (eval-p32). Labels written after reading each log."""
import json, os
HERE = os.path.dirname(os.path.abspath(__file__))
SRC = "planted-cpu-2026-11-27-p32"

def log(name):
    return open(os.path.join(HERE, "logs", name + ".log"), encoding="utf-8", errors="replace").read().rstrip("\n")

CASES = []
def case(name, log_name, category, group, family, alts, fix, kws, note, healthy=False, pre=""):
    text = (pre + "\n" if pre else "") + log(log_name)
    CASES.append(dict(id="p32-" + name, url="planted:" + name, source_repo=SRC, category=category, text=text,
                      family=family, family_alternatives=alts, fix=fix, fix_keywords=kws, healthy=healthy,
                      group=group, label_note=note))

exec(open(os.path.join(HERE, "labels_p32.py"), encoding="utf-8").read())

lines_max = 0
with open(os.path.join(HERE, "explain_heldout_p32.jsonl"), "w", encoding="utf-8") as f:
    for c in CASES:
        t = c["text"]
        assert len(t.splitlines()) <= 400, c["id"]
        lines_max = max(lines_max, len(t.splitlines()))
        for bad in ("p32", "plant", "heldout", "eval-"):
            assert bad not in t.lower(), (c["id"], bad)
        if not c["healthy"]:
            assert 2 <= len(c["fix_keywords"]) <= 5, c["id"]
            for k in c["fix_keywords"]:
                assert not all(p.lower() in t.lower() for p in k.split("&")), (c["id"], k)
        f.write(json.dumps(c, ensure_ascii=False) + "\n")
print(len(CASES), "cases; healthy", sum(c["healthy"] for c in CASES), "; max lines", lines_max)

"""Re-apply the guard fallback (tools/wheelmsgs.py guard_fix, guards17) to a committed wheel table, offline.

    python tools/guard_fallback.py NAME [NAME ...] [--check]

NAME is a generated table (gpudoctor/data/knowledge/generated/NAME.json) made by a generator that reads Python sites
through tools/wheelmsgs.py (py_sites, or site_for with guard=: gen_pylibs_messages). An assigned assert site that no
MSG_FIX row gives a fix takes the advice its assert's own test says (tools/guardrules.py). The fallback reads only the
assert statement, which the generator's recorded slice (tools/data/NAME_slice.txt) holds whole for every assigned
site: so the generator run on that slice gives these sites exactly what a run on the wheel gives, and this copies
their means / fix / guard into the committed table (matched by text and place), leaving every other site and the
header's source and version as they are (its date is today's; ``fixes`` names this tool). --check writes nothing and
exits 1 when a table would change.
"""

import contextlib
import datetime
import glob
import importlib
import io
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402


def fallback(name):
    """The committed doc of ``name`` with the guard fallback's means / fix / guard of each site its slice gives one;
    (doc, number of sites changed)."""
    gen = importlib.import_module("gen_" + name)
    sl = sorted(glob.glob(os.path.join(knowgen.DATA, name + "_slice.*")))[0]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, name + ".json")
        with contextlib.redirect_stdout(io.StringIO()):
            gen.main(["--slice", sl, "-o", out])
        with open(out) as f:
            new = json.load(f)
    given = {(s["text"], s["where"]): s for s in new["sites"] if s.get("guard") and s.get("fix")}
    doc = knowgen.committed(name)
    n = 0
    for site in doc["sites"]:
        g = given.get((site["text"], site["where"]))
        if g is None or site.get("fix") and not site.get("guard"):
            continue  # (a row's own fix is never replaced)
        if (site.get("means"), site.get("fix"), site.get("guard")) != (g["means"], g["fix"], g["guard"]):
            site["means"], site["fix"], site["guard"] = g["means"], g["fix"], g["guard"]
            n += 1
    if n:
        doc["header"]["date"] = datetime.date.today().isoformat()
        doc["header"]["fixes"] = "the guard fallback re-applied by tools/guard_fallback.py (tools/guardrules.py)"
    return doc, n


def main(argv):
    check = "--check" in argv
    names = [a for a in argv if a != "--check"]
    if not names:
        sys.stderr.write(__doc__)
        return 2
    changed = 0
    for name in names:
        doc, n = fallback(name)
        if not n:
            print("%s: unchanged" % name)
            continue
        changed += 1
        if check:
            print("%s: would change %d sites" % (name, n))
        else:
            knowgen.emit(name, doc)
            print("%s: %d sites take their assert's advice" % (name, n))
    return 1 if check and changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

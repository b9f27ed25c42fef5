"""The text of one case of a seen held-out set (bench/data/explain_heldout_<name>.jsonl), for tests on real texts."""

import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def seen_case(name, cid):
    with open(os.path.join(ROOT, "bench", "data", "explain_heldout_%s.jsonl" % name), encoding="utf-8") as f:
        for line in f:
            c = json.loads(line)
            if c["id"] == cid:
                return c["text"]
    raise KeyError(cid)

#!/usr/bin/env python3
"""Score explain on failures told in words: bench/data/symptom_paraphrases.jsonl (issue 18).

Each line: {"want": symptom id or null, "style", "text"}. The sentences were written here from the
projects' docs and FAQs in varied styles (terse, chatty, non-native, Chinese, Chinese-English mix,
with log lines around), never from a held-out set. null = a healthy text, a fixed problem or a
question: it must get no root cause.

The set is split by line into two halves independent of the symptom: odd lines (1, 3, ...) are the
tuning half, even lines the check half (the lexicon of explain/meaning.py was tuned on the odd half
only). Per half: right = the root finding is the wanted symptom (or, for null, there is no root
finding); wrong = a root finding that is another symptom or a false alarm.

    python bench/symptom_paraphrases.py [CASES] [--misses]
"""

import argparse
import json
import os
import sys
import time

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # after PYTHONPATH: another tree can be scored

from gpudoctor.explain import explain_text, load_knowledge  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("cases", nargs="?", default=os.path.join(HERE, "data", "symptom_paraphrases.jsonl"))
    ap.add_argument("--misses", action="store_true")
    a = ap.parse_args(argv)
    kb = load_knowledge()
    halves = {"odd (tuning)": [0, 0, 0], "even (check)": [0, 0, 0]}
    misses = []
    t0 = time.process_time()
    with open(a.cases, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            c = json.loads(line)
            r = explain_text(c["text"], kb)
            root = r["root"] if r["verdict"] == "root_cause" else None
            h = halves["odd (tuning)" if n % 2 else "even (check)"]
            h[0] += 1
            if root == c["want"]:
                h[1] += 1
            else:
                if root is not None:
                    h[2] += 1
                misses.append((n, c["want"], root, c["text"]))
    for name, (total, right, wrong) in halves.items():
        print("%-14s %2d/%2d right (%3.0f%%), %d wrong root" % (name, right, total, 100.0 * right / max(total, 1), wrong))
    print("cpu %.2f s" % (time.process_time() - t0))
    if a.misses:
        for n, want, got, text in misses:
            print("line %d: want %s, got %s: %s" % (n, want, got, " ".join(text.split())[:110]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

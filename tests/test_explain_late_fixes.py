"""Two misses of issue 18's scoring that are classes, not single texts.

A. A Slurm message pasted without its closing full stop: tools/gen_slurm_messages.py makes a format's final '.'
   optional in its matcher (_optional_stop). The text is bessagroup/f3dasm#352's paste
   (https://github.com/bessagroup/f3dasm/issues/352), the format src/common/slurm_opt.c's
   '--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.'
"""

import json
import os

from gpudoctor import explain

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = os.path.join(REPO, "gpudoctor", "data", "knowledge", "generated")

_KB = None


def _kb():
    global _KB
    if _KB is None:
        _KB = explain.load_knowledge()
    return _KB


def _root(text):
    res = explain.explain_text(text, _kb(), source="t")
    return res["verdict"], (res["findings"][0] if res["findings"] else None)


def test_slurm_message_without_its_full_stop():
    verdict, root = _root("sbatch --mem=8G --mem-per-cpu=8G\n"
                          "fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive\n")
    assert verdict == "root_cause" and root["family"] == "slurm.error", (verdict, root and root["id"])


def test_only_the_closing_stop_is_optional():
    with open(os.path.join(GEN, "slurm_messages.json")) as f:
        sites = {s["id"]: s for s in json.load(f)["sites"]}
    mem = sites["slurm.msg.src_common_slurm_opt_c_5081"]
    assert mem["re"].endswith(r"exclusive\.?"), mem["re"]
    # an ellipsis stays whole; a stop inside the text stays required
    assert not any(s.get("re") and s["re"].endswith(r"\.\.?") for s in sites.values())
    assert any(s.get("re") and r"\.\ " in s["re"] for s in sites.values())

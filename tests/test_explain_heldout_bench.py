"""The held-out scorer (bench/explain_heldout.py): how one explain answer is judged."""

import importlib.util
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location(
    "explain_heldout", os.path.join(ROOT, "bench", "explain_heldout.py"))
heldout = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(heldout)


def _case(**kw):
    c = {"id": "c1", "url": "https://example.invalid/1", "category": "slurm", "text": "x\n",
         "family": "slurm.partition", "family_alternatives": [], "fix": "",
         "fix_keywords": ["partition"], "healthy": False}
    c.update(kw)
    return c


def _res(fid, family, causes, verdict="root_cause"):
    return {"verdict": verdict, "root": fid,
            "findings": [{"id": fid, "family": family, "role": "root", "title": "t",
                          "causes": causes}]}


def _cause(text, fix=(), exports=None):
    return {"text": text, "fix": list(fix), "exports": exports or {}}


def test_right_family_and_fix_named_in_a_lower_cause():
    res = _res("slurm.partition", "slurm.partition",
               [_cause("the QOS is wrong", ["sacctmgr show qos"]),
                _cause("no such queue", ["pick a PARTITION from sinfo"])])
    r = heldout.judge(_case(), res, None)
    assert r["family_ok"] and r["fix_ok"] and not r["top_fix_ok"]
    assert not r["confident_wrong"] and not r["no_answer"]


def test_wrong_specific_family_is_confidently_wrong_but_cascade_is_not():
    res = _res("nccl.timeout", "nccl.timeout", [_cause("a collective hung", ["NCCL_DEBUG=INFO"])])
    assert heldout.judge(_case(), res, None)["confident_wrong"]
    res = _res("cascade.child_failed", "cascade", [_cause("find the first error", [])])
    r = heldout.judge(_case(), res, None)
    assert not r["family_ok"] and not r["confident_wrong"]


def test_alternative_family_and_conjunctive_keyword_and_exports():
    case = _case(family="nccl.internal_error", family_alternatives=["nccl.known_bug"],
                 fix_keywords=["upgrade&nccl"])
    res = _res("nccl.known_bug.x", "nccl.known_bug",
               [_cause("known bug", ["pip install -U nvidia-nccl-cu12"], {"NCCL_X": "0"})])
    r = heldout.judge(case, res, None)
    assert r["family_ok"] and not r["fix_ok"]          # "upgrade" is missing
    res["findings"][0]["causes"][0]["fix"].append("Upgrade NCCL to 2.18.5")
    assert heldout.judge(case, res, None)["fix_ok"]


def test_no_answer_and_healthy_logs():
    r = heldout.judge(_case(), {"verdict": "unknown_error", "root": None, "findings": []}, None)
    assert r["no_answer"] and not r["family_ok"]
    ok = heldout.judge(_case(healthy=True, family="healthy", fix_keywords=[]),
                       {"verdict": "no_error", "root": None, "findings": []}, None)
    assert ok["healthy_ok"] and not ok["confident_wrong"]
    alarm = heldout.judge(_case(healthy=True, family="healthy", fix_keywords=[]),
                          _res("nccl.net_ib", "nccl.net_ib", [_cause("x")]), None)
    assert not alarm["healthy_ok"] and alarm["confident_wrong"]


def test_load_cases_rejects_duplicates(tmp_path):
    p = tmp_path / "cases.jsonl"
    p.write_text("\n".join(json.dumps(_case()) for _ in range(2)) + "\n")
    try:
        heldout.load_cases(str(p))
    except SystemExit as e:
        assert "duplicate" in str(e)
    else:
        raise AssertionError("duplicate ids accepted")

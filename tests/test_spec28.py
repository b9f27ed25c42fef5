"""The most specific knowledge the text supports is the answer (issue 18, spec28).

1. 'can not' and 'cannot' are one word spelt two ways (knowledge.either_cannot). Slurm's slurmctld refuses a job with
   'Memory specification can not be satisfied' (src/slurmctld/node_scheduler.c, generated/slurm_messages.json's
   site with its own fix, family slurm.node_config); a user who retells it writes 'cannot'
   (https://github.com/mknoxnv/ubuntu-slurm/issues/9, seen set 2026-11-25) and the generic slurm.error, matched by
   'unable to allocate resources' alone, was the answer.
2. Among family entries (generic), one whose match is a generated site with a meaning and fix of its own, at error
   level (analyze.site_named), goes before the family entries that matched only a generic phrase or a site without a
   fix; never before an entry that names a specific cause (analyze._tier).
"""

import re

from explainhelp import explain_paste, fixes, ids, root_id, seen_text

from gpudoctor.explain import knowledge
from gpudoctor.explain.analyze import site_named


# ---- 1. 'can not' / 'cannot'

def test_either_cannot_takes_both_spellings_of_the_whole_word():
    rx = knowledge.either_cannot(re.escape("Memory specification can not be satisfied"))
    for line in ("srun: error: Unable to allocate resources: Memory specification can not be satisfied",
                 "memory specification cannot be satisfied"):
        assert re.search(rx, line, re.I), line
    assert not re.search(rx, "Memory specification can be satisfied", re.I)
    both = knowledge.either_cannot(re.escape("Cannot re-initialize CUDA in forked subprocess"))
    assert re.search(both, "RuntimeError: Can not re-initialize CUDA in forked subprocess", re.I)
    # only the whole word: a longer word holding it, or 'can nothing', stays as it was
    for other in ("Scannot open", "can nothing", "cannotation"):
        assert knowledge.either_cannot(re.escape(other)) == re.escape(other), other


def test_generated_slurm_site_reads_the_retold_spelling():
    kb = knowledge.load_knowledge()
    pats = [p for p in kb.by_id["slurm.node_config"]["_patterns"]
            if (p.site or {}).get("where", "").startswith("src/slurmctld/node_scheduler.c")
            and "Memory specification" in (p.site or {}).get("text", "")]
    assert pats, "node_scheduler.c's 'Memory specification can not be satisfied' site is gone"
    rx = pats[0].regex
    assert rx.search("srun: error: Unable to allocate resources: Memory specification can not be satisfied")
    assert rx.search("srun -N 1 hostname shows memory specification cannot be satisfied.")


def test_retold_memory_specification_is_the_node_configuration(cli, tmp_path):
    # seen set 2026-11-25, mknoxnv/ubuntu-slurm#9: the thread settled on RealMemory= in slurm.conf
    text = seen_text("slurm-mem-spec-realmemory-slurm-conf", "2026-11-25")
    _, doc = explain_paste(cli, tmp_path, text)
    assert doc["verdict"] == "root_cause"
    assert root_id(doc) == "slurm.node_config", ids(doc)
    assert "slurm.error" in ids(doc)[1:]  # the generic phrase's family stays, below it
    assert "RealMemory=" in fixes(doc["findings"][0])


def test_slurm_own_spelling_unchanged(cli, tmp_path):
    # what slurmctld prints (node_scheduler.c), as srun shows it after 'Unable to allocate resources:'
    _, doc = explain_paste(cli, tmp_path, "srun: error: Unable to allocate resources: Memory specification can not "
                                          "be satisfied\n")
    assert root_id(doc) == "slurm.node_config", ids(doc)


# ---- 2. a family entry's named site before a family entry's generic phrase

def test_named_site_before_the_wrappers_generic_phrase(cli, tmp_path):
    # seen set 2026-11-26p14 (planted on the eval VM, torch 2.13.0): a Dataset that starts a multiprocessing.Pool
    # inside a DataLoader worker; the DataLoader's wrapper 'Caught AssertionError in DataLoader worker process 0'
    # (usercode.dataloader_worker_exception, a phrase every worker error prints) was the root, multiprocessing's own
    # 'daemonic processes are not allowed to have children' (Lib/multiprocessing/process.py, a site with its fix)
    # related
    _, doc = explain_paste(cli, tmp_path, seen_text("p14-daemonic_pool_in_worker", "2026-11-26p14"))
    assert doc["verdict"] == "root_cause"
    assert ids(doc)[:2] == ["python.multiprocessing", "usercode.dataloader_worker_exception"], ids(doc)
    assert "start the pool in the main process" in doc["findings"][0]["causes"][0]["fix"][0]


def test_typed_value_site_before_the_override_wrapper(cli, tmp_path):
    # seen set 2026-11-27p31 (planted): Hydra's 'Error merging override trainer.max_steps=5e4' (a site without a fix of
    # its own) and OmegaConf's 'Value '50000.0' of type 'float' could not be converted to Integer' (omegaconf/nodes.py,
    # a site with its fix) on the same score: the earlier wrapper line was the root
    _, doc = explain_paste(cli, tmp_path, seen_text("p31-structured_int_given_scientific_float", "2026-11-27p31"))
    assert ids(doc)[:2] == ["omegaconf.structured", "hydra.override"], ids(doc)


def test_specific_entry_keeps_its_place_before_a_named_site_of_a_family(cli, tmp_path):
    # seen set 2026-11-26p5 (planted on 2x H100): torch.compile_error's FailOnRecompileLimitHit (an entry that names a
    # cause) stays the root; compile.graph_break's 'Dynamo recompile limit exceeded' (a family entry, with a site fix
    # and a higher score) stays below it: a named site lifts a family entry over family entries only
    _, doc = explain_paste(cli, tmp_path, seen_text("p5-compile_recompile_limit", "2026-11-26p5"))
    assert ids(doc)[:2] == ["torch.compile_error", "compile.graph_break"], ids(doc)


class _Pat:
    def __init__(self, site):
        self.site = site


class _Hit:
    def __init__(self, site, severity=None):
        self.pattern, self.severity = _Pat(site), severity


def test_site_named_needs_a_fix_an_error_line_and_words_of_its_own():
    fixed = {"id": "x", "text": "daemonic processes are not allowed to have children", "level": "raise",
             "fix": ["start the pool in the main process"], "means": "..."}
    assert site_named([_Hit(fixed)])
    assert not site_named([_Hit(dict(fixed, fix=None))])  # a site without a meaning and fix of its own
    assert not site_named([_Hit(fixed, severity="warn")])  # a line its program marked WARN / INFO
    assert not site_named([_Hit(dict(fixed, level="warning"))])  # a site its program prints as a warning
    assert not site_named([_Hit(dict(fixed, text="Allocation failed"))])  # any program's three plain words
    assert not site_named([_Hit(None)])  # a hand-written pattern


# ---- 3. the site a finding stands on, in its JSON

def test_root_names_the_generated_site_it_stands_on(cli, tmp_path):
    # seen set 2026-11-26p13 (planted): torch's ProcessGroupNCCL refuses ReduceOp.BAND; the root is the site's family
    # entry (torch.c10d_error) and the JSON names the site itself, the message's own id in generated/torch_messages
    _, doc = explain_paste(cli, tmp_path, seen_text("p13-reduceop_band_nccl", "2026-11-26p13"))
    root = doc["findings"][0]
    assert root["id"] == "torch.c10d_error", ids(doc)
    assert root["site"] == {"id": "torch.c10d_processgroupnccl_cpp.cannot_use_reduceop_band_with_nccl",
                            "where": "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp", "source": "torch_messages"}


def test_a_hand_written_match_names_no_site(cli, tmp_path):
    # seen set 2026-11-25 (NVIDIA/exemplar-performance#5's sbatch lines): slurm.error stands on slurm_errno.c's
    # 'Unspecified error' (generated/slurm_errors.json); a text only a hand-written pattern reads has no 'site'
    _, doc = explain_paste(cli, tmp_path, seen_text("slurm-gpu-partition-needs-gres", "2026-11-25"))
    assert doc["findings"][0]["site"]["id"] == "slurm.slurm_error", doc["findings"][0].get("site")
    _, doc = explain_paste(cli, tmp_path, seen_text("slurm-mem-spec-realmemory-slurm-conf", "2026-11-25"))
    by_id = {f["id"]: f for f in doc["findings"]}
    assert "site" not in by_id["slurm.error"], by_id["slurm.error"]  # 'unable to allocate resources': an entry's
    assert by_id["slurm.node_config"]["site"]["where"].startswith("src/slurmctld/node_scheduler.c")

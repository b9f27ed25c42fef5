"""The most specific knowledge the text supports is the answer (issue 18, spec28).

1. 'can not' and 'cannot' are one word spelt two ways (knowledge.either_cannot). Slurm's slurmctld refuses a job with
   'Memory specification can not be satisfied' (src/slurmctld/node_scheduler.c, generated/slurm_messages.json's
   site with its own fix, family slurm.node_config); a user who retells it writes 'cannot'
   (https://github.com/mknoxnv/ubuntu-slurm/issues/9, seen set 2026-11-25) and the generic slurm.error, matched by
   'unable to allocate resources' alone, was the answer.
2. A finding that stands on a generated message site names it in the JSON (`site`: id, where, table): the most
   specific knowledge the text matched, which the finding's entry id (its family) does not say.
"""

import re

from explainhelp import explain_paste, fixes, ids, root_id, seen_text

from gpudoctor.explain import knowledge


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


# ---- 2. the site a finding stands on, in its JSON

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

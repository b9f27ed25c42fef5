"""explain's answers read as a user reads them (issue 18's review of 2026-11-26): 40 answers to
real texts in a 100-column terminal showed prose, fix and confirm lines of 110-420 columns, the
same fix line printed twice, a hang answer listing eight causes in full, a quoted exception
message cut mid-word ('If the shutdown w.'), the message's own remedy ranked below a guess made
from the log's shape, knowledge exports that set a variable to a sentence
(`export NCCL_P2P_DISABLE='1 (workaround while ACS/IOMMU is fixed in BIOS)'`), and a script's own
`# export NCCL_NVLS_ENABLE=0` line answered as an NVLS failure."""

import io
import json
import re
import subprocess

from gpudoctor.explain import render
from gpudoctor.explain.render import WIDTH, render_text, split_export

from explainhelp import explain_paste, root_of

URL = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting/networking_troubleshooting.html#x"
LOG = "[rank0]: RuntimeError: " + "x" * 180 + " the end"


def _cause(text, fix=(), confirm=(), exports=None, evidence=()):
    return {"text": text, "checks": [], "confirm": list(confirm), "fix": list(fix), "exports": dict(exports or {}),
            "evidence": list(evidence), "static_rank": 1, "computed": None}


def _result(causes, **kw):
    f = {"id": "nccl.hang", "family": "nccl.hang", "title": "a title " * 20, "kind": "error", "role": "root",
         "explain": "A paragraph " * 30, "first_line": 1, "match_count": 1,
         "matches": [{"line": 1, "text": LOG, "severity": None}], "signals": [],
         "notes": ["How sure: " + "a long note " * 20], "causes": causes, "debug": ["NCCL_DEBUG=INFO " * 12],
         "references": [{"title": "NCCL networking troubleshooting: IP network interfaces, IP ports", "url": URL}],
         "confidence": "cause"}
    f.update(kw)
    return {"source": "log.txt", "lines": 1, "verdict": "root_cause", "findings": [f], "context": []}


def _text(result):
    out = io.StringIO()
    render_text(result, out)
    return out.getvalue()


def test_prose_fits_100_columns_log_quotes_urls_and_exports_stay_whole():
    long_fix = "docker run --ipc=host (or --shm-size=16g) --ulimit memlock=-1 --ulimit stack=67108864; " * 2
    causes = [_cause("One rank never called the collective " * 5, fix=[long_fix], confirm=["nc -zv host 29500 " * 8],
                     exports={"NCCL_P2P_DISABLE": "1   (only to tell the causes apart, or as a slower workaround "
                                                  "while ACS / the IOMMU is fixed in the BIOS of every node)"},
                     evidence=[{"line": 1, "text": LOG}])]
    text = _text(_result(causes))
    lines = text.splitlines()
    wide = [ln for ln in lines if len(ln) > WIDTH]
    # only the log's own line (searched for in the log as printed), the URL and the command lines (a fix, a confirm
    # line: pasted whole, never wrapped, wrap23) are wider
    assert wide and all(LOG in ln or ln.strip() == URL or ln.startswith(("     fix: ", "     confirm: "))
                        for ln in wide), wide
    assert "  line 1: " + LOG in lines and "     seen in the log, line 1: " + LOG in lines
    assert "      " + URL in lines  # a line of its own, never broken
    # the fix and the confirm line each one line, as the knowledge has them
    assert "     fix: " + long_fix in lines and "     confirm: " + "nc -zv host 29500 " * 8 in lines
    # the export line sets the value only; its comment continues on comment lines: the block pastes into bash
    at = next(i for i, ln in enumerate(lines) if ln.lstrip().startswith("export "))
    assert lines[at].startswith("     export NCCL_P2P_DISABLE=1   # only to tell") and lines[at + 1].startswith("       # ")
    end = at + 1
    while lines[end].startswith("       # "):
        end += 1
    assert end > at + 1
    block = "\n".join(lines[at:end]) + '\nprintf %s "$NCCL_P2P_DISABLE"'
    got = subprocess.run(["bash", "-c", block], capture_output=True, text=True, timeout=10)
    assert got.returncode == 0 and got.stdout == "1", got


def test_a_fix_line_two_causes_repeat_is_printed_once():
    causes = [_cause("first", fix=["export NCCL_NVLS_ENABLE=0, or use another NCCL release"], confirm=["ulimit -l"],
                     exports={"NCCL_NVLS_ENABLE": "0   (workaround until the node is fixed)"}),
              _cause("second", fix=["Export NCCL_NVLS_ENABLE=0,  or use another NCCL release", "reboot the node"],
                     confirm=["ulimit  -l"], exports={"NCCL_NVLS_ENABLE": "0", "NCCL_ALGO": "^NVLS"})]
    text = _text(_result(causes))
    # the same variable and value is exported once (the first cause's line, with its why); another one is not lost
    assert text.count("     export NCCL_NVLS_ENABLE=0") == 1 and "     export NCCL_ALGO=" in text
    assert text.lower().count("nccl_nvls_enable=0, or use") == 1 and "fix: reboot the node" in text
    assert text.count("confirm: ulimit") == 1
    assert "2. second" in text  # the cause itself stays, with what it adds


def test_causes_past_the_fourth_that_nothing_points_at_are_listed_by_their_text():
    causes = [_cause("cause %d" % i, fix=["fix %d" % i], confirm=["confirm %d" % i]) for i in range(1, 7)]
    causes[5]["evidence"] = [{"line": 1, "text": "the log says so"}]  # the log points at it: in full
    result = _result(causes)
    before = json.dumps(result, sort_keys=True)
    text = _text(result)
    assert all("fix: fix %d" % i in text for i in (1, 2, 3, 4, 6)) and "fix: fix 5" not in text
    assert "  5. cause 5\n" in text and "confirm 5" not in text
    assert "(cause 5: nothing in this text points at it; the confirm and fix lines of every cause are in --json)" \
        in " ".join(text.split())
    assert json.dumps(result, sort_keys=True) == before  # the JSON keeps every cause whole


# ChenRocks/UNITER#31 (https://github.com/ChenRocks/UNITER/issues/31): Horovod's SHUT_DOWN_ERROR
# (horovod/common/operations.cc: '... If the shutdown was caused by an exception, you should see the
# exception in the log before the first shutdown message.') raised from horovod/torch/mpi_ops.py's
# synchronize; the CUDA OOM that shut it down was earlier in the reporter's log
HOROVOD = """\
[1,1]<stderr>:  File "/opt/conda/lib/python3.6/site-packages/horovod/torch/mpi_ops.py", line 200, in allreduce_
[1,1]<stderr>:    return synchronize(handle)
[1,1]<stderr>:  File "/opt/conda/lib/python3.6/site-packages/horovod/torch/mpi_ops.py", line 436, in synchronize
[1,1]<stderr>:    mpi_lib.horovod_torch_wait_and_clear(handle)
[1,1]<stderr>:RuntimeError: Horovod has been shut down. This was caused by an exception on one of the ranks or \
an attempt to allreduce, allgather or broadcast a tensor after one of the ranks finished execution. If the shutdown \
was caused by an exception, you should see the exception in the log before the first shutdown message.
Primary job  terminated normally, but 1 process returned
a non-zero exit code. Per user-direction, the job has been aborted.
"""


def test_horovods_shutdown_is_the_echo_with_the_messages_own_remedy_and_quotes_cut_at_whole_words(cli, tmp_path):
    # the exception's own line is horovod.shutdown's echo message (SHUT_DOWN_ERROR, horovod/common/common.h), so the
    # answer is the echo, not the shape's 'the library refused the call' (b63cb03: a traceback whose exception line
    # is a known echo's message is not put ahead of the echoes); the message's own remedy is still a cause
    _rc, doc = explain_paste(cli, tmp_path, HOROVOD, quiet=True)
    root = root_of(doc)
    assert root["id"] == "horovod.shutdown" and doc["verdict"] == "echo_only", (root["id"], doc["verdict"])
    assert "earlier" in root["causes"][0]["text"] or "first" in root["causes"][0]["text"], root["causes"][0]
    said = [c for c in root["causes"] if c.get("advice")]
    assert said and "you should see the exception in the log before" in said[0]["fix"][0]
    # a quote is cut at a sentence's end, never inside a word (text.clip: 'If the shutdown w.' was a note's end)
    from gpudoctor.explain.text import clip
    msg = HOROVOD.splitlines()[4].split("RuntimeError: ", 1)[1]
    cut = clip(msg, 250)
    assert cut.endswith("finished execution. [...]") and len(cut) <= 250, cut
    assert clip(msg, 60) == "Horovod has been shut down. This was caused by an [...]", clip(msg, 60)


def test_every_knowledge_export_sets_one_word_or_names_a_placeholder(kb):
    checked = 0
    for e in kb.entries:
        for c in e.get("causes", []):
            for k, v in c.get("exports", {}).items():
                value, _why = split_export(v)
                # 'VALUE (why)' with one space sets the variable to the sentence: the why needs three
                assert "<" in value or not re.search(r"\s", value), (e["id"], k, v)
                checked += 1
    assert checked >= 20, checked  # the knowledge's exports were seen, not an empty walk


# NCCL src/transport/nvls.cc: the multicast WARN ends with its own advice line
NVLS = """\
transport/nvls.cc:287 NCCL WARN Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error \
401 'the operation cannot be performed in the present state'.
This is usually caused by a system or configuration error in the Fabric Manager or NVSwitches.
Disable NVLS (NCCL_NVLS_ENABLE=0) if you wish to avoid this error in the future.
"""


def test_a_scripts_own_nvls_setting_is_not_an_nvls_failure(cli, tmp_path):
    _rc, doc = explain_paste(cli, tmp_path, "# export NCCL_NVLS_ENABLE=0\nexport NCCL_NVLS_ENABLE=0\n", quiet=True)
    assert not any(f["id"] == "nccl.nvls" for f in doc["findings"]), doc["findings"]
    _rc, doc = explain_paste(cli, tmp_path, NVLS, quiet=True)
    assert root_of(doc)["id"] == "nccl.nvls"


def test_the_wrap_helper_never_breaks_a_word():
    text = "a" * 150 + " word"
    assert render._fill("  fix: ", text) == "  fix: " + "a" * 150 + "\n" + " " * 7 + "word"
    assert render._fill("  fix: ", "short") == "  fix: short"
    assert render._fill("  fix: ", text, whole=True) == "  fix: " + text  # a command line: never wrapped


# RobertsLab/resources#1531 (https://github.com/RobertsLab/resources/issues/1531): squeue's reason for a job
# whose --time runs into a maintenance reservation (Slurm src/slurmctld/node_scheduler.c)
RESERVED = """\
JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)
           3937176     srlab denovo_s   lapita PD       0:00      1 (ReqNodeNotAvail, Reserved for maintenance)

#SBATCH --job-name=denovo_sigillata
#SBATCH --time=240:00:00
"""


def test_a_family_cause_that_restates_the_sites_own_is_folded_into_it(cli, tmp_path):
    _rc, doc = explain_paste(cli, tmp_path, RESERVED, quiet=True)
    root = root_of(doc)
    assert root["id"] == "slurm.reservation"
    first = root["causes"][0]
    assert first["static_rank"] == 0 and first["restates"] and "maintenance reservation" in first["restates"][0]
    # said once: no other cause is about the maintenance window; the family's confirm line joined the site's
    assert not any("maintenance reservation starts" in c["text"] for c in root["causes"][1:])
    assert any("Flags=MAINT" in x for x in first["confirm"])
    # the other possibilities stay (reserved for others, a --reservation the job may not use)
    assert any("reserved for other users" in c["text"] for c in root["causes"][1:])


# thu-ml/RoboticsDiffusionTransformer#44 (https://github.com/thu-ml/RoboticsDiffusionTransformer/issues/44): the
# script's NCCL settings (commented out in the paste), then ProcessGroupNCCL.cpp's ncclUniqueId exchange failing
# with the store's own error, a reset (torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp)
UNIQUEID_RESET = """\
# export NCCL_SOCKET_IFNAME=bond0
# export NCCL_NVLS_ENABLE=0
File "../miniconda3/envs/rdt/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 1910, in broadcast
    work = group.broadcast([tensor], opts)
RuntimeError: [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by \
key '0', but store->get('0') got error: Connection reset by peer. This may indicate a possible application crash on \
rank 0 or a network set up issue.
"""


def test_a_generated_sites_family_with_no_evidence_says_family_and_a_reset_is_not_lateness(cli, tmp_path):
    _rc, doc = explain_paste(cli, tmp_path, UNIQUEID_RESET, quiet=True)
    root = root_of(doc)
    assert root["id"] == "rendezvous.store_timeout"  # the torch site's family (not nccl.nvls from the settings)
    # the message's own meaning (tools/gen_torch_messages.py SITE_FIX, the review's correction) is the first
    # cause, its line the evidence: a reset means rank 0 is gone, not late
    assert root["confidence"] == "cause"
    assert "a reset or refusal means rank 0" in root["causes"][0]["text"] and root["causes"][0]["evidence"]
    # a reset is no evidence that the writer was only late ('ncclUniqueId' alone was)
    assert not any(c["evidence"] for c in root["causes"][1:])
    assert not any(c["text"].startswith("The writer was only late") for c in root["causes"][:2])


# chenyilun95/DSGN2#20 (https://github.com/chenyilun95/DSGN2/issues/20): a hang told in the user's own words
DSGN2_HANG = ("When using the provided training script on 4 RTX 3090 GPUs, the training freezes or hangs with 100% "
              "GPU Utilization. Strangely, it happens randomly but anyway, you should always check training because "
              "it can stop in the middle of training.\n")


def test_a_hang_told_in_the_users_words_quotes_no_remedy_from_them(cli, tmp_path):
    _rc, doc = explain_paste(cli, tmp_path, DSGN2_HANG, quiet=True)
    root = root_of(doc)
    assert root["id"] == "nccl.hang" and root["triage"]
    assert not any(c.get("advice") for c in root["causes"])
    assert not any("should always check training" in x for c in root["causes"] for x in c["fix"])


# JIA-Lab-research/MGM#91 (https://github.com/JIA-Lab-research/MGM/issues/91): DeepSpeed's op builder
# (deepspeed/ops/op_builder/builder.py assert_no_cuda_mismatch) names both CUDA versions
DS_CUDA = ("deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: Installed CUDA version "
           "12.2 does not match the version torch was compiled with 11.7, unable to compile cuda/cpp extensions "
           "without a matching cuda version.\n")


def test_a_value_computed_from_the_log_replaces_the_placeholder_and_leads_the_messages_own_cause(cli, tmp_path):
    _rc, doc = explain_paste(cli, tmp_path, DS_CUDA, quiet=True)
    root = root_of(doc)
    exports = [c["exports"]["CUDA_HOME"] for c in root["causes"] if "CUDA_HOME" in c["exports"]]
    assert exports == ["/usr/local/cuda-11.7"]  # was '/usr/local/cuda-<the CUDA version of torch>'
    first = root["causes"][0]
    assert first["static_rank"] == 0 and first["fix"][0].startswith("export CUDA_HOME=/usr/local/cuda-11.7")
    rc, out, _ = cli("explain", str(tmp_path / "log.txt"))
    assert "export CUDA_HOME=/usr/local/cuda-11.7\n" in out and "<the CUDA version of torch>" not in out


# Lumi-supercomputer/LUMI-AI-Guide#46 (https://github.com/Lumi-supercomputer/LUMI-AI-Guide/issues/46): a venv made
# inside a Singularity container on a path that is not bound into it (EROFS, errno 30)
EROFS = """\
singularity shell $SIF
python -m venv h5-env --system-site-packages
Error: [Errno 30] Read-only file system: '/scratch/project_462000131/mjanicki/h5-env'
"""


def test_a_read_only_path_ranks_the_read_only_cause_above_device_files_and_build_directories(cli, tmp_path):
    _rc, doc = explain_paste(cli, tmp_path, EROFS, quiet=True)
    root = root_of(doc)
    assert root["id"] == "errno.permission"
    texts = [c["text"] for c in root["causes"]]
    ro = next(i for i, t in enumerate(texts) if t.startswith("A path is read-only"))
    dev = next(i for i, t in enumerate(texts) if t.startswith("A device file"))
    assert ro < dev and root["causes"][ro]["evidence"]


def test_a_related_finding_named_by_family_only_says_no_likely_cause():
    result = _result([_cause("root cause", evidence=[{"line": 1, "text": LOG}])])
    related = dict(result["findings"][0], id="nccl.invalid_usage", role="related", confidence="family",
                   title="ncclInvalidUsage", causes=[_cause("Two ranks use the same GPU"), _cause("other")])
    sure = dict(related, id="nccl.sure", causes=[_cause("the cause", evidence=[{"line": 2, "text": "x"}])],
                confidence="cause")
    result["findings"] += [related, sure]
    text = _text(result)
    assert "likely: Two ranks" not in text and "the message names the family, not which cause (2 possible" in text
    assert "    likely: the cause" in text  # a cause its own evidence points at is still named


def test_fixes_that_say_to_compare_release_notes_link_them(kb):
    checked = 0
    for e in kb.entries:
        if not (e["id"].endswith(".library_error") or e["id"] in ("nccl.nvls", "nccl.net_plugin", "cuda.driver_insufficient")):
            continue
        said = " ".join(x for c in e.get("causes", []) for x in c.get("fix", []) + c.get("confirm", []))
        if "release notes" not in said or e["id"] == "apex.library_error":  # NVIDIA/apex publishes no releases
            continue
        urls = [r["url"] for r in e.get("references", [])]
        assert any("/releases" in u or "release-notes" in u for u in urls), (e["id"], urls)
        checked += 1
    assert checked >= 12


def test_clip_cuts_quotes_at_a_sentence_or_word_end():
    from gpudoctor.explain.text import clip

    msg = ("Horovod has been shut down. This was caused by an exception on one of the ranks or an attempt to "
           "allreduce, allgather or broadcast a tensor after one of the ranks finished execution. If the shutdown was")
    assert clip(msg, 200) == msg[:-len(" If the shutdown was")] + " [...]"  # at the sentence's end
    assert clip("word " * 40, 50).endswith("word [...]") and len(clip("word " * 40, 50)) <= 50
    assert clip("x" * 300, 100) == "x" * 94 + " [...]"  # one long token: cut, but marked
    assert clip("short", 100) == "short"


# the texts of fixtures/explain (their READMEs say where each came from): the whole text answer, as a user
# reads it, within 100 columns but for the lines the report keeps whole (a fix or confirm line: one line to paste)
FIXTURES = ["planted-h100-2026-11-25/gloo_late_rank.log", "planted-h100-2026-11-25/loader_shm_64m.log",
            "planted-h100x2-2026-11-25/nccl_mismatch_size.log", "healthy/ds-report-dolly-119-async-io-warnings.log",
            "torch-childfailed-2026-11-26/several_failures.log", "nccl-info-h100-2026-11-25/sameHost-2ranks-duplicate-gpu.log"]
WHOLE = re.compile(r"^(gpudoctor explain: |\s*(?:\S+ )?line \d+: |\s+seen in the log, |\s+confirmed by |\s+first: |"
                   r"\s+export [A-Z_][A-Z0-9_]*=|\s+fix: |\s+confirm: |\s+if it matters: |\s+https?://|  [a-z_]+\.[\w.]+\s+line \d+: )")


def test_the_answers_to_real_texts_fit_100_columns(cli):
    import os

    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "explain")
    for name in FIXTURES:
        _rc, out, _err = cli("explain", os.path.join(here, name))
        assert out.count("\n") > 3, name
        wide = [ln for ln in out.splitlines() if len(ln) > WIDTH and not WHOLE.match(ln)]
        assert not wide, (name, wide)

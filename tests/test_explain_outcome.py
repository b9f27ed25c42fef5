"""explain's reader of what the job went on to do after a line (gpudoctor/explain/outcome.py): healthy logs keep no
root cause, a warning the job went past is a note, and a job that failed keeps its root.

Real texts: tests/data/outcome/ (torchrun + gloo runs made here with torch 2.13 CPU, see its README.md), and
torch's ProcessGroupNCCL warning lines from NVIDIA/nccl#1906 (https://github.com/NVIDIA/nccl/issues/1906)."""

import io
import os

from gpudoctor import explain
from gpudoctor.explain import outcome
from gpudoctor.explain.render import render_text

DATA = os.path.join(os.path.dirname(__file__), "data", "outcome")


def _answer(kb, name):
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        res = explain.explain_text(f.read(), kb)
    return res, (res["findings"][0] if res["findings"] else None)


def test_a_torchrun_restart_that_recovered_keeps_no_root(kb):
    for name in ("torchrun_restart_recovered.log", "torchrun_restart_recovered_info.log"):
        res, root = _answer(kb, name)
        assert (res["verdict"], root) == ("no_error", None), name
        note = next(n for n in res["context"] if n["id"] == "code.exception")
        assert "did not end the run" in note["note"] and "shard /data/part-1.bin" in note["text"]
    # the text answer says why there is no error though lines say something failed
    out = io.StringIO()
    render_text(res, out)
    assert "but the job went on after them" in out.getvalue()
    # the end line quoted is the agent's own, without torch's logging header
    res, _ = _answer(kb, "torchrun_restart_recovered_info.log")
    assert any("(line 91: Local worker group finished (WorkerState.SUCCEEDED)" in n["note"] for n in res["context"])


def test_a_torchrun_restart_that_failed_again_keeps_the_first_attempts_error(kb):
    for name in ("torchrun_restart_fails_again.log", "torchrun_restart_refused_by_remains.log"):
        res, root = _answer(kb, name)
        assert res["verdict"] == "likely_cause", name
        assert root["id"] == "code.exception" and "shard /data/part-1.bin" in root["matches"][0]["text"], name


def test_progress_after_a_launchers_job_failed_report_is_another_run(kb):
    # a failed run's log, then a later run's progress appended to the same file (a requeued job's slurm-%j.out):
    # torchrun's ChildFailedError said the job failed; the later steps do not make the failure a passing warning
    with open(os.path.join(DATA, "torchrun_restart_fails_again.log"), encoding="utf-8") as f:
        failed = f.read()
    with open(os.path.join(DATA, "gloo_loopback_fallback_done.log"), encoding="utf-8") as f:
        later = "".join(ln for ln in f if ln.startswith(("step ", "training done")))
    res = explain.explain_text(failed + later, kb)
    assert res["verdict"] == "likely_cause" and res["root"] == "code.exception"


def test_a_ranks_failure_then_lines_without_a_rank_is_not_that_rank_going_on(kb):
    # rank 1's traceback (the real run's own lines), then step lines without a rank prefix (rank 0's prints): rank 0
    # printing on says nothing of rank 1 (torchrun's 'failed (exitcode ...)' between them would: a restart)
    with open(os.path.join(DATA, "gloo_loopback_fallback_then_valueerror.log"), encoding="utf-8") as f:
        rank1 = "".join(ln for ln in f if ln.startswith("[rank1]:"))
    res = explain.explain_text(rank1 + "step 2 loss 0.3333\nstep 3 loss 0.2500\nstep 4 loss 0.2000\n", kb)
    assert res["verdict"] == "root_cause" and "batch 2 has 0 samples" in res["findings"][0]["matches"][0]["text"]


def test_a_wrappers_done_line_after_the_process_died_is_not_the_jobs_end(kb):
    # 'python train.py; echo "job done"' (a batch script's habit) prints its line whatever python did
    res, root = _answer(kb, "wrapper_done_after_crash.log")
    assert res["verdict"] == "likely_cause" and "inconsistent tensor size" in root["matches"][0]["text"]


def test_a_warning_then_the_run_completed_is_healthy(kb):
    res, root = _answer(kb, "gloo_loopback_fallback_done.log")
    assert (res["verdict"], root) == ("no_error", None)
    assert any("Unable to resolve hostname" in (n["text"] or "") and "training done" in n["note"]
               for n in res["context"])


def test_a_warning_the_job_went_past_is_a_note_and_the_later_failure_the_root(kb):
    res, root = _answer(kb, "gloo_loopback_fallback_then_valueerror.log")
    assert res["verdict"] == "root_cause"
    assert root["id"] == "code.exception" and "batch 2 has 0 samples" in root["matches"][0]["text"]
    went = [n for n in res["context"] if "Unable to resolve hostname" in (n["text"] or "")]
    assert went and all("then the job went on (line 14: step 1 loss 0.5000)" in n["note"] for n in went)
    # the same warning with nothing after it: torch's TORCH_WARN that it used a fallback, nothing else failed, is no
    # root (wrong18, torchwarn.py: P27's healthy sbatch + torchrun run was mpi.hostname)
    with open(os.path.join(DATA, "gloo_loopback_fallback_then_valueerror.log"), encoding="utf-8") as f:
        head = "".join(f.readlines()[:12])
    alone = explain.explain_text(head, kb)
    assert alone["verdict"] == "no_error" and not alone["findings"], alone["findings"]


def test_a_warning_of_what_may_happen_is_not_the_job_hanging(kb):
    # torch's ProcessGroupNCCL warning, printed by every run without device_id (NVIDIA/nccl#1906's log)
    line = ("[rank3]:[W1109 22:17:55.859904220 ProcessGroupNCCL.cpp:4715] [PG ID 0 PG GUID 0 Rank 3]  using GPU 3 as "
            "device used by this process is currently unknown. This can potentially cause a hang if this rank to GPU "
            "mapping is incorrect. You can pecify device_id in init_process_group() to force use of a particular "
            "device.")
    assert outcome.foretells(line)
    # DDP's reducer (torch/csrc/distributed/c10d/reducer.cpp), printed by healthy runs
    assert outcome.foretells("Grad strides do not match bucket view strides. ... grad and param do not obey the "
                             "gradient layout contract. This is not an error, but may impair performance.")
    # a user who says it hangs, whatever it may cause
    assert not outcome.foretells("training hangs at the first allreduce, which could cause the whole job to idle")
    assert not outcome.foretells("[W socket.cpp:663] [c10d] The client socket has failed to connect to "
                                 "[node1]:29500 (errno: 110 - Connection timed out). This may cause a hang")
    res = explain.explain_text(line + "\n" + line.replace("rank3", "rank7").replace("GPU 3", "GPU 7") + "\n", kb)
    assert (res["verdict"], res["root"]) == ("no_error", None)


def test_lines_are_read_as_their_programs_print_them():
    c = outcome.classify
    # Slurm's launch_slurm.c _task_finish; Open MPI's help-errmgr-base.txt; torchrun's ChildFailedError
    assert c("srun: error: node1: task 0: Exited with exit code 1")[0] == "terminal"
    assert c("Primary job  terminated normally, but 1 process returned")[0] == "terminal"
    assert c("mpirun noticed that process rank 1 with PID 4242 on node gpu02 exited on signal 9 (Killed).")[0] == \
        "terminal"
    assert c("slurmstepd: error: *** STEP 812.0 ON gpu01 CANCELLED AT 2026-11-26T10:00:00 ***")[0] == "terminal"
    # DeepSpeed's launch.py, nccl-tests' common.cu, scontrol / sacct, torchrun's agent
    assert c("[2024-01-01 10:00:00,000] [INFO] [launch.py:351:main] Process 4242 exits successfully.")[0] == "end"
    assert c("# Avg bus bandwidth    : 84.2106 ")[0] == "end"
    assert c("   JobState=COMPLETED Reason=None Dependency=(null)")[0] == "end"
    assert c("12345        train.sh       gpu      acct          8  COMPLETED      0:0 ")[0] == "end"
    # tqdm's format_meter (its rate '1.52s/it' is no word of narration), counters, loss
    assert c(" 3%|▎         | 30/1000 [00:10<05:00,  1.52s/it]") == ("progress", "tqdm", 30.0)
    assert c("{'loss': 2.0312, 'learning_rate': 4.9e-05, 'epoch': 0.5}")[:2] == ("progress", "epoc")
    assert c("Epoch [3/10] step 120 loss 0.412")[0] == "progress"
    # not progress, not an end: a sentence about a run, a tool's backtrace line, a non-zero status, NCCL INFO
    assert c("The crash may occur early (epoch 2) or after many epochs.")[0] is None
    assert c("=========     Saved host backtrace up to driver entry point at kernel launch time")[0] is None
    assert c("job finished with status 135")[0] is None
    assert c("node1:123:456 [0] NCCL INFO comm 0x5 rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE")[0] is None


def test_reading_a_tail_is_linear():
    # 32 KiB of one line of counters and words, and of many short ones: well under a second each
    for data in ((b"step 1 loss 2 " * 3000)[:1 << 15], (b"epoch 1 step 2 done 3%|| 1/2 [\n" * 1200)[:1 << 15],
                 (b"a" * (1 << 15))):
        out = outcome.read_tail("<t>", data.count(b"\n") + 1, data)  # CPU time (bound 0.5 s each): bench/cpu_bounds.py
        assert out["last"] >= out["first"] - 1
    # scan keeps an input's last 32 KiB: its first line may be the end of a longer one (not read), the line that
    # starts the last 400 is whole (read)
    body = b"".join(b"step %d loss 0.5\n" % i for i in range(1000))
    data = (b"RuntimeError: CUDA error\n" + body)[-(1 << 15):]
    out = outcome.read_tail("<t>", 5000, data)
    assert out["first"] == 5000 - 400 + 1 and out["events"][0][:2] == (out["first"], "progress")
    data = b"Error: half of a line\n" + b"x" * ((1 << 15) - 37) + b"\nstep 1 loss 2\n"
    assert len(data) == 1 << 15
    out = outcome.read_tail("<t>", 3, data)
    assert out["first"] == 2 and [e[1] for e in out["events"]] == ["progress"]


def test_an_input_not_read_to_its_end_says_nothing_of_how_the_job_ended(kb, tmp_path, monkeypatch):
    # a scan its deadline stopped after its first block: the failure, then progress, were read; the end (here an
    # uncaught OOM) was not. 'The job went on after them' is not what the text shows: the failure stays the root
    from gpudoctor.explain import scan as S

    log = tmp_path / "job.log"
    log.write_text("[W1126 14:18:30.553031943 socket.cpp:663] [c10d] The client socket has failed to connect to "
                   "[node1]:29500 (errno: 110 - Connection timed out).\n" +
                   "".join("step %d loss 0.5\n" % i for i in range(8000)) +
                   "Traceback (most recent call last):\ntorch.OutOfMemoryError: CUDA out of memory.\n")
    doc = explain.explain_file(str(log), kb=kb)
    assert doc["stopped_early"] is None and doc["root"] == "cuda.oom"
    monkeypatch.setattr(S, "BLOCK", 1 << 16)  # (the log is 2 blocks and more)
    judged = []
    real = S._scan_buffer

    def one_block(*a):
        real(*a)
        judged.append(1)

    monkeypatch.setattr(S, "_scan_buffer", one_block)
    monkeypatch.setattr(S.Scan, "stop_reason", lambda self: "timeout" if judged else None)
    doc = explain.explain_file(str(log), kb=kb)
    assert doc["stopped_early"] and doc["verdict"] == "root_cause" and doc["root"] != "cuda.oom", doc["verdict"]
    assert not any("went on" in (n.get("note") or "") for n in doc["context"])

"""Red-team findings of 2026-11-26, sixth round (this session's explain mechanisms: the launch context read from
the text, the innermost exception read by meaning, the job's outcome from each input's tail, the symptoms told in
words, the waits, NCCL's known bugs by symptom), each held by a test that tries more than the reproducer. CPU-time
bounds (time.process_time), not wall time.

- explain/launchctx.py: two computed fixes put words of a pasted command line into a fix unquoted: the launcher's
  path of 'srun ... torchrun' (slurm.launcher_times_tasks: `srun '/o/x;touch PWN;/torchrun' ...` printed
  `... /o/x;touch PWN;/torchrun ...`) and the arguments of a batch script's `python x.py ARGS` (slurm.one_node_used:
  `srun python train.py $(touch PWN)`). Pasted, the fix ran touch. Each word is now one shell word (fixline.sh).
- the NCCL known bugs of kind 'error' (7ea461e) read the words of a failure (tools/gen_nccl_releases.py WORDS
  'fails') as a signal of each of three entries: the same regex, searched three times on every line that holds
  one of its needles, and with its non-ASCII needles (报错, 失败) the scan's squashed prefilter cannot rule out
  the joins with a line's continuation lines: 1 MB of distinct 4 KiB lines with 'error' in them took 9.0 s of CPU
  against 4.7 s at 0cc09ff. The scan now searches a regex once per line (scan._evaluate: the same source, flags
  and needles answer the same).
- explain/advice.py: the remedy an exception's message states was quoted into the root's first fix inside double
  quotes ('the message says: "..."'), where bash still runs $(...), backticks and $VAR: a message saying
  'please use --b$(touch PWN)' ran touch when the fix line was pasted whole. Such a remedy is one single-quoted word.
- explain/scan.py: a scan stopped by its deadline inside a block named the line after the block (the loop over
  blocks wrote its own stop over the block's), as if the lines before had been judged: an OOM on line 5 read
  'stopped at line 63775', 'no error found'. The stop names the first line not judged.
- explain/outcome.py: a healthy verdict after a real failure can be forced by appending progress lines (see
  docs/security.md 25.): the failure is never dropped (it stays a note, with its line and the line that showed
  progress), and a launcher's report that the job failed anywhere in the text keeps the root.

Tried and held (no test here): 1 MiB single lines of 'step 1 ', 'loss: 1.0 ', 'During handling ...', '$ srun -n 2 ',
'rank 0 of 1 ', CJK, 'Expected all tensors ', 'TORCH_LOGS_ ', 'a potential way to fix is ', srun's step retries,
'[Errno 28] No space', quoted names (1.1-1.6 s each, as at 0cc09ff); 10^5 chained tracebacks ('During handling',
17 MB: 41 s against 35 s, the same growth); 50,000 tracebacks with 6-line messages (5.7 s against 5.0 s); 10^6
progress lines with counters going up and down (the tail alone is read: outcome.MAX_LINES); 5,000-digit step
numbers; 10^5 ranks' 'rank 0 of 1' / Lightning MEMBER lines (7.8 MB: 7.4 s against 1.3 s, each line a candidate of
launchctx's patterns, ~30 us a line as every other candidate; kept at MAX_ALONE); 10^5 srun command lines (78 s
against 76 s); 10^5 'Caught X in replica N' lines; payloads in CUDA_VISIBLE_DEVICES values, RANK values, exception
messages (excmeaning quotes paths, variable names and options through fixline.sh), srun step waits; the seen held-out
texts (1,332 variants) with quoted words, script names, paths and VAR= values set to three payloads: no fix line runs
a payload when pasted; invalid UTF-8, NUL, ESC/OSC, U+202E, lone surrogates and CR in a file through the launch,
exception, progress and step-wait readers: the text report has no control character, --json parses; every module
regex of the new readers on 4 KiB shapes of its own literals: under 10 ms a search.
"""

import time

import pytest

from gpudoctor.explain import explain_text
from gpudoctor.fixline import sh

from test_redteam_2026_11_26d import BASH, PAYLOADS, paste


def _cpu(fn, *args):
    t0 = time.process_time()
    got = fn(*args)
    return got, time.process_time() - t0


def _commands(line):
    """The commands a reader copies out of a fix line of words and commands: from each 'srun ' to the next
    ' (' or '; or ' (a whole line with its prose is a syntax error in bash, and runs nothing)."""
    import re

    return [m.group(0) for m in re.finditer(r"srun (?:(?! \(|; or ).)*", line)]


def _fix_lines(doc):
    out = [x for f in doc["findings"] for c in f.get("causes") or () for x in c.get("fix") or ()]
    out += [n["fix"] for n in doc.get("context") or () if n.get("fix")]
    return out


# ------------------------------------------------------------------ launchctx: the text's words in a computed fix

# srun(1) runs --ntasks-per-node copies of the command: torchrun started 8 times per node (the error is torch's
# TCPStore bind, torch/csrc/distributed/c10d/TCPStore.cpp / socket.cpp)
TIMES_TASKS = ("#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=8\n"
               "$ srun %s --nproc-per-node=8 train.py\n"
               "[rank0]: RuntimeError: The server socket has failed to listen on any local network address. The server "
               "socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).\n")
# sbatch(1): the batch script runs once, on the first node; the store waits for the 15 ranks never started
# (torch/distributed/rendezvous.py, TCPStore's 'Timed out after %d seconds waiting for clients')
ONE_NODE = ("#SBATCH --nodes=2\n#SBATCH --ntasks=16\npython train.py --lr 1e-4 %s\n"
            "initializing ddp: GLOBAL_RANK: 0, MEMBER: 1/16\n"
            "torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. 1/16 clients joined.\n")


def _launch_texts(payload):
    from shlex import quote

    yield "slurm.launcher_times_tasks", TIMES_TASKS % quote("/o/%s/torchrun" % payload)
    yield "slurm.one_node_used", ONE_NODE % quote(payload)


@pytest.mark.skipif(BASH is None, reason="no bash")
def test_a_launch_lines_words_stay_one_shell_word_in_its_fix(tmp_path):
    lines = []  # the loop's CPU time (bound 5 s): bench/cpu_bounds.py
    for payload in PAYLOADS:
        for eid, text in _launch_texts(payload):
            doc = explain_text(text)
            assert doc["findings"] and doc["findings"][0]["id"] == eid, (eid, payload, doc["verdict"])
            fixes = _fix_lines(doc)
            mine = [x for x in fixes if "MARKER" in x]
            assert mine, (eid, payload, fixes)  # the value does reach the fix ...
            word = sh("/o/%s/torchrun" % payload) if eid == "slurm.launcher_times_tasks" else sh(payload)
            assert any(word in x for x in mine), (word, mine)  # ... as one quoted word
            lines += fixes + [c for x in fixes for c in _commands(x)]
    assert paste(lines, tmp_path) == []
    assert len(lines) > 40
    # the harness sees the commands as they were printed before (the words bare)
    bare = ["one launcher per node: srun --ntasks-per-node=1 (#SBATCH --ntasks-per-node=1) /o/$(touch MARKER)/torchrun "
            "...; or no launcher", "srun python train.py --lr 1e-4 x;touch MARKER;# (srun starts the allocation's 16 "
            "tasks)"]
    (tmp_path / "again").mkdir()
    assert paste([c for x in bare for c in _commands(x)], tmp_path / "again") == ["MARKER"]


# ------------------------------------------------------------------ the scan: one regex searched once per line

def test_a_regex_several_entries_share_is_searched_once_a_line(kb, monkeypatch):
    # NCCL's known bugs of kind 'error' (versions._symptom_entry) each read the words of a failure as a signal:
    # three patterns of one source, each searched on every line with 'error' in it, with the joins of its
    # continuation lines (their non-ASCII needles keep the squashed prefilter out): 1 MB of distinct 4 KiB lines
    # of such words took 9.0 s of CPU against 4.7 s at 0cc09ff; 6.1 s now
    from collections import Counter

    from gpudoctor.explain import scan as S

    shared = Counter((p.source, tuple(p.needles_b)) for p in kb.patterns if p.role == "signal")
    assert max(shared.values()) >= 3, shared.most_common(1)  # (the case this guards)
    calls, orig = Counter(), S._search_text

    def counting(p, text0, *a, **k):
        calls[(text0, p.source, tuple(p.needles_b), a[-2] if len(a) >= 2 else None)] += 1
        return orig(p, text0, *a, **k)

    monkeypatch.setattr(S, "_search_text", counting)
    lines = ["[%d] RuntimeErrorx failx crashx: the step %d errorx " % (i, i) + "ab " * 40 for i in range(200)]
    doc, cpu = _cpu(explain_text, "\n".join(lines) + "\n")
    assert calls and max(calls.values()) == 1, [k[1:] for k, _n in calls.most_common(2)]
    assert cpu < 3, cpu
    # what the shared words are for still reads: each entry keeps its signal
    with_words = "NCCL version 2.26.2+cuda12.8\nNCCL WARN Cuda failure 'out of memory' on an RTX 5090 (sm_120)\n"
    assert explain_text(with_words)["findings"]


# ------------------------------------------------------------------ outcome: progress appended after a real failure

# an uncaught exception as CPython's default excepthook prints it (the process ends there); the message is torch's
# (c10/cuda/CUDACachingAllocator.cpp)
DIED = ("step 10 loss 2.3100\nTraceback (most recent call last):\n  File \"train.py\", line 10, in <module>\n"
        "    loss.backward()\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
        "capacity of 79.15 GiB of which 1.20 GiB is free.\n")


def test_progress_appended_after_a_process_died_keeps_its_root():
    # before: two step lines after the uncaught OOM made the answer 'no error' (outcome.went_on); a process that
    # died prints no progress of its own, so such lines are another process's or appended
    for tail in ("step 11 loss 2.3000\nstep 12 loss 2.2900\n", "Epoch 1: 100%|##########| 30/30 [00:03<00:00]\n" * 2,
                 "".join("step %d loss 1.0\n" % i for i in range(11, 400)),
                 # the failure line before the tail outcome reads (outcome.MAX_LINES): read from its own text
                 "".join("step %d loss 1.0\n" % (i * 7919 % 100003) for i in range(11, 2000))):
        doc = explain_text(DIED + tail)
        assert doc["verdict"] == "root_cause" and doc["findings"][0]["id"] == "cuda.oom", (tail[:30], doc["verdict"])
    # what stays forgeable (docs/security.md 25.): the job's own end line; the failure is then a note, never dropped
    doc = explain_text(DIED + "{'train_runtime': 62.03, 'train_loss': 0.41, 'epoch': 3.0}\n")
    assert doc["verdict"] == "no_error"
    assert any(n["id"] == "cuda.oom" and n["first_line"] == 5 and "line 6" in n["note"] for n in doc["context"]), \
        doc["context"]
    # ... and a launcher's report that the job failed, anywhere in the text, keeps the root whatever follows
    doc = explain_text(DIED + "srun: error: node1: task 0: Exited with exit code 1\n"
                       "{'train_runtime': 62.03, 'train_loss': 0.41, 'epoch': 3.0}\nstep 11 loss 2.3\nstep 12 loss 2.2\n")
    assert doc["verdict"] == "root_cause" and doc["findings"][0]["id"] == "cuda.oom", doc["verdict"]
    # a caught error the run went past (no process died: its own line, not an exception's last line) still reads so
    doc = explain_text("step 10 loss 2.31\nWARNING: CUDA out of memory, retrying with a smaller batch\n"
                       "step 11 loss 2.30\nstep 12 loss 2.29\n")
    assert doc["verdict"] == "no_error", doc["verdict"]


# ------------------------------------------------------------------ advice: the message's own words in a fix line

# an exception whose message says what to do, over two lines (pytb keeps the lines after the exception line: tb['more'];
# advice.py quotes the remedy as the root's first cause: 'the message says: "..."')
ADVICE = ('Traceback (most recent call last):\n  File "t.py", line 1, in <module>\n    f()\n'
          "ValueError: the option `a%s` must be set; please use --b%s instead\nor set TORCH_X=1 %s first\n")


@pytest.mark.skipif(BASH is None, reason="no bash")
def test_a_messages_advice_quoted_in_a_fix_never_runs(tmp_path):
    # before: the remedy stood inside double quotes, where bash still runs $(...) and backticks: pasting the fix
    # line 'the message says: "please use --b$(touch X) instead"' ran touch (advice.py since 0cc09ff; the
    # innermost exception's advice and its multi-line messages give it more of the text now)
    lines = []
    for payload in PAYLOADS + ["$HOME\\x", "a\x1b]0;t\x07b"]:
        doc = explain_text(ADVICE % (payload, payload, payload))
        said = [x for x in _fix_lines(doc) if x.startswith("the message says: ")]
        assert said and any("--b" in x for x in said), (payload, _fix_lines(doc))
        lines += said
    assert not any("\x1b" in x or "\n" in x for x in lines)
    assert paste(lines, tmp_path) == []
    # plain words keep their double quotes (the message's own text, as before)
    doc = explain_text(ADVICE % ("x", "y", "z"))
    assert 'the message says: "please use --by instead or set TORCH_X=1 z first"' in _fix_lines(doc), _fix_lines(doc)
    (tmp_path / "again").mkdir()
    assert paste(['the message says: "please use --b$(touch MARKER) instead"'], tmp_path / "again") == ["MARKER"]


# ------------------------------------------------------------------ the deadline: where it stopped is what was judged

def test_a_deadline_stop_names_the_first_line_it_did_not_judge(tmp_path, monkeypatch):
    # before: the scan stopped at its deadline inside a block (no candidate line of it judged) and the loop over
    # blocks then wrote its own stop over it, the line after the block: 'stopped at line 63775' for a log whose
    # OOM on line 5 was never judged, as if the lines before had no error ('NO ERROR FOUND')
    from gpudoctor.explain import exit_code, explain_file
    from gpudoctor.explain import scan as S

    log = tmp_path / "job.log"
    log.write_text(DIED + "".join("RuntimeError: Caught RuntimeError in replica %d on device %d.\n" % (i, i % 7)
                                  for i in range(300)))
    asked = []

    def reason(self):  # the deadline passes once the first block is read (as a slow first block does)
        asked.append(1)
        return "timeout" if len(asked) > 1 else None

    monkeypatch.setattr(S.Scan, "stop_reason", reason)
    doc = explain_file(str(log))
    monkeypatch.undo()
    st = doc["stopped_early"]
    assert st and st["reason"] == "timeout" and st["line"] <= 5, st
    assert doc["verdict"] != "no_error" or exit_code(doc) == 1  # not judged: never a healthy exit
    doc = explain_file(str(log))
    assert doc["stopped_early"] is None and doc["findings"][0]["id"] == "cuda.oom"

"""wrong17's readers one at a time (mutation17, docs/mutation.md "Round 12"): rootguard's structured-logger records
(_quiet_record_file, _not_the_records, structured_warning) and launchctx's #SBATCH lines after the first command
(_ignored_directives). The records are in zap's JSON form (go.uber.org/zap: "level", "ts", "caller" as TrimmedPath
writes it), as leptonai/gpud#1170 shows them (https://github.com/leptonai/gpud/pull/1170); the whole paths are
tests/test_explain_wrong17.py's."""

from types import SimpleNamespace as NS

from gpudoctor.explain import launchctx, rootguard

GPUD = ('{"level":"warn","ts":"2025-12-05T04:45:04.257Z","caller":"memory/memory.go:97","msg":"NVML memory APIs not '
        'supported, falling back to system memory","error":"Not Supported"}')


def test_quiet_record_and_its_callers_file():
    assert rootguard._quiet_record_file(GPUD) == (True, "memory.go")
    assert rootguard._quiet_record_file("   " + GPUD) == (True, "memory.go")  # indented: read after the spaces
    assert rootguard._quiet_record_file(GPUD.replace("memory/memory.go", "pkg/gpud/memory.go")) == (True, "memory.go")
    assert rootguard._quiet_record_file(GPUD.replace("memory/memory.go", "memory.go")) == (True, "memory.go")
    # a Windows build's caller (JSON escapes the backslash)
    assert rootguard._quiet_record_file(GPUD.replace("memory/memory.go", "pkg\\\\gpud\\\\memory.go")) == \
        (True, "memory.go")
    assert rootguard._quiet_record_file(GPUD.replace(',"caller":"memory/memory.go:97"', "")) == (True, None)
    assert rootguard._quiet_record_file('{"level":"info","msg":"x","caller":"a/b.py:3"}') == (True, "b.py")
    assert rootguard._quiet_record_file(GPUD.replace('"warn"', '"error"')) == (False, None)  # its failure level
    assert rootguard._quiet_record_file(None) == (False, None)


def _h(text, where=None, site=True):
    pattern = NS(site={"where": where} if where is not None else {}) if site else NS()
    return NS(text=text, pattern=pattern)


def test_a_record_read_by_another_files_site_is_not_its_own():
    assert rootguard._not_the_records(_h(GPUD, "python/sglang/srt/utils.py:123")) is True
    assert rootguard._not_the_records(_h(GPUD, "pkg/memory/memory.go:97")) is False  # its own file
    assert rootguard._not_the_records(_h(GPUD, "memory.go:97")) is False
    assert rootguard._not_the_records(_h(GPUD, "C:\\gpud\\memory\\memory.go:97")) is False
    assert rootguard._not_the_records(_h(GPUD, "C:\\gpud\\nvml\\nvml.go:97")) is True
    assert rootguard._not_the_records(_h(GPUD, "")) is True  # a code's meaning: no file of its own
    no_caller = GPUD.replace(',"caller":"memory/memory.go:97"', "")
    assert rootguard._not_the_records(_h(no_caller, "")) is True
    assert rootguard._not_the_records(_h(no_caller, "python/sglang/srt/utils.py:123")) is False  # may be its own
    assert rootguard._not_the_records(_h(GPUD, site=False)) is False  # a hand pattern: no site
    assert rootguard._not_the_records(NS(text=GPUD, pattern=None)) is False
    assert rootguard._not_the_records(_h(GPUD.replace('"warn"', '"error"'), "x/y.py:1")) is False


OTHER = _h(GPUD, "python/sglang/srt/utils.py:123")


def _m(hits=(OTHER,), lines=None, **flags):
    return dict(hits=list(hits), lines=lines if lines is not None else list(range(len(hits))), **flags)


def test_structured_warning_takes_out_only_entries_whose_every_line_is_such_a_record():
    by = {e: {"kind": "error"} for e in "abcdef"}
    by["d"] = {"kind": "echo"}
    matched = {"a": _m(together=True), "b": _m(distinct=True), "c": _m(), "d": _m(), "e": _m(lines=[1, 2]),
               "f": _m(hits=())}
    order, gone = rootguard.structured_warning(list("abcdef"), matched, by)
    assert gone == ["c"] and order == list("abdef")
    assert rootguard.structured_warning(["e", "c"], matched, by) == (["e"], ["c"])  # e skipped, c still read
    matched["c"] = _m(hits=(OTHER, _h(GPUD, "pkg/memory/memory.go:97")))
    assert rootguard.structured_warning(list("abcdef"), matched, by) == (list("abcdef"), [])


def _ignored(*lines):
    cmd = (3, "module load cuda/12.4")
    return NS(ignored=[(n, t, cmd) for n, t in lines])


FIX = ("move every #SBATCH line to the top of the script, right after #!/bin/bash and before the first command "
       "(module load, source, export ...); sbatch --test-only <script> or scontrol show job <id> shows what the job "
       "was given")


def test_sbatch_lines_after_the_first_command_said_whole():
    out = []
    launchctx._ignored_directives(_ignored((5, "#SBATCH --nodes=2")), out)
    f, = out
    assert (f.eid, f.fix, f.symptoms) == ("slurm.sbatch_directive_ignored", FIX,
                                          launchctx.SHORT | launchctx.HANG | launchctx.ORDINAL)
    assert f.what == ("the batch script's #SBATCH line 5 comes after its first command (line 3: module load "
                      "cuda/12.4): sbatch stops reading #SBATCH directives at the first line that is not a comment, "
                      "so the job ran without --nodes=2")
    assert f.ev == [(3, "module load cuda/12.4"), (5, "#SBATCH --nodes=2")]
    out = []
    launchctx._ignored_directives(_ignored(*[(n, "#SBATCH --opt%d=%s" % (n, "v" * 30)) for n in range(5, 12)]), out)
    f, = out
    assert f.what.startswith("the batch script's #SBATCH lines 5, 6, 7, 8, 9, 10 come after its first command")
    assert f.what.endswith("so the job ran without " + " ".join("--opt%d=%s" % (n, "v" * 30) for n in range(5, 12))[:200])
    assert f.ev == [(3, "module load cuda/12.4")] + [(n, "#SBATCH --opt%d=%s" % (n, "v" * 30)) for n in range(5, 9)]
    out = []  # two lines, after a command longer than the 80 characters quoted
    long_cmd = (3, "srun --export=ALL bash -c 'source /shared/envs/train/bin/activate && python train.py --config a.yaml'")
    launchctx._ignored_directives(NS(ignored=[(5, "#SBATCH --nodes=2", long_cmd), (6, "#SBATCH -n 16", long_cmd)]), out)
    assert out[0].what == ("the batch script's #SBATCH lines 5, 6 come after its first command (line 3: %s): sbatch "
                           "stops reading #SBATCH directives at the first line that is not a comment, so the job ran "
                           "without --nodes=2 -n 16" % long_cmd[1][:80])
    out = []
    launchctx._ignored_directives(NS(ignored=[]), out)
    assert out == []

"""Red-team findings of 2026-11-26, fourth round (this session's explain changes: a matched message's
values filled into its fix, failures told in words, NCCL versions read from logs; and the last round's
leftovers: duplicate keys in facts files), each held by a test that tries more than the reproducer.

- explain's filled fix lines: a value the pasted line gives is one shell word (fixline.sh), but a
  template that puts its slot inside its own quotes (transformers' "requires `accelerate>=%s`" row:
  pip install -U 'accelerate>={%1|...}') closed those quotes with the value's own, so a pasted
  "accelerate>=0.26;touch${IFS}PWN;#" printed `pip install -U 'accelerate>='0.26;touch${IFS}PWN;#''`:
  pasting the fix ran touch. Now a value that needs quoting is not put inside the template's quotes
  (the slot keeps its words there); a plain value (0.26.0) still is.
- facts files: an object naming a key twice was read as Python reads it (the last one), so a `facts
  --hosts` map naming a host twice silently lost a node, and a file could read one way under one
  tool and another here (RFC 8259 section 4). Now refused, exit 2 (errors.unique_pairs: dict() and a
  length compare, C speed). A DeepSpeed config naming a key twice is refused as DeepSpeed refuses it
  (deepspeed/runtime/config_utils.py dict_raise_error_on_duplicate_keys); plan reasoned on the last value.
- explain: the prefix pattern of pdsh/DeepSpeed lines ('worker-0: ', text.py) had overlapping nested repeats,
  so a line of dotted names with no ':' ('libnccl.so.2.' * 80000, 1 MiB) cost 171 s of CPU (quadratic: the
  line cut into its names each way). Rewritten without them: the same names (compared on random strings),
  0.7 s for that MiB. origin()'s copy of the pattern (the host of each line read back from a traceback) was
  quadratic on a digit run: 4.7 MB of tracebacks of 4,000-digit lines took 49 s, now 0.8 s.

Tried and held (no test here): `probe --mode tcp` and `check` through srun on the 4-node test Slurm with one
node printing escapes, a fake ready event and a 5 MiB line (garbage), one hanging (hang / timeout), one
without the interpreter (python-missing): each node's own finding, within the budget, cleanup 0 left,
no control character in the output, --json valid. Filled values with ESC/OSC, bidi, NUL, U+2028, invalid
UTF-8 and 100 KB through `explain` and `--json`. The tolerant words and the NCCL version readers on 1 MiB
lines (350k one-char words 0.07 s; 'NCCL 2.19.' / 'libnccl2=2.' / 'torch==2.1.' repeated 0.1 s).
"""

import json
import os
import random
import shutil
import subprocess
import time

import pytest

from conftest import node_facts
from gpudoctor.explain import explain_text, slots, text
from gpudoctor.explain.knowledge import generated_files, read_json, table_name

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = os.path.join(REPO, "gpudoctor", "data", "knowledge", "generated")
BASH = shutil.which("bash")

# values that run `touch MARKER` if they reach a shell unquoted or close a quote they stand in
PAYLOADS = ["x;touch MARKER;#", "$(touch MARKER)", "`touch MARKER`", "a'; touch MARKER; echo '",
            'a"; touch MARKER; echo "', "x&&touch MARKER", "x|touch MARKER", "a\\'; touch MARKER #",
            "0.26;touch${IFS}MARKER;#"]


def paste(lines, tmp_path):
    """Each line alone in a restricted bash (no redirection, no command with a slash) whose PATH holds
    only touch, as tests/test_fix_paste.py pastes report lines; the files left in the box."""
    box, bindir = tmp_path / "box", tmp_path / "bin"
    box.mkdir()
    bindir.mkdir()
    os.symlink(shutil.which("touch"), str(bindir / "touch"))
    listing = tmp_path / "lines.txt"
    with open(str(listing), "w", encoding="utf-8", errors="surrogateescape") as f:
        for line in lines:
            assert "\n" not in line
            f.write(line + "\n")
    script = 'while IFS= read -r line <&3; do ( eval "$line" ) </dev/null; done 3<"$1"; touch DONE'
    subprocess.run([BASH, "--norc", "--noprofile", "-r", "-c", script, "paste", str(listing)], cwd=str(box),
                   env={"PATH": str(bindir), "HOME": str(box), "LC_ALL": "C"}, timeout=60,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    left = sorted(os.listdir(str(box)))
    assert "DONE" in left  # every line was pasted
    return [n for n in left if n != "DONE"]


def _slotted_sites():
    for path in generated_files():
        name = table_name(path)
        for s in read_json(path)["sites"]:
            if any(slots.slots_of(x) for x in s.get("fix") or ()):
                yield name, s


def _line_of(site, name, value):
    """A line the site prints, each string conversion the value (numbers a sample of their kind)."""
    sample = {"d": "4321", "i": "4321", "u": "4321", "x": "7f3a", "X": "7F3A", "o": "17", "p": "0x7f3a", "c": "Z"}
    out = []
    for kind, v in slots.conversions(site["text"], name.startswith("slurm")):
        out.append(v if kind == "lit" else sample.get(v, "1.5" if v in "eEfgG" else value))
    return " ".join("".join(out).split())


TRAINER = ("ImportError: Using the `Trainer` with `PyTorch` requires `accelerate>=%s`: Please run `pip install "
           "transformers[torch]` or `pip install 'accelerate>=0.26.0'`")


def _fixes(text):
    doc = explain_text(text)
    return [x for f in doc["findings"] for c in f.get("causes") or () for x in c.get("fix") or ()]


@pytest.mark.skipif(BASH is None, reason="no bash")
def test_a_value_never_closes_the_quotes_its_fix_line_puts_it_in(tmp_path):
    fixes = _fixes(TRAINER % "0.26;touch${IFS}MARKER;#")
    pip = [x for x in fixes if x.startswith("pip install -U 'accelerate>=")]
    assert pip == ["pip install -U 'accelerate>=<the release named>' (or pip install 'transformers[torch]') in the "
                   "job's environment, the same on every node"], fixes
    # before: pip install -U 'accelerate>='0.26;touch${IFS}MARKER;#'' ... (the harness sees it run)
    assert paste(["pip install -U 'accelerate>='0.26;touch${IFS}MARKER;#''"], tmp_path) == ["MARKER"]
    # a plain value is still filled there
    fixes = _fixes(TRAINER % "0.26.0")
    assert any(x.startswith("pip install -U 'accelerate>=0.26.0' (or") for x in fixes), fixes


@pytest.mark.skipif(BASH is None, reason="no bash")
def test_every_slotted_fix_line_with_a_hostile_value_runs_nothing_when_pasted(tmp_path):
    lines, filled = set(), 0
    for name, s in _slotted_sites():
        for p in PAYLOADS:
            _means, fix, used = slots.fill(dict(s, source=name), _line_of(s, name, p))
            filled += bool(used)
            lines.update(fix)
    assert filled > 300 and len(lines) > 150, (filled, len(lines))  # the values do reach the fixes
    assert paste(sorted(lines), tmp_path) == []


# ------------------------------------------------------------------ duplicate keys in facts files and configs

def _one_line_exit_2(rc, err):
    assert rc == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


def test_a_facts_file_that_names_a_key_twice_is_refused(cli, tmp_path):
    # RFC 8259 section 4: names SHOULD be unique; Python and jq keep the last, other readers the first or
    # refuse, so one file read two ways (a review with one tool, a check with another) is refused here
    good = node_facts("h100-ubuntu2404-torch211")
    text = json.dumps(good)
    (tmp_path / "good.json").write_text(text)
    cases = {
        "top.json": text.replace("{", '{"node": "gpu-evil", ', 1),  # the node's name, twice
        "nested.json": text.replace('"memory_total_mib": 81559', '"memory_total_mib": 81559, "memory_total_mib": 1'),
        # a `facts --hosts` map naming one host twice silently dropped a node
        "map.json": '{"gpu1": %s, "gpu2": %s, "gpu1": %s}' % (text, text, text),
    }
    assert cases["nested.json"] != text
    for name, body in cases.items():
        (tmp_path / name).write_text(body)
        for args in (("check", "--facts", tmp_path / name), ("diff", tmp_path / "good.json", tmp_path / name)):
            rc, out, err = cli(*args)
            _one_line_exit_2(rc, err)
            assert "appears twice in one object" in err and name in err, (name, err)
    rc, out, err = cli("diff", tmp_path / "good.json", tmp_path / "good.json")
    assert rc == 0, err


def test_a_deepspeed_config_with_a_key_twice_is_refused_as_deepspeed_refuses_it(cli, tmp_path):
    # deepspeed/runtime/config_utils.py dict_raise_error_on_duplicate_keys: "Duplicate keys in DeepSpeed config"
    ds = tmp_path / "ds.json"
    ds.write_text('{"train_batch_size": 16, "train_micro_batch_size_per_gpu": 2, '
                  '"zero_optimization": {"stage": 2, "stage": 3}, "train_batch_size": 8}')
    rc, out, err = cli("plan", "--launch", "torchrun --nproc-per-node 8 train.py", "--deepspeed-config", ds)
    _one_line_exit_2(rc, err)
    assert "Duplicate keys in DeepSpeed config" in err and "'stage'" in err, err
    ds.write_text('{"train_batch_size": 16, "train_micro_batch_size_per_gpu": 2}')
    rc, out, err = cli("plan", "--launch", "torchrun --nproc-per-node 8 train.py", "--deepspeed-config", ds)
    assert rc == 0, err


# ------------------------------------------------------------------ explain: a prefix regex that was quadratic

def _cpu(fn, *args):
    t0 = time.process_time()
    got = fn(*args)
    return got, time.process_time() - t0


def test_a_long_line_of_dotted_names_costs_linear_time():
    # text.py's pdsh/deepspeed prefix (?:[\w-]+\.)*[\w-]*\d[\w.-]*: tried each split of the line's dotted
    # names when no ':' followed: 'libnccl.so.2.' * 80000 (1 MiB, one line) took 171 s of CPU in explain
    # (130 KB: 2.8 s, 4x the size 16x the time); now about 0.7 s for the MiB
    line = "libnccl.so.2." * 20000  # 260 KB: 10-20 s before
    (body, removed), cpu = _cpu(text.strip_prefix, line)
    assert (body, removed) == (line, False) and cpu < 0.5, cpu
    doc, cpu = _cpu(explain_text, line + "\n" + ("worker-1.gpu.2: " + line[:3000] + "\n") * 8)
    assert doc["lines"] == 9 and cpu < 4, cpu


def test_the_linear_prefix_takes_the_same_names_as_before():
    import re

    old = re.compile(r"(?:[\w-]+\.)*[\w-]*\d[\w.-]*:(?=\s)")
    new = re.compile(text._PREFIXES[-1])
    old_b, new_b = re.compile(old.pattern.encode()), re.compile(new.pattern.encode())
    rnd = random.Random(7)
    alphabet = "ab1.-_: \t\u00e9\u0663Z9"  # letters, digits (an Arabic-Indic one too), the name's punctuation
    for _ in range(20000):
        s = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 12)))
        a, b = old.match(s), new.match(s)
        assert (a and a.end()) == (b and b.end()), s
        a, b = old_b.match(s.encode()), new_b.match(s.encode())
        assert (a and a.end()) == (b and b.end()), s
    # origin()'s copy of it, with the host as its group
    old_o = re.compile(r"((?:[\w-]+\.)*[\w-]*\d[\w.-]*):(?=\s)")
    new_o = [rx for rx, kind in text._ORIGINS if kind == "host"][-1]
    for _ in range(20000):
        s = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 12)))
        a, b = old_o.match(s), new_o.match(s)
        assert (a and (a.end(), a.group(1))) == (b and (b.end(), b.group(1))), s
    for prefix in ("worker-0: ", "10.0.0.1: ", "gpu-a07.cluster.local: ", "node12.x: "):
        assert text.strip_prefix(prefix + "RuntimeError: x") == ("RuntimeError: x", True), prefix
        assert text.origin(prefix + "RuntimeError: x")[1] == prefix[:-2], prefix


def test_the_origin_of_a_long_digit_line_costs_linear_time():
    # origin() reads each line read back from a traceback (up to 4 KiB each, 16 tracebacks of 256 tries):
    # 4,000 digits cost 0.1 s there, so 30 tracebacks of 40 such lines (4.7 MB) took 49 s of CPU; now 0.8 s
    got, cpu = _cpu(text.origin, "1" * 16000 + " x")  # 1.6 s before
    assert got[:2] == (None, None) and cpu < 0.2, cpu


# ------------------------------------------------------------------ explain: the words' lookaheads prune candidate texts

def _words_soup(n, seed):
    """Lines of the words' own needles in random order (what a user's sentence or a crafted paste holds),
    some wrapped as a terminal wraps them (continuation lines)."""
    from gpudoctor.explain import knowledge, symptoms

    kb = knowledge.load_knowledge()
    needles = sorted({x for e in kb.entries if "words" in e for w in symptoms.ways_of(e) for x in w[2]})
    rnd = random.Random(seed)
    glue = ["and", "but", "the", "on", "when", "with", "not", "does not", "is", "uses", "node", "gpu 0"]
    # the symptoms as CHANGELOG.md's words section gives them
    said = ["DeepSpeed ignores CUDA_VISIBLE_DEVICES and uses all GPUs", "both ranks end up on GPU 0",
            "torch.cuda.is_available() is False inside srun", "accelerate runs on CPU", "rendezvous on localhost:0",
            "each node trains alone", "only one node's GPUs are used", "NCCL falls back to sockets",
            "throughput drops after adding a second node", "GPUs not visible in docker",
            "mpirun does not pass environment variables"]
    out = []
    for i in range(n):
        words = [rnd.choice(needles) if rnd.random() < 0.5 else rnd.choice(glue) for _ in range(8)]
        words.insert(rnd.randrange(len(words) + 1), rnd.choice(said))
        line = " ".join(words)
        out.extend([line[j:j + 48] for j in range(0, len(line), 48)] if i % 3 == 0 else [line])
    return "\n".join(out) + "\n"


def test_the_words_lookaheads_prune_and_answer_the_same(monkeypatch):
    # knowledge.required_of reads a positive lookahead's literals as required of the searched text (not of the
    # match), so a line or a join without one of a way's concepts is not searched with it; the answers are
    # those of searching everything (scan.PRUNE off). 20,000 lines of needle soup took 57 s before, 40 s after
    import io

    from gpudoctor.explain import knowledge, scan

    kb = knowledge.load_knowledge()

    def dump(t):
        s = scan.scan_stream(io.BytesIO(t.encode("utf-8")), kb)
        return sorted((eid, h.line, h.text) for eid, lst in s.matches.items() for h in lst)

    texts = [_words_soup(60, seed) for seed in (1, 2)]
    pruned = [dump(t) for t in texts]
    assert sum(1 for got in pruned for eid, _l, _t in got if eid.startswith("_words.")) > 20  # the ways do match
    monkeypatch.setattr(scan, "PRUNE", False)
    assert [dump(t) for t in texts] == pruned

"""Red team 2026-11-28d (docs/security.md 72.+): hostile inputs against gpudoctor as a user or a node hands them in.
Each test failed before its fix."""

import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(argv, cwd, timeout=120, env=None, stdin=None):
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.PIPE,
                         cwd=str(cwd), env=env)
    try:
        out, err = p.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        pytest.fail("%s still ran after %d s" % (" ".join(argv), timeout))
    return p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def _gd(args, cwd, timeout=120, env=None, stdin=None):
    if env is None and stdin is None and args[0] in ("explain", "plan"):
        # what these commands write is under test, not their process: gpudoctor.cli.main in this process
        # (tests/inprocess.py), explain's knowledge loaded once (suite27: a process each was ~3/4 of this file's time)
        import inprocess

        return inprocess.gd(args, cwd)
    env = dict(env or os.environ, PYTHONPATH=ROOT)
    return _run([sys.executable, "-P", "-m", "gpudoctor"] + list(args), cwd, timeout=timeout, env=env, stdin=stdin)


def _box(tmp_path):
    box = tmp_path / "box"
    if not box.exists():
        (box / "bin").mkdir(parents=True)
        (box / "w").mkdir()
        os.symlink(shutil.which("touch"), str(box / "bin" / "touch"))
        os.symlink(shutil.which("printf"), str(box / "bin" / "printf"))
    return box


def _pasted(lines, tmp_path):
    """Each line pasted alone into a restricted bash whose PATH holds only touch and printf: what it created."""
    box = _box(tmp_path)
    for line in lines:
        subprocess.run([shutil.which("bash"), "--norc", "--noprofile", "-r", "-c", line], cwd=str(box / "w"),
                       timeout=30, env={"PATH": str(box / "bin"), "HOME": str(box / "w"), "LC_ALL": "C"},
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return sorted(os.listdir(str(box / "w")))


def _bash_reads(word, tmp_path):
    box = _box(tmp_path)
    p = subprocess.run([shutil.which("bash"), "--norc", "--noprofile", "-r", "-c", "printf %s " + word],
                       cwd=str(box / "w"), timeout=30, capture_output=True,
                       env={"PATH": str(box / "bin"), "HOME": str(box / "w"), "LC_ALL": "C.UTF-8"})
    return p.stdout.decode("utf-8", "surrogateescape")


# 72.: errors.excerpt wrote a value as Python's repr, which puts a text holding ' in double quotes
@pytest.mark.parametrize("value", ["z'$(touch MARKER).gz", "a\"b'`touch MARKER`", "c\\'$(touch MARKER)",
                                   "q'\u202e\x1b]0;t\x07$(touch MARKER)", "'"])
def test_an_excerpt_holding_a_quote_is_one_inert_shell_word(tmp_path, value):
    from gpudoctor.errors import excerpt

    shown = excerpt(value)
    assert _pasted([": " + shown], tmp_path) == [], shown
    assert _bash_reads(shown, tmp_path) == value, shown  # (bash reads the value back: $'...' escapes are repr's)
    assert shown.isprintable()


def test_a_folders_compressed_file_is_named_inert_on_stderr(tmp_path):
    # explain FOLDER names the compressed files it leaves unread on stderr with errors.excerpt: a file
    # z'$(touch MARKER).gz was written "f1/z'$(touch MARKER).gz", and the name pasted ran touch
    d = tmp_path / "f1"
    d.mkdir()
    (d / "rank0.log").write_text("RuntimeError: CUDA error: out of memory\n")
    (d / "z'$(touch MARKER).gz").write_bytes(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\x03\x00\x00\x00\x00\x00"
                                             b"\x00\x00\x00\x00")
    rc, out, err = _gd(["explain", "f1"], tmp_path)
    assert rc in (0, 1), err[-2000:]
    m = re.search(r"not read \((.*)\): decompress", err)
    assert m, err
    assert _pasted([": " + m.group(1)], tmp_path) == [], err
    assert _bash_reads(m.group(1), tmp_path) == "f1/z'$(touch MARKER).gz"


_SECRET_LEN = """#!/bin/bash
source ./env.sh
torchrun --nproc_per_node 8 train.py --lena ${#DB_URL} --lenb "${#HF_TOKEN}" --lenc ${#DB_PASSWORD} --lend ${#RUN_NAME}
"""


def test_plan_prints_no_length_of_a_secret(tmp_path):
    # 73.: ${#NAME} of a secret-looking value (one a secret-looking name was given, or of a credential's shape) printed
    # its length (36. keeps ${X:offset:length} of one unknown); other lengths are computed as before
    (tmp_path / "env.sh").write_text("DB_URL=postgres://admin:Sup3rS3cret@db:5432/x\n"
                                     "HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCDEF\nDB_PASSWORD=hunter2hunter2\n"
                                     "RUN_NAME=plainname\n")
    (tmp_path / "s.sh").write_text(_SECRET_LEN)
    for fmt in ([], ["--json"]):
        rc, out, err = _gd(["plan", "s.sh"] + fmt, tmp_path)
        assert rc in (0, 1), err[-2000:]
        for n in ("38", "36", "14"):
            assert not re.search(r"(?<![\w.])%s(?![\w.])" % n, out.replace("nproc_per_node 8", "")), (n, out)
        assert re.search(r"(?<![\w.])9(?![\w.])", out), out  # ${#RUN_NAME}: a plain value's length, computed


def _clauses(lines):
    """Each line, and each clause of it after ': ', '; ', ', ' or ' (' outside a shell-quoted word (docs/security.md
    31.'s standard: fixline.keep_quoted marks a quoted word's blanks)."""
    from gpudoctor.fixline import keep_quoted

    return [x[m.end():] for x in lines for m in re.finditer(r"^|: |; |, | \(", keep_quoted(x))]


_JAX_MESH = ("Traceback (most recent call last):\n  File \"/home/u/train.py\", line 10, in <module>\n"
             "    x = jax.device_put(a, NamedSharding(mesh, P('bach')))\n"
             "ValueError: Resource axis: bach of P(%s) is not found in mesh: ('batch',).\n")


@pytest.mark.parametrize("spec", ["'bach': touch MARKER; #", "'bach', None, touch MARKER; #",
                                  "'bach'; touch MARKER; #", "'bach', `touch MARKER`"])
def test_explain_writes_no_hostile_partition_spec_into_a_fix_line(tmp_path, spec):
    # 74.: choices.py wrote the message's PartitionSpec into the root's first fix line as the log printed it (any
    # character but parentheses): `P('batch': touch MARKER; #): the name the message lists ...` ran touch when the
    # clause after its first ': ' was pasted
    (tmp_path / "l.log").write_text(_JAX_MESH % spec)
    rc, out, err = _gd(["explain", "l.log"], tmp_path)
    assert rc in (0, 1), err[-2000:]
    fixes = [l.split("fix: ", 1)[1] for l in out.splitlines() if l.strip().startswith("fix: ")]
    assert any("'batch'" in f for f in fixes), out  # the listed name is still written
    assert _pasted(_clauses(fixes), tmp_path) == [], fixes


def test_explain_still_writes_a_plain_partition_spec(tmp_path):
    (tmp_path / "l.log").write_text(_JAX_MESH % "'bach', None")
    rc, out, err = _gd(["explain", "l.log"], tmp_path)
    assert "fix: P('batch', None): the name the message lists ('batch')" in out, out


def test_the_knowledges_own_prose_reads_as_written_and_a_log_word_stays_guarded():
    # 75.: 58.'s guard wrote every prose string holding a trigger safe, the knowledge's own words too: bash's
    # `$(( ))` in slurm.script_empty_operand read `$'\x24((' ...`. A prose string that is one of the knowledge's own
    # whole (no slot a log value fills) is now written as it stands; anything else is guarded as before.
    from gpudoctor.explain.knowledge import load_knowledge
    from gpudoctor.explain.render import _TRIGGER, _flat, safe_prose

    own = []
    for e in load_knowledge().entries:
        for t in [e.get("title"), e.get("explain")] + [c.get("text") for c in e.get("causes") or ()]:
            if isinstance(t, str) and "{$" not in t and _TRIGGER.search(_flat(t)):
                own.append(_flat(t))
    assert len(own) >= 5
    for t in own:
        assert safe_prose(t) == t
        hostile = t + " at /x;touch${IFS}MARKER;#/y"  # the same words with a log's value after them
        assert safe_prose(hostile) != hostile and "$'" in safe_prose(hostile)
    assert "$'" in safe_prose("Raised by x's own raise at /a/$(touch MARKER)/b")


def test_explain_writes_the_knowledges_shell_words_as_they_are(tmp_path):
    (tmp_path / "l.log").write_text("/var/spool/slurmd/job00012/slurm_script: line 9: 8 / : syntax error: operand "
                                    "expected (error token is \"/ \")\n")
    rc, out, err = _gd(["explain", "l.log"], tmp_path)
    assert "slurm.script_empty_operand" in out, out
    assert "$'" not in out and "$(( ))" in out, out


_PASSWORD_OPERANDS = (
    ("RuntimeError: restore failed: mysql -u root -pRootPw0005zz -h db.internal train < dump.sql", "RootPw0005zz"),
    ("RuntimeError: copy failed: sshpass -p SshPw0006zz scp ckpt.pt n2:/data/", "SshPw0006zz"),
    ("RuntimeError: upload failed: curl -fsS -u admin:CurlPw0007zz -T ckpt.pt https://store/x", "CurlPw0007zz"),
    ("RuntimeError: pull failed: docker login -u bot -p DockPw0015zz registry.example", "DockPw0015zz"),
    ("RuntimeError: wandb login 0123456789abcdef0123456789abcdef01234567 failed: 401", "0123456789abcdef0123456789"),
    ("ConnectionError: Error connecting to redis://:RedisPw0012zz@cache:6379/0", "RedisPw0012zz"),
)


@pytest.mark.parametrize("line,secret", _PASSWORD_OPERANDS)
def test_explain_quotes_no_password_a_command_takes_as_its_operand(line, secret):
    # 76.: explain's redaction read secrets by their name (--password X, DB_PASSWORD=X), their shape and a URL's
    # password after a user; a password that is a command's own operand (mysql -pX, sshpass -p X, docker login -p X,
    # curl -u user:X, wandb login KEY) or a URL's with no user (redis://:X@host) was quoted back in clear (redact runs
    # over every string of the answer: redact.apply; the CLI case below)
    from gpudoctor.explain.redact import redact

    got = redact(line)
    assert "REDACTED" in got and secret[:8] not in got, got


def test_explain_quotes_no_password_operand_through_the_cli(tmp_path):
    (tmp_path / "l.log").write_text(_PASSWORD_OPERANDS[0][0] + "\n")
    for fmt in ([], ["--json"]):
        rc, out, err = _gd(["explain", "l.log"] + fmt, tmp_path)
        assert rc in (0, 1), err[-2000:]
        assert "-pREDACTED" in out and "RootPw" not in out + err, out


def test_redaction_keeps_what_is_no_password():
    from gpudoctor.explain.redact import redact

    for text in ("mysql -u root -p train", "ssh -p 2222 n1", "mpirun -np 4 python a.py", "curl -u admin https://x:8080/a",
                 "mysql -p$MYSQL_PWD db", "redis://cache:6379/0", "wandb login", "docker login registry.example"):
        assert redact(text) == text


_WRAPPER_LOGINS = """#!/bin/bash
docker() { return 1; }
wandb() { return 1; }
redis-cli() { return 1; }
set -x
docker login -u bot -p DockPw0015zz registry.example || true
wandb login 0123456789abcdef0123456789abcdef01234567 || true
redis-cli -u redis://:RedisPw0012zz@cache:6379 ping || true
echo "AWS_SECRET_ACCESS_KEY wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY0008 rejected" >&2
exit 3
"""


def test_a_wrappers_trace_keeps_no_registry_password_wandb_key_or_userless_url_password(tmp_path):
    # 77.: what a wrapper interpreter printed (57.) cut mysql's, sshpass's and curl's passwords, not a registry
    # login's `-p X`, `wandb login KEY`, or a URL's password with no user (redis://:X@host): the set -x trace on the
    # failing wrapper's stderr carried them into the report and the facts (the programs are the script's own
    # functions: nothing is run)
    w = tmp_path / "w"
    w.write_text(_WRAPPER_LOGINS)
    w.chmod(0o755)
    code, out, err = _gd(["check", "--python", str(w), "--json"], tmp_path)
    assert code == 1, err[-2000:]
    said = out + err
    assert "docker" in said and "wandb" in said and "redis://" in said  # the trace is still shown
    for part in ("DockPw0015", "0123456789abcdef0123", "RedisPw0012", "wJalrXUtn"):  # (the last: 79.)
        assert part not in said, part


_PLAN_NOTES = """#!/bin/bash
#SBATCH -N 2
#SBATCH --ntasks-per-node=1
source './e;touch${IFS}MARKER1;#.sh'
source './f; touch MARKER2; #.sh'
source ./g\\;touch\\${IFS}MARKER3\\;#.sh
. "./h; touch MARKER4; #"
srun -n2 bash "t;touch${IFS}MARKER5;#.sh" --x
srun -n2 bash "u; touch MARKER6; #.sh" --x
"""


def _plan_clauses(text):
    """Every line of a plan and every clause after ': ', '; ', ', ', ' (' or a run of blanks outside a shell-quoted
    word (31.'s standard: a clause begins outside a quote)."""
    from gpudoctor.fixline import keep_quoted

    out = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("unknown "):
            continue  # (an unknown row quotes the script's own expression, as explain quotes a log's line)
        out.append(line)
        out += [line[m.end():] for m in re.finditer(r": |; |, | \(|   +", keep_quoted(line))]
    return out


def test_plans_notes_hold_a_scripts_words_inert(tmp_path):
    # 78.: plan's notes are prose around the script's words (a sourced file's name, the script srun runs); they were
    # written as they stood: `line 4: read ./e;touch${IFS}M;#.sh (source)`, `each of srun's 2 tasks runs t;touch ...`
    # and the clause after their ': ' ran touch when pasted (so did the '; ' of a name with a blank after it)
    (tmp_path / "e;touch${IFS}MARKER1;#.sh").write_text("A=1\n")
    (tmp_path / "f; touch MARKER2; #.sh").write_text("B=1\n")
    (tmp_path / "s.sh").write_text(_PLAN_NOTES)
    rc, out, err = _gd(["plan", "s.sh"], tmp_path)
    assert rc in (0, 1), err[-2000:]
    assert out.count("note ") >= 6, out
    assert _pasted(_plan_clauses(out), tmp_path) == [], out


def test_plans_own_notes_read_as_before(tmp_path):
    (tmp_path / "s.sh").write_text("#!/bin/bash\n#SBATCH -N 2\nsource ./missing.sh\nsrun -n2 bash run.sh --x\n")
    rc, out, err = _gd(["plan", "s.sh"], tmp_path)
    assert "each of srun's 2 tasks runs run.sh, which is not read here" in out, out
    assert "note           line 3: source ./missing.sh is not read" in out, out


def test_plans_refusal_holds_a_scripts_words_inert(tmp_path):
    # 78.: a refusal quotes the script's words (argparse's "unrecognized arguments: ..."), in the plan and on stderr
    (tmp_path / "s.sh").write_text("#!/bin/bash\ntorchrun --nproc_per_node 8 '--bad;touch${IFS}MARKER;#' a.py\n")
    rc, out, err = _gd(["plan", "s.sh"], tmp_path)
    assert rc == 2 and "unrecognized arguments" in err and "refused" in out, (out, err)
    assert _pasted(_plan_clauses(out + err), tmp_path) == [], (out, err)


def test_explain_quotes_no_credential_listed_as_name_and_value(tmp_path):
    # 79.: a credential's name and its value apart by blanks, no operator (a printenv-like table, `aws configure
    # list`), was quoted back in clear: 26.'s names need '=' or ':'
    (tmp_path / "l.log").write_text("RuntimeError: auth failed with AWS_SECRET_ACCESS_KEY wJalrXUtnFEMI/K7MDENG/bPxRfiCY"
                                    "EXAMPLEKEY0008 and MY_API_TOKEN   Zq81abcdefghij77\n")
    for fmt in ([], ["--json"]):
        rc, out, err = _gd(["explain", "l.log"] + fmt, tmp_path)
        assert "REDACTED" in out, out
        assert "wJalrXUt" not in out and "Zq81abcd" not in out, out
    from gpudoctor.explain.redact import redact

    for text in ("HF_TOKEN is not set", "WANDB_API_KEY environment variable missing", "NCCL_IB_HCA mlx5_0,mlx5_1",
                 "TOKEN_LIMIT 4096 exceeded", "API_KEY $API_KEY_FROM_VAULT_12"):
        assert redact(text) == text


def test_plan_launchs_notes_hold_the_lines_words_inert(tmp_path):
    # 78.: `plan --launch LINE` writes its notes with the line's own blank-followed separators spanned inert
    rc, out, err = _gd(["plan", "--launch", 'srun -n2 bash "u; touch MARKER; #.sh" --x'], tmp_path)
    assert rc in (0, 1) and "note " in out, (out, err)
    assert _pasted(_plan_clauses(out), tmp_path) == [], out


def test_input_windows_find_a_separator_near_the_end_of_a_value():
    # 78.: a value whose last '; ' is followed by fewer than 8 of its own characters (`u; touch M; ab` then the
    # note's `.sh, which`) is still the input's; the prose's own '; ' is not
    from gpudoctor.fixline import guarded_prose, input_windows

    note = "each task runs u-MARKER; ab.sh, which is not read here; plan it where the script is"
    w = input_windows([note], ['srun -n2 bash "u-MARKER; ab.sh" --x'])
    shown = guarded_prose(note, w)
    assert "MARKER; ab" not in shown and "here; plan it" in shown, shown


_NUMPY_SPLIT = ('Traceback (most recent call last):\n  File "/tmp/f16/split.py", line 2, in <module>\n'
                '    shards = np.split(np.arange(1001), 2)\n'
                '  File "/tmp/libarg15/venv/lib/python3.11/site-packages/numpy/lib/_shape_base_impl.py", line 872, '
                'in %s\n    raise ValueError(\nValueError: array split does not result in an equal division\n')


@pytest.mark.parametrize("name", ["split: touch MARKER; #", "split; touch MARKER; #", "split, touch MARKER; #",
                                  "split$(touch MARKER)"])
def test_explain_writes_a_frames_function_name_as_one_word_in_the_fix(tmp_path, name):
    # 80.: a library's argument check that refused the user's call gets the fix 'open FILE (line N) and change what it
    # passes to LIB.FUNC as the message asks'; FUNC is the traceback's `in NAME` and was written bare: the clause after
    # its ': ' (or its '; ', ', ') ran touch when pasted (found by this round's clause fuzz of seen texts)
    from gpudoctor import explain

    r = explain.explain_text(_NUMPY_SPLIT % name)
    fixes = [x for f in r["findings"] for c in f["causes"] for x in c["fix"] if "change what it passes to" in x]
    assert fixes, r["findings"][0]["causes"][0]["fix"]
    assert _pasted(_clauses(fixes), tmp_path) == [], fixes
    plain = explain.explain_text(_NUMPY_SPLIT % "split")
    assert plain["findings"][0]["causes"][0]["fix"][0] == ("open /tmp/f16/split.py (line 2) and change what it passes "
                                                           "to numpy.split as the message asks")


_INTEGRATION = ('Traceback (most recent call last):\n  File "/home/u/train.py", line 5, in <module>\n'
                '    model = get_peft_model(base, cfg)\n'
                '  File "/v/lib/python3.11/site-packages/peft/%s/lora.py", line 10, in %s\n'
                '    w = base.get_input_embeddings()\n'
                '  File "/v/lib/python3.11/site-packages/transformers/modeling_utils.py", line 20, in get_input_embeddings\n'
                '    return self._emb.weight\n'
                "AttributeError: 'NoneType' object has no attribute 'weight'\n")


@pytest.mark.parametrize("folder,fn", [("tu: touch MARKER; #ners", "fwd"), ("tuners", "fwd: touch MARKER; #"),
                                       ("tu, touch MARKER; #ners", "fwd"), ("tuners", "fwd; touch MARKER; #")])
def test_explain_writes_the_callers_frame_as_shell_words_in_the_upgrade_fix(tmp_path, folder, fn):
    # 80.: upgrade.advice's 'upgrade PKG (...): its code (FILE:LINE in FN) calls into LIB ...' wrote the calling
    # package's frame (file and function: the traceback's) bare: the clause after its ': ' ran touch when pasted
    # (found by this round's clause fuzz, a seen text's site-packages path)
    from gpudoctor import explain

    r = explain.explain_text(_INTEGRATION % (folder, fn))
    fixes = [x for f in r["findings"] for c in f["causes"] for x in c["fix"] if "its code (" in x]
    assert fixes, [c["fix"] for c in r["findings"][0]["causes"]]
    assert _pasted(_clauses(fixes), tmp_path) == [], fixes
    plain = explain.explain_text(_INTEGRATION % ("tuners", "fwd"))
    assert any("its code (peft/tuners/lora.py:10 in fwd) calls into transformers" in x
               for c in plain["findings"][0]["causes"] for x in c["fix"])

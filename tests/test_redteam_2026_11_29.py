"""Red team 2026-11-29 (session 31): findings fixed at their root; each case fails on 7ba89764
(docs/security.md 103 and on)."""

import shutil
import tracemalloc

import pytest

from gpudoctor.explain import demangle

_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _sub(i):
    """The Itanium ABI's substitution S_, S0_, S1_ ... (https://itanium-cxx-abi.github.io/cxx-abi/abi.html#mangle.substitution)."""
    if i == 0:
        return "S_"
    n, s = i - 1, ""
    while True:
        s, n = _DIGITS[n % 36] + s, n // 36
        if n == 0:
            return "S%s_" % s


def _doubling(levels):
    """f(A, B<A,A>, B<B<A,A>,B<A,A>>, ...): each argument names the one before twice by its substitution, so the
    demangled name doubles with each ~12 characters of the mangled one."""
    s = "_Z1f1A"
    for k in range(levels):
        s += "1BI" + _sub(2 * k if k else 0) * 2 + "E"
    return s


@pytest.mark.skipif(shutil.which("c++filt") is None, reason="binutils' c++filt is not installed")
def test_a_symbol_that_demangles_to_megabytes_is_not_read_whole():
    # 103.: a 242-character symbol in 'undefined symbol: ...' demangles to 109 MB (binutils 2.40's c++filt, in 1.7 s):
    # explain read it all and decoded it before its 2000-character bound refused it (327 MB resident)
    sym = _doubling(23)
    assert len(sym) < demangle.MAX_SYMBOL
    demangle._cache.clear()
    tracemalloc.start()
    try:
        out = demangle.demangle(sym)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out is None
    assert peak < 4 * 1024 * 1024, peak


@pytest.mark.skipif(shutil.which("c++filt") is None, reason="binutils' c++filt is not installed")
def test_a_short_symbol_is_still_demangled():
    demangle._cache.clear()
    assert demangle.demangle(_doubling(2)) == "f(A, B<A, A>, B<B<A, A>, B<A, A> >)"
    assert demangle.demangle("_ZN3foo3barB5cxx11Ev") == "foo::bar[abi:cxx11]()"


# 104.: `clush -w NODES -x OUT` in a planned script was reduced with ClusterShell's NodeSet, whose RangeSet builds every
# index: `clush -w node[1-900000000] -x node1` took 1.8 GB and 30 s to a MemoryError under a 2 GB limit (exit 3), and
# all the memory there was without one. nodes.count_bound is checked first now: past MAX_EXPAND both are named.
@pytest.mark.parametrize("line, where", [
    ("clush -w node[1-100001] -x node1 torchrun t.py", "every host of -w node[1-100001] except node1 by clush"),
    ("clush -w node[1-3] -x node[1-100001] torchrun t.py", "every host of -w node[1-3] except node[1-100001] by clush"),
    ("clush -w node[1-4] -x node3 torchrun t.py", "every host of -w node[1-2,4] by clush"),   # control
])
def test_clush_exclusion_of_a_huge_node_set_is_not_expanded(tmp_path, line, where):
    from test_launch29 import _plan

    _script, rs = _plan(tmp_path, line + "\n", (), "c.sh")
    assert any(where in n for n in rs.notes), rs.notes


def test_plan_of_a_clush_line_over_a_billion_nodes_ends(tmp_path):
    import resource
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "c.sh"
    script.write_text("#!/bin/bash\nclush -w node[1-900000000] -x node1 torchrun --nnodes=2 --nproc_per_node=8 t.py\n")

    def limit():  # a failure is a MemoryError (exit 3), not the test machine's memory
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    exe = str(Path(sys.executable).parent / "gpudoctor")
    r = subprocess.run([exe, "plan", str(script)], capture_output=True, text=True, timeout=300, preexec_fn=limit)
    assert r.returncode in (0, 1), r.stderr
    assert "node[1-900000000] except node1" in r.stdout, r.stdout


# 105.: every reader of a password given as a program's operand (76., 92., 96., 100.) refused a program named by its
# path: a script's `/usr/bin/sshpass -p X` (its `set -x` trace too), `~/bin/redis-cli -a X`, `./zip -P X`
@pytest.mark.parametrize("line", [
    "/usr/bin/htpasswd -b f alice hunter2x",
    "+ /usr/bin/htpasswd -bB /etc/nginx/.htpasswd alice hunter2x",
    "/usr/bin/zip -P hunter2x o.zip a",
    "./zip -P hunter2x o.zip a",
    "/usr/local/bin/redis-cli -a hunter2x ping",
    "~/bin/redis-cli -a hunter2x ping",
    "/usr/bin/openssl enc -k hunter2x -in a",
    "/usr/bin/7z x -phunter2x a.7z",
    "/usr/bin/mysql -u root -phunter2x db",
    "+ /usr/bin/sshpass -p hunter2x ssh h",
    "/opt/mongodb/bin/mongosh -u a -p hunter2x",
    "/usr/bin/ldapsearch -D cn=a -w hunter2x",
    "/usr/bin/smbclient -U a%hunter2x //h/s",
    "/usr/bin/curl -u a:hunter2x https://h",
    "/usr/bin/docker login -u a -p hunter2x reg",
    "/usr/bin/sudo -S true <<< hunter2x",
    "echo hunter2x | /usr/bin/sudo -S true",
])
def test_a_program_named_by_its_path_has_its_password_redacted(line):
    from gpudoctor.explain.redact import MARK, redact

    out = redact(line)
    assert "hunter2x" not in out and MARK in out, out


@pytest.mark.parametrize("line", [
    "ls /var/lib/mysql",                      # a folder named like a program, no password
    "/usr/bin/zip -r out.zip ckpt/",
    "/usr/bin/7z x -p ckpt.7z",
    "/usr/bin/htpasswd -c /etc/nginx/.htpasswd alice",
    "/usr/bin/openssl enc -k $ZIP_PASS -in a -out b",
])
def test_the_same_programs_by_path_without_a_password_are_kept(line):
    from gpudoctor.explain.redact import redact

    assert redact(line) == line


@pytest.mark.parametrize("line", [
    "/usr/local/bin/redis-cli -a hunter2x ping",
    "echo hunter2x | /usr/bin/sudo -S true",
    "/usr/bin/ldapsearch -D cn=a -w hunter2x",
    "/usr/bin/sudo -S true <<< hunter2x",
])
def test_what_a_wrapper_prints_keeps_no_password_of_a_program_named_by_its_path(line):
    # the facts' side of 105. (collector/python_env.py reads what explain/redact.py reads: 92., 96.)
    from gpudoctor.collector.python_env import _no_values

    assert "hunter2x" not in _no_values(line)


# 106.: an argument vector written as Python writes a list (subprocess.CalledProcessError's "Command '[...]' returned
# non-zero exit status", a launcher's logged sys.argv) or as JSON: each word is quoted apart, so no reader of a flag
# and its value, or of a program's password operand, saw `--password X` or `sshpass -p X`
@pytest.mark.parametrize("line", [
    "subprocess.CalledProcessError: Command '['sshpass', '-p', 'hunter2x', 'ssh', 'h']' returned non-zero exit status 5.",
    "subprocess.CalledProcessError: Command '['mysql', '-u', 'root', '-phunter2x', 'db']' returned non-zero exit status 1.",
    "subprocess.CalledProcessError: Command '['redis-cli', '-a', 'hunter2x', 'ping']' returned non-zero exit status 1.",
    "subprocess.CalledProcessError: Command '['zip', '-P', 'hunter2x', 'o.zip', 'a']' returned non-zero exit status 12.",
    "subprocess.CalledProcessError: Command '['docker', 'login', '-u', 'a', '-p', 'hunter2x', 'reg']' returned "
    "non-zero exit status 1.",
    "subprocess.CalledProcessError: Command '['curl', '-u', 'a:hunter2x', 'https://h']' returned non-zero exit status 22.",
    "subprocess.CalledProcessError: Command '['htpasswd', '-b', 'f', 'alice', 'hunter2x']' returned non-zero exit "
    "status 1.",
    "subprocess.CalledProcessError: Command '['huggingface-cli', 'login', '--token', 'hunter2x']' returned non-zero "
    "exit status 1.",
    "subprocess.CalledProcessError: Command '['wandb', 'login', 'hunter2xhunter2xhunter2xhunter2x']' returned non-zero "
    "exit status 1.",
    "[rank0]: sys.argv: ['train.py', '--hf_token', 'hunter2x', '--bf16']",
    'launch args: ["train.py", "--db-password", "hunter2x"]',
    "Command '['python', 'x.py', '--api-key', 'hunter2x', \"it's\", 'a b']' died with <Signals.SIGKILL: 9>.",
])
def test_an_argument_list_has_its_password_redacted(line):
    from gpudoctor.explain.redact import MARK, redact

    out = redact(line)
    assert "hunter2x" not in out and MARK in out, out
    assert out.count("'") == line.count("'") and out.count('"') == line.count('"'), out   # the list's quoting kept


@pytest.mark.parametrize("line", [
    "Command '['torchrun', '--nproc_per_node', '8', 'train.py', '--tokenizer', 'gpt2']' returned non-zero exit status 1.",
    "sys.argv: ['train.py', '--pad_token', 'eos', '--password', '$DB_PASSWORD']",
    "['sshpass', '-f', '/run/secrets/pw', 'ssh', 'h']",
])
def test_an_argument_list_without_a_password_is_kept(line):
    from gpudoctor.explain.redact import redact

    assert redact(line) == line


# 107.: 100.'s readers took `zip -P X` and `openssl -k X` only as two words; Info-ZIP's zip 3.0 and unzip 6.0 also take
# the password glued (`-PX`) and at the end of a switch cluster (`-rP X`, `-qoPX`), and OpenSSL's option parser takes
# `-k=X` (each checked here with the real zip 3.0, unzip 6.00 and OpenSSL 3.0: the archive opened, the file encrypted)
@pytest.mark.parametrize("line", [
    "zip -q -Phunter2x a.zip f",
    "zip -rP hunter2x b.zip ckpt/",
    "+ zip -qr -P hunter2x b.zip ckpt/",
    "unzip -o -Phunter2x a.zip",
    "unzip -qoP hunter2x a.zip",
    "unzip -qoPhunter2x a.zip",
    "openssl enc -aes-256-cbc -pbkdf2 -k=hunter2x -in f -out f.enc",
])
def test_a_glued_or_clustered_archive_password_is_redacted(line):
    from gpudoctor.explain.redact import MARK, redact

    out = redact(line)
    assert "hunter2x" not in out and MARK in out, out


@pytest.mark.parametrize("line", [
    "zip -r -P $ZIP_PASS b.zip ckpt/",
    "unzip -qo a.zip -d out/",
    "zip -r out.zip Pictures/",
    "openssl enc -kfile pw.txt -in a -out b",
])
def test_archive_lines_without_a_password_are_kept(line):
    from gpudoctor.explain.redact import redact

    assert redact(line) == line


# 108.: explain's and plan's prose guard (fixline.TRIGGER, 58.) took `<(` / `>(` only at a word's start and a separator
# only before a letter, digit, '/', '.', '$', '(', a quote or '-'; bash starts a process substitution after a word
# character or ']' too (`aaa>(cmd)`: '>' ends the word), and runs what follows a glued separator as a command when it
# is a brace expansion (`;{touch,M}`: no blank, no `${IFS}`), a tilde path (`;~/x`) or a redirection (`;>F`)
def _paste(lines, tmp_path):
    """Each line and each clause after ': ', '; ', ', ', ' (' or two blanks outside a quoted word, pasted alone into
    a restricted bash whose PATH holds only touch: what it created (test_redteam_2026_11_28f's harness)."""
    import os
    import re
    import subprocess

    from gpudoctor.fixline import keep_quoted

    box = tmp_path / "box"
    (box / "bin").mkdir(parents=True, exist_ok=True)
    (box / "w").mkdir(exist_ok=True)
    if not (box / "bin" / "touch").exists():
        os.symlink(shutil.which("touch"), str(box / "bin" / "touch"))
    todo = []
    for x in lines:
        todo += [x[m.end():] for m in re.finditer(r"^|: |; |, | \(|  +", keep_quoted(x))]
    for line in todo:
        # (wait: a process substitution runs beside the command; bash waits for it at its exit since 5.1)
        subprocess.run([shutil.which("bash"), "--norc", "--noprofile", "-r", "-c", line + "\nwait"],
                       cwd=str(box / "w"), timeout=30, env={"PATH": str(box / "bin"), "HOME": str(box / "w"),
                                                            "LC_ALL": "C"},
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return sorted(os.listdir(str(box / "w")))


PROSE_PAYLOADS = ["aaa>({touch,M1})#", "aaa]>({touch,M2})#", "aaa<({touch,M3})#", "aaa;{touch,M4};#",
                  "aaa|{touch,M5};#", "aaa&{touch,M6};#", "aaa||{touch,M9};#"]


@pytest.mark.parametrize("payload", PROSE_PAYLOADS)
def test_prose_holding_a_glued_substitution_or_brace_command_is_inert(tmp_path, payload):
    from gpudoctor.fixline import guarded_prose

    text = "Raised by transformers own raise at /opt/venv/site-packages%s/transformers/x.py:3 in f" % payload
    out = guarded_prose(text)
    assert _paste([out, out.split(" at ", 1)[1]], tmp_path) == [], out


def test_explain_note_of_a_hostile_frame_folder_runs_nothing_pasted(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    log = tmp_path / "tb.log"
    log.write_text('Traceback (most recent call last):\n  File "/home/u/train.py", line 10, in <module>\n'
                   '    model = AutoModel.from_pretrained(path)\n  File "/opt/venv/lib/python3.11/site-packages'
                   'aaa>({touch,M2})#/transformers/modeling_utils.py", line 3000, in from_pretrained\n'
                   '    raise OSError("no file named pytorch_model.bin")\nOSError: no file named pytorch_model.bin\n')
    exe = str(Path(sys.executable).parent / "gpudoctor")
    out = subprocess.run([exe, "explain", str(log)], capture_output=True, text=True, timeout=300).stdout
    assert "touch" in out
    assert _paste(out.splitlines(), tmp_path) == [], out


@pytest.mark.skipif(shutil.which("c++filt") is None, reason="binutils' c++filt is not installed")
def test_a_demangled_name_with_a_process_substitution_is_inert(tmp_path):
    # c++filt writes _ZgtPK5touch as 'operator>(touch const*)': bash runs `touch const*` from its '>('
    from gpudoctor.explain.render import safe_prose

    demangle._cache.clear()
    note = demangle.note(["undefined symbol: _ZgtPK5touch"])
    assert "operator>(touch const*)" in note
    shown = safe_prose(note)
    assert _paste([shown, shown.split(" (c++filt)")[0]], tmp_path) == [], shown


# 109.: a node's value holding a brace expansion (`{touch,M}`: a command with its argument, no blank, no character
# fixline.hostile looked for) was shown bare in check's header and descriptions: the header's `NCCL    {touch,M}`
# clause and a description line a wrap began with it ran touch when pasted
def test_a_node_value_with_a_brace_command_is_inert_in_check_text(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    facts = json.loads((root / "fixtures" / "nodes" / "h100x4-ubuntu2404-torch211.json").read_text())
    count = [0]

    def sub(x, key=""):
        if isinstance(x, dict):
            return {k: sub(v, k) for k, v in x.items()}
        if isinstance(x, list):
            return [sub(v, key) for v in x]
        if isinstance(x, str) and x and x not in ("ok", "unsupported", "error") and key not in (
                "schema", "status", "node", "hostname", "name"):
            count[0] += 1
            return (x if count[0] % 2 else "") + "{touch,F%d}" % count[0]
        return x

    path = tmp_path / "n.json"
    path.write_text(json.dumps(sub(facts)))
    exe = str(Path(sys.executable).parent / "gpudoctor")
    out = subprocess.run([exe, "check", "--facts", str(path)], capture_output=True, text=True, timeout=300).stdout
    assert "touch,F" in out
    assert _paste(out.splitlines(), tmp_path) == [], out


@pytest.mark.parametrize("value, shown", [("{touch,M}", True), ("x{a..b}", True), ("2.28.3", False),
                                           ("{}", False), ("a b {x}", False)])
def test_hostile_knows_a_brace_expansion(value, shown):
    from gpudoctor.fixline import hostile

    assert hostile(value) is shown


# 110.: a backquoted command substitution glued to a log word (`aaa`{touch,M}`bbb` in a frame's folder) or holding a
# brace command was no trigger of the prose guard: bash runs it wherever it stands on a pasted line
@pytest.mark.parametrize("payload", ["aaa`{touch,M10}`bbb", "aaa `{touch,M11}` bbb", "aaa/`{touch,M12}`/bbb",
                                     "aaa`{touch,M13}`"])
def test_prose_holding_a_glued_or_brace_backquote_is_inert(tmp_path, payload):
    from gpudoctor.fixline import guarded_prose

    text = "Raised by transformers own raise at /opt/venv/site-packages%s/transformers/x.py:3 in f" % payload
    out = guarded_prose(text)
    assert _paste([out, out.split(" at ", 1)[1]], tmp_path) == [], out


def test_prose_own_backquoted_words_are_not_guarded():
    from gpudoctor.fixline import guarded_prose

    for text in ("an early `return`/`break`, or a loader", "after a `continue`/`break` decided at run time",
                 "Raised by transformers's own `raise` at /x/y.py:3 (`wait`)"):
        assert guarded_prose(text) == text


def test_explain_note_of_a_backquoted_frame_folder_runs_nothing_pasted(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    log = tmp_path / "tb.log"
    log.write_text('Traceback (most recent call last):\n  File "/home/u/train.py", line 10, in <module>\n'
                   '    model = AutoModel.from_pretrained(path)\n  File "/opt/venv/lib/python3.11/site-packages'
                   'aaa`{touch,M1}`bbb/transformers/modeling_utils.py", line 3000, in from_pretrained\n'
                   '    raise OSError("no file named pytorch_model.bin")\nOSError: no file named pytorch_model.bin\n')
    exe = str(Path(sys.executable).parent / "gpudoctor")
    out = subprocess.run([exe, "explain", str(log)], capture_output=True, text=True, timeout=300).stdout
    assert "touch" in out
    assert _paste(out.splitlines(), tmp_path) == [], out


# 111.: a launcher's refusal quoted the line's value bare or in repr's double quotes: `gpudoctor plan --launch
# "torchrun --nproc_per_node='x;touch\${IFS}M;#' t.py"` printed 'Unsupported nproc_per_node value: x;touch${IFS}M;#'
# on stderr, `srun -N "x'\$(touch M)'"` 'invalid node count "x'$(touch M)'"'; a script's `refused` row the same for
# a brace or a backquoted command (a fuzz of 6 payloads in 21 launch lines, both modes: 21 of 228 runs ran touch)
@pytest.mark.parametrize("line", [
    "torchrun --nproc_per_node='x;touch${IFS}R1;#' t.py",
    "torchrun --nproc_per_node='{touch,R2}' t.py",
    "torchrun --nproc_per_node='$(touch R3)' t.py",
    "torchrun --nproc_per_node='`touch R4`' t.py",
    "torchrun --nnodes=2 --nproc_per_node=2 --master_addr=\"x'\\$(touch R5)'\" --master_port=1 t.py",
    "torchrun --nnodes=2 --nproc_per_node=2 --master_port=\"x'\\$(touch R6)'\" t.py",
    "srun -N \"x'\\$(touch R7)'\" python t.py",
    "deepspeed --include=\"x'\\$(touch R8)'\" t.py",
    "python -m torch.distributed.launch --nproc_per_node='x;{touch,R9};#' t.py",
])
@pytest.mark.parametrize("mode", ["launch", "script"])
def test_a_refusal_shows_the_line_s_value_inert(tmp_path, line, mode):
    import re
    import subprocess
    import sys
    from pathlib import Path

    exe = str(Path(sys.executable).parent / "gpudoctor")
    if mode == "launch":
        argv = [exe, "plan", "--launch", line]
    else:
        script = tmp_path / "s.sh"
        script.write_text("#!/bin/bash\n" + line + "\n")
        argv = [exe, "plan", str(script)]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    mark = re.search(r"R\d", line).group(0)
    out = r.stdout + "\n" + r.stderr
    assert r.returncode in (1, 2) and mark in out, out
    assert _paste(out.splitlines(), tmp_path) == [], out


def test_a_plain_refusal_reads_as_before(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    exe = str(Path(sys.executable).parent / "gpudoctor")
    r = subprocess.run([exe, "plan", "--launch", "torchrun --nproc_per_node=abc t.py"], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 2
    assert "Unsupported nproc_per_node value: abc" in r.stderr, r.stderr


# 112.: a quoted password holding a blank or a separator (`sshpass -p 'Pa;ss|w0rd'`): the operand readers took the
# run to the first blank, ';', '|' or '&' as the value, and the rest of the password stayed in clear
@pytest.mark.parametrize("line", [
    "htpasswd -b f alice 'Pa ss;w0rd'",
    "htpasswd -b f alice \"Pa&ss|w0rd\"",
    "sshpass -p 'Pa;ss|w0rd' ssh h",
    "mysql -u r -p'Pa ss;w0rd' db",
    "redis-cli -a 'Pa ss;w0rd' ping",
    "zip -P 'Pa ss;w0rd' o.zip a",
    "curl -u 'alice:Pa ss;w0rd' https://h",
    "docker login -u a -p 'Pa ss;w0rd' r",
    "openssl enc -k 'Pa ss;w0rd' -in a",
    "7z a '-pPa ss;w0rd' a.7z f",
    "echo 'Pa ss;w0rd' | sudo -S true",
    "ldapsearch -w 'Pa ss;w0rd' -D cn=a",
    "smbclient -U 'a%Pa ss;w0rd' //h/s",
])
def test_a_quoted_password_with_a_blank_or_separator_is_redacted_whole(line):
    from gpudoctor.explain.redact import MARK, redact

    out = redact(line)
    assert "w0rd" not in out and "Pa" not in out.replace("Pa ss", "") and MARK in out, out
    assert out.count("'") == line.count("'") and out.count('"') == line.count('"'), out


@pytest.mark.parametrize("line", [
    "sshpass -p 'abc",                          # an unclosed quote: the run to the blank, as before
    "mysql -u r -p 'mydb'",                     # -p then a blank: mysql asks; 'mydb' is the database
    "redis-cli -a '$REDIS_PASS' ping",          # a placeholder
])
def test_quoted_operands_that_are_no_password_are_kept(line):
    from gpudoctor.explain.redact import MARK, redact

    out = redact(line)
    assert (MARK in out) == (line == "sshpass -p 'abc"), out


@pytest.mark.parametrize("line", [
    "Command '['sshpass', '-p', 'Pa;ss|w0rd', 'ssh', 'h']' returned non-zero exit status 5.",
    "Command '['mysql', '-pPa&ss|w0rd', 'db']' returned non-zero exit status 1.",
    "sys.argv: ['t.py', '--password', 'Pa;ss|w0rd', '--bf16']",
])
def test_an_argument_list_s_password_with_a_separator_is_redacted_whole(line):
    # 106. and 112. together: a list's word is one argument, separators and all
    from gpudoctor.explain.redact import MARK, redact

    out = redact(line)
    assert "w0rd" not in out and MARK in out, out
    assert out.count("'") == line.count("'"), out


@pytest.mark.parametrize("line", [
    "redis-cli -a 'Pa ss;w0rd' ping",
    "echo 'Pa ss;w0rd' | sudo -S true",
    "ldapsearch -w 'Pa;ss|w0rd'",
    "sshpass -p 'Pa;ss|w0rd' ssh h",
    "mysql -p'Pa ss;w0rd'",
    "curl -u 'a:Pa ss;w0rd' https://h",
    "docker login -u a -p 'Pa ss;w0rd' r",
])
def test_what_a_wrapper_prints_keeps_no_quoted_password(line):
    # the facts' side of 112. (collector/python_env.py, 57., 96.)
    from gpudoctor.collector.python_env import _no_values

    assert "w0rd" not in _no_values(line), _no_values(line)


# 113.: RAR's password switch is 7-Zip's glued form (rar.txt, RARLAB: "-p[password] Set password", "-hp[password]
# Encrypt both file data and headers"); `rar a -pX` and `unrar x -pX` were quoted in clear
@pytest.mark.parametrize("line", ["rar a -phunter2x a.rar f", "unrar x -phunter2x a.rar", "rar a -hphunter2x a.rar f",
                                  "/usr/bin/unrar x '-phunter 2x' a.rar"])
def test_a_rar_password_is_redacted(line):
    from gpudoctor.explain.redact import MARK, redact

    out = redact(line)
    assert "hunter" not in out and MARK in out, out


@pytest.mark.parametrize("line", ["unrar x -p- a.rar", "rar a -p a.rar f", "unrar x -p$RAR_PASS a.rar"])
def test_rar_lines_without_a_password_are_kept(line):
    from gpudoctor.explain.redact import redact

    assert redact(line) == line

"""Red team 2026-11-28 (docs/security.md 32.+): hostile inputs against the code changed since 2026-11-26. Each test
failed before its fix."""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _gpudoctor(*args, timeout=60, **kw):
    """The real CLI in a child, killed at ``timeout`` (a deadline, not a measurement: a regression fails, never
    hangs the suite)."""
    p = subprocess.Popen([sys.executable, "-m", "gpudoctor"] + list(args), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=kw.pop("cwd", ROOT), **kw)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        pytest.fail("gpudoctor %s still ran after %d s" % (" ".join(args), timeout))
    return p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


# a child that loads the knowledge first, then explains one file with 3 s left (explain's own load time, which a busy
# machine stretches, is not part of the file's time)
_EXPLAIN_WITH_3S = """
import json, sys, time
from gpudoctor import explain
kb = explain.load_knowledge()
res = explain.explain_file(sys.argv[1], kb, deadline=time.monotonic() + 3)
print(json.dumps(res.get("stopped_early")))
"""


def test_explain_counting_a_huge_files_middle_stops_at_the_deadline(tmp_path):
    # 32.: perf21's tail reading (b9acd2b) passes over a large file's middle counting its newlines, with no look at the
    # deadline: a 20 GB sparse file under --timeout 10 took 64 s (10.3 s before b9acd2b), and 1 TiB of holes (a file
    # anyone can make with truncate -s) close to an hour. The count now stops at the deadline too.
    big = tmp_path / "train.log"
    with open(str(big), "wb") as f:
        f.truncate(1 << 40)
    p = subprocess.Popen([sys.executable, "-c", _EXPLAIN_WITH_3S, str(big)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=ROOT)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        pytest.fail("explain of 1 TiB of holes with 3 s left still ran after 60 s")
    assert p.returncode == 0, err
    st = json.loads(out)
    assert st["reason"] == "timeout" and st["line"] == 1
    assert "resumed_line" not in st  # (its tail was not read: nothing says it was)


_FLIP = """
import os, sys
d, public, other = sys.argv[1:4]
t = os.path.join(d, "tmp")
while True:
    for target in (public, other):
        try:
            os.remove(t)
        except OSError:
            pass
        os.symlink(target, t)
        os.replace(t, os.path.join(d, "conf"))
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="the rule under test is root's (a private file a job names is not read)")
def test_watch_reads_no_private_file_through_a_link_the_job_flips(request):
    # 33.: watch's sampler (root on the node) reads the file a job process's NCCL_CONF_FILE names only when it is a
    # regular file anyone may read (watch21, a84c33d), but it looked with os.stat and then opened the path again: the
    # job's user, who owns the link the variable names, flips it between a public file and a root-only one (or a FIFO,
    # or a device whose open does something: /dev/watchdog) and the read lands on the other one; here it won within
    # ~500 tries (25 ms). The file is now opened once without side effects (O_PATH), judged by that descriptor's
    # fstat and read through it.
    import pathlib
    import shutil
    import tempfile

    from gpudoctor.collector import Context
    from gpudoctor.collector.watch import read_nccl_conf

    # (a file anyone may read lies in folders anyone may pass, docs/security.md 69.: pytest's /tmp/pytest-of-root is
    # 0700, so the public side lives in a 0755 folder of its own)
    tmp_path = pathlib.Path(tempfile.mkdtemp(prefix="gd-flip-", dir="/tmp"))
    request.addfinalizer(lambda: shutil.rmtree(str(tmp_path), ignore_errors=True))
    os.chmod(str(tmp_path), 0o755)
    public, private = tmp_path / "public", tmp_path / "private"
    public.write_text("NCCL_SOCKET_IFNAME=public0\n")
    private.write_text("NCCL_SOCKET_IFNAME=secret0\n")
    os.chmod(str(public), 0o644)
    os.chmod(str(private), 0o600)
    flip = subprocess.Popen([sys.executable, "-c", _FLIP, str(tmp_path), str(public), str(private)])
    try:
        import time

        deadline = time.monotonic() + 60
        while not os.path.lexists(str(tmp_path / "conf")) and time.monotonic() < deadline:  # (the flipper runs)
            time.sleep(0.01)
        procs = [{"env": {"NCCL_CONF_FILE": str(tmp_path / "conf")}}]
        seen = set()
        for _ in range(20000):
            got = read_nccl_conf(Context(), procs)[0]
            seen.add(got["values"].get("NCCL_SOCKET_IFNAME"))
            if len(seen) >= 3:  # public0, None (the private one, refused) and, before the fix, secret0
                break
    finally:
        flip.kill()
        flip.wait()
    assert "public0" in seen  # (the flipper ran: both sides were met)
    assert "secret0" not in seen


_WRAP = ("$ sbatch -N1 -n1 -o run.out --wrap \"torchrun --node-rank $SLURM_NODEID ddp.py {P}\"{A}\n"
         "Submitted batch job 2\nusage: torchrun [-h] [--nnodes NNODES] [--node-rank NODE_RANK]\n"
         "torchrun: error: argument --node-rank/--node_rank: expected one argument\n")


@pytest.mark.parametrize("inside, after", [
    ('\\\\\\" <(touch MARKER) x\'', "\\'"),
    ('\\\\\\" <(touch MARKER) \'x', "\\'"),
    ('\\" <(touch MARKER) x\'', "\\'"),
    ('\\" >(touch MARKER) \'\\\'\'', "\\'"),
])
def test_the_single_quoted_wrap_line_reads_the_double_quotes_as_bash_does(tmp_path, inside, after):
    # 34.: slurmscript._expanded_early (441da1b, after 27b's fuzz) read the double-quoted --wrap command up to its first
    # '"', escaped or not, and built the single-quoted alternative from that part. In bash the whole line is one inert
    # word ('... \\" <(touch MARKER) x'"\''), so it passed fixline.inert, but in the fix line the rest stood outside
    # any quote: 'or quote the whole command with single quotes: sbatch ... --wrap 'torchrun ... \\' <(touch MARKER)
    # x'"\'' ran touch through the process substitution when pasted. Now the double quotes are read as bash reads
    # them (a backslash escapes the next character), and each edited line is shown only where it is inert itself.
    from gpudoctor.explain import explain_text
    from test_redteam_2026_11_26d import paste

    res = explain_text(_WRAP.replace("{P}", inside).replace("{A}", after))
    lines = [x for f in res["findings"] for c in f["causes"] for x in c["fix"]]
    assert any("$SLURM_NODEID is inside a double-quoted command" in c["text"]
               for f in res["findings"] for c in f["causes"])  # the reader answered
    assert paste([x.split(": ", 1)[1] for x in lines if ": " in x] + lines, tmp_path) == []


def test_the_wrap_lines_keep_their_edits_for_an_escaped_quote():
    from gpudoctor.explain import explain_text

    res = explain_text(_WRAP.replace("{P}", '\\"x\\"').replace("{A}", ""))
    lines = [x for f in res["findings"] for c in f["causes"] for x in c["fix"]]
    assert ("escape it so that the job's shell expands it: sbatch -N1 -n1 -o run.out --wrap \"torchrun --node-rank "
            "\\$SLURM_NODEID ddp.py \\\"x\\\"\"") in lines
    assert ("or quote the whole command with single quotes: sbatch -N1 -n1 -o run.out --wrap 'torchrun --node-rank "
            "$SLURM_NODEID ddp.py \"x\"'") in lines


_UNBOUND = ("$ cat job.sbatch\n#!/bin/bash\n#SBATCH --job-name=pretok\n#SBATCH --ntasks=1\nset -euo pipefail\n{LINE}\n"
            "$ sbatch job.sbatch\nSubmitted batch job 2\n"
            "$ cat pretok-2.out\n/spool/job00002/slurm_script: line 6: SLURM_NTASKS_PER_NODE: unbound variable\n")


@pytest.mark.parametrize("line", ["export NPROC=\\$SLURM_NTASKS_PER_NODE", "export NPROC=$$SLURM_NTASKS_PER_NODE",
                                  "torchrun --nproc_per_node \\$SLURM_NTASKS_PER_NODE train.py"])
def test_a_script_line_given_a_default_is_shown_only_where_the_edit_is_inert(tmp_path, line):
    # 35.: slurmscript._default_line showed the script's line with $NAME turned into ${NAME:-<default>} where the line
    # as written was inert, but never looked at the edited line: after an escaped \$NAME (inert: a literal word) the
    # edit is '\${NAME:-<default>}', whose '<default' and '>}' bash reads as redirections: pasted (the command before
    # '   (was: ...)'), it read a file named 'default' and created or emptied one named '}' ('$$NAME' likewise: $$ is
    # the shell's pid). A '$' after '\\' or '$' is no reading of the variable now, and the edited line must pass
    # fixline.inert too (its '<default>' placeholder aside, which bash reads inside the braces).
    import shutil

    from gpudoctor.explain import explain_text
    from gpudoctor.fixline import inert

    res = explain_text(_UNBOUND.replace("{LINE}", line))
    assert res["root"] == "slurm.job_env"
    fixes = [x for f in res["findings"] for c in f["causes"] for x in c["fix"]]
    edited = [x.split(": ", 1)[1].split("   (was: ")[0] for x in fixes
              if x.startswith("or give it a default on the line that reads it: ")]
    for cmd in edited:
        assert inert(cmd), cmd
        box = tmp_path / "box"
        box.mkdir()
        (box / "default").write_text("")
        subprocess.run([shutil.which("bash"), "--norc", "--noprofile", "-c", cmd], cwd=str(box),
                       env={"PATH": "/nonexistent", "LC_ALL": "C"}, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=30)
        assert sorted(os.listdir(str(box))) == ["default"], cmd
        shutil.rmtree(str(box))
    # (no $NAME there that bash expands: the line is not edited)
    assert not [x for x in fixes if "\\${" in x or "$${" in x]


def test_a_script_line_with_a_bare_variable_keeps_its_default_edit():
    from gpudoctor.explain import explain_text

    res = explain_text(_UNBOUND.replace("{LINE}", "export NPROC=$SLURM_NTASKS_PER_NODE"))
    fixes = [x for f in res["findings"] for c in f["causes"] for x in c["fix"]]
    assert ("or give it a default on the line that reads it: export NPROC=${SLURM_NTASKS_PER_NODE:-<default>}   (was: "
            "export NPROC=$SLURM_NTASKS_PER_NODE)") in fixes


def test_a_capture_variable_named_after_sbatch_keeps_its_name():
    # clidocs.captured_id put --parsable after the first 'sbatch' of 'sbatch_id=$(sbatch ...)', the variable's name:
    # the fix line was 'sbatch --parsable_id=$(sbatch --wrap="hostname")', which runs another command than it says
    from gpudoctor.explain import explain_text

    res = explain_text("$ cat run.sh\nsbatch_id=$(sbatch --wrap=\"hostname\")\nscontrol show job $sbatch_id | head -1\n"
                       "scancel $sbatch_id\n$ bash run.sh\nscancel: error: Invalid job id specified\n")
    fixes = [x for f in res["findings"] for c in f["causes"] for x in c["fix"]]
    assert any(x.startswith('keep only the job id: sbatch_id=$(sbatch --parsable --wrap="hostname") (') for x in fixes)


def test_plan_prints_no_part_of_a_secret_a_sourced_file_sets(tmp_path):
    # 36.: plan SCRIPT writes a value the script or a file it sources gives a secret-looking name back as $NAME (22.),
    # by its whole value only: '${HF_TOKEN:3}' (bash's offset expansion) printed the token after its 'hf_' prefix,
    # '${DB_PASSWORD:0:12}' the password's first 12 characters, in the text and the JSON plan. A part of such a value
    # is now a value known at run time, shown as the expansion.
    (tmp_path / "hf_env").write_text("export HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345\n"
                                     "export DB_PASSWORD=Sup3rS3cretPassw0rd\n")
    (tmp_path / "run.sh").write_text(
        "#!/bin/bash\nsource ./hf_env\nP=$DB_PASSWORD\n"
        "torchrun --nnodes 1 --nproc_per_node 8 train.py --xa \"${HF_TOKEN:3}\" --xb \"${DB_PASSWORD:0:12}\" "
        "--xc \"${P:4}\" --xe \"${HF_TOKEN:0:2}\" --xf \"x${HF_TOKEN:20:10}\"\n")
    for fmt in ([], ["--json"]):
        rc, out, err = _gpudoctor("plan", *(fmt + ["run.sh"]), cwd=str(tmp_path))
        assert rc in (0, 1), err
        assert "train.py" in out
        for part in ("AbCd", "Sup3r", "3cretP", "rStUvWxYz0", "Passw0rd"):
            assert part not in out + err, (part, fmt)
        if not fmt:
            assert "${HF_TOKEN:3}" in out and "${DB_PASSWORD:0:12}" in out


@pytest.mark.parametrize("name", ["-e1e/tmp/x.sh", "--files-from=/etc/shadow", "-fx"])
def test_the_crlf_fix_names_the_file_as_an_operand_never_an_option(name):
    # 37.: envcause's CRLF cause (review19) wrote the hostfile a log's 'pdsh -w ^FILE' names into 'dos2unix FILE (or
    # sed -i 's/\r$//' FILE); `file FILE` ... `cat -A FILE`' with the name as the log gave it: '^-e1e/tmp/x.sh' became
    # sed's -e script '1e/tmp/x.sh' (GNU sed's e command runs a shell command), '-f...' file's list of names to read.
    # A name that starts with '-' is written './-...' (the same file, 15.).
    import re

    from gpudoctor.explain import explain_text

    with open(os.path.join(ROOT, "fixtures", "explain", "settings19", "pdsh-hostfile-crlf.log"), "rb") as f:
        text = f.read().decode("utf-8")
    res = explain_text(text.replace("^machines", "^" + name))
    fixes = [x for f in res["findings"] for c in f["causes"] for x in c["fix"] if x.startswith("dos2unix")]
    assert fixes
    for x in fixes:
        assert not re.search(r"(?:dos2unix|'s/\\r\$//'|file|-A) -", x), x
        assert "./" + name in x


def test_same_hashes_regular_files_only_and_never_waits_on_a_fifo(tmp_path):
    # 38.: the collector's --same hash (cluster.files) opened every file of the folder with open(): a FIFO someone
    # with write access to a shared folder plants there blocked the node's collector until its deadline (the node
    # reported 'timeout'), a link to /dev/zero read until then, and a link to a device opened it (as root: an open
    # that acts, /dev/watchdog). Each file is now resolved with O_PATH and read only if it is a regular file; another
    # kind is hashed as its kind, so the folders still compare.
    import threading

    from gpudoctor.collector import Context
    from gpudoctor.collector.cluster import files

    d = tmp_path / "proj"
    d.mkdir()
    (d / "a.txt").write_text("hi\n")
    os.mkfifo(str(d / "fifo"))
    os.symlink("/dev/null", str(d / "dev"))
    lone = tmp_path / "lone.fifo"
    os.mkfifo(str(lone))
    got = []
    t = threading.Thread(target=lambda: got.append(files(Context(options={"same_files": [str(d), str(lone)]}))),
                         daemon=True)
    t.start()
    t.join(30)
    if t.is_alive():  # (unblock the reader, so the failing run leaves no thread behind)
        for fifo in (d / "fifo", lone):
            try:
                os.close(os.open(str(fifo), os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        pytest.fail("the --same hash still waited on a FIFO after 30 s")
    out = got[0]["files"]
    assert out[str(d)]["kind"] == "dir" and len(out[str(d)]["sha256"]) == 64
    assert "regular file" in out[str(lone)]["error"]


# The peak is this process's own (VmHWM of /proc/self/status: the mm exec made): getrusage's ru_maxrss keeps the
# parent's high-water mark across fork and exec (Linux fs/exec.c setmax_mm_hiwater_rss), so under a pytest worker
# of 650 MB it read 650 MB whatever the unpickler did (the full suite failed, the file alone passed)
_LOAD_DUMP = """
import re, sys
from gpudoctor.explain import flight
try:
    flight.load_dump(open(sys.argv[1], "rb").read())
    print("loaded")
except flight.DumpError as exc:
    print("refused:", exc)
print(re.search(r"VmHWM:\\s+(\\d+) kB", open("/proc/self/status").read()).group(1))
"""


@pytest.mark.parametrize("put", [b"r" + (0x04000000).to_bytes(4, "little"), b"p67108864\n"],
                         ids=["LONG_BINPUT", "PUT"])
def test_a_tiny_dump_cannot_make_the_unpickler_allocate_gigabytes(tmp_path, put):
    # 39.: a Flight Recorder dump is unpickled by CPython's C unpickler, whose memo is an array grown to twice the
    # index a PUT names (Modules/_pickle.c _Unpickler_MemoPut): the 12-byte dump '\\x80\\x02 N r <0x10000000> .' made
    # explain hold 4.3 GB for 50 s (0x7fffffff: 32 GB, a MemoryError or the OOM killer), whatever 19.'s 64 MiB bound
    # on the file. The opcodes are read first (pickletools.genops): a memo index past the memo's own length, which
    # no pickler writes, refuses the dump.
    dump = tmp_path / "nccl_trace_rank_0"
    dump.write_bytes(b"\x80\x02N" + put + b".")
    p = subprocess.run([sys.executable, "-c", _LOAD_DUMP, str(dump)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       cwd=ROOT, timeout=120)
    said, rss_kib = p.stdout.decode().split("\n")[:2]
    assert said.startswith("refused:"), said
    assert int(rss_kib) < 300 * 1024, rss_kib


@pytest.mark.parametrize("config, value", [
    ("pyproject.toml", "./tools/python"), ("pyproject.toml", "tools/python"), ("gpudoctor.toml", "{here}/tools/python"),
])
def test_a_config_found_in_the_current_folder_runs_no_program_from_it(tmp_path, config, value):
    # 40.: a ./pyproject.toml or ./gpudoctor.toml of your own is read without being named (config.find_config), and its
    # `python` key is the interpreter gpudoctor runs (here, and on every node): a cloned repository whose pyproject
    # says [tool.gpudoctor] python = "./tools/python" ran that script when `gpudoctor check` was typed in it. A config
    # found in the current folder may not name a program inside that folder now (one line, exit 2; --python or
    # --config still can); an interpreter elsewhere (/opt/env/bin/python) is used as before.
    repo = tmp_path / "repo"
    (repo / "tools").mkdir(parents=True)
    marker = tmp_path / "RAN"
    script = repo / "tools" / "python"
    script.write_text("#!/bin/sh\ntouch %s\necho '{}'\n" % marker)
    script.chmod(0o755)
    text = 'python = "%s"\n' % value.replace("{here}", str(repo))
    (repo / config).write_text(("[tool.gpudoctor]\n" if config == "pyproject.toml" else "") + text)
    rc, out, err = _gpudoctor("check", "--no-history", cwd=str(repo), timeout=120)
    assert not marker.exists()
    assert rc == 2 and "python" in err and len(err.strip().splitlines()) == 1, (rc, err)
    (repo / config).write_text(("[tool.gpudoctor]\n" if config == "pyproject.toml" else "") +
                               'python = "%s"\n' % sys.executable)
    rc, out, err = _gpudoctor("check", "--no-history", cwd=str(repo), timeout=120)
    assert rc in (0, 1), err


def test_diff_shows_a_nodes_hostile_values_as_shell_words(tmp_path):
    # 41.: `gpudoctor diff` printed each changed fact as 'NAME before -> after' with the node's values as they were:
    # NCCL_SOCKET_IFNAME 'eth0$(touch ...)', LD_LIBRARY_PATH '/x;touch ...;#' stood bare in the text and the JSON
    # report, ready to run when copied into a terminal (27. holds check's descriptions to one sh() word per such
    # value; diff's lines are built elsewhere, gpudoctor/changes.py). They are shown as check shows them now.
    from gpudoctor.fixline import shown_word

    with open(os.path.join(ROOT, "fixtures", "nodes", "h100-ubuntu2404-torch211.json")) as f:
        before = json.load(f)
    after = json.loads(json.dumps(before))
    hostile = {"NCCL_SOCKET_IFNAME": "eth0$(touch MARKER)x", "LD_LIBRARY_PATH": "/x;touch MARKER;#",
               "NCCL_IB_HCA": "mlx5_0`touch MARKER`"}
    after["env"]["values"].update(hostile)
    after["cuda"]["ld_library_path"] = "/y | touch MARKER"
    (tmp_path / "before.json").write_text(json.dumps(before))
    (tmp_path / "after.json").write_text(json.dumps(after))
    rc, out, err = _gpudoctor("diff", "before.json", "after.json", cwd=str(tmp_path))
    rcj, outj, errj = _gpudoctor("diff", "--json", "before.json", "after.json", cwd=str(tmp_path))
    assert rc in (0, 1) and rcj == rc, err + errj
    texts = [c["text"] for c in json.loads(outj)["changes"]]
    for v in list(hostile.values()) + ["/y | touch MARKER"]:
        assert shown_word(v) in out and any(shown_word(v) in t for t in texts), v
        assert v not in out.replace(shown_word(v), "") and not any(v in t.replace(shown_word(v), "") for t in texts)


def test_plan_shows_a_launch_lines_values_as_shell_words(tmp_path):
    # 42.: the text plan's 'env set' row printed a launch line's assignments as NAME=value with the value bare
    # ('env set        NCCL_SOCKET_IFNAME=eth0;touch MARKER': an assignment as a shell reads it, which runs touch when
    # copied), and its 'script' row the script's arguments joined by blanks ('train.py --x $(touch MARKER)'); 12.
    # escaped only control characters there. A value a shell acts on is one sh() word now, as check shows it (27.).
    from test_redteam_2026_11_26d import paste

    rc, out, err = _gpudoctor("plan", "--launch", "NCCL_SOCKET_IFNAME='eth0;touch MARKER' torchrun --nnodes 1 "
                              "--nproc_per_node 2 train.py --x '$(touch MARKER)' --y '`touch MARKER`'")
    assert rc == 0, err
    rows = [line.split(None, 1)[1] for line in out.splitlines() if line.startswith("script ")]
    rows += [line.split(None, 2)[2] for line in out.splitlines() if line.startswith("env set ")]
    assert len(rows) == 2 and "NCCL_SOCKET_IFNAME=$'eth0;touch\\x20MARKER'" in rows[1]
    assert paste(rows + [rows[0].split(None, 1)[1]], tmp_path) == []


_FORBIDDEN = ('error retrieving resource lock kubeflow/mpi-operator: endpoints "mpi-operator" is forbidden: User '
              '"system:serviceaccount:kubeflow:mpi-operator" cannot get resource "{RES}" in API group "{GRP}" in the '
              'namespace "{NS}"\n')


@pytest.mark.parametrize("res, grp, ns", [
    ("endpoints", "", "kubeflow\\' <(touch${IFS}MARKER) \\'"), ("endpoints", "", "kubeflow;touch MARKER"),
    ("--kubeconfig=/tmp/x", "", "kubeflow"), ("endpoints", "x.io;touch MARKER", "kubeflow"),
    ("endpoints", "", "-n$(touch${IFS}MARKER)"),
])
def test_the_rbac_confirm_line_quotes_the_messages_words(tmp_path, res, grp, ns):
    # 43.: k8sstatus (6728a2e, this session) builds 'confirm: kubectl auth can-i VERB RESOURCE[.GROUP] --as=USER -n
    # NAMESPACE' from the API server's refusal with the message's quoted words bare: a namespace 'kubeflow\\' <(touch
    # MARKER) \\'' ran touch through the process substitution when the line was pasted (found by this round's
    # quote-context fuzz over the seen texts), a group 'x.io;touch MARKER' ran it after a ';', and a resource
    # '--kubeconfig=/tmp/x' became an option (a kubeconfig's exec plugin runs a command). The line is written only
    # where every word is a plain Kubernetes name (else with placeholders).
    from gpudoctor.explain import explain_text
    from test_redteam_2026_11_26d import paste

    res_ = explain_text(_FORBIDDEN.replace("{RES}", res).replace("{GRP}", grp).replace("{NS}", ns))
    lines = [x for f in res_["findings"] for c in f["causes"] for x in c["fix"] + c["confirm"]]
    can = [x for x in lines if "auth can-i" in x]
    assert can, lines  # the reader answered
    assert paste([x.split(": ", 1)[1] for x in can] + lines, tmp_path) == []
    for x in can:
        assert "--kubeconfig" not in x and " -n -" not in x and "touch" not in x


def test_the_rbac_confirm_line_keeps_plain_names():
    from gpudoctor.explain import explain_text

    res = explain_text(_FORBIDDEN.replace("{RES}", "endpoints").replace("{GRP}", "").replace("{NS}", "kubeflow"))
    lines = [x for f in res["findings"] for c in f["causes"] for x in c["fix"]]
    assert ("confirm: kubectl auth can-i get endpoints --as=system:serviceaccount:kubeflow:mpi-operator -n kubeflow"
            in lines), lines
    res = explain_text(_FORBIDDEN.replace("{RES}", "leases").replace("{GRP}", "coordination.k8s.io")
                       .replace("{NS}", "kubeflow"))
    lines = [x for f in res["findings"] for c in f["causes"] for x in c["fix"]]
    assert ("confirm: kubectl auth can-i get leases.coordination.k8s.io --as=system:serviceaccount:kubeflow:"
            "mpi-operator -n kubeflow" in lines), lines


@pytest.mark.parametrize("pay", ["$(touch MARKER)", "x;touch MARKER;#", "`touch MARKER`",
                                 "\\' <(touch${IFS}MARKER) \\'"])
def test_the_sshd_rule_line_quotes_sshds_log_line_as_one_word(tmp_path, pay):
    # 44.: clidocs.sshd_rule (df532128, this session) puts sshd's own log line into the root's first fix line as
    # it is: 'sshd refused it by its StrictModes (line 1: sshd[123]: ... directory /home/$(touch MARKER)u; ...): chown
    # ...'; its clauses (after ': ', '; ', ' (', the way 31. pastes fix lines) ran touch. The log line is one sh() word
    # there now where a shell acts on it (27.'s shown_word); a plain line is quoted as before.
    from gpudoctor.explain import explain_text
    from test_redteam_2026_11_26d import paste
    from test_redteam_2026_11_27b import _clauses

    res = explain_text("sshd[123]: Authentication refused: bad ownership or modes for directory /home/%su\n" % pay)
    lines = [x for f in res["findings"] for c in f["causes"] for x in c["fix"] + c["confirm"]]
    assert any(x.startswith("sshd refused it by its StrictModes") for x in lines), lines
    assert paste(_clauses(lines), tmp_path) == []


def test_the_sshd_rule_line_keeps_a_plain_log_line():
    from gpudoctor.explain import explain_text

    res = explain_text("sshd[123]: Authentication refused: bad ownership or modes for directory /home/u\n")
    lines = [x for f in res["findings"] for c in f["causes"] for x in c["fix"]]
    assert any(x.startswith("sshd refused it by its StrictModes (line 1: sshd[123]: Authentication refused: bad "
                            "ownership or modes for directory /home/u; ") for x in lines), lines


@pytest.mark.parametrize("why", ["Connection refused x' ; touch MARKER ; echo '",
                                 "Connection refused'; touch MARKER; #", "Connection refused;touch${IFS}MARKER;#"])
def test_the_pdsh_rcmd_line_quotes_the_connect_reason_as_one_word(tmp_path, why):
    # 45.: clidocs.pdsh_rcmd wrote pdsh's 'connect: <reason>' between single quotes of its own, the reason as the log
    # gave it: a reason holding a quote closed them ('connect: x' ; touch MARKER ; echo '') and the clause after it
    # ran touch when pasted; and the prose's own apostrophe before it ('rsh in Debian 12's pdsh') paired off with the
    # quote of a plain sh() word in the clause after 'prints it; ', leaving ';touch${IFS}MARKER;#' bare (the fuzz's
    # find). The quoted words are one sh() word now, and no apostrophe stands before them in the line.
    from gpudoctor.explain import explain_text
    from test_redteam_2026_11_26d import paste
    from test_redteam_2026_11_27b import _clauses

    res = explain_text("$ pdsh -w localhost hostname\npdsh@vm: localhost: connect: %s\n" % why)
    lines = [x for f in res["findings"] for c in f["causes"] for x in c["fix"]]
    assert any("is an rsh-protocol module's own failure" in x for x in lines), lines
    assert paste(_clauses(lines), tmp_path) == []

"""Red team 2026-11-27b (docs/security.md 31.): explain's fix lines that this session's readers build from the log's
own words. Each text is a seen one (bench/data) with a payload put into one word the fix line copies; every fix,
confirm and debug line of the answer is pasted alone into a restricted bash whose PATH holds only touch
(test_redteam_2026_11_26d.paste): no marker. Each failed before its fix; in-process, about a second in all."""

import pytest

from gpudoctor.explain import explain_text
from gpudoctor.fixline import first_active, inert
from test_redteam_2026_11_26d import paste

P = {"semi": ";touch${IFS}MARKER;#", "sub": "$(touch${IFS}MARKER)", "blank": " x; touch MARKER; #"}

TEXTS = {
    # buildinputs.py (dh_install's missing file): 'Make the build install include/nccl_net.h;touch${IFS}M;# ...'
    "dh_install": "dh_install: warning: libnccl-dev missing files: include/nccl_net.h{P}\n",
    # sshenv.py: 'ssh node2;touch${IFS}M;# 'MASTER_ADDR=<value> ...'': the host and the remote command as written
    "sshenv": ("$ export MASTER_ADDR=10.0.0.1 MASTER_PORT=29500; ssh -F /tmp/ssh/config node2{P} 'cd /tmp/job/run "
               "&& /usr/bin/python3 join.py'\nTraceback (most recent call last):\n  File \"/tmp/job/run/join.py\", "
               "line 2, in <module>\n    addr = os.environ[\"MASTER_ADDR\"]\n  File \"<frozen os>\", line 679, in "
               "__getitem__\nKeyError: 'MASTER_ADDR'\n"),
    # pyanswer.py (a library call's TypeError at the user's line): 'change the call at /tmp/x.py;touch...;#:4 ...'
    "signature": ("$ python eval_metrics.py\nTraceback (most recent call last):\n  File \"/tmp/job/run/eval_metrics"
                  ".py{P}\", line 4, in <module>\n    acc = torchmetrics.Accuracy(num_classes=5)\n"
                  "TypeError: Accuracy.__new__() missing 1 required positional argument: 'task'\n"),
    # slurmscript.py _expanded_early: the submitting line, edited, with whatever else it ran
    "wrap": ("$ sbatch -N1 -n1{P} -o run.out --wrap \"torchrun --nnodes \\$SLURM_NNODES --node-rank $SLURM_NODEID "
             "--nproc-per-node 2 ddp.py\"; sleep 12; cat run.out\nSubmitted batch job 2\n"
             "usage: torchrun [-h] [--nnodes NNODES] [--node-rank NODE_RANK]\n"
             "torchrun: error: argument --node-rank/--node_rank: expected one argument\n"),
    # slurmscript.py _unbound: the script's line given a default, and the line as it was
    "unbound": ("$ cat job.sbatch\n#!/bin/bash\n#SBATCH --job-name=pretok\n#SBATCH --ntasks=1\nset -euo pipefail\n"
                "export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK{P}\n$ sbatch job.sbatch\nSubmitted batch job 2\n"
                "$ cat pretok-2.out\n/spool/job00002/slurm_script: line 7: SLURM_CPUS_PER_TASK: unbound variable\n"),
    # pytb.where (apihistory's 'upgrade X (pip install -U X ...)'): the calling package is a site-packages folder's name
    "caller": ("Traceback (most recent call last):\n  File \"/home/u/train.py\", line 3, in <module>\n    import foo\n"
               "  File \"/usr/lib/python3/site-packages/x{P}/mod.py\", line 3, in f\n    a = np.float(3)\n"
               "  File \"/usr/lib/python3/site-packages/numpy/__init__.py\", line 324, in __getattr__\n"
               "    raise AttributeError(__former_attrs__[attr])\n"
               "AttributeError: module 'numpy' has no attribute 'float'.\n"),
    # launchctx.py _no_gpu_asked: the srun line with --gpus=1 put in
    "srun_gpus": ("vagrant@login101:~$ srun -N1{P} nvidia-smi\nNo devices were found\n"
                  "srun: error: virtual-gpu101: task 0: Exited with exit code 6\n"),
}


def _lines(res):
    out = []
    for f in res["findings"]:
        for c in f["causes"]:
            out += list(c["fix"]) + list(c["confirm"]) + ([c["computed_fix"]] if c.get("computed_fix") else [])
        out += list(f.get("debug") or ())
    return out


def _clauses(lines):
    """Each line, and its rest after each ': ', '; ', ', ' and ' (' outside its quoted words (a command inside the
    prose, as a person copies it: '... or upgrade x (pip install -U x: a release ...)')."""
    import re

    from gpudoctor.fixline import keep_quoted

    return [x[m.end():] for x in lines for m in re.finditer(r"^|: |; |, | \(", keep_quoted(x))]


ROOT = {"dh_install": "build.tool_error", "sshenv": "rendezvous.env_missing", "signature": "torchmetrics.usage",
        "wrap": "launcher.script_args", "unbound": "slurm.job_env", "srun_gpus": "slurm.step_without_gpus",
        "caller": "code.lib_api_version"}


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_a_fix_line_built_from_the_logs_words_runs_nothing_it_does_not_say(tmp_path, name):
    lines, ids = [], set()
    for key, pay in sorted(P.items()):
        res = explain_text(TEXTS[name].replace("{P}", pay))
        ids |= {f["id"] for f in res["findings"]}
        lines += _lines(res)
    assert ROOT[name] in ids  # the reader that builds the line answered
    assert paste(_clauses(lines), tmp_path) == []


def test_the_plain_lines_keep_their_edits():
    res = explain_text(TEXTS["unbound"].replace("{P}", ""))
    assert ("or give it a default on the line that reads it: export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-1}   "
            "(was: export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK)") in _lines(res)
    res = explain_text(TEXTS["wrap"].replace("{P}", ""))
    # the submitting command alone: '; sleep 12; cat run.out' after it is another command
    # (lead, on redteam21's finding) the escaped \$SLURM_NNODES is not the one expanded early: $SLURM_NODEID is, and
    # inside single quotes the escape is written bare (a backslash there would reach the job's shell)
    assert ("escape it so that the job's shell expands it: sbatch -N1 -n1 -o run.out --wrap \"torchrun --nnodes "
            "\\$SLURM_NNODES --node-rank \\$SLURM_NODEID --nproc-per-node 2 ddp.py\"") in _lines(res)
    assert ("or quote the whole command with single quotes: sbatch -N1 -n1 -o run.out --wrap 'torchrun --nnodes "
            "$SLURM_NNODES --node-rank $SLURM_NODEID --nproc-per-node 2 ddp.py'") in _lines(res)
    root = [f for f in res["findings"] if f.get("role") == "root"][0]
    assert root["causes"][0]["text"].startswith("$SLURM_NODEID is inside a double-quoted command")
    res = explain_text(TEXTS["srun_gpus"].replace("{P}", ""))
    assert any(x.startswith("ask for the GPUs on the srun line: srun --gpus=1 -N1 nvidia-smi (") for x in _lines(res))


@pytest.mark.parametrize("line, at", [
    ("export NUM_WORKERS=$SLURM_CPUS_PER_TASK", None), ("WORLD=$(( $SLURM_GPUS_PER_NODE * SLURM_NNODES ))", None),
    ('sbatch --wrap "python3 prep.py --workers \\$SLURM_CPUS_ON_NODE"', None),
    ("python3 -c \"import os; print(os.environ['X'])\"", None), ("a '$(x);`y`'", None), ("a\\;b", None),
    ("a;touch x", 1), ("a $(touch x)", 2), ('a "`touch x`"', 3), ('a "b', 4), ("echo !!", 5), ("x=$(( $(y) ))", 2),
    ("a | b", 2), ("a > f", 2), ("a && b", 2), ("(a)", 0), ("a $'\\x41'", 2), ("a\u202eb", 1), ("a\nb", 1),
    ("a # $(x)", 4),
])
def test_first_active(line, at):
    assert first_active(line) == at and inert(line) == (at is None)


def test_the_text_report_never_breaks_a_fix_line_inside_a_quoted_word(tmp_path):
    """render._fill wrapped fix lines at any blank, inside a value sh() had quoted too: the next line began inside
    the quote (`ccc; touch MARKER; #') ...`) and ran when copied alone. Every line of the fix and confirm lines as
    printed (continuation lines too), and each one's text after its label, pasted alone: no marker."""
    import io

    from gpudoctor.explain import render_text

    text = ("Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    open(p)\n"
            "FileNotFoundError: [Errno 2] No such file or directory: '/data/aaaa " + "b" * 47 + " " + "c" * 29 +
            "; touch MARKER; #'\n")
    out = io.StringIO()
    render_text(explain_text(text), out)
    shown, inside = [], False
    for x in out.getvalue().splitlines():  # the fix and confirm lines and their continuation lines
        label = x.lstrip().startswith(("fix: ", "confirm: "))
        inside = label or (inside and x.startswith(" " * 10))
        if inside:
            shown += [x.strip()] + ([x.split(": ", 1)[1]] if label else [])
    assert any("touch MARKER" in x for x in shown)
    assert paste(shown, tmp_path) == []


def test_a_captured_sbatch_line_is_shown_edited_only_where_it_runs_nothing_else(tmp_path):
    """clidocs.captured_id printed the user's `JOB=$(sbatch ...)` line with --parsable put in: its words after sbatch
    (';', '&&', '>' were let through) and the rest of the line ran when the fix line was pasted."""
    base = ("$ cat run.sh\nJOB=$(sbatch --wrap=\"hostname\")\nscontrol show job $JOB | head -1\nscancel $JOB\n"
            "$ bash run.sh\nscancel: error: Invalid job id specified\n")
    lines = []
    for old, new in [('--wrap="hostname")', '--wrap="hostname"; touch MARKER; echo)'),
                     ('--wrap="hostname")', '--wrap="hostname") ; touch MARKER #'),
                     ('head -1', "head -1' ; touch MARKER #")]:
        res = explain_text(base.replace(old, new, 1))
        got = [x for x in _lines(res) if x.startswith("keep only the job id: ")]
        assert got, new
        lines += got
    assert paste(lines, tmp_path) == []
    res = explain_text(base)
    assert any(x.startswith('keep only the job id: JOB=$(sbatch --parsable --wrap="hostname") (') for x in _lines(res))


SECRET = "vmAVb6GoAtBNMh2mnT8skiKnNcpHKLjz"


@pytest.mark.parametrize("text", [
    # a bare switch before a secret's flag: redact's flag pass took '--db-password' as the switch's value
    "torchrun --nproc-per-node 2 --fp16 --db-password {S} train.py\nRuntimeError: CUDA error: out of memory\n",
    "torchrun --nproc-per-node 2 --bf16 --hub_token={S} train.py\nRuntimeError: CUDA error: out of memory\n",
    # a line a reader clipped inside the secret (symptoms' 'Read from your words (line 1: ...)'): the shape passes
    # needed the whole value, or a URL's '@'
    "mpirun with 8 process but each process print rank 0, same output 8 times https://bob:{S}@git.example.com/r.git",
    "nvidia-smi shows the GPU utilization hovering around 15%, the training is CPU bound I think. hf_{S}",
    # a name inside another name's value: 'ChildFailedError:  WANDB_API_KEY=X' was read as ChildFailedError's value
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:  WANDB_API_KEY={S}\n",
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:  'api_key': '{S}'\n",
])
def test_no_part_of_a_secret_comes_back(text):
    import json

    out = json.dumps(explain_text(text.replace("{S}", SECRET), assume_error=True))
    assert not any(SECRET[i:i + 8] in out for i in range(len(SECRET) - 7))


def test_a_cut_value_is_redacted_only_where_it_reads_as_a_token():
    from gpudoctor.explain.redact import redact

    for keep in ("pip install hf_transfer", "x hf_transfer...", "see https://host:8080...", "sk-learn...",
                 "--lr -0.1 --fp16", "a hf_hub_download b", "enroot import docker://<registry>#<image>:<tag>",
                 # names inside another's value, read now: what the seen texts hold there is no secret
                 "keys: /default_pg/store_based_barrier_key:0:last_worker)",
                 "Known message of Slurm: ESLURMD_INVALID_JOB_CREDENTIAL: Invalid job credential"):
        assert redact(keep) == keep
    assert redact("see https://user:pa.ss.word...") == "see https://user:REDACTED..."
    assert redact("cut hf_abcdef1 [...]") == "cut REDACTED [...]"


OPTION = "-oProxyCommand=touch${IFS}MARKER"


@pytest.mark.parametrize("text", [
    # pyanswer: 'the file X does not exist ... (ls -l X)'
    "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    open(p)\n"
    "FileNotFoundError: [Errno 2] No such file or directory: '{O}'\n",
    # rootguard: FileExistsError under exist_ok=True (ls -ld X)
    "$ MY_CACHE_DIR={O} python cache.py\nTraceback (most recent call last):\n  File \"/tmp/w20/run/cache.py\", line 7, "
    "in cache_dir\n    root.mkdir(parents=True, exist_ok=True)\n  File \"/root/.pyenv/versions/3.11.7/lib/python3.11"
    "/pathlib.py\", line 1116, in mkdir\n    os.mkdir(self, mode)\nFileExistsError: [Errno 17] File exists: '{O}'\n",
    # rootguard: mpirun's working directory (ls -ld X, mkdir -p X)
    "$ ./run.sh\n" + "-" * 74 + "\nmpirun was unable to launch the specified application as it could not\nchange to the "
    "specified working directory:\n\nWorking directory: {O}\nNode: vm\n\nwhile attempting to start process rank 0.\n"
    + "-" * 74 + "\n2 total processes failed to start\n",
])
def test_a_path_from_the_log_is_never_an_option_of_the_fixs_command(text):
    import re

    got = [x for x in _lines(explain_text(text.replace("{O}", OPTION))) if "MARKER" in x]
    assert got
    for x in got:  # the operand after ls -l / ls -ld / mkdir -p / df -h: './-o...', the same file
        assert not re.search(r"(?:ls -ld?|mkdir -p|df -h) '?-o", x), x


@pytest.mark.parametrize("text, words", [
    # DeepSpeed's runner: 'ssh -o PasswordAuthentication=no {%2|<host>} hostname' ran ssh's ProxyCommand when pasted
    ("Using hostfile at /job/hostfile but host={O} was not reachable via ssh. If you are running with a single node "
     "please remove /job/hostfile or setup passwordless ssh.", "ssh -o PasswordAuthentication=no <host> hostname"),
    ("srun: error: Node failure on {O}", "sinfo -R -n <node>"),
    ("Bad owner or permissions on {O}", "chown $USER ~/.ssh/config; chmod 600 ~/.ssh/config"),
])
def test_a_generated_sites_value_that_starts_with_a_dash_is_no_option(text, words):
    """slots.fill put a message's value into the site's fix command as one sh() word, but a word that starts with
    '-' is still an option of that command: now such a value is not filled in (the slot keeps its words)."""
    got = _lines(explain_text(text.replace("{O}", OPTION), assume_error=True))
    assert any(x.startswith(words) for x in got), got
    assert not any("ProxyCommand" in x for x in got)

"""Red team 2026-11-28e (docs/security.md 81.+): hostile inputs against gpudoctor as a user or a node hands them in.
Each test failed before its fix."""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


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


# 81.: a credential that is a URL's path (a webhook), a Google API key, netrc's password and $SSHPASS were quoted
# back in clear by explain (its redaction read names before '=' / ':', a URL's userinfo and query, and shapes)

SLACK = "https://hooks.slack.com/services/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"
SECRETS = {
    # (a line as a log prints it, the secret part that must not come back)
    "slack": ("requests.exceptions.HTTPError: 404 Client Error: Not Found for url: " + SLACK,
              "Xq9ZkLm3Np7Rt2Vw5Yb8Cd4F"),
    "discord": ("requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: "
                "https://discord.com/api/webhooks/112233445566778899/aBcD-eFgH_iJkLmNoPqRsTuVwXyZ0123456789abcdEFGH",
                "aBcD-eFgH_iJkLmNoPqRsTuVwXyZ0123456789abcdEFGH"),
    "teams": ("requests.exceptions.HTTPError: 400 Client Error: Bad Request for url: https://contoso.webhook.office"
              ".com/webhookb2/0a1b2c3d-1111-2222-3333-444455556666@7e8f9a0b/IncomingWebhook/9c8b7a6d5e4f/1f2e3d4c",
              "9c8b7a6d5e4f"),
    "telegram": ("requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: "
                 "https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage",
                 "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"),
    "google": ("google.api_core.exceptions.PermissionDenied: 403 API key AIzaSyD3fG5hJ7kL9mN1pQ3rS5tU7vW9xY1zA3b "
               "not valid", "AIzaSyD3fG5hJ7kL9mN1pQ3rS5tU7vW9xY1zA3b"),
    "netrc": ("machine api.wandb.ai login user password 8f3a9c2e1b7d4f6a0c5e9b2d8f1a3c7e5b9d2f4a",
              "8f3a9c2e1b7d4f6a0c5e9b2d8f1a3c7e5b9d2f4a"),
    "netrc_lines": ("  password s3cr3tN3trcPw", "s3cr3tN3trcPw"),
    "sshpass": ("+ SSHPASS=Sup3rS3cretPw sshpass -e ssh node2 true", "Sup3rS3cretPw"),
}
# what stays as written: prose, a placeholder, the hosts and their documentation
KEPT = ["ssh: password authentication failed for user bob", "login failed: password is incorrect",
        "  password required", "machine api.wandb.ai login user password $WANDB_API_KEY",
        "see https://api.slack.com/messaging/webhooks for how to post", "SSHPASS is not set",
        "AIzaShort key", "webhook delivery failed: https://example.com/hooks/build"]


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_explain_redacts_path_and_netrc_secrets(name):
    from gpudoctor.explain.redact import redact

    line, secret = SECRETS[name]
    out = redact(line)
    assert secret not in out, out
    assert "REDACTED" in out


@pytest.mark.parametrize("line", KEPT)
def test_explain_keeps_what_is_no_secret(line):
    from gpudoctor.explain.redact import redact

    assert redact(line) == line


def test_explain_text_and_json_never_quote_a_webhook_or_netrc(tmp_path):
    log = tmp_path / "train.log"
    log.write_text("Epoch 3: 100%| 500/500 [02:11<00:00, loss=0.412]\n"
                   "Traceback (most recent call last):\n"
                   '  File "/home/u/train.py", line 88, in on_epoch_end\n'
                   "    r.raise_for_status()\n"
                   '  File "/usr/lib/python3/dist-packages/requests/models.py", line 1021, in raise_for_status\n'
                   "    raise HTTPError(http_error_msg, response=self)\n"
                   + SECRETS["slack"][0] + "\n" + SECRETS["netrc"][0] + "\n"
                   "wandb: ERROR Error while calling W&B API: user is not logged in (<Response [401]>)\n")
    for fmt in ([], ["--json"]):
        rc, out, err = _gd(["explain"] + fmt + [str(log)], tmp_path)
        assert rc in (0, 1), err
        assert "hooks.slack.com/services/" in out  # the line is quoted, its credential is not
        assert SECRETS["slack"][1] not in out and SECRETS["slack"][1] not in err
        assert SECRETS["netrc"][1] not in out
        if fmt:
            json.loads(out)


def test_collector_cuts_a_webhook_and_a_google_key():
    from gpudoctor.collector import python_env
    from gpudoctor.collector.system import credential_shape

    assert credential_shape(SLACK)
    assert credential_shape("AIzaSyD3fG5hJ7kL9mN1pQ3rS5tU7vW9xY1zA3b")
    assert not credential_shape("https://api.slack.com/messaging/webhooks")
    out = python_env._no_values("+ curl -X POST -d @msg.json " + SLACK + "\nkey AIzaSyD3fG5hJ7kL9mN1pQ3rS5tU7vW9xY1zA3b\n")
    assert "Xq9ZkLm3Np7Rt2Vw5Yb8Cd4F" not in out and "SyD3fG5hJ7kL9mN1pQ3rS5tU7vW9xY1zA3b" not in out
    assert "hooks.slack.com/services/" in out


# 82.: plan's notes wrote an accelerate config's value bare (`give --rdzv_backend X on the launch line`): the note's
# windows (78.) were the launch line's only, and the value was cut to 20 characters

ACC = ("compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nmachine_rank: 0\nmain_process_ip: 10.0.0.1\n"
       "main_process_port: 29500\nnum_machines: 2\nnum_processes: 16\nrdzv_backend: %s\n")
HOSTILE = ["'x; touch M; #'", "'x: touch M; #'", "'`touch M`'", "'x, touch M; #'", "\"x' ; touch M ; '\"",
           "'$(touch M)'", "'a\\tb; touch M'"]


def _pasted_lines(lines, tmp_path):
    """Each line and each clause after ': ', '; ', ', ', ' (' or two blanks outside a quoted word, pasted alone into
    a restricted bash whose PATH holds only touch: what it created."""
    import re
    import shutil

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
        subprocess.run([shutil.which("bash"), "--norc", "--noprofile", "-r", "-c", line], cwd=str(box / "w"),
                       timeout=30, env={"PATH": str(box / "bin"), "HOME": str(box / "w"), "LC_ALL": "C"},
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return sorted(os.listdir(str(box / "w")))


@pytest.mark.parametrize("value", HOSTILE)
def test_plan_note_shows_a_config_value_as_one_inert_word(value, tmp_path):
    (tmp_path / "acc.yaml").write_text(ACC % value)
    (tmp_path / "job.sh").write_text("#!/bin/bash\n#SBATCH -N 2\nsrun accelerate launch --config_file acc.yaml "
                                     "train.py\n")
    for args in (["plan", "--accelerate-config", "acc.yaml", "--launch", "accelerate launch train.py"],
                 ["plan", "job.sh"]):
        rc, out, err = _gd(args, tmp_path)
        assert rc == 0, err
        notes = [x for x in out.splitlines() if "rdzv_backend" in x and "not used" in x]
        assert notes, out
        assert _pasted_lines(notes, tmp_path) == [], notes


def test_plan_note_keeps_a_plain_config_value(tmp_path):
    (tmp_path / "acc.yaml").write_text(ACC % "c10d")
    rc, out, err = _gd(["plan", "--accelerate-config", "acc.yaml", "--launch", "accelerate launch train.py"], tmp_path)
    assert rc == 0, err
    assert ("rdzv_backend c10d in the config is not used: accelerate launch's --rdzv_backend (default static) wins "
            "over it, so the rendezvous is static and the node rank counts; give --rdzv_backend c10d on the launch "
            "line") in out


# 83.: a launch line's words were bare in plan's rows (master, rendezvous), in a note that names a word (torchtune's
# recipe) and in two refusals that stripped excerpt()'s quotes (argparse's message; Open MPI's `unknown option "X"`,
# where a `$(...)` sat between double quotes)

LINES = ["torchrun --nnodes 2 --nproc-per-node 8 --rdzv-backend %s --rdzv-endpoint 10.0.0.1:29400 train.py",
         "accelerate launch --num_machines 2 --num_processes 16 --rdzv_backend %s train.py",
         "tune run --nnodes 2 --nproc_per_node 8 %s --config c.yaml",
         "python -m torch.distributed.launch --nnodes 2 --node_rank %s --nproc_per_node 8 train.py",
         "mpirun -np 16 %s python train.py",
         "torchrun --nproc_per_node 8 %s a.py"]
WORDS = ["'x; touch M; #'", "'x: touch M; #'", "'`touch M`'", "'$(touch M)'", "\"x' ; touch M ; '\"",
         "'--x$(touch M)'", "'--bad;touch${IFS}M;#'"]


@pytest.mark.parametrize("line", LINES)
def test_plan_rows_notes_and_refusals_hold_a_lines_words_inert(line, tmp_path):
    for w in WORDS:
        text = line % w
        (tmp_path / "job.sh").write_text("#!/bin/bash\n#SBATCH -N 2\n%s\n" % text)
        for args in (["plan", "--launch", text], ["plan", "job.sh"]):
            rc, out, err = _gd(args, tmp_path)
            assert rc in (0, 1, 2), err
            shown = [x for x in (out + "\n" + err).splitlines() if "touch" in x and not x.startswith("line ")
                     and not x.lstrip().startswith("line ")]
            assert _pasted_lines(shown, tmp_path) == [], (text, shown)


def test_plan_keeps_plain_words_and_the_launchers_own_messages(tmp_path):
    rc, out, err = _gd(["plan", "--launch", "mpirun --bogus 3 -np 2 -H aa:2 ./x"], tmp_path)
    assert rc == 2 and 'unknown option "--bogus"' in err, err
    rc, out, err = _gd(["plan", "--launch", "torchrun --nnodes"], tmp_path)
    assert rc == 2 and "argparse: argument --nnodes: expected one argument" in err, err
    rc, out, err = _gd(["plan", "--launch", "python -m torch.distributed.launch --nnodes 2 --node_rank abc t.py"],
                       tmp_path)
    assert rc == 2 and "invalid int value: 'abc'" in err, err
    (tmp_path / "ok.sh").write_text('#!/bin/bash\n#SBATCH -N 2\nMASTER=$(scontrol show hostnames "$SLURM_JOB_NODELIST" '
                                    '| head -n 1)\nsrun torchrun --nnodes 2 --nproc-per-node 8 --rdzv-backend c10d '
                                    '--rdzv-endpoint $MASTER:29400 train.py\n')
    rc, out, err = _gd(["plan", "ok.sh"], tmp_path)
    assert ('rendezvous     c10d $(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1) (the first node of the '
            'allocation):29400') in out, out

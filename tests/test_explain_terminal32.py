"""Training jobs without a terminal, and who sent the signal that ended a rank (explain-terminal32, issue 18).

The recordings (fixtures/recorded/explain-terminal32/, record.sh and README there: torch 2.13.0+cpu, Python 3.11.7,
script/setsid/nohup/stty/tput run for real) get the entry of their mechanism and the fix for the way the job was
started; the variants no run here printed (other torch releases' wording, sudo / git / apt / zsh / srun lines, other
signal numbers) get the same answer, since the patterns are the printing programs' own formats; the texts CPython's
getpass prints are read from this interpreter's Lib/getpass.py."""

import inspect
import json
import os

import pytest

from gpudoctor.explain import explain_text

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = os.path.join(REPO, "fixtures", "recorded", "explain-terminal32")


def _read(name):
    with open(os.path.join(RUNS, name), encoding="utf-8") as f:
        return f.read()


def _root(text):
    r = explain_text(text)
    assert r["verdict"] in ("root_cause", "likely_cause", "echo_only"), r["verdict"]
    return r["findings"][0]


def _fixes(f, first_only=False):
    causes = f["causes"][:1] if first_only else f["causes"]
    return "\n".join(x for c in causes for x in c["fix"])


@pytest.mark.parametrize("name, entry, fix", [
    ("input_nohup.txt", "terminal.no_tty_prompt", "yes | python train.py"),
    ("getpass_setsid.txt", "terminal.no_tty_prompt", "HF_TOKEN"),
    ("termsize_setsid.txt", "terminal.no_tty_prompt", "shutil.get_terminal_size()"),
    ("tcgetattr_devnull.txt", "terminal.no_tty_prompt", "sys.stdin.isatty()"),
    ("devtty_setsid.txt", "terminal.no_tty_prompt", "open('/dev/tty') with try/except OSError"),
    ("stty_devnull.txt", "terminal.no_tty_command", "[ -t 0 ] && stty"),
    ("torchrun_sighup.txt", "elastic.sighup", "setsid nohup torchrun"),
    ("torchrun_nohup_still_sighup.txt", "elastic.sighup", "tmux"),
    ("torchrun_sigusr1.txt", "elastic.sigusr", "--signals-to-handle SIGTERM,SIGINT,SIGHUP,SIGQUIT,SIGUSR1"),
    ("torchrun_sigusr1_handled.txt", "elastic.sigusr", "signal.signal(signal.SIGUSR1"),
    ("torchrun_sigterm_grace_sigkill.txt", "elastic.shutdown_sigkill", "--shutdown-timeout"),
    ("print_after_hangup.txt", "errno.io", "> train.log 2>&1"),
    # an echo (the reader went away), with the pipeline's fix among its causes
    ("nohup_tee_broken_pipe.txt", "errno.peer_gone", "setsid sh -c '... | tee train.log'"),
])
def test_recorded_runs_get_their_mechanism_and_fix(name, entry, fix):
    root = _root(_read(name))
    assert root["id"] == entry
    assert fix in _fixes(root)


def test_the_prompt_recordings_name_the_first_cause_that_fits():
    # getpass's token prompt: the login cause (token from the environment) comes first, promoted by its evidence
    root = _root(_read("getpass_setsid.txt"))
    assert "HF_TOKEN" in _fixes(root, first_only=True)
    # a y/N input(): the non-interactive answer comes first
    assert "--yes" in _fixes(_root(_read("input_nohup.txt")), first_only=True)
    # get_terminal_size: the terminal-call cause (shutil's fallback) comes first
    assert "shutil.get_terminal_size()" in _fixes(_root(_read("termsize_setsid.txt")), first_only=True)
    # the job's secrets stay out of the answer: the fix names the variables, never a value the redactor would cut
    root = _root(_read("getpass_setsid.txt"))
    assert "REDACTED" not in _fixes(root) + " ".join(x for c in root["causes"] for x in c.get("confirm") or [])


def test_a_torchrun_that_survived_under_setsid_is_no_sighup():
    # the recording of the fix: the pty went away, training went on, then a plain kill -TERM ended it
    root = _root(_read("torchrun_setsid_survives.txt"))
    assert root["id"] == "elastic.sigterm"


@pytest.mark.parametrize("text, entry, fix", [
    # older torch releases log the Signals enum: 'Received Signals.SIGHUP death signal'
    ("WARNING:torch.distributed.elastic.agent.server.api:Received Signals.SIGHUP death signal, shutting down workers\n"
     "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 41 closing signal SIGHUP\n",
     "elastic.sighup", "tmux"),
    ("torch.distributed.elastic.multiprocessing.api.SignalException: Process 7781 got signal: 1\n",
     "elastic.sighup", "setsid"),
    # other launchers' words for a rank the hangup ended: mp.spawn, elastic's report, mpirun, srun
    ("torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGHUP\n",
     "elastic.sighup", "tmux"),
    ("  exitcode  : -1 (pid: 4242)\n  error_file: <N/A>\n  traceback : Signal 1 (SIGHUP) received by PID 4242\n",
     "elastic.sighup", "setsid"),
    ("mpirun noticed that process rank 0 with PID 0 on node gpu01 exited on signal 1 (Hangup).\n",
     "elastic.sighup", "tmux"),
    ("srun: error: gpu01: task 0: Hangup\n", "elastic.sighup", "setsid"),
    # bash's own report, when the command it names is the job's launcher or interpreter
    ("./run.sh: line 3: 27761 Hangup                  torchrun --nproc-per-node=2 train.py\n", "elastic.sighup",
     "tmux"),
    ("[1]+  Hangup                  /opt/conda/bin/python train.py --epochs 90\n", "elastic.sighup", "setsid"),
    ("  traceback : Signal 10 (SIGUSR1) received by PID 4242\n", "elastic.sigusr", "--signals-to-handle"),
    # srun's report of a task SIGUSR2 ended, and the agent's with USR2 handled
    ("srun: error: gpu07: task 3: User defined signal 2\n", "elastic.sigusr", "signal.signal(signal.SIGUSR1"),
    ("W1129 torch/distributed/elastic/agent/server/api.py:753] Received 12 death signal, shutting down workers\n",
     "elastic.sigusr", "--signals-to-handle"),
    ("W1129 api.py:1047] Unable to shutdown process 5120 via Signals.SIGTERM, forcefully exiting via "
     "Signals.SIGKILL\n", "elastic.shutdown_sigkill", "os.replace()"),
    # git asked for a username with no terminal (ENXIO on /dev/tty), and with GIT_TERMINAL_PROMPT=0
    ("Cloning into 'Llama-3-8B'...\nfatal: could not read Username for 'https://huggingface.co': No such device or "
     "address\n", "terminal.no_tty_command", "credential helper"),
    ("fatal: could not read Password for 'https://github.com': terminal prompts disabled\n",
     "terminal.no_tty_command", "credential"),
    ("sudo: a terminal is required to read the password; either use the -S option to read from standard input or "
     "configure an askpass helper\n", "terminal.no_tty_command", "NOPASSWD"),
    ("sudo: no tty present and no askpass program specified\n", "terminal.no_tty_command", "NOPASSWD"),
    ("After this operation, 12.3 MB of additional disk space will be used.\nDo you want to continue? [Y/n] Abort.\n",
     "terminal.no_tty_command", "apt-get install -y"),
    ("wandb: ERROR api_key not configured (no-tty). call wandb.login(key=[your_api_key])\n",
     "terminal.no_tty_prompt", "WANDB_API_KEY"),
    ("wandb.errors.errors.UsageError: api_key not configured (no-tty). call wandb.login(key=[your_api_key])\n",
     "terminal.no_tty_prompt", "WANDB_MODE=offline"),
    ("Fatal Python error: init_sys_streams: can't initialize sys standard streams\nPython runtime state: core "
     "initialized\nOSError: [Errno 9] Bad file descriptor\n", "terminal.no_tty_prompt", "< /dev/null"),
    ("[1]  + suspended (tty input)  python train.py\n", "terminal.background_stopped", "< /dev/null"),
    ("subprocess died with <Signals.SIGTTIN: 21>\n", "terminal.background_stopped", "nohup"),
    # docker run -t, screen and tmux started in the foreground from a job, ssh's password prompt, os.getlogin()
    ("$ docker run --rm -it --gpus all trainer:1 python train.py\nthe input device is not a TTY\n",
     "terminal.no_tty_command", "docker run -i"),
    ("Must be connected to a terminal.\n", "terminal.no_tty_command", "screen -dmS train"),
    ("open terminal failed: not a terminal\n", "terminal.no_tty_command", "tmux new-session -d -s train"),
    ("ssh_askpass: exec(/usr/bin/ssh-askpass): No such file or directory\nPermission denied, please try again.\n",
     "terminal.no_tty_command", "BatchMode=yes"),
    ('Traceback (most recent call last):\n  File "train.py", line 30, in <module>\n    run = f"{os.getlogin()}-x"\n'
     "OSError: [Errno 6] No such device or address\n", "terminal.no_tty_prompt", "getpass.getuser()"),
    # newer wandb's no-terminal login, and huggingface_hub's notebook login called from a script or a job
    ("wandb.errors.errors.UsageError: No API key configured. Use `wandb login` to log in.\n",
     "terminal.no_tty_prompt", "WANDB_API_KEY"),
    ("ImportError: The `notebook_login` function can only be used in a notebook (Jupyter or Colab) and you need the "
     "`ipywidgets` module: `pip install ipywidgets`.\n", "terminal.no_tty_prompt", "HF_TOKEN"),
    # click / typer: a prompt that read end-of-file
    ("Overwrite the checkpoint directory? [y/N]: \nAborted!\n", "terminal.no_tty_prompt", "--yes"),
])
def test_variants_of_each_mechanism(text, entry, fix):
    root = _root(text)
    assert root["id"] == entry
    assert fix in _fixes(root)


def test_getpass_texts_are_cpythons():
    """The two getpass lines the entry matches are the ones this interpreter's Lib/getpass.py prints."""
    import getpass

    src = inspect.getsource(getpass)
    for line in ("Can not control echo on the terminal.", "Warning: Password input may be echoed."):
        assert line in src
    warn = "getpass.py:91: GetPassWarning: Can not control echo on the terminal.\n"
    assert _root(warn)["id"] == "terminal.no_tty_prompt"
    assert _root("Warning: Password input may be echoed.\nToken: ")["id"] == "terminal.no_tty_prompt"


def test_sigusr_answers_in_the_time_limit_family():
    # --signal=USR1@N is Slurm's warning N seconds before the time limit
    root = _root("srun: error: s1: task 0: User defined signal 1\n")
    assert root["family"] == "slurm.time_limit"


@pytest.mark.parametrize("text", [
    # pickle's own EOFError (a truncated checkpoint) is not a prompt
    "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    sd = pickle.load(f)\n"
    "EOFError: Ran out of input\n",
    # SIGTERM at torchrun is the scheduler's, not a terminal's
    "WARNING:torch.distributed.elastic.agent.server.api:Received 15 death signal, shutting down workers\n",
])
def test_other_mechanisms_are_not_taken(text):
    r = explain_text(text)
    ids = [f["id"] for f in r["findings"]]
    assert not any(i.startswith("terminal.") or i in ("elastic.sighup", "elastic.sigusr") for i in ids)


def test_a_host_key_prompt_stays_ssh_host_key():
    # ssh asked to confirm an unknown host key with no terminal: the host key is what to fix (ssh.toml's entry)
    root = _root("ssh_askpass: exec(/usr/bin/ssh-askpass): No such file or directory\nHost key verification failed.\n")
    assert root["id"] == "ssh.host_key"


def test_a_helper_that_a_hangup_ended_is_no_answer():
    # failshape.py's reason: bash reports every command of a script that SIGHUP stopped (a tail -f, a monitor)
    r = explain_text("./run.sh: line 9: 27761 Hangup                  tail -f train.log\n")
    assert not any(f["id"] == "elastic.sighup" for f in r["findings"])


def test_nohup_notice_alone_is_healthy():
    r = explain_text("nohup: ignoring input and appending output to 'nohup.out'\nepoch 1 loss 0.52\nepoch 2 loss 0.41\n")
    assert r["verdict"] == "no_error"


def test_errno_meanings_name_the_terminal():
    with open(os.path.join(REPO, "gpudoctor", "data", "knowledge", "generated", "errno.json"), encoding="utf-8") as f:
        sites = {s["name"]: s for s in json.load(f)["sites"]}
    assert "terminal" in sites["ENOTTY"]["means"] and "HF_TOKEN" in " ".join(sites["ENOTTY"]["fix"])
    assert "/dev/tty" in sites["ENXIO"]["means"]
    assert "terminal that hung up" in sites["EIO"]["means"]

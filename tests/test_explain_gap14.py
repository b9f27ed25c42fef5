"""gap14 (issue 18): the store's host given as a URL (MASTER_ADDR=tcp://HOST).

torch/distributed/rendezvous.py passes MASTER_ADDR unchanged to TCPStore as its host name (only init_method is parsed
as a URL), so c10d's socket.cpp looks 'tcp://HOST' up as a name and retries until its timeout; the scheme in the host
that its lookup warning and its timeout print is the mistake (rendezvous.toml, rendezvous.hostname's cause).

Texts: a run here (torch 2.13.0+cpu, `MASTER_ADDR=tcp://127.0.0.1 MASTER_PORT=29533 RANK=1 WORLD_SIZE=2`,
init_process_group('gloo', timeout=8 s); the C++ frame lines left out), the seen set P18's case, and bare host
names that do not resolve, from public threads (the cause must not be read from them)."""

import json
import os

import pytest

from gpudoctor.explain import explain_text
from explainhelp import seen_text
from gpudoctor.explain.knowledge import open_generated

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

RUN_HERE = """2.13.0+cpu
[W1126 22:55:58.938427383 socket.cpp:764] [c10d] The IPv6 network addresses of (tcp://127.0.0.1, 29533) cannot be retrieved (gai error: -2 - Name or service not known).
[W1126 22:55:59.535630053 socket.cpp:764] [c10d] The IPv6 network addresses of (tcp://127.0.0.1, 29533) cannot be retrieved (gai error: -2 - Name or service not known).
[W1126 22:56:00.474866293 socket.cpp:764] [c10d] The IPv6 network addresses of (tcp://127.0.0.1, 29533) cannot be retrieved (gai error: -2 - Name or service not known).
[W1126 22:56:01.475314272 socket.cpp:764] [c10d] The IPv6 network addresses of (tcp://127.0.0.1, 29533) cannot be retrieved (gai error: -2 - Name or service not known).
[W1126 22:56:03.983615539 socket.cpp:764] [c10d] The IPv6 network addresses of (tcp://127.0.0.1, 29533) cannot be retrieved (gai error: -2 - Name or service not known).
[E1126 22:56:03.983650103 socket.cpp:1028] [c10d] The client socket has timed out after 8000ms while trying to connect to (tcp://127.0.0.1, 29533).
[W1126 22:56:03.020528914 TCPStore.cpp:340] [c10d] TCP client failed to connect/validate to host tcp://127.0.0.1:29533 - retrying (try=0, timeout=8000ms, delay=2163ms): The client socket has timed out after 8000ms while trying to connect to (tcp://127.0.0.1, 29533).
Exception raised from throwTimeoutError at /__w/pytorch/pytorch/torch/csrc/distributed/c10d/socket.cpp:1030 (most recent call first):
Traceback (most recent call last):
  File "<string>", line 4, in <module>
  File "/tmp/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 1892, in init_process_group
    store, rank, world_size = next(rendezvous_iterator)
  File "/tmp/venv/lib/python3.11/site-packages/torch/distributed/rendezvous.py", line 280, in _env_rendezvous_handler
    store = _create_c10d_store(
  File "/tmp/venv/lib/python3.11/site-packages/torch/distributed/rendezvous.py", line 199, in _create_c10d_store
    return TCPStore(
torch.distributed.DistNetworkError: The client socket has timed out after 8000ms while trying to connect to (tcp://127.0.0.1, 29533).
"""


def _seen(case_id):
    return seen_text(case_id)


def _first_cause(text):
    r = explain_text(text)
    assert r["findings"], r["verdict"]
    f = r["findings"][0]
    return f, f["causes"][0]


@pytest.mark.parametrize("text", [RUN_HERE, "P18"], ids=["run-here-torch-2.13", "seen-p18"])
def test_a_scheme_in_the_stores_host_is_named_first(text):
    if text == "P18":
        text = _seen("p18-tr_master_addr_with_scheme")
    f, c = _first_cause(text)
    assert f["id"] == "rendezvous.hostname"
    assert "scheme" in c["text"] and c["evidence"]
    fix = " ".join(c["fix"])
    assert "MASTER_ADDR=127.0.0.1" in fix and "init_method" in fix


# bare host names that do not resolve (public threads): the lookup fails for another reason; the URL cause has no
# evidence there and is not put first
BARE = [
    # https://github.com/meta-pytorch/torchx/issues/540
    "[0]:[W socket.cpp:558] [c10d] The IPv6 network addresses of (codeflare-ray-jiajie-csqcn-head-sjvwx, 50176) "
    "cannot be retrieved (gai error: -2 - Name or service not known).\n"
    "[0]:[W socket.cpp:558] [c10d] The IPv4 network addresses of (codeflare-ray-jiajie-csqcn-head-sjvwx, 50176) "
    "cannot be retrieved (gai error: -2 - Name or service not known).\n"
    "[0]:[E socket.cpp:610] [c10d] The client socket has failed to connect to any network address of "
    "(codeflare-ray-jiajie-csqcn-head-sjvwx, 50176).\n",
    # https://github.com/meta-pytorch/monarch/pull/1571 (the PR's quoted lines)
    "[W1008 23:40:22.781961348 socket.cpp:767] [c10d] The IPv6 network addresses of "
    "(job-01k72wn5f8waqw7d81mfggagn4.internal, 50745) cannot be retrieved (gai error: -2 - Name or service not known).\n"
    "[W1008 23:40:22.836678340 socket.cpp:767] [c10d] The IPv6 network addresses of "
    "(job-01k72wn5f8waqw7d81mfggagn4.internal, 50745) cannot be retrieved (gai error: -2 - Name or service not known).\n"
    "[W1008 23:40:22.881961348 socket.cpp:767] [c10d] The IPv6 network addresses of "
    "(job-01k72wn5f8waqw7d81mfggagn4.internal, 50745) cannot be retrieved (gai error: -2 - Name or service not known).\n"
    "torch.distributed.DistNetworkError: The client socket has timed out after 600000ms while trying to connect to "
    "(job-01k72wn5f8waqw7d81mfggagn4.internal, 50745).\n",
]


@pytest.mark.parametrize("text", BARE, ids=["torchx-540", "monarch-1571"])
def test_a_bare_host_that_does_not_resolve_is_not_read_as_a_url(text):
    r = explain_text(text)
    causes = [c for f in r["findings"] for c in f["causes"]]
    assert r["findings"] and r["findings"][0]["id"] == "rendezvous.hostname"
    assert not any("scheme" in c["text"] and c["evidence"] for c in causes)
    assert "scheme" not in r["findings"][0]["causes"][0]["text"]


# MPICH Hydra's unknown option (W: the right cause, without the option's name): match_arg's line names the option,
# its dashes stripped (src/pm/hydra/lib/utils/args.c), and mpi.hydra_option's fix now says which one to drop.
# Texts: the seen set P11's case (MPICH 4.0.2, run by that set's evaluator) and horovod#1807's (Open MPI's
# --allow-run-as-root given to MPICH's mpirun: https://github.com/horovod/horovod/issues/1807, fixtures/logs/dev),
# where mpi.hydra_option is the related finding.
def _hydra_fix(r):
    f = next(f for f in r["findings"] if f["id"] == "mpi.hydra_option")
    return " ".join(f["causes"][0]["fix"])


def test_hydras_unknown_option_is_named_in_the_fix():
    r = explain_text(_seen("p11-hydra_unknown_option"))
    assert r["findings"][0]["id"] == "mpi.hydra_option"
    assert "(print-rank-map: the word Hydra did not know)" in _hydra_fix(r)
    with open(os.path.join(REPO, "fixtures", "logs", "dev", "mpi.implementation_mismatch__horovod-1807-mpich-"
                           "unrecognized-allow-run-as-root.log"), encoding="utf-8") as f:
        r = explain_text(f.read())
    assert r["findings"][0]["id"] == "mpi.implementation_mismatch"
    assert "(allow-run-as-root: the word Hydra did not know)" in _hydra_fix(r)


def test_a_cut_hydra_line_keeps_the_words():
    r = explain_text("[mpiexec@vm] match_arg (utils/args/args.c:163): unrecognized argument\n"
                     "[mpiexec@vm] HYDU_parse_array (utils/args/args.c:178): argument matching returned error\n")
    assert "(its dashes stripped: the word Hydra did not know)" in _hydra_fix(r)


# Slurm's job state reasons that end a job or keep it pending for good had only slurm.error's generic words (M: the
# site is read, no fix row); tools/gen_slurm_reasons.py's REASON_FIX now gives each its meaning and fix from
# https://slurm.schedmd.com/job_reason_codes.html. Texts: a run here (Slurm 22.05.8, one slurmctld + slurmd on this
# machine, auth/none: `sbatch --wrap 'python3 -c "import sys; sys.exit(3)"'`, then `sbatch --dependency=afterok:1
# --wrap 'echo training'`), in squeue's and scontrol's forms, and the seen set P11's case.
DEP_SQUEUE = """$ sbatch --dependency=afterok:1 --wrap 'echo training'
Submitted batch job 2
$ squeue
             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)
                 2     debug     wrap     root PD       0:00      1 (DependencyNeverSatisfied)
"""
DEP_SCONTROL = """$ scontrol show job 2 | grep -E 'JobState|Dependency'
   JobState=PENDING Reason=DependencyNeverSatisfied Dependency=afterok:1(failed)
"""


@pytest.mark.parametrize("text, job", [(DEP_SQUEUE, "2"), (DEP_SCONTROL, "<JOBID>"), ("P11", "33")],
                         ids=["squeue", "scontrol", "seen-p11"])
def test_a_dependency_that_can_never_be_satisfied_gets_its_own_fix(text, job):
    if text == "P11":
        text = _seen("p11-dependency_never_satisfied")
    f, c = _first_cause(text)
    assert f["id"] == "slurm.error"
    assert "can never be satisfied" in c["text"]
    fix = " ".join(c["fix"])
    # the pending job's id fills the table's <JOBID> where the text submits it or names it by JobId= (slurm19);
    # scontrol's grep-filtered form shows neither, and the placeholder stays
    assert "scontrol update jobid=%s dependency=afterok:<new job id>" % job in fix
    assert "scancel %s and resubmit" % job in fix
    assert ("<JOBID>" in fix) == (job == "<JOBID>")


def test_every_ending_reason_has_its_own_fix():
    """Each reason assigned to a family that ends the job or holds it for good has a fix of its own (the normal
    pending reasons, slurm.pending, need none: the job starts when they clear)."""
    with open_generated("slurm_reasons") as f:
        sites = json.load(f)["sites"]
    bare = [s["name"] for s in sites if s.get("family") in ("slurm.error", "slurm.time_limit", "slurm.node_config")
            and not s.get("fix")]
    assert bare == []


# ssh's own reason before a launcher's 'ssh exited with exit code 255' (ssh.pdsh; checks/ssh.knowledge.toml): a changed
# host key and sshd's MaxAuthTries. Texts: runs here (pdsh 2.34 -R ssh against OpenSSH's sshd on 127.0.0.1 started with
# MaxAuthTries=2, an ssh config offering four keys none of which is authorized; then a known_hosts line holding
# another host key), and the seen sets P11's and P15's cases.
PDSH_AUTH = '$ pdsh -R ssh -w gnode[1-2] hostname\ngnode2: Received disconnect from 127.0.0.1 port 45579:2: Too many authentication failures\ngnode2: Disconnected from 127.0.0.1 port 45579\npdsh@vm: gnode2: ssh exited with exit code 255\ngnode1: Received disconnect from 127.0.0.1 port 45579:2: Too many authentication failures\ngnode1: Disconnected from 127.0.0.1 port 45579\npdsh@vm: gnode1: ssh exited with exit code 255\n'
PDSH_HOSTKEY = '$ pdsh -R ssh -w gnode1 hostname\ngnode1: @@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\ngnode1: @    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\ngnode1: @@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\ngnode1: IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!\ngnode1: Someone could be eavesdropping on you right now (man-in-the-middle attack)!\ngnode1: It is also possible that a host key has just been changed.\ngnode1: The fingerprint for the ED25519 key sent by the remote host is\ngnode1: SHA256:PvMegdM79pr5kASM86DxKQvdY86V1ZBsa8HP5g5dNjI.\ngnode1: Please contact your system administrator.\ngnode1: Add correct host key in /tmp/gap14_ssh/known_hosts to get rid of this message.\ngnode1: Offending ED25519 key in /tmp/gap14_ssh/known_hosts:1\ngnode1:   remove with:\ngnode1:   ssh-keygen -f "/tmp/gap14_ssh/known_hosts" -R "[127.0.0.1]:45579"\ngnode1: Host key for [127.0.0.1]:45579 has changed and you have requested strict checking.\ngnode1: Host key verification failed.\npdsh@vm: gnode1: ssh exited with exit code 255\n'


@pytest.mark.parametrize("text,words,fix", [
    (PDSH_AUTH, "too many failed attempts", "IdentitiesOnly yes"),
    ("p15-ssh_too_many_auth_failures", "too many failed attempts", "IdentitiesOnly yes"),
    (PDSH_HOSTKEY, "refused the node's host key", "ssh-keygen -R <host>"),
    ("p11-pdsh_host_key_changed", "refused the node's host key", "ssh-keygen -R <host>"),
], ids=["auth-run-here", "auth-seen-p15", "hostkey-run-here", "hostkey-seen-p11"])
def test_the_launchers_ssh_failure_names_ssh_own_reason(text, words, fix):
    if text.startswith("p1"):
        text = _seen(text)
    f, c = _first_cause(text)
    assert f["id"] == "ssh.pdsh"
    assert words in c["text"] and c["evidence"]
    assert fix in " ".join(c["fix"])


# torch's own refusals whose condition names the cause (torch_usercode.toml): DataLoader(timeout=N) expired (dataloader.py
# _try_get_data; the workers are slow, not dead) and a negative target other than ignore_index (LossNLL.cpp). Texts:
# runs here (torch 2.13.0+cpu: a dataset sleeping 3 s per item with num_workers=1, timeout=1; cross_entropy with
# labels padded with -1), and the seen sets P12's and P14's cases.
LOADER_TIMEOUT = 'Traceback (most recent call last):\n  File "/tmp/gap14_torch/slow.py", line 9, in <module>\n    for b in DataLoader(Slow(), batch_size=2, num_workers=1, timeout=1):\n  File "/tmp/libs13b/tv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 725, in __next__\n    data = self._next_data()\n           ^^^^^^^^^^^^^^^^^\n  File "/tmp/libs13b/tv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1505, in _next_data\n    idx, data = self._get_data()\n                ^^^^^^^^^^^^^^^^\n  File "/tmp/libs13b/tv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1449, in _get_data\n    raise RuntimeError(\nRuntimeError: DataLoader timed out after 1 seconds\n'
TARGET_NEG = 'Traceback (most recent call last):\n  File "/tmp/gap14_torch/pad.py", line 5, in <module>\n    print(F.cross_entropy(logits, labels))\n          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n  File "/tmp/libs13b/tv/lib/python3.11/site-packages/torch/nn/functional.py", line 3555, in cross_entropy\n    return torch._C._nn.cross_entropy_loss(\n           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\nIndexError: Target -1 is out of bounds.\n'


@pytest.mark.parametrize("text,entry,words,fix", [
    (LOADER_TIMEOUT, "usercode.dataloader_killed", "DataLoader(timeout=N)", "raise timeout="),
    ("p12-loader_timeout_slow_dataset", "usercode.dataloader_killed", "DataLoader(timeout=N)", "raise timeout="),
    (TARGET_NEG, "usercode.index_out_of_range", "negative target", "ignore_index"),
    ("p14-labels_pad_minus_one", "usercode.index_out_of_range", "negative target", "ignore_index"),
], ids=["timeout-run-here", "timeout-seen-p12", "target-run-here", "target-seen-p14"])
def test_torchs_refusal_names_the_condition_it_checks(text, entry, words, fix):
    if text.startswith("p1"):
        text = _seen(text)
    r = explain_text(text)
    f = r["findings"][0]
    assert f["id"] == entry
    c = next(c for c in f["causes"] if words in c["text"])
    assert c["evidence"] and fix in " ".join(c["fix"])


def test_a_target_past_the_classes_is_not_read_as_padding():
    r = explain_text(TARGET_NEG.replace("Target -1 is", "Target 7 is"))
    assert not any("negative target" in c["text"] and c["evidence"] for f in r["findings"] for c in f["causes"])


# A whole model pickled with torch.save(model), loaded where its class is not (torch_core.toml, torch.checkpoint_load):
# pickle's find_class message. Texts: a run here (torch 2.13.0+cpu: save.py defines Net in __main__ and saves the
# module; load.py calls torch.load(..., weights_only=False)) and the seen set P12's case.
PICKLED_MODEL = 'Traceback (most recent call last):\n  File "/tmp/gap14_torch/load.py", line 2, in <module>\n    model = torch.load("model.pt", weights_only=False)\n            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n  File "/tmp/libs13b/tv/lib/python3.11/site-packages/torch/serialization.py", line 1610, in load\n    return _load(\n           ^^^^^^\n  File "/tmp/libs13b/tv/lib/python3.11/site-packages/torch/serialization.py", line 2221, in _load\n    result = unpickler.load()\n             ^^^^^^^^^^^^^^^^\n  File "/tmp/libs13b/tv/lib/python3.11/site-packages/torch/serialization.py", line 2210, in find_class\n    return super().find_class(mod_name, name)\n           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\nAttributeError: Can\'t get attribute \'Net\' on <module \'__main__\' from \'/tmp/gap14_torch/load.py\'>\n'


@pytest.mark.parametrize("text", [PICKLED_MODEL, "p12-whole_model_pickle_load"], ids=["run-here", "seen-p12"])
def test_a_pickled_model_without_its_class_names_state_dict(text):
    if text.startswith("p12"):
        text = _seen(text)
    f, c = _first_cause(text)
    assert f["id"] == "torch.checkpoint_load"
    assert "whole pickled object" in c["text"] and c["evidence"]
    assert "model.state_dict()" in " ".join(c["fix"])


# NVML's NOT_SUPPORTED (tools/gen_nvml.py's row, W: the right meaning without the action): the fix names pynvml's
# exception class to catch. Texts: https://github.com/sehoffmann/dmlcloud/issues/55 (nvmlDeviceGetSerial on a GPU that
# does not report it) and the seen set P10's case (nvmlDeviceGetFanSpeed on an H100).
NVML_SERIAL = ("[rank1]:   File \"/x/dmlcloud/core/callbacks.py\", line 583, in pre_run\n"
               "[rank1]:     'serial': pynvml.nvmlDeviceGetSerial(handle),\n"
               "[rank1]:   File \"/x/site-packages/pynvml.py\", line 1042, in _nvmlCheckReturn\n"
               "[rank1]:     raise NVMLError(ret)\n[rank1]: pynvml.NVMLError_NotSupported: Not Supported\n")


@pytest.mark.parametrize("text", [NVML_SERIAL, "p10-nvml_fan_not_supported"], ids=["dmlcloud-55", "seen-p10"])
def test_nvml_not_supported_names_the_exception_to_catch(text):
    if text.startswith("p10"):
        text = _seen(text)
    f, c = _first_cause(text)
    assert f["id"] == "nvml.error"
    assert "catch pynvml.NVMLError_NotSupported" in " ".join(c["fix"])

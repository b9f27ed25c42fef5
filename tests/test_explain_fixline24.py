"""explain-fixline24 (issue 18, "the right family but not the fix"): three readers that carry a value the text holds
into the root's fix: the listed value a message refused (choices.py), the folder a failed write needs
(outdir.py), and the later NCCL releases that fixed failures of the root's kind (oldrelease.py).

Texts: the seen held-out sets' real texts (bench/data, read through tests/seen_case.py; each case's id says which),
and single lines built from the format strings each module cites where no seen text has the form.
"""

import pytest

from gpudoctor import explain
from gpudoctor.explain import choices, oldrelease, outdir
from seen_case import seen_case


@pytest.fixture(scope="module")
def kb():
    return explain.load_knowledge()


def _root(kb, text):
    res = explain.explain_text(text, kb)
    roots = [f for f in res["findings"] if f.get("role") == "root"]
    assert roots, res["verdict"]
    return roots[0]


def _fixes(root):
    return [x for c in root["causes"] for x in c.get("fix") or ()]


# --- choices.py: the listed value closest to the refused one ---

def test_earlystopping_monitor_filled_with_the_listed_name(kb):
    # P35's real text: Lightning's "conditioned on metric `val_loss` which is not available ... any of the
    # following: `train/loss`, `val/loss`"
    root = _root(kb, seen_case("2026-11-27p35", "p35-lightning_earlystop_monitor_key_mismatch"))
    fix = root["causes"][0]["fix"][0]
    assert fix.startswith("EarlyStopping(monitor='val/loss')")
    assert "<one of the names" not in " ".join(_fixes(root))
    assert root["id"] == "lightning.callbacks"  # (the root is not changed)


def test_two_values_and_none_close_names_each_edit(kb):
    # P35's real text: 'The "interval" key in lr scheduler dict must be "step" or "epoch" but is "batch"'
    root = _root(kb, seen_case("2026-11-27p35", "p35-lightning_scheduler_interval_batch"))
    fix = root["causes"][0]["fix"][0]
    assert "'interval': 'step' or 'interval': 'epoch'" in fix and "'batch' is none of them" in fix


def test_partition_spec_rewritten_with_the_mesh_axis(kb):
    # P30's real text: JAX's "Resource axis: data of P('data', None) is not found in mesh: ('batch',)."
    root = _root(kb, seen_case("2026-11-27p30", "p30-jax_partitionspec_axis_not_in_mesh"))
    assert root["causes"][0]["fix"][0].startswith("P('batch', None)")


@pytest.mark.parametrize("msg,want", [
    # normalised equality, a prefix, difflib's ratio
    ("Early stopping conditioned on metric `val_acc` which is not available. Pass in or modify your `EarlyStopping` "
     "callback to use any of the following: `val/acc`, `train/loss`", "val/acc"),
    ("You selected an invalid accelerator name: `accelerator=cudaa`. Available names are: auto, cpu, cuda, mps.",
     "cuda"),
    ('Unknown split "valid". Should be one of [\'train\', \'validation\', \'test\'].', "validation"),
    ('Unknown split "dev". Should be one of [\'train\', \'validation\', \'test\'].', None),
])
def test_read_and_closest(msg, want):
    got = choices.read(msg)
    assert got is not None
    assert choices.closest(got[0], got[1]) == want


def test_accelerator_edit_names_the_argument():
    # lightning's own format (src/lightning/fabric/connector.py): "You selected an invalid accelerator name:
    # `accelerator=%r`. Available names are: auto, %s."
    got = choices.read("You selected an invalid accelerator name: `accelerator=gpuu`. Available names are: auto, "
                       "cpu, cuda, gpu, mps.")
    assert choices.line_for(got).startswith("accelerator='gpu'")


@pytest.mark.parametrize("msg", [
    # a value that is no plain name never reaches a fix line
    "Early stopping conditioned on metric `x;touch M` which is not available. Pass in or modify your `EarlyStopping` "
    "callback to use any of the following: `val/loss`",
    "Early stopping conditioned on metric `val_loss` which is not available. Pass in or modify your `EarlyStopping` "
    "callback to use any of the following: `$(touch M)`",
    # no list, no refused value
    "RuntimeError: something failed",
])
def test_no_reading(msg):
    got = choices.read(msg)
    assert got is None or choices.line_for(got) is None or "touch" not in choices.line_for(got)


# --- outdir.py: a write into a folder that does not exist ---

def test_torch_save_parent_directory(kb):
    # P20's real text: torch.save's "RuntimeError: Parent directory ckpts/run3 does not exist."
    root = _root(kb, seen_case("2026-11-27p20", "p20-save_parent_dir_missing"))
    c0 = root["causes"][0]
    assert "ckpts/run3, does not exist" in c0["text"]
    assert c0["fix"][0].startswith("os.makedirs('ckpts/run3', exist_ok=True)")
    assert c0["evidence"]


def _tb(src, path, exc="FileNotFoundError"):
    # CPython's traceback and OSError's str ("[Errno %S] %S: %R", Objects/exceptions.c OSError_str)
    return ("Traceback (most recent call last):\n"
            '  File "/home/u/job/train.py", line 41, in <module>\n'
            "    %s\n"
            "%s: [Errno 2] No such file or directory: '%s'\n" % (src, exc, path))


def test_open_for_writing_names_the_folder(kb):
    root = _root(kb, _tb("with open(out_path, 'w') as f:", "results/run7/metrics.json"))
    assert root["causes"][0]["fix"][0].startswith("os.makedirs('results/run7', exist_ok=True)")


@pytest.mark.parametrize("src,path", [
    ("with open(cfg_path) as f:", "results/run7/metrics.json"),  # a read: the file, not its folder
    ("with open(out_path, 'w') as f:", "metrics.json"),  # the working directory exists
    ("with open(out_path, 'w') as f:", "-rf/x.json"),  # never an option position
    ("with open(out_path, 'w') as f:", "../../x/y.json"),
    ("with open(out_path, 'w') as f:", "a b/c.json"),
])
def test_no_folder_reading(kb, src, path):
    res = explain.explain_text(_tb(src, path), kb)
    for f in res["findings"]:
        assert not any(c["text"].startswith("The folder the file is written into") for c in f["causes"])


# --- oldrelease.py: later NCCL releases that fixed failures of the root's kind ---

def test_old_nccl_topology_failure_gets_the_later_releases(kb):
    # 2026-11-26d's real text (NVIDIA/nccl, a 2.19.3 topology failure fixed in 2.20)
    root = _root(kb, seen_case("2026-11-26d", "nccl-2193-ring-not-loop-back-fixed-220"))
    last = [c for c in root["causes"] if c["text"].startswith("NCCL 2.19.3 ran here")]
    assert last, [c["text"][:60] for c in root["causes"]]
    assert "upgrade NCCL to" in last[0]["fix"][0] and "another NCCL version" in last[0]["fix"][0]
    assert root["causes"][0] is not last[0]  # never the first cause
    assert any("release notes" in r["title"] for r in root["references"])


def test_no_later_fix_of_that_kind_adds_nothing():
    rx = oldrelease._area({"id": "nccl.hang"})
    newest = oldrelease.later_fixes("2.0.0", rx)[1]
    assert oldrelease.later_fixes(newest, rx)[0] == []


def test_root_outside_nccl_gets_nothing():
    assert oldrelease._area({"id": "code.exception", "family": "code.exception"}) is None
    assert oldrelease._area({"id": "nccl.bug_2203_a2a_connect_hang", "family": "nccl.known_bug"}) is None


def test_healthy_nccl_log_gets_no_root(kb):
    # a healthy NCCL INFO start-up with an old version: oldrelease only adds to a root, never makes one
    text = ("gpu1:123:123 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
            "NCCL version 2.19.3+cuda12.3\n"
            "gpu1:123:130 [0] NCCL INFO Init COMPLETE comm 0x1 rank 0 nranks 2\n")
    res = explain.explain_text(text, kb)
    assert not [f for f in res["findings"] if f.get("role") == "root"]


def test_outdir_and_choices_never_make_a_root(kb):
    res = explain.explain_text("epoch 3 done, wrote ckpts/run3/last.pt\nAvailable names are: auto, cpu\n", kb)
    assert not [f for f in res["findings"] if f.get("role") == "root"]
    assert outdir._folder("ckpts/run3/last.pt") == "ckpts/run3"


# --- ssh.publickey: sshd's own refusals and the key ssh offers (sibling causes the family lacked) ---

@pytest.mark.parametrize("name,cid,want", [
    ("2026-11-27p35", "p35-ssh_dotssh_foreign_owner_strictmodes", "chown -R"),
    ("2026-11-27p35", "p35-ssh_allowusers_excludes_root", "AllowUsers"),
    ("2026-11-27p35", "p35-ssh_pubkey_algorithms_rsa_only", "PubkeyAcceptedAlgorithms"),
])
def test_sshd_side_refusals_are_among_the_causes(kb, name, cid, want):
    # P35's real texts: the client prints only 'Permission denied (publickey)'
    root = _root(kb, seen_case(name, cid))
    assert root["id"] == "ssh.publickey"
    assert want in " ".join(_fixes(root))


def test_identity_file_not_accessible_is_the_first_cause(kb):
    # P29's real text: ssh's "Warning: Identity file .../id_ed25519_cluster not accessible: No such file or directory."
    root = _root(kb, seen_case("2026-11-27p29", "p29-ssh_identityfile_path_typo"))
    c0 = root["causes"][0]
    assert "IdentityFile" in " ".join(c0["fix"]) and c0["evidence"]
    assert "not accessible" in c0["evidence"][0]["text"]


def test_permission_denied_alone_keeps_the_missing_key_first(kb):
    root = _root(kb, "user@node2: Permission denied (publickey).\n")
    assert root["causes"][0]["text"].startswith("No key pair exists")
    assert not any(c["evidence"] for c in root["causes"][1:])


def test_passphrase_key_without_agent_under_pdsh(kb):
    # P33's real text: pdsh's 'Permission denied (publickey)', then ssh-keygen's 'incorrect passphrase supplied to
    # decrypt private key' and ssh-add's 'Could not open a connection to your authentication agent'
    root = _root(kb, seen_case("2026-11-27p33", "p33-ssh_key_passphrase_noninteractive"))
    assert root["id"] == "ssh.pdsh"
    c = [c for c in root["causes"] if "passphrase" in c["text"]]
    assert c and c[0]["evidence"] and "ssh-add" in " ".join(c[0]["fix"])


def test_nsswitch_without_files_is_among_the_hostname_causes(kb):
    # P33's real text: node1 is in /etc/hosts, nsswitch.conf says 'hosts: dns'
    root = _root(kb, seen_case("2026-11-27p33", "p33-nsswitch_hosts_without_files"))
    assert root["id"] == "rendezvous.hostname"
    assert "hosts: files dns" in " ".join(_fixes(root))


def test_privileged_port_bind_is_the_first_cause(kb):
    # P25's real text: c10d's 'The server socket has failed to bind. port: 443, useIpv6: 0, code: -13, name: EACCES,
    # message: permission denied' under torchrun --master-port=443
    root = _root(kb, seen_case("2026-11-27p25", "p25-torchrun_privileged_port_nonroot"))
    c0 = root["causes"][0]
    assert "privileged" in c0["text"] and "--master-port=29500" in c0["fix"][0] and c0["evidence"]


def test_address_in_use_keeps_the_other_process_first(kb):
    text = ("torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. "
            "port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use\n")
    root = _root(kb, text)
    assert root["id"] == "rendezvous.address_in_use"
    assert not root["causes"][0]["text"].startswith("The port is a privileged one")


# --- more sibling causes the families lacked, each from its vendor's documentation ---

@pytest.mark.parametrize("name,cid,root_id,want", [
    # nvidia-container-cli's 'driver rpc error: timed out' (evidence: the cause comes first)
    ("2026-11-27ab", "ab-nvctk202-driver-rpc-timeout-persistence", "container.nvml_driver", "nvidia-persistenced"),
    # more ranks than GPUs in EXCLUSIVE_PROCESS mode
    ("2026-11-27aj", "aj-cscs-ce-exclusive-process-5-ranks-4-gpus-busy", "cuda.busy_unavailable",
     "Multi-Process Service"),
    # FSDP's full state dict gathered on the GPU at the save ('Failed to clone() tensor' from FSDP)
    ("2026-11-26s", "stanford-alpaca-65-fsdp-oom-saving-state-dict", "cuda.oom", "FullStateDictConfig(offload_to_cpu=True"),
    # ssh_config: 'Host *' first, 'Host gpu?'
    ("2026-11-27p31", "p31-ssh_config_wildcard_block_first", "ssh.connect", "host-specific Host blocks first"),
    ("2026-11-27p35", "p35-ssh_config_host_glob_single_char", "ssh.connect", "Host gpu*"),
])
def test_sibling_causes(kb, name, cid, root_id, want):
    root = _root(kb, seen_case(name, cid))
    assert root["id"] == root_id
    assert want in " ".join(_fixes(root))


def test_fsdp_save_cause_only_where_fsdp_saved(kb):
    text = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
            "79.19 GiB of which 1.06 GiB is free.\n")
    root = _root(kb, text)
    assert not any("FSDP" in c["text"] for c in root["causes"])

"""Knowledge rows a review of explain's answers found wrong (issue 18, /rows-fix): ProcessGroupNCCL's
ncclUniqueId store->get error has its own meaning (a timeout, or a reset / refusal: rank 0 gone);
NCCL's 'Failed to initialize any NET plugin' is mostly NCCL_NET naming a network that is not there
(src/plugin/net.cc ncclNetInit), not only an external plugin such as aws-ofi-nccl; NCCL's src/os/windows*.cc never answers a
Linux log's line."""

from explainhelp import explain_paste, generated_sites, root_of

# hiyouga/LlamaFactory#2470 (https://github.com/hiyouga/LlamaFactory/issues/2470), a line of its log
RESET = ("gpu004: RuntimeError: [14] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d "
         "key-value store by key '0', but store->get('0') got error: Connection reset by peer. This may indicate a "
         "possible application crash on rank 0 or a network set up issue.\n")

# composed from NCCL's formats: src/misc/param.cc ncclGetEnv's '%s set by environment to %s', src/plugin/net.cc
# ncclNetPluginInit's INFO 'Failed to initialize NET plugin %s' and ncclNetInit's WARN, with debug.cc's prefix
NO_NET = ("node1:12345:12345 [0] NCCL INFO NCCL_NET set by environment to IB\n"
          "node1:12345:12345 [0] NCCL INFO Failed to initialize NET plugin IB\n"
          "node1:12345:12345 [0] NCCL WARN Failed to initialize any NET plugin\n")

# composed from NCCL 2.7's src/include/shm.h format (no ', error: %s (%d)' yet), as a Linux container prints it
SHM = ("node1:57:93 [0] include/shm.h:48 NCCL WARN Error while creating shared memory segment "
       "nccl-shm-recv-b3d54cebe4167a34-0-2-1 (size 9637888)\n")


def test_unique_id_store_get_reset_names_rank_0_not_a_timeout(cli, tmp_path):
    _rc, doc = explain_paste(cli, tmp_path, RESET, quiet=True)
    root = root_of(doc)
    assert root["id"] == "rendezvous.store_timeout"
    first = root["causes"][0]
    assert "reset or refusal means rank 0" in first["text"] and "timeout means rank 0 is late" in first["text"]
    assert any("nc -zv $MASTER_ADDR $MASTER_PORT" in f for f in first["fix"])
    assert any("rank 0's (node 0's) log" in f for f in first["fix"])


def test_no_net_initialised_is_the_nccl_net_setting_not_only_an_external_plugin(cli, tmp_path):
    _rc, doc = explain_paste(cli, tmp_path, NO_NET, quiet=True)
    root = root_of(doc)
    assert root["id"] == "nccl.net_plugin", [f["id"] for f in doc["findings"]]
    # NCCL's own word: IB and Socket are its internal NET plugins; the title no longer says an external one
    assert "internal IB or Socket" in root["title"]
    first = root["causes"][0]
    assert "NCCL_NET" in first["text"] and any("unset NCCL_NET" in f for f in first["fix"])
    assert any("/dev/infiniband" in f for f in first["fix"])


def test_windows_sources_are_left_out_and_linux_shm_line_names_a_linux_file(cli, tmp_path):
    sites = generated_sites("nccl_messages")
    assert sites and not [s["id"] for s in sites if s["where"].startswith("src/os/windows")]
    _rc, doc = explain_paste(cli, tmp_path, SHM, quiet=True)
    root = root_of(doc)
    assert root["id"] == "shm.size"
    known = [n for n in root["notes"] if n.startswith("Known message of NCCL")]
    assert known and "windows" not in known[0] and "shmutils.cc" in known[0], root["notes"]


# huggingface/accelerate#2955 (https://github.com/huggingface/accelerate/issues/2955): accelerate/utils/launch.py's
# port message as the issue quotes it, cut short after 'To automatically use the next open po'
PORT_CUT = ("ConnectionError: Tried to launch distributed communication on port `29144`, but another process is "
            "utilizing it. Please specify a different port (such as using the `--main_process_port` flag or specifying "
            "a different `main_process_port` in your config file) and rerun your script. To automatically use the "
            "next open po\n")
# bmaltais/kohya_ss#2498 (https://github.com/bmaltais/kohya_ss/issues/2498): accelerate 0.21-0.27's wording, whole
PORT_OLD = ("ConnectionError: Tried to launch distributed communication on port `29500`, but another process is "
            "utilizing it. Please specify a different port (such as using the `----main_process_port` flag or "
            "specifying a different `main_process_port` in your config file) and rerun your script. To automatically "
            "use the next open port (on a single node), you can set this to `0`.\n")


def test_a_long_launcher_message_cut_short_still_names_its_site(cli, tmp_path):
    # the older wording: the current site's first sentence matches it too (the same meaning and fix)
    for text, where in ((PORT_CUT, "accelerate/utils/launch.py:244"), (PORT_OLD, "accelerate/utils/launch.py:")):
        _rc, doc = explain_paste(cli, tmp_path, text, quiet=True)
        root = root_of(doc)
        assert root["id"] == "rendezvous.address_in_use", [f["id"] for f in doc["findings"]]
        assert any(n.startswith("Known message of the launcher: " + where) for n in root["notes"]), root["notes"]
        assert any("--main_process_port" in f for f in root["causes"][0]["fix"])


# composed from torch/serialization.py's _get_wo_message and torch/_weights_only_unpickler.py's 'Unsupported
# global' format (torch 2.14), under a user's own torch.load line that already passes map_location
WEIGHTS_ONLY = """\
Traceback (most recent call last):
  File "/home/user/train.py", line 41, in <module>
    ckpt = torch.load("last.ckpt", map_location="cpu")
_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two options, \
do those steps only if you trust the source of the checkpoint.
\tWeightsUnpickler error: Unsupported global: GLOBAL numpy.core.multiarray._reconstruct was not an allowed global by \
default. Please use `torch.serialization.add_safe_globals([_reconstruct])` or the \
`torch.serialization.safe_globals([_reconstruct])` context manager to allowlist this global if you trust this \
class/function.
"""


def test_the_users_own_map_location_is_no_evidence_of_a_missing_gpu(cli, tmp_path):
    _rc, doc = explain_paste(cli, tmp_path, WEIGHTS_ONLY, quiet=True)
    root = root_of(doc)
    assert root["id"] == "torch.checkpoint_load"
    gpu = [c for c in root["causes"] if c["text"].startswith("The checkpoint's tensors were saved on a GPU")]
    assert gpu and not gpu[0]["evidence"]
    assert root["causes"][0]["evidence"] and "weights-only" in root["causes"][0]["text"]

"""Red-team findings of 2026-11-26, second round (this round's explain readers: tracebacks, torch's API,
DeepSpeed/transformers refusals, GPU hardware, PMIx, Open MPI's TCP addresses), each held by a test that
tries more than the reproducer.

- The text report printed what a reader copied from the log raw: a bidi override (U+202E) or a Unicode
  line separator (U+2028, NEL) in an exception's message or file name reached the `note:` and `fix:` lines,
  and an unknown torch attribute's line reached NO KNOWN ERROR's list, so a log could reorder or split
  what the user reads. Now every line the text report writes passes render._one_line (render._writer).
- `NVRM: Xid (...): 63` (a row marked for remapping) or `92` (corrected single-bit errors) alone was
  "ROOT CAUSE gpu.xid.ecc: an uncorrectable ECC error; drain the node", while NVIDIA's Xid catalog (and
  `gpudoctor check`'s gpu.inventory) says IGNORE for them. Now they are a note (gpu.xid.no_action).

- More false answers on healthy or mixed logs, fixed: corrected PCIe (AER) errors, a metric named error, a second
  GPU's fault folded into the root's, 'intra-node is fine' cancelling a cross-node complaint, an export computed
  from the facts split as if it were the knowledge's 'VALUE   (why)'.

Findings in modules whose authors were still at work were strict xfails (the structural fix's unquoted file name,
a caught traceback or a c10d retry before 'Training completed.', torch 2.5.1 told to upgrade for torch.compile);
their authors fixed them in the round and made them plain tests.
"""


import pytest

from explainhelp import ANSWERED, explain_paste, ids

from gpudoctor.fixline import sh

TB = "Traceback (most recent call last):\n  File \"{path}\", line 3, in <module>\n    main()\n{exc}\n"
HOSTILE = ["\u202eevil\u2066", "a\u2028b\x85c", "\x1b]0;T\x07\x1b[2J", "x\ry"]


def _texts(payload):
    p = payload
    return [
        TB.format(path="/home/u/train.py", exc="ValueError: bad %s" % p),  # pytb/pyanswer: the message
        TB.format(path="/home/u/tr%sain.py" % p, exc="KeyError: 'x'"),  # the file name
        TB.format(path="/home/u/train.py", exc="my%sError: boom" % p),  # the type
        "AttributeError: module 'torch.distributed' has no attribute 'dev%sice_mesh'\n" % p,  # torchapi
        "AttributeError: 'DistributedDataParallel' object has no attribute 'enc%s'\n" % p,
        "TypeError: __init__() got an unexpected keyword argument 'dev%sice_id'\n" % p,
        "[host:1] PMIX ERROR: UNREACHABLE in file server/pmix%s_server.c at line 2147\n" % p,  # pmix
        "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=py%s, GPU has fallen off the bus.\n" % p,  # gpuhw
    ]


def _printable(text):
    return all(c == "\n" or c.isprintable() for c in text)


@pytest.mark.parametrize("payload", HOSTILE, ids=["bidi", "line-separators", "escape", "cr"])
def test_the_text_report_is_printable_lines_whatever_the_log_holds(cli, tmp_path, payload):
    for i, text in enumerate(_texts(payload)):
        path = tmp_path / ("log%d.txt" % i)
        path.write_text(text)
        rc, out, err = cli("explain", path)
        assert rc in (0, 1), (rc, err)
        bad = sorted({repr(c) for c in out if c != "\n" and not c.isprintable()})
        assert not bad, (text, bad, [ln for ln in out.splitlines() if not _printable(ln)][:3])


def test_the_report_writer_keeps_its_own_bold_and_escapes_the_rest():
    import io

    from gpudoctor.explain import render

    buf = io.StringIO()
    w = render._writer(buf, color=True)
    w("\x1b[1mROOT CAUSE\x1b[0m a\u202eb\u2028c\x1b]0;t\x07\nnext\n")
    assert buf.getvalue() == "\x1b[1mROOT CAUSE\x1b[0m a\\u202eb\\u2028c\\x1b]0;t\\x07\nnext\n"
    buf = io.StringIO()
    render._writer(buf, color=False)("\x1b[1mX\x1b[0m\n")
    assert buf.getvalue() == "\\x1b[1mX\\x1b[0m\n"  # no color: nothing drives the terminal


# stas00/ml-engineering compute/accelerator/nvidia/debug.md quotes the Xid 63 line (as tests/test_xid.py does);
# 92 and 106 in the kernel's 'NVRM: Xid (PCI:%s): %d, ...' form (kernel_rc.c)
NO_ACTION = {
    "63": "[ 12.3] NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row marked for remapping, reset gpu "
          "to activate.\n",
    "92": "kernel: NVRM: Xid (PCI:0000:3b:00): 92, pid=1, name=python, High single-bit ECC error rate\n",
    "106": "kernel: NVRM: Xid (PCI:0000:3b:00): 106, SMBPBI test message\n",
}


@pytest.mark.parametrize("xid", sorted(NO_ACTION))
def test_an_xid_the_catalog_asks_no_action_for_is_a_note_not_the_root(cli, tmp_path, xid):
    rc, doc = explain_paste(cli, tmp_path, NO_ACTION[xid], rcs=(0,))
    assert doc["verdict"] == "no_error" and not doc["findings"], ids(doc)
    assert [c["id"] for c in doc["context"]] == ["gpu.xid.no_action"], doc["context"]
    # gpudoctor check's reading of the same Xid agrees (gpu.inventory: NVIDIA's immediate bucket)
    from gpudoctor import data

    assert data.load("xid")["xids"][xid]["immediate"] == "IGNORE"


def test_a_double_bit_error_beside_xid_63_stays_the_root(cli, tmp_path):
    text = ("NVRM: Xid (PCI:0000:10:1c): 48, pid=1896, DBE (0x1)\n" + NO_ACTION["63"])
    rc, doc = explain_paste(cli, tmp_path, text, rcs=(0,))
    assert doc["verdict"] == "root_cause" and doc["findings"][0]["id"] == "gpu.xid.ecc", ids(doc)
    rc, doc = explain_paste(cli, tmp_path, "NVRM: Xid (PCI:0000:3b:00): 13, pid=1, name=python, Ch 00000008\n",
                            rcs=(0,))
    assert doc["findings"][0]["id"] == "gpu.xid", ids(doc)  # the other Xids are still gpu.xid's


def _unquoted(value, text):
    """Whether value appears in text other than as the one shell word sh(value)."""
    return value in text.replace(sh(value), "")


def test_a_structural_fix_names_the_file_as_one_shell_word(cli, tmp_path):
    payload = "$(touch /tmp/PWN)"
    for text, value in ((TB.format(path="/home/u/tr%sain.py" % payload, exc="KeyError: 'x'"),
                         "/home/u/tr%sain.py" % payload),
                        (TB.format(path="/home/u/train.py", exc="ValueError: bad %s" % payload), payload)):
        rc, doc = explain_paste(cli, tmp_path, text, rcs=(0,))
        assert doc["findings"][0]["id"] == "code.exception", ids(doc)
        for c in doc["findings"][0]["causes"]:
            for fx in c["fix"]:
                assert not _unquoted(value, fx), fx


# transformers/trainer.py (_inner_training_loop) logs this when training ends; its metrics dict follows
DONE = ("\n\nTraining completed. Do not forget to share your model on huggingface.co/models =)\n\n\n"
        "{'train_runtime': 228.0153, 'train_samples_per_second': 0.421, 'train_steps_per_second': 0.026, "
        "'train_loss': 0.41, 'epoch': 3.0}\n")


def test_a_logged_traceback_before_training_completed_is_not_the_root(cli, tmp_path):
    tb = ("Traceback (most recent call last):\n  File \"/home/u/train.py\", line 40, in log_metrics\n    wandb.log(m)\n"
          "  File \"/usr/lib/python3/site-packages/wandb/sdk/wandb_run.py\", line 12, in log\n"
          "    raise ValueError(\"bad\")\nValueError: could not log metrics\n")
    steps = "".join("{'loss': 0.%d, 'learning_rate': 1e-05, 'epoch': %d.0}\n" % (i, i // 7) for i in range(20))
    rc, doc = explain_paste(cli, tmp_path, tb + steps + DONE, rcs=(0,))
    assert doc["verdict"] == "no_error", ids(doc)


def test_the_new_readers_stay_fast_on_a_flood_of_their_own_lines(cli, tmp_path):
    """Each reader of this round on 300 distinct lines of its own shape answers. Its CPU time (0.1-0.4 s each on
    the 2-core VM) is held against a bound by bench/cpu_bounds.py, not here: a timed assertion failed under load
    (3.10 s against a bound of 3 in session 30's clean-clone CI with a scoring run beside it)."""
    shapes = [
        "NVRM: Xid (PCI:0000:%02x:00): %d, pid=1, name=python, x\n",
        "connect() to 172.17.%d.%d failed: No route to host (113)\n",
        "[h:%d] PMIX ERROR: UNREACHABLE in file server/pmix_server.c at line %d\n",
    ]
    for shape in shapes:
        text = "".join(shape % (i % 256, i) for i in range(300))
        rc, doc = explain_paste(cli, tmp_path, text, rcs=(0, 1))
        assert doc["findings"], shape


# Linux's AER lines for an error the link corrected, in the forms drivers/pci/pcie/aer.c prints
# (aer_print_port_info: 'AER: Corrected error received: %s' / 'Corrected error message received from %s';
# aer_print_error: 'PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)', then the
# device/status line and the bit's name), on the H100 of fixtures/explain/gpu-hardware-h100-2026-11-26 (bus 18)
CORRECTED = ("[ 5.31] pcieport 0000:17:01.0: AER: Corrected error received: 0000:18:00.0\n"
             "[ 5.32] nvidia 0000:18:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)\n"
             "[ 5.33] nvidia 0000:18:00.0:   device [10de:2330] error status/mask=00000001/0000e000\n"
             "[ 5.34] nvidia 0000:18:00.0:    [ 0] RxErr                  (First)\n"
             "[ 5.35] pcieport 0000:17:01.0: AER: Corrected error message received from 0000:18:00.0\n"
             "[ 5.36] pcieport 0000:17:01.0: AER: PCIe Bus Error: severity=Corrected, type=Data Link Layer, "
             "(Transmitter ID)\n")


def test_a_pcie_error_the_link_corrected_is_a_note_on_a_healthy_dmesg(cli, tmp_path):
    rc, doc = explain_paste(cli, tmp_path, CORRECTED, rcs=(0,))
    assert doc["verdict"] == "no_error" and not doc["findings"], (ids(doc), doc["errors"])
    assert [c["id"] for c in doc["context"]] == ["gpu.pcie_corrected"], doc["context"]
    # an uncorrected one is still gpu.xid.pcie's, and SIGBUS's 'Bus error' is still an error line
    fatal = CORRECTED.replace("severity=Corrected", "severity=Uncorrected (Fatal)")
    rc, doc = explain_paste(cli, tmp_path, fatal, rcs=(0,))
    assert doc["findings"][0]["id"] == "gpu.xid.pcie", ids(doc)
    # (since failshape.py, bash's 'Bus error' report is answered by its shape: /dev/shm's family, How sure: low)
    rc, doc = explain_paste(cli, tmp_path, "Bus error (core dumped)\n", rcs=(0,))
    assert doc["verdict"] == "likely_cause" and ids(doc)[:1] == ["errno.enospc"], (doc["verdict"], ids(doc))


# A metric named error is no error line: Keras' progress bar (keras/utils/generic_utils.py Progbar.update prints
# ' - %s:' then ' %.4f', or ' %.4e' for small values) and training loops' 'train error: 0.12' / 'top1 error: 23.4%'
METRICS = ("10/10 [==============================] - 1s 5ms/step - loss: 0.1234 - mean_squared_error: 0.0123 - "
           "mean_absolute_error: 1.2345e-05 - val_loss: 0.2000\n"
           "epoch 3: train error: 0.12, val error: 0.15\n"
           "Epoch 4 | top1 error: 23.4% | top5 error: 6.1%\n")


def test_a_metric_named_error_is_not_an_error_line(cli, tmp_path):
    rc, doc = explain_paste(cli, tmp_path, METRICS, rcs=(0,))
    assert doc["verdict"] == "no_error", (doc["verdict"], doc["errors"])
    # an error whose message starts with a number, an errno, a snake_case error name: still error lines
    for text in ("error: 0.5 is not a valid learning rate\n", "connect: error: 111\n", "mpi_error: rank 3 died\n"):
        rc, doc = explain_paste(cli, tmp_path, text, rcs=(1,))
        assert doc["verdict"] == "unknown_error", (text, doc["verdict"])
    # (struct23) a builtin exception's line alone is still an error line, now answered as a likely cause (lastresort.py)
    rc, doc = explain_paste(cli, tmp_path, "ValueError: 0.5 is not in list\n", rcs=(0,))
    assert doc["verdict"] == "likely_cause", doc["verdict"]


# pytorch/PiPPy#158 quotes the line: c10d's socket.cpp logs each failed connect attempt at W level and retries
# (the failure is the E line 'failed to connect to any network address'); here the run then trains to its end
# (transformers' Trainer's metrics lines)
RETRY = "[W socket.cpp:558] [c10d] The client socket has failed to connect to [localhost]:29500 (errno: 99 - " \
        "Cannot assign requested address).\n"


def test_a_c10d_connect_retry_before_a_completed_run_is_not_the_root(cli, tmp_path):
    steps = "".join("{'loss': 0.%d, 'learning_rate': 1e-05, 'epoch': 0.%d}\n" % (i, i) for i in range(10, 70))
    rc, doc = explain_paste(cli, tmp_path, RETRY + steps + "{'train_runtime': 100.0, 'train_loss': 0.4, "
                            "'epoch': 1.0}\n", rcs=(0,))
    assert doc["verdict"] == "no_error", ids(doc)


def test_an_export_computed_from_the_facts_is_printed_whole(cli, tmp_path):
    """A facts file's interface name that looks like the knowledge's 'VALUE   (why)' was split by
    render.split_export: 'export NCCL_SOCKET_IFNAME=eth0   # use eth1' (the facts' text as a comment, the
    printed value not the one the fix line names)."""
    import json
    import os

    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(repo, "fixtures", "nodes", "h100-ubuntu2404-torch211.json")) as f:
        doc = json.load(f)
    for i in doc["network"]["interfaces"]:
        if i["name"] == "eth0":
            i["name"] = "eth0   (use eth1)"
    doc["network"]["default_route"]["interface"] = "eth0   (use eth1)"
    facts = tmp_path / "node.json"
    facts.write_text(json.dumps(doc))
    log = tmp_path / "nccl.log"
    log.write_text("node01:1:1 [0] NCCL WARN Bootstrap : no socket interface found\n")
    rc, out, err = cli("explain", "--facts", facts, log)
    assert rc == 0, err
    lines = [ln.strip() for ln in out.splitlines() if ln.strip().startswith("export NCCL_SOCKET_IFNAME=")]
    # since 7e7759d a name Linux refuses (dev_valid_name: no whitespace) gives no computed export at all;
    # never the facts' text split into a value and a comment
    assert not any("eth0" in ln and "use eth1" in ln for ln in lines), lines
    assert not any("# use eth1" in ln for ln in lines), lines
    # the knowledge's own 'VALUE   (why)' exports still print the why as a comment
    assert "export NCCL_SOCKET_IFNAME='^docker,lo,veth,virbr'   # or the real NIC: =eno1" in lines, lines


def test_a_fault_on_another_gpu_is_not_shown_as_a_consequence_of_the_root(cli, tmp_path):
    """Three GPUs, three faults (the kernel's Xid and RmInitAdapter lines as tests/test_explain_hardware.py's
    SAME_GPU has them): the text listed the other two under 'ALSO SEEN (... usually consequences; fix the root
    first)' without the 'Another GPU' note the JSON carries."""
    text = ("[Mon Jun  3 10:00:02 2024] NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, name=python, GPU has fallen off "
            "the bus.\n[Mon Jun  3 10:06:00 2024] NVRM: GPU 0000:5e:00.0: RmInitAdapter failed! (0x23:0x65:1426)\n"
            "[Mon Jun  3 10:07:00 2024] NVRM: Xid (PCI:0000:86:00): 64, pid=1, name=python, remapping failure\n")
    rc, doc = explain_paste(cli, tmp_path, text, name="dmesg.txt", rcs=(0,))
    mine = {g.split()[1] for g in doc["findings"][0]["gpus"]}
    others = {"0000:3b:00", "0000:5e:00", "0000:86:00"} - mine
    assert len(others) == 2, (mine, ids(doc))
    rc, out, err = cli("explain", tmp_path / "dmesg.txt")
    also = out.split("ALSO SEEN", 1)[1]
    for bus in others:
        assert "Another GPU: PCI %s. Its own fault" % bus in also, (bus, also)


def test_a_root_that_names_no_gpu_does_not_fold_two_gpus_into_one(cli, tmp_path):
    """CUDA's 'uncorrectable ECC error encountered' names no GPU; gpuhw.fold folded every other hardware
    finding into it as 'Same GPU fault', two different GPUs included. Now the first GPU named is the root's,
    and a second GPU's fault stays its own finding."""
    text = ("RuntimeError: CUDA error: uncorrectable ECC error encountered\n"
            "[Mon Jun  3 10:00:02 2024] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.\n"
            "[Mon Jun  3 10:06:00 2024] NVRM: GPU 0000:5e:00.0: RmInitAdapter failed! (0x23:0x65:1426)\n")
    rc, doc = explain_paste(cli, tmp_path, text, rcs=(0,))
    root = doc["findings"][0]
    assert root["id"] == "gpu.xid.ecc", ids(doc)
    kept = {g for f in doc["findings"][1:] for g in f.get("gpus") or []}
    folded_gpus = {"pci 0000:3b:00", "pci 0000:5e:00"} - kept
    assert len(folded_gpus) == 1 and len(kept & {"pci 0000:3b:00", "pci 0000:5e:00"}) == 1, (ids(doc), kept)
    other = next(f for f in doc["findings"][1:] if set(f.get("gpus") or []) & kept)
    assert other["notes"][0].startswith("Another GPU: PCI"), other["notes"][:2]


def test_a_torch_that_has_the_name_is_not_told_to_upgrade(cli, tmp_path):
    # the version line as tests/test_explain_usercfg.py's adam_mini_33 (zyushun/Adam-mini#33) has it
    text = "torch version is 2.5.1\nAttributeError: module 'torch' has no attribute 'compile'\n"
    rc, doc = explain_paste(cli, tmp_path, text, rcs=(0,))
    first = doc["findings"][0]["causes"][0]["fix"][0]
    assert "upgrade" not in first, first


# nccl-tests' own lines (src/common.cu: the '# nThread' header, '#  Rank' lines, '# Avg bus bandwidth')
NT = ("# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
      "validation: 1 graph: 0\n"
      "#  Rank  0 Group  0 Pid  12345 on     node01 device  0 [0x18] NVIDIA H100 80GB HBM3\n"
      "#  Rank  1 Group  0 Pid  12346 on     node02 device  0 [0x18] NVIDIA H100 80GB HBM3\n"
      "# Avg bus bandwidth    : 19.8\n")


@pytest.mark.parametrize("words", ["busbw is only 20 GB/s across the two nodes, intra-node is fine",
                                   "cross-node bandwidth is only 20 GB/s; single node looks normal",
                                   "两台机器 busbw is only 20 GB/s，单机正常"])
def test_fine_about_another_scope_does_not_cancel_the_complaint(cli, tmp_path, words):
    """hang.py's negation read 'is fine' anywhere on the line: a slow cross-node run whose user adds that one
    node alone is fine was 'no error'."""
    rc, doc = explain_paste(cli, tmp_path, words + "\n" + NT, rcs=(0,))
    assert doc["verdict"] in ANSWERED and doc["findings"][0]["id"] == "nccl.hang", (words, ids(doc))
    fine = words.split(",")[0].split(";")[0].split("，")[0] + ", looks fine"
    rc, doc = explain_paste(cli, tmp_path, fine + "\n" + NT, rcs=(0,))
    assert doc["verdict"] == "no_error", (fine, ids(doc))  # the figure itself called fine: still no complaint

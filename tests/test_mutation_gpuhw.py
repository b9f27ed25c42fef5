"""gpudoctor/explain/gpuhw.py, function by function: the mutants that test_explain_hardware.py's whole
texts let through (docs/mutation.md, "This round's new code"). Each case states what a user reads:
the GPU a line names (and where the 2,000-character cut falls), NVIDIA's Xid catalog note word for
word, the per-GPU note, and which hardware findings fold into the root.

The Xid texts follow the kernel's format (NVIDIA/open-gpu-kernel-modules,
src/nvidia/src/kernel/gpu/rc/kernel_rc.c: 'NVRM: Xid (PCI:%s): %d, ...'; Xid 154's recovery action:
src/nvidia/src/kernel/gpu/gpu.c); the AER line follows Linux's drivers/pci/pcie/aer.c
('%s error received: %s', the port's name first, then the device that reported it).
"""

import json
import os

import pytest

from gpudoctor.explain import gpuhw

XID_JSON = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "gpudoctor", "data", "xid.json")
CUT = 2000  # the characters of a line that gpuhw reads


def _ending_at_the_cut(s):
    """s padded so that its last character is the first one past the cut."""
    return " " * (CUT + 1 - len(s)) + s


def _number_past_the_cut(num):
    """An Xid line whose number starts just past the cut."""
    head = "NVRM: Xid (PCI:0000:18:00): "
    return " " * (CUT - len(head)) + head + str(num)


def xid(num, rest="pid=1", pci="0000:18:00"):
    return "NVRM: Xid (PCI:%s): %d, %s" % (pci, num, rest)


# ---------------------------------------------------------------------- the GPU a line names

def test_gpus_of_skips_only_the_port_of_an_aer_line():
    # the root port reports, the GPU below it is the device that sent the error
    assert gpuhw.gpus_of("pcieport 0000:00:02.0: AER: Corrected error received: 0000:02:00.0") == ["pci 0000:02:00"]
    assert gpuhw.gpus_of("pcieport 0000:00:02.0: AER: device recovery failed") == []
    # no port: every address is a GPU, each once, in order; nvidia-smi's 8-digit domain folds to 4
    assert gpuhw.gpus_of("GPU 00000000:3B:00.0 and 0000:3b:00.0 then 0000:5E:00") == ["pci 0000:3b:00", "pci 0000:5e:00"]
    assert gpuhw.gpus_of("GPU 2 and GPU 2 and GPU 7") == ["index 2", "index 7"]
    assert gpuhw.gpus_of("PCI:0000:3b:00 on GPU 2") == ["pci 0000:3b:00"]  # an address wins over an index


def test_gpus_of_reads_the_first_2000_characters_only():
    assert gpuhw.gpus_of(_ending_at_the_cut("in GPU 7")) == []
    assert gpuhw.gpus_of(_ending_at_the_cut("in GPU 12")) == ["index 1"]
    assert gpuhw.gpus_of(_ending_at_the_cut("in GPU 7")[1:]) == ["index 7"]
    assert gpuhw.gpus_of(_ending_at_the_cut("GPU 0000:3b:00")) == []
    assert gpuhw.gpus_of(_ending_at_the_cut("GPU 0000:3b:00")[1:]) == ["pci 0000:3b:00"]
    # the port's function digit past the cut: the port is not recognised, its address reads as a GPU
    assert gpuhw.gpus_of(_ending_at_the_cut("pcieport 0000:00:02.0")) == ["pci 0000:00:02"]
    assert gpuhw.gpus_of(_ending_at_the_cut("pcieport 0000:00:02.0")[1:]) == []


# ---------------------------------------------------------------------- NVIDIA's Xid catalog

def test_the_catalog_is_xid_json_read_once(monkeypatch, tmp_path):
    with open(XID_JSON) as f:
        want = json.load(f)
    monkeypatch.setattr(gpuhw, "_CATALOG", [])
    got = gpuhw._catalog()
    assert got == want and gpuhw._catalog() is got and len(gpuhw._CATALOG) == 1
    # a missing or unreadable catalog is an empty one (no catalog notes), never a crash
    (tmp_path / "data").mkdir()
    (tmp_path / "explain").mkdir()
    monkeypatch.setattr(gpuhw, "__file__", str(tmp_path / "explain" / "gpuhw.py"))
    monkeypatch.setattr(gpuhw, "_CATALOG", [])
    assert gpuhw._catalog() == {} and gpuhw.catalog_notes([xid(79)]) == []
    (tmp_path / "data" / "xid.json").write_text("{not json")
    monkeypatch.setattr(gpuhw, "_CATALOG", [])
    assert gpuhw._catalog() == {}
    (tmp_path / "data" / "xid.json").write_text('{"xids": {"79": {"meaning": "m"}}}')
    monkeypatch.setattr(gpuhw, "_CATALOG", [])
    assert gpuhw._catalog() == {"xids": {"79": {"meaning": "m"}}}


XID79 = ("NVIDIA's Xid catalog, Xid 79 (GPU has fallen off the bus): RESTART_BM: drain the node and reboot it; "
         "check power, PCIe seating and the system event log; if it repeats: contact your support organisation")


def test_catalog_notes_word_for_word():
    assert gpuhw.catalog_notes([xid(79, "GPU has fallen off the bus.")]) == [XID79]
    # an investigatory step the catalog does not describe ('IGNORE (sympathetic)'): no 'if it repeats'
    assert gpuhw.catalog_notes([xid(95)]) == [
        "NVIDIA's Xid catalog, Xid 95 (Uncontained memory error): RESET_GPU: reset the GPU (nothing may hold it): "
        "nvidia-smi -r -i <index>; or reboot the node"]
    # no immediate bucket in the catalog
    assert gpuhw.catalog_notes([xid(162)]) == [
        "NVIDIA's Xid catalog, Xid 162 (Power Smoothing HW Circuitry capability reengaged): no bucket"]
    # Xid 154 without its recovery action: the catalog's own bucket
    assert gpuhw.catalog_notes([xid(154)]) == [
        "NVIDIA's Xid catalog, Xid 154 (GPU Recovery Action Changed): XID_154: the action is in the message"]
    # with it: the action the message states; one the catalog does not list has no action
    act = "GPU recovery action changed from 0x0 (None) to 0x%s (Drain and Reset)"
    assert gpuhw.catalog_notes([xid(154, act % "4")]) == [
        "NVIDIA's Xid catalog, Xid 154 (GPU Recovery Action Changed): the action its message states: drain the node "
        "(let running jobs finish, start no new ones), then reset the GPU: nvidia-smi -r -i <index>"]
    assert gpuhw.catalog_notes([xid(154, act % "9")]) == [
        "NVIDIA's Xid catalog, Xid 154 (GPU Recovery Action Changed): the action its message states"]
    # the action is hexadecimal ('0x%x'): 0xa is 10, no action the catalog lists, never an error here
    assert gpuhw.catalog_notes([xid(154, act % "a")]) == [
        "NVIDIA's Xid catalog, Xid 154 (GPU Recovery Action Changed): the action its message states"]
    assert gpuhw.catalog_notes([xid(999)]) == []  # not in the catalog


def test_catalog_notes_one_per_xid_at_most_four():
    # the same Xid on several lines, or twice on one line (two messages pasted as one line): one note
    assert gpuhw.catalog_notes([xid(79), xid(79)]) == [XID79]
    two = gpuhw.catalog_notes([xid(79) + " " + xid(79) + " " + xid(95)])
    assert [n.split(" (")[0] for n in two] == ["NVIDIA's Xid catalog, Xid 79", "NVIDIA's Xid catalog, Xid 95"]
    # an Xid the catalog lacks is passed over, the next one on the line still read
    assert gpuhw.catalog_notes([xid(999) + " " + xid(79)]) == [XID79]
    # another Xid's line that states a recovery action does not change Xid 79's bucket
    assert gpuhw.catalog_notes([xid(79) + "; " + xid(154, "GPU recovery action changed from 0x0 (None) to 0x2 (x)")]) \
        == [XID79, "NVIDIA's Xid catalog, Xid 154 (GPU Recovery Action Changed): the action its message states: "
                   "drain the node and reboot it"]
    five = [xid(n) for n in (79, 95, 48, 13, 31)]
    assert [n.split(" (")[0][-6:] for n in gpuhw.catalog_notes(five)] == ["Xid 79", "Xid 95", "Xid 48", "Xid 13"]
    assert len(gpuhw.catalog_notes(five, limit=5)) == 5
    assert gpuhw.catalog_notes([_number_past_the_cut(79)]) == []
    # (Xid 8 is in the catalog: its '8' before the cut would read as Xid 8)
    assert gpuhw.catalog_notes([_number_past_the_cut(88)]) == []
    assert gpuhw.catalog_notes([_number_past_the_cut(79)[2:]]) == [XID79]


def test_a_catalog_with_only_its_xids_still_answers(monkeypatch):
    monkeypatch.setattr(gpuhw, "_CATALOG", [{"xids": {"79": {"meaning": "off the bus", "immediate": "RESTART_BM",
                                                            "investigatory": "CONTACT_SUPPORT"},
                                                     "154": {"meaning": "recovery", "immediate": "XID_154"}}}])
    assert gpuhw.catalog_notes([xid(79)]) == ["NVIDIA's Xid catalog, Xid 79 (off the bus): RESTART_BM"]
    assert gpuhw.catalog_notes([xid(154, "GPU recovery action changed from 0x0 (None) to 0x2 (x)")]) == [
        "NVIDIA's Xid catalog, Xid 154 (recovery): the action its message states"]
    assert gpuhw._app_only([xid(79)]) is False
    monkeypatch.setattr(gpuhw, "_CATALOG", [{}])
    assert gpuhw.catalog_notes([xid(79)]) == [] and gpuhw._app_only([xid(13)]) is False


def test_app_only_when_every_xid_is_the_applications():
    assert gpuhw._app_only([xid(13), xid(31)]) is True  # RESTART_APP
    assert gpuhw._app_only([xid(43)]) is True  # IGNORE
    assert gpuhw._app_only([xid(13), xid(79)]) is False
    assert gpuhw._app_only([xid(999)]) is False  # not in the catalog
    assert gpuhw._app_only(["GPU has fallen off the bus"]) is False  # no Xid at all
    assert gpuhw._app_only([_number_past_the_cut(13)]) is False  # no Xid before the cut
    assert gpuhw._app_only([_number_past_the_cut(88)]) is False  # (not Xid 8, RESTART_APP)
    assert gpuhw._app_only([_number_past_the_cut(13)[2:]]) is True


# ---------------------------------------------------------------------- the notes of one finding

def finding(fid, lines, family=gpuhw.FAMILY, role="root", signals=None, title="t"):
    f = {"id": fid, "family": family, "role": role, "title": title, "notes": [],
         "matches": [{"line": n, "text": t} for n, t in lines]}
    if signals is not None:
        f["signals"] = [{"line": n, "text": t} for n, t in signals]
    return f


ACT = " Act on that GPU (drain its node; reset or replace it), not on the job."
JOB = (" Look at the job on that GPU first (the causes below); drain the node only if the Xid repeats with other "
       "code.")


def test_notes_word_for_word():
    f = finding("gpu.xid.fallen_off_bus", [(3, xid(79))])  # no 'signals' key at all
    assert gpuhw.notes(f) == [
        "Family: cuda.gpu_hardware (the GPU reports a hardware fault); gpu.xid.fallen_off_bus is the kind the line "
        "names.", XID79, "The GPU: PCI 0000:18:00 (line 3)." + ACT]
    assert f["gpus"] == ["pci 0000:18:00"]
    f = finding("gpu.xid", [(5, xid(13, "Graphics SM Warp Exception")), (9, xid(13, "again"))])
    got = gpuhw.notes(f)
    assert got[0] == ("Family: cuda.gpu_hardware (the GPU reports a hardware fault); gpu.xid is the kind the line "
                      "names, but NVIDIA's Xid catalog points at the application for this Xid, not the GPU.")
    assert got[2] == "The GPU: PCI 0000:18:00 (lines 5, 9)." + JOB
    # the family's own entry gets no Family line; an index is shown as one
    f = finding(gpuhw.FAMILY, [(2, "DCGM: a double-bit ECC error in GPU 2.")])
    assert gpuhw.notes(f) == ["The GPU: GPU index 2 (line 2)." + ACT] and f["gpus"] == ["index 2"]
    assert gpuhw.notes(finding("nccl.x", [(1, xid(79))], family="nccl")) == []


def test_notes_read_the_confirming_lines_and_cap_what_they_list():
    f = finding(gpuhw.FAMILY, [(4, "NVRM: fallen off the bus and is not responding to commands.")],
                signals=[(2, "NVRM: The NVIDIA GPU 0000:b3:00.0")])
    assert gpuhw.notes(f) == ["The GPU: PCI 0000:b3:00 (line 2)." + ACT]
    f = finding(gpuhw.FAMILY, [(n, "GPU 0000:3b:00.0 lost") for n in range(1, 9)])
    assert gpuhw.notes(f) == ["The GPU: PCI 0000:3b:00 (lines 1, 2, 3, 4, 5, 6)." + ACT]
    f = finding(gpuhw.FAMILY, [(n, "GPU 0000:%02x:00.0 lost" % n) for n in range(1, 18)])
    assert gpuhw.notes(f) == ["The GPU: " + "; ".join("PCI 0000:%02x:00 (line %d)" % (n, n) for n in range(1, 5))
                              + "." + ACT]
    assert f["gpus"] == ["pci 0000:%02x:00" % n for n in range(1, 17)]


# ---------------------------------------------------------------------- one root per GPU

def _noted(fid, lines, notes=(), **kw):
    f = finding(fid, lines, **kw)
    f["notes"] = list(notes)
    f["gpus"] = [g for _, t in lines for g in gpuhw.gpus_of(t)]
    return f


def test_fold_keeps_one_root_per_gpu():
    root = _noted("gpu.xid.fallen_off_bus", [(3, xid(79))], ["root note"])
    long_text = "GPU 0000:18:00.0 " + "x" * 300
    same = _noted("gpu.lost", [(3, xid(79)), (7, long_text)], ["a note", "Xid 79: off the bus", "root note",
                                                              "NVIDIA's Xid catalog, Xid 79 (x)"], title="lost")
    dup = _noted("gpu.again", [(7, long_text)], ["Xid 79: off the bus"], title="again")
    cascade = _noted("gpu.cascade", [(8, xid(79, "x", "0000:99:00"))], ["c"], role="cascade")
    same_cascade = _noted("gpu.cascade_same", [(12, xid(79))], ["s"], role="cascade")
    other = _noted("gpu.other", [(9, xid(48, "x", "0000:3b:00")), (10, xid(48, "x", "0000:5e:00"))], ["o"])
    job = _noted("nccl.unhandled", [(11, "NCCL WARN on GPU 0000:3b:00.0")], ["n"], family="nccl")
    kept = gpuhw.fold([root, same, dup, cascade, other, job, same_cascade])
    # a cascade (what followed from the root) stays listed, on the root's GPU or another
    assert [f["id"] for f in kept] == ["gpu.xid.fallen_off_bus", "gpu.cascade", "gpu.other", "nccl.unhandled",
                                       "gpu.cascade_same"]
    assert root["folded"] == ["gpu.lost", "gpu.again"]
    assert root["notes"] == [
        "root note",
        "Same GPU fault, also seen: gpu.lost (lost): line 7: " + long_text[:160],
        "Xid 79: off the bus", "NVIDIA's Xid catalog, Xid 79 (x)",
        "Same GPU fault, also seen: gpu.again (again): line 7: " + long_text[:160]]
    assert cascade["notes"] == ["c"] and job["notes"] == ["n"] and same_cascade["notes"] == ["s"]  # a cascade or another family: no GPU note
    assert other["notes"] == ["Another GPU: PCI 0000:3b:00, PCI 0000:5e:00.", "o"]


def test_fold_when_the_root_or_the_other_names_no_gpu():
    root = _noted("gpu.xid", [(1, "GPU has fallen off the bus")])
    named = _noted("gpu.lost", [(2, xid(79))])
    assert gpuhw.fold([root, named]) == [root] and root["folded"] == ["gpu.lost"]
    root = _noted("gpu.xid", [(1, xid(79))])
    unnamed = _noted("gpu.lost", [(1, xid(79)), (2, "Unable to determine the device handle: Unknown Error")])
    assert gpuhw.fold([root, unnamed]) == [root] and root["folded"] == ["gpu.lost"]
    # the same line matched by both entries is not mentioned twice
    root = _noted("gpu.xid", [(1, xid(79))])
    assert gpuhw.fold([root, _noted("gpu.lost", [(1, xid(79))])]) == [root] and root["notes"] == []
    # a root that is no hardware fault folds nothing
    job = _noted("nccl.x", [(1, "x")], family="nccl")
    assert gpuhw.fold([job, named]) == [job, named] and gpuhw.fold([]) == []


def test_fold_takes_the_roots_own_gpus_first():
    # the root names 0000:18:00: a fault on 0000:3b:00 is another GPU, even as the first other finding
    root = _noted("gpu.xid", [(1, xid(79))])
    other = _noted("gpu.other", [(2, xid(48, "x", "0000:3b:00"))], ["o"])
    assert gpuhw.fold([root, other]) == [root, other] and other["notes"][0] == "Another GPU: PCI 0000:3b:00."
    # a root naming two GPUs keeps both: a finding on either folds (be53a54 takes another's GPU only for a root
    # that names none)
    root = _noted("gpu.xid", [(1, xid(79)), (2, xid(79, "x", "0000:3b:00"))])
    one, two = _noted("gpu.a", [(3, xid(48))]), _noted("gpu.b", [(4, xid(48, "x", "0000:3b:00"))])
    assert gpuhw.fold([root, one, two]) == [root] and root["folded"] == ["gpu.a", "gpu.b"]
    # a root naming none takes the first GPU another line names: a third on another GPU stays its own
    root = _noted("gpu.xid", [(1, "uncorrectable ECC error encountered")])
    one, two = _noted("gpu.a", [(3, xid(48))]), _noted("gpu.b", [(4, xid(48, "x", "0000:3b:00"))], ["b"])
    assert gpuhw.fold([root, one, two]) == [root, two] and two["notes"][0] == "Another GPU: PCI 0000:3b:00."


@pytest.mark.parametrize("key,shown", [("pci 0000:3b:00", "PCI 0000:3b:00"), ("index 2", "GPU index 2")])
def test_shown(key, shown):
    assert gpuhw._shown(key) == shown

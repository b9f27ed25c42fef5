"""nvidia-smi's own messages (issue 18): read from the binary of Debian bookworm's non-free nvidia-smi
535.261.03 by tools/gen_nvidia_smi_messages.py (its slice tools/data/nvidia_smi_messages_slice.txt keeps the
strings and --query-gpu records used here). The generator regenerates the committed sites and field table;
the binary's real failure output, made here (fixtures/nvidia_smi/), and texts of public threads (cited per
text) get their entry; a refused --query-gpu name gets the valid names nearest to it.
"""

import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLICE = os.path.join(REPO, "tools", "data", "nvidia_smi_messages_slice.txt")
OUT = os.path.join(REPO, "fixtures", "nvidia_smi")
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_nvidia_smi_messages as gen  # noqa: E402
import knowgen  # noqa: E402
from explainhelp import explain_paste, ids, root_id, root_of  # noqa: E402

REAL = {
    # https://github.com/congard/nvidia-system-monitor-qt/issues/20 (a field its driver did not have)
    "temperature_memory": ("nvidia-smi --query-gpu=temperature.gpu,temperature.memory,power.draw "
                           "--format=csv,noheader,nounits\nField \"temperature.memory\" is not a valid field to "
                           "query.\n", "nvidia_smi.usage"),
    # https://github.com/plambe/zabbix-nvidia-smi-multi-gpu/issues/17
    "throttle_unknown": ("Field \"clocks_throttle_reasons.unknown\" is not a valid field to query.\n",
                         "nvidia_smi.usage"),
    # https://github.com/zylon-ai/private-gpt/issues/1480 (a shell line split into nvidia-smi's arguments)
    "option": ("ERROR: Option and is not recognized. Please run 'nvidia-smi -h'.\n", "nvidia_smi.usage"),
    # -r refused while the GPU is open: https://github.com/cupy/cupy/issues/1930 (a python process) and
    # https://github.com/ComputeCanada/puppet-magic_castle/issues/387 (nvidia_drm, through nvidia-mig-parted)
    "reset_in_use": ("$ sudo nvidia-smi --gpu-reset -i 1\nGPU 00000000:00:18.0 is currently in use by another "
                     "process.\n\n1 device is currently being used by one or more other processes (e.g., CUDA "
                     "application, graphics application such as an X server, or a monitoring application such as "
                     "another instance of nvidia-smi). Please first kill all processes using this device and all "
                     "compute applications running in the system.\n", "nvidia_smi.reset"),
    "reset_nvidia_drm": ('time="2024-09-30T19:49:46Z" level=error msg="\\nThe following GPUs could not be reset:\\n  '
                         'GPU 00000000:00:06.0: In use by another client\\n\\n1 device is currently being used by one '
                         'or more other processes (e.g., Fabric Manager, CUDA application, graphics application such '
                         'as an X server, or a monitoring application such as another instance of nvidia-smi). Please '
                         'first kill all processes using this device and all compute applications running in the '
                         'system.\\n"\n', "nvidia_smi.reset"),
}


def _read(name):
    with open(os.path.join(OUT, name)) as f:
        return f.read()


def test_generator_regenerates_the_committed_sites_and_fields_from_the_slice(tmp_path):
    got = knowgen.regenerated(gen.main, SLICE, tmp_path / "nvidia_smi_messages.json")
    full = knowgen.committed("nvidia_smi_messages")
    assert got["header"]["version"] == full["header"]["version"] and "535.261.03" in full["header"]["version"]
    by_text = {s["text"]: s for s in full["sites"]}
    for s in got["sites"]:
        ref = by_text[s["text"]]
        # ids and places follow the order of the whole binary's strings ('gpu %s' and 'GPU %s' slug alike)
        assert {k: v for k, v in s.items() if k not in ("id", "where")} == \
            {k: v for k, v in ref.items() if k not in ("id", "where")}, s["id"]
    assert got["query_fields"] == full["query_fields"][:len(got["query_fields"])]
    sites = {s["text"]: s for s in got["sites"]}
    assert sites['Field "%s" is not a valid field to query.']["family"] == "nvidia_smi.usage"
    assert sites["No devices were found"]["family"] == "gpu.no_devices"
    assert sites["GPU is lost"]["family"] is None and sites["GPU is lost"]["rule"] == "nvml-string"  # nvml.json
    names = {f["name"] for f in full["query_fields"]} | {f.get("alt") for f in full["query_fields"]}
    assert {"memory.used", "utilization.gpu", "gpu_name", "clocks_event_reasons.active"} <= names
    assert "clocks" not in names  # a heading of the table, not a field
    assert full["unassigned"] == sorted(s["id"] for s in full["sites"] if not s.get("family"))


def test_the_binary_run_here_without_a_driver_gets_its_entry(cli, tmp_path):
    rc, doc = explain_paste(cli, tmp_path, _read("no_driver.txt"), "--file", rcs=(0, 1))
    assert root_id(doc) == "gpu.driver_not_loaded", ids(doc)
    rc, doc = explain_paste(cli, tmp_path, _read("no_nvml.txt"), "--file", rcs=(0, 1))
    root = root_of(doc)
    assert root["id"] == "container.no_driver_libs", ids(doc)
    assert "--gpus all" in " ".join(root["causes"][0]["fix"])


def test_real_texts_get_their_entry_and_a_bad_field_the_valid_names(cli, tmp_path):
    for name, (text, want) in REAL.items():
        rc, doc = explain_paste(cli, tmp_path, text, "--file", name=name + ".txt", rcs=(0, 1))
        assert root_id(doc).startswith(want), (name, ids(doc))
        if name.startswith("reset_"):  # the display module and persistence mode are named among the fixes
            fixes = " ".join(" ".join(c.get("fix") or []) for c in root_of(doc)["causes"])
            assert "rmmod nvidia_drm" in fixes and "nvidia-persistenced" in fixes, (name, fixes)
    # a name the table has (temperature.memory is one of 535's): the node's driver is another
    rc, doc = explain_paste(cli, tmp_path, REAL["temperature_memory"][0], "--file", rcs=(0, 1))
    notes = " ".join(root_of(doc)["notes"])
    assert "driver without it" in notes and "did you mean" not in notes, notes
    assert "--help-query-gpu" in root_of(doc)["causes"][0]["fix"][0]
    # a name it does not have: the nearest ones
    rc, doc = explain_paste(cli, tmp_path, REAL["throttle_unknown"][0], "--file", rcs=(0, 1))
    notes = " ".join(root_of(doc)["notes"])
    assert "did you mean clocks_throttle_reasons." in notes, notes


def test_suggestions_come_from_the_table():
    from gpudoctor.explain import smifields

    assert smifields.suggest("memory.usage")[:1] == ["memory.used"]
    assert smifields.suggest("gpu_util")[:1] == ["utilization.gpu"]  # its words in another order
    assert "memory.total" in smifields.suggest("memory")
    assert smifields.suggest("zzzzzz") == []

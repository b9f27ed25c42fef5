"""Apptainer / Singularity messages (issue 18): read from apptainer/apptainer's Go source by
tools/gen_apptainer_messages.py (sylog.Fatalf/Errorf/Warningf formats and the GPU setup's errors; its slice
tools/data/apptainer_messages_slice.txt keeps the GPU setup's parts with their line numbers). The generator
regenerates the committed sites, and real texts of public threads (cited per text) get container.apptainer_gpu.
"""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLICE = os.path.join(REPO, "tools", "data", "apptainer_messages_slice.txt")
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_apptainer_messages as gen  # noqa: E402
import knowgen  # noqa: E402
from explainhelp import explain_paste, ids  # noqa: E402

REAL = {
    # https://github.com/apptainer/singularity/issues/5837 (Singularity 3.7.1 on a Jetson: the GPU never reached
    # the container; Singularity 3.x printed this at INFO, Apptainer warns)
    "nv_files_5837": ("jdong@jdong-desktop:~/development/install_singularity$ singularity exec --nv "
                      "l4t-pytorch_r32.5.0-pth1.7-py3.sif bash\nINFO:    Could not find any nv files on this host!\n"),
}


def test_generator_regenerates_the_committed_sites_from_the_slice(tmp_path):
    got = knowgen.regenerated(gen.main, SLICE, tmp_path / "apptainer_messages.json")
    full = knowgen.committed("apptainer_messages")
    assert got["header"]["version"] == full["header"]["version"] and "(commit " in full["header"]["version"]
    by_text = {s["text"]: s for s in full["sites"]}
    assert len(got["sites"]) >= 10
    for s in got["sites"]:  # one text printed at several places: the whole tree keeps its first (id, where)
        assert {k: v for k, v in s.items() if k not in ("id", "where")} == \
            {k: v for k, v in by_text[s["text"]].items() if k not in ("id", "where")}, s["id"]
    sites = {s["text"]: s for s in got["sites"]}
    assert sites["Could not find any %s libraries on this host!"]["family"] == "container.apptainer_gpu"
    assert sites["nvidia-container-cli failed with %s: %s"]["fix"]
    assert sites["--fakeroot used without sandbox image or user namespaces"]["family"] == "container.apptainer_userns"
    assert full["unassigned"] == sorted(s["id"] for s in full["sites"] if not s.get("family"))


def test_go_formats_are_read_as_printf():
    src = 'sylog.Warningf("a %v b %w " +\n\t"c %q: 100%% %%test", x)'
    assert gen.go_format(src, src.index("(") + 1) == "a %s b %s c %s: 100%% %%test"
    rx, _ = knowgen.printf_to_regex(gen.go_format(src, src.index("(") + 1))
    assert re.search(rx, 'a 1 b err c "x": 100% %test')


def test_the_prefix_is_sylogs():
    sites = {s["text"]: s for s in knowgen.committed("apptainer_messages")["sites"]}
    rx = re.compile(sites["Could not find any %s libraries on this host!"]["re"])
    assert rx.search("WARNING: Could not find any nv libraries on this host!")
    assert rx.search("WARNING [U=1000,P=4242]   addGPUBinds()    Could not find any nv libraries on this host!")
    assert not rx.search("echo Could not find any nv libraries on this host!")


def test_real_texts_get_container_apptainer_gpu(cli, tmp_path):
    rc, doc = explain_paste(cli, tmp_path, REAL["nv_files_5837"], "--file", rcs=(0, 1))
    # a warning alone is context (a note with its fix), not a root cause
    got = [f for f in doc["findings"] + doc["context"] if f["id"] == "container.apptainer_gpu"]
    assert got and "GPU node" in (got[0].get("fix") or ""), (ids(doc), doc["context"])
    # a FATAL line of --nvccli as Apptainer prints it (launcher_linux.go's 'While setting GPU configuration: %s'
    # around nvidia.go's 'nvidia-container-cli failed with %v: %s'), with libnvidia-container's own error
    text = ("INFO:    Setting --writable-tmpfs (required by nvidia-container-cli)\nFATAL:   While setting GPU "
            "configuration: nvidia-container-cli failed with exit status 1: nvidia-container-cli: initialization "
            "error: nvml error: driver not loaded\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1))
    assert {"container.nvml_driver", "container.apptainer_gpu"} <= set(ids(doc)), ids(doc)

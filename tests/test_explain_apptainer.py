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
    assert knowgen.go_format(src, src.index("(") + 1) == "a %s b %s c %s: 100%% %%test"
    rx, _ = knowgen.printf_to_regex(knowgen.go_format(src, src.index("(") + 1))
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


def test_sites_no_word_rule_assigns_get_the_family_of_the_code_that_prints_them(tmp_path):
    # issue 18, assign-sites2: tools/gen_apptainer_messages.py CONTEXT_RULES (the pattern of gen_slurm_messages.py)
    got = {s["where"]: (s["rule"], s["family"]) for s in
           knowgen.regenerated(gen.main, SLICE, tmp_path / "apptainer_messages.json")["sites"]}
    # the starter's error value, printed as 'FATAL:   container creation failed: <the engine's error>'
    assert got["internal/app/starter/master_linux.go:53"] == ("ctx-starter", "container.apptainer_launch")
    assert got["internal/pkg/runtime/launch/launcher_linux.go:234"] == ("ctx-launch", "container.apptainer_launch")
    assert got["internal/pkg/runtime/launch/launcher_linux.go:372"][1] is None  # 'instance %s already exists': too few
    assert got["internal/pkg/runtime/engine/apptainer/container_linux.go:827"] == ("a warning, not an error", None)


CONTEXT_REAL = {
    # https://github.com/apptainer/apptainer/issues/1143 (APPTAINER_BINDPATH with --home and --bind)
    "bindpath_1143": ("$ APPTAINER_BINDPATH=$PWD /cvmfs/oasis.opensciencegrid.org/mis/apptainer/bin/apptainer exec "
                      "--home $PWD/b --bind $PWD/d /cvmfs/cernvm-prod.cern.ch/cvm3 pwd\nFATAL:   container creation "
                      "failed: mount hook function failure: mount /afs/cern.ch/user/c/cburr/a/d->/afs/cern.ch/user/c/"
                      "cburr/a/d error: while mounting /afs/cern.ch/user/c/cburr/a/d: destination /afs/cern.ch/user/c/"
                      "cburr/a/d doesn't exist in container\n"),
    # https://github.com/apptainer/apptainer/issues/1315 (setuid build, a sandbox, an autofs-mounted bind source)
    "scratch_1315": ("$ /apps/apptainer/1.1.8s/bin/apptainer shell /apps/ubuntu/22.04/container\n"
                     "WARNING: could not mount /etc/localtime: operation not supported\n"
                     "FATAL:   container creation failed: mount hook function failure: mount /scratch/local->/scratch/"
                     "local error: while mounting /scratch/local: could not mount /scratch/local: operation not "
                     "supported\n"),
}


def test_a_container_creation_failure_gets_the_launch_family_and_the_bind_cause_first(cli, tmp_path):
    for name, text in CONTEXT_REAL.items():
        rc, doc = explain_paste(cli, tmp_path, text, "--file", name=name + ".txt", rcs=(0, 1))
        root = doc["findings"][0]
        assert root["id"] == "container.apptainer_launch" and root["confidence"] == "family", (name, ids(doc))
        assert "-B /src:/dst" in root["causes"][0]["fix"][0], (name, root["causes"][0])

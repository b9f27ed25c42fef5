"""Ray messages (issue 18): starting and joining a cluster, versions across nodes, resources and placement groups,
Ray Train's worker group. Read from the ray 2.60.0 wheel's Python by tools/gen_ray_messages.py (its slice
tools/data/ray_messages_slice.txt keeps the statements used here with their line numbers): the generator
regenerates the committed sites, and real texts of public threads (cited per text) get their entry.
"""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLICE = os.path.join(REPO, "tools", "data", "ray_messages_slice.txt")
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_ray_messages as gen  # noqa: E402
import knowgen  # noqa: E402
from explainhelp import explain_paste, ids, root_id, root_of  # noqa: E402

REAL = {
    # https://github.com/Unakar/Logic-RL/issues/30 (a driver with another Ray and Python than the cluster)
    "version_logic_rl_30": ("RuntimeError: Version mismatch: The cluster was started with:\n    Ray: 2.12.0\n"
                            "    Python: 3.11.11\nThis process on node 10.123.3.87 was started with:\n    Ray: 2.42.0\n"
                            "    Python: 3.9.21\n", "ray.version_mismatch"),
    # https://github.com/ray-project/ray/issues/44063 (only the Python patch level differs)
    "version_44063": ("RuntimeError: Version mismatch: The cluster was started with:\n    Ray: 2.9.3\n    Python: 3.10.13\n"
                      "This process on node xx.xxx.x.x was started with:\n    Ray: 2.9.3\n    Python: 3.10.12\n",
                      "ray.version_mismatch"),
    # https://github.com/ray-project/ray/issues/8089 (ray 0.8.4's wording; the entry's own pattern)
    "no_cluster_8089": ("ConnectionError: Could not find any running Ray instance. Please specify the one to connect to "
                        "by setting `address`.\n", "ray.no_cluster"),
}


def test_generator_regenerates_the_committed_sites_from_the_slice(tmp_path):
    got = knowgen.regenerated(gen.main, SLICE, tmp_path / "ray_messages.json")
    full = knowgen.committed("ray_messages")
    assert got["header"]["version"] == full["header"]["version"] and "2.60.0" in full["header"]["version"]
    by_text = {s["text"]: s for s in full["sites"]}
    assert len(got["sites"]) >= 8
    for s in got["sites"]:
        assert {k: v for k, v in s.items() if k not in ("id", "where")} == \
            {k: v for k, v in by_text[s["text"]].items() if k not in ("id", "where")}, s["id"]
    sites = {s["text"]: s for s in got["sites"]}
    # the f-string's field that names another message constant is that constant's first line
    assert sites["Version mismatch: The cluster was started with:"]["family"] == "ray.version_mismatch"
    assert sites["Python patch version mismatch: %s"]["family"] is None  # a warning: context
    assert sites["Placement group creation timed out. Make sure your cluster either has enough resources or use an "
                 "autoscaling cluster. If you are running on a cluster, make sure you specify an address in "
                 "`ray.init()`, for example, `ray.init(\"auto\")`. You can also increase the timeout by setting the "
                 "TRAIN_PLACEMENT_GROUP_TIMEOUT_S environment variable. Current resources available: %s, resources "
                 "requested by the placement group: %s"]["fix"]
    assert full["unassigned"] == sorted(s["id"] for s in full["sites"] if not s.get("family"))


def test_real_texts_get_their_entry(cli, tmp_path):
    for name, (text, want) in REAL.items():
        rc, doc = explain_paste(cli, tmp_path, text, "--file", name=name + ".txt", rcs=(0, 1))
        assert root_id(doc) == want, (name, ids(doc))
    rc, doc = explain_paste(cli, tmp_path, REAL["version_logic_rl_30"][0], "--file", rcs=(0, 1))
    assert re.search(r"same ray .*same Python", root_of(doc)["causes"][0]["fix"][0])


def test_a_line_from_the_source_format_gets_its_fix(cli, tmp_path):
    # services.py's refusal as ray 2.60.0 raises it (its format has no conversion: the line is the format)
    text = ("ConnectionError: Could not find any running Ray instance. Please specify the one to connect to by setting "
            "`--address` flag or `RAY_ADDRESS` environment variable.\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1))
    assert root_id(doc) == "ray.no_cluster" and "ray start --head" in root_of(doc)["causes"][0]["fix"][0]


def test_sites_no_word_rule_assigns_get_the_family_of_the_code_that_raises_them(tmp_path):
    # issue 18, assign-sites2: tools/gen_ray_messages.py CONTEXT_RULES (the pattern of gen_slurm_messages.py)
    sites = {s["text"]: s for s in knowgen.regenerated(gen.main, SLICE, tmp_path / "ray_messages.json")["sites"]}
    start = next(s for t, s in sites.items() if t.startswith("The current node timed out during startup."))
    assert (start["rule"], start["family"]) == ("ctx-start", "ray.start")
    assert sites["Unable to succeed in selecting a random port."]["family"] == "ray.start"  # logger.error
    bundles = next(s for t, s in sites.items() if t.startswith("Bundles must be a non-empty list"))
    assert (bundles["rule"], bundles["family"]) == ("ctx-usage", "ray.usage")
    # ray.init's arguments, not the cluster's resources (the word 'num_gpus' made it ray.resources before)
    assert sites["When connecting to an existing cluster, num_cpus and num_gpus must not be provided."]["family"] \
        == "ray.usage"
    # too few words of its own (the longest literal run, 'values, expected') to assign by its file
    assert sites["Callback %s returned %s with %s values, expected %s."]["family"] is None
    # a message constant (a raise formats it) is not assigned by its file: it may be one line of a longer message
    assert sites["The cluster was started with:"]["family"] is None
    assert sites["Failed to connect to Ray cluster at %s"]["family"] == "ray.no_cluster"  # its words, before its file


CONTEXT_REAL = {
    # https://github.com/facebookresearch/fairchem/pull/1635 (ray.init(address=...) with num_cpus / num_gpus)
    "init_existing_fairchem_1635": (
        '  File "/storage/home/rgao/envs/fairchem/lib/python3.12/site-packages/ray/_private/worker.py", line 1859, '
        "in init\n    raise ValueError(\nValueError: When connecting to an existing cluster, num_cpus and num_gpus "
        "must not be provided.\n", "ray.usage", "ray.init"),
    # https://github.com/ray-project/ray/issues/54655 (ray start --include-dashboard=true on Windows)
    "dashboard_54655": (
        "Local node IP: 127.0.0.1\n2025-07-16 16:22:06,259 ERROR services.py:1355 -- Failed to start the dashboard , "
        "return code 3221226505\n2025-07-16 16:22:06,259 ERROR services.py:1380 -- Error should be written to "
        "'dashboard.log' or 'dashboard.err'. We are printing the last 20 lines for you.\n", "ray.start", "ray[default]"),
}


def test_real_texts_of_a_context_site_get_the_family_and_the_cause_their_words_name(cli, tmp_path):
    for name, (text, want, fix) in CONTEXT_REAL.items():
        rc, doc = explain_paste(cli, tmp_path, text, "--file", name=name + ".txt", rcs=(0, 1))
        assert root_id(doc) == want, (name, ids(doc))
        root = root_of(doc)
        assert root["confidence"] == "family" and fix in " ".join(root["causes"][0]["fix"]), (name, root["causes"][0])

"""The fabric manager's refusal of its own config file (infra16, issue 18): fabricmanager.cfg documents each item's
possible values; a refused one stops nv-fabricmanager at start (fabric.manager_start, gpudoctor/data/knowledge/
hostprog.toml)."""

from gpudoctor import explain


def test_a_refused_config_item_names_the_item_and_the_installed_paths(kb):
    # https://github.com/siderolabs/extensions/issues/511 (the packaged config's paths were not the install's)
    res = explain.explain_text("<node ip>: fabric manager config file item: FABRIC_NODE_CONFIG_FILE has an invalid "
                               "value\n", kb)
    f = res["findings"][0]
    assert res["verdict"] == "root_cause" and f["id"] == "fabric.manager_start"
    first = f["causes"][0]
    assert "fabricmanager.cfg" in first["text"] and "/usr/share/nvidia/nvswitch" in " ".join(first["fix"])
    # the machine-without-NVSwitch cause is not put first for this line
    assert "no NVSwitch" not in first["text"]

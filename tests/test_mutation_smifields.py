"""Cases for the mutants of gpudoctor/explain/smifields.py (docs/mutation.md, fifth round): the --query-gpu
table read from generated/nvidia_smi_messages.json (both names of a field, the driver version, an absent or
broken table, read once), the names suggested for a refused field (its words, its spelling neighbours, the
fields under it as a prefix, at most 6) and the notes word for word (at most 3, a line read to 4,096
characters, a name clipped to 60)."""

import json

import pytest

from gpudoctor.explain import smifields as S


@pytest.fixture
def table(tmp_path, monkeypatch):
    """smifields reading a table of ours (a fresh cache); the real one again afterwards."""
    from gpudoctor.explain import knowledge

    path = tmp_path / "nvidia_smi_messages.json"
    monkeypatch.setattr(knowledge, "GENERATED_DIR", str(tmp_path))  # read_generated's folder (size20's reader)
    monkeypatch.setattr(S, "_cache", {})
    return path


def test_fields_reads_both_names_and_the_version_once(table):
    table.write_text(json.dumps({"header": {"version": "nvidia-smi 999.1 (Debian, /usr/bin/nvidia-smi)"},
                                 "query_fields": [{"name": "name", "alt": "gpu_name"}, {"name": "memory.used"},
                                                  {"name": "pci.bus", "alt": ""}]}))
    assert S.fields() == ({"name": "name", "gpu_name": "name", "memory.used": "memory.used", "pci.bus": "pci.bus"},
                          "nvidia-smi 999.1")
    table.write_text("{}")
    assert S.fields()[1] == "nvidia-smi 999.1"  # read once per process


@pytest.mark.parametrize("text", [None, "{not json", json.dumps({"query_fields": [{"name": "a"}]}),
                                  json.dumps({"header": [], "query_fields": []}),
                                  json.dumps({"header": {"version": "v"}, "query_fields": [{"alt": "x"}]})])
def test_fields_of_an_absent_or_broken_table_are_none(table, text):
    if text is not None:
        table.write_text(text)
    assert S.fields() == ({}, "")
    assert S.notes({"matches": [{"text": 'Field "gpu_util" is not a valid field to query.'}]}) == []


def test_fields_of_a_table_without_rows(table):
    table.write_text(json.dumps({"header": {"version": "nvidia-smi 1.2"}}))
    assert S.fields() == ({}, "nvidia-smi 1.2")


@pytest.mark.parametrize("bad,want", [
    ("memory.usage", ["memory.used", "memory.free", "memory.total", "protected_memory.used"]),
    (" Memory.Usage ", ["memory.used", "memory.free", "memory.total", "protected_memory.used"]),
    ("gpu_util", ["utilization.gpu", "gpu_uuid", "gpu_serial", "gpu_bus_id"]),  # its words, in another order
    ("temp.gpu", ["temperature.gpu"]),
    ("gpu.name", ["gpu_name", "name"]),
    ("name", ["name", "gpu_name"]),
    ("clocks.sm", ["clocks.sm", "clocks.mem", "clocks.max.sm", "clocks.gr"]),
    # the fields under a prefix, after the spelling neighbours; at most 6
    ("memory", ["memory.used", "memory.free", "memory.total", "memory.reserved"]),
    ("pci", ["pci.bus", "pci.bus_id", "pci.domain", "pci.device", "pci.device_id", "pci.sub_device_id"]),
    ("power", ["power.draw", "power.limit", "power.management", "power.draw.average", "power.draw.instant",
               "power.default_limit"]),
    ("zzzzzz", []),
    ("._.", []),
])
def test_suggest(bad, want):
    assert S.suggest(bad) == want


def test_suggest_words_first_three_by_name_then_spelling_then_prefix(table):
    table.write_text(json.dumps({"header": {"version": "x"}, "query_fields": [
        {"name": n} for n in ("gpu.c4", "gpu.c2", "gpu.c3", "gpu.c1", "c.gpu", "zz.gpu", "gpu", "gpu.c.d", "gpu.cx.u")]}))
    # five names of two tokens each start with one of 'gpu', 'c': the first 3 by name; then difflib's 4 (one
    # already listed), then 'gpu.c.' as a prefix; 6 in all
    assert S.suggest("gpu.c") == ["c.gpu", "gpu.c1", "gpu.c2", "gpu.c4", "gpu.c3", "gpu.c.d"]
    assert S.suggest(" GPU.C ") == S.suggest("gpu.c")
    # a token may also be the start of the word ('gpus' -> 'gpu')
    assert S.suggest("gpus") == ["gpu", "c.gpu", "zz.gpu", "gpu.c4"]


def test_notes_word_for_word():
    f = {"matches": [
        {"text": 'nvidia-smi: Field "temperature.memory" is not a valid field to query.'},
        {"text": "nothing"},
        {"text": 'Field "gpu_util" is not a valid field to query.'},
        {"text": 'Field "zzzzzz" is not a valid field to query.'},
        {"text": 'Field "GPU_NAME" is not a valid field to query.'},  # a fourth: at most 3
    ]}
    _, version = S.fields()
    assert version == "nvidia-smi 535.261.03-1"
    assert S.notes(f) == [
        "'temperature.memory' is a --query-gpu name of nvidia-smi 535.261.03-1: this node's nvidia-smi is of a "
        "driver without it (an older one, most often); nvidia-smi --version, and use the names of its "
        "--help-query-gpu or upgrade the driver",
        "'gpu_util' is not a --query-gpu name of nvidia-smi 535.261.03-1 (its --help-query-gpu table, 171 names): "
        "did you mean utilization.gpu, gpu_uuid, gpu_serial, gpu_bus_id?",
        "'zzzzzz' is not a --query-gpu name of nvidia-smi 535.261.03-1 (its --help-query-gpu table, 171 names); "
        "nvidia-smi --help-query-gpu lists them"]


def test_notes_bounds():
    assert S.notes({}) == [] and S.notes({"matches": []}) == []
    got = S.notes({"matches": [
        {"text": 'Field "GPU_NAME" is not a valid field to query.'},  # a valid name in upper case
        {"text": "x" * 4050 + 'Field "gpu_util" is not a valid field to query.'},  # past 4,096 characters
        {"text": 'Field "%s" is not a valid field to query.' % ("q" * 100)}]})
    assert got == [
        "'GPU_NAME' is a --query-gpu name of nvidia-smi 535.261.03-1: this node's nvidia-smi is of a driver "
        "without it (an older one, most often); nvidia-smi --version, and use the names of its --help-query-gpu or "
        "upgrade the driver",
        "'%s [...]' is not a --query-gpu name of nvidia-smi 535.261.03-1 (its --help-query-gpu table, 171 names); "
        "nvidia-smi --help-query-gpu lists them" % ("q" * 54)]

"""explain/provenance.py's package -> family map and its look-ups, on hand-made knowledge (mutation16, docs/mutation.md
"Round 11"). The map is cached per knowledge dict, so the tests through explain_text only ever ran it once per process
(under mutmut, never for a mutant): here every case builds its own dict."""

from gpudoctor.explain import knowledge, provenance


def _site(source, where):
    return {"source": source, "where": where}


def _by(**sites_by_eid):
    return {eid.replace("__", "."): {"_sites": list(sites)} for eid, sites in sites_by_eid.items()}


def test_only_tables_made_from_a_wheel_count():
    names = provenance._wheel_tables()
    assert {"ray_messages", "triton_messages", "torch_messages", "jax_messages"} <= names
    # repositories' tables (their header's source is a GitHub or project URL, not pypi.org/project/)
    assert not names & {"megatron_messages", "slurm_errors", "stdlib_messages", "nccl_messages", "errno"}
    every = {knowledge.table_name(p) for p in knowledge.generated_files()}
    assert names < every


def test_a_package_is_the_area_most_of_its_sites_are_assigned_to():
    w = "ray_messages"  # a wheel table
    # (a repository's site first in an entry's list does not end the entry's sites)
    by = _by(ray__usage=[_site("megatron_messages", "ray/x.py:1"), _site(w, "ray/_private/node.py:850"),
                         _site(w, "ray/util/x.py:3")],
             ray__library_error=[_site(w, "ray/_private/worker.py:12")],
             serve__usage=[_site(w, "ray/serve/api.py:1")],
             # a tie of two areas: the larger name wins, and half is enough
             alpha__usage=[_site(w, "pkgtie/a.py:1"), _site(w, "pkgtie/b.py:2")],
             beta__usage=[_site(w, "pkgtie/c.py:3"), _site(w, "pkgtie/d.py:4")],
             # three areas of one site each: no majority
             a1__x=[_site(w, "spread/a.py:1")], a2__x=[_site(w, "spread/b.py:1")], a3__x=[_site(w, "spread/c.py:1")],
             # not counted: a repository's table, a 'where' that is no package path, no 'where', no source
             megatron__usage=[_site("megatron_messages", "norepo/x.py:1"), _site(w, "norepo/x.py"),
                              _site(w, None), {"where": "norepo/y.py:2"}, _site(w, "/abs/x.py:1"),
                              _site(w, "norepo/x.pyc:1"), _site(w, "x.py:1")])
    by["nosites.usage"] = {}
    by["nonesites.usage"] = {"_sites": None}
    got = provenance.package_areas(by)
    assert got == {"ray": ("ray", 3, 4), "pkgtie": ("beta", 2, 4)}, got
    # cached for this dict, read again for another
    assert provenance.package_areas(by) is got
    other = dict(by)
    other["x.y"] = {"_sites": [_site(w, "late/a.py:1")]}
    assert provenance.package_areas(other)["late"] == ("x", 1, 1)
    # an entry id of three parts: its area is the first
    assert provenance.package_areas({"lib.sub.entry": {"_sites": [_site(w, "three/a.py:1")]}}) == {"three": ("lib", 1, 1)}


def test_the_area_gives_its_library_error_else_its_usage_entry():
    w = "ray_messages"
    by = _by(ray__library_error=[_site(w, "ray/a.py:1")], ray__usage=[], deepspeed__usage=[_site(w, "op_builder/b.py:2")],
             timm__other=[_site(w, "timm/c.py:3")], echoed__library_error=[_site(w, "echolib/d.py:4")],
             echoed__usage=[])
    by["echoed.library_error"]["kind"] = "echo"
    assert provenance.library_entry(by, "ray") == "ray.library_error"
    assert provenance.library_entry(by, "op_builder") == "deepspeed.usage"
    assert provenance.library_entry(by, "timm") is None  # an area with neither entry
    assert provenance.library_entry(by, "echolib") == "echoed.usage"  # an echo entry is no answer
    del by["echoed.usage"]
    assert provenance.library_entry(by, "echolib") is None
    assert provenance.library_entry(by, "nosuch") is None
    # a refused call: the package's own usage entry, else its area's, else none
    assert provenance.usage_entry(by, "op_builder") == "deepspeed.usage"
    by["op_builder.usage"] = {}
    assert provenance.usage_entry(by, "op_builder") == "op_builder.usage"
    assert provenance.usage_entry(by, "ray") == "ray.usage"
    assert provenance.usage_entry(by, "timm") is None
    assert provenance.usage_entry(by, "nosuch") is None

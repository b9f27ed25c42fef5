"""docremedy.sections_of's order and apply's walk past a skipped section, the parts mutation round 17 found unasserted
(docs/mutation.md): a line holding two documented fragments lists the longer match first and, at equal lengths, the
table's earlier section; a fragment met twice keeps its longer match; apply reads the next section of the line after
one it skips for its 'cases' or for a short fragment whose project the text does not name. The fragments are the
generated table's own (generated/doc_remedies.json)."""

from gpudoctor.explain import docremedy as D
from gpudoctor.explain import load_knowledge


def _frag(project, words):
    rows = D._table()["rows"]
    ri, row = next((i, r) for i, r in enumerate(rows) if r["project"] == project and
                   any(len(D._words(f)) == words for f in r["fragments"]))
    return ri, next(f for f in row["fragments"] if len(D._words(f)) == words)


def _sections(text):
    rows = D._table()["rows"]
    return [(rows.index(row), n) for row, n in D.sections_of(text)]


def test_the_longer_match_first_then_the_table_s_order():
    r5, datasets7 = _frag("datasets", 7)        # 'client error: too many requests for url'
    r7, lightning12 = _frag("lightning", 12)    # 'can not run on your system since the accelerator is not available'
    r12, jax7 = _frag("jax", 7)                 # 'cannot solve for values of dimension variables'
    assert r5 < r7 < r12
    assert _sections(datasets7 + " | " + lightning12) == [(r7, 12), (r5, 7)]
    assert _sections(jax7 + " | " + datasets7) == [(r5, 7), (r12, 7)]    # equal: the table's order, not the line's


def test_a_fragment_met_twice_keeps_its_longer_match():
    r7, lightning12 = _frag("lightning", 12)
    cut = " ".join(lightning12.split()[:9])     # 9 words of 12: LONG (8) or more, a match too
    assert _sections(lightning12 + " | " + cut + " zzz") == [(r7, 12)]
    assert _sections(cut + " zzz | " + lightning12) == [(r7, 12)]


def _apply(line):
    import io

    from gpudoctor.explain.scan import scan_stream

    kb = load_knowledge()
    res = {"verdict": "unknown_error", "findings": []}
    D.apply(res, scan_stream(io.BytesIO((line + "\n").encode()), kb), kb)
    return [(f["id"], [c.get("doc_section") for c in f["causes"]][:1]) for f in res["findings"]]


def test_apply_reads_on_past_a_section_about_another_case():
    rows = D._table()["rows"]
    r1 = next(i for i, r in enumerate(rows) if r.get("cases") == ["deepspeed_config_file"])
    r8, jax8 = _frag("jax", 8)                  # 'index needs to be non-negative! (check failed at'
    frag = rows[r1]["fragments"][0]             # 8 words too, earlier in the table: read first, and skipped
    assert _sections(frag + " | " + jax8) == [(r1, 8), (r8, 8)]
    assert _apply("ValueError: " + frag + " | " + jax8) == [(rows[r8]["family"], [rows[r8]["url"]])]


def test_apply_reads_on_past_a_short_fragment_of_a_project_not_named():
    rows = D._table()["rows"]
    r2, peft5 = _frag("peft", 5)                # 'attempting to unscale fp16 gradients': peft not named
    r13, jax5 = _frag("jax", 5)                 # 'failed_precondition: task with incarnation id': jax named
    assert _sections(peft5 + " | " + jax5) == [(r2, 5), (r13, 5)]
    assert _apply("ValueError: " + peft5 + " | " + jax5 + "\nERROR jax: x") == [(rows[r13]["family"], [rows[r13]["url"]])]


def test_a_long_heading_is_clipped_at_80_characters_in_the_why():
    # verl's FAQ heading (87 characters) is the longest of the table's
    assert _apply("RuntimeError: tensordict does not support membership checks with the\nERROR verl: x") == [
        ("rl.config", ["https://verl.readthedocs.io/en/latest/faq/faq.html#notimplementederror-tensordict-does-not-"
                       "support-membership-checks-with-the-in-keyword"])]
    import io

    from gpudoctor.explain.scan import scan_stream

    kb = load_knowledge()
    res = {"verdict": "unknown_error", "findings": []}
    D.apply(res, scan_stream(io.BytesIO(b"RuntimeError: tensordict does not support membership checks with the\n"
                                        b"ERROR verl: x\n"), kb), kb)
    assert res["findings"][0]["notes"][0] == (
        "How sure: low. No known message matched; the family is read from the log's shape (its message is one verl's "
        "documentation quotes (8 words), in 'NotImplementedError: TensorDict does not support membership checks with "
        "[...]'). Confirm it with the commands below before acting.")

"""From what the scan found to an answer: the root error, related errors, the cascade of
echoes, and context (INFO/WARN lines, never a root cause on their own).

Scoring: an entry's score is the rank of its best pattern on an error line (or of a
`together` group: several lines, each weak alone, found within a few lines of each other),
plus the weights of its `signals` (confirming lines) seen in the log. An entry matched only
on INFO lines is context; one matched only on WARN lines is a cause only when it is of kind
"error" (NCCL prints its errors as "NCCL WARN"); a "warning" entry (a hint such as NCCL falling
back to sockets) on an INFO or WARN line is context.
"""

import re

from gpudoctor.explain import explicit as _explicit
from gpudoctor.explain import failshape as _failshape
from gpudoctor.explain import famfix as _famfix
from gpudoctor.explain import gpuhw as _gpuhw
from gpudoctor.explain import provenance as _provenance
from gpudoctor.explain import slots as _slots
from gpudoctor.explain import srunend as _srunend
from gpudoctor.explain.scan import MAX_LINES_KEPT, MAX_SHOWN
from gpudoctor.explain.text import clip as _clip

MAX_SIGNAL_BONUS = 30


def _together(scan, e):
    """(rank, hits, severity) of the best `together` group of entry e found in the log, or None."""
    best = None
    for gi, t in enumerate(e.get("together", [])):
        lists = [scan.parts.get((e["id"], gi, i), []) for i in range(len(t["all"]))]
        if not all(lists):
            continue
        for anchor in lists[0]:
            chosen = [anchor]
            for other in lists[1:]:
                # ordered: each other part on a line after the first part's (a traceback's exception line, then
                # the frames Dynamo lists under it), within the same distance
                near = [h for h in other if abs(h.line - anchor.line) <= t["within"]
                        and (not t.get("ordered") or h.line > anchor.line)]
                if not near:
                    break
                chosen.append(min(near, key=lambda h: abs(h.line - anchor.line)))
            else:
                sevs = [h.severity for h in chosen]
                sev = None if None in sevs else ("warn" if "warn" in sevs else "info")
                rank = t.get("rank", e["rank"])
                cand = (rank, sorted(chosen, key=lambda h: h.line), sev)
                if best is None or (cand[2] is None, cand[0]) > (best[2] is None, best[0]):
                    best = cand
                break
    return best


def _own_assert(scan, hit):
    """Whether a generated site of an assert with no message (level 'assert': its text is the source line
    `assert <condition>`, tools/gen_megatron_messages.py) matched where that assert failed: CPython prints the
    raising frame's source line above a bare 'AssertionError' (Lib/traceback.py: the frame's line, then
    format_exception_only, the bare name when str() is empty), so the line must be the innermost frame's source
    line of a traceback that ends in a bare AssertionError, and that frame's file the site's file. The same words
    in the user's own file, or above another exception (a TypeError raised while the condition was evaluated),
    are not that check failing."""
    from gpudoctor.explain.pytb import MAX_BACK_LINES

    site = hit.pattern.site or {}
    file = str(site.get("where") or "").rsplit(":", 1)[0].replace("\\", "/")
    for tb in scan.tracebacks:
        if not (tb["line"] > hit.line >= (tb.get("header_line") or tb["line"] - MAX_BACK_LINES)) or not tb["frames"]:
            continue
        path = str(tb["frames"][-1][0]).replace("\\", "/")
        src = ((tb.get("src") or [("", None)])[-1][0] or "").strip()
        return (tb["exc"] == "AssertionError" and not tb["msg"] and bool(file) and bool(src)
                and (path == file or path.endswith("/" + file)) and hit.text.strip().endswith(src))
    return False


def _drop_foreign_asserts(scan, matched):
    """Hits of bare-assert sites (_own_assert) where that assert did not fail are no match."""
    for eid in list(matched):
        m = matched[eid]
        gone = {h.line for h in m["hits"] if h.pattern is not None and (h.pattern.site or {}).get("level") == "assert"
                and not _own_assert(scan, h)}
        if not gone:
            continue
        if all(h.line in gone for h in m["hits"]) and m["count"] <= len(m["hits"]) and not m.get("together"):
            del matched[eid]
            continue
        m["hits"] = [h for h in m["hits"] if h.line not in gone]
        m["lines"] = [ln for ln in m["lines"] if ln not in gone]
        m["count"] -= len(gone)


# torch's c10 logger (c10/util/Logging.h, glog's format when built with it: c10/util/logging_is_not_google_glog.h
# MessageLogger prints '[' + "IWEF"[severity] + date time file:line] ') has a level of its own for errors ([E...,
# [F... fatal), so its '[W...' / 'W1126 ...' line is a warning. NCCL has none: it prints its failures at WARN
# (src/debug.cc, NCCL_DEBUG levels VERSION / WARN / INFO / TRACE), and the '-> N' return lines after its WARN are the
# same failure (rootguard.first_in_thread), so an NCCL WARN keeps its place.
_C10_WARN = re.compile(r"\[W(?:\d{4} | )|(?:^|[\s:\]])W\d{4} \d\d:\d\d", re.A)
CONFIG_RECORD_LINES = 8  # lines of a parser's message under a logged record (PyYAML's context / problem / marks)


def _later_error_lines(matched, kb):
    """{entry id: lines at error level (no INFO / WARN marker) that OTHER entries of kind error, not of the cascade
    family, matched}: what
    tells a warning-level line of an error entry from the failure (its first error line, and its kept hits')."""
    own = {}
    for eid, m in matched.items():
        if kb.by_id[eid]["kind"] != "error" or None not in m["ranks"] or kb.by_id[eid].get("family") == "cascade":
            continue  # an error entry of the cascade family (elastic.sigabrt: the abort follows its cause) is no failure
        own[eid] = {m["firsts"][None]} | {h.line for h in m["hits"] if h.severity is None}
    return {eid: [ln for other, lines in own.items() if other != eid for ln in lines] for eid in matched}


def _signals(scan, e, lines):
    """Bonus and the signal hits that earned it."""
    bonus, seen = 0, []
    for p in e["_patterns"]:
        if p.role != "signal":
            continue
        hits = scan.signals.get(p, [])
        if p.near is not None:
            hits = [h for h in hits if any(abs(h.line - ln) <= p.near for ln in lines)]
        if hits:
            bonus += p.weight
            seen.append(hits[0])
    return min(bonus, MAX_SIGNAL_BONUS), seen


SLOT_SIGNAL_REACH = 64  # lines back from a note's first hit where a signal line may still belong to it


def _hit_groups(h):
    """A hit's named groups' values: for a two-line hit, its second line (sinfo -R's first row under its header,
    slurm27), which the hit's shown text (its first line) lacks; a note's {$kind|words} slots read them."""
    return [v for v in (h.groups or {}).values() if isinstance(v, str) and v]


def _slot_signal(scan, e, h):
    """The entry's signal line nearest before a note's first hit h, within SLOT_SIGNAL_REACH lines, for its
    {$kind|words} slots after the hits' own lines: the NodeName= line of the `scontrol show node` block whose
    Reason= line matched (slurm27; -o prints both on one line, shown clipped around the reason). Where the kept
    signal lines stop before the hit (scan keeps MAX_LINES_KEPT), the nearest kept one may be another block's:
    none is read."""
    out = []
    for p in e["_patterns"] if h is not None else ():
        if p.role != "signal":
            continue
        kept = scan.signals.get(p, [])
        before = [x for x in kept if h.line - SLOT_SIGNAL_REACH <= x.line <= h.line]
        if before and not (len(kept) >= MAX_LINES_KEPT and kept[-1].line < h.line):
            out.append(before[-1].text)
    return out


def analyze(scan, kb, assume_error=False):
    """-> (verdict, findings, context). verdict: 'root_cause', 'echo_only', 'no_error' or
    'unknown_error'."""
    matched = {}
    for eid, hits in scan.matches.items():
        if eid.startswith("_"):  # structural lines (knowledge.STRUCTURAL): read by structural() only
            continue
        matched[eid] = {"hits": list(hits), "count": scan.counts[eid], "ranks": dict(scan.rank[eid]),
                        "firsts": dict(scan.first[eid]), "lines": list(scan.match_lines.get(eid, []))}
    for e in kb.entries:
        tg = _together(scan, e)
        if tg:
            rank, hits, sev = tg
            m = matched.setdefault(e["id"], {"hits": [], "count": 0, "ranks": {}, "firsts": {}, "lines": []})
            m["ranks"][sev] = max(m["ranks"].get(sev, rank), rank)
            m["firsts"][sev] = min(m["firsts"].get(sev, hits[0].line), hits[0].line)
            have = {h.line for h in m["hits"]}
            m["hits"] = sorted(m["hits"] + [h for h in hits if h.line not in have], key=lambda h: h.line)[:MAX_SHOWN]
            m["count"] += len([h for h in hits if h.line not in have])
            m["lines"] += [h.line for h in hits]
            m["together"] = True
    for eid, keys in scan.distinct.items():
        for key, values in keys.items():
            if len(values) >= 2:
                hits = sorted(values.values(), key=lambda h: h.line)
                rank = kb.by_id[eid]["rank"]
                m = matched.setdefault(eid, {"hits": [], "count": 0, "ranks": {}, "firsts": {}, "lines": []})
                # two versions in one log is an error whatever the lines' severity
                m["ranks"][None] = max(m["ranks"].get(None, rank), rank)
                m["firsts"][None] = min(m["firsts"].get(None, hits[0].line), hits[0].line)
                m["hits"] = sorted(m["hits"] + hits, key=lambda h: h.line)[:MAX_SHOWN]
                m["count"] += len(hits)
                m["lines"] += [h.line for h in hits]
                m["distinct"] = {"key": key, "values": sorted(values)}
    _drop_foreign_asserts(scan, matched)
    # a line that a hand-written warning entry knows (elastic.ipv6_attempt: c10d's per-address IPv6 attempt, which
    # torch follows with IPv4) is that warning, not an error of the family a generated message site gives it
    # A warning entry with `yields` (slurm.node_reason: any node reason, a note) leaves its lines to the error entries
    # that also match them (Slurm's own reasons: 'Reason=Not responding' is slurm.node_down's root)
    warned = {ln for eid, m in matched.items() if kb.by_id[eid]["kind"] == "warning" and not kb.by_id[eid].get("yields")
              for ln in m["lines"]}
    if warned:
        for eid in [eid for eid, m in matched.items() if kb.by_id[eid]["kind"] != "warning" and m["lines"]
                    and set(m["lines"]) <= warned and not m.get("together") and not m.get("distinct")
                    and all(h.pattern is not None and getattr(h.pattern, "site", None) for h in m["hits"])]:
            del matched[eid]
    # ... and the error words on such lines ('Error From <host>: [W socket.cpp:436] ...' where a log shipper marked it)
    # are not an error nothing explains
    errors = scan.error_count
    if warned:
        # ... and the fields of an Open MPI help banner whose topic is such a warning ('Error message: failed to bind
        # memory' under 'WARNING: ... This is a warning only; your job will continue': helpbanner.py, wrong18)
        from gpudoctor.explain.helpbanner import warned_banners

        warned = warned | warned_banners(scan, warned)
    # ... and a bare line that is the message of a record its program printed at INFO level in the same text (an
    # issue's title quoting NCCL's 'NET/Plugin: Failed to find ncclNetPlugin_v8 symbol.': quoted.py, wrong18)
    from gpudoctor.explain.quoted import intro_lines, quoted_info

    warned = warned | quoted_info(scan, matched)
    if warned:
        warned = warned | intro_lines(scan)  # (the user's sentence that introduces those lines: quoted.py)
    from gpudoctor.explain.makeignored import ignored_lines

    warned = warned | ignored_lines(scan)  # (a command whose failure GNU make ignored, and its output: healthy18)
    from gpudoctor.explain.helpbanner import goes_on_lines

    warned = warned | goes_on_lines(scan)  # (a help banner that says the program goes on: 'We will continue')
    if warned and errors == len(scan.error_lines) and all(ln in warned for ln in scan.error_lines):
        errors = 0
    # a known bug of some NCCL releases (`affects`): only where the log ran one (versions.py)
    from gpudoctor.explain import versions as _versions

    version_notes = _versions.gate(scan, kb, matched)
    # torchrun's failure report: the entry of the signal that ended its first failing rank (elastic.py)
    from gpudoctor.explain import elastic as _elastic

    _elastic.add_signal_entry(scan, kb, matched)
    _retried_lookup(kb, matched)
    # NCCL prints its errors as "NCCL WARN" lines: a WARN line that an entry of kind "error"
    # names is an error; other WARN lines ("Failed to open libibverbs", DeepSpeed's missing
    # hostfile) and every INFO line are context.
    # a traceback the program went on after (a caught exception logged, 'Exception ignored in'): no error
    # when every error line of the text is in one (pyanswer.went_on)
    from gpudoctor.explain import pyanswer as _py

    went_on = _py.went_on(scan)
    if went_on:
        # a generated message site matched only inside an ignored exception's traceback ('Exception ignored in: ...' then
        # multiprocessing's 'AssertionError: can only test a child process' from a DataLoader's __del__) is that
        # traceback's text, which the program went on after: no failure of the site's family
        # (only the interpreter's own 'Exception ignored in:' report, sys.unraisablehook: a traceback logged by a
        # launcher that went on may still be the failure it reports, deepspeed's runner's ValueError)
        spans = [(tb["intro_line"], tb["line"]) for tb in went_on
                 if tb.get("intro_line") and (tb.get("intro") or "").startswith("Exception ignored")]
        for eid in [eid for eid, m in matched.items() if m["lines"] and not m.get("together") and not m.get("distinct")
                    and all(h.pattern is not None and getattr(h.pattern, "site", None) for h in m["hits"])
                    and all(any(a <= ln <= b for a, b in spans) for ln in m["lines"])]:
            del matched[eid]
        # (config18) a parser's refusal of a file or a record (config_files.toml: YAML, JSON, TOML) inside a traceback
        # the program went on after (a dataset that logs a corrupt JSON record and skips it) is not the failure
        spans = [(tb["intro_line"] or tb["header_line"], tb["line"] + 3) for tb in went_on]
        for eid in [eid for eid, m in matched.items() if eid.startswith("config.") and m["lines"]
                    and all(any(a <= ln <= b for a, b in spans) for ln in m["lines"])]:
            del matched[eid]
    # (review18) ... nor one the program logged at its own WARNING or INFO level and went on after ('WARNING:configs:
    # skipping old.json: Expecting property name ...', a PyYAML error's lines under such a record, then
    # 'INFO:configs:2 of 4 configs loaded': healthy18's real run): the program chose the level and went on
    leveled = [h.line for eid, m in matched.items() if eid.startswith("config.") for h in m["hits"]
               if h.severity in ("warn", "info")]
    for eid in [eid for eid, m in matched.items() if eid.startswith("config.") and m["lines"] and leveled
                and all(h.severity in ("warn", "info") or any(0 < h.line - w <= CONFIG_RECORD_LINES for w in leveled)
                        for h in m["hits"])
                and max(m["lines"]) < getattr(scan, "lines", 0) - 1]:
        del matched[eid]
    real_error = (errors > 0 and not went_on) or any(
        (None in m["ranks"] and kb.by_id[eid]["kind"] != "warning") or
        ("warn" in m["ranks"] and kb.by_id[eid]["kind"] == "error") for eid, m in matched.items())
    has_error = assume_error or real_error
    causes, context = [], []
    later_error = _later_error_lines(matched, kb)
    for eid, m in matched.items():
        e = kb.by_id[eid]
        eligible = [s for s in m["ranks"] if s is None or (s == "warn" and (e["kind"] == "error" or has_error
                                                                            and e["kind"] == "echo"))]
        if eligible == ["warn"] and not m.get("together") and not m.get("distinct") and \
                any(ln > m["firsts"]["warn"] for ln in later_error.get(eid, ())) and \
                all(_C10_WARN.search(h.text[:80]) for h in m["hits"] if h.severity == "warn"):
            # a line torch's c10 logger printed at warning level is the root only when nothing at error level
            # follows it: another entry's error line after it is the failure
            eligible = []
        if e["kind"] == "warning":
            # a known warning (NCCL fell back to sockets, Open MPI's openib banner) is a note,
            # never the root cause: with an error nothing explains, the answer stays "unknown"
            eligible = []
        if not eligible:
            context.append(eid)
            continue
        m["rank"] = max(m["ranks"][s] for s in eligible)
        m["first"] = min(m["firsts"][s] for s in eligible)
        m["bonus"], m["signal_hits"] = _signals(scan, e, m["lines"])
        m["score"] = m["rank"] + m["bonus"]
        causes.append(eid)
    tf_note = _tf_cpu_only(scan, kb, matched, causes)
    if tf_note:
        context.extend(causes)
        causes = []
    # A family entry (generic = true: a generated message site, or a phrase that several causes
    # print, such as 'invalid usage') never outranks an entry that names a specific cause.
    # (wrong27) an entry that reports another process's failure (echo_without_evidence: CrashLoopBackOff) is an echo
    # unless the text holds one of its causes' own evidence
    echoes = {eid for eid in causes if kb.by_id[eid]["kind"] == "echo" or (
        kb.by_id[eid].get("echo_without_evidence") and
        not any(scan.evidence.get((eid, ci)) for ci in range(len(kb.by_id[eid]["causes"]))))}
    order = sorted(causes, key=lambda eid: (eid in echoes, bool(kb.by_id[eid].get("generic")),
                                             -matched[eid]["score"], matched[eid]["first"]))
    from gpudoctor.explain import rootguard as _guard

    order = _guard.first_in_thread(order, matched, kb.by_id)  # a thread's first NCCL WARN is its root (rootguard.py)
    order, gone = _guard.outside_component(order, matched, kb.by_id, scan)  # its line, another library's traceback
    context.extend(gone)
    order, gone = _guard.structured_warning(order, matched, kb.by_id)  # a zap / logrus / slog warn record (rootguard.py)
    context.extend(gone)
    order, gone = _guard.other_librarys_site(order, matched, kb.by_id, scan)  # another library raised it (rootguard.py)
    context.extend(gone)
    order, gone = _guard.longer_message(order, matched, kb.by_id)  # (wrong20) a longer message than the site's
    context.extend(gone)
    order, gone = _guard.help_topic_continued(order, matched, kb.by_id, scan)  # (wrong20) a help topic's next line
    context.extend(gone)
    order, gone = _guard.srun_ended_step(order, matched, kb.by_id, scan)  # (wrong27) srun's own kill of its step
    context.extend(gone)
    from gpudoctor.explain import ocirt as _ocirt

    order = _ocirt.runtime_line_first(order, matched, kb.by_id)  # a container engine's own line leads (ocirt.py)
    alone = None
    if not causes and not real_error:
        # a warning the user asks about because it says something failed ('There was an error
        # initializing an OpenFabrics device'), with nothing else wrong in the text: the answer,
        # marked as a warning (root_when_alone); only on a line that says so, never an INFO line
        # (or, with resolved_by, whose wait the text never shows ended: srun's step retries, explain/waits.py)
        from gpudoctor.explain import waits as _waits

        from gpudoctor.explain.helpbanner import says_it_goes_on

        alone = max((eid for eid in context if kb.by_id[eid].get("root_when_alone")
                     and not says_it_goes_on(scan, matched[eid]["lines"])  # (its banner: 'your job will continue')
                     and (any(h.severity != "info" and any(w in h.text.lower() for w in _FAILURE_WORDS)
                              for h in matched[eid]["hits"]) or _waits.unresolved(scan, kb.by_id[eid], matched[eid]))),
                    key=lambda eid: (kb.by_id[eid]["rank"], -min(matched[eid]["firsts"].values())), default=None)
        if alone:
            m = matched[alone]
            sevs = [s for s in m["ranks"] if s != "info"]
            m["rank"] = max(m["ranks"][s] for s in sevs)
            m["first"] = min(m["firsts"][s] for s in sevs)
            m["bonus"], m["signal_hits"] = _signals(scan, kb.by_id[alone], m["lines"])
            m["score"] = m["rank"] + m["bonus"]
            context.remove(alone)
    findings = []
    if alone:
        f = _finding(kb.by_id[alone], matched[alone], "root", scan)
        f["notes"].insert(0, _waits.still_waiting(scan, kb.by_id[alone], matched[alone]) or
                          "A warning, not an error: nothing else in this text failed, so this is what to act on; "
                          "the job may have run on (if it failed, its error is in another log).")
        findings.append(f)
    for i, eid in enumerate(order):
        e = kb.by_id[eid]
        role = "root" if i == 0 else ("cascade" if eid in echoes else "related")
        findings.append(_finding(e, matched[eid], role, scan))
        if eid in echoes:
            findings[-1]["kind"] = "echo"
    notes = []
    for eid in sorted(context, key=lambda x: min(matched[x]["firsts"].values())):
        e, m = kb.by_id[eid], matched[eid]
        h = m["hits"][0] if m["hits"] else None
        sev = "info" if set(m["ranks"]) == {"info"} else ("warn" if "warn" in m["ranks"] else "warning")
        note, fix = (e.get("note") or e["title"]).strip(), e["causes"][0]["fix"][0]
        site = getattr(h.pattern, "site", None) if h is not None and h.pattern is not None else None
        if site and site.get("fix") and e["kind"] != "warning":
            # the generated site's own meaning and fix, its line's values filled (as a root's first cause), for an
            # entry written for a failure (a known warning's note and fix are written for that warning):
            # NCCL's INFO 'NET/Plugin: Could not find: libnccl-net.so. Using internal net plugin.' read the
            # entry's 'failed to load or to initialise' and its aws-ofi-nccl fix on a healthy log
            note, fixes, _ = _slots.fill(site, h.text)
            note, fix = " ".join(str(note).split()), fixes[0] if fixes else fix
        elif site and e.get("generic"):
            # a site of a family entry (generic) without a fix of its own: the entry's first fix is for the
            # family's failure, not this INFO/WARN line ('Topology detection : could not read ...
            # max_link_speed, ignoring' read 'unset NCCL_GRAPH_FILE / NCCL_TOPO_FILE'); "" as a note without a fix
            # has it (symptoms._note), so the JSON's fix stays a string
            fix = ""
        if "{$" in note or "{$" in fix:  # a hand-written entry's {$kind|words} slots, filled as a root's (famfix.py)
            lines = [y for x in m["hits"] for y in [x.text] + _hit_groups(x)] + _slot_signal(scan, e, h)
            note, fix = _famfix.fill(note, lines), _famfix.fill(fix, lines)
        notes.append({"id": eid, "severity": sev, "note": note,
                      "fix": fix, "first_line": h.line if h else None,
                      "text": h.text if h else None, "match_count": m["count"]})
    if tf_note:
        # one note for the dlerror lines (the entry that names the DSO loader, else the first), with the fix
        keep = tf_note["id"]
        notes = [dict(n, note=tf_note["note"], fix=tf_note["fix"] or n["fix"]) if n["id"] == keep else n
                 for n in notes if n["id"] == keep or n["id"] not in tf_note["ids"]]
    notes.extend(_py.went_on_notes(went_on, kb))
    restart = _first_attempt_end(scan, matched)
    if restart is not None and findings and findings[0]["kind"] != "echo" and findings[0]["first_line"] > restart:
        findings = _first_attempt_first(scan, kb, findings, restart)
    if findings and findings[0]["kind"] == "echo":
        # only a launcher's echo matched (DeepSpeed's '... exits with return code = 1',
        # torchrun's ChildFailedError): the rank's own exception earlier in the text may still
        # name the family by its shape, as it would without the echo; the echo follows it. A rank that failed in a
        # collective its peers had ended without calling is their different collectives (rootguard.peer_finished)
        got = _guard.peer_finished(scan, kb) or _beside_echo(scan, kb)
        if got:
            findings[0]["role"] = "cascade"
            findings.insert(0, got)
    from gpudoctor.explain import outcome as _outcome  # what the job did after its failure lines (outcome.py)

    findings, went_past = _outcome.past_warnings(scan, findings, lambda: structural(scan, kb), _went_on_before)
    notes.extend(went_past)
    # (fp24) ... and one that stands only on logging records its program went on after (caught, retried, logged)
    findings, went_past = _outcome.past_records(scan, findings, lambda: structural(scan, kb), _went_on_before)
    notes.extend(went_past)
    done = _completed(scan, findings)
    if done is None and (findings or errors):
        done = _outcome.went_on(scan, findings)
    from gpudoctor.explain import k8s as _k8s

    findings, undone, k8s_done = _k8s.resolved(scan, findings)  # a Warning event a later Normal event undid (k8s.py)
    notes.extend(undone)
    done = done if done is not None or findings else k8s_done
    from gpudoctor.explain import torchwarn as _torchwarn

    if done is None and findings and not errors and all(_torchwarn.fell_back(f) for f in findings):
        # (wrong18) torch's TORCH_WARN that it took a fallback, with nothing else failed: what it went on after
        notes.extend(_torchwarn.note(f) for f in findings)
        findings = []
    if done is not None:
        # every error of the text came before the run said it completed: it went on after them
        notes.extend(_went_on_before(f, done) for f in findings)
        findings = []
    if findings:
        verdict = "echo_only" if findings[0]["kind"] == "echo" else "root_cause"
        if verdict == "echo_only" and done is None and (_failshape._answer_hit(scan) or ("",))[0] == "notfound":
            # (exec29) an echo (pdsh's / a launcher's 'exited with exit code 127') beside the failure line it echoes
            # in a shape failshape.py reads (a shell's 'command not found'): that line is the root, the echo its echo
            got = structural(scan, kb)
            if got and got["kind"] != "echo":
                findings.insert(0, got)
                for f in findings[1:]:
                    f["role"] = "related" if f.get("role") == "root" else f.get("role")
                verdict = "root_cause"
        if verdict == "echo_only":
            findings[0]["notes"].append("Only the echo of a failure was found: the error that started it is earlier "
                                        "in the full log or in another rank's log.")
    elif done is None and ((errors and not went_on) or (has_error and not notes) or _failure_warn(scan)
                           or scan.matches.get("_struct_watchdog") or _mpi_failures(scan) or _failshape.seen(scan)
                           or _explicit.seen(scan)):
        # an error line nothing explains; or text given as an error (an argument) that matched
        # nothing at all. An argument that is a known INFO/WARN line gets its note instead.
        # The log's shape may still name the family (structural()): never "no known error" for
        # an NCCL WARN failure line, a Slurm daemon's fatal line or a Python exception.
        verdict = "unknown_error"
        got = structural(scan, kb)
        if got:
            findings.append(got)
            verdict = "echo_only" if got["kind"] == "echo" else "root_cause"
    else:
        verdict = "no_error"
    if verdict == "echo_only" and findings:
        from gpudoctor.explain import execstatus as _execstatus

        why = _execstatus.note(findings[0])  # (exec29) 126 / 127: the shell or wrapper that could not start it
        if why:
            findings[0]["notes"].append(why)
    if verdict == "root_cause":  # (wrong20) EEXIST from makedirs(exist_ok=True): a path that is no directory
        findings = _guard.not_a_directory_root(findings, scan, kb)
        _guard.wdir_first_cause(findings, scan)  # (wrong20) Open MPI's working-directory topic: its fields' mkdir
    for f in findings:
        if f["id"] in version_notes:
            f["notes"].insert(0, version_notes[f["id"]])
        e = kb.by_id[f["id"]]
        f.setdefault("confidence", _confidence(e, f))
        how = HOW_SURE.get(f["confidence"]) if f["confidence"] == "family" else None
        if how and f["role"] == "root":
            f["notes"].insert(0, how)
            if e.get("by_evidence"):
                f["notes"].insert(1, _tell_apart(e))
        elif e.get("by_evidence") and f["role"] == "root" and f["causes"][0]["evidence"] and \
                f["confidence"] != "structural":
            # (wrong17) not where no message matched: a family read from the text's shape says 'How sure: low' itself
            ev = f["causes"][0]["evidence"][0]
            f["notes"].insert(0, "How sure: high. The message names the family; the line '%s' names the cause below."
                              % _clip(ev["text"], 160))
    _k8s.order(findings, kb.by_id)  # Kubernetes' '0/N nodes are available': the reason with most nodes first (k8s.py)
    _famfix.finish(findings, HOW_SURE["family"])  # which cause a family's line points at, names (famfix.py)
    from gpudoctor.explain import userline as _userline

    _userline.fill(scan, findings)  # the user's own line the traceback ends in, by the API it calls (userline.py)
    from gpudoctor.explain import opfix as _opfix

    _opfix.fill(scan, findings)  # the operation, values and line the message names, as the concrete fix (opfix.py)
    from gpudoctor.explain import libarg as _libarg

    _libarg.fill(scan, findings)  # the argument of that line a library refused, when its message names it (libarg.py)
    from gpudoctor.explain import slurmscript as _slurmscript

    _slurmscript.fill(scan, findings)  # a batch script's edit, a Slurm job's id in the fix lines (slurmscript.py)
    from gpudoctor.explain import clidocs as _clidocs

    _clidocs.fill(scan, findings)  # the man page's constraint of the option a tool refused (clidocs.py)
    from gpudoctor.explain import choices as _choices

    _choices.fill(scan, findings)  # the listed value closest to the one the message refused, as the edit (choices.py)
    from gpudoctor.explain import valuedomain as _valuedomain

    _valuedomain.fill(scan, findings)  # a pydantic error's or a stated range's domain and closest value (valuedomain.py)
    from gpudoctor.explain import outdir as _outdir

    _outdir.fill(scan, findings)  # a file written into a folder that does not exist: the folder to make (outdir.py)
    from gpudoctor.explain import oldrelease as _oldrelease

    _oldrelease.fill(scan, findings)  # later NCCL releases that fixed failures of the root's kind (oldrelease.py)
    findings = _gpuhw.fold(findings)  # one root per GPU: the same GPU's other hardware lines are its notes
    late = late_rank(scan) if findings else None
    f = next((f for f in findings if any(t in f["id"] for t in ("timeout", "watchdog"))), None)
    if late and f:
        f["late_rank"] = late
        f["notes"].insert(0, late["text"])
    # a note on a line that a finding answers as an error contradicts it: 'ValueError: No slot '1' specified on host
    # 'localhost'' was deepspeed.launcher's root and also code.caught_exception's 'not a failure of the run'; torch's
    # repeated 'network addresses of (gpu-node-017, 29500) cannot be retrieved' the root rendezvous.hostname and a
    # note 'harmless when the job runs on'. The finding's reading stands; the note goes.
    answered = {h["line"] for f in findings if f["role"] != "cascade" for h in f["matches"]}
    notes = [n for n in notes if n.get("first_line") is None or n["first_line"] not in answered]
    from gpudoctor.explain import valuedomain as _vd

    _vd.fill_notes(notes)  # the variable torch ignored: its accepted values (valuedomain.py)
    return verdict, findings, notes


# TensorFlow's DSO loader line: 'Could not load dynamic library 'libcudart.so.11.0'; dlerror: ...'
# (tensorflow/stream_executor/platform/default/dso_loader.cc), and on Windows 'cudart64_110.dll'
_TF_DLERROR = re.compile(r"Could not load dynamic library '[^'\n]{1,80}'; dlerror")


def _tf_cpu_only(scan, kb, matched, causes):
    """TensorFlow's CPU-only start-up: its DSO loader's dlerror lines, then its own
    'Ignore above cudart dlerror if you do not have a GPU set up on your machine.' (cudart_stub.cc,
    https://github.com/tensorflow/tensorflow/blob/v2.11.0/tensorflow/compiler/xla/stream_executor/cuda/cudart_stub.cc),
    which TensorFlow prints on every machine without a GPU. When every cause and every error line of
    the text is such a dlerror line, nothing else failed: {entry id: its note} (they become notes,
    with their fix for the user who has a GPU and wants it used): {id, ids, note, fix}; else None."""
    stub = scan.matches.get("_struct_tf_cudart_stub")
    if not stub or not causes:
        return None
    dso = {h.line for eid in causes for h in matched[eid]["hits"] if _TF_DLERROR.search(h.text)}
    if not dso:
        return None
    if scan.error_count > len(scan.error_lines) or any(ln not in dso for ln in scan.error_lines):
        return None
    if any(ln not in dso for eid in causes for ln in matched[eid]["lines"]):
        return None
    keep = "libload.dso" if "libload.dso" in causes else causes[0]
    text = next(h.text for h in matched[keep]["hits"] if _TF_DLERROR.search(h.text))
    e = kb.by_id[keep]
    # the fix of the cause whose evidence the dlerror line shows (libcuda.so: the driver), else of the first cause
    # without evidence (the CUDA runtime / cuDNN of that version is not installed)
    cause = next((c for c in e["causes"] if any(re.search(p, text) for p in c.get("evidence") or [])), None) or \
        next((c for c in e["causes"] if not c.get("evidence")), e["causes"][0] if e["causes"] else None)
    fix = cause["fix"][0] if cause and cause.get("fix") else ""
    return {"id": keep, "ids": set(causes), "fix": fix,
            "note": "TensorFlow could not load a CUDA library, then said to ignore that if this machine has no GPU "
                    "(line %d, tensorflow's cudart_stub.cc): it runs on the CPU. Act on it only if this machine has a "
                    "GPU that TensorFlow should use." % min(h.line for h in stub)}


# torchrun's agent ends each attempt of the worker group with one line per failed worker (torch/distributed/elastic/
# multiprocessing/api.py, PContext / SubprocessContext: logger.error("failed (exitcode: %s) local_rank: %s (pid: %s)
# of binary: %s", ...)); with --max-restarts N it then restarts the group (elastic/agent/server/api.py _invoke_run:
# "[%s] Worker group %s. %s/%s attempts left; will restart worker group", an INFO line torchrun does not show by
# default), so a second such line of another pid is a later attempt
_ATTEMPT_END = re.compile(r"failed \(exitcode: -?\d{1,4}\) local_rank: \d{1,6} \(pid: (\d{1,10})\)")
# the agent's own pid in the glog-style prefix torch's logging prints ('E1126 06:17:53.419000 655 torch/distributed/...')
_AGENT_PID = re.compile(r"^\[?[EWI]\d{4} [\d:.]{8,20} (\d{1,10}) torch/distributed/elastic/")


def _source_of(scan, line):
    return max((i for i, s in enumerate(scan.sources) if s.get("first_line", 1) <= line), default=0)


# c10d's per-attempt lookup warning with a resolver error (socket.cpp SocketConnectOp::tryConnect: recordError, then
# retry = true: the op sleeps its backoff and looks the name up again until the connect deadline); glibc's gai_strerror
# texts of EAI_NONAME, EAI_AGAIN, EAI_NODATA, EAI_FAIL
_GAI_RETRY = re.compile(r"network addresses of \((?P<host>[^\n]{1,120}?), \d{1,5}\) cannot be retrieved \(gai error: -?\d{1,3} - "
                        r"(?:Name or service not known|Temporary failure in name resolution|No address associated with "
                        r"hostname|Non-recoverable failure in name resolution)")
RETRIED = 3  # the same name's lookup failing this many times is the retry loop failing, not one attempt


def _retried_lookup(kb, matched):
    """rendezvous.c10d_attempt_warning's lookup line repeated for the same host (RETRIED times or more): c10d is not
    going on after one failed attempt, it is retrying the same lookup until its deadline (the job hangs there, or
    times out later), so the name does not resolve: the lines are rendezvous.hostname's, an error."""
    m = matched.get("rendezvous.c10d_attempt_warning")
    if not m or "rendezvous.hostname" not in kb.by_id or "rendezvous.hostname" in matched:
        return
    hosts = {}
    for h in m["hits"]:
        g = _GAI_RETRY.search(h.text)
        if g:
            hosts.setdefault(g.group("host"), []).append(h)
    hits = max(hosts.values(), key=len, default=[])
    if len(hits) < RETRIED:
        return
    rank = kb.by_id["rendezvous.hostname"]["rank"]
    matched["rendezvous.hostname"] = {"hits": list(hits), "count": len(hits), "ranks": {None: rank},
                                      "firsts": {None: hits[0].line}, "lines": [h.line for h in hits]}


def _first_attempt_end(scan, matched):
    """The line of the first 'failed (exitcode ...)' of torchrun's agent when the text holds a later attempt of the
    same agent (a second such line, of another worker pid, after it in the same input and, where the prefix shows
    it, from the same agent process: the agent restarted the workers); else None. Two nodes' agents (per-node
    files, or two agents' lines in one paste) are not restarts."""
    m = matched.get("cascade.child_failed")
    if not m:
        return None
    ends = []
    for h in m["hits"]:
        g = _ATTEMPT_END.search(h.text)
        if g:
            a = _AGENT_PID.search(h.text)
            ends.append((h.line, g.group(1), a.group(1) if a else None, _source_of(scan, h.line)))
    if len(ends) < 2:
        return None
    ends.sort()
    first_line, _, agent, src = ends[0]
    # the same attempt's failed workers are printed together, one line each (the poll that found them): the first
    # attempt's block ends at the last of those consecutive lines; a pid of the first attempt does not come back
    block_end, pids = first_line, set()
    for ln, pid, _ag, _sr in ends:
        if ln > block_end + 2:
            break
        block_end = ln
        pids.add(pid)
    later = [ln for ln, pid, ag, sr in ends if ln > block_end + 2 and pid not in pids and sr == src and ag == agent]
    return first_line if later else None


def _first_attempt_first(scan, kb, findings, restart):
    """The root of a text in which torchrun restarted its workers (--max-restarts) is the first attempt's error:
    the restarted group fails again from the same cause or from the first attempt's remains (the other ranks of
    a half-started group refuse connections, a port is still held), and torchrun's final report speaks of the
    last attempt only. An error of the first attempt (before its 'failed (exitcode ...)' line) goes first: a
    matched entry, else the first attempt's own exception read from its shape; the later attempts' errors
    follow as related."""
    early = [f for f in findings if f["kind"] != "echo" and f["first_line"] < restart]
    if early:
        head = early[0]
    else:
        head = structural(scan, kb)
        if not head or head["kind"] == "echo" or head["first_line"] >= restart:
            return findings
        head["role"] = "root"
    rest = [f for f in findings if f is not head]
    for f in rest:
        if f["role"] == "root":
            f["role"] = "related"
    head["role"] = "root"
    head["notes"].append("torchrun restarted the workers after this (a second 'failed (exitcode ...)' of the agent "
                         "after line %d: --max-restarts): this is the first attempt's error. The later attempts' "
                         "errors (a refused connection of the half-started group, a port still held) follow from it "
                         "or from its remains, and torchrun's final report names only the last attempt." % restart)
    return [head] + rest


def _completed(scan, findings):
    """(line, text) of the line that says the run completed (knowledge.STRUCTURAL's _struct_completed), when
    every error line of a one-process text and every line of its findings come before it; else None. A
    several-process text (ranks, files) is left as it is: one rank's end says nothing of the others."""
    done = scan.matches.get("_struct_completed")
    if not done or getattr(scan, "several", False) or len(scan.sources) > 1:
        return None
    from gpudoctor.explain.outcome import _TERMINAL

    if any(_TERMINAL.search(h.text or "") for h in scan.errors):
        return None  # a launcher said the job failed (srun's 'Exited with exit code', ...): no end line undoes it
    last = max(done, key=lambda h: h.line)
    lines = list(scan.error_lines) + [h["line"] for f in findings for h in f["matches"]]
    if scan.error_count > len(scan.error_lines) or any(ln >= last.line for ln in lines):
        return None
    return last.line, last.text


def _went_on_before(f, done):
    said = "printed before the run completed (line %d: %s), so it did not end the run"
    if len(done) > 2 and done[2] == "progress":  # (outcome.went_on: the job's progress after it)
        said = "printed, then the job went on (line %d: %s): not what stopped it"
    return {"id": f["id"], "severity": "warning",
            "note": ("%s: " + said + "; act on it only if its result matters.") % (f["title"], done[0], done[1][:120]),
            "fix": f["causes"][0]["fix"][0] if f["causes"] and f["causes"][0]["fix"] else "",
            "first_line": f["first_line"], "text": f["matches"][0]["text"] if f["matches"] else None,
            "match_count": f["match_count"]}


_PG_OF = re.compile(r"\[PG ID (\d{1,9}) PG GUID ([^\s\]]{1,120}) Rank \d")
_WATCHDOG_OP = re.compile(r"WorkNCCL\(SeqNum=(-?\d{1,18}), OpType=(\w{1,40})")


def late_rank(scan):
    """From the process-group status lines of several ranks (knowledge.STRUCTURAL's
    _struct_pg_status): the rank whose last enqueued collective is below the one another rank of
    the same process group timed out in, as a dict (rank, seq, op, pg, waiting, confidence, text);
    None when the lines show no such rank (every rank enqueued it: a mismatch or a slow
    collective, not a rank that never called it). Less sure than Flight Recorder dumps: the
    numbers are counted per process group, and a rank's line is printed when it is told to dump."""
    timed, enq = {}, {}  # pg -> {rank: timed-out seq}, pg -> {rank: highest last-enqueued seq}
    for h in scan.matches.get("_struct_pg_status", []):
        m = _PG_OF.search(h.text)
        pg = m.group(2).replace("(", " (", 1) if m else "?"  # the GUID, as Flight Recorder names it: 0 (default_pg)
        rank, e = int(h.groups["rank"]), int(h.groups["enq"])
        enq.setdefault(pg, {})[rank] = max(enq.get(pg, {}).get(rank, e), e)
        if h.groups.get("seq") is not None:
            timed.setdefault(pg, {})[rank] = int(h.groups["seq"])
    for pg in sorted(timed):
        seq = min(timed[pg].values())  # the first collective a rank of this group timed out in
        behind = sorted(r for r, e in enq[pg].items() if e < seq)
        if not behind:
            continue
        waiting = sorted(r for r, s in timed[pg].items() if s == seq and r not in behind)
        ops = {m.group(2) for h in scan.matches.get("nccl.timeout", []) for m in [_WATCHDOG_OP.search(h.text)]
               if m and int(m.group(1)) == seq}
        op = ops.pop() if len(ops) == 1 else "?"
        who = ", ".join("rank %d" % r for r in behind[:8]) + (" and %d more" % (len(behind) - 8)
                                                               if len(behind) > 8 else "")
        text = ("Likely late rank (read from the ranks' process-group status lines; less sure than Flight Recorder "
                "dumps): %s never enqueued collective #%d (%s) of process group %s that %s waits in (last enqueued: "
                "%s): look at what %s did instead - eval/save/logging on one rank only, an early return, a "
                "data-dependent branch." % (who, seq, op, pg, ", ".join("rank %d" % r for r in waiting[:8]) or
                                            "another rank", ", ".join("rank %d: %d" % (r, enq[pg][r])
                                                                      for r in behind[:8]),
                                            "that rank" if len(behind) == 1 else "those ranks"))
        return {"rank": behind[0], "ranks": behind[:64], "seq": seq, "op": op, "pg": pg, "waiting": waiting[:64],
                "confidence": "log", "text": text}
    return None


# How sure an answer is (each finding's "confidence"):
#   cause       an entry whose patterns are the specific text of one cause (or few, told apart
#               by the log's evidence)
#   family      a generic entry: the message names what failed, not why; its causes are the
#               ways to tell the possibilities apart
#   structural  nothing matched: the family comes from the log's shape (the NCCL WARN line,
#               the exception type, the file that raised it)
HOW_SURE = {
    # every note starts with its level (high / medium / low), as symptoms.py, ncclinfo.py, hang.py and versions.py
    # write theirs: this one read 'How sure: the family is certain ...' beside 'How sure: medium. ...'
    "family": "How sure: medium. The family is certain from the message; the cause is not: the causes below are "
              "the possibilities and how to tell them apart.",
    "structural": "How sure: low. No known message matched; the family is read from the log's shape (%s). "
                  "Confirm it with the commands below before acting.",
    # a traceback that ends in the user's own file with a plain Python exception, or argparse's refusal:
    # the shape is exact, the cause is the program's own (its code, data or command line)
    "structural_medium": "How sure: medium. No known message matched; the family is read from the text's shape "
                         "(%s), which names where the error was raised, not a cluster cause.",
}


SOURCES = {"nccl_messages": "NCCL", "cuda_errors": "CUDA", "nvml": "NVML", "errno": "the C library (errno)",
           "slurm_errors": "Slurm", "slurm_messages": "Slurm", "slurm_reasons": "Slurm", "gloo_messages": "Gloo",
           "ompi_help": "Open MPI",
           "launcher_messages": "the launcher", "cuda_libs": "the CUDA libraries", "mpich_messages": "MPICH",
           "horovod_messages": "horovod", "ompi_messages": "Open MPI", "prrte_help": "PRRTE (Open MPI 5's runtime)",
           "pmix_errors": "PMIx",
           "nvrm_messages": "the NVIDIA kernel driver (NVRM)", "dcgm_errors": "DCGM",
           "framework_libs": "a framework's CUDA library loading", "torch_core_messages": "torch",
           "nvidia_smi_messages": "nvidia-smi", "apptainer_messages": "Apptainer", "ucc_messages": "UCC",
           "ray_messages": "Ray", "megatron_messages": "Megatron-LM / Megatron-Core", "oci_messages": "the container runtime (podman, docker, runc, crun, conmon, CDI)",
           "trainer_messages": "the training library (DeepSpeed, accelerate, transformers, PEFT)",
           "vllm_messages": "vLLM", "sglang_messages": "SGLang",
           "lightning_messages": "Lightning (PyTorch Lightning, Lightning Fabric) or torchmetrics",
           "triton_messages": "Triton (or the compiler and linker of the launcher it builds)",
           "compile_messages": "torch", "hflibs_messages": "the training library (datasets, TRL, bitsandbytes)",
           "arrow_messages": "Apache Arrow (under datasets)",
           "placement_messages": "the launcher or runtime (TensorRT-LLM, Llama's runner, fairscale, ColossalAI)"}


def _confidence(e, f=None):
    """family: a generic entry, or one whose message names only the family (by_evidence: an
    NCCL result code, 'invalid usage', 'remote process exited or there was a network error')
    and no cause's own evidence is in the log; cause: otherwise. A generic entry that is also
    by_evidence (errno's families: the path or call in the log names the cause) is a cause when
    a cause's evidence is there."""
    if e.get("generic") and not (e.get("by_evidence") and f and any(c["evidence"] for c in f["causes"])):
        return "family"
    if e.get("by_evidence") and not (f and any(c["evidence"] for c in f["causes"])):
        return "family"
    return "cause"


def _tell_apart(e):
    """The note of a family answer: the lines that tell its causes apart, and how to get them."""
    rerun = "; ".join(e["debug"][:1]) or "rerun with NCCL_DEBUG=INFO"
    return ("The message alone does not say which cause: the line printed just before it does. Each cause below "
            "says what to look for (confirm:); if the log has no such line, rerun with %s%s"
            % (rerun, "" if rerun.endswith((".", "?", ")")) else "."))


_FAILURE_WORDS = ("fail", "error", "could not", "cannot", "unable", "invalid", "mismatch", "timeout", "timed out",
                  "abort", "refused", "denied", "not found")


def _failure_warns(scan):
    """NCCL WARN lines that say something failed (NCCL prints its errors as WARN lines) and that
    no entry knows (a known warning such as 'Failed to open libibverbs' stays a note)."""
    known = set()
    for eid, lines in scan.match_lines.items():
        if not eid.startswith("_"):
            known.update(lines)
    return [h for h in scan.matches.get("_struct_nccl_warn", []) if h.line not in known
            and any(w in (h.groups.get("msg") or "").lower() for w in _FAILURE_WORDS)]


def _failure_warn(scan):
    return bool(_failure_warns(scan))


# An NCCL WARN line nothing matched -> the family its words name (the same split as the rules
# table of tools/gen_nccl_messages.py, for messages of NCCL versions it did not read).
_NCCL_WORDS = [
    (("dmabuf", "dma-buf"), "nccl.dmabuf"),
    (("shared memory", "/dev/shm", "shm"), "shm.size"),
    (("plugin", "dlopen", "dlsym"), "nccl.net_plugin"),
    (("net/ib", "ibv_", "verbs", "mlx5", "roce", "gid"), "nccl.net_ib"),
    (("cuda", "cumem"), "nccl.unhandled_cuda_error"),
    (("topo", "xml", "net with id", "pci"), "nccl.topology"),
    (("socket", "bootstrap", "connect", "recv", "send", "proxy"), "nccl.net_socket"),
    (("alloc", "memory"), "nccl.memory"),
]
# a message that names an NCCL_* variable is about that setting only when it says the value is wrong;
# "set NCCL_DEBUG=INFO for details" or "set NCCL_X=1 to continue" is advice, not the cause
_SETTING_WRONG = ("invalid", "unknown", "ignored", "ignoring", "not supported", "out of range", "unrecognized",
                  "cannot be used", "deprecated")
_MISMATCH = ("mismatch", "differ", "do not match", "does not match")
_BETWEEN_RANKS = ("collective", "size", "count", "opcount", "seq", "rank")


def _nccl_family(msg):
    """The family an NCCL WARN line nothing matched names by its words (the same split as the
    rules table of tools/gen_nccl_messages.py); nccl.internal_error when none."""
    if any(w in msg for w in _MISMATCH) and any(w in msg for w in _BETWEEN_RANKS) and "version" not in msg:
        return "nccl.collective_mismatch"
    if "version" in msg and any(w in msg for w in _MISMATCH):
        return "nccl.version_mismatch"
    got = next((e for words, e in _NCCL_WORDS if any(w in msg for w in words)), None)
    if got:
        return got
    if "nccl_" in msg and any(w in msg for w in _SETTING_WRONG):
        return "nccl.config"
    return "nccl.internal_error"
# an exception type nothing matched -> a family (the innermost library decides the rest)
_EXC_FAMILY = [
    (("EnforceNotMet", "gloo"), "gloo.enforce"),
    (("ConnectionRefusedError", "ConnectionError", "ConnectionResetError"), "rendezvous.connect"),
    (("TimeoutError", "DistStoreError"), "errno.timeout"),
    (("PermissionError",), "errno.permission"),
    (("MemoryError",), "errno.enomem"),
    # (torch's elastic rendezvous replaces a missing python-etcd with a stub whose every call raises EtcdStubError, an
    # ImportError: torch/distributed/elastic/rendezvous/_etcd_stub.py, 'class EtcdStubError(ImportError)', imported by
    # etcd_rendezvous.py 'except ModuleNotFoundError: from . import _etcd_stub as etcd'; family16)
    (("ModuleNotFoundError", "ImportError", "EtcdStubError"), "code.python_env"),
    (("OutOfMemoryError",), "cuda.oom"),
    # Python's float error, raised by a training loop's own check ('loss is inf') or by numpy's errstate(raise)
    (("FloatingPointError",), "usercode.nan_inf"),
]


def _foreign_class(exc):
    """Whether an exception's name is another package's class of that name: CPython prints a builtin exception
    unqualified ('ConnectionRefusedError: ...') and any other with its module (Lib/traceback.py
    format_exception_only: the module unless it is 'builtins' or '__main__'), so 'requests.exceptions.ConnectionError'
    is the HTTP client's, not the OS's connection error torch's store raises; torch's own classes stay torch's."""
    mod = exc.rpartition(".")[0]
    return bool(mod) and mod.split(".", 1)[0] not in ("torch", "builtins", "__main__")


# the torch.distributed module whose frame is innermost -> a family (torch/distributed/...)
_TORCHDIST = {
    "elastic/rendezvous": "rendezvous.connect", "rendezvous": "rendezvous.connect",
    # the elastic agent / launcher report a worker that failed: the echo of the rank's own error
    "elastic/agent": "cascade.child_failed", "elastic/multiprocessing": "cascade.child_failed",
    "run": "cascade.child_failed", "launch": "cascade.child_failed",
    # the Python layer of the API (init_process_group, new_group, the collectives): its argument checks, and a
    # backend's refusal of the call it passes on ('ProcessGroupGloo::broadcast: invalid root rank'), the
    # sources torch.distributed_usage names (launcher.toml)
    "distributed_c10d": "torch.distributed_usage",
    # DTensor's public package and DeviceMesh (torch/distributed/tensor/, torch/distributed/device_mesh.py, torch >= 2.4):
    # their checks refuse the placements / mesh the user's call passed (distribute_tensor, DTensor.from_local,
    # parallelize_module), as the Python layer's argument checks do
    "tensor": "torch.distributed_usage", "device_mesh": "torch.distributed_usage",
    # a launcher's own package: its launch failed (deepspeed/launcher/runner.py, accelerate launch)
    "deepspeed/launcher": "launcher.deepspeed_error", "deepspeed/ops": "deepspeed.ops",
    "accelerate/commands": "launcher.accelerate_error",
}


def structural(scan, kb):
    """A finding for a log with an error that no entry explains, from its shape (how sure: low):
    the first NCCL WARN failure line, a Slurm daemon's fatal/error line, the exception type and
    the library whose file raised it. None when the shape names nothing; srun's report of how a task
    ended, last (srunend.py)."""
    return _structural(scan, kb) or _srunend.finding(scan, kb, _structural_finding)


def _structural(scan, kb):
    by = kb.by_id
    warn = _failure_warns(scan)
    if warn:
        msg = (warn[0].groups.get("msg") or "").lower()
        eid = _nccl_family(msg)
        return _structural_finding(by[eid], warn[0], "the NCCL WARN line before the error", scan)
    # (noans22) srun's report of how a task ended is the task's echo, not Slurm's error (srunend.py): read last
    slurm = [h for h in scan.matches.get("_struct_slurm", []) if not _srunend.task_end(h)]
    from gpudoctor.explain import rootguard as _guard

    killed = _guard.srun_killed(scan)  # (wrong27) a step's CANCELLED line srun's own kill caused: the task's echo
    slurm = [h for h in slurm if not killed(h)] if killed else slurm
    if slurm:
        return _structural_finding(by["slurm.error"], slurm[0], "a Slurm %s line" % slurm[0].groups.get("level"), scan)
    dog = scan.matches.get("_struct_watchdog", [])
    if dog and "nccl.timeout" in by:
        # the watchdog thread's frames: it raised (a collective timed out, or an NCCL error it
        # polled); the message is missing, checkTimeout says which
        timed = [h for h in dog if "checktimeout" in (h.groups.get("fn") or "").lower()]
        f = _structural_finding(by["nccl.timeout"], (timed or dog)[0], "the frames of ProcessGroupNCCL's watchdog "
                                "thread (%s) with no error message" % (timed or dog)[0].groups.get("fn"), scan)
        f["notes"].append("A watchdog stack without its message: %s. Find the first rank that stopped (the earliest "
                          "error or the rank the others wait for) and rerun with Flight Recorder on." % (
                              "checkTimeout raised, so a collective ran past the process group's timeout" if timed else
                              "the watchdog raised either a collective timeout or an NCCL error it polled; the "
                              "'what():' line above the frames says which"))
        return f
    got = _mpi_structural(scan, kb)
    if got:
        return got
    from gpudoctor.explain import pyanswer  # a Python traceback or an argparse refusal (pytb.py reads them)

    got = pyanswer.structural(scan, kb)
    if got:
        return got
    # libstdc++'s "terminate called after throwing an instance of 'c10::Error'" (then "  what():  <message>"): a C++
    # exception of torch's own (c10/util/Exception.h: TORCH_CHECK, TORCH_INTERNAL_ASSERT) that nothing caught, so the
    # process ended. The what() line is the error and names torch's source file; the watchdog's own exception
    # (c10::DistBackendError, or a what() of the watchdog) is cascade.watchdog_abort's echo
    term = [h for h in scan.matches.get("_struct_terminate", []) if (h.groups.get("exc") or "").startswith("c10::")]
    first_exc = min((h.line for h in scan.matches.get("_struct_exc", [])), default=None)
    if term and "torch.library_error" in by and (first_exc is None or term[0].line < first_exc):
        exc = term[0].groups.get("exc")
        f = _structural_finding(by["torch.library_error"], term[0], "an uncaught C++ exception of torch (%s)" % exc,
                                scan)
        f["notes"].append("torch's C++ code threw %s and nothing caught it, so the process ended (libstdc++'s "
                          "'terminate called after throwing'): the 'what():' line after it is the message, with the "
                          "torch source file that raised it (an INTERNAL ASSERT there can still come from a setting, "
                          "an environment variable or an argument of yours)." % exc)
        return f
    excs = scan.matches.get("_struct_terminate", []) + scan.matches.get("_struct_exc", [])
    # the innermost frame of a known library (a traceback lists the innermost last)
    frames = [(h.line, h.pattern.source.split("/")[1], None, h) for h in scan.matches.get("_struct_lib", [])]
    for h in scan.matches.get("_struct_torchdist", []):
        sub = h.groups.get("sub") or ""
        frames.append((h.line, sub.split("/")[0] if sub.startswith(("deepspeed/", "accelerate/")) else
                       "torch.distributed", sub, h))
    if not excs and not (frames and scan.matches.get("_struct_traceback")):
        # a shell's, gdb's, torchrun agent's ... failure line (failshape.py); else the interpreter's own
        # failure line without a traceback (provenance.py)
        return (_failshape.structural(scan, kb) or _provenance.bare_line(scan, kb, _structural_finding) or
                _explicit.structural(scan, kb, _structural_finding))
    hit = excs[0] if excs else max(frames, key=lambda x: (x[0], x[2] is not None))[3]
    if excs and hit.pattern.entry == "_struct_exc":
        # a Python exception's own frames are the ones of its traceback (between its 'Traceback (most
        # recent call last)' line and it), not the launcher's traceback printed after it (torchrun's
        # ChildFailedError under elastic/ and run.py frames)
        start = max((h.line for h in scan.matches.get("_struct_traceback", []) if h.line < hit.line), default=None)
        if start is not None:
            frames = [x for x in frames if start < x[0] < hit.line]
    exc = hit.groups.get("exc") or ""
    for words, eid in _EXC_FAMILY:
        if eid == "rendezvous.connect" and _foreign_class(exc):
            continue  # (noans22) an HTTP client's ConnectionError (requests.exceptions) is no store connection
        if any(w.lower() in exc.lower() for w in words) and eid in by:
            return _structural_finding(by[eid], hit, "the exception type %s" % exc, scan)
    if frames:
        _, lib, sub, _h = max(frames, key=lambda x: (x[0], x[2] is not None))
        eid = _TORCHDIST.get(sub) if sub else None
        if eid in by:
            where = sub if lib != "torch.distributed" else "torch/distributed/%s" % sub
            return _structural_finding(by[eid], hit, "%s raised in %s" % (exc or "an error", where), scan)
        # (torch's own frames: no "check that its version matches torch's")
        f = _structural_finding(by["code.library_error"], hit, "%s raised in %s's code" % (exc or "an error", lib),
                                scan, lib=None if lib == "torch.distributed" else lib)
        if lib != "torch.distributed":  # (upgrade19) the installation to change (upgrade.py)
            from gpudoctor.explain import upgrade as _upgrade

            up, note, internal = _upgrade.advice(scan, {"exc": exc}, lib)
            fx = f["causes"][0]["fix"]
            at = {"first": 0, "second": 1}.get(internal, len(fx))
            fx[at:at] = up
            if note:
                f["notes"].append(note)
        return f
    if scan.matches.get("_struct_traceback"):
        return _structural_finding(by["code.exception"], hit, "%s at the end of a traceback with no frame of a "
                                   "known library" % (exc or "an error"), scan)
    return (_failshape.structural(scan, kb) or _provenance.bare_line(scan, kb, _structural_finding) or
            _explicit.structural(scan, kb, _structural_finding))


# An MPI / UCX error line no entry explains -> the implementation (from the line's shape) and the family (from
# its words): the launch (daemons, proxies, PMI), the transport between ranks, or a rank killed by a signal.
# Never one cause: each family's entry lists the causes and the line that tells each apart.
_MPI_FAILURE = ("fail", "error", "unable", "cannot", "could not", "refused", "reset", "timed out", "timeout",
                "abort", "killed", "signal", "lost", "unreachable", "no route", "closed")
_MPI_LAUNCH = ("daemon", "orted", "prted", "proxy", "launch", "ssh", "rsh", "bootstrap", "hostfile", "host file",
               "spawn", "pmi", "plm", "odls", "ess", "unable to connect to server", "control")
_MPI_TRANSPORT = ("connect", "socket", "send", "recv", "read", "write", "peer", "network", "btl", "pml", "mtl",
                  "ucx", "ucp", "uct", "ofi", "fabric", "verbs", "ibv", "endpoint", "completion", "qp", "rdma", "tcp")


_SHOW_HELP = re.compile(r"ORTE_ERROR_LOG: [^\n]{0,120}? in file [^\s]{0,200}show_help\.c\b")


def _mpi_failures(scan):
    return [h for h in scan.matches.get("_struct_mpi", [])
            if any(w in (h.groups.get("msg") or "").lower() for w in _MPI_FAILURE)
            or h.groups.get("fn") or h.groups.get("orte")]


def _mpi_structural(scan, kb, hits=None):
    """structural()'s answer for an MPI or UCX error line that no entry explains (how sure: low)."""
    hits = _mpi_failures(scan) if hits is None else hits
    # ORTE_ERROR_LOG 'in file .../util/show_help.c': Open MPI's help-message relay (orte/util/show_help.c, which
    # forwards a daemon's or rank's show_help text to mpirun) failed to unpack or print one; it follows the message
    # it carried ('Data unpack would read past end of buffer', 'Out of resource'), so the failure is another line
    # (https://github.com/open-mpi/ompi/blob/v4.1.x/orte/util/show_help.c)
    hits = [h for h in hits if not _SHOW_HELP.search(h.text[:400])] or hits
    by = kb.by_id
    if not hits or "mpi.transport" not in by:
        return None
    h = hits[0]
    if h.groups.get("stack") or "Fatal error in" in h.text:
        # MPICH's error stack lists the outer call first: its innermost line with a text says what failed
        inner = [x for x in hits if x.groups.get("stack") and h.line <= x.line <= h.line + 50]
        h = inner[-1] if inner else h
    g = h.groups
    msg = (g.get("msg") or "").lower()
    if g.get("ucx"):
        impl = "UCX (under Open MPI's pml ucx, MPICH's ch4:ucx, Intel MPI or NCCL's UCX plugin)"
    elif g.get("hydra") or g.get("stack") or (g.get("fn") or "").startswith(("PMPI_", "MPI_", "internal_")) \
            and "Fatal error" in h.text:
        impl = "MPICH / Hydra (or a derivative: Intel MPI, MVAPICH, Cray MPICH)"
    elif g.get("orte") in ("PRTE", "PMIX"):
        impl = "Open MPI 5 (PRRTE / PMIx)"
    else:
        impl = "Open MPI"
    if any(w in msg for w in ("signal 9", "killed", "sigkill")):
        eid = "mpi.rank_died"
    elif g.get("hydra"):
        eid = "mpi.mpich_launch"  # every message of Hydra (mpiexec and its proxies) is about the launch
    elif any(w in msg for w in _MPI_LAUNCH) or g.get("mca") in ("plm", "odls", "ess") or g.get("orte"):
        eid = "mpi.launch"
    elif any(w in msg for w in _MPI_TRANSPORT) or g.get("mca") or g.get("ucx"):
        eid = "mpi.transport"
    else:
        eid = "mpi.mpich_error" if impl.startswith("MPICH") else "mpi.error"
    if eid not in by:
        return None
    f = _structural_finding(by[eid], h, "an error line of %s" % impl.split(" (")[0], scan)
    f["notes"].append("Printed by %s. The family is read from the line's words; to tell the causes apart, find the "
                      "first rank or node that failed (the launcher names it: BAD TERMINATION / 'noticed that process "
                      "rank'); a rank killed by signal 9 is usually the host's OOM killer (sudo dmesg -T on that node)."
                      % impl)
    return f


# the exceptions a launcher raises to report a failed worker: the echo itself, never the rank's
# own error (torch/distributed/elastic/multiprocessing/errors/__init__.py ChildFailedError,
# torch/distributed/elastic/multiprocessing/api.py SignalException; accelerate launch and
# DeepSpeed's runner re-raise subprocess.CalledProcessError)
_ECHO_EXC = ("ChildFailedError", "CalledProcessError", "SignalException")


def _beside_echo(scan, kb):
    """structural()'s answer for a text whose only match is a launcher's echo, when it comes
    from an exception line of the rank's own (not the launcher's echo exception); else None."""
    own = {h.line for h in scan.matches.get("_struct_terminate", []) + scan.matches.get("_struct_exc", [])
           if not any(w in (h.groups.get("exc") or "") for w in _ECHO_EXC)}
    # the rank's own argparse refusal, or a traceback read from its header (pytb.py), beside the launcher's echo
    own.update(a["line"] for a in scan.argparse)
    own.update(t["line"] for t in scan.tracebacks if not any(w in t["exc"] for w in _ECHO_EXC))
    if own:
        got = structural(scan, kb)
        # (not when that exception's own line is a known echo's message: 'Connection closed by peer' in XLA's
        # JaxRuntimeError says the peer went away, which the shape's 'the library refused the call' does not)
        if got and got["kind"] != "echo" and got["first_line"] in own and not any(
                got["first_line"] in scan.match_lines.get(eid, ()) for eid in scan.match_lines
                if not eid.startswith("_") and eid in kb.by_id and kb.by_id[eid]["kind"] == "echo"):
            return got
    # an MPI launcher's own failure line that no entry knows, beside the echo (Intel MPI's Hydra: 'check_exit_codes
    # (...): unable to run bstrap_proxy on <host>' before the event loop's 'error waiting for event')
    known = set()
    for eid, lines in scan.match_lines.items():
        if not eid.startswith("_"):
            known.update(lines)
    unknown = [h for h in _mpi_failures(scan) if h.line not in known]
    got = _mpi_structural(scan, kb, unknown) if unknown else None
    return got if got and got["kind"] != "echo" else None


def _structural_finding(e, hit, why, scan, lib=None, sure="low"):
    m = {"hits": [hit], "count": 1, "rank": 0, "score": 0, "first": hit.line, "signal_hits": []}
    f = _finding(e, m, "root", scan)
    f["confidence"] = "structural"
    f["notes"].insert(0, HOW_SURE["structural" if sure == "low" else "structural_medium"] % why)
    if lib:
        f["notes"].append("The error was raised inside %s: search its issue tracker for the exception text, and "
                          "check that its version matches torch's." % lib)
    return f


# words that say nothing about which cause it is (for _same_words)
_PLAIN = frozenset("the and for with not that this are its from but was has have when than any one into are "
                   "which what your you can use also only else where there their them they then".split())


def _words(text):
    return {w for w in re.findall(r"[a-z0-9_./=-]{3,}", text.lower()) if w not in _PLAIN}


def _overlap(a, b):
    """The share of the shorter text's words that the other has (0..1)."""
    wa, wb = _words(a), _words(b)
    return len(wa & wb) / max(1, min(len(wa), len(wb)))


def _fold_restated(causes):
    """A generated site's own cause (causes[0]: what this exact message means, its fix) and a cause
    of the family's entry that says the same thing in other words were two numbered causes: Slurm's
    'ReqNodeNotAvail, Reserved for maintenance' read 'Pending: a maintenance reservation starts
    before the job's --time would end' and then 'A maintenance reservation starts before the job's
    --time would end', each with its own scontrol update fix. Such a family cause is folded into
    the site's: its confirm lines, exports and the fix lines the site's fix does not already say
    join the site's cause, and it is not listed again. Same: most of the words of the shorter
    cause text in the other and most of the fix words too, or nearly the same fix lines."""
    site = causes[0] if causes and causes[0]["static_rank"] == 0 else None
    if site is None:
        return
    fix = " ".join(site["fix"])
    for c in list(causes[1:]):
        text, fixes = _overlap(site["text"], c["text"]), _overlap(fix, " ".join(c["fix"]))
        if not ((text >= 0.65 and fixes >= 0.5) or (text >= 0.4 and fixes >= 0.8)):
            continue
        site["confirm"] += [x for x in c["confirm"] if x not in site["confirm"]]
        site["checks"] += [x for x in c["checks"] if x not in site["checks"]]
        site["fix"] += [x for x in c["fix"] if all(_overlap(x, y) < 0.6 for y in site["fix"])]
        for k, v in c["exports"].items():
            site["exports"].setdefault(k, v)
        if site["computed"] is None and c.get("computed"):
            # the family cause's fix computed from the log's own values (fixes.py: the toolkit for the
            # CUDA versions the message prints) stays with the cause it is folded into
            site["computed"] = c["computed"]
        site["evidence"] += [x for x in c["evidence"] if x not in site["evidence"]]
        site.setdefault("restates", []).append(c["text"])
        causes.remove(c)


def _finding(e, m, role, scan):
    causes, site_fix = [], False
    for ci, c in enumerate(e["causes"]):
        if not all(scan.evidence.get((e["id"], ("when", ci, k))) for k in range(len(c.get("when", ())))):
            continue  # a cause that is a possibility only where the log shows its `when` lines
        if c.get("differential"):
            continue  # a cause of the differential only, where the text shows its names (differential.py)
        ev = scan.evidence.get((e["id"], ci), [])
        causes.append({"text": c["text"], "checks": list(c["checks"]), "confirm": list(c["confirm"]),
                       "fix": list(c["fix"]), "exports": dict(c["exports"]),
                       "evidence": [{"line": h.line, "text": h.text} for h in ev], "static_rank": ci + 1,
                       "computed": c.get("computed")})
    # a matched generated site with its own fix (a per-code table of its generator: what this
    # exact code or reason means and what to do) is the first cause, with its line as evidence
    for h in m["hits"]:
        site = getattr(h.pattern, "site", None) if h.pattern is not None else None
        if site and site.get("fix"):
            # its {%N|words} slots: the values this line holds (slots.py), quoted as every fix line
            means, fix, values = _slots.fill(site, h.text)
            causes.append({"text": means, "checks": [], "confirm": [], "fix": fix,
                           "exports": {}, "evidence": [{"line": h.line, "text": h.text}], "static_rank": 0,
                           "computed": None})
            if values:
                causes[-1]["values"] = {str(n): v for n, v in sorted(values.items())}
            site_fix = site
            break
    # causes the log itself points at go first (stable: the data's order among equals)
    causes.sort(key=lambda c: (not c["evidence"], c["static_rank"]))
    # {$var|...}: the names its line holds (famfix.py); a {$node|...} slot also reads the entry's signal line nearest
    # before its first hit (the NodeName= line of the scontrol show node block whose Reason= matched, review27)
    first = min(m["hits"], key=lambda x: x.line) if m["hits"] else None
    _famfix.fill_causes(causes, [y for h in m["hits"] for y in [h.text] + _hit_groups(h)] + _slot_signal(scan, e, first))
    if site_fix:
        _fold_restated(causes)
    notes = []
    for group, table in e.get("lookup", {}).items():
        seen = []
        for h in m["hits"]:
            v = h.groups.get(group)
            if v is not None and v not in seen:
                seen.append(v)
                notes.append("%s %s: %s" % (group.capitalize(), v, table.get(v, "not in gpudoctor's table: see the "
                                                                                 "references")))
    # a generated message site that matched: name the program's own message (and where it is printed)
    sites = []
    for h in m["hits"]:
        site = getattr(h.pattern, "site", None) if h.pattern is not None else None
        if site and site["id"] not in sites and len(sites) < 2:
            sites.append(site["id"])
            what = site.get("name") or site.get("where") or site["id"]
            if site.get("code") is not None and site.get("name"):
                what = "%s (%s)" % (site["name"], site["code"])
            notes.append("Known message of %s: %s%s" % (SOURCES.get(site.get("source"), site.get("source")), what,
                                                         (": %s" % site["text"][:160]) if site.get("text") else ""))
    f = {"id": e["id"], "family": e["family"], "title": e["title"], "kind": e["kind"], "role": role,
         "rank": m["rank"], "score": m["score"], "explain": e["explain"].strip(), "first_line": m["first"],
         "match_count": m["count"],
         "matches": [{"line": h.line, "text": h.text, "severity": h.severity} for h in m["hits"]],
         "signals": [{"line": h.line, "text": h.text} for h in m["signal_hits"]],
         "notes": notes, "causes": causes, "debug": list(e["debug"]),
         "references": [dict(r) for r in e["references"]], "knowledge_file": e["source_file"]}
    named = site_fix or next((getattr(h.pattern, "site", None) for h in m["hits"]
                              if h.pattern is not None and getattr(h.pattern, "site", None)), None)
    if named:
        # (spec28) the generated message site the finding stands on (its fix's, else its first), by the id of its
        # table: the most specific knowledge the text matched, which the finding's entry id (its family) does not say
        f["site"] = {"id": named["id"], "where": named.get("where") or named.get("name") or "",
                     "source": named.get("source") or ""}
    if site_fix:  # the code itself names the cause: not only the family
        f["confidence"] = "cause"
    elif m["hits"] and all(getattr(h.pattern, "site", None) for h in m["hits"] if h.pattern is not None) and \
            all(h.pattern is not None for h in m["hits"]) and not any(c["evidence"] for c in causes):
        # only generated sites matched, none with a fix of its own, and no cause's evidence is in the log: the
        # site names the family (its generator's rules table), not which of the entry's causes it is (torch's
        # 'retrieving ncclUniqueId ... store->get(...) got error: Connection reset by peer' answered
        # rendezvous.store_timeout 'how sure: cause' with a first cause nothing pointed at)
        f["confidence"] = "family"
    # a GPU hardware fault: its family and the GPU its lines name (gpuhw.py)
    f["notes"].extend(_gpuhw.notes(f))
    if e["id"] == "nvidia_smi.usage":  # a refused --query-gpu name: the valid ones nearest to it (smifields.py)
        from gpudoctor.explain import smifields as _smi
        f["notes"].extend(_smi.notes(f))
    if m.get("distinct"):
        f["distinct"] = m["distinct"]
        f["notes"].append("%s differs within this log: %s" % (m["distinct"]["key"].replace("_", " "),
                                                              ", ".join(m["distinct"]["values"])))
    return f

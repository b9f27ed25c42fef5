"""`gpudoctor diff`: what changed between two runs of the same nodes (drift in time).

    gpudoctor diff BEFORE AFTER                 two facts files, or two folders of them (per node)
    gpudoctor diff --since last-good [AFTER]    each node against its own last passing run (a node
                                                that never passed: its run with the fewest failures)
    gpudoctor diff --since 2026-11-20 [AFTER]   ... against the node as it was then

AFTER defaults to this machine, gathered now. Exit codes: 0 no check changed its verdict,
1 a change flipped a check (or changed its finding), 2 usage or input error."""

import io
import sys

from gpudoctor.commands.common import config_from, csv
from gpudoctor.errors import InputError


def add_parser(sub):
    d = sub.add_parser("diff", help="what changed between two runs: facts files, folders, or a node against its "
                                    "own last passing run (--since)")
    d.add_argument("paths", nargs="*", metavar="FACTS", help="BEFORE AFTER (files or folders of facts); with "
                                                             "--since, only AFTER (default: this machine, now)")
    d.add_argument("--since", metavar="WHEN", help="last-good (the node's last passing run) or a UTC date "
                                                   "(2026-11-20, 2026-11-20T03:12): compare against the history")
    d.add_argument("--state-dir", metavar="DIR", help="where the history is (as for check --history)")
    d.add_argument("--node", metavar="NAME", action="append", default=[],
                   help="only this node (repeatable; default every node of AFTER)")
    d.add_argument("--select", type=csv, default=[], metavar="IDS", help="only these check ids or id prefixes")
    d.add_argument("--ignore", type=csv, default=[], metavar="IDS", help="skip these check ids or id prefixes")
    d.add_argument("--config", metavar="FILE", help="gpudoctor.toml (thresholds the verdicts are judged by)")
    d.add_argument("--python", metavar="PATH", help="the job's interpreter to probe when gathering this machine")
    d.add_argument("--fast", action="store_true", help="gather this machine in-process only (as the prolog does)")
    d.add_argument("--json", action="store_true", help="JSON (schema gpudoctor.diff/1)")
    d.add_argument("--format", choices=("text", "json"), default=None, help="report format (default text)")
    d.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE (atomically)")
    d.set_defaults(func=run, local=True, hosts=None, nodes=None)
    return d


def _load(path, what):
    from gpudoctor import gather

    return gather.from_facts(path, what="diff: " + what)


def _statuses(rec):
    """The checks that failed and warned in a history record (a run's verdicts are statuses,
    the last good run's are [status, text])."""
    out = {"failed": [], "warned": []}
    verdicts = rec.get("verdicts") if isinstance(rec.get("verdicts"), dict) else {}
    for cid, v in sorted(verdicts.items()):
        st = v[0] if isinstance(v, list) and v else v
        if st in ("fail", "warn"):
            out["failed" if st == "fail" else "warned"].append(cid)
    return out


def run(args):
    from gpudoctor import history
    from gpudoctor.changes import diff_nodes
    from gpudoctor.registry import load_checks, select
    from gpudoctor.runner import Node

    cfg = config_from(args)
    checks = select(load_checks(), cfg.select, cfg.ignore)
    if cfg.select and not checks:
        raise InputError("--select %s matches no check (see: gpudoctor list)" % ",".join(cfg.select))
    key_ids = {}
    records = {}  # host -> the history record compared with (--since)
    since = None
    if args.since is None:
        if len(args.paths) != 2:
            raise InputError("give BEFORE and AFTER (facts files or folders), or --since last-good|DATE")
        before, after = _load(args.paths[0], "BEFORE"), _load(args.paths[1], "AFTER")
        if len(before) == 1 and len(after) == 1 and before[0].host != after[0].host:
            # two files of one node saved under two names (a renamed host, a hostfile alias)
            before = [Node(host=after[0].host, facts=before[0].facts, error=before[0].error,
                           error_kind=before[0].error_kind)]
        bsrc, asrc = args.paths
    else:
        if len(args.paths) > 1:
            raise InputError("with --since give at most one AFTER (facts file or folder)")
        since = history.parse_since(args.since)
        store = history.open_for(args.state_dir, cfg, strict=True)
        if args.paths:
            after, asrc = _load(args.paths[0], "AFTER"), args.paths[0]
        else:
            from gpudoctor.commands.common import gather_nodes

            try:
                cfg.env_key = store.key
                store.current_key_id = store.key_id
            except (history.HistoryError, OSError) as exc:
                raise InputError("history: %s" % exc)
            args.facts = None
            after, asrc = gather_nodes(args, cfg, progress=False), "this machine now"
        before = []
        for n in after:
            kind = "last-good" if since == "last-good" else "at"
            try:
                rec, doc = store.last_good(n.host) if since == "last-good" else store.at(n.host, since)
                if doc is None and since == "last-good":
                    # a node that never passed whole (host.name fails forever): its kept run
                    # with the fewest failing checks, named as such in the report
                    rec, doc = store.best_run(n.host, against=n.facts, key_id=store.current_key_id)
                    kind = "fewest-failures"
            except history.HistoryError as exc:
                raise InputError("history of %s: %s" % (n.host, exc))
            if doc is not None:
                before.append(Node(host=n.host, facts=doc))
                key_ids[n.host] = (rec.get("key_id") or (store.index(n.host) or {}).get("states", {}).get(
                    rec.get("facts"), {}).get("key_id"), store.current_key_id)
                records[n.host] = dict({"at": rec.get("at"), "kind": kind, "passed": kind == "last-good" or bool(
                    rec.get("passed"))}, **_statuses(rec))
        fallback = since == "last-good" and any(r["kind"] != "last-good" for r in records.values())
        bsrc = "%s in %s" % ("the last passing run" + (" (or, for a node with none, its run with the fewest "
                                                        "failures)" if fallback else "")
                             if since == "last-good" else "the run at or before %s (else the first after it)"
                             % history.utc(since), store.dir)
        if not before:
            held = [h for h in store.nodes() if h not in {n.host for n in after}]
            if held and not args.paths:  # `check --hosts F --history` kept the nodes', and AFTER is this machine
                from gpudoctor.nodes import fold

                raise InputError("no history for %s (this machine, AFTER's default) in %s; it holds %s: compare "
                                 "them with their facts now: gpudoctor facts --hosts FILE -o now/ && gpudoctor diff "
                                 "--since %s now/" % (", ".join(n.host for n in after)[:200], store.dir,
                                                      fold(held)[:200], args.since))
            raise InputError("no history for %s in %s (run gpudoctor check --history, or the Slurm hooks, first)"
                             % (", ".join(n.host for n in after)[:200], store.dir))
    if args.node:
        keep = set(args.node)
        before = [n for n in before if n.host in keep]
        after = [n for n in after if n.host in keep]
        if not after:
            raise InputError("--node %s: no such node in %s" % (",".join(args.node)[:100], asrc))
    d = diff_nodes(before, after, checks, cfg, before_source=bsrc, after_source=asrc, key_ids=key_ids)
    d.records = {h: r for h, r in records.items() if h in d.times} if since else None
    from gpudoctor.report import diff as render

    stream = io.StringIO() if args.output else sys.stdout
    if args.json or args.format == "json":
        render.render_json(d, stream, since=since)
    else:
        render.render_text(d, stream, since=since)
    if args.output:
        from gpudoctor.report.atomic import write_atomic

        write_atomic(args.output, stream.getvalue())
    return d.exit_code

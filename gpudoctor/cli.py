"""Command line: parses arguments and calls the library; nothing else.

Exit codes (the contract schedulers and CI rely on):
  0  no error-level finding
  1  at least one error-level finding, or a node that could not be checked
     (--strict: warnings too)
  2  usage or input error: one line on stderr, never a traceback
  (a local run past --timeout reports this node as not checked, error_kind timeout: exit 1;
   `slurm-health` adds 3 and 4: scontrol failed, gpudoctor crashed; see gpudoctor/slurm.py)
  130 interrupted (Ctrl-C), after printing the report for the nodes done so far
"""

import argparse
import json
import os
import sys

from gpudoctor import __version__
from gpudoctor.errors import InputError

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one clear line, exit 2 (argparse prints usage + error)
        raise InputError("%s (see: %s --help)" % (message, self.prog))


def _csv(value):
    return [v for v in value.split(",") if v]


def _add_inventory(p):
    g = p.add_argument_group("nodes (default: this machine)")
    g.add_argument("--hosts", metavar="FILE", help="hostfile: DeepSpeed/pdsh (host slots=8), MPI (host:8), plain list")
    g.add_argument("--nodes", metavar="NODESET", help="node set, e.g. 'gpu[01-16],login2' "
                                                      "(default inside a Slurm allocation: $SLURM_JOB_NODELIST)")
    g.add_argument("--local", action="store_true", help="check only this machine, even inside a Slurm allocation")
    g.add_argument("--python", metavar="PATH", help="the job's interpreter to probe (conda env, venv); "
                                                  "default: python3 on PATH")
    g.add_argument("-j", "--jobs", type=int, default=None, help="nodes gathered at once (default 64)")
    g.add_argument("--timeout", type=float, default=None, help="seconds per node (default 30); on this machine alone "
                                                               "it bounds the whole run: past it the node is reported "
                                                               "not checked (timeout) and the exit code is 1")
    g.add_argument("--ssh-config", metavar="FILE", help="ssh config to honour (default ~/.ssh/config)")
    g.add_argument("--host-key-policy", choices=("accept-new", "strict", "ignore"), default=None,
                   help="unknown host keys: accept-new (default, like OpenSSH), strict, ignore")
    g.add_argument("--same", nargs="+", metavar="PATH", default=[],
                   help="files or folders that must be identical on every node (code, configs, model)")
    g.add_argument("--mesh", action="store_true", help="also test that every node can ssh to every other node")


def build_parser():
    p = _Parser(prog="gpudoctor", description="Preflight doctor for multi-node GPU training clusters.")
    p.add_argument("--version", action="version", version="gpudoctor %s" % __version__)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    c = sub.add_parser("check", help="gather facts, run every check, print findings and fixes")
    _add_inventory(c)
    c.add_argument("--facts", metavar="PATH", help="check saved facts (a file or a folder) instead of live nodes")
    c.add_argument("--select", type=_csv, default=[], metavar="IDS", help="only these check ids or id prefixes")
    c.add_argument("--ignore", type=_csv, default=[], metavar="IDS", help="skip these check ids or id prefixes")
    c.add_argument("--strict", action="store_true", help="warnings fail too (exit 1)")
    c.add_argument("--config", metavar="FILE", help="gpudoctor.toml (default: ./gpudoctor.toml, "
                                                   "[tool.gpudoctor] in ./pyproject.toml, /etc/gpudoctor/gpudoctor.toml)")
    c.add_argument("--json", action="store_true", help="print the report as JSON (same as --format json)")
    c.add_argument("--format", choices=("text", "json", "prometheus", "junit"), default=None,
                   help="report format (default text); prometheus: a node-exporter textfile; junit: for CI")
    c.add_argument("--fast", action="store_true", help="the prolog tier: in-process reads only (no probe of another "
                                                       "interpreter, no nvidia-smi fallback)")
    c.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE instead of stdout")
    c.add_argument("--expected-gpus", type=int, metavar="N", help="GPUs every node must have")
    c.add_argument("--bf16", action="store_true", default=None, help="the job trains in bf16")
    c.add_argument("--exports", action="store_true", help="after the report, print the exports that fix it")
    c.add_argument("--deep", action="store_true", help="also import torch in a child process (seconds): "
                                                       "cuda.is_available(), device count, NCCL; and ldd")
    lg = c.add_argument_group("launch plan (docs/launch.md)")
    lg.add_argument("--accelerate-config", nargs="?", const="", default=None, metavar="FILE",
                    help="accelerate's config (default: ~/.cache/huggingface/accelerate/default_config.yaml)")
    lg.add_argument("--deepspeed-config", metavar="FILE", help="DeepSpeed JSON config (ds.json)")
    lg.add_argument("--launch", metavar="CMD", help="the launch line, quoted: 'torchrun ...', 'mpirun -np 16 -H ...', "
                                                    "'deepspeed --hostfile hf ...', 'python -m torch.distributed.launch ...'")
    c.set_defaults(func=cmd_check)

    f = sub.add_parser("facts", help="print this node's (or every node's) raw facts as JSON")
    _add_inventory(f)
    f.add_argument("-o", "--output", metavar="PATH", help="write to FILE (one node) or DIR (with --hosts/--nodes)")
    f.add_argument("--deep", action="store_true", help="also import torch in a child process (see check --deep)")
    f.set_defaults(func=cmd_facts)

    e = sub.add_parser("exports", help="print a sourceable snippet of exports (NCCL_SOCKET_IFNAME, NCCL_IB_HCA, ...) "
                                       "computed from every node's facts")
    _add_inventory(e)
    e.add_argument("--facts", metavar="PATH", help="compute from saved facts (a file or a folder)")
    e.set_defaults(func=cmd_exports, select=[], ignore=[])

    ls = sub.add_parser("list", help="list every check: id, severity, title")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=cmd_list)

    ex = sub.add_parser("explain", help="from an error message or a whole log to its cause and fix")
    ex.add_argument("text", nargs="?", help="the error text; '-' reads standard input")
    ex.add_argument("--file", metavar="LOG", help="a log file to read")
    ex.add_argument("--json", action="store_true")
    ex.add_argument("--check", action="store_true", help="run the confirming checks on this machine now")
    ex.set_defaults(func=cmd_explain)

    from gpudoctor import slurm

    slurm.add_parser(sub)
    return p


def _config(args):
    from gpudoctor.config import load_config

    cfg = load_config(getattr(args, "config", None))
    for name in ("select", "ignore"):
        if getattr(args, name, None):
            setattr(cfg, name, getattr(args, name))
    if getattr(args, "strict", False):
        cfg.strict = True
    if getattr(args, "expected_gpus", None) is not None:
        cfg.expected_gpus = args.expected_gpus
    if getattr(args, "bf16", None):
        cfg.bf16 = True
    if getattr(args, "python", None):
        cfg.python = args.python
    if getattr(args, "timeout", None) is not None:
        cfg.timeout = args.timeout
    return cfg


def gather_nodes(args, cfg, progress=True):
    """Facts for every node the arguments name: saved facts, a cluster, or this machine."""
    from gpudoctor import gather

    if getattr(args, "facts", None):
        return gather.from_facts(args.facts)
    if getattr(args, "deep", False):  # read by the collector here and in the probed interpreter
        os.environ["GPUDOCTOR_DEEP"] = "1"
    from gpudoctor import inventory

    hosts = None if getattr(args, "local", False) else inventory.resolve(hosts_file=args.hosts, nodeset=args.nodes)
    if hosts:
        from gpudoctor.transport import ssh

        cfg.slots = {h.name: h.slots for h in hosts if h.slots is not None}
        options = {"resolve": [h.name for h in hosts]}
        if args.same:
            options["same_files"] = args.same
        if args.mesh:
            options["mesh"] = [h.name for h in hosts]
        plan = getattr(cfg, "launch", None)
        if plan is not None:
            from gpudoctor import launch

            launch.add_options(plan, options)
        nodes = ssh.gather(hosts, python=cfg.python or "python3", jobs=args.jobs, timeout=cfg.timeout,
                           ssh_config=args.ssh_config, host_key_policy=args.host_key_policy, progress=progress,
                           options=options)
        if plan is not None:  # phase 2: the master listens on the rendezvous port, the others connect
            nodes = launch.probe_rendezvous(plan, hosts, nodes, ssh.gather, python=cfg.python or "python3",
                                            timeout=cfg.timeout, ssh_config=args.ssh_config,
                                            host_key_policy=args.host_key_policy)
        return nodes
    from gpudoctor import deadline

    return deadline.local_nodes(python=cfg.python, timeout=cfg.timeout, fast=getattr(args, "fast", False))


def cmd_check(args):
    from gpudoctor.registry import load_checks, select
    from gpudoctor.runner import run_checks

    cfg = _config(args)
    if args.accelerate_config is not None or args.deepspeed_config or args.launch:
        from gpudoctor.launch import build_plan

        cfg.launch = build_plan(accelerate=args.accelerate_config or None,
                                accelerate_given=args.accelerate_config is not None,
                                deepspeed=args.deepspeed_config, launch=args.launch)
    registry = load_checks()
    checks = select(registry, cfg.select, cfg.ignore)
    if cfg.select and not checks:
        raise InputError("--select %s matches no check (see: gpudoctor list)" % ",".join(cfg.select))
    interrupted = False
    try:
        nodes = gather_nodes(args, cfg)
    except KeyboardInterrupt as exc:  # the fan-out hands back what it finished
        nodes = getattr(exc, "partial_nodes", None)
        if nodes is None:
            raise
        interrupted = True
    report = run_checks(nodes, checks, cfg)
    fmt = "json" if args.json else (args.format or "text")
    _emit(report, fmt, args.output)
    if getattr(args, "exports", False):
        sys.stdout.write("\n" + _exports_snippet(nodes, report))
    if interrupted:
        print("gpudoctor: interrupted: report covers the %d nodes gathered so far" % len(nodes), file=sys.stderr)
        sys.stdout.flush()
        os._exit(EXIT_INTERRUPTED)  # do not wait for SSH sessions still in flight
    return report.exit_code


def _exports_snippet(nodes, report):
    from gpudoctor.report import exports

    facts = {n.host: n.facts for n in nodes if n.reachable}
    return exports.render(exports.compute(facts), extra=exports.from_findings(report.findings))


def cmd_exports(args):
    from gpudoctor.registry import load_checks
    from gpudoctor.runner import run_checks

    cfg = _config(args)
    nodes = gather_nodes(args, cfg)
    report = run_checks(nodes, list(load_checks()), cfg)
    sys.stdout.write(_exports_snippet(nodes, report))
    bad = [n.host for n in nodes if not n.reachable]
    if bad:
        from gpudoctor.nodes import fold

        print("gpudoctor: %s could not be checked; the exports cover the others" % fold(bad), file=sys.stderr)
        return EXIT_FINDINGS
    return EXIT_OK


def _emit(report, fmt, output):
    import io

    stream = io.StringIO() if output else sys.stdout
    if fmt in ("json", "prometheus", "junit"):
        import importlib

        importlib.import_module("gpudoctor.report." + fmt).render(report, stream)
    else:
        from gpudoctor.report import text

        text.render(report, stream, color=None if not output else False)
    if output:
        from gpudoctor.report.atomic import write_atomic

        write_atomic(output, stream.getvalue())


def cmd_facts(args):
    from gpudoctor import gather

    cfg = _config(args)
    nodes = gather_nodes(args, cfg)
    if args.hosts or args.nodes:
        if args.output:
            gather.save(nodes, args.output)
            bad = [n for n in nodes if not n.reachable]
            print("gpudoctor: saved facts of %d nodes to %s (%d unreachable)" % (len(nodes), args.output, len(bad)),
                  file=sys.stderr)
            return EXIT_FINDINGS if bad else EXIT_OK
        docs = {n.host: n.facts if n.reachable else {"error": n.error, "error_kind": n.error_kind} for n in nodes}
        _write_json(docs, None)
        return EXIT_FINDINGS if any(not n.reachable for n in nodes) else EXIT_OK
    _write_json(nodes[0].facts, args.output)
    return EXIT_OK


def _write_json(doc, path):
    text = json.dumps(doc, indent=1, sort_keys=True) + "\n"
    if path:
        try:
            with open(path, "w") as f:
                f.write(text)
        except OSError as exc:
            raise InputError("cannot write %s: %s" % (path, exc.strerror or exc))
    else:
        sys.stdout.write(text)


def cmd_list(args):
    from gpudoctor.registry import load_checks, plugin_errors

    checks = list(load_checks())
    if args.json:
        _write_json([{"id": c.id, "severity": c.severity, "scope": c.scope, "title": c.title, "needs": list(c.needs),
                      "module": c.module} for c in checks], None)
    else:
        w = max(len(c.id) for c in checks)
        for c in checks:
            print("%-*s  %-7s  %s%s" % (w, c.id, c.severity, c.title, "  (cluster)" if c.scope == "cluster" else ""))
    for err in plugin_errors():
        print("gpudoctor: warning: %s" % err, file=sys.stderr)
    return EXIT_OK


def cmd_explain(args):
    from gpudoctor import explain

    return explain.main(args)


def main(argv=None):
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "command", None):
            parser.print_help()
            return EXIT_USAGE
        return args.func(args)
    except InputError as exc:
        print("gpudoctor: error: %s" % exc, file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("gpudoctor: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `gpudoctor facts | head`
        try:
            sys.stdout = None
        finally:
            return EXIT_OK

"""Shared test helpers: fixture facts, and running one check over facts."""

import copy
import itertools
import json
import os
import shutil
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "fixtures")

# The Ctrl-C tests send SIGINT to a gpudoctor they start and expect exit 130 with a partial report.
# A suite started as a background job without job control (`cmd &` in a script, `nohup ... &`)
# inherits SIGINT ignored (bash(1), "COMMAND EXECUTION ENVIRONMENT"), every child would inherit that
# too, and a user's Ctrl-C never reaches them. A handler here (not SIG_IGN) is reset to the
# default in every program this process execs, as an interactive shell's children have it.
import signal  # noqa: E402

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# The tests start gpudoctor (and its collector, the Slurm hooks, the stand-in programs) as Python
# processes hundreds of times. Where PYTHONDONTWRITEBYTECODE is set (the development VM sets it
# for every process), each of them compiled every module it imports from source again: ~0.2-0.5 s
# of CPU per start, a third of the CPU of the subprocess-heavy test files. The children keep
# their bytecode in a folder of this run instead (PYTHONPYCACHEPREFIX, Python 3.8+), removed at
# the end, so nothing is written into the tree, as the variable asked; this process is unchanged.
if os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX"):
    import atexit  # noqa: E402
    import tempfile  # noqa: E402

    _PYC = tempfile.mkdtemp(prefix="gpudoctor-tests-pyc-")
    atexit.register(shutil.rmtree, _PYC, True)
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    os.environ["PYTHONPYCACHEPREFIX"] = _PYC


def node_facts(name):
    """A real captured facts document from fixtures/nodes/<name>.json (a fresh copy)."""
    with open(os.path.join(FIXTURES, "nodes", name + ".json")) as f:
        return json.load(f)


def patched(doc, **sections):
    """A copy of facts with some section keys replaced: patched(d, shm={"total_bytes": 1})."""
    doc = copy.deepcopy(doc)
    for name, values in sections.items():
        if values is None:
            doc.pop(name, None)
        else:
            doc.setdefault(name, {"status": "ok"}).update(values)
    return doc


def run_check(check_id, facts, config=None, **cfg):
    """Findings of one check over one node's (or, for cluster checks, {host: facts}) facts."""
    from gpudoctor.config import Config
    from gpudoctor.registry import load_checks
    from gpudoctor.runner import Node, run_checks

    chk = load_checks().get(check_id)
    assert chk is not None, "no check %s" % check_id
    config = config or Config()
    for k, v in cfg.items():
        setattr(config, k, v)
    if chk.scope == "cluster":
        nodes = [Node(host=h, facts=f) for h, f in facts.items()]
    else:
        nodes = [Node(host=facts.get("node") or "n1", facts=facts)]
    report = run_checks(nodes, [chk], config)
    res = report.results[0]
    assert not res.crashed, res.crashed
    return res


_STATE_DIRS = itertools.count()


@pytest.fixture(scope="session")
def _history_base(tmp_path_factory):
    return str(tmp_path_factory.mktemp("gdstate"))


@pytest.fixture(autouse=True)
def _hermetic_history(request, monkeypatch, _history_base):
    """Every test keeps history (check --history, slurm-health, the prolog) in a state folder
    of its own, never in /var/lib/gpudoctor (slurm-health's default for root) or ~/.local/state:
    no test reads what an earlier run left, and CI on a clean machine behaves as here
    (docs/history.md, $GPUDOCTOR_STATE_DIR). The folder is made only if the test records
    history. The real Slurm hooks read it from their settings file (state_dir of the Slurm
    fixtures), emptied here before each test that uses one."""
    monkeypatch.setenv("GPUDOCTOR_STATE_DIR", os.path.join(_history_base, "t%d" % next(_STATE_DIRS)))
    for name in ("slurm", "multislurm"):
        if name in request.fixturenames:
            state = getattr(request.getfixturevalue(name), "state_dir", None)
            if state:
                shutil.rmtree(state, ignore_errors=True)


# This process keeps the collected tests for the whole run (and explain's knowledge: knowledge.load_knowledge
# freezes what it built); Python's cyclic garbage collector went over them at every full collection, never
# freeing one. Once collected, what is alive is moved out of its reach (gc.freeze, Python 3.7+).
def pytest_collection_finish(session):
    import gc

    gc.freeze()


@pytest.fixture(scope="module")
def kb():
    """explain's knowledge, loaded once per test module."""
    from gpudoctor import explain

    return explain.load_knowledge()


@pytest.fixture
def cli(capsys):
    """The CLI in this process (gpudoctor.cli.main, as `python -m gpudoctor` runs it): no
    interpreter start per call. Returns (rc, stdout, stderr)."""
    from gpudoctor.cli import main

    def run(*args):
        rc = main([str(a) for a in args])
        out, err = capsys.readouterr()
        return rc, out, err

    return run


@pytest.fixture
def gpudoctor_cli(tmp_path):
    """Run the real CLI as a user would (a subprocess), returning (rc, stdout, stderr)."""
    import subprocess

    def run(*args, input=None, env=None, cwd=None):
        e = dict(os.environ)
        e.update(env or {})
        p = subprocess.run([sys.executable, "-m", "gpudoctor"] + list(args), capture_output=True, text=True,
                           input=input, env=e, cwd=cwd or str(tmp_path), timeout=120)
        return p.returncode, p.stdout, p.stderr

    return run


@pytest.fixture(scope="session")
def multislurm(tmp_path_factory):
    """A real 4-node Slurm (tests/slurmcluster.py): one slurmctld, one slurmd per network
    namespace. sn3 has a 64 MiB /dev/shm (its own mount namespace), sn4 a 64 KiB memlock
    limit; sn2 gets an HCA without /dev/infiniband where a test asks (ms.uverbs); sn1 is
    healthy. Started once per session (about 1.5 s); each test that
    changes node states calls ``reset()`` first."""
    import slurmcluster

    reason = slurmcluster.unavailable()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    c = slurmcluster.MultiSlurm(str(tmp_path_factory.mktemp("multislurm")), 4, {2: "uverbs", 3: "shm", 4: "memlock"})
    try:
        c.start()
        yield c
    finally:
        c.stop()


# ---------------------------------------------------------------- two workers (pytest-xdist; tests/run.sh)
# The suite is about 310 s of CPU and, on an idle 2-core machine, ~400 s of wall: the rest is the daemon beds
# waiting (sshd, slurmd, network namespaces, the probe's hello windows and budgets). tests/run.sh runs it on two
# pytest-xdist workers (`-n 2 --dist loadfile --no-loadscope-reorder`) where the machine has more than one core:
# one worker runs the beds while the other runs the CPU-bound files beside them.
# The beds are one unit, run one after another on one worker, in the serial order, because they share the
# machine: sshd on random 127.x subnets and ports, two single-node Slurms on 127.0.0.1 and the multi-node one's
# bridges and namespaces, watchnet's and test_probe_tcp's namespaces, veths and tc, rootful podman, and
# test_probe_tcp counts the machine's probe workers. Every other file is a unit of its own (its module fixtures,
# such as `kb`, built once as serially). docs/benchmarks.md ("The suite on two workers") says how it was measured.
# A file that asks for the session's 4-node Slurm (the `multislurm` fixture: test_slurm22, test_slurm23, ...) is a
# bed too, found by that word in its source (_asks_multislurm): on the other worker it started a second 4-node Slurm
# and ran beside the beds (its probes and namespaces beside test_probe_tcp's count of probe workers).
BEDS = frozenset("test_%s.py" % n for n in (
    "cluster", "container_view", "early_srun", "launch_rendezvous", "mutation_early_srun", "podman",
    "probe_hardening", "probe_local", "probe_tcp", "probe_units", "redteam_2026_11_26_descriptions", "slurm",
    "slurm_multinode", "slurm28", "slurm29", "transport", "transport_srun", "transport_ssh",
    "watch"))  # slurm28, slurm29: a MUNGE Slurm


# Files that share what one of them builds in this process, one unit too, so each is built once as serially:
# test_explain's entry check compiles every pattern (~8 s of CPU), test_explain_generated's parse of every
# generated regex gives test_explain_time its static bounds (test_explain_time.BOUNDS, ~5 s), and
# test_explain_time compiles every pattern again where test_explain has not.
SHARED = frozenset(("test_explain.py", "test_explain_generated.py", "test_explain_time.py"))

# The longest units after the beds, handed out first, longest first (each worker takes the next unit when it is
# almost done; a long unit handed out last kept one worker busy alone at the end: test_slurm22, 79 s at load 8, began
# 80 s before the end of a run). Each took 20-85 s in suite24's clean-clone runs at load 8-10 (docs/benchmarks.md,
# "The suite under ~5 minutes again"); a file not listed only goes in its file order.
FIRST = ("every-pattern",) + tuple("tests/test_%s.py" % n for n in (
    "fuzz", "redteam_2026_11_28b", "redteam_2026_11_25", "hostile", "packaging", "userwalk23", "explain_wrap23",
    "explain_speed", "fix_paste", "redteam_2026_11_28", "userwalk22", "review23", "explain_time_shapes"))

_MULTISLURM = {}


def _asks_multislurm(path):
    """Whether the test file at `path` (relative to the repository) uses the multislurm fixture."""
    if path not in _MULTISLURM:
        try:
            with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
                _MULTISLURM[path] = "multislurm" in f.read()
        except OSError:
            _MULTISLURM[path] = False
    return _MULTISLURM[path]


def _unit(nodeid):
    path = nodeid.split("::", 1)[0]
    name = path.rsplit("/", 1)[-1]
    if name in BEDS or _asks_multislurm(path):
        return "beds"
    return "every-pattern" if name in SHARED else path


def _order(unit):
    """Where a unit is handed out: the beds, then FIRST in its order, then the rest."""
    return -1 if unit == "beds" else FIRST.index(unit) if unit in FIRST else len(FIRST)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """`--dist loadfile` with the beds as one unit and SHARED as another. (xdist's own `loadgroup` with
    xdist_group marks does not group here: xdist 3.8 renames a test's `_nodeid`, which pytest 9's `nodeid` no
    longer reads.)"""
    if config.getoption("dist", None) != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class BedsTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return _unit(nodeid)

    return BedsTogether(config, log)


def pytest_collection_modifyitems(session, config, items):
    """On an xdist worker, the beds first (the longest unit; with --no-loadscope-reorder the first unit
    handed out), in their serial order, then FIRST; the other files keep their order. A serial run is not
    reordered."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        items.sort(key=lambda item: _order(_unit(item.nodeid)))

#!/usr/bin/env bash
# Mutation testing of the code that judges (issue 11, item 13): mutmut over gpudoctor/runner.py,
# gpudoctor/drift.py and checks/*.py. The figures, the exclusions and how to read them are in
# docs/mutation.md. Re-runnable: every run starts from a fresh copy.
#
#   bench/mutation.sh                       # the last commit (HEAD), one worker
#   MUTATION_SOURCE=worktree bench/mutation.sh   # the files as they are on disk (uncommitted work too)
#   MUTATION_SOURCE=975b900 bench/mutation.sh    # that commit (the tests too: a before/after figure)
#   MUTATION_REPORT_ONLY=1 MUTATION_WORKDIR=/tmp/x bench/mutation.sh  # the table of the run done there
#   MUTATION_WITH="launch nccl_env" bench/mutation.sh   # also mutate checks/launch.py, checks/nccl_env.py
#   MUTATION_ONLY="gpudoctor/drift.py" bench/mutation.sh  # one file (an only_mutate glob)
#   MUTATION_ONLY="tools/gen_pmix_errors.py" bench/mutation.sh  # a generator of tools/ (its tests import it
#       in-process: tests that run it in a subprocess do not count, mutmut cannot see what they call)
#   MUTATION_NAMES="gpudoctor.node.xǁNodeǁ__init__*" bench/mutation.sh  # only these mutants (fnmatch
#       globs over mutmut's names, which `mutmut run NAMES` takes), of the files MUTATION_ONLY names
#   MUTATION_TESTS="tests/test_nccl_infolog.py" bench/mutation.sh  # judge by these tests (files or
#       pytest node ids) instead of the checks' and the runner's (tests/test_mutation_*.py always, unless
#       MUTATION_OWN_TESTS=1: then these alone)
#
# Why a copy, and why checks/ moves: mutmut 3 names a mutant after its file's path
# (checks/shm.py -> "checks.shm") and activates it only in a function whose __module__ has that
# name, but checks/ installs as gpudoctor.checks (pyproject.toml's package-dir). In the copy,
# checks/ is moved to gpudoctor/checks/ so path and module name agree, and mutmut's mutants/
# folder comes first on sys.path (the editable install's finder comes after it). Nothing in the
# working tree is touched; the copy has no .git, so mutmut's git change detection is off.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
VENV=${VENV:-$REPO/.venv}
WORK=${MUTATION_WORKDIR:-${TMPDIR:-/tmp}/gpudoctor-mutation}
SOURCE=${MUTATION_SOURCE:-HEAD}
CHILDREN=${MUTATION_CHILDREN:-1}   # the dev VM has 2 cores shared with others: one worker
WITH=${MUTATION_WITH:-}
ONLY=${MUTATION_ONLY:-gpudoctor/runner.py gpudoctor/drift.py gpudoctor/checks/*.py}
NAMES=${MUTATION_NAMES:-}
# tools/*.py (the knowledge generators) are mutated too when MUTATION_ONLY names them: see below
SOURCES=gpudoctor
case " $ONLY " in *" tools/"*) SOURCES="gpudoctor tools";; esac

# The tests each module is judged by: the checks' own table-driven tests, the runner's report
# tests and the mutation tests. Never the sshd / Slurm / namespace tests (slow, need servers).
TESTS="tests/test_checks_foundation.py tests/test_cuda_libs.py tests/test_cuda_driver_compat.py
tests/test_gpu_inventory.py tests/test_python_env_checks.py tests/test_network_rdma.py tests/test_xid.py
tests/test_report_formats.py tests/test_hostile_checks.py"
# (not tests/test_launch_rendezvous.py: it runs over the sshd test bed)
case " $WITH " in *" launch "*) TESTS="$TESTS tests/test_launch.py tests/test_launch_hardening.py tests/test_launch_upstream.py";; esac
case " $WITH " in *" nccl_env "*) TESTS="$TESTS tests/test_nccl_table.py";; esac
[ -n "${MUTATION_TESTS:-}" ] && TESTS=$MUTATION_TESTS

if [ -n "${MUTATION_REPORT_ONLY:-}" ]; then   # the table again, from the last run in $WORK
    cd "$WORK"
else
rm -rf "$WORK"
mkdir -p "$WORK"
if [ "$SOURCE" != worktree ]; then   # HEAD or another commit (a before/after comparison)
    git -C "$REPO" archive "$SOURCE" | tar -x -C "$WORK"
    echo "source: commit $(git -C "$REPO" rev-parse --short "$SOURCE")"
else
    (cd "$REPO" && git ls-files -z --cached --others --exclude-standard \
        | while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done \
        | xargs -0 cp --parents -t "$WORK")
    echo "source: working tree of $(git -C "$REPO" rev-parse --short HEAD) (uncommitted changes included)"
fi
mv "$WORK/checks" "$WORK/gpudoctor/checks"
# MUTATION_OWN_TESTS=1: judge by MUTATION_TESTS alone, without every tests/test_mutation_*.py (a function that every
# explain calls, as sshenv.read or settings._told, is otherwise run under hundreds of golden-table tests per mutant)
[ -n "${MUTATION_OWN_TESTS:-}" ] || \
for t in "$WORK"/tests/test_mutation_*.py; do [ -e "$t" ] && TESTS="$TESTS tests/$(basename "$t")"; done

# mutmut 3 does not mutate a decorated function (mutmut/mutation/file_mutation.py: "ignore decorated
# functions"), and every check is one: @check(...). In the copy, `@deco def f` is rewritten as
# `def f` followed by `f = deco(f)`, what the decorator syntax means (Python reference, "Function
# definitions"), so the check bodies and the runner's @property methods are mutated too.
(cd "$WORK" && "$VENV/bin/python" - $ONLY <<'PY'
import ast, glob, sys
for pattern in sys.argv[1:]:
    for path in sorted(glob.glob(pattern)):
        src = open(path).read()
        lines = src.splitlines(keepends=True)
        funcs = [n for n in ast.walk(ast.parse(src)) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and n.decorator_list and not any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
                                                  for d in n.decorator_list)]
        for fn in sorted(funcs, key=lambda n: -n.lineno):  # bottom-up: line numbers above stay valid
            indent = lines[fn.lineno - 1][:len(lines[fn.lineno - 1]) - len(lines[fn.lineno - 1].lstrip())]
            call = fn.name
            for d in reversed(fn.decorator_list):  # the innermost (lowest) decorator applies first
                call = "(%s)(%s)" % (ast.get_source_segment(src, d), call)
            lines.insert(fn.end_lineno, "%s%s = %s\n" % (indent, fn.name, call))
            del lines[fn.decorator_list[0].lineno - 1:fn.lineno - 1]
        open(path, "w").write("".join(lines))
PY
)
rm -f "$WORK/setup.cfg"

# A generator in tools/ is imported by its tests as a top-level module (`import gen_pmix_errors`, tools/ on
# sys.path) or run as a script (`python tools/gen_x.py`, __name__ "__main__"), while mutmut names its mutants
# "tools.gen_x..." and switches one on only in a function whose __module__ is that name (the trampoline compares
# orig.__module__). In the copy, each named generator sets __name__ to "tools.<name>" before its first
# definition (a function's __module__ is the __name__ of the globals it is defined in) and keeps the real one
# for its `if __name__ == "__main__":`.
(cd "$WORK" && "$VENV/bin/python" - $ONLY <<'PY'
import ast, glob, sys
for pattern in sys.argv[1:]:
    for path in sorted(glob.glob(pattern)):
        if not path.startswith("tools/"):
            continue
        src = open(path).read()
        first = min(n.lineno - len(getattr(n, "decorator_list", [])) for n in ast.parse(src).body
                    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))
        lines = src.splitlines(keepends=True)
        lines.insert(first - 1, "_mutation_main, __name__ = __name__, %r\n" % path[:-3].replace("/", "."))
        out = "".join(lines).replace('if __name__ == "__main__":', 'if _mutation_main == "__main__":')
        open(path, "w").write(out)
PY
)

skip="gpudoctor/checks/__init__.py"
for name in launch nccl_env; do
    case " $WITH " in *" $name "*) ;; *) skip="$skip gpudoctor/checks/$name.py";; esac
done
lines() { set -f; for x in $1; do printf '    %s\n' "$x"; done; set +f; }
{
    echo "[mutmut]"
    echo "source_paths ="; lines "$SOURCES"
    echo "only_mutate ="; lines "$ONLY"
    echo "do_not_mutate ="; lines "$skip"
    echo "pytest_add_cli_args = -p no:cacheprovider"
    echo "pytest_add_cli_args_test_selection ="; lines "$TESTS"
    echo "use_git_change_detection = false"
} > "$WORK/setup.cfg"
# pyproject.toml has no [tool.mutmut], so mutmut reads setup.cfg (mutmut/configuration.py).

cd "$WORK"
# The tests read fixtures/, tools/, docs/ beside tests/: links, not mutmut's also_copy, because the
# recorded sysfs trees hold dangling links (a device's driver) that shutil.copytree refuses.
mkdir -p mutants
for entry in *; do
    case " $SOURCES " in *" $entry "*) continue;; esac   # mutmut copies the source paths, mutated
    case "$entry" in tests|mutants|setup.cfg|pyproject.toml|run.log) ;; *) ln -s "../$entry" "mutants/$entry";; esac
done
echo "mutmut $("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("mutmut"))'), $CHILDREN worker(s), in $WORK"
start=$(date +%s)
set -f
"$VENV/bin/mutmut" run --max-children "$CHILDREN" $NAMES > "$WORK/run.log" 2>&1 || { tail -40 "$WORK/run.log"; exit 3; }
set +f
echo "mutmut run took $(( $(date +%s) - start )) s"
fi
"$VENV/bin/mutmut" results --all true > "$WORK/results.txt"
set -f

# Per-module figures; the equivalent mutants listed in docs/mutation.md (a table row that starts
# with `| \`<mutant name>\` |`) are left out of the score, each with its reason there.
"$VENV/bin/python" - "$WORK/results.txt" "$REPO/docs/mutation.md" $NAMES <<'EOF'
import collections, fnmatch, re, sys
results, doc, names = sys.argv[1], sys.argv[2], sys.argv[3:]
try:
    text = open(doc).read()
except FileNotFoundError:
    text = ""
equivalent = set(re.findall(r"^\| `([\w.ǁ]+__mutmut_\d+)` \|", text, re.M))
by = collections.defaultdict(collections.Counter)
alive = []
for line in open(results):
    name, _, status = line.strip().rpartition(": ")
    if "__mutmut_" not in name or (names and not any(fnmatch.fnmatch(name, n) for n in names)):
        continue
    module = re.sub(r"\.x[_ǁ].*$", "", name)
    if name in equivalent:
        by[module]["equivalent"] += 1
        continue
    by[module][status] += 1
    if status != "killed":
        alive.append("%s: %s" % (name, status))
tot = collections.Counter()
print("%-34s %6s %6s %8s %6s %5s" % ("module", "total", "killed", "survived", "other", "equiv"))
for module in sorted(by):
    c = by[module]
    tot.update(c)
    other = sum(v for k, v in c.items() if k not in ("killed", "survived", "equivalent"))
    total = sum(v for k, v in c.items() if k != "equivalent")
    print("%-34s %6d %6d %8d %6d %5d  %5.1f%%" % (module, total, c["killed"], c["survived"], other,
          c["equivalent"], 100.0 * c["killed"] / max(total, 1)))
total = sum(v for k, v in tot.items() if k != "equivalent")
print("%-34s %6d %6d %8d %6d %5d  %5.1f%%" % ("ALL", total, tot["killed"], tot["survived"],
      total - tot["killed"] - tot["survived"], tot["equivalent"], 100.0 * tot["killed"] / max(total, 1)))
print("\nnot killed (see: cd %s && mutmut show NAME):" % results.rsplit("/", 1)[0])
for a in alive:
    print("  " + a)
EOF

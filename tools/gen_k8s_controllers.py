#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/k8s_controllers.json: which operator runs each Kubernetes controller,
by the controller's name, read from the operators' own Go sources (noanswer20, issue 18 item 2).

controller-runtime logs every failed reconcile as 'Reconciler error' (pkg/internal/controller/controller.go
reconcileHandler: log.Error(err, "Reconciler error")) on the controller's logger, which names the controller: up to
v0.14 as the logger's name 'controller.<name>' (pkg/controller/controller.go NewUnmanaged: Log:
options.Log.WithName("controller").WithName(name); gpu-operator vendored v0.11.0 in 2022), since then as the field
"controller": "<name>" (WithValues("controller", name)). The name is the operator's own: the first argument of
controller.New("<name>", mgr, ...), the builder's Named("<name>"), else the lower-cased Kind of its For(&<Kind>{})
(pkg/builder/controller.go getControllerName: strings.ToLower(gvk.Kind)). gpudoctor/explain/k8sctrl.py reads a
'Reconciler error' line's controller name in this table: the operator that failed, its family and its name for the
fix.

Usage:
    python tools/gen_k8s_controllers.py --src gpu-operator=GITDIR[@REV] --src kueue=GITDIR[@REV] ... \
        [--record tools/data/k8s_controllers_slice.txt] [-o OUT]
    python tools/gen_k8s_controllers.py --slice tools/data/k8s_controllers_slice.txt -o OUT   (the test)

Sources (read with `git show REV:path`, never executed; the Go files outside vendor/, tests and test/): OPERATORS
below, at the revisions tools/gen_k8s_messages.py pins for the same repositories (generated/k8s_messages.json's
header), NVIDIA's network operator at the fetched mirror's HEAD. A name that two operators define (the builder's
default 'pod' of JobSet's and LWS's pod controllers) names neither and is left out (shared); so is a builder's default
name (the lower-cased Kind: Kueue names its controller for JobSets 'jobset' too, kind_defaults) and a name made of
core kinds and common words only ('upgrade-controller', generic); an operator with no family of its own in the
knowledge (OPERATORS' None) is listed, unassigned.

The slice records each controller found: '<key> <path>:<line> <name> <how>' under a '#! version' line per operator.
"""

import argparse
import collections
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_k8s_controllers.py"
NAME = "k8s_controllers"
# (key, GitHub repository, family of its failures in the knowledge or None, the operator's name in a fix)
OPERATORS = (
    ("gpu-operator", "NVIDIA/gpu-operator", "k8s.gpu_operator", "the NVIDIA GPU Operator"),
    ("network-operator", "Mellanox/network-operator", None, "the NVIDIA Network Operator"),
    ("kueue", "kubernetes-sigs/kueue", "k8s.kueue", "Kueue"),
    ("jobset", "kubernetes-sigs/jobset", "k8s.jobset", "JobSet"),
    ("lws", "kubernetes-sigs/lws", "k8s.lws", "LeaderWorkerSet"),
    ("training-operator", "kubeflow/training-operator", None, "the Kubeflow Training Operator"),
)
_BY_KEY = {k: (repo, fam, name) for k, repo, fam, name in OPERATORS}
_SKIP = re.compile(r"(?:^|/)(?:vendor|test|tests|e2e|hack)/|_test\.go$")
# controller.New("<name>", mgr, ...) (also controller.NewUnmanaged / NewTyped); the builder's Named(<name>)
_NEW = re.compile(r"\bcontroller\.New(?:Unmanaged|Typed|TypedUnmanaged)?\(\s*(?P<arg>\"[^\"\n]{1,80}\"|"
                  r"[A-Za-z_][\w.]{0,60}(?:\(\))?)\s*,")
_BUILDER = re.compile(r"\bNewControllerManagedBy\(\s*\w{1,40}\s*\)")
_NAMED = re.compile(r"\.\s*Named\(\s*(?P<arg>\"[^\"\n]{1,80}\"|[A-Za-z_][\w.]{0,60})\s*\)")
_FOR = re.compile(r"\.\s*For\(\s*&(?:[A-Za-z_]\w{0,40}\.)?(?P<kind>[A-Z]\w{0,60})\{\}")
_END = re.compile(r"\.\s*(?:Complete|Build)\(")
_CONST = r"\b%s\s*(?:string\s*)?=\s*\"(?P<v>[^\"\n]{1,80})\""
# names that say no operator: the builder's default for a controller of a core Kubernetes kind (any operator may
# reconcile Pods or Nodes: k8s.io/api core/v1, apps/v1, batch/v1) and words every operator's controllers use; a name
# with nothing but these is left out (generic)
_GENERIC = frozenset(("pod", "node", "service", "configmap", "secret", "namespace", "event", "endpoints",
                      "persistentvolumeclaim", "deployment", "statefulset", "daemonset", "replicaset", "job",
                      "cronjob", "upgrade", "drain", "controller", "reconciler", "v1"))


def kept(how, name, seen):
    """Whether a controller's name names its operator: defined by one operator only, not generic, and the operator's
    own choice (controller.New / Named), not the builder's default - the lower-cased Kind of For(&<Kind>{}), which
    every operator that reconciles that kind shares: Kueue's generic job reconciler names each integration's
    controller strings.ToLower(Kind) (pkg/controller/jobframework/reconciler.go SetupWithManager), so 'jobset' is
    Kueue's in Kueue's log as well as JobSet's own."""
    return how != "For" and len(seen[name]) == 1 and not generic(name)


def generic(name):
    """Whether a controller's name is made of _GENERIC words only ('pod', 'upgrade-controller', 'v1_pod')."""
    return all(w in _GENERIC for w in re.split(r"[-_.]", name.lower()) if w)


def _resolve(arg, src, all_srcs):
    """A Go string literal's value, or the value of the constant it names (its file first, then the others)."""
    if arg.startswith('"'):
        return arg.strip('"')
    ident = arg.rsplit(".", 1)[-1]
    # a getter's call (training-operator's r.ControllerName(), which returns its file's controllerName constant)
    idents = [ident[:-2], ident[0].lower() + ident[1:-2]] if ident.endswith("()") else [ident]
    for name in idents:
        for s in [src] + list(all_srcs):
            m = re.search(_CONST % re.escape(name), s)
            if m:
                return m.group("v")
    return None


def controllers(files):
    """[(path, line, name, how)] of the controllers the Go files [(path, text)] define."""
    out = []
    srcs = [t for _, t in files]
    for path, src in files:
        for m in _NEW.finditer(src):
            name = _resolve(m.group("arg"), src, srcs)
            if name:
                out.append((path, src.count("\n", 0, m.start()) + 1, name, "controller.New"))
        for m in _BUILDER.finditer(src):
            end = _END.search(src, m.end())
            chain = src[m.end():end.start() if end else m.end() + 3000]
            line = src.count("\n", 0, m.start()) + 1
            named = _NAMED.search(chain)
            if named:
                name = _resolve(named.group("arg"), src, srcs)
                if name:
                    out.append((path, line, name, "Named"))
                continue
            kind = _FOR.search(chain)
            if kind:
                out.append((path, line, kind.group("kind").lower(), "For"))
    return out


def read_repo(key, gitdir, rev):
    git = knowgen.git_reader(gitdir)
    files = knowgen.tree_files(git, rev, [], lambda p: p.endswith(".go") and not _SKIP.search(p))
    version = knowgen.revision(git, rev, untagged=rev)
    return version, controllers(files)


def build(rows):
    """The table from {key: (version, [(path, line, name, how)])}."""
    seen = collections.defaultdict(set)
    for key, (_, found) in rows.items():
        for _, _, name, _ in found:
            seen[name].add(key)
    gen = sorted({n for n in seen if generic(n)})
    table, coverage = {}, {}
    for key, (version, found) in sorted(rows.items()):
        repo, fam, op = _BY_KEY[key]
        names = sorted({n for _, _, n, how in found if kept(how, n, seen)})
        coverage[key] = {"controllers": len({n for _, _, n, _ in found}), "kept": len(names),
                         "family": fam}
        for path, line, name, how in sorted(found):
            if kept(how, name, seen) and name not in table:
                table[name] = {"operator": key, "repo": repo, "where": "%s:%s:%d" % (repo, path, line), "how": how,
                               "family": fam, "name": op}
    return {"header": knowgen.header(
                "the operators' Go sources (%s): controller.New(\"<name>\", ...), the builder's Named(\"<name>\") or "
                "the lower-cased Kind of For(&<Kind>{})" % ", ".join("https://github.com/%s" % r
                                                                      for _, r, _, _ in OPERATORS),
                "; ".join("%s %s" % (_BY_KEY[k][0], v) for k, (v, _) in sorted(rows.items())), GENERATOR,
                "generated by %s; do not edit by hand, run it again. controllers: a controller's name (as "
                "controller-runtime logs it with 'Reconciler error') -> the operator that defines it, where, its "
                "family (None: no family of its own in the knowledge) and its name; shared: names several "
                "operators define (left out); generic: names of core kinds and common words only (left out); "
                "kind_defaults: the builder's default names (a Kind's, which other operators reconciling that kind "
                "share: left out); coverage per operator" % GENERATOR),
            "sites": [],  # (no message sites: k8sctrl.py reads the table itself, knowledge.generated_table)
            "controllers": dict(sorted(table.items())),
            "shared": {n: sorted(k) for n, k in sorted(seen.items()) if len(k) > 1},
            "generic": gen,
            "kind_defaults": sorted({n for _, (_, found) in rows.items() for _, _, n, how in found if how == "For"}),
            "coverage": coverage}


def write_slice(path, rows):
    with open(path, "w") as f:
        f.write("# Recorded by %s --record: each controller found, '<key> <path>:<line> <name> <how>'\n" % GENERATOR)
        for key, (version, found) in sorted(rows.items()):
            f.write("#! version %s %s\n" % (key, version))
            for p, line, name, how in sorted(found):
                f.write("%s %s:%d %s %s\n" % (key, p, line, name, how))


def read_slice(path):
    rows = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#! version "):
                key, version = line[len("#! version "):].rstrip("\n").split(" ", 1)
                rows[key] = (version, [])
            elif line.strip() and not line.startswith("#"):
                key, where, name, how = line.split()
                p, _, ln = where.rpartition(":")
                rows[key][1].append((p, int(ln), name, how))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", action="append", default=[], help="KEY=GITDIR[@REV]")
    ap.add_argument("--slice")
    ap.add_argument("--record")
    ap.add_argument("-o", "--out")
    a = ap.parse_args(argv)
    if bool(a.src) == bool(a.slice):
        ap.error("give --src KEY=GITDIR[@REV] ... or --slice")
    if a.slice:
        rows = read_slice(a.slice)
    else:
        rows = {}
        for s in a.src:
            key, _, loc = s.partition("=")
            if key not in _BY_KEY:
                ap.error("unknown operator %s (OPERATORS: %s)" % (key, ", ".join(_BY_KEY)))
            gitdir, _, rev = loc.partition("@")
            rows[key] = read_repo(key, gitdir, rev or "HEAD")
    if a.record:
        write_slice(a.record, rows)
    doc = build(rows)
    out = a.out or os.path.join(knowgen.OUT_DIR, NAME + ".json")
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print("%s: %d operators, %d controllers kept, %d shared" % (out, len(rows), len(doc["controllers"]),
                                                               len(doc["shared"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())

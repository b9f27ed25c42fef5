"""A Kubernetes operator's failed reconcile, named by its controller (noanswer20, issue 18 item 2): controller-runtime
logs every reconcile that returned an error as 'Reconciler error' (sigs.k8s.io/controller-runtime
pkg/internal/controller/controller.go reconcileHandler: log.Error(err, "Reconciler error")) on the controller's own
logger, which names the controller: up to v0.14 as the logger's name 'controller.<name>' (pkg/controller/
controller.go: options.Log.WithName("controller").WithName(name); zap prints it after the level:
'ERROR<TAB>controller.clusterpolicy-controller<TAB>Reconciler error<TAB>{...}'), since then as the field
"controller": "<name>" (WithValues("controller", name)), in JSON or key=value form.

The name is in generated/k8s_controllers.json (tools/gen_k8s_controllers.py, the operators' own Go sources:
controller.New("<name>"), the builder's Named("<name>"), the lower-cased Kind of For(&<Kind>{})): the operator that
failed, its family, where the controller is defined. The error itself is the line's "error" field, whoever raised it;
one of them is read for its meaning: apimachinery's NoKindMatchError ('no matches for kind "X" in version "g/v"',
k8s.io/apimachinery/pkg/api/meta/errors.go), the API server not serving that kind at that version (a Kubernetes
release that removed it - https://kubernetes.io/docs/reference/using-api/deprecation-guide/ - or a CRD not
installed): an operator release built for another Kubernetes.

The answer is the operator's family (How sure: low) with the next step (the operator's own log, the object's status,
the API versions the cluster serves). explicit.seen() counts such a line when its controller's operator has a family;
explicit.structural() asks finding() after the readers of the error's own words.
"""

import re

_NAME = r"(?P<name>[A-Za-z0-9][\w-]{0,80}(?:\.[\w-]{1,80}){0,3})"
PATTERNS = {"_struct_ex_reconcile": [
    # the logger's name (controller-runtime <= v0.14): zap's console ('controller.<name>\tReconciler error') or JSON
    # ('"logger":"controller.<name>","msg":"Reconciler error"')
    (r"\bcontroller\." + _NAME + r"(?:\s{1,8}|\",\s?\"msg\":\s?\")Reconciler error\b", ["reconcilererror"]),
    # the field (v0.15+), after the message or before it: '"controller": "<name>"', 'controller="<name>"'
    (r"\bReconciler error\b[^\n]{0,400}?[{,\s]\"?controller\"?[=:]\s?\"" + _NAME + "\"", ["reconcilererror"]),
    (r"[{,\s]\"?controller\"?[=:]\s?\"" + _NAME + r"\"[^\n]{0,400}?\bReconciler error\b", ["reconcilererror"])]}

# the error field of the line: JSON '"error": "..."' (its escapes kept) or key=value 'err="..."'
_ERROR = re.compile(r"\"?(?:error|err)\"?[=:]\s?\"(?P<err>(?:[^\"\\\n]|\\.){1,600})\"")
# apimachinery NoKindMatchError.Error(): 'no matches for kind %q in version %q' (also 'in group %q', 'in versions %q')
_NOKIND = re.compile(r"no matches for kind \\?\"(?P<kind>\w{1,80})\\?\" in (?:version|group)s? "
                     r"\\?\"?(?P<ver>[\w./-]{1,120})")


def _crd_group(ver):
    """Whether an apiVersion's group ('monitoring.coreos.com/v1') is one only a CustomResourceDefinition serves: a
    dotted group outside Kubernetes' own '*.k8s.io' (the SIGs' '*.x-k8s.io' are CRDs too). The core group ('v1') and
    the built-in groups without a dot (apps, batch, policy, autoscaling, extensions) are Kubernetes' own
    (https://kubernetes.io/docs/reference/using-api/#api-groups). (review20: a ServiceMonitor the GPU operator asks for
    is prometheus-operator's CRD, not an API a Kubernetes release removed.)"""
    group = ver.split("/", 1)[0] if "/" in ver else ""
    if "." not in group:
        return False
    return group.endswith(".x-k8s.io") or not (group.endswith(".k8s.io") or group == "k8s.io")


def _controllers():
    from gpudoctor.explain.knowledge import generated_table

    return generated_table("k8s_controllers").get("controllers") or {}


def hits(scan, known=()):
    """[(Hit, table row)] of 'Reconciler error' lines whose controller an operator with a family defines."""
    table = _controllers()
    out = []
    for h in scan.matches.get("_struct_ex_reconcile", []):
        row = table.get(h.groups.get("name") or "")
        if row and row.get("family") and h.line not in known:
            out.append((h, row))
    return out


def finding(scan, kb, structural_finding, known=()):
    from gpudoctor.explain.provenance import _ran_past

    by = kb.by_id
    for h, row in hits(scan, known):
        fam = row["family"]
        if fam not in by or _ran_past(scan, h.line):
            continue
        name = h.groups.get("name")
        f = structural_finding(by[fam], h, "controller-runtime's 'Reconciler error' of the controller %s, %s's (%s)" % (
            name, row["name"], row["where"]), scan)
        m = _ERROR.search(h.text)
        err = m.group("err").replace('\\"', '"') if m else None
        f["notes"].append("%s's controller %s could not reconcile its object%s; controller-runtime retries it with "
                          "a backoff, so the same line comes back until the cause is fixed. Next: the operator's own "
                          "log around it (kubectl logs -n <its namespace> deploy/<the operator>), the object's status "
                          "(kubectl describe <its kind> <name>: conditions, events)." % (
                              row["name"], name, ": %s" % err[:300] if err else ""))
        k = _NOKIND.search(err or "")
        if k and _crd_group(k.group("ver").rstrip("\\\"")):
            kind, ver = k.group("kind"), k.group("ver").rstrip("\\\"")
            group = ver.split("/", 1)[0]
            f["causes"].insert(0, {
                "text": "The API server does not serve %s in %s (apimachinery's NoKindMatchError): %s is an API group "
                        "a CustomResourceDefinition defines, not one Kubernetes serves itself, so the CRD of %s is not "
                        "installed in this cluster (or is installed without version %s). %s asks for it." % (
                            kind, ver, group, kind, ver.split("/", 1)[-1], row["name"][:1].upper() + row["name"][1:]),
                "checks": [], "confirm": ["kubectl get crd | grep -i %s (the CRDs of that group installed here); "
                                          "kubectl api-resources --api-group=%s" % (group, group)],
                "fix": ["install the CustomResourceDefinition of %s %s (it ships with the project that owns the %s "
                        "group), or turn off %s's option that uses %s" % (kind, ver, group, row["name"], kind)],
                "exports": {}, "evidence": [], "static_rank": 0, "computed": None})
        elif k:
            kind, ver = k.group("kind"), k.group("ver").rstrip("\\\"")
            f["causes"].insert(0, {
                "text": "The API server does not serve %s in %s (apimachinery's NoKindMatchError): this Kubernetes "
                        "release removed that API version (the deprecation guide lists when), or the "
                        "CustomResourceDefinition that defines it is not installed. %s asks for it: a release of it "
                        "built for another Kubernetes." % (kind, ver, row["name"][:1].upper() + row["name"][1:]),
                "checks": [], "confirm": ["kubectl api-resources | grep -i %s (the group/versions this cluster "
                                          "serves for it); kubectl version" % kind],
                "fix": ["upgrade %s to a release that supports this Kubernetes version (its release notes / support "
                        "matrix), or run a Kubernetes version that still serves %s %s" % (row["name"], kind, ver)],
                "exports": {}, "evidence": [], "static_rank": 0, "computed": None})
        return f
    return None

"""Two refusals Kubernetes itself writes, read by who refused and whom (noans22, issue 18 item 2). Neither is a
program's log line of the job: the API server's and the kubelet's own status texts, pasted from `kubectl describe`,
`kubectl get -o yaml` or an operator's log.

- **The kubelet refused to admit a pod because a device allocation failed.** The kubelet's admit handlers
  (kubernetes pkg/kubelet/cm/admission/errors.go; before 1.26 pkg/kubelet/cm/devicemanager's and topologymanager's
  own copies) turn an allocation error into the pod's status: Reason "UnexpectedAdmissionError", Message "Allocate
  failed due to %v, which is unexpected" (the kubelet writes it as "Pod Allocate failed due to ..."). The %v is the
  allocator's error; for an extended resource it is the device manager's (pkg/kubelet/cm/devicemanager/manager.go:
  "requested number of devices unavailable for %s. Requested: %d, Available: %d") or the device plugin's own Allocate
  reply. The scheduler placed the pod by the node's advertised capacity and the kubelet then found the devices taken
  or unknown: a device plugin that re-registered and lost its allocations, a kubelet checkpoint that still holds a
  force-deleted pod's devices, or a scheduler extender (HAMi, Volcano) that assigns GPUs outside the device manager.
  Family k8s.device_plugin when the message names a device resource (<domain>/<name>) or a device / GPU; a CPU or
  memory manager's refusal is not read.
- **The API server refused a request for want of a permission.** k8s.io/apiserver pkg/endpoints/handlers/
  responsewriters/errors.go forbiddenMessage: `User %q cannot %s resource %q in API group %q in the namespace %q`
  (or `at the cluster scope`), inside apimachinery's NewForbidden `%s %q is forbidden: %v`. A service account's user
  is `system:serviceaccount:<namespace>:<name>`: the workload whose RBAC lacks the rule. When that name (or its
  namespace) is a component a k8s family names (mpi-operator -> k8s.mpi_operator, gpu-operator, kueue, jobset, lws,
  volcano, a device plugin), it is that component's install: its Role / ClusterRole does not grant what this release
  of it asks for (an image newer than its RBAC manifests, or the reverse: leader election moved from endpoints /
  configmaps to leases). Any other user is not read (a person's kubectl, an unknown app).

Both answer How sure: low with the next step (the node's allocated devices and the plugin's log; `kubectl auth can-i`
as that service account), last in explicit.structural, and only for a line no entry matched.
"""

import re

PATTERNS = {
    # the kubelet's admission message (the reason line alone is not read: it carries no allocator)
    # (a YAML status folds the message onto an indented next line: kept with it)
    "_struct_ex_admit": [(r"\bAllocate failed due to (?P<err>[^\n]{1,300}(?:\n[ \t]{2,12}[^\n:]{1,300})?)",
                          ["allocatefailedduet"])],
    # the API server's RBAC refusal
    "_struct_ex_forbidden": [(r"\bis forbidden: User \"(?P<user>[^\"\n]{1,200})\" cannot (?P<verb>[a-z]{1,40}) "
                              r"resource \"(?P<res>[^\"\n]{1,100})\"(?: in API group \"(?P<group>[^\"\n]{0,100})\")?"
                              r"(?: in the namespace \"(?P<ns>[^\"\n]{1,100})\"| at the cluster scope)?",
                              ["isforbidden:user"])],
}

_DEVICE = re.compile(r"(?<![\w./-])(?P<res>[a-z0-9][a-z0-9.-]{0,80}\.[a-z]{2,10}/[\w.-]{1,60})|\b(?:GPUs?|gpus?|"
                     r"devices?)\b")
_SA = re.compile(r"^system:serviceaccount:(?P<ns>[^:\s]{1,100}):(?P<name>[^:\s]{1,100})$")
# k8s families that name a state, not a component whose service account could be named after them
_STATES = frozenset(("container_config", "crashloop", "deadline", "evicted", "image_pull", "mount", "pod_sandbox",
                     "unschedulable", "device_plugin_error", "resolved"))


def _words(name):
    return [w for w in re.split(r"[-_.]", name.lower()) if w]


def component(kb, ns, name):
    """The k8s family whose component a service account's name (else its namespace) is, or None: the family's words
    (k8s.mpi_operator: mpi, operator) in a row among the name's ('mpi-operator'); the longest such family."""
    best = None
    for where in (name, ns):
        words = _words(where)
        for eid in kb.by_id:
            if not eid.startswith("k8s.") or eid.count(".") != 1:
                continue
            suffix = eid.split(".", 1)[1]
            if suffix in _STATES:
                continue
            want = suffix.split("_")
            n = len(want)
            if any(words[i:i + n] == want for i in range(len(words) - n + 1)):
                if best is None or len(want) > len(best[1]):
                    best = (eid, want)
        if best:
            return best[0]
    return None


def _hits(scan, eid, known):
    return [h for h in scan.matches.get(eid, []) if h.line not in known]


def admit_hits(scan, known=()):
    return [h for h in _hits(scan, "_struct_ex_admit", known) if _DEVICE.search(h.groups.get("err") or "")]


def forbidden_hits(scan, kb, known=()):
    out = []
    for h in _hits(scan, "_struct_ex_forbidden", known):
        m = _SA.match(h.groups.get("user") or "")
        fam = component(kb, m.group("ns"), m.group("name")) if m and kb is not None else None
        if fam or (m and kb is None):
            out.append((h, m, fam))
    return out


def hits(scan, known=()):
    """Whether the text has a line finding() reads (explicit.seen, without the knowledge)."""
    return bool(admit_hits(scan, known) or forbidden_hits(scan, None, known))


_PLAIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,252}$")  # names, verbs, dotted groups, system:serviceaccount:...


def _plain(value, placeholder):
    """``value`` where it is a plain Kubernetes word (a name, a verb, a dotted group, a user such as
    system:serviceaccount:ns:name): nothing a shell acts on, no leading '-'; "" stays ""; else ``placeholder``."""
    if not value:
        return value
    return value if _PLAIN.match(value) else placeholder


def _cause(text, fixes):
    return {"text": text, "checks": [], "confirm": [], "fix": fixes, "exports": {}, "evidence": [], "static_rank": 0,
            "computed": None}


def finding(scan, kb, structural_finding, known=()):
    from gpudoctor.explain.provenance import _ran_past

    by = kb.by_id
    for h in admit_hits(scan, known):
        if "k8s.device_plugin" not in by or _ran_past(scan, h.line):
            continue
        err = (h.groups.get("err") or "").strip()
        res = next((m.group("res").rstrip(".") for m in _DEVICE.finditer(err) if m.group("res")),
                   "the device resource")
        err = " ".join(err.split())
        f = structural_finding(by["k8s.device_plugin"], h, "the kubelet's admission refusal: the device allocation "
                               "failed (UnexpectedAdmissionError)", scan)
        f["causes"].insert(0, _cause(
            "The kubelet refused the pod at admission: allocating %s failed on the node the scheduler chose (%s). The "
            "scheduler counted the node's advertised devices; the kubelet's device manager found them taken or "
            "unknown: the device plugin re-registered and lost its allocations, the kubelet's checkpoint still holds "
            "a force-deleted pod's devices, or a scheduler extender assigns the devices outside the device manager."
            % (res, err[:200]),
            ["compare the node's allocatable and allocated %s: kubectl describe node <node> (Allocatable, Allocated "
             "resources) and the pods that hold them: kubectl get pods -A -o wide --field-selector spec.nodeName=<node>"
             % res,
             "read the device plugin's log on that node (kubectl logs -n <namespace> <device plugin pod on the node>) "
             "and restart it (delete its pod) if it re-registered; the failed pod is not retried: delete it so its "
             "controller makes a new one"]))
        f["notes"].append("Kubernetes' kubelet wrote this (pkg/kubelet/cm/admission/errors.go: 'Allocate failed due "
                          "to %v, which is unexpected', reason UnexpectedAdmissionError): the pod never started; the "
                          "allocator's own error is '" + err[:200] + "'.")
        return f
    for h, m, fam in forbidden_hits(scan, kb, known):
        if fam not in by or _ran_past(scan, h.line):
            continue
        g = h.groups
        # (the message's words go into a line a person pastes: each must be a plain Kubernetes name, else its
        # placeholder is written; a namespace "kubeflow\\' <(touch X) \\'" ran touch, a resource "--kubeconfig=..."
        # was an option: docs/security.md 43.)
        user, verb, res, ns = (_plain(g.get(k), "<%s>" % w) for k, w in (
            ("user", "user"), ("verb", "verb"), ("res", "resource"), ("ns", "namespace")))
        grp = _plain(g.get("group") or "", "<group>")
        can = "kubectl auth can-i %s %s%s --as=%s%s" % (verb, res, "." + grp if grp else "", user,
                                                        " -n " + ns if ns else "")
        f = structural_finding(by[fam], h, "the API server's RBAC refusal of the service account %s:%s" % (
            m.group("ns"), m.group("name")), scan)
        f["causes"].insert(0, _cause(
            "%s's service account %s may not %s %s%s: its Role / ClusterRole does not grant it. The component's RBAC "
            "manifests and its image are from different releases (a newer release asks for another resource: leader "
            "election moved from endpoints / configmaps to leases), or the install left its role out." % (
                m.group("name"), user, verb, res, " (API group %s)" % grp if grp else ""),
            ["confirm: " + can,
             "apply the RBAC manifests (ClusterRole / Role and their bindings) of the same release as the running "
             "image, or add the rule: apiGroups [\"%s\"], resources [\"%s\"], verbs [\"%s\"]" % (grp, res, verb)]))
        f["notes"].append("The API server wrote this (k8s.io/apiserver responsewriters forbiddenMessage: 'User %%q "
                          "cannot %%s resource %%q in API group %%q ...'): the request of %s was refused for want of "
                          "a permission; %s is the component it runs." % (user, m.group("name")))
        return f
    return None

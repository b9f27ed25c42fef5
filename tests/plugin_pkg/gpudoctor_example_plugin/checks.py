"""A site's own check: the node must have at least 4 CPUs."""

from gpudoctor.registry import Finding, Pass, check


@check("site.cpus", title="the node has at least 4 CPUs (site policy)", needs=("host",), severity="warning")
def site_cpus(facts, config):
    cpus = facts["host"].get("cpus") or 0
    if cpus < 4:
        yield Finding.warning("only %d CPUs" % cpus, observed=str(cpus), expected=">= 4")
    else:
        yield Pass("%d CPUs >= 4" % cpus)

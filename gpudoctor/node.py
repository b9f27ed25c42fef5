"""One node as the runner sees it: its facts, or why it could not be checked."""

from gpudoctor.record import Record


class Node(Record):
    _fields = ("host", "facts", "error", "error_kind", "via", "fallback_from")

    def __init__(self, host, facts=None, error=None, error_kind=None, via=None, fallback_from=None):
        self.host = host
        self.facts = facts  # dict or None
        self.error = error
        # resolve, refused, timeout, auth, hostkey, python, garbage, collector, interrupted, ...
        self.error_kind = error_kind
        # the transport that reached the node (srun, ssh) in a cluster run; None for saved facts
        self.via = via
        # the srun failure a node reached over ssh instead had (--fallback ssh)
        self.fallback_from = fallback_from

    @property
    def reachable(self):
        return self.facts is not None

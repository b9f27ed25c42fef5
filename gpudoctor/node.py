"""One node as the runner sees it: its facts, or why it could not be checked."""

from dataclasses import dataclass
from typing import Optional


@dataclass
class Node:
    host: str
    facts: Optional[dict] = None
    error: Optional[str] = None
    # resolve, refused, timeout, auth, hostkey, python, garbage, collector, interrupted, ...
    error_kind: Optional[str] = None
    # the transport that reached the node (srun, ssh) in a cluster run; None for saved facts
    via: Optional[str] = None
    # the srun failure a node reached over ssh instead had (--fallback ssh)
    fallback_from: Optional[str] = None

    @property
    def reachable(self):
        return self.facts is not None

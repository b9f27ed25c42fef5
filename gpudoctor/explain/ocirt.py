"""The container runtimes' own lines (issue 18): which answer leads when a container engine's error wraps another.

podman, docker, runc and crun wrap each error of a lower layer into their own line: 'Error: cannot listen on the TCP
port: listen tcp4 :18080: bind: address already in use' is podman's published port (its source:
libpod/oci_util.go), carrying the kernel's EADDRINUSE text that the rendezvous family also knows. On such a line the
program that printed it is the container engine (its message site matched that very line: the generated
oci_messages.json, tools/gen_oci_messages.py), so its family leads; the other entry, which knows only the wrapped
words, follows as related. Only a site with its own meaning and fix does this (MSG_FIX of the generator: the
message is known whole, not a generic wrapper such as 'OCI runtime error'). Nothing changes when the other entry has a line of its own (the training job's own
EADDRINUSE beside a container's warning).
"""

PREFIX = "container.oci_"


def _lines(m):
    return set(m.get("lines") or [h.line for h in m.get("hits") or ()])


def _own_site_lines(m):
    """The lines where the entry matched through a generated message site that has its own meaning and fix."""
    return {h.line for h in m.get("hits") or () if (getattr(getattr(h, "pattern", None), "site", None) or {}).get("fix")}


def runtime_line_first(order, matched, by):
    """``order`` with the first container.oci_* entry moved ahead of the root when every line the root matched is a
    line where that entry's message site with its own meaning matched (the engine's own line, wrapping the root's
    words). A root of the container families (container.*, pyxis.*, enroot.*: a runtime's own, more specific
    message, e.g. nvidia-container-cli's inside the OCI runtime's line) stays."""
    if not order or order[0].startswith(("container.", "pyxis.", "enroot.")) or by[order[0]].get("kind") == "echo":
        return order
    root = _lines(matched[order[0]])
    if not root:
        return order
    for eid in order[1:]:
        if eid.startswith(PREFIX) and root <= _own_site_lines(matched[eid]):
            return [eid] + [e for e in order if e != eid]
    return order

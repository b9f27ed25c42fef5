"""This machine, in process: the collector runs here, under the wall-clock deadline of
gpudoctor/deadline.py. ``hosts`` is empty (or names only this machine); the one Node
is named by the collector (the hostname)."""

from gpudoctor.transport import Node, Transport, interrupted_node


class LocalTransport(Transport):
    name = "local"

    def run(self, hosts, payload):
        """[Node] for this machine. payload.fast is the prolog tier: facts read in this
        process only (/proc, /sys, rlimits, NVML), no probe of another interpreter unless
        payload.python names one, no nvidia-smi fallback."""
        from gpudoctor import deadline, gather

        python, options = payload.python, dict(payload.options or {})
        if payload.fast:
            options.setdefault("nvidia_smi", False)

            def work():
                if python:
                    return gather.local(python=python, options=options)
                from gpudoctor import early

                # the facts the child forked first thing collected meanwhile (early.py), when
                # it read what this process would; else collected here, taking its sections
                doc = early.take_facts(options)
                if doc is None:
                    from gpudoctor.collector import Context, collect

                    doc = collect(Context(python=None, options=options, prefetched=early.take))
                return [Node(host=doc["node"] or "localhost", facts=doc)]
        else:
            def work():
                return gather.local(python=python, options=options or None)

        if isinstance(options.get("watch"), dict):
            from gpudoctor.collector.watch import reset_stop

            reset_stop()
        try:
            finished, nodes = deadline.call(work, self.timeout)
        except KeyboardInterrupt as exc:
            try:
                with deadline.held_interrupts():  # timeout -s INT sends two: not a second Ctrl-C to obey
                    kept = _sampled_so_far(exc, options)
            except KeyboardInterrupt:  # one that came before the hold began
                kept = None
            deadline.kill_children()
            exc.partial_nodes = kept or [interrupted_node(_hostname())]
            raise
        if finished:
            from gpudoctor.transport import stamp

            for n in nodes:  # this machine's own clock: nothing to compare it with (checks/clock.py)
                if isinstance(n.facts, dict):
                    stamp(n.facts, "local")
            return nodes
        deadline.kill_children()
        return [deadline.timed_out_node(self.timeout)]


STOP_GRACE = 10.0  # seconds a stopped watch window has to hand back what it sampled
# (3 s lost the samples on a loaded machine: a clean-clone CI run at 2.5x its usual wall time, ci31a, ended the
# local window's hand-back late and printed no samples; the window's end is a few reads: it ends well within this)


def _sampled_so_far(exc, options):
    """[Node] with the samples `gpudoctor watch` took before Ctrl-C: the window is told to end (collector/watch.py
    STOP) and given STOP_GRACE seconds to finish; None for any other run, or when it did not finish."""
    pending = getattr(exc, "pending", None)
    if not pending or not isinstance(options.get("watch"), dict):
        return None
    _thread, out = pending
    from gpudoctor.collector.watch import request_stop

    request_stop()
    out.finished.wait(STOP_GRACE)
    nodes = out.value if out.done and out.error is None else None
    if not nodes or not all(((n.facts or {}).get("watch") or {}).get("status") == "ok" for n in nodes):
        return None
    return nodes


def _hostname():
    import socket

    return socket.gethostname()

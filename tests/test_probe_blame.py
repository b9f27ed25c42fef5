"""Which node a failed pair on the job's port is pinned on (gpudoctor/probe/findings.py).
A listener that another peer reached on the port does not drop it: a one-off timeout
between it and a node that refuses the port elsewhere is that node's, and one with no
other evidence is pinned on nobody (seen in CI: a healthy listener named beside the
node that drops the port)."""

from gpudoctor.probe.findings import _pairs


def _pair(a, b, kind=None, blame=None):
    err = "connecting to %s:45100 timed out" % a if kind else None
    return {"a": a, "b": b, "error": err, "error_kind": kind, "blame": blame, "gbps": None if kind else 9.5,
            "port": 45100, "transport": "tcp"}


def _blocked(pairs):
    return sorted(f.hosts for f in _pairs({"pairs": pairs, "mode": "tcp"}, {}, 0.5) if f.check == "probe.port.blocked")


def test_a_reached_listener_is_not_named_and_its_peer_that_refuses_is():
    pairs = [_pair("n2", "blocked", "port-blocked", "n2"), _pair("n2", "n3"),
             _pair("blocked", "n3", "port-blocked", "blocked"), _pair("n1", "blocked")]
    assert _blocked(pairs) == [["blocked"]]


def test_a_listener_nobody_reached_is_named():
    pairs = [_pair("blocked", "n1", "port-refused", "blocked"), _pair("blocked", "n2", "port-blocked", "blocked"),
             _pair("n1", "n2")]
    assert _blocked(pairs) == [["blocked"]]


def test_a_one_off_timeout_with_no_refusing_peer_names_nobody():
    pairs = [_pair("n1", "n2", "port-blocked", "n1"), _pair("n1", "n3"), _pair("n2", "n3")]
    assert _blocked(pairs) == []

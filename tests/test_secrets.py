"""Environment values off the allow-list: compared by a keyed hash made per run, the key
sent to the nodes inside the script on stdin, never on a command line (ps shows those to
every user of a node), and never written anywhere."""

import hashlib

from gpudoctor.collector.system import env_hash
from gpudoctor.transport import Payload
from gpudoctor.transport.ssh import remote_command


def test_the_key_travels_in_the_script_not_on_the_command_line():
    p = Payload(python="python3", options={"env_key": "k" * 64, "resolve": ["n1"]})
    opts = p.options_for("n1")
    assert "env_key" not in opts and opts["resolve"] == ["n1"]
    assert "k" * 64 not in remote_command("python3", opts)
    assert "'env_key': '%s'" % ("k" * 64) in p.get_script()


def test_keyed_hash_is_stable_per_key_and_not_a_plain_digest():
    a, b = "a" * 64, "b" * 64
    assert env_hash("hunter2", a) == env_hash("hunter2", a) != env_hash("hunter2", b)
    assert env_hash("hunter2", a) != env_hash("hunter3", a)
    assert env_hash("hunter2", a).startswith("hmac:")
    assert hashlib.sha256(b"hunter2").hexdigest()[:16] not in env_hash("hunter2", a)
    # no key sent (a local run): a random key of this process, still never the plain digest
    assert env_hash("hunter2") == env_hash("hunter2") != env_hash("hunter2", a)

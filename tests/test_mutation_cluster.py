"""gpudoctor/collector/cluster.py's hosts_answers (the names glibc's getaddrinfo answers from
/etc/hosts alone), against the survivors of a mutation run (docs/mutation.md, "This round's new
code, third pass"): test_cluster.py's comparison never fed it an address part of three digits or
of 255, an [action] right after "files", a second '#' on a line, a line of one field before the
others, a name on two lines of several names, or a file past the 4 MiB it reads. The rules are
glibc's: resolv/inet_pton.c inet_pton4 (four decimal parts, each at most 255, no leading zero),
nss/nss_files/files-hosts.c (fields split on blanks, '#' starts a comment, a name matched on every
line) and nsswitch.conf(5) (an [action] after "files" changes what a miss does; "#" starts a comment).
nsswitch.conf is read up to 64 KiB, decoded with replacement: a hosts line past that is not seen. ~0.1 s."""

import os

import pytest

from gpudoctor.collector import cluster


def _glibc():
    try:
        return os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc ")
    except (AttributeError, ValueError, OSError):
        return False


pytestmark = pytest.mark.skipif(not _glibc(), reason="the /etc/hosts table is read on glibc only")


def _answers(tmp_path, hosts, conf="hosts: files dns\n"):
    h, n = tmp_path / "hosts", tmp_path / "nsswitch.conf"
    h.write_bytes(hosts.encode() if isinstance(hosts, str) else hosts)
    n.write_bytes(conf.encode() if isinstance(conf, str) else conf)
    return cluster.hosts_answers(str(h), str(n))


@pytest.mark.parametrize("hosts, want", [
    ("100.64.0.1 sn1\n10.0.0.255 sn2\n", {"sn1": "100.64.0.1", "sn2": "10.0.0.255"}),
    ("10.0.0.1 sn1 # c # d\n", {"sn1": "10.0.0.1"}),                 # the comment starts at the first '#'
    ("10.0.0.9\n10.0.0.1 sn1\n", {"sn1": "10.0.0.1"}),               # a line of one field: the next still read
    ("10.0.0.1 a b\n10.0.0.2 a c\n", {"b": "10.0.0.1", "c": "10.0.0.2"}),  # 'a' on two lines: multi decides
])
def test_the_hosts_file_as_glibc_reads_it(tmp_path, hosts, want):
    assert _answers(tmp_path, hosts) == want


def test_an_action_right_after_files_and_a_file_past_the_bound(tmp_path):
    assert _answers(tmp_path, "10.0.0.1 sn1\n", "hosts: files [NOTFOUND=return]\n") == {}
    assert _answers(tmp_path, "10.0.0.1 sn1\n", "hosts: files mdns4_minimal [NOTFOUND=return] dns\n") == \
        {"sn1": "10.0.0.1"}
    line = b"10.0.0.1 sn1\n"
    big = line + b"#" * ((1 << 22) - len(line) - 1) + b"\n"
    assert len(big) == 1 << 22 and _answers(tmp_path, big) == {}       # the whole bound read: maybe more after it
    assert _answers(tmp_path, big[:-2] + b"\n") == {"sn1": "10.0.0.1"}  # one byte less: the whole file
    assert _answers(tmp_path, big + b"10.0.0.2 sn2\n") == {}


@pytest.mark.parametrize("conf, want", [
    (b"# caf\xe9 (Latin-1)\nhosts: files dns\n", {"sn1": "10.0.0.1"}),     # not UTF-8: read, not refused
    ("hosts: files# mdns\n", {"sn1": "10.0.0.1"}),                        # '#' glued to a word starts a comment
    ("#" * 2000 + "\nhosts: files\n", {"sn1": "10.0.0.1"}),                 # after comments of a few KiB (RHEL's)
    ("#" * (1 << 16) + "\nhosts: files\n", {}),                             # a hosts line past the 64 KiB read
])
def test_the_nsswitch_line(tmp_path, conf, want):
    assert _answers(tmp_path, "10.0.0.1 sn1\n", conf) == want

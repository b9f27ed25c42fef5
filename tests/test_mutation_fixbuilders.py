"""Fix-line builders of checks/*.py that mutation round 16 found unasserted (docs/mutation.md): ssh.mesh's fix from
the failing ssh's own error lines, each OpenSSH message as ssh prints it (ssh.c: "ssh: Could not resolve hostname
%s: %s"; sshconnect.c: "ssh: connect to host %s port %s: %s"; "Permission denied (publickey)."), one clause per kind,
in order, joined by '; '.
"""

import pytest

from gpudoctor.checks.parity import _MESH_KEYS_FIX, _mesh_fix

RESOLVE = ("the peers' names do not resolve on the source nodes: add every node to /etc/hosts on every node (or DNS), "
           "as the hostfile names them (gpudoctor check --select hosts.resolution)")
NETWORK = ("sshd does not answer on the peers from the source nodes: start it (systemctl enable --now ssh) and open "
           "port 22 between the nodes")


@pytest.mark.parametrize("errors, fix", [
    (["ssh: Could not resolve hostname gpu9: Name or service not known"], RESOLVE),
    (["ssh: connect to host 10.0.0.2 port 22: Connection refused"], NETWORK),
    (["ssh: connect to host 10.0.0.2 port 22: Connection timed out"], NETWORK),
    (["ssh: connect to host 10.0.0.2 port 22: No route to host"], NETWORK),
    (["ssh: connect to host 10.0.0.2 port 22: Network is unreachable"], NETWORK),
    (["user@gpu2: Permission denied (publickey)."], _MESH_KEYS_FIX),
    (["Permission denied (publickey).", "ssh: connect to host 10.0.0.2 port 22: Connection refused",
      "ssh: Could not resolve hostname gpu9: Name or service not known"], "; ".join([RESOLVE, NETWORK, _MESH_KEYS_FIX])),
    ([], ""),
])
def test_mesh_fix(errors, fix):
    assert _mesh_fix(errors) == fix


def test_a_container_no_table_names_gets_the_generic_container_line():
    """host.container is a short lower-case word (util.container_of: lxc, apptainer, ...): one the runtime tables do
    not name gets the generic container line, never nothing."""
    from gpudoctor.checks import memlock, shm

    assert shm.container_fix("lxc") == ("in a container: restart it with --shm-size=16g (or --ipc=host); Kubernetes: "
                                        "mount an emptyDir {medium: Memory, sizeLimit: 16Gi} at /dev/shm")
    assert shm.container_fix("docker").startswith("in a docker container: restart it with docker run --shm-size=16g")
    assert shm.container_fix(None) == "on a host: mount -o remount,size=16G /dev/shm (persist it in /etc/fstab)"
    assert memlock.fix_for("lxc") == ("container:  docker run --ulimit memlock=-1:-1 ...   (Kubernetes: set it in the "
                                      "container runtime's default ulimits)")

"""`gpudoctor watch --json`'s nodes[].profile names the node's kernel and OS (userwalk25: both null, since watch
gathers only its sampling section). Read live on this machine and compared with the two files the kernel and
os-release(5) define: /proc/sys/kernel/osrelease and /etc/os-release's PRETTY_NAME."""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_watch_local_json_profile_has_kernel_and_os():
    env = dict(os.environ, PYTHONPATH=ROOT)
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "watch", "--local", "--seconds", "0.5", "--interval",
                        "0.5", "--json"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert p.returncode in (0, 1), p.stderr
    prof = json.loads(p.stdout)["nodes"][0]["profile"]
    kernel = open("/proc/sys/kernel/osrelease").read().strip()
    pretty = None
    if os.path.exists("/etc/os-release"):
        for line in open("/etc/os-release"):
            if line.startswith("PRETTY_NAME="):
                pretty = line.split("=", 1)[1].strip().strip('"')
    assert prof["kernel"] == kernel, prof
    assert prof["os"] == pretty, prof


def test_a_saved_watch_without_the_system_part_still_reads():
    """Samples saved before this change carry no watch.system: the profile stays without kernel and OS (no error)."""
    from gpudoctor.profile import profile

    facts = {"watch": {"status": "ok", "gpu": {"reason": "no GPU"}}}
    assert profile(facts)["kernel"] is None and profile(facts)["os"] is None
    facts["watch"]["system"] = {"kernel": "6.8.0-1", "os_pretty": "Ubuntu 24.04.3 LTS"}
    assert profile(facts)["kernel"] == "6.8.0-1" and profile(facts)["os"] == "Ubuntu 24.04.3 LTS"
    facts["host"] = {"status": "ok", "kernel": "5.15.0", "os_pretty": "Ubuntu 22.04"}
    assert profile(facts)["kernel"] == "5.15.0"  # a gathered host section wins

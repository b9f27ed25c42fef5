"""Benchmark: fan-out over N loopback sshd nodes, gpudoctor vs pdsh running the same collector.

    python bench/fanout_bench.py [--sizes 8,32,64] [--repeat 3]

Both sides run the same collector script on every node: gpudoctor ships it on the SSH
session's stdin (`gpudoctor facts --hosts`); pdsh runs it as `python3 -c 'exec(zlib...)'`
(pdsh forwards no stdin), with `-o KexAlgorithms=curve25519-sha256` so that both sides
pay for the same key exchange (OpenSSH otherwise picks the costlier post-quantum kex).
Needs root, openssh-server and pdsh (tests/run.sh installs them). The nodes run on the
same machine as the controller, so both sides compete with the nodes' sshd + python3.
"""

import argparse
import base64
import os
import platform
import statistics
import subprocess
import sys
import time
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import sshcluster  # noqa: E402

from gpudoctor.collector.bundle import build_script  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="8,32,64")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    script = build_script()
    blob = base64.b64encode(zlib.compress(script.encode(), 9)).decode()
    remote = "python3 -c 'import base64,zlib,sys;sys.argv=[\"x\"];exec(zlib.decompress(base64.b64decode(\"%s\")))'" % blob
    print("machine: %s, %d cores, Python %s; collector script %d bytes (%d compressed for pdsh)" % (
        platform.platform(), os.cpu_count(), platform.python_version(), len(script), len(blob)))
    print("| nodes | gpudoctor facts (s) | pdsh (s) | ratio | gpudoctor peak RSS (MiB) |")
    print("|---|---|---|---|---|")
    for n in [int(x) for x in args.sizes.split(",")]:
        c = sshcluster.Cluster()
        for i in range(n):
            c.add("b%d" % (i + 1), env={"PATH": "/usr/local/bin:/usr/bin:/bin"})
        c.start()
        try:
            # node names are their addresses, so neither side waits on DNS for made-up names
            hf = c.hostfile(by_address=True)
            names = ",".join(n["addr"] for n in c.nodes.values())
            # warm up once: known_hosts recorded, page cache warm for both sides
            subprocess.run([sys.executable, "-m", "gpudoctor", "facts", "--hosts", hf, "--ssh-config", c.ssh_config],
                           capture_output=True)
            env = dict(os.environ, PDSH_SSH_ARGS_APPEND="-F %s -o KexAlgorithms=curve25519-sha256 "
                                                          "-o StrictHostKeyChecking=no" % c.ssh_config)
            gd, pd, rss = [], [], []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                p = subprocess.Popen([sys.executable, "-m", "gpudoctor", "facts", "--hosts", hf, "--ssh-config",
                                      c.ssh_config, "-j", str(n)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                out, _ = p.communicate()
                gd.append(time.perf_counter() - t0)
                assert out.count(b'"schema": "gpudoctor.facts/1"') == n, "gpudoctor missed nodes"
                t0 = time.perf_counter()
                p = subprocess.run(["pdsh", "-R", "ssh", "-f", str(n), "-w", names, remote], capture_output=True,
                                   env=env)
                pd.append(time.perf_counter() - t0)
                assert p.stdout.count(b"gpudoctor.facts/1") == n, p.stderr[-500:]
            r = subprocess.run(["/usr/bin/time", "-f", "%M", sys.executable, "-m", "gpudoctor", "facts", "--hosts", hf,
                                "--ssh-config", c.ssh_config, "-j", str(n)], capture_output=True, text=True)
            rss_mib = int(r.stderr.strip().splitlines()[-1]) / 1024.0 if r.stderr.strip() else float("nan")
            g, q = statistics.median(gd), statistics.median(pd)
            print("| %d | %.2f | %.2f | %.2f | %.0f |" % (n, g, q, g / q, rss_mib))
        finally:
            c.cleanup()


if __name__ == "__main__":
    main()

"""The OCI container runtimes' own messages (issue 18): podman (with the container libraries it vendors), docker's
daemon, runc, crun, conmon and the NVIDIA Container Toolkit / CDI, read from their sources by
tools/gen_oci_messages.py (its slice tools/data/oci_messages_slice.txt keeps the cut files with their line numbers).
The generator regenerates the committed sites; failures made here for real and texts of public threads (cited per
text) get the container.oci_* family and its fix.
"""

import os
import re
import sys

from explainhelp import explain_paste, fixes, ids, root_of

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLICE = os.path.join(REPO, "tools", "data", "oci_messages_slice.txt")
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_oci_messages as gen  # noqa: E402
import knowgen  # noqa: E402
from gpudoctor.explain.knowledge import open_generated

# Made for real on this project's development machine (Debian 12, podman 4.3.1, runc 1.1.5, rootful, cgroupfs), each
# with `podman --cgroup-manager=cgroupfs --runtime runc run --rm --ulimit nofile=1024:1024 --ulimit nproc=1024:1024`
# and an image imported from a tar of /usr/bin/dash and its libraries (no registry is reachable there), plus:
MADE_HERE = {
    # -v /nonexistent/data:/data
    "bind_missing": ("Error: statfs /nonexistent/data: no such file or directory\n", "container.oci_mount",
                     "shared filesystem"),
    # --device nvidia.com/gpu=all on a host without a CDI spec
    "cdi": ("Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all\n", "container.oci_gpu",
            "nvidia-ctk cdi generate"),
    # --ulimit memlock=-1:-1 above the sandbox's 8 MiB hard limit
    "memlock": ("Error: runc: runc create failed: unable to start container process: error during container init: "
                "error setting rlimits for ready process: error setting rlimit type 8: operation not permitted: OCI "
                "permission denied\n", "container.oci_ulimit", "LimitMEMLOCK"),
    # --userns=keep-id as root
    "keepid": ("Error: keep-id is only supported in rootless mode\n", "container.oci_userns", "--user"),
    # --userns=auto with no 'containers' entry in /etc/subuid
    "userns_auto": ('time="2026-11-26T16:21:47Z" level=error msg="Cannot find mappings for user \\"containers\\": no '
                    'subuid ranges found for user \\"containers\\" in /etc/subuid"\nError: creating container storage: '
                    "could not find enough available IDs\n", "container.oci_userns", "add-subuids"),
    # two containers publishing -p 18080:80
    "port": ("Error: cannot listen on the TCP port: listen tcp4 :18080: bind: address already in use\n",
             "container.oci_network", "publish another port"),
    # --network nosuchnet
    "network": ("Error: unable to find network with name or ID nosuchnet: network not found\n",
                "container.oci_network", "podman network create"),
    # an image named by a short name, registries.conf without unqualified-search-registries
    "shortname": ('Error: short-name "pytorch" did not resolve to an alias and no unqualified-search registries are '
                  'defined in "/etc/containers/registries.conf"\n', "container.oci_image", "docker.io/library"),
    # --device /dev/nvidia0 on a node without a GPU
    "device": ("Error: stat /dev/nvidia0: no such file or directory\n", "container.oci_device", "--gres=gpu"),
    # the command is not in the image
    "notfound": ('Error: runc: runc create failed: unable to start container process: exec: "python3": executable '
                 'file not found in $PATH: OCI runtime attempted to invoke a command that was not found\n',
                 "container.oci_runtime", "full path"),
}

PUBLIC = {
    # https://github.com/NVIDIA/nvidia-container-toolkit/issues/146 (podman 4.4.1, toolkit 1.14.3; settled: the CDI
    # spec and podman's CDI directories)
    "toolkit_146": ("Error: error setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all\n",
                    "container.oci_gpu", "nvidia-ctk cdi generate"),
    # https://github.com/coreos/fedora-coreos-tracker/issues/2056 (sudo podman run --userns=auto; no 'containers'
    # ranges in /etc/subuid)
    "fcos_2056": ('ERRO[0003] Cannot find mappings for user "containers": no subuid ranges found for user "containers" '
                  "in /etc/subuid\nError: creating container storage: not enough unused IDs in user namespace\n",
                  "container.oci_userns", "containers"),
    # https://github.com/whyour/qinglong/issues/2567 (docker 2024: the entrypoint path is not in the image); no message
    # site knows the whole line: the structural fallback on the runtime's own prefix names the family
    "qinglong_2567": ('docker: Error response from daemon: failed to create task for container: failed to create shim '
                      'task: OCI runtime create failed: runc create failed: unable to start container process: exec: '
                      '"./docker/docker-entrypoint.sh": stat ./docker/docker-entrypoint.sh: no such file or directory: '
                      "unknown.\n", "container.oci_runtime", "full path"),
    # https://github.com/jorvis/GALES/issues/26 (docker run -v of a directory the host does not have)
    "gales_26": ('docker: Error response from daemon: invalid mount config for type "bind": bind source path does not '
                 "exist: /dbs/coding_hmm.lib.bin.\n", "container.oci_mount", "create the directory"),
    # https://github.com/docker/getting-started/issues/97 (another container holds the published port 3000)
    "getting_started_97": ("docker: Error response from daemon: driver failed programming external connectivity on "
                           "endpoint pensive_meitner (97c005c64c2f6ab1dabb8106a3b57285ba610717b36fd3ec82f1c97ad7efa648): "
                           "Bind for 0.0.0.0:3000 failed: port is already allocated.\n", "container.oci_network",
                           "remove the old container"),
    # https://github.com/containers/podman/issues/12492 (-v /mnt/mynfs:...:z on NFS; maintainer: don't add :z)
    "podman_12492": ("Error: lsetxattr /mnt/mynfs/: operation not supported\n", "container.oci_mount", "drop :z/:Z"),
    # https://github.com/webanck/docker-wine-steam/issues/15 (--device /dev/nvidia-uvm before the module made it)
    "wine_steam_15": ('Error response from daemon: linux runtime spec devices: error gathering device information while '
                      'adding custom device "/dev/nvidia-uvm": lstat /dev/nvidia-uvm: no such file or directory\n',
                      "container.oci_device", "nvidia-modprobe -u"),
}


def test_generator_regenerates_the_committed_sites_from_the_slice(tmp_path):
    got = knowgen.regenerated(gen.main, SLICE, tmp_path / "oci_messages.json")
    full = knowgen.committed("oci_messages")
    assert got["header"]["version"] == full["header"]["version"] and full["header"]["version"].count("(commit ") == 6
    by_text = {s["text"]: s for s in full["sites"]}
    assert len(got["sites"]) >= 20
    for s in got["sites"]:  # one text printed at several places: the whole tree keeps its first (id, where)
        assert {k: v for k, v in s.items() if k not in ("id", "where")} == \
            {k: v for k, v in by_text[s["text"]].items() if k not in ("id", "where")}, s["id"]
    sites = {s["text"]: s for s in got["sites"]}
    assert sites["unresolvable CDI devices %s"]["family"] == "container.oci_gpu" and sites["unresolvable CDI devices %s"]["fix"]
    assert sites["error setting rlimit type %s: %s"]["family"] == "container.oci_ulimit"
    # podman 4.3's text that the newest podman reworded is kept, marked
    assert sites["keep-id is only supported in rootless mode"]["until"]
    assert full["unassigned"] == sorted(s["id"] for s in full["sites"] if not s.get("family"))


def test_the_prefix_is_the_runtimes_own_and_case_sensitive():
    sites = {s["text"]: s for s in knowgen.committed("oci_messages")["sites"]}
    rx = re.compile(sites["unresolvable CDI devices %s"]["re"], re.I)  # explain compiles with IGNORECASE
    assert rx.search("Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all")
    assert rx.search('time="x" level=error msg="unresolvable CDI devices nvidia.com/gpu=0"')
    assert not rx.search("unresolvable CDI devices nvidia.com/gpu=all")  # no runtime's prefix
    assert not rx.search("RuntimeError: CUDA error: unresolvable CDI devices x")  # 'error: ' is not podman's 'Error: '


def test_anyones_words_are_not_a_runtimes_message():
    # crun's bare syscall names and a C library error text whole are dropped; a runtime's own short text is kept
    assert gen._vague("memfd_create") and gen._vague("sigtimedwait `%s`") and gen._vague("No such device or address")
    assert not gen._vague("OCI permission denied") and not gen._vague("unresolvable CDI devices %s")
    texts = {s["text"] for s in knowgen.committed("oci_messages")["sites"]}
    assert "No such device or address" not in texts and "OCI permission denied" in texts


def _check(cli, tmp_path, cases):
    for name, (text, entry, fix) in cases.items():
        rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1), name=name + ".log")
        root = root_of(doc)
        assert root and root["id"] == entry, (name, ids(doc))
        assert fix in fixes(root, confirm=True), (name, fixes(root))


def test_failures_made_here_get_their_family_and_fix(cli, tmp_path):
    _check(cli, tmp_path, MADE_HERE)


def test_public_thread_texts_get_their_family_and_fix(cli, tmp_path):
    _check(cli, tmp_path, PUBLIC)


def test_the_engines_own_line_leads_over_the_wrapped_errno(cli, tmp_path):
    # podman's published port carries the kernel's EADDRINUSE words, which the rendezvous family knows too: on the
    # engine's own line the container family leads, the rendezvous one follows (ocirt.runtime_line_first)
    rc, doc = explain_paste(cli, tmp_path, MADE_HERE["port"][0], "--file", rcs=(0, 1))
    assert ids(doc)[:2] == ["container.oci_network", "rendezvous.address_in_use"], ids(doc)
    # torch's own EADDRINUSE, with no engine line, keeps its answer
    text = ("RuntimeError: The server socket has failed to listen on any local network address. The server socket has "
            "failed to bind to [::]:29500 (errno: 98 - Address already in use).\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1), name="torch.log")
    assert ids(doc)[0] == "rendezvous.address_in_use" and not any(i.startswith("container.") for i in ids(doc))


# The container's run line behind a symptom (explain/ocictx.py, read through launchctx). Made for real here (podman
# 4.3.1, runc 1.1.5, the image above with a /tmp directory), each pasted as a user would: the command, its output and
# the shell's exit status.
RUN_LINE = {
    # the container's memory cgroup OOM-kills dd's 100 MB buffer: no output, exit 137
    "memory": ("$ podman run --rm --memory 20m ocitest dd if=/dev/zero of=/dev/null bs=100M count=1; echo exit=$?\n"
               "exit=137\n", "container.oci_cgroup", "--memory 20m"),
    # a read-only root file system without podman's tmpfs on /tmp
    "readonly": ('$ podman run --rm --read-only --read-only-tmpfs=false ocitest sh -c "echo x > /tmp/ckpt"\n'
                 "sh: 1: cannot create /tmp/ckpt: Read-only file system\nexit=2\n", "container.oci_mount", "--tmpfs /tmp"),
}


def test_the_run_line_names_the_containers_cause(cli, tmp_path):
    for name, (text, entry, quoted) in RUN_LINE.items():
        rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1), name=name + ".log")
        root = root_of(doc)
        assert root and root["id"] == entry and root["confidence"] == "cause", (name, ids(doc))
        assert quoted in root["causes"][0]["text"] + " ".join(root["causes"][0]["fix"]), (name, root["causes"][0])
    # the memory run line as a script writes a long one, continued with backslashes (the same command to bash): its
    # options are read whole, the limit on a continuation line included
    text = RUN_LINE["memory"][0].replace(" --rm --memory 20m ", " --rm \\\n    --memory 20m \\\n    ", 1)
    assert text.count("\\\n") == 2
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1), name="memory-continued.log")
    root = root_of(doc)
    assert root and root["id"] == "container.oci_cgroup" and "--memory 20m" in root["causes"][0]["text"], ids(doc)
    # the default /dev/shm (no --shm-size, no --ipc=host) named as the first cause of /dev/shm's ENOSPC
    text = ("$ podman run --rm ocitest dd if=/dev/zero of=/dev/shm/batch bs=1M count=100\n"
            "dd: error writing '/dev/shm/batch': No space left on device\n63+0 records in\n62+0 records out\n"
            "65536000 bytes (66 MB, 62 MiB) copied, 0.106229 s, 617 MB/s\nexit=1\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1), name="shm.log")
    root = root_of(doc)
    assert root["id"] == "shm.size" and "--shm-size=16g" in root["causes"][0]["fix"][0], root["causes"][0]
    # the same options on a run that worked: nothing (podman mounts a tmpfs on /tmp under --read-only by default)
    text = '$ podman run --rm --read-only --memory 2g ocitest sh -c "echo x > /tmp/ckpt"\nexit=0\n'
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1), name="ok.log")
    assert doc["verdict"] == "no_error" and not doc["findings"] and not doc["context"], doc["context"]


def test_run_options_are_read_as_docker_and_podman_define_them():
    from gpudoctor.explain.ocictx import run_options

    o = run_options("+ docker container run --rm -it --gpus all -m 8g --shm-size=16g -v /d:/d:ro img python x.py "
                    "--memory 1g")
    assert o["-m"] == ["8g"] and o["--gpus"] == ["all"] and o["--shm-size"] == ["16g"] and "--memory" not in o
    assert run_options("echo docker running fine") is None and run_options("podman run 'unclosed") is None
    # docker/cli's own cases (cli/command/container/opts_test.go: mustParse(args + " ubuntu bash"), TestParseRunLinks,
    # TestParseRunAttach, TestParseWithVolumes, TestRunFlagsParseWithMemory, TestParseWithMemorySwap,
    # TestParseHostnameDomainname); the options stop at the image, whatever its command's own flags
    cases = {"--link a:b --link c:d": {"--link": ["a:b", "c:d"]}, "": {}, "-i": {"-i": ["true"]},
             "-a stdin -a stdout -a stderr": {"-a": ["stdin", "stdout", "stderr"]},
             "-v /hostTmp:/containerTmp:ro -v /hostVar:/containerVar:rw":
                 {"-v": ["/hostTmp:/containerTmp:ro", "/hostVar:/containerVar:rw"]},
             "--memory=1G": {"--memory": ["1G"]}, "--memory-swap=-1": {"--memory-swap": ["-1"]},
             "--hostname=some.prefix --domainname=domainname": {"--hostname": ["some.prefix"],
                                                                "--domainname": ["domainname"]},
             # shorthand clusters as pflag reads them (spf13/pflag flag.go parseSingleShortArg: '-f=arg', '-farg',
             # '-f arg', booleans first in a cluster)
             "-m=1G": {"-m": ["1G"]}, "-m1G": {"-m": ["1G"]}, "-itm 8g": {"-i": ["true"], "-t": ["true"], "-m": ["8g"]},
             "-dm8g": {"-d": ["true"], "-m": ["8g"]}}
    for args, want in cases.items():
        assert run_options("docker run %s ubuntu bash -m 3g --memory 9g" % args) == want, args


def test_the_matchers_stay_linear_on_lines_full_of_runtime_prefixes(kb):
    # every oci site's matcher is a runtime prefix, a lazy bounded gap and the format (knowgen.printf_to_regex):
    # lines made of the prefixes and the commonest literals cost time linear in the line (CPU, not wall: the VM is shared)
    pats = [p for p in kb.patterns if p.site and p.site.get("source") == "oci_messages"]
    assert len(pats) > 2000
    lines = [("Error: error setting " + "x" * 20 + ": cannot ") * 10, 'level=error msg="failed to ' + "a: b: " * 75,
             ("runc: crun: [conmon:e]: OCI runtime create failed: unable to ") * 6]
    for line in lines:  # their CPU time (bound 4 s): bench/cpu_bounds.py
        assert not [p.site["id"] for p in pats if p.regex.search(line)], line[:40]  # near-misses, no message


def test_nvidia_container_cli_permission_error_is_the_capabilities(cli, tmp_path):
    # https://github.com/NVIDIA/enroot/issues/88 (SELinux enforcing): nvidia-container-cli's own line, not the hook's
    # echo after it, is the root, with the capabilities cause
    text = ("[opc@inst-2a21p-distinct-cougar pytorch]$ enroot start cuda\nnvidia-container-cli: permission error: "
            "capability change failed: operation not permitted\n[ERROR] /etc/enroot/hooks.d/98-nvidia.sh exited with "
            "return code 1\n")
    rc, doc = explain_paste(cli, tmp_path, text, "--file", rcs=(0, 1))
    root = root_of(doc)
    assert root["id"] == "container.oci_gpu" and "capabilities" in root["causes"][0]["text"], ids(doc)
    assert "setenforce 0" in root["causes"][0]["fix"][0] and "enroot.nvidia_hook" in ids(doc)


# The runtimes' prefix as it was written before left13: '\b' first stopped Python's re from skipping ahead (a BRANCH
# whose alternatives do not all begin with a literal gets no first-character set: Lib/re/_compiler.py
# _get_charset_prefix), so every OCI matcher was entered at every position of a line.
OLD_PREFIX = (r"(?-i:\bError: |from daemon: |level=(?:error|fatal|warning) msg=\"|(?:ERRO|WARN|FATA)\[\d{1,8}\] |"
              r"\b(?:runc|crun|conmon|nvidia-(?:container-[a-z-]{3,20}|ctk|cdi-hook))(?:\.real)?(?:\[\d{1,10}\])?: |"
              r"\[conmon:[ewid]\]: |OCI runtime [a-z]{3,6} failed: )[^\n]{0,200}?")


def test_the_prefix_starts_on_a_literal_and_matches_what_the_word_boundary_form_matched():
    from re import _compiler, _parser

    parsed = _parser.parse(gen.PREFIX + "x", re.I)
    assert _compiler._get_charset_prefix(parsed, parsed.state.flags), "no first-character set"
    old, new = re.compile(OLD_PREFIX + "tail", re.I), re.compile(gen.PREFIX + "tail", re.I)
    heads = ["Error: ", "Error response from daemon: ", 'level=error msg="', "ERRO[0000] ", "WARN[12] ", "FATA[1] ",
             "runc: ", "runc.real[42]: ", "crun: ", "conmon: ", "conmon[7]: ", "nvidia-container-cli: ",
             "nvidia-ctk: ", "nvidia-cdi-hook: ", "[conmon:e]: ", "OCI runtime create failed: ", "xError: ",
             "CUDA error: ", "ERROR: ", "prerunc: ", "zcrun: ", "_conmon: ", "anvidia-ctk: ", "Runc: ", "podman: Error: "]
    for h in heads:
        for line in (h + "tail", "2026 " + h + "a b tail", h + "TAIL", h, "x" + h + "tail"):
            a, b = old.search(line), new.search(line)
            assert (a and a.span()) == (b and b.span()), line
    # every committed matcher is the generator's prefix and its own format
    import json

    with open_generated("oci_messages") as f:
        sites = [s for s in json.load(f)["sites"] if s.get("re")]
    assert len(sites) > 2000 and all(s["re"].startswith(gen.PREFIX) for s in sites)

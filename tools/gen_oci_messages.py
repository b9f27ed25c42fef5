#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/oci_messages.json: what the OCI container runtimes print when a
container of a training job does not start (podman, docker's daemon, runc, crun, conmon, the NVIDIA Container
Toolkit and the CDI library), read from their sources:

- Go (podman with the container libraries it vendors: go.podman.io/common, storage, image and
  tags.cncf.io/container-device-interface; moby's daemon; opencontainers/runc; NVIDIA/nvidia-container-toolkit):
  the format of every fmt.Errorf / errors.New / errors.Errorf / errors.Wrap(f) / logrus-style .Errorf .Warnf
  .Fatalf .Error .Warn call (Go's %v %+v %w %q %T %t %d read as printf), joined literals ("a" + "b") and raw
  strings (`...`) read whole;
- C (containers/crun): every crun_make_error (err, errno, "format", ...) format (printed 'crun: <text>[: <strerror>]',
  src/libcrun/error.c); containers/conmon: every pexit/pexitf/nexit/nexitf/nwarn/nwarnf/pwarn/pwarnf text
  (printed '[conmon:e]: <text>', '[conmon:w]: <text>', src/utils.h).

Only the areas a GPU training job meets are kept (AREAS: OCI runtime create/exec, user namespaces and subuid,
cgroups and limits, mounts and volumes, /dev/shm and IPC, ulimits, devices and GPUs/CDI, image pull and storage,
networking and ports, seccomp and capabilities); the header counts what was read and what was kept. Each kept
format becomes a bounded matcher behind a runtime's own prefix (PREFIX: podman's 'Error: ', the docker CLI's
'Error response from daemon: ', logrus' 'level=error msg="' and 'ERRO[0000] ', 'runc'/'crun:'/'[conmon:e]:',
'OCI runtime ...'), so that a short format never matches another program's words, and is assigned to a family of
knowledge/oci.toml by RULES; a site no rule assigns is listed.

Podman's newest main branch rewords messages that the releases clusters run still print (Debian 12 ships 4.3,
Ubuntu 24.04 4.9): --podman-older TAGS reads those releases too, and keeps each text the newest one no longer
has, with `until`.

Usage:
    python tools/gen_oci_messages.py --mirrors DIR [--podman-older v4.9.5,v4.3.1] [-o OUT]
        (DIR holds containers+podman/repo, opencontainers+runc/repo, moby+moby/repo, containers+crun/repo,
        containers+conmon/repo and NVIDIA+nvidia-container-toolkit/repo: git directories, read at HEAD)
    python tools/gen_oci_messages.py --slice tools/data/oci_messages_slice.txt -o OUT   (the test)

Sources (read with `git show REV:path`): https://github.com/containers/podman, https://github.com/moby/moby,
https://github.com/opencontainers/runc, https://github.com/containers/crun, https://github.com/containers/conmon,
https://github.com/NVIDIA/nvidia-container-toolkit. In a slice each path is prefixed with its repository
(`podman:`, `runc:` ...; `podman@TAG:` for an older release).
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_oci_messages.py"
MIN_LITERAL = 12  # Go errors are wrapped into long lines: a shorter anchor ('permission denied') is anyone's words

# repo name -> (mirror folder, directories read, language)
REPOS = {
    "podman": ("containers+podman", ("cmd/podman", "libpod", "pkg", "vendor/go.podman.io/common",
                                     "vendor/go.podman.io/storage", "vendor/go.podman.io/image",
                                     "vendor/github.com/containers/common", "vendor/github.com/containers/storage",
                                     "vendor/github.com/containers/image", "vendor/tags.cncf.io",
                                     "vendor/github.com/container-orchestrated-devices"), "go"),
    "moby": ("moby+moby", ("daemon", "errdefs", "api/types", "libnetwork", "oci", "container", "volume"), "go"),
    "runc": ("opencontainers+runc", ("libcontainer", "internal", "main.go", "create.go", "run.go", "exec.go",
                                     "utils.go", "utils_linux.go", "signals.go", "rlimit_linux.go"), "go"),
    "toolkit": ("NVIDIA+nvidia-container-toolkit", ("cmd", "internal", "pkg"), "go"),
    "crun": ("containers+crun", ("src",), "c"),
    "conmon": ("containers+conmon", ("src",), "c"),
}
# not a training job's concern (podman machine VMs, checkpoint/restore, quadlet units, the remote client's
# bindings, other platforms, swarm, the image builder): skipped whole
SKIP_PATH = re.compile(r"_(?:windows|darwin|freebsd|test)\.go$|/machine/|/quadlet|/checkpoint|criu|/bindings/|"
                       r"/cluster/|/swarm|/builder|buildah|/farm|/kube|hyperv|wsl|/testdata/|/mocks?/|"
                       r"libnetwork/drivers/(?:overlay|windows|ipvlan|macvlan|remote)|/signature|/sigstore|"
                       r"/openshift|/manifest/|/tarball|/ostree|/sif/|/sysregistriesv2/.*_test")

# the engines' own bookkeeping (podman's boltdb/sqlite state, the API's database): never what a job's user meets
SKIP_TEXT = re.compile(r"bucket|database|\bDB\b|boltdb|sqlite", re.I)

_GO_CALL = re.compile(r"\.(?:Errorf|Warnf|Warningf|Fatalf|Error|Warn|Warning|Fatal|New)\(|"
                      r"\.Wrapf?\(\s*[\w.]{1,60}(?:\(\))?\s*,")
_GO_LEVEL = {"Warnf": "warning", "Warningf": "warning", "Warn": "warning", "Warning": "warning",
             "Fatalf": "fatal", "Fatal": "fatal"}
_CRUN_CALL = re.compile(r"\bcrun_make_error\s*\(\s*[^,()]{1,40},\s*[^,()]{1,60}(?:\([^()]{0,40}\))?,\s*")
_CONMON_CALL = re.compile(r"\b([pn](?:exit|warn)f?)\s*\(")
_C_MACRO = r"[A-Z_][A-Z0-9_]{2,40}\b"

# What each runtime prints before its message; a site matches only after one of them on its line. Case-sensitive
# ((?-i:...): explain compiles every pattern with re.IGNORECASE): 'CUDA error: ' is not podman's 'Error: '.
# Every alternative starts on a literal character (a word boundary is the lookbehind after it: 'E(?<!\wE)rror: ' is
# '\bError: '): then Python's re compiles the set of those first characters into the pattern's info block and its
# search skips every position that holds none of them, instead of entering the alternation at each one
# (Lib/re/_compiler.py _get_charset_prefix: a BRANCH whose every alternative begins with a LITERAL).
_TAIL = r"(?:\.real)?(?:\[\d{1,10}\])?: "  # 'runc.real[42]: '
PREFIX = (r"(?-i:E(?<!\wE)rror: |from daemon: |level=(?:error|fatal|warning) msg=\"|ERRO\[\d{1,8}\] |WARN\[\d{1,8}\] |"
          r"FATA\[\d{1,8}\] |r(?<!\wr)unc" + _TAIL + r"|c(?<!\wc)run" + _TAIL + r"|c(?<!\wc)onmon" + _TAIL +
          r"|n(?<!\wn)vidia-(?:container-[a-z-]{3,20}|ctk|cdi-hook)" + _TAIL +
          r"|\[conmon:[ewid]\]: |OCI runtime [a-z]{3,6} failed: )[^\n]{0,200}?")

# The areas kept: a format of none of them is counted, not kept (texts of podman's remote API, quadlet, ...).
# (rule, knowledge entry, {field: regex}); fields: where (repo:path:line), text, level. The first match wins.
RULES = [
    # GPUs: CDI specs (nvidia-ctk cdi generate), the toolkit's runtime and hook, docker's --gpus
    ("cdi", "container.oci_gpu", {"text": r"\bCDI\b|cdi spec|cdi device|nvidia\.com/gpu|--gpus|device driver|"
                                          r"NVIDIA_VISIBLE_DEVICES|nvidia-container|nvidia-ctk|\bGPUs?\b"}),
    # the CDI hooks that write into the container's own root filesystem after its devices were granted
    # (cmd/nvidia-cdi-hook create-symlinks: 'chroot <root> ln -s' of each link the spec lists; update-ldcache: ldconfig
    # in the container; cudacompat: the enable-cuda-compat hook's ld.so.conf.d file): they fail on the image's own
    # files (a link of the same name to another target: 'unexpected link target' until v1.17.1, commit 8bd5da19
    # 'Force symlink creation in create-symlink hook'), a read-only root: a hook of the runtime that failed, not a
    # container without its GPUs (wrong17)
    ("cdi_root", "container.oci_runtime", {"where": r"^toolkit:cmd/nvidia-cdi-hook/(?:create-symlinks|update-ldcache|"
                                                    r"cudacompat)/", "level": r"^(?:error|fatal)$"}),
    # the toolkit's runtime, its hooks and CDI generation (not nvidia-ctk's other subcommands)
    ("toolkit", "container.oci_gpu", {"where": r"^toolkit:(?:cmd/nvidia-container-runtime|cmd/nvidia-cdi-hook|"
                                               r"cmd/nvidia-ctk/(?:cdi|runtime)|internal/(?:modifier|runtime|oci|"
                                               r"discover|lookup)|pkg/nvcdi)", "level": r"^(?:error|fatal)$"}),
    # unprivileged containers: user namespaces, /etc/subuid and /etc/subgid, newuidmap, --userns=keep-id/auto
    ("userns", "container.oci_userns", {"text": r"subuid|subgid|newuidmap|newgidmap|user namespace|userns|keep-id|"
                                                r"uid_map|gid_map|uid mapping|gid mapping|ID mappings?|mappings for user|"
                                                r"available IDs|rootless(?!port)|UID/GID for user|setgroups"}),
    # /dev/shm and the IPC namespace (--shm-size, --ipc)
    ("shm", "container.oci_shm", {"text": r"/dev/shm|shm-size|shm size|\bshm\b|ShmSize|--ipc|ipc namespace|"
                                          r"\bIPC mode"}),
    # resource limits (--ulimit; the runtime's setrlimit)
    ("ulimit", "container.oci_ulimit", {"text": r"ulimit|rlimit|RLIMIT_|memlock|nofile|\bnproc\b"}),
    # cgroups: the manager, pids/memory limits, the OOM killer
    ("cgroup", "container.oci_cgroup", {"text": r"cgroup|pids limit|pids\.max|memory limit|memory\.max|"
                                                r"\boom\b|OOM|out of memory|cpuset|cpu quota|cpu shares|systemd scope|"
                                                r"\.slice\b"}),
    # security: seccomp, capabilities, AppArmor, no_new_privs (SELinux relabeling is the mounts' rule)
    ("security", "container.oci_security", {"text": r"seccomp|(?<!compute )(?<!MIG )capabilit|apparmor|no_new_privs|"
                                                    r"NoNewPrivileges"}),
    # mounts and volumes: bind sources, SELinux relabel (:z/:Z), read-only, propagation, tmpfs, the rootfs
    # (not a bare 'bind': 'bind PF_NETLINK', 'bind socket to', 'invalid bind address' are sockets)
    ("mount", "container.oci_mount", {"text": r"\bmount|\bvolume|bind.?mount|rbind|bind source|rootfs|read-only|"
                                              r"readonly|propagation|relabel|SELinux|selinux|tmpfs|statfs|"
                                              r"overlay mount"}),
    # devices passed with --device (/dev/infiniband, /dev/nvidia*), the devices cgroup's rules
    ("device", "container.oci_device", {"text": r"\bdevices?\b|/dev/"}),
    # image pull and storage: registries, short names, a pull that fails, the storage driver, disk space
    ("image", "container.oci_image", {"text": r"registr|short-name|unqualified|storage driver|graph driver|overlay|"
                                              r"no space left|container storage|pull access denied|image not known|"
                                              r"manifest unknown|no such image|image not found|unable to pull|"
                                              r"error pulling|pulling image|initializing source|reading manifest|"
                                              r"writing blob|copying (?:system )?image"}),
    # networking: --network, published ports, netavark/CNI, slirp4netns/pasta
    ("network", "container.oci_network", {"text": r"address already in use|listen tcp|port is already allocated|"
                                                  r"host port|port mapping|published port|network with name|"
                                                  r"network not found|No such network|netavark|slirp4netns|pasta|"
                                                  r"network mode|--network|bind for|rootlessport|\bCNI\b|"
                                                  r"listen on the|port binding|bind address"}),
    # the container's process: exec, entrypoint, working directory, the OCI runtime itself and conmon
    ("exec", "container.oci_runtime", {"text": r"\bexec\b|executable|entrypoint|working directory|workdir|"
                                               r"container process|container init|\bOCI\b|oci runtime|"
                                               r"conmon|\brunc\b|\bcrun\b|init process|exec format"}),
    ("runtime-c", "container.oci_runtime", {"where": r"^(?:crun|conmon):", "level": r"^(?:error|fatal)$"}),
]

# What one message means and what to do: [(regex over the format, means, [fix])]; each fix cites the runtime's docs
# in the family (oci.toml). {%N|default} is the message's N-th value (explain/slots.py).
MSG_FIX = [
    (r"^unresolvable CDI devices %s$",
     "the container asks for CDI devices ({%1|nvidia.com/gpu=...}) that no CDI spec on this host defines: the "
     "NVIDIA CDI spec was never generated (nvidia-ctk cdi generate), was generated before a driver upgrade or for "
     "other GPUs, or lies where the engine does not look (/etc/cdi, /var/run/cdi).",
     ["sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml; nvidia-ctk cdi list   (must list "
      "nvidia.com/gpu=all and nvidia.com/gpu=0 ...)",
      "podman run --device nvidia.com/gpu=all ...   (the names nvidia-ctk cdi list prints; regenerate after each "
      "driver upgrade, or enable nvidia-cdi-refresh.service)"]),
    (r"^no subuid ranges found for user %s in %s$|^cannot find UID/GID for user %s: %s - check rootless mode",
     "rootless podman maps the container's users to the ranges /etc/subuid and /etc/subgid give {%1|the user}, "
     "and there are none: the container runs with a single ID mapping (files owned by other users in the image "
     "fail, apt and pip installs break) or does not start.",
     ["sudo usermod --add-subuids 100000-165535 --add-subgids 100000-165535 $USER; podman system migrate",
      "the user 'containers' is the pool of --userns=auto: give it ranges (containers:2147483647:2147483648 in "
      "/etc/subuid and /etc/subgid) or drop --userns=auto",
      "on a cluster whose users come from LDAP/SSSD: the admin gives each user a range (or subid: sss in "
      "/etc/nsswitch.conf)"]),
    (r"^Cannot find mappings for user %s: %s$",
     "--userns=auto takes its ID ranges from the subuid/subgid ranges of the user {%1|containers}, which has none.",
     ["sudo useradd --system --no-create-home containers (if absent); sudo usermod --add-subuids "
      "2147483647-2147548646 --add-subgids 2147483647-2147548646 containers", "or drop --userns=auto"]),
    (r"^could not find enough available IDs$",
     "--userns=auto found no free ID range of the size it needs in the subuid/subgid ranges of the user "
     "'containers'.",
     ["give the user containers subuid/subgid ranges (usermod --add-subuids/--add-subgids), or drop --userns=auto"]),
    (r"^keep-id is only supported in rootless mode$",
     "--userns=keep-id maps the calling user's UID into the container, which only rootless podman does: "
     "this podman runs as root.",
     ["as root drop --userns=keep-id (use --user $(id -u):$(id -g)), or run podman as the user"]),
    (r"^error setting rlimit type %s: %s$",
     "the runtime could not set the container's resource limit of type {%1|N} (setrlimit's number: 7 is "
     "RLIMIT_NOFILE, 8 RLIMIT_MEMLOCK, 6 RLIMIT_NPROC): the value asked (--ulimit, containers.conf's "
     "default_ulimits, docker's --default-ulimit) is above the hard limit the engine itself runs with, and an "
     "unprivileged or nested engine cannot raise it.",
     ["ask at most the engine's hard limit: --ulimit memlock=<n>:<n> with n <= ulimit -Hl of the engine's "
      "user (podman: containers.conf [containers] default_ulimits)",
      "or raise the engine's own limit: LimitMEMLOCK=infinity / LimitNOFILE=1048576 in its systemd unit "
      "(docker.service), or /etc/security/limits.conf for rootless podman, then restart it"]),
    (r"^cannot listen on the %s port: %s$|^cannot listen on the (?:TCP|UDP) port",
     "a published port (-p HOST:CONTAINER) is already taken on the host: another container or process "
     "listens there (a previous run of the same job that is still up).",
     ["ss -ltnp | grep :<port>   (who holds it); stop it (podman ps; podman rm -f <old>) or publish another "
      "port (-p 18081:80); a distributed job inside containers: --network host and a free MASTER_PORT"]),
    (r"^unable to find network with name or ID %s: %s$",
     "--network names {%1|a network} this engine does not have.",
     ["podman network ls; podman network create <name>, or --network host (what multi-node NCCL jobs use)"]),
    (r"^short-name %s did not resolve to an alias and no unqualified-search registries are defined",
     "the image was named without a registry ({%1|a short name}) and this host's registries.conf names no "
     "registry to search.",
     ["name the image fully: docker.io/library/<name>:<tag>, nvcr.io/nvidia/pytorch:<tag>",
      "or add unqualified-search-registries = [\"docker.io\"] to /etc/containers/registries.conf"]),
    (r"^pinging container registry %s: %s$",
     "the registry {%1|of the image} could not be reached from this node (DNS, a proxy, an air-gapped node).",
     ["pull where the registry is reachable and copy the image in (podman save / podman load, or a shared "
      "image store); set HTTPS_PROXY for the engine when the cluster has a proxy"]),
    # podman appends it to every runtime message that holds 'executable file not found in', 'no such file or
    # directory' or 'open executable' (libpod/oci_util.go getOCIRuntimeError): not only a missing command
    (r"^OCI runtime attempted to invoke a command that was not found$",
     "the OCI runtime could not find a file it needed: podman says this of every runtime message with 'no such "
     "file or directory' or 'executable file not found' (libpod/oci_util.go), so the runtime's words before it "
     "name which: the container's command (python3, torchrun, the script's interpreter) missing from the image, "
     "or a file the runtime itself needed: a device (/dev/nvidia-uvm: its module not loaded), a hook, a mount source.",
     ["read the path before 'OCI runtime attempted ...': a command: podman run --rm --entrypoint ls <image> -l "
      "/usr/bin /usr/local/bin (install it in the image or call it by its full path there); a /dev path: the device "
      "or driver module on the host (ls -l /dev/nvidia*; sudo nvidia-modprobe -u -c=0 for /dev/nvidia-uvm)"]),
    (r"^OCI permission denied$",
     "the OCI runtime was refused a privileged step (a resource limit, a device, a mount) by the host: "
     "the message before it names which.",
     ["read the runtime's message before 'OCI permission denied' (error setting rlimit ..., a mount ...): its "
      "family's fix applies"]),
]


def _strerror():
    """The C library's error texts (generated/errno.json, tools/gen_errno.py: glibc's strerror as Python prints
    it): a format that is one of them whole ('No such device or address') is every program's words."""
    import json

    try:
        with knowgen.open_text(knowgen.out_path("errno")) as f:  # (.json or .json.gz)
            return {str(x.get("text", "")).lower() for x in json.load(f)["sites"]}
    except (OSError, ValueError, KeyError):
        return set()


_STRERROR = _strerror()


def _vague(fmt):
    """A format too vague to be a runtime's own: one word once its conversions are gone (crun's bare syscall
    names: 'memfd_create', 'sigtimedwait'), or a C library error text whole."""
    words = re.findall(r"[A-Za-z][\w./-]*", re.sub(r"%[-+ #0]*\d*(?:\.\d+)?[a-zA-Z]", " ", fmt))
    return len(words) < 2 or fmt.strip().lower() in _STRERROR


def go_sites(path, src):
    """(line, format, level) of each Go error or log call with a literal format."""
    for m in _GO_CALL.finditer(src):
        fmt = knowgen.go_format(src, m.end())
        if fmt:
            name = re.match(r"\.(\w+)", m.group()).group(1)
            yield src.count("\n", 0, m.start()) + 1, fmt, _GO_LEVEL.get(name, "error")


def c_sites(repo, path, src):
    if repo == "crun":
        for m in _CRUN_CALL.finditer(src):
            fmt = knowgen.c_format(src, m.end(), macro=_C_MACRO)
            if fmt:
                yield src.count("\n", 0, m.start()) + 1, fmt, "error"
    else:
        for m in _CONMON_CALL.finditer(src):
            fmt = knowgen.c_format(src, m.end(), macro=_C_MACRO)
            if fmt:
                yield src.count("\n", 0, m.start()) + 1, fmt, "warning" if "warn" in m.group(1) else "error"


def build(files, version):
    sites, seen, ids, read, newest = [], set(), set(), {}, {}
    # the newest podman's texts first: an older release's text is kept only where the newest has none
    files = sorted(files, key=lambda f: "@" in f[0].split(":", 1)[0])
    for path, src in files:
        head, rel = path.split(":", 1)
        repo, _, tag = head.partition("@")
        lang = REPOS.get(repo, (None, None, "go"))[2]
        found = go_sites(rel, src) if lang == "go" else c_sites(repo, rel, src)
        for line, fmt, level in found:
            fmt = " ".join(fmt.split())
            read[repo] = read.get(repo, 0) + 1
            if fmt in seen:
                continue
            seen.add(fmt)
            where = "%s:%s:%d" % (repo, rel, line)
            rule, family = knowgen.assign(RULES, {}, {"where": where, "text": fmt, "level": level})
            if not family or SKIP_TEXT.search(fmt) or _vague(fmt):
                continue
            newest[repo] = newest.get(repo, 0) + 1
            site = {"id": knowgen.unique_id("oci.%s%s" % (knowgen.slug(where), "_" + knowgen.slug(tag) if tag else ""),
                                            ids), "where": where + (" (%s %s)" % (repo, tag) if tag else ""),
                    "text": fmt, "level": level}
            if tag:  # printed by that release, reworded or removed by the newest one read
                site["until"] = "the newest %s read" % repo
            rx, literal = knowgen.printf_to_regex(fmt)
            if not knowgen.unanchored(site, rx, literal, MIN_LITERAL):
                site.update({"re": PREFIX + rx, "family": family, "rule": rule})
                knowgen.give_fix(site, MSG_FIX, fmt)
            sites.append(site)
    note = ("Go fmt.Errorf/errors.New/Wrap(f)/log calls and crun/conmon error formats of the areas a training job "
            "meets; formats read per repository (with repeats): %s; kept in those areas: %s; families from the "
            "RULES table of the generator" % (", ".join("%s %d" % kv for kv in sorted(read.items())),
                                              ", ".join("%s %d" % kv for kv in sorted(newest.items()))))
    src = ", ".join("https://github.com/%s" % REPOS[r][0].replace("+", "/") for r in REPOS)
    return {"header": knowgen.header(src, version, GENERATOR, note), "sites": sites}


def _wanted(repo, path):
    lang = REPOS[repo][2]
    if SKIP_PATH.search(path):
        return False
    return path.endswith(".go") if lang == "go" else path.endswith(".c")


def from_mirrors(mirrors, older=()):
    files, versions = [], []
    for repo, (folder, dirs, _) in REPOS.items():
        git = knowgen.git_reader(os.path.join(mirrors, folder, "repo"))
        wanted = lambda p, repo=repo: _wanted(repo, p)  # noqa: E731
        files += [("%s:%s" % (repo, p), t) for p, t in knowgen.tree_files(git, "HEAD", dirs, wanted)]
        versions.append("%s %s" % (repo, knowgen.revision(git, "HEAD", untagged="?")))
        if repo == "podman":
            for t in older:
                files += [("podman@%s:%s" % (t, p), text) for p, text in knowgen.tree_files(git, t, dirs, wanted)]
                versions[-1] += " and %s" % t
    return files, "; ".join(versions)


def main(argv):
    a = knowgen.arguments(__doc__, argv, "mirrors", extra=[(
        "--podman-older", {"default": "v4.9.5,v4.3.1", "help": "comma-separated older podman tags whose texts are kept"})])
    if a.slice is None:
        files, version = from_mirrors(a.mirrors, [t for t in a.podman_older.split(",") if t])
    else:
        files, version = knowgen.read_slice(a.slice)
    doc = build(files, version)
    if a.slice is None:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"])
    return knowgen.emit("oci_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

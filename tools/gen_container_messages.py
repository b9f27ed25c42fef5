#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/container_messages.json: what the NVIDIA container
stack of a Slurm cluster prints when a containerised step fails, each turned into a bounded matcher
and assigned to a knowledge family (pyxis.toml) by the RULES table below:

- pyxis, Slurm's SPANK plugin behind `srun --container-image` (NVIDIA/pyxis, *.c): every
  slurm_error() format, and the slurm_info() ones that report a failure. Slurm prints them as
  'slurmstepd: error: pyxis: ...' (or 'srun: error: pyxis: ...'), and pyxis copies enroot's own log
  under 'pyxis: printing enroot log file:' as 'pyxis:     [ERROR] ...';
- enroot, the runtime pyxis drives (NVIDIA/enroot): every `common::err "..."` and `common::log WARN
  "..."` of its bash sources (src/*.sh, enroot.in, conf/hooks/*.sh; printed '[ERROR] text' and
  '[WARN] text', src/common.sh), with each ${...}, $(...) and $var read as %s; and the err() /
  errx() / warn() / warnx() formats of its helpers (bin/*.c), printed by glibc as
  '<program>: <text>' (err/warn add ': <strerror>').

Usage:
    python tools/gen_container_messages.py --pyxis-repo /path/to/pyxis.git --enroot-repo /path/to/enroot.git \
        [--pyxis-older v0.23.0] [-o OUT]
    python tools/gen_container_messages.py --slice tools/data/container_messages_slice.txt -o OUT   (the test)

Sources: NVIDIA/pyxis (https://github.com/NVIDIA/pyxis) and NVIDIA/enroot
(https://github.com/NVIDIA/enroot), read with `git show REV:path`. In a slice, each file's path is
prefixed with its repository: `pyxis:...` or `enroot:...`; `pyxis@TAG:...` is a file of an older
pyxis release (--pyxis-older): its texts that the newer one reworded are kept, each with `until`
(pyxis 0.24 reworded 'couldn't start container', which clusters running 0.23 still print).
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_container_messages.py"
SOURCE = ("NVIDIA/pyxis (https://github.com/NVIDIA/pyxis) *.c; NVIDIA/enroot (https://github.com/NVIDIA/enroot) "
          "src/*.sh, enroot.in, conf/hooks/*.sh, bin/*.c")

# Which knowledge entry explains a site: (rule, entry id, {field: regex}); the first that matches wins.
# Fields: where (repo:path:line), text (the format), level.
RULES = [
    # enroot: the registry answered with an HTTP error, or the image reference is not enroot's syntax
    ("image-ref", "enroot.image_ref", {"text": r"^Invalid image reference"}),
    ("registry", "enroot.registry", {"where": r"^enroot:", "text": r"^URL %s returned error code|authentication realm|"
                                     r"Unsupported authentication method|Could not (?:retrieve|parse) digest"}),
    ("json", "enroot.registry", {"where": r"^enroot:", "text": r"^Could not process JSON input"}),
    ("command", "enroot.missing_command", {"where": r"^enroot:", "text": r"^Command not found"}),
    ("userns", "enroot.userns", {"where": r"^enroot:bin/", "text": r"user namespace|set capabilities|"
                                                               r"get capabilities|drop privileges"}),
    ("space", "enroot.space", {"where": r"^enroot:", "text": r"Not enough space left"}),
    ("mksquashfs", "enroot.missing_command", {"where": r"^enroot:bin/", "text": r"failed to execute mksquashfs"}),
    ("driver", "enroot.nvidia_hook", {"where": r"^enroot:conf/hooks/98-nvidia", "text": r"nvidia|NVIDIA"}),
    ("enroot", "enroot.error", {"where": r"^enroot:", "level": r"^(?:err|errx|common::err)$"}),
    # pyxis
    ("pyxis-name", "pyxis.container_name", {"text": r"--container-name but the container|with name .{0,4}%s.{0,4} "
                                                    r"does not exist"}),
    ("pyxis-mounts", "pyxis.options", {"text": r"--container-mounts: source path does not exist"}),
    ("pyxis-options", "pyxis.options", {"text": r"^pyxis: (?:--container-|both --|ignoring --|mount (?:source|target)|"
                                                r"error: --container-unshare)"}),
    ("pyxis-import", "pyxis.import_failed", {"text": r"import docker image|importer|did not return a squashfs|"
                                                     r"create container filesystem|child %d (?:failed|terminated)|"
                                                     r"couldn't execute enroot command"}),
    ("pyxis-start", "pyxis.container_start", {"text": r"container start|start container|exited too soon|"
                                                      r"unusual entrypoint|not started successfully|"
                                                      r"previous task terminated unexpectedly|join .{0,10}namespace"}),
    ("pyxis-setup", "pyxis.setup", {"text": r"^pyxis: (?:slurmd: )?couldn't mkdir|failed to parse configuration|"
                                            r"unknown configuration option|runtime_path|failed to register arguments|"
                                            r"couldn't chown"}),
]

# What one message means, where its family's causes are not enough: [(regex over the text, means, [fix])]
MSG_FIX = [
    (r"^pyxis: failed to import docker image: %s$",
     "enroot could not import the --container-image (download or convert it); the enroot lines pyxis prints "
     "under 'printing enroot log file' say why.",
     ["read the '[ERROR]' line pyxis printed below this one (or run the import by hand on the node: enroot import "
      "docker://<registry>#<image>:<tag>)"]),
    (r"^pyxis: container start failed with error code: %d$",
     "enroot started the container but its start-up failed: a hook (98-nvidia.sh: nvidia-container-cli), the "
     "image's entrypoint, or a mount failed; the enroot log pyxis prints below says which.",
     ["srun --no-container-entrypoint ... (an image whose ENTRYPOINT exits or needs a TTY)", "on the node: enroot "
      "start --rw <image.sqsh> true   (the hook errors appear directly)"]),    # --- each message's own meaning, from the code that prints it (NVIDIA/pyxis args.c, config.c, enroot.c,
    # importer.c, pyxis_slurmstepd.c, pyxis_slurmd.c; NVIDIA/enroot src/*.sh, enroot.in, conf/hooks/*.sh, bin/*.c)
    # and their READMEs (pyxis: the srun options and plugstack.conf options; enroot: doc/cmd/import.md,
    # doc/configuration.md, doc/requirements.md). Families whose causes are picked from the log's other lines
    # (enroot.registry, enroot.userns, enroot.missing_command: by_evidence) keep those, and so does enroot's
    # 'Invalid image reference' (enroot.image_ref: its cause names the dockerd:// form pyxis does not pass).
    # pyxis: its srun options (args.c)
    (r"^pyxis: --container-(?:image|workdir|name|save|mounts|unshare|env): argument required$",
     "a pyxis option was given without its value: usually a variable in the srun line that expanded to nothing "
     "(--container-image=$IMAGE with IMAGE unset in the batch script).",
     ["echo the variables the srun line uses inside the job; give the option its value (--container-image="
      "<registry>#<image>:<tag>, --container-mounts=<src>:<dst>, --container-workdir=<dir>)"]),
    (r"specified multiple times$",
     "the same pyxis option appears twice for one step: once in the batch script (#SBATCH or an earlier srun "
     "wrapper) and once on the srun line, or twice in a wrapper script.",
     ["keep one: grep -n -- '--container-' in the batch script and the wrappers it calls"]),
    (r"^pyxis: mount (?:source|target) must be",
     "a --container-mounts entry is not SRC:DST[:FLAGS]: the source must be a path (or tmpfs / umount), the "
     "target a path in the container.",
     ["write each entry as /host/path:/container/path[:ro], entries separated by commas, no blanks"]),
    (r"^pyxis: --container-mounts: invalid format: %s$",
     "the --container-mounts entry {%1|<entry>} is not SRC[:DST[:FLAGS]].",
     ["write it as /host/path:/container/path[:ro|rw]; several entries are comma-separated; a path holding ':' or "
      "',' cannot be given this way"]),
    (r"^pyxis: --container-mounts: source path does not exist: %s$",
     "the host path {%1|<path>} of --container-mounts does not exist on the node where the step runs (a node-local "
     "path, a scratch directory not created yet, a typo).",
     ["srun ls -ld {%1|<path>} on the job's nodes; create it on every node (or mount a shared path)"]),
    (r"^pyxis: --container-mounts: cannot stat source path %s: %s$",
     "slurmstepd could not look at the host path {%1|<path>}: {%2|the error} (a parent directory the job's user "
     "may not enter, a stale NFS mount).",
     ["srun ls -ld {%1|<path>} as the job's user; fix the permissions of its parents, or remount a stale NFS path"]),
    (r"^pyxis: --container-name: (?:empty name|flag must be)",
     "--container-name is NAME[:FLAG], FLAG one of auto, create, exec, no_exec (pyxis's srun options).",
     ["--container-name=<name> (auto) or --container-name=<name>:create / :exec / :no_exec"]),
    (r"^pyxis: --container-save: target is a directory$",
     "--container-save needs a file to write the squashfs image to, and was given a directory.",
     ["--container-save=/path/to/image.sqsh (a file on shared storage to reuse it with --container-image)"]),
    (r"^pyxis: both --",
     "two contradicting pyxis options were given for one step (one from #SBATCH or a wrapper, one on srun).",
     ["keep only one of the pair named in the message"]),
    (r"^pyxis: --container-unshare: (?:empty namespace argument|unknown namespace)",
     "--container-unshare takes a comma-separated list of net, ipc and uts (args.c), nothing else.",
     ["--container-unshare=net (or ipc, uts; several: net,ipc)"]),
    (r"^pyxis: --container-env: invalid format: %s$",
     "--container-env takes variable names (NAME[,NAME...]) whose values pyxis copies from the job, not "
     "NAME=VALUE: {%1|<the value>} is not that form.",
     ["export NAME=VALUE in the job, then --container-env=NAME"]),
    (r"^pyxis: ignoring --.{1,40} because neither --container-image nor --container-name is set$",
     "a container option has no effect because the step gets no container: it runs on the host.",
     ["add --container-image=<image> (or --container-name of a container this job created) to the same srun; "
      "#SBATCH --container-image applies to the batch script only with pyxis's sbatch_support"]),
    (r"^pyxis: error: --container-unshare=(?:net|ipc|uts) requested but the container is not in a separate",
     "the named container was created without that namespace unshared; a later step that reuses it cannot "
     "unshare it afterwards.",
     ["pass the same --container-unshare=<ns> on the step that creates the container, or use a new "
      "--container-name"]),
    # pyxis: named containers (pyxis_slurmstepd.c)
    (r"^pyxis: error: \"create\" flag was passed to --container-name but the container already exists$",
     "--container-name=<name>:create asks for a new container, and one of that name already exists on this node.",
     ["use --container-name=<name> (auto: reuse it) or :exec, or another name"]),
    (r"^pyxis: error: \"exec\" flag was passed to --container-name but the container is not running$",
     "--container-name=<name>:exec runs inside a running container, and no step of this job keeps that container "
     "running on this node.",
     ["start it first (a step with --container-name=<name> running in the background), or use :auto"]),
    (r"^pyxis: error: a container with name \"%s\" does not exist, and --container-image is not set$",
     "--container-name={%1|<name>} names a container that does not exist on this node: named containers are "
     "per node (and per job unless container_scope=global), so each node's first step must create it.",
     ["give the first step that uses the name --container-image=<image> too, on every node it runs on"]),
    # pyxis: starting the container
    (r"^pyxis: container start error: %s$",
     "enroot's start of the container failed: {%1|the error}.",
     ["read the enroot lines pyxis printed with it; on the node: enroot start --rw <image> true"]),
    (r"^pyxis: container exited too soon$",
     "the container's first process (the image's ENTRYPOINT) exited before pyxis could attach the task to it.",
     ["srun --no-container-entrypoint ... (pyxis then runs the command without the entrypoint)"]),
    (r"^pyxis: if the image has an unusual entrypoint",
     "pyxis's own hint after a failed start: the image's ENTRYPOINT script exits or waits for a terminal.",
     ["srun --no-container-entrypoint ..."]),
    (r"^pyxis: (?:a previous task terminated unexpectedly during container setup|container was not started "
     r"successfully by another task)$",
     "another task of this step on the node (the one that sets up the shared container) failed; its own error is "
     "earlier in the log.",
     ["read the first pyxis error of the step; srun --ntasks=1 with the same options shows it alone"]),
    (r"^pyxis: couldn't join (?:cgroup|mount|IPC|UTS|network) namespace: %s$",
     "pyxis could not move the task into the container's namespace: {%1|the error} (the container's process "
     "ended, or the kernel refused).",
     ["rerun the step; if it repeats on that node, read the enroot log pyxis printed and sudo dmesg -T there"]),
    # pyxis: importing the image (enroot.c, importer.c, pyxis_slurmstepd.c)
    (r"^pyxis: child %d terminated with signal %d$",
     "the enroot command pyxis ran (import or create) was killed by signal {%2|<signal>}: 9 is the OOM killer or "
     "the job's memory limit while the image is downloaded and converted.",
     ["give the step more memory (--mem), or import the image once: enroot import -o /shared/image.sqsh "
      "docker://<registry>#<image>:<tag> and use --container-image=/shared/image.sqsh"]),
    (r"^pyxis: child %d failed with error code: %d$",
     "the enroot command pyxis ran failed with exit code {%2|<code>}; its log follows ('pyxis: printing enroot log "
     "file').",
     ["read the [ERROR] lines pyxis printed below it"]),
    (r"^pyxis: couldn't execute enroot command$",
     "pyxis could not run enroot on this node: enroot is not installed or not where slurmstepd looks.",
     ["install enroot on every compute node (the same version); command -v enroot on the node"]),
    (r"^pyxis: (?:importer: path too long|could not wait for importer|importer %s (?:terminated|failed)|importer "
     r"did not return|(?:failed|could not) (?:to )?call importer release)",
     "pyxis's configured image importer (the importer= option of its plugstack.conf line) failed or returned "
     "nothing.",
     ["the admin checks the importer= path and runs it by hand on the node; without it pyxis uses enroot import"]),
    (r"^pyxis: failed to import docker image(?: with importer: %s| : %s \(importer: %s\)|: %s \(importer: %s\))?$",
     "pyxis could not import --container-image; the lines it printed below (enroot's or the importer's) say why.",
     ["read the '[ERROR]' lines below it; on the node: enroot import docker://<registry>#<image>:<tag>"]),
    (r"^pyxis: failed to create container filesystem",
     "enroot imported the image but could not unpack it into a container root (enroot create): space or "
     "permissions in enroot's data path.",
     ["df -h on ENROOT_DATA_PATH (enroot.conf) on the node; enroot create <image.sqsh> by hand shows the error"]),
    # pyxis: configuration (config.c, pyxis_alloc.c, pyxis_slurmd.c)
    (r"^pyxis: unknown configuration option: %s$",
     "the pyxis line of plugstack.conf has the option {%1|<option>}, which this pyxis does not know (a newer "
     "pyxis's option, a typo).",
     ["the admin fixes /etc/slurm/plugstack.conf.d/pyxis.conf (options: runtime_path, execute_entrypoint, "
      "container_scope, sbatch_support, use_enroot_load, importer ...) and restarts slurmd"]),
    (r"^pyxis: runtime_path: path too long",
     "pyxis's runtime_path in plugstack.conf is longer than it accepts.",
     ["the admin sets a shorter runtime_path (default /run/pyxis)"]),
    (r"^pyxis: (?:slurmd: )?couldn't (?:mkdir|chown) %s: %s$",
     "pyxis could not create or hand over its runtime directory {%1|<dir>}: {%2|the error}.",
     ["the admin checks runtime_path (default /run/pyxis) on the node: a filesystem where root may create "
      "directories, not a read-only or root-squashed mount"]),
    (r"^pyxis: (?:epilog: )?failed to (?:parse configuration|register arguments)$",
     "pyxis could not read its plugstack.conf options (or register its srun options): the pyxis line is malformed "
     "or another plugin already registers the same options.",
     ["the admin checks the pyxis line of plugstack.conf and slurmd's log on the node"]),
    # enroot: the image and the runtime (src/*.sh)
    (r"^Not enough space left in %s \(%s KB needed\)$",
     "enroot's working directory {%1|<dir>} lacks the {%2|<size>} KB the image needs.",
     ["df -h {%1|<dir>}; point ENROOT_TEMP_PATH, ENROOT_CACHE_PATH and ENROOT_DATA_PATH (enroot.conf or the "
      "job's environment) at a filesystem with room"]),
    (r"^Unknown NVIDIA driver capability: %s$",
     "NVIDIA_DRIVER_CAPABILITIES holds {%1|a value} that enroot's NVIDIA hook does not know: it takes compute, "
     "compat32, display, graphics, utility, video or all (conf/hooks/98-nvidia.sh).",
     ["export NVIDIA_DRIVER_CAPABILITIES=compute,utility (or all) for the job, or fix the image's ENV"]),
    (r"^Unknown MELLANOX device id: %s$",
     "MELLANOX_VISIBLE_DEVICES names {%1|a device} this node does not have (enroot's 99-mellanox hook).",
     ["set MELLANOX_VISIBLE_DEVICES to indexes of /sys/class/infiniband on the node (or all / none)"]),
    (r"^Unsupported architecture: %s$",
     "the image has no variant for this node's architecture {%1|<arch>}.",
     ["use an image built for $(uname -m) of the compute nodes (docker manifest inspect <image> lists them)"]),
    (r"^Invalid image format: %s$",
     "{%1|The file} is not an image enroot can start: not a squashfs file made by enroot import.",
     ["give --container-image a registry image or a .sqsh made by enroot import -o"]),
    (r"^File already exists: %s$",
     "enroot import -o or enroot export would overwrite {%1|the file}.",
     ["remove it first or write to another name"]),
    (r"^Could not acquire rootfs lock$",
     "another enroot process on the node (another task or job) is using the same container root.",
     ["give each job its own --container-name (or let pyxis name it); retry when the other step ends"]),
    (r"^ENROOT_NATIVE_OVERLAYFS=y is required for enroot load$",
     "enroot load needs the kernel's overlayfs in user namespaces, and ENROOT_NATIVE_OVERLAYFS is off.",
     ["set ENROOT_NATIVE_OVERLAYFS=y (kernel 5.11+), or import with enroot import instead of load (pyxis: "
      "use_enroot_load=0)"]),
    (r"^Missing directive ENROOT_ROOTFS in %s$",
     "the enroot configuration or bundle {%1|<file>} lacks ENROOT_ROOTFS.",
     ["recreate the bundle (enroot bundle) or fix the file"]),
    (r"^(?:Checksum validation failed|Could not find kernel configuration)$",
     "an enroot bundle could not be verified or its kernel requirements checked (a damaged bundle, no "
     "/proc/config.gz or /boot/config-$(uname -r)).",
     ["re-copy the bundle; on the node: ls /boot/config-$(uname -r) /proc/config.gz"]),
    (r"^Failed to mount: %s$",
     "enroot could not mount {%1|an entry} into the container (a mount of its fstab, /etc/enroot/mounts.d or "
     "--container-mounts).",
     ["check the source exists on that node and the entry's syntax (enroot's mount files use fstab syntax)"]),
    # enroot's helpers (bin/*.c)
    (r"^enroot-nsenter: failed to create (?:PID|mount|network|IPC|UTS) namespace$",
     "the kernel refused a new namespace for the container: that namespace type is limited to 0 "
     "(user.max_*_namespaces) or the per-user count is used up.",
     ["sysctl user.max_pid_namespaces user.max_mnt_namespaces user.max_net_namespaces on the node; the admin raises "
      "the one that is 0 (enroot check lists the requirements)"]),
    (r"^enroot-nsenter: failed to (?:open|join) (?:PID|mount|network|IPC|UTS|cgroup) namespace$",
     "enroot could not enter the running container's namespace: its first process has already exited.",
     ["start the container again; if its entrypoint exits, srun --no-container-entrypoint"]),
    (r"kernel lacks support for ambient capabilities, consider using --remap-root instead$",
     "the kernel has no ambient capabilities (before 4.3), which enroot needs to keep capabilities as the user.",
     ["srun --container-remap-root (ENROOT_REMAP_ROOT=y), or a newer kernel"]),
    (r"^enroot-(?:nsenter|switchroot): failed to execute: %s$",
     "the command {%1|<command>} could not be run inside the container: not in the image's PATH, not executable, "
     "or built for another architecture.",
     ["srun --container-image=<image> which {%1|<command>}; give its full path in the image, or an image that "
      "has it"]),
    (r"^enroot-nsenter: failed to change directory: %s$",
     "the working directory {%1|<dir>} does not exist inside the container (the job's cwd on the host, or "
     "--container-workdir).",
     ["--container-workdir=<a directory of the image>, or mount it: --container-mounts=$PWD:$PWD"]),
    (r"^enroot-(?:nsenter|switchroot): failed to load environment",
     "enroot could not read the container's environment file (its /etc/environment or enroot's env file).",
     ["check the image's /etc/environment for malformed lines; recreate the container"]),
    (r"^enroot-nsenter: failed to register seccomp filter$",
     "the kernel refused enroot's seccomp filter (seccomp not built in, or a container runtime above it forbids it).",
     ["on the node: grep SECCOMP /boot/config-$(uname -r); run enroot directly on the host, not nested"]),
    (r"^enroot-aufs2ovlfs: (?:failed to (?:remove|create) (?:opaque )?(?:aufs|ovlfs) whiteout|unsupported aufs "
     r"whiteout|failed to (?:resolve path|walk directory|allocate memory))",
     "converting an image layer's aufs whiteouts to overlayfs failed while importing (an unusual layer, or no "
     "space or permission in enroot's temporary directory).",
     ["df -h $ENROOT_TEMP_PATH; retry the import; rebuild the image if one layer keeps failing"]),
    (r"^enroot-mksquashovlfs: (?:failed to mount overlay|MOUNTPOINT|failed to (?:create mount namespace|set mount "
     r"propagation))",
     "building the squashfs through an overlay mount failed: the kernel does not allow overlayfs in user "
     "namespaces (before 5.11, without distribution patches).",
     ["export ENROOT_NATIVE_OVERLAYFS=n (enroot then converts without it), or a newer kernel"]),
    (r"^enroot-mount: (?:failed to open|invalid fstab entry|invalid argument)",
     "a mount entry enroot was given (its fstab files, /etc/enroot/mounts.d, --container-mounts) cannot be read or "
     "parsed.",
     ["check the entry the message names: fstab syntax, an existing source path"]),
    (r"^enroot-switchroot: failed to (?:switch root|read file|copy file|read last capability)",
     "enroot could not switch into the container's root filesystem (a damaged container, or a rootfs on a "
     "filesystem that does not allow it).",
     ["remove and recreate the container (enroot remove <name>; pyxis recreates it on the next step)"]),
]

_C_CALLS = {"slurm_error": 0, "slurm_info": 0, "err": 1, "errx": 1, "warn": 0, "warnx": 0}
_C_CALL = re.compile(r"(?<![A-Za-z0-9_>.:])(%s)\s*\(" % "|".join(_C_CALLS))
_SH_CALL = re.compile(r"common::(err|log WARN)\s+\"")
FAILURE_WORDS = re.compile(r"fail|error|unable|cannot|can't|couldn't|could not|invalid|not found|denied|"
                           r"does not exist|too soon|unexpectedly", re.IGNORECASE)
# enroot's own log lines: '[ERROR] text' / '[WARN] text' (src/common.sh common::log), possibly in
# colour ('tput sgr0' ends it with ESC ( B ESC [ m on xterm-like terminals), possibly after pyxis's
# 'pyxis:     ' prefix
_ENROOT_LINE = r"\[(?:ERROR|WARN)\](?:\x1b\(B)?(?:\x1b\[[0-9;]{0,10}m)? "
CONTEXT_BELOW = 20


def c_literal(arg):
    """A C argument of adjacent literals (and pyxis's "..." PYXIS_VERSION style macros read as %s)."""
    if '"' not in arg:
        return None
    rest = knowgen.C_STRING.sub("", arg)
    if rest.strip() and not re.fullmatch(r"[\sA-Z_0-9]*", rest):
        return None
    out, pos = [], 0
    for m in knowgen.C_STRING.finditer(arg):
        if arg[pos:m.start()].strip():
            out.append("%s")
        out.append(knowgen.c_unescape(m.group(1)))
        pos = m.end()
    return "".join(out)


def sh_string(src, i):
    """The bash double-quoted string starting after the quote at src[i-1], as a printf format:
    % doubled, every ${...}, $(...) and $var a %s. (format, end) or (None, i)."""
    out, n = [], len(src)
    while i < n:
        c = src[i]
        if c == '"':
            return "".join(out), i + 1
        if c == "\\" and i + 1 < n:
            out.append(src[i + 1])
            i += 2
            continue
        if c == "$" and i + 1 < n and src[i + 1] in "({":
            close = ")" if src[i + 1] == "(" else "}"
            depth, j = 0, i + 1
            while j < n:
                if src[j] == src[i + 1]:
                    depth += 1
                elif src[j] == close:
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            out.append("%s")
            i = j + 1
            continue
        if c == "$":
            m = re.match(r"\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])", src[i:])
            if m:
                out.append("%s")
                i += m.end()
                continue
        if c == "\n":
            return None, i
        out.append("%%" if c == "%" else c)
        i += 1
    return None, i


def sites_of(path, src):
    repo, _, rel = path.partition(":")
    line = lambda pos: "%s:%d" % (path, src.count("\n", 0, pos) + 1)  # noqa: E731
    if rel.endswith(".c"):
        prog = os.path.basename(rel)[:-2]
        for m in _C_CALL.finditer(src):
            call = m.group(1)
            if (repo == "pyxis") != call.startswith("slurm_"):
                continue
            args = knowgen.call_args(src, m.end())
            idx = _C_CALLS[call]
            if not args or len(args) <= idx:
                continue
            fmt = c_literal(args[idx])
            if not fmt or not fmt.strip() or fmt.strip() in ("%s", "pyxis:     %s"):
                continue
            if call == "slurm_info" and not FAILURE_WORDS.search(fmt):
                continue
            if repo == "enroot":  # glibc's err(): '<program>: <format>[: <strerror>]'
                fmt = "%s: %s" % (prog, fmt)
            yield call, line(m.start()), fmt
    elif rel.endswith((".sh", ".in")) or "/hooks/" in rel:
        for m in _SH_CALL.finditer(src):
            fmt, _ = sh_string(src, m.end())
            if fmt and fmt.strip() and fmt.strip() != "%s":
                yield "common::" + m.group(1).replace(" ", "_"), line(m.start()), fmt


def build(files, version, newest="v0.24.0"):
    sites, seen = [], set()
    for path, src in files:
        older = re.match(r"pyxis@([^:]+):", path)
        for level, where, fmt in sites_of(re.sub(r"^pyxis@[^:]+:", "pyxis:", path), src):
            if fmt in seen:
                continue
            seen.add(fmt)
            rx, lit = knowgen.printf_to_regex(fmt)
            site = {"id": "container.msg.%s%s" % (knowgen.slug(where),
                                                   "_" + re.sub(r"\W", "_", older.group(1)) if older else ""),
                    "where": where, "level": level, "text": fmt}
            if older:  # printed by that release, reworded or removed by the newest one read
                site.update({"where": "%s (pyxis %s)" % (where, older.group(1)), "until": newest})
            if knowgen.unanchored(site, rx, lit):
                sites.append(site)
                continue
            if level.startswith("common::"):
                # enroot's bash messages ('Invalid argument', 'No such file or directory: %s') are
                # enroot's only on its own [ERROR]/[WARN] line
                rx = _ENROOT_LINE + rx
            elif len("".join(lit.split())) < CONTEXT_BELOW:
                rx = r"\b" + rx
            rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt, "level": level})
            if level in ("common::log_WARN", "warn", "warnx"):
                rule, family = "a warning: context, not a failure", None
            site.update({"re": rx, "family": family, "rule": rule})
            knowgen.give_fix(site, MSG_FIX, fmt)
            sites.append(site)
    return {"header": knowgen.header(SOURCE, version, GENERATOR,
                                     "pyxis's slurm_error/slurm_info formats, enroot's common::err / common::log WARN "
                                     "texts and its helpers' err/errx formats; families from the RULES table of the "
                                     "generator"), "sites": sites}


def _wanted(repo, path):
    if repo == "pyxis":
        return path.endswith(".c") and "/" not in path
    return (path.startswith("src/") and path.endswith(".sh")) or path == "enroot.in" or \
        (path.startswith("conf/hooks/") and path.endswith(".sh")) or (path.startswith("bin/") and path.endswith(".c"))


def from_repos(pyxis, enroot, rev="HEAD", older=()):
    files, versions = [], []
    for repo, d in (("pyxis", pyxis), ("enroot", enroot)):
        git, wanted = knowgen.git_reader(d), lambda p, repo=repo: _wanted(repo, p)
        files += [("%s:%s" % (repo, p), text) for p, text in knowgen.tree_files(git, rev, (), wanted)]
        # a mirror fetched without tags: the commit alone
        versions.append("%s %s" % (repo, knowgen.revision(git, rev, untagged="?")))
        if repo == "pyxis":
            for t in older:
                files += [("pyxis@%s:%s" % (t, p), text) for p, text in knowgen.tree_files(git, t, (), wanted)]
                versions[-1] += " and %s" % t
    return files, "; ".join(versions)


def main(argv):
    a = knowgen.arguments(__doc__, argv, ("pyxis-repo", "enroot-repo"), extra=[(
        "--pyxis-older", {"default": "", "help": "comma-separated older pyxis tags whose texts are kept"})])
    older = [t for t in a.pyxis_older.split(",") if t]
    files, version = from_repos(a.pyxis_repo, a.enroot_repo, older=older) if a.slice is None \
        else knowgen.read_slice(a.slice)
    newest = re.search(r"pyxis (v[\d.]+)", version)
    doc = build(files, version, newest.group(1) if newest else "?")
    if a.slice is None:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"])
    return knowgen.emit("container_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

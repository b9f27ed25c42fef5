#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/apptainer_messages.json: what Apptainer (formerly Singularity,
the container runtime of most HPC clusters) prints when it refuses or fails, read from its Go source:

- every sylog.Fatalf / sylog.Errorf / sylog.Warningf format of cmd/, internal/ and pkg/ (printed by
  pkg/sylog/sylog.go as 'FATAL:   text', 'ERROR:   text', 'WARNING: text': the level and ':' padded to 8
  characters, then a blank; with --debug 'WARNING [U=1000,P=42]  func()  text');
- the fmt.Errorf / errors.New texts of the GPU setup (internal/pkg/util/gpu/, internal/pkg/runtime/launch/):
  errors that reach the user inside a FATAL line ('FATAL:   While setting GPU configuration: <error>').

Go's verbs %v %+v %#v %w %q %T %t are read as %s. Each format becomes a bounded matcher behind the sylog
prefix, assigned to a knowledge family (apptainer.toml) by RULES; a site no rule assigns is listed.

Usage:
    python tools/gen_apptainer_messages.py --repo /path/to/apptainer.git [--rev HEAD] [-o OUT]
    python tools/gen_apptainer_messages.py --slice tools/data/apptainer_messages_slice.txt -o OUT   (the test)

Source: apptainer/apptainer (https://github.com/apptainer/apptainer), read with `git show REV:path`;
the --nv options are documented in https://apptainer.org/docs/user/latest/gpu.html.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_apptainer_messages.py"
GPU_DIRS = ("internal/pkg/util/gpu/", "internal/pkg/runtime/launch/")
# the starter's master process (internal/app/starter/master_linux.go) sends its errors to fatalChan, printed by
# sylog.Fatalf("%s", fatal): 'FATAL:   container creation failed: <the engine's error>' (assign-sites2)
VALUE_DIRS = GPU_DIRS + ("internal/app/starter/",)

# sylog's line (pkg/sylog/sylog.go prefix(): '%-8s ' of 'LEVEL:', or with --debug the level, [U=..,P=..] and the
# function): a site needs it, so that a short format never matches another program's words. INFO too: Singularity
# 3.x printed 'Could not find any nv files on this host!' at INFO (apptainer/singularity#5837), Apptainer warns
PREFIX = r"(?:FATAL|ERROR|WARNING|INFO)(?::|\s{1,10}\[U=\d{1,10},P=\d{1,10}\])\s{1,60}[^\n]{0,200}?"

_SYLOG = re.compile(r"\bsylog\.(Fatalf|Errorf|Warningf)\(")
_ERR = re.compile(r"\b(?:fmt\.Errorf|errors\.New)\(")
LEVELS = {"Fatalf": "fatal", "Errorf": "error", "Warningf": "warning"}

# (rule, knowledge entry, {field: regex}); fields: where (path:line), text, level. The first that matches wins.
RULES = [
    # the GPU libraries --nv / --rocm bind from the host (nvliblist.conf / rocmliblist.conf), and --nvccli
    ("gpu", "container.apptainer_gpu", {"text": r"nvidia|nvccli|nv files|nv libraries|nv bind|nv ipcs|%s (?:files|libraries) "
                                      r"(?:on this host|may not be bound)|NVIDIA_|GPU configuration|ldconfig is not "
                                      r"owned|/usr/bin not writable in the container|ROCm|--compat32|"
                                      r"nvliblist|rocmliblist"}),
    # unprivileged containers: user namespaces, --fakeroot's subuid/subgid mappings, a setuid install
    ("userns", "container.apptainer_userns", {"text": r"user namespace|fakeroot|subuid|subgid|newuidmap|newgidmap|"
                                            r"setuid|set-uid|unprivileged"}),
    # a WARNING no rule above assigns: Apptainer warns and goes on (healthy runs print them too); listed, never a
    # finding (bench/explain_accuracy.py's "not a failure" column)
    ("a warning, not an error", None, {"level": r"^warning$"}),
]
# Assigned by SOURCE CONTEXT (issue 18, assign-sites2; tools/gen_slurm_messages.py CONTEXT_RULES, the same pattern): a
# FATAL / ERROR line (or an error value the launcher wraps into one) no rule above assigns by its words gets the family
# of the code that prints it (knowledge/apptainer_context.toml): the family and the ways to tell its causes apart,
# never one cause. Too few words of its own (VAGUE) stays unassigned.
CONTEXT_RULES = [
    # the launcher of run / exec / shell / instance start (internal/pkg/runtime/launch/) and the engine that sets up
    # and runs the container (internal/pkg/runtime/engine/apptainer/): the image, binds and mounts, home, cgroups
    ("ctx-launch", "container.apptainer_launch", r"^internal/pkg/runtime/(?:launch|engine/apptainer)/"),
    # the starter that creates the container: 'container creation failed: %s', 'pre start process failed: %s'
    ("ctx-starter", "container.apptainer_launch", r"^internal/app/starter/"),
]
RULES += [(name, family, {"level": r"^(?:fatal|error|error-value)$", "where": where})
          for name, family, where in CONTEXT_RULES]
VAGUE = "too few words of its own to assign by its source file"  # knowgen.specific_enough

# What one message means and what to do: [(regex over the text, means, [fix])]
MSG_FIX = [
    (r"^Could not find any %s libraries on this host!$",
     "--nv (or --rocm) found none of the {%1|GPU} driver libraries its list names (nvliblist.conf: libcuda.so, "
     "libnvidia-ml.so ...) on this host, so none are bound into the container: inside it CUDA finds no driver "
     "(torch.cuda.is_available() is False, 'libcuda.so: cannot open shared object file'). The host has no "
     "driver (a login node, a node without GPUs) or its libraries are not in the loader cache (ldconfig -p).",
     ["on the node where it runs: nvidia-smi; ldconfig -p | grep -E 'libcuda|libnvidia-ml' (a driver installed "
      "outside the cache: add its directory to /etc/ld.so.conf.d and run ldconfig)",
      "run the container on a GPU node (srun --gres=gpu:1 apptainer exec --nv ...), or let "
      "nvidia-container-cli find the libraries: apptainer exec --nvccli ..."]),
    (r"^Could not find any %s files on this host!$",
     "--nv found none of the {%1|GPU} programs its list names (nvidia-smi, nvidia-persistenced ...) on this host: "
     "the host has no NVIDIA driver installed, or it is not on root's PATH.",
     ["nvidia-smi on the host (run on a GPU node); the admin checks the binary list of nvliblist.conf"]),
    (r"^While finding (?:32-bit )?nv bind points: %s$",
     "Apptainer could not read its list of NVIDIA libraries and programs (nvliblist.conf in its configuration "
     "directory): {%1|the error}. --nv then binds nothing.",
     ["the admin restores nvliblist.conf (apptainer's etc/apptainer/nvliblist.conf, as the package installs "
      "it), readable by all; or use --nvccli"]),
    (r"^When using nvidia-container-cli with --contain NVIDIA_VISIBLE_DEVICES must be set",
     "with --nvccli and --contain (or --containall) only the GPUs NVIDIA_VISIBLE_DEVICES names are passed in, and "
     "it is unset: the container gets no GPU.",
     ["export NVIDIA_VISIBLE_DEVICES=all (or the GPU indexes: 0,1) before apptainer exec --nvccli --contain ..."]),
    (r"^--fakeroot does not support --nvccli in set-uid installations$",
     "a setuid installation of Apptainer cannot run nvidia-container-cli for a --fakeroot container.",
     ["drop --nvccli (--nv binds the libraries from nvliblist.conf), or use an unprivileged (non-setuid) "
      "installation of Apptainer"]),
    (r"^nvidia-container-cli failed with %s: %s$",
     "--nvccli ran nvidia-container-cli to set up the GPUs and it failed: {%2|its own message} says why (no "
     "driver, a GPU that NVIDIA_VISIBLE_DEVICES names and the host lacks, a cgroup it cannot use).",
     ["on the host: nvidia-container-cli -k -d /dev/tty info; or use --nv instead of --nvccli"]),
    (r"^unknown NVIDIA_DRIVER_CAPABILITIES value: %s$",
     "NVIDIA_DRIVER_CAPABILITIES holds {%1|a value} nvidia-container-cli does not know (compute, compat32, "
     "graphics, utility, video, display, ngx, all).",
     ["export NVIDIA_DRIVER_CAPABILITIES=compute,utility (or all)"]),
    (r"^/usr/bin not writable in the container$",
     "--nvccli writes the NVIDIA programs into the container's /usr/bin, which is read-only here (a SIF image "
     "without --writable-tmpfs, a sandbox not owned by the user).",
     ["add --writable-tmpfs (or --fakeroot, or a sandbox built with --fix-perms), or use --nv instead of --nvccli"]),
    (r"^(?:nvidia-container-cli|ldconfig) is not owned by root user$",
     "a setuid Apptainer runs nvidia-container-cli and ldconfig as root and refuses binaries a user could have "
     "replaced.",
     ["the admin installs nvidia-container-cli (libnvidia-container-tools) owned by root; or use --nv"]),
    (r"^Ignoring --compat32, it requires a GPU option such as --nv or --rocm$",
     "--compat32 was given without --nv or --rocm, so it does nothing.",
     ["apptainer exec --nv --compat32 ..."]),
]


def sites_of(path, src):
    for m in _SYLOG.finditer(src):
        fmt = knowgen.go_format(src, m.end())
        if fmt:
            yield "%s:%d" % (path, src.count("\n", 0, m.start()) + 1), fmt, LEVELS[m.group(1)]
    if path.startswith(VALUE_DIRS):
        for m in _ERR.finditer(src):
            fmt = knowgen.go_format(src, m.end())
            if fmt:
                yield "%s:%d" % (path, src.count("\n", 0, m.start()) + 1), fmt, "error-value"


def build(files, version):
    sites, seen, ids = [], set(), set()
    for path, src in files:
        for where, fmt, level in sites_of(path, src):
            fmt = " ".join(fmt.split())
            if fmt in seen:
                continue
            seen.add(fmt)
            site = {"id": knowgen.unique_id("apptainer." + knowgen.slug(where), ids), "where": where, "text": fmt,
                    "level": level}
            rx, literal = knowgen.printf_to_regex(fmt)
            if not knowgen.unanchored(site, rx, literal):
                rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt, "level": level})
                if str(rule).startswith("ctx-") and not knowgen.specific_enough(fmt, names=False):
                    rule, family = VAGUE, None
                site.update({"re": PREFIX + rx, "family": family, "rule": rule or "no rule"})
                knowgen.give_fix(site, MSG_FIX, fmt)
            sites.append(site)
    return {"header": knowgen.header("apptainer/apptainer (https://github.com/apptainer/apptainer)", version,
                                     GENERATOR, "sylog.Fatalf/Errorf/Warningf formats of cmd/, internal/, pkg/ and the "
                                     "GPU setup's and the starter's fmt.Errorf/errors.New texts; families from the RULES "
                                     "table of the generator"), "sites": sites}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    keep = (lambda p: p.endswith(".go") and not p.endswith("_test.go") and "/testdata/" not in p
            and p.startswith(("cmd/", "internal/", "pkg/")) and not p.startswith("internal/pkg/test/"))
    return (knowgen.tree_files(git, rev, ("cmd", "internal", "pkg"), keep),
            knowgen.revision(git, rev, untagged="untagged"))


def main(argv):
    a = knowgen.arguments(__doc__, argv, rev="HEAD")
    doc = build(*knowgen.source_files(a, from_repo))
    if a.repo:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"])
    return knowgen.emit("apptainer_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

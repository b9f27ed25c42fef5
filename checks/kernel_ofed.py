"""MLNX_OFED / DOCA-OFED must have kernel modules for the kernel that is running.

Seed 000 (Alibaba eRDMA notes): OFED 5.4-3.5.8.0 was installed for 3.10.0-1160.31.1.el7,
a yum update booted 3.10.0-1160.90.1.el7, and the OFED modules were gone: the fix is to
boot the old kernel (`grub2-set-default '<menu entry>'`) or rebuild OFED for the new one
(`mlnxofedinstall --add-kernel-support`, MLNX_OFED's installer option). Also the NHC/weka check: the
loaded mlx5_core must be the version of the installed OFED user space.
"""

from gpudoctor.registry import NA, Finding, Pass, check, cmd, sh, Literal

BUNDLE = "./mlnxofedinstall --add-kernel-support --kernel-only --without-fw-update   # in the unpacked MLNX_OFED bundle"


def _versions_match(ofed_version, module_version):
    import re

    a, b = re.split(r"[-.]", ofed_version), re.split(r"[-.]", module_version)
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def _boot_fix(ofed, release):
    """The commands that make `release` the default boot entry."""
    entries = [e for e in ofed.get("grub_entries") or [] if e.get("kernel") == release]
    bls = [e for e in ofed.get("bls_entries") or [] if e.get("kernel") == release]
    cfg = ofed.get("grub_cfg") or ""
    if entries and "grub2" in cfg or entries and "/EFI/" in cfg:
        e = entries[0]
        title = e["title"] if not e.get("submenu") else "%s>%s" % (e["submenu"], e["title"])
        return cmd("grub2-set-default {title}\ngrub2-editenv list   # saved_entry must name it\nreboot", title=title)
    if entries:  # Debian/Ubuntu grub: needs GRUB_DEFAULT=saved in /etc/default/grub
        e = entries[0]
        title = e["title"] if not e.get("submenu") else "%s>%s" % (e["submenu"], e["title"])
        return cmd("sed -i 's/^GRUB_DEFAULT=.*/GRUB_DEFAULT=saved/' /etc/default/grub && update-grub\n"
                   "grub-set-default {title}\nreboot", title=title)
    if bls:
        return cmd("grubby --set-default {img}\nreboot", img="/boot/vmlinuz-%s" % release)
    return cmd("grubby --set-default {img}   # or pick it in your boot loader\nreboot", img="/boot/vmlinuz-%s" % release)


@check("kernel.ofed", title="OFED kernel modules exist for the running kernel and match OFED user space",
       needs=("ofed",))
def kernel_ofed(facts, config):
    ofed = facts["ofed"]
    running = ofed.get("running_kernel") or "?"
    info = ofed.get("ofed_info")
    if info and not (isinstance(info, dict) and all(isinstance(info.get(k), str) for k in ("flavor", "version"))):
        info = None  # untrusted node output: an ofed_info that is not {flavor, version} is not judged
    kernels = ofed.get("kernels") or []
    # untrusted node output: kernel records with a release name only
    kernels = [k for k in kernels if isinstance(k, dict) and isinstance(k.get("release"), str)] \
        if isinstance(kernels, list) else []
    with_ofed = [k["release"] for k in kernels if k.get("ofed_dirs")]
    run_k = [k for k in kernels if k["release"] == running]
    running_has = bool(run_k and run_k[0].get("ofed_dirs"))
    versions = ofed.get("module_versions") if isinstance(ofed.get("module_versions"), dict) else {}
    mod_version = versions.get("mlx5_core") if isinstance(versions.get("mlx5_core"), str) else None
    loaded = set(m for m in ofed.get("modules_loaded") or [] if isinstance(m, str)) \
        if isinstance(ofed.get("modules_loaded") or [], list) else set()
    label = ("%s %s" % (info["flavor"], info["version"])) if info else "OFED"
    erdma_installed = bool(run_k and run_k[0].get("erdma_module"))
    if not info and not with_ofed and not erdma_installed:
        yield NA("no MLNX_OFED/DOCA-OFED installed (no ofed_info, no OFED modules under /lib/modules) and no erdma "
                 "module: the inbox RDMA stack, if any, comes with the kernel")
        return
    problems = False

    if (info or with_ofed) and not running_has and kernels:
        others = [r for r in with_ofed if r != running]
        observed = "running kernel %s has no %s modules (/lib/modules/%s/{extra/mlnx-ofa_kernel,updates,updates/dkms})" % (
            running, label, running)
        if others:
            target = sorted(others)[-1]
            fix = (cmd("boot a kernel that has them ({others}):\n",
                       others=Literal(", ".join(sh(o) for o in sorted(others))))
                   + _boot_fix(ofed, target) + cmd("\nor rebuild OFED for {running}:\n", running=running) + BUNDLE)
            expected = "OFED modules for the running kernel (installed for: %s)" % ", ".join(sorted(others))
        else:
            fix = cmd("rebuild OFED for {running}:\n", running=running) + BUNDLE
            expected = "OFED modules for the running kernel"
        yield Finding.error("%s; OFED was built for %s" % (observed, ", ".join(sorted(others)) or "no installed kernel"),
                            observed=observed, expected=expected, fix=fix)
        return

    if info and mod_version and not _versions_match(info["version"], mod_version):
        problems = True
        yield Finding.error(
            "loaded mlx5_core is %s but OFED user space is %s: the modules of another OFED install are running"
            % (mod_version, info["version"]),
            observed="mlx5_core %s, ofed_info %s" % (mod_version, info["raw"]),
            expected="mlx5_core %s" % info["version"],
            fix="/etc/init.d/openibd restart   # reloads the installed OFED modules (stop RDMA jobs first)\n"
                "or reboot; if it persists, reinstall: " + BUNDLE)
    elif info and "mlx5_core" in loaded and not mod_version and running_has:
        problems = True
        yield Finding.warning(
            "%s is installed for %s but the loaded mlx5_core is the inbox driver (it has no version)"
            % (label, running), observed="inbox mlx5_core loaded", expected="mlx5_core %s" % info["version"],
            fix="/etc/init.d/openibd restart   # or: reboot")

    # Alibaba eRDMA: the module must be loaded when it is installed for this kernel
    if erdma_installed and not ofed.get("erdma_loaded"):
        problems = True
        yield Finding.error("the erdma module is installed for %s but not loaded: no eRDMA device" % running,
                            observed="erdma not loaded", expected="erdma loaded",
                            fix="modprobe erdma\neadm ver   # prints the driver version when the stack works\n"
                                "ibv_devinfo   # both erdma ports must be PORT_ACTIVE")
    if not problems:
        parts = []
        if info or with_ofed:
            parts.append("running kernel %s has %s modules" % (running, label))
            if mod_version:
                parts.append("loaded mlx5_core %s matches" % mod_version)
        if erdma_installed:
            parts.append("erdma module installed and loaded for %s" % running)
        yield Pass("; ".join(parts))

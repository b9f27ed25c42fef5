#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/host_messages.json: what the host programs around a GPU job print
when the NVIDIA kernel module cannot be built or loaded, and when the CPU threading runtimes refuse, each turned into
a bounded matcher and assigned to a knowledge family (hostprog.toml) by the RULES table below:

- nvidia-installer (NVIDIA/nvidia-installer): every ui_error()/ui_warn() format of its C sources (and, with
  --older-installer TAG, the wordings only older releases print, each with `until`: the newest tag read that does), printed as
  'ERROR: <text>' / 'WARNING: <text>' and wrapped at the terminal's width (75 columns without one) with the rest
  indented: the matcher keeps the words of the first sentence that fit on the first line (INSTALLER_LINE);
- the NVIDIA kernel module's build checks (NVIDIA/open-gpu-kernel-modules kernel-open/conftest.sh, with
  --open-gpu-kernel-modules GIT): the `echo "..."` lines of its sanity checks that the build prints (the compiler,
  the kernel's compiler version, Xen and PREEMPT_RT kernels, Module.symvers), one site per line;
- DKMS (dell/dkms): the messages dkms.in passes to die / diewarn / report_build_problem / error / warn, printed after
  'Error! ' or 'Warning: ' (each $var or $(...) read as a value);
- kmod (kmod-project/kmod): the ERR()/LOG() formats of modprobe, insmod and rmmod (tools/*.c), printed
  'modprobe: FATAL: ...' / 'modprobe: ERROR: ...';
- the Linux kernel's module loader and modpost (torvalds/linux kernel/module/main.c, version.c, signing.c,
  scripts/mod/modpost.c): pr_warn / pr_err / pr_notice and modpost's error / fatal / warn formats, recorded
  verbatim (the kernel tree is too large to mirror here) in the slice with the commit they were read at;
- the LLVM / Intel OpenMP runtime (llvm/llvm-project openmp/runtime/src/i18n/en_US.txt, the message catalog libomp
  and libiomp5 print from): each message with its number (its place in the MESSAGES section, OBSOLETE entries
  counted), printed 'OMP: Error #<n>: <text>' (or Warning / Info / System error);
  With --openmp GIT (llvm-mirror/openmp, the runtime's own repository until LLVM moved to one tree) the whole catalog
  of a release tag (--openmp-rev, default svn-tags/RELEASE_900: LLVM 9.0.0, its files under final/) is read, and the
  runtime's sources at that tag say how each message is printed (the source context): KMP_FATAL / __kmp_fatal /
  __kmp_msg(kmp_ms_fatal, ...) / __kmp_error_construct abort the program (kmp_i18n.h: 'kmp_ms_fatal // Fatal error,
  program aborts'), KMP_WARNING / kmp_ms_warning ('Non-fatal error, execution continues') and KMP_INFORM /
  kmp_ms_inform ('Just information for the user') do not; each site's level is the most severe call that prints it;
- GNU OpenMP (gcc-mirror/gcc libgomp/team.c, env.c, alloc.c, config/linux/affinity.c): gomp_fatal / gomp_error
  formats, printed after 'libgomp: ' (libgomp/error.c: gomp_error prints and returns, gomp_fatal prints and exits),
  recorded verbatim like the kernel's;
- OpenBLAS (OpenMathLib/OpenBLAS driver/others/*.c): its printf/fprintf messages that name OpenBLAS.

Usage:
    python tools/gen_host_messages.py --installer <git> --dkms <git> --kmod <git> --openblas <git> \\
        --recorded tools/data/host_recorded.txt [--open-gpu-kernel-modules <git>] [--older-installer TAG ...] \\
        [--openmp <llvm-mirror/openmp git> [--openmp-rev svn-tags/RELEASE_900]] [-o OUT]
    python tools/gen_host_messages.py --slice tools/data/host_messages_slice.txt -o OUT   (the test)

In a slice (and in the recorded file) each file's path is prefixed with its source: installer:, conftest:, dkms:, kmod:,
linux:, openmp:, libgomp:, openblas:; omp-src: the OpenMP runtime's C++ sources (only the calls that print a
catalog message are read from them).
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_host_messages.py"
SOURCE = ("NVIDIA/nvidia-installer (https://github.com/NVIDIA/nvidia-installer) *.c; NVIDIA/open-gpu-kernel-modules "
          "(https://github.com/NVIDIA/open-gpu-kernel-modules) kernel-open/conftest.sh; dell/dkms "
          "(https://github.com/dell/dkms) dkms.in; kmod-project/kmod (https://github.com/kmod-project/kmod) tools/*.c; "
          "torvalds/linux (https://github.com/torvalds/linux) kernel/module/*.c, scripts/mod/modpost.c (recorded); "
          "llvm/llvm-project (https://github.com/llvm/llvm-project) openmp/runtime/src/i18n/en_US.txt (recorded); "
          "llvm-mirror/openmp (https://github.com/llvm-mirror/openmp) runtime/src/i18n/en_US.txt and runtime/src/*.cpp "
          "at a release tag; "
          "gcc-mirror/gcc (https://github.com/gcc-mirror/gcc) libgomp/team.c, env.c, alloc.c (recorded); "
          "OpenMathLib/OpenBLAS (https://github.com/OpenMathLib/OpenBLAS) driver/others/*.c")
FIRST = 110  # the most characters of a long message's first sentence a matcher keeps

# A site's family, by its source, its call and its text: the first rule that matches wins.
RULES = [
    # the kernel module build and load (nvidia-installer, DKMS, kmod, the kernel's loader and modpost)
    ("kmod", "gpu.driver_module", {"where": r"^(?:kmod|linux):", "level": r"^(?:ERR|LOG|pr_warn|pr_err|pr_notice|"
                                   r"error|fatal|merror)$",
                                   "text": r"[Uu]nknown symbol|disagrees about version|GPL-only symbol|undefined!|"
                                   r"not found in directory|could not insert|could not load module|"
                                   r"verification failed|[Ll]oading of .{0,40}rejected|unsigned module|"
                                   r"no symbol version|Module %s not found|Protected symbol|module_layout"}),
    ("dkms", "gpu.driver_module", {"where": r"^dkms:", "level": r"^(?:die|report_build_problem|error)$",
                                   "text": r"kernel|headers|[Bb]uild|install|sign|depmod"}),
    ("installer", "gpu.driver_module", {"where": r"^installer[@:]", "level": r"^ui_error$",
                                        "text": r"kernel (?:source|header|module|output|interface)|[Nn]ouveau|"
                                        r"sign|Secure Boot|precompiled|build the|load the|failed to load|"
                                        r"DKMS|dkms|module .{0,20}(?:loaded|was not created)|appears to (?:already be|be already) loaded"}),
    ("conftest", "gpu.driver_module", {"where": r"^conftest:", "text": r"Bailing out|does not appear to be able to|"
                                       r"Module\.symvers file is missing|installing for is a|version check failed|"
                                       r"Failed CC version check"}),
    # a warning of the installer's is an answer only where it names what keeps the module out
    ("installer-warn", "gpu.driver_module", {"where": r"^installer[@:]", "level": r"^ui_warn$",
                                             "text": r"[Nn]ouveau kernel driver is currently in use|"
                                             r"appears to be already loaded|incompatible with the GPU"}),
    # the OpenMP runtime: one process with two OpenMP runtimes, and the runtime's fatal errors
    ("omp-duplicate", "code.openmp_duplicate", {"where": r"^openmp:", "name": r"^DuplicateLibrary$"}),
    # (by name, where the runtime's sources were not read: a level of 'catalog'; a warning's name stays out, below)
    ("omp-fatal", "code.openmp_error", {"where": r"^openmp:", "level": r"^(?:fatal|catalog)$",
                                        "name": r"^(?:CantCreateThread|CantRegisterNewThread|"
                                        r"NoResourcesFor\w+|FunctionError|CantSetWorkerStackSize|StackOverflow|"
                                        r"StackOverlap|OutOfHeapMemory|MemoryAllocFailed|AssertionFailure|"
                                        r"FatalSysError|IncompatibleLibrary|WrongMessageCatalog|"
                                        r"CantInitThreadAttrs|FailedToCreateTeam|"
                                        r"BarriersInDifferentOrder|ThreadIdentInvalid|RTLNotInitialized)$"}),
    ("gomp-fatal", "code.openmp_error", {"where": r"^libgomp:", "level": r"^gomp_fatal$",
                                         "text": r"Thread creation failed|Out of memory allocating"}),
    # Assigned by SOURCE CONTEXT (issue 18, assign13; the pattern of gen_slurm_messages' CONTEXT_RULES): how the
    # runtime prints a message, not its words. A catalog message the OpenMP runtime prints through __kmp_fatal
    # (levels: omp_levels) aborts the program: the runtime stopped it, code.openmp_error (generic: the number, the
    # 'OMP: System error' and 'OMP: Hint' lines after it tell the causes apart). libgomp's gomp_fatal likewise
    # (libgomp/error.c: gomp_vfatal prints, then exit (EXIT_FAILURE)).
    ("ctx-omp-fatal", "code.openmp_error", {"where": r"^openmp:", "level": r"^fatal$"}),
    ("ctx-gomp-fatal", "code.openmp_error", {"where": r"^libgomp:", "level": r"^gomp_fatal$"}),
    # the runtime's warnings and notes go on running (kmp_ms_warning 'Non-fatal error, execution continues',
    # kmp_ms_inform; libgomp's gomp_error returns): an ignored setting, a fallback, the affinity report. No failure by
    # themselves ('OMP: Info #276: omp_set_nested routine deprecated', printed by healthy runs)
    ("not a failure: the OpenMP runtime's warning or note (it goes on)", None,
     {"where": r"^(?:openmp|libgomp):", "level": r"^(?:warning|info|gomp_error)$"}),
    # nvidia-installer's kernel.c builds, installs and loads the kernel module (run_make, the sanity checks, the load
    # test): a ui_error there is that step failing (source context; a word rule above comes first)
    ("ctx-installer-kernel", "gpu.driver_module", {"where": r"^installer(?:@[^:]*)?:kernel\.c:", "level": r"^ui_error$"}),
    # DKMS's report_build_problem (dkms.in) files the build problem and dies: the module was not built
    ("ctx-dkms-build", "gpu.driver_module", {"where": r"^dkms:", "level": r"^report_build_problem$"}),
    # a warning nvidia-installer (user-interface.c ui_warn: prints at NV_MSG_LEVEL_WARNING and returns) or DKMS
    # (dkms.in warn: prints 'Warning: ' and returns) prints, and goes on
    ("not a failure: a warning nvidia-installer or DKMS prints and goes on (ui_warn, warn)", None,
     {"where": r"^(?:installer(?:@[^:]*)?|dkms):", "level": r"^(?:ui_warn|warn)$"}),
    # OpenBLAS: its fixed thread and buffer tables
    # (blas_thread_init's pthread_create failure is errno.eagain's: the user's process limit, families.toml)
    ("openblas", "code.blas_threads", {"where": r"^openblas:", "text": r"NUM_THREADS exceeded|memory regions|"
                                       r"maximum of %d threads|from many threads in parallel|larger NUM_THREADS"}),
]

# a site a ctx- rule assigns needs CTX_WORDS words of its own (knowgen.specific_enough; the catalog's 'OMP: Error #N'
# prefix and number make an OpenMP message specific whatever its words)
CTX_WORDS = 3
VAGUE = "too few words of its own to assign by its source file"

# What one message means, where its family's causes are not enough: [(regex over the text, means, [fix])]
MSG_FIX = [
    (r"GPL-incompatible module %s.{0,4} uses GPL-only symbol",
     "The kernel build (modpost) refused the NVIDIA module: this kernel made a symbol the driver uses GPL-only, which "
     "happens when the kernel is newer than the driver branch supports. The driver was not built, so it does not load.",
     ["install a newer driver that supports this kernel (the branch's newest point release, or a newer branch; "
      "NVIDIA's release notes list the kernels each release supports), or boot the older kernel the driver was built "
      "for and hold the kernel package until then"]),
    (r"disagrees about version of symbol",
     "The module was built against another kernel than the one running (its symbol versions, CRCs, differ): a module "
     "left from before a kernel upgrade, or built with other kernel headers.",
     ["rebuild the module for the running kernel: sudo apt-get install linux-headers-$(uname -r) (dnf install "
      "kernel-devel-$(uname -r)); sudo dkms autoinstall -k $(uname -r) (or reinstall the driver package); then "
      "sudo modprobe nvidia"]),
    (r"Unknown symbol %s \(err",
     "The kernel could not resolve a symbol the module needs: the module was built for another kernel, or a module it "
     "depends on is not loaded or of another version.",
     ["dmesg | grep -iE 'unknown symbol|disagrees'; rebuild the module for the running kernel (headers for "
      "$(uname -r), dkms autoinstall) and load it with modprobe (which loads its dependencies), not insmod"]),
    (r"^Module %s not found in directory",
     "modprobe found no such module for the running kernel: the driver was built and installed for another kernel "
     "(the kernel was upgraded and the DKMS build for the new one failed or never ran), or never installed.",
     ["ls /lib/modules/$(uname -r)/updates/dkms/ /lib/modules/$(uname -r)/kernel/drivers/video/; dkms status",
      "install the headers of the running kernel and rebuild: sudo apt-get install linux-headers-$(uname -r) && "
      "sudo dkms autoinstall -k $(uname -r) (or reinstall the driver package), then sudo modprobe nvidia"]),
    (r"headers for kernel %s cannot be found",
     "DKMS cannot build the module for that kernel: the kernel's headers (build/ and source/ under /lib/modules/<kernel>) "
     "are not installed.",
     ["sudo apt-get install linux-headers-<that kernel> (dnf install kernel-devel-<that kernel>), then "
      "sudo dkms autoinstall -k <that kernel>"]),
    (r"Bad return status for module build",
     "DKMS ran the module's build for that kernel and it failed; the reason is in the make.log the next line names "
     "(a kernel newer than the driver supports, missing headers, another compiler than the kernel's).",
     ["cat /var/lib/dkms/<module>/<version>/build/make.log (the first 'error:' lines); then install a driver release "
      "that supports this kernel, or the headers and compiler the kernel was built with"]),
    (r"Unable to find the kernel source tree",
     "nvidia-installer found no kernel headers for the running kernel, so it cannot build the module.",
     ["sudo apt-get install linux-headers-$(uname -r) (dnf install kernel-devel-$(uname -r) kernel-headers), then "
      "rerun the installer"]),
    (r"not signed by a key that is trusted",
     "UEFI Secure Boot is on and the kernel refused the unsigned (or wrongly signed) NVIDIA module.",
     ["sign the module and enroll the key (mokutil --import <key>.der, then reboot to the MOK manager), or install "
      "the distribution's signed driver packages, or turn Secure Boot off in the firmware"]),
    (r"^Unable to load the kernel module",
     "The module was built but the kernel refused it; the installer's log (/var/log/nvidia-installer.log, 'Kernel "
     "module load error' and 'Kernel messages') says why: nouveau holding the GPU, a module built against other "
     "kernel sources, Secure Boot, or a GPU this release does not support.",
     ["tail -50 /var/log/nvidia-installer.log; dmesg | grep -iE 'nvidia|nouveau|NVRM'; lsmod | grep nouveau"]),
    (r"^The Module\.symvers file is missing",
     "The kernel headers the module is built against are incomplete: they lack Module.symvers, the kernel's list of "
     "exported symbols (a kernel source tree that was never built, or a headers package without it), so the module "
     "would not match the running kernel.",
     ["install the distribution's headers package for the running kernel (linux-headers-$(uname -r), kernel-devel-"
      "$(uname -r)), which ships Module.symvers; for a self-built kernel, build it (make modules) in that tree first; "
      "IGNORE_MISSING_MODULE_SYMVERS=1 only skips the check"]),
    (r"Failed CC version check|Compiler version check failed",
     "The compiler building the module is another version than the one that built the kernel.",
     ["install the kernel's compiler (its version is in cat /proc/version) and build with it: CC=gcc-<that version> "
      "(DKMS and the installer honour CC); IGNORE_CC_MISMATCH=1 only silences the check"]),
    (r"does not appear to be able to",
     "There is no working C compiler and libc development files to build the module with.",
     ["sudo apt-get install build-essential (dnf install gcc make glibc-devel), then build again"]),
    (r"installing for is a (?:PREEMPT_RT|Xen) kernel",
     "The NVIDIA module does not support this kind of kernel (a real-time or Xen kernel).",
     ["boot a standard kernel of the distribution (without the real-time patches / Xen) and install the driver for it"]),
    (r"Nouveau kernel driver is currently in use",
     "nouveau, the open driver, holds the GPU: the NVIDIA module cannot load beside it.",
     ["blacklist nouveau (echo -e 'blacklist nouveau\\noptions nouveau modeset=0' | sudo tee "
      "/etc/modprobe.d/blacklist-nouveau.conf; sudo update-initramfs -u, or dracut --force) and reboot, then install "
      "the driver"]),
    (r"^Initializing %1\$s, but found %2\$s already initialized",
     "Two OpenMP runtimes are loaded into one process (e.g. libiomp5 from MKL / conda's numpy and the libomp or "
     "libiomp5 another package ships, torch's or a wheel's own copy); the Intel runtime stops the program.",
     ["load one OpenMP runtime only: install numpy, torch and the MKL packages from one channel (all conda or all pip "
      "wheels), or remove the duplicate (conda remove intel-openmp / nomkl); find them with "
      "python -c 'import torch, numpy' then cat /proc/<pid>/maps | grep -E 'iomp|libomp|gomp'",
      "KMP_DUPLICATE_LIB_OK=TRUE lets it run, but the runtime's own hint calls it unsafe (crashes, wrong results): "
      "a workaround only"]),
    (r"^Function %1\$s failed:",
     "The OpenMP runtime's call (named in the line) failed; the 'System error' line after it names the errno: "
     "pthread_create out of threads (ulimit -u, the container's pids limit), or the shared-memory file it registers "
     "in /dev/shm ('Can't open SHM2') not writable.",
     ["read the next 'OMP: System error #N' line; threads: lower OMP_NUM_THREADS (cores / processes per node) or "
      "raise ulimit -u / the pids limit; SHM: a writable /dev/shm in the container (--ipc=host or --shm-size)"]),
    (r"precompiled NUM_THREADS exceeded",
     "OpenBLAS was built for fewer threads (NUM_THREADS) than the machine has cores or than OPENBLAS_NUM_THREADS asks "
     "for: it goes on with extra buffers (a warning).",
     ["export OPENBLAS_NUM_THREADS (or OMP_NUM_THREADS) to the cores per process, e.g. 1 to 8 with one process per GPU"]),
    (r"too many memory regions",
     "OpenBLAS ran out of its fixed table of per-thread buffers (NUM_BUFFERS, from the NUM_THREADS it was built "
     "with): more threads call it at once than it was built for (many processes or DataLoader workers each "
     "starting a full pool), and it aborts the program.",
     ["export OPENBLAS_NUM_THREADS=1 (or a small number: cores / processes per node) in the job, also for DataLoader "
      "workers; or use a build with a larger NUM_THREADS (conda's or pip's numpy with MKL, or OpenBLAS built with "
      "NUM_THREADS=<cores>)"]),
]

# --- readers


def c_sites(path, src, calls, index_of):
    """(call, where, format) for each call in ``calls`` whose format argument is a C literal."""
    rx = re.compile(r"(?<![A-Za-z0-9_>.])(%s)\s*\(" % "|".join(re.escape(c) for c in calls))
    for m in rx.finditer(src):
        args = knowgen.call_args(src, m.end())
        idx = index_of(m.group(1))
        if not args or len(args) <= idx:
            continue
        start = src.find(args[idx], m.end())
        fmt = knowgen.c_format(src, start) if start >= 0 else None
        if fmt and fmt.strip():
            yield m.group(1), "%s:%d" % (path, src.count("\n", 0, m.start()) + 1), fmt


_SH_CALL = re.compile(r"(?:^|[;&|{(]|\|\||&&|then|else)\s*(die|diewarn|report_build_problem|error|warn)\s+(?:\d+\s+)?"
                      r"(?:\\\n\s*)?\$?\"((?:[^\"\\]|\\.)*)\"", re.M)
_SH_ECHO = re.compile(r"echo\s+\$?\"((?:dkms\.conf: )?Error! (?:[^\"\\]|\\.)*)\"")
_SH_VAR = re.compile(r"\$\((?:[^()]|\([^()]*\))*\)|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?|\$\d")


def sh_sites(path, src):
    """dkms.in: the first message string of each die / report_build_problem / error / warn call and each
    'echo "... Error! ..."'; shell expansions read as %s."""
    for m in _SH_CALL.finditer(src):
        yield m.group(1), "%s:%d" % (path, src.count("\n", 0, m.start(1)) + 1), _SH_VAR.sub("%s", m.group(2))
    for m in _SH_ECHO.finditer(src):
        text = m.group(1).split("Error! ", 1)[1]
        yield "error", "%s:%d" % (path, src.count("\n", 0, m.start()) + 1), _SH_VAR.sub("%s", text)


_ECHO = re.compile(r'^\s*echo "([A-Z*][^"]{18,})"', re.M)


def echo_lines(path, src):
    """conftest.sh: each `echo "..."` line of a sanity check (a capital or '*' first: not the C code it writes into
    the test files), shell expansions read as %s."""
    for m in _ECHO.finditer(src):
        text = m.group(1).strip()
        if "CONFTEST" in text or text.startswith("#"):
            continue
        yield "%s:%d" % (path, src.count("\n", 0, m.start()) + 1), _SH_VAR.sub("%s", text)


def catalog(src):
    """en_US.txt's MESSAGES section: [(number, name, text)]; continuation lines of a text joined. A message's
    number is its place in the section (OBSOLETE entries counted), or the one a recorded excerpt gives."""
    out, section, cur = [], None, None
    for line in src.splitlines():
        s = line.strip()
        if s.startswith("-*- ") and s.endswith(" -*-"):
            section = s[4:-4]
            cur = None
            continue
        if section != "MESSAGES" or not s or s.startswith("#"):
            cur = None if not s else cur
            continue
        m = re.match(r'^(?:@(\d{1,4}|\?) )?(\w+)\s+"((?:[^"\\]|\\.)*)"', line)
        if m:
            # a recorded excerpt gives each message's number ('@15 Name "..."', '@? ...' when not counted)
            num = len(out) + 1 if m.group(1) is None else (None if m.group(1) == "?" else int(m.group(1)))
            cur = [num, m.group(2), knowgen.c_unescape(m.group(3))]
            out.append(cur)
            continue
        m = re.match(r'^\s+"((?:[^"\\]|\\.)*)"', line)
        if m and cur is not None:
            cur[2] += knowgen.c_unescape(m.group(1))
    return [tuple(x) for x in out]


# How the OpenMP runtime prints a catalog message (openmp/runtime/src/kmp_i18n.h): KMP_FATAL(Name, ...) and
# __kmp_fatal(KMP_MSG(Name, ...), ...) abort, as do __kmp_error_construct[2](kmp_i18n_msg_Name, ...) (kmp_error.cpp:
# they call __kmp_fatal); KMP_WARNING / KMP_INFORM and __kmp_msg(kmp_ms_<severity>, KMP_MSG(Name ...)) print and go on.
# kmp_i18n.h's own KMP_SYSFAIL macro is read too: __kmp_fatal(KMP_MSG(FunctionError, func), ...).
_OMP_CALLS = (
    (re.compile(r"\b(KMP_FATAL|KMP_WARNING|KMP_INFORM)\s*\(\s*(\w+)"), None),
    (re.compile(r"\b__kmp_fatal\s*\(\s*KMP_MSG\s*\(\s*(\w+)"), "fatal"),
    (re.compile(r"\b__kmp_msg\s*\(\s*kmp_ms_(fatal|warning|inform)\s*,\s*KMP_MSG\s*\(\s*(\w+)"), "severity"),
    (re.compile(r"\b__kmp_error_construct2?\s*\(\s*kmp_i18n_msg_(\w+)"), "fatal"),
)
_OMP_LEVEL = {"KMP_FATAL": "fatal", "KMP_WARNING": "warning", "KMP_INFORM": "info", "fatal": "fatal",
              "warning": "warning", "inform": "info"}
_OMP_ORDER = ("fatal", "warning", "info")


def omp_levels(sources):
    """{message name: level} of the OpenMP runtime's sources (_OMP_CALLS): the most severe way any call prints it."""
    seen = {}
    for src in sources:
        for rx, kind in _OMP_CALLS:
            for m in rx.finditer(src):
                if kind is None:
                    level, name = _OMP_LEVEL[m.group(1)], m.group(2)
                elif kind == "severity":
                    level, name = _OMP_LEVEL[m.group(1)], m.group(2)
                else:
                    level, name = kind, m.group(1)
                if name != "__VA_ARGS__":
                    seen.setdefault(name, set()).add(level)
    return {name: next(lv for lv in _OMP_ORDER if lv in got) for name, got in seen.items()}


# --- matchers

# the line shapes that carry each source's message (a short text needs one of them)
_SHAPE = {
    "installer": r"(?:ERROR|WARNING): ",
    "dkms": r"(?:Error!|Warning:) ",
    "kmod": r"\b(?:modprobe|insmod|rmmod): (?:FATAL|ERROR|WARNING): ",
    "openmp": None,  # its own prefix, with the number (omp_regex)
    "linux": None,
    "libgomp": r"libgomp: ",
    "conftest": None,
    "openblas": None,
}


def first_sentence(fmt):
    """A long message's first sentence (nvidia-installer's texts run to several sentences that the UI wraps)."""
    fmt = fmt.split("\n")[0]
    m = re.search(r"[.!?:]\s", fmt[30:])
    if m:
        fmt = fmt[:30 + m.start() + 1]
    if len(fmt) > FIRST:
        cut = fmt[:FIRST]
        fmt = cut[:cut.rfind(" ")] if " " in cut[40:] else cut
    return fmt


# nvidia-installer's stream UI (stream-ui.c stream_message: the 'ERROR: ' / 'WARNING: ' prefix, then
# common-utils/msg.c nv_info_msg_to_file) wraps a message at the terminal's width, DEFAULT_WIDTH 75 when there is none
# (a log, a CI job), and indents the rest by the prefix's width: the first line holds about 66 characters of the text
INSTALLER_LINE = 66


def first_line(fmt):
    """The words of ``fmt`` that fit on the installer's first output line (a wrapped rest is indented, which explain's
    scan does not join)."""
    if len(fmt) <= INSTALLER_LINE:
        return fmt
    cut = fmt[:INSTALLER_LINE]
    return cut[:cut.rfind(" ")] if " " in cut[20:] else cut


def omp_regex(number, text):
    """'OMP: Error #15: Initializing libiomp5.so, but found libomp.so already initialized.' (kmp_i18n.cpp
    __kmp_msg: the Fatal / Warning / Info / SysErr formats of the same catalog)."""
    rx, lit = knowgen.printf_to_regex(text)
    if rx is None:
        return None, ""
    num = r"\d{1,4}" if number is None else str(number)
    # a text that starts with a value ('%1$s routine deprecated, ...': printf_to_regex drops it) has it after the prefix
    lead = knowgen._CONV.match(text) and not text.startswith("%%")
    return r"OMP: (?:Error|Warning|Info|System error) #%s: %s%s" % (num, r"[^\n]{0,200}" if lead else "", rx), lit


def build(files, version):
    sites, seen = [], set()

    def add(source, where, level, fmt, extra=None):
        # a message printed over several lines is kept (and matched) by its first line, when that says something
        first = fmt.split("\n")[0].rstrip()
        fmt = first if len(first) >= 8 else " ".join(fmt.split("\n")).strip()
        # the OpenMP catalog's numbers moved between releases (FunctionError: #177 in 9.0.0, #179 later): one site each
        key = (source, fmt, (extra or {}).get("code"))
        if key in seen or "$(" in fmt or "\\" in fmt:
            return  # a shell expansion this reader does not take apart
        seen.add(key)
        site = {"id": "host.%s.%s" % (source, knowgen.slug(where)), "where": where, "level": level, "text": fmt}
        site.update(extra or {})
        if "@" in where.split(":", 1)[0]:
            # only an older release prints this wording: the newest of the tags read that does
            site["until"] = where.split(":", 1)[0].split("@", 1)[1]
        if source == "openmp":
            rx, lit = omp_regex(extra["code"], fmt)
            lit = "OMP: Error #: " + lit  # the runtime's own prefix anchors a short text
        else:
            head = fmt
            if source in ("installer", "dkms"):
                head = first_sentence(fmt)
            if source == "installer":
                head = first_line(head)
            rx, lit = knowgen.printf_to_regex(head)
        if knowgen.unanchored(site, rx, lit, need=12):
            sites.append(site)
            return
        shape = _SHAPE.get(source)
        if shape and (len("".join(lit.split())) < 30 or source == "libgomp"):
            rx = shape + r"[^\n]{0,40}?" + rx if source == "kmod" else shape + rx
        rule, family = knowgen.assign(RULES, site, {"where": where, "level": level, "text": fmt,
                                                    "name": site.get("name", "")})
        if family and rule.startswith("ctx-") and source != "openmp" and not knowgen.specific_enough(fmt, CTX_WORDS):
            rule, family = VAGUE, None  # too few words of its own to be this message alone
        site.update({"re": rx, "family": family, "rule": rule})
        knowgen.give_fix(site, MSG_FIX, fmt)
        sites.append(site)

    levels = omp_levels(src for path, src in files if path.startswith("omp-src:"))
    for path, src in files:
        source, _, older = path.split(":", 1)[0].partition("@")
        if source == "installer" and path.endswith(".c"):
            for call, where, fmt in c_sites(path, src, ("ui_error", "ui_warn"), lambda c: 1):
                add(source, where, call, fmt)
        elif source == "conftest":
            for where, text in echo_lines(path, src):
                add(source, where, "echo", text)
        elif source == "dkms":
            for call, where, fmt in sh_sites(path, src):
                add(source, where, call, fmt)
        elif source == "kmod" and path.endswith(".c"):
            for call, where, fmt in c_sites(path, src, ("ERR", "LOG"), lambda c: 0):
                add(source, where, call, fmt.rstrip("\n"))
        elif source == "linux":
            calls = ("pr_warn", "pr_err", "pr_notice", "error", "fatal", "merror", "warn", "pr_notice_once")
            for call, where, fmt in c_sites(path, src, calls, lambda c: 0):
                add(source, where, call, fmt.rstrip("\n"))
        elif source == "openmp":
            for number, name, text in catalog(src):
                if name == "OBSOLETE":
                    continue
                add(source, "%s:%s" % (path, name), levels.get(name, "catalog"), text, {"code": number, "name": name})
        elif source == "libgomp":
            for call, where, fmt in c_sites(path, src, ("gomp_fatal", "gomp_error"), lambda c: 0):
                add(source, where, call, fmt)
        elif source == "openblas" and path.endswith(".c"):
            for call, where, fmt in c_sites(path, src, ("printf", "fprintf"), lambda c: 1 if c == "fprintf" else 0):
                if "OpenBLAS" in fmt:
                    add(source, where, call, fmt.rstrip("\n"))
    return {"header": knowgen.header(SOURCE, version, GENERATOR,
                                     "nvidia-installer, DKMS, kmod and the kernel's module loader and modpost (the "
                                     "NVIDIA kernel module's build and load), the LLVM/Intel OpenMP runtime's message "
                                     "catalog and OpenBLAS's messages; families from the RULES table of the "
                                     "generator"), "sites": sites}


def from_sources(a):
    files, versions = [], []
    for name, prefix, keep in (("installer", "installer:", lambda p: p.endswith(".c") and "/" not in p),
                               ("dkms", "dkms:", lambda p: p == "dkms.in"),
                               ("kmod", "kmod:", lambda p: p.startswith("tools/") and p.endswith(".c")),
                               ("openblas", "openblas:", lambda p: p.startswith("driver/others/") and p.endswith(".c"))):
        git = knowgen.git_reader(getattr(a, name))
        files += [(prefix + p, text) for p, text in knowgen.tree_files(git, "HEAD", (), keep)]
        versions.append("%s %s" % (name, knowgen.revision(git, "HEAD", untagged="?")))
    if a.open_gpu_kernel_modules:
        ogit = knowgen.git_reader(a.open_gpu_kernel_modules)
        files.append(("conftest:kernel-open/conftest.sh", ogit("show", "HEAD:kernel-open/conftest.sh")))
        versions.append("open-gpu-kernel-modules %s" % knowgen.revision(ogit, "HEAD", untagged="?"))
    git = knowgen.git_reader(a.installer)
    for tag in a.older_installer or ():
        # the wordings older drivers' installers print (still in the logs and threads of their users), newest first
        files += [("installer@%s:%s" % (tag, p), text)
                  for p, text in knowgen.tree_files(git, tag, (), lambda p: p.endswith(".c") and "/" not in p)]
        versions.append("installer --older %s" % tag)
    rec, rec_version = knowgen.read_slice(a.recorded)
    files += rec
    versions.append(rec_version)
    if a.openmp:
        # after the recorded catalog: a text and number both print is one site, the recorded (newer) one
        mgit = knowgen.git_reader(a.openmp)
        rev = a.openmp_rev
        top = "final/" if "svn-tags/" in rev else ""  # an svn tag holds the release under final/
        files.append(("openmp:%sruntime/src/i18n/en_US.txt" % top,
                      mgit("show", "%s:%sruntime/src/i18n/en_US.txt" % (rev, top))))
        files += [("omp-src:" + p, text) for p, text in knowgen.tree_files(
            mgit, rev, (top + "runtime/src",), lambda p: re.search(r"\.(?:cpp|c|h)$", p) is not None)]
        versions.append("openmp %s (commit %s)" % (rev.split("/")[-1], mgit("rev-parse", rev + "^{commit}").strip()))
    return files, "; ".join(versions)


def main(argv):
    a = knowgen.arguments(__doc__, argv, ("installer", "dkms", "kmod", "openblas", "recorded"),
                          extra=(("--older-installer", {"action": "append", "metavar": "TAG"}),
                                 ("--open-gpu-kernel-modules", {"metavar": "GIT"}),
                                 ("--openmp", {"metavar": "GIT"}),
                                 ("--openmp-rev", {"default": "origin/svn-tags/RELEASE_900"})))
    files, version = from_sources(a) if a.slice is None else knowgen.read_slice(a.slice)
    doc = build(files, version)
    if a.slice is None:
        knowgen.stale_fixes(a, "MSG_FIX", MSG_FIX, doc["sites"])
    return knowgen.emit("host_messages", doc, a.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Host identity, /dev/shm, resource limits and the job's environment."""

import os

from .base import RECORDED_STATVFS, WEBHOOK_NEEDLES, WEBHOOK_PATH_RE, Unsupported, section

try:
    # the C module that socket.py wraps: gethostname, gethostbyaddr, getaddrinfo, inet_* and
    # error are its own functions (CPython Lib/socket.py re-exports them; getaddrinfo only turns
    # family and type into enums, which no section reads). socket.py imports enum and selectors
    # (2-3 ms of a node's collector, Python 3.11). socket where _socket is missing.
    import _socket as socket
except ImportError:
    import socket

# Environment values shown in facts; every other variable is kept only as a hash, so
# facts files and reports never carry secrets (tokens, passwords, keys).
ENV_SHOWN_PREFIXES = ("NCCL_", "CUDA_", "NVIDIA_", "TORCH_", "TORCHELASTIC_", "OMPI_MCA_", "UCX_",
                      "SLURM_", "GPUDOCTOR_", "HOROVOD_", "FI_", "PMIX_")
ENV_SHOWN_NAMES = ("LD_LIBRARY_PATH", "LD_PRELOAD", "PATH", "PYTHONPATH", "PYTHONHOME", "CONDA_PREFIX",
                   "CONDA_DEFAULT_ENV", "VIRTUAL_ENV", "HOME", "USER", "SHELL", "MASTER_ADDR", "MASTER_PORT",
                   "WORLD_SIZE", "RANK", "LOCAL_RANK", "NODE_RANK", "OMP_NUM_THREADS", "PYTORCH_CUDA_ALLOC_CONF",
                   "HF_HOME", "TRANSFORMERS_CACHE", "ACCELERATE_CONFIG_FILE", "DS_ACCELERATOR",
                   "GLOO_SOCKET_IFNAME", "TP_SOCKET_IFNAME", "HOSTNAME",
                   # how a framework's allocator takes GPU memory (watch.memory): JAX/XLA, TensorFlow
                   "XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_PREALLOCATE",
                   "XLA_PYTHON_CLIENT_ALLOCATOR", "TF_FORCE_GPU_ALLOW_GROWTH")
# A name is secret-looking when one of its parts (split at every character that is not a letter or a digit, and
# between a lower-case letter or digit and a capital: HF_TOKEN, hfToken, --api-key) holds one of these words
# anywhere (HFTOKEN, APIKEY, PGPASSWORD, PASSPHRASE, CREDENTIALS, AUTHORIZATION, OAUTH). JWT: Slurm's own token
# variable SLURM_JWT (https://slurm.schedmd.com/jwt.html) has a shown prefix.
ENV_SECRET_WORDS = ("TOKEN", "SECRET", "PASS", "KEY", "CRED", "AUTH", "JWT", "COOKIE", "BEARER")
# ... or is one of these words whole, or ends with PWD: they are also parts of common words (PATH, the shell's own
# PWD): MySQL's MYSQL_PWD (https://dev.mysql.com/doc/refman/8.0/en/environment-variables.html), a GitHub personal
# access token's customary GH_PAT / CR_PAT, Sentry's SENTRY_DSN (its key is the URL's user part:
# https://docs.sentry.io/concepts/key-terms/dsn-explainer/)
ENV_SECRET_PARTS = ("PAT", "DSN")
# Parts that hold a secret word inside another word, and never name a credential: a tokenizer's path
# (Chinese-LLaMA-Alpaca-2's `chinese_tokenizer_path`, HF's TOKENIZERS_PARALLELISM), an author, a keyboard, a
# pose model's keypoints, a bypass. A credential-shaped value under such a name is still hidden where values are
# read (launch/script.py): the name alone never decides for it.
ENV_NOT_SECRET_PARTS = frozenset((
    "TOKENIZER", "TOKENIZERS", "TOKENIZE", "TOKENIZED", "TOKENIZATION", "DETOKENIZER", "DETOKENIZE", "PRETOKENIZED",
    "AUTHOR", "AUTHORS", "KEYBOARD", "KEYWORD", "KEYWORDS", "KEYPOINT", "KEYPOINTS", "KEYFRAME", "KEYFRAMES",
    "BYPASS", "PASSTHROUGH", "COMPASS"))


def _name_parts(name):
    """NAME's parts, upper-cased: split at each character that is not a letter or digit and where a lower-case
    letter or a digit meets a capital (no re: the collector imports as little as it can)."""
    parts, cur, prev = [], [], ""
    for c in name:
        if not c.isalnum():
            if cur:
                parts.append("".join(cur))
            cur, prev = [], ""
            continue
        if c.isupper() and (prev.islower() or prev.isdigit()) and cur:
            parts.append("".join(cur))
            cur = []
        cur.append(c)
        prev = c
    if cur:
        parts.append("".join(cur))
    return [p.upper() for p in parts]


def secret_env_name(name, count=False, path=False):
    """Whether NAME reads as a credential's: one of its parts holds a secret word (ENV_SECRET_WORDS) and is not a
    word of its own that merely contains it (ENV_NOT_SECRET_PARTS: TOKENIZER), or is PAT / DSN, or ends with PWD
    (not the shell's own PWD, OLDPWD). count: the value is a whole number, so a TOKENS part is a count of tokens
    (Megatron-DeepSpeed's LR_DECAY_TOKENS=260000000000, MAX_NEW_TOKENS), not a credential. path: the value is an
    absolute path, so a PWD part is the working directory's (`ROOT_PWD=$(pwd)`), not MySQL's password."""
    if name in ("PWD", "OLDPWD"):
        return False
    for part in _name_parts(name):
        if part in ENV_NOT_SECRET_PARTS or (count and part == "TOKENS"):
            continue
        if part in ENV_SECRET_PARTS or (part.endswith("PWD") and not path) or any(w in part for w in ENV_SECRET_WORDS):
            return True
    return False


def env_shown(name):
    if secret_env_name(name):
        return False
    return name in ENV_SHOWN_NAMES or name.startswith(ENV_SHOWN_PREFIXES)


# A credential's shape, whatever the name it is given: explain/redact.py's _SHAPES (Hugging Face hf_, AWS access key
# ids, GitHub ghp_/gho_/ghu_/ghs_/ghr_/github_pat_, GitLab glpat-, Slack xox?-, OpenAI-style sk-, a JWT) and a URL's
# userinfo password (RFC 3986 section 3.2.1: `postgres://user:pw@host`, a DATABASE_URL). The needles first: most
# values hold none, and `re` is imported only when one does (base._LazyModule)
CREDENTIAL_RE = (
    r"(?<![A-Za-z0-9_])(?:hf_[A-Za-z0-9]{30,80}|AKIA[0-9A-Z]{16}|gh[opusr]_[A-Za-z0-9]{30,80}"
    r"|github_pat_[A-Za-z0-9_]{22,120}|glpat-[A-Za-z0-9_-]{20,80}|xox[abprs]-[A-Za-z0-9-]{10,120}"
    r"|sk-[A-Za-z0-9_-]{20,160}|eyJ[A-Za-z0-9_-]{8,2000}\.eyJ[A-Za-z0-9_-]{8,4000}\.[A-Za-z0-9_-]{0,2000}"
    r"|AIza[0-9A-Za-z_-]{35}"
    r"|hv[sbr]\.[A-Za-z0-9_-]{20,400})"  # a Vault token (explain/redact.py _SHAPES, docs/security.md 114.)
    r"(?![A-Za-z0-9_])|://[^\s:/@]{1,128}:[^\s/@'\"`\\]{1,256}@"
    # a webhook URL whose path is the credential (base.WEBHOOK_PATH_RE; red team 2026-11-28e)
    r"|(?i:" + WEBHOOK_PATH_RE + ")")
_CREDENTIAL_NEEDLES = ("hf_", "AKIA", "gho_", "ghp_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox", "sk-",
                       "eyJ", "://", "AIza", "hvs.", "hvb.", "hvr.") + WEBHOOK_NEEDLES
_CREDENTIAL = []


def credential_pattern():
    if not _CREDENTIAL:
        from .base import re

        _CREDENTIAL.append(re.compile(CREDENTIAL_RE))
    return _CREDENTIAL[0]


def credential_shape(value):
    """Whether VALUE holds a credential's shape (CREDENTIAL_RE), whatever its name."""
    value = value[:65536]
    return any(n in value for n in _CREDENTIAL_NEEDLES) and bool(credential_pattern().search(value))


# One random key per process when the controller sends none: hashes are then comparable
# within this document only, and never recoverable by a dictionary (an unkeyed sha256 of
# "hunter2" is). The controller sends one key per run to every node (option env_key) so
# env.parity can compare values across nodes; the key is kept nowhere.
_LOCAL_KEY = os.urandom(32)


def _sha256():
    """The interpreter's built-in SHA-256: hashlib (and hmac, which imports _hashlib) loads
    OpenSSL first, 2-2.4 ms of every node's collector (Python 3.11). _sha256 is the built-in
    module on 3.6-3.11, _sha2 on 3.12+ (CPython Modules/sha2module.c). Found once: an import
    that fails is not remembered, and each try searches sys.path again (on 3.12, 0.1 ms a
    value hashed: 5 ms of the env section on an H100 node)."""
    if _SHA256:
        return _SHA256[0]
    try:
        from _sha256 import sha256
    except ImportError:
        try:
            from _sha2 import sha256
        except ImportError:
            from hashlib import sha256
    _SHA256.append(sha256)
    return sha256


_SHA256 = []


_HMAC_OUTER = bytes(bytearray((x ^ 0x5C) for x in range(256)))
_HMAC_INNER = bytes(bytearray((x ^ 0x36) for x in range(256)))


def hmac_sha256_hex(key, msg):
    """HMAC-SHA256 (RFC 2104; CPython Lib/hmac.py does the same with these pads), equal to
    hmac.new(key, msg, hashlib.sha256).hexdigest() (tests/test_secrets.py compares them)."""
    sha256 = _sha256()
    if len(key) > 64:
        key = sha256(key).digest()
    key = key.ljust(64, b"\0")
    inner = sha256(key.translate(_HMAC_INNER))
    inner.update(msg)
    outer = sha256(key.translate(_HMAC_OUTER))
    outer.update(inner.digest())
    return outer.hexdigest()


def env_hash(value, key=None):
    k = key.encode("ascii") if isinstance(key, str) else (key or _LOCAL_KEY)
    return "hmac:" + hmac_sha256_hex(k, value.encode("utf-8", "replace"))[:16]


def env_value(name, value, key=None):
    """The one rule for every section that copies an environment-like value (the env
    section, NCCL's variables and config files, a job's /proc/PID/environ): the value
    itself for an allow-listed, non-secret-looking name, else its keyed hash."""
    return value if env_shown(name) and not credential_shape(value) else env_hash(value, key)


def parse_os_release(text):
    out = {}
    for line in (text or "").splitlines():
        if "=" in line and not line.startswith("#"):
            k, v = line.split("=", 1)
            out[k.strip()] = v.strip().strip('"').strip("'")
    return out


def parse_hosts_file(text):
    """/etc/hosts -> [(address, [names])]."""
    entries = []
    for line in (text or "").splitlines():
        line = line.split("#", 1)[0].split()
        if len(line) >= 2:
            entries.append((line[0], line[1:]))
    return entries


def parse_meminfo(text):
    r"""/proc/meminfo -> {name: bytes} of its "Name:  123 kB" lines: what re.match(r"(\w+):\s+(\d+)\s*kB",
    line) took, with string methods (no re on a node): \w is str.isalnum() or "_", \s what
    str.strip() strips, \d str.isdecimal() (the same Unicode classes in CPython's _sre)."""
    out = {}
    for line in (text or "").splitlines():
        key, colon, rest = line.partition(":")
        if not colon or not key or not all(c.isalnum() or c == "_" for c in key):
            continue
        num = rest.lstrip()
        if len(num) == len(rest):
            continue
        n = 0
        while n < len(num) and num[n].isdecimal():
            n += 1
        if n and num[n:].lstrip().startswith("kB"):
            out[key] = int(num[:n]) * 1024
    return out


def in_container(ctx):
    if ctx.exists("/.dockerenv"):
        return "docker"
    if ctx.exists("/run/.containerenv"):
        return "podman"
    if ctx.env.get("KUBERNETES_SERVICE_HOST"):
        return "kubernetes"
    cg = ctx.read("/proc/1/cgroup", "")
    for word in ("docker", "kubepods", "containerd", "lxc"):
        if word in cg:
            return word
    # podman's own cgroup names: libpod-<id> (cgroupfs: /libpod_parent/libpod-<id>; systemd:
    # machine.slice/libpod-<id>.scope), seen where --read-only's tmpfs on /run hides .containerenv
    if "/libpod-" in cg or "/libpod_parent/" in cg:
        return "podman"
    return None


def host_arg(name):
    """A host name as the resolver functions take it without the idna codec: CPython encodes
    a str argument with "idna" (Modules/socketmodule.c), whose first use imports
    encodings.idna, stringprep and unicodedata (1-1.5 ms of every node's collector); an
    ASCII name as bytes is passed as it is. Any other name keeps the codec."""
    try:
        return name.encode("ascii")
    except (UnicodeError, AttributeError):
        return name


def fqdn(name):
    """socket.getfqdn (CPython Lib/socket.py, unchanged since 3.0 but for '::') with the name
    passed through host_arg: the first alias with a dot, else the primary name."""
    name = name.strip()
    if not name or name in ("0.0.0.0", "::"):
        name = socket.gethostname()
    try:
        hostname, aliases, _ = socket.gethostbyaddr(host_arg(name))
    except (socket.error, OSError, UnicodeError):
        return name
    aliases.insert(0, hostname)
    for alias in aliases:
        if "." in alias:
            return alias
    return hostname


@section("host")
def host(ctx):
    hostname = (ctx.read("/proc/sys/kernel/hostname") or "").strip()
    if not hostname and ctx.live:
        hostname = socket.gethostname()
    osr = parse_os_release(ctx.read("/etc/os-release"))
    mem = parse_meminfo(ctx.read("/proc/meminfo"))
    hosts_entries = parse_hosts_file(ctx.read("/etc/hosts"))
    resolved = None
    if ctx.live:
        try:
            resolved = sorted(set(a[4][0] for a in socket.getaddrinfo(host_arg(hostname), None, socket.AF_INET)))
        except (socket.error, OSError, UnicodeError):
            resolved = []
    else:
        resolved = sorted(set(a for a, names in hosts_entries if hostname in names and ":" not in a))
    cpus = len([l for l in ctx.readlines("/proc/cpuinfo") if l.startswith("processor")])
    return {
        "hostname": hostname,
        "fqdn": fqdn(hostname) if ctx.live else hostname,
        "hostname_addresses": resolved,
        "etc_hosts": [[a, n] for a, n in hosts_entries],
        "kernel": (ctx.read("/proc/sys/kernel/osrelease") or "").strip(),
        "os_id": osr.get("ID"),
        "os_version": osr.get("VERSION_ID"),
        "os_pretty": osr.get("PRETTY_NAME"),
        "cpus": cpus or (os.cpu_count() if ctx.live else None),
        "memory_total_bytes": mem.get("MemTotal"),
        "container": in_container(ctx),
        "user": ctx.env.get("USER") or ctx.env.get("LOGNAME"),
        "uid": ctx.uid,
    }


def parse_mounts(text):
    mounts = []
    for line in (text or "").splitlines():
        parts = line.split()
        if len(parts) >= 4:
            mounts.append({"device": parts[0], "mountpoint": parts[1], "fstype": parts[2], "options": parts[3]})
    return mounts


@section("shm")
def shm(ctx):
    mounts = [m for m in parse_mounts(ctx.read("/proc/self/mounts")) if m["mountpoint"] == "/dev/shm"]
    if not ctx.isdir("/dev/shm"):
        raise Unsupported("/dev/shm does not exist")
    recorded = ctx.recorded("/dev/shm/" + RECORDED_STATVFS)  # a recorded tree's statvfs numbers (never a live file)
    if recorded is not None:
        total, free = [int(x) for x in recorded.split()[:2]]
    else:
        st = os.statvfs(ctx.path("/dev/shm"))
        total, free = st.f_blocks * st.f_frsize, st.f_bavail * st.f_frsize
    m = mounts[-1] if mounts else {}
    return {"total_bytes": total, "free_bytes": free, "fstype": m.get("fstype"), "mount_options": m.get("options"),
            "mounted": bool(mounts)}


def mount_of(mounts, path):
    """The mount holding ``path`` (the longest mount point that is it or a folder above it; the last of those
    mounted on the same point, which is the one in use), or None."""
    best = None
    for m in mounts:
        mp = m["mountpoint"]
        if path == mp or path.startswith(mp.rstrip("/") + "/"):
            if best is None or len(mp) >= len(best["mountpoint"]):
                best = m
    return best


@section("tmp")
def tmp(ctx):
    """The temporary folder the job's programs write to ($TMPDIR, else /tmp): whether this user may write there,
    whether its file system is mounted read-only (a root file system that ext4's errors=remount-ro turned read-only
    after disk errors, and slurmd still starts jobs), and its free space and inodes. Read only: nothing is written
    (os.access and statvfs). LBNL NHC's configurations check the same (check_fs_mount_rw -f /tmp, check_fs_free
    /tmp: https://github.com/mej/nhc)."""
    env = ctx.env.get("TMPDIR")
    path = env if env and env.startswith("/") and len(env) <= 4096 else "/tmp"
    out = {"path": path, "from_tmpdir": path == env}
    if not ctx.isdir(path):
        out.update(exists=False, writable=False)
        return out
    # recorded trees: "total free inodes [ro|rw] [denied]" (Context.recorded: never a live file)
    recorded = ctx.recorded(path.rstrip("/") + "/" + RECORDED_STATVFS)
    if recorded is not None:
        bits = recorded.split()
        total, free = int(bits[0]), int(bits[1])
        files_free = int(bits[2]) if len(bits) > 2 else None
        read_only = len(bits) > 3 and bits[3] == "ro"
        writable = not read_only and not (len(bits) > 4 and bits[4] == "denied")
        m = None
    else:
        st = os.statvfs(ctx.path(path))
        total, free, files_free = st.f_blocks * st.f_frsize, st.f_bavail * st.f_frsize, st.f_favail
        read_only = bool(st.f_flag & getattr(os, "ST_RDONLY", 1))
        writable = os.access(ctx.path(path), os.W_OK | os.X_OK)
        m = mount_of(parse_mounts(ctx.read("/proc/self/mounts")), os.path.realpath(path))
    out.update(exists=True, writable=bool(writable), read_only=read_only, total_bytes=total, free_bytes=free,
               free_inodes=files_free, mountpoint=m and m["mountpoint"], fstype=m and m["fstype"],
               mount_options=m and m["options"])
    return out


_LIMIT_KEYS = {
    "Max locked memory": "memlock",
    "Max open files": "nofile",
    "Max stack size": "stack",
    "Max processes": "nproc",
    # the rest of what bites a training job (setrlimit(2); checks/rlimits.py): RLIMIT_FSIZE, _AS, _DATA, _CPU, _CORE
    "Max file size": "fsize",
    "Max address space": "as",
    "Max data size": "data",
    "Max cpu time": "cpu",
    "Max core file size": "core",
}


def parse_limits(text):
    """/proc/<pid>/limits -> {"memlock": {"soft": int|"unlimited", "hard": ..., "unit": "bytes"}}."""
    out = {}
    for line in (text or "").splitlines():
        for label, key in _LIMIT_KEYS.items():
            if line.startswith(label):
                fields = line[len(label):].split()
                if len(fields) >= 2:
                    conv = [f if f == "unlimited" else int(f) for f in fields[:2]]
                    out[key] = {"soft": conv[0], "hard": conv[1], "unit": fields[2] if len(fields) > 2 else ""}
    return out


@section("limits")
def limits(ctx):
    text = ctx.read("/proc/self/limits")
    if text is None:
        raise RuntimeError("/proc/self/limits is not readable")  # Linux always has it: could not judge
    out = parse_limits(text)
    out["source"] = "/proc/self/limits"
    return out


@section("env")
def env(ctx):
    shown, hashed = {}, {}
    key = ctx.options.get("env_key")
    for name, value in sorted(ctx.env.items()):
        (shown if env_shown(name) and not credential_shape(value) else hashed)[name] = env_value(name, value, key)
    return {"values": shown, "hashed": hashed}

#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/wheel_packages.json: which distribution of the ML stack each import
package belongs to, read from the wheels' own file lists (issue 18 item 2, family17).

A traceback's frame in `site-packages/<pkg>/...` names an import package, not the distribution pip installs: torch's
wheel installs `torch`, `functorch` and `torchgen`; scikit-learn's `sklearn`; opencv-python-headless's `cv2`;
megatron-core's `megatron`; mosaicml's `composer`. explain reads this table so a frame of any package of the stack is
attributed to the library it belongs to (pytb.where: a package of a distribution whose main package is another is
read as that one, `functorch` -> torch), and the library is named by its distribution in the fix (`pip install
scikit-learn`, not `sklearn`).

Usage:
    python tools/gen_wheel_packages.py --wheels DIR [DIR ...] [--record SLICE] [-o OUT]
    python tools/gen_wheel_packages.py --slice tools/data/wheel_packages_slice.txt -o OUT   (the test)

Source: the wheels on PyPI, fetched with pip's ordinary client (`pip download --no-deps --only-binary=:all: P`) into
a cache outside the repository; the newest version of each distribution found in DIR is read. A wheel is a zip
(PEP 427): its `<name>-<version>.dist-info/RECORD` lists every file it installs; the import packages are the first
parts of those paths (a folder, or a top-level module `x.py` / extension `x.cpython-311-x86_64-linux-gnu.so`), less
the .dist-info / .data folders, `__pycache__` and setuptools' `top_level.txt` is read when present (it names the
same). A namespace folder several distributions share (`google`, `nvidia`) names none of them and is left out; a
package two distributions both install is left out too (the table never guesses).

The slice records, per wheel, its distribution, version, file name and the import packages read, so the test
regenerates the table without the wheels.
"""

import argparse
import collections
import os
import re
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_wheel_packages.py"
NAME = "wheel_packages"
# the distributions of the ML stack read (PyPI's names); a wheel of another distribution in DIR is ignored
STACK = (
    "torch", "torchvision", "torchaudio", "torchdata", "torchao", "torchtitan", "torchx", "torchmetrics",
    "torchdiffeq", "triton", "xformers", "deepspeed", "accelerate", "transformers", "tokenizers", "safetensors",
    "huggingface-hub", "datasets", "evaluate", "peft", "trl", "optimum", "bitsandbytes", "diffusers", "timm",
    "sentence-transformers", "open-clip-torch", "lightning", "pytorch-lightning", "lightning-fabric",
    "lightning-utilities", "mosaicml", "megatron-core", "nemo-toolkit", "transformer-engine", "nvidia-modelopt",
    "liger-kernel", "unsloth", "vllm", "sglang", "ray", "jax", "jaxlib", "jax-cuda12-plugin", "jax-cuda12-pjrt",
    "onnx", "onnxruntime", "cupy-cuda12x", "numba", "numpy", "pandas", "scikit-learn", "pillow",
    "opencv-python-headless", "hydra-core", "omegaconf", "wandb", "tensorboard", "protobuf", "sentencepiece",
    "mpi4py", "nvidia-nccl-cu12", "gpytorch", "botorch", "webdataset", "einops", "ms-swift", "llamafactory",
    "openrlhf", "verl", "nanotron", "lmms-eval", "pyyaml", "cuda-bindings")
# a wheel file's name (PEP 427): {distribution}-{version}(-{build})?-{python}-{abi}-{platform}.whl
_WHEEL = re.compile(r"^(?P<dist>[A-Za-z0-9_.]+)-(?P<version>[^-]+)(?:-\d[^-]*)?-[^-]+-[^-]+-[^-]+\.whl$")
_MODULE = re.compile(r"^(?P<name>[A-Za-z_]\w*)(?:\.[\w-]+)*\.(?:py|so|pyd)$")
_IDENT = re.compile(r"^[A-Za-z_]\w*$")


def canon(dist):
    """PEP 503's normalized name ('Open_Clip.Torch' -> 'open-clip-torch')."""
    return re.sub(r"[-_.]+", "-", dist).lower()


def _version_key(v):
    return [int(x) if x.isdigit() else x for x in re.split(r"[.+-]", v)]


# folders some wheels ship by mistake beside their package (a repository's tests/, scripts/, build/): names no import
# of the library has, and another project's own folder as often
_GENERIC = re.compile(r"^(?:tests?|testing|scripts?|build|docs?|examples?|benchmarks?|tools|utils|notebooks\w*|sphinx|"
                      r"\w+_community|studio)$")


def packages_of(names):
    """The import packages a wheel's file list installs (sorted); a folder without its own __init__.py is a
    namespace package (PEP 420: 'nvidia', 'google', 'cuda', 'jax_plugins'), which several distributions share: it
    is listed as '~<name>' and names none of them."""
    out = set()
    inits = {n.split("/", 1)[0] for n in names if n.count("/") == 1 and n.endswith("/__init__.py")}
    for n in names:
        first, _, rest = n.partition("/")
        if first.endswith((".dist-info", ".data")) or first == "__pycache__" or _GENERIC.match(first):
            continue
        if rest:
            if _IDENT.match(first):
                out.add(first if first in inits else "~" + first)
        else:
            m = _MODULE.match(first)
            if m:
                out.add(m.group("name"))
    return sorted(out)


def read_wheel(path):
    """(distribution, version, [import packages]) of one wheel."""
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        meta = next(n for n in names if re.match(r"^[^/]+\.dist-info/METADATA$", n))
        text = z.read(meta).decode("utf-8", "replace")
        dist = re.search(r"^Name:\s*(\S+)", text, re.M).group(1)
        version = re.search(r"^Version:\s*(\S+)", text, re.M).group(1)
        pkgs = set(packages_of(names))
        top = next((n for n in names if re.match(r"^[^/]+\.dist-info/top_level\.txt$", n)), None)
        if top:  # (setuptools' list: the same packages, and modules packages_of missed)
            pkgs.update(x.strip() for x in z.read(top).decode("utf-8", "replace").split()
                        if _IDENT.match(x.strip()) and not _GENERIC.match(x.strip()) and
                        "~" + x.strip() not in pkgs and any(n.startswith(x.strip() + ".") for n in names))
    return canon(dist), version, sorted(pkgs)


def newest(dirs):
    """{distribution: wheel path} of the newest wheel of each STACK distribution in the folders."""
    found = {}
    stack = {canon(d) for d in STACK}
    for d in dirs:
        for n in sorted(os.listdir(d)):
            m = _WHEEL.match(n)
            if not m or canon(m.group("dist")) not in stack:
                continue
            key = canon(m.group("dist"))
            if key not in found or _version_key(m.group("version")) > _version_key(found[key][0]):
                found[key] = (m.group("version"), os.path.join(d, n))
    return {k: v[1] for k, v in sorted(found.items())}


def build(rows):
    """The table from [(distribution, version, wheel file, [packages])]."""
    owners = collections.defaultdict(set)
    for dist, _, _, pkgs in rows:
        for p in pkgs:
            owners[p.lstrip("~")].add(dist if not p.startswith("~") else "~" + dist)
    packages, shared = {}, {}
    for p, ds in sorted(owners.items()):
        one = next(iter(ds)) if len(ds) == 1 else ""
        # a namespace folder names no distribution even where one read has it: others install into it too
        # (nvidia-nccl-cu12's 'nvidia/nccl' beside nvidia-cudnn-cu12's 'nvidia/cudnn'; megatron-core's 'megatron',
        # which pytb.KNOWN_LIBS names itself)
        if one and not one.startswith("~"):
            packages[p] = one
        else:
            shared[p] = sorted(d.lstrip("~") for d in ds)
    # a distribution's main package: the one named as the distribution is ('torch' of torch, 'lightning_fabric' of
    # lightning-fabric), else its only one; the others of it are read as it (functorch -> torch)
    main = {}
    for dist, _, _, pkgs in rows:
        own = [p for p in pkgs if packages.get(p) == dist]
        named = canon(dist).replace("-", "_")
        pick = named if named in own else (own[0] if len(own) == 1 else None)
        if pick:
            main[dist] = pick
    return {"header": knowgen.header(
                "the wheels on PyPI (https://pypi.org/project/<distribution>/, pip download --no-deps): their "
                "dist-info RECORD and top_level.txt",
                ", ".join("%s %s" % (d, v) for d, v, _, _ in rows), GENERATOR,
                "generated by %s; do not edit by hand, run it again. packages: import package -> the distribution "
                "that installs it (one only); main: distribution -> its main import package; shared: packages "
                "several distributions install (namespace folders), attributed to none" % GENERATOR),
            "sites": [],  # (no message sites: a table explain's pytb reads itself, knowledge.generated_table)
            "wheels": {d: w for d, _, w, _ in rows},
            "packages": packages, "main": dict(sorted(main.items())), "shared": shared}


def write_slice(path, rows, what="import packages", field="packages", generator=GENERATOR):
    """The slice of a wheel generator: one line per wheel, 'distribution version wheel-file: names...' (the
    import packages here; gen_wheel_classes writes its class names the same way)."""
    with knowgen.open_write(path) as f:
        f.write("# the %s of each wheel read by %s (distribution version wheel-file: %s)\n"
                % (what, generator, field))
        for dist, version, wheel, names in rows:
            f.write("%s %s %s: %s\n" % (dist, version, wheel, " ".join(names)))


def read_slice(path):
    """[(distribution, version, wheel file, [names])] of a slice write_slice wrote."""
    rows = []
    with knowgen.open_text(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            head, _, names = line.rstrip("\n").partition(": ")
            dist, version, wheel = head.split(" ")
            rows.append((dist, version, wheel, names.split()))
    return rows


def arguments(doc, name, argv):
    """The command line of a generator that reads downloaded wheels (this one, gen_wheel_classes): --wheels
    FOLDER... or --slice FILE, --record FILE, -o OUT (default: generated/<name>.json, or .json.gz: knowgen.out_path)."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--wheels", nargs="*", default=[], help="folders holding the downloaded wheels")
    ap.add_argument("--slice", help="regenerate from a recorded slice instead")
    ap.add_argument("--record", help="write the slice of what was read here")
    ap.add_argument("-o", "--out", default=knowgen.out_path(name))
    return ap.parse_args(argv)


def main(argv=None):
    a = arguments(__doc__, NAME, argv)
    if a.slice:
        rows = read_slice(a.slice)
    else:
        rows = []
        for dist, path in newest(a.wheels).items():
            try:
                d, v, pkgs = read_wheel(path)
            except (zipfile.BadZipFile, StopIteration) as e:  # a download cut short: say so, read the rest
                sys.stderr.write("skipped %s: %s\n" % (path, e or "no METADATA"))
                continue
            rows.append((d, v, os.path.basename(path), pkgs))
    if a.record:
        write_slice(a.record, rows)
    doc = build(rows)
    import json

    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    sys.stderr.write("%s: %d distributions, %d packages, %d shared\n" % (a.out, len(rows), len(doc["packages"]),
                                                                        len(doc["shared"])))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/doc_remedies.json: the remedies the projects' own documentation gives
for an error message it quotes (docs20, issue 18), read from the documentation trees the projects keep in their
repositories (pinned by commit; Markdown, MDX, MyST and reStructuredText pages).

A page is cut into SECTIONS (a heading and what follows it up to the next heading of any level). A section is kept
when it QUOTES an error message and SAYS WHAT TO DO about it:
  - a quoted message: an exception line ('ValueError: Attempting to unscale FP16 gradients', in a heading, a code
    span or a code block's output), a line of a code block that is output and says it failed (error:, failed,
    cannot, unable to, not found, ...; never a line of code: an assignment, a call, a comment, a shell prompt), or a
    code span / double-quoted text of five words or more that says so. The message is cut into FRAGMENTS as
    tools/gen_source_messages.cut cuts a printf format, once the values a user's text would print differently
    (numbers, quoted names, paths, <placeholders>, {fields}, '...') are taken as conversions;
  - the remedy: the section's prose sentences that say what to do (tools/gen_error_docs.fixes' grammar: explain/
    advice.py's remedies and documentation's phrasings, 'the solution is to', 'you can fix this by', 'instead'),
    with the short code block that a remedy sentence ending in ':' introduces (the working form the doc shows);
  - the names in the remedy: code spans, environment variables (UPPER_CASE with an underscore), --options.
Each kept section records its page URL with the anchor the project's doc build gives the heading (Sphinx's docutils
ids, the Hugging Face doc-builder's and Docusaurus' slugs, Jekyll's kramdown ids), and the family from PROJECTS
(the project's own area in families.toml; a few exception classes the project documents go to a narrower family,
CLASS_FAMILY).

Counts per project (pages read, sections with a quoted message, sections with a remedy, kept) go into the header
and docs/explain.md's coverage table.

(docfix27) PyTorch's own documentation, for errors whose cause is in the user's code, data or environment: its
reference pages ('pytorch', given with --pages, each page at the commit the search index stores it: pytorch/pytorch
is over the fetch tool's size limit) - notes/faq.rst, notes/multiprocessing.rst and multiprocessing.md whole; of
data.md the sections from 'Single- and Multi-process Data Loading' through 'Memory Pinning'; of notes/randomness.md
'Avoiding nondeterministic algorithms' and 'DataLoader'; of distributed.md 'Debugging torch.distributed
applications' without its DDP-logging example; of notes/extending.md 'Extending torch.autograd' through 'How to use'
(Step 4); of notes/serialization.md 'torch.load with weights_only=True' through 'Environment Variables'; of
notes/cuda.md 'Asynchronous execution', 'CUDA streams' and the backward-pass stream 'BC note' - and the warning /
note blocks of the docstrings of the public APIs in TORCH_APIS and of torch/_torch_docs.py's add_docstr pages
('torch-api', --torch-wheel, read with ast from the wheel). On these reference pages a section is kept without a
quoted message too when it says what to do (directives(): must / required / should / recommend / cannot be / can
only / make sure ...) and names what it is about as code (terms()): a SYMPTOM row, which explain/docremedy.py quotes
under a root whose traceback names those terms.

Usage:
    (fetch each repository: the `fetch` tool, github:<owner>/<name>; mirrors in <dir>/<owner>+<name>/repo)
    python tools/gen_doc_remedies.py --mirrors /work/.mirror [--pages DIR] [--record tools/data/doc_remedies_slice.txt] [-o OUT]
    python tools/gen_doc_remedies.py --slice tools/data/doc_remedies_slice.txt -o OUT   (the test)
    python tools/gen_doc_remedies.py --slice tools/data/doc_remedies_slice.txt --pages DIR \
        --torch-wheel torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl --record SLICE
        (docfix27: the recorded projects as the slice has them, and what was read since: PyTorch's pages and the
        torch wheel's docstrings)

Sources (each at the commit the header names): huggingface/accelerate, huggingface/peft, huggingface/datasets,
huggingface/trl, Lightning-AI/pytorch-lightning, jax-ml/jax, facebookresearch/hydra, omry/omegaconf,
deepspeedai/DeepSpeed, pytorch/torchtitan (their documentation, Apache-2.0 / BSD / MIT; facts quoted with the URL);
vllm-project/vllm docs/usage/troubleshooting.md at 01b88df816e6 (its sections from 'Python multiprocessing' on) and
huggingface/transformers docs/source/en/troubleshooting.md at 0d7e95d96b4e (its sections, the page's opening links
left out): repositories over the fetch tool's size limit, read as the search index stores the page, given with
--pages (<owner>+<name>@<commit>/<path>).
"""

import argparse
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import knowgen  # noqa: E402
from gen_error_docs import _CUT, _DOC_FIX, _MORE, _NOT_FIX  # noqa: E402
from gen_source_messages import cut  # noqa: E402

GENERATOR = "tools/gen_doc_remedies.py"
NAME = "doc_remedies"

# project, repository, documentation root, page filter (regex on the path under the root), URL form, anchor style,
# family. URL form: {page} is the path under the root without its extension ('basic_tutorials/troubleshooting').
PROJECTS = [
    ("accelerate", "huggingface/accelerate", "docs/source", r"^(?!.*/(?:ko|zh|ja)/)", 
     "https://huggingface.co/docs/accelerate/{page}", "hf", "accelerate.library_error"),
    ("peft", "huggingface/peft", "docs/source", r"", "https://huggingface.co/docs/peft/{page}", "hf",
     "peft.library_error"),
    ("datasets", "huggingface/datasets", "docs/source", r"", "https://huggingface.co/docs/datasets/{page}", "hf",
     "datasets.library_error"),
    ("trl", "huggingface/trl", "docs/source", r"", "https://huggingface.co/docs/trl/{page}", "hf",
     "trl.library_error"),
    ("lightning", "Lightning-AI/pytorch-lightning", "docs/source-pytorch", r"",
     "https://lightning.ai/docs/pytorch/stable/{page}.html", "sphinx", "lightning.library_error"),
    ("jax", "jax-ml/jax", "docs", r"^(?!_|new_docs/)", "https://docs.jax.dev/en/latest/{page}.html", "sphinx",
     "jax.usage"),
    ("lightning-fabric", "Lightning-AI/pytorch-lightning", "docs/source-fabric", r"",
     "https://lightning.ai/docs/fabric/stable/{page}.html", "sphinx", "lightning.library_error"),
    ("hydra", "facebookresearch/hydra", "website/docs", r"", "https://hydra.cc/docs/{page}/", "docusaurus",
     "hydra.config"),
    ("omegaconf", "omry/omegaconf", "docs/source", r"", "https://omegaconf.readthedocs.io/en/latest/{page}.html",
     "sphinx", "hydra.config"),
    ("deepspeed", "deepspeedai/DeepSpeed", "docs", r"^_(?:pages|tutorials)/", "https://www.deepspeed.ai/{page}/",
     "jekyll", "deepspeed.library_error"),
    ("torchtitan", "pytorch/torchtitan", "docs", r"", "https://github.com/pytorch/torchtitan/blob/{commit}/docs/"
     "{page}.md", "github", "torch.library_error"),
    ("megatron", "NVIDIA/Megatron-LM", "docs", r"", "https://github.com/NVIDIA/Megatron-LM/blob/{commit}/docs/"
     "{page}.md", "github", "megatron.library_error"),
    ("megatron-bridge", "NVIDIA-NeMo/Megatron-Bridge", "docs", r"^(?!fern/versions/)", "https://docs.nvidia.com/nemo/megatron-bridge/"
     "latest/{page}.html", "github", "megatron.library_error"),
    ("verl", "volcengine/verl", "docs", r"", "https://verl.readthedocs.io/en/latest/{page}.html", "sphinx",
     "rl.config"),
    ("kueue", "kubernetes-sigs/kueue", "site/content/en/docs", r"", "https://kueue.sigs.k8s.io/docs/{page}/", "github",
     "k8s.kueue"),
    ("jobset", "kubernetes-sigs/jobset", "site/content/en/docs", r"", "https://jobset.sigs.k8s.io/docs/{page}/",
     "github", "k8s.jobset"),
    ("lws", "kubernetes-sigs/lws", "site/content/en/docs", r"", "https://lws.sigs.k8s.io/docs/{page}/", "github",
     "k8s.lws"),
    ("volcano", "volcano-sh/volcano", "docs", r"", "https://github.com/volcano-sh/volcano/blob/{commit}/docs/{page}.md",
     "github", "k8s.volcano"),
    # (repositories over the fetch tool's size limit: their troubleshooting pages as the search index stores them,
    # given with --pages)
    ("vllm", "vllm-project/vllm", "docs", r"", "https://docs.vllm.ai/en/latest/{page}.html", "github",
     "vllm.library_error"),
    ("transformers", "huggingface/transformers", "docs/source/en", r"", "https://huggingface.co/docs/transformers/"
     "{page}", "hf", "transformers.library_error"),
    # (docfix27) PyTorch's own pages: the notes and the package pages that say what to do about a failure of the
    # user's code, data or environment (the FAQ, multiprocessing, DataLoader's multi-process loading, reproducibility,
    # debugging torch.distributed), each at the commit the search index stores it (--pages, several commits)
    ("pytorch", "pytorch/pytorch", "docs/source", r"", "https://docs.pytorch.org/docs/stable/{page}.html", "sphinx",
     "torch.usage"),
    ("torch-api", "pytorch/pytorch", "", r"", "https://docs.pytorch.org/docs/stable/{page}.html", "hf",
     "torch.usage"),
]
# (docfix27) projects whose sections are kept without a quoted message too: a section that says what to do and names
# the APIs, arguments or settings it is about ('terms') is a SYMPTOM row; explain/docremedy.py quotes it only under a
# root whose traceback (the exception's message and the library frames that raised it) names enough of those terms
SYMPTOM_PROJECTS = ("pytorch", "torch-api")
# (docfix27) the warning / note blocks of the docstrings of torch's public APIs that a user's code, data or
# environment trips (the DataLoader and its samplers, DDP, FSDP, DCP, torch.save / load, torch.multiprocessing,
# activation checkpointing, autograd.Function's ctx), read with ast from the torch wheel (never imported), and of
# the C++ functions torch/_torch_docs.py documents with add_docstr; each block is a section of a page built for the
# doc page that renders it ('data' -> https://docs.pytorch.org/docs/stable/data.html), anchored at the API's name
TORCH_APIS = [
    ("torch/utils/data/dataloader.py", "DataLoader", "torch.utils.data.DataLoader", "data"),
    ("torch/utils/data/distributed.py", "DistributedSampler", "torch.utils.data.distributed.DistributedSampler",
     "data"),
    ("torch/utils/data/dataset.py", "IterableDataset", "torch.utils.data.IterableDataset", "data"),
    ("torch/utils/data/dataset.py", "random_split", "torch.utils.data.random_split", "data"),
    ("torch/utils/data/_utils/worker.py", "get_worker_info", "torch.utils.data.get_worker_info", "data"),
    ("torch/nn/parallel/distributed.py", "DistributedDataParallel", "torch.nn.parallel.DistributedDataParallel",
     "generated/torch.nn.parallel.DistributedDataParallel"),
    ("torch/nn/parallel/distributed.py", "DistributedDataParallel.no_sync",
     "torch.nn.parallel.DistributedDataParallel.no_sync", "generated/torch.nn.parallel.DistributedDataParallel"),
    ("torch/nn/parallel/distributed.py", "DistributedDataParallel.join",
     "torch.nn.parallel.DistributedDataParallel.join", "generated/torch.nn.parallel.DistributedDataParallel"),
    ("torch/distributed/fsdp/fully_sharded_data_parallel.py", "FullyShardedDataParallel",
     "torch.distributed.fsdp.FullyShardedDataParallel", "fsdp"),
    ("torch/distributed/fsdp/_fully_shard/_fully_shard.py", "fully_shard", "torch.distributed.fsdp.fully_shard",
     "distributed.fsdp.fully_shard"),
    ("torch/distributed/checkpoint/state_dict_saver.py", "save",
     "torch.distributed.checkpoint.state_dict_saver.save", "distributed.checkpoint"),
    ("torch/distributed/checkpoint/state_dict_loader.py", "load",
     "torch.distributed.checkpoint.state_dict_loader.load", "distributed.checkpoint"),
    ("torch/serialization.py", "save", "torch.save", "generated/torch.save"),
    ("torch/serialization.py", "load", "torch.load", "generated/torch.load"),
    ("torch/multiprocessing/spawn.py", "spawn", "torch.multiprocessing.spawn.spawn", "multiprocessing"),
    ("torch/multiprocessing/spawn.py", "start_processes", "torch.multiprocessing.spawn.start_processes",
     "multiprocessing"),
    ("torch/multiprocessing/__init__.py", "set_sharing_strategy", "torch.multiprocessing.set_sharing_strategy",
     "multiprocessing"),
    ("torch/utils/checkpoint.py", "checkpoint", "torch.utils.checkpoint.checkpoint", "checkpoint"),
    ("torch/autograd/function.py", "FunctionCtx.save_for_backward",
     "torch.autograd.function.FunctionCtx.save_for_backward", "generated/torch.autograd.function.FunctionCtx."
     "save_for_backward"),
    ("torch/autograd/function.py", "_SingleLevelFunction.backward", "torch.autograd.Function.backward",
     "generated/torch.autograd.Function.backward"),
    ("torch/autograd/function.py", "_SingleLevelFunction.forward", "torch.autograd.Function.forward",
     "generated/torch.autograd.Function.forward"),
    ("torch/distributed/distributed_c10d.py", "init_process_group", "torch.distributed.init_process_group",
     "distributed"),
    ("torch/distributed/distributed_c10d.py", "destroy_process_group", "torch.distributed.destroy_process_group",
     "distributed"),
    ("torch/distributed/distributed_c10d.py", "new_group", "torch.distributed.new_group", "distributed"),
    ("torch/distributed/distributed_c10d.py", "barrier", "torch.distributed.barrier", "distributed"),
    ("torch/distributed/distributed_c10d.py", "all_gather_object", "torch.distributed.all_gather_object",
     "distributed"),
    ("torch/distributed/distributed_c10d.py", "broadcast_object_list", "torch.distributed.broadcast_object_list",
     "distributed"),
    ("torch/nn/modules/module.py", "Module.load_state_dict", "torch.nn.Module.load_state_dict",
     "generated/torch.nn.Module"),
    ("torch/nn/modules/lazy.py", "LazyModuleMixin", "torch.nn.modules.lazy.LazyModuleMixin",
     "generated/torch.nn.modules.lazy.LazyModuleMixin"),
]
TORCH_DOCS = "torch/_torch_docs.py"  # add_docstr(torch.X, ...): the C++ functions' pages, generated/torch.X.html


def _docstring_of(tree, qualname):
    import ast

    body, node = tree.body, None
    for part in qualname.split("."):
        node = next((n for n in body if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and
                     n.name == part), None)
        if node is None:
            return None
        body = node.body
    return ast.get_docstring(node, clean=True)


def _doc_blocks(doc):
    """The warning / note blocks of a docstring (tools/gen_api_notes.split: '.. warning::', 'Note:', NumPy 'Notes')."""
    from gen_api_notes import split

    return [(kind, text) for kind, text in split(doc)[0] if kind in ("warning", "note") and text.strip()]


def read_torch_wheel(path):
    """{'torch-api': (version, [(page path, text)])}: one page per doc page, a section per warning / note block
    ('## DataLoader: warning [[torch.utils.data.DataLoader]]', the anchor the doc build gives the API)."""
    import ast
    import zipfile

    version = re.search(r"torch-([^-]+)-", os.path.basename(path)).group(1)
    pages = {}
    with zipfile.ZipFile(path) as z:
        trees = {}
        for mod, qual, full, page in TORCH_APIS:
            if mod not in trees:
                trees[mod] = ast.parse(z.read(mod).decode("utf-8"))
            doc = _docstring_of(trees[mod], qual)
            for kind, text in _doc_blocks(doc or ""):
                pages.setdefault(page, []).append("## %s: %s (%s, %s) [[%s]]\n\n%s\n" % (
                    full, kind, mod, qual.rsplit(".", 1)[-1], full, text))
        for node in ast.walk(ast.parse(z.read(TORCH_DOCS).decode("utf-8"))):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "add_docstr" and
                    len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and
                    isinstance(node.args[1].value, str)):
                continue
            full = ast.unparse(node.args[0])
            if not re.fullmatch(r"torch\.[A-Za-z_]\w{1,60}", full):
                continue
            for kind, text in _doc_blocks(node.args[1].value):
                pages.setdefault("generated/" + full, []).append("## %s: %s [[%s]]\n\n%s\n" % (
                    full, kind, full, text))
    return {"torch-api": ("wheel:torch-" + version, [(p + ".md", "\n".join(secs))
                                                           for p, secs in sorted(pages.items())])}
# an exception class the project documents whose family is narrower than the project's (families.toml)
CLASS_FAMILY = [
    (r"^(?:omegaconf\.)?(?:errors\.)?(?:InterpolationResolutionError|InterpolationKeyError|"
     r"UnsupportedInterpolationType|GrammarParseError)$", "omegaconf.interpolation"),
    (r"^(?:omegaconf\.)?(?:errors\.)?MissingMandatoryValue$", "omegaconf.missing"),
    (r"^(?:omegaconf\.)?(?:errors\.)?(?:ValidationError|ConfigTypeError|ConfigAttributeError|ConfigKeyError)$",
     "omegaconf.structured"),
    (r"^(?:jax\.errors\.)?(?:Concretization|Tracer|NonConcrete|UnexpectedTracer)\w*Error$", "jax.tracer"),
    (r"^(?:hydra\.errors\.)?InstantiationException$", "hydra.instantiate"),
]
# a section about reaching the Hugging Face Hub (its heading or its message: a connection, the cache, the Hub's HTTP
# errors, a gated repository) is the Hub client's family, whichever project's page tells it (huggingface_hub raises
# them: huggingface_hub/errors.py, utils/_http.py); on a Hugging Face library's page its heading alone says so
HUB_PROJECTS = ("transformers", "datasets", "peft", "trl", "accelerate")
HUB_SECTION = re.compile(r"\b(?:firewall\w*|offline|connection error|cached path|too many requests|hfhubhttperror|"
                         r"repository not found|gated repo|huggingface_hub)\b", re.I)
HUB_MESSAGE = re.compile(r"\b(?:huggingface_hub\.\w{0,40}|HfHubHTTPError|LocalEntryNotFoundError|GatedRepoError|"
                         r"RepositoryNotFoundError|gated repo|cannot find the requested files in the (?:disk|local|"
                         r"cached) )", re.I)
PAGE_EXT = (".md", ".mdx", ".rst")

# ------------------------------------------------------------------------------------------------ pages -> sections

_MD_HEAD = re.compile(r"^(#{1,6})\s+(.{1,300}?)\s*#*\s*$")
_RST_UNDER = re.compile(r"^([=\-~^\"'`*+#:.])\1{2,}\s*$")
_FENCE = re.compile(r"^\s{0,8}(```+|~~~+)\s*([^\s`]{0,40})")
_RST_CODE = re.compile(r"^(\s*)\.\.\s+(?:code-block|code|sourcecode|testoutput|doctest|prompt)::")
_RST_DIRECTIVE = re.compile(r"^\s*\.\.\s+[\w:-]{1,40}::")
_EXPLICIT_ANCHOR = re.compile(r"\s*\[\[([\w.-]{1,80})\]\]\s*$")  # the HF doc-builder's '## Title [[anchor]]'
_DOCU_ID = re.compile(r"\s*\{#([\w.-]{1,80})\}\s*$")  # Docusaurus' '## Title {#anchor}'


def sections(text, md):
    """[(heading, level, [blocks])] of a page: a block is ('p', text) for a paragraph or a list item, ('code',
    [lines]) for a code block. Markdown (md) or reStructuredText."""
    lines = text.replace("\r\n", "\n").split("\n")
    if md and lines and lines[0].strip() == "---":  # front matter
        end = next((i for i in range(1, min(len(lines), 60)) if lines[i].strip() == "---"), 0)
        lines = lines[end + 1:]
    text = "\n".join(lines)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S) if md else text
    lines = text.split("\n")
    out = [["", 0, []]]
    para = []
    levels = []  # rst: the underline characters in the order they appear (their level)

    def flush():
        if para:
            out[-1][2].append(("p", " ".join(s.strip() for s in para)))
            del para[:]

    i, n = 0, len(lines)
    while i < n:
        ln = lines[i]
        s = ln.strip()
        if md:
            m = _FENCE.match(ln)
            if m:
                flush()
                fence = m.group(1)
                code, i = [], i + 1
                while i < n and not lines[i].strip().startswith(fence):
                    code.append(lines[i])
                    i += 1
                out[-1][2].append(("code", code))
                i += 1
                continue
            m = _MD_HEAD.match(ln)
            if m:
                flush()
                out.append([m.group(2), len(m.group(1)), []])
                i += 1
                continue
            if ln.startswith("    ") and not para and s:  # an indented code block
                code = []
                while i < n and (lines[i].startswith("    ") or not lines[i].strip()):
                    code.append(lines[i][4:])
                    i += 1
                out[-1][2].append(("code", code))
                continue
        else:
            if i + 1 < n and s and _RST_UNDER.match(lines[i + 1]) and len(lines[i + 1].strip()) >= len(s) \
                    and not _RST_UNDER.match(ln):
                flush()
                ch = lines[i + 1].strip()[0]
                if ch not in levels:
                    levels.append(ch)
                out.append([s, levels.index(ch) + 1, []])
                i += 2
                continue
            if _RST_UNDER.match(ln) and i + 2 < n and _RST_UNDER.match(lines[i + 2]) and lines[i + 1].strip():
                flush()  # an overlined title
                ch = "o" + ln.strip()[0]
                if ch not in levels:
                    levels.append(ch)
                out.append([lines[i + 1].strip(), levels.index(ch) + 1, []])
                i += 3
                continue
            m = _RST_CODE.match(ln)
            literal = s.endswith("::") and not _RST_DIRECTIVE.match(ln)
            if m or literal:
                if literal and s != "::":
                    para.append(s[:-1])
                flush()
                base = len(ln) - len(ln.lstrip())
                i += 1
                while i < n and lines[i].strip().startswith(":") and m:  # the directive's options
                    i += 1
                code = []
                while i < n and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > base):
                    code.append(lines[i])
                    i += 1
                while code and not code[-1].strip():
                    code.pop()
                if code:
                    ind = min(len(c) - len(c.lstrip()) for c in code if c.strip())
                    out[-1][2].append(("code", [c[ind:] for c in code]))
                continue
            if _RST_DIRECTIVE.match(ln):  # another directive (note, warning, image): its text is prose
                flush()
                rest = re.sub(r"^\s*\.\.\s+[\w:-]{1,40}::\s*", "", ln).strip()
                if rest and not re.match(r"^\S+\.(?:png|svg|jpg|gif)$", rest):
                    para.append(rest)
                i += 1
                continue
            if s.startswith(">>>"):
                flush()
                code = []
                while i < n and lines[i].strip():
                    code.append(lines[i].strip())
                    i += 1
                out[-1][2].append(("code", code))
                continue
        if not s:
            flush()
        elif re.match(r"^(?:[-*+]|\d{1,2}[.)])\s+\S", s):  # a list item: its own paragraph
            flush()
            para.append(re.sub(r"^(?:[-*+]|\d{1,2}[.)])\s+", "", s))
        elif md and re.match(r"^</?[A-Za-z][\w-]{0,30}(?:\s[^>]{0,200})?/?>\s*$", s):
            flush()  # a lone HTML / MDX tag (<Tip>, </hfoption>)
        elif md and (s.startswith(":::") or re.match(r"^%(?:\s|$)", s)):
            flush()  # (docfix27) a MyST fence of a note / warning (':::{warning}', ':::') or a MyST comment line
        elif md and s.startswith(">"):
            para.append(re.sub(r"^>\s?(?:\[!\w+\])?", "", s))
        else:
            para.append(s)
        i += 1
    flush()
    return [tuple(x) for x in out]


# ------------------------------------------------------------------------------------------------ text folding

# the HF doc-builder's [`~accelerate.Accelerator`], [`~TrainingArguments#per_device_train_batch_size`]
_HF_REF = re.compile(r"\[`~?(?:[\w.]{1,120}#)?([\w.]{1,120})`\]")
_MD_LINK = re.compile(r"\[([^\]\n]{1,200})\]\([^)\s]{1,400}\)")
_ROLE = re.compile(r":(?:[a-z]{1,12}:)?[a-z]{1,12}:`(?:[^`<\n]{0,80}<)?~?([^`>\n]{1,120})>?`")
_RST_LINK = re.compile(r"`([^`<\n]{1,120}?)\s*<[^>\n]{1,300}>`_{1,2}")
_MYST_ROLE = re.compile(r"\{[a-z:]{1,30}\}`(?:[^`<\n]{0,80}<)?~?([^`>\n]{1,120})>?`")


def plain(text):
    """Markdown / reStructuredText markup folded to plain text, ``literal`` and `literal` both to `literal`."""
    text = _HF_REF.sub(r"`\1`", text)
    text = _ROLE.sub(r"`\1`", text)
    text = _MYST_ROLE.sub(r"`\1`", text)
    text = _RST_LINK.sub(r"\1", text)
    text = _MD_LINK.sub(r"\1", text)
    text = text.replace("``", "`")
    text = re.sub(r"<[^>\n]{1,200}>", lambda m: "" if re.match(r"</?[a-zA-Z]", m.group(0)) else m.group(0), text)
    text = re.sub(r"\*\*(\S[^*\n]{0,200}?)\*\*", r"\1", text)
    return " ".join(text.split())


def anchor(heading, style):
    """The id the project's doc build gives a heading."""
    m = _EXPLICIT_ANCHOR.search(heading) or _DOCU_ID.search(heading)
    if m:
        return m.group(1)
    h = plain(heading).replace("`", "")
    if style == "sphinx":  # docutils nodes.make_id
        return re.sub(r"[^a-z0-9]+", "-", h.lower()).strip("-")
    if style == "jekyll":  # kramdown's auto ids
        return re.sub(r"\s", "-", re.sub(r"[^a-z0-9 _-]", "", h.lower().strip()))
    # GitHub / Docusaurus (github-slugger) and the HF doc-builder: punctuation dropped, blanks to '-'
    return re.sub(r" ", "-", re.sub(r"[^\w\- ]", "", h.lower().strip()))


# ------------------------------------------------------------------------------------------------ quoted messages

# an exception line: 'pkg.mod.SomeError: message' (a prefix such as '[rank0]: ' or 'E   ' before it)
_EXC = re.compile(r"(?:^|[\s`(\[:])((?:[A-Za-z_]\w{0,40}\.){0,6}(?:[A-Z]\w{0,60}(?:Error|Exception|Exit|Interrupt)|"
                  r"Error|Exception))"
                  r":(?:\s+(\S[^\n]{0,400}))?$")
_EXC_IN = re.compile(r"(?:^|[\s`(\[])((?:[A-Za-z_]\w{0,40}\.){0,6}(?:[A-Z]\w{0,60})?(?:Error|Exception))"
                     r":\s+(\S[^`\n]{0,400})")
_FAILS = re.compile(r"\b(?:error|errors|failed|failure|fatal|cannot|can't|unable to|not found|could not|couldn't|"
                    r"refused|not supported|no such|timed out|denied|invalid|mismatch|out of memory)\b", re.I)
_ERR_MARK = re.compile(r"(?:\b(?:error|ERROR|Error|FATAL|Fatal|CRITICAL)\b\s{0,2}[:\]!]|\bfailed\b|\bFAILED\b|"
                       r"\bcannot\b|\bunable to\b|\bcould not\b|\bnot found\b|\bout of memory\b|\btimed out\b|"
                       r"\b(?:RuntimeError|ValueError|TypeError|KeyError|AssertionError)\b)")
# a line of code or a shell command, not a program's output
_CODE = re.compile(r"^(?:>>>|\.\.\.|\$ |# |//|import |from \S+ import|def |class |raise |except|try:|return |if |"
                   r"elif |else:|for |while |with |print\(|assert |@|pip |python |torchrun |accelerate |export |"
                   r"deepspeed |srun |sbatch |mpirun |\w[\w.\[\]'\"]{0,60}\s*[-+*/]?=[^=]|[\w.]{1,60}\([^)]{0,200}\)"
                   r"\s*$|[\w.]{1,60}\($|\)|\}|\]|<|\{|\w+:\s*$)")
_VALUES = re.compile(r"\b(?:XYZ|X{2,}|xxx)\b|0x[0-9a-fA-F]{1,16}|(?<![\w.])\d[\d.,:]*(?:\s?[KMGT]i?B|\s?[kmg]?b|%)?|'[^'\n]{0,120}'|\"[^\"\n]{0,120}\"|"
                     r"`[^`\n]{0,120}`|<[^>\n]{0,80}>|\{[^}\n]{0,80}\}|\[[^\]\n]{0,80}\]|(?:\.\.\.|…)|"
                     r"(?:[\w.~-]{0,80}/){1,12}[\w.-]{0,80}")


def doc_cut(message):
    """The fragments of a message the doc quotes: the values a user's text prints differently taken as conversions,
    then gen_source_messages.cut."""
    msg = _VALUES.sub("%s", message[:500])
    return cut(msg)


# a page or a heading about failures: there a message quoted in prose (a code span, double quotes) is the subject
TROUBLE = re.compile(r"troubl|faq|debug|error|known|gotcha|common|issue|pitfall|sharp|problem|fail|fix|solv|"
                     r"workaround|limitation|caveat|mismatch|out of memory|oom\b|hang|crash|warning", re.I)
# a line of a code block that is a program's failure output (an exception line is read by _EXC)
_OUT_MARK = re.compile(r"(?:\b(?:error|ERROR|Error|FATAL|Fatal|CRITICAL)\b\s{0,2}[:\]!]|\b(?:failed|FAILED)\b|"
                       r"\bout of memory\b|\btimed out\b)")


_HEADER = re.compile(r"^[A-Z][A-Z_-]{1,30}(?:\s{1,80}[A-Z][A-Z_()-]{1,30}){2,20}\s*$")


def quoted(blocks, heading, trouble):
    """[(exception class or '', message)] the section quotes: exception lines (a heading, prose, a code block's
    output) and a code block's failure lines anywhere; a code span or double-quoted text that says something failed
    only where the page or the heading is about failures (``trouble``)."""
    out = []
    for text in [heading] + [b[1] for b in blocks if b[0] == "p"]:
        text = text.replace("``", "`")
        for m in _EXC_IN.finditer(text):
            out.append((m.group(1), m.group(2).strip().strip("`").strip()))
        if not trouble:
            continue
        for span in re.findall(r"`([^`\n]{1,400})`", text):
            if len(span) >= 20 and not _EXC_IN.search(span) and len(span.split()) >= 5 and _FAILS.search(span) \
                    and not _CODE.match(span.strip()):
                out.append(("", span.strip()))
        for span in re.findall(r"\"([^\"\n]{20,400})\"", text):
            if len(span.split()) >= 5 and _ERR_MARK.search(span):
                out.append(("", span.strip()))
    for kind, code in blocks:
        if kind != "code":
            continue
        for i, ln in enumerate(code):
            s = ln.strip()
            if not s or len(s) > 600:
                continue
            m = _EXC.search(s)
            if m and not s.startswith(("raise ", "except ", "#")) and "(" not in s[:m.start(1) + 1]:
                msg = (m.group(2) or "").strip()
                if not msg:  # the message on the lines after the class (accelerate's DistributedOperationException)
                    msg = " ".join(c.strip() for c in code[i + 1:i + 4] if c.strip())
                out.append((m.group(1), msg))
                continue
            if _HEADER.match(s):
                continue  # a table's column header ('NAME  ACCEPTED  PROVISIONED  FAILED  AGE', kubectl's)
            if _OUT_MARK.search(s) and not _CODE.match(s) and not s.startswith(("'", '"', "{", "[", "-")) and \
                    not re.search(r"\s#\s|\s//\s", s) and \
                    len(s.split()) >= 4:
                out.append(("", s))
    return [(c, m) for c, m in out if m]


# ------------------------------------------------------------------------------------------------ remedies

_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(\[])")
_WORKS = re.compile(r"#\s*(?:add this|this works|works|correct|fixed|do this|instead|solution|fix)\b", re.I)
# documentation's phrasings that always say what to do (besides advice.py's remedies)
_STRONG = re.compile(r"\b(?:the (?:best |simplest |easiest |usual |recommended )?(?:solution|fix|workaround|way to "
                     r"(?:fix|resolve|avoid) this)\b[^.]{0,60}?\bis(?: probably)? (?:to\b|changing|using|setting)|"
                     r"can (?:easily |often )?be (?:fixed|avoided|resolved|solved|worked around) by|"
                     r"(?:you|we) can (?:fix|avoid|resolve|solve) (?:it|this|that|the [\w ]{1,40}?) by|"
                     r"\b(?:this |it )?requires? (?:setting|calling|passing|adding|installing)\b|to (?:fix|avoid|"
                     r"resolve|solve|work around|prevent) (?:this|these|the|that)\b|make sure (?:to|that|you)|"
                     r"ensure (?:that )?(?:you|the|your)|you (?:should|need to|must|have to) (?:use|pass|set|call|add|"
                     r"install|upgrade|downgrade|update|remove|run|specify|change|make|enable|disable|export)|"
                     r"(?<!\bto )(?:upgrade|downgrade|update) (?:to|your|the)\b)", re.I)
# (review20) a sentence that points at what the row does not hold (a list of steps after its ':', the section's rest)
# or tells the reader to skip: no remedy of its own ('Follow these steps to resolve the issue:', 'If you are
# exclusively using GDA arguments to pjit, you can skip this section!')
_POINTER = re.compile(r"\bskip (?:this|the following|the rest of this) (?:section|page|part)\b", re.I)
# a sentence that tells what fails, not what to do
_TELLS = re.compile(r"\b(?:will|would) (?:get|raise|result in|fail|throw)|\bis an error\b|\byou will (?:get|see)\b|"
                    r"^(?:If|When) you (?:try|attempt)\b", re.I)
# the fix of the page's own example ('We can fix the above matmul example by specifying that the argument has shape
# `(v, v)`'): the user's code need not be that example (as gen_error_docs' _ABOUT_EXAMPLE, review18)
_EXAMPLE_FIX = re.compile(r"\b(?:the above|this|the following|our|the previous) (?:[\w-]{1,30} ){0,2}example\b", re.I)
_INSTEAD_ONLY = re.compile(r"^(?![^.]{0,200}\b(?:use|pass|set|call)\b)[^.]{0,400}\binstead\b", re.I)
_NAME = re.compile(r"`([^`\n]{2,80})`|\b([A-Z][A-Z0-9]{1,20}(?:_[A-Z0-9]{1,20}){1,6})\b|(?<![\w-])(--[a-z][\w-]{1,40})")


def remedies(blocks, trouble=True):
    """(fix sentences, code lines the doc shows as the working form) of a section's blocks. Outside a page or a
    heading about failures (``trouble`` false: a guide that shows an error in passing) a sentence counts only when it
    names what to change (a code span) or is one of documentation's own fix phrasings (_STRONG): 'You can create
    OmegaConf objects from structured config classes' describes the API, it fixes nothing."""
    from gpudoctor.explain import advice

    out = []
    for bi, (kind, body) in enumerate(blocks):
        if kind != "p":
            continue
        text = plain(body)
        for s in _SENT.split(text):
            s = s.strip()
            if not s or len(s) > 400 or len(s.split()) < 4:
                continue
            if _MORE.search(s) or _NOT_FIX.search(s) or _CUT.search(s.rstrip(".:")) or _TELLS.search(s) or \
                    _EXAMPLE_FIX.search(s):
                continue
            if not (s[:1].isupper() or s[:1] in "`(" or _STRONG.search(s)):
                continue  # (a sentence's tail; one that goes on after a code block: 'then you must update ...')
            said = any(k == "remedy" for k, _ in advice.find(s)) or _STRONG.search(s) or \
                ("`" in s and _DOC_FIX.search(s) and not _INSTEAD_ONLY.search(s))
            if not said:
                continue
            line = s
            nxt = blocks[bi + 1] if bi + 1 < len(blocks) else None
            if s.endswith(":") and nxt and nxt[0] == "code":
                code = [c.strip() for c in nxt[1] if c.strip() and not c.strip().startswith(("#", "//"))]
                marked = [c.strip() for j, c in enumerate(nxt[1]) if j and _WORKS.search(nxt[1][j - 1])]
                code = marked or code
                if code and len(code) <= 4 and all(len(c) <= 160 for c in code):
                    line = "%s %s" % (s, "; ".join("`%s`" % c for c in code))
                elif marked:
                    line = "%s `%s`" % (s, marked[0][:160])
                else:
                    line = s.rstrip(":") + "."
            if not trouble and "`" not in line and not _STRONG.search(s):
                continue
            if line.endswith(":") or _POINTER.search(s):
                continue  # (review20: see _POINTER)
            if line not in out:
                out.append(line)
    return out[:4]


# (docfix27) what a reference page (PyTorch's notes) says to do: its directive sentences (must, is required to,
# should, we recommend, keep / release / make sure / avoid ..., do not), not an example's introduction or a sentence
# that only describes; reStructuredText's numbered best practices ('1. Release memory ASAP in the consumer.') too
_DIRECTIVE = re.compile(r"\b(?:must|(?:is|are) required (?:to|for)|required to|should(?! only be used)|"
                        r"cannot be|can ?not be|can only|only be (?:called|used|set)|(?:is|are) not supported|"
                        r"requires|has to|have to|never|"
                        r"(?:we )?recommend(?:ed)?|make sure|ensure|you (?:can|may) (?:use|set|pass|access|instead)|"
                        r"you need to|needs to be|we do not recommend|avoid|instead|the (?:simplest |best )?(?:solution|workaround) "
                        r"(?:is|would be)|try using|(?:can|may) be used to)\b|^(?:Release|Keep|Use|Set|Wrap|Pass|"
                        r"Call|Make|Move|Create|Don't|Do not|Avoid)\b", re.I)
_NOT_DIRECTIVE = re.compile(r"^(?:As an example|For example|Consider|Here|See|This (?:section|tutorial)|We're|"
                            r"Please check|Note that this function)\b|\bthe following (?:example|function|changes)\b|"
                            r"\byou (?:should|will|would) see\b|"
                            r"\bin the (?:above|following|mnist_\w+) (?:application|example)\b", re.I)


def directives(blocks, most=8):
    """The directive sentences of a reference section's prose, in order, at most ``most`` (see _DIRECTIVE); the
    reader quotes those that name what the failure named first."""
    out = []
    for kind, body in blocks:
        if kind != "p":
            continue
        for sent in _SENT.split(plain(body)):
            sent = " ".join(sent.split())
            if not sent or len(sent) > 400 or len(sent.split()) < 4 or sent.endswith(":"):
                continue
            if _NOT_DIRECTIVE.search(sent) or _MORE.search(sent) or not _DIRECTIVE.search(sent):
                continue
            if sent not in out:
                out.append(sent)
    return out[:most]


def names(fixes):
    got = []
    for f in fixes:
        for m in _NAME.finditer(f):
            n = (m.group(1) or m.group(2) or m.group(3)).strip()
            if n and n not in got and len(n) <= 80:
                got.append(n)
    return got[:12]


def family(project_family, exc, project="", about=""):
    if project in HUB_PROJECTS and HUB_SECTION.search(about) or HUB_MESSAGE.search(about):
        return "transformers.hub"
    for rx, fam in CLASS_FAMILY:
        if exc and re.match(rx, exc):
            return fam
    return project_family


# (docfix27) a term of a symptom row: an identifier the section writes as code (`worker_init_fn`,
# {func}`torch.utils.data.get_worker_info`, ``file_system``), its last dotted part, lower case; words any Python text
# has (None, True, self) are no term
_TERM = re.compile(r"`([^`\n]{2,120})`")
_TERM_ID = re.compile(r"[a-z_][a-z0-9_]{2,40}")
_TERM_STOP = {"none", "true", "false", "self", "cls", "tensor", "torch", "cuda", "int", "str", "float", "list",
              "dict", "tuple", "bool", "object", "main", "__main__", "python", "module", "nn", "forward", "import",
              # (the names every DataLoader / training traceback prints: no term of their own)
              "dataset", "dataloader", "loss", "linear", "enumerate", "queue", "process", "model", "optimizer",
              "function", "autograd"}


# read_torch_wheel's section headings: the API, the block's kind, the module file and the function that defines it
_API_HEAD = re.compile(r"^(torch(?:\.\w{1,60}){1,8}): (?:warning|note)\b(?: \(([\w/.]{1,120}\.py), (\w{1,60})\))?")


def terms(heading, blocks):
    """The identifiers a section writes as code, in its heading and prose (not its code blocks: an example's local
    names are no term), each once: its last dotted part, lower case, without a call's parentheses."""
    got = []
    for text in [heading] + [b[1] for b in blocks if b[0] == "p"]:
        for span in _TERM.findall(plain(text.replace("``", "`"))):
            span = span.strip().split("(", 1)[0].split("=", 1)[0].strip().rstrip(".")
            last = span.rsplit(".", 1)[-1].lower()
            if _TERM_ID.fullmatch(last) and last not in _TERM_STOP and last not in got:
                got.append(last)
    return got[:16]


def read_section(project, fam, url, heading, blocks, style, trouble=False):
    """(row or None, quotes a message, has a remedy) of one section; ``trouble``: the page is about failures. A
    section of a SYMPTOM_PROJECTS page that quotes no message but says what to do and names two terms or more is a
    symptom row (``symptom``: true, no fragments, its ``terms``)."""
    trouble = trouble or bool(TROUBLE.search(heading))
    q = quoted(blocks, heading, trouble)
    frags, classes = [], []
    for exc, msg in q:
        for fr in doc_cut(msg):
            if fr not in frags:
                frags.append(fr)
        if exc and exc not in classes:
            classes.append(exc)
    fixes = directives(blocks) if project in SYMPTOM_PROJECTS else remedies(blocks, trouble)
    title = plain(_EXPLICIT_ANCHOR.sub("", _DOCU_ID.sub("", heading))).replace("`", "") or "(page top)"
    link = url + ("#" + anchor(heading, style) if heading else "")
    if not frags and fixes and project in SYMPTOM_PROJECTS:
        ts = terms(heading, blocks)
        api = _API_HEAD.match(heading)
        if api:  # a docstring's block: the API's own name is its first term (a frame or the message names it)
            name = api.group(1).rsplit(".", 1)[-1].lower()
            ts = [name] + [t for t in ts if t != name]
        if len(ts) >= 2 or (api and "_" in ts[0]):
            row = {"project": project, "family": fam, "heading": title[:200], "url": link, "classes": [],
                   "fragments": [], "fix": [" ".join(f.split())[:500] for f in fixes], "names": names(fixes),
                   "symptom": True, "terms": ts}
            if api:
                row["api"] = api.group(1)
                row["heading"] = "%s, %s" % (api.group(1), heading[api.end(1) + 2:].split(" ", 1)[0])
                if api.group(2):  # (a Python API: the frame that shows it was called)
                    row["frame"] = [api.group(2), api.group(3)]
            return row, False, True
    if not frags:
        return None, False, bool(fixes)
    if not fixes:
        return None, True, False
    about = " ".join([heading] + classes + [m for _c, m in q])
    row = {"project": project, "family": family(fam, classes[0].rsplit(".", 1)[-1] if classes else "", project,
                                                 about),
           "heading": title[:200], "url": link, "classes": classes[:4], "fragments": frags[:8],
           "fix": [" ".join(f.split())[:500] for f in fixes], "names": names(fixes)}
    # (review20) the names the quoted message writes in backquotes ('`MPSAccelerator` can not run on your system ...'):
    # the case the section is about where the program fills in a name (Lightning's accelerator_connector prints the
    # accelerator's class there, CUDAAccelerator too), and literal words of the message otherwise; docremedy needs them
    # in the failure line, so a page about one case does not answer the message's other cases
    cases = []
    for _c, m in q:
        for name in _CASE.findall(m):
            if name not in cases:
                cases.append(name)
    if cases:
        row["cases"] = cases[:4]
    return row, True, True


_CASE = re.compile(r"`([A-Za-z_][\w.]{2,60})`")


# ------------------------------------------------------------------------------------------------ reading

def page_url(form, path, commit, root):
    page = (path[len(root) + 1:] if root else path).rsplit(".", 1)[0]
    if "{commit}" in form:
        return form.format(page=page, commit=commit)
    if form.startswith("https://hydra.cc"):  # Docusaurus drops a number prefix ('5_debugging' -> 'debugging')
        page = "/".join(re.sub(r"^\d+[-_.]", "", p) for p in page.split("/"))
    if form.startswith("https://www.deepspeed.ai"):  # Jekyll: _tutorials/x.md -> /tutorials/x/, _pages by permalink
        page = re.sub(r"^_", "", page)
    if page.endswith(("/index", "/_index")) or page in ("index", "_index"):
        page = page.rsplit("index", 1)[0].rstrip("_").rstrip("/")
    return form.format(page=page).replace("//", "/").replace(":/", "://")


_PERMALINK = re.compile(r"^permalink:\s*['\"]?(/[^'\"\s]{0,200})", re.M)
_DOCU_FRONT_ID = re.compile(r"^id:\s*['\"]?([\w.-]{1,80})", re.M)


def read_page(project, form, style, fam, root, path, commit, text, counts, rows, keep):
    """Read one page into rows; ``keep``: [(path, heading, level, raw section text)] for the slice. A path
    'PATH@COMMIT' is a page of a project read at several commits (read_pages)."""
    full = path
    path, _, page_commit = path.partition("@")
    commit = page_commit or commit
    url = page_url(form, path, commit, root)
    head = text[:1500] if text.startswith("---") else ""
    m = _PERMALINK.search(head)
    if m and "deepspeed.ai" in form:
        url = "https://www.deepspeed.ai" + m.group(1)
    m = _DOCU_FRONT_ID.search(head)
    if m and "hydra.cc" in form:
        url = url.rstrip("/").rsplit("/", 1)[0] + "/" + m.group(1) + "/"
    md = not path.endswith(".rst")
    c = counts[project]
    c["pages"] += 1
    for heading, _level, blocks in sections(text, md):
        row, has_msg, has_fix = read_section(project, fam, url, heading, blocks, style,
                                             bool(TROUBLE.search(path.rsplit("/", 1)[-1])))
        if has_msg or (row and row.get("symptom")):
            keep.append((full, heading, blocks))
        if has_msg:
            c["quoted"] += 1
        if has_msg and has_fix:
            c["with_remedy"] += 1
        if row:
            c["kept"] += 1
            if row.get("symptom"):
                c["symptom"] = c.get("symptom", 0) + 1
            if page_commit:  # (a project read at several commits: each row names its page's)
                row["source"] = "%s %s %s" % (counts[project]["repo"], page_commit[:12], path)
            rows.append(row)


def read_mirrors(mirrors):
    """{project: (commit, [(path, text)])} of the documentation trees."""
    out = {}
    for project, repo, root, filt, _form, _style, _fam in PROJECTS:
        gitdir = os.path.join(mirrors, repo.replace("/", "+"), "repo")
        if not os.path.isdir(gitdir):
            continue  # (a repository read from --pages)
        git = knowgen.git_reader(gitdir)
        commit = git("rev-parse", "HEAD^{commit}").strip()
        paths = [p for p in git("ls-tree", "-r", "--name-only", commit, "--", root).splitlines()
                 if p.endswith(PAGE_EXT) and re.search(filt, p[len(root) + 1:]) and "/versioned_docs/" not in p]
        blobs = subprocess.run(["git", "-C", gitdir, "cat-file", "--batch"], capture_output=True,
                               input="".join("%s:%s\n" % (commit, p) for p in paths).encode()).stdout
        pages, i = [], 0
        for p in paths:
            nl = blobs.index(b"\n", i)
            size = int(blobs[i:nl].split()[2])
            pages.append((p, blobs[nl + 1:nl + 1 + size].decode("utf-8", "replace")))
            i = nl + 1 + size + 1
        out[project] = (commit, pages)
    return out


def read_pages(folder):
    """{project: (commit, [(path, text)])} of pages saved one file each under
    ``folder/<owner>+<name>@<commit>/<path in the repository>`` (a page of a repository too large to fetch, as the
    search index stores it at that commit)."""
    out, commits, by_repo = {}, {}, {}
    for project, repo, *_ in PROJECTS:
        by_repo.setdefault(repo, project)  # (the repository's first project: pytorch/pytorch's pages are 'pytorch')
    for top in sorted(os.listdir(folder)):
        repo, _, commit = top.partition("@")
        project = by_repo.get(repo.replace("+", "/"))
        if not project:
            continue
        commits.setdefault(project, []).append(commit)
        for base, _dirs, files in sorted(os.walk(os.path.join(folder, top))):
            for fn in sorted(files):
                full = os.path.join(base, fn)
                with open(full, encoding="utf-8") as f:
                    out.setdefault(project, (commit, []))[1].append((os.path.relpath(full, os.path.join(
                        folder, top)) + "@" + commit, f.read()))
    for project, cs in commits.items():  # (docfix27) one commit: as before; several: each page keeps its own
        if len(cs) == 1:
            out[project] = (cs[0], [(p.rsplit("@", 1)[0], t) for p, t in out[project][1]])
        else:
            out[project] = ("several", out[project][1])
    return out


def build(tree):
    """(doc, keep) from {project: (commit, [(path, text)])}; ``keep``: {project: [(path, heading, blocks)]}."""
    counts, rows, keep = {}, [], {}
    for project, repo, root, _filt, form, style, fam in PROJECTS:
        if project not in tree:
            continue
        commit, pages = tree[project]
        counts[project] = {"repo": repo, "commit": commit, "pages": 0, "quoted": 0, "with_remedy": 0, "kept": 0}
        keep[project] = []
        for path, text in pages:
            read_page(project, form, style, fam, root, path, commit, text, counts, rows, keep[project])
    # (docfix27) a symptom row's heading words that the table writes as code elsewhere are its terms too ('CUDA in
    # multiprocessing': the section is about multiprocessing though its prose names only fork / spawn as code)
    vocab = {t for r in rows if r.get("symptom") for t in r["terms"]}
    for r in rows:
        if r.get("symptom") and not r.get("api"):
            for w in re.findall(r"[a-z_]{4,40}", r["heading"].lower()):
                if w in vocab and w not in r["terms"] and w not in _TERM_STOP:
                    r["terms"].append(w)

    def _ver(project, c):
        if c["commit"].startswith("wheel:"):
            return "%s's docstrings (the wheel %s, %s)" % (c["repo"], c["commit"][6:], TORCH_DOCS)
        if c["commit"] != "several":
            return "%s commit %s" % (c["repo"], c["commit"])
        return "%s pages at their commits (%s)" % (c["repo"], ", ".join(
            p.replace("@", " at ") for p, _t in tree[project][1] if "@" in p))

    source = ", ".join("%s %s" % (c["repo"], c["commit"][:12]) for c in counts.values())
    doc = {"header": knowgen.header(
        "the documentation trees of the projects' repositories: " + source,
        "; ".join(_ver(p, c) for p, c in counts.items()), GENERATOR,
        "sections that quote an error message and say what to do: the message's fragments, the remedy sentences, "
        "the names in them, the page URL with the heading's anchor, the family"),
        "sites": [], "counts": counts, "sections": rows}
    return doc, keep


# ------------------------------------------------------------------------------------------------ slice

def write_slice(path, tree, keep, doc):
    """The sections that quote a message (as their pages' text), with each project's page count, for the test."""
    with open(path, "w") as f:
        f.write("# recorded by %s: the sections of each project's documentation that quote an error message "
                "(the rest of the pages only counted); '#! project NAME COMMIT PAGES', '#@@ page PATH', then "
                "the sections' text\n" % GENERATOR)
        for project, (commit, pages) in tree.items():
            c = doc["counts"][project]
            f.write("#! project %s %s %d\n" % (project, commit, c["pages"]))
            by_page = {}
            for p, heading, blocks in keep.get(project, ()):
                by_page.setdefault(p, []).append((heading, blocks))
            for p, secs in by_page.items():
                f.write("#@@ page %s\n" % p)
                for heading, blocks in secs:
                    f.write(_unparse(heading, blocks, p.partition("@")[0].endswith(".rst")))


def _unparse(heading, blocks, rst):
    """A section written back as Markdown (a reStructuredText page's as reStructuredText's two forms it reads)."""
    out = []
    if heading:
        out.append("%s\n%s\n" % (heading, "-" * max(3, len(heading))) if rst else "## %s\n" % heading)
    for kind, body in blocks:
        if kind == "p":
            out.append(body + "\n")
        elif rst:
            out.append(".. code-block::\n\n" + "\n".join("    " + c if c.strip() else "" for c in body) + "\n")
        else:
            out.append("```\n" + "\n".join(body) + "\n```\n")
    return "\n".join(out) + "\n"


def read_slice(path):
    """({project: (commit, [(path, text)])}, {project: pages read})."""
    tree, pages_read, cur, page, buf = {}, {}, None, None, []

    def done():
        if cur and page:
            tree[cur][1].append((page, "".join(buf)))

    with open(path) as f:
        for line in f:
            if line.startswith("#! project "):
                done()
                name, commit, n = line.split()[2:5]
                cur, page, buf = name, None, []
                tree[name] = (commit, [])
                pages_read[name] = int(n)
            elif line.startswith("#@@ page "):
                done()
                page, buf = line[len("#@@ page "):].strip(), []
            elif line.startswith("# recorded by"):
                continue
            elif page:
                buf.append(line)
    done()
    return tree, pages_read


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirrors", help="the folder of fetched mirrors (<owner>+<name>/repo)")
    ap.add_argument("--pages", help="a folder of single pages: <owner>+<name>@<commit>/<path>")
    ap.add_argument("--slice", help="regenerate from a recorded slice instead")
    ap.add_argument("--torch-wheel", help="(docfix27) the torch wheel whose docstrings' warning / note blocks to read")
    ap.add_argument("--record", help="write the slice of what was read here")
    ap.add_argument("-o", "--out", default=os.path.join(knowgen.OUT_DIR, NAME + ".json"))
    a = ap.parse_args(argv)
    if bool(a.mirrors) == bool(a.slice):
        ap.error("give --mirrors or --slice")
    if a.slice and (a.pages or a.torch_wheel):  # (docfix27) the recorded slice with pages read since: the slice's
        tree, pages_read = read_slice(a.slice)  # projects as recorded
        if a.pages:
            tree.update(read_pages(a.pages))
        if a.torch_wheel:
            tree.update(read_torch_wheel(a.torch_wheel))
        doc, keep = build(tree)
        for project, n in pages_read.items():
            if project in doc["counts"] and project not in (read_pages(a.pages) if a.pages else {}) and \
                    not (a.torch_wheel and project == "torch-api"):
                doc["counts"][project]["pages"] = n
        if a.record:
            write_slice(a.record, tree, keep, doc)
        path = knowgen.write(NAME, doc, a.out)
        print("%s: %d sections kept" % (path, len(doc["sections"])))
        return 0
    if a.mirrors:
        tree = read_mirrors(a.mirrors)
        if a.pages:
            tree.update(read_pages(a.pages))
        doc, keep = build(tree)
    else:
        tree, pages_read = read_slice(a.slice)
        doc, keep = build(tree)
        for project, n in pages_read.items():  # the pages the slice leaves out were read and counted
            doc["counts"][project]["pages"] = n
    if a.record:
        write_slice(a.record, tree, keep, doc)
    path = knowgen.write(NAME, doc, a.out)
    print("%s: %d sections kept (%s)" % (path, len(doc["sections"]), ", ".join(
        "%s %d/%d/%d/%d" % (p, c["pages"], c["quoted"], c["with_remedy"], c["kept"])
        for p, c in doc["counts"].items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())

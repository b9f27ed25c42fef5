#!/usr/bin/env python3
"""Generate gpudoctor/data/knowledge/generated/flashattn_messages.json: what FlashAttention (Dao-AILab/flash-attention,
the `flash_attn` package that transformers' attn_implementation="flash_attention_2", vLLM, TRL and most training
repositories call) refuses: every TORCH_CHECK of its C++ entry points (csrc/flash_attn/flash_api.cpp, FlashAttention-2;
hopper/flash_api.cpp, FlashAttention-3) and every raise / assert with a message of its Python interfaces
(flash_attn/flash_attn_interface.py, hopper/flash_attn_interface.py), each with a bounded matcher and the family
(knowledge/flash_attn.toml) the RULES table below gives it: the GPU's architecture (`FlashAttention only supports Ampere
GPUs or newer.`: mha_fwd's `cc_major >= 8`), the tensors' dtype (fp16 / bf16 only), the head dimension (at most 256, a
multiple of 8), a build compiled without a feature (FLASHATTENTION_DISABLE_*), and the call's other argument checks.

TORCH_CHECK(cond, a, b, ...) joins its message arguments as c10::str does: a string literal is its text, any other
argument a %s. A TORCH_CHECK without a message (c10's generic 'Expected cond to be true') and the CHECK_* macros'
`#x " must be ..."` (their text is the tensor's name in the caller) are not read. A message's trailing '.' is no part
of its matcher (threads quote it without).

Usage:
    python tools/gen_flashattn_messages.py --repo /path/to/flash-attention.git [--rev v2.8.3] [--record] [-o OUT]
    python tools/gen_flashattn_messages.py --slice tools/data/flashattn_messages_slice.txt -o OUT   (the test)

Source: Dao-AILab/flash-attention (https://github.com/Dao-AILab/flash-attention, BSD-3-Clause), read with
`git show REV:path`; the regenerated table read the release tag v2.8.3. The fixes follow its README ("Requirements:
... Ampere, Ada, or Hopper GPUs ... Datatype fp16 and bf16 ... All head dimensions up to 256") and transformers'
attention interface (https://huggingface.co/docs/transformers/attention_interface: attn_implementation "sdpa" /
"eager").
"""

import ast
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import knowgen  # noqa: E402

GENERATOR = "tools/gen_flashattn_messages.py"
NAME = "flashattn_messages"
SLICE = os.path.join(knowgen.DATA, NAME + "_slice.txt")
FILES = ("csrc/flash_attn/flash_api.cpp", "hopper/flash_api.cpp", "flash_attn/flash_attn_interface.py",
         "hopper/flash_attn_interface.py")
NEED = 12  # non-blank characters of the longest literal run below which a message is too vague to match
_CHECK = re.compile(r"\bTORCH_CHECK\(")

USAGE_WORDS = (r"cu_seqlens|seqused|seqlens_k|block_table|page_table|leftpad|[Pp]aged ?KV|KV ?cache|softcap|"
               r"ALiBi|alibi|rotary|num_splits|q_v\b|k_new|v_new|cache_batch_idx|kv_batch_idx|FlashAttention|"
               r"Flash-Attention|FA3|LSE tensor|[Cc]ombine|scheduler_metadata|return_softmax|p_dropout")
# (rule, knowledge entry, {field: regex}); fields: where (path:line), text, level. The first that matches wins.
RULES = [
    # the GPU: mha_fwd / mha_varlen_fwd / mha_bwd / mha_fwd_kvcache: `cc_major >= 8` (FlashAttention-3's is_sm8x)
    ("gpu-arch", "flash_attn.gpu_arch", {"text": r"only supports (?:Ampere|Hopper|Blackwell)[^\n]{0,20}GPUs"}),
    # the tensors' dtype: fp16 / bf16 (FlashAttention-3: and FP8 e4m3)
    ("dtype", "flash_attn.dtype", {"text": r"only supports? fp16 and bf16|only supports? fp16, bf16|"
                                           r"must have dtype (?:fp16|bf16|float16|bfloat16)"}),
    # a rotary or q_v input checked against the head dimension: the call's, not the model's
    ("input-vs-headdim", "flash_attn.usage", {"text": r"^(?:rotary_dim|q_v) "}),
    # the head dimension: at most 256, a multiple of 8 (32 in a build without the other sizes)
    ("head-dim", "flash_attn.head_dim", {"text": r"head ?dim|head_size|headdim"}),
    # a build compiled with FLASHATTENTION_DISABLE_<feature> (setup.py: the environment at build time)
    ("build", "flash_attn.usage", {"text": r"^This flash attention build does not support"}),
    # the call's other arguments (the varlen / paged-KV / rotary inputs, the split and combine kernels): the message
    # names what to change; only a message that names an input of FlashAttention's own (a check of a bare 'query and
    # key must have the same dtype', 'batch size must be positive' is any attention library's words: listed, and
    # the traceback's flash_attn frame gives structural.toml's flash_attn.library_error)
    ("usage", "flash_attn.usage", {"level": r"^raise$", "text": USAGE_WORDS}),
]

_ARCH_FIX = [
    "the GPU's compute capability: nvidia-smi --query-gpu=name,compute_cap --format=csv  (FlashAttention needs 8.0 or "
    "newer: A100/A10/A30/L4/L40/RTX 30xx-40xx/H100; a V100 is 7.0, a T4 or RTX 20xx 7.5)",
    "on an older GPU, attention without FlashAttention: transformers from_pretrained(..., "
    "attn_implementation=\"sdpa\") (or \"eager\") instead of \"flash_attention_2\" / use_flash_attention_2=True; drop "
    "the script's FlashAttention patch (a replace_llama_attn_with_flash_attn() / --use_flash_attn / flash_attn=True "
    "in the training entry point); vLLM: another attention backend with VLLM_ATTENTION_BACKEND (vllm/envs.py; XFORMERS "
    "in the V0 engine)",
]
_DTYPE_FIX = [
    "run attention in half precision: load the model with torch_dtype=torch.bfloat16 (torch.float16 below Ampere "
    "has no FlashAttention anyway), or run the forward under torch.autocast('cuda', dtype=torch.bfloat16); a float32 "
    "model (no torch_dtype, fp16/bf16 off in the trainer) gives float32 q/k/v",
    "or attn_implementation=\"sdpa\", which takes float32 too",
]
_HEAD_FIX = [
    "a model whose head dimension (hidden_size / num_attention_heads) FlashAttention supports: at most 256 and a "
    "multiple of 8; otherwise attn_implementation=\"sdpa\" (or \"eager\") for this model",
]
# (review17) the two builds leave features out differently: FlashAttention-2's setup.py (v2.8.3) reads no such
# variable, its -DFLASHATTENTION_DISABLE_* flags are commented-out nvcc flags a custom build un-comments, and the
# release wheel has every feature; FlashAttention-3's hopper/setup.py reads FLASH_ATTENTION_DISABLE_<X>=TRUE
# (FLASH_ATTENTION_DISABLE_BACKWARD, _SPLIT, _PAGEDKV, _APPENDKV, _PACKGQA, _FP16, _FP8, _VARLEN, ...) at build time,
# and FA3 is built from hopper/, not installed by 'pip install flash-attn'
_BUILD_FIX = [
    "FlashAttention-2 (flash_attn): install the release, which has every feature: pip install flash-attn "
    "--no-build-isolation (a build without one came from a setup.py whose -DFLASHATTENTION_DISABLE_* nvcc flags were "
    "un-commented)",
    "FlashAttention-3 (flash_attn_interface, built from hopper/): rebuild it in hopper/ (python setup.py install) "
    "without the FLASH_ATTENTION_DISABLE_<feature>=TRUE variables its setup.py read at build time",
]
# What one message means and what to do: [(regex over the text, means, [fix])], from the condition in flash_api.cpp
MSG_FIX = [
    (r"^FlashAttention only supports Ampere GPUs or newer",
     "flash_api.cpp checks the current GPU's compute capability (cc_major >= 8) before every FlashAttention kernel: "
     "this GPU is older than Ampere (a V100 is 7.0, a T4 / RTX 20xx 7.5), and no FlashAttention-2 kernel is built for "
     "it.", _ARCH_FIX),
    (r"only supports? fp16(?:,| and) bf16",
     "flash_api.cpp accepts only half-precision q/k/v (fp16 or bf16; FlashAttention-3 also FP8 e4m3): the attention "
     "got another dtype, most often float32 from a model loaded without torch_dtype or run without autocast.",
     _DTYPE_FIX),
    (r"head dimension at most 256|head_size that is a multiple of 8|head_size should be a multiple of 8|"
     r"headdim not being a multiple of 32",
     "flash_api.cpp's kernels exist for head dimensions up to 256 in multiples of 8 (a build without the other sizes: "
     "multiples of 32): this model's head dimension is another.", _HEAD_FIX),
    (r"^This flash attention build does not support",
     "This FlashAttention was compiled without the feature the call asks for (FLASHATTENTION_DISABLE_* defines, "
     "used to shorten the build: FlashAttention-3's hopper/setup.py sets them from FLASH_ATTENTION_DISABLE_* "
     "variables).", _BUILD_FIX),
]


def _c_message(args):
    """The message TORCH_CHECK(cond, a, b, ...) prints: its arguments after the condition joined (a literal its text,
    anything else %s); None when it has no message or no literal."""
    parts, saw = [], False
    for arg in args[1:]:
        fmt = knowgen.c_format(arg, 0)
        if fmt is not None and re.fullmatch(r'(?:\s*"(?:[^"\\]|\\.)*")+\s*', arg):
            parts.append(fmt.replace("%", "%%"))
            saw = True
        else:
            parts.append("%s")
    return "".join(parts) if saw else None


def c_sites(path, src):
    """(line, format, (first, last) line span of the statement) of each TORCH_CHECK with a message of a C++ source."""
    for m in _CHECK.finditer(src):
        line_start = src.rfind("\n", 0, m.start()) + 1
        if src[line_start:m.start()].lstrip().startswith("#define"):
            continue  # the CHECK_* macros: their message is the caller's tensor name
        args = knowgen.call_args(src, m.end())
        if not args or len(args) < 2:
            continue
        fmt = _c_message(args)
        if fmt:
            end = knowgen.statement_end(src, m.start())
            yield src.count("\n", 0, m.start()) + 1, fmt, (src.count("\n", 0, line_start) + 1,
                                                          src.count("\n", 0, end) + 1)


def py_sites(path, src):
    """(line, format, span) of each raise / assert with a message of a Python source (knowgen.py_message)."""
    try:
        tree = ast.parse(textwrap.dedent(src))
    except SyntaxError:
        return
    for node in ast.walk(tree):
        level, arg = knowgen.py_message(node)
        if level != "raise":
            continue
        fmt = knowgen.py_format(arg)
        if fmt:
            yield node.lineno, " ".join(fmt.split()), (node.lineno, node.end_lineno)


def _sites_of(path, src):
    return (c_sites if path.endswith(".cpp") else py_sites)(path, src)


def build(files, version):
    sites, seen, ids = [], set(), set()
    for path, src in files:
        for line, fmt, _ in _sites_of(path, src):
            fmt = " ".join(fmt.split())
            if fmt in seen:
                continue
            seen.add(fmt)
            where = "%s:%d" % (path, line)
            site = {"id": knowgen.unique_id("flash_attn." + knowgen.slug(where), ids), "where": where, "text": fmt,
                    "level": "raise"}
            rx, literal = knowgen.printf_to_regex(re.sub(r"\.$", "", fmt))
            if not knowgen.unanchored(site, rx, literal, need=NEED):
                rule, family = knowgen.assign(RULES, site, {"where": where, "text": fmt, "level": "raise"})
                site.update({"re": rx, "family": family, "rule": rule or "no rule"})
                knowgen.give_fix(site, MSG_FIX, fmt)
            sites.append(site)
    return {"header": knowgen.header("Dao-AILab/flash-attention (https://github.com/Dao-AILab/flash-attention) %s"
                                     % ", ".join(FILES), version, GENERATOR,
                                     "TORCH_CHECK messages of the C++ entry points and raise/assert messages of the "
                                     "Python interfaces; families from the RULES table of the generator"),
            "sites": sites}


def from_repo(repo, rev):
    git = knowgen.git_reader(repo)
    return [(p, git("show", "%s:%s" % (rev, p))) for p in FILES], knowgen.revision(git, rev, describe=False)


def main(argv):
    return knowgen.sites_main(__doc__, argv, NAME, GENERATOR, build, MSG_FIX, SLICE, rev="v2.8.3",
                              spans=lambda p, src: [span for _, _, span in _sites_of(p, src)],
                              load=lambda a: from_repo(a.repo, a.rev))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Which vLLM release runs a model architecture with pipeline parallelism (computed fix `vllm_pp`).

vLLM refuses --pipeline-parallel-size > 1 for a model whose class does not implement SupportsPP
(vllm/config/model.py verify_with_parallel_config: "Pipeline parallelism is not supported for this model. Supported
models implement the `SupportsPP` interface."; before SupportsPP, vllm/config.py's _PP_SUPPORTED_MODELS: "Pipeline
parallelism is only supported for the following architectures"). Models gained it release by release;
generated/vllm_pp.json (tools/gen_vllm_pp.py, read with ast from the released wheels) says, per architecture, the
first release read in which it has it. The architecture comes from the log (vLLM prints the model config's
`architectures`: vllm/config/model.py's "Resolved architecture: %s", 0.11 and later) and the release from the engine's
first line (vllm/v1/engine/core.py "Initializing a V1 LLM engine (v%s) with config: ...", vllm/engine/llm_engine.py
"Initializing an LLM engine (v%s) ..."); a log that names none gets no computed line (the cause's own fix
says what to do).
"""

import re

_REFUSAL = re.compile(r"Pipeline parallelism is (?:not supported for this model|only supported for the following"
                      r" {1,2}architectures)")
# an architecture name as config.json spells it (a class name ending in a model head)
_ARCH = re.compile(r"\b([A-Z][A-Za-z0-9]{1,60}(?:ForCausalLM|ForConditionalGeneration|LMHeadModel|Model|"
                   r"ForSequenceClassification|ForEmbedding|ForRewardModel|ForTextEncoding))\b")
_VERSION = re.compile(r"(?:vLLM API server version |LLM engine \(v|\bvllm(?:==| version:? ))(\d{1,3}\.\d{1,3}\.\d{1,3}"
                      r"(?:\.post\d{1,3})?)", re.I)


def table():
    from gpudoctor.explain.knowledge import generated_table

    return generated_table("vllm_pp")


def _vt(v):
    return tuple(int(x) for x in re.findall(r"\d+", v or ""))[:4]


def compute(texts, tb=None):
    """(fix line, why) for the architecture the log names when vLLM refused pipeline parallelism for it, or None."""
    texts = [t[:4096] for t in texts]
    if not any(_REFUSAL.search(t) for t in texts):
        return None
    tb = table() if tb is None else tb
    archs = (tb or {}).get("architectures") or {}
    rel = (tb or {}).get("releases") or []
    # not from the refusal's own line: 0.5-0.6's lists the architectures that DO have it
    arch = next((m.group(1) for t in texts if not _REFUSAL.search(t) for m in _ARCH.finditer(t)
                 if m.group(1) in archs), None)
    if not arch or not rel:
        return None
    d = archs[arch]
    have = next((m.group(1) for t in texts for m in _VERSION.finditer(t)), None)
    yours = " (your vLLM is %s)" % have if have else ""
    read = "%s to %s" % (rel[0], rel[-1])
    if d.get("first_pp"):
        if have and _vt(have) >= _vt(d["first_pp"]):
            return None  # the table says this release has it: another cause (a custom model class, a patched build)
        before = (", %s is the last release read without it" % d["last_without"]) if d.get("last_without") else \
            (", the first release read that knows %s" % arch)
        return ("pip install -U 'vllm>=%s'   (pipeline parallelism for %s%s)" % (d["first_pp"], arch, yours),
                "generated/vllm_pp.json: %s implements SupportsPP from vLLM %s among the releases read (%s)%s"
                % (arch, d["first_pp"], read, before))
    return ("--pipeline-parallel-size 1 with --tensor-parallel-size over the GPUs (across nodes: a Ray cluster)   "
            "(%s has pipeline parallelism in no vLLM release read%s)" % (arch, yours),
            "generated/vllm_pp.json: no release read (%s) has SupportsPP for %s" % (read, arch))

from progs import *

def tr(port, script="train.py", pre="", extra=""):
    return "%storchrun --nproc-per-node 2 --master-port %d %s%s" % (pre, port, extra, script)

W = {"NCCL_DEBUG": "WARN"}
PY = "python train.py"

# eval-p34: trimmed from eval-p32's 35 scenarios. Dropped before running: mechanisms set P32 already has
# (u06 mesh names, w01-w04 + b01-b03, c02 tiktoken offline, h01 Lightning DDP healthy, h02 sentence-transformers
# pool) and mechanisms earlier planted sets already have (u04 cupy array on another device: plant22; u07
# barrier(device_ids=[0]): plant13; u08/c04 Lightning world size / SLURM mismatch; c03 torchvision weights
# offline: plant7; c05 CUTLASS gemm backend: plant24; h06 --tee/--log-dir healthy: p9).
def scenarios():
    S = {}
    def add(name, prog, cmd, env=None, limit=90, files=None, **kw):
        f = {"train.py": prog}
        f.update(files or {})
        S[name] = dict(prog=f, cmd=cmd, env=dict(env or {}), limit=limit, **kw)
    p = iter(range(31811, 31990))
    ST = {"prep.py": ST_PREP}
    add("u01", P_NMS, tr(next(p)), W)
    add("u02", P_ROIALIGN, tr(next(p)), W)
    add("u03", P_DECODE, tr(next(p)), W)
    add("u05", P_CP, tr(next(p)), W)
    add("u09", P_PL_CPULOG, PY, {}, limit=150)
    add("u10", P_ST_RANKDEV, "python prep.py && " + tr(next(p)), W, files=ST, limit=120)
    add("c01", P_ALLOC, tr(next(p)), dict(W, PYTORCH_CUDA_ALLOC_CONF="expandable_segment:True"))
    add("c06", P_COMPILE_TRAIN, PY, dict(CUDA_VISIBLE_DEVICES="1", TORCHINDUCTOR_FREEZING="1"), limit=150)
    add("h03", P_TV_OK, tr(next(p)), W, limit=150)
    add("h04", P_CP, tr(next(p)), dict(W, SEQ="4096"))
    add("h05", P_CP_HEALTHY, tr(next(p)), W)
    add("t00", P_BW, tr(next(p)), W, seq=True, limit=60)
    add("t01", P_BW, tr(next(p)), dict(W, NCCL_P2P_USE_CUDA_MEMCPY="1"), seq=True, limit=60)
    add("t02", P_BW, tr(next(p)), dict(W, NCCL_P2P_READ_ENABLE="0"), seq=True, limit=60)
    add("t03", P_BW, tr(next(p)), dict(W, NCCL_CGA_CLUSTER_SIZE="9"), seq=True, limit=60)
    add("t04", P_BW, tr(next(p)), dict(W, NCCL_LAUNCH_MODE="GROUP"), seq=True, limit=60)
    add("t05", P_BW, tr(next(p)), W, seq=True, limit=60)
    return S

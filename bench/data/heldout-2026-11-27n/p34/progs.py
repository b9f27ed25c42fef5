HDR = r'''
import datetime
import os
import time
import torch
import torch.distributed as dist
'''
INIT = r'''
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
rank, world = dist.get_rank(), dist.get_world_size()
'''

P_NMS = HDR + r'''
import torchvision
from torchvision.ops import batched_nms
''' + INIT + r'''
torch.manual_seed(rank)
# detection head output: boxes predicted on GPU, scores computed by the calibration step
boxes = torch.rand(500, 4, device="cuda") * 300
boxes[:, 2:] += boxes[:, :2]
logits = torch.randn(500, 3)
scores, labels = logits.softmax(-1).max(-1)
keep = batched_nms(boxes, scores, labels, iou_threshold=0.5)
print("rank", rank, "kept", keep.numel(), flush=True)
dist.destroy_process_group()
'''

P_ROIALIGN = HDR + r'''
import torchvision
from torchvision.ops import MultiScaleRoIAlign, roi_align
''' + INIT + r'''
backbone = torch.nn.Conv2d(3, 64, 3, stride=4, padding=1).cuda().half()
img = torch.randn(2, 3, 256, 256, device="cuda").half()
feat = backbone(img)
rois = torch.tensor([[0, 10., 10., 100., 100.], [1, 20., 30., 200., 220.]], device="cuda")
pooled = roi_align(feat, rois, output_size=(7, 7), spatial_scale=0.25, sampling_ratio=2)
print("rank", rank, pooled.shape, flush=True)
dist.destroy_process_group()
'''

P_DECODE = HDR + r'''
import torchvision
from torchvision.io import decode_jpeg, encode_jpeg
''' + INIT + r'''
imgs = [(torch.rand(3, 224, 224) * 255).to(torch.uint8) for _ in range(4)]
data = [encode_jpeg(im).cuda(non_blocking=True) for im in imgs]   # move the bytes to the GPU for nvjpeg
decoded = decode_jpeg(data, device="cuda")
print("rank", rank, [d.shape for d in decoded], flush=True)
dist.destroy_process_group()
'''

P_CUPY = HDR + r'''
import cupy as cp
import numpy as np
# per-feature normalisation table, built once at import
FEAT_SCALE = cp.asarray(np.linspace(0.5, 1.5, 256, dtype=np.float32))
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
rank = dist.get_rank()
act = torch.randn(1024, 256, device="cuda")
a = cp.from_dlpack(act)
out = (a - a.mean(axis=0)) * FEAT_SCALE
res = torch.from_dlpack(out)
dist.all_reduce(res)
print("rank", rank, float(res.abs().mean()), flush=True)
dist.destroy_process_group()
'''

P_CP_HEALTHY = HDR + r'''
import cupy as cp
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
cp.cuda.Device(local).use()
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
rank = dist.get_rank()
for step in range(5):
    act = torch.randn(1024, 256, device="cuda")
    a = cp.from_dlpack(act)
    out = (a - a.mean(axis=0)) / (a.std(axis=0) + 1e-6)
    res = torch.from_dlpack(out)
    dist.all_reduce(res)
    print(f"rank {rank} step {step} mean|x| {float(res.abs().mean()):.4f}", flush=True)
dist.destroy_process_group()
'''

P_CP = HDR + r'''
import torch.nn.functional as F
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.experimental import context_parallel
from torch.nn.attention import SDPBackend, sdpa_kernel
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
mesh = init_device_mesh("cuda", (2,), mesh_dim_names=("cp",))
SEQ = int(os.environ.get("SEQ", "4098"))
torch.manual_seed(0)
q = torch.randn(2, 8, SEQ, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
k = torch.randn(2, 8, SEQ, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
v = torch.randn(2, 8, SEQ, 64, device="cuda", dtype=torch.bfloat16, requires_grad=True)
with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    with context_parallel(mesh, buffers=[q, k, v], buffer_seq_dims=[2, 2, 2]):
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        out.sum().backward()
print("rank", dist.get_rank(), "out", tuple(out.shape), "grad", float(q.grad.float().abs().sum()), flush=True)
dist.destroy_process_group()
'''

P_MESHNAMES = HDR + r'''
from torch.distributed.device_mesh import init_device_mesh
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
mesh = init_device_mesh("cuda", (1, 2), mesh_dim_names=("dp", "dp"))
print("mesh", mesh, flush=True)
dist.destroy_process_group()
'''

P_BARRIER0 = HDR + r'''
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=30))
rank = dist.get_rank()
if rank == 0:
    os.makedirs("shards", exist_ok=True)
dist.barrier(device_ids=[0])
x = torch.ones(1, device="cuda") * (rank + 1)
dist.all_reduce(x)
print("rank", rank, "sum", x.item(), flush=True)
dist.destroy_process_group()
'''

P_FSDP_SYNC = HDR + r'''
from torch.distributed.fsdp import fully_shard
''' + INIT + r'''
torch.manual_seed(0)
model = torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.Linear(512, 512), torch.nn.GELU()) for _ in range(4)],
                            torch.nn.Linear(512, 1)).cuda()
for blk in model[:4]:
    fully_shard(blk)
fully_shard(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
ACC = 4
REENABLE = os.environ.get("REENABLE") == "1"
g = torch.Generator(device="cuda").manual_seed(1234 + rank)
w_true = torch.randn(512, 1, device="cuda", generator=torch.Generator(device="cuda").manual_seed(7))
for step in range(40):
    for micro in range(ACC):
        last = micro == ACC - 1
        # skip the gradient reduce-scatter for all but the last micro-batch
        model.set_requires_gradient_sync(last if REENABLE else False)
        x = torch.randn(64, 512, device="cuda", generator=g)
        loss = torch.nn.functional.mse_loss(model(x), x @ w_true) / ACC
        loss.backward()
    opt.step(); opt.zero_grad()
    l = loss.detach() * ACC
    if step % 10 == 9:
        print(f"rank {rank} step {step+1} loss {l.item():.4f}", flush=True)
# evaluate on the SAME batch on every rank
xe = torch.randn(256, 512, device="cuda", generator=torch.Generator(device="cuda").manual_seed(99))
with torch.no_grad():
    ev = torch.nn.functional.mse_loss(model(xe), xe @ w_true)
print(f"rank {rank} eval loss on shared batch {ev.item():.4f}", flush=True)
dist.destroy_process_group()
'''

P_INITSYNC = HDR + r'''
from torch.nn.parallel import DistributedDataParallel as DDP
''' + INIT + r'''
torch.manual_seed(int(os.environ.get("SEED_BASE", "0")) + rank)   # per-rank seed for data augmentation
net = torch.nn.Sequential(torch.nn.Linear(128, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10)).cuda()
kw = {} if os.environ.get("INIT_SYNC", "0") == "1" else {"init_sync": False}
model = DDP(net, device_ids=[local], **kw)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
gen = torch.Generator(device="cuda").manual_seed(5)
for step in range(30):
    x = torch.randn(64, 128, device="cuda", generator=gen)
    y = (x[:, :10].argmax(1))
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 10 == 9:
        print(f"rank {rank} step {step+1} loss {loss.item():.4f}", flush=True)
chk = torch.tensor([sum(float(p.double().sum()) for p in model.parameters())], device="cuda", dtype=torch.float64)
print(f"rank {rank} param checksum {chk.item():.6f}", flush=True)
dist.destroy_process_group()
'''

P_BCAST = HDR + r'''
''' + INIT + r'''
torch.manual_seed(rank)
w = torch.randn(1000, device="cuda")
# make sure every rank starts from the same weights as rank 0
dist.broadcast(w, src=rank)
s = w.sum().item()
print(f"rank {rank} weight sum after broadcast {s:.4f}", flush=True)
allw = [torch.empty_like(w) for _ in range(world)]
dist.all_gather(allw, w)
print(f"rank {rank} max diff between ranks {max(float((a - allw[0]).abs().max()) for a in allw):.4f}", flush=True)
dist.destroy_process_group()
'''

P_BW = HDR + INIT + r'''
x = torch.randn(256 * 1024 * 1024 // 4, device="cuda")
small = torch.randn(4096, device="cuda")
for _ in range(5):
    dist.all_reduce(x)
torch.cuda.synchronize()
t0 = time.time()
for _ in range(20):
    dist.all_reduce(x)
torch.cuda.synchronize()
dt = (time.time() - t0) / 20
t1 = time.time()
for _ in range(2000):
    dist.all_reduce(small)
torch.cuda.synchronize()
ds = (time.time() - t1) / 2000
if rank == 0:
    print(f"all_reduce 256 MiB: {dt*1e3:.2f} ms/iter, algbw {x.numel()*4/dt/1e9:.1f} GB/s; 16 KiB: {ds*1e6:.1f} us/iter", flush=True)
dist.destroy_process_group()
'''

P_DDP_OK = HDR + r'''
from torch.nn.parallel import DistributedDataParallel as DDP
''' + INIT + r'''
model = DDP(torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10)).cuda(), device_ids=[local])
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(20):
    x = torch.randn(64, 256, device="cuda"); y = torch.randint(0, 10, (64,), device="cuda")
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0 and step % 5 == 4:
        print(f"step {step+1} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

P_COMPILE_TRAIN = r'''
import os, time, torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(1024, 2048), torch.nn.GELU(), torch.nn.Linear(2048, 1024)).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
cm = torch.compile(model, mode=os.environ.get("MODE", "default"))
t0 = time.time()
for step in range(10):
    x = torch.randn(256, 1024, device="cuda")
    loss = cm(x).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    if step in (0, 9):
        torch.cuda.synchronize(); print(f"step {step} loss {loss.item():.5f} t={time.time()-t0:.1f}s", flush=True)
'''

P_ALLOC = HDR + INIT + r'''
x = torch.randn(4096, 4096, device="cuda")
dist.all_reduce(x)
print("rank", rank, "ok", float(x[0, 0]), flush=True)
dist.destroy_process_group()
'''

P_TIKTOKEN = r'''
import os
import tiktoken
import torch
enc = tiktoken.get_encoding("cl100k_base")
ids = enc.encode("hello world, tokenising the shard")
print(len(ids))
'''

P_TVWEIGHTS = HDR + r'''
import torchvision
''' + INIT + r'''
model = torchvision.models.resnet50(weights="IMAGENET1K_V2").cuda()
model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local])
print("rank", rank, "ready", flush=True)
dist.destroy_process_group()
'''

P_TV_OK = HDR + r'''
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
from torchvision import datasets, transforms
''' + INIT + r'''
ds = datasets.FakeData(size=512, image_size=(3, 96, 96), num_classes=10, transform=transforms.ToTensor())
sampler = DistributedSampler(ds, shuffle=True)
dl = DataLoader(ds, batch_size=32, sampler=sampler, num_workers=2, pin_memory=True)
net = torchvision.models.resnet18(num_classes=10)
net = torch.nn.SyncBatchNorm.convert_sync_batchnorm(net).cuda().to(memory_format=torch.channels_last)
model = DDP(net, device_ids=[local])
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for epoch in range(2):
    sampler.set_epoch(epoch)
    for i, (x, y) in enumerate(dl):
        x = x.cuda(non_blocking=True).to(memory_format=torch.channels_last); y = y.cuda(non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True); loss.backward(); opt.step()
    if rank == 0:
        print(f"epoch {epoch} iters {i+1} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

PL_MOD = r'''
import os
import torch
import pytorch_lightning as pl
from torch.utils.data import DataLoader, TensorDataset


class LitReg(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))

    def training_step(self, batch, idx):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.net(x), y)
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch, idx):
        x, y = batch
        err = (self.net(x) - y).abs().mean()
        self.log("val_mae", VAL_LOG(err), **VAL_KW)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


def loaders():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2048, 32, generator=g); y = x[:, :1] * 2 + 0.1
    return (DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True),
            DataLoader(TensorDataset(x[:256], y[:256]), batch_size=64))
'''

P_PL_OK = PL_MOD.replace("VAL_LOG(err)", "err").replace("**VAL_KW", "sync_dist=False") + r'''

if __name__ == "__main__":
    tr, va = loaders()
    trainer = pl.Trainer(accelerator="gpu", devices=2, strategy="ddp", max_epochs=2, logger=False,
                         enable_checkpointing=False)
    trainer.fit(LitReg(), tr, va)
'''

P_PL_DEV1 = PL_MOD.replace("VAL_LOG(err)", "err").replace("**VAL_KW", "sync_dist=True") + r'''

if __name__ == "__main__":
    tr, va = loaders()
    trainer = pl.Trainer(accelerator="gpu", devices=1, strategy="ddp", max_epochs=1, logger=False,
                         enable_checkpointing=False)
    trainer.fit(LitReg(), tr, va)
'''

P_PL_CPULOG = PL_MOD.replace("VAL_LOG(err)", "torch.tensor(err.item())").replace("**VAL_KW", "sync_dist=True, reduce_fx='max'") + r'''

if __name__ == "__main__":
    tr, va = loaders()
    trainer = pl.Trainer(accelerator="gpu", devices=2, strategy="ddp", max_epochs=1, logger=False,
                         enable_checkpointing=False)
    trainer.fit(LitReg(), tr, va)
'''

P_PL_SLURM = P_PL_OK

ST_PREP = r'''
import os
from transformers import BertConfig, BertModel, BertTokenizerFast
words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + "the a of to and in is for on with that this model text gpu data train shard node rank hello world".split()
os.makedirs("encoder", exist_ok=True)
open("encoder/vocab.txt", "w").write("\n".join(words) + "\n")
BertTokenizerFast("encoder/vocab.txt").save_pretrained("encoder")
BertModel(BertConfig(vocab_size=len(words), hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=128)).save_pretrained("encoder")
'''

P_ST_OK = r'''
import time
from sentence_transformers import SentenceTransformer, models

if __name__ == "__main__":
    word = models.Transformer("encoder", max_seq_length=64)
    pool = models.Pooling(word.get_word_embedding_dimension(), pooling_mode="mean")
    model = SentenceTransformer(modules=[word, pool])
    sentences = ["the model is training on shard %d of the data" % i for i in range(20000)]
    t0 = time.time()
    pool_ = model.start_multi_process_pool(target_devices=["cuda:0", "cuda:1"])
    emb = model.encode(sentences, pool=pool_, batch_size=256, chunk_size=2000)
    model.stop_multi_process_pool(pool_)
    print("embeddings", emb.shape, "in %.1f s" % (time.time() - t0), flush=True)
'''

P_ST_RANKDEV = HDR + r'''
from sentence_transformers import SentenceTransformer, models
local = int(os.environ["LOCAL_RANK"])
word = models.Transformer("encoder", max_seq_length=64)
pool = models.Pooling(word.get_word_embedding_dimension(), pooling_mode="mean")
model = SentenceTransformer(modules=[word, pool], device="cuda")
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
rank, world = dist.get_rank(), dist.get_world_size()
sentences = ["the model is training on shard %d of the data" % i for i in range(4096)]
mine = sentences[rank::world]
emb = model.encode(mine, batch_size=256, convert_to_tensor=True)
print("rank", rank, "embeddings on", emb.device, flush=True)
gathered = [torch.empty_like(emb) for _ in range(world)]
dist.all_gather(gathered, emb)
print("rank", rank, "gathered", sum(g.shape[0] for g in gathered), flush=True)
dist.destroy_process_group()
'''

HDR = r'''
import datetime
import os
import time
import torch
import torch.distributed as dist
'''
INIT = r'''
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
'''
P_MESH = HDR + r'''
from torch.distributed.device_mesh import init_device_mesh
mesh = init_device_mesh("cpu", (1, 2), mesh_dim_names=("dp", "dp"))
print("mesh", mesh, flush=True)
dist.destroy_process_group()
'''
P_INITSYNC = HDR + r'''
from torch.nn.parallel import DistributedDataParallel as DDP
''' + INIT + r'''
torch.manual_seed(rank)   # per-rank seed for data augmentation
net = torch.nn.Sequential(torch.nn.Linear(128, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
kw = {} if os.environ.get("INIT_SYNC", "0") == "1" else {"init_sync": False}
model = DDP(net, **kw)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
gen = torch.Generator().manual_seed(5)
for step in range(30):
    x = torch.randn(64, 128, generator=gen)
    y = x[:, :10].argmax(1)
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 10 == 9:
        print(f"rank {rank} step {step+1} loss {loss.item():.4f}", flush=True)
chk = sum(float(p.detach().double().sum()) for p in model.parameters())
print(f"rank {rank} param checksum {chk:.6f}", flush=True)
dist.destroy_process_group()
'''
P_BCAST = HDR + INIT + r'''
torch.manual_seed(rank)
w = torch.randn(1000)
# make sure every rank starts from the same weights as rank 0
dist.broadcast(w, src=rank)
print(f"rank {rank} weight sum after broadcast {w.sum().item():.4f}", flush=True)
allw = [torch.empty_like(w) for _ in range(world)]
dist.all_gather(allw, w)
print(f"rank {rank} max diff between ranks {max(float((a - allw[0]).abs().max()) for a in allw):.4f}", flush=True)
dist.destroy_process_group()
'''
P_FSDP_SYNC = HDR + r'''
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
''' + INIT + r'''
mesh = init_device_mesh("cpu", (world,))
torch.manual_seed(0)
model = torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.GELU()) for _ in range(3)],
                            torch.nn.Linear(256, 1))
for blk in model[:3]:
    fully_shard(blk, mesh=mesh)
fully_shard(model, mesh=mesh)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
ACC = 4
REENABLE = os.environ.get("REENABLE") == "1"
g = torch.Generator().manual_seed(1234 + rank)
w_true = torch.randn(256, 1, generator=torch.Generator().manual_seed(7))
for step in range(30):
    for micro in range(ACC):
        last = micro == ACC - 1
        # skip the gradient reduce-scatter for all but the last micro-batch
        model.set_requires_gradient_sync(last if REENABLE else False)
        x = torch.randn(64, 256, generator=g)
        loss = torch.nn.functional.mse_loss(model(x), x @ w_true) / ACC
        loss.backward()
    opt.step(); opt.zero_grad()
    if step % 10 == 9:
        print(f"rank {rank} step {step+1} loss {loss.item()*ACC:.4f}", flush=True)
xe = torch.randn(256, 256, generator=torch.Generator().manual_seed(99))
with torch.no_grad():
    ev = torch.nn.functional.mse_loss(model(xe), xe @ w_true)
print(f"rank {rank} eval loss on shared batch {ev.item():.4f}", flush=True)
dist.destroy_process_group()
'''
P_DDP_OK = HDR + r'''
from torch.nn.parallel import DistributedDataParallel as DDP
''' + INIT + r'''
model = DDP(torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10)))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(20):
    x = torch.randn(64, 256); y = torch.randint(0, 10, (64,))
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0 and step % 5 == 4:
        print(f"step {step+1} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''
P_A2A = HDR + INIT + r'''
# MoE token dispatch: send each expert's tokens to the rank that owns it
tokens = torch.arange(8, dtype=torch.float32).reshape(4, 2) + 10 * rank
send = list(tokens.chunk(world))
recv = [torch.empty_like(t) for t in send]
dist.all_to_all(recv, send)
print("rank", rank, "received", torch.cat(recv).tolist(), flush=True)
dist.destroy_process_group()
'''
P_RS = HDR + INIT + r'''
grads = torch.ones(world * 4) * (rank + 1)
out = torch.empty(4)
dist.reduce_scatter(out, list(grads.chunk(world)))
print("rank", rank, "shard", out.tolist(), flush=True)
dist.destroy_process_group()
'''
P_CKSEQ = r'''
import torch
from torch.utils.checkpoint import checkpoint_sequential
model = torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.Linear(512, 512), torch.nn.GELU()) for _ in range(8)])
x = torch.randn(32, 512)
out = checkpoint_sequential(model, 4, x)
out.sum().backward()
print("grad norm", float(model[0][0].weight.grad.norm()), flush=True)
'''
P_REPL = HDR + r'''
from torch.distributed._composable import replicate
from torch.distributed.fsdp import fully_shard
''' + INIT + r'''
model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))
fully_shard(model[0])
replicate(model)
out = model(torch.randn(4, 64))
out.sum().backward()
print("rank", rank, "ok", flush=True)
dist.destroy_process_group()
'''
P_TIKTOKEN = r'''
import tiktoken
enc = tiktoken.get_encoding("cl100k_base")
ids = enc.encode("hello world, tokenising the shard")
print(len(ids))
'''
P_OMP0 = HDR + INIT + r'''
x = torch.randn(512, 512)
y = x @ x
dist.all_reduce(y)
print("rank", rank, "threads", torch.get_num_threads(), float(y[0, 0]), flush=True)
dist.destroy_process_group()
'''
PL_OK = r'''
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
        self.log("val_mae", (self.net(x) - y).abs().mean())

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


if __name__ == "__main__":
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2048, 32, generator=g); y = x[:, :1] * 2 + 0.1
    tr = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True)
    va = DataLoader(TensorDataset(x[:256], y[:256]), batch_size=64)
    trainer = pl.Trainer(accelerator="cpu", devices=2, strategy="ddp", max_epochs=2, logger=False,
                         enable_checkpointing=False)
    trainer.fit(LitReg(), tr, va)
'''
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
    model = SentenceTransformer(modules=[word, pool], device="cpu")
    sentences = ["the model is training on shard %d of the data" % i for i in range(4000)]
    t0 = time.time()
    pool_ = model.start_multi_process_pool(target_devices=["cpu", "cpu"])
    emb = model.encode(sentences, pool=pool_, batch_size=256, chunk_size=1000)
    model.stop_multi_process_pool(pool_)
    print("embeddings", emb.shape, "in %.1f s" % (time.time() - t0), flush=True)
'''
P_TAG = HDR + INIT + r'''
# pipeline stage hand-off: activations with tag=step, labels with tag=1000+step
for step in range(3):
    if rank == 0:
        act = torch.full((4, 8), float(step))
        lab = torch.full((4,), float(step))
        dist.send(act, dst=1, tag=step)
        dist.send(lab, dst=1, tag=1000 + step)
    else:
        lab = torch.empty(4); act = torch.empty(4, 8)
        dist.recv(act, src=0, tag=1000 + step)
        dist.recv(lab, src=0, tag=step)
    print(f"rank {rank} step {step} done", flush=True)
dist.destroy_process_group()
'''
P_ST_OLD = r'''
import time
from sentence_transformers import SentenceTransformer, models

if __name__ == "__main__":
    word = models.Transformer("encoder", max_seq_length=64)
    pool = models.Pooling(word.get_word_embedding_dimension(), pooling_mode="mean")
    model = SentenceTransformer(modules=[word, pool], device="cpu")
    sentences = ["the model is training on shard %d of the data" % i for i in range(4000)]
    pool_ = model.start_multi_process_pool(["cpu", "cpu"])
    emb = model.encode_multi_process(sentences, pool_, batch_size=256, chunk_size=1000)
    model.stop_multi_process_pool(pool_)
    print("embeddings", emb.shape, flush=True)
'''
PL_R0 = PL_OK.replace('self.log("val_mae", (self.net(x) - y).abs().mean())',
                      'self.log("val_mae", (self.net(x) - y).abs().mean(), rank_zero_only=True)').replace(
    'trainer = pl.Trainer(accelerator="cpu", devices=2, strategy="ddp", max_epochs=2, logger=False,\n                         enable_checkpointing=False)',
    'ckpt = pl.callbacks.ModelCheckpoint(dirpath="ckpt", monitor="val_mae", mode="min", save_top_k=1)\n'
    '    trainer = pl.Trainer(accelerator="cpu", devices=2, strategy="ddp", max_epochs=2, logger=False,\n'
    '                         callbacks=[ckpt])')
assert "rank_zero_only=True" in PL_R0 and "ModelCheckpoint" in PL_R0
P_INTEROP = HDR + r'''
from torch.nn.parallel import DistributedDataParallel as DDP
''' + INIT + r'''
model = DDP(torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10)))
warm = model(torch.randn(8, 256))
# tune CPU threading per rank now that we know the world size
threads = max(1, (os.cpu_count() or 2) // world)
torch.set_num_threads(threads)
torch.set_num_interop_threads(threads)
print("rank", rank, "threads", threads, flush=True)
dist.destroy_process_group()
'''
P_INTEROP2 = HDR + r'''
def setup_threads(n):
    torch.set_num_threads(n)
    torch.set_num_interop_threads(n)
''' + INIT + r'''
setup_threads(1)
model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10))
model = torch.nn.parallel.DistributedDataParallel(model)
# evaluation helper re-tunes threads for the larger eval batch
def evaluate(m):
    setup_threads(2)
    with torch.no_grad():
        return m(torch.randn(512, 256)).mean().item()
print("rank", rank, "eval", evaluate(model), flush=True)
dist.destroy_process_group()
'''
P_BF16 = HDR + INIT + r'''
with torch.autocast("cpu", dtype=torch.bfloat16):
    h = torch.nn.Linear(64, 64)(torch.randn(8, 64))
print("rank", rank, "dtype", h.dtype, flush=True)
dist.all_reduce(h)
print("rank", rank, "sum", float(h.float().sum()), flush=True)
h16 = h.to(torch.float16)
dist.all_reduce(h16)
print("rank", rank, "fp16 ok", flush=True)
dist.destroy_process_group()
'''
PL_BEST = PL_OK.replace('    def configure_optimizers(self):',
                        '    def test_step(self, batch, idx):\n        x, y = batch\n        self.log("test_mae", (self.net(x) - y).abs().mean(), sync_dist=True)\n\n    def configure_optimizers(self):').replace(
    '    trainer.fit(LitReg(), tr, va)',
    '    trainer.fit(LitReg(), tr, va)\n    trainer.test(dataloaders=va, ckpt_path="best")')
assert 'ckpt_path="best"' in PL_BEST and "test_step" in PL_BEST

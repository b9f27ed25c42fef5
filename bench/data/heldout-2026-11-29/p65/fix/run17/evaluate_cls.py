import os
import torch
import torch.distributed as dist
import evaluate
from datasets import load_dataset
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from transformers import AutoTokenizer, AutoModelForSequenceClassification, DataCollatorWithPadding


def main():
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    tok = AutoTokenizer.from_pretrained("assets/tok")
    model = AutoModelForSequenceClassification.from_pretrained("assets/gpt2-tiny", num_labels=2).eval()
    ds = load_dataset("json", data_files="assets/data/validation.jsonl", split="train")
    ds = ds.map(lambda b: tok(b["text"], truncation=True, max_length=64), batched=True, remove_columns=["text"])
    dl = DataLoader(ds, batch_size=16, sampler=DistributedSampler(ds, shuffle=False), collate_fn=DataCollatorWithPadding(tok))
    metric = evaluate.load("metrics/seq_accuracy", num_process=world, process_id=rank, experiment_id="val-ep3", timeout=60,
                          cache_dir="/tmp/heldout-p65/fix/run17/shared/metrics")  # on the shared FS, seen by all nodes
    for batch in dl:
        with torch.no_grad():
            preds = model(**batch).logits.argmax(-1)
        metric.add_batch(predictions=preds, references=batch["labels"])
    print(f"[rank {rank}] scored {len(dl)} batches, computing", flush=True)
    res = metric.compute()
    if rank == 0:
        print("validation:", res)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

import json, sys
from datasets import load_dataset
from transformers import Trainer, TrainingArguments, DataCollatorWithPadding
from hf_common import tiny_model, tokenizer

cfg = json.load(open(sys.argv[1]))
tok = tokenizer()
ds = load_dataset("json", data_files="reviews.jsonl", split="train").train_test_split(test_size=0.2, seed=0)
if cfg.get("label_map"):
    ds = ds.map(lambda ex: {"label": cfg["label_map"][ex["label"]]})
ds = ds.map(lambda b: tok(b["text"], truncation=True, max_length=32), batched=True, remove_columns=["text"])
args = TrainingArguments(output_dir="out", per_device_train_batch_size=16, num_train_epochs=1, logging_steps=5,
                         use_cpu=True, **cfg.get("args", {}))
trainer = Trainer(model=tiny_model(), args=args, train_dataset=ds["train"], eval_dataset=ds["test"],
                  data_collator=DataCollatorWithPadding(tok), processing_class=tok)
trainer.train()
print(trainer.evaluate())

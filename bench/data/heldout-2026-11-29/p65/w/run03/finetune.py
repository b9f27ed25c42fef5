import torch
from torch.utils.data import DataLoader
from accelerate import Accelerator
from datasets import load_dataset
from transformers import AutoTokenizer, AutoModelForSequenceClassification, DataCollatorWithPadding

ID2LABEL = {0: "other", 1: "good"}


def main():
    accelerator = Accelerator(cpu=not torch.cuda.is_available(), gradient_accumulation_steps=2)
    tok = AutoTokenizer.from_pretrained("assets/tok")
    model = AutoModelForSequenceClassification.from_pretrained("assets/gpt2-tiny", num_labels=2, id2label=ID2LABEL)
    raw = load_dataset("json", data_files={"train": "assets/data/train.jsonl", "validation": "assets/data/validation.jsonl"})
    with accelerator.main_process_first():
        ds = raw.map(lambda b: tok(b["text"], truncation=True, max_length=64), batched=True, remove_columns=["text"])
    collate = DataCollatorWithPadding(tok)
    train_dl = DataLoader(ds["train"], batch_size=8, shuffle=True, collate_fn=collate)
    eval_dl = DataLoader(ds["validation"], batch_size=16, collate_fn=collate)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    model, opt, train_dl, eval_dl = accelerator.prepare(model, opt, train_dl, eval_dl)
    accelerator.print(f"processes={accelerator.num_processes} train_batches/rank={len(train_dl)}")
    for epoch in range(2):
        model.train()
        for step, batch in enumerate(train_dl):
            with accelerator.accumulate(model):
                out = model(**batch)
                accelerator.backward(out.loss)
                opt.step()
                opt.zero_grad()
            if step % 10 == 0:
                accelerator.print(f"epoch {epoch} step {step} loss {out.loss.item():.4f}")
        model.eval()
        names, refs = [], []
        for batch in eval_dl:
            with torch.no_grad():
                logits = model(**batch).logits
            names += [ID2LABEL[p] for p in logits.argmax(-1).tolist()]
            refs += [ID2LABEL[r] for r in batch["labels"].tolist()]
        names, refs = accelerator.gather(names), accelerator.gather(refs)
        acc = sum(a == b for a, b in zip(names, refs)) / len(refs)
        accelerator.print(f"epoch {epoch} eval accuracy {acc:.3f} on {len(refs)} examples")
    accelerator.wait_for_everyone()
    accelerator.unwrap_model(model).save_pretrained("out", is_main_process=accelerator.is_main_process, save_function=accelerator.save)


if __name__ == "__main__":
    main()

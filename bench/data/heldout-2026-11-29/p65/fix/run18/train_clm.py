import sys
from dataclasses import dataclass, field
from datasets import load_dataset
from transformers import (AutoTokenizer, AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments,
                          DataCollatorForLanguageModeling)


@dataclass
class ScriptArgs:
    model_path: str = field(default="assets/gpt2-tiny")
    tokenizer_path: str = field(default="assets/tok")
    data_dir: str = field(default="assets/data")
    block_size: int = field(default=32)


def main():
    parser = HfArgumentParser((ScriptArgs, TrainingArguments))
    args, targs = parser.parse_args_into_dataclasses()
    tok = AutoTokenizer.from_pretrained(args.tokenizer_path)
    model = AutoModelForCausalLM.from_pretrained(args.model_path)
    raw = load_dataset("json", data_files={"train": f"{args.data_dir}/train.jsonl", "validation": f"{args.data_dir}/validation.jsonl"})
    with targs.main_process_first(desc="tokenize"):
        tokd = raw.map(lambda b: tok(b["text"]), batched=True, remove_columns=raw["train"].column_names)

    def group(b):
        cat = {k: sum(b[k], []) for k in b}
        n = (len(cat["input_ids"]) // args.block_size) * args.block_size
        return {k: [v[i:i + args.block_size] for i in range(0, n, args.block_size)] for k, v in cat.items()}

    with targs.main_process_first(desc="group"):
        lm = tokd.map(group, batched=True)
    trainer = Trainer(model=model, args=targs, train_dataset=lm["train"], eval_dataset=lm["validation"],
                      data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
    trainer.train(resume_from_checkpoint=targs.resume_from_checkpoint)
    print(trainer.evaluate())
    trainer.save_model()


if __name__ == "__main__":
    main()

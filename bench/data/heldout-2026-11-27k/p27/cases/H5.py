import torch, warnings
from transformers import BertConfig, BertForSequenceClassification
from peft import LoraConfig, get_peft_model
from datasets import Dataset
cfg = BertConfig(vocab_size=2000, hidden_size=128, num_hidden_layers=2, num_attention_heads=4, intermediate_size=256, num_labels=3)
model = get_peft_model(BertForSequenceClassification(cfg), LoraConfig(r=8, lora_alpha=16, target_modules=["query", "value"], task_type="SEQ_CLS"))
model.print_trainable_parameters()
ds = Dataset.from_dict({"input_ids": torch.randint(0, 2000, (64, 24)).tolist(), "labels": torch.randint(0, 3, (64,)).tolist()}).with_format("torch")
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], 1e-3)
for ep in range(2):
    for i in range(0, 64, 16):
        b = ds[i:i+16]; out = model(**b); out.loss.backward(); opt.step(); opt.zero_grad()
    print("epoch", ep, "loss", round(out.loss.item(), 4))
model.save_pretrained("adapter_out"); print("saved adapter")

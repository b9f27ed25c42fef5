import torch
from transformers import BertConfig, BertForSequenceClassification
from peft import LoraConfig, get_peft_model

cfg = BertConfig(vocab_size=2000, hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
                 intermediate_size=256, num_labels=3)
model = BertForSequenceClassification(cfg)
lora = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.05,
                  target_modules=["q_proj", "v_proj"], task_type="SEQ_CLS")
model = get_peft_model(model, lora)
model.print_trainable_parameters()
x = torch.randint(0, 2000, (4, 32))
print(model(input_ids=x).logits.shape)

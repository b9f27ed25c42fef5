# builds a local tokenizer (trained here, no downloads), a tiny GPT-2 checkpoint and a text/label corpus
import json, random, os
from tokenizers import Tokenizer, models, trainers, pre_tokenizers, decoders
from transformers import PreTrainedTokenizerFast, GPT2Config, GPT2LMHeadModel
random.seed(0)
words = "the a model gpu node rank batch loss step train data token layer cluster job fast slow good bad run check sync grad".split()
os.makedirs("assets/data", exist_ok=True)
rows = []
for i in range(400):
    n = random.randint(5, 40)
    t = " ".join(random.choice(words) for _ in range(n))
    rows.append({"text": t, "label": int("good" in t.split()[:5])})
for split, part in (("train", rows[:320]), ("validation", rows[320:])):
    with open(f"assets/data/{split}.jsonl", "w") as f:
        for r in part: f.write(json.dumps(r) + "\n")
tok = Tokenizer(models.BPE(unk_token="<unk>"))
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
tok.decoder = decoders.ByteLevel()
tok.train_from_iterator([r["text"] for r in rows], trainers.BpeTrainer(vocab_size=300, special_tokens=["<unk>", "<pad>", "<eos>"]))
hf = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>", eos_token="<eos>", bos_token="<eos>")
hf.save_pretrained("assets/tok")
cfg = GPT2Config(vocab_size=len(hf), n_positions=64, n_embd=32, n_layer=2, n_head=2, pad_token_id=hf.pad_token_id,
                 bos_token_id=hf.eos_token_id, eos_token_id=hf.eos_token_id)
GPT2LMHeadModel(cfg).save_pretrained("assets/gpt2-tiny")
print("assets ok", len(hf))

import torch
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast, DataCollatorWithPadding, BertConfig, BertForTokenClassification
from torch.utils.data import DataLoader

words = "the cat sat on a mat in paris with john and mary from london".split()
vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, **{w: i + 4 for i, w in enumerate(words)}}
tk = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]")); tk.pre_tokenizer = pre_tokenizers.Whitespace()
tok = PreTrainedTokenizerFast(tokenizer_object=tk, pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]", sep_token="[SEP]")

sents = [("john sat in paris", [1, 0, 0, 2]), ("the cat sat on a mat", [0, 0, 0, 0, 0, 0]),
         ("mary and john from london", [1, 0, 1, 0, 2]), ("a cat", [0, 0])]
feats = []
for s, tags in sents:
    enc = tok(s)
    enc["labels"] = tags
    feats.append(dict(enc))

model = BertForTokenClassification(BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=1,
                                              num_attention_heads=2, intermediate_size=64, num_labels=3))
loader = DataLoader(feats, batch_size=2, collate_fn=DataCollatorWithPadding(tok))
for batch in loader:
    print(model(**batch).loss.item())

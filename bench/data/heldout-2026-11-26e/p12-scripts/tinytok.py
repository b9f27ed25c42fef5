# project helper: a word-level tokenizer built from our corpus (no downloads)
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast
WORDS = ("the a cat dog sat on mat ran fast slow red blue big small and or not is was "
         "model data train loss good bad very quite really").split()
def build(mask=False, max_len=512):
    vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3}
    for w in WORDS: vocab.setdefault(w, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    kw = dict(unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]", sep_token="[SEP]", model_max_length=max_len)
    if mask: kw["mask_token"] = "[MASK]"
    return PreTrainedTokenizerFast(tokenizer_object=tok, **kw)
TEXTS = ["the cat sat on the mat", "a dog ran fast", "the big red dog was very slow and the small cat ran",
         "model loss is good", "train data was bad", "the blue mat", "a cat and a dog sat on a big mat",
         "loss was really quite bad"]

from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

def tiny_model(num_labels=2):
    cfg = BertConfig(vocab_size=32, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=64, num_labels=num_labels)
    return BertForSequenceClassification(cfg)

def tokenizer():
    return BertTokenizerFast(vocab_file="vocab.txt", do_lower_case=True)

import torch, torch.nn as nn

# token-level tagging: 5 tags, sentences padded to the longest with -1 labels
sents = [[3, 14, 15, 9], [2, 6, 5, 3, 5, 8, 9], [7, 9]]
tags = [[0, 1, 1, 2], [0, 0, 3, 4, 1, 1, 2], [4, 2]]
L = max(map(len, sents))
ids = torch.tensor([s + [0] * (L - len(s)) for s in sents])
labels = torch.tensor([t + [-1] * (L - len(t)) for t in tags])
print("ids", ids.shape, "labels", labels.shape)

class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 16, padding_idx=0)
        self.rnn = nn.GRU(16, 32, batch_first=True)
        self.head = nn.Linear(32, 5)
    def forward(self, x):
        return self.head(self.rnn(self.emb(x))[0])

m = Tagger(); opt = torch.optim.Adam(m.parameters(), 1e-3)
logits = m(ids)
loss = nn.CrossEntropyLoss()(logits.reshape(-1, 5), labels.reshape(-1))
loss.backward(); opt.step()
print("loss", loss.item())

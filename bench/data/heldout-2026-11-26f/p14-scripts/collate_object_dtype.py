import pandas as pd, numpy as np, torch
from torch.utils.data import Dataset, DataLoader

df = pd.read_csv("data/churn.csv")
print(df.dtypes.to_string())
print(len(df), "rows")

class Rows(Dataset):
    def __init__(self, df): self.df = df.reset_index(drop=True)
    def __len__(self): return len(self.df)
    def __getitem__(self, i): return self.df.iloc[i]

def collate(rows):
    frame = pd.DataFrame(rows)
    x = torch.tensor(frame[["tenure", "monthly", "support_calls"]].values, dtype=torch.float32)
    y = torch.from_numpy(frame["churned"].values)
    return x, y

loader = DataLoader(Rows(df), batch_size=32, shuffle=True, collate_fn=collate, num_workers=2)
model = torch.nn.Linear(3, 2)
opt = torch.optim.Adam(model.parameters(), 1e-2)
for epoch in range(3):
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y.long())
        opt.zero_grad(); loss.backward(); opt.step()
    print("epoch", epoch, "loss", round(loss.item(), 4))

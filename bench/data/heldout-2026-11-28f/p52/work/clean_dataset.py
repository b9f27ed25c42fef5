import sys
from datasets import load_from_disk
path = sys.argv[1]
ds = load_from_disk(path)
print(ds)
ds = ds.filter(lambda ex: len(ex["text"].split()) >= 8)
ds = ds.map(lambda ex: {"n_words": len(ex["text"].split())})
print(ds)
ds.save_to_disk(path)   # overwrite with the cleaned version
print("saved", path)

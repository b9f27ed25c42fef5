import json, random
from datasets import load_dataset
random.seed(0)
rows = [{"text": "sample %d %s" % (i, "good" if i % 2 else "bad"), "label": i % 2} for i in range(200)]
json.dump({"version": "2.1", "source": "annotation-export", "data": rows}, open("reviews.json", "w"))

ds = load_dataset("json", data_files={"train": "reviews.json"})
print(ds)
ds = ds["train"].train_test_split(test_size=0.1, seed=0)
print(ds["train"][0]["text"], ds["train"][0]["label"])

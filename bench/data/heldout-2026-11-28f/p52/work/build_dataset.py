from datasets import load_dataset
ds = load_dataset("json", data_files="data/reviews.jsonl", split="train")
ds.save_to_disk("data/reviews_ds")

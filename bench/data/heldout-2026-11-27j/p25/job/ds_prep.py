from datasets import load_dataset, ClassLabel
ds = load_dataset("csv", data_files="animals.csv", split="train")
ds = ds.cast_column("species", ClassLabel(names=["bird", "cat", "dog"]))
ds = ds.rename_column("species", "label").train_test_split(test_size=0.1, seed=0)
print(ds)
ds.save_to_disk("animals_ds")

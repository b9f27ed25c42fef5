import sys, time, hashlib
shard = int(sys.argv[sys.argv.index("--shard") + 1])
time.sleep(3)
print(f"shard {shard}: wrote 2048 samples, md5 {hashlib.md5(str(shard).encode()).hexdigest()[:8]}", flush=True)

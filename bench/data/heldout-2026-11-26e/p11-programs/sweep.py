import argparse, time
p = argparse.ArgumentParser(); p.add_argument("--trial", type=int); a = p.parse_args()
time.sleep(20)
print("trial", a.trial, "done")

import os
addr = os.environ["MASTER_ADDR"]
port = int(os.environ["MASTER_PORT"])
print(f"rank 1 joining {addr}:{port}")

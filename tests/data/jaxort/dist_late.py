import sys, jax
pid = int(sys.argv[1])
print(f"process {pid}: local devices {jax.devices()}")
jax.distributed.initialize("127.0.0.1:23456", num_processes=2, process_id=pid)

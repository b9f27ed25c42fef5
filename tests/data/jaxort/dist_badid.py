import jax
jax.distributed.initialize(coordinator_address="127.0.0.1:23456", num_processes=2, process_id=2)

import os, sys, time
pid = int(sys.argv[1])
import jax
from jax._src import distributed
jax.distributed.initialize(coordinator_address="127.0.0.1:%s" % os.environ["PORT"], num_processes=2, process_id=pid)
print("process %d/%d devices %d" % (jax.process_index(), jax.process_count(), jax.device_count()), flush=True)
if pid == 0:
    distributed.global_state.client.wait_at_barrier("step_end", 5000)  # process 1 comes 20 s late
else:
    time.sleep(20)
    distributed.global_state.client.wait_at_barrier("step_end", 5000)
print("process %d done" % pid, flush=True)

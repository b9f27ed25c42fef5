import os, sys, time
mode, pid = sys.argv[1], int(sys.argv[2])
import jax
kw = {}
if mode == "late_init":
    kw["initialization_timeout"] = 15
jax.distributed.initialize(coordinator_address="127.0.0.1:%s" % os.environ["PORT"], num_processes=2, process_id=pid, **kw)
import jax.numpy as jnp
from jax.experimental import multihost_utils
print("process %d/%d devices %d" % (jax.process_index(), jax.process_count(), jax.device_count()), flush=True)
x = multihost_utils.process_allgather(jnp.ones(2) * pid)
print("process %d allgather %s" % (pid, x.tolist()), flush=True)
if mode == "kill" and pid == 1:
    os._exit(137) if False else os.kill(os.getpid(), 9)
if mode == "kill":
    time.sleep(40)  # the peer is gone: heartbeats / the next barrier say so
    multihost_utils.sync_global_devices("after")
print("process %d done" % pid, flush=True)

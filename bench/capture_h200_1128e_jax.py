# gpu27: a real JAX job whose GPU memory watch.memory judges. JAX preallocates XLA_PYTHON_CLIENT_MEM_FRACTION of
# the GPU (0.75 by default) at its first operation
# (https://docs.jax.dev/en/latest/gpu_memory_allocation.html); its arrays here are 64 MiB.
import os, sys, time
import jax, jax.numpy as jnp
x = jnp.ones((4096, 4096), dtype=jnp.float32)
f = jax.jit(lambda a: (a @ a) * 1e-4)
print("jax", jax.__version__, "devices", jax.devices(), "pid", os.getpid(), "holds", flush=True)
end = time.time() + float(os.environ.get("SECONDS_RUN", "20"))
n = 0
while time.time() < end:
    x = f(x); x.block_until_ready(); n += 1
print("jax done", n, "steps", flush=True)

import time
import jax, jax.numpy as jnp
import numpy as np
jax.config.update("jax_explain_cache_misses", True)

@jax.jit
def train_step(w, x, y):
    def loss(w):
        return jnp.mean((x @ w - y) ** 2)
    l, g = jax.value_and_grad(loss)(w)
    return w - 0.01 * g, l

rng = np.random.default_rng(0)
w = jnp.zeros((64, 1))
print("devices", jax.devices())
for step in range(6):
    n = int(rng.integers(96, 128))
    x = jnp.asarray(rng.standard_normal((n, 64)), dtype=jnp.float32)
    y = jnp.asarray(rng.standard_normal((n, 1)), dtype=jnp.float32)
    t = time.perf_counter()
    w, l = train_step(w, x, y)
    l.block_until_ready()
    print("step %d batch %d loss %.4f step_time %.1f ms" % (step, n, float(l), (time.perf_counter() - t) * 1e3))

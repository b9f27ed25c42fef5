import jax, jax.numpy as jnp
@jax.jit
def f(x):
    if x.sum() > 0:
        return x
    return -x
print(f(jnp.ones(3)))

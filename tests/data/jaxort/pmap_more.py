import jax, jax.numpy as jnp
print("jax", jax.__version__, "devices", jax.devices())
x = jnp.ones((8, 1024))
y = jax.pmap(lambda v: jax.lax.psum(v * 2.0, "i"), axis_name="i")(x)
print(y.shape)

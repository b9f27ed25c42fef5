import numpy as np, jax
from jax.sharding import NamedSharding, PartitionSpec as P
mesh = jax.make_mesh((2,), ("data",))
val_x = np.zeros((1001, 512), np.float32)
print("eval set", val_x.shape, "mesh", mesh.shape)
xs = jax.device_put(val_x, NamedSharding(mesh, P("data", None)))

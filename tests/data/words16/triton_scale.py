import os, time
import torch
import triton
import triton.language as tl

@triton.jit
def scale_kernel(x_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * alpha, mask=mask)

n = 1 << 18
x = torch.randn(n)
out = torch.empty_like(x)
grid = (triton.cdiv(n, 1024),)
scale_kernel[grid](x, out, n, 2.0, BLOCK=1024)
t = time.perf_counter()
for _ in range(3):
    scale_kernel[grid](x, out, n, 2.0, BLOCK=1024)
dt = (time.perf_counter() - t) / 3
print("scale kernel on %d floats: %.2f ms per call, %.2f GB/s" % (n, dt * 1e3, 2 * 4 * n / dt / 1e9))
print("check", bool(torch.allclose(out, x * 2.0)))

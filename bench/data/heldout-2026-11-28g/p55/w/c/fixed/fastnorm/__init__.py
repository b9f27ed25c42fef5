from ._C import rms_norm

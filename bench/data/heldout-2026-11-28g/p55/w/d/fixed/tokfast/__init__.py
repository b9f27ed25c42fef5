"""Fast byte tokenizer."""
from ._tokfast import encode_bytes
__version__ = "0.4.2"

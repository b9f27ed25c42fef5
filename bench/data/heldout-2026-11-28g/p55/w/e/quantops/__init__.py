from ._quantops import fp16_roundtrip

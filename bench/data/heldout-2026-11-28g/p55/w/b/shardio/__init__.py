from ._shardio import read_block

from setuptools import setup, Extension
setup(name="shardio", version="0.3.1", packages=["shardio"],
      ext_modules=[Extension("shardio._shardio", ["shardio/_shardio.c"])])

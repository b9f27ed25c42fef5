"""Built-in checks, installed as ``gpudoctor.checks``: one module per concern.

Adding a check is adding a module here (and a fixture); the registry imports every
module of this package. See STYLE.md in the project's shared notes and README.md.
"""

#!/bin/bash
set -e
echo "== $(hostname -s): installing job wheels"
/tmp/heldout-p55/venv/bin/pip install --no-index --no-deps /tmp/heldout-p55/w/j/dist/shardio-0.3.1-cp311-cp311-manylinux_2_39_x86_64.whl
/tmp/heldout-p55/venv/bin/python -c "import shardio, torch; print('shardio ok, torch', torch.__version__)"

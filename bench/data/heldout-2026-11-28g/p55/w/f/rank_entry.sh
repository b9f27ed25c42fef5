export OMP_NUM_THREADS=1
export PYTHONUNBUFFERED=1
exec /tmp/heldout-p55/venv/bin/python /tmp/heldout-p55/w/f/train.py "$@"

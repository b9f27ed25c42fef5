#!/bin/bash
# start each rank from a clean environment so site settings from the login shell do not leak in
cd "$(dirname "$0")"
exec python train.py "$@"

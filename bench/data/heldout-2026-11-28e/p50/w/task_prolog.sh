#!/bin/bash
# per-task env for the training steps
echo export OMP_NUM_THREADS=1
echo export GLOO_SOCKET_IFNAME=lo

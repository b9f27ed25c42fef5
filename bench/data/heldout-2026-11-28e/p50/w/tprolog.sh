#!/bin/bash
echo export OMP_NUM_THREADS=2

#!/bin/sh
# A stand-in for tilec that spins on the CPU forever (a hang).
while :; do :; done

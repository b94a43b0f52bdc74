#!/bin/sh
# A stand-in for tilec that waits 3 s without using the CPU (a compile
# starved of a core), then rejects its input with a located error.
sleep 3
echo "$1:1:1: error: rejected by the stand-in"
exit 1

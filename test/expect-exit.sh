#!/bin/sh
# Usage: expect-exit.sh CODE COMMAND...: runs COMMAND and fails unless it
# exits with exactly CODE (lit's `not` only distinguishes zero/non-zero).
want=$1
shift
"$@"
got=$?
if [ "$got" -ne "$want" ]; then
  echo "expect-exit: '$*' exited $got, expected $want" >&2
  exit 1
fi
exit 0

#!/bin/sh
# Stands in for ptxas (opt-level-ptxas.test): writes its arguments, one
# line per run, to $PTXAS_ARGS_LOG, then runs the real one ($REAL_PTXAS).
echo "$@" >> "$PTXAS_ARGS_LOG"
exec "$REAL_PTXAS" "$@"

#!/usr/bin/env bash
# Runs every Go fuzz target of the module for a bounded number of executions
# (or a time) each: make fuzz passes FUZZTIME.
set -euo pipefail
t=${1:-10s}
found=0
while IFS= read -r file; do
  dir=$(dirname "$file")
  for target in $(grep -oE '^func (Fuzz[A-Za-z0-9_]+)' "$file" | awk '{print $2}'); do
    found=1
    echo "fuzz: $dir $target ($t)"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "$t" "./$dir"
  done
done < <(grep -rl --include='*_test.go' '^func Fuzz' . | sort)
[ $found -eq 1 ] || echo "fuzz: no fuzz targets"

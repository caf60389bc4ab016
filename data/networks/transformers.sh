#!/bin/sh
# Rebuild the network files computed by `pipeplan gen transformer` (the
# others come from PipeDream profiles: regenerate.sh).
# Usage (from the top of the source tree): data/networks/transformers.sh PIPEPLAN [OUTDIR]
# A test runs this into a scratch folder and compares byte for byte.
set -eu
pp=$1
out=${2:-data/networks}
"$pp" gen transformer --preset llama3-8b --gpu H100 -o "$out/llama3-8b.ini" --force
"$pp" gen transformer --preset llama3-70b --gpu H100 --tensor-parallel 8 \
    -o "$out/llama3-70b.ini" --force
"$pp" gen transformer --preset gpt3-175b --gpu A100 --tensor-parallel 8 \
    -o "$out/gpt3-175b.ini" --force

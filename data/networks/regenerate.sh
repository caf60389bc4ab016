#!/bin/sh
# Rebuild the network files from the PipeDream profiles in data/pipedream.
# Usage (from the top of the source tree): data/networks/regenerate.sh PIPEPLAN [OUTDIR]
# A test runs this into a scratch folder and compares byte for byte.
set -eu
pp=$1
out=${2:-data/networks}
"$pp" import pipedream data/pipedream/alexnet/graph.txt --micro-batch 256 \
    --note "batch: the Input node is 154140672 B = 256 x 3x224x224 fp32 images" \
    -o "$out/alexnet.ini" --force
"$pp" import pipedream data/pipedream/vgg16/graph.txt --micro-batch 128 \
    --note "batch: the Input node is 77070336 B = 128 x 3x224x224 fp32 images" \
    -o "$out/vgg16.ini" --force
"$pp" import pipedream data/pipedream/resnet50/graph.txt --micro-batch 128 \
    --note "batch: the Input node is 77070336 B = 128 x 3x224x224 fp32 images" \
    -o "$out/resnet50.ini" --force
"$pp" import pipedream data/pipedream/gnmt/graph.txt --micro-batch 32 \
    --note "batch: not recorded in the profile (token-id inputs); 32 sentences inferred" \
    --note "from the tensor sizes: LSTM state 131072 B = 32 x 1024 fp32, embeddings" \
    --note "6291456 B = 48 tokens x 32 x 1024 fp32, attention 288768 B = 32 x 47 x 48 fp32" \
    -o "$out/gnmt.ini" --force

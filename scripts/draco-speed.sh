#!/usr/bin/env bash
# Import time of Draco files against their uncompressed forms: every shared model that has
# meshes (and the built-in character) compressed by gltf-transform with edgebreaker at levels
# 0, 7 and 10 and sequential at levels 0 and 10, each imported in a release build by
# `crates/decode/examples/load_ratio.rs` interleaved with the original and with the original
# rewritten uncompressed by the same tool (`gltf-transform copy` to .glb: the same layout, images
# embedded, without Draco), median of 48 imports each. Ratios are printed against the original.
# gltf-transform keeps primitives with morph targets sequential whatever --method says.
# Variants are cached under target/variants/speed/; the example is built in $CARGO_TARGET_DIR
# when that is set (a separate release target leaves a shared debug target alone).
# Usage: scripts/draco-speed.sh [MODEL...]   (default: every model; MODEL as under ../shared/models)
set -euo pipefail
cd "$(dirname "$0")/.."
gt=.tools/node_modules/.bin/gltf-transform
out=target/variants/speed
mkdir -p "$out"
if [ $# -gt 0 ]; then
    models=("$@")
else
    models=(assets/mannequin.glb)
    for dir in ../shared/models/*/; do
        name="$(basename "$dir")"
        for ext in glb gltf; do
            [ -f "$dir$name.$ext" ] && models+=("$dir$name.$ext")
        done
    done
fi
cargo build --release -q -p animtune-decode --example load_ratio
load_ratio="${CARGO_TARGET_DIR:-target}/release/examples/load_ratio"
for model in "${models[@]}"; do
    name="$(basename "${model%.*}")"
    copy="$out/$name-copy.glb"
    if [ ! -f "$copy" ]; then
        "$gt" copy "$model" "$copy.partial.glb" >/dev/null
        mv "$copy.partial.glb" "$copy"
    fi
    files=("$copy")
    for setting in edgebreaker:0 edgebreaker:7 edgebreaker:10 sequential:0 sequential:10; do
        method="${setting%:*}" level="${setting#*:}"
        file="$out/$name-$method-l$level.glb"
        if [ ! -f "$file" ]; then
            "$gt" draco "$model" "$file.partial.glb" --method "$method" \
                --encode-speed "$((10 - level))" --decode-speed "$((10 - level))" >/dev/null
            mv "$file.partial.glb" "$file"
        fi
        files+=("$file")
    done
    "$load_ratio" "$model" "${files[@]}"
done

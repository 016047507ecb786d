#!/usr/bin/env bash
# Seed the `decoders` fuzz target's corpus with real Draco streams: every shared skinned model
# encoded by gltf-transform at edgebreaker and sequential, position quantization 8 and 16 bits,
# compression levels 0 and 10, each primitive's stream prefixed for the target's Draco branch
# (selector 1, accessors taken from the header), plus the small encoded files whole (selector 3),
# and Google's own Draco test files (crates/decode/tests/google-draco/).
# Usage: scripts/fuzz-seed-draco.sh [CORPUS_DIR]   (default fuzz/corpus/decoders; git-ignored)
# Then: RUSTC_BOOTSTRAP=1 cargo fuzz run decoders fuzz/corpus/decoders -- -max_len=16384
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${1:-fuzz/corpus/decoders}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$corpus"
gt=.tools/node_modules/.bin/gltf-transform
for model in ../shared/models/{CesiumMan/CesiumMan.glb,Fox/Fox.glb,RiggedFigure/RiggedFigure.glb,RiggedSimple/RiggedSimple.glb,RobotExpressive/RobotExpressive.glb} assets/mannequin.glb; do
    name="$(basename "$model" .glb)"
    for method in edgebreaker sequential; do
        for bits in 8 16; do
            for speed in 0 10; do
                out="$work/$name-$method-$bits-$speed"
                "$gt" draco "$model" "$out.glb" --method "$method" --quantize-position "$bits" \
                    --encode-speed "$speed" --decode-speed "$speed" >/dev/null
                node scripts/draco-reference.mjs "$out.glb" "$out" >/dev/null
                for drc in "$out"/*.drc; do
                    [ "$(stat -c %s "$drc")" -le 16000 ] || continue
                    { printf '\x01\x01\x00'; cat "$drc"; } > "$corpus/draco-$(basename "$out")-$(basename "$drc")"
                done
                if [ "$(stat -c %s "$out.glb")" -le 16000 ]; then
                    { printf '\x03\x00\x00'; cat "$out.glb"; } > "$corpus/file-$(basename "$out").glb"
                fi
            done
        done
    done
done
# Google's own test streams (every bitstream version its encoders wrote, point clouds too) and
# its Draco glTF box.
for drc in crates/decode/tests/google-draco/*.drc; do
    [ "$(stat -c %s "$drc")" -le 16000 ] || continue
    { printf '\x01\x01\x00'; cat "$drc"; } > "$corpus/google-$(basename "$drc")"
done
{ printf '\x03\x00\x00'; cat crates/decode/tests/google-draco/Box_Draco.glb; } > "$corpus/file-google-Box_Draco.glb"
echo "$(ls "$corpus" | wc -l) inputs in $corpus"

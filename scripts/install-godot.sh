# Sourced by scripts/install-test-deps.sh: Godot 4 for tests/godot.rs, which loads animtune's
# Godot export with Godot's own resource loader (tools/godot-check/check.gd).
#
# Debian sid's `godot` package and the sid libraries its binary links, unpacked (dpkg-deb -x,
# no root, no apt sources touched) into the git-ignored folder .tools/godot/sysroot, and a
# launcher .tools/godot/godot that runs the binary through the sysroot's own dynamic loader
# (sid's glibc: the binary needs glibc 2.43, newer than the host's). Only what `--headless` loads:
# the packages below are the ones whose libraries the binary NEEDs (readelf -d, followed through
# every library); the check at the end names any that a newer sid adds. Installed only when missing.
# Without it the Godot tests are skipped locally, and fail under CI=true.
GODOT_MIRROR="${GODOT_MIRROR:-https://deb.debian.org/debian}"
GODOT_PACKAGES="godot libasound2t64 libasyncns0 libatomic1 libbrotli1 libbz2-1.0 libc6 libcairo2 \
libdbus-1-3 libdecor-0-0 libdrm2 libembree4-4 libenet7 libexpat1 libffi8 libflac14 libfontconfig1 \
libfreetype6 libfribidi0 libgbm1 libgcc-s1 libglib2.0-0t64 libgraphite2-3 libharfbuzz-icu0 \
libharfbuzz0b libicu78 libjsoncpp26 libmbedcrypto16 libmbedtls21 libmbedx509-7 libminiupnpc21 \
libmp3lame0 libmpg123-0t64 libogg0 libopenxr-loader1 libopus0 libpcre2-32-0 libpcre2-8-0 \
libpixman-1-0 libpng16-16t64 libpulse0 librecast1debian0 libsdl3-0 libsharpyuv0 libsndfile1 \
libspeechd2 libstdc++6 libsystemd0 libtbb12 libtheoradec2 libtheoraenc2 libturbojpeg0 libvorbis0a \
libvorbisenc2 libwayland-client0 libwayland-cursor0 libwayland-egl1 libwebp7 libwslay1 libx11-6 \
libx11-xcb1 libxau6 libxcb-render0 libxcb-shm0 libxcb1 libxcursor1 libxdmcp6 libxext6 libxfixes3 \
libxi6 libxinerama1 libxkbcommon0 libxrandr2 libxrender1 libxss1 libxtst6 libzstd1 zlib1g"

# Download, check (SHA256 from the signed-by-Release Packages index) and unpack into $1 (a
# fresh folder); prints what it did. Returns non-zero, saying why, on any failure.
godot_install_into() {
    local dir="$1" work="$1/download" name file sum missing lib
    mkdir -p "$work" "$dir/sysroot" || return 1
    curl -fsS --retry 2 -o "$work/Packages.xz" "$GODOT_MIRROR/dists/sid/main/binary-amd64/Packages.xz" \
        || { echo "== cannot download sid's Packages.xz from $GODOT_MIRROR" >&2; return 1; }
    # name → "Filename SHA256" for the packages we want (the first stanza of each name).
    xz -dc "$work/Packages.xz" | awk -v want=" $GODOT_PACKAGES " '
        /^Package: / { name = $2; file = ""; sum = "" }
        /^Filename: / { file = $2 }
        /^SHA256: / { sum = $2 }
        /^$/ { if (index(want, " " name " ") && !(name in seen) && file != "") { seen[name] = 1; print name, file, sum } }
    ' >"$work/wanted" || return 1
    missing=""
    for name in $GODOT_PACKAGES; do
        grep -q "^$name " "$work/wanted" || missing="$missing $name"
    done
    if [ -n "$missing" ]; then
        echo "== sid no longer has:$missing (update GODOT_PACKAGES in scripts/install-godot.sh)" >&2
        return 1
    fi
    # Eight downloads at a time.
    awk -v m="$GODOT_MIRROR" -v w="$work" '{ print m "/" $2, w "/" $1 ".deb" }' "$work/wanted" \
        | xargs -n 2 -P 8 sh -c 'curl -fsS --retry 2 -o "$2" "$1"' sh || true
    # A download that failed above is tried once more here, and names itself if it fails again.
    while read -r name file sum; do
        [ -f "$work/$name.deb" ] || curl -fsS --retry 2 -o "$work/$name.deb" "$GODOT_MIRROR/$file" \
            || { echo "== cannot download $GODOT_MIRROR/$file" >&2; return 1; }
        echo "$sum  $work/$name.deb" | sha256sum -c --quiet - \
            || { echo "== $name.deb does not match its SHA256 in Packages.xz" >&2; return 1; }
        dpkg-deb -x "$work/$name.deb" "$dir/sysroot" || return 1
    done <"$work/wanted"
    du -sb "$work"/*.deb | awk '{ s += $1 } END { printf "== downloaded %.1f MB\n", s / 1e6 }'
    rm -rf "$work" "$dir/sysroot/usr/share/doc" "$dir/sysroot/usr/share/man" "$dir/sysroot/usr/share/locale"
    lib="$dir/sysroot/usr/lib/x86_64-linux-gnu"
    cat >"$dir/godot" <<'LAUNCHER'
#!/bin/sh
# Debian sid's Godot run through its own sysroot (scripts/install-godot.sh wrote this).
here="$(dirname "$(readlink -f "$0")")"
lib="$here/sysroot/usr/lib/x86_64-linux-gnu"
GCONV_PATH="$lib/gconv" exec "$lib/ld-linux-x86-64.so.2" --library-path "$lib:$lib/pulseaudio" \
    "$here/sysroot/usr/bin/godot" "$@"
LAUNCHER
    chmod +x "$dir/godot" || return 1
    # Every library the binary needs, followed through the libraries: all in the sysroot?
    missing="$(godot_missing_libraries "$dir/sysroot/usr/bin/godot" "$lib")"
    if [ -n "$missing" ]; then
        echo "== the sysroot lacks $missing: add its package to GODOT_PACKAGES" >&2
        return 1
    fi
    "$dir/godot" --headless --version >/dev/null 2>&1 \
        || { echo "== the unpacked Godot does not start: $("$dir/godot" --headless --version 2>&1 | tail -3)" >&2; return 1; }
}

# The sonames that `binary` needs, directly or through the libraries it needs, not found in `lib`
# (or its pulseaudio folder), space-separated.
godot_missing_libraries() {
    local todo="$1" lib="$2" seen=" " missing="" file so
    while [ -n "$todo" ]; do
        file="${todo%% *}"
        [ "$file" = "$todo" ] && todo="" || todo="${todo#* }"
        for so in $(readelf -d "$file" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
            case "$seen" in *" $so "*) continue ;; esac
            seen="$seen$so "
            if [ -e "$lib/$so" ]; then
                todo="$todo${todo:+ }$lib/$so"
            elif [ -e "$lib/pulseaudio/$so" ]; then
                todo="$todo${todo:+ }$lib/pulseaudio/$so"
            else
                missing="$missing $so"
            fi
        done
    done
    echo "$missing"
}

if [ ! -x .tools/godot/godot ]; then
    if command -v curl >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 && command -v xz >/dev/null 2>&1 \
        && command -v readelf >/dev/null 2>&1 && [ "$(uname -m)" = "x86_64" ]; then
        echo "== installing Godot 4 (Debian sid's godot and its libraries) into .tools/godot/"
        rm -rf .tools/godot.partial
        GODOT_STARTED=$(date +%s)
        if godot_install_into .tools/godot.partial && mv .tools/godot.partial .tools/godot; then
            echo "== $(.tools/godot/godot --headless --version 2>/dev/null | tail -1) in .tools/godot/" \
                "($(du -sh .tools/godot | cut -f1), $(($(date +%s) - GODOT_STARTED)) s)"
        else
            rm -rf .tools/godot.partial
            echo "== could not install Godot 4 into .tools/godot/" >&2
            if [ "${CI:-}" = "true" ]; then
                return 1 2>/dev/null || exit 1
            fi
        fi
    else
        echo "== Godot 4 needs curl, dpkg-deb, xz and readelf on x86_64 Linux: cannot install it" >&2
        if [ "${CI:-}" = "true" ]; then
            return 1 2>/dev/null || exit 1
        fi
    fi
fi

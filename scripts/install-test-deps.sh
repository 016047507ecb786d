# Sourced by scripts/test.sh: installs, only when missing, what the tests need on a fresh machine.
# (Kept separate so CI and developers share one list.)

# Khronos glTF validator (npm package `gltf-validator`), used by tests/mannequin.rs through
# scripts/validate-gltf.mjs. Installed into the ignored folder .tools/ of the repository root.
GLTF_VALIDATOR_VERSION="2.0.0-dev.3.10"
if [ ! -f .tools/node_modules/gltf-validator/package.json ]; then
    if command -v npm >/dev/null 2>&1; then
        echo "== installing gltf-validator@${GLTF_VALIDATOR_VERSION} into .tools/"
        mkdir -p .tools
        npm install --prefix .tools --no-audit --no-fund --silent \
            "gltf-validator@${GLTF_VALIDATOR_VERSION}"
    else
        echo "== npm not found: cannot install gltf-validator (install Node.js >= 18)" >&2
        if [ "${CI:-}" = "true" ]; then
            return 1 2>/dev/null || exit 1
        fi
    fi
fi

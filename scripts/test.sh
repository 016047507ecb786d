#!/usr/bin/env bash
# The one command that runs every animtune test on a fresh machine (see README).
# It installs what the tests need when it is missing, then runs formatting, lint and all tests.
set -euo pipefail
cd "$(dirname "$0")/.."

# What the tests need (the Khronos glTF validator, a Vulkan driver, Xvfb for the window test),
# installed only when missing.
source scripts/install-test-deps.sh

# Mesa's window-system code wants a runtime folder; headless machines often have none.
if [ -z "${XDG_RUNTIME_DIR:-}" ] || [ ! -d "${XDG_RUNTIME_DIR}" ]; then
    XDG_RUNTIME_DIR="$(mktemp -d)"
    export XDG_RUNTIME_DIR
fi

echo "== rustfmt"
cargo fmt --all -- --check
echo "== clippy"
cargo clippy --workspace --all-targets --quiet -- -D warnings
echo "== tests"
cargo test --workspace

#!/usr/bin/env bash
# The one command that runs every animtune test on a fresh machine (see README).
# It installs what the tests need when it is missing, then runs formatting, lint and all tests.
set -euo pipefail
cd "$(dirname "$0")/.."

# Tools the tests need: the Khronos glTF validator (npm) for generated assets.
source scripts/install-test-deps.sh

echo "== rustfmt"
cargo fmt --all -- --check
echo "== clippy"
cargo clippy --workspace --all-targets --quiet -- -D warnings
echo "== tests"
cargo test --workspace

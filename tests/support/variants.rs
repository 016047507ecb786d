//! Compressed, quantized and re-textured variants of the shared skinned models, written by an
//! independent encoder (gltf-transform, installed into `.tools/` by
//! `scripts/install-test-deps.sh`) and cached under `target/variants/` (keyed by the source
//! bytes and the encoder's version), so a test run converts each model once.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::repo_root;

/// The skinned models the variants are made from: path under `../shared/models` (or the
/// repository for the built-in character), and whether it has a base colour texture.
pub const MODELS: &[(&str, bool)] = &[
    ("CesiumMan/CesiumMan.glb", true),
    ("Fox/Fox.glb", true),
    ("RiggedFigure/RiggedFigure.glb", false),
    ("RiggedSimple/RiggedSimple.glb", false),
    ("RobotExpressive/RobotExpressive.glb", false),
    ("SimpleSkin/SimpleSkin.gltf", false),
    ("assets/mannequin.glb", false),
];

/// A gltf-transform command that makes a variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// `gltf-transform draco`: `KHR_draco_mesh_compression`.
    Draco,
    /// `gltf-transform meshopt`: `EXT_meshopt_compression` on geometry *and* animation, with
    /// `KHR_mesh_quantization` and the octahedral, quaternion and exponential filters.
    Meshopt,
    /// `gltf-transform quantize`: `KHR_mesh_quantization` (normalized integer attributes).
    Quantize,
    /// `gltf-transform webp`: `EXT_texture_webp` (textured models only).
    Webp,
}

impl Variant {
    /// Every variant.
    pub const ALL: [Self; 4] = [Self::Draco, Self::Meshopt, Self::Quantize, Self::Webp];

    /// The gltf-transform command.
    pub fn command(self) -> &'static str {
        match self {
            Self::Draco => "draco",
            Self::Meshopt => "meshopt",
            Self::Quantize => "quantize",
            Self::Webp => "webp",
        }
    }

    /// The extension the variant must use.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Draco => "KHR_draco_mesh_compression",
            Self::Meshopt => "EXT_meshopt_compression",
            Self::Quantize => "KHR_mesh_quantization",
            Self::Webp => "EXT_texture_webp",
        }
    }
}

/// The source file of a model in [`MODELS`], when present.
pub fn source(relative: &str) -> Option<PathBuf> {
    let path = if relative.starts_with("assets/") {
        repo_root().join(relative)
    } else {
        repo_root().join(super::SHARED_MODELS).join(relative)
    };
    path.exists().then_some(path)
}

/// The gltf-transform launcher in `.tools/`, or `None` (a note printed) when it is not
/// installed; under `CI=true` a missing tool fails the test instead.
pub fn gltf_transform() -> Option<PathBuf> {
    let tool = repo_root().join(".tools/node_modules/@gltf-transform/cli/bin/cli.js");
    if tool.exists() && Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success()) {
        return Some(tool);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "gltf-transform is not installed in .tools/ (scripts/install-test-deps.sh installs it); required under CI=true"
    );
    println!("note: gltf-transform not installed in .tools/; skipping the variant tests");
    None
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The variant of `source` made by `variant`, converted on first use and cached.
///
/// # Panics
/// When gltf-transform fails on the file.
pub fn variant(tool: &Path, source: &Path, variant: Variant) -> PathBuf {
    let bytes = std::fs::read(source).unwrap_or_else(|e| panic!("{}: {e}", source.display()));
    let version = std::fs::read(tool.with_file_name("../package.json")).map(|v| fnv1a(&v)).unwrap_or(0);
    let stem = source.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
    let dir = repo_root().join("target/variants");
    std::fs::create_dir_all(&dir).expect("create target/variants");
    let out = dir.join(format!("{stem}-{}-{:016x}.glb", variant.command(), fnv1a(&bytes) ^ version));
    if out.exists() {
        return out;
    }
    // Written beside its final name, then renamed: tests running in parallel never see half a file.
    let partial = dir.join(format!("{stem}-{}-{}.partial.glb", variant.command(), std::process::id()));
    let output =
        Command::new("node").arg(tool).arg(variant.command()).arg(source).arg(&partial).output().expect("run node");
    assert!(
        output.status.success(),
        "gltf-transform {} {} failed: {}{}",
        variant.command(),
        source.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::rename(&partial, &out).expect("rename the variant into place");
    out
}

/// Every (model, variant) pair that applies: WebP only for textured models.
pub fn pairs() -> Vec<(&'static str, Variant)> {
    MODELS
        .iter()
        .flat_map(|&(model, textured)| {
            Variant::ALL.into_iter().filter(move |&v| v != Variant::Webp || textured).map(move |v| (model, v))
        })
        .collect()
}

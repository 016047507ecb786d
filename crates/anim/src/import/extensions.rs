//! Which glTF extensions animtune reads, which it loads without, and which it must refuse.
//!
//! A file is refused for an extension only when the file lists it in `extensionsRequired` *and*
//! its data cannot be read without it: compression without a decoder (and without fallback
//! data), or an extension animtune does not know at all. Extensions that only change looks the
//! renderer does not draw are loaded and reported as ignored.

use serde_json::Value;

use super::decoder::Decoder;
use super::json::{array, get};
use crate::error::{ImportError, ObjectRef, Problem, invalid};
use crate::model::{ExtensionStatus, ExtensionUse};

/// Compression extensions: their data is unreadable without a decoder unless the file carries
/// an uncompressed fallback.
pub(crate) const MESHOPT_EXTENSIONS: [&str; 2] = ["EXT_meshopt_compression", "KHR_meshopt_compression"];
/// Draco mesh compression.
pub(crate) const DRACO: &str = "KHR_draco_mesh_compression";
/// Image formats decoded by the application when its decoder says so.
pub(crate) const IMAGE_EXTENSIONS: [&str; 2] = ["EXT_texture_webp", "KHR_texture_basisu"];

/// Extensions that change only looks animtune does not draw (or add data it does not show), by
/// exact name or by prefix (ending in `_`).
const APPEARANCE_ONLY: &[&str] = &[
    "KHR_materials_",
    "KHR_lights_punctual",
    "EXT_lights_image_based",
    "KHR_xmp",
    "KHR_xmp_json_ld",
    "KHR_texture_",
    "EXT_texture_avif",
    "MSFT_texture_dds",
    "MSFT_lod",
    "MSFT_packing_",
    "EXT_mesh_gpu_instancing",
    "KHR_mesh_quantization_",
    "ADOBE_materials_",
    "AGI_",
    "CESIUM_primitive_outline",
    "EXT_mesh_manifold",
    "KHR_physics_rigid_bodies",
    "KHR_implicit_shapes",
    "KHR_collision_shapes",
];

fn is_appearance_only(name: &str) -> bool {
    APPEARANCE_ONLY.iter().any(|known| if known.ends_with('_') { name.starts_with(known) } else { name == *known })
}

/// What the importer does with one extension, before looking at the data.
pub(crate) fn classify(name: &str, decoder: &dyn Decoder) -> (ExtensionStatus, String) {
    let decoded = |what: &str| (ExtensionStatus::Decoded, what.to_owned());
    let no_decoder = || (ExtensionStatus::Ignored, "no decoder: uncompressed fallback data used".to_owned());
    match name {
        "KHR_mesh_quantization" => decoded("normalized-integer attributes and keys"),
        "KHR_texture_transform" => {
            (ExtensionStatus::Applied, "base colour and emissive texture offset, rotation and scale".to_owned())
        }
        "KHR_animation_pointer" => (
            ExtensionStatus::Applied,
            "node transform and weight pointers play as tracks; material factor, base colour texture transform \
             and visibility pointers are sampled (sample, render); base colour, emissive, emissive strength, \
             alpha cutoff, texture transform and visibility are drawn; other pointers are not read"
                .to_owned(),
        ),
        "KHR_node_visibility" => {
            (ExtensionStatus::Applied, "hidden nodes and their descendants are not drawn (also animated)".to_owned())
        }
        "KHR_materials_emissive_strength" => {
            (ExtensionStatus::Applied, "emissive strength multiplies the emissive factor (also animated)".to_owned())
        }
        "KHR_materials_unlit" => (ExtensionStatus::Ignored, "appearance only: not drawn".to_owned()),
        _ if MESHOPT_EXTENSIONS.contains(&name) => {
            if decoder.supports(name) {
                decoded("geometry and animation buffer views (meshopt codec and filters)")
            } else {
                no_decoder()
            }
        }
        DRACO => {
            if decoder.supports(name) {
                decoded("positions, normals, texture coordinates, colours, joints and weights")
            } else {
                no_decoder()
            }
        }
        "EXT_texture_webp" => {
            if decoder.supports(name) {
                decoded("WebP base colour and emissive images")
            } else {
                (ExtensionStatus::Ignored, "no WebP decoder: fallback image used".to_owned())
            }
        }
        "KHR_texture_basisu" => {
            if decoder.supports(name) {
                decoded("KTX2 (Basis Universal) base colour and emissive images")
            } else {
                (ExtensionStatus::Ignored, "no KTX2 decoder: fallback image used, else untextured".to_owned())
            }
        }
        _ if is_appearance_only(name) => (ExtensionStatus::Ignored, "appearance only: not drawn".to_owned()),
        _ => (ExtensionStatus::Ignored, "unknown to animtune: ignored".to_owned()),
    }
}

/// Every extension the document lists (`extensionsUsed`, `extensionsRequired`), classified.
/// Refuses required extensions whose data animtune cannot read: unknown ones, and compression
/// without a decoder (fallback data, when present, is checked later where it is read).
pub(crate) fn survey(root: &Value, decoder: &dyn Decoder) -> Result<Vec<ExtensionUse>, ImportError> {
    let root_ref = ObjectRef::root();
    let names = |key: &'static str| -> Result<Vec<String>, ImportError> {
        Ok(array(root, &root_ref, key)?.iter().map(|v| v.as_str().unwrap_or("?").to_owned()).collect())
    };
    let required = names("extensionsRequired")?;
    let mut used = names("extensionsUsed")?;
    for name in &required {
        if !used.contains(name) {
            used.push(name.clone());
        }
    }
    let mut out = Vec::with_capacity(used.len());
    for name in used {
        let is_required = required.contains(&name);
        let (status, note) = classify(&name, decoder);
        let known = note != "unknown to animtune: ignored";
        let unreadable = (MESHOPT_EXTENSIONS.contains(&name.as_str()) || name == DRACO) && !decoder.supports(&name);
        if is_required && (!known || unreadable) {
            return Err(invalid(&root_ref, Problem::UnsupportedExtension(name)));
        }
        out.push(ExtensionUse { name, required: is_required, status, note });
    }
    Ok(out)
}

/// The object of extension `name` inside `value.extensions`, when present.
pub(crate) fn extension<'v>(value: &'v Value, name: &str) -> Option<&'v Value> {
    get(value, "extensions").and_then(|e| get(e, name))
}

//! glTF output: the GLB container and sorted JSON (the one writer, used by the shipped `bake`
//! command and by the development tools' generators), and [`replace_clip`], which re-emits a
//! file with one animation's samplers replaced by the keys of a [`RawClip`] — everything else
//! in the file (meshes, skins, materials, compressed views, other animations) kept as it was.

// Export errors carry import errors, which are large and cold.
#![allow(clippy::result_large_err)]

use std::path::Path;

use serde_json::{Value, json};

use crate::clip::RawClip;
use crate::error::{ImportError, ObjectRef};
use crate::import::{ByteLimit, Limits, MESHOPT_EXTENSIONS, is_glb, read_uri, split_glb};
use crate::track::TrackValues;

/// Why a file cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The source file does not read as glTF.
    #[error(transparent)]
    Import(#[from] ImportError),
    /// The source document is not shaped as the rewrite needs (names the object).
    #[error("{0}")]
    Document(String),
    /// The output would not fit a GLB container (4 GiB).
    #[error("the output would be {0} bytes; a GLB container holds at most 4 GiB")]
    TooLarge(usize),
}

/// A GLB container of `json` and `bin`: the JSON chunk padded with spaces, the BIN chunk (left
/// out when `bin` is empty) with zeros, to 4 bytes.
///
/// # Errors
/// [`ExportError::TooLarge`] when the container would exceed 4 GiB.
pub fn pack_glb(json: &[u8], bin: &[u8]) -> Result<Vec<u8>, ExportError> {
    let pad = |len: usize| (4 - len % 4) % 4;
    let json_len = json.len() + pad(json.len());
    let bin_len = bin.len() + pad(bin.len());
    let total = 12 + 8 + json_len + if bin.is_empty() { 0 } else { 8 + bin_len };
    let total_u32 = u32::try_from(total).map_err(|_| ExportError::TooLarge(total))?;
    // Each part is smaller than the total, which fits.
    let u32_le = |v: usize| u32::try_from(v).unwrap_or(total_u32).to_le_bytes();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2_u32.to_le_bytes());
    out.extend_from_slice(&total_u32.to_le_bytes());
    out.extend_from_slice(&u32_le(json_len));
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(json);
    out.resize(out.len() + pad(json.len()), b' ');
    if !bin.is_empty() {
        out.extend_from_slice(&u32_le(bin_len));
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(bin);
        out.resize(out.len() + pad(bin.len()), 0);
    }
    Ok(out)
}

/// JSON text with object keys sorted (compact), whatever `serde_json`'s map features: written
/// files are byte-identical however the writer was built.
pub fn to_sorted_json(value: &Value) -> String {
    let mut out = String::new();
    write_sorted(value, &mut out);
    out
}

fn write_sorted(value: &Value, out: &mut String) {
    match value {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_sorted(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_sorted(&Value::String(key.clone()), out);
                out.push(':');
                write_sorted(&map[key], out);
            }
            out.push('}');
        }
        // Scalars have one serialization.
        other => out.push_str(&other.to_string()),
    }
}

/// The binary chunk being written: views appended at aligned offsets.
struct Bin {
    bytes: Vec<u8>,
    views: Vec<Value>,
    first_view: usize,
}

impl Bin {
    /// Append `data` at a multiple of `align` bytes; returns its offset.
    fn append(&mut self, data: &[u8], align: usize) -> usize {
        self.bytes.resize(self.bytes.len().next_multiple_of(align), 0);
        let offset = self.bytes.len();
        self.bytes.extend_from_slice(data);
        offset
    }

    /// Append `data` as a new buffer view of buffer 0; returns the view's index.
    fn add_view(&mut self, data: &[u8]) -> usize {
        let offset = self.append(data, 4);
        self.views.push(json!({"buffer": 0, "byteOffset": offset, "byteLength": data.len()}));
        self.first_view + self.views.len() - 1
    }
}

/// Re-emit the glTF file `source` (`.glb` or `.gltf` bytes; `base_dir` resolves its external
/// files) as a self-contained `.glb` in which animation `animation` samples `clip`.
///
/// Each track of `clip` names the channel it replaces ([`crate::Track::channel`]); that channel
/// gets a new sampler over new accessors (float key times with `min`/`max`, float values laid
/// out as glTF wants for the track's interpolation). Channels no track names (material
/// pointers, channels for other extensions) keep their samplers; samplers no channel uses any
/// more are dropped, and with them the accessors, buffer views and binary-chunk bytes only they
/// used (every reference renumbered: meshes, skins, animations, sparse accessors, images,
/// Draco and GPU-instancing extensions, animation pointers), so a file baked again does not
/// grow. Everything else is kept as it was: every buffer with
/// data goes into the GLB's binary chunk at a 16-byte-aligned offset (buffer views and
/// `EXT_meshopt_compression` views are moved with it, so compressed data stays intact), meshopt
/// fallback buffers without data stay buffers without data, and images in external files are
/// embedded as buffer views.
///
/// # Errors
/// When the source does not read (GLB container, JSON, buffers and images within `limits`),
/// the animation or a channel does not exist, or the output exceeds 4 GiB.
pub fn replace_clip(
    source: &[u8],
    base_dir: Option<&Path>,
    animation: usize,
    clip: &RawClip,
    limits: &Limits,
) -> Result<Vec<u8>, ExportError> {
    clip.validate().map_err(|e| ExportError::Document(format!("the new clip is not valid: {e}")))?;
    let (json_bytes, glb_bin) = if is_glb(source) { split_glb(source)? } else { (source, None) };
    let mut root: Value = serde_json::from_slice(json_bytes).map_err(|e| ImportError::Json(e.to_string()))?;
    let doc_error = |m: String| ExportError::Document(m);
    if !root.is_object() {
        return Err(doc_error("the glTF document is not a JSON object".to_owned()));
    }
    let (mut bin, mut new_buffers) = embed_buffers(&mut root, glb_bin, base_dir, limits)?;

    // The new keys.
    let accessors_before = root.get("accessors").and_then(Value::as_array).map_or(0, Vec::len);
    let (new_accessors, new_samplers) = write_samplers(&mut bin, accessors_before, clip)?;
    if let Some(accessors) = root.get_mut("accessors").and_then(Value::as_array_mut) {
        accessors.extend(new_accessors);
    } else {
        root["accessors"] = Value::Array(new_accessors);
    }

    // The animation: replaced channels point at new samplers, unused samplers are dropped.
    let target = root
        .get_mut("animations")
        .and_then(Value::as_array_mut)
        .and_then(|a| a.get_mut(animation))
        .ok_or_else(|| doc_error(format!("animation {animation} does not exist")))?;
    let old_samplers = target.get("samplers").and_then(Value::as_array).cloned().unwrap_or_default();
    // The accessors the old samplers read: dropped below when nothing reads them any more.
    let old_keys: Vec<usize> = old_samplers
        .iter()
        .flat_map(|sampler| ["input", "output"].map(|key| sampler.get(key).and_then(Value::as_u64)))
        .flatten()
        .map(|index| index as usize)
        .collect();
    let Some(channels) = target.get_mut("channels").and_then(Value::as_array_mut) else {
        return Err(doc_error(format!("animation {animation} has no channels")));
    };
    let mut replaced = vec![None; channels.len()];
    for (channel, sampler) in new_samplers {
        let slot = replaced
            .get_mut(channel)
            .ok_or_else(|| doc_error(format!("animation {animation} has no channel {channel}")))?;
        if slot.is_some() {
            return Err(doc_error(format!("animation {animation}: two tracks replace channel {channel}")));
        }
        *slot = Some(sampler);
    }
    let mut samplers: Vec<Value> = Vec::new();
    let mut kept: Vec<Option<usize>> = vec![None; old_samplers.len()];
    for (c, channel) in channels.iter_mut().enumerate() {
        let index = match replaced[c].take() {
            Some(sampler) => {
                samplers.push(sampler);
                samplers.len() - 1
            }
            None => {
                let old = channel.get("sampler").and_then(Value::as_u64).map(|s| s as usize);
                let old = old
                    .filter(|&s| s < old_samplers.len())
                    .ok_or_else(|| doc_error(format!("animation {animation} channel {c}: no valid sampler")))?;
                *kept[old].get_or_insert_with(|| {
                    samplers.push(old_samplers[old].clone());
                    samplers.len() - 1
                })
            }
        };
        channel["sampler"] = json!(index);
    }
    target["samplers"] = Value::Array(samplers);

    if let Some(views) = root.get_mut("bufferViews").and_then(Value::as_array_mut) {
        views.extend(bin.views);
    } else {
        root["bufferViews"] = Value::Array(bin.views);
    }
    if renumbering_is_safe(&root) {
        drop_unused(&mut root, &mut bin.bytes, &old_keys).map_err(doc_error)?;
    }
    new_buffers[0] = json!({"byteLength": bin.bytes.len()});
    root["buffers"] = Value::Array(new_buffers);
    pack_glb(to_sorted_json(&root).as_bytes(), &bin.bytes)
}

/// A track's channel index and its new sampler.
type ChannelSampler = (usize, Value);

/// The accessors (after `accessors_before` existing ones) and samplers of `clip`'s tracks,
/// their data appended to `bin`: one time accessor per timeline (with `min`/`max`), one value
/// accessor per track. Returns the accessors and, per track, its channel index and sampler.
fn write_samplers(
    bin: &mut Bin,
    accessors_before: usize,
    clip: &RawClip,
) -> Result<(Vec<Value>, Vec<ChannelSampler>), ExportError> {
    let mut new_accessors: Vec<Value> = Vec::new();
    let mut add_accessor = |bin: &mut Bin, data: &[f32], ty: &str, count: usize, min_max: bool| {
        let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
        let view = bin.add_view(&bytes);
        let mut accessor = json!({"bufferView": view, "componentType": 5126, "type": ty, "count": count});
        if min_max && !data.is_empty() {
            let min = data.iter().copied().fold(f32::INFINITY, f32::min);
            let max = data.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            accessor["min"] = json!([min]);
            accessor["max"] = json!([max]);
        }
        new_accessors.push(accessor);
        accessors_before + new_accessors.len() - 1
    };
    let mut input_of_timeline = vec![None; clip.timelines.len()];
    let mut new_samplers = Vec::with_capacity(clip.tracks.len());
    for track in &clip.tracks {
        let input = match input_of_timeline.get(track.timeline).copied().flatten() {
            Some(input) => input,
            None => {
                let times = &clip
                    .timelines
                    .get(track.timeline)
                    .ok_or_else(|| {
                        ExportError::Document(format!("channel {}: no timeline {}", track.channel, track.timeline))
                    })?
                    .times_secs;
                let input = add_accessor(bin, times, "SCALAR", times.len(), true);
                input_of_timeline[track.timeline] = Some(input);
                input
            }
        };
        let (flat, ty, count): (Vec<f32>, &str, usize) = match &track.values {
            TrackValues::Translation(v) | TrackValues::Scale(v) => {
                (v.iter().flat_map(glam::Vec3::to_array).collect(), "VEC3", v.len())
            }
            TrackValues::Rotation(v) => (v.iter().flat_map(glam::Quat::to_array).collect(), "VEC4", v.len()),
            TrackValues::Weights { values, .. } => (values.clone(), "SCALAR", values.len()),
        };
        if let Some(bad) = flat.iter().position(|x| !x.is_finite()) {
            return Err(ExportError::Document(format!("channel {}: value {bad} is not finite", track.channel)));
        }
        let output = add_accessor(bin, &flat, ty, count, false);
        new_samplers.push((
            track.channel,
            json!({"input": input, "output": output, "interpolation": track.interpolation.gltf_name()}),
        ));
    }
    Ok((new_accessors, new_samplers))
}

/// Re-emit the glTF file `source` (as [`replace_clip`] does: a self-contained `.glb`, every
/// buffer in the binary chunk, external images embedded) with `clips` added as new animations
/// after its own, each named by its clip's `name`: one channel per track, targeting the
/// track's node and property (`Track::channel` and `Track::sampler` are not read).
///
/// # Errors
/// When the source does not read, a clip is not valid, a track names a node the file does not
/// have, a value is not finite, or the output exceeds 4 GiB.
pub fn add_clips(
    source: &[u8],
    base_dir: Option<&Path>,
    clips: &[RawClip],
    limits: &Limits,
) -> Result<Vec<u8>, ExportError> {
    let doc_error = |m: String| ExportError::Document(m);
    for (i, clip) in clips.iter().enumerate() {
        clip.validate().map_err(|e| doc_error(format!("new clip {i} is not valid: {e}")))?;
    }
    let (json_bytes, glb_bin) = if is_glb(source) { split_glb(source)? } else { (source, None) };
    let mut root: Value = serde_json::from_slice(json_bytes).map_err(|e| ImportError::Json(e.to_string()))?;
    if !root.is_object() {
        return Err(doc_error("the glTF document is not a JSON object".to_owned()));
    }
    let node_count = root.get("nodes").and_then(Value::as_array).map_or(0, Vec::len);
    let (mut bin, mut new_buffers) = embed_buffers(&mut root, glb_bin, base_dir, limits)?;
    let mut animations = Vec::with_capacity(clips.len());
    for (i, clip) in clips.iter().enumerate() {
        let accessors_before = root.get("accessors").and_then(Value::as_array).map_or(0, Vec::len);
        let (accessors, samplers) = write_samplers(&mut bin, accessors_before, clip)?;
        let mut channels = Vec::with_capacity(clip.tracks.len());
        let mut sampler_list = Vec::with_capacity(samplers.len());
        for (track, (_, sampler)) in clip.tracks.iter().zip(samplers) {
            if track.node.index() >= node_count {
                return Err(doc_error(format!("new clip {i}: node {} does not exist", track.node.index())));
            }
            channels.push(json!({
                "sampler": sampler_list.len(),
                "target": {"node": track.node.index(), "path": track.property().gltf_name()},
            }));
            sampler_list.push(sampler);
        }
        if let Some(existing) = root.get_mut("accessors").and_then(Value::as_array_mut) {
            existing.extend(accessors);
        } else {
            root["accessors"] = Value::Array(accessors);
        }
        let mut animation = json!({"channels": channels, "samplers": sampler_list});
        if let Some(name) = &clip.name {
            animation["name"] = json!(name);
        }
        animations.push(animation);
    }
    if let Some(existing) = root.get_mut("animations").and_then(Value::as_array_mut) {
        existing.extend(animations);
    } else {
        root["animations"] = Value::Array(animations);
    }
    if let Some(views) = root.get_mut("bufferViews").and_then(Value::as_array_mut) {
        views.extend(bin.views);
    } else {
        root["bufferViews"] = Value::Array(bin.views);
    }
    new_buffers[0] = json!({"byteLength": bin.bytes.len()});
    root["buffers"] = Value::Array(new_buffers);
    pack_glb(to_sorted_json(&root).as_bytes(), &bin.bytes)
}

/// Every buffer with data moved into one binary chunk (buffer 0 of the output) at 16-byte
/// aligned offsets, buffer views and meshopt views moved with them, fallback buffers kept
/// without data, external images embedded as buffer views. Returns the chunk being written
/// and the output's buffers (buffer 0's entry filled in by the caller once the chunk is done).
fn embed_buffers(
    root: &mut Value,
    glb_bin: Option<&[u8]>,
    base_dir: Option<&Path>,
    limits: &Limits,
) -> Result<(Bin, Vec<Value>), ExportError> {
    let doc_error = |m: String| ExportError::Document(m);
    let views_before = root.get("bufferViews").and_then(Value::as_array).map_or(0, Vec::len);
    let mut bin = Bin { bytes: Vec::new(), views: Vec::new(), first_view: views_before };

    // Buffers: those with data into the binary chunk, fallbacks kept without data.
    let buffers = root.get("buffers").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut new_buffers = vec![Value::Null];
    let mut buffer_map = Vec::with_capacity(buffers.len());
    for (i, buffer) in buffers.iter().enumerate() {
        let object = || format!("buffer {i}");
        let byte_length = buffer
            .get("byteLength")
            .and_then(Value::as_u64)
            .ok_or_else(|| doc_error(format!("{}: no byteLength", object())))?;
        let is_fallback = MESHOPT_EXTENSIONS
            .iter()
            .any(|name| buffer.pointer(&format!("/extensions/{name}/fallback")).and_then(Value::as_bool) == Some(true));
        let data = match buffer.get("uri").and_then(Value::as_str) {
            Some(uri) => {
                let max = ByteLimit { what: "file size in bytes", limit: limits.max_file_bytes };
                let object_ref = ObjectRef { kind: crate::ObjectKind::Buffer, index: i, name: None, part: None };
                Some(read_uri(uri, &object_ref, base_dir, max)?.1)
            }
            None if i == 0 && glb_bin.is_some() => glb_bin.map(<[u8]>::to_vec),
            None if is_fallback => None,
            None => return Err(doc_error(format!("{}: no uri and no GLB binary chunk", object()))),
        };
        match data {
            Some(data) => {
                let data = data.get(..byte_length as usize).ok_or_else(|| {
                    doc_error(format!(
                        "{}: byteLength is {byte_length} but the data holds {} bytes",
                        object(),
                        data.len()
                    ))
                })?;
                buffer_map.push((0, bin.append(data, 16)));
            }
            None => {
                buffer_map.push((new_buffers.len(), 0));
                new_buffers.push(buffer.clone());
            }
        }
    }

    // Buffer views (and meshopt's compressed views) move with their buffers.
    if let Some(views) = root.get_mut("bufferViews").and_then(Value::as_array_mut) {
        for (v, view) in views.iter_mut().enumerate() {
            remap_view(view, &buffer_map).map_err(|m| doc_error(format!("buffer view {v}: {m}")))?;
            for name in MESHOPT_EXTENSIONS {
                if let Some(compressed) = view.pointer_mut(&format!("/extensions/{name}")) {
                    remap_view(compressed, &buffer_map)
                        .map_err(|m| doc_error(format!("buffer view {v} ({name}): {m}")))?;
                }
            }
        }
    }

    // Images in external files are embedded.
    if let Some(images) = root.get_mut("images").and_then(Value::as_array_mut) {
        for (i, image) in images.iter_mut().enumerate() {
            let Some(uri) = image.get("uri").and_then(Value::as_str).map(str::to_owned) else { continue };
            if uri.starts_with("data:") {
                continue;
            }
            let max = ByteLimit { what: "image size in bytes", limit: limits.max_image_bytes };
            let object_ref = ObjectRef { kind: crate::ObjectKind::Image, index: i, name: None, part: None };
            let (mime, data) = read_uri(&uri, &object_ref, base_dir, max)?;
            let mime = image.get("mimeType").and_then(Value::as_str).map(str::to_owned).or(mime).ok_or_else(|| {
                doc_error(format!("image {i} (\"{uri}\"): cannot tell its type to embed it (png, jpg, webp, ktx2)"))
            })?;
            let view = bin.add_view(&data);
            if let Some(object) = image.as_object_mut() {
                object.remove("uri");
                object.insert("bufferView".to_owned(), json!(view));
                object.insert("mimeType".to_owned(), json!(mime));
            }
        }
    }
    Ok((bin, new_buffers))
}

/// Point a view (or a meshopt extension object) at its buffer's place in the output.
fn remap_view(view: &mut Value, buffer_map: &[(usize, usize)]) -> Result<(), String> {
    let buffer = view.get("buffer").and_then(Value::as_u64).ok_or("no buffer")? as usize;
    let &(new_buffer, base) = buffer_map.get(buffer).ok_or_else(|| format!("buffer {buffer} does not exist"))?;
    let offset = view.get("byteOffset").and_then(Value::as_u64).unwrap_or(0) as usize;
    view["buffer"] = json!(new_buffer);
    view["byteOffset"] = json!(base + offset);
    Ok(())
}

/// Extensions whose references to accessors and buffer views [`for_each_accessor_ref`] and
/// [`for_each_view_ref`] know (or that have none). A file using another extension could refer
/// to them where those do not look: nothing is dropped from it.
const KNOWN_EXTENSIONS: &[&str] = &[
    "KHR_animation_pointer",
    "KHR_draco_mesh_compression",
    "EXT_meshopt_compression",
    "KHR_meshopt_compression",
    "EXT_mesh_gpu_instancing",
    "KHR_mesh_quantization",
    "KHR_texture_transform",
    "KHR_texture_basisu",
    "EXT_texture_webp",
    "EXT_texture_avif",
    "KHR_lights_punctual",
    "KHR_node_visibility",
    "KHR_xmp_json_ld",
    "KHR_materials_variants",
];

/// True when every extension the file uses is one whose references are known.
fn renumbering_is_safe(root: &Value) -> bool {
    let used = root.get("extensionsUsed").and_then(Value::as_array).into_iter().flatten();
    used.filter_map(Value::as_str).all(|name| name.starts_with("KHR_materials_") || KNOWN_EXTENSIONS.contains(&name))
}

/// `value`, an index, replaced by `f(index)`.
fn visit_index(value: Option<&mut Value>, f: &mut dyn FnMut(usize) -> usize) {
    if let Some(value) = value
        && let Some(index) = value.as_u64()
    {
        *value = json!(f(index as usize));
    }
}

/// Every object's values (an `attributes` map, a morph target), as indices.
fn visit_map(value: Option<&mut Value>, f: &mut dyn FnMut(usize) -> usize) {
    for value in value.and_then(Value::as_object_mut).into_iter().flat_map(|m| m.values_mut()) {
        visit_index(Some(value), f);
    }
}

/// The items of array `key` of `value`.
fn items<'a>(value: &'a mut Value, key: &str) -> impl Iterator<Item = &'a mut Value> {
    value.get_mut(key).and_then(Value::as_array_mut).into_iter().flatten()
}

/// Animation pointers into `/{collection}/N/…`: `N` replaced by `f(N)`.
fn visit_pointers(root: &mut Value, collection: &str, f: &mut dyn FnMut(usize) -> usize) {
    let prefix = format!("/{collection}/");
    for animation in items(root, "animations") {
        for channel in items(animation, "channels") {
            let Some(pointer) = channel.pointer_mut("/target/extensions/KHR_animation_pointer/pointer") else {
                continue;
            };
            let Some(rest) = pointer.as_str().and_then(|p| p.strip_prefix(&prefix)) else { continue };
            let (index, tail) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            if let Ok(index) = index.parse::<usize>() {
                *pointer = json!(format!("{prefix}{}{tail}", f(index)));
            }
        }
    }
}

/// Every reference to an accessor in the document, as `f(index)` → its new index.
fn for_each_accessor_ref(root: &mut Value, f: &mut dyn FnMut(usize) -> usize) {
    for mesh in items(root, "meshes") {
        for primitive in items(mesh, "primitives") {
            visit_map(primitive.get_mut("attributes"), f);
            visit_index(primitive.get_mut("indices"), f);
            for target in items(primitive, "targets") {
                visit_map(Some(target), f);
            }
        }
    }
    for skin in items(root, "skins") {
        visit_index(skin.get_mut("inverseBindMatrices"), f);
    }
    for animation in items(root, "animations") {
        for sampler in items(animation, "samplers") {
            visit_index(sampler.get_mut("input"), f);
            visit_index(sampler.get_mut("output"), f);
        }
    }
    for node in items(root, "nodes") {
        visit_map(node.pointer_mut("/extensions/EXT_mesh_gpu_instancing/attributes"), f);
    }
    visit_pointers(root, "accessors", f);
}

/// Every reference to a buffer view in the document, as `f(index)` → its new index.
fn for_each_view_ref(root: &mut Value, f: &mut dyn FnMut(usize) -> usize) {
    for accessor in items(root, "accessors") {
        visit_index(accessor.get_mut("bufferView"), f);
        visit_index(accessor.pointer_mut("/sparse/indices/bufferView"), f);
        visit_index(accessor.pointer_mut("/sparse/values/bufferView"), f);
    }
    for image in items(root, "images") {
        visit_index(image.get_mut("bufferView"), f);
    }
    for mesh in items(root, "meshes") {
        for primitive in items(mesh, "primitives") {
            visit_index(primitive.pointer_mut("/extensions/KHR_draco_mesh_compression/bufferView"), f);
        }
    }
    visit_pointers(root, "bufferViews", f);
}

/// Remove the items of array `key` that `drop` marks, and renumber references with `refs`.
fn remove_items(
    root: &mut Value,
    key: &str,
    drop: &[bool],
    refs: fn(&mut Value, &mut dyn FnMut(usize) -> usize),
) -> Vec<Value> {
    let mut new_index = Vec::with_capacity(drop.len());
    let mut next = 0;
    for &gone in drop {
        new_index.push(next);
        next += usize::from(!gone);
    }
    refs(root, &mut |i| new_index.get(i).copied().unwrap_or(i));
    let Some(list) = root.get_mut(key).and_then(Value::as_array_mut) else { return Vec::new() };
    let mut removed = Vec::new();
    let mut i = 0;
    list.retain_mut(|item| {
        let keep = !drop.get(i).copied().unwrap_or(false);
        i += 1;
        if !keep {
            removed.push(std::mem::take(item));
        }
        keep
    });
    removed
}

/// Which items of array `key` the document refers to (`refs`).
fn referenced(root: &mut Value, key: &str, refs: fn(&mut Value, &mut dyn FnMut(usize) -> usize)) -> Vec<bool> {
    let count = root.get(key).and_then(Value::as_array).map_or(0, Vec::len);
    let mut used = vec![false; count];
    refs(root, &mut |i| {
        if let Some(u) = used.get_mut(i) {
            *u = true;
        }
        i
    });
    used
}

/// Drop the accessors of `candidates` nothing refers to any more, then the buffer views only
/// they used, then the bytes of `bin` (buffer 0) no remaining view covers; every reference is
/// renumbered and every view moved keeps its offset modulo 16 (so its alignment).
fn drop_unused(root: &mut Value, bin: &mut Vec<u8>, candidates: &[usize]) -> Result<(), String> {
    let used = referenced(root, "accessors", for_each_accessor_ref);
    let mut drop_accessor = vec![false; used.len()];
    for &c in candidates {
        if let Some(false) = used.get(c) {
            drop_accessor[c] = true;
        }
    }
    if !drop_accessor.contains(&true) {
        return Ok(());
    }
    let removed = remove_items(root, "accessors", &drop_accessor, for_each_accessor_ref);
    let view_candidates: Vec<usize> = removed
        .iter()
        .flat_map(|a| ["/bufferView", "/sparse/indices/bufferView", "/sparse/values/bufferView"].map(|p| a.pointer(p)))
        .flatten()
        .filter_map(Value::as_u64)
        .map(|v| v as usize)
        .collect();
    let used = referenced(root, "bufferViews", for_each_view_ref);
    let mut drop_view = vec![false; used.len()];
    for c in view_candidates {
        if let Some(false) = used.get(c) {
            drop_view[c] = true;
        }
    }
    remove_items(root, "bufferViews", &drop_view, for_each_view_ref);

    // The bytes of buffer 0 that views (and meshopt's compressed views) still cover.
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    let in_bin = |view: &Value| -> Result<Option<(usize, usize)>, String> {
        if view.get("buffer").and_then(Value::as_u64) != Some(0) {
            return Ok(None);
        }
        let start = view.get("byteOffset").and_then(Value::as_u64).unwrap_or(0) as usize;
        let length = view.get("byteLength").and_then(Value::as_u64).ok_or("a buffer view has no byteLength")? as usize;
        let end = start.checked_add(length).filter(|&e| e <= bin.len()).ok_or("a buffer view lies past its buffer")?;
        Ok(Some((start, end)))
    };
    for view in root.get("bufferViews").and_then(Value::as_array).into_iter().flatten() {
        ranges.extend(in_bin(view)?);
        for name in MESHOPT_EXTENSIONS {
            if let Some(compressed) = view.pointer(&format!("/extensions/{name}")) {
                ranges.extend(in_bin(compressed)?);
            }
        }
    }
    ranges.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (start, end) in ranges {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    // Each kept range moved down to the next offset with its old offset modulo 16.
    let mut compact = Vec::with_capacity(bin.len());
    let mut moves = Vec::with_capacity(merged.len());
    for &(start, end) in &merged {
        let mut at = compact.len();
        at += (start % 16 + 16 - at % 16) % 16;
        compact.resize(at, 0);
        compact.extend_from_slice(&bin[start..end]);
        moves.push((start, end, at));
    }
    let moved = |offset: usize| {
        moves.iter().find(|&&(s, e, _)| offset >= s && offset <= e).map_or(offset, |&(s, _, at)| at + offset - s)
    };
    let relocate = |view: &mut Value| {
        if view.get("buffer").and_then(Value::as_u64) == Some(0) {
            let offset = view.get("byteOffset").and_then(Value::as_u64).unwrap_or(0) as usize;
            view["byteOffset"] = json!(moved(offset));
        }
    };
    for view in items(root, "bufferViews") {
        relocate(view);
        for name in MESHOPT_EXTENSIONS {
            if let Some(compressed) = view.pointer_mut(&format!("/extensions/{name}")) {
                relocate(compressed);
            }
        }
    }
    *bin = compact;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glb_container_is_padded_and_sized() {
        let glb = pack_glb(b"{\"a\":1}", &[1, 2, 3]).expect("fits");
        assert_eq!(glb.len() % 4, 0);
        assert_eq!(u32::from_le_bytes([glb[8], glb[9], glb[10], glb[11]]) as usize, glb.len());
        let (json, bin) = split_glb(&glb).expect("splits");
        assert_eq!(json, b"{\"a\":1} ");
        assert_eq!(bin, Some(&[1, 2, 3, 0][..]));
    }

    #[test]
    fn sorted_json_is_independent_of_insertion_order() {
        let a = json!({"b": 1, "a": [true, null, {"d": 2.5, "c": "x"}]});
        assert_eq!(to_sorted_json(&a), r#"{"a":[true,null,{"c":"x","d":2.5}],"b":1}"#);
    }

    #[test]
    fn replaced_keys_go_with_their_views_and_bytes_and_every_reference_is_renumbered() {
        // A file after its animation got new samplers (accessors 5 and 6 on views 6 and 7): the
        // old keys (accessors 0 and 1 on views 0 and 1) come first, so everything after them moves.
        let view = |offset: usize, length: usize| json!({"buffer": 0, "byteOffset": offset, "byteLength": length});
        let mut root = json!({
            "extensionsUsed": ["EXT_meshopt_compression", "EXT_mesh_gpu_instancing", "KHR_animation_pointer"],
            "bufferViews": [
                view(0, 8), view(8, 16), view(32, 12), view(48, 4), view(52, 8),
                {"buffer": 1, "byteLength": 16, "extensions": {"EXT_meshopt_compression": view(60, 4)}},
                view(64, 8), view(72, 8),
            ],
            "accessors": [
                {"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR"},
                {"bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC2"},
                {"bufferView": 2, "componentType": 5126, "count": 1, "type": "VEC3"},
                {"componentType": 5126, "count": 1, "type": "VEC3",
                 "sparse": {"count": 1, "indices": {"bufferView": 3, "componentType": 5125}, "values": {"bufferView": 2}}},
                {"bufferView": 5, "componentType": 5126, "count": 1, "type": "VEC3"},
                {"bufferView": 6, "componentType": 5126, "count": 2, "type": "SCALAR"},
                {"bufferView": 7, "componentType": 5126, "count": 2, "type": "SCALAR"},
            ],
            "images": [{"bufferView": 4, "mimeType": "image/png"}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 2}, "targets": [{"POSITION": 4}]}]}],
            "nodes": [{"mesh": 0, "extensions": {"EXT_mesh_gpu_instancing": {"attributes": {"TRANSLATION": 3}}}}],
            "animations": [{
                "samplers": [{"input": 5, "output": 6}],
                "channels": [{"sampler": 0, "target": {"path": "pointer", "extensions":
                    {"KHR_animation_pointer": {"pointer": "/accessors/6/max"}}}}],
            }],
        });
        assert!(renumbering_is_safe(&root));
        let mut bin: Vec<u8> = (0..80).collect();
        drop_unused(&mut root, &mut bin, &[0, 1]).expect("drops");

        let accessors = root["accessors"].as_array().expect("accessors");
        assert_eq!(accessors.len(), 5);
        assert_eq!(
            root["meshes"][0]["primitives"][0],
            json!({"attributes": {"POSITION": 0}, "targets": [{"POSITION": 2}]})
        );
        assert_eq!(root["nodes"][0]["extensions"]["EXT_mesh_gpu_instancing"]["attributes"]["TRANSLATION"], 1);
        assert_eq!(root["animations"][0]["samplers"][0], json!({"input": 3, "output": 4}));
        assert_eq!(
            root["animations"][0]["channels"][0]["target"]["extensions"]["KHR_animation_pointer"]["pointer"],
            "/accessors/4/max"
        );
        assert_eq!(accessors[1]["sparse"]["indices"]["bufferView"], 1);
        assert_eq!(accessors[1]["sparse"]["values"]["bufferView"], 0);
        assert_eq!(root["images"][0]["bufferView"], 2);
        let views = root["bufferViews"].as_array().expect("views");
        assert_eq!(views.len(), 6);
        assert_eq!([accessors[0]["bufferView"].clone(), accessors[2]["bufferView"].clone()], [json!(0), json!(3)]);
        assert_eq!([accessors[3]["bufferView"].clone(), accessors[4]["bufferView"].clone()], [json!(4), json!(5)]);
        // The old keys' 24 bytes are gone; what is kept sits at its old offset modulo 16, and each
        // view still reads its own bytes.
        assert_eq!(bin.len(), 48);
        let bytes_of = |v: &Value| {
            let offset = v["byteOffset"].as_u64().expect("offset") as usize;
            assert_eq!(offset % 4, 0);
            bin[offset..offset + v["byteLength"].as_u64().expect("length") as usize].to_vec()
        };
        assert_eq!(bytes_of(&views[0]), (32..44).collect::<Vec<u8>>());
        assert_eq!(bytes_of(&views[2]), (52..60).collect::<Vec<u8>>());
        assert_eq!(bytes_of(&views[3]["extensions"]["EXT_meshopt_compression"]), (60..64).collect::<Vec<u8>>());
        assert_eq!(views[3]["buffer"], 1, "the fallback buffer's view keeps its place");
        assert_eq!(bytes_of(&views[5]), (72..80).collect::<Vec<u8>>());

        // An extension whose references are not known: nothing is dropped.
        root["extensionsUsed"] = json!(["VENDOR_refers_to_views"]);
        assert!(!renumbering_is_safe(&root));
    }
}

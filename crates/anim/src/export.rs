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
use crate::track::{Interpolation, TrackValues};

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
/// more are dropped, their accessors stay. Everything else is kept as it was: every buffer with
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

    // The new keys.
    let accessors_before = root.get("accessors").and_then(Value::as_array).map_or(0, Vec::len);
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
        let input = match input_of_timeline[track.timeline] {
            Some(input) => input,
            None => {
                let times = &clip.timelines[track.timeline].times_secs;
                let input = add_accessor(&mut bin, times, "SCALAR", times.len(), true);
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
            return Err(doc_error(format!("channel {}: value {bad} is not finite", track.channel)));
        }
        let output = add_accessor(&mut bin, &flat, ty, count, false);
        let interpolation = match track.interpolation {
            Interpolation::Step => "STEP",
            Interpolation::Linear => "LINEAR",
            Interpolation::CubicSpline => "CUBICSPLINE",
        };
        new_samplers.push((track.channel, json!({"input": input, "output": output, "interpolation": interpolation})));
    }
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
    new_buffers[0] = json!({"byteLength": bin.bytes.len()});
    root["buffers"] = Value::Array(new_buffers);
    pack_glb(to_sorted_json(&root).as_bytes(), &bin.bytes)
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
}

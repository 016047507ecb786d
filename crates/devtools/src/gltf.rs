//! A small glTF writer for tests and generators: build a document from Rust arrays (or open a
//! `.glb` and edit it), then write it as `.glb` or as `.gltf` with the buffer in a `data:` URI.
//!
//! ```
//! use devtools::gltf::Doc;
//! use serde_json::json;
//!
//! let mut doc = Doc::new();
//! doc.add_node(json!({"name": "root", "translation": [0.0, 1.0, 0.0]}));
//! doc.add_animation(Some("bob"), &[(0, "translation", &[0.0, 1.0], &[0.0, 0.0, 0.0, 0.0, 1.0, 0.0], "LINEAR")]);
//! let model = anim::import::load_slice(&doc.to_glb(), None).expect("loads");
//! assert_eq!(model.clips().len(), 1);
//! ```
//!
//! Anything the helpers do not cover is plain JSON: `doc.json` is public, [`Doc::push`] appends
//! to a top-level array and [`Doc::sampler`] makes a sampler over new accessors, e.g. a
//! `KHR_animation_pointer` channel:
//!
//! ```
//! # use devtools::gltf::Doc;
//! # use serde_json::json;
//! let mut doc = Doc::new();
//! doc.add_node(json!({"name": "lamp"}));
//! let sampler = doc.sampler(&[0.0, 1.0], &[0.0, 1.0], "SCALAR", "LINEAR");
//! doc.push("animations", json!({"samplers": [sampler], "channels": [{"sampler": 0, "target": {
//!     "path": "pointer",
//!     "extensions": {"KHR_animation_pointer": {"pointer": "/materials/0/emissiveStrength"}}
//! }}]}));
//! doc.json["extensionsUsed"] = json!(["KHR_animation_pointer"]);
//! let glb = doc.to_glb();
//! # assert!(glb.starts_with(b"glTF"));
//! ```
//!
//! A rig at another scale: `Doc::from_glb(bytes)?.wrap_in_scaled_root(0.01)`.
//!
//! Output is deterministic: object keys are written sorted, whatever `serde_json`'s map features.

use serde_json::{Value, json};

/// `componentType` of `FLOAT` accessors.
pub const FLOAT: u32 = 5126;
/// `componentType` of `UNSIGNED_BYTE` accessors.
pub const UNSIGNED_BYTE: u32 = 5121;
/// `componentType` of `UNSIGNED_SHORT` accessors.
pub const UNSIGNED_SHORT: u32 = 5123;

/// One animation channel for [`Doc::add_animation`]: `(node, path, times, values, interpolation)`.
pub type Channel<'a> = (usize, &'a str, &'a [f32], &'a [f32], &'a str);

/// A glTF document under construction; all binary data goes to one buffer.
#[derive(Debug, Clone)]
pub struct Doc {
    /// The JSON, freely editable (`buffers` is written by [`Doc::to_glb`] / [`Doc::to_gltf`]
    /// unless it is set here).
    pub json: Value,
    /// The binary buffer.
    pub bin: Vec<u8>,
    /// Byte offset in `bin` of each buffer view added through this builder.
    view_offsets: Vec<usize>,
}

impl Default for Doc {
    fn default() -> Self {
        Self::new()
    }
}

impl Doc {
    /// An empty glTF 2.0 document.
    pub fn new() -> Self {
        Self { json: json!({"asset": {"version": "2.0"}}), bin: Vec::new(), view_offsets: Vec::new() }
    }

    /// An empty document naming its generator in `asset.generator`.
    pub fn with_generator(generator: &str) -> Self {
        let mut doc = Self::new();
        doc.json["asset"]["generator"] = json!(generator);
        doc
    }

    /// The document of a `.glb` file, to edit and write again (buffer views keep their offsets;
    /// new data is appended to the binary chunk).
    ///
    /// # Errors
    /// When `bytes` is not a GLB container with a JSON chunk.
    pub fn from_glb(bytes: &[u8]) -> Result<Self, String> {
        let (json, bin) = unpack_glb(bytes)?;
        let mut doc = Self { json, bin, view_offsets: Vec::new() };
        if let Some(views) = doc.json.get("bufferViews").and_then(Value::as_array) {
            doc.view_offsets = views.iter().map(|v| v["byteOffset"].as_u64().unwrap_or(0) as usize).collect();
        }
        Ok(doc)
    }

    /// Add (or replace) the top-level fields of the object `fields`.
    pub fn merge(&mut self, fields: Value) {
        if let (Some(root), Value::Object(fields)) = (self.json.as_object_mut(), fields) {
            root.extend(fields);
        }
    }

    /// Append `value` to the top-level array `key` (created when missing); returns its index.
    pub fn push(&mut self, key: &str, value: Value) -> usize {
        if !self.json.get(key).is_some_and(Value::is_array) {
            self.json[key] = json!([]);
        }
        let Some(array) = self.json[key].as_array_mut() else { unreachable!("made an array above") };
        array.push(value);
        array.len() - 1
    }

    /// Append raw bytes (4-byte aligned) as a buffer view; returns its index.
    pub fn add_view(&mut self, bytes: &[u8]) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        let index = self.push("bufferViews", json!({"buffer": 0, "byteOffset": offset, "byteLength": bytes.len()}));
        self.view_offsets.resize(index + 1, 0);
        self.view_offsets[index] = offset;
        index
    }

    /// An accessor over raw bytes, in a buffer view of its own.
    pub fn add_raw(&mut self, bytes: &[u8], component_type: u32, ty: &str, count: usize, normalized: bool) -> usize {
        let view = self.add_view(bytes);
        let mut accessor = json!({"bufferView": view, "componentType": component_type, "type": ty, "count": count});
        if normalized {
            accessor["normalized"] = json!(true);
        }
        self.push("accessors", accessor)
    }

    /// A FLOAT accessor of `ty` (`SCALAR`, `VEC2`, `VEC3`, `VEC4`, `MAT4`) holding `data`; a
    /// finite, non-empty SCALAR one gets `min` and `max` (as glTF requires for key times).
    pub fn add_f32(&mut self, data: &[f32], ty: &str) -> usize {
        let index = self.add_raw(&f32_bytes(data), FLOAT, ty, data.len() / components(ty), false);
        if ty == "SCALAR" && !data.is_empty() && data.iter().all(|x| x.is_finite()) {
            let min = data.iter().copied().fold(f32::INFINITY, f32::min);
            let max = data.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            self.json["accessors"][index]["min"] = json!([min]);
            self.json["accessors"][index]["max"] = json!([max]);
        }
        index
    }

    /// Overwrite the 32-bit word `component` of accessor `accessor`'s data (for breaking files on
    /// purpose). The accessor must be one this builder added.
    pub fn set_u32(&mut self, accessor: usize, component: usize, bits: u32) {
        let view = self.json["accessors"][accessor]["bufferView"].as_u64().unwrap_or(0) as usize;
        let at = self.view_offsets[view] + component * 4;
        self.bin[at..at + 4].copy_from_slice(&bits.to_le_bytes());
    }

    /// [`Self::set_u32`] with a float.
    pub fn set_f32(&mut self, accessor: usize, component: usize, value: f32) {
        self.set_u32(accessor, component, value.to_bits());
    }

    /// Add a node; returns its index.
    pub fn add_node(&mut self, node: Value) -> usize {
        self.push("nodes", node)
    }

    /// Add a mesh; returns its index.
    pub fn add_mesh(&mut self, mesh: Value) -> usize {
        self.push("meshes", mesh)
    }

    /// Add a one-triangle mesh with `targets` morph targets (target `t` moves vertex 0 by
    /// `t + 1` along y).
    pub fn add_morph_triangle(&mut self, targets: usize) -> usize {
        let positions = self.add_f32(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3");
        let target_list: Vec<Value> = (0..targets)
            .map(|t| {
                let d = self.add_f32(&[0.0, t as f32 + 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], "VEC3");
                json!({"POSITION": d})
            })
            .collect();
        self.add_mesh(json!({"primitives": [{"attributes": {"POSITION": positions}, "targets": target_list}]}))
    }

    /// A sampler over two new accessors: `{input, output, interpolation}` as glTF JSON.
    pub fn sampler(&mut self, times: &[f32], values: &[f32], ty: &str, interpolation: &str) -> Value {
        let input = self.add_f32(times, "SCALAR");
        let output = self.add_f32(values, ty);
        json!({"input": input, "output": output, "interpolation": interpolation})
    }

    /// Add an animation with one channel per `(node, path, times, values, interpolation)`;
    /// returns its index.
    pub fn add_animation(&mut self, name: Option<&str>, channels: &[Channel<'_>]) -> usize {
        let mut samplers = Vec::new();
        let mut targets = Vec::new();
        for (i, (node, path, times, values, interpolation)) in channels.iter().enumerate() {
            let ty = match *path {
                "rotation" => "VEC4",
                "weights" => "SCALAR",
                _ => "VEC3",
            };
            samplers.push(self.sampler(times, values, ty, interpolation));
            targets.push(json!({"sampler": i, "target": {"node": node, "path": path}}));
        }
        let mut animation = json!({"samplers": samplers, "channels": targets});
        if let Some(name) = name {
            animation["name"] = json!(name);
        }
        self.push("animations", animation)
    }

    /// Give the channel of animation `animation` (by name) that animates `path` of the node
    /// named `node` a new sampler over `times` and `values` (a "new export" of one channel);
    /// the old sampler stays, unused by it. The buffer's `byteLength` follows the new data.
    ///
    /// # Panics
    /// When the animation, the node or such a channel does not exist.
    pub fn replace_channel_keys(
        &mut self,
        animation: &str,
        node: &str,
        path: &str,
        (times, values, interpolation): (&[f32], &[f32], &str),
    ) {
        let node_index = self.json["nodes"].as_array().and_then(|n| n.iter().position(|n| n["name"] == node));
        let node_index = node_index.unwrap_or_else(|| panic!("no node \"{node}\""));
        let animations = self.json["animations"].as_array().cloned().unwrap_or_default();
        let a = animations.iter().position(|a| a["name"] == animation);
        let a = a.unwrap_or_else(|| panic!("no animation \"{animation}\""));
        let channel = animations[a]["channels"]
            .as_array()
            .and_then(|c| c.iter().position(|c| c["target"]["node"] == node_index && c["target"]["path"] == path));
        let channel = channel.unwrap_or_else(|| panic!("{animation} has no {path} channel for {node}"));
        let ty = match path {
            "rotation" => "VEC4",
            "weights" => "SCALAR",
            _ => "VEC3",
        };
        let sampler = self.sampler(times, values, ty, interpolation);
        let samplers = &mut self.json["animations"][a]["samplers"];
        let index = samplers.as_array().map_or(0, Vec::len);
        if let Some(samplers) = samplers.as_array_mut() {
            samplers.push(sampler);
        }
        self.json["animations"][a]["channels"][channel]["sampler"] = json!(index);
        if self.json.get("buffers").is_some() {
            self.json["buffers"][0]["byteLength"] = json!(self.bin.len());
        }
    }

    /// Put every scene's roots under one new root node scaled by `scale` (how centimetre
    /// exports arrive: x0.01); node indices of the original stay valid. Returns the new node.
    pub fn wrap_in_scaled_root(&mut self, scale: f32) -> usize {
        let scenes = self.json.get("scenes").and_then(Value::as_array).cloned().unwrap_or_default();
        let roots: Vec<Value> =
            scenes.iter().flat_map(|s| s["nodes"].as_array().cloned().unwrap_or_default()).collect();
        let root = self.add_node(json!({"name": "scaled root", "scale": [scale, scale, scale], "children": roots}));
        if scenes.is_empty() {
            self.json["scenes"] = json!([{"nodes": [root]}]);
            self.json["scene"] = json!(0);
        } else if let Some(scenes) = self.json["scenes"].as_array_mut() {
            for scene in scenes {
                scene["nodes"] = json!([root]);
            }
        }
        root
    }

    /// The JSON with `buffers` describing the binary buffer: made when the document has none,
    /// kept as it is otherwise (a test may make it lie); for `.gltf`, buffer 0 gets `uri` unless
    /// it has one.
    fn json_with_buffer(&self, uri: Option<String>) -> Value {
        let mut json = self.json.clone();
        if json.get("buffers").is_none() && !self.bin.is_empty() {
            json["buffers"] = json!([{"byteLength": self.bin.len()}]);
        }
        if let (Some(uri), Some(buffer)) = (uri, json.get_mut("buffers").and_then(|b| b.get_mut(0)))
            && buffer.get("uri").is_none()
        {
            buffer["uri"] = json!(uri);
        }
        json
    }

    /// The document as `.gltf` JSON with the buffer embedded as a base64 `data:` URI.
    pub fn to_gltf(&self) -> Vec<u8> {
        let uri = format!("data:application/octet-stream;base64,{}", base64(&self.bin));
        to_sorted_json(&self.json_with_buffer(Some(uri))).into_bytes()
    }

    /// The document as `.glb`.
    pub fn to_glb(&self) -> Vec<u8> {
        pack_glb(to_sorted_json(&self.json_with_buffer(None)).as_bytes(), &self.bin)
    }

    /// Import the `.gltf` form with the animation core.
    ///
    /// # Errors
    /// Whatever the importer finds wrong.
    #[allow(clippy::result_large_err)]
    pub fn load(&self) -> Result<anim::Model, anim::ImportError> {
        anim::import::load_slice(&self.to_gltf(), None)
    }
}

/// Components per element of an accessor type.
///
/// # Panics
/// On a type glTF does not have.
pub fn components(ty: &str) -> usize {
    match ty {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" | "MAT2" => 4,
        "MAT3" => 9,
        "MAT4" => 16,
        other => panic!("unknown accessor type {other}"),
    }
}

/// Little-endian bytes of `values`.
pub fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A GLB container of `json` and `bin` ([`anim::export::pack_glb`], the one GLB writer).
///
/// # Panics
/// When the container would exceed 4 GiB.
pub fn pack_glb(json: &[u8], bin: &[u8]) -> Vec<u8> {
    anim::export::pack_glb(json, bin).unwrap_or_else(|e| panic!("{e}"))
}

/// The JSON document and the BIN chunk (empty when there is none) of a GLB container.
///
/// # Errors
/// When `bytes` is not a GLB container with a parseable JSON chunk.
pub fn unpack_glb(bytes: &[u8]) -> Result<(Value, Vec<u8>), String> {
    let word = |at: usize| -> Result<usize, String> {
        let b = bytes.get(at..at + 4).ok_or_else(|| format!("truncated at byte {at}"))?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    if !bytes.starts_with(b"glTF") {
        return Err("not a GLB container (no glTF magic)".to_owned());
    }
    let json_len = word(12)?;
    let json = bytes.get(20..20 + json_len).ok_or("truncated JSON chunk")?;
    let json: Value = serde_json::from_slice(json).map_err(|e| format!("JSON chunk: {e}"))?;
    let at = 20 + json_len;
    let bin = match word(at) {
        Ok(len) if bytes.get(at + 4..at + 8) == Some(b"BIN\0") => {
            bytes.get(at + 8..at + 8 + len).ok_or("truncated BIN chunk")?.to_vec()
        }
        _ => Vec::new(),
    };
    Ok((json, bin))
}

/// Standard base64 with padding (RFC 4648).
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            out.push(if i <= chunk.len() { char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]) } else { '=' });
        }
    }
    out
}

pub use anim::export::to_sorted_json;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        let vectors =
            [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE=")];
        for (plain, encoded) in vectors {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
    }

    #[test]
    fn glb_round_trips_and_a_scaled_root_keeps_node_indices() {
        let mut doc = Doc::with_generator("devtools test");
        let child = doc.add_node(json!({"name": "hip", "translation": [0.0, 1.0, 0.0]}));
        let root = doc.add_node(json!({"name": "root", "children": [child]}));
        doc.json["scenes"] = json!([{"nodes": [root]}]);
        doc.add_animation(Some("up"), &[(child, "translation", &[0.0, 1.0], &[0.0, 1.0, 0.0, 0.0, 2.0, 0.0], "STEP")]);
        let glb = doc.to_glb();
        assert_eq!(glb.len() % 4, 0);
        let mut back = Doc::from_glb(&glb).expect("unpacks");
        assert_eq!(back.json["nodes"], doc.json["nodes"]);
        assert_eq!(back.bin, doc.bin);
        let scaled = back.wrap_in_scaled_root(0.01);
        let model = anim::import::load_slice(&back.to_glb(), None).expect("loads");
        assert_eq!(model.nodes().len(), 3);
        assert_eq!(model.scene_roots(), vec![anim::NodeId::from_index(scaled)]);
        assert_eq!(model.hierarchy.parent(anim::NodeId::from_index(root)), Some(anim::NodeId::from_index(scaled)));
        assert_eq!(model.clips()[0].tracks()[0].node, anim::NodeId::from_index(child));
        assert!(unpack_glb(b"nope").is_err());
    }
}

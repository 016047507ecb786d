//! A tiny glTF writer for tests: build documents from Rust arrays, then import them.
#![allow(dead_code, clippy::unwrap_used, clippy::type_complexity, clippy::result_large_err)]

use anim::{ImportError, Model};
use serde_json::{Value, json};

/// A glTF document under construction; all data goes to one buffer.
pub struct Doc {
    /// The JSON, freely editable by tests.
    pub json: Value,
    /// The binary buffer.
    pub bin: Vec<u8>,
}

impl Default for Doc {
    fn default() -> Self {
        Self::new()
    }
}

impl Doc {
    /// An empty glTF 2.0 document.
    pub fn new() -> Self {
        Self { json: json!({"asset": {"version": "2.0"}}), bin: Vec::new() }
    }

    fn push(&mut self, key: &str, value: Value) -> usize {
        let array = self.json.as_object_mut().unwrap().entry(key).or_insert_with(|| json!([]));
        let array = array.as_array_mut().unwrap();
        array.push(value);
        array.len() - 1
    }

    /// Append raw bytes as a buffer view; returns its index.
    pub fn add_view(&mut self, bytes: &[u8]) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.push("bufferViews", json!({"buffer": 0, "byteOffset": offset, "byteLength": bytes.len()}))
    }

    /// An accessor over raw bytes.
    pub fn add_raw(&mut self, bytes: &[u8], component_type: u32, ty: &str, count: usize, normalized: bool) -> usize {
        let view = self.add_view(bytes);
        let mut a = json!({"bufferView": view, "componentType": component_type, "type": ty, "count": count});
        if normalized {
            a["normalized"] = json!(true);
        }
        self.push("accessors", a)
    }

    /// A FLOAT accessor of `ty` ("SCALAR", "VEC3", ...) holding `data`.
    pub fn add_f32(&mut self, data: &[f32], ty: &str) -> usize {
        let n = match ty {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            "MAT4" => 16,
            _ => panic!("type {ty}"),
        };
        let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
        let index = self.add_raw(&bytes, 5126, ty, data.len() / n, false);
        if ty == "SCALAR" && data.iter().all(|x| x.is_finite()) && !data.is_empty() {
            let min = data.iter().copied().fold(f32::INFINITY, f32::min);
            let max = data.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            self.json["accessors"][index]["min"] = json!([min]);
            self.json["accessors"][index]["max"] = json!([max]);
        }
        index
    }

    /// Add a node; returns its index.
    pub fn add_node(&mut self, node: Value) -> usize {
        self.push("nodes", node)
    }

    /// Add a mesh; returns its index.
    pub fn add_mesh(&mut self, mesh: Value) -> usize {
        self.push("meshes", mesh)
    }

    /// Add a one-triangle mesh with `targets` morph targets.
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

    /// Add an animation with one channel per `(node, path, times, values, interpolation)`.
    pub fn add_animation(&mut self, name: Option<&str>, channels: &[(usize, &str, &[f32], &[f32], &str)]) -> usize {
        let mut samplers = Vec::new();
        let mut chans = Vec::new();
        for (i, (node, path, times, values, interpolation)) in channels.iter().enumerate() {
            let input = self.add_f32(times, "SCALAR");
            let ty = match *path {
                "rotation" => "VEC4",
                "weights" => "SCALAR",
                _ => "VEC3",
            };
            let output = self.add_f32(values, ty);
            samplers.push(json!({"input": input, "output": output, "interpolation": interpolation}));
            chans.push(json!({"sampler": i, "target": {"node": node, "path": path}}));
        }
        let mut a = json!({"samplers": samplers, "channels": chans});
        if let Some(name) = name {
            a["name"] = json!(name);
        }
        self.push("animations", a)
    }

    fn json_with_buffer(&self, uri: Option<String>) -> Value {
        let mut json = self.json.clone();
        if !self.bin.is_empty() {
            let mut buffer = json!({"byteLength": self.bin.len()});
            if let Some(uri) = uri {
                buffer["uri"] = json!(uri);
            }
            json["buffers"] = json!([buffer]);
        }
        json
    }

    /// The document as .gltf JSON with the buffer in a data: URI.
    pub fn to_gltf(&self) -> Vec<u8> {
        let uri = format!("data:application/octet-stream;base64,{}", base64(&self.bin));
        serde_json::to_vec(&self.json_with_buffer(Some(uri))).unwrap()
    }

    /// The document as .glb.
    pub fn to_glb(&self) -> Vec<u8> {
        let mut json = serde_json::to_vec(&self.json_with_buffer(None)).unwrap();
        while !json.len().is_multiple_of(4) {
            json.push(b' ');
        }
        let mut bin = self.bin.clone();
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        let total = 12 + 8 + json.len() + if bin.is_empty() { 0 } else { 8 + bin.len() };
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(total as u32).to_le_bytes());
        out.extend_from_slice(&(json.len() as u32).to_le_bytes());
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&json);
        if !bin.is_empty() {
            out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
            out.extend_from_slice(b"BIN\0");
            out.extend_from_slice(&bin);
        }
        out
    }

    /// Import the .gltf form.
    pub fn load(&self) -> Result<Model, ImportError> {
        anim::import::load_slice(&self.to_gltf(), None)
    }
}

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The shared models folder beside the project, or `None` (with a note) when it is absent
/// outside CI. Under `CI=true` a missing folder fails the test.
pub fn shared_models() -> Option<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/models");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(std::env::var("CI").as_deref() != Ok("true"), "CI=true but {} is missing", dir.display());
    eprintln!("skipped: {} not found", dir.display());
    None
}

//! The corpus of malformed glTF files in `tests/bad` (`cargo xtask generate bad-corpus`): each
//! one is a small valid model, built here, broken in one way, with the error the importer must
//! give for it. `tests/bad_corpus.rs` checks the files and `EXPECTED.txt` stay in sync with
//! this generator and that every file fails exactly as expected;
//! `crates/anim/tests/fuzz_smoke.rs` seeds its fuzzer with [`valid_glb`].

use std::fmt::Write as _;
use std::path::Path;

use serde_json::json;

use crate::gltf::{Doc, f32_bytes, to_sorted_json};

/// The manifest's file name inside the corpus folder.
pub const MANIFEST: &str = "EXPECTED.txt";

/// The error a corpus file must produce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    /// `ImportError::Invalid` with this `Problem` variant on this object (`ObjectKind` variant
    /// name and index).
    Invalid {
        /// `Problem` variant name, e.g. `IndexOutOfRange`.
        problem: String,
        /// `ObjectKind` variant name, e.g. `Node`.
        kind: String,
        /// The object's index.
        index: usize,
    },
    /// `ImportError::Glb` whose message contains this text.
    Glb(String),
    /// `ImportError::Json` whose message contains this text.
    Json(String),
    /// `ImportError::NotGltf` (neither GLB nor JSON) whose message contains this text.
    NotGltf(String),
}

impl Expected {
    fn invalid(problem: &str, kind: &str, index: usize) -> Self {
        Self::Invalid { problem: problem.to_owned(), kind: kind.to_owned(), index }
    }

    /// The manifest form: `Invalid PROBLEM KIND INDEX`, `Glb TEXT`, `Json TEXT` or `NotGltf TEXT`.
    pub fn to_manifest(&self) -> String {
        match self {
            Self::Invalid { problem, kind, index } => format!("Invalid {problem} {kind} {index}"),
            Self::Glb(text) => format!("Glb {text}"),
            Self::Json(text) => format!("Json {text}"),
            Self::NotGltf(text) => format!("NotGltf {text}"),
        }
    }

    /// Parse [`Expected::to_manifest`]'s form.
    pub fn parse(text: &str) -> Option<Self> {
        let (variant, rest) = text.split_once(' ')?;
        match variant {
            "Invalid" => {
                let mut parts = rest.split(' ');
                let (problem, kind, index) = (parts.next()?, parts.next()?, parts.next()?.parse().ok()?);
                parts.next().is_none().then(|| Self::invalid(problem, kind, index))
            }
            "Glb" => Some(Self::Glb(rest.to_owned())),
            "Json" => Some(Self::Json(rest.to_owned())),
            "NotGltf" => Some(Self::NotGltf(rest.to_owned())),
            _ => None,
        }
    }
}

/// One malformed file.
#[derive(Debug, Clone)]
pub struct BadFile {
    /// File name (`.glb` or `.gltf`).
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// What importing it must give.
    pub expected: Expected,
}

// Accessor indices of the valid model.
const POSITIONS: usize = 0;
const JOINTS: usize = 1;
const INDICES: usize = 3;
const IBM: usize = 5;
const TIMES: usize = 6;
const ROTATIONS: usize = 7;
const TRANSLATIONS: usize = 8;
const SCALES: usize = 9;

/// The valid model: a document whose every accessor has its own buffer view (of the same
/// index).
#[derive(Clone)]
struct Base {
    doc: Doc,
    /// Each accessor's byte offset in the buffer.
    offsets: Vec<usize>,
}

impl Base {
    /// A skinned, morphing, animated quad: two joints, one morph target, one clip with LINEAR,
    /// STEP and CUBICSPLINE samplers over one shared three-key timeline.
    fn new() -> Self {
        let mut doc = Doc::with_generator("animtune bad-corpus");
        let mut offsets = Vec::new();
        let mut accessor = |doc: &mut Doc, bytes: &[u8], component_type: u32, ty: &str, count: usize| {
            let index = doc.add_raw(bytes, component_type, ty, count, false);
            offsets.push(doc.json["bufferViews"][index]["byteOffset"].as_u64().unwrap_or(0) as usize);
        };
        let quad = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0];
        accessor(&mut doc, &f32_bytes(&quad), 5126, "VEC3", 4);
        accessor(&mut doc, &[0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0], 5121, "VEC4", 4);
        let weights = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0];
        accessor(&mut doc, &f32_bytes(&weights), 5126, "VEC4", 4);
        let indices: Vec<u8> = [0u16, 1, 2, 2, 1, 3].iter().flat_map(|i| i.to_le_bytes()).collect();
        accessor(&mut doc, &indices, 5123, "SCALAR", 6);
        let morph = [0.0, 0.0, 0.5, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
        accessor(&mut doc, &f32_bytes(&morph), 5126, "VEC3", 4);
        let mut ibm = [0.0f32; 32];
        for joint in 0..2 {
            for d in 0..4 {
                ibm[joint * 16 + d * 5] = 1.0;
            }
        }
        ibm[16 + 13] = -1.0; // the second joint sits one unit up
        accessor(&mut doc, &f32_bytes(&ibm), 5126, "MAT4", 2);
        accessor(&mut doc, &f32_bytes(&[0.0, 0.5, 1.0]), 5126, "SCALAR", 3);
        let s = std::f32::consts::FRAC_1_SQRT_2;
        accessor(&mut doc, &f32_bytes(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, s, s, 0.0, 0.0, 0.0, 1.0]), 5126, "VEC4", 3);
        accessor(&mut doc, &f32_bytes(&[0.0, 0.0, 0.0, 0.0, 0.2, 0.0, 0.0, 0.0, 0.0]), 5126, "VEC3", 3);
        let mut scales = Vec::new();
        for value in [1.0, 1.5, 1.0] {
            scales.extend_from_slice(&[0.0, 0.0, 0.0, value, value, value, 0.0, 0.0, 0.0]);
        }
        accessor(&mut doc, &f32_bytes(&scales), 5126, "VEC3", 9);
        accessor(&mut doc, &f32_bytes(&[0.0, 1.0, 0.0]), 5126, "SCALAR", 3);
        let extra = json!({
            "meshes": [{"name": "quad", "weights": [0.0], "primitives": [{
                "attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2},
                "indices": 3,
                "targets": [{"POSITION": 4}]
            }]}],
            "nodes": [
                {"name": "root", "children": [1, 3]},
                {"name": "hip", "children": [2]},
                {"name": "knee", "translation": [0.0, 1.0, 0.0]},
                {"name": "body", "mesh": 0, "skin": 0}
            ],
            "skins": [{"name": "legs", "joints": [1, 2], "inverseBindMatrices": IBM, "skeleton": 1}],
            "scenes": [{"nodes": [0]}],
            "scene": 0,
            "animations": [{
                "name": "wave",
                "samplers": [
                    {"input": TIMES, "output": ROTATIONS, "interpolation": "LINEAR"},
                    {"input": TIMES, "output": TRANSLATIONS, "interpolation": "STEP"},
                    {"input": TIMES, "output": SCALES, "interpolation": "CUBICSPLINE"},
                    {"input": TIMES, "output": 10}
                ],
                "channels": [
                    {"sampler": 0, "target": {"node": 2, "path": "rotation"}},
                    {"sampler": 1, "target": {"node": 1, "path": "translation"}},
                    {"sampler": 2, "target": {"node": 2, "path": "scale"}},
                    {"sampler": 3, "target": {"node": 3, "path": "weights"}}
                ]
            }]
        });
        doc.merge(extra);
        doc.json["buffers"] = json!([{"byteLength": doc.bin.len()}]);
        Self { doc, offsets }
    }

    fn glb(&self) -> Vec<u8> {
        self.doc.to_glb()
    }

    /// The .gltf form, the buffer in a base64 data URI.
    fn gltf(&self) -> Vec<u8> {
        self.doc.to_gltf()
    }
}

fn put_u32(bytes: &mut [u8], at: usize, value: u32) {
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

/// The valid model the corpus breaks, as .glb (also a fuzzing seed).
pub fn valid_glb() -> Vec<u8> {
    Base::new().glb()
}

/// The valid model as .gltf with an embedded buffer.
pub fn valid_gltf() -> Vec<u8> {
    Base::new().gltf()
}

/// Every malformed file, in a fixed order.
#[allow(clippy::too_many_lines)]
pub fn corpus() -> Vec<BadFile> {
    let base = Base::new();
    let valid = base.glb();
    let json_len = u32::from_le_bytes([valid[12], valid[13], valid[14], valid[15]]) as usize;
    let bin_chunk = 20 + json_len;
    let mut files = Vec::new();
    let mut add = |name: &str, bytes: Vec<u8>, expected: Expected| {
        files.push(BadFile { name: name.to_owned(), bytes, expected });
    };
    let glb_edit = |edit: &dyn Fn(&mut Doc)| {
        let mut b = base.doc.clone();
        edit(&mut b);
        b.to_glb()
    };
    let gltf_edit = |edit: &dyn Fn(&mut Doc)| {
        let mut b = base.doc.clone();
        edit(&mut b);
        b.to_gltf()
    };
    let glb_msg = |text: &str| Expected::Glb(text.to_owned());
    let inv = Expected::invalid;

    // Truncations at every section boundary, as cut (the header's total length then lies) and
    // with the header's length fixed to the cut (the chunk structure then lies).
    let cut = |length: usize, fix_length: bool| {
        let mut bytes = valid[..length].to_vec();
        if fix_length {
            put_u32(&mut bytes, 8, u32::try_from(length).unwrap_or(u32::MAX));
        }
        bytes
    };
    add("truncated_in_glb_header.glb", cut(6, false), glb_msg("shorter than the 12-byte header"));
    let header_lies = glb_msg("header declares");
    add("truncated_in_json_chunk_header.glb", cut(16, false), header_lies.clone());
    add("truncated_in_json_chunk_header_fixed.glb", cut(16, true), glb_msg("chunk 0 header at byte 12 is truncated"));
    add("truncated_in_json.glb", cut(20 + json_len / 2, false), header_lies.clone());
    add("truncated_in_json_fixed.glb", cut(20 + json_len / 2, true), glb_msg("chunk 0 at byte 12 declares"));
    add("truncated_after_json_fixed.glb", cut(bin_chunk, true), inv("MissingField", "Buffer", 0));
    add("truncated_in_bin_chunk_header.glb", cut(bin_chunk + 4, false), header_lies.clone());
    add("truncated_in_bin_chunk_header_fixed.glb", cut(bin_chunk + 4, true), glb_msg("chunk 1 header at byte"));
    add("truncated_in_bin.glb", cut(valid.len() - 40, false), header_lies);
    add("truncated_in_bin_fixed.glb", cut(valid.len() - 40, true), glb_msg("chunk 1 at byte"));
    let text = base.gltf();
    add("truncated_json.gltf", text[..text.len() / 2].to_vec(), Expected::Json("EOF".to_owned()));

    // Deterministic bit flips.
    let flip = |at: usize, mask: u8| {
        let mut bytes = valid.clone();
        bytes[at] ^= mask;
        bytes
    };
    add("bitflip_magic.glb", flip(0, 0x01), Expected::NotGltf("starts with bytes 66 6c 54 46".to_owned()));
    add("bitflip_version.glb", flip(4, 0x01), glb_msg("container version 3"));
    add("bitflip_json_chunk_type.glb", flip(16, 0x20), glb_msg("first chunk has type"));
    add("bitflip_json_text.glb", flip(20, 0x01), Expected::Json("expected value".to_owned()));
    let time_byte = bin_chunk + 8 + base.offsets[TIMES] + 4 + 3; // high byte of key 1 (0.5 s)
    add("bitflip_key_time_sign.glb", flip(time_byte, 0x80), inv("NegativeKeyTime", "Animation", 0));
    add("bitflip_key_time_exponent.glb", flip(time_byte, 0x40), inv("KeyTimesNotIncreasing", "Animation", 0));
    let index_byte = bin_chunk + 8 + base.offsets[INDICES] + 1; // high byte of index 0
    add("bitflip_vertex_index.glb", flip(index_byte, 0x80), inv("BadValue", "Mesh", 0));

    // Out-of-range indices.
    add(
        "node_child_out_of_range.glb",
        glb_edit(&|b| b.json["nodes"][0]["children"] = json!([1, 3, 40])),
        inv("IndexOutOfRange", "Node", 0),
    );
    add(
        "accessor_view_out_of_range.glb",
        glb_edit(&|b| b.json["accessors"][TIMES]["bufferView"] = json!(99)),
        inv("IndexOutOfRange", "Accessor", TIMES),
    );
    add(
        "skin_joint_out_of_range.glb",
        glb_edit(&|b| b.json["skins"][0]["joints"] = json!([1, 77])),
        inv("IndexOutOfRange", "Skin", 0),
    );
    add(
        "channel_node_out_of_range.glb",
        glb_edit(&|b| b.json["animations"][0]["channels"][1]["target"]["node"] = json!(12)),
        inv("IndexOutOfRange", "Animation", 0),
    );
    add(
        "sampler_output_out_of_range.glb",
        glb_edit(&|b| b.json["animations"][0]["samplers"][2]["output"] = json!(4_000_000_000u64)),
        inv("IndexOutOfRange", "Animation", 0),
    );
    add(
        "vertex_joint_beyond_skin.glb",
        glb_edit(&|b| {
            let at = base.offsets[JOINTS] + 4;
            b.bin[at] = 5;
        }),
        inv("BadValue", "Node", 3),
    );

    // NaN and infinite keys and times.
    add("nan_key_time.glb", glb_edit(&|b| b.set_f32(TIMES, 1, f32::NAN)), inv("NonFinite", "Animation", 0));
    add("infinite_key_time.glb", glb_edit(&|b| b.set_f32(TIMES, 2, f32::INFINITY)), inv("NonFinite", "Animation", 0));
    add("nan_rotation_key.glb", glb_edit(&|b| b.set_f32(ROTATIONS, 5, f32::NAN)), inv("NonFinite", "Animation", 0));
    add(
        "infinite_translation_key.glb",
        glb_edit(&|b| b.set_f32(TRANSLATIONS, 4, f32::NEG_INFINITY)),
        inv("NonFinite", "Animation", 0),
    );
    add("nan_cubic_tangent.glb", glb_edit(&|b| b.set_f32(SCALES, 0, f32::NAN)), inv("NonFinite", "Animation", 0));
    add("nan_position.glb", glb_edit(&|b| b.set_f32(POSITIONS, 7, f32::NAN)), inv("NonFinite", "Mesh", 0));
    add("nan_inverse_bind_matrix.glb", glb_edit(&|b| b.set_u32(IBM, 3, 0x7FC0_0001)), inv("NonFinite", "Skin", 0));

    // Huge but finite values (beyond `Limits::max_abs_value`, 1e9): they would overflow to
    // infinity in skinning and sampling.
    add("huge_inverse_bind_matrix.glb", glb_edit(&|b| b.set_f32(IBM, 5, 1e38)), inv("ValueTooLarge", "Skin", 0));
    add(
        "huge_translation_key.glb",
        glb_edit(&|b| b.set_f32(TRANSLATIONS, 4, 1e30)),
        inv("ValueTooLarge", "Animation", 0),
    );
    add("huge_key_time.glb", glb_edit(&|b| b.set_f32(TIMES, 2, 1e30)), inv("ValueTooLarge", "Animation", 0));
    add("huge_position.glb", glb_edit(&|b| b.set_f32(POSITIONS, 10, -1e30)), inv("ValueTooLarge", "Mesh", 0));
    add(
        "huge_node_translation.gltf",
        gltf_edit(&|b| b.json["nodes"][2]["translation"] = json!([0.0, 1e30, 0.0])),
        inv("ValueTooLarge", "Node", 2),
    );

    // Accessor count and stride mismatches.
    add(
        "output_count_mismatch.glb",
        glb_edit(&|b| b.json["accessors"][TRANSLATIONS]["count"] = json!(2)),
        inv("AccessorCount", "Animation", 0),
    );
    add(
        "accessor_count_past_view.glb",
        glb_edit(&|b| b.json["accessors"][POSITIONS]["count"] = json!(5)),
        inv("OutOfBounds", "Accessor", POSITIONS),
    );
    add(
        "attribute_count_mismatch.glb",
        glb_edit(&|b| b.json["accessors"][JOINTS]["count"] = json!(3)),
        inv("AccessorCount", "Mesh", 0),
    );
    add(
        "stride_smaller_than_element.glb",
        glb_edit(&|b| b.json["bufferViews"][POSITIONS]["byteStride"] = json!(8)),
        inv("BadValue", "Accessor", POSITIONS),
    );
    add(
        "stride_past_view.glb",
        glb_edit(&|b| b.json["bufferViews"][POSITIONS]["byteStride"] = json!(16)),
        inv("OutOfBounds", "Accessor", POSITIONS),
    );
    add(
        "stride_not_allowed.glb",
        glb_edit(&|b| b.json["bufferViews"][TIMES]["byteStride"] = json!(2)),
        inv("BadValue", "BufferView", TIMES),
    );

    // Node graphs that are not forests.
    add(
        "cyclic_nodes.glb",
        glb_edit(&|b| {
            b.json["nodes"][0]["children"] = json!([3]);
            b.json["nodes"][2]["children"] = json!([1]);
        }),
        inv("Cycle", "Node", 2),
    );
    add(
        "node_with_two_parents.glb",
        glb_edit(&|b| b.json["nodes"][2]["children"] = json!([3])),
        inv("TwoParents", "Node", 3),
    );

    // Count bombs: a few kilobytes claiming billions of elements or bytes.
    add(
        "count_bomb_vertices.glb",
        glb_edit(&|b| b.json["accessors"][POSITIONS]["count"] = json!(3_000_000_000u64)),
        inv("Limit", "Mesh", 0),
    );
    add(
        "count_bomb_indices.glb",
        glb_edit(&|b| b.json["accessors"][INDICES]["count"] = json!(4_000_000_000u64)),
        inv("Limit", "Mesh", 0),
    );
    add(
        "count_bomb_key_times.glb",
        glb_edit(&|b| b.json["accessors"][TIMES]["count"] = json!(2_000_000_000u64)),
        inv("Limit", "Accessor", TIMES),
    );
    add(
        "count_bomb_matrices.glb",
        glb_edit(&|b| b.json["accessors"][IBM]["count"] = json!(1_000_000_000u64)),
        inv("Limit", "Accessor", IBM),
    );
    add(
        "byte_length_bomb.glb",
        glb_edit(&|b| b.json["buffers"][0]["byteLength"] = json!(1_000_000_000_000u64)),
        inv("Limit", "Buffer", 0),
    );

    // Key timing.
    add(
        "zero_length_key_interval.glb",
        glb_edit(&|b| b.set_f32(TIMES, 2, 0.5)),
        inv("KeyTimesNotIncreasing", "Animation", 0),
    );
    add(
        "cubicspline_wrong_output_count.glb",
        glb_edit(&|b| b.json["animations"][0]["samplers"][0]["interpolation"] = json!("CUBICSPLINE")),
        inv("AccessorCount", "Animation", 0),
    );
    add(
        "cubicspline_output_one_short.glb",
        glb_edit(&|b| b.json["accessors"][SCALES]["count"] = json!(8)),
        inv("AccessorCount", "Animation", 0),
    );

    // Chunk lengths that lie.
    let mut long_json = valid.clone();
    put_u32(&mut long_json, 12, u32::try_from(json_len + 4096).unwrap_or(u32::MAX));
    add("json_chunk_length_too_long.glb", long_json, glb_msg("chunk 0 at byte 12 declares"));
    let mut short_json = valid.clone();
    put_u32(&mut short_json, 12, u32::try_from(json_len - 8).unwrap_or(0));
    add("json_chunk_length_too_short.glb", short_json, glb_msg("chunk 1 at byte"));
    let mut long_bin = valid.clone();
    put_u32(&mut long_bin, bin_chunk, u32::MAX - 3);
    add("bin_chunk_length_too_long.glb", long_bin, glb_msg("chunk 1 at byte"));
    let mut short_bin = valid.clone();
    let bin_len = valid.len() - bin_chunk - 8;
    put_u32(&mut short_bin, 8, u32::try_from(valid.len() - 16).unwrap_or(0));
    put_u32(&mut short_bin, bin_chunk, u32::try_from(bin_len - 16).unwrap_or(0));
    add("bin_chunk_shorter_than_buffer.glb", short_bin, inv("OutOfBounds", "Buffer", 0));

    // URIs.
    let external = |u: &'static str| {
        let mut json = base.doc.json.clone();
        json["buffers"][0]["uri"] = json!(u);
        to_sorted_json(&json).into_bytes()
    };
    add("uri_parent_escape.gltf", external("../outside.bin"), inv("Uri", "Buffer", 0));
    add("uri_nested_parent_escape.gltf", external("sub/../../outside.bin"), inv("Uri", "Buffer", 0));
    add("uri_absolute_path.gltf", external("/etc/animtune/absolute.bin"), inv("Uri", "Buffer", 0));
    add("uri_drive_letter.gltf", external("C:/animtune/absolute.bin"), inv("Uri", "Buffer", 0));
    add("uri_missing_file.gltf", external("missing-buffer.bin"), inv("Uri", "Buffer", 0));
    add("uri_bad_base64.gltf", external("data:application/octet-stream;base64,@@@@"), inv("Uri", "Buffer", 0));
    add(
        "image_uri_escape.gltf",
        gltf_edit(&|b| b.json["images"] = json!([{"uri": "../../secret.png"}])),
        inv("Uri", "Image", 0),
    );

    // Hostile Draco streams (`KHR_draco_mesh_compression`), each inside an otherwise valid
    // one-triangle file: the importer with animtune's decoders must refuse them with a one-line
    // error naming the mesh, never abort on an allocation the stream did not earn.
    let huge_symbols = (1u64 << 49) - 1;
    // The file that aborted animtune's previous decoder ("memory allocation of 4503599627370488
    // bytes failed"): a sequential header over 1 triangle and 3 points whose rANS-coded indices
    // declare 2^49 - 1 symbols (a 4.5 PB probability table).
    let mut indices = draco_header(0, 1, 3);
    indices.extend_from_slice(&[0, 1, 5]);
    varint(huge_symbols, &mut indices);
    indices.extend_from_slice(&[0x55; 64]);
    add("draco_huge_rans_table_indices.glb", draco_file(&indices), inv("BadValue", "Mesh", 0));
    // The same table declared by a quantized position attribute's entropy-coded values.
    let mut values = draco_header(0, 1, 3);
    values.extend_from_slice(&[1, 0, 1, 2]);
    values.extend_from_slice(&[1, 1, 0, 9, 3, 0, 0, 2, 0xfe, 1, 1, 5]);
    varint(huge_symbols, &mut values);
    values.extend_from_slice(&[0x55; 64]);
    add("draco_huge_rans_table_values.glb", draco_file(&values), inv("BadValue", "Mesh", 0));
    // Edgebreaker connectivity declaring a billion faces for a 3-index accessor: refused from
    // the header, before the decoder reserves anything.
    let mut faces = b"DRACO\x02\x02\x01\x01\x00\x00".to_vec();
    faces.push(0);
    varint(3, &mut faces);
    varint(1_000_000_000, &mut faces);
    faces.extend_from_slice(&[0; 32]);
    add("draco_face_count_bomb.glb", draco_file(&faces), inv("BadValue", "Mesh", 0));
    files
}

/// A Draco 2.2 triangle-mesh stream's header and connectivity counts (`method` 0 sequential,
/// 1 edgebreaker).
fn draco_header(method: u8, faces: u64, points: u64) -> Vec<u8> {
    let mut bytes = b"DRACO\x02\x02\x01".to_vec();
    bytes.extend_from_slice(&[method, 0, 0]);
    varint(faces, &mut bytes);
    varint(points, &mut bytes);
    bytes
}

/// A varint as Draco writes it: 7 bits a byte, low first.
fn varint(mut value: u64, out: &mut Vec<u8>) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// A `.glb` with one triangle whose positions and indices are the Draco `stream` (accessors
/// without buffer views, as `KHR_draco_mesh_compression` lays them out).
fn draco_file(stream: &[u8]) -> Vec<u8> {
    let mut doc = Doc::with_generator("animtune bad-corpus");
    let view = doc.add_view(stream);
    doc.merge(json!({
        "extensionsUsed": ["KHR_draco_mesh_compression"],
        "extensionsRequired": ["KHR_draco_mesh_compression"],
        "accessors": [
            {"componentType": 5126, "type": "VEC3", "count": 3, "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]},
            {"componentType": 5123, "type": "SCALAR", "count": 3}
        ],
        "meshes": [{"name": "hostile", "primitives": [{
            "attributes": {"POSITION": 0},
            "indices": 1,
            "extensions": {"KHR_draco_mesh_compression": {"bufferView": view, "attributes": {"POSITION": 0}}}
        }]}],
        "nodes": [{"mesh": 0}],
        "scenes": [{"nodes": [0]}],
        "scene": 0
    }));
    doc.json["buffers"] = json!([{"byteLength": doc.bin.len()}]);
    doc.to_glb()
}

/// The manifest text for `files`: one `name<TAB>expectation` line each.
pub fn manifest(files: &[BadFile]) -> String {
    let mut out = String::from(
        "# Regenerate with `cargo xtask generate bad-corpus`.\n\
         # file<TAB>Invalid PROBLEM OBJECT_KIND INDEX | Glb MESSAGE_PART | Json MESSAGE_PART\n",
    );
    for file in files {
        let _ = writeln!(out, "{}\t{}", file.name, file.expected.to_manifest());
    }
    out
}

/// Write the corpus and its manifest to `dir`, removing `.glb`/`.gltf` files that are no longer
/// part of it. Returns the number of corpus files.
///
/// # Errors
/// When the folder cannot be created, listed or written.
pub fn write_corpus(dir: &Path) -> std::io::Result<usize> {
    std::fs::create_dir_all(dir)?;
    let files = corpus();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let stale = path.extension().is_some_and(|e| e == "glb" || e == "gltf")
            && !files.iter().any(|f| path.file_name().is_some_and(|n| n == f.name.as_str()));
        if stale {
            std::fs::remove_file(&path)?;
        }
    }
    for file in &files {
        std::fs::write(dir.join(&file.name), &file.bytes)?;
    }
    std::fs::write(dir.join(MANIFEST), manifest(&files))?;
    Ok(files.len())
}

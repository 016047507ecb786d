//! Import limits: each is checked before allocating, names the object at fault, and has a
//! default that real models stay well inside.
#![allow(clippy::unwrap_used)]

use anim::import::{Limits, load_slice, load_slice_with_limits};
use anim::{ImportError, ObjectKind, Problem};
use devtools::gltf::{Doc, base64};
use serde_json::json;

/// Import `doc` (.gltf form) under `limits`, expecting a limit error on `kind` `index` about
/// `what`; returns the value and limit it reports.
fn expect_limit(doc: &Doc, limits: &Limits, kind: ObjectKind, index: usize, what: &str) -> (u64, u64) {
    let error = load_slice_with_limits(&doc.to_gltf(), None, limits).expect_err("the limit must be exceeded");
    let ImportError::Invalid { object, problem: Problem::Limit { what: found, value, limit } } = &error else {
        panic!("expected a limit error, got {error}");
    };
    assert_eq!((object.kind, object.index, *found), (kind, index, what), "{error}");
    assert!(error.to_string().contains(&format!("{what} = {value} exceeds the limit of {limit}")), "{error}");
    (*value, *limit)
}

/// Two triangle meshes (3 vertices and 3 indices each) on two nodes.
fn two_meshes() -> Doc {
    let mut doc = Doc::new();
    for _ in 0..2 {
        let positions = doc.add_f32(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3");
        let indices = doc.add_raw(&[0, 1, 2], 5121, "SCALAR", 3, false);
        let mesh = doc.add_mesh(json!({"primitives": [{"attributes": {"POSITION": positions}, "indices": indices}]}));
        doc.add_node(json!({ "mesh": mesh }));
    }
    doc
}

#[test]
fn defaults() {
    let d = Limits::default();
    assert_eq!(d.max_file_bytes, 2 << 30);
    assert_eq!(d.max_accessor_components, 1 << 28);
    assert_eq!(d.max_nodes, 1 << 20);
    assert_eq!(d.max_total_keys, 1 << 26);
    assert_eq!(d.max_total_vertices, 1 << 26);
    assert_eq!(d.max_total_indices, 1 << 28);
    assert_eq!(d.max_image_bytes, 256 << 20);
    assert_eq!(d.max_node_depth, 1024);
    assert_eq!(d.max_skin_joints, 1 << 16);
}

#[test]
fn total_vertex_count_sums_over_primitives() {
    let doc = two_meshes();
    let limits = Limits { max_total_vertices: 5, ..Limits::default() };
    // The second mesh brings the total to 6.
    assert_eq!(expect_limit(&doc, &limits, ObjectKind::Mesh, 1, "total vertex count"), (6, 5));
    load_slice_with_limits(&doc.to_gltf(), None, &Limits { max_total_vertices: 6, ..limits }).unwrap();
}

#[test]
fn vertex_count_bomb_is_refused_before_reading() {
    let mut doc = two_meshes();
    doc.json["accessors"][0]["count"] = json!(4_000_000_000u64);
    // Under the default limits too: the claim is refused before any data is decoded.
    let error = load_slice(&doc.to_gltf(), None).err().unwrap();
    assert!(matches!(error.problem(), Some(Problem::Limit { what: "total vertex count", .. })), "{error}");
}

#[test]
fn total_index_count_sums_over_primitives() {
    let doc = two_meshes();
    let limits = Limits { max_total_indices: 4, ..Limits::default() };
    assert_eq!(expect_limit(&doc, &limits, ObjectKind::Mesh, 1, "total index count"), (6, 4));
    load_slice_with_limits(&doc.to_gltf(), None, &Limits { max_total_indices: 6, ..limits }).unwrap();
}

#[test]
fn image_size_in_a_buffer_view() {
    let mut doc = Doc::new();
    let view = doc.add_view(&[0x89; 100]);
    doc.json["images"] = json!([{"bufferView": view, "mimeType": "image/png"}]);
    let limits = Limits { max_image_bytes: 99, ..Limits::default() };
    assert_eq!(expect_limit(&doc, &limits, ObjectKind::Image, 0, "image size in bytes"), (100, 99));
    load_slice_with_limits(&doc.to_gltf(), None, &Limits { max_image_bytes: 100, ..limits }).unwrap();
}

#[test]
fn image_size_in_a_data_uri_is_checked_before_decoding() {
    let mut doc = Doc::new();
    doc.json["images"] = json!([
        {"uri": "data:image/png;base64,AAAA"},
        {"uri": format!("data:image/png;base64,{}", base64(&[7; 3000]))}
    ]);
    let limits = Limits { max_image_bytes: 1000, ..Limits::default() };
    let (value, _) = expect_limit(&doc, &limits, ObjectKind::Image, 1, "image size in bytes");
    assert!(value >= 3000, "the estimate {value} must bound the decoded size");
}

#[test]
fn image_file_size_is_checked_before_reading() {
    let dir = std::env::temp_dir().join(format!("animtune-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("big.png"), [0u8; 2048]).unwrap();
    let mut doc = Doc::new();
    doc.json["images"] = json!([{"uri": "big.png"}]);
    let limits = Limits { max_image_bytes: 2047, ..Limits::default() };
    let error = load_slice_with_limits(&doc.to_gltf(), Some(&dir), &limits).err().unwrap();
    assert!(
        matches!(error.problem(), Some(Problem::Limit { what: "image size in bytes", value: 2048, limit: 2047 })),
        "{error}"
    );
    let model = load_slice_with_limits(&doc.to_gltf(), Some(&dir), &Limits::default()).unwrap();
    assert_eq!(model.images[0].bytes.len(), 2048);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A chain of `n` nodes, each the only child of the one before.
fn chain(n: usize) -> Doc {
    let mut doc = Doc::new();
    for i in 0..n {
        let node = if i + 1 < n { json!({"name": format!("n{i}"), "children": [i + 1]}) } else { json!({}) };
        doc.add_node(node);
    }
    doc
}

#[test]
fn node_depth_names_the_first_node_too_deep() {
    let doc = chain(10);
    let limits = Limits { max_node_depth: 6, ..Limits::default() };
    // Node 6 is at depth 7.
    assert_eq!(expect_limit(&doc, &limits, ObjectKind::Node, 6, "node depth"), (7, 6));
    let error = load_slice_with_limits(&doc.to_gltf(), None, &limits).err().unwrap();
    assert!(error.to_string().starts_with("node 6 \"n6\": node depth = 7"), "{error}");
    load_slice_with_limits(&doc.to_gltf(), None, &Limits { max_node_depth: 10, ..limits }).unwrap();
}

#[test]
fn default_node_depth_refuses_a_chain_of_1100_nodes() {
    let doc = chain(1100);
    assert_eq!(expect_limit(&doc, &Limits::default(), ObjectKind::Node, 1024, "node depth"), (1025, 1024));
    load_slice(&chain(1024).to_gltf(), None).unwrap();
}

#[test]
fn skin_joint_count() {
    let mut doc = Doc::new();
    let positions = doc.add_f32(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3");
    let mesh = doc.add_mesh(json!({"primitives": [{"attributes": {"POSITION": positions}}]}));
    doc.add_node(json!({"mesh": mesh, "skin": 0}));
    for _ in 0..5 {
        doc.add_node(json!({}));
    }
    doc.json["skins"] = json!([{"joints": [1, 2]}, {"joints": [1, 2, 3, 4, 5]}]);
    let limits = Limits { max_skin_joints: 4, ..Limits::default() };
    assert_eq!(expect_limit(&doc, &limits, ObjectKind::Skin, 1, "joint count"), (5, 4));
    load_slice_with_limits(&doc.to_gltf(), None, &Limits { max_skin_joints: 5, ..limits }).unwrap();
}

#[test]
fn node_count_and_total_keys_still_apply() {
    let mut doc = chain(3);
    doc.add_animation(None, &[(0, "translation", &[0.0, 1.0], &[0.0; 6], "LINEAR")]);
    let limits = Limits { max_nodes: 2, ..Limits::default() };
    expect_limit(&doc, &limits, ObjectKind::Root, 0, "node count");
    let limits = Limits { max_total_keys: 1, ..Limits::default() };
    expect_limit(&doc, &limits, ObjectKind::Animation, 0, "total key count");
}

//! Import errors: every invalid input gives the specific typed error naming the object at fault,
//! and no input (truncated or corrupted) makes the importer panic.
//!
//! Each case starts from a small valid document and breaks one thing.
// Test code: unwrap is fine; `ImportError` is large by design (see `anim::import`); the shared
// `Doc::add_animation` takes channel tuples.
#![allow(clippy::unwrap_used, clippy::result_large_err, clippy::type_complexity)]

use std::path::Path;
use std::time::{Duration, Instant};

use anim::import::{load_path, load_slice};
use anim::{ClipCursor, ImportError, InterpolationOverride, Model, ObjectKind, ObjectRef, Problem, SampleSettings};
use devtools::TempDir;
use devtools::gltf::Doc;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// A valid document: "hips" (node 0) is the parent of "arm" (node 1), scene "main" shows
/// "hips", and animation "walk" moves "arm" with two LINEAR keys.
fn base() -> Doc {
    let mut doc = Doc::new();
    doc.add_node(json!({"name": "hips", "children": [1]}));
    doc.add_node(json!({"name": "arm", "translation": [0.0, 1.0, 0.0]}));
    doc.json["scenes"] = json!([{"name": "main", "nodes": [0]}]);
    doc.json["scene"] = json!(0);
    doc.add_animation(Some("walk"), &[(1, "translation", &[0.0, 1.0], &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0], "LINEAR")]);
    doc
}

/// `base()` plus animation 1 "extra" with one channel; returns the document.
fn base_with(channel: (usize, &str, &[f32], &[f32], &str)) -> Doc {
    let mut doc = base();
    doc.add_animation(Some("extra"), &[channel]);
    doc
}

/// Index of the accessor `animations[a].samplers[s].<key>`.
fn sampler_accessor(doc: &Doc, a: usize, s: usize, key: &str) -> usize {
    doc.json["animations"][a]["samplers"][s][key].as_u64().unwrap() as usize
}

/// Append an accessor written by hand; returns its index.
fn push_accessor(doc: &mut Doc, accessor: Value) -> usize {
    let accessors = doc.json["accessors"].as_array_mut().unwrap();
    accessors.push(accessor);
    accessors.len() - 1
}

fn object(kind: ObjectKind, index: usize, name: Option<&str>, part: Option<(&'static str, usize)>) -> ObjectRef {
    ObjectRef { kind, index, name: name.map(str::to_owned), part }
}

/// The object and problem of an `ImportError::Invalid`, checking that the message starts by
/// naming the object exactly as `shown`.
#[track_caller]
fn expect_invalid(result: Result<Model, ImportError>, shown: &str) -> (ObjectRef, Problem) {
    let Err(error) = result else { panic!("expected an error naming {shown}, but the document loaded") };
    let message = error.to_string();
    match error {
        ImportError::Invalid { object, problem } => {
            assert!(message.starts_with(&format!("{shown}: ")), "message should start by naming `{shown}`: {message}");
            assert_eq!(object.to_string(), shown);
            (object, problem)
        }
        other => panic!("expected ImportError::Invalid naming {shown}, got {other:?}"),
    }
}

/// The message of an `ImportError::Glb`.
#[track_caller]
fn expect_glb(result: Result<Model, ImportError>) -> String {
    match result {
        Err(ImportError::Glb(message)) => message,
        Err(other) => panic!("expected ImportError::Glb, got {other:?}"),
        Ok(_) => panic!("expected ImportError::Glb, but the file loaded"),
    }
}

#[track_caller]
fn expect_bad_value(problem: &Problem, expected_field: &str, reason_contains: &str) {
    match problem {
        Problem::BadValue { field, reason } => {
            assert_eq!(*field, expected_field);
            assert!(reason.contains(reason_contains), "reason should mention `{reason_contains}`: {reason}");
        }
        other => panic!("expected BadValue for `{expected_field}`, got {other:?}"),
    }
}

#[track_caller]
fn expect_out_of_bounds(problem: &Problem, contains: &str) {
    match problem {
        Problem::OutOfBounds(what) => assert!(what.contains(contains), "should mention `{contains}`: {what}"),
        other => panic!("expected OutOfBounds, got {other:?}"),
    }
}

/// `doc` as .gltf JSON whose buffer 0 is the external `uri`.
fn gltf_with_buffer_uri(doc: &Doc, uri: &str) -> Vec<u8> {
    let mut json: Value = serde_json::from_slice(&doc.to_gltf()).unwrap();
    json["buffers"][0]["uri"] = json!(uri);
    serde_json::to_vec(&json).unwrap()
}

/// Write `doc` into `dir/model.gltf` with its buffer at `uri` and load it from there.
fn load_with_external_buffer(dir: &Path, doc: &Doc, uri: &str) -> Result<Model, ImportError> {
    let path = dir.join("model.gltf");
    std::fs::write(&path, gltf_with_buffer_uri(doc, uri)).unwrap();
    load_path(&path)
}

#[track_caller]
fn expect_uri_error(result: Result<Model, ImportError>, expected_uri: &str, reason_contains: &str) {
    let (object, problem) = expect_invalid(result, "buffer 0");
    assert_eq!(object, self::object(ObjectKind::Buffer, 0, None, None));
    match problem {
        Problem::Uri { uri, reason } => {
            assert_eq!(uri, expected_uri);
            assert!(reason.contains(reason_contains), "reason should mention `{reason_contains}`: {reason}");
        }
        other => panic!("expected Problem::Uri, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// The valid starting points
// ---------------------------------------------------------------------------------------------

#[test]
fn the_valid_base_document_loads_in_both_forms() {
    let doc = base();
    let model = doc.load().unwrap();
    assert_eq!(model.nodes().len(), 2);
    assert_eq!(model.clips().len(), 1);
    assert_eq!(model.hierarchy.parent(anim::NodeId::from_index(1)), Some(anim::NodeId::from_index(0)));
    load_slice(&doc.to_glb(), None).unwrap();
}

// ---------------------------------------------------------------------------------------------
// Out-of-range indices
// ---------------------------------------------------------------------------------------------

#[test]
fn node_child_out_of_range() {
    let mut doc = base();
    doc.json["nodes"][0]["children"] = json!([1, 5]);
    let (obj, problem) = expect_invalid(doc.load(), "node 0 \"hips\"");
    assert_eq!(obj, object(ObjectKind::Node, 0, Some("hips"), None));
    assert_eq!(problem, Problem::IndexOutOfRange { field: "children", index: 5, kind: "node", count: 2 });
}

#[test]
fn node_mesh_out_of_range() {
    let mut doc = base();
    doc.json["nodes"][1]["mesh"] = json!(3);
    let (obj, problem) = expect_invalid(doc.load(), "node 1 \"arm\"");
    assert_eq!(obj, object(ObjectKind::Node, 1, Some("arm"), None));
    assert_eq!(problem, Problem::IndexOutOfRange { field: "mesh", index: 3, kind: "mesh", count: 0 });
}

#[test]
fn sampler_accessor_out_of_range() {
    let mut doc = base();
    let accessor_count = doc.json["accessors"].as_array().unwrap().len();
    doc.json["animations"][0]["samplers"][0]["output"] = json!(99);
    let (obj, problem) = expect_invalid(doc.load(), "animation 0 \"walk\", sampler 0");
    assert_eq!(obj, object(ObjectKind::Animation, 0, Some("walk"), Some(("sampler", 0))));
    assert_eq!(
        problem,
        Problem::IndexOutOfRange { field: "output", index: 99, kind: "accessor", count: accessor_count }
    );

    let mut doc = base();
    doc.json["animations"][0]["samplers"][0]["input"] = json!(1000);
    let (_, problem) = expect_invalid(doc.load(), "animation 0 \"walk\", sampler 0");
    assert!(matches!(problem, Problem::IndexOutOfRange { field: "input", index: 1000, kind: "accessor", .. }));
}

#[test]
fn channel_sampler_out_of_range() {
    let mut doc = base();
    doc.json["animations"][0]["channels"][0]["sampler"] = json!(7);
    let (obj, problem) = expect_invalid(doc.load(), "animation 0 \"walk\", channel 0");
    assert_eq!(obj, object(ObjectKind::Animation, 0, Some("walk"), Some(("channel", 0))));
    assert_eq!(problem, Problem::IndexOutOfRange { field: "sampler", index: 7, kind: "sampler", count: 1 });
}

#[test]
fn channel_target_node_out_of_range() {
    let mut doc = base();
    doc.json["animations"][0]["channels"][0]["target"]["node"] = json!(9);
    let (obj, problem) = expect_invalid(doc.load(), "animation 0 \"walk\", channel 0");
    assert_eq!(obj, object(ObjectKind::Animation, 0, Some("walk"), Some(("channel", 0))));
    assert_eq!(problem, Problem::IndexOutOfRange { field: "node", index: 9, kind: "node", count: 2 });
}

#[test]
fn skin_joint_out_of_range() {
    let mut doc = base();
    doc.json["skins"] = json!([{"name": "rig", "joints": [0, 9]}]);
    let (obj, problem) = expect_invalid(doc.load(), "skin 0 \"rig\"");
    assert_eq!(obj, object(ObjectKind::Skin, 0, Some("rig"), None));
    assert_eq!(problem, Problem::IndexOutOfRange { field: "joints", index: 9, kind: "node", count: 2 });
}

#[test]
fn buffer_view_buffer_out_of_range() {
    let mut doc = base();
    doc.json["bufferViews"][1]["buffer"] = json!(1);
    doc.json["bufferViews"][1]["name"] = json!("keys");
    let (obj, problem) = expect_invalid(doc.load(), "buffer view 1 \"keys\"");
    assert_eq!(obj, object(ObjectKind::BufferView, 1, Some("keys"), None));
    assert_eq!(problem, Problem::IndexOutOfRange { field: "buffer", index: 1, kind: "buffer", count: 1 });
}

#[test]
fn scene_node_out_of_range() {
    let mut doc = base();
    doc.json["scenes"][0]["nodes"] = json!([0, 8]);
    let (obj, problem) = expect_invalid(doc.load(), "scene 0 \"main\"");
    assert_eq!(obj, object(ObjectKind::Scene, 0, Some("main"), None));
    assert_eq!(problem, Problem::IndexOutOfRange { field: "nodes", index: 8, kind: "node", count: 2 });
}

// ---------------------------------------------------------------------------------------------
// Wrong accessor types
// ---------------------------------------------------------------------------------------------

#[test]
fn translation_output_must_be_vec3() {
    let mut doc = base();
    let vec4 = doc.add_f32(&[0.0; 8], "VEC4");
    doc.json["animations"][0]["samplers"][0]["output"] = json!(vec4);
    let (obj, problem) = expect_invalid(doc.load(), "animation 0 \"walk\", sampler 0");
    assert_eq!(obj, object(ObjectKind::Animation, 0, Some("walk"), Some(("sampler", 0))));
    assert_eq!(
        problem,
        Problem::AccessorType {
            field: "output",
            accessor: vec4,
            expected: "VEC3 of FLOAT",
            found: "VEC4 of FLOAT".to_owned()
        }
    );
}

#[test]
fn rotation_output_must_be_vec4() {
    let mut doc = base_with((1, "rotation", &[0.0, 1.0], &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0], "LINEAR"));
    let vec3 = doc.add_f32(&[0.0; 6], "VEC3");
    doc.json["animations"][1]["samplers"][0]["output"] = json!(vec3);
    let (obj, problem) = expect_invalid(doc.load(), "animation 1 \"extra\", sampler 0");
    assert_eq!(obj, object(ObjectKind::Animation, 1, Some("extra"), Some(("sampler", 0))));
    match problem {
        Problem::AccessorType { field: "output", accessor, expected, found } => {
            assert_eq!(accessor, vec3);
            assert!(expected.starts_with("VEC4"), "{expected}");
            assert_eq!(found, "VEC3 of FLOAT");
        }
        other => panic!("expected AccessorType, got {other:?}"),
    }
}

#[test]
fn input_must_be_scalar_float() {
    // SCALAR of UNSIGNED_SHORT.
    let mut doc = base();
    let shorts = doc.add_raw(&[0, 0, 1, 0], 5123, "SCALAR", 2, false);
    doc.json["animations"][0]["samplers"][0]["input"] = json!(shorts);
    let (obj, problem) = expect_invalid(doc.load(), "animation 0 \"walk\", sampler 0");
    assert_eq!(obj, object(ObjectKind::Animation, 0, Some("walk"), Some(("sampler", 0))));
    assert_eq!(
        problem,
        Problem::AccessorType {
            field: "input",
            accessor: shorts,
            expected: "SCALAR of FLOAT",
            found: "SCALAR of UNSIGNED_SHORT".to_owned()
        }
    );

    // VEC2 of FLOAT.
    let mut doc = base();
    let vec2 = doc.add_f32(&[0.0, 0.0, 1.0, 1.0], "VEC2");
    doc.json["animations"][0]["samplers"][0]["input"] = json!(vec2);
    let (_, problem) = expect_invalid(doc.load(), "animation 0 \"walk\", sampler 0");
    assert_eq!(
        problem,
        Problem::AccessorType {
            field: "input",
            accessor: vec2,
            expected: "SCALAR of FLOAT",
            found: "VEC2 of FLOAT".to_owned()
        }
    );
}

// ---------------------------------------------------------------------------------------------
// Wrong counts
// ---------------------------------------------------------------------------------------------

#[test]
fn linear_output_count_must_equal_input_count() {
    let doc = base_with((1, "translation", &[0.0, 1.0], &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 2.0, 0.0, 0.0], "LINEAR"));
    let output = sampler_accessor(&doc, 1, 0, "output");
    let (obj, problem) = expect_invalid(doc.load(), "animation 1 \"extra\", sampler 0");
    assert_eq!(obj, object(ObjectKind::Animation, 1, Some("extra"), Some(("sampler", 0))));
    assert_eq!(problem, Problem::AccessorCount { field: "output", accessor: output, expected: 2, found: 3 });
}

#[test]
fn cubic_output_must_hold_three_elements_per_key() {
    // Two keys, but only one element per key instead of (in-tangent, value, out-tangent).
    let doc = base_with((1, "translation", &[0.0, 1.0], &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0], "CUBICSPLINE"));
    let output = sampler_accessor(&doc, 1, 0, "output");
    let (obj, problem) = expect_invalid(doc.load(), "animation 1 \"extra\", sampler 0");
    assert_eq!(obj, object(ObjectKind::Animation, 1, Some("extra"), Some(("sampler", 0))));
    assert_eq!(problem, Problem::AccessorCount { field: "output", accessor: output, expected: 6, found: 2 });
}

#[test]
fn weights_output_count_must_be_keys_times_targets() {
    let mut doc = base();
    let mesh = doc.add_morph_triangle(2);
    doc.json["nodes"][1]["mesh"] = json!(mesh);
    // Two keys × two targets = 4 weights; 3 given.
    doc.add_animation(Some("blink"), &[(1, "weights", &[0.0, 1.0], &[0.0, 0.0, 1.0], "LINEAR")]);
    let output = sampler_accessor(&doc, 1, 0, "output");
    let (obj, problem) = expect_invalid(doc.load(), "animation 1 \"blink\", sampler 0");
    assert_eq!(obj, object(ObjectKind::Animation, 1, Some("blink"), Some(("sampler", 0))));
    assert_eq!(problem, Problem::AccessorCount { field: "output", accessor: output, expected: 4, found: 3 });

    // The same with CUBICSPLINE: 2 keys × 3 × 2 targets = 12.
    let mut doc = base();
    let mesh = doc.add_morph_triangle(2);
    doc.json["nodes"][1]["mesh"] = json!(mesh);
    doc.add_animation(Some("blink"), &[(1, "weights", &[0.0, 1.0], &[0.0; 4], "CUBICSPLINE")]);
    let (_, problem) = expect_invalid(doc.load(), "animation 1 \"blink\", sampler 0");
    assert!(matches!(problem, Problem::AccessorCount { field: "output", expected: 12, found: 4, .. }), "{problem:?}");
}

// ---------------------------------------------------------------------------------------------
// Key times
// ---------------------------------------------------------------------------------------------

#[test]
fn equal_key_times_are_a_zero_length_interval() {
    let doc = base_with((1, "translation", &[0.0, 1.0, 1.0], &[0.0; 9], "LINEAR"));
    let (obj, problem) = expect_invalid(doc.load(), "animation 1 \"extra\", sampler 0");
    assert_eq!(obj, object(ObjectKind::Animation, 1, Some("extra"), Some(("sampler", 0))));
    assert_eq!(problem, Problem::KeyTimesNotIncreasing { key: 2, previous_secs: 1.0, time_secs: 1.0 });
}

#[test]
fn decreasing_key_times() {
    let doc = base_with((1, "translation", &[0.0, 2.0, 1.0], &[0.0; 9], "STEP"));
    let (obj, problem) = expect_invalid(doc.load(), "animation 1 \"extra\", sampler 0");
    assert_eq!(obj, object(ObjectKind::Animation, 1, Some("extra"), Some(("sampler", 0))));
    assert_eq!(problem, Problem::KeyTimesNotIncreasing { key: 2, previous_secs: 2.0, time_secs: 1.0 });
}

#[test]
fn nan_key_time() {
    let doc = base_with((1, "translation", &[0.0, f32::NAN], &[0.0; 6], "LINEAR"));
    let (obj, problem) = expect_invalid(doc.load(), "animation 1 \"extra\", sampler 0");
    assert_eq!(obj, object(ObjectKind::Animation, 1, Some("extra"), Some(("sampler", 0))));
    assert_eq!(problem, Problem::NonFinite { field: "input", element: 1 });
}

#[test]
fn infinite_key_time() {
    let doc = base_with((1, "translation", &[0.0, 1.0, f32::INFINITY], &[0.0; 9], "LINEAR"));
    let (_, problem) = expect_invalid(doc.load(), "animation 1 \"extra\", sampler 0");
    assert_eq!(problem, Problem::NonFinite { field: "input", element: 2 });
}

#[test]
fn negative_key_time() {
    let doc = base_with((1, "translation", &[-0.5, 1.0], &[0.0; 6], "LINEAR"));
    let (obj, problem) = expect_invalid(doc.load(), "animation 1 \"extra\", sampler 0");
    assert_eq!(obj, object(ObjectKind::Animation, 1, Some("extra"), Some(("sampler", 0))));
    assert_eq!(problem, Problem::NegativeKeyTime { key: 0, time_secs: -0.5 });
}

#[test]
fn non_finite_output_values() {
    // NaN in the second translation key.
    let doc = base_with((1, "translation", &[0.0, 1.0], &[0.0, 0.0, 0.0, 1.0, f32::NAN, 0.0], "LINEAR"));
    let (obj, problem) = expect_invalid(doc.load(), "animation 1 \"extra\", sampler 0");
    assert_eq!(obj, object(ObjectKind::Animation, 1, Some("extra"), Some(("sampler", 0))));
    assert_eq!(problem, Problem::NonFinite { field: "output", element: 1 });

    // +inf in the first rotation key.
    let doc = base_with((1, "rotation", &[0.0, 1.0], &[f32::INFINITY, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0], "STEP"));
    let (_, problem) = expect_invalid(doc.load(), "animation 1 \"extra\", sampler 0");
    assert_eq!(problem, Problem::NonFinite { field: "output", element: 0 });

    // -inf in a cubic scale tangent (element 5 = key 1's out-tangent).
    let mut values = [1.0f32; 18];
    values[15] = f32::NEG_INFINITY;
    let doc = base_with((1, "scale", &[0.0, 1.0], &values, "CUBICSPLINE"));
    let (_, problem) = expect_invalid(doc.load(), "animation 1 \"extra\", sampler 0");
    assert_eq!(problem, Problem::NonFinite { field: "output", element: 5 });
}

// ---------------------------------------------------------------------------------------------
// Node graph
// ---------------------------------------------------------------------------------------------

#[test]
fn two_node_cycle() {
    let mut doc = base();
    doc.json["nodes"][1]["children"] = json!([0]);
    let error = doc.load().unwrap_err();
    let message = error.to_string();
    let ImportError::Invalid { object, problem } = error else { panic!("expected Invalid, got {error:?}") };
    assert_eq!(problem, Problem::Cycle);
    assert_eq!(object.kind, ObjectKind::Node);
    assert!(object.index < 2, "{object:?}");
    let name = ["hips", "arm"][object.index];
    assert_eq!(object.name.as_deref(), Some(name));
    assert_eq!(object.part, None);
    assert!(message.starts_with(&format!("node {} \"{name}\": ", object.index)), "{message}");
    assert!(message.contains("cycle"), "{message}");
}

#[test]
fn node_listing_itself_as_child() {
    let mut doc = base();
    doc.json["nodes"][1]["children"] = json!([1]);
    let (obj, problem) = expect_invalid(doc.load(), "node 1 \"arm\"");
    assert_eq!(obj, object(ObjectKind::Node, 1, Some("arm"), None));
    assert_eq!(problem, Problem::Cycle);
}

#[test]
fn node_with_two_parents() {
    let mut doc = base();
    let hand = doc.add_node(json!({"name": "hand"}));
    doc.json["nodes"][0]["children"] = json!([1, hand]);
    doc.json["nodes"][1]["children"] = json!([hand]);
    let (obj, problem) = expect_invalid(doc.load(), "node 2 \"hand\"");
    assert_eq!(obj, object(ObjectKind::Node, hand, Some("hand"), None));
    assert_eq!(problem, Problem::TwoParents { first: 0, second: 1 });
}

// ---------------------------------------------------------------------------------------------
// Buffers, views and accessors
// ---------------------------------------------------------------------------------------------

#[test]
fn accessor_data_past_the_end_of_its_view() {
    let mut doc = base();
    let input = sampler_accessor(&doc, 0, 0, "input");
    doc.json["accessors"][input]["name"] = json!("times");
    // Two floats (8 bytes) from byte 4 of an 8-byte view.
    doc.json["accessors"][input]["byteOffset"] = json!(4);
    let (obj, problem) = expect_invalid(doc.load(), &format!("accessor {input} \"times\""));
    assert_eq!(obj, object(ObjectKind::Accessor, input, Some("times"), None));
    expect_out_of_bounds(&problem, "buffer view");
}

#[test]
fn buffer_view_past_the_end_of_its_buffer() {
    let mut doc = base();
    let length = doc.bin.len();
    doc.json["bufferViews"][1]["byteLength"] = json!(length);
    let (obj, problem) = expect_invalid(doc.load(), "buffer view 1");
    assert_eq!(obj, object(ObjectKind::BufferView, 1, None, None));
    expect_out_of_bounds(&problem, &format!("{length} bytes"));

    // An offset overflowing u64 arithmetic is out of bounds too, not a panic.
    let mut doc = base();
    doc.json["bufferViews"][0]["byteOffset"] = json!(u64::MAX);
    let (_, problem) = expect_invalid(doc.load(), "buffer view 0");
    assert!(matches!(problem, Problem::OutOfBounds(_)), "{problem:?}");
}

#[test]
fn buffer_view_past_declared_buffer_length_in_glb_padding() {
    // The BIN chunk is padded to 4 bytes; views must stay inside the declared byteLength.
    let mut doc = Doc::new();
    doc.add_node(json!({"name": "arm"}));
    doc.add_animation(Some("walk"), &[(0, "translation", &[0.0, 1.0], &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0], "LINEAR")]);
    doc.add_view(&[1, 2]); // bin ends 2 bytes short of a multiple of 4
    let view = doc.json["bufferViews"].as_array().unwrap().len() - 1;
    doc.json["bufferViews"][view]["byteLength"] = json!(4);
    let (obj, problem) = expect_invalid(load_slice(&doc.to_glb(), None), &format!("buffer view {view}"));
    assert_eq!(obj.kind, ObjectKind::BufferView);
    expect_out_of_bounds(&problem, "buffer 0");
}

#[test]
fn byte_stride_smaller_than_the_element() {
    let mut doc = base();
    let output = sampler_accessor(&doc, 0, 0, "output");
    let view = doc.json["accessors"][output]["bufferView"].as_u64().unwrap() as usize;
    doc.json["bufferViews"][view]["byteStride"] = json!(8); // VEC3 of FLOAT is 12 bytes
    let (obj, problem) = expect_invalid(doc.load(), &format!("accessor {output}"));
    assert_eq!(obj, object(ObjectKind::Accessor, output, None, None));
    expect_bad_value(&problem, "bufferView.byteStride", "12-byte element");
}

/// `base()` whose "walk" output gets two sparse substitutions at `indices`.
fn sparse_doc(indices: [u8; 2]) -> (Doc, usize) {
    let mut doc = base();
    let output = sampler_accessor(&doc, 0, 0, "output");
    let indices_view = doc.add_view(&indices);
    let values: Vec<u8> = [5.0f32, 5.0, 5.0, 6.0, 6.0, 6.0].iter().flat_map(|x| x.to_le_bytes()).collect();
    let values_view = doc.add_view(&values);
    doc.json["accessors"][output]["sparse"] = json!({
        "count": 2,
        "indices": {"bufferView": indices_view, "componentType": 5121},
        "values": {"bufferView": values_view}
    });
    (doc, output)
}

#[test]
fn sparse_substitution_loads() {
    let (doc, _) = sparse_doc([0, 1]);
    doc.load().unwrap();
}

#[test]
fn sparse_index_out_of_range() {
    let (doc, output) = sparse_doc([0, 5]);
    let (obj, problem) = expect_invalid(doc.load(), &format!("accessor {output}, sparse 0"));
    assert_eq!(obj, object(ObjectKind::Accessor, output, None, Some(("sparse", 0))));
    expect_bad_value(&problem, "indices", "index 5");
}

#[test]
fn sparse_indices_not_increasing() {
    let (doc, output) = sparse_doc([1, 0]);
    let (obj, problem) = expect_invalid(doc.load(), &format!("accessor {output}, sparse 0"));
    assert_eq!(obj, object(ObjectKind::Accessor, output, None, Some(("sparse", 0))));
    expect_bad_value(&problem, "indices", "index 0 at position 1");

    let (doc, _) = sparse_doc([1, 1]);
    let (_, problem) = expect_invalid(doc.load(), &format!("accessor {output}, sparse 0"));
    expect_bad_value(&problem, "indices", "not strictly increasing");
}

#[test]
fn accessor_count_bomb_is_refused_before_allocating() {
    let mut doc = base();
    let bomb = push_accessor(&mut doc, json!({"componentType": 5126, "type": "SCALAR", "count": 1u64 << 40}));
    doc.json["animations"][0]["samplers"][0]["input"] = json!(bomb);
    let start = Instant::now();
    let result = doc.load();
    let elapsed = start.elapsed();
    let (obj, problem) = expect_invalid(result, &format!("accessor {bomb}"));
    assert_eq!(obj, object(ObjectKind::Accessor, bomb, None, None));
    assert_eq!(problem, Problem::Limit { what: "accessor components", value: 1 << 40, limit: 1 << 28 });
    // Generous: a refusal takes microseconds; allocating 4 TiB of floats would abort or crawl.
    assert!(elapsed < Duration::from_secs(2), "took {elapsed:?}");

    // A bomb used as mesh positions is refused by the total vertex count, before any read.
    let mut doc = base();
    let bomb = push_accessor(&mut doc, json!({"componentType": 5126, "type": "VEC3", "count": 1u64 << 40}));
    let mesh = doc.add_mesh(json!({"primitives": [{"attributes": {"POSITION": bomb}}]}));
    let (obj, problem) = expect_invalid(doc.load(), &format!("mesh {mesh}, primitive 0"));
    assert_eq!(obj, object(ObjectKind::Mesh, mesh, None, Some(("primitive", 0))));
    assert_eq!(problem, Problem::Limit { what: "total vertex count", value: 1 << 40, limit: 1 << 26 });
}

// ---------------------------------------------------------------------------------------------
// Animation semantics
// ---------------------------------------------------------------------------------------------

#[test]
fn weights_channel_on_a_node_without_morph_targets() {
    let doc = base_with((1, "weights", &[0.0, 1.0], &[0.0, 1.0], "LINEAR"));
    let (obj, problem) = expect_invalid(doc.load(), "animation 1 \"extra\", sampler 0");
    assert_eq!(obj, object(ObjectKind::Animation, 1, Some("extra"), Some(("sampler", 0))));
    expect_bad_value(&problem, "output", "node 1, which has no morph targets");
}

#[test]
fn zero_length_rotation_key() {
    let doc = base_with((1, "rotation", &[0.0, 1.0], &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0], "LINEAR"));
    let (obj, problem) = expect_invalid(doc.load(), "animation 1 \"extra\", sampler 0");
    assert_eq!(obj, object(ObjectKind::Animation, 1, Some("extra"), Some(("sampler", 0))));
    expect_bad_value(&problem, "output", "rotation key 1 has zero length");

    // In a cubic track the key value (not a tangent) is checked: zero tangents are fine.
    let mut values = vec![0.0f32; 24];
    for key in 0..2 {
        values[(3 * key + 1) * 4 + 3] = 1.0;
    }
    base_with((1, "rotation", &[0.0, 1.0], &values, "CUBICSPLINE")).load().unwrap();
    values[(3 + 1) * 4 + 3] = 0.0;
    let (_, problem) = expect_invalid(
        base_with((1, "rotation", &[0.0, 1.0], &values, "CUBICSPLINE")).load(),
        "animation 1 \"extra\", sampler 0",
    );
    expect_bad_value(&problem, "output", "rotation key 1 has zero length");
}

#[test]
fn unknown_interpolation() {
    let mut doc = base();
    doc.json["animations"][0]["samplers"][0]["interpolation"] = json!("SMOOTH");
    let (obj, problem) = expect_invalid(doc.load(), "animation 0 \"walk\", sampler 0");
    assert_eq!(obj, object(ObjectKind::Animation, 0, Some("walk"), Some(("sampler", 0))));
    expect_bad_value(&problem, "interpolation", "\"SMOOTH\"");
}

#[test]
fn unknown_target_path() {
    let mut doc = base();
    doc.json["animations"][0]["channels"][0]["target"]["path"] = json!("color");
    let (obj, problem) = expect_invalid(doc.load(), "animation 0 \"walk\", channel 0");
    assert_eq!(obj, object(ObjectKind::Animation, 0, Some("walk"), Some(("channel", 0))));
    expect_bad_value(&problem, "target.path", "\"color\"");
}

#[test]
fn pointer_channels_become_tracks_or_are_ignored() {
    // KHR_animation_pointer channels have path "pointer" and no node: a node-transform pointer
    // is an ordinary track; a pointer animtune does not read (a camera) is skipped.
    let mut doc = base();
    let input = sampler_accessor(&doc, 0, 0, "input");
    let output = sampler_accessor(&doc, 0, 0, "output");
    doc.json["extensionsUsed"] = json!(["KHR_animation_pointer"]);
    doc.json["animations"][0]["samplers"]
        .as_array_mut()
        .unwrap()
        .push(json!({"input": input, "output": output, "interpolation": "LINEAR"}));
    for pointer in ["/nodes/0/translation", "/cameras/0/perspective/yfov"] {
        doc.json["animations"][0]["channels"].as_array_mut().unwrap().push(json!({
            "sampler": 1,
            "target": {"path": "pointer", "extensions": {"KHR_animation_pointer": {"pointer": pointer}}}
        }));
    }
    let model = doc.load().unwrap();
    assert_eq!(model.clips()[0].tracks().len(), 2);
    assert_eq!(model.clips()[0].tracks()[1].node, anim::NodeId::from_index(0), "the pointer's node");
    assert!(model.clip_pointer_tracks(anim::ClipId::from_index(0)).is_empty(), "the camera pointer is not read");
    // A pointer past the nodes names the channel.
    doc.json["animations"][0]["channels"][1]["target"]["extensions"]["KHR_animation_pointer"]["pointer"] =
        json!("/nodes/99/rotation");
    let error = doc.load().unwrap_err().to_string();
    assert!(error.contains("channel 1") && error.contains("99"), "{error}");
}

// ---------------------------------------------------------------------------------------------
// Document level
// ---------------------------------------------------------------------------------------------

#[test]
fn missing_asset() {
    let mut doc = base();
    doc.json.as_object_mut().unwrap().remove("asset");
    let (obj, problem) = expect_invalid(doc.load(), "document");
    assert_eq!(obj, ObjectRef::root());
    assert_eq!(problem, Problem::MissingField("asset"));
}

#[test]
fn asset_version_1_0() {
    let mut doc = base();
    doc.json["asset"]["version"] = json!("1.0");
    let (obj, problem) = expect_invalid(doc.load(), "document");
    assert_eq!(obj, ObjectRef::root());
    expect_bad_value(&problem, "asset.version", "\"1.0\"");
}

#[test]
fn unsupported_required_extension() {
    let mut doc = base();
    doc.json["extensionsUsed"] = json!(["KHR_mesh_quantization", "KHR_draco_mesh_compression"]);
    doc.json["extensionsRequired"] = json!(["KHR_mesh_quantization", "KHR_draco_mesh_compression"]);
    let error = doc.load().unwrap_err();
    assert!(error.to_string().contains("KHR_draco_mesh_compression"), "{error}");
    let (obj, problem) = expect_invalid(Err(error), "document");
    assert_eq!(obj, ObjectRef::root());
    assert_eq!(problem, Problem::UnsupportedExtension("KHR_draco_mesh_compression".to_owned()));

    // Merely used (not required) is fine.
    let mut doc = base();
    doc.json["extensionsUsed"] = json!(["KHR_draco_mesh_compression"]);
    doc.load().unwrap();
}

#[test]
fn malformed_json() {
    for text in [&b"{\"asset\": {\"version\": \"2.0\"}"[..], b"{\"asset\": {\"version\": \"2.0\"},}", b" [1, "] {
        match load_slice(text, None) {
            Err(ImportError::Json(message)) => assert!(!message.is_empty()),
            other => panic!("expected ImportError::Json for {:?}, got {other:?}", String::from_utf8_lossy(text)),
        }
    }
    let error = load_slice(b"{\"asset\": ", None).unwrap_err();
    assert!(error.to_string().starts_with("malformed glTF JSON"), "{error}");
}

/// Bytes that are neither a GLB nor JSON say so (not "expected ident at line 1 column 2").
#[test]
fn random_bytes_are_neither_glb_nor_json() {
    for (bytes, shown) in
        [(&b"\xff\xfe{}"[..], "ff fe 7b 7d"), (b"glTf\x02\0\0\0", "67 6c 54 66"), (b"nonsense", "6e 6f 6e 73")]
    {
        let error = load_slice(bytes, None).unwrap_err();
        assert!(matches!(error, ImportError::NotGltf(_)), "{error:?}");
        let message = error.to_string();
        assert!(message.contains("neither GLB (wrong magic) nor JSON") && message.contains(shown), "{message}");
    }
    let error = load_slice(b"", None).unwrap_err();
    assert!(error.to_string().contains("the file is empty"), "{error}");
}

#[test]
fn document_that_is_not_an_object() {
    let (obj, _) = expect_invalid(load_slice(b"[1, 2, 3]", None), "document");
    assert_eq!(obj, ObjectRef::root());
}

// ---------------------------------------------------------------------------------------------
// GLB container
// ---------------------------------------------------------------------------------------------

fn put_u32(bytes: &mut [u8], at: usize, value: u32) {
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

#[test]
fn glb_truncated_header() {
    let glb = base().to_glb();
    for length in [4, 8, 11] {
        let message = expect_glb(load_slice(&glb[..length], None));
        assert!(message.contains("12-byte header"), "{message}");
    }
}

#[test]
fn glb_chunk_length_larger_than_the_file() {
    let mut glb = base().to_glb();
    let total = glb.len() as u32;
    put_u32(&mut glb, 12, total * 2);
    let message = expect_glb(load_slice(&glb, None));
    assert!(message.contains("chunk 0"), "{message}");

    // The BIN chunk lying about its length.
    let mut glb = base().to_glb();
    let json_length = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let bin_header = 20 + json_length;
    assert_eq!(&glb[bin_header + 4..bin_header + 8], b"BIN\0");
    put_u32(&mut glb, bin_header, u32::MAX);
    let message = expect_glb(load_slice(&glb, None));
    assert!(message.contains("chunk 1"), "{message}");
}

#[test]
fn glb_first_chunk_not_json() {
    let mut glb = base().to_glb();
    glb[16..20].copy_from_slice(b"BIN\0");
    let message = expect_glb(load_slice(&glb, None));
    assert!(message.contains("first chunk") && message.contains("JSON"), "{message}");
}

#[test]
fn glb_header_length_larger_than_the_file() {
    let mut glb = base().to_glb();
    let total = glb.len() as u32;
    put_u32(&mut glb, 8, total + 100);
    let message = expect_glb(load_slice(&glb, None));
    assert!(message.contains(&format!("{}", total + 100)) && message.contains("header"), "{message}");
}

#[test]
fn glb_wrong_container_version() {
    let mut glb = base().to_glb();
    put_u32(&mut glb, 4, 1);
    let message = expect_glb(load_slice(&glb, None));
    assert!(message.contains("version 1"), "{message}");
}

// ---------------------------------------------------------------------------------------------
// URIs
// ---------------------------------------------------------------------------------------------

#[test]
fn external_buffer_beside_the_model_loads() {
    let dir = TempDir::new("beside");
    let doc = base();
    std::fs::write(dir.path().join("model.bin"), &doc.bin).unwrap();
    load_with_external_buffer(dir.path(), &doc, "model.bin").unwrap();
    // `./` and percent-escapes stay inside the folder.
    load_with_external_buffer(dir.path(), &doc, "./model%2Ebin").unwrap();
}

#[test]
fn uri_escaping_the_folder() {
    let dir = TempDir::new("escape");
    let doc = base();
    // The file exists one level up, so only the check stops the read.
    std::fs::write(dir.path().join("x.bin"), &doc.bin).unwrap();
    let model_dir = dir.path().join("model");
    std::fs::create_dir_all(&model_dir).unwrap();
    for uri in ["../x.bin", "sub/../../x.bin", "%2E%2E/x.bin", "..\\x.bin"] {
        expect_uri_error(load_with_external_buffer(&model_dir, &doc, uri), uri, "leaving the model's folder");
    }
}

#[test]
fn uri_absolute_path() {
    let dir = TempDir::new("absolute");
    let doc = base();
    expect_uri_error(load_with_external_buffer(dir.path(), &doc, "/etc/passwd"), "/etc/passwd", "absolute");
    let own = dir.path().join("model.bin");
    std::fs::write(&own, &doc.bin).unwrap();
    let own = own.to_string_lossy().into_owned();
    expect_uri_error(load_with_external_buffer(dir.path(), &doc, &own), &own, "absolute");
}

#[test]
fn uri_with_a_non_file_scheme() {
    let dir = TempDir::new("scheme");
    let doc = base();
    for uri in ["http://example.com/a.bin", "file:///etc/passwd"] {
        expect_uri_error(load_with_external_buffer(dir.path(), &doc, uri), uri, "scheme");
    }
}

#[test]
fn missing_external_file() {
    let dir = TempDir::new("missing");
    let doc = base();
    let result = load_with_external_buffer(dir.path(), &doc, "missing.bin");
    let message = result.as_ref().err().map(ToString::to_string).unwrap_or_default();
    assert!(message.contains("missing.bin"), "{message}");
    expect_uri_error(result, "missing.bin", "missing.bin");
}

#[test]
fn external_file_from_memory_is_refused() {
    let doc = base();
    let (_, problem) = expect_invalid(load_slice(&gltf_with_buffer_uri(&doc, "model.bin"), None), "buffer 0");
    assert!(matches!(problem, Problem::Uri { .. }), "{problem:?}");
}

// ---------------------------------------------------------------------------------------------
// Skins
// ---------------------------------------------------------------------------------------------

/// Node 0 "body" draws a skinned triangle whose last vertex uses joint `joint`; skin 0 "rig"
/// has one joint, node 1 "bone".
fn skinned_doc(joint: u8) -> Doc {
    let mut doc = Doc::new();
    let positions = doc.add_f32(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3");
    let joints = doc.add_raw(&[0, 0, 0, 0, 0, 0, 0, 0, joint, 0, 0, 0], 5121, "VEC4", 3, false);
    let weights = doc.add_f32(&[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0], "VEC4");
    let mesh = doc.add_mesh(json!({"primitives": [{"attributes": {
        "POSITION": positions, "JOINTS_0": joints, "WEIGHTS_0": weights
    }}]}));
    doc.add_node(json!({"name": "body", "mesh": mesh, "skin": 0}));
    doc.add_node(json!({"name": "bone"}));
    doc.json["skins"] = json!([{"name": "rig", "joints": [1]}]);
    doc
}

#[test]
fn joints_beyond_the_skin() {
    skinned_doc(0).load().unwrap();
    let (obj, problem) = expect_invalid(skinned_doc(1).load(), "node 0 \"body\"");
    assert_eq!(obj, object(ObjectKind::Node, 0, Some("body"), None));
    expect_bad_value(&problem, "skin", "uses joint 1 but skin 0 has 1 joints");
}

// ---------------------------------------------------------------------------------------------
// Huge but finite values
// ---------------------------------------------------------------------------------------------

/// The `ValueTooLarge` problem of `result` on `shown`, checking that the message names the value,
/// the limit and the flag that raises it.
#[track_caller]
fn expect_too_large(result: Result<Model, ImportError>, shown: &str, value: &str) -> Problem {
    let message = result.as_ref().err().map(ToString::to_string).unwrap_or_default();
    let (_, problem) = expect_invalid(result, shown);
    assert!(matches!(problem, Problem::ValueTooLarge { .. }), "{problem:?}");
    for part in [value, "1e9", "--max-abs-value"] {
        assert!(message.contains(part), "message lacks {part:?}: {message}");
    }
    problem
}

#[test]
fn huge_node_transforms_are_refused() {
    let mut doc = base();
    doc.json["nodes"][1]["translation"] = json!([0.0, 1e30, 0.0]);
    let problem = expect_too_large(doc.load(), "node 1 \"arm\"", "1e30");
    let big = Problem::ValueTooLarge { field: "translation", accessor: None, element: 1, value: 1e30, limit: 1e9 };
    assert_eq!(problem, big);

    let mut doc = base();
    doc.json["nodes"][0]["scale"] = json!([1.0, 1.0, -3e9]);
    let problem = expect_too_large(doc.load(), "node 0 \"hips\"", "-3e9");
    assert_eq!(problem, Problem::ValueTooLarge { field: "scale", accessor: None, element: 2, value: -3e9, limit: 1e9 });

    let mut doc = base();
    let mut matrix = glam::Mat4::IDENTITY.to_cols_array();
    matrix[12] = 2e20;
    doc.json["nodes"][1].as_object_mut().unwrap().remove("translation");
    doc.json["nodes"][1]["matrix"] = json!(matrix);
    let problem = expect_too_large(doc.load(), "node 1 \"arm\"", "2e20");
    assert_eq!(
        problem,
        Problem::ValueTooLarge { field: "matrix", accessor: None, element: 12, value: 2e20, limit: 1e9 }
    );

    // Exactly at the limit still loads, with the value kept.
    let mut doc = base();
    doc.json["nodes"][1]["translation"] = json!([0.0, 1e9, -1e9]);
    let model = doc.load().unwrap();
    assert_eq!(model.nodes()[1].rest.translation, glam::Vec3::new(0.0, 1e9, -1e9));
}

#[test]
fn huge_key_times_and_values_are_refused() {
    let doc = base_with((1, "translation", &[0.0, 1.0], &[0.0, 0.0, 0.0, 0.0, -1e30, 0.0], "LINEAR"));
    let output = sampler_accessor(&doc, 1, 0, "output");
    let problem = expect_too_large(doc.load(), "animation 1 \"extra\", sampler 0", "-1e30");
    let expected =
        Problem::ValueTooLarge { field: "output", accessor: Some(output), element: 1, value: -1e30, limit: 1e9 };
    assert_eq!(problem, expected);
    assert!(problem.to_string().contains(&format!("(accessor {output})")), "{problem}");

    // A cubic tangent counts too (element 4 = key 1's in-tangent).
    let mut values = [0.0f32; 18];
    values[13] = 5e12;
    let doc = base_with((1, "scale", &[0.0, 1.0], &values, "CUBICSPLINE"));
    let problem = expect_too_large(doc.load(), "animation 1 \"extra\", sampler 0", "5e12");
    assert!(matches!(problem, Problem::ValueTooLarge { field: "output", element: 4, .. }), "{problem:?}");

    let doc = base_with((1, "translation", &[0.0, 1e30], &[0.0; 6], "LINEAR"));
    let input = sampler_accessor(&doc, 1, 0, "input");
    let problem = expect_too_large(doc.load(), "animation 1 \"extra\", sampler 0", "1e30");
    let expected =
        Problem::ValueTooLarge { field: "input", accessor: Some(input), element: 1, value: 1e30, limit: 1e9 };
    assert_eq!(problem, expected);
}

#[test]
fn huge_inverse_bind_matrices_and_positions_are_refused() {
    let mut doc = skinned_doc(0);
    let mut matrix = glam::Mat4::IDENTITY.to_cols_array();
    matrix[5] = 1e38;
    let inverse_bind = doc.add_f32(&matrix, "MAT4");
    doc.json["skins"][0]["inverseBindMatrices"] = json!(inverse_bind);
    let problem = expect_too_large(doc.load(), "skin 0 \"rig\"", "1e38");
    let expected = Problem::ValueTooLarge {
        field: "inverseBindMatrices",
        accessor: Some(inverse_bind),
        element: 0,
        value: 1e38,
        limit: 1e9,
    };
    assert_eq!(problem, expected);

    let mut doc = skinned_doc(0);
    let positions = doc.add_f32(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 4e10], "VEC3");
    doc.json["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(positions);
    let problem = expect_too_large(doc.load(), "mesh 0, primitive 0", "4e10");
    let expected =
        Problem::ValueTooLarge { field: "POSITION", accessor: Some(positions), element: 2, value: 4e10, limit: 1e9 };
    assert_eq!(problem, expected);

    let mut doc = skinned_doc(0);
    let weights = doc.add_f32(&[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1e20, 0.0, 0.0, 0.0], "VEC4");
    doc.json["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_0"] = json!(weights);
    let problem = expect_too_large(doc.load(), "mesh 0, primitive 0", "1e20");
    assert!(matches!(problem, Problem::ValueTooLarge { field: "WEIGHTS_0", element: 2, .. }), "{problem:?}");
}

#[test]
fn max_abs_value_is_a_limit_the_caller_sets() {
    let mut doc = base();
    doc.json["nodes"][1]["translation"] = json!([0.0, 1e30, 0.0]);
    let bytes = doc.to_gltf();
    let generous = anim::import::Limits { max_abs_value: 1e31, ..Default::default() };
    let model = anim::import::load_slice_with_limits(&bytes, None, &generous).unwrap();
    assert_eq!(model.nodes()[1].rest.translation.y, 1e30);

    // A strict limit refuses the base document's 1 m translation key.
    let strict = anim::import::Limits { max_abs_value: 0.5, ..Default::default() };
    let error = anim::import::load_slice_with_limits(&base().to_gltf(), None, &strict).unwrap_err();
    let Some(Problem::ValueTooLarge { field, value, limit, .. }) = error.problem() else { panic!("{error}") };
    assert_eq!((*field, *value, *limit), ("translation", 1.0, 0.5));
    assert_eq!(error.object().map(ToString::to_string).as_deref(), Some("node 1 \"arm\""));
}

// ---------------------------------------------------------------------------------------------
// Robustness: truncated and corrupted files
// ---------------------------------------------------------------------------------------------

/// A GLB with a hierarchy, a skinned mesh, a morph mesh, a sparse accessor and one clip using
/// STEP, LINEAR and CUBICSPLINE.
fn rich_glb() -> Vec<u8> {
    let mut doc = Doc::new();
    let positions = doc.add_f32(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3");
    let joints = doc.add_raw(&[0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0], 5121, "VEC4", 3, false);
    let weights = doc.add_f32(&[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0], "VEC4");
    let index_bytes: Vec<u8> = [0u16, 1, 2].iter().flat_map(|i| i.to_le_bytes()).collect();
    let indices = doc.add_raw(&index_bytes, 5123, "SCALAR", 3, false);
    let skinned = doc.add_mesh(json!({"primitives": [{
        "attributes": {"POSITION": positions, "JOINTS_0": joints, "WEIGHTS_0": weights},
        "indices": indices
    }]}));
    let morph = doc.add_morph_triangle(2);
    let identity: Vec<f32> = (0..2).flat_map(|_| glam::Mat4::IDENTITY.to_cols_array()).collect();
    let inverse_bind = doc.add_f32(&identity, "MAT4");
    doc.add_node(json!({"name": "root", "children": [1, 3, 4, 5]}));
    doc.add_node(json!({"name": "upper", "children": [2], "translation": [0.0, 1.0, 0.0]}));
    doc.add_node(json!({"name": "lower", "rotation": [0.0, 0.0, 0.0, 1.0]}));
    doc.add_node(json!({"name": "body", "mesh": skinned, "skin": 0}));
    doc.add_node(json!({"name": "face", "mesh": morph, "weights": [0.25, 0.5]}));
    doc.add_node(json!({"name": "prop", "matrix": [2.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 2.0, 3.0, 1.0]}));
    doc.json["skins"] = json!([{"name": "rig", "joints": [1, 2], "inverseBindMatrices": inverse_bind, "skeleton": 1}]);
    doc.json["scenes"] = json!([{"nodes": [0]}]);
    doc.json["scene"] = json!(0);
    let half_turn = std::f32::consts::FRAC_1_SQRT_2;
    doc.add_animation(
        Some("everything"),
        &[
            (1, "translation", &[0.0, 0.5, 1.0], &[0.0, 1.0, 0.0, 0.0, 2.0, 0.0, 1.0, 1.0, 0.0], "STEP"),
            (2, "rotation", &[0.0, 1.0], &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, half_turn, half_turn], "LINEAR"),
            (
                1,
                "scale",
                &[0.0, 1.0],
                &[0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 2.0, 2.0, 2.0, 0.0, 0.0, 0.0],
                "CUBICSPLINE",
            ),
            (4, "weights", &[0.0, 1.0], &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.5, 0.0, 0.0], "CUBICSPLINE"),
            (5, "rotation", &[0.0, 2.0], &[0.0; 24], "CUBICSPLINE"),
        ],
    );
    // Cubic rotation keys of "prop": unit values, zero tangents.
    let prop_output = sampler_accessor(&doc, 0, 4, "output");
    let prop_view = doc.json["accessors"][prop_output]["bufferView"].as_u64().unwrap() as usize;
    let offset = doc.json["bufferViews"][prop_view]["byteOffset"].as_u64().unwrap() as usize;
    for key in 0..2 {
        let at = offset + ((3 * key + 1) * 4 + 3) * 4;
        doc.bin[at..at + 4].copy_from_slice(&1.0f32.to_le_bytes());
    }
    // A sparse substitution on the STEP translation output.
    let step_output = sampler_accessor(&doc, 0, 0, "output");
    let sparse_indices = doc.add_view(&[2]);
    let sparse_values: Vec<u8> = [3.0f32, 3.0, 3.0].iter().flat_map(|x| x.to_le_bytes()).collect();
    let sparse_values = doc.add_view(&sparse_values);
    doc.json["accessors"][step_output]["sparse"] = json!({
        "count": 1,
        "indices": {"bufferView": sparse_indices, "componentType": 5121},
        "values": {"bufferView": sparse_values}
    });
    doc.to_glb()
}

/// Import `bytes`; when it loads, sample every clip in every interpolation mode and compute the
/// skinning palettes, so that what the importer accepts is also safe to use. Panics (with
/// `what` in the message) only if something panicked.
fn import_and_use(bytes: &[u8], what: &str) -> bool {
    let outcome = std::panic::catch_unwind(|| {
        let Ok(model) = load_slice(bytes, None) else { return false };
        let rest = model.rest_pose();
        let mut pose = rest.clone();
        for clip in model.clips() {
            let mut cursor = ClipCursor::new(clip);
            for mode in InterpolationOverride::ALL {
                let settings = SampleSettings::with_mode(mode);
                for t in [-1.0, 0.0, 0.3, 0.75, clip.end_secs(), clip.end_secs() + 1.0] {
                    pose.copy_from(&rest);
                    clip.sample(t, &mut cursor, &settings, &mut pose);
                }
            }
        }
        let mut model_from_node = vec![glam::Affine3A::IDENTITY; model.nodes().len()];
        model.hierarchy.local_to_model(&pose, &mut anim::LocalMatrices::default(), &mut model_from_node);
        for skin in model.skins().iter().map(anim::PreparedSkin::new) {
            let mut palette = vec![glam::Mat4::IDENTITY; skin.len()];
            skin.skinning_matrices(&model_from_node, &mut palette);
        }
        true
    });
    outcome.unwrap_or_else(|_| panic!("importing or using the model panicked on {what}"))
}

#[test]
fn truncated_glb_never_panics() {
    let glb = rich_glb();
    assert!(import_and_use(&glb, "the intact file"), "the intact file must load");
    let mut loaded = 0;
    for length in 0..glb.len() {
        loaded += usize::from(import_and_use(&glb[..length], &format!("the first {length} bytes")));
    }
    // Every proper prefix is missing data the header declares.
    assert_eq!(loaded, 0);
}

#[test]
fn corrupted_glb_never_panics() {
    let glb = rich_glb();
    let mut outcomes = [0usize; 2];
    for byte in (0..glb.len()).step_by(7) {
        for bit in 0..8 {
            let mut corrupted = glb.clone();
            corrupted[byte] ^= 1 << bit;
            let loaded = import_and_use(&corrupted, &format!("bit {bit} of byte {byte} flipped"));
            outcomes[usize::from(loaded)] += 1;
        }
    }
    // Both outcomes occur: flips in padding or values load, flips in structure fail.
    assert!(outcomes[0] > 0 && outcomes[1] > 0, "{outcomes:?}");
}

#[test]
fn truncated_gltf_json_never_panics() {
    let mut doc = Doc::new();
    doc.add_node(json!({"name": "a", "mesh": 0}));
    doc.add_morph_triangle(1);
    doc.add_animation(None, &[(0, "weights", &[0.0, 1.0], &[0.0, 1.0], "STEP")]);
    let gltf = doc.to_gltf();
    assert!(import_and_use(&gltf, "the intact file"));
    for length in (0..gltf.len()).step_by(3) {
        import_and_use(&gltf[..length], &format!("the first {length} bytes of the JSON"));
    }
}

// ---------------------------------------------------------------------------------------------
// Materials: emissive and alpha
// ---------------------------------------------------------------------------------------------

#[test]
fn emissive_and_alpha_fields_are_read_and_checked() {
    let mut doc = base();
    doc.json["materials"] = json!([
        {"name": "glow", "emissiveFactor": [1.0, 0.5, 0.0], "alphaMode": "MASK", "alphaCutoff": 0.25,
         "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": 4.0}}},
        {"alphaMode": "BLEND"},
        {}
    ]);
    let model = doc.load().unwrap();
    let [glow, blend, plain] = model.materials() else { panic!("three materials") };
    assert_eq!(glow.emissive_factor, glam::Vec3::new(1.0, 0.5, 0.0));
    assert_eq!((glow.emissive_strength, glow.alpha_mode, glow.alpha_cutoff), (4.0, anim::AlphaMode::Mask, 0.25));
    assert_eq!(blend.alpha_mode, anim::AlphaMode::Blend);
    assert_eq!((plain.emissive_factor, plain.emissive_strength), (glam::Vec3::ZERO, 1.0));
    assert_eq!((plain.alpha_mode, plain.alpha_cutoff), (anim::AlphaMode::Opaque, 0.5));

    let broken = |edit: &dyn Fn(&mut Value)| {
        let mut doc = base();
        doc.json["materials"] = json!([{"name": "m"}]);
        edit(&mut doc.json["materials"][0]);
        expect_invalid(doc.load(), "material 0 \"m\"").1
    };
    expect_bad_value(&broken(&|m| m["alphaMode"] = json!("ADD")), "alphaMode", "OPAQUE, MASK or BLEND");
    expect_bad_value(&broken(&|m| m["alphaCutoff"] = json!(-0.5)), "alphaCutoff", "negative");
    expect_bad_value(&broken(&|m| m["emissiveFactor"] = json!([1.0, 0.0])), "emissiveFactor", "3 numbers");
    let negative = |m: &mut Value| {
        m["extensions"] = json!({"KHR_materials_emissive_strength": {"emissiveStrength": -1.0}});
    };
    expect_bad_value(&broken(&negative), "emissiveStrength", "negative");
    assert_eq!(
        broken(&|m| m["emissiveTexture"] = json!({"index": 2})),
        Problem::IndexOutOfRange { field: "index", index: 2, kind: "texture", count: 0 }
    );
}

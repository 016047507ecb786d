//! animtune's Draco decoder against Google's (draco3d, the WebAssembly build gltf-transform
//! ships), attribute by attribute: every shared model with meshes compressed by gltf-transform
//! at the settings of [`variants::DRACO_REFERENCE_SETTINGS`] (the skinned ones at all 8, the
//! others at one edgebreaker and one sequential row), each Draco primitive decoded by both, the
//! triangle indices equal and every attribute value equal or within half its quantization step;
//! then the whole file opens through the importer. Real Draco files kept in the repository —
//! Google's own test streams (every bitstream version its encoder has written, meshes and point
//! clouds) and its Draco glTF box, and a mesh from glTF-Transform's tests — decode bit for bit
//! like Google's decoder.

use std::path::Path;

use anim::import::{DracoAttribute, DracoComponent, DracoPrimitive};
use devtools::variants::{self, DRACO_REFERENCE_SETTINGS, DracoSettings};

/// The models: the skinned ones of the variant tests, then every other top-level shared model.
fn models(shared: &Path) -> Vec<(String, bool)> {
    let mut models: Vec<(String, bool)> = variants::MODELS.iter().map(|&(m, _)| (m.to_owned(), true)).collect();
    let mut others: Vec<String> = std::fs::read_dir(shared)
        .expect("read the shared models")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            ["glb", "gltf"]
                .iter()
                .map(|ext| format!("{name}/{name}.{ext}"))
                .find(|relative| shared.join(relative).exists())
        })
        .filter(|relative| !models.iter().any(|(m, _)| m == relative))
        .collect();
    others.sort();
    models.extend(others.into_iter().map(|m| (m, false)));
    models
}

fn component(gltf: u64) -> (DracoComponent, usize) {
    match gltf {
        5120 => (DracoComponent::I8, 1),
        5121 => (DracoComponent::U8, 1),
        5122 => (DracoComponent::I16, 2),
        5123 => (DracoComponent::U16, 2),
        5125 => (DracoComponent::U32, 4),
        5126 => (DracoComponent::F32, 4),
        other => panic!("component type {other}"),
    }
}

fn value(bytes: &[u8], component: DracoComponent) -> f64 {
    match component {
        DracoComponent::I8 => f64::from(bytes[0] as i8),
        DracoComponent::U8 => f64::from(bytes[0]),
        DracoComponent::I16 => f64::from(i16::from_le_bytes([bytes[0], bytes[1]])),
        DracoComponent::U16 => f64::from(u16::from_le_bytes([bytes[0], bytes[1]])),
        DracoComponent::U32 => f64::from(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])),
        DracoComponent::F32 => f64::from(f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])),
    }
}

/// gltf-transform's quantization bits of an attribute (its defaults but for positions).
fn quantization_bits(semantic: &str, settings: DracoSettings) -> i32 {
    match semantic {
        "POSITION" => i32::from(settings.position_bits),
        "NORMAL" | "TANGENT" => 10,
        s if s.starts_with("TEXCOORD_") => 12,
        s if s.starts_with("COLOR_") => 8,
        _ => 12,
    }
}

/// What one file's comparison found.
#[derive(Debug, Default)]
struct Compared {
    primitives: usize,
    values: usize,
    identical: usize,
    /// Largest difference over the attribute's quantization step.
    worst_steps: f64,
}

/// Decode every Draco primitive the reference dumped with animtune and compare: within half a
/// quantization step of `settings` (gltf-transform's), or bit for bit without settings.
fn compare(reference: &Path, settings: Option<DracoSettings>, label: &str) -> Compared {
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(reference.join("index.json")).expect("index.json")).expect("json");
    let mut compared = Compared::default();
    for primitive in index.as_array().expect("an array") {
        let name = primitive["name"].as_str().expect("name");
        let stream = std::fs::read(reference.join(format!("{name}.drc"))).expect("the stream");
        let mut attributes: Vec<&serde_json::Value> =
            primitive["attributes"].as_array().expect("attributes").iter().collect();
        // A unique id names one attribute (a glTF file names them so): where a stream before
        // bitstream 1.3 repeats one, both decoders give its first attribute.
        let mut seen = std::collections::HashSet::new();
        attributes.retain(|a| seen.insert(a["uniqueId"].as_u64()));
        let wanted: Vec<DracoAttribute> = attributes
            .iter()
            .map(|a| DracoAttribute {
                semantic: a["semantic"].as_str().expect("semantic").to_owned(),
                unique_id: a["uniqueId"].as_u64().expect("unique id") as u32,
                components: a["components"].as_u64().expect("components") as usize,
                component: component(a["componentType"].as_u64().expect("component type")).0,
                normalized: a["normalized"].as_bool().unwrap_or(false),
            })
            .collect();
        let request = DracoPrimitive {
            compressed: &stream,
            attributes: wanted.clone(),
            vertex_count: primitive["vertexCount"].as_u64().expect("vertex count") as usize,
            index_count: primitive["indexCount"].as_u64().map(|n| n as usize),
        };
        let decoded = decode::draco::decode(&request).unwrap_or_else(|e| panic!("{label} {name}: {e}"));
        // A point cloud has no triangles (and no `.idx`).
        let indices: Vec<u32> = std::fs::read(reference.join(format!("{name}.idx")))
            .unwrap_or_default()
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        assert_eq!(decoded.indices, indices, "{label} {name}: triangle indices differ from draco3d's");
        for ((want, json), ours) in wanted.iter().zip(&attributes).zip(&decoded.attributes) {
            let theirs = std::fs::read(reference.join(json["file"].as_str().expect("file"))).expect("values");
            assert_eq!(ours.len(), theirs.len(), "{label} {name} {}: value count", want.semantic);
            let size = component(json["componentType"].as_u64().expect("type")).1;
            let ours: Vec<f64> = ours.chunks_exact(size).map(|b| value(b, want.component)).collect();
            let theirs: Vec<f64> = theirs.chunks_exact(size).map(|b| value(b, want.component)).collect();
            // The quantization step of each component: its range over 2^bits − 1 (integers
            // are not quantized further: step 0, so they must be equal).
            let step = if let (DracoComponent::F32, Some(settings)) = (want.component, settings) {
                let bits = quantization_bits(&want.semantic, settings);
                (0..want.components)
                    .map(|c| {
                        let column = theirs.iter().skip(c).step_by(want.components);
                        let (lo, hi) = column.fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
                        (hi - lo).max(0.0) / (2f64.powi(bits) - 1.0)
                    })
                    .fold(0.0, f64::max)
            } else {
                0.0
            };
            for (a, b) in ours.iter().zip(&theirs) {
                compared.values += 1;
                if a.to_bits() == b.to_bits() {
                    compared.identical += 1;
                    continue;
                }
                let off = (a - b).abs();
                let steps = if step > 0.0 { off / step } else { f64::INFINITY };
                compared.worst_steps = compared.worst_steps.max(steps);
                assert!(
                    steps <= 0.5,
                    "{label} {name} {}: {a} against draco3d's {b} ({steps:.2} quantization steps apart)",
                    want.semantic
                );
            }
        }
        compared.primitives += 1;
    }
    compared
}

#[test]
fn draco_decodes_like_googles_decoder_at_every_setting() {
    let Some(tool) = variants::gltf_transform() else { return };
    let Some(shared) = devtools::ci::shared_models("the Draco reference check") else { return };
    let limits = anim::import::Limits::default();
    let (mut files, mut primitives, mut values, mut identical, mut worst) = (0, 0, 0, 0, 0.0f64);
    for (i, (relative, skinned)) in models(&shared).iter().enumerate() {
        let source = variants::source(relative).unwrap_or_else(|| panic!("{relative} is missing"));
        let original = devtools::load(&source);
        let vertex_count =
            |m: &anim::Model| m.meshes().iter().flat_map(|m| &m.primitives).map(|p| p.positions.len()).sum::<usize>();
        if vertex_count(&original) == 0 {
            continue;
        }
        let settings: Vec<DracoSettings> = if *skinned {
            DRACO_REFERENCE_SETTINGS.to_vec()
        } else {
            vec![DRACO_REFERENCE_SETTINGS[i % 4], DRACO_REFERENCE_SETTINGS[4 + (i + 1) % 4]]
        };
        for settings in settings {
            let label = format!("{relative} {}", settings.tag());
            let glb = variants::draco_variant(&tool, &source, settings);
            let reference = variants::draco_reference(&glb);
            let compared = compare(&reference, Some(settings), &label);
            // gltf-transform leaves primitives with morph targets uncompressed; every skinned
            // model has Draco primitives.
            assert!(compared.primitives > 0 || !skinned, "{label}: no Draco primitive");
            let loaded = decode::load_path(&glb, &limits).unwrap_or_else(|e| panic!("{label}: {e}"));
            assert!(vertex_count(&loaded) > 0, "{label}: no vertices");
            println!(
                "{label}: {} Draco primitives, {} values, {} bit-identical to draco3d",
                compared.primitives, compared.values, compared.identical
            );
            files += 1;
            primitives += compared.primitives;
            values += compared.values;
            identical += compared.identical;
            worst = worst.max(compared.worst_steps);
        }
    }
    println!(
        "{files} files, {primitives} Draco primitives, {values} values: {identical} bit-identical to draco3d, \
         the rest within {worst:.3} quantization steps"
    );
    assert!(primitives > 0, "no Draco primitive compared");
}

/// Real Draco files from public repositories, kept with their licences: Google's test data
/// (`tests/google-draco/`, from google/draco's `testdata/`, Apache-2.0): its Draco streams as its
/// encoders wrote them from 0.9 to 1.5 (bitstreams 1.1 to 2.3, sequential and edgebreaker, meshes
/// and point clouds, quantized and not, with metadata and sub-objects) and its Draco glTF box;
/// and a skinned-attribute mesh from glTF-Transform's tests (`tests/gltf-transform-draco/`, MIT).
/// Each is decoded by Google's decoder (npm `draco3d`, the full build with the older bitstreams
/// and point clouds, for bare streams; draco3dgltf for glTF files) and by animtune: every index
/// and value bit-identical.
#[test]
fn real_draco_files_decode_like_googles_decoder() {
    if variants::gltf_transform().is_none() {
        return;
    }
    let root = devtools::ci::repo_root();
    if !root.join(".tools/node_modules/draco3d/package.json").exists() {
        devtools::ci::skip("npm draco3d is not installed in .tools/ (scripts/install-test-deps.sh installs it)");
        return;
    }
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut files: Vec<std::path::PathBuf> = ["google-draco", "gltf-transform-draco"]
        .iter()
        .flat_map(|folder| std::fs::read_dir(tests.join(folder)).expect("the folder"))
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.ends_with(".drc") || name == "Box_Draco.glb" || name.ends_with(".gltf")
        })
        .collect();
    files.sort();
    let (mut streams, mut values) = (0, 0);
    for file in &files {
        let name = file.file_name().and_then(|n| n.to_str()).expect("a name");
        let bytes = std::fs::read(file).expect("the file");
        // The reference is cached beside a copy (with the files its folder holds, for a .gltf's
        // buffer) in a folder named by the bytes, not in the source tree.
        let dir = root.join(format!("target/variants/real-draco/{:016x}", variants::fnv1a(&bytes)));
        let copy = dir.join(name);
        if !copy.exists() {
            std::fs::create_dir_all(&dir).expect("the cache folder");
            if name.ends_with(".gltf") {
                for sibling in std::fs::read_dir(file.parent().expect("a folder")).expect("the folder") {
                    let sibling = sibling.expect("an entry").path();
                    std::fs::copy(&sibling, dir.join(sibling.file_name().expect("a name"))).expect("the copy");
                }
            }
            std::fs::write(&copy, &bytes).expect("the copy");
        }
        let compared = compare(&variants::draco_reference(&copy), None, name);
        assert_eq!(compared.primitives, 1, "{name}: one Draco stream");
        assert_eq!(compared.identical, compared.values, "{name}");
        if name.ends_with(".gltf") || name.ends_with(".glb") {
            decode::load_path(file, &anim::import::Limits::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        println!("{name}: {} values bit-identical to draco3d", compared.values);
        streams += 1;
        values += compared.values;
    }
    println!("{streams} real Draco files, {values} values: every one bit-identical to draco3d");
    assert_eq!(streams, 27, "Google's 25 streams and glTF box, glTF-Transform's mesh");
}

/// Google's Draco glTF box opens like its uncompressed original: the same 12 triangles, every
/// corner's position and normal within 1e-3 (the quantization of a unit box).
#[test]
fn googles_draco_box_opens_like_the_uncompressed_box() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/google-draco");
    let limits = anim::import::Limits::default();
    let triangles = |file: &str| -> Vec<[f32; 18]> {
        let model = decode::load_path(&here.join(file), &limits).unwrap_or_else(|e| panic!("{file}: {e}"));
        let mut triangles: Vec<[f32; 18]> = Vec::new();
        for primitive in model.meshes().iter().flat_map(|m| &m.primitives) {
            let indices: Vec<u32> =
                primitive.indices.clone().unwrap_or_else(|| (0..primitive.positions.len() as u32).collect());
            for corners in indices.chunks_exact(3) {
                // Each triangle from its smallest corner on, so that renumbered points and
                // rotated corners compare equal.
                let first = (0..3)
                    .min_by(|&a, &b| {
                        let (p, q) =
                            (primitive.positions[corners[a] as usize], primitive.positions[corners[b] as usize]);
                        p.to_array().partial_cmp(&q.to_array()).expect("finite")
                    })
                    .expect("three corners");
                let mut triangle = [0.0; 18];
                for k in 0..3 {
                    let corner = corners[(first + k) % 3] as usize;
                    triangle[k * 6..k * 6 + 3].copy_from_slice(&primitive.positions[corner].to_array());
                    triangle[k * 6 + 3..k * 6 + 6].copy_from_slice(&primitive.normals[corner].to_array());
                }
                triangles.push(triangle);
            }
        }
        triangles.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
        triangles
    };
    let (original, draco) = (triangles("Box.glb"), triangles("Box_Draco.glb"));
    assert_eq!(original.len(), 12, "a box has 12 triangles");
    assert_eq!(draco.len(), original.len());
    for (a, b) in original.iter().zip(&draco) {
        let off = a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max);
        assert!(off <= 1e-3, "{a:?} against {b:?}");
    }
}

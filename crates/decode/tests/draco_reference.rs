//! animtune's Draco decoder against Google's (draco3d, the WebAssembly build gltf-transform
//! ships), attribute by attribute: every shared model with meshes compressed by gltf-transform
//! at the settings of [`variants::DRACO_REFERENCE_SETTINGS`] (the skinned ones at all 8, the
//! others at one edgebreaker and one sequential row), each Draco primitive decoded by both, the
//! triangle indices equal and every attribute value equal or within half its quantization step;
//! then the whole file opens through the importer.

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

/// Decode every Draco primitive the reference dumped with animtune and compare.
fn compare(reference: &Path, settings: DracoSettings, label: &str) -> Compared {
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(reference.join("index.json")).expect("index.json")).expect("json");
    let mut compared = Compared::default();
    for primitive in index.as_array().expect("an array") {
        let name = primitive["name"].as_str().expect("name");
        let stream = std::fs::read(reference.join(format!("{name}.drc"))).expect("the stream");
        let attributes: Vec<&serde_json::Value> =
            primitive["attributes"].as_array().expect("attributes").iter().collect();
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
        let indices: Vec<u32> = std::fs::read(reference.join(format!("{name}.idx")))
            .expect("indices")
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
            let step = if want.component == DracoComponent::F32 {
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
            let compared = compare(&reference, settings, &label);
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

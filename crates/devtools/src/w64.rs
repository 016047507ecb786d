//! W64, the benchmark workload of `animtune bench`, written as a glTF binary: `cargo xtask
//! generate w64` makes the file, and `animtune bench w64.glb` then measures the same keys loaded
//! from disk through the importer (as any model is) instead of built in memory.

use std::path::Path;

use anim::{Interpolation, Model, NodeId, TrackValues};
use anyhow::Context as _;

use crate::mannequin::glb::{
    Animation, AnimationExtras, Asset, BinBuilder, Channel, Document, Node, Sampler, Scene, Skin, Target,
};

/// The glTF binary of [`anim::workload::w64_model`]: the 64-joint skeleton, its skin and the
/// four clips (LINEAR, CUBICSPLINE, and both shifted by 2.5 s), every channel of a clip on one
/// shared time accessor. Deterministic.
pub fn build_w64_glb() -> Vec<u8> {
    let model = anim::workload::w64_model();
    let mut bin = BinBuilder::default();
    let nodes = model
        .nodes()
        .iter()
        .enumerate()
        .map(|(index, node)| Node {
            name: node.name.clone().unwrap_or_default(),
            children: model.hierarchy.children(NodeId::from_index(index)).iter().map(|c| c.index()).collect(),
            translation: Some(node.rest.translation.to_array()),
            rotation: None,
            mesh: None,
            skin: None,
        })
        .collect();
    let skins = model
        .skins()
        .iter()
        .map(|skin| {
            let matrices: Vec<f32> = skin.inverse_bind_matrices.iter().flat_map(glam::Mat4::to_cols_array).collect();
            Skin {
                name: "W64",
                inverse_bind_matrices: bin.floats(&matrices, "MAT4", None, false),
                skeleton: skin.skeleton.map_or(0, NodeId::index),
                joints: skin.joints.iter().map(|j| j.index()).collect(),
            }
        })
        .collect();
    let animations = animations(&model, &mut bin);
    let (bin, buffer_views, accessors) = bin.finish();
    let doc = Document {
        asset: Asset { version: "2.0", generator: "animtune W64 generator" },
        scene: 0,
        scenes: vec![Scene { name: "W64", nodes: vec![0] }],
        nodes,
        meshes: Vec::new(),
        materials: Vec::new(),
        skins,
        animations,
        accessors,
        buffer_views,
        buffers: vec![crate::mannequin::glb::Buffer { byte_length: bin.len() }],
    };
    let json = serde_json::to_vec(&doc).unwrap_or_else(|e| unreachable!("the W64 document serializes: {e}"));
    crate::gltf::pack_glb(&json, &bin)
}

fn animations(model: &Model, bin: &mut BinBuilder) -> Vec<Animation> {
    model
        .clips()
        .iter()
        .map(|clip| {
            let times = &clip.timelines()[0].times_secs;
            let input = bin.floats(times, "SCALAR", None, true);
            let mut samplers = Vec::new();
            let mut channels = Vec::new();
            for track in clip.tracks() {
                let (path, kind, values): (&'static str, &'static str, Vec<f32>) = match &track.values {
                    TrackValues::Translation(v) => {
                        ("translation", "VEC3", v.iter().flat_map(glam::Vec3::to_array).collect())
                    }
                    TrackValues::Scale(v) => ("scale", "VEC3", v.iter().flat_map(glam::Vec3::to_array).collect()),
                    TrackValues::Rotation(q) => ("rotation", "VEC4", q.iter().flat_map(glam::Quat::to_array).collect()),
                    TrackValues::Weights { .. } => continue,
                };
                let output = bin.floats(&values, kind, None, false);
                channels.push(Channel { sampler: samplers.len(), target: Target { node: track.node.index(), path } });
                let interpolation = match track.interpolation {
                    Interpolation::Step => "STEP",
                    Interpolation::Linear => "LINEAR",
                    Interpolation::CubicSpline => "CUBICSPLINE",
                };
                samplers.push(Sampler { input, interpolation, output });
            }
            Animation {
                name: clip.name().unwrap_or_default().to_owned(),
                channels,
                samplers,
                extras: AnimationExtras { looping: false },
            }
        })
        .collect()
}

/// Write [`build_w64_glb`] to `path` (creating its folder).
pub fn write_w64(path: &Path) -> anyhow::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    }
    std::fs::write(path, build_w64_glb()).with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use anim::workload::{random_times, w64_model};
    use anim::{ClipCursor, NodePose, SampleSettings};

    /// The file loads back as the same workload: same skeleton, skin and clips, sampled to the
    /// same values (rotation keys to an ulp: the importer renormalizes them).
    #[test]
    fn the_w64_file_imports_as_the_in_memory_workload() {
        let bytes = super::build_w64_glb();
        let loaded = anim::import::load_slice(&bytes, None).expect("W64 .glb imports");
        let memory = w64_model();
        assert_eq!(loaded.nodes().len(), 64);
        assert_eq!(loaded.hierarchy, memory.hierarchy);
        assert_eq!(loaded.skins()[0].joints, memory.skins()[0].joints);
        assert_eq!(loaded.skins()[0].inverse_bind_matrices, memory.skins()[0].inverse_bind_matrices);
        assert_eq!(loaded.clips().len(), 4);
        let settings = SampleSettings::default();
        for (a, b) in loaded.clips().iter().zip(memory.clips()) {
            assert_eq!(a.name(), b.name());
            assert_eq!(a.timelines().len(), 1, "every channel shares one timeline");
            assert_eq!(a.timelines()[0].times_secs.len(), 301);
            let (mut pa, mut pb) = (loaded.rest_pose(), memory.rest_pose());
            let (mut ca, mut cb) = (ClipCursor::new(a), ClipCursor::new(b));
            for t in random_times(10.0, 200) {
                a.sample(t, &mut ca, &settings, &mut pa);
                b.sample(t, &mut cb, &settings, &mut pb);
                let (pa, pb) = (NodePose::from(&pa), NodePose::from(&pb));
                assert_eq!((&pa.translations, &pa.scales), (&pb.translations, &pb.scales), "{:?} at {t}", a.name());
                for (p, q) in pa.rotations.iter().zip(&pb.rotations) {
                    let difference = (glam::Vec4::from(*p) - glam::Vec4::from(*q)).abs().max_element();
                    assert!(difference < 1e-6, "{:?} at t = {t}: rotations {p} and {q}", a.name());
                }
            }
        }
        assert_eq!(super::build_w64_glb(), bytes, "deterministic");
    }
}

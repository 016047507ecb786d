//! The built-in default character: a generated, skinned and animated humanoid mannequin.
//!
//! [`build_mannequin_glb`] produces a complete glTF 2.0 binary (`.glb`): a 21-joint humanoid
//! skeleton in an A-pose (Y up, metres, facing +Z, feet on y = 0, 1.76 m tall), one continuous
//! smoothly skinned mesh with vertex colours and a "Blink" morph target, and eight hand-keyed
//! clips (Idle, Walk, Run, Wave, Jump, Stumble as cubic splines; `Walk_Linear`; `Jump_Blocking`
//! as steps). The output is byte-for-byte deterministic: all geometry is computed with plain `f64`
//! arithmetic (see [`math`]) and the JSON is written from fixed-order structs.
//!
//! The checked-in `assets/mannequin.glb` is this function's output (the shipped binary embeds
//! those bytes); regenerate it with `cargo xtask generate mannequin`.

pub mod clips;
pub(crate) mod glb;
pub mod math;
pub mod mesh;
pub mod shape;
pub mod skeleton;

use std::path::Path;

use anyhow::Context as _;

use clips::{BuiltClip, Target as ClipTarget};
use glb::{
    Accessor, Animation, AnimationExtras, Asset, Attributes, BinBuilder, Channel, Document, Material, Mesh, MeshExtras,
    MorphTarget, Node, Pbr, Primitive, Sampler, Scene, Skin, Target,
};
use skeleton::{JOINT_COUNT, JOINT_NAMES, PARENTS};

/// Name of the mesh node (a root node next to the skeleton's root, Hips).
pub const MESH_NODE_NAME: &str = "Mannequin";

/// Builds the mannequin as GLB bytes (identical on every run and every platform).
pub fn build_mannequin_glb() -> Vec<u8> {
    let mesh = mesh::build();
    let clips: Vec<BuiltClip> = clips::all().iter().map(clips::ClipSpec::build).collect();
    assemble(&mesh, &clips)
}

/// Writes [`build_mannequin_glb`]'s output to `path` (creating parent folders).
pub fn write_mannequin(path: &Path) -> anyhow::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    }
    std::fs::write(path, build_mannequin_glb()).with_context(|| format!("writing {}", path.display()))
}

fn flat3(v: &[[f32; 3]]) -> Vec<f32> {
    v.iter().flatten().copied().collect()
}

#[allow(clippy::too_many_lines)]
fn assemble(mesh: &mesh::MeshData, clips: &[BuiltClip]) -> Vec<u8> {
    let mut bin = BinBuilder::default();
    let array = Some(glb::ARRAY_BUFFER);

    // Vertex attributes, one tightly packed view each.
    let position = bin.floats(&flat3(&mesh.positions), "VEC3", array, true);
    let normal = bin.floats(&flat3(&mesh.normals), "VEC3", array, false);
    let color = bin.floats(&flat3(&mesh.colors), "VEC3", array, false);
    let joint_bytes: Vec<u8> = mesh.joints.iter().flatten().copied().collect();
    let joints_view = bin.view(&joint_bytes, array);
    let joints = bin.accessor(Accessor {
        buffer_view: Some(joints_view),
        byte_offset: 0,
        component_type: glb::UNSIGNED_BYTE,
        normalized: false,
        count: mesh.joints.len(),
        kind: "VEC4",
        min: None,
        max: None,
        sparse: None,
    });
    let weights_flat: Vec<f32> = mesh.weights.iter().flatten().copied().collect();
    let weights = bin.floats(&weights_flat, "VEC4", array, false);
    // The blink moves a few hundred vertices around the eyes: store its offsets sparsely.
    let blink_position = bin.sparse_floats(&flat3(&mesh.blink_positions), "VEC3", true);
    let blink_normal = bin.sparse_floats(&flat3(&mesh.blink_normals), "VEC3", false);

    let vertex_count = mesh.positions.len();
    let (index_bytes, index_type): (Vec<u8>, u32) = if vertex_count <= usize::from(u16::MAX) {
        let bytes =
            mesh.indices.iter().flat_map(|&i| u16::try_from(i).expect("index fits u16").to_le_bytes()).collect();
        (bytes, glb::UNSIGNED_SHORT)
    } else {
        (mesh.indices.iter().flat_map(|i| i.to_le_bytes()).collect(), glb::UNSIGNED_INT)
    };
    let index_view = bin.view(&index_bytes, Some(glb::ELEMENT_ARRAY_BUFFER));
    let indices = bin.accessor(Accessor {
        buffer_view: Some(index_view),
        byte_offset: 0,
        component_type: index_type,
        normalized: false,
        count: mesh.indices.len(),
        kind: "SCALAR",
        min: None,
        max: None,
        sparse: None,
    });

    // Skeleton nodes: bind pose in local translations, identity rotations.
    let local = skeleton::bind_local_translations();
    let world = skeleton::bind_world_positions();
    let to_f32 = |v: glam::DVec3| -> [f32; 3] {
        #[allow(clippy::cast_possible_truncation)]
        [v.x as f32, v.y as f32, v.z as f32]
    };
    let mut nodes: Vec<Node> = (0..JOINT_COUNT)
        .map(|j| Node {
            name: JOINT_NAMES[j].to_owned(),
            children: (0..JOINT_COUNT).filter(|&c| PARENTS[c] == Some(j)).collect(),
            translation: Some(to_f32(local[j])),
            rotation: Some([0.0, 0.0, 0.0, 1.0]),
            ..Node::default()
        })
        .collect();
    let mesh_node = nodes.len();
    nodes.push(Node { name: MESH_NODE_NAME.to_owned(), mesh: Some(0), skin: Some(0), ..Node::default() });

    // Inverse bind matrices: each joint's world bind transform is a pure translation.
    let mut ibm = Vec::with_capacity(JOINT_COUNT * 16);
    for p in &world {
        let t = to_f32(-*p);
        ibm.extend_from_slice(&[1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, t[0], t[1], t[2], 1.0]);
    }
    let ibm_accessor = bin.floats(&ibm, "MAT4", None, false);

    // Animations: all key data in views without a target.
    let mut animations = Vec::new();
    for clip in clips {
        let mut channels = Vec::new();
        let mut samplers = Vec::new();
        let mut inputs: Vec<(Vec<f32>, usize)> = Vec::new();
        for (target, track) in &clip.channels {
            let input = if let Some((_, acc)) = inputs.iter().find(|(t, _)| *t == track.times) {
                *acc
            } else {
                let acc = bin.floats(&track.times, "SCALAR", None, true);
                inputs.push((track.times.clone(), acc));
                acc
            };
            let (node, path, kind) = match target {
                ClipTarget::Rotation(j) => (*j, "rotation", "VEC4"),
                ClipTarget::Translation(j) => (*j, "translation", "VEC3"),
                ClipTarget::Weights => (mesh_node, "weights", "SCALAR"),
            };
            let output = bin.floats(&track.output, kind, None, false);
            samplers.push(Sampler { input, interpolation: clip.interp.gltf_name(), output });
            channels.push(Channel { sampler: samplers.len() - 1, target: Target { node, path } });
        }
        animations.push(Animation {
            name: clip.name.to_owned(),
            channels,
            samplers,
            extras: AnimationExtras { looping: clip.looping },
        });
    }

    let (bin_data, buffer_views, accessors) = bin.finish();
    let doc = Document {
        asset: Asset { version: "2.0", generator: "animtune mannequin generator" },
        scene: 0,
        scenes: vec![Scene { name: "Mannequin", nodes: vec![skeleton::HIPS, mesh_node] }],
        nodes,
        meshes: vec![Mesh {
            name: "Mannequin",
            primitives: vec![Primitive {
                attributes: Attributes { position, normal, color_0: color, joints_0: joints, weights_0: weights },
                indices,
                material: 0,
                mode: 4,
                targets: vec![MorphTarget { position: blink_position, normal: blink_normal }],
            }],
            weights: vec![0.0],
            extras: MeshExtras { target_names: vec!["Blink"] },
        }],
        materials: vec![Material {
            name: "Mannequin",
            pbr_metallic_roughness: Pbr { base_color_factor: [1.0; 4], metallic_factor: 0.0, roughness_factor: 0.7 },
        }],
        skins: vec![Skin {
            name: "Mannequin",
            inverse_bind_matrices: ibm_accessor,
            skeleton: skeleton::HIPS,
            joints: (0..JOINT_COUNT).collect(),
        }],
        animations,
        accessors,
        buffer_views,
        buffers: vec![glb::Buffer { byte_length: bin_data.len() }],
    };
    let json = serde_json::to_vec(&doc).expect("glTF document serialises");
    crate::gltf::pack_glb(&json, &bin_data)
}

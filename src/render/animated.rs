//! Material and visibility values of one frame: the model's own, with a clip's
//! `KHR_animation_pointer` property tracks applied (base colour factor, emissive factor and
//! strength, alpha cutoff, base colour texture transform, node visibility). The renderer draws
//! an instance with them when given.

use anim::{ClipId, Model, PointerTarget, TextureTransform};
use glam::{Vec2, Vec3, Vec4};

use crate::render::gpu_data::UV_IDENTITY;

/// Each node's authored `KHR_node_visibility` (true when the file says nothing).
fn authored_visibility(model: &Model) -> Vec<bool> {
    (0..model.nodes().len()).map(|n| model.node_visible.get(n).copied().unwrap_or(true)).collect()
}

/// Per-frame material and node values (indexed like the model's materials and nodes).
#[derive(Debug, Clone, PartialEq)]
pub struct AnimatedProperties {
    /// Base colour factor of each material, linear RGBA.
    pub base_color: Vec<Vec4>,
    /// Base colour texture transform of each material (offset, rotation, scale).
    pub uv_transform: Vec<TextureTransform>,
    /// Emissive factor of each material, linear RGB.
    pub emissive: Vec<Vec3>,
    /// `KHR_materials_emissive_strength` of each material.
    pub emissive_strength: Vec<f32>,
    /// Alpha cutoff of each material (drawn for alpha mode MASK).
    pub alpha_cutoff: Vec<f32>,
    /// Whether each node (and so its mesh) is drawn: its own `KHR_node_visibility` and its
    /// ancestors' (a hidden node hides its descendants).
    pub node_visible: Vec<bool>,
}

impl AnimatedProperties {
    /// The model's authored values.
    pub fn rest(model: &Model) -> Self {
        Self::authored(model).inherited(model)
    }

    /// The model's authored values, visibility not yet inherited.
    fn authored(model: &Model) -> Self {
        let materials = &model.materials();
        Self {
            base_color: materials.iter().map(|m| m.base_color_factor).collect(),
            uv_transform: materials
                .iter()
                .map(|m| m.base_color_texture.and_then(|t| t.transform).unwrap_or_default())
                .collect(),
            emissive: materials.iter().map(|m| m.emissive_factor).collect(),
            emissive_strength: materials.iter().map(|m| m.emissive_strength).collect(),
            alpha_cutoff: materials.iter().map(|m| m.alpha_cutoff).collect(),
            node_visible: authored_visibility(model),
        }
    }

    /// Hide the descendants of hidden nodes (parents first).
    fn inherited(mut self, model: &Model) -> Self {
        for &id in model.hierarchy.order() {
            let node = id.index();
            if let Some(parent) = model.hierarchy.parent(id).map(anim::NodeId::index)
                && self.node_visible.get(parent) == Some(&false)
                && let Some(v) = self.node_visible.get_mut(node)
            {
                *v = false;
            }
        }
        self
    }

    /// The authored values with clip `clip`'s property tracks sampled at `time_secs`.
    pub fn sample(model: &Model, clip: Option<ClipId>, time_secs: f32) -> Self {
        let mut out = Self::authored(model);
        let Some(clip) = clip else { return out.inherited(model) };
        let mut value = [0.0f32; 4];
        for track in model.clip_pointer_tracks(clip) {
            track.sample(time_secs, &mut value);
            match track.target {
                PointerTarget::BaseColorFactor { material } => {
                    if let Some(c) = out.base_color.get_mut(material) {
                        *c = Vec4::from(value);
                    }
                }
                PointerTarget::BaseColorUvOffset { material } => {
                    if let Some(t) = out.uv_transform.get_mut(material) {
                        t.offset = Vec2::new(value[0], value[1]);
                    }
                }
                PointerTarget::BaseColorUvRotation { material } => {
                    if let Some(t) = out.uv_transform.get_mut(material) {
                        t.rotation_rad = value[0];
                    }
                }
                PointerTarget::BaseColorUvScale { material } => {
                    if let Some(t) = out.uv_transform.get_mut(material) {
                        t.scale = Vec2::new(value[0], value[1]);
                    }
                }
                PointerTarget::NodeVisible { node } => {
                    if let Some(v) = out.node_visible.get_mut(node) {
                        *v = value[0] != 0.0;
                    }
                }
                PointerTarget::EmissiveFactor { material } => {
                    if let Some(e) = out.emissive.get_mut(material) {
                        *e = Vec3::new(value[0], value[1], value[2]);
                    }
                }
                PointerTarget::EmissiveStrength { material } => {
                    if let Some(s) = out.emissive_strength.get_mut(material) {
                        *s = value[0];
                    }
                }
                PointerTarget::AlphaCutoff { material } => {
                    if let Some(c) = out.alpha_cutoff.get_mut(material) {
                        *c = value[0];
                    }
                }
                // Not drawn by this renderer (no metal/roughness shading).
                PointerTarget::MetallicFactor { .. } | PointerTarget::RoughnessFactor { .. } => {}
            }
        }
        out.inherited(model)
    }

    /// Emitted light and alpha cutoff of `material` as the shader's
    /// [`crate::render::gpu_data::DrawUniforms::emissive`].
    pub fn emissive_uniform(&self, material: usize) -> [f32; 4] {
        let get = |values: &[f32], default| values.get(material).copied().unwrap_or(default);
        emissive_uniform(
            self.emissive.get(material).copied().unwrap_or(Vec3::ZERO),
            get(&self.emissive_strength, 1.0),
            get(&self.alpha_cutoff, 0.5),
        )
    }

    /// The texture transform of `material` as the shader's two rows.
    pub fn uv_rows(&self, material: usize) -> [[f32; 4]; 2] {
        self.uv_transform.get(material).map_or(UV_IDENTITY, |t| {
            let [r0, r1] = t.rows();
            [[r0[0], r0[1], r0[2], 0.0], [r1[0], r1[1], r1[2], 0.0]]
        })
    }
}

/// `DrawUniforms::emissive`: emitted light (`factor` × `strength`, linear RGB) and the alpha
/// cutoff.
pub fn emissive_uniform(factor: Vec3, strength: f32, alpha_cutoff: f32) -> [f32; 4] {
    (factor * strength).extend(alpha_cutoff).to_array()
}

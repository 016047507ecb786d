//! Layers and blend spaces by name, as the command line, the viewer and profiles give them:
//! [`LayerSpec`] (`CLIP[:mask=JOINT[+JOINT...]][:additive[=REF]][:weight=W]`, parsed and printed
//! back), resolved against a model into the core's [`anim::LayerDesc`] (joints by name or
//! index, or an anatomy region — `upper-body`, `left-arm`, `right-arm`, `left-leg`,
//! `right-leg`, `head`, `spine` — found by the ragdoll's anatomy), and [`BlendSpaceSpec`], the
//! clips of a blend space at their parameter values.

use anim::{AdditiveReference, ClipId, LayerBlend, LayerDesc, Model, NodeId, NodeMask};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::physics::RagdollSpec;
use crate::physics::anatomy::{BoneKind, Side};

/// A layer by name: what `--layer SPEC` says and a profile stores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayerSpec {
    /// The layer's clip (name or index).
    pub clip: String,
    /// Joints (names or indices) whose subtrees the layer covers, or anatomy regions; empty:
    /// the whole body.
    #[serde(default)]
    pub mask: Vec<String>,
    /// Additive: `Some(None)` from the clip's first frame, `Some(Some(REF))` from a time in
    /// seconds of the clip or another clip's first frame; `None`: override.
    #[serde(default)]
    pub additive: Option<Option<String>>,
    /// Weight in `[0, 1]`.
    #[serde(default = "one")]
    pub weight: f32,
    /// Seconds the weight ramps in over (the viewer's; the command line's layers are on at once).
    #[serde(default)]
    pub ramp_secs: f32,
    /// Weights painted per joint over the mask (the viewer's joint tree), applied in order
    /// after it; an empty mask starts from the whole body at 1.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joint_weights: Vec<JointWeight>,
}

/// One joint's weight painted into a layer's mask, by name (index when unnamed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JointWeight {
    /// The joint: node name, or index when it has none.
    pub joint: String,
    /// Its weight, `[0, 1]`.
    pub weight: f32,
    /// The joint and every node below it (else the joint alone).
    #[serde(default)]
    pub subtree: bool,
}

impl From<&anim::state_machine::PaintedJoint> for JointWeight {
    fn from(p: &anim::state_machine::PaintedJoint) -> Self {
        Self { joint: p.joint.clone(), weight: p.weight, subtree: p.subtree }
    }
}

impl From<&JointWeight> for anim::state_machine::PaintedJoint {
    fn from(j: &JointWeight) -> Self {
        Self { joint: j.joint.clone(), weight: j.weight, subtree: j.subtree }
    }
}

fn one() -> f32 {
    1.0
}

impl LayerSpec {
    /// A whole-body override layer of `clip` at weight 1.
    pub fn new(clip: impl Into<String>) -> Self {
        Self {
            clip: clip.into(),
            mask: Vec::new(),
            additive: None,
            weight: 1.0,
            ramp_secs: 0.0,
            joint_weights: Vec::new(),
        }
    }

    /// Parse `CLIP[:mask=JOINT[+JOINT...]][:additive[=REF]][:weight=W]`.
    ///
    /// # Errors
    /// An empty clip, an unknown option, an empty mask or reference, a weight that is not a
    /// number in `[0, 1]`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut parts = text.split(':');
        let clip = parts.next().unwrap_or("").trim();
        if clip.is_empty() {
            return Err(format!("layer \"{text}\" names no clip (CLIP[:mask=J+J][:additive[=REF]][:weight=W])"));
        }
        let mut spec = Self::new(clip);
        for part in parts {
            let (key, value) = match part.split_once('=') {
                Some((k, v)) => (k.trim(), Some(v.trim())),
                None => (part.trim(), None),
            };
            match (key, value) {
                ("mask", Some(joints)) => {
                    spec.mask = joints.split('+').map(|j| j.trim().to_owned()).collect();
                    if spec.mask.iter().any(String::is_empty) {
                        return Err(format!("layer \"{text}\": mask \"{joints}\" has an empty joint name"));
                    }
                }
                ("additive", None) => spec.additive = Some(None),
                ("additive", Some(reference)) if !reference.is_empty() => {
                    spec.additive = Some(Some(reference.to_owned()));
                }
                ("weight", Some(w)) => {
                    spec.weight = w
                        .parse::<f32>()
                        .ok()
                        .filter(|w| (0.0..=1.0).contains(w))
                        .ok_or_else(|| format!("layer \"{text}\": weight \"{w}\" is not a number from 0 to 1"))?;
                }
                _ => {
                    return Err(format!(
                        "layer \"{text}\": unknown option \"{part}\" (options: mask=JOINT[+JOINT...], additive[=REF], \
                         weight=W)"
                    ));
                }
            }
        }
        Ok(spec)
    }

    /// The spec as `--layer` takes it.
    pub fn to_arg(&self) -> String {
        let mut s = self.clip.clone();
        if !self.mask.is_empty() {
            s += &format!(":mask={}", self.mask.join("+"));
        }
        match &self.additive {
            Some(Some(reference)) => s += &format!(":additive={reference}"),
            Some(None) => s += ":additive",
            None => {}
        }
        if self.weight != 1.0 {
            s += &format!(":weight={}", self.weight);
        }
        s
    }

    /// Paint `weight` (clamped to `[0, 1]`) on `joint` (a node name, or index when unnamed),
    /// with its subtree or alone: the newest paint of the same joint and reach replaces the
    /// older one, so dragging a value keeps one entry.
    pub fn paint(&mut self, joint: String, weight: f32, subtree: bool) {
        let weight = if weight.is_nan() { 0.0 } else { weight.clamp(0.0, 1.0) };
        self.joint_weights.retain(|j| !(j.joint == joint && j.subtree == subtree));
        self.joint_weights.push(JointWeight { joint, weight, subtree });
    }

    /// The mask's weight per node of `model` (the whole body at 1 when the mask names nothing),
    /// painted weights included: what the joint tree shows. Allocates.
    ///
    /// # Errors
    /// What [`Self::resolve`] refuses.
    pub fn mask_weights(&self, model: &Model) -> Result<Vec<f32>, LayerSpecError> {
        let mask = self.resolve(model)?.mask;
        if mask.is_empty() { Ok(vec![1.0; model.nodes().len()]) } else { Ok(mask.weights().to_vec()) }
    }

    /// The core's layer for `model`.
    ///
    /// # Errors
    /// An unknown clip, joint or region, or a reference that is neither a time nor a clip.
    pub fn resolve(&self, model: &Model) -> Result<LayerDesc, LayerSpecError> {
        let clip = find_clip(model, &self.clip)?;
        let mask = if self.mask.is_empty() {
            NodeMask::default()
        } else {
            let mut mask = NodeMask::none(model.nodes().len());
            for joint in &self.mask {
                match model.find_node(joint) {
                    Some(node) => mask.set_subtree(&model.hierarchy, node, 1.0),
                    None => {
                        let region = AnatomyRegion::from_name(joint).ok_or_else(|| LayerSpecError::UnknownJoint {
                            joint: joint.clone(),
                            nodes: model.nodes().len(),
                        })?;
                        for root in region_roots(model, region) {
                            mask.set_subtree(&model.hierarchy, root, 1.0);
                        }
                    }
                }
            }
            mask
        };
        let mut mask = mask;
        if !self.joint_weights.is_empty() && mask.is_empty() {
            mask = NodeMask::all(model.nodes().len());
        }
        for painted in &self.joint_weights {
            let node = model.find_node(&painted.joint).ok_or_else(|| LayerSpecError::UnknownJoint {
                joint: painted.joint.clone(),
                nodes: model.nodes().len(),
            })?;
            if painted.subtree {
                mask.set_subtree(&model.hierarchy, node, painted.weight);
            } else {
                mask.set(node, painted.weight);
            }
        }
        let blend = match &self.additive {
            None => LayerBlend::Override,
            Some(None) => LayerBlend::Additive(AdditiveReference::FirstFrame),
            Some(Some(reference)) => match reference.parse::<f32>() {
                Ok(t) if t.is_finite() => LayerBlend::Additive(AdditiveReference::AtSecs(t)),
                _ => LayerBlend::Additive(AdditiveReference::ClipFirstFrame(find_clip(model, reference)?)),
            },
        };
        if !(0.0..=1.0).contains(&self.weight) {
            return Err(LayerSpecError::Weight(self.weight));
        }
        Ok(LayerDesc {
            clip,
            blend,
            mask,
            weight: self.weight,
            ramp_secs: if self.ramp_secs.is_finite() { self.ramp_secs.max(0.0) } else { 0.0 },
            ramp_easing: anim::Easing::Smoothstep,
        })
    }
}

/// A layer that does not fit the model.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum LayerSpecError {
    /// No clip of that name or index.
    #[error("clip \"{clip}\" not found; clips are: {available}")]
    UnknownClip {
        /// The name asked for.
        clip: String,
        /// The model's clips.
        available: String,
    },
    /// No joint of that name or index, nor a region of that name.
    #[error(
        "joint \"{joint}\" not found (give a node name, an index below {nodes}, or a region: upper-body, left-arm, \
         right-arm, left-leg, right-leg, head, spine)"
    )]
    UnknownJoint {
        /// The name asked for.
        joint: String,
        /// Nodes in the model.
        nodes: usize,
    },
    /// A weight outside `[0, 1]`.
    #[error("weight {0} is not a number from 0 to 1")]
    Weight(f32),
}

/// A clip by name or index.
fn find_clip(model: &Model, name: &str) -> Result<ClipId, LayerSpecError> {
    model.find_clip(name).ok_or_else(|| LayerSpecError::UnknownClip {
        clip: name.to_owned(),
        available: model.clips().iter().enumerate().map(|(i, c)| c.display_name(i)).collect::<Vec<_>>().join(", "),
    })
}

/// Body regions a mask can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnatomyRegion {
    /// The spine's lowest bone and everything above it (arms and head included).
    UpperBody,
    /// The left shoulder (or upper arm) down to the fingers.
    LeftArm,
    /// The right shoulder (or upper arm) down to the fingers.
    RightArm,
    /// The left thigh down to the toes.
    LeftLeg,
    /// The right thigh down to the toes.
    RightLeg,
    /// The neck (or head) and above.
    Head,
    /// The spine bones and the neck, without arms or head.
    Spine,
}

impl AnatomyRegion {
    /// Every region.
    pub const ALL: [Self; 7] =
        [Self::UpperBody, Self::LeftArm, Self::RightArm, Self::LeftLeg, Self::RightLeg, Self::Head, Self::Spine];

    /// The name a mask takes.
    pub const fn name(self) -> &'static str {
        match self {
            Self::UpperBody => "upper-body",
            Self::LeftArm => "left-arm",
            Self::RightArm => "right-arm",
            Self::LeftLeg => "left-leg",
            Self::RightLeg => "right-leg",
            Self::Head => "head",
            Self::Spine => "spine",
        }
    }

    /// Parse a region name (case-insensitive).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// The mask of `region` on `model`: the roots of the region's subtrees (or, for the spine, its
/// bones alone) painted at 1. Empty when the anatomy finds no such bones.
pub fn region_mask(model: &Model, region: AnatomyRegion) -> NodeMask {
    let mut mask = NodeMask::none(model.nodes().len());
    if region == AnatomyRegion::Spine {
        if let Ok(spec) = RagdollSpec::from_model(model) {
            for b in spec.bodies.iter().filter(|b| matches!(b.kind, BoneKind::Spine | BoneKind::Neck)) {
                mask.set(b.node, 1.0);
            }
        }
        return mask;
    }
    for root in region_roots(model, region) {
        mask.set_subtree(&model.hierarchy, root, 1.0);
    }
    mask
}

/// The nodes whose subtrees make up `region` (the anatomy's bodies; allocates, once per
/// mask).
fn region_roots(model: &Model, region: AnatomyRegion) -> Vec<NodeId> {
    let Ok(spec) = RagdollSpec::from_model(model) else { return Vec::new() };
    let of = |kinds: &[BoneKind], side: Option<Side>| -> Vec<NodeId> {
        // The highest bone of the first kind found (nearest the root), per side.
        for kind in kinds {
            let mut nodes: Vec<NodeId> = spec
                .bodies
                .iter()
                .filter(|b| b.kind == *kind && side.is_none_or(|s| b.side == s))
                .map(|b| b.node)
                .collect();
            let depth = |n: NodeId| {
                let mut d = 0;
                let mut at = model.hierarchy.parent(n);
                while let Some(p) = at {
                    d += 1;
                    at = model.hierarchy.parent(p);
                }
                d
            };
            nodes.sort_by_key(|&n| depth(n));
            if let Some(&top) = nodes.first() {
                let d = depth(top);
                return nodes.into_iter().filter(|&n| depth(n) == d).collect();
            }
        }
        Vec::new()
    };
    match region {
        AnatomyRegion::UpperBody => of(&[BoneKind::Spine, BoneKind::Neck], None),
        AnatomyRegion::LeftArm => of(&[BoneKind::Shoulder, BoneKind::UpperArm], Some(Side::Left)),
        AnatomyRegion::RightArm => of(&[BoneKind::Shoulder, BoneKind::UpperArm], Some(Side::Right)),
        AnatomyRegion::LeftLeg => of(&[BoneKind::UpperLeg], Some(Side::Left)),
        AnatomyRegion::RightLeg => of(&[BoneKind::UpperLeg], Some(Side::Right)),
        AnatomyRegion::Head => of(&[BoneKind::Neck, BoneKind::Head], None),
        AnatomyRegion::Spine => of(&[BoneKind::Spine], None),
    }
}

/// A blend space by name: clips at parameter values (one axis, or two when every point has a
/// `y`), what `blend-space --clip NAME=X[,Y]` says and a profile stores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlendSpaceSpec {
    /// The points: clip (name or index) and position.
    pub points: Vec<BlendPointSpec>,
}

/// The viewer's blend space: its clips, the parameter played, the sync, and whether it is
/// what plays (instead of the clip).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlendSpaceTuning {
    /// The clips at their parameter values.
    pub space: BlendSpaceSpec,
    /// The parameter played, `[x, y]` (`y` unused in 1D).
    pub at: [f32; 2],
    /// Phase sync on (else every clip on the clock).
    #[serde(default = "yes")]
    pub phase_sync: bool,
    /// The blend space plays instead of the clip.
    #[serde(default)]
    pub active: bool,
}

fn yes() -> bool {
    true
}

/// One clip of a [`BlendSpaceSpec`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlendPointSpec {
    /// Clip name or index.
    pub clip: String,
    /// Parameter on the first axis (speed).
    pub x: f32,
    /// Parameter on the second axis (direction), for a 2D space.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<f32>,
}

impl BlendPointSpec {
    /// Parse `NAME=X[,Y]`.
    ///
    /// # Errors
    /// No `=`, an empty name, coordinates that are not finite numbers.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (clip, at) =
            text.rsplit_once('=').ok_or_else(|| format!("clip point \"{text}\" is not NAME=X or NAME=X,Y"))?;
        let clip = clip.trim();
        if clip.is_empty() {
            return Err(format!("clip point \"{text}\" names no clip"));
        }
        let (x, y) = parse_point(at).map_err(|e| format!("clip point \"{text}\": {e}"))?;
        Ok(Self { clip: clip.to_owned(), x, y })
    }
}

/// Parse `X[,Y]` into finite numbers.
///
/// # Errors
/// A part that is not a finite number, or more than two parts.
pub fn parse_point(text: &str) -> Result<(f32, Option<f32>), String> {
    let number = |s: &str| {
        s.trim()
            .parse::<f32>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("\"{}\" is not a number", s.trim()))
    };
    let mut parts = text.split(',');
    let x = number(parts.next().unwrap_or(""))?;
    let y = parts.next().map(number).transpose()?;
    if parts.next().is_some() {
        return Err(format!("\"{text}\" has more than two coordinates"));
    }
    Ok((x, y))
}

impl BlendSpaceSpec {
    /// True when every point has a second coordinate.
    pub fn is_2d(&self) -> bool {
        !self.points.is_empty() && self.points.iter().all(|p| p.y.is_some())
    }

    /// The core's blend space on `model`.
    ///
    /// # Errors
    /// An unknown clip, a mix of 1D and 2D points, or what [`anim::BlendSpace`] refuses
    /// (duplicates, all points on one line).
    pub fn resolve(&self, model: &Model) -> Result<anim::BlendSpace, String> {
        let twod = self.points.iter().filter(|p| p.y.is_some()).count();
        if twod != 0 && twod != self.points.len() {
            return Err("give every clip one coordinate (NAME=X) or every clip two (NAME=X,Y)".to_owned());
        }
        let mut clips = Vec::with_capacity(self.points.len());
        for p in &self.points {
            clips.push(find_clip(model, &p.clip).map_err(|e| e.to_string())?);
        }
        let result = if twod > 0 {
            let points: Vec<(ClipId, glam::Vec2)> =
                clips.iter().zip(&self.points).map(|(&c, p)| (c, glam::Vec2::new(p.x, p.y.unwrap_or(0.0)))).collect();
            anim::BlendSpace::new_2d(&points)
        } else {
            let points: Vec<(ClipId, f32)> = clips.iter().zip(&self.points).map(|(&c, p)| (c, p.x)).collect();
            anim::BlendSpace::new_1d(&points)
        };
        result.map_err(|e| {
            let name = |c: ClipId| model.clips().get(c.index()).map_or_else(String::new, |k| k.display_name(c.index()));
            match e {
                anim::BlendSpaceError::Duplicate(a, b) => {
                    format!("clips \"{}\" and \"{}\" are at the same position", name(a), name(b))
                }
                other => other.to_string(),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_specs_parse_and_print_back() {
        let spec = LayerSpec::parse("Wave:mask=Spine+Neck:weight=0.5").unwrap();
        assert_eq!(spec.clip, "Wave");
        assert_eq!(spec.mask, ["Spine", "Neck"]);
        assert_eq!(spec.additive, None);
        assert_eq!(spec.weight, 0.5);
        assert_eq!(LayerSpec::parse(&spec.to_arg()).unwrap(), spec);
        let additive = LayerSpec::parse("Idle:additive").unwrap();
        assert_eq!(additive.additive, Some(None));
        let at = LayerSpec::parse("Idle:additive=0.25").unwrap();
        assert_eq!(at.additive, Some(Some("0.25".to_owned())));
        assert_eq!(LayerSpec::parse(&at.to_arg()).unwrap(), at);
        for bad in ["", ":weight=1", "Wave:weight=2", "Wave:weight=x", "Wave:mask=", "Wave:mask=A++B", "Wave:loud"] {
            assert!(LayerSpec::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn blend_points_parse() {
        assert_eq!(BlendPointSpec::parse("Walk=1.2").unwrap(), BlendPointSpec { clip: "Walk".into(), x: 1.2, y: None });
        assert_eq!(BlendPointSpec::parse("Run=3,-1").unwrap().y, Some(-1.0));
        for bad in ["Walk", "=1", "Walk=x", "Walk=1,2,3", "Walk=inf"] {
            assert!(BlendPointSpec::parse(bad).is_err(), "{bad}");
        }
    }
}

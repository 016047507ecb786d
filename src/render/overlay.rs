//! Skeleton overlay: bones as thin screen-space quads and joints as discs, built on the CPU in
//! clip space (so widths are in pixels) and drawn on top of the scene.

use anim::{Model, NodeId};
use glam::{Affine3A, Mat4, Vec2, Vec3};

use crate::render::gpu_data::OverlayVertex;

/// Where a joint's bone line starts, overriding the node tree (a ragdoll draws its body tree:
/// no line to IK targets or the armature root, which no body simulates).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkeletonLink {
    /// From the nearest joint above it in the node tree (unless that one is hidden).
    Tree,
    /// From this node's joint.
    From(NodeId),
    /// Not drawn: no bone line to or from it and no joint disc.
    Hidden,
}

/// Look of the skeleton overlay, sizes in pixels and colours in linear RGBA.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SkeletonStyle {
    /// Bone line width.
    pub bone_width_px: f32,
    /// Joint disc radius.
    pub joint_radius_px: f32,
    /// Bone colour.
    pub bone_color: [f32; 4],
    /// Joint colour.
    pub joint_color: [f32; 4],
    /// Selected joint colour (drawn larger).
    pub selected_color: [f32; 4],
}

impl Default for SkeletonStyle {
    fn default() -> Self {
        Self {
            bone_width_px: 2.5,
            joint_radius_px: 4.0,
            bone_color: [1.0, 0.62, 0.08, 0.95],
            joint_color: [0.95, 0.95, 0.95, 1.0],
            selected_color: [0.05, 0.75, 1.0, 1.0],
        }
    }
}

/// Every joint node of every skin, ascending and without repeats.
pub fn joint_nodes(model: &Model) -> Vec<NodeId> {
    let mut joints: Vec<NodeId> = model.skins().iter().flat_map(|s| s.joints.iter().copied()).collect();
    joints.sort_unstable();
    joints.dedup();
    joints
}

/// Append the skeleton of one pose: a bone from each joint's nearest joint ancestor to it, and a
/// disc per joint (the `selected` joint node larger and highlighted). `joints` is
/// [`joint_nodes`] of the model (sorted); `viewport_px` is the viewport's size in pixels; points
/// behind the camera are skipped.
#[allow(clippy::too_many_arguments)]
pub fn push_skeleton(
    model: &Model,
    joints: &[NodeId],
    model_from_node: &[Affine3A],
    clip_from_world: Mat4,
    viewport_px: Vec2,
    selected: Option<NodeId>,
    style: &SkeletonStyle,
    links: &[SkeletonLink],
    out: &mut Vec<OverlayVertex>,
) {
    let is_joint = |node: NodeId| joints.binary_search(&node).is_ok();
    let link = |node: NodeId| links.get(node.index()).copied().unwrap_or(SkeletonLink::Tree);
    let hidden = |node: NodeId| link(node) == SkeletonLink::Hidden;
    let project = |node: NodeId| -> Option<Vec2> {
        let world: Vec3 = model_from_node.get(node.index())?.translation.into();
        let clip = clip_from_world * world.extend(1.0);
        (clip.w > 1e-6).then(|| Vec2::new(clip.x, clip.y) / clip.w)
    };
    let half_px = viewport_px * 0.5;
    let parent = |node: NodeId| model.hierarchy.parent(node);
    for &joint in joints {
        let ancestor = match link(joint) {
            SkeletonLink::Hidden => continue,
            SkeletonLink::From(from) => Some(from),
            SkeletonLink::Tree => {
                let mut ancestor = parent(joint);
                while let Some(a) = ancestor {
                    if is_joint(a) {
                        break;
                    }
                    ancestor = parent(a);
                }
                ancestor
            }
        };
        let ancestor = ancestor.filter(|&a| !hidden(a));
        let (Some(parent), Some(end)) = (ancestor.and_then(project), project(joint)) else { continue };
        let along_px = (end - parent) * half_px;
        let Some(direction) = along_px.try_normalize() else { continue };
        let offset = direction.perp() * (style.bone_width_px * 0.5) / half_px;
        push_quad(
            out,
            [parent - offset, parent + offset, end + offset, end - offset],
            [Vec2::ZERO; 4],
            style.bone_color,
        );
    }
    for &joint in joints.iter().filter(|&&j| !hidden(j)) {
        let Some(center) = project(joint) else { continue };
        let (radius_px, color) = if selected == Some(joint) {
            (style.joint_radius_px * 2.2, style.selected_color)
        } else {
            (style.joint_radius_px, style.joint_color)
        };
        let r = Vec2::splat(radius_px) / half_px;
        let corners = [Vec2::new(-1.0, -1.0), Vec2::new(1.0, -1.0), Vec2::new(1.0, 1.0), Vec2::new(-1.0, 1.0)];
        push_quad(out, corners.map(|c| center + c * r), corners, color);
    }
}

/// A world-space line segment of the overlay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OverlayLine {
    /// Start, world frame.
    pub from: Vec3,
    /// End, world frame.
    pub to: Vec3,
    /// Linear RGBA colour.
    pub color: [f32; 4],
}

/// Append `lines` as screen-space quads `width_px` wide. Segments are clipped to the part in
/// front of the camera (a line crossing the eye plane keeps its visible half).
pub fn push_lines(
    lines: &[OverlayLine],
    clip_from_world: Mat4,
    viewport_px: Vec2,
    width_px: f32,
    out: &mut Vec<OverlayVertex>,
) {
    const NEAR_W: f32 = 1e-4;
    let half_px = viewport_px.max(Vec2::ONE) * 0.5;
    for line in lines {
        let mut a = clip_from_world * line.from.extend(1.0);
        let mut b = clip_from_world * line.to.extend(1.0);
        if !(a.is_finite() && b.is_finite()) || (a.w < NEAR_W && b.w < NEAR_W) {
            continue;
        }
        if a.w < NEAR_W {
            a = a + (b - a) * ((NEAR_W - a.w) / (b.w - a.w));
        } else if b.w < NEAR_W {
            b = b + (a - b) * ((NEAR_W - b.w) / (a.w - b.w));
        }
        let (a, b) = (Vec2::new(a.x, a.y) / a.w, Vec2::new(b.x, b.y) / b.w);
        let Some(direction) = ((b - a) * half_px).try_normalize() else { continue };
        let offset = direction.perp() * (width_px * 0.5) / half_px;
        push_quad(out, [a - offset, a + offset, b + offset, b - offset], [Vec2::ZERO; 4], line.color);
    }
}

/// Append the wireframe of a capsule (segment `a`–`b`, `radius`): a ring at each end, four
/// side lines and half-circle caps in two planes.
pub fn push_capsule_wireframe(a: Vec3, b: Vec3, radius: f32, color: [f32; 4], out: &mut Vec<OverlayLine>) {
    const SEGMENTS: usize = 16;
    let axis = (b - a).try_normalize().unwrap_or(Vec3::Y);
    let (u, v) = axis.any_orthonormal_pair();
    let ring = |k: usize| {
        let angle = std::f32::consts::TAU * k as f32 / SEGMENTS as f32;
        (u * angle.cos() + v * angle.sin()) * radius
    };
    for k in 0..SEGMENTS {
        for center in [a, b] {
            out.push(OverlayLine { from: center + ring(k), to: center + ring(k + 1), color });
        }
    }
    for k in (0..SEGMENTS).step_by(SEGMENTS / 4) {
        out.push(OverlayLine { from: a + ring(k), to: b + ring(k), color });
    }
    // Caps: half circles through the axis in the (u, axis) and (v, axis) planes.
    for side in [u, v] {
        for (center, sign) in [(a, -1.0f32), (b, 1.0)] {
            let point = |k: usize| {
                let angle = std::f32::consts::PI * k as f32 / (SEGMENTS / 2) as f32;
                center + (side * angle.cos() + axis * sign * angle.sin()) * radius
            };
            for k in 0..SEGMENTS / 2 {
                out.push(OverlayLine { from: point(k), to: point(k + 1), color });
            }
        }
    }
}

fn push_quad(out: &mut Vec<OverlayVertex>, ndc: [Vec2; 4], corners: [Vec2; 4], color: [f32; 4]) {
    for i in [0, 1, 2, 0, 2, 3] {
        out.push(OverlayVertex {
            clip_position: [ndc[i].x, ndc[i].y, 0.0, 1.0],
            color,
            corner: corners[i].to_array(),
            padding: [0.0; 2],
        });
    }
}

//! [`Selection`]: the joint and channel the user picked (in the 3D view, the joint tree or the
//! curve panel), read by the curves, the channel override, the skeleton highlight and the
//! ragdoll push.

use anim::{ClipId, Model, NodeId, Property, TrackId};

/// The selected joint and channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Selection {
    /// Selected node (a joint, or any node of a model without skins).
    pub joint: Option<NodeId>,
    /// Channel plotted and overridden for that joint.
    pub property: Property,
}

impl Default for Selection {
    fn default() -> Self {
        Self { joint: None, property: Property::Rotation }
    }
}

impl Selection {
    /// The first rotation-animated node of `clip` (else its first animated node), rotation.
    pub fn first_animated(model: &Model, clip: Option<ClipId>) -> Self {
        let joint = clip.and_then(|c| model.clip(c)).and_then(|clip| {
            clip.tracks().iter().find(|t| t.property() == Property::Rotation).or(clip.tracks().first()).map(|t| t.node)
        });
        Self { joint, property: Property::Rotation }
    }

    /// Track of the selected joint's selected channel in `clip` of `model`.
    pub fn track(&self, model: &Model, clip: Option<ClipId>) -> Option<TrackId> {
        let clip = model.clip(clip?)?;
        let node = self.joint?;
        clip.tracks().iter().position(|t| t.node == node && t.property() == self.property).map(TrackId::from_index)
    }
}

/// Display name of node `node` (`node N` when unnamed): how profiles store nodes and how a
/// selection is kept across a reload.
pub fn node_display_name(model: &Model, node: NodeId) -> String {
    model.node(node).and_then(|n| n.name.clone()).unwrap_or_else(|| format!("node {node}"))
}

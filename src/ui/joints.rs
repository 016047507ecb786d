//! The joint tree: the node hierarchy with joints and animated nodes marked; clicking a node
//! selects it (for the curves, the skeleton highlight and the ragdoll push).

use std::collections::HashSet;

use anim::{Model, NodeId};

use crate::stage::selection::Selection;

/// Deepest tree level drawn (hostile files can nest up to the import limit).
const MAX_DEPTH: usize = 64;

/// The joint tree panel.
#[derive(Debug, Default)]
pub struct JointsPanel {
    /// Selection the tree last revealed (opening its ancestors once).
    revealed: Option<usize>,
}

impl JointsPanel {
    /// The hierarchy as a collapsible tree (`clip`: the playing clip, whose nodes are marked).
    pub fn joints_ui(&mut self, ui: &mut egui::Ui, model: &Model, clip: Option<usize>, selection: &mut Selection) {
        let joints: HashSet<usize> = model.skins.iter().flat_map(|s| s.joints.iter().map(|j| j.index())).collect();
        let animated: HashSet<usize> = clip
            .and_then(|c| model.clips.get(c))
            .map(|clip| clip.tracks().iter().map(|t| t.node.index()).collect())
            .unwrap_or_default();
        // Open the ancestors of a selection made elsewhere (e.g. a click in the 3D view).
        let mut reveal = HashSet::new();
        let parent = |node: usize| model.hierarchy.parent(NodeId::from_index(node)).map(NodeId::index);
        if selection.joint != self.revealed {
            self.revealed = selection.joint;
            let mut at = selection.joint.and_then(parent);
            while let Some(node) = at {
                if !reveal.insert(node) {
                    break;
                }
                at = parent(node);
            }
        }
        ui.weak("J: skin joint · *: animated by the clip");
        let roots: Vec<usize> = model.hierarchy.roots().map(NodeId::index).collect();
        let mut clicked = None;
        egui::ScrollArea::vertical().max_height(220.0).id_salt("joint tree").show(ui, |ui| {
            let tree = Tree { model, selected: selection.joint, joints: &joints, animated: &animated, reveal: &reveal };
            for root in roots {
                tree.node_ui(ui, root, 0, &mut clicked);
            }
        });
        if let Some(node) = clicked {
            selection.joint = Some(node);
            self.revealed = Some(node);
        }
    }
}

/// What the recursive tree drawing reads.
struct Tree<'a> {
    model: &'a Model,
    selected: Option<usize>,
    joints: &'a HashSet<usize>,
    animated: &'a HashSet<usize>,
    reveal: &'a HashSet<usize>,
}

impl Tree<'_> {
    fn node_ui(&self, ui: &mut egui::Ui, node: usize, depth: usize, clicked: &mut Option<usize>) {
        let model = self.model;
        if model.nodes.get(node).is_none() {
            return;
        }
        let mut label = crate::profile::node_display_name(model, node);
        if self.joints.contains(&node) {
            label.push_str(" J");
        }
        if self.animated.contains(&node) {
            label.push_str(" *");
        }
        let selected = self.selected == Some(node);
        let children: Vec<usize> =
            model.hierarchy.children(NodeId::from_index(node)).iter().map(|c| c.index()).collect();
        if children.is_empty() || depth >= MAX_DEPTH {
            if ui.selectable_label(selected, label).clicked() {
                *clicked = Some(node);
            }
            return;
        }
        let id = ui.make_persistent_id(("joint tree node", node));
        let mut collapsing = egui::collapsing_header::CollapsingState::load_with_default_open(ui.ctx(), id, depth < 2);
        if self.reveal.contains(&node) {
            collapsing.set_open(true);
        }
        collapsing
            .show_header(ui, |ui| {
                if ui.selectable_label(selected, label).clicked() {
                    *clicked = Some(node);
                }
            })
            .body(|ui| {
                for child in children {
                    self.node_ui(ui, child, depth + 1, clicked);
                }
            });
    }
}

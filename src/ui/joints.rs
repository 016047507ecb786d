//! The joint tree: the node hierarchy with joints and animated nodes marked; clicking a node
//! selects it (for the curves, the skeleton highlight and the ragdoll push). With a layer's mask
//! shown (the Layers section's "paint in the joint tree"), each row carries a heat bar of its
//! weight and the selected joint's weight can be set, alone or with its subtree: the tree
//! returns the edit ([`MaskEdit`]) and the caller writes it into the layer.

use std::collections::HashSet;

use anim::{ClipId, Model, NodeId};

use crate::stage::layers::LayerSpec;
use crate::stage::selection::Selection;

/// Deepest tree level drawn (hostile files can nest up to the import limit).
const MAX_DEPTH: usize = 64;

/// Width of a row's mask weight bar, points.
const MASK_BAR_WIDTH: f32 = 36.0;

/// The joint tree panel.
#[derive(Debug)]
pub struct JointsPanel {
    /// Selection the tree last revealed (opening its ancestors once).
    revealed: Option<NodeId>,
    /// The weight the mask buttons set.
    pub paint_weight: f32,
    /// The shown layer's mask weights, with the spec they were resolved from.
    mask_cache: Option<(LayerSpec, Vec<f32>)>,
}

impl Default for JointsPanel {
    fn default() -> Self {
        Self { revealed: None, paint_weight: 1.0, mask_cache: None }
    }
}

/// A mask weight set from the tree: `node` (and, with `subtree`, every node below it) to
/// `weight`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaskEdit {
    /// The node.
    pub node: NodeId,
    /// Its weight, `[0, 1]`.
    pub weight: f32,
    /// Every node below it too.
    pub subtree: bool,
}

impl JointsPanel {
    /// The hierarchy as a collapsible tree (`clip`: the playing clip, whose nodes are marked;
    /// `mask`: a layer whose mask weight per node is drawn as a bar per row and is editable for
    /// the selected joint). Returns the mask edit made, if any.
    pub fn joints_ui(
        &mut self,
        ui: &mut egui::Ui,
        model: &Model,
        clip: Option<ClipId>,
        selection: &mut Selection,
        mask: Option<&LayerSpec>,
    ) -> Option<MaskEdit> {
        // The mask resolved once per change of the layer (regions need the anatomy).
        match mask {
            Some(spec) => {
                let stale = self
                    .mask_cache
                    .as_ref()
                    .is_none_or(|(cached, weights)| cached != spec || weights.len() != model.nodes().len());
                if stale {
                    let weights = spec.mask_weights(model).unwrap_or_else(|_| vec![0.0; model.nodes().len()]);
                    self.mask_cache = Some((spec.clone(), weights));
                }
            }
            None => self.mask_cache = None,
        }
        let cache = self.mask_cache.take();
        let mask = cache.as_ref().map(|(_, weights)| weights.as_slice());
        let joints: HashSet<NodeId> = model.skins().iter().flat_map(|s| s.joints.iter().copied()).collect();
        let animated: HashSet<NodeId> = clip
            .and_then(|c| model.clip(c))
            .map(|clip| clip.tracks().iter().map(|t| t.node).collect())
            .unwrap_or_default();
        // Open the ancestors of a selection made elsewhere (e.g. a click in the 3D view).
        let mut reveal = HashSet::new();
        let parent = |node: NodeId| model.hierarchy.parent(node);
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
        let mut edit = None;
        if let Some(weights) = mask {
            edit = self.mask_edit_ui(ui, model, selection.joint, weights);
        }
        let roots: Vec<NodeId> = model.hierarchy.roots().collect();
        let mut clicked = None;
        egui::ScrollArea::vertical().max_height(220.0).id_salt("joint tree").show(ui, |ui| {
            let tree =
                Tree { model, selected: selection.joint, joints: &joints, animated: &animated, reveal: &reveal, mask };
            for root in roots {
                tree.node_ui(ui, root, 0, &mut clicked);
            }
        });
        if let Some(node) = clicked {
            selection.joint = Some(node);
            self.revealed = Some(node);
        }
        self.mask_cache = cache;
        edit
    }

    /// The selected joint's mask weight and the buttons that set it (alone or with its
    /// subtree) to the chosen weight.
    fn mask_edit_ui(
        &mut self,
        ui: &mut egui::Ui,
        model: &Model,
        selected: Option<NodeId>,
        weights: &[f32],
    ) -> Option<MaskEdit> {
        let mut edit = None;
        ui.horizontal_wrapped(|ui| {
            let Some(node) = selected.filter(|&n| model.node(n).is_some()) else {
                ui.weak("Select a joint to set its mask weight.");
                return;
            };
            let now = weights.get(node.index()).copied().unwrap_or(0.0);
            let label =
                ui.label(format!("mask: {} at {now:.2}; set to", crate::profile::node_display_name(model, node)));
            ui.add(egui::DragValue::new(&mut self.paint_weight).speed(0.01).range(0.0..=1.0)).labelled_by(label.id);
            for preset in [0.0, 0.5, 1.0] {
                if ui.small_button(format!("{preset}")).on_hover_text("Use this weight").clicked() {
                    self.paint_weight = preset;
                }
            }
            let weight = self.paint_weight;
            if ui.button("Set joint").on_hover_text("This joint alone").clicked() {
                edit = Some(MaskEdit { node, weight, subtree: false });
            }
            if ui.button("Set with subtree").on_hover_text("This joint and every joint below it").clicked() {
                edit = Some(MaskEdit { node, weight, subtree: true });
            }
        });
        edit
    }
}

/// What the recursive tree drawing reads.
struct Tree<'a> {
    model: &'a Model,
    selected: Option<NodeId>,
    joints: &'a HashSet<NodeId>,
    animated: &'a HashSet<NodeId>,
    reveal: &'a HashSet<NodeId>,
    /// A layer's mask weight per node, shown as a bar per row.
    mask: Option<&'a [f32]>,
}

impl Tree<'_> {
    fn node_ui(&self, ui: &mut egui::Ui, node: NodeId, depth: usize, clicked: &mut Option<NodeId>) {
        let model = self.model;
        if model.node(node).is_none() {
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
        let children: Vec<NodeId> = model.hierarchy.children(node).to_vec();
        let weight = self.mask.map(|m| m.get(node.index()).copied().unwrap_or(0.0));
        if children.is_empty() || depth >= MAX_DEPTH {
            ui.horizontal(|ui| {
                weight_bar(ui, weight);
                if ui.selectable_label(selected, label).clicked() {
                    *clicked = Some(node);
                }
            });
            return;
        }
        let id = ui.make_persistent_id(("joint tree node", node.index()));
        let mut collapsing = egui::collapsing_header::CollapsingState::load_with_default_open(ui.ctx(), id, depth < 2);
        if self.reveal.contains(&node) {
            collapsing.set_open(true);
        }
        collapsing
            .show_header(ui, |ui| {
                weight_bar(ui, weight);
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

/// A row's mask weight as a bar filled to the weight, coloured from blue (0) to red (1) as the
/// mesh's heat (nothing without a mask).
fn weight_bar(ui: &mut egui::Ui, weight: Option<f32>) {
    let Some(weight) = weight else { return };
    let w = weight.clamp(0.0, 1.0);
    let (rect, response) = ui.allocate_exact_size(egui::vec2(MASK_BAR_WIDTH, 10.0), egui::Sense::hover());
    let painter = ui.painter();
    painter.rect_filled(rect, 2.0, ui.visuals().extreme_bg_color);
    let fill = egui::Rect::from_min_size(rect.min, egui::vec2(rect.width() * w, rect.height()));
    let heat = egui::Color32::from_rgb((60.0 + 190.0 * w) as u8, 70, (230.0 - 190.0 * w) as u8);
    painter.rect_filled(fill, 2.0, heat);
    response.on_hover_text(format!("mask weight {w:.2}"));
}

//! [`AbView`]: a second file beside the one on screen (A/B) — "did my new export change the
//! Run clip, and where?". B is loaded in the background, its joints matched with A's by name
//! ([`crate::ab`]; the joints only one file has are listed), and the clip of the same name is
//! shown in both at the same time with the same settings, side by side or B as a ghost over A,
//! with the changed joints listed (over the whole clip) and the per-joint distance painted on
//! A's mesh.

use std::path::{Path, PathBuf};

use anim::{ClipId, Model, NodeId, SampleSettings, SoaPose};

use super::compare::heat_color32;
use crate::ab::{AbCompare, JointDeviation, model_size, same_clip};
use crate::render::OrbitCamera;
use crate::stage::compare::CompareLayout;
use crate::stage::frame::{ViewClick, pick_nearest_joint};
use crate::stage::loading::LoadJob;

/// What a list of changed joints was computed for: A's model generation and the clip.
type ChangedKey = (u64, Option<ClipId>);

/// A joint whose own transform differs between A and B, and how far that moves the joints
/// below it (where it shows).
#[derive(Debug, Clone, PartialEq)]
pub struct ChangedJoint {
    /// The joint over the clip (worst of each figure).
    pub deviation: JointDeviation,
    /// Largest model-space distance of the joint or any joint below it over the clip.
    pub moves_below: f32,
}

/// The second file.
#[derive(Debug)]
pub struct SecondFile {
    /// Where it came from.
    pub path: PathBuf,
    /// The model.
    pub model: Model,
    /// Bumped when `model` is replaced (the GPU side re-uploads).
    pub generation: u64,
    compare: AbCompare,
    /// A's model generation and clip the joint list was computed for, and the list.
    changed: Option<(ChangedKey, Vec<ChangedJoint>)>,
    size: f32,
}

/// The A/B view: on or off, the second file, layout and heatmap.
#[derive(Debug)]
pub struct AbView {
    /// Show A and B (replaces the two-mode compare while on).
    pub enabled: bool,
    /// The second file, once loaded.
    pub file: Option<SecondFile>,
    /// Side by side, or B as a ghost over A.
    pub layout: CompareLayout,
    /// Paint each matched joint's distance between A and B on A's mesh.
    pub heatmap: bool,
    /// Distance painted fully red, in model units.
    pub heat_full_scale: f32,
    /// The second file loading.
    pub loading: Option<LoadJob>,
    /// The last problem (B did not load), shown in the panel.
    pub message: Option<String>,
    /// Heat per node of A (empty when off).
    heat: Vec<f32>,
    generation_counter: u64,
}

impl Default for AbView {
    fn default() -> Self {
        Self {
            enabled: false,
            file: None,
            layout: CompareLayout::Split,
            heatmap: true,
            heat_full_scale: 0.02,
            loading: None,
            message: None,
            heat: Vec::new(),
            generation_counter: 0,
        }
    }
}

impl AbView {
    /// True while A and B are shown.
    pub fn active(&self) -> bool {
        self.enabled && self.file.is_some()
    }

    /// True when A and B sit side by side.
    pub fn is_split(&self) -> bool {
        self.active() && self.layout == CompareLayout::Split
    }

    /// Load `path` as B in the background.
    pub fn load(&mut self, path: &Path) {
        if let Some(job) = self.loading.take() {
            job.cancel();
        }
        self.loading = Some(LoadJob::start(path, anim::import::Limits::default()));
        self.message = None;
    }

    /// Use `model` (from `path`) as B against `a`, and turn A/B on.
    pub fn set_second(&mut self, a: &Model, path: &Path, model: Model) {
        self.generation_counter += 1;
        self.file = Some(SecondFile {
            path: path.to_path_buf(),
            compare: AbCompare::new(a, &model),
            size: model_size(a),
            model,
            generation: self.generation_counter,
            changed: None,
        });
        self.enabled = true;
    }

    /// Match again after A changed (another model, a reload).
    pub fn a_changed(&mut self, a: &Model) {
        if let Some(file) = &mut self.file {
            file.compare = AbCompare::new(a, &file.model);
            file.changed = None;
            file.size = model_size(a);
        }
    }

    /// Apply a finished load of B. Returns true when B changed.
    pub fn poll_loading(&mut self, a: &Model) -> bool {
        let Some(outcome) = self.loading.as_ref().and_then(LoadJob::poll) else { return false };
        let Some(job) = self.loading.take() else { return false };
        match outcome {
            Ok(model) => {
                self.set_second(a, &job.path, model);
                true
            }
            Err(error) => {
                self.message = Some(format!("B did not load: {error}"));
                false
            }
        }
    }

    /// Pose B at A's clip (by name) and time with `settings`, and measure every matched joint;
    /// fills the heat of A's nodes. Does nothing while off.
    pub fn compute(&mut self, a: &Model, clip: Option<ClipId>, time_secs: f32, settings: &SampleSettings) {
        self.heat.clear();
        if !self.enabled {
            return;
        }
        let Some(file) = &mut self.file else { return };
        let clip_a = clip;
        let clip_b = clip_a.and_then(|c| same_clip(a, c, &file.model));
        let deviations = file.compare.evaluate((a, clip_a), (&file.model, clip_b), time_secs, settings);
        if self.heatmap {
            self.heat.resize(a.nodes().len(), 0.0);
            for d in deviations {
                if let Some(h) = self.heat.get_mut(d.node_a.index()) {
                    *h = crate::render::shot::heat_of(d.model_distance, self.heat_full_scale);
                }
            }
        }
    }

    /// Heat per node of A (empty when off).
    pub fn heat(&self) -> &[f32] {
        &self.heat
    }

    /// A click in B's view (the right-hand half, side by side): the joint of B nearest to it
    /// as B is posed now (only joints A has too), as A's node matched by name.
    pub fn pick_joint_in_b(&self, camera: &OrbitCamera, click: ViewClick, radius_px: f32) -> Option<NodeId> {
        let file = self.file.as_ref().filter(|_| self.enabled)?;
        let matrices = file.compare.model_from_node_b();
        let accept = |node: NodeId| file.compare.node_a_of(node).is_some();
        let node_b = pick_nearest_joint(&file.model, matrices, camera, click, radius_px, accept)?;
        file.compare.node_a_of(node_b)
    }

    /// B's model and where its nodes are now (model space), when A/B is on.
    pub fn b_model_from_node(&self) -> Option<(&Model, &[glam::Affine3A])> {
        let file = self.file.as_ref().filter(|_| self.enabled)?;
        Some((&file.model, file.compare.model_from_node_b()))
    }

    /// B's model and pose to draw, when A/B is on.
    pub fn b_pose(&self) -> Option<(&Model, &SoaPose, u64)> {
        let file = self.file.as_ref().filter(|_| self.enabled)?;
        Some((&file.model, file.compare.pose_b(), file.generation))
    }

    /// The matched joints that differ over the whole clip (cached per A generation and clip),
    /// largest local change first.
    fn changed_joints(
        &mut self,
        a: &Model,
        a_generation: u64,
        clip: Option<ClipId>,
        settings: &SampleSettings,
    ) -> Vec<ChangedJoint> {
        let Some(file) = &mut self.file else { return Vec::new() };
        let key = (a_generation, clip);
        if let Some((cached, list)) = &file.changed
            && *cached == key
        {
            return list.clone();
        }
        let clip_a = clip;
        let clip_b = clip_a.and_then(|c| same_clip(a, c, &file.model));
        let samples = clip.and_then(|c| a.clip(c)).map_or(2, |c| ((c.duration_secs() * 60.0) as usize).clamp(30, 600));
        let worst = file.compare.worst_over_clip((a, clip_a), (&file.model, clip_b), settings, samples);
        let mut moved = vec![0.0_f32; a.nodes().len()];
        for d in &worst {
            if let Some(m) = moved.get_mut(d.node_a.index()) {
                *m = d.model_distance;
            }
        }
        let moves_below = |node: NodeId| {
            let mut most = moved.get(node.index()).copied().unwrap_or(0.0);
            let mut stack = vec![node];
            while let Some(n) = stack.pop() {
                for &child in a.hierarchy.children(n) {
                    most = most.max(moved.get(child.index()).copied().unwrap_or(0.0));
                    stack.push(child);
                }
            }
            most
        };
        let mut list: Vec<ChangedJoint> = worst
            .iter()
            .filter(|d| d.changed(file.size))
            .map(|d| ChangedJoint { moves_below: moves_below(d.node_a), deviation: d.clone() })
            .collect();
        list.sort_by(|x, y| y.deviation.local_angle_rad.total_cmp(&x.deviation.local_angle_rad));
        file.changed = Some((key, list.clone()));
        list
    }

    /// The panel: open B, on/off, layout, heatmap, what changed, unmatched joints. Returns true
    /// when B should be picked (the viewer opens its dialog or path field).
    pub fn ab_ui(
        &mut self,
        ui: &mut egui::Ui,
        a: &Model,
        a_generation: u64,
        clip: Option<ClipId>,
        settings: &SampleSettings,
    ) -> bool {
        let mut pick = false;
        ui.horizontal(|ui| {
            pick = ui
                .button("Open B…")
                .on_hover_text("A second .glb/.gltf (e.g. the previous export) to compare with the one on screen")
                .clicked();
            match &self.file {
                Some(file) => {
                    let name = file
                        .path
                        .file_name()
                        .map_or_else(|| file.path.display().to_string(), |n| n.to_string_lossy().into_owned());
                    ui.checkbox(&mut self.enabled, format!("show A | B ({name})"));
                }
                None => {
                    ui.weak("no second file");
                }
            }
        });
        if let Some(job) = &self.loading {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(format!("loading B: {}", job.path.display()));
            });
        }
        if let Some(message) = &self.message {
            ui.colored_label(ui.visuals().error_fg_color, message);
        }
        if self.file.is_none() {
            return pick;
        }
        ui.horizontal(|ui| {
            ui.radio_value(&mut self.layout, CompareLayout::Split, "side by side")
                .on_hover_text("A left, B right, same camera");
            ui.radio_value(&mut self.layout, CompareLayout::Ghost, "B as ghost")
                .on_hover_text("A solid, B as a translucent ghost over it");
        });
        ui.horizontal(|ui| {
            ui.checkbox(&mut self.heatmap, "heatmap on A").on_hover_text(
                "Paint each matched joint's distance between A and B on A's mesh: blue at 0, red at the scale",
            );
            ui.add(
                egui::Slider::new(&mut self.heat_full_scale, 0.001..=0.2)
                    .update_while_editing(false)
                    .logarithmic(true)
                    .text("red at")
                    .custom_formatter(|v, _| format!("{:.1} cm", v * 100.0)),
            );
        });
        let Some(file) = &self.file else { return pick };
        let clip_name = clip.and_then(|c| a.clip(c)).map(|c| c.name().unwrap_or("unnamed").to_owned());
        let b_clip = clip.and_then(|c| same_clip(a, c, &file.model));
        let (pairs, only_a, only_b) = (
            file.compare.joints.pairs.len(),
            file.compare.joints.only_in_a.clone(),
            file.compare.joints.only_in_b.clone(),
        );
        super::status_line(ui, format!("{pairs} joints matched by name"));
        if !only_a.is_empty() {
            super::status_line(ui, format!("only in A: {}", only_a.join(", ")));
        }
        if !only_b.is_empty() {
            super::status_line(ui, format!("only in B: {}", only_b.join(", ")));
        }
        match (&clip_name, b_clip) {
            (Some(name), None) => {
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    format!("B has no clip \"{name}\": B shows its rest pose"),
                );
            }
            (Some(name), Some(_)) => {
                let changed = self.changed_joints(a, a_generation, clip, settings);
                if changed.is_empty() {
                    ui.label(format!("\"{name}\": no joint differs between A and B"));
                } else {
                    ui.label(format!("\"{name}\": {} joint(s) differ over the clip:", changed.len()));
                    for c in changed.iter().take(12) {
                        let d = &c.deviation;
                        let t = crate::render::shot::heat_of(c.moves_below, self.heat_full_scale);
                        let mut what = Vec::new();
                        if d.local_angle_rad > crate::ab::CHANGED_ANGLE_RAD {
                            what.push(format!("{:.1}°", d.local_angle_rad.to_degrees()));
                        }
                        if d.local_translation > 1e-5 {
                            what.push(format!("{:.2} cm", d.local_translation * 100.0));
                        }
                        if d.local_scale > crate::ab::CHANGED_RELATIVE {
                            what.push(format!("scale {:.3}", d.local_scale));
                        }
                        ui.horizontal_wrapped(|ui| {
                            let (rect, _) = ui.allocate_exact_size(egui::vec2(10.0, 10.0), egui::Sense::hover());
                            ui.painter().rect_filled(rect, 2.0, heat_color32(t));
                            ui.label(format!(
                                "{}: {} off; the joints below it up to {:.1} cm away",
                                d.name,
                                what.join(", "),
                                c.moves_below * 100.0
                            ))
                            .on_hover_text(
                                "The joint's own rotation (translation, scale) differs by this much at its worst \
                                 in the clip; the joints below it end up this far from where A has them",
                            );
                        });
                    }
                    if changed.len() > 12 {
                        ui.weak(format!("… and {} more", changed.len() - 12));
                    }
                }
            }
            (None, _) => {
                ui.weak("no clip: rest poses compared");
            }
        }
        pick
    }
}

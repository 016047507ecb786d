//! [`RetargetPanel`]: Compare ▸ Retarget from file… — a clip of another humanoid file played on
//! the model on screen ([`crate::retarget`]): the source file's joints mapped onto the model's
//! by anatomy (the table editable, each edit by joint name), the per-chain error of the result,
//! and the source and the result shown side by side or as a ghost through the A/B view (the
//! source as B, with its clip under the retargeted clip's name). "Save retargeted clips…"
//! writes the model's file with the clip added (`retarget_to_file`).

use std::path::{Path, PathBuf};

use anim::{ClipId, Model};

use crate::retarget::clip::{FileBytes, Options, output_name, retarget_clip, retarget_to_file};
use crate::retarget::{Chain, Mapping, Skeleton, node_name};
use crate::stage::loading::LoadJob;
use crate::stage::tuning::RetargetEdit;

/// Width kept beside a path field for its button, points.
const BUTTON_ROOM: f32 = 100.0;

/// The narrowest a path field gets, points.
const MIN_FIELD_WIDTH: f32 = 80.0;

/// The source file, loaded.
#[derive(Debug)]
struct Source {
    path: PathBuf,
    model: Model,
    skeleton: Skeleton,
}

/// What the viewer does after a retarget: put `target` (the model on screen with the
/// retargeted clip added) on screen playing clip `clip`, and `source` (the source file, its
/// clip copied under the same name) beside it as B.
#[derive(Debug)]
pub struct ShowRetarget {
    /// The model on screen with the clip added.
    pub target: Model,
    /// The new clip in `target`.
    pub clip: ClipId,
    /// The source file's model, with its clip also under the new clip's name.
    pub source: Model,
    /// Where the source came from.
    pub source_path: PathBuf,
}

/// The panel's state.
#[derive(Debug)]
pub struct RetargetPanel {
    /// The source file's path, as typed.
    pub source_path: String,
    /// The source file loading in the background (the source before it, if any, stays until
    /// the new one is ready).
    pub loading: Option<LoadJob>,
    source: Option<Source>,
    /// The model on screen's skeleton, and the joint names it was found for.
    target: Option<(Vec<String>, Skeleton)>,
    /// The joint table.
    pub mapping: Option<Mapping>,
    /// The source clip.
    pub clip: ClipId,
    /// Keep the feet planted.
    pub foot_ik: bool,
    /// Mean error per chain of the last retarget, metres.
    pub chain_error_m: Vec<(Chain, f32)>,
    /// The last retarget's clip, for saving.
    last: Option<ClipId>,
    /// Where "Save retargeted clips…" writes.
    pub save_path: String,
    /// The last outcome or problem.
    pub message: Option<String>,
}

impl Default for RetargetPanel {
    fn default() -> Self {
        Self {
            source_path: String::new(),
            loading: None,
            source: None,
            target: None,
            mapping: None,
            clip: ClipId::new(0),
            foot_ik: true,
            chain_error_m: Vec::new(),
            last: None,
            save_path: String::new(),
            message: None,
        }
    }
}

/// Every node's name (what identifies a rig for the cached skeleton).
fn names(model: &Model) -> Vec<String> {
    (0..model.nodes().len()).map(|n| node_name(model, anim::NodeId::from_index(n))).collect()
}

impl RetargetPanel {
    /// The model on screen's skeleton, recognised once per rig.
    fn target_skeleton(&mut self, target: &Model) -> anyhow::Result<&Skeleton> {
        let current = names(target);
        if self.target.as_ref().is_none_or(|(n, _)| *n != current) {
            self.target = Some((current, Skeleton::new(target)?));
            self.mapping = None;
        }
        self.target.as_ref().map(|(_, s)| s).ok_or_else(|| anyhow::anyhow!("no skeleton"))
    }

    /// Load the source file at `path` and map it onto `target` (`edits`, the target profile's,
    /// applied), on this thread (tests, scripts; the panel loads in the background).
    ///
    /// # Errors
    /// When the file does not load or either model is not a humanoid the anatomy recognises.
    pub fn load_source(&mut self, path: &Path, target: &Model, edits: &[RetargetEdit]) -> anyhow::Result<()> {
        let model = crate::retarget::clip::load_model(path)?;
        self.set_source(path, model, target, edits)
    }

    /// Start loading the source file at `path` in the background (replacing a load in
    /// progress); [`Self::poll_loading`] maps it once it is ready.
    pub fn start_loading(&mut self, path: &Path) {
        if let Some(job) = self.loading.take() {
            job.cancel();
        }
        self.loading = Some(LoadJob::start(path, anim::import::Limits::default()));
        self.message = None;
    }

    /// Apply a finished background load: map the source onto `target`. `None` while nothing
    /// finished; else `Ok` when the source changed, or the error (naming the file), also kept
    /// as the panel's message. A failure keeps the source before it.
    pub fn poll_loading(&mut self, target: &Model, edits: &[RetargetEdit]) -> Option<Result<(), String>> {
        let outcome = self.loading.as_ref().and_then(LoadJob::poll)?;
        self.finish_loading(outcome, target, edits)
    }

    /// Block until the background load finishes, then apply it as [`Self::poll_loading`] does
    /// (`None` when nothing was loading).
    pub fn wait_for_loading(&mut self, target: &Model, edits: &[RetargetEdit]) -> Option<Result<(), String>> {
        let outcome = self.loading.as_ref().map(LoadJob::wait)?;
        self.finish_loading(outcome, target, edits)
    }

    fn finish_loading(
        &mut self,
        outcome: Result<Model, String>,
        target: &Model,
        edits: &[RetargetEdit],
    ) -> Option<Result<(), String>> {
        let job = self.loading.take()?;
        let result = outcome.and_then(|model| {
            self.set_source(&job.path, model, target, edits)
                .map_err(|e| format!("cannot use {} as the retarget source: {e:#}", job.path.display()))
        });
        if let Err(error) = &result {
            self.message = Some(error.clone());
        }
        Some(result)
    }

    /// Use `model` (read from `path`) as the source and map it onto `target` (`edits`
    /// applied). On error the source before it stays.
    ///
    /// # Errors
    /// When either model is not a humanoid the anatomy recognises.
    pub fn set_source(
        &mut self,
        path: &Path,
        model: Model,
        target: &Model,
        edits: &[RetargetEdit],
    ) -> anyhow::Result<()> {
        let skeleton = Skeleton::new(&model)?;
        anyhow::ensure!(skeleton.is_humanoid(), "{} is not a humanoid the anatomy recognises", path.display());
        let target_skeleton = self.target_skeleton(target)?.clone();
        anyhow::ensure!(target_skeleton.is_humanoid(), "the model on screen is not a humanoid the anatomy recognises");
        let mut mapping = Mapping::automatic(&skeleton, &target_skeleton);
        let edits: Vec<(String, Option<String>)> = edits.iter().map(|e| (e.target.clone(), e.source.clone())).collect();
        let unknown = mapping.edit((&model, &skeleton), (target, &target_skeleton), &edits);
        self.message = (!unknown.is_empty()).then(|| format!("edits left out (no such joint): {}", unknown.join(", ")));
        self.clip = ClipId::new(0);
        self.mapping = Some(mapping);
        self.source = Some(Source { path: path.to_path_buf(), model, skeleton });
        self.chain_error_m.clear();
        self.last = None;
        Ok(())
    }

    /// The loaded source file's path.
    pub fn source_file(&self) -> Option<&Path> {
        self.source.as_ref().map(|s| s.path.as_path())
    }

    /// Map target joint `target_joint` onto source joint `source_joint` (`None`: unmapped), and
    /// remember the edit in `edits` (the target's profile).
    pub fn edit(
        &mut self,
        target: &Model,
        edits: &mut Vec<RetargetEdit>,
        target_joint: &str,
        source_joint: Option<&str>,
    ) {
        edits.retain(|e| e.target != target_joint);
        edits.push(RetargetEdit { target: target_joint.to_owned(), source: source_joint.map(str::to_owned) });
        let (Some(source), Some((_, skeleton)), Some(mapping)) = (&self.source, &self.target, &mut self.mapping) else {
            return;
        };
        let edit = [(target_joint.to_owned(), source_joint.map(str::to_owned))];
        mapping.edit((&source.model, &source.skeleton), (target, skeleton), &edit);
    }

    /// Retarget the chosen clip onto `target`: the per-chain error, and what to show.
    ///
    /// # Errors
    /// When nothing is loaded or the retarget fails.
    pub fn retarget(&mut self, target: &Model) -> anyhow::Result<ShowRetarget> {
        let (Some(source), Some((_, skeleton)), Some(mapping)) = (&self.source, &self.target, &self.mapping) else {
            anyhow::bail!("load a source file first");
        };
        let clip = self.clip;
        let c = source.model.clip(clip).ok_or_else(|| anyhow::anyhow!("the source has no clip {}", self.clip))?;
        let name = output_name(target, &[], &c.display_name(self.clip.index()));
        let options = Options { foot_ik: self.foot_ik };
        let done = retarget_clip((&source.model, &source.skeleton), clip, (target, skeleton), mapping, options, &name)?;
        self.chain_error_m = done.chain_error_m.clone();
        self.last = Some(clip);
        let mut shown = target.clone();
        let shown_clip = shown.push_clip(done.clip.build()?);
        let mut source_model = source.model.clone();
        let mut copy = c.raw().clone();
        copy.name = Some(name);
        source_model.push_clip(copy.build()?);
        Ok(ShowRetarget { clip: shown_clip, target: shown, source: source_model, source_path: source.path.clone() })
    }

    /// Write the target's file (`target_file`, the model `target` as read from it) with the
    /// last retargeted clip added to `out`; the outcome as a message.
    ///
    /// # Errors
    /// When nothing was retargeted, or the file cannot be written.
    pub fn save_to(&mut self, target: &Model, target_file: FileBytes<'_>, out: &Path) -> anyhow::Result<String> {
        let (Some(source), Some((_, skeleton)), Some(mapping), Some(clip)) =
            (&self.source, &self.target, &self.mapping, self.last)
        else {
            anyhow::bail!("retarget a clip first");
        };
        let written = retarget_to_file(
            (&source.model, &source.skeleton),
            (target, skeleton),
            target_file,
            mapping,
            &[clip],
            Options { foot_ik: self.foot_ik },
            &anim::import::Limits::default(),
        )?;
        std::fs::write(out, &written.glb).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", out.display()))?;
        let c = &written.report.clips[0];
        Ok(format!(
            "Saved \"{}\" into {}: foot slide {:.1} mm (source {:.1} mm)",
            c.name,
            out.display(),
            c.foot_slide_m * 1000.0,
            c.source_foot_slide_m * 1000.0
        ))
    }

    /// "Save retargeted clips…": the model's file (`model_file`, `None` for the built-in
    /// character) with the last retargeted clip added, written to `out`; the outcome.
    ///
    /// # Errors
    /// When the file cannot be read, nothing was retargeted, or the output cannot be written.
    pub fn save_file(&mut self, model_file: Option<&Path>, out: &Path) -> anyhow::Result<String> {
        let bytes = match model_file {
            Some(file) => std::fs::read(file).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", file.display()))?,
            None => crate::mannequin::DEFAULT_MODEL_GLB.to_vec(),
        };
        let base_dir = model_file.and_then(Path::parent);
        // The model on screen may carry the retargeted clip already: write from the file's own.
        let original = decode::load_slice(&bytes, base_dir, &anim::import::Limits::default())?;
        self.save_to(&original, FileBytes { bytes: &bytes, base_dir }, out)
    }

    /// The panel; `edits` are the target profile's table edits. Returns what to show after
    /// "Retarget", and whether "Save retargeted clips…" was pressed (with the path typed).
    pub fn retarget_ui(
        &mut self,
        ui: &mut egui::Ui,
        target: &Model,
        edits: &mut Vec<RetargetEdit>,
    ) -> (Option<ShowRetarget>, Option<PathBuf>) {
        let mut show = None;
        let mut save = None;
        ui.horizontal(|ui| {
            ui.label("Source file");
            // The field leaves room for the button: at its default width it pushed the button
            // past the side panel's edge, out of reach.
            ui.add(
                egui::TextEdit::singleline(&mut self.source_path)
                    .desired_width((ui.available_width() - BUTTON_ROOM).max(MIN_FIELD_WIDTH))
                    .hint_text("path/to/other-character.glb"),
            );
            if ui
                .button("Load source")
                .on_hover_text("Read the other character's file in the background and map its joints onto this one")
                .clicked()
            {
                self.start_loading(&PathBuf::from(self.source_path.trim()));
            }
        });
        if let Some(job) = &self.loading {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(format!("loading {} (progress in the status bar)", job.path.display()));
            });
        }
        if let Some(source) = &self.source {
            let clips: Vec<String> = source.model.clips().iter().enumerate().map(|(i, c)| c.display_name(i)).collect();
            egui::ComboBox::from_label("Source clip")
                .selected_text(clips.get(self.clip.index()).cloned().unwrap_or_default())
                .show_ui(ui, |ui| {
                    for (i, name) in clips.iter().enumerate() {
                        ui.selectable_value(&mut self.clip, ClipId::from_index(i), name);
                    }
                });
            ui.checkbox(&mut self.foot_ik, "Keep feet planted (leg IK during stance)");
            if ui.button("Retarget").clicked() {
                match self.retarget(target) {
                    Ok(s) => show = Some(s),
                    Err(e) => self.message = Some(format!("{e:#}")),
                }
            }
        }
        self.mapping_ui(ui, target, edits);
        if !self.chain_error_m.is_empty() {
            ui.label("Error per chain (mean, end joint against the scaled source, relative to the hips):");
            for (chain, error) in &self.chain_error_m {
                ui.label(format!("  {}: {:.1} mm", chain.name(), error * 1000.0));
            }
            ui.horizontal(|ui| {
                ui.add(
                    egui::TextEdit::singleline(&mut self.save_path)
                        .desired_width((ui.available_width() - 2.0 * BUTTON_ROOM).max(MIN_FIELD_WIDTH))
                        .hint_text("out/retargeted.glb"),
                );
                if ui.button("Save retargeted clips…").clicked() && !self.save_path.trim().is_empty() {
                    save = Some(PathBuf::from(self.save_path.trim()));
                }
            });
        }
        if let Some(message) = &self.message {
            ui.weak(message);
        }
        (show, save)
    }

    /// The joint table: chain, source joint, target joint (a menu of the target's joints).
    fn mapping_ui(&mut self, ui: &mut egui::Ui, target: &Model, edits: &mut Vec<RetargetEdit>) {
        let Some(mapping) = &self.mapping else { return };
        let Some((_, skeleton)) = &self.target else { return };
        let choices: Vec<String> = skeleton.skin_joints.iter().map(|(_, n)| n.clone()).collect();
        let mut change: Option<(String, Option<String>, Option<String>)> = None;
        egui::CollapsingHeader::new(format!("Joint table ({} mapped)", mapping.pairs.len()))
            .id_salt("retarget table")
            .show(ui, |ui| {
                egui::Grid::new("retarget mapping").striped(true).show(ui, |ui| {
                    ui.strong("chain");
                    ui.strong("source");
                    ui.strong("target");
                    ui.end_row();
                    for pair in &mapping.pairs {
                        ui.label(pair.chain.name());
                        ui.label(&pair.source_name);
                        let mut chosen = pair.target_name.clone();
                        egui::ComboBox::from_id_salt(("retarget row", &pair.source_name))
                            .selected_text(&chosen)
                            .show_ui(ui, |ui| {
                                ui.selectable_value(&mut chosen, String::new(), "— none —");
                                for name in &choices {
                                    ui.selectable_value(&mut chosen, name.clone(), name);
                                }
                            });
                        if chosen != pair.target_name {
                            let to = (!chosen.is_empty()).then_some(chosen);
                            change = Some((pair.target_name.clone(), to, Some(pair.source_name.clone())));
                        }
                        ui.end_row();
                    }
                });
                if !mapping.unmapped_target.is_empty() {
                    ui.weak(format!("kept at rest: {}", mapping.unmapped_target.join(", ")));
                }
            });
        if let Some((old_target, new_target, source)) = change {
            match new_target {
                Some(new_target) => self.edit(target, edits, &new_target, source.as_deref()),
                None => self.edit(target, edits, &old_target, None),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable as _;

    use super::*;

    fn builtin() -> Model {
        anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None).expect("built-in model")
    }

    #[test]
    fn loading_a_file_retargeting_and_editing_the_table_through_the_panel() {
        let target = builtin();
        let asset = devtools::ci::repo_root().join("assets/mannequin.glb");
        let panel = RetargetPanel { source_path: asset.display().to_string(), ..RetargetPanel::default() };
        let shown = std::cell::RefCell::new(None);
        let model = target.clone();
        let mut edits = Vec::new();
        let mut harness = Harness::builder().with_size([520.0, 900.0]).build_ui_state(
            |ui, p: &mut RetargetPanel| {
                let (show, _) = p.retarget_ui(ui, &model, &mut edits);
                if show.is_some() {
                    *shown.borrow_mut() = show;
                }
            },
            panel,
        );
        harness.run();
        harness.get_by_label("Load source").click();
        harness.step();
        assert!(harness.state().loading.is_some(), "the source loads in the background");
        assert_eq!(harness.state_mut().wait_for_loading(&target, &[]), Some(Ok(())));
        harness.run();
        assert!(harness.state().message.is_none(), "{:?}", harness.state().message);
        assert_eq!(harness.state().mapping.as_ref().map(|m| m.pairs.len()), Some(21));
        harness.get_by_label("Retarget").click();
        harness.run();
        let state = harness.state();
        assert!(state.message.is_none(), "{:?}", state.message);
        // Onto itself: every chain's end where the source puts it.
        assert_eq!(state.chain_error_m.len(), Chain::ALL.len());
        for (chain, error) in &state.chain_error_m {
            assert!(*error < 1e-3, "{}: {error}", chain.name());
        }
        harness.get_by_label_contains("Save retargeted clips");
        drop(harness);
        let show = shown.into_inner().expect("Retarget shows the result");
        assert_eq!(show.target.clips().len(), target.clips().len() + 1);
        let name = show.target.clip(show.clip).and_then(anim::Clip::name).unwrap_or_default().to_owned();
        assert_eq!(name, "Idle (retargeted)");
        assert!(show.source.find_clip(&name).is_some(), "B carries the source clip under the same name");

        // An edit by name: the head driven by the neck raises the neck/head chain's error.
        let mut panel = RetargetPanel::default();
        let mut edits = Vec::new();
        panel.load_source(&asset, &target, &edits).expect("loads");
        panel.clip = target.find_clip("Wave").expect("Wave");
        panel.retarget(&target).expect("retargets");
        let head = |p: &RetargetPanel| p.chain_error_m.iter().find(|(c, _)| *c == Chain::Head).map(|(_, e)| *e);
        let before = head(&panel).expect("head chain");
        panel.edit(&target, &mut edits, "Head", Some("Neck"));
        panel.retarget(&target).expect("retargets");
        let after = head(&panel).expect("head chain");
        assert!(after > before + 0.01, "{before} -> {after}");
        assert_eq!(edits, [RetargetEdit { target: "Head".to_owned(), source: Some("Neck".to_owned()) }]);
        // Loaded again with the profile's edits, the table has them.
        let mut again = RetargetPanel::default();
        again.load_source(&asset, &target, &edits).expect("loads");
        let mapping = again.mapping.expect("mapped");
        assert_eq!(
            mapping.pairs.iter().find(|p| p.target_name == "Head").map(|p| p.source_name.as_str()),
            Some("Neck")
        );
    }
}

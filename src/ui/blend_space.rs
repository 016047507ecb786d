//! The Blend space section: clips placed at parameter values on one axis or two, shown as
//! points on a plot with the Delaunay triangles, a draggable parameter point, each clip's
//! weight, the interpolated cycle and playback rate, and the foot slide at the parameter
//! measured as `animtune blend-space` measures it. The blend space lives in the tuning
//! (`crate::stage::layers::BlendSpaceTuning`), so it is undoable and saved in the model's
//! profile; `crate::stage::layer_play` plays it in place of the clip when it is on.

use anim::Model;
use egui_plot::{Line, Plot, PlotPoints, Points};

use crate::stage::layer_play::LayerPlay;
use crate::stage::layers::{BlendPointSpec, BlendSpaceSpec, BlendSpaceTuning};
use crate::stage::tuning::Tuning;
use crate::transitions::{BlendSpaceRun, Rig};

/// Seconds of playback the live foot-slide readout measures.
const MEASURE_SECS: f32 = 2.0;

/// The Blend space section's own state: the rig the readout measures with (found once per
/// model) and the last measurement.
#[derive(Default)]
pub struct BlendSpacePanel {
    rig: Option<Rig>,
    measured: Option<(BlendSpaceTuning, BlendSpaceRun)>,
}

impl std::fmt::Debug for BlendSpacePanel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlendSpacePanel").field("measured", &self.measured.as_ref().map(|m| m.1)).finish()
    }
}

impl BlendSpacePanel {
    /// The section: set up the blend space in `tuning`, drag its parameter, read its weights.
    /// Returns true when "Fade to blend space" was clicked (the caller starts the transition:
    /// `Stage::fade_to_blend_space`).
    pub fn blend_space_ui(&mut self, ui: &mut egui::Ui, model: &Model, tuning: &mut Tuning, play: &LayerPlay) -> bool {
        let names: Vec<String> = model.clips().iter().enumerate().map(|(i, c)| c.display_name(i)).collect();
        let Some(space) = &mut tuning.clip_extras.blend_space else {
            if ui
                .button("Set up a blend space")
                .on_hover_text("Place clips at parameter values (speed, direction) and blend them in step")
                .clicked()
            {
                tuning.clip_extras.blend_space = Some(default_space(&names));
            }
            return false;
        };
        let mut fade = false;
        ui.horizontal(|ui| {
            ui.checkbox(&mut space.active, "play the blend space")
                .on_hover_text("Show the blend space instead of the clip (layers still apply over it)");
            ui.checkbox(&mut space.phase_sync, "phase sync")
                .on_hover_text("Keep the clips in step by their foot-contact markers, the rate interpolated");
            fade = ui
                .add_enabled(!space.active && play.player().is_some(), egui::Button::new("Fade to blend space"))
                .on_hover_text(
                    "Transition from the clip on screen into the blend space at its parameter, with the pair's \
                     tuned kind; while the blend space plays, T fades from it to the fade target",
                )
                .clicked();
        });
        let mut two_d = space.space.is_2d();
        if ui.checkbox(&mut two_d, "two axes (speed × direction)").changed() {
            for p in &mut space.space.points {
                p.y = two_d.then_some(p.y.unwrap_or(0.0));
            }
        }
        let mut remove = None;
        for (i, point) in space.space.points.iter_mut().enumerate() {
            ui.push_id(("point", i), |ui| {
                ui.horizontal(|ui| {
                    egui::ComboBox::from_label("clip").selected_text(point.clip.as_str()).show_ui(ui, |ui| {
                        for name in &names {
                            ui.selectable_value(&mut point.clip, name.clone(), name);
                        }
                    });
                    ui.add(egui::DragValue::new(&mut point.x).speed(0.01).prefix("x "));
                    if let Some(y) = &mut point.y {
                        ui.add(egui::DragValue::new(y).speed(0.01).prefix("y "));
                    }
                    if ui.small_button("Remove").on_hover_text("Remove this clip").clicked() {
                        remove = Some(i);
                    }
                });
            });
        }
        if let Some(i) = remove {
            space.space.points.remove(i);
        }
        let mut drop_space = false;
        ui.horizontal(|ui| {
            if ui.button("Add clip").clicked() {
                let x = space.space.points.iter().map(|p| p.x).fold(0.0f32, f32::max) + 1.0;
                let clip = names.first().cloned().unwrap_or_default();
                space.space.points.push(BlendPointSpec { clip, x, y: two_d.then_some(0.0) });
            }
            drop_space = ui.button("Remove blend space").clicked();
        });
        if drop_space {
            tuning.clip_extras.blend_space = None;
            return false;
        }
        self.plot_ui(ui, space, play);
        match play.player() {
            Some(player) => {
                let weights: Vec<String> = player
                    .weights()
                    .iter()
                    .zip(&space.space.points)
                    .map(|(w, p)| format!("{} {w:.2}", p.clip))
                    .collect();
                ui.label(format!("weights: {}", weights.join(", ")));
                ui.label(format!(
                    "cycle {:.3} s, playback rate {:.3}{}",
                    player.cycle_secs(),
                    player.playback_rate(),
                    if player.syncs_by_markers() { ", in step by foot contacts" } else { "" }
                ));
                self.readout_ui(ui, model, space, player);
            }
            None => {
                ui.weak(play.error().unwrap_or("Give at least two clips at different positions."));
            }
        }
        fade
    }

    /// The points, the triangles and the draggable parameter.
    fn plot_ui(&mut self, ui: &mut egui::Ui, space: &mut BlendSpaceTuning, play: &LayerPlay) {
        let two_d = space.space.is_2d();
        let xy = |p: &BlendPointSpec| [f64::from(p.x), f64::from(p.y.unwrap_or(0.0))];
        let points: Vec<[f64; 2]> = space.space.points.iter().map(xy).collect();
        let triangles: Vec<[usize; 3]> = play.player().map(|p| p.space().triangles().to_vec()).unwrap_or_default();
        let at = [f64::from(space.at[0]), if two_d { f64::from(space.at[1]) } else { 0.0 }];
        let response = Plot::new("blend space plot")
            .height(if two_d { 180.0 } else { 80.0 })
            .allow_drag(false)
            .allow_zoom(false)
            .allow_scroll(false)
            .show(ui, |plot| {
                for t in &triangles {
                    let corners: Vec<[f64; 2]> =
                        [t[0], t[1], t[2], t[0]].iter().filter_map(|&k| points.get(k).copied()).collect();
                    plot.line(Line::new("triangle", PlotPoints::from(corners)).color(egui::Color32::from_gray(110)));
                }
                plot.points(Points::new("clips", PlotPoints::from(points.clone())).radius(5.0));
                plot.points(
                    Points::new("parameter", PlotPoints::from(vec![at]))
                        .radius(6.0)
                        .color(egui::Color32::from_rgb(255, 150, 40)),
                );
                plot.pointer_coordinate()
            });
        if (response.response.dragged() || response.response.clicked())
            && let Some(p) = response.inner
        {
            space.at = [p.x as f32, if two_d { p.y as f32 } else { 0.0 }];
        }
        let (lo, hi) =
            points.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| (lo.min(p[0] as f32), hi.max(p[0] as f32)));
        if lo < hi {
            ui.add(egui::Slider::new(&mut space.at[0], lo..=hi).text("x"));
        }
        if two_d {
            let (lo, hi) =
                points.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| (lo.min(p[1] as f32), hi.max(p[1] as f32)));
            if lo < hi {
                ui.add(egui::Slider::new(&mut space.at[1], lo..=hi).text("y"));
            }
        }
    }

    /// The foot slide at the parameter (measured again when the blend space or parameter
    /// changes).
    fn readout_ui(
        &mut self,
        ui: &mut egui::Ui,
        model: &Model,
        space: &BlendSpaceTuning,
        player: &anim::BlendSpacePlayer,
    ) {
        let current = BlendSpaceTuning { active: false, ..space.clone() };
        let stale = self.measured.as_ref().is_none_or(|(t, _)| *t != current);
        if stale && !ui.ctx().input(|i| i.pointer.any_down()) {
            let rig = self.rig.get_or_insert_with(|| Rig::new(model));
            let mut player = player.clone();
            let run = crate::transitions::measure_blend_space(model, rig, &mut player, MEASURE_SECS);
            self.measured = Some((current, run));
        }
        if let Some((_, run)) = &self.measured {
            ui.label(format!(
                "foot slide {:.1} mm over {MEASURE_SECS} s, joint acceleration up to {:.1} m/s²{}",
                run.foot_slide_m * 1000.0,
                run.max_joint_accel_mps2,
                if run.finite { "" } else { " — NOT FINITE" }
            ))
            .on_hover_text(
                "Planted feet's horizontal motion against the ground, as `animtune blend-space` measures it",
            );
        }
    }
}

/// A first blend space: Walk at 0 and Run at 1 when the model has them, else its first two
/// clips.
fn default_space(names: &[String]) -> BlendSpaceTuning {
    let find = |want: &[&str]| names.iter().find(|n| want.iter().any(|w| n.eq_ignore_ascii_case(w))).cloned();
    let a = find(&["Walk", "Walking"]).or_else(|| names.first().cloned()).unwrap_or_default();
    let b = find(&["Run", "Running"]).or_else(|| names.get(1).cloned()).unwrap_or_else(|| a.clone());
    BlendSpaceTuning {
        space: BlendSpaceSpec {
            points: vec![BlendPointSpec { clip: a, x: 0.0, y: None }, BlendPointSpec { clip: b, x: 1.0, y: None }],
        },
        at: [0.5, 0.0],
        phase_sync: true,
        active: false,
    }
}

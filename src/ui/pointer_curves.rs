//! The playing clip's `KHR_animation_pointer` property tracks (material factors, texture
//! transforms, visibility) in the curves panel: one plot per track over the clip, with its keys
//! and the playhead, sampled with the same spec rules as `animtune sample`'s "pointers".

use egui_plot::{Line, Plot, PlotPoints, Points, VLine};

use anim::Model;

/// Samples per plotted pointer track.
const SAMPLES: usize = 120;

/// Curves of one pointer track: per component, (time, value) samples and keys.
#[derive(Debug, Clone, PartialEq)]
pub struct PointerCurve {
    /// The JSON pointer.
    pub pointer: String,
    /// Per component, the sampled curve.
    pub samples: Vec<Vec<[f64; 2]>>,
    /// Per component, the key values.
    pub keys: Vec<Vec<[f64; 2]>>,
}

/// The pointer curves of clip `clip` of `model` (empty without pointer tracks).
pub fn pointer_curves(model: &Model, clip: anim::ClipId) -> Vec<PointerCurve> {
    let Some(end) = model.clip(clip).map(anim::Clip::end_secs) else { return Vec::new() };
    model
        .clip_pointer_tracks(clip)
        .iter()
        .map(|track| {
            let n = track.components();
            let mut samples = vec![Vec::with_capacity(SAMPLES + 1); n];
            let mut value = [0.0f32; 4];
            for i in 0..=SAMPLES {
                let t = end * i as f32 / SAMPLES as f32;
                track.sample(t, &mut value);
                for (c, curve) in samples.iter_mut().enumerate() {
                    curve.push([f64::from(t), f64::from(value[c])]);
                }
            }
            let mut keys = vec![Vec::with_capacity(track.times_secs.len()); n];
            for &t in &track.times_secs {
                track.sample(t, &mut value);
                for (c, curve) in keys.iter_mut().enumerate() {
                    curve.push([f64::from(t), f64::from(value[c])]);
                }
            }
            PointerCurve { pointer: track.pointer.clone(), samples, keys }
        })
        .collect()
}

/// Draw the pointer curves of `clip` (playing at `time_secs`) under a heading; nothing when it
/// has none.
pub fn pointer_curves_ui(ui: &mut egui::Ui, model: &Model, clip: anim::ClipId, time_secs: f32) {
    if model.clip_pointer_tracks(clip).is_empty() {
        return;
    }
    let curves = pointer_curves(model, clip);
    if curves.is_empty() {
        return;
    }
    ui.label(format!("pointer properties ({}): KHR_animation_pointer", curves.len()));
    let colors = super::COMPONENT_COLORS;
    for (i, curve) in curves.iter().enumerate() {
        ui.label(&curve.pointer);
        // The wheel scrolls the side panel, not the plot.
        Plot::new(("pointer plot", i)).height(70.0).allow_scroll(false).show(ui, |plot_ui| {
            for (c, samples) in curve.samples.iter().enumerate() {
                let color = colors[c % colors.len()];
                let name = ["x / r", "y / g", "z / b", "w / a"][c % 4];
                plot_ui.line(Line::new(name, PlotPoints::from(samples.clone())).color(color));
                plot_ui.points(Points::new(name, PlotPoints::from(curve.keys[c].clone())).color(color).radius(2.5));
            }
            plot_ui.vline(VLine::new("time", f64::from(time_secs)).color(egui::Color32::WHITE));
        });
    }
}

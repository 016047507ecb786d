//! Curves of one channel of the selected joint over the whole clip: each component, key
//! markers, the current-time cursor, a second interpolation mode overlaid and the velocity.

use anim::{InterpolationOverride, Property, SampleSettings, TrackSample, TrackValues};
use egui_plot::{Legend, Line, Plot, PlotPoints, Points, VLine};
use glam::{Quat, Vec4};

use super::{ViewerState, enum_combo};

/// Samples per curve.
const SAMPLES: usize = 300;

/// What the curve plot was given (kept for tests and readouts).
#[derive(Debug, Clone, PartialEq)]
pub struct CurveData {
    /// Plotted node.
    pub node: usize,
    /// Plotted property.
    pub property: Property,
    /// Track index in the clip.
    pub track: usize,
    /// Component names (`x y z` or `x y z w`).
    pub component_names: Vec<&'static str>,
    /// Per component: `[time, value]` under the current settings.
    pub primary: Vec<Vec<[f64; 2]>>,
    /// Per component: `[time, value]` under the overlay mode.
    pub overlay: Vec<Vec<[f64; 2]>>,
    /// Per component: `[key time, key value]`.
    pub keys: Vec<Vec<[f64; 2]>>,
    /// Per component: finite-difference velocity of `primary` (units per second).
    pub primary_velocity: Vec<Vec<[f64; 2]>>,
    /// Per component: finite-difference velocity of `overlay`.
    pub overlay_velocity: Vec<Vec<[f64; 2]>>,
}

/// The curve panel.
#[derive(Debug)]
pub struct CurvesPanel {
    /// Mode drawn dashed over the current settings' curve.
    pub overlay_mode: InterpolationOverride,
    /// Show the velocity plot.
    pub show_velocity: bool,
    /// The data last given to the plot.
    pub last: Option<CurveData>,
}

impl Default for CurvesPanel {
    fn default() -> Self {
        Self { overlay_mode: InterpolationOverride::Cubic, show_velocity: true, last: None }
    }
}

impl CurvesPanel {
    /// Joint and channel pickers, then the value plot and (optionally) the velocity plot.
    pub fn curves_ui(&mut self, ui: &mut egui::Ui, state: &mut ViewerState) {
        let Some(clip) = state.clip.and_then(|c| state.model.clips.get(c)) else {
            ui.label("No clip.");
            self.last = None;
            return;
        };
        let nodes = clip.animated_nodes();
        let mut joint = state.selected_joint.filter(|n| nodes.contains(n)).or(nodes.first().copied());
        egui::ComboBox::from_label("joint")
            .selected_text(joint.map(|n| state.node_name(n)).unwrap_or_default())
            .show_ui(ui, |ui| {
                for &node in &nodes {
                    ui.selectable_value(&mut joint, Some(node), state.node_name(node));
                }
            });
        state.selected_joint = joint;
        let Some(node) = joint else {
            ui.label("The clip animates no node.");
            self.last = None;
            return;
        };
        let properties: Vec<Property> = [Property::Translation, Property::Rotation, Property::Scale]
            .into_iter()
            .filter(|&p| clip.tracks.iter().any(|t| t.node == node && t.property() == p))
            .collect();
        if !properties.contains(&state.selected_property)
            && let Some(&first) = properties.first()
        {
            state.selected_property = first;
        }
        ui.horizontal(|ui| {
            ui.label("channel:");
            for &property in &properties {
                ui.selectable_value(&mut state.selected_property, property, property.gltf_name());
            }
        });
        ui.horizontal(|ui| {
            enum_combo(ui, "overlay", &mut self.overlay_mode, &InterpolationOverride::ALL, |m| m.name().to_owned());
            ui.checkbox(&mut self.show_velocity, "velocity");
        });

        self.last = curve_data(state, node, state.selected_property, self.overlay_mode);
        let Some(data) = &self.last else {
            ui.label("No translation, rotation or scale track on this joint (morph weights are not plotted).");
            return;
        };
        let time = f64::from(state.time_secs);
        let colors = [
            egui::Color32::from_rgb(230, 80, 80),
            egui::Color32::from_rgb(80, 200, 80),
            egui::Color32::from_rgb(90, 140, 240),
            egui::Color32::from_rgb(220, 200, 80),
        ];
        // Items that share a name share a legend entry: one per component.
        ui.label(format!(
            "solid: current settings ({}) · dashed: {} · dots: keys",
            state.settings.mode.name(),
            self.overlay_mode.name()
        ));
        let legend = Legend::default().position(egui_plot::Corner::LeftBottom);
        Plot::new("curve plot").height(170.0).legend(legend).show(ui, |plot_ui| {
            for (c, name) in data.component_names.iter().enumerate() {
                let color = colors[c % colors.len()];
                plot_ui.line(Line::new(*name, PlotPoints::from(data.primary[c].clone())).color(color));
                plot_ui.line(
                    Line::new(*name, PlotPoints::from(data.overlay[c].clone()))
                        .color(color.gamma_multiply(0.5))
                        .style(egui_plot::LineStyle::dashed_dense()),
                );
                plot_ui.points(Points::new(*name, PlotPoints::from(data.keys[c].clone())).color(color).radius(3.0));
            }
            plot_ui.vline(VLine::new("time", time).color(egui::Color32::WHITE));
        });
        if self.show_velocity {
            ui.label("velocity (finite differences): LINEAR jumps at keys");
            Plot::new("velocity plot").height(120.0).show(ui, |plot_ui| {
                for (c, name) in data.component_names.iter().enumerate() {
                    let color = colors[c % colors.len()];
                    plot_ui.line(Line::new(*name, PlotPoints::from(data.primary_velocity[c].clone())).color(color));
                    plot_ui.line(
                        Line::new(*name, PlotPoints::from(data.overlay_velocity[c].clone()))
                            .color(color.gamma_multiply(0.5))
                            .style(egui_plot::LineStyle::dashed_dense()),
                    );
                }
                plot_ui.vline(VLine::new("time", time).color(egui::Color32::WHITE));
            });
        }
    }
}

/// Sample the `property` track of `node` in the playing clip under the current settings and
/// under `overlay_mode`. `None` without such a track (or for morph weights).
pub fn curve_data(
    state: &ViewerState,
    node: usize,
    property: Property,
    overlay_mode: InterpolationOverride,
) -> Option<CurveData> {
    let clip = state.model.clips.get(state.clip?)?;
    let track_index = clip.tracks.iter().position(|t| t.node == node && t.property() == property)?;
    let track = clip.tracks.get(track_index)?;
    let times = &clip.timelines.get(track.timeline)?.times_secs;
    let overlay_settings = SampleSettings { mode: overlay_mode, track_modes: Vec::new(), ..state.settings.clone() };
    let end = f64::from(clip.end_secs.max(1e-3));
    let sample_times: Vec<f32> = (0..=SAMPLES).map(|i| (end * i as f64 / SAMPLES as f64) as f32).collect();
    let sample = |settings: &SampleSettings| -> Option<Vec<Vec4>> {
        let mut weights = vec![0.0; state.model.weight_count];
        let mut previous = Quat::IDENTITY;
        sample_times
            .iter()
            .map(|&t| match clip.evaluate_track(track_index, t, settings, &mut weights)? {
                TrackSample::Vec3(v) => Some(v.extend(0.0)),
                TrackSample::Rotation { rotation, .. } => {
                    // Keep the sign continuous so that q and -q do not jump on the plot.
                    let rotation = if previous.dot(rotation) < 0.0 { -rotation } else { rotation };
                    previous = rotation;
                    Some(Vec4::from(rotation))
                }
                TrackSample::Weights => None,
            })
            .collect()
    };
    let primary = sample(&state.settings)?;
    let overlay = sample(&overlay_settings)?;
    let component_names: Vec<&'static str> =
        if property == Property::Rotation { vec!["x", "y", "z", "w"] } else { vec!["x", "y", "z"] };
    let split = |values: &[Vec4]| -> Vec<Vec<[f64; 2]>> {
        (0..component_names.len())
            .map(|c| sample_times.iter().zip(values).map(|(&t, v)| [f64::from(t), f64::from(v[c])]).collect())
            .collect()
    };
    let velocity = |series: &Vec<Vec<[f64; 2]>>| -> Vec<Vec<[f64; 2]>> {
        series
            .iter()
            .map(|points| {
                points
                    .windows(2)
                    .filter(|w| w[1][0] > w[0][0])
                    .map(|w| [(w[0][0] + w[1][0]) * 0.5, (w[1][1] - w[0][1]) / (w[1][0] - w[0][0])])
                    .collect()
            })
            .collect()
    };
    let key_values: Vec<Vec4> = (0..times.len())
        .map(|k| {
            let i = track.value_index(k);
            match &track.values {
                TrackValues::Translation(v) | TrackValues::Scale(v) => v.get(i).map(|v| v.extend(0.0)),
                TrackValues::Rotation(q) => q.get(i).map(|&q| {
                    // Show the key with the sign the (sign-continuous) sampled curve has there.
                    let nearest = ((f64::from(times[k]) / end) * SAMPLES as f64).round() as usize;
                    let q = Vec4::from(q);
                    match primary.get(nearest.min(SAMPLES)) {
                        Some(p) if p.dot(q) < 0.0 => -q,
                        _ => q,
                    }
                }),
                TrackValues::Weights { .. } => None,
            }
            .unwrap_or(Vec4::ZERO)
        })
        .collect();
    let keys = (0..component_names.len())
        .map(|c| times.iter().zip(&key_values).map(|(&t, v)| [f64::from(t), f64::from(v[c])]).collect())
        .collect();
    let primary = split(&primary);
    let overlay = split(&overlay);
    Some(CurveData {
        node,
        property,
        track: track_index,
        component_names,
        primary_velocity: velocity(&primary),
        overlay_velocity: velocity(&overlay),
        primary,
        overlay,
        keys,
    })
}

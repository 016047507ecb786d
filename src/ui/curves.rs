//! Curves of one channel of the selected joint over the whole clip: each component, key
//! markers, the current-time cursor, a second interpolation mode overlaid and the velocity.

use anim::{Interpolation, InterpolationOverride, Property, SampleSettings, TrackSample, TrackValues};
use egui_plot::{Legend, Line, Plot, PlotPoints, Points, VLine};
use glam::{EulerRot, Quat, Vec4};

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
    /// Per component: finite-difference acceleration of `primary`.
    pub primary_acceleration: Vec<Vec<[f64; 2]>>,
    /// Per component: CUBICSPLINE tangent handles, each `[key point, handle end]` (the end a
    /// third of the neighbouring interval away along the tangent); empty for other tracks and
    /// in the angle view.
    pub tangent_handles: Vec<Vec<[[f64; 2]; 2]>>,
    /// Values are Euler angles in degrees (rotation tracks in the angle view).
    pub angles: bool,
}

/// The curve panel.
#[derive(Debug)]
pub struct CurvesPanel {
    /// Mode drawn dashed over the current settings' curve.
    pub overlay_mode: InterpolationOverride,
    /// Show the velocity plot.
    pub show_velocity: bool,
    /// Show the acceleration plot.
    pub show_acceleration: bool,
    /// Plot rotations as Euler angles (XYZ, degrees) instead of quaternion components.
    pub angles: bool,
    /// The data last given to the plot.
    pub last: Option<CurveData>,
}

impl Default for CurvesPanel {
    fn default() -> Self {
        Self {
            overlay_mode: InterpolationOverride::Cubic,
            show_velocity: true,
            show_acceleration: false,
            angles: false,
            last: None,
        }
    }
}

impl CurvesPanel {
    /// Joint and channel pickers, then the value plot and (optionally) the velocity plot.
    pub fn curves_ui(&mut self, ui: &mut egui::Ui, state: &mut ViewerState) {
        crate::ui::pointer_curves::pointer_curves_ui(ui, state);
        let Some(clip) = state.clip.and_then(|c| state.model.clips.get(c)) else {
            ui.label("No clip.");
            self.last = None;
            return;
        };
        let nodes = clip.animated_nodes();
        // A joint picked elsewhere that this clip does not animate stays selected (the skeleton
        // highlight and ragdoll push use it); the plot then says so.
        let mut joint = state.selected_joint.or(nodes.first().copied());
        let before = joint;
        egui::ComboBox::from_label("joint")
            .selected_text(joint.map(|n| state.node_name(n)).unwrap_or_default())
            .show_ui(ui, |ui| {
                for &node in &nodes {
                    ui.selectable_value(&mut joint, Some(node), state.node_name(node));
                }
            });
        if joint != before || state.selected_joint.is_none() {
            state.selected_joint = joint;
        }
        let Some(node) = joint else {
            ui.label("The clip animates no node.");
            self.last = None;
            return;
        };
        if !nodes.contains(&node) {
            ui.label(format!("{} is not animated by this clip.", state.node_name(node)));
            self.last = None;
            return;
        }
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
            ui.checkbox(&mut self.show_acceleration, "acceleration");
        });
        if state.selected_property == Property::Rotation {
            ui.horizontal(|ui| {
                ui.label("rotation as:");
                ui.selectable_value(&mut self.angles, false, "quaternion");
                ui.selectable_value(&mut self.angles, true, "angles (XYZ deg)");
            });
        }

        self.last = curve_data(state, node, state.selected_property, self.overlay_mode, self.angles);
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
            "solid: current settings ({}) · dashed: {} · dots: keys{} · click or drag to scrub",
            state.settings.mode.name(),
            self.overlay_mode.name(),
            if data.tangent_handles.iter().any(|h| !h.is_empty()) { " · bars: tangents" } else { "" }
        ));
        let legend = Legend::default().position(egui_plot::Corner::LeftBottom);
        let mut scrub_to = None;
        let plot = Plot::new("curve plot").height(170.0).legend(legend).allow_drag(false).allow_boxed_zoom(false);
        plot.show(ui, |plot_ui| {
            for (c, name) in data.component_names.iter().enumerate() {
                let color = colors[c % colors.len()];
                plot_ui.line(Line::new(*name, PlotPoints::from(data.primary[c].clone())).color(color));
                plot_ui.line(
                    Line::new(*name, PlotPoints::from(data.overlay[c].clone()))
                        .color(color.gamma_multiply(0.5))
                        .style(egui_plot::LineStyle::dashed_dense()),
                );
                plot_ui.points(Points::new(*name, PlotPoints::from(data.keys[c].clone())).color(color).radius(3.0));
                for handle in &data.tangent_handles[c] {
                    plot_ui.line(Line::new(*name, PlotPoints::from(handle.to_vec())).color(color.gamma_multiply(0.8)));
                    plot_ui.points(
                        Points::new(*name, PlotPoints::from(vec![handle[1]])).color(color).radius(2.0).filled(false),
                    );
                }
            }
            plot_ui.vline(VLine::new("time", time).color(egui::Color32::WHITE));
            let response = plot_ui.response();
            if (response.clicked() || response.dragged())
                && let Some(pointer) = plot_ui.pointer_coordinate()
            {
                scrub_to = Some(pointer.x as f32);
            }
        });
        if let Some(time) = scrub_to {
            state.seek(time);
        }
        let units = if data.angles { "deg" } else { "units" };
        if self.show_velocity {
            ui.label(format!("velocity ({units}/s, finite differences): LINEAR jumps at keys"));
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
        if self.show_acceleration {
            ui.label(format!("acceleration ({units}/s², current settings): spikes at keys where velocity jumps"));
            Plot::new("acceleration plot").height(110.0).show(ui, |plot_ui| {
                for (c, name) in data.component_names.iter().enumerate() {
                    let color = colors[c % colors.len()];
                    plot_ui.line(Line::new(*name, PlotPoints::from(data.primary_acceleration[c].clone())).color(color));
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
    angles: bool,
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
    let angles = angles && property == Property::Rotation;
    let component_names: Vec<&'static str> = match (property, angles) {
        (Property::Rotation, false) => vec!["x", "y", "z", "w"],
        (Property::Rotation, true) => vec!["X deg", "Y deg", "Z deg"],
        _ => vec!["x", "y", "z"],
    };
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
    // CUBICSPLINE tangents, with the sign of their key as plotted.
    let mut tangent_handles: Vec<Vec<[[f64; 2]; 2]>> = vec![Vec::new(); component_names.len()];
    if track.interpolation == Interpolation::CubicSpline && !angles {
        let tangent = |index: usize| -> Option<Vec4> {
            match &track.values {
                TrackValues::Translation(v) | TrackValues::Scale(v) => v.get(index).map(|v| v.extend(0.0)),
                TrackValues::Rotation(q) => q.get(index).map(|&q| Vec4::from(q)),
                TrackValues::Weights { .. } => None,
            }
        };
        for (k, &t) in times.iter().enumerate() {
            let value = key_values[k];
            let stored = tangent(track.value_index(k)).unwrap_or(value);
            let sign = if stored.dot(value) < 0.0 { -1.0 } else { 1.0 };
            let t = f64::from(t);
            let mut push = |slope: Vec4, dt: f64| {
                for (c, handles) in tangent_handles.iter_mut().enumerate() {
                    let end = [t + dt, f64::from(value[c]) + f64::from(slope[c] * sign) * dt];
                    handles.push([[t, f64::from(value[c])], end]);
                }
            };
            if k > 0
                && let Some(in_tangent) = tangent(3 * k)
            {
                push(in_tangent, -(t - f64::from(times[k - 1])) / 3.0);
            }
            if k + 1 < times.len()
                && let Some(out_tangent) = tangent(3 * k + 2)
            {
                push(out_tangent, (f64::from(times[k + 1]) - t) / 3.0);
            }
        }
    }
    let (primary, overlay, key_values) = if angles {
        (euler_degrees(&primary), euler_degrees(&overlay), euler_degrees(&key_values))
    } else {
        (primary, overlay, key_values)
    };
    let keys = (0..component_names.len())
        .map(|c| times.iter().zip(&key_values).map(|(&t, v)| [f64::from(t), f64::from(v[c])]).collect())
        .collect();
    let primary = split(&primary);
    let overlay = split(&overlay);
    let primary_velocity = velocity(&primary);
    Some(CurveData {
        node,
        property,
        track: track_index,
        component_names,
        primary_acceleration: velocity(&primary_velocity),
        primary_velocity,
        overlay_velocity: velocity(&overlay),
        primary,
        overlay,
        keys,
        tangent_handles,
        angles,
    })
}

/// Quaternions (as `Vec4`) to XYZ Euler angles in degrees, unwrapped so that each angle moves
/// continuously through ±180°.
fn euler_degrees(quaternions: &[Vec4]) -> Vec<Vec4> {
    let mut previous: Option<Vec4> = None;
    quaternions
        .iter()
        .map(|&q| {
            let (x, y, z) = Quat::from_vec4(q).normalize().to_euler(EulerRot::XYZ);
            let mut angles = Vec4::new(x.to_degrees(), y.to_degrees(), z.to_degrees(), 0.0);
            if let Some(p) = previous {
                for c in 0..3 {
                    angles[c] += ((p[c] - angles[c]) / 360.0).round() * 360.0;
                }
            }
            previous = Some(angles);
            angles
        })
        .collect()
}

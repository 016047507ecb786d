//! Curves of one channel of the selected joint over the whole clip: each component, key
//! markers, CUBICSPLINE tangent handles, the current-time cursor, a second interpolation mode
//! overlaid, the velocity and the acceleration. Plots fit their data whenever the model, clip,
//! joint, channel or view changes; the legend shows each series in its colour above the plot.

use anim::{
    ClipId, Interpolation, InterpolationOverride, Model, NodeId, Property, SampleSettings, TrackId, TrackSample,
    TrackValues,
};
use egui_plot::{Line, Plot, PlotBounds, PlotPoints, Points, VLine};
use glam::{EulerRot, Quat, Vec4};

use super::enum_combo;
use crate::stage::StageParts;
use crate::stage::tuning::Tuning;

/// Samples per curve.
const SAMPLES: usize = 300;
/// Least half-height of the velocity plot: units per second, degrees per second.
const MIN_VELOCITY_SPAN_UNITS: f64 = 0.01;
const MIN_VELOCITY_SPAN_DEG: f64 = 1.0;
/// Least half-height of the acceleration plot: units per second², degrees per second².
const MIN_ACCELERATION_SPAN_UNITS: f64 = 0.2;
const MIN_ACCELERATION_SPAN_DEG: f64 = 20.0;

/// What the curve plot was given (kept for tests and readouts).
#[derive(Debug, Clone, PartialEq)]
pub struct CurveData {
    /// Plotted node.
    pub node: NodeId,
    /// Plotted property.
    pub property: Property,
    /// The plotted track of the clip.
    pub track: TrackId,
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
    /// The interpolation the solid curve uses (overrides resolved).
    pub primary_interpolation: Interpolation,
    /// Where that comes from: `authored`, `override` or `channel override`.
    pub primary_source: &'static str,
    /// The interpolation the dashed curve uses.
    pub overlay_interpolation: Interpolation,
}

/// Everything the curve data depends on.
#[derive(Debug, Clone, PartialEq)]
struct CurveKey {
    model_generation: u64,
    clip: ClipId,
    node: NodeId,
    property: Property,
    overlay_mode: InterpolationOverride,
    angles: bool,
    settings: SampleSettings,
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
    key: Option<CurveKey>,
    /// Bounds of the value, velocity and acceleration plots as last drawn.
    pub bounds: [Option<PlotBounds>; 3],
    /// The legend as last drawn: label and colour per series.
    pub legend: Vec<(String, egui::Color32)>,
    /// Screen rect of the value plot as last drawn.
    pub plot_rect: Option<egui::Rect>,
    /// Resets to do: a plot refits once each time what it shows changes.
    fit: FitState,
}

/// Which plots still have to fit new data.
#[derive(Debug, Default)]
struct FitState {
    /// (model generation, clip, node, property, angles) of the data the plots last fitted.
    fitted: Option<(u64, ClipId, NodeId, Property, bool)>,
    /// Reset the value, velocity and acceleration plots on their next show.
    pending: [bool; 3],
}

impl Default for CurvesPanel {
    fn default() -> Self {
        Self {
            overlay_mode: InterpolationOverride::Cubic,
            show_velocity: true,
            show_acceleration: false,
            angles: false,
            last: None,
            key: None,
            bounds: [None; 3],
            legend: Vec::new(),
            plot_rect: None,
            fit: FitState::default(),
        }
    }
}

impl CurvesPanel {
    /// Joint and channel pickers, then the value plot and (optionally) velocity and
    /// acceleration plots. Click or drag in the value plot to scrub. The clip plotted and the
    /// time cursor are what `shown` has (`Stage::shown`): while rewound, the stored frame's.
    pub fn curves_ui(&mut self, ui: &mut egui::Ui, stage: StageParts<'_>) {
        let StageParts { model, generation: model_generation, tuning, transport, selection, shown, .. } = stage;
        let tuning: &Tuning = tuning;
        let shown = &shown;
        if let Some(secs) = shown.rewound_secs {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!("{}: the cursor at the recorded clip time (Esc: live)", super::rewind::rewound_label(secs)),
            );
        }
        if let Some(clip) = shown.clip {
            super::pointer_curves::pointer_curves_ui(ui, model, clip, shown.clip_secs);
        }
        let Some((clip_id, clip)) = shown.clip.and_then(|c| Some((c, model.clip(c)?))) else {
            ui.label("No clip.");
            self.last = None;
            return;
        };
        let name = |node: NodeId| crate::profile::node_display_name(model, node);
        let nodes: Vec<NodeId> = clip.animated_nodes();
        let mut joint = selection.joint.or(nodes.first().copied());
        let before = joint;
        egui::ComboBox::from_label("joint")
            .selected_text(joint.map(name).unwrap_or_default())
            .show_ui(ui, |ui| {
                for &node in &nodes {
                    ui.selectable_value(&mut joint, Some(node), name(node));
                }
            })
            .response
            .on_hover_text("Joint whose curves are plotted (also: click it in the 3D view or the joint tree)");
        if joint != before || selection.joint.is_none() {
            selection.joint = joint;
        }
        // A joint this clip does not animate stays selected (the skeleton highlight and the
        // ragdoll push use it); the plot follows the nearest animated node instead.
        let node = match selection.joint {
            Some(node) if nodes.contains(&node) => node,
            other => {
                let Some(fallback) = other.and_then(|n| nearest_animated(model, n, &nodes)).or(nodes.first().copied())
                else {
                    ui.label("The clip animates no node.");
                    self.last = None;
                    return;
                };
                if let Some(other) = other {
                    ui.weak(format!("{} is not animated by this clip: showing {}", name(other), name(fallback)));
                }
                fallback
            }
        };
        let properties: Vec<Property> = [Property::Translation, Property::Rotation, Property::Scale]
            .into_iter()
            .filter(|&p| clip.tracks().iter().any(|t| t.node == node && t.property() == p))
            .collect();
        if !properties.contains(&selection.property)
            && let Some(&first) = properties.first()
        {
            selection.property = first;
        }
        ui.horizontal(|ui| {
            ui.label("channel:");
            for &property in &properties {
                ui.selectable_value(&mut selection.property, property, property.gltf_name());
            }
        });
        ui.horizontal(|ui| {
            enum_combo(
                ui,
                "overlay",
                &mut self.overlay_mode,
                &InterpolationOverride::ALL,
                |m| m.name().to_owned(),
                "Mode drawn dashed over the solid curve, for comparison",
            );
            ui.checkbox(&mut self.show_velocity, "velocity")
                .on_hover_text("Plot the rate of change (finite differences)");
            ui.checkbox(&mut self.show_acceleration, "acceleration")
                .on_hover_text("Plot the rate of change of the velocity");
        });
        ui.horizontal(|ui| {
            ui.add_enabled_ui(selection.property == Property::Rotation, |ui| {
                ui.label("rotation as:");
                ui.selectable_value(&mut self.angles, false, "quaternion").on_hover_text("x y z w components");
                ui.selectable_value(&mut self.angles, true, "angles (XYZ deg)")
                    .on_hover_text("Euler angles, unwrapped");
            });
        });

        let key = CurveKey {
            model_generation,
            clip: clip_id,
            node,
            property: selection.property,
            overlay_mode: self.overlay_mode,
            angles: self.angles,
            settings: tuning.sampling(clip_id).clone(),
        };
        if self.key.as_ref() != Some(&key) {
            self.last = curve_data(model, clip_id, &key.settings, node, key.property, self.overlay_mode, self.angles);
            self.key = Some(key);
        }
        let fit_key = (model_generation, clip_id, node, selection.property, self.angles);
        if self.fit.fitted != Some(fit_key) {
            self.fit.fitted = Some(fit_key);
            self.fit.pending = [true; 3];
        }
        let Some(data) = &self.last else {
            ui.label("No translation, rotation or scale track on this joint (morph weights are not plotted).");
            return;
        };
        let time = f64::from(shown.clip_secs);
        ui.label(format!(
            "solid: {} ({}) · dashed: {} ({}) · dots: keys{}",
            data.primary_interpolation.gltf_name(),
            data.primary_source,
            data.overlay_interpolation.gltf_name(),
            self.overlay_mode.name(),
            if data.tangent_handles.iter().any(|h| !h.is_empty()) { " · bars: tangents" } else { "" }
        ))
        .on_hover_text("Click or drag in the plot to scrub; Ctrl + wheel zooms; double-click fits");
        self.legend = data
            .component_names
            .iter()
            .enumerate()
            .map(|(c, name)| ((*name).to_owned(), super::COMPONENT_COLORS[c % super::COMPONENT_COLORS.len()]))
            .collect();
        super::legend_ui(ui, self.legend.iter().map(|(name, color)| (name.as_str(), *color)));
        let mut scrub_to = None;
        // The wheel scrolls the side panel, not the plot (Ctrl + wheel zooms; double-click fits).
        let plot = Plot::new("curve plot").height(170.0).allow_drag(false).allow_boxed_zoom(false).allow_scroll(false);
        let plot = if std::mem::take(&mut self.fit.pending[0]) { plot.reset() } else { plot };
        let response = plot.show(ui, |plot_ui| {
            for (c, name) in data.component_names.iter().enumerate() {
                let color = super::COMPONENT_COLORS[c % super::COMPONENT_COLORS.len()];
                plot_ui.line(Line::new(*name, PlotPoints::from(data.primary[c].clone())).color(color));
                plot_ui.line(
                    Line::new(
                        format!("{name} ({})", self.overlay_mode.name()),
                        PlotPoints::from(data.overlay[c].clone()),
                    )
                    .color(color.gamma_multiply(0.5))
                    .style(egui_plot::LineStyle::dashed_dense()),
                );
                plot_ui.points(
                    Points::new(format!("{name} keys"), PlotPoints::from(data.keys[c].clone()))
                        .color(color)
                        .radius(3.0),
                );
                for handle in &data.tangent_handles[c] {
                    plot_ui.line(
                        Line::new(format!("{name} tangents"), PlotPoints::from(handle.to_vec()))
                            .color(color.gamma_multiply(0.8)),
                    );
                    plot_ui.points(
                        Points::new(format!("{name} tangents"), PlotPoints::from(vec![handle[1]]))
                            .color(color)
                            .radius(2.0)
                            .filled(false),
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
        self.bounds[0] = Some(*response.transform.bounds());
        self.plot_rect = Some(response.response.rect);
        // While rewound the plot shows the stored frame: a click does not seek the live clock.
        if let Some(time) = scrub_to.filter(|_| !shown.is_rewound()) {
            transport.seek(time);
        }
        let units = if data.angles { "deg" } else { "units" };
        if self.show_velocity {
            ui.label(format!("velocity ({units}/s): {}", velocity_caption(data.primary_interpolation)));
            // A channel that barely moves fits its float noise (1e-7) to the plot's height; the
            // axes span at least what a visible motion would (`MIN_*_SPAN`).
            let floor = if data.angles { MIN_VELOCITY_SPAN_DEG } else { MIN_VELOCITY_SPAN_UNITS };
            let plot = Plot::new("velocity plot").height(120.0).allow_scroll(false).include_y(-floor).include_y(floor);
            let plot = if std::mem::take(&mut self.fit.pending[1]) { plot.reset() } else { plot };
            let response = plot.show(ui, |plot_ui| {
                for (c, name) in data.component_names.iter().enumerate() {
                    let color = super::COMPONENT_COLORS[c % super::COMPONENT_COLORS.len()];
                    plot_ui.line(Line::new(*name, PlotPoints::from(data.primary_velocity[c].clone())).color(color));
                    plot_ui.line(
                        Line::new(
                            format!("{name} ({})", self.overlay_mode.name()),
                            PlotPoints::from(data.overlay_velocity[c].clone()),
                        )
                        .color(color.gamma_multiply(0.5))
                        .style(egui_plot::LineStyle::dashed_dense()),
                    );
                }
                plot_ui.vline(VLine::new("time", time).color(egui::Color32::WHITE));
            });
            self.bounds[1] = Some(*response.transform.bounds());
        }
        if self.show_acceleration {
            ui.label(format!("acceleration ({units}/s², solid curve): spikes where the velocity jumps"));
            let floor = if data.angles { MIN_ACCELERATION_SPAN_DEG } else { MIN_ACCELERATION_SPAN_UNITS };
            let plot =
                Plot::new("acceleration plot").height(110.0).allow_scroll(false).include_y(-floor).include_y(floor);
            let plot = if std::mem::take(&mut self.fit.pending[2]) { plot.reset() } else { plot };
            let response = plot.show(ui, |plot_ui| {
                for (c, name) in data.component_names.iter().enumerate() {
                    let color = super::COMPONENT_COLORS[c % super::COMPONENT_COLORS.len()];
                    plot_ui.line(Line::new(*name, PlotPoints::from(data.primary_acceleration[c].clone())).color(color));
                }
                plot_ui.vline(VLine::new("time", time).color(egui::Color32::WHITE));
            });
            self.bounds[2] = Some(*response.transform.bounds());
        }
    }
}

/// What the velocity of a channel interpolated with `mode` looks like at its keys.
pub fn velocity_caption(mode: Interpolation) -> &'static str {
    match mode {
        Interpolation::Step => "STEP holds each key: zero between keys, a jump at every key",
        Interpolation::Linear => "LINEAR is constant between keys and jumps at every key",
        Interpolation::CubicSpline => "CUBICSPLINE is continuous where a key's in and out tangents agree",
    }
}

/// The animated node nearest to `node` in the hierarchy: its nearest animated ancestor, else
/// its first animated descendant.
fn nearest_animated(model: &Model, node: NodeId, animated: &[NodeId]) -> Option<NodeId> {
    let hierarchy = &model.hierarchy;
    let mut at = hierarchy.parent(node);
    while let Some(n) = at {
        if animated.contains(&n) {
            return Some(n);
        }
        at = hierarchy.parent(n);
    }
    let mut stack: Vec<anim::NodeId> = hierarchy.children(node).to_vec();
    let mut steps = 0;
    while let Some(n) = stack.pop() {
        steps += 1;
        if animated.contains(&n) || steps > model.nodes().len() {
            return animated.contains(&n).then_some(n);
        }
        stack.extend(hierarchy.children(n).iter().rev());
    }
    None
}

/// Sample the `property` track of `node` in the playing clip under the current settings and
/// under `overlay_mode`. `None` without such a track (or for morph weights).
pub fn curve_data(
    model: &Model,
    clip: ClipId,
    settings: &SampleSettings,
    node: NodeId,
    property: Property,
    overlay_mode: InterpolationOverride,
    angles: bool,
) -> Option<CurveData> {
    let clip = model.clip(clip)?;
    let track_index = clip.tracks().iter().position(|t| t.node == node && t.property() == property)?;
    let track = clip.tracks().get(track_index)?;
    let track_id = TrackId::from_index(track_index);
    let times = &clip.timelines().get(track.timeline)?.times_secs;
    let overlay_settings = SampleSettings { mode: overlay_mode, track_modes: Vec::new(), ..settings.clone() };
    let primary_interpolation = settings.mode_for(track_id, track.interpolation);
    let primary_source = if settings.track_modes.get(track_index).copied().flatten().is_some() {
        "channel override"
    } else if settings.mode == InterpolationOverride::Authored {
        "authored"
    } else {
        "override"
    };
    let overlay_interpolation = overlay_settings.mode_for(track_id, track.interpolation);
    let end = f64::from(clip.end_secs().max(1e-3));
    let sample_times: Vec<f32> = (0..=SAMPLES).map(|i| (end * i as f64 / SAMPLES as f64) as f32).collect();
    let sample = |settings: &SampleSettings| -> Option<Vec<Vec4>> {
        let mut weights = vec![0.0; model.weight_count];
        let mut previous = Quat::IDENTITY;
        sample_times
            .iter()
            .map(|&t| match clip.evaluate_track(track_id, t, settings, &mut weights)? {
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
    let primary = sample(settings)?;
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
        track: track_id,
        component_names,
        primary_acceleration: velocity(&primary_velocity),
        primary_velocity,
        overlay_velocity: velocity(&overlay),
        primary,
        overlay,
        keys,
        tangent_handles,
        angles,
        primary_interpolation,
        primary_source,
        overlay_interpolation,
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

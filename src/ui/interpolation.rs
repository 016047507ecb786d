//! The Interpolation panel: override for every clip, rotation and scale spaces, easing, the
//! selected channel's own override, "Reset to authored", and a live readout of what a "wrong"
//! space does to the current pose.

use anim::{Easing, InterpolationOverride, Model, RotationSpace, ScaleSpace};

use super::enum_combo;
use crate::stage::sampling::wrong_space_effect;
use crate::stage::selection::Selection;
use crate::stage::transport::Transport;
use crate::stage::tuning::Tuning;

/// The Interpolation panel is the tuning's own: its settings live in [`Tuning`].
impl Tuning {
    /// The selectors, the channel override and the readout; changes apply to the next frame.
    /// Returns true when "Bake to file…" was clicked (the viewer asks where).
    pub fn interpolation_ui(
        &mut self,
        ui: &mut egui::Ui,
        model: &Model,
        transport: &Transport,
        selection: &Selection,
    ) -> bool {
        let tuning = self;
        let mut settings = tuning.interpolation();
        let mut changed = enum_combo(
            ui,
            "override",
            &mut settings.mode,
            &InterpolationOverride::ALL,
            |m| m.name().to_owned(),
            "Sample every clip with this mode instead of the file's (authored: as the file says)",
        );
        changed |= enum_combo(
            ui,
            "rotation space",
            &mut settings.rotation_space,
            &RotationSpace::ALL,
            |m| m.name().to_owned(),
            "How LINEAR rotations are interpolated: slerp is right; nlerp, squad, matrix-lerp and euler-lerp \
             show what engines get wrong (matrix-lerp shrinks limbs, euler-lerp takes detours)",
        );
        changed |= enum_combo(
            ui,
            "scale space",
            &mut settings.scale_space,
            &ScaleSpace::ALL,
            |m| m.name().to_owned(),
            "How LINEAR scales are interpolated: linear (the spec) or in log space",
        );
        changed |= enum_combo(
            ui,
            "easing",
            &mut settings.easing,
            &Easing::ALL,
            |m| m.name().to_owned(),
            "Reshape the time inside every key interval (linear: the spec)",
        );
        if changed {
            tuning.set_interpolation(settings);
        }
        channel_override_ui(ui, model, tuning, transport.clip(), selection);
        ui.horizontal(|ui| {
            let authored = tuning.samples_as_authored();
            if ui
                .add_enabled(!authored, egui::Button::new("Reset to authored"))
                .on_hover_text("Back to the file's own interpolation: no override, slerp, linear scale, linear easing, no channel override (undo with Ctrl+Z)")
                .clicked()
            {
                tuning.reset_interpolation_to_authored();
            }
            ui.weak(if authored { "sampling as authored" } else { "sampling differs from the file" });
        });
        let bake = ui
            .add_enabled(
                !tuning.samples_as_authored() && transport.clip().is_some(),
                egui::Button::new("Bake to file…"),
            )
            .on_hover_text(
                "Write a copy of the model whose clip, played by any glTF viewer, looks as it does here: the \
                 override (and channel overrides) as glTF keys; spaces and easing glTF cannot express are resampled \
                 at 60 fps. The rest of the file is kept.",
            )
            .on_disabled_hover_text("Choose an override first: the clip already plays as authored")
            .clicked();
        colour_space_strip_ui(ui);
        ui.weak("Spaces and easing apply where the mode is LINEAR.");
        wrong_space_readout_ui(ui, model, tuning, transport);
        bake
    }
}

/// What the chosen spaces do at the current time (three lines, always, so the panel below does
/// not move).
fn wrong_space_readout_ui(ui: &mut egui::Ui, model: &Model, tuning: &Tuning, transport: &Transport) {
    let effect = transport.clip().and_then(|c| wrong_space_effect(model, c, transport.time_secs(), tuning.sampling(c)));
    let warn = ui.visuals().warn_fg_color;
    let Some(effect) = effect else {
        ui.label("No clip: nothing to interpolate.");
        return;
    };
    let name =
        |node: Option<anim::NodeId>| node.map(|n| crate::profile::node_display_name(model, n)).unwrap_or_default();
    if effect.min_shrink < 0.999 {
        ui.colored_label(
            warn,
            format!("limbs shrink to {:.0}% ({})", effect.min_shrink * 100.0, name(effect.shrink_node)),
        );
    } else {
        ui.weak("no limb shrinks");
    }
    if effect.max_rotation_error_rad > 1e-4 {
        ui.colored_label(
            warn,
            format!(
                "rotations off slerp by up to {:.2}° ({})",
                effect.max_rotation_error_rad.to_degrees(),
                name(effect.rotation_node)
            ),
        );
    } else {
        ui.weak("rotations match slerp");
    }
    if effect.max_scale_error > 1e-4 {
        ui.colored_label(warn, format!("scales off linear by up to {:.1}%", effect.max_scale_error * 100.0));
    } else {
        ui.weak("scales match linear interpolation");
    }
}

/// Override for the selected channel alone (the joint and channel picked in the curves panel
/// or the 3D view), and the count of overrides in the model.
fn channel_override_ui(
    ui: &mut egui::Ui,
    model: &Model,
    tuning: &mut Tuning,
    clip: Option<anim::ClipId>,
    selection: &Selection,
) {
    let track = selection.track(model, clip);
    let node = selection.joint.map(|n| crate::profile::node_display_name(model, n)).unwrap_or_default();
    let current = clip.zip(track).and_then(|(c, t)| tuning.channel_mode(c, t));
    let mut choice = current;
    ui.add_enabled_ui(track.is_some(), |ui| {
        egui::ComboBox::from_label("channel override")
            .selected_text(choice.map_or("same as clip", InterpolationOverride::name))
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut choice, None, "same as clip");
                for mode in InterpolationOverride::ALL {
                    ui.selectable_value(&mut choice, Some(mode), mode.name());
                }
            })
            .response
            .on_hover_text("Interpolation of the selected channel alone, in this clip (saved in the profile)")
            .on_disabled_hover_text("Select an animated joint and channel (Curves, or click in the 3D view)");
    });
    super::status_line(
        ui,
        match track {
            Some(_) => format!("for {node} {} in this clip", selection.property.gltf_name()),
            None => "select an animated joint and channel (Curves) to override it alone".to_owned(),
        },
    );
    if let (Some(clip), Some(track)) = (clip, track)
        && choice != current
    {
        tuning.set_channel_mode(clip, track, choice);
    }
    let overridden = tuning.channel_override_count();
    ui.horizontal(|ui| {
        ui.weak(format!("{overridden} channel override(s) in this model"));
        if ui
            .add_enabled(overridden > 0, egui::Button::new("Clear all").small())
            .on_hover_text("Remove every per-channel override of this model")
            .clicked()
        {
            tuning.clear_channel_modes();
        }
    });
}

/// The same fade (saturated red to saturated green-blue) lerped on sRGB-encoded bytes (top) and
/// in linear light (bottom): the sRGB lerp sags into a dark, muddy middle.
fn colour_space_strip_ui(ui: &mut egui::Ui) {
    const STEPS: usize = 48;
    let from = [0.95f32, 0.1, 0.1];
    let to = [0.1f32, 0.8, 0.95];
    ui.label("Colour fade: top lerped in sRGB, bottom in linear light");
    let (rect, _) = ui.allocate_exact_size(egui::vec2(ui.available_width().min(320.0), 28.0), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    for i in 0..STEPS {
        let u = i as f32 / (STEPS - 1) as f32;
        let x0 = rect.left() + rect.width() * i as f32 / STEPS as f32;
        let x1 = rect.left() + rect.width() * (i + 1) as f32 / STEPS as f32;
        let [top, bottom] = fade_colours(from, to, u);
        let half = rect.center().y;
        painter.rect_filled(egui::Rect::from_x_y_ranges(x0..=x1, rect.top()..=half), 0.0, top);
        painter.rect_filled(egui::Rect::from_x_y_ranges(x0..=x1, half..=rect.bottom()), 0.0, bottom);
    }
}

/// `[sRGB-space lerp, linear-light lerp]` of two sRGB-encoded colours (components in 0..1) at
/// `u`, as displayable colours.
pub fn fade_colours(from: [f32; 3], to: [f32; 3], u: f32) -> [egui::Color32; 2] {
    let byte = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    let srgb = [0, 1, 2].map(|c| from[c] + (to[c] - from[c]) * u);
    let linear = [0, 1, 2].map(|c| {
        let (a, b) = (srgb_to_linear(from[c]), srgb_to_linear(to[c]));
        linear_to_srgb(a + (b - a) * u)
    });
    [
        egui::Color32::from_rgb(byte(srgb[0]), byte(srgb[1]), byte(srgb[2])),
        egui::Color32::from_rgb(byte(linear[0]), byte(linear[1]), byte(linear[2])),
    ]
}

/// The sRGB transfer function, decoded (IEC 61966-2-1).
pub fn srgb_to_linear(v: f32) -> f32 {
    if v <= 0.04045 { v / 12.92 } else { ((v + 0.055) / 1.055).powf(2.4) }
}

/// The sRGB transfer function, encoded.
pub fn linear_to_srgb(v: f32) -> f32 {
    if v <= 0.003_130_8 { v * 12.92 } else { 1.055 * v.powf(1.0 / 2.4) - 0.055 }
}

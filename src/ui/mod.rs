//! The interactive viewer (egui): [`Viewer`] owns the model on screen and the parts that own
//! everything else; each panel is a struct that owns its state and has a `..._ui` method. Tests
//! drive it headless with `egui_kittest` (no window, no GPU).
//!
//! | module | owns | may import |
//! |---|---|---|
//! | [`viewer`] | [`Viewer`]: the model, the parts below, the layout, shortcuts, operations across parts (fade, handoff, get-up, open model) | everything below |
//! | [`playback`] | [`playback::Playback`]: clip, time, transport, the cross-fader, fade weight history; clip list and transport bar | anim, egui |
//! | [`tuning`] | [`tuning::Tuning`]: every tunable of the model (saved in its profile); [`tuning::TuningHistory`]: undo/redo | anim |
//! | [`profiles`] | [`profiles::ProfileStore`]: the model's profile file (by identity), load/save/export/import; Profile section | `crate::profile`, egui |
//! | [`frame`] | [`frame::FrameOutput`]: the frame's poses and model-space matrices, heat, collider lines; sampling, blending and local→model of the frame; picking (`pick_nearest_joint`, the one rule) | anim, render (framing, overlay lines), [`sampling`] |
//! | [`sampling`] | the viewer's pose jobs shared by the frame and the compare view: a clip sampled into a pose, pose and clip-wide deviation, the wrong-space effect | anim |
//! | [`selection`] | the selected joint and channel | anim |
//! | [`interpolation`] | Interpolation panel (override, spaces, easing, channel override, reset to authored, wrong-space readout) | egui, [`tuning`], [`sampling`] |
//! | [`curves`] | Curves panel: channel curves, keys, tangents, velocity, acceleration (`egui_plot`), refit on change | egui, `egui_plot` |
//! | [`pointer_curves`] | the clip's `KHR_animation_pointer` property tracks, plotted in the Curves panel | egui, `egui_plot`, anim |
//! | [`crossfade`] | Cross-fade panel: target clip, the pair's fade, trigger, weight plot, transition table | egui, `egui_plot`, [`tuning`] |
//! | [`compare`] | [`compare::Compare`]: two modes side by side or ghosted, heatmap, deviation now and clip-wide | egui, [`sampling`] |
//! | [`ab_view`] | [`ab_view::AbView`]: a second file (B) beside the model on screen: loaded in the background, joints matched by name, the changed joints over the clip, heat on A; a click in B's half picked on B's pose | egui, `crate::ab`, render (camera), [`compare`], [`frame`] (picking), [`loading`] |
//! | [`ragdoll`] | [`ragdoll::RagdollView`]: controller, placement, colliders, history; Ragdoll panel | egui, `egui_plot`, physics |
//! | [`crowd`] | Crowd panel and the crowd | egui, `crate::crowd` |
//! | [`joints`] | the node hierarchy as a tree; selects a joint | egui |
//! | [`viewport`] | the 3D view widget: camera, texture, orbit/pan/zoom, clicks (`ViewClick`) | egui, render (camera), [`frame`] |
//! | [`overlays`] | skeleton toggle, Stats overlay | egui, [`stats`] |
//! | [`stats`] | frame statistics (CPU ms per frame, RSS) for the overlay and `--stats-out` | serde |
//! | [`file_menu`] | File menu, path field, native dialogs with a path-field fallback, File ▸ Recent | egui, rfd |
//! | [`hot_reload`] | [`hot_reload::HotReload`]: the open file watched, reloads in the background, counts; toggle and status line | egui, `crate::watch`, [`loading`] |
//! | [`recorder`] | [`recorder::RecordPanel`]: Record clip — options, the recording on its own thread, progress | egui, `crate::record`, render (shot) |
//! | [`loading`] | background model loading with progress (std threads; no egui) | anim |
//! | [`gpu_bridge`] | the only egui ↔ renderer bridge: renders the frame output into a texture egui shows | `egui_wgpu`, render |
//!
//! The window shell is `crate::app` (winit).

pub mod ab_view;
pub mod compare;
pub mod crossfade;
pub mod crowd;
pub mod curves;
pub mod file_menu;
pub mod frame;
pub mod gpu_bridge;
pub mod hot_reload;
pub mod interpolation;
pub mod joints;
pub mod kind_compare;
pub mod loading;
pub mod overlays;
pub mod playback;
pub mod pointer_curves;
pub mod profiles;
pub mod ragdoll;
pub mod recorder;
pub mod sampling;
pub mod selection;
pub mod shortcuts;
pub mod stats;
pub mod tuning;
pub mod viewer;
pub mod viewport;

pub use viewer::{ModelSource, Panel, Viewer};

/// Colours of the components x, y, z, w (the legend uses the same).
pub const COMPONENT_COLORS: [egui::Color32; 4] = [
    egui::Color32::from_rgb(230, 80, 80),
    egui::Color32::from_rgb(80, 200, 80),
    egui::Color32::from_rgb(90, 140, 240),
    egui::Color32::from_rgb(220, 200, 80),
];

/// Colours of plotted series (weights per clip, easing), in order.
pub const SERIES_COLORS: [egui::Color32; 6] = [
    egui::Color32::from_rgb(90, 170, 250),
    egui::Color32::from_rgb(250, 150, 60),
    egui::Color32::from_rgb(120, 220, 120),
    egui::Color32::from_rgb(230, 110, 200),
    egui::Color32::from_rgb(240, 220, 90),
    egui::Color32::from_rgb(150, 130, 250),
];

/// A fixed plot of weights in `[0, 1]` over the last `span_secs` of the viewer clock: each
/// series is a label, its colour and `[seconds before now, weight]` points; the legend above
/// the plot carries the colours.
pub(crate) fn weight_history_ui(
    ui: &mut egui::Ui,
    id: &str,
    series: &[(String, egui::Color32, Vec<[f64; 2]>)],
    span_secs: f64,
) {
    legend_ui(ui, series.iter().map(|(label, color, _)| (label.as_str(), *color)));
    egui_plot::Plot::new(id)
        .height(85.0)
        .include_x(-span_secs)
        .include_x(0.0)
        .include_y(0.0)
        .include_y(1.0)
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .show(ui, |plot_ui| {
            for (label, color, points) in series {
                plot_ui.line(
                    egui_plot::Line::new(label.as_str(), egui_plot::PlotPoints::from(points.clone())).color(*color),
                );
            }
            plot_ui.vline(egui_plot::VLine::new("now", 0.0).color(egui::Color32::GRAY));
        });
}

/// A status line that may change while the user works: one line always (cut with "…", the
/// whole text on hover), so that nothing below it moves when it changes.
pub(crate) fn status_line(ui: &mut egui::Ui, text: impl Into<String>) -> egui::Response {
    let text = text.into();
    ui.add(egui::Label::new(egui::RichText::new(text.as_str()).weak()).truncate()).on_hover_text(text)
}

/// A legend above a plot: each series' name in its colour after a short line of it.
pub(crate) fn legend_ui<'a>(ui: &mut egui::Ui, entries: impl IntoIterator<Item = (&'a str, egui::Color32)>) {
    ui.horizontal_wrapped(|ui| {
        for (label, color) in entries {
            let (rect, _) = ui.allocate_exact_size(egui::vec2(16.0, 10.0), egui::Sense::hover());
            ui.painter().hline(rect.x_range(), rect.center().y, egui::Stroke::new(2.5, color));
            ui.colored_label(color, label);
        }
    });
}

/// A combo box choosing one of the model's clips (by index into `names`), explained by `hover`.
pub(crate) fn clip_combo(ui: &mut egui::Ui, label: &str, clip: &mut usize, names: &[String], hover: &str) {
    egui::ComboBox::from_label(label)
        .selected_text(names.get(*clip).cloned().unwrap_or_default())
        .show_ui(ui, |ui| {
            for (i, name) in names.iter().enumerate() {
                ui.selectable_value(clip, i, name);
            }
        })
        .response
        .on_hover_text(hover);
}

/// A combo box over `options`, showing each with `name`, explained by `hover`. Returns true
/// when the value changed.
pub(crate) fn enum_combo<T: Copy + PartialEq>(
    ui: &mut egui::Ui,
    label: &str,
    value: &mut T,
    options: &[T],
    name: impl Fn(T) -> String,
    hover: &str,
) -> bool {
    let before = *value;
    egui::ComboBox::from_label(label)
        .selected_text(name(*value))
        .show_ui(ui, |ui| {
            for &option in options {
                ui.selectable_value(value, option, name(option));
            }
        })
        .response
        .on_hover_text(hover);
    *value != before
}

#[cfg(test)]
mod tests;

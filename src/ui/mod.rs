//! The interactive viewer (egui): [`Viewer`] holds the [`crate::stage::Stage`] (the character,
//! its clock and everything about it, with no egui) and the panels that draw it and return what
//! the user did. Tests drive it headless with `egui_kittest` (no window, no GPU). What each
//! module owns and may import is in ARCHITECTURE.md (the one map; the architecture test checks
//! it); the window shell is `crate::app` (winit).

pub mod ab_view;
pub mod blend_space;
pub mod compare;
pub mod crossfade;
pub mod crowd;
pub mod curves;
pub mod file_menu;
pub mod gpu_bridge;
pub mod hot_reload;
pub mod interpolation;
pub mod joints;
pub mod kind_compare;
pub mod layers;
pub mod machine;
pub mod machine_edit;
pub mod machine_graph;
pub mod machine_keys;
pub mod overlays;
pub mod playback;
pub mod pointer_curves;
pub mod profiles;
pub mod ragdoll;
pub mod recorder;
pub mod retarget;
pub mod rewind;
pub mod shortcuts;
pub mod viewer;
pub mod viewport;

pub use crate::stage::ModelSource;
pub use viewer::{Panel, Viewer};

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
pub(crate) fn clip_combo(ui: &mut egui::Ui, label: &str, clip: &mut anim::ClipId, names: &[String], hover: &str) {
    egui::ComboBox::from_label(label)
        .selected_text(names.get(clip.index()).cloned().unwrap_or_default())
        .show_ui(ui, |ui| {
            for (i, name) in names.iter().enumerate() {
                ui.selectable_value(clip, anim::ClipId::from_index(i), name);
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

//! The kind-compare controls: two transition kinds side by side on the stage's
//! [`KindCompare`], its trigger time and the overlaid joint-speed plot.

use anim::TransitionKind;
use egui_plot::{Line, Plot, PlotPoints, VLine};

use super::{SERIES_COLORS, enum_combo};
use crate::stage::kind_compare::KindCompare;

/// The toggle, the two kinds, the trigger time and the overlaid joint-speed plot.
pub fn kinds_ui(kinds: &mut KindCompare, ui: &mut egui::Ui, pair: &str, source_secs: f32) {
    ui.checkbox(&mut kinds.enabled, "compare two transition kinds")
        .on_hover_text(format!("Replay {pair} in a loop with two kinds side by side (same trigger time and tuning)"));
    let names = |k: TransitionKind| k.name().to_owned();
    enum_combo(ui, "left kind", &mut kinds.left, &TransitionKind::ALL, names, "Kind of the left view");
    enum_combo(ui, "right kind", &mut kinds.right, &TransitionKind::ALL, names, "Kind of the right view");
    ui.add(
        egui::Slider::new(&mut kinds.at_secs, 0.0..=source_secs.max(0.01))
            .update_while_editing(false)
            .text("trigger at")
            .suffix(" s"),
    )
    .on_hover_text("Source clip time of the trigger");
    if !kinds.enabled {
        return;
    }
    ui.label(format!("{pair}: largest joint speed (units/s), trigger at 0"));
    let line = |i: usize, name: &str| {
        let points: Vec<[f64; 2]> = kinds.speeds().iter().map(|s| [f64::from(s[0]), f64::from(s[i])]).collect();
        Line::new(name.to_owned(), PlotPoints::from(points)).color(SERIES_COLORS[i - 1])
    };
    let (left, right) = (format!("left: {}", kinds.left.name()), format!("right: {}", kinds.right.name()));
    Plot::new("kind compare speeds").height(120.0).legend(egui_plot::Legend::default()).show(ui, |plot| {
        plot.line(line(1, &left));
        plot.line(line(2, &right));
        plot.vline(VLine::new("trigger", 0.0).color(egui::Color32::GRAY));
    });
}

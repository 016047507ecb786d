//! The rewind bar: a slim strip under the timeline that scrubs back through the stage's last
//! seconds of frames ([`crate::stage::rewind`]), with a tick per stored event, and a "Live"
//! button (or Esc, `ShortcutAction::ResumeLive`) that returns to the live state; ← and → step
//! one stored frame while rewound (`Viewer::run_shortcut`).

use crate::stage::Stage;

/// The rewind bar: a slider over −held..0 seconds (dragging it shows that frame and holds the
/// live clock), event ticks under it, the position, and "Live".
pub fn rewind_bar_ui(ui: &mut egui::Ui, stage: &mut Stage) {
    let held = stage.rewind().held_secs();
    let rewound = stage.rewind().scrub_secs_before_live();
    ui.horizontal(|ui| {
        ui.label("Rewind").on_hover_text(format!(
            "The last {:.0} s of frames; {:.0} KiB",
            crate::stage::rewind::REWIND_SECS,
            stage.rewind().memory_kib()
        ));
        let mut secs = -rewound.unwrap_or(0.0);
        ui.spacing_mut().slider_width = (ui.available_width() - 150.0).max(50.0);
        let response = ui.add_enabled(
            held > 0.0,
            egui::Slider::new(&mut secs, -held.max(1e-3)..=0.0)
                .show_value(false)
                .clamping(egui::SliderClamping::Always),
        );
        response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Slider, held > 0.0, "rewind bar"));
        let response = response.on_hover_text("Drag to look back at what was shown; ticks are events");
        if held > 0.0 {
            // Ticks where events fired, on the slider's rail (the handle's centre stays a
            // radius inside the rect at both ends).
            let rail = response.rect.shrink2(egui::vec2(response.rect.height() / 2.0, 0.0));
            let painter = ui.painter();
            let color = ui.visuals().warn_fg_color;
            for (before, _) in stage.rewind().events() {
                let x = rail.right() - rail.width() * (before / held) as f32;
                painter.vline(x, rail.bottom() - 4.0..=rail.bottom(), egui::Stroke::new(1.5, color));
            }
        }
        if response.changed() {
            stage.rewind_to(-secs);
        }
        ui.label(match stage.rewind().scrub_secs_before_live() {
            Some(before) => rewound_label(before),
            None => "live".to_owned(),
        });
        if ui
            .add_enabled(stage.is_rewound(), egui::Button::new("Live"))
            .on_hover_text("Back to the live state, the clock resuming where it held (Esc)")
            .clicked()
        {
            stage.resume_live();
        }
    });
}

/// How every panel marks what it shows while rewound: `rewound −1.25 s`.
pub fn rewound_label(secs_before_live: f64) -> String {
    format!("rewound −{secs_before_live:.2} s")
}

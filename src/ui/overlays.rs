//! [`Overlays`]: what is drawn over the 3D view besides the model — the skeleton, and the Stats
//! overlay (frame times, each frame's phases and resident memory, the same numbers `--stats-out`
//! writes).

use crate::stage::stats::{FrameStats, Phase};

/// Overlay toggles and the frame statistics they show.
#[derive(Debug, Clone)]
pub struct Overlays {
    /// Draw bones and joints over the mesh (K).
    pub skeleton: bool,
    /// Draw the root's trajectory on the ground.
    pub trajectory: bool,
    /// Show the Stats overlay (F3).
    pub stats_visible: bool,
    /// Frame statistics, recorded by the window shell every frame.
    pub stats: FrameStats,
}

impl Default for Overlays {
    fn default() -> Self {
        Self {
            skeleton: false,
            trajectory: false,
            stats_visible: false,
            stats: FrameStats::new(std::time::Duration::from_secs(10)),
        }
    }
}

impl Overlays {
    /// The lines of the Stats overlay.
    pub fn stats_lines(&self, model: &str, profile: &str) -> Vec<String> {
        let mut lines = Vec::new();
        match self.stats.recent_frame_times() {
            Some(t) => lines.push(format!("CPU {:.1} ms/frame median, {:.1} p95 (last 120)", t.median, t.p95)),
            None => lines.push("CPU: no frame yet".to_owned()),
        }
        if let Some(t) = self.stats.recent_phase_times(None) {
            lines.push(format!("frame less present wait {:.2} ms median, {:.2} p95", t.median, t.p95));
        }
        for phase in Phase::ALL {
            if let Some(t) = self.stats.recent_phase_times(Some(phase)) {
                lines.push(format!("  {:<18} {:>6.2} ms median, {:>6.2} p95", phase.label(), t.median, t.p95));
            }
        }
        if let Some(t) = self.stats.recent_frame_intervals() {
            lines.push(format!(
                "{:.1} frames/s ({:.0} ms median between frames)",
                1000.0 / t.median.max(1e-3),
                t.median
            ));
        }
        let memory = self.stats.resident();
        let mib = |kib: u64| kib as f64 / 1024.0;
        match (memory.end, memory.after_warmup, memory.peak) {
            (Some(now), Some(warm), Some(peak)) => lines.push(format!(
                "RSS {:.1} MiB ({:+.1} since warm-up, peak {:.1}); {} frames counted",
                mib(now),
                mib(now) - mib(warm),
                mib(peak),
                self.stats.frames()
            )),
            (Some(now), _, _) => lines.push(format!("RSS {:.1} MiB (warming up)", mib(now))),
            _ => lines.push("RSS: not reported by this OS".to_owned()),
        }
        lines.push(format!("model: {model}"));
        lines.push(format!("profile: {profile}"));
        lines
    }

    /// Where the Stats overlay goes in the view `rect` for `lines`: the top right corner, moved
    /// down below any of `avoid` (the view's labels) it would cover.
    pub fn stats_panel_rect(rect: egui::Rect, lines: &[String], avoid: &[egui::Rect]) -> egui::Rect {
        let line_height = 15.0;
        let width = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0) as f32 * 7.3 + 16.0;
        let width = width.min(rect.width() - 16.0);
        let height = lines.len() as f32 * line_height + 10.0;
        let top_right = rect.right_top() + egui::vec2(-8.0, 8.0);
        let mut panel = egui::Rect::from_min_size(top_right - egui::vec2(width, 0.0), egui::vec2(width, height));
        for label in avoid.iter().filter(|l| l.is_positive()) {
            if panel.intersects(*label) {
                panel = panel.translate(egui::vec2(0.0, label.bottom() + 6.0 - panel.top()));
            }
        }
        panel
    }

    /// Paint the Stats overlay in the top right corner of `rect`, below the view labels `avoid`.
    pub fn stats_ui(
        &self,
        painter: &egui::Painter,
        rect: egui::Rect,
        model: &str,
        profile: &str,
        avoid: &[egui::Rect],
    ) {
        let lines = self.stats_lines(model, profile);
        let font = egui::FontId::monospace(12.0);
        let line_height = 15.0;
        let panel = Self::stats_panel_rect(rect, &lines, avoid);
        painter.rect_filled(panel, 4.0, egui::Color32::from_black_alpha(170));
        for (i, line) in lines.iter().enumerate() {
            painter.text(
                panel.left_top() + egui::vec2(8.0, 5.0 + i as f32 * line_height),
                egui::Align2::LEFT_TOP,
                line,
                font.clone(),
                egui::Color32::from_gray(230),
            );
        }
    }
}

//! [`RecordPanel`]: "Record clip" — the playing clip recorded as the 3D view shows it (the
//! interpolation settings, compare split or ghost, heatmap, skeleton) into an animated GIF, PNG
//! frames or an MP4 ([`crate::record`], the same code as `animtune record`), on its own thread
//! with a progress bar and Cancel.

use std::path::Path;

use anim::{ClipId, Model};

use crate::record::{OutputKind, RecordJob, RecordSpec};
use crate::render::shot::ShotSpec;

/// The recording options and the recording in progress.
#[derive(Debug)]
pub struct RecordPanel {
    /// What to write (the suggested file name follows it; the chosen path decides).
    pub kind: OutputKind,
    /// Frames per second.
    pub fps: u32,
    /// Frame width in pixels.
    pub width: u32,
    /// Frame height in pixels.
    pub height: u32,
    /// Record the whole clip (else `from_secs` to `to_secs`).
    pub whole_clip: bool,
    /// Start of a partial range, seconds.
    pub from_secs: f32,
    /// End of a partial range, seconds.
    pub to_secs: f32,
    /// The recording in progress.
    pub job: Option<RecordJob>,
    ffmpeg: Option<bool>,
}

impl Default for RecordPanel {
    fn default() -> Self {
        Self {
            kind: OutputKind::Gif,
            fps: 30,
            width: 640,
            height: 360,
            whole_clip: true,
            from_secs: 0.0,
            to_secs: 1.0,
            job: None,
            ffmpeg: None,
        }
    }
}

/// What the view shows, for the recording's shot.
#[derive(Debug, Clone, Copy)]
pub struct ViewState<'a> {
    /// The playing clip.
    pub clip: ClipId,
    /// How it is sampled.
    pub settings: &'a anim::SampleSettings,
    /// The compare view, when on.
    pub compare: Option<crate::stage::compare::CompareModes>,
    /// Skeleton overlay and its selected joint.
    pub skeleton: Option<Option<anim::NodeId>>,
    /// The view's camera (the recording is drawn from where the user looks).
    pub camera: crate::render::OrbitCamera,
}

impl RecordPanel {
    /// The options, the Record button (true when clicked: the viewer asks where) and the
    /// progress of a recording.
    pub fn record_ui(&mut self, ui: &mut egui::Ui, clip: Option<(&str, f32)>) -> bool {
        let ffmpeg = *self.ffmpeg.get_or_insert_with(crate::record::ffmpeg_available);
        ui.horizontal(|ui| {
            ui.radio_value(&mut self.kind, OutputKind::Gif, "GIF")
                .on_hover_text("An animated GIF that loops at the clip's speed");
            ui.radio_value(&mut self.kind, OutputKind::PngSequence, "PNG frames")
                .on_hover_text("A folder of numbered PNGs");
            ui.add_enabled_ui(ffmpeg, |ui| {
                ui.radio_value(&mut self.kind, OutputKind::Mp4, "MP4")
                    .on_hover_text("H.264 through ffmpeg")
                    .on_disabled_hover_text("MP4 needs ffmpeg on the PATH (apt-get install ffmpeg)");
            });
        });
        ui.horizontal(|ui| {
            let max_fps = if self.kind == OutputKind::Gif { crate::record::MAX_GIF_FPS } else { 120 };
            self.fps = self.fps.min(max_fps);
            ui.add(egui::DragValue::new(&mut self.fps).update_while_editing(false).range(1..=max_fps).suffix(" fps"));
            ui.add(egui::DragValue::new(&mut self.width).update_while_editing(false).range(16..=3840).suffix(" px"));
            ui.label("×");
            ui.add(egui::DragValue::new(&mut self.height).update_while_editing(false).range(16..=2160).suffix(" px"));
        });
        let end = clip.map_or(0.0, |(_, end)| end);
        if self.whole_clip {
            // The range shown is the one recorded: the playing clip's, whatever it was before.
            (self.from_secs, self.to_secs) = (0.0, end);
        }
        ui.horizontal(|ui| {
            ui.checkbox(&mut self.whole_clip, "whole clip");
            ui.add_enabled_ui(!self.whole_clip, |ui| {
                ui.add(
                    egui::DragValue::new(&mut self.from_secs)
                        .update_while_editing(false)
                        .range(0.0..=end.max(0.0))
                        .speed(0.01)
                        .suffix(" s"),
                );
                ui.label("to");
                ui.add(
                    egui::DragValue::new(&mut self.to_secs)
                        .update_while_editing(false)
                        .range(0.0..=(end * 4.0).max(0.01))
                        .speed(0.01)
                        .suffix(" s"),
                )
                .on_hover_text("Past the clip's end the clip loops, as when it plays");
            });
        });
        let mut start = false;
        match &self.job {
            Some(job) => {
                let (done, total) = job.progress();
                let mut cancel = false;
                ui.horizontal(|ui| {
                    let fraction = if total > 0 { done as f32 / total as f32 } else { 0.0 };
                    ui.add(
                        egui::ProgressBar::new(fraction).desired_width(200.0).text(format!("frame {done} of {total}")),
                    );
                    cancel = ui.small_button("Cancel").clicked();
                });
                if cancel {
                    job.cancel();
                }
            }
            None => {
                let label = clip.map_or_else(|| "Record clip…".to_owned(), |(name, _)| format!("Record \"{name}\"…"));
                start = ui
                    .add_enabled(clip.is_some(), egui::Button::new(label))
                    .on_hover_text(
                        "Render the clip as this view shows it (modes, compare, heatmap, skeleton) frame by frame",
                    )
                    .on_disabled_hover_text("No clip to record")
                    .clicked();
            }
        }
        start
    }

    /// A suggested output for `name`: `NAME.gif`, `NAME.mp4` or the folder `NAME-frames`.
    pub fn suggested_name(&self, name: &str) -> String {
        match self.kind {
            OutputKind::Gif => format!("{name}.gif"),
            OutputKind::Mp4 => format!("{name}.mp4"),
            OutputKind::PngSequence => format!("{name}-frames/"),
        }
    }

    /// Start recording `view` of `model` into `out`.
    ///
    /// # Errors
    /// An output the path does not name (an unknown extension).
    pub fn start(&mut self, model: &Model, view: ViewState<'_>, out: &Path) -> anyhow::Result<()> {
        let kind = OutputKind::from_path(out)?;
        let end = model.clip(view.clip).map_or(0.0, anim::Clip::end_secs);
        let (from_secs, to_secs) = if self.whole_clip { (0.0, end) } else { (self.from_secs, self.to_secs) };
        let spec = RecordSpec {
            shot: ShotSpec {
                settings: view.settings.clone(),
                compare: view.compare.map(|m| (m.left, m.right)),
                compare_ghost: view.compare.is_some_and(|m| m.layout == crate::stage::compare::CompareLayout::Ghost),
                heatmap: view.compare.is_some_and(|m| m.heatmap),
                heat_full_scale: view
                    .compare
                    .map_or(crate::render::shot::DEFAULT_HEAT_FULL_SCALE, |m| m.heat_full_scale),
                skeleton: view.skeleton.is_some(),
                selected_joint: view.skeleton.flatten(),
                camera: Some(view.camera),
                ..ShotSpec::new(Some(view.clip), self.width, self.height)
            },
            from_secs,
            to_secs,
            fps: self.fps,
            out: out.to_path_buf(),
            kind,
        };
        if let Some(job) = self.job.take() {
            job.cancel();
        }
        self.job = Some(RecordJob::start(model.clone(), spec));
        Ok(())
    }

    /// Stop the recording in progress (its partial output is removed).
    pub fn cancel(&mut self) {
        if let Some(job) = self.job.take() {
            job.cancel();
        }
    }

    /// What the recording in progress renders (its shot, range and output).
    pub fn recording(&self) -> Option<&RecordSpec> {
        self.job.as_ref().map(|job| &job.spec)
    }

    /// A finished recording's outcome, as a sentence for the status.
    pub fn poll(&mut self) -> Option<Result<String, String>> {
        let outcome = self.job.as_ref()?.poll()?;
        let job = self.job.take()?;
        Some(outcome.map(|r| {
            format!(
                "Recorded {} frames into {} ({}, plays {:.2} s)",
                r.frames,
                job.spec.out.display(),
                r.kind,
                r.duration_secs
            )
        }))
    }
}

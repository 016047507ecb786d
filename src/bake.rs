//! Baking an interpolation choice back into the asset — the one implementation behind
//! `animtune bake` and the viewer's "Bake to file…": the clip converted to the settings' modes
//! ([`anim::bake::bake_clip`]) or resampled ([`anim::bake::resample_clip`]), written into a
//! copy of the source file ([`anim::export::replace_clip`]), read back with the decoders and
//! compared with what the settings sample at many times.

use anim::bake::{Deviation, bake_clip, compare_clips, resample_clip};
use anim::{ClipId, Model, SampleSettings};
use anyhow::Context as _;

/// A baked file and how close it is.
#[derive(Debug, Clone)]
pub struct Baked {
    /// The `.glb` bytes.
    pub glb: Vec<u8>,
    /// Channels rewritten.
    pub channels: usize,
    /// Keys written over the clip's timelines.
    pub keys: usize,
    /// Times at which the written clip was compared with the settings' sampling.
    pub checked_times: usize,
    /// Largest difference found, per property.
    pub deviation: Deviation,
}

/// The times a baked clip is checked at: 2000 evenly spaced over the clip, every key time and
/// the midpoints between keys.
pub fn check_times(clip: &anim::Clip) -> Vec<f32> {
    let end = clip.end_secs();
    let mut times: Vec<f32> = (0..=2000).map(|i| end * i as f32 / 2000.0).collect();
    for timeline in clip.timelines() {
        let keys = &timeline.times_secs;
        times.extend(keys.iter().copied());
        times.extend(keys.windows(2).map(|w| 0.5 * (w[0] + w[1])));
    }
    times
}

/// Bake clip `clip` of `model` as `settings` sample it (per-channel overrides included) into a
/// copy of `model`'s source file (`(bytes, folder of its external files)`): exactly, or — with
/// `resample_fps` — as LINEAR keys sampled at that rate. The result is read back and checked.
///
/// # Errors
/// Settings glTF cannot hold without resampling, a source that does not rewrite, or an output
/// that does not read back.
pub fn bake(
    model: &Model,
    (source, base_dir): (&[u8], Option<&std::path::Path>),
    clip: ClipId,
    settings: &SampleSettings,
    resample_fps: Option<f32>,
    limits: &anim::import::Limits,
) -> anyhow::Result<Baked> {
    let original = model.clip(clip).context("the clip does not exist")?;
    let raw = match resample_fps {
        Some(fps) => resample_clip(original, &model.rest_pose(), settings, fps)?,
        None => bake_clip(original, settings)?,
    };
    let glb = anim::export::replace_clip(source, base_dir, clip.index(), &raw, limits)?;
    let written = decode::load_slice(&glb, None, limits).context("the written file does not read back")?;
    let baked = written.clip(clip).context("the written file lost the clip")?;
    let times = check_times(original);
    let deviation =
        compare_clips((original, settings), (baked, &SampleSettings::AUTHORED), &written.rest_pose(), &times);
    Ok(Baked {
        channels: raw.tracks.len(),
        keys: raw.timelines.iter().map(|t| t.times_secs.len()).sum(),
        checked_times: times.len(),
        deviation,
        glb,
    })
}

//! Baking what the viewer shows into keys: a clip sampled with an override or a teaching mode
//! becomes a [`RawClip`] that, sampled as authored, gives the same poses — exactly where glTF's
//! three modes can say it ([`bake_clip`]), or by resampling the override at a frame rate
//! ([`resample_clip`]). [`compare_clips`] measures how far two samplings are apart.

use glam::{Quat, Vec3};

use crate::clip::{Clip, ClipError, RawClip};
use crate::ids::NodeId;
use crate::interp::{Easing, RotationSpace, ScaleSpace};
use crate::pose::SoaPose;
use crate::sample::{ClipCursor, SampleSettings};
use crate::timeline::Timeline;
use crate::track::{Interpolation, Property, Track, TrackValues};

/// Why a clip cannot be baked.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BakeError {
    /// The settings shape curves that glTF's STEP, LINEAR and CUBICSPLINE cannot hold exactly.
    #[error("{0} cannot be written as glTF keys exactly; resample it at a frame rate instead")]
    NotExact(String),
    /// The resampling rate is not a positive finite number of frames per second.
    #[error("the resampling rate {0} is not a positive number of frames per second")]
    BadRate(f32),
    /// The clip's raw data does not validate.
    #[error(transparent)]
    Clip(#[from] ClipError),
}

/// Why `track` under `settings` is not one of glTF's curves, if it is not.
fn inexact_reason(settings: &SampleSettings, id: crate::ids::TrackId, track: &Track) -> Option<String> {
    let mode = settings.mode_for(id, track.interpolation);
    if mode == Interpolation::Step {
        return None;
    }
    if settings.easing != Easing::Linear {
        return Some(format!("easing \"{}\"", settings.easing));
    }
    if mode == Interpolation::Linear {
        match track.property() {
            Property::Rotation if settings.rotation_space != RotationSpace::Slerp => {
                return Some(format!("rotation space \"{}\"", settings.rotation_space));
            }
            Property::Scale if settings.scale_space != ScaleSpace::Linear => {
                return Some(format!("scale space \"{}\"", settings.scale_space));
            }
            _ => {}
        }
    }
    None
}

/// The clip's tracks converted to the modes `settings` gives them (clip override, per-track
/// overrides): sampled as authored, the result gives what [`Clip::sample`] gives for `clip`
/// with `settings` (see [`RawClip::with_modes`]). Timelines, channels and start/end are kept.
///
/// # Errors
/// [`BakeError::NotExact`] when the settings use an easing, or a rotation or scale space other
/// than slerp and linear where a track is LINEAR: use [`resample_clip`].
pub fn bake_clip(clip: &Clip, settings: &SampleSettings) -> Result<RawClip, BakeError> {
    if let Some(reason) = clip.track_ids().find_map(|(id, track)| inexact_reason(settings, id, track)) {
        return Err(BakeError::NotExact(reason));
    }
    Ok(clip.raw().with_modes(|id, track| settings.mode_for(id, track.interpolation))?)
}

/// The clip sampled with `settings` ([`Clip::sample`], from `rest`) at `fps` frames per second
/// from its start to its end, plus every authored key time, as LINEAR keys on one timeline:
/// one track per original track (same node, property and channel). Rotations are kept on one
/// hemisphere along each track. Exact at the key times; between them as close as the rate
/// allows (measure with [`compare_clips`]).
///
/// `rest` must be the pose of the model `clip` belongs to ([`crate::Model::rest_pose`]).
///
/// # Errors
/// [`BakeError::BadRate`] for a rate that is not positive and finite.
pub fn resample_clip(clip: &Clip, rest: &SoaPose, settings: &SampleSettings, fps: f32) -> Result<RawClip, BakeError> {
    if !(fps.is_finite() && fps > 0.0) {
        return Err(BakeError::BadRate(fps));
    }
    let times = resample_times(clip, fps);
    let mut pose = rest.clone();
    let mut cursor = ClipCursor::new(clip);
    let mut tracks: Vec<Track> = clip
        .tracks()
        .iter()
        .map(|t| {
            let values = match &t.values {
                TrackValues::Translation(_) => TrackValues::Translation(Vec::with_capacity(times.len())),
                TrackValues::Rotation(_) => TrackValues::Rotation(Vec::with_capacity(times.len())),
                TrackValues::Scale(_) => TrackValues::Scale(Vec::with_capacity(times.len())),
                TrackValues::Weights { offset, count, .. } => {
                    TrackValues::Weights { offset: *offset, count: *count, values: Vec::new() }
                }
            };
            Track { timeline: 0, interpolation: Interpolation::Linear, values, ..t.clone() }
        })
        .collect();
    for &time in &times {
        pose.copy_from(rest);
        clip.sample(time, &mut cursor, settings, &mut pose);
        for track in &mut tracks {
            let node = track.node;
            match &mut track.values {
                TrackValues::Translation(v) => v.push(pose.translation(node)),
                TrackValues::Scale(v) => v.push(pose.scale(node)),
                TrackValues::Rotation(v) => {
                    let q = pose.rotation(node);
                    let q = match v.last() {
                        Some(previous) if previous.dot(q) < 0.0 => -q,
                        _ => q,
                    };
                    v.push(q);
                }
                TrackValues::Weights { offset, count, values } => {
                    values.extend_from_slice(pose.weights().get(*offset..*offset + *count).unwrap_or(&[]));
                }
            }
        }
    }
    let raw = RawClip {
        name: clip.raw().name.clone(),
        timelines: vec![Timeline { times_secs: times }],
        tracks,
        min_end_secs: clip.raw().min_end_secs,
    };
    raw.validate()?;
    Ok(raw)
}

/// The resampling times: `start + i / fps` up to the end (the end itself included) merged
/// with every authored key time, ascending, without near-duplicates (1 µs).
fn resample_times(clip: &Clip, fps: f32) -> Vec<f32> {
    let (start, end) = (clip.start_secs(), clip.end_secs());
    let frames = (((end - start) * fps).ceil().max(0.0) as usize).min(1 << 24);
    let mut times: Vec<f32> = (0..frames).map(|i| start + i as f32 / fps).filter(|&t| t < end).collect();
    times.push(end);
    times.extend(clip.timelines().iter().flat_map(|t| t.times_secs.iter().copied()));
    times.sort_by(f32::total_cmp);
    times.dedup_by(|b, a| *b - *a < 1e-6);
    times
}

/// The largest difference between two samplings of the same nodes, per property.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Deviation {
    /// Largest translation component difference.
    pub translation: f32,
    /// Largest rotation component difference (of `q` and `-q`, the nearer).
    pub rotation: f32,
    /// Largest scale component difference.
    pub scale: f32,
    /// Largest morph weight difference.
    pub weights: f32,
}

impl Deviation {
    /// The largest of the four.
    pub fn max(&self) -> f32 {
        self.translation.max(self.rotation).max(self.scale).max(self.weights)
    }
}

/// How far clip `a` sampled with `a_settings` and clip `b` with `b_settings` are apart at
/// `times`, over the nodes `a` animates and every morph weight (both clips from models with the
/// pose shape of `rest`).
pub fn compare_clips(
    a: (&Clip, &SampleSettings),
    b: (&Clip, &SampleSettings),
    rest: &SoaPose,
    times: &[f32],
) -> Deviation {
    let nodes: Vec<NodeId> = a.0.animated_nodes();
    let (mut pose_a, mut pose_b) = (rest.clone(), rest.clone());
    let (mut cursor_a, mut cursor_b) = (ClipCursor::new(a.0), ClipCursor::new(b.0));
    let vec_diff = |x: Vec3, y: Vec3| (x - y).abs().max_element();
    let quat_diff = |x: Quat, y: Quat| {
        let (x, y) = (glam::Vec4::from(x), glam::Vec4::from(y));
        (x - y).abs().max_element().min((x + y).abs().max_element())
    };
    // A NaN difference counts as infinitely far.
    let worst = |acc: f32, x: f32| if x.is_nan() { f32::INFINITY } else { acc.max(x) };
    let mut d = Deviation::default();
    for &time in times {
        pose_a.copy_from(rest);
        pose_b.copy_from(rest);
        a.0.sample(time, &mut cursor_a, a.1, &mut pose_a);
        b.0.sample(time, &mut cursor_b, b.1, &mut pose_b);
        for &node in &nodes {
            d.translation = worst(d.translation, vec_diff(pose_a.translation(node), pose_b.translation(node)));
            d.rotation = worst(d.rotation, quat_diff(pose_a.rotation(node), pose_b.rotation(node)));
            d.scale = worst(d.scale, vec_diff(pose_a.scale(node), pose_b.scale(node)));
        }
        for (x, y) in pose_a.weights().iter().zip(pose_b.weights()) {
            d.weights = worst(d.weights, (x - y).abs());
        }
    }
    d
}

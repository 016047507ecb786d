//! Animation clips in two forms, as ozz-animation keeps `RawAnimation` and `Animation`:
//!
//! * [`RawClip`]: the editable, authored form (tracks over shared timelines, CUBICSPLINE keys as
//!   glTF triplets), plain data with public fields;
//! * [`Clip`]: the built, immutable runtime form made by [`RawClip::build`], which validates the
//!   raw data and lays its keys out a second time, in the block pose's layout, for the sampling
//!   kernels. Its raw data can only be read ([`Clip::raw`]); to change a clip, edit a copy of the
//!   raw form and build again (interpolation overrides bake this way: [`Clip::with_interpolation`]).

use glam::{Quat, Vec3, Vec4};

use crate::ids::{NodeId, TrackId};
use crate::soa::SoaGroup;
use crate::timeline::Timeline;
use crate::track::{Interpolation, Property, Track, TrackValues};

/// The editable form of an animation clip: tracks (one per glTF channel that targets a node)
/// over shared timelines. Build it into a [`Clip`] to sample it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RawClip {
    /// The glTF animation's name, when it has one.
    pub name: Option<String>,
    /// Distinct key timelines (deduplicated by content).
    pub timelines: Vec<Timeline>,
    /// One track per glTF channel that targets a node, in channel order.
    pub tracks: Vec<Track>,
    /// The clip lasts at least this long (from time 0): animated values kept beside the clip
    /// (`KHR_animation_pointer` property tracks, see [`crate::pointer`]) count in its length.
    pub min_end_secs: f32,
}

/// Why a clip cannot be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClipError {
    /// A timeline has no keys.
    #[error("timeline {0} has no keys")]
    EmptyTimeline(usize),
    /// Key times are not finite or not strictly increasing.
    #[error("timeline {timeline}: key {key} is not finite or not after the key before it")]
    BadKeyTime {
        /// The timeline.
        timeline: usize,
        /// The key.
        key: usize,
    },
    /// A track refers to a missing timeline.
    #[error("track {track} refers to timeline {timeline}, which does not exist")]
    MissingTimeline {
        /// The track.
        track: usize,
        /// The timeline index it gives.
        timeline: usize,
    },
    /// A track's value count does not fit its timeline and interpolation.
    #[error("track {track} has {found} values where {expected} are required")]
    ValueCount {
        /// The track.
        track: usize,
        /// Required element count.
        expected: usize,
        /// Element count found.
        found: usize,
    },
}

impl RawClip {
    /// Check the invariants sampling relies on: every timeline has strictly increasing finite
    /// times, and every track's values fit its timeline (`keys × 3` elements for CUBICSPLINE,
    /// × target count for weights).
    ///
    /// # Errors
    /// The first violation found.
    pub fn validate(&self) -> Result<(), ClipError> {
        for (t, timeline) in self.timelines.iter().enumerate() {
            let times = &timeline.times_secs;
            if times.is_empty() {
                return Err(ClipError::EmptyTimeline(t));
            }
            if let Some(key) = (0..times.len()).find(|&k| !times[k].is_finite() || (k > 0 && times[k] <= times[k - 1]))
            {
                return Err(ClipError::BadKeyTime { timeline: t, key });
            }
        }
        for (i, track) in self.tracks.iter().enumerate() {
            let timeline = self
                .timelines
                .get(track.timeline)
                .ok_or(ClipError::MissingTimeline { track: i, timeline: track.timeline })?;
            let per_key = if track.interpolation == Interpolation::CubicSpline { 3 } else { 1 };
            let (found, width) = match &track.values {
                TrackValues::Translation(v) | TrackValues::Scale(v) => (v.len(), 1),
                TrackValues::Rotation(v) => (v.len(), 1),
                TrackValues::Weights { count, values, .. } => (values.len(), (*count).max(1)),
            };
            let expected = timeline.times_secs.len() * per_key * width;
            if found != expected {
                return Err(ClipError::ValueCount { track: i, expected, found });
            }
        }
        Ok(())
    }

    /// Validate and build the runtime form. Start and end come from the timelines the tracks use.
    ///
    /// # Errors
    /// See [`Self::validate`].
    pub fn build(self) -> Result<Clip, ClipError> {
        self.validate()?;
        let used = || self.tracks.iter().map(|t| &self.timelines[t.timeline].times_secs);
        let start_secs = used().map(|t| t[0]).reduce(f32::min).unwrap_or(0.0);
        let end_secs = used().map(|t| t[t.len() - 1]).reduce(f32::max).unwrap_or(0.0).max(self.min_end_secs);
        let groups = SoaGroup::build_all(&self.timelines, &self.tracks);
        let weight_tracks = (0..self.tracks.len())
            .filter(|&i| self.tracks[i].property() == Property::Weights)
            .map(TrackId::from_index)
            .collect();
        Ok(Clip { raw: self, start_secs, end_secs, groups, weight_tracks })
    }

    /// A copy with every track converted to `mode`: see [`Self::with_modes`].
    ///
    /// # Errors
    /// When the clip does not validate (see [`Self::validate`]).
    pub fn with_interpolation(&self, mode: Interpolation) -> Result<Self, ClipError> {
        self.with_modes(|_, _| mode)
    }

    /// A copy with each track converted to the mode `mode_of` gives it — the same curves as
    /// sampling with the matching [`crate::InterpolationOverride`]: a track already in its mode
    /// is kept as it is (CUBICSPLINE keeps its authored tangents); otherwise key values are
    /// kept, CUBICSPLINE tangents dropped for STEP/LINEAR, and automatic (Catmull-Rom,
    /// spacing-aware) tangents baked for CUBICSPLINE. Rotation keys are put on one hemisphere
    /// along each converted track first, so baked cubic segments never need a sign flip.
    ///
    /// # Errors
    /// When the clip does not validate (see [`Self::validate`]).
    pub fn with_modes(&self, mode_of: impl Fn(TrackId, &Track) -> Interpolation) -> Result<Self, ClipError> {
        self.validate()?;
        let tracks = self
            .tracks
            .iter()
            .enumerate()
            .map(|(i, track)| {
                let mode = mode_of(TrackId::from_index(i), track);
                if mode == track.interpolation {
                    return track.clone();
                }
                let timeline = &self.timelines[track.timeline];
                let n = timeline.times_secs.len();
                let stride = if track.interpolation == Interpolation::CubicSpline { 3 } else { 1 };
                let offset = usize::from(stride == 3);
                let values = match &track.values {
                    TrackValues::Translation(v) | TrackValues::Scale(v) => {
                        let keys: Vec<Vec3> = (0..n).map(|k| v[k * stride + offset]).collect();
                        let baked = bake(&keys, mode, timeline);
                        if track.property() == Property::Translation {
                            TrackValues::Translation(baked)
                        } else {
                            TrackValues::Scale(baked)
                        }
                    }
                    TrackValues::Rotation(v) => {
                        let mut keys: Vec<Vec4> = Vec::with_capacity(n);
                        for k in 0..n {
                            let q = Vec4::from(v[k * stride + offset]);
                            let aligned = match keys.last() {
                                Some(previous) if previous.dot(q) < 0.0 => -q,
                                _ => q,
                            };
                            keys.push(aligned);
                        }
                        TrackValues::Rotation(bake(&keys, mode, timeline).into_iter().map(Quat::from_vec4).collect())
                    }
                    TrackValues::Weights { offset: weight_offset, count, values } => {
                        let count = *count;
                        let mut baked = vec![0.0; n * count * if mode == Interpolation::CubicSpline { 3 } else { 1 }];
                        for c in 0..count {
                            let keys: Vec<f32> = (0..n).map(|k| values[(k * stride + offset) * count + c]).collect();
                            for (e, x) in bake(&keys, mode, timeline).into_iter().enumerate() {
                                baked[e * count + c] = x;
                            }
                        }
                        TrackValues::Weights { offset: *weight_offset, count, values: baked }
                    }
                };
                Track { interpolation: mode, values, ..track.clone() }
            })
            .collect();
        Ok(Self { tracks, ..self.clone() })
    }
}

/// Key values for `mode`: as they are, or for CUBICSPLINE as `[tangent, value, tangent]`
/// triplets with automatic tangents.
fn bake<T>(keys: &[T], mode: Interpolation, timeline: &Timeline) -> Vec<T>
where
    T: Copy + std::ops::Sub<Output = T> + std::ops::Mul<f32, Output = T>,
{
    if mode != Interpolation::CubicSpline {
        return keys.to_vec();
    }
    (0..keys.len())
        .flat_map(|k| {
            let (a, b, inv_dt) = timeline.auto_tangent_keys(k);
            let m = (keys[b] - keys[a]) * inv_dt;
            [m, keys[k], m]
        })
        .collect()
}

/// An animation clip, built for sampling: the validated raw data (read-only) and its keys laid out
/// per (timeline, property, interpolation) group in the block pose's layout.
///
/// Made by [`RawClip::build`]; immutable, so the authored data and the sampling layout cannot
/// disagree.
#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    raw: RawClip,
    start_secs: f32,
    end_secs: f32,
    pub(crate) groups: Vec<SoaGroup>,
    /// The morph-weight tracks (sampled outside the groups).
    pub(crate) weight_tracks: Vec<TrackId>,
}

impl Clip {
    /// The authored data this clip was built from.
    pub fn raw(&self) -> &RawClip {
        &self.raw
    }

    /// The authored data, to edit and build again.
    pub fn into_raw(self) -> RawClip {
        self.raw
    }

    /// The glTF animation's name, when it has one.
    pub fn name(&self) -> Option<&str> {
        self.raw.name.as_deref()
    }

    /// The distinct key timelines.
    pub fn timelines(&self) -> &[Timeline] {
        &self.raw.timelines
    }

    /// The tracks, in glTF channel order (a track's position is its [`TrackId`]).
    pub fn tracks(&self) -> &[Track] {
        &self.raw.tracks
    }

    /// The track `id`, if the clip has it.
    pub fn track(&self, id: TrackId) -> Option<&Track> {
        self.raw.tracks.get(id.index())
    }

    /// Every track with its id.
    pub fn track_ids(&self) -> impl Iterator<Item = (TrackId, &Track)> {
        self.raw.tracks.iter().enumerate().map(|(i, t)| (TrackId::from_index(i), t))
    }

    /// The track animating `property` of `node`, if any (the last such channel, which is the
    /// one that wins when sampling).
    pub fn find_track(&self, node: NodeId, property: Property) -> Option<TrackId> {
        self.raw.tracks.iter().rposition(|t| t.node == node && t.property() == property).map(TrackId::from_index)
    }

    /// Earliest key time over all tracks.
    pub fn start_secs(&self) -> f32 {
        self.start_secs
    }

    /// Latest key time over all tracks: the clip's duration measured from time 0.
    pub fn end_secs(&self) -> f32 {
        self.end_secs
    }

    /// Clip length in seconds (from time 0 to the last key).
    pub fn duration_secs(&self) -> f32 {
        self.end_secs
    }

    /// A new built clip with every track converted to `mode`, baked from the raw data (see
    /// [`RawClip::with_interpolation`]): the override's curves on the authored fast path. Start
    /// and end stay those of this clip.
    #[must_use]
    pub fn with_interpolation(&self, mode: Interpolation) -> Self {
        let mut clip = self
            .raw
            .with_interpolation(mode)
            .and_then(RawClip::build)
            .unwrap_or_else(|e| unreachable!("converting a valid clip keeps it valid: {e}"));
        clip.start_secs = self.start_secs;
        clip.end_secs = self.end_secs;
        clip
    }

    /// The clip's display name: its name, or `animation_<index>` when unnamed.
    pub fn display_name(&self, index: usize) -> String {
        self.raw.name.clone().unwrap_or_else(|| format!("animation_{index}"))
    }

    /// Wrap a playback time into `[0, end]` for looping (a zero-length clip always gives 0).
    pub fn wrap_time(&self, time_secs: f32) -> f32 {
        if self.end_secs > 0.0 && time_secs.is_finite() { loop_secs(time_secs, self.end_secs) } else { 0.0 }
    }

    /// Distinct authored interpolation modes, in STEP, LINEAR, CUBICSPLINE order.
    pub fn interpolations(&self) -> Vec<Interpolation> {
        [Interpolation::Step, Interpolation::Linear, Interpolation::CubicSpline]
            .into_iter()
            .filter(|m| self.raw.tracks.iter().any(|t| t.interpolation == *m))
            .collect()
    }

    /// Number of tracks animating `property`.
    pub fn track_count(&self, property: Property) -> usize {
        self.raw.tracks.iter().filter(|t| t.property() == property).count()
    }

    /// Every node the clip animates, ascending, without repeats.
    pub fn animated_nodes(&self) -> Vec<NodeId> {
        let mut nodes: Vec<NodeId> = self.raw.tracks.iter().map(|t| t.node).collect();
        nodes.sort_unstable();
        nodes.dedup();
        nodes
    }
}

/// `time_secs.rem_euclid(period_secs)` (`period_secs` positive), bit for bit, without the
/// library remainder in the first two periods, where playback spends its first seconds: there
/// the remainder is the time itself, or the time less one period (exact: the two are within a
/// factor of 2).
#[inline]
pub(crate) fn loop_secs(time_secs: f32, period_secs: f32) -> f32 {
    if (0.0..period_secs).contains(&time_secs) {
        time_secs
    } else if (period_secs..2.0 * period_secs).contains(&time_secs) {
        time_secs - period_secs
    } else {
        time_secs.rem_euclid(period_secs)
    }
}

#[cfg(test)]
mod tests {
    use super::loop_secs;

    #[test]
    fn loop_secs_is_the_euclidean_remainder_bit_for_bit() {
        let mut checked = 0;
        for period in [0.1f32, 1.0 / 3.0, 1.25, 7.9, 10.0, 1e-3, 3e37] {
            for k in -4000..12000 {
                let t = period * (k as f32 / 1000.0) + (k as f32).sin() * 1e-3;
                assert_eq!(loop_secs(t, period).to_bits(), t.rem_euclid(period).to_bits(), "{t} mod {period}");
                checked += 1;
            }
            for t in
                [0.0, -0.0, period, 2.0 * period, f32::MAX, -f32::MAX, period.next_up(), (2.0 * period).next_down()]
            {
                assert_eq!(loop_secs(t, period).to_bits(), t.rem_euclid(period).to_bits(), "{t} mod {period}");
            }
        }
        assert!(checked > 100_000);
    }
}

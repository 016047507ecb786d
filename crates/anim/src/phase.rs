//! Phase sync for cyclic clips: foot-contact markers found from the feet's motion, and the
//! target time that matches a source's phase by those markers (no markers in the target: no sync).

use glam::{Affine3A, Vec3};

use crate::hierarchy::LocalMatrices;
use crate::ids::{ClipId, NodeId};
use crate::model::Model;
use crate::sample::{ClipCursor, SampleSettings};

/// A foot touching down in a clip.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FootContact {
    /// Which foot: its index in the feet list the markers were found with (0 = first foot).
    pub foot: usize,
    /// Clip time of the touch-down.
    pub time_secs: f32,
}

/// Samples per second of clip time when looking for contacts (at least 64 per clip).
const CONTACT_SAMPLES_PER_SEC: f32 = 240.0;

/// Samples per second of clip time when finding the ground (at least 16 per clip).
const GROUND_SAMPLES_PER_SEC: f32 = 60.0;

/// A foot is low when it is within this fraction of its height range above its lowest point.
const LOW_FRACTION: f32 = 0.2;

/// A low foot has touched down once its vertical speed falls under this fraction of its
/// fastest.
const SETTLED_FRACTION: f32 = 0.1;

/// A low interval is a stance only when it reaches within this fraction of the height range of
/// the foot's lowest point (a run's swing foot passing low is not a touch-down).
const TOUCH_FRACTION: f32 = 0.1;

/// Low intervals closer than this fraction of the cycle are one stance (a foot that rolls or
/// wobbles at the threshold touches down once).
const MIN_GAP_FRACTION: f32 = 0.05;

/// Heights (model +Y) of `feet` at `n` evenly spaced times over `clip` (looping: the end is
/// not sampled), one row per foot.
fn foot_heights(model: &Model, clip: ClipId, feet: &[NodeId], n: usize) -> Vec<Vec<f32>> {
    let mut heights = vec![vec![0.0f32; n]; feet.len()];
    let Some(c) = model.clip(clip) else { return heights };
    let secs = c.end_secs();
    let rest = model.rest_pose();
    let mut pose = rest.clone();
    let mut cursor = ClipCursor::new(c);
    let settings = SampleSettings::default();
    let mut locals = LocalMatrices::new(model.nodes.len());
    let mut world = vec![Affine3A::IDENTITY; model.nodes.len()];
    for i in 0..n {
        pose.copy_from(&rest);
        c.sample(secs * i as f32 / n as f32, &mut cursor, &settings, &mut pose);
        model.hierarchy.local_to_model(&pose, &mut locals, &mut world);
        for (foot, h) in feet.iter().zip(&mut heights) {
            h[i] = world.get(foot.index()).map_or(0.0, |w| Vec3::from(w.translation).y);
        }
    }
    heights
}

/// The ground each of `feet` stands on (model units, +Y): per foot, the lower median over the
/// model's clips of its lowest height in each clip — where the feet are in most clips, so a
/// clip in the air (a jump's tuck, a hover, a flight) does not set it. Allocates (an offline
/// job); empty clips are left out, and a foot without clips gets 0.
pub fn foot_ground_heights(model: &Model, feet: &[NodeId]) -> Vec<f32> {
    let mut lows: Vec<Vec<f32>> = vec![Vec::new(); feet.len()];
    for (index, clip) in model.clips.iter().enumerate() {
        let secs = clip.end_secs();
        if secs <= 0.0 || !secs.is_finite() {
            continue;
        }
        let n = ((secs * GROUND_SAMPLES_PER_SEC) as usize).max(16);
        for (h, lows) in foot_heights(model, ClipId::from_index(index), feet, n).iter().zip(&mut lows) {
            let low = h.iter().copied().fold(f32::MAX, f32::min);
            if low.is_finite() {
                lows.push(low);
            }
        }
    }
    lows.into_iter()
        .map(|mut l| {
            l.sort_by(f32::total_cmp);
            l.get(l.len().saturating_sub(1) / 2).copied().unwrap_or(0.0)
        })
        .collect()
}

/// Foot-contact markers of `clip` (looping) for each of `feet`, sorted by time.
///
/// A foot touches down once per stance: each interval in which it is low (within 20 % of its
/// height range above its lowest point; intervals closer than 5 % of the cycle are one), that
/// comes within 10 % of the range of that lowest point, and in which its vertical speed falls
/// under 10 % of its fastest gives one marker: where it first stays settled for 5 % of the
/// cycle, else (a run's brief plant) at its first settled sample. No markers for a foot that rises less than `min_lift` (model units, along +Y)
/// over the clip (it never leaves the ground: an idle), nor, given `ground` (per foot, e.g.
/// [`foot_ground_heights`]), for a foot whose lowest point in the clip is farther from its
/// ground than 20 % of its height range plus `min_lift` (it never reaches the ground: a jump's
/// tuck, a hover). Allocates (an offline job).
pub fn find_foot_contacts(
    model: &Model,
    clip: ClipId,
    feet: &[NodeId],
    min_lift: f32,
    ground: Option<&[f32]>,
) -> Vec<FootContact> {
    stances(model, clip, feet, min_lift, ground).into_iter().map(|(contact, _)| contact).collect()
}

/// The lift-off of each stance [`find_foot_contacts`] finds a touch-down of: the end of the
/// foot's low interval (as a [`FootContact`] of that foot at the lift-off time), sorted by
/// time. Together with the touch-downs they cut a cycle into stance and swing, which a blend
/// space aligns clip by clip. Allocates (an offline job).
pub fn find_foot_lift_offs(
    model: &Model,
    clip: ClipId,
    feet: &[NodeId],
    min_lift: f32,
    ground: Option<&[f32]>,
) -> Vec<FootContact> {
    let mut lifts: Vec<FootContact> = stances(model, clip, feet, min_lift, ground)
        .into_iter()
        .map(|(contact, lift_secs)| FootContact { foot: contact.foot, time_secs: lift_secs })
        .collect();
    lifts.sort_by(|a, b| a.time_secs.total_cmp(&b.time_secs));
    lifts
}

/// Each stance's touch-down and lift-off time (see [`find_foot_contacts`]).
fn stances(
    model: &Model,
    clip: ClipId,
    feet: &[NodeId],
    min_lift: f32,
    ground: Option<&[f32]>,
) -> Vec<(FootContact, f32)> {
    let Some(c) = model.clip(clip) else { return Vec::new() };
    let secs = c.end_secs();
    if secs <= 0.0 || !secs.is_finite() || feet.is_empty() {
        return Vec::new();
    }
    let n = ((secs * CONTACT_SAMPLES_PER_SEC) as usize).max(64);
    let heights = foot_heights(model, clip, feet, n);
    let dt = secs / n as f32;
    let min_gap = ((MIN_GAP_FRACTION * n as f32) as usize).max(1);
    let mut contacts = Vec::new();
    for (foot, h) in heights.iter().enumerate() {
        let (low, high) = h.iter().fold((f32::MAX, f32::MIN), |(a, b), &x| (a.min(x), b.max(x)));
        let range = high - low;
        // (NaN heights or lift count as never leaving the ground.)
        if range.partial_cmp(&min_lift) != Some(std::cmp::Ordering::Greater) {
            continue;
        }
        let on_ground = ground
            .and_then(|g| g.get(foot))
            .is_none_or(|&g| !g.is_finite() || (low - g).abs() <= LOW_FRACTION * range + min_lift);
        if !on_ground {
            continue;
        }
        let speed = |i: usize| (h[(i + 1) % n] - h[(i + n - 1) % n]) / (2.0 * dt);
        let fastest = (0..n).map(|i| speed(i).abs()).fold(0.0f32, f32::max);
        let mut is_low: Vec<bool> = h.iter().map(|&y| y <= low + LOW_FRACTION * range).collect();
        // Close gaps shorter than min_gap between low intervals (cyclically).
        if let Some(first_high) = is_low.iter().position(|&l| !l) {
            let mut k = 0;
            while k < n {
                let i = (first_high + k) % n;
                if is_low[i] || !is_low[(i + n - 1) % n] {
                    k += 1;
                    continue;
                }
                let gap = (0..n).take_while(|&g| !is_low[(i + g) % n]).count();
                if gap < min_gap && gap < n {
                    for g in 0..gap {
                        is_low[(i + g) % n] = true;
                    }
                }
                k += gap.max(1);
            }
        }
        // One marker per low interval (cyclic): its first settled sample.
        for start in (0..n).filter(|&i| is_low[i] && !is_low[(i + n - 1) % n]) {
            let interval = || (0..n).take_while(|&k| is_low[(start + k) % n]).map(|k| (start + k) % n);
            if !interval().any(|i| h[i] <= low + TOUCH_FRACTION * range) {
                continue;
            }
            let is_settled = |i: usize| speed(i).abs() <= SETTLED_FRACTION * fastest;
            // The first settled run of at least 5 % of the cycle (a foot that stays planted),
            // else the first settled sample (a run's brief plant).
            let held = interval().find(|&i| {
                (!is_settled((i + n - 1) % n) || i == start)
                    && (0..min_gap).all(|k| is_low[(i + k) % n] && is_settled((i + k) % n))
            });
            if let Some(i) = held.or_else(|| interval().find(|&i| is_settled(i))) {
                let lift = interval().last().map_or(i, |last| last + 1);
                contacts.push((FootContact { foot, time_secs: i as f32 * dt }, (lift % n) as f32 * dt));
            }
        }
    }
    contacts.sort_by(|a, b| a.0.time_secs.total_cmp(&b.0.time_secs));
    contacts
}

/// The target clip time that continues the source's phase.
///
/// * Both clips have contact markers: the source's position between its last marker and the
///   next becomes the same fraction between the target's marker of the same foot and its next.
/// * Only the target has markers (the source's feet stay down, an idle): the target starts so
///   that its first contact lands half way through the transition (`transition_secs`): it steps
///   off while the source still holds the feet, and a target foot is planted only once the
///   target carries the pose, never dragged by a standing pose.
/// * Otherwise (the target has no markers, or none of the source's foot): 0, no sync — a
///   phase taken from normalized time would start a long clip anywhere (a dance 13 s in).
///
/// Times wrap (clips loop); the result is in `[0, target_secs)`. Whether the synced start is
/// better than none is for the caller to measure (`animtune transition` measures both).
pub fn synced_start_secs(
    source_secs: f32,
    source_time_secs: f32,
    source_contacts: &[FootContact],
    target_secs: f32,
    target_contacts: &[FootContact],
    transition_secs: f32,
) -> f32 {
    let valid = source_secs > 0.0 && target_secs > 0.0 && source_time_secs.is_finite();
    if !valid {
        return 0.0;
    }
    let t = source_time_secs.rem_euclid(source_secs);
    let Some(first_target) = target_contacts.first() else { return 0.0 };
    if source_contacts.is_empty() {
        let lead = if transition_secs.is_finite() { 0.5 * transition_secs.max(0.0) } else { 0.0 };
        return (first_target.time_secs - lead).rem_euclid(target_secs);
    }
    // The source's marker at or before t (cyclically) and the one after it.
    let k = source_contacts.iter().rposition(|c| c.time_secs <= t).unwrap_or(source_contacts.len() - 1);
    let from = source_contacts[k];
    let next = source_contacts[(k + 1) % source_contacts.len()];
    let span = (next.time_secs - from.time_secs).rem_euclid(source_secs);
    let span = if span > 0.0 { span } else { source_secs };
    let fraction = ((t - from.time_secs).rem_euclid(source_secs) / span).clamp(0.0, 1.0);
    let Some(j) = target_contacts.iter().position(|c| c.foot == from.foot) else { return 0.0 };
    let to = target_contacts[j];
    let to_next = target_contacts[(j + 1) % target_contacts.len()];
    let to_span = (to_next.time_secs - to.time_secs).rem_euclid(target_secs);
    let to_span = if to_span > 0.0 { to_span } else { target_secs };
    (to.time_secs + fraction * to_span).rem_euclid(target_secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(foot: usize, time_secs: f32) -> FootContact {
        FootContact { foot, time_secs }
    }

    #[test]
    fn markers_map_the_same_foot_and_fraction() {
        let walk = [c(0, 0.1), c(1, 0.65)];
        let run = [c(1, 0.05), c(0, 0.4)];
        // Half way from the left contact to the right one in the walk → half way from the run's
        // left contact (0.4) to its right one (0.05 + 0.7).
        let start = synced_start_secs(1.1, 0.375, &walk, 0.7, &run, 0.3);
        assert!((start - 0.575).abs() < 1e-5, "{start}");
        // Before the first marker: from the last one, wrapping.
        let start = synced_start_secs(1.1, 0.0, &walk, 0.7, &run, 0.3);
        let fraction = (1.1 - 0.65) / (1.1 - 0.55);
        assert!((start - (0.05 + fraction * 0.35)).abs() < 1e-5, "{start}");
    }

    #[test]
    fn without_target_markers_there_is_no_sync_and_a_standing_source_leads_into_the_first_contact() {
        // No markers in the target (a dance, a clip in the air): its start, never normalized time.
        assert_eq!(synced_start_secs(2.0, 1.5, &[], 0.8, &[], 0.3), 0.0);
        assert_eq!(synced_start_secs(22.0, 15.0, &[c(0, 0.5), c(1, 1.0)], 22.0, &[], 0.3), 0.0);
        // The target has no marker of the source's foot.
        assert_eq!(synced_start_secs(1.0, 0.5, &[c(1, 0.2)], 1.0, &[c(0, 0.4)], 0.3), 0.0);
        // From a standing source: the first contact half way through a 0.4 s transition.
        assert!((synced_start_secs(4.0, 3.0, &[], 0.7, &[c(1, 0.3), c(0, 0.6)], 0.4) - 0.1).abs() < 1e-6);
        assert!((synced_start_secs(4.0, 3.0, &[], 0.7, &[c(1, 0.1)], 0.4) - 0.6).abs() < 1e-6);
        assert_eq!(synced_start_secs(0.0, 1.0, &[], 1.0, &[], 0.3), 0.0);
        assert_eq!(synced_start_secs(1.0, f32::NAN, &[], 1.0, &[], 0.3), 0.0);
    }
}

//! Key times shared by tracks, and where a time falls among them.

/// Key times shared by any number of tracks (glTF samplers often share an input accessor).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Timeline {
    /// Key times in seconds: finite, non-negative, strictly increasing, at least one.
    pub times_secs: Vec<f32>,
}

/// Where a time falls on a timeline.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Segment {
    /// Key at the start of the segment.
    pub key: u32,
    /// Key at its end (equal to `key` for single-key timelines).
    pub next: u32,
    /// The key at or before the time (what STEP holds).
    pub held: u32,
    /// Segment parameter in `[0, 1]` (0 outside the keys, where `key == next`).
    pub u: f32,
    /// Key interval in seconds (0 for single-key timelines).
    pub dt_secs: f32,
}

impl Timeline {
    /// Locate `time_secs`, using and updating `cursor` (the last segment found). O(1) when the
    /// time is in the cursor's segment or the next one; binary search otherwise. A NaN time
    /// behaves like a time before the first key.
    #[inline]
    pub fn segment(&self, time_secs: f32, cursor: &mut u32) -> Segment {
        let times = &self.times_secs;
        let n = times.len();
        // `is_nan` keeps NaN times on the first key.
        if n < 2 || time_secs <= times[0] || time_secs.is_nan() {
            *cursor = 0;
            let next = u32::from(n >= 2);
            return Segment { key: 0, next, held: 0, u: 0.0, dt_secs: if n >= 2 { times[1] - times[0] } else { 0.0 } };
        }
        let last = n - 1;
        if time_secs >= times[last] {
            // Hold the last key exactly as stored (a u = 1 slerp could return its negation).
            *cursor = (last - 1) as u32;
            let last = last as u32;
            return Segment { key: last, next: last, held: last, u: 0.0, dt_secs: 0.0 };
        }
        // Here times[0] < t < times[last], so the segment k with times[k] <= t < times[k+1] exists.
        let mut k = (*cursor as usize).min(last - 1);
        if !(times[k] <= time_secs && time_secs < times[k + 1]) {
            if k + 2 <= last && times[k + 1] <= time_secs && time_secs < times[k + 2] {
                k += 1;
            } else {
                k = times.partition_point(|&x| x <= time_secs).saturating_sub(1).min(last - 1);
            }
        }
        *cursor = k as u32;
        let dt_secs = times[k + 1] - times[k];
        let u = if dt_secs > 0.0 { ((time_secs - times[k]) / dt_secs).clamp(0.0, 1.0) } else { 0.0 };
        Segment { key: k as u32, next: k as u32 + 1, held: k as u32, u, dt_secs }
    }

    /// The keys an automatic (Catmull-Rom style) tangent at key `k` differences, and `1 / Δt`
    /// between them: the neighbours for inner keys, one side at the ends, `(k, k, 0)` for a single
    /// key or a zero-length interval. Correct for non-uniform spacing.
    #[inline]
    pub fn auto_tangent_keys(&self, k: usize) -> (usize, usize, f32) {
        let times = &self.times_secs;
        let n = times.len();
        let (a, b) = if n < 2 {
            return (k, k, 0.0);
        } else if k == 0 {
            (0, 1)
        } else if k >= n - 1 {
            (n - 2, n - 1)
        } else {
            (k - 1, k + 1)
        };
        let dt = times[b] - times[a];
        (a, b, if dt > 0.0 { 1.0 / dt } else { 0.0 })
    }
}

//! Rewind: the last seconds of what the stage showed, kept in a ring of frames of bounded,
//! measured memory, and scrubbed back through.
//!
//! [`RewindBuffer`] is a job the stage calls once per frame ([`RewindBuffer::record`]) and the
//! rewind bar calls to look back ([`RewindBuffer::frame_at`]). Everything is allocated in
//! [`RewindBuffer::new`]; recording and scrubbing allocate nothing.
//!
//! **Frame rate.** Frames arrive at whatever rate the viewer draws. At most one frame is kept
//! per `1 / max_frames_per_sec` bucket of the clock (60 Hz by default): a frame that falls in
//! the newest stored frame's bucket *replaces* it (its events are added to the ones already
//! there), so the newest stored frame is always the live one and the stored frames lie in
//! distinct buckets. Frames older than `capacity_secs` before the newest are dropped, keeping
//! one at or before the window's start so that the whole window can be scrubbed.
//!
//! **Memory ceiling.** Frames in distinct buckets with all but the oldest inside the window
//! number at most `slots = ⌈capacity_secs · max_frames_per_sec⌉ + 3`. Each slot holds, per node,
//! a rotation in 6 bytes (smallest three: three 15-bit components and a 2-bit index), the
//! translation and the scale as `f32` (24 bytes); the morph weights as `f32`; the layer weights
//! (`f32`), the parameters ([`ParamValue`]), up to `max_events_per_frame` events
//! ([`FiredEvent`]), its time (`f64`) and a fixed header. [`RewindLayout::ceiling_bytes`] is that
//! sum (plus the buffer's own struct) and [`RewindBuffer::memory_bytes`] measures the owned
//! buffers' capacities: the two are equal.
//!
//! **Round trip.** Translations, scales and morph weights come back exactly; rotations within
//! [`ROTATION_ERROR_BOUND_RAD`]. Between two stored frames the pose is interpolated per quantity
//! in its own space (rotations slerped along the shortest arc, translations, scales and weights
//! lerped); the facts (state, clip, transition, layer weights, parameters, events) are the
//! nearer frame's.

use glam::{Quat, Vec3};
use thiserror::Error;

use crate::crossfade::TransitionKind;
use crate::ids::ClipId;
use crate::interp::slerp;
use crate::pose::SoaPose;
use crate::state_machine::{FiredEvent, ParamValue, StateId, TransitionId};

/// Frames kept per second of the clock unless the layout says otherwise (frames drawn faster
/// are merged into their bucket's frame).
pub const DEFAULT_FRAMES_PER_SEC: f32 = 60.0;
/// Events kept per stored frame unless the layout says otherwise; more are counted as dropped.
pub const DEFAULT_EVENTS_PER_FRAME: usize = 8;
/// The longest window a buffer may hold, seconds (ten minutes: a bound on what `new` allocates).
pub const MAX_CAPACITY_SECS: f32 = 600.0;
/// The most events a layout may keep per frame.
pub const MAX_EVENTS_PER_FRAME: usize = 1024;
/// The most memory a layout may ask for, bytes (1 GiB: 30 s of a 10 000-node rig is 330 MiB).
pub const MAX_BYTES: usize = 1 << 30;
/// The largest angle, radians, between a unit rotation and its stored form. Smallest three with
/// 15 bits per component: each stored component is off by at most half a step,
/// `h = √2 / 32766 / 2 ≈ 2.2e-5`; the largest one, recomputed from them and at least 1/2, by at
/// most `3h`; so the quaternion by at most `√12·h` and the angle by `2√12·h ≈ 1.5e-4` (measured
/// 1.28e-4 over 200 000 random rotations, `tests/rewind.rs`).
pub const ROTATION_ERROR_BOUND_RAD: f32 = 1.5e-4;

/// Steps of a stored component: 15 bits, an even count so that 0 (half way) is stored exactly
/// and the identity comes back exactly.
const COMPONENT_MAX: f32 = 32766.0;

/// The running transition of a recorded frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RewindTransition {
    /// Which transition of the machine (`None`: a fade started without one, e.g. T).
    pub transition: Option<TransitionId>,
    /// The state left.
    pub from: StateId,
    /// The state entered.
    pub to: StateId,
    /// The target's weight, 0–1.
    pub weight: f32,
    /// Cross-fade, inertialization or dead blending.
    pub kind: TransitionKind,
    /// Seconds since it started.
    pub elapsed_secs: f32,
    /// Its length, seconds.
    pub duration_secs: f32,
}

impl RewindTransition {
    /// How far it has run, 0–1: `elapsed / duration` (1 for a zero-length one).
    pub fn progress(&self) -> f32 {
        if self.duration_secs > 0.0 { (self.elapsed_secs / self.duration_secs).clamp(0.0, 1.0) } else { 1.0 }
    }
}

/// What the stage knew about one frame besides the pose, borrowed for [`RewindBuffer::record`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameFacts<'a> {
    /// The clip playing (the active state's primary clip, or the clip without a machine).
    pub clip: Option<ClipId>,
    /// The machine's active state, if a machine runs.
    pub state: Option<StateId>,
    /// The clip's time, seconds.
    pub clip_secs: f32,
    /// Seconds the active state had played.
    pub state_secs: f32,
    /// The running transition, if any.
    pub transition: Option<RewindTransition>,
    /// One weight per layer of the stack (exactly [`RewindLayout::layer_count`]).
    pub layer_weights: &'a [f32],
    /// One value per machine parameter (exactly [`RewindLayout::param_count`]).
    pub params: &'a [ParamValue],
    /// The events fired this frame; past [`RewindLayout::max_events_per_frame`] per stored
    /// frame they are counted as dropped ([`FrameFactsOut::events_dropped`],
    /// [`RewindBuffer::events_dropped`]).
    pub events: &'a [FiredEvent],
}

impl FrameFacts<'_> {
    /// Facts of a frame with no machine, layers, parameters or events.
    pub const EMPTY: FrameFacts<'static> = FrameFacts {
        clip: None,
        state: None,
        clip_secs: 0.0,
        state_secs: 0.0,
        transition: None,
        layer_weights: &[],
        params: &[],
        events: &[],
    };
}

/// The facts of a stored frame, written by [`RewindBuffer::frame_at`] into caller-owned
/// buffers (no allocation once they have reached their capacity, which
/// [`FrameFactsOut::for_layout`] reserves).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FrameFactsOut {
    /// The stored frame's time on the recording clock, seconds.
    pub time_secs: f64,
    /// How long before the newest frame it was, seconds.
    pub secs_before_live: f64,
    /// The clip playing.
    pub clip: Option<ClipId>,
    /// The active state.
    pub state: Option<StateId>,
    /// The clip's time, seconds.
    pub clip_secs: f32,
    /// Seconds the active state had played.
    pub state_secs: f32,
    /// The running transition.
    pub transition: Option<RewindTransition>,
    /// The layers' weights.
    pub layer_weights: Vec<f32>,
    /// The parameters' values.
    pub params: Vec<ParamValue>,
    /// The events fired in that frame (and in the faster frames merged into it).
    pub events: Vec<FiredEvent>,
    /// Events that fired in that frame but did not fit.
    pub events_dropped: u32,
}

impl FrameFactsOut {
    /// Empty facts with room for a buffer of `layout`'s frames.
    pub fn for_layout(layout: &RewindLayout) -> Self {
        Self {
            layer_weights: Vec::with_capacity(layout.layer_count),
            params: Vec::with_capacity(layout.param_count),
            events: Vec::with_capacity(layout.max_events_per_frame),
            ..Self::default()
        }
    }
}

/// The shape of a [`RewindBuffer`]: fixed at creation, it decides the memory ceiling.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RewindLayout {
    /// Nodes of the pose.
    pub node_count: usize,
    /// Morph weights of the pose ([`SoaPose::weights`]).
    pub morph_weight_count: usize,
    /// Layers whose weights are kept.
    pub layer_count: usize,
    /// Machine parameters whose values are kept.
    pub param_count: usize,
    /// The window kept, seconds (0 < `capacity_secs` ≤ [`MAX_CAPACITY_SECS`]).
    pub capacity_secs: f32,
    /// Frames kept per second of the clock, at most (faster frames are merged).
    pub max_frames_per_sec: f32,
    /// Events kept per stored frame.
    pub max_events_per_frame: usize,
}

impl RewindLayout {
    /// A layout with the default frame rate and event room and no morph weights.
    pub fn new(node_count: usize, capacity_secs: f32, layer_count: usize, param_count: usize) -> Self {
        Self {
            node_count,
            morph_weight_count: 0,
            layer_count,
            param_count,
            capacity_secs,
            max_frames_per_sec: DEFAULT_FRAMES_PER_SEC,
            max_events_per_frame: DEFAULT_EVENTS_PER_FRAME,
        }
    }

    /// Stored frames: `⌈capacity_secs · max_frames_per_sec⌉ + 3` (see the module docs for why
    /// that many always suffice).
    pub fn slots(&self) -> usize {
        (f64::from(self.capacity_secs) * f64::from(self.max_frames_per_sec)).ceil() as usize + 3
    }

    /// Bytes of one stored frame: per node a 6-byte rotation and 24 bytes of translation and
    /// scale, 4 per morph weight and per layer weight, a [`ParamValue`] per parameter, a
    /// [`FiredEvent`] per event slot, its `f64` time and its header.
    pub fn frame_bytes(&self) -> usize {
        use std::mem::size_of;
        // Saturating, so that a layout `new` would refuse reports `usize::MAX` rather than
        // overflowing.
        let per = |count: usize, bytes: usize| count.saturating_mul(bytes);
        per(self.node_count, size_of::<[u16; 3]>() + 2 * size_of::<Vec3>())
            .saturating_add(per(self.morph_weight_count.saturating_add(self.layer_count), size_of::<f32>()))
            .saturating_add(per(self.param_count, size_of::<ParamValue>()))
            .saturating_add(per(self.max_events_per_frame, size_of::<FiredEvent>()))
            .saturating_add(size_of::<f64>() + size_of::<FrameHeader>())
    }

    /// The memory a buffer of this layout owns, bytes: `slots · frame_bytes` plus the buffer's
    /// own struct. Fixed at creation; [`RewindBuffer::memory_bytes`] measures the same.
    pub fn ceiling_bytes(&self) -> usize {
        self.slots().saturating_mul(self.frame_bytes()).saturating_add(std::mem::size_of::<RewindBuffer>())
    }

    fn check(&self) -> Result<(), RewindError> {
        if !(self.capacity_secs > 0.0 && self.capacity_secs <= MAX_CAPACITY_SECS) {
            return Err(RewindError::BadCapacity { capacity_secs: self.capacity_secs });
        }
        if !(self.max_frames_per_sec >= 1.0 && self.max_frames_per_sec <= 1000.0) {
            return Err(RewindError::BadFrameRate { frames_per_sec: self.max_frames_per_sec });
        }
        if self.max_events_per_frame > MAX_EVENTS_PER_FRAME {
            return Err(RewindError::TooManyEvents { events: self.max_events_per_frame });
        }
        // Per-slot sizes, checked before `frame_bytes` multiplies them.
        let per_slot =
            [self.node_count, self.morph_weight_count, self.layer_count, self.param_count, self.max_events_per_frame]
                .iter()
                .try_fold(0usize, |sum, &count| sum.checked_add(count.checked_mul(32)?));
        let bytes = per_slot.and_then(|per_slot| per_slot.checked_mul(self.slots()));
        match bytes {
            Some(bytes) if bytes <= MAX_BYTES => Ok(()),
            _ => Err(RewindError::TooLarge { node_count: self.node_count, capacity_secs: self.capacity_secs }),
        }
    }
}

/// What is wrong with a layout, a frame to record or a time to scrub to.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum RewindError {
    /// The window is not a positive number of seconds up to [`MAX_CAPACITY_SECS`].
    #[error("rewind window of {capacity_secs} s: expected more than 0 and at most {MAX_CAPACITY_SECS} s")]
    BadCapacity {
        /// The window asked for.
        capacity_secs: f32,
    },
    /// The frame rate is not between 1 and 1000 frames per second.
    #[error("rewind frame rate of {frames_per_sec} per second: expected 1 to 1000")]
    BadFrameRate {
        /// The rate asked for.
        frames_per_sec: f32,
    },
    /// More events per frame than [`MAX_EVENTS_PER_FRAME`].
    #[error("{events} events per rewind frame: at most {MAX_EVENTS_PER_FRAME}")]
    TooManyEvents {
        /// The count asked for.
        events: usize,
    },
    /// The layout would need more than [`MAX_BYTES`].
    #[error("a rewind buffer of {node_count} nodes over {capacity_secs} s would need more than {MAX_BYTES} bytes")]
    TooLarge {
        /// The layout's nodes.
        node_count: usize,
        /// The layout's window.
        capacity_secs: f32,
    },
    /// The pose has another number of nodes or morph weights than the buffer was made for.
    #[error(
        "pose of {nodes} nodes and {weights} morph weights given to a rewind buffer of {expected_nodes} nodes and {expected_weights} weights"
    )]
    PoseShape {
        /// The pose's nodes.
        nodes: usize,
        /// The pose's morph weights.
        weights: usize,
        /// The buffer's nodes.
        expected_nodes: usize,
        /// The buffer's morph weights.
        expected_weights: usize,
    },
    /// A slice of the facts has another length than the layout's.
    #[error("{what}: {len} given, the rewind buffer keeps {expected}")]
    FactsShape {
        /// Which slice (`"layer weights"` or `"parameters"`).
        what: &'static str,
        /// Its length.
        len: usize,
        /// The layout's count.
        expected: usize,
    },
    /// A frame's time is not finite.
    #[error("frame time {time_secs} s is not finite")]
    TimeNotFinite {
        /// The time given.
        time_secs: f64,
    },
    /// A frame's time is before the newest stored frame's.
    #[error("frame time {time_secs} s is before the newest recorded frame at {newest_secs} s")]
    TimeWentBack {
        /// The time given.
        time_secs: f64,
        /// The newest frame's time.
        newest_secs: f64,
    },
    /// Nothing is recorded yet (or since [`RewindBuffer::clear`]).
    #[error("the rewind buffer is empty")]
    Empty,
    /// The time to scrub to is not a finite number.
    #[error("rewind to {secs_before_live} s before live: not a number")]
    ScrubNotFinite {
        /// The time asked for.
        secs_before_live: f64,
    },
    /// The time to scrub to is outside the held window.
    #[error("rewind to {secs_before_live} s before live: the buffer holds 0 to {held_secs} s")]
    OutsideWindow {
        /// The time asked for.
        secs_before_live: f64,
        /// The window held.
        held_secs: f64,
    },
}

/// Per stored frame: what is not a slice.
#[derive(Debug, Clone, Copy, PartialEq)]
struct FrameHeader {
    clip: Option<ClipId>,
    state: Option<StateId>,
    clip_secs: f32,
    state_secs: f32,
    transition: Option<RewindTransition>,
    event_count: u16,
    events_dropped: u32,
}

impl FrameHeader {
    const EMPTY: Self = Self {
        clip: None,
        state: None,
        clip_secs: 0.0,
        state_secs: 0.0,
        transition: None,
        event_count: 0,
        events_dropped: 0,
    };
}

/// The ring of recorded frames (see the module docs): allocated once, recorded into every
/// frame, scrubbed by time before the newest frame.
#[derive(Debug, Clone)]
pub struct RewindBuffer {
    layout: RewindLayout,
    slots: usize,
    /// Physical slot of the oldest stored frame.
    head: usize,
    /// Stored frames.
    len: usize,
    /// Events that did not fit, since creation or [`Self::clear`].
    events_dropped: u64,
    times_secs: Vec<f64>,
    headers: Vec<FrameHeader>,
    rotations: Vec<[u16; 3]>,
    translations: Vec<Vec3>,
    scales: Vec<Vec3>,
    morph_weights: Vec<f32>,
    layer_weights: Vec<f32>,
    params: Vec<ParamValue>,
    events: Vec<FiredEvent>,
}

impl RewindBuffer {
    /// A buffer keeping `capacity_secs` of frames of `node_count` nodes, `layer_count` layer
    /// weights and `param_count` parameters, at the default 60 frames per second and 8 events
    /// per frame (no morph weights: see [`Self::with_layout`]).
    pub fn new(
        node_count: usize,
        capacity_secs: f32,
        layer_count: usize,
        param_count: usize,
    ) -> Result<Self, RewindError> {
        Self::with_layout(RewindLayout::new(node_count, capacity_secs, layer_count, param_count))
    }

    /// A buffer of `layout`, every byte of it allocated now.
    pub fn with_layout(layout: RewindLayout) -> Result<Self, RewindError> {
        layout.check()?;
        let slots = layout.slots();
        let zero_param = ParamValue::Float(0.0);
        let no_event = FiredEvent { event: Default::default(), state: StateId::default() };
        Ok(Self {
            layout,
            slots,
            head: 0,
            len: 0,
            events_dropped: 0,
            times_secs: vec![0.0; slots],
            headers: vec![FrameHeader::EMPTY; slots],
            rotations: vec![[0; 3]; slots * layout.node_count],
            translations: vec![Vec3::ZERO; slots * layout.node_count],
            scales: vec![Vec3::ONE; slots * layout.node_count],
            morph_weights: vec![0.0; slots * layout.morph_weight_count],
            layer_weights: vec![0.0; slots * layout.layer_count],
            params: vec![zero_param; slots * layout.param_count],
            events: vec![no_event; slots * layout.max_events_per_frame],
        })
    }

    /// The layout it was made with.
    pub fn layout(&self) -> &RewindLayout {
        &self.layout
    }

    /// Frames stored now.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Seconds between the oldest and the newest stored frame: how far back one can scrub.
    pub fn held_secs(&self) -> f64 {
        if self.len == 0 { 0.0 } else { self.time(self.len - 1) - self.time(0) }
    }

    /// The newest stored frame's time on the recording clock, if any.
    pub fn live_secs(&self) -> Option<f64> {
        (self.len > 0).then(|| self.time(self.len - 1))
    }

    /// Bytes owned: the capacities of every buffer plus the struct itself (equals
    /// [`RewindLayout::ceiling_bytes`], and does not change while recording).
    pub fn memory_bytes(&self) -> usize {
        fn bytes<T>(v: &Vec<T>) -> usize {
            v.capacity() * std::mem::size_of::<T>()
        }
        std::mem::size_of::<Self>()
            + bytes(&self.times_secs)
            + bytes(&self.headers)
            + bytes(&self.rotations)
            + bytes(&self.translations)
            + bytes(&self.scales)
            + bytes(&self.morph_weights)
            + bytes(&self.layer_weights)
            + bytes(&self.params)
            + bytes(&self.events)
    }

    /// [`Self::memory_bytes`] in KiB (what `--stats-out` reports as `rewind_kib`).
    pub fn memory_kib(&self) -> f64 {
        self.memory_bytes() as f64 / 1024.0
    }

    /// Events that fired but did not fit in their frame, since creation or [`Self::clear`].
    pub fn events_dropped(&self) -> u64 {
        self.events_dropped
    }

    /// Forget every frame (on a model switch; a new shape needs a new buffer).
    pub fn clear(&mut self) {
        self.head = 0;
        self.len = 0;
        self.events_dropped = 0;
    }

    /// Physical slot of the `i`-th stored frame, oldest first.
    #[inline]
    fn slot(&self, i: usize) -> usize {
        (self.head + i) % self.slots
    }

    #[inline]
    fn time(&self, i: usize) -> f64 {
        self.times_secs[self.slot(i)]
    }

    fn bucket(&self, time_secs: f64) -> f64 {
        (time_secs * f64::from(self.layout.max_frames_per_sec)).floor()
    }

    /// Record the frame shown at `time_secs` on a monotonic clock: its pose and facts are
    /// copied into the ring (a frame in the newest frame's `1 / max_frames_per_sec` bucket
    /// replaces it, its events added), frames older than the window dropped. Allocates nothing.
    ///
    /// # Errors
    /// A pose or facts of another shape than the layout's, a time that is not finite or is
    /// before the newest frame's; nothing is recorded then.
    pub fn record(&mut self, time_secs: f64, pose: &SoaPose, facts: &FrameFacts<'_>) -> Result<(), RewindError> {
        let layout = self.layout;
        if pose.len() != layout.node_count || pose.weights().len() != layout.morph_weight_count {
            return Err(RewindError::PoseShape {
                nodes: pose.len(),
                weights: pose.weights().len(),
                expected_nodes: layout.node_count,
                expected_weights: layout.morph_weight_count,
            });
        }
        check_len("layer weights", facts.layer_weights.len(), layout.layer_count)?;
        check_len("parameters", facts.params.len(), layout.param_count)?;
        if !time_secs.is_finite() {
            return Err(RewindError::TimeNotFinite { time_secs });
        }
        let merge = match self.live_secs() {
            Some(newest_secs) if time_secs < newest_secs => {
                return Err(RewindError::TimeWentBack { time_secs, newest_secs });
            }
            Some(newest_secs) => self.bucket(time_secs) == self.bucket(newest_secs),
            None => false,
        };
        if !merge {
            if self.len == self.slots {
                // Cannot happen with the window's bound (module docs); kept so a float edge
                // overwrites the oldest frame rather than failing.
                self.head = self.slot(1);
                self.len -= 1;
            }
            self.len += 1;
            let slot = self.slot(self.len - 1);
            self.headers[slot].event_count = 0;
            self.headers[slot].events_dropped = 0;
        }
        let slot = self.slot(self.len - 1);
        self.times_secs[slot] = time_secs;
        self.write_frame(slot, pose, facts);

        // Drop frames out of the window, keeping one at or before its start.
        let window_start = time_secs - f64::from(layout.capacity_secs);
        while self.len >= 2 && self.time(1) <= window_start {
            self.head = self.slot(1);
            self.len -= 1;
        }
        Ok(())
    }

    fn write_frame(&mut self, slot: usize, pose: &SoaPose, facts: &FrameFacts<'_>) {
        let layout = &self.layout;
        let nodes = slot * layout.node_count..(slot + 1) * layout.node_count;
        let rotations = &mut self.rotations[nodes.clone()];
        let translations = &mut self.translations[nodes.clone()];
        let scales = &mut self.scales[nodes];
        for (b, block) in pose.blocks().iter().enumerate() {
            let [tx, ty, tz] = &block.translation;
            let [rx, ry, rz, rw] = &block.rotation;
            let [sx, sy, sz] = &block.scale;
            let start = 8 * b;
            let lanes = layout.node_count.saturating_sub(start).min(8);
            for lane in 0..lanes {
                let node = start + lane;
                translations[node] = Vec3::new(tx.0[lane], ty.0[lane], tz.0[lane]);
                rotations[node] = encode_rotation(Quat::from_xyzw(rx.0[lane], ry.0[lane], rz.0[lane], rw.0[lane]));
                scales[node] = Vec3::new(sx.0[lane], sy.0[lane], sz.0[lane]);
            }
        }
        let weights = slot * layout.morph_weight_count..(slot + 1) * layout.morph_weight_count;
        self.morph_weights[weights].copy_from_slice(pose.weights());
        let layers = slot * layout.layer_count..(slot + 1) * layout.layer_count;
        self.layer_weights[layers].copy_from_slice(facts.layer_weights);
        let params = slot * layout.param_count..(slot + 1) * layout.param_count;
        self.params[params].copy_from_slice(facts.params);

        let header = &mut self.headers[slot];
        let stored = usize::from(header.event_count);
        let room = layout.max_events_per_frame.saturating_sub(stored);
        let kept = facts.events.len().min(room);
        let first = slot * layout.max_events_per_frame + stored;
        self.events[first..first + kept].copy_from_slice(&facts.events[..kept]);
        let dropped = facts.events.len() - kept;
        *header = FrameHeader {
            clip: facts.clip,
            state: facts.state,
            clip_secs: facts.clip_secs,
            state_secs: facts.state_secs,
            transition: facts.transition,
            event_count: u16::try_from(stored + kept).unwrap_or(u16::MAX),
            events_dropped: header.events_dropped.saturating_add(u32::try_from(dropped).unwrap_or(u32::MAX)),
        };
        self.events_dropped += dropped as u64;
    }

    /// The pose `secs_before_live` seconds before the newest frame, interpolated between the
    /// two stored frames around it, into `pose`; the nearer frame's facts into `facts`.
    /// Allocates nothing once `facts` has its layout's capacity ([`FrameFactsOut::for_layout`]).
    ///
    /// # Errors
    /// An empty buffer, a time that is not a number or outside `0..=held_secs`, a pose of
    /// another shape; `pose` and `facts` are left as they were then.
    pub fn frame_at(
        &self,
        secs_before_live: f64,
        pose: &mut SoaPose,
        facts: &mut FrameFactsOut,
    ) -> Result<(), RewindError> {
        let layout = &self.layout;
        if pose.len() != layout.node_count || pose.weights().len() != layout.morph_weight_count {
            return Err(RewindError::PoseShape {
                nodes: pose.len(),
                weights: pose.weights().len(),
                expected_nodes: layout.node_count,
                expected_weights: layout.morph_weight_count,
            });
        }
        let Some(live_secs) = self.live_secs() else { return Err(RewindError::Empty) };
        if !secs_before_live.is_finite() {
            return Err(RewindError::ScrubNotFinite { secs_before_live });
        }
        let held_secs = self.held_secs();
        if !(0.0..=held_secs).contains(&secs_before_live) {
            return Err(RewindError::OutsideWindow { secs_before_live, held_secs });
        }
        let target_secs = live_secs - secs_before_live;
        // The last stored frame at or before the target (times increase with the index).
        let (mut lo, mut hi) = (0, self.len - 1);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if self.time(mid) <= target_secs { lo = mid } else { hi = mid - 1 }
        }
        let a = lo;
        let b = (lo + 1).min(self.len - 1);
        let (ta, tb) = (self.time(a), self.time(b));
        let u = if tb > ta { ((target_secs - ta) / (tb - ta)).clamp(0.0, 1.0) as f32 } else { 0.0 };
        self.write_pose(self.slot(a), self.slot(b), u, pose);
        let nearer = if u < 0.5 { a } else { b };
        self.write_facts(nearer, live_secs, facts);
        Ok(())
    }

    fn write_pose(&self, sa: usize, sb: usize, u: f32, pose: &mut SoaPose) {
        let n = self.layout.node_count;
        let (ra, rb) = (&self.rotations[sa * n..(sa + 1) * n], &self.rotations[sb * n..(sb + 1) * n]);
        let (ta, tb) = (&self.translations[sa * n..(sa + 1) * n], &self.translations[sb * n..(sb + 1) * n]);
        let (ca, cb) = (&self.scales[sa * n..(sa + 1) * n], &self.scales[sb * n..(sb + 1) * n]);
        for (b, block) in pose.blocks_mut().iter_mut().enumerate() {
            let start = 8 * b;
            for lane in 0..n.saturating_sub(start).min(8) {
                let node = start + lane;
                let t = ta[node].lerp(tb[node], u);
                let r = slerp(decode_rotation(ra[node]), decode_rotation(rb[node]), u);
                let s = ca[node].lerp(cb[node], u);
                for (plane, v) in block.translation.iter_mut().zip(t.to_array()) {
                    plane.0[lane] = v;
                }
                for (plane, v) in block.rotation.iter_mut().zip(r.to_array()) {
                    plane.0[lane] = v;
                }
                for (plane, v) in block.scale.iter_mut().zip(s.to_array()) {
                    plane.0[lane] = v;
                }
            }
        }
        let m = self.layout.morph_weight_count;
        let (wa, wb) = (&self.morph_weights[sa * m..(sa + 1) * m], &self.morph_weights[sb * m..(sb + 1) * m]);
        for ((out, &x), &y) in pose.weights_mut().iter_mut().zip(wa).zip(wb) {
            *out = x + (y - x) * u;
        }
    }

    fn write_facts(&self, i: usize, live_secs: f64, facts: &mut FrameFactsOut) {
        let layout = &self.layout;
        let slot = self.slot(i);
        let header = &self.headers[slot];
        facts.time_secs = self.times_secs[slot];
        facts.secs_before_live = live_secs - facts.time_secs;
        facts.clip = header.clip;
        facts.state = header.state;
        facts.clip_secs = header.clip_secs;
        facts.state_secs = header.state_secs;
        facts.transition = header.transition;
        facts.layer_weights.clear();
        facts.layer_weights.extend_from_slice(&self.layer_weights[slot * layout.layer_count..][..layout.layer_count]);
        facts.params.clear();
        facts.params.extend_from_slice(&self.params[slot * layout.param_count..][..layout.param_count]);
        facts.events.clear();
        let first = slot * layout.max_events_per_frame;
        facts.events.extend_from_slice(&self.events[first..first + usize::from(header.event_count)]);
        facts.events_dropped = header.events_dropped;
    }

    /// Every stored frame's time before the newest, seconds, oldest first (the ticks of a
    /// rewind bar; [`Self::frame_at`] at one of them gives that frame as stored).
    pub fn frame_secs_before_live(&self) -> impl Iterator<Item = f64> + '_ {
        let live_secs = self.live_secs().unwrap_or(0.0);
        (0..self.len).map(move |i| live_secs - self.time(i))
    }

    /// Every stored frame's time and the events fired in it, oldest first (what a rewind bar
    /// marks), as `(secs_before_live, event)`.
    pub fn events(&self) -> impl Iterator<Item = (f64, FiredEvent)> + '_ {
        let live_secs = self.live_secs().unwrap_or(0.0);
        (0..self.len).flat_map(move |i| {
            let slot = self.slot(i);
            let first = slot * self.layout.max_events_per_frame;
            let count = usize::from(self.headers[slot].event_count);
            let before = live_secs - self.times_secs[slot];
            self.events[first..first + count].iter().map(move |&event| (before, event))
        })
    }
}

fn check_len(what: &'static str, len: usize, expected: usize) -> Result<(), RewindError> {
    if len == expected { Ok(()) } else { Err(RewindError::FactsShape { what, len, expected }) }
}

/// A rotation in 48 bits, smallest three: the three components other than the largest, each
/// scaled from `[-1/√2, 1/√2]` to 15 bits, and the largest's index in the top bits of the first
/// two words (its sign made positive: `q` and `-q` are one rotation). A rotation that is not
/// finite or of zero length is stored as the identity; others are normalized first.
pub fn encode_rotation(q: Quat) -> [u16; 3] {
    let length_squared = q.length_squared();
    // One square root: the normalization folded into the components' scale. NaN and infinite
    // lengths fail the comparison too.
    let (c, scale) = if length_squared > 0.0 && length_squared < f32::INFINITY {
        (q.to_array(), std::f32::consts::FRAC_1_SQRT_2 / length_squared.sqrt())
    } else {
        (Quat::IDENTITY.to_array(), std::f32::consts::FRAC_1_SQRT_2)
    };
    let abs = c.map(f32::abs);
    let largest = if abs[0].max(abs[1]) >= abs[2].max(abs[3]) {
        usize::from(abs[1] > abs[0])
    } else {
        2 + usize::from(abs[3] > abs[2])
    };
    // Components scaled from [-1/√2, 1/√2] after normalizing to [-1/2, 1/2], the largest made
    // positive.
    let scale = if c[largest] < 0.0 { -scale } else { scale };
    // The three others, in order, without branches: the k-th is component k, or k + 1 from the
    // largest on.
    let others = [
        if largest == 0 { c[1] } else { c[0] },
        if largest <= 1 { c[2] } else { c[1] },
        if largest <= 2 { c[3] } else { c[2] },
    ];
    let mut words = others.map(|v| {
        let unit = (v * scale + 0.5).clamp(0.0, 1.0);
        // Rounded by adding a half and truncating (non-negative): `f32::round` is a library
        // call on baseline x86-64.
        (unit * COMPONENT_MAX + 0.5) as u16
    });
    words[0] |= ((largest as u16) >> 1) << 15;
    words[1] |= ((largest as u16) & 1) << 15;
    words
}

/// The rotation [`encode_rotation`] stored (unit length).
pub fn decode_rotation(words: [u16; 3]) -> Quat {
    let largest = usize::from((words[0] >> 15) << 1 | (words[1] >> 15));
    let mut c = [0.0f32; 4];
    let mut sum = 0.0;
    let mut k = 0;
    for (i, out) in c.iter_mut().enumerate() {
        if i == largest {
            continue;
        }
        let unit = f32::from(words[k] & 0x7fff) * (1.0 / COMPONENT_MAX);
        let v = (unit * 2.0 - 1.0) * std::f32::consts::FRAC_1_SQRT_2;
        *out = v;
        sum += v * v;
        k += 1;
    }
    c[largest] = (1.0 - sum).max(0.0).sqrt();
    Quat::from_array(c).normalize()
}

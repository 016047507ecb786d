//! `animtune graph`: the character's state machine run headless on the stage
//! ([`crate::stage::Stage`] with its [`crate::stage::machine::StageMachine`]): each `--play`
//! entry requests a state at a time through the machine's own edges, the stage's fader plays
//! them, and each transition taken is measured as `animtune transition` measures a pair
//! ([`crate::transitions::measure`], one trigger at the clip time on screen). Also writes the
//! machine for Godot 4 (`--export-godot`) and Bevy (`--export-bevy`, plus its transitions
//! sidecar).

use std::fmt::Write as _;
use std::path::PathBuf;

use anim::state_machine::{StateId, TransitionId};
use anim::{ClipId, Model};
use anyhow::Context as _;
use serde::Serialize;

use super::{Format, LimitArgs};
use crate::profile::TuningProfile;
use crate::stage::tuning::Tuning;
use crate::stage::{ModelSource, Stage};
use crate::transitions::{PairSettings, Rig, Sync, TransitionReport, measure};

/// Frames per second the machine is stepped at.
pub const FRAME_HZ: f32 = 60.0;
/// Longest time `--play` may reach, seconds.
pub const MAX_PLAY_SECS: f32 = 3600.0;

/// `animtune graph` arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct GraphArgs {
    /// A .glb or .gltf file (default: the built-in character).
    pub model: Option<PathBuf>,
    /// The tuning profile whose transition table the machine is built from [default: the
    /// model's profile in the profiles folder, if there is one; else no tuned pair, every edge
    /// the default 0.3 s smoothstep cross-fade].
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// States requested over time, comma-separated `STATE[@SECS]` (e.g.
    /// `Idle,Walk@0.5,Run@2,Idle@3.5`): each entry goes to STATE at SECS through the machine's
    /// transitions; a first entry at 0 s is the starting state; SECS left out: the previous
    /// entry's time.
    #[arg(long, value_name = "SCHEDULE", value_parser = PlayEntry::parse_list)]
    pub play: Option<std::vec::Vec<PlayEntry>>,
    /// Seconds played after the last entry.
    #[arg(long, value_name = "SECS", default_value_t = 1.0)]
    pub tail: f32,
    /// Write the machine as a Godot 4 `AnimationNodeStateMachine` resource (.tres).
    #[arg(long, value_name = "FILE")]
    pub export_godot: Option<PathBuf>,
    /// Write the machine as a Bevy `SerializedAnimationGraph` (FILE.animgraph.ron) and its
    /// transitions sidecar beside it (FILE.transitions.ron).
    #[arg(long, value_name = "FILE")]
    pub export_bevy: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// One `--play` entry: a state requested at a time.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayEntry {
    /// The entry as written (for messages).
    pub text: String,
    /// 1-based position in the list.
    pub index: usize,
    /// The state's name.
    pub state: String,
    /// When, seconds from the start.
    pub at_secs: f32,
}

impl std::fmt::Display for PlayEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "--play entry {} \"{}\"", self.index, self.text)
    }
}

impl PlayEntry {
    /// Parse a `--play` list: `STATE[@SECS]` entries, comma-separated, times in order.
    ///
    /// # Errors
    /// A message naming the entry: empty, no state name, a time that is not a number from 0 to
    /// [`MAX_PLAY_SECS`], or a time before the previous entry's.
    pub fn parse_list(text: &str) -> Result<Vec<Self>, String> {
        let mut entries: Vec<Self> = Vec::new();
        for (i, raw) in text.split(',').enumerate() {
            let index = i + 1;
            let entry = raw.trim();
            let name = |problem: &str| format!("--play entry {index} \"{entry}\": {problem}");
            if entry.is_empty() {
                return Err(name("empty (expected STATE or STATE@SECS)"));
            }
            let previous = entries.last().map_or(0.0, |e| e.at_secs);
            let (state, at_secs) = match entry.rsplit_once('@') {
                Some((state, secs)) => {
                    let secs: f32 = secs
                        .trim()
                        .parse()
                        .map_err(|_| name(&format!("\"{}\" is not a number of seconds", secs.trim())))?;
                    if !(secs.is_finite() && (0.0..=MAX_PLAY_SECS).contains(&secs)) {
                        return Err(name(&format!("{secs} s is not within 0 to {MAX_PLAY_SECS} s")));
                    }
                    (state.trim(), secs)
                }
                None => (entry, previous),
            };
            if state.is_empty() {
                return Err(name("no state name before '@'"));
            }
            if at_secs < previous {
                return Err(name(&format!("{at_secs} s is before the previous entry's {previous} s")));
            }
            entries.push(Self { text: entry.to_owned(), index, state: state.to_owned(), at_secs });
        }
        Ok(entries)
    }
}

/// `animtune graph`'s report.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GraphReport {
    /// The model.
    pub model: String,
    /// The profile the transition table came from, if any.
    pub profile: Option<String>,
    /// The machine's states, in id order.
    pub states: Vec<String>,
    /// Number of transitions in the machine (any-state edges counted once).
    pub machine_transitions: usize,
    /// Frames per second the machine was stepped at.
    pub frame_hz: f32,
    /// Seconds played.
    pub played_secs: f32,
    /// Each transition taken, in order.
    pub transitions: Vec<GraphTransition>,
    /// Seconds spent in each state (the active state: a running transition's target), in
    /// the machine's order; states never entered are left out.
    pub state_times: Vec<StateTime>,
    /// Clip events fired (the feet's touch-downs, `FOOT_down`), in order.
    pub events: Vec<GraphEvent>,
    /// Files written.
    pub written: Vec<String>,
}

/// One transition taken.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GraphTransition {
    /// When, seconds from the start.
    pub at_secs: f32,
    /// The state left.
    pub from: String,
    /// The state entered.
    pub to: String,
    /// The machine's edge taken (`From -> To`, `* -> To` for an any-state edge).
    pub edge: String,
    /// Requested by a `--play` entry (else taken by the machine on its own).
    pub requested: bool,
    /// The figures `animtune transition` prints for this pair, triggered at the source clip's
    /// time on screen.
    pub figures: TransitionReport,
}

/// Time spent in one state.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StateTime {
    /// The state.
    pub state: String,
    /// Seconds it was the active state.
    pub secs: f32,
}

/// A clip event that fired.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GraphEvent {
    /// When (the end of the frame it fired in), seconds from the start.
    pub at_secs: f32,
    /// The state whose clip crossed it.
    pub state: String,
    /// The event's name.
    pub event: String,
}

/// Run `animtune graph`.
///
/// # Errors
/// When the model or profile cannot be loaded, a `--play` entry names an unknown state or one
/// no transition leads to, or an export cannot be written.
pub fn run(args: &GraphArgs) -> anyhow::Result<String> {
    anyhow::ensure!(
        args.play.is_some() || args.export_godot.is_some() || args.export_bevy.is_some(),
        "nothing to do: give --play SCHEDULE, --export-godot FILE or --export-bevy FILE"
    );
    anyhow::ensure!(args.tail.is_finite() && (0.0..=60.0).contains(&args.tail), "--tail takes 0 to 60 seconds");
    let (model, label) = super::load_model_or_default_with_limits(args.model.as_deref(), &args.limits.limits())?;
    anyhow::ensure!(!model.clips().is_empty(), "{label} has no animations to play");
    let (tuning, profile) = tuning_of(&model, args)?;
    let source = args.model.as_deref().map_or_else(ModelSource::built_in, ModelSource::file);
    let mut stage = Stage::new(model, source, tuning);
    if let Some(problem) = stage.machine().problem() {
        anyhow::bail!("{label}: no state machine ({problem})");
    }
    let mut written = Vec::new();
    if let Some(path) = &args.export_godot {
        stage.export_godot(path)?;
        written.push(path.display().to_string());
    }
    if let Some(path) = &args.export_bevy {
        let sidecar = stage.export_bevy(path)?;
        written.extend([path.display().to_string(), sidecar.display().to_string()]);
    }
    let mut report = GraphReport {
        model: label,
        profile,
        states: stage.machine().machine().states().iter().map(|s| s.name.clone()).collect(),
        machine_transitions: stage.machine().machine().transitions().len(),
        frame_hz: FRAME_HZ,
        played_secs: 0.0,
        transitions: Vec::new(),
        state_times: Vec::new(),
        events: Vec::new(),
        written,
    };
    if let Some(entries) = &args.play {
        play(&mut stage, entries, args.tail, &mut report)?;
    }
    Ok(match args.format {
        Format::Text => report.to_text(),
        Format::Json => serde_json::to_string(&report)? + "\n",
    })
}

/// The tuning the machine is built from, and the profile read (if any).
fn tuning_of(model: &Model, args: &GraphArgs) -> anyhow::Result<(Tuning, Option<String>)> {
    let path = match &args.profile {
        Some(path) => path.clone(),
        None => match super::transition::profile_path(model, args.model.as_deref(), None) {
            Ok(path) if path.exists() => path,
            _ => return Ok((Tuning::authored(model), None)),
        },
    };
    let profile = TuningProfile::load(&path).with_context(|| format!("cannot read the profile {}", path.display()))?;
    let (tuning, _fit) = profile.to_tuning(model);
    Ok((tuning, Some(path.display().to_string())))
}

/// The feet's touch-downs of every clip as clip events named `FOOT_down` (a repeat on one clip
/// numbered `FOOT_down_2`…).
fn add_foot_events(stage: &mut Stage, rig: &Rig) {
    let clips: Vec<ClipId> = stage.model().clip_ids().map(|(id, _)| id).collect();
    for clip in clips {
        let [contacts, _] = stage.foot_contacts([clip, clip]);
        let mut seen: Vec<String> = Vec::new();
        for contact in rig.named(&contacts) {
            let base = format!("{}_down", contact.foot);
            let count = seen.iter().filter(|n| **n == base).count();
            let name = if count == 0 { base.clone() } else { format!("{base}_{}", count + 1) };
            seen.push(base);
            stage.machine_mut().add_event(clip, &name, contact.time_secs);
        }
    }
}

/// Step the stage at [`FRAME_HZ`], requesting each entry's state at its frame, until `tail`
/// seconds after the last entry.
fn play(stage: &mut Stage, entries: &[PlayEntry], tail: f32, report: &mut GraphReport) -> anyhow::Result<()> {
    let rig = Rig::new(stage.model());
    add_foot_events(stage, &rig);
    let dt = 1.0 / FRAME_HZ;
    let frame_of = |secs: f32| (secs * FRAME_HZ).round() as u64;
    let last = entries.last().map_or(0.0, |e| e.at_secs);
    let frames = frame_of(last + tail);
    let mut state_secs = vec![0.0_f32; stage.machine().machine().states().len()];
    let mut next = 0;
    // A first entry at 0 s is where the machine starts.
    if let Some(first) = entries.first().filter(|e| frame_of(e.at_secs) == 0) {
        let state = find_state(stage, first)?;
        let clip = stage.machine().clip_of(state).with_context(|| format!("{first}: the state plays no clip"))?;
        stage.transport.select_clip(clip);
        stage.machine_mut().follow_clip(clip);
        next = 1;
    }
    for frame in 0..=frames {
        let now = frame as f32 / FRAME_HZ;
        while let Some(entry) = entries.get(next).filter(|e| frame_of(e.at_secs) <= frame) {
            next += 1;
            let state = find_state(stage, entry)?;
            let from = stage.machine().output().state;
            let source_secs = stage.transport.time_secs();
            let taken = stage.request_state(state).with_context(|| format!("{entry}"))?;
            if let Some(id) = taken {
                report.transitions.push(taken_transition(stage, &rig, id, from, now, source_secs, true));
            }
        }
        if frame == frames {
            break;
        }
        let active = stage.machine().output().state;
        let source_secs = stage.transport.time_secs();
        stage.advance(dt);
        if let Some(slot) = state_secs.get_mut(active.index()) {
            *slot += dt;
        }
        let output = stage.machine().output();
        if let Some(id) = output.started {
            let at = (frame + 1) as f32 / FRAME_HZ;
            let length =
                stage.machine().clip_of(active).and_then(|c| stage.model().clip(c)).map_or(0.0, anim::Clip::end_secs);
            let source = if length > 0.0 { (source_secs + dt).rem_euclid(length) } else { 0.0 };
            report.transitions.push(taken_transition(stage, &rig, id, active, at, source, false));
        }
        for fired in stage.machine().events() {
            let event = stage.machine().machine().event(fired.event).map_or_else(String::new, |e| e.name.clone());
            report.events.push(GraphEvent {
                at_secs: (frame + 1) as f32 / FRAME_HZ,
                state: stage.machine().state_name(fired.state),
                event,
            });
        }
    }
    report.played_secs = frames as f32 / FRAME_HZ;
    report.state_times = state_secs
        .iter()
        .enumerate()
        .filter(|(_, secs)| **secs > 0.0)
        .map(|(i, secs)| StateTime {
            state: stage.machine().state_name(StateId::new(u32::try_from(i).unwrap_or(u32::MAX))),
            secs: *secs,
        })
        .collect();
    Ok(())
}

fn find_state(stage: &Stage, entry: &PlayEntry) -> anyhow::Result<StateId> {
    stage.machine().machine().find_state(&entry.state).with_context(|| {
        let names: Vec<&str> = stage.machine().machine().states().iter().map(|s| s.name.as_str()).collect();
        format!("{entry}: no state \"{}\"; states are: {}", entry.state, names.join(", "))
    })
}

/// Transition `id` just taken from `from` at `at_secs`, measured as `animtune transition`
/// measures its pair triggered at the source clip's `source_secs`.
fn taken_transition(
    stage: &mut Stage,
    rig: &Rig,
    id: TransitionId,
    from: StateId,
    at_secs: f32,
    source_secs: f32,
    requested: bool,
) -> GraphTransition {
    let machine = stage.machine().machine();
    let edge = machine.transition(id);
    let to = edge.map_or(from, |t| t.to);
    let edge_name = edge.map_or_else(String::new, |t| machine.transition_name(t));
    let from_clip = stage.machine().clip_of(from).unwrap_or(ClipId::new(0));
    let (to_clip, fade) =
        stage.machine().fade_of(id, from_clip, &stage.tuning).unwrap_or((from_clip, Default::default()));
    let contacts = stage.foot_contacts([from_clip, to_clip]);
    let model = stage.model();
    let from_name = model.clip(from_clip).map_or_else(String::new, |c| c.display_name(from_clip.index()));
    let pair = PairSettings {
        transition: fade.transition(0.0, 0.0),
        sync: if fade.phase_sync { Sync::Phase } else { Sync::None },
        match_speed: fade.match_speed,
        root_motion: stage.tuning.root_motion(&from_name),
        loops: 1,
        start_secs: None,
    };
    let figures = measure(model, rig, from_clip, to_clip, &[source_secs], &pair, Some(contacts));
    GraphTransition {
        at_secs,
        from: stage.machine().state_name(from),
        to: stage.machine().state_name(to),
        edge: edge_name,
        requested,
        figures,
    }
}

impl GraphReport {
    /// The report as text: the machine, each transition with `animtune transition`'s figures,
    /// the time in each state and the events fired.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "graph: {}, {} states, {} transitions{}",
            self.model,
            self.states.len(),
            self.machine_transitions,
            self.profile.as_ref().map_or_else(String::new, |p| format!(" (profile {p})"))
        );
        for file in &self.written {
            let _ = writeln!(s, "wrote {file}");
        }
        if self.played_secs == 0.0 && self.transitions.is_empty() {
            return s;
        }
        let _ = writeln!(s, "played {:.3} s at {} Hz", self.played_secs, self.frame_hz);
        for (i, t) in self.transitions.iter().enumerate() {
            let _ = writeln!(
                s,
                "\ntransition {} at {:.3} s: {} -> {} (edge {}{})",
                i + 1,
                t.at_secs,
                t.from,
                t.to,
                t.edge,
                if t.requested { "" } else { ", taken by the machine" }
            );
            for line in t.figures.to_text().lines() {
                let _ = writeln!(s, "  {line}");
            }
        }
        let _ = writeln!(s, "\ntime in each state:");
        for t in &self.state_times {
            let _ = writeln!(s, "  {:<16} {:.3} s", t.state, t.secs);
        }
        let _ = writeln!(s, "events fired: {}", self.events.len());
        for e in &self.events {
            let _ = writeln!(s, "  {:7.3} s  {:<16} {}", e.at_secs, e.state, e.event);
        }
        s
    }
}

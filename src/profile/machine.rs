//! The state machine in a profile: [`MachineProfile`], the edited machine with clips, states
//! and parameters by name (a re-exported file with its clips in another order finds the same
//! ones), kinds, easings, comparisons and interruption rules by their names.

use anim::state_machine::{
    BlendSpaceMotion, BlendSpacePoint, Compare, Condition, Interruption, LayerMotion, LayeredMotion, PaintedJoint,
    ParamKind, State, StateId, StateMachine, StateMotion, StateTransition, TransitionFrom,
};
use anim::{ClipId, Model};
use serde::{Deserialize, Serialize};

use super::FadeProfile;
use crate::stage::layers::JointWeight;
use crate::stage::tuning::FadeTuning;

/// The edited state machine, by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineProfile {
    /// The state it starts in.
    pub entry: String,
    /// The states.
    pub states: Vec<StateProfile>,
    /// The parameters.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<ParamProfile>,
    /// Clip events.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<EventProfile>,
    /// The transitions, in priority-tie order.
    #[serde(default)]
    pub transitions: Vec<TransitionProfile>,
}

/// A state: its name, what it plays, where a graph draws it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StateProfile {
    /// Unique name.
    pub name: String,
    /// What it plays.
    pub motion: MotionProfile,
    /// Graph position, pixels.
    #[serde(default)]
    pub position: [f32; 2],
}

/// What a state plays, clips by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum MotionProfile {
    /// One clip.
    Clip {
        /// The clip.
        clip: String,
    },
    /// A blend space.
    BlendSpace {
        /// Its name.
        name: String,
        /// Two axes.
        two_d: bool,
        /// Clips at their positions.
        points: Vec<(String, [f32; 2])>,
        /// The parameter driving x.
        x_param: Option<String>,
        /// The parameter driving y.
        y_param: Option<String>,
        /// Phase sync (else every clip on the clock); true in profiles saved before it.
        #[serde(default = "yes")]
        phase_sync: bool,
    },
    /// A base clip with layers.
    Layered {
        /// The clip underneath.
        base: String,
        /// (clip, weight, additive) per layer.
        layers: Vec<(String, f32, bool)>,
        /// Each layer's mask (joints or regions; empty: the whole body), in the layers' order;
        /// absent when no layer has one.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        masks: Vec<Vec<String>>,
        /// Each layer's weights painted per joint, in the layers' order; absent when no layer
        /// has any.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        joint_weights: Vec<Vec<JointWeight>>,
    },
}

/// A parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParamProfile {
    /// Unique name.
    pub name: String,
    /// `float`, `bool` or `trigger`.
    pub kind: String,
    /// Starting value (floats; bools as 0/1; unused for triggers).
    #[serde(default)]
    pub value: f32,
}

/// A clip event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventProfile {
    /// The clip.
    pub clip: String,
    /// Name (unique per clip).
    pub name: String,
    /// Clip time, seconds.
    pub time_secs: f32,
}

/// A condition, parameters and events by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "on", rename_all = "kebab-case")]
pub enum ConditionProfile {
    /// `param OP value`.
    Float {
        /// The parameter.
        param: String,
        /// `>`, `<`, `>=` or `<=`.
        compare: String,
        /// The threshold.
        value: f32,
    },
    /// A bool is `value`.
    Bool {
        /// The parameter.
        param: String,
        /// The value it must have.
        value: bool,
    },
    /// A trigger is set.
    Trigger {
        /// The parameter.
        param: String,
    },
    /// A clip event fired.
    Event {
        /// The event's clip.
        clip: String,
        /// The event's name.
        name: String,
    },
}

/// A transition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TransitionProfile {
    /// The state left, or `*` for any state.
    pub from: String,
    /// The state entered.
    pub to: String,
    /// How it fades (the fields a row of the transition table has too).
    #[serde(flatten)]
    pub fade: FadeProfile,
    /// Lower first.
    pub priority: u32,
    /// Conditions, all holding.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<ConditionProfile>,
    /// Taken at the source clip's end.
    #[serde(default)]
    pub at_end: bool,
    /// `none`, `source`, `target` or `both`.
    pub interruption: String,
}

fn yes() -> bool {
    true
}

fn clip_name(model: &Model, clip: ClipId) -> String {
    model.clips().get(clip.index()).map(|c| c.display_name(clip.index())).unwrap_or_default()
}

impl MachineProfile {
    /// The profile form of `machine` on `model`.
    pub fn of(machine: &StateMachine, model: &Model) -> Self {
        let state_name = |id: StateId| machine.state(id).map(|s| s.name.clone()).unwrap_or_default();
        let param_name =
            |id: anim::state_machine::ParamId| machine.param(id).map(|p| p.name.clone()).unwrap_or_default();
        let states = machine
            .states()
            .iter()
            .map(|s| StateProfile {
                name: s.name.clone(),
                motion: match &s.motion {
                    StateMotion::Clip(clip) => MotionProfile::Clip { clip: clip_name(model, *clip) },
                    StateMotion::BlendSpace(b) => MotionProfile::BlendSpace {
                        name: b.name.clone(),
                        two_d: b.two_d,
                        points: b.points.iter().map(|p| (clip_name(model, p.clip), p.position.to_array())).collect(),
                        x_param: b.x_param.map(param_name),
                        y_param: b.y_param.map(param_name),
                        phase_sync: b.phase_sync,
                    },
                    StateMotion::Layered(l) => MotionProfile::Layered {
                        base: clip_name(model, l.base),
                        layers: l.layers.iter().map(|x| (clip_name(model, x.clip), x.weight, x.additive)).collect(),
                        masks: if l.layers.iter().all(|x| x.mask.is_empty()) {
                            Vec::new()
                        } else {
                            l.layers.iter().map(|x| x.mask.clone()).collect()
                        },
                        joint_weights: if l.layers.iter().all(|x| x.joint_weights.is_empty()) {
                            Vec::new()
                        } else {
                            l.layers.iter().map(|x| x.joint_weights.iter().map(JointWeight::from).collect()).collect()
                        },
                    },
                },
                position: s.position.to_array(),
            })
            .collect();
        let params = machine
            .params()
            .iter()
            .map(|p| {
                let value = match p.kind {
                    ParamKind::Float(v) => v,
                    ParamKind::Bool(b) => f32::from(u8::from(b)),
                    ParamKind::Trigger => 0.0,
                };
                ParamProfile { name: p.name.clone(), kind: p.kind.name().to_owned(), value }
            })
            .collect();
        let events = machine
            .events()
            .iter()
            .map(|e| EventProfile { clip: clip_name(model, e.clip), name: e.name.clone(), time_secs: e.time_secs })
            .collect();
        let condition = |c: &Condition| match *c {
            Condition::Float { param, compare, value } => {
                ConditionProfile::Float { param: param_name(param), compare: compare.symbol().to_owned(), value }
            }
            Condition::Bool { param, value } => ConditionProfile::Bool { param: param_name(param), value },
            Condition::Trigger(param) => ConditionProfile::Trigger { param: param_name(param) },
            Condition::Event(id) => {
                let event = machine.event(id);
                ConditionProfile::Event {
                    clip: event.map(|e| clip_name(model, e.clip)).unwrap_or_default(),
                    name: event.map(|e| e.name.clone()).unwrap_or_default(),
                }
            }
        };
        let transitions = machine
            .transitions()
            .iter()
            .map(|t| TransitionProfile {
                from: match t.from {
                    TransitionFrom::State(id) => state_name(id),
                    TransitionFrom::Any => "*".to_owned(),
                },
                to: state_name(t.to),
                fade: FadeProfile::of(&FadeTuning::of_transition(t)),
                priority: t.priority,
                conditions: t.conditions.iter().map(condition).collect(),
                at_end: t.at_end,
                interruption: t.interruption.name().to_owned(),
            })
            .collect();
        Self { entry: state_name(machine.entry()), states, params, events, transitions }
    }

    /// The machine this profile describes on `model`, validated.
    ///
    /// # Errors
    /// A sentence naming what does not fit: a clip the model lacks, an unknown state,
    /// parameter, event or name of a kind, or the machine's validation error.
    pub fn to_machine(&self, model: &Model) -> Result<StateMachine, String> {
        let clip = |name: &str| {
            model
                .clips()
                .iter()
                .enumerate()
                .position(|(i, c)| c.display_name(i) == name)
                .map(ClipId::from_index)
                .ok_or_else(|| format!("clip {name} is not in this model"))
        };
        let mut machine = StateMachine::new();
        for p in &self.params {
            let kind = match p.kind.as_str() {
                "float" => ParamKind::Float(p.value),
                "bool" => ParamKind::Bool(p.value != 0.0),
                "trigger" => ParamKind::Trigger,
                other => return Err(format!("parameter {}: kind \"{other}\" unknown", p.name)),
            };
            machine.add_param(&p.name, kind);
        }
        let param = |machine: &StateMachine, name: &str| {
            machine.find_param(name).ok_or_else(|| format!("parameter {name} does not exist"))
        };
        for e in &self.events {
            machine.add_event(clip(&e.clip)?, &e.name, e.time_secs);
        }
        for s in &self.states {
            let motion = match &s.motion {
                MotionProfile::Clip { clip: c } => StateMotion::Clip(clip(c)?),
                MotionProfile::BlendSpace { name, two_d, points, x_param, y_param, phase_sync } => {
                    StateMotion::BlendSpace(BlendSpaceMotion {
                        name: name.clone(),
                        two_d: *two_d,
                        points: points
                            .iter()
                            .map(|(c, p)| Ok(BlendSpacePoint { clip: clip(c)?, position: glam::Vec2::from_array(*p) }))
                            .collect::<Result<_, String>>()?,
                        x_param: x_param.as_deref().map(|n| param(&machine, n)).transpose()?,
                        y_param: y_param.as_deref().map(|n| param(&machine, n)).transpose()?,
                        phase_sync: *phase_sync,
                    })
                }
                MotionProfile::Layered { base, layers, masks, joint_weights } => StateMotion::Layered(LayeredMotion {
                    base: clip(base)?,
                    layers: layers
                        .iter()
                        .enumerate()
                        .map(|(i, (c, weight, additive))| {
                            let mask = masks.get(i).cloned().unwrap_or_default();
                            let joint_weights = joint_weights
                                .get(i)
                                .map(|painted| painted.iter().map(PaintedJoint::from).collect())
                                .unwrap_or_default();
                            Ok(LayerMotion {
                                clip: clip(c)?,
                                weight: *weight,
                                additive: *additive,
                                mask,
                                joint_weights,
                            })
                        })
                        .collect::<Result<_, String>>()?,
                }),
            };
            machine.add_state(State { name: s.name.clone(), motion, position: glam::Vec2::from_array(s.position) });
        }
        let state = |machine: &StateMachine, name: &str| {
            machine.find_state(name).ok_or_else(|| format!("state {name} does not exist"))
        };
        machine.set_entry(state(&machine, &self.entry)?);
        for t in &self.transitions {
            let what = format!("transition {} -> {}", t.from, t.to);
            let from =
                if t.from == "*" { TransitionFrom::Any } else { TransitionFrom::State(state(&machine, &t.from)?) };
            let unknown = |field: &str, text: &str| format!("{what}: {field} \"{text}\" unknown");
            let mut conditions = Vec::with_capacity(t.conditions.len());
            for c in &t.conditions {
                conditions.push(match c {
                    ConditionProfile::Float { param: p, compare, value } => Condition::Float {
                        param: param(&machine, p)?,
                        compare: Compare::ALL
                            .into_iter()
                            .find(|c| c.symbol() == compare)
                            .ok_or_else(|| unknown("comparison", compare))?,
                        value: *value,
                    },
                    ConditionProfile::Bool { param: p, value } => {
                        Condition::Bool { param: param(&machine, p)?, value: *value }
                    }
                    ConditionProfile::Trigger { param: p } => Condition::Trigger(param(&machine, p)?),
                    ConditionProfile::Event { clip: c, name } => Condition::Event(
                        machine
                            .find_event(clip(c)?, name)
                            .ok_or_else(|| format!("{what}: event {name} on {c} missing"))?,
                    ),
                });
            }
            let mut problems = Vec::new();
            let fade = t.fade.to_fade(&mut problems);
            let fade = match (fade, problems.first()) {
                (Some(fade), None) => fade,
                (_, Some(problem)) => return Err(format!("{what}: {problem}")),
                (None, None) => return Err(format!("{what}: unreadable fade")),
            };
            machine.add_transition(StateTransition {
                priority: t.priority,
                conditions,
                at_end: t.at_end,
                interruption: Interruption::ALL
                    .into_iter()
                    .find(|i| i.name() == t.interruption)
                    .ok_or_else(|| unknown("interruption", &t.interruption))?,
                ..fade.to_transition(from, state(&machine, &t.to)?)
            });
        }
        crate::stage::machine::check(model, &machine).map_err(|e| e.to_string())?;
        Ok(machine)
    }
}

#[cfg(test)]
mod tests {
    use anim::state_machine::{Compare, Condition, Interruption, ParamKind, StateTransition, TransitionFrom};
    use anim::{Easing, TransitionKind};

    use super::*;

    #[test]
    fn a_machine_with_every_kind_of_condition_round_trips_through_json_by_name() {
        let model = anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None).expect("built-in model");
        let names = crate::stage::machine::state_names(&model);
        let clips = names.iter().enumerate().map(|(i, n)| (ClipId::from_index(i), n.as_str()));
        let mut machine = StateMachine::from_transition_table(clips, Vec::<anim::state_machine::TableEdge>::new())
            .expect("one state per clip");
        let (idle, walk) = (machine.find_state("Idle").expect("Idle"), machine.find_state("Walk").expect("Walk"));
        let speed = machine.add_param("speed", ParamKind::Float(0.25));
        let moving = machine.add_param("moving", ParamKind::Bool(true));
        let hop = machine.add_param("hop", ParamKind::Trigger);
        let step = machine.add_event(ClipId::from_index(1), "step", 0.5);
        machine.add_transition(StateTransition {
            kind: TransitionKind::Inertialize,
            easing: Easing::EaseInOutSine,
            priority: 3,
            at_end: true,
            interruption: Interruption::Both,
            sync: true,
            conditions: vec![
                Condition::Float { param: speed, compare: Compare::GreaterOrEqual, value: 1.5 },
                Condition::Bool { param: moving, value: false },
                Condition::Trigger(hop),
                Condition::Event(step),
            ],
            ..StateTransition::new(TransitionFrom::State(walk), idle, 0.75)
        });
        machine.add_transition(StateTransition::new(TransitionFrom::Any, walk, 0.125));
        machine.set_entry(walk);
        let profile = MachineProfile::of(&machine, &model);
        let text = serde_json::to_string_pretty(&profile).expect("json");
        assert!(text.contains("\"compare\": \">=\"") && text.contains("\"interruption\": \"both\""), "{text}");
        let read: MachineProfile = serde_json::from_str(&text).expect("read back");
        assert_eq!(read.to_machine(&model), Ok(machine), "the same machine, by name");
        // A clip the model lacks: refused, naming it.
        let mut renamed = read;
        renamed.states[1].motion = MotionProfile::Clip { clip: "Swim".to_owned() };
        assert_eq!(renamed.to_machine(&model), Err("clip Swim is not in this model".to_owned()));
    }

    #[test]
    fn a_blend_spaces_phase_sync_and_a_layers_mask_list_and_painted_weights_round_trip_and_old_profiles_read() {
        let model = anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None).expect("built-in model");
        let clip = |name: &str| model.find_clip(name).expect("clip");
        let mut machine = StateMachine::new();
        let speed = machine.add_param("speed", ParamKind::Float(2.0));
        let point = |c, x| BlendSpacePoint { clip: c, position: glam::Vec2::new(x, 0.0) };
        let space = StateMotion::BlendSpace(BlendSpaceMotion {
            name: "move".to_owned(),
            two_d: false,
            points: vec![point(clip("Walk"), 1.4), point(clip("Run"), 3.4)],
            x_param: Some(speed),
            y_param: None,
            phase_sync: false,
        });
        machine.add_state(State { name: "Move".to_owned(), motion: space, position: glam::Vec2::ZERO });
        let layer = LayerMotion {
            mask: vec!["upper-body".to_owned(), "UpperLeg.L".to_owned()],
            joint_weights: vec![
                PaintedJoint { joint: "UpperArm.L".to_owned(), weight: 0.3, subtree: true },
                PaintedJoint { joint: "Hand.L".to_owned(), weight: 0.0, subtree: false },
            ],
            ..LayerMotion::new(clip("Wave"), 0.8)
        };
        let layered = StateMotion::Layered(LayeredMotion { base: clip("Idle"), layers: vec![layer] });
        machine.add_state(State { name: "Waving".to_owned(), motion: layered, position: glam::Vec2::ZERO });
        let text = serde_json::to_string(&MachineProfile::of(&machine, &model)).expect("json");
        assert!(text.contains(r#""phase_sync":false"#) && text.contains(r#""joint":"UpperArm.L""#), "{text}");
        let read: MachineProfile = serde_json::from_str(&text).expect("read back");
        assert_eq!(read.to_machine(&model), Ok(machine), "the same machine");
        // Written before the switch and the paint: phase synced, nothing painted.
        let old = r#"{"entry": "Move", "params": [{"name": "speed", "kind": "float", "value": 2}], "states": [
            {"name": "Move", "motion": {"kind": "blend-space", "name": "move", "two_d": false,
              "points": [["Walk", [1.4, 0]], ["Run", [3.4, 0]]], "x_param": "speed", "y_param": null}},
            {"name": "Waving", "motion": {"kind": "layered", "base": "Idle", "layers": [["Wave", 0.8, false]],
              "masks": [["upper-body"]]}}]}"#;
        let old = serde_json::from_str::<MachineProfile>(old).expect("an older profile").to_machine(&model);
        let old = old.expect("fits the model");
        let StateMotion::BlendSpace(space) = &old.states()[0].motion else { panic!("a blend space") };
        let StateMotion::Layered(layered) = &old.states()[1].motion else { panic!("layered") };
        assert!(space.phase_sync, "phase synced, as it played then");
        assert_eq!(
            (layered.layers[0].mask.as_slice(), layered.layers[0].joint_weights.len()),
            (&["upper-body".to_owned()][..], 0)
        );
    }

    #[test]
    fn profiles_saved_before_the_shared_fade_still_read_sync_as_a_bool_or_a_name() {
        let model = anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None).expect("built-in model");
        // A machine transition as machine profiles wrote it (sync a bool) and a table row (a name).
        let machine = r#"{"entry": "Idle", "states": [
            {"name": "Idle", "motion": {"kind": "clip", "clip": "Idle"}},
            {"name": "Walk", "motion": {"kind": "clip", "clip": "Walk"}}],
          "transitions": [{"from": "Idle", "to": "Walk", "kind": "inertialize", "duration_secs": 0.3,
            "easing": "smoothstep", "decay": "quintic", "half_life_secs": 0.05, "sync": true,
            "priority": 2, "interruption": "none"}]}"#;
        let read: MachineProfile = serde_json::from_str(machine).expect("an older machine profile");
        assert_eq!(read.transitions[0].fade.sync, "phase");
        let built = read.to_machine(&model).expect("fits the model");
        let t = &built.transitions()[0];
        assert!(t.sync && t.kind == anim::TransitionKind::Inertialize && (t.duration_secs - 0.3).abs() < 1e-6);
        assert_eq!((t.priority, t.half_life_secs), (2, 0.05));
        let row: crate::profile::Transition = serde_json::from_str(
            r#"{"from": "Idle", "to": "Walk", "duration_secs": 0.4, "easing": "linear", "sync": "phase"}"#,
        )
        .expect("a table row");
        assert_eq!((row.fade.sync.as_str(), row.fade.kind.as_str()), ("phase", "crossfade"));
        // Written back, both say "phase" (one form).
        let text = serde_json::to_string(&read.transitions[0]).expect("json");
        assert!(text.contains(r#""sync":"phase""#) && text.contains(r#""priority":2"#), "{text}");
        // An unknown kind in a machine transition: refused, naming it.
        let mut bad = read;
        bad.transitions[0].fade.kind = "teleport".to_owned();
        assert_eq!(
            bad.to_machine(&model),
            Err("transition Idle -> Walk: kind \"teleport\" unknown (a cross-fade)".to_owned())
        );
    }

    #[test]
    fn drive_picks_and_bindings_naming_what_no_longer_exists_are_skipped_with_a_message() {
        use crate::profile::{ModelIdentity, TuningProfile};
        use crate::stage::machine_edit::{BindingEffect, ParamBinding};
        let model = anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None).expect("built-in model");
        let mut tuning = crate::stage::tuning::Tuning::authored(&model);
        tuning.machine_keys.drive.walk = Some("Run".to_owned());
        tuning.machine_keys.drive.rest = Some("Sleep".to_owned());
        tuning.machine_keys.bindings.push(ParamBinding::new("crouch", "C", BindingEffect::Hold));
        let identity = ModelIdentity::of(&model, None);
        let profile = TuningProfile::from_tuning(&tuning, &model, &identity, "mannequin");
        let text = serde_json::to_string(&profile).expect("json");
        assert!(text.contains(r#""machine_keys":{"drive":{"rest":"Sleep","walk":"Run"}"#), "{text}");
        assert!(text.contains(r#"{"param":"crouch","key":"C","effect":"hold"}"#), "{text}");
        let read: TuningProfile = serde_json::from_str(&text).expect("read back");
        let (back, fit) = read.to_tuning(&model);
        assert_eq!(back.machine_keys.drive.walk.as_deref(), Some("Run"), "Run is a state of the table's machine");
        assert_eq!(back.machine_keys.drive.rest, None, "no state Sleep: found by name instead");
        assert!(back.machine_keys.bindings.is_empty(), "no parameter crouch");
        assert!(fit.skipped.contains(&"rest key's state Sleep: no such state (found by name instead)".to_owned()));
        assert!(fit.skipped.contains(&"key C of parameter crouch: no such parameter".to_owned()), "{:?}", fit.skipped);
    }
}

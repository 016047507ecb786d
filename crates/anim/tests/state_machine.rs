//! The state machine: validation, the runtime job with real numbers (fades, triggers, events
//! across loop seams, interruption rules, at-end exits, priorities, requests) and the engine
//! exports (Godot 4 `.tres` round trip, Bevy `.animgraph.ron`).

#![allow(clippy::unwrap_used)]

use anim::state_machine::{
    Compare, Condition, FiredEvent, Interruption, MachineRuntime, ParamKind, ParamValue, RuntimeError, State, StateId,
    StateMachine, StateMachineError, StateMotion, StateTransition, TransitionFrom,
};
use anim::{ClipId, Easing, TransitionKind};
use devtools::alloc::{CountingAllocator, allocations_on_this_thread};
use glam::Vec2;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

const IDLE: ClipId = ClipId::new(0);
const WALK: ClipId = ClipId::new(1);
const RUN: ClipId = ClipId::new(2);
const JUMP: ClipId = ClipId::new(3);
/// Clip lengths, seconds (binary fractions, so step sums are exact).
const DURATIONS: [f32; 4] = [2.0, 1.0, 0.75, 0.5];

fn clip_state(name: &str, clip: ClipId) -> State {
    State { name: name.to_owned(), motion: StateMotion::Clip(clip), position: Vec2::ZERO }
}

/// Idle, Walk, Run, Jump and a `speed` float, a `grounded` bool and a `jump` trigger.
struct Locomotion {
    machine: StateMachine,
    states: [StateId; 4],
    speed: anim::state_machine::ParamId,
    jump: anim::state_machine::ParamId,
}

fn locomotion() -> Locomotion {
    let mut machine = StateMachine::new();
    let states = [
        machine.add_state(clip_state("Idle", IDLE)),
        machine.add_state(clip_state("Walk", WALK)),
        machine.add_state(clip_state("Run", RUN)),
        machine.add_state(clip_state("Jump", JUMP)),
    ];
    let speed = machine.add_param("speed", ParamKind::Float(0.0));
    machine.add_param("grounded", ParamKind::Bool(true));
    let jump = machine.add_param("jump", ParamKind::Trigger);
    Locomotion { machine, states, speed, jump }
}

fn edge(from: StateId, to: StateId, secs: f32, conditions: Vec<Condition>) -> StateTransition {
    StateTransition { conditions, ..StateTransition::new(TransitionFrom::State(from), to, secs) }
}

fn speed_over(l: &Locomotion, value: f32) -> Condition {
    Condition::Float { param: l.speed, compare: Compare::Greater, value }
}

fn speed_under(l: &Locomotion, value: f32) -> Condition {
    Condition::Float { param: l.speed, compare: Compare::Less, value }
}

fn step(rt: &mut MachineRuntime, m: &StateMachine, dt: f32) -> anim::state_machine::StepOutput {
    let mut events = Vec::new();
    rt.step(m, dt, &DURATIONS, &mut events)
}

#[test]
fn invalid_machines_are_rejected_naming_the_fault() {
    assert_eq!(StateMachine::new().validate(), Err(StateMachineError::NoStates));

    let mut l = locomotion();
    l.machine.add_state(clip_state("Walk", RUN));
    let err = l.machine.validate().unwrap_err();
    assert_eq!(err, StateMachineError::DuplicateName { what: "state", name: "Walk".into() });

    let l = locomotion();
    let mut m = l.machine.clone();
    m.add_transition(edge(l.states[0], StateId::new(9), 0.2, vec![]));
    let err = m.validate().unwrap_err();
    assert!(err.to_string().contains("Idle -> #9") && err.to_string().contains("state 9 does not exist"), "{err}");

    for bad in [f32::NAN, -0.1, f32::INFINITY] {
        let mut m = l.machine.clone();
        m.add_transition(edge(l.states[0], l.states[1], bad, vec![]));
        let err = m.validate().unwrap_err();
        assert!(matches!(err, StateMachineError::BadSeconds { field: "duration_secs", .. }), "{err}");
        assert!(err.to_string().contains("Idle -> Walk"), "{err}");
    }

    let mut m = l.machine.clone();
    let ghost = anim::state_machine::ParamId::new(7);
    m.add_transition(edge(l.states[0], l.states[1], 0.2, vec![Condition::Trigger(ghost)]));
    let err = m.validate().unwrap_err();
    assert_eq!(err.to_string(), "transition Idle -> Walk: condition on unknown parameter 7");

    let mut m = l.machine.clone();
    m.add_transition(edge(l.states[0], l.states[1], 0.2, vec![Condition::Trigger(l.speed)]));
    let err = m.validate().unwrap_err();
    assert_eq!(
        err.to_string(),
        "transition Idle -> Walk: parameter \"speed\" is a float, the condition needs a trigger"
    );

    let mut m = l.machine.clone();
    m.add_event(WALK, "foot", -0.5);
    assert!(matches!(m.validate(), Err(StateMachineError::BadEventTime { .. })));

    let mut m = l.machine.clone();
    let layered = anim::state_machine::LayeredMotion {
        base: IDLE,
        layers: vec![anim::state_machine::LayerMotion::new(WALK, f32::NAN)],
    };
    m.add_state(State { name: "Wave".into(), motion: StateMotion::Layered(layered), position: Vec2::ZERO });
    let err = m.validate().unwrap_err();
    assert_eq!(err.to_string(), "state \"Wave\": layer of clip 1 weighs NaN (must be 0-1)");

    let mut m = l.machine.clone();
    let mut layer = anim::state_machine::LayerMotion::new(WALK, 0.5);
    layer.joint_weights =
        vec![anim::state_machine::PaintedJoint { joint: "Hand.L".into(), weight: 1.5, subtree: false }];
    let layered = anim::state_machine::LayeredMotion { base: IDLE, layers: vec![layer] };
    m.add_state(State { name: "Wave".into(), motion: StateMotion::Layered(layered), position: Vec2::ZERO });
    assert_eq!(m.validate().unwrap_err().to_string(), "state \"Wave\": joint Hand.L is painted at 1.5 (must be 0-1)");

    let mut m = l.machine.clone();
    m.add_param("speed", ParamKind::Bool(false));
    assert_eq!(m.validate(), Err(StateMachineError::DuplicateName { what: "parameter", name: "speed".into() }));
}

#[test]
fn the_transition_table_becomes_one_state_per_clip_and_one_edge_per_pair() {
    let clips = [(IDLE, "Idle"), (WALK, "Walk"), (RUN, "Run")];
    let pairs = [
        (IDLE, WALK, 0.3, TransitionKind::CrossFade, Easing::Smoothstep),
        (WALK, RUN, 0.2, TransitionKind::Inertialize, Easing::Linear),
    ];
    let m = StateMachine::from_transition_table(clips, pairs).unwrap();
    assert_eq!(m.states().len(), 3);
    assert_eq!(m.transitions().len(), 2);
    let walk_run = &m.transitions()[1];
    assert_eq!(walk_run.from, TransitionFrom::State(m.find_state("Walk").unwrap()));
    assert_eq!(walk_run.to, m.find_state("Run").unwrap());
    assert_eq!((walk_run.duration_secs, walk_run.kind), (0.2, TransitionKind::Inertialize));
    assert!(!walk_run.is_automatic(), "table edges are taken on request only");

    let err =
        StateMachine::from_transition_table(clips, [(IDLE, JUMP, 0.3, TransitionKind::CrossFade, Easing::Linear)]);
    assert!(matches!(err, Err(StateMachineError::UnknownState { .. })));
    let nan =
        StateMachine::from_transition_table(clips, [(IDLE, WALK, f32::NAN, TransitionKind::CrossFade, Easing::Linear)]);
    assert!(matches!(nan, Err(StateMachineError::BadSeconds { .. })));
}

#[test]
fn idle_to_walk_on_speed_fades_with_the_easing() {
    let mut l = locomotion();
    let [idle, walk, ..] = l.states;
    let t = l.machine.add_transition(StateTransition {
        easing: Easing::Smoothstep,
        ..edge(idle, walk, 0.25, vec![speed_over(&l, 0.1)])
    });
    let m = &l.machine;
    let mut rt = MachineRuntime::new(m);
    let out = step(&mut rt, m, 0.5);
    assert_eq!((out.state, out.transition, out.started), (idle, None, None));
    assert_eq!(out.state_secs, 0.5);

    rt.set_float(m, l.speed, 0.5).unwrap();
    let out = step(&mut rt, m, 0.05);
    assert_eq!(out.started, Some(t));
    assert_eq!(out.state, walk);
    let running = out.transition.unwrap();
    assert_eq!((running.from, running.to, running.weight, running.elapsed_secs), (idle, walk, 0.0, 0.0));

    let out = step(&mut rt, m, 0.1);
    let running = out.transition.unwrap();
    // Smoothstep at 0.1 / 0.25 = 0.4: 0.4² · (3 − 0.8) = 0.352.
    assert!((running.weight - 0.352).abs() < 1e-6, "{}", running.weight);
    assert!((running.elapsed_secs - 0.1).abs() < 1e-6);
    assert_eq!(running.kind, TransitionKind::CrossFade);

    let out = step(&mut rt, m, 0.1);
    assert!((out.transition.unwrap().weight - Easing::Smoothstep.apply(0.8)).abs() < 1e-6);
    let out = step(&mut rt, m, 0.05);
    assert_eq!((out.state, out.transition), (walk, None), "done at 0.25 s");
    assert!((out.state_secs - 0.25).abs() < 1e-6);
    assert_eq!(
        rt.set_bool(m, l.speed, true),
        Err(RuntimeError::WrongKind { name: "speed".into(), actual: "float", expected: "bool" })
    );
}

#[test]
fn a_trigger_is_consumed_by_the_transition_that_uses_it() {
    let mut l = locomotion();
    let [idle, _, _, jump] = l.states;
    let take_off = l.machine.add_transition(edge(idle, jump, 0.125, vec![Condition::Trigger(l.jump)]));
    l.machine.add_transition(StateTransition { at_end: true, ..edge(jump, idle, 0.125, vec![]) });
    let m = &l.machine;
    let mut rt = MachineRuntime::new(m);
    rt.fire(m, l.jump).unwrap();
    let mut take_offs = 0;
    let mut landings = 0;
    for _ in 0..40 {
        let out = step(&mut rt, m, 0.0625);
        match out.started {
            Some(t) if t == take_off => take_offs += 1,
            Some(_) => landings += 1,
            None => {}
        }
    }
    assert_eq!((take_offs, landings), (1, 1));
    assert_eq!(rt.value(l.jump), Some(ParamValue::Trigger(false)));
    assert_eq!(rt.output(m).state, idle);
}

#[test]
fn events_fire_once_when_crossed_loop_seam_included() {
    let mut l = locomotion();
    let foot = l.machine.add_event(WALK, "foot", 0.0);
    let mid = l.machine.add_event(WALK, "mid", 0.5);
    l.machine.set_entry(l.states[1]);
    let m = &l.machine;
    let mut rt = MachineRuntime::new(m);
    let mut events: Vec<FiredEvent> = Vec::with_capacity(MachineRuntime::event_capacity(m));
    let mut per_step = Vec::new();
    for _ in 0..6 {
        events.clear();
        rt.step(m, 0.3, &DURATIONS, &mut events);
        per_step.push(events.iter().map(|e| e.event).collect::<Vec<_>>());
    }
    // [0, .3) foot; [.3, .6) mid; [.6, .9) —; [.9, 1.2) the seam: foot once; [1.2, 1.5) —; [1.5, 1.8) mid.
    assert_eq!(per_step, vec![vec![foot], vec![mid], vec![], vec![foot], vec![], vec![mid]]);
    // A step over several loops fires each event once.
    events.clear();
    rt.step(m, 3.25, &DURATIONS, &mut events);
    assert_eq!(events.iter().map(|e| e.event).collect::<Vec<_>>(), vec![foot, mid]);
    assert!(events.capacity() <= MachineRuntime::event_capacity(m).max(4));
}

#[test]
fn an_event_is_a_condition_in_the_step_it_fires() {
    let mut l = locomotion();
    let [idle, walk, ..] = l.states;
    let plant = l.machine.add_event(WALK, "plant", 0.5);
    l.machine.set_entry(walk);
    l.machine.add_transition(edge(walk, idle, 0.25, vec![Condition::Event(plant), speed_under(&l, 0.1)]));
    let m = &l.machine;
    let mut rt = MachineRuntime::new(m);
    assert_eq!(step(&mut rt, m, 0.25).state, walk);
    assert_eq!(step(&mut rt, m, 0.125).state, walk, "the marker is not crossed yet");
    assert_eq!(step(&mut rt, m, 0.25).state, idle, "crossed at 0.5 s");
}

/// Walk→Run (speed > 2, 0.5 s) with `rule`, and Walk→Idle, Run→Idle (speed < 0.1, 0.2 s);
/// speed set to 3 then, 0.1 s into Walk→Run, to 0.
fn interrupt_with(rule: Interruption) -> (anim::state_machine::StepOutput, [StateId; 4]) {
    let mut l = locomotion();
    let [idle, walk, run, _] = l.states;
    l.machine.set_entry(walk);
    l.machine.add_transition(StateTransition { interruption: rule, ..edge(walk, run, 0.5, vec![speed_over(&l, 2.0)]) });
    l.machine.add_transition(edge(walk, idle, 0.2, vec![speed_under(&l, 0.1)]));
    l.machine.add_transition(edge(run, idle, 0.3, vec![speed_under(&l, 0.1)]));
    let m = &l.machine;
    let mut rt = MachineRuntime::new(m);
    rt.set_float(m, l.speed, 3.0).unwrap();
    step(&mut rt, m, 0.0625);
    step(&mut rt, m, 0.125);
    rt.set_float(m, l.speed, 0.0).unwrap();
    (step(&mut rt, m, 0.0625), l.states)
}

#[test]
fn interruption_follows_the_running_transitions_rule() {
    let (out, [idle, walk, run, _]) = interrupt_with(Interruption::None);
    let running = out.transition.unwrap();
    assert_eq!((out.state, running.from, running.to, out.started), (run, walk, run, None));
    assert!((running.elapsed_secs - 0.1875).abs() < 1e-6);

    let (out, _) = interrupt_with(Interruption::Source);
    let running = out.transition.unwrap();
    assert_eq!((out.state, running.from, running.to, running.duration_secs), (idle, walk, idle, 0.2));
    assert_eq!(running.elapsed_secs, 0.0);

    let (out, _) = interrupt_with(Interruption::Target);
    let running = out.transition.unwrap();
    assert_eq!((running.from, running.to, running.duration_secs), (run, idle, 0.3));

    let (out, _) = interrupt_with(Interruption::Both);
    assert_eq!(out.transition.unwrap().from, walk, "the source's transitions first");
}

#[test]
fn at_end_fires_at_the_clips_end_not_before() {
    let mut l = locomotion();
    let [idle, _, _, jump] = l.states;
    l.machine.set_entry(jump);
    l.machine.add_transition(StateTransition { at_end: true, ..edge(jump, idle, 0.125, vec![]) });
    let m = &l.machine;
    let mut rt = MachineRuntime::new(m);
    for i in 1..=3 {
        let out = step(&mut rt, m, 0.125);
        assert_eq!(out.state, jump, "{} s of a 0.5 s clip", 0.125 * i as f32);
    }
    let out = step(&mut rt, m, 0.125);
    assert_eq!((out.state, out.transition.map(|t| t.from)), (idle, Some(jump)), "at 0.5 s");
}

#[test]
fn the_lowest_priority_wins_and_ties_keep_list_order() {
    let mut l = locomotion();
    let [idle, walk, run, jump] = l.states;
    l.machine.add_transition(StateTransition { priority: 2, ..edge(idle, walk, 0.2, vec![speed_over(&l, 0.1)]) });
    l.machine.add_transition(StateTransition { priority: 1, ..edge(idle, run, 0.2, vec![speed_over(&l, 0.1)]) });
    l.machine.add_transition(StateTransition { priority: 1, ..edge(idle, jump, 0.2, vec![speed_over(&l, 0.1)]) });
    let m = &l.machine;
    let mut rt = MachineRuntime::new(m);
    rt.set_float(m, l.speed, 1.0).unwrap();
    assert_eq!(step(&mut rt, m, 0.1).state, run);
}

#[test]
fn request_goes_through_the_machines_own_edge() {
    let mut l = locomotion();
    let [idle, walk, run, jump] = l.states;
    l.machine.add_transition(edge(idle, walk, 0.2, vec![]));
    let idle_run =
        l.machine.add_transition(StateTransition { kind: TransitionKind::DeadBlend, ..edge(idle, run, 0.4, vec![]) });
    let any_run = l.machine.add_transition(StateTransition::new(TransitionFrom::Any, run, 0.1));
    let m = &l.machine;
    let mut rt = MachineRuntime::new(m);
    assert_eq!(rt.request(m, run, &DURATIONS), Ok(Some(idle_run)));
    let out = rt.output(m);
    let running = out.transition.unwrap();
    assert_eq!(
        (out.state, running.from, running.duration_secs, running.kind),
        (run, idle, 0.4, TransitionKind::DeadBlend)
    );
    assert_eq!(out.started, Some(idle_run));
    assert_eq!(rt.request(m, run, &DURATIONS), Ok(None), "already heading there: the fade goes on");
    assert_eq!(rt.output(m).transition.and_then(|t| t.transition), Some(idle_run));

    // From Walk there is no Walk→Run edge: the any-state one.
    let mut rt = MachineRuntime::new(m);
    rt.request(m, walk, &DURATIONS).unwrap();
    assert_eq!(rt.request(m, run, &DURATIONS), Ok(Some(any_run)));
    assert_eq!(rt.request(m, jump, &DURATIONS), Err(RuntimeError::NoPath { from: "Run".into(), to: "Jump".into() }));
    assert_eq!(rt.request(m, StateId::new(9), &DURATIONS), Err(RuntimeError::UnknownState(StateId::new(9))));
}

#[test]
fn a_synced_transition_starts_the_target_at_the_sources_phase() {
    let mut l = locomotion();
    let [_, walk, run, _] = l.states;
    l.machine.set_entry(walk);
    l.machine.add_transition(StateTransition { sync: true, ..edge(walk, run, 0.25, vec![speed_over(&l, 2.0)]) });
    let m = &l.machine;
    let mut rt = MachineRuntime::new(m);
    step(&mut rt, m, 1.25);
    rt.set_float(m, l.speed, 3.0).unwrap();
    // Walk at 1.5 s of a 1 s loop: phase 0.5; Run's 0.75 s clip starts at 0.375 s.
    let out = step(&mut rt, m, 0.25);
    assert_eq!(out.transition.unwrap().start_secs, 0.375);
    assert_eq!(out.state_secs, 0.375);
}

const CLIP_NAMES: [&str; 4] = ["Idle", "Walk", "Run", "Jump"];

/// Every feature: clip, 1D and 2D blend-space and layered states, all parameter kinds, an
/// event, conditions of each kind, every transition kind, at end, sync, interruption, any state.
fn full_machine() -> StateMachine {
    use anim::state_machine::{BlendSpaceMotion, BlendSpacePoint, LayerMotion, LayeredMotion};
    let mut l = locomotion();
    let [idle, walk, run, jump] = l.states;
    let m = &mut l.machine;
    let grounded = m.find_param("grounded").unwrap();
    let locomotion = m.add_state(State {
        name: "Locomotion".into(),
        motion: StateMotion::BlendSpace(BlendSpaceMotion {
            name: "move".into(),
            two_d: false,
            points: vec![
                BlendSpacePoint { clip: IDLE, position: Vec2::new(0.0, 0.0) },
                BlendSpacePoint { clip: WALK, position: Vec2::new(1.5, 0.0) },
                BlendSpacePoint { clip: RUN, position: Vec2::new(4.0, 0.0) },
            ],
            x_param: Some(l.speed),
            y_param: None,
            phase_sync: true,
        }),
        position: Vec2::new(400.0, 240.0),
    });
    m.add_state(State {
        name: "Strafe".into(),
        motion: StateMotion::BlendSpace(BlendSpaceMotion {
            name: "strafe".into(),
            two_d: true,
            points: vec![
                BlendSpacePoint { clip: WALK, position: Vec2::new(-1.0, 0.0) },
                BlendSpacePoint { clip: RUN, position: Vec2::new(1.0, 0.0) },
                BlendSpacePoint { clip: IDLE, position: Vec2::new(0.0, 1.5) },
            ],
            x_param: Some(l.speed),
            y_param: Some(l.speed),
            phase_sync: false,
        }),
        position: Vec2::new(600.0, 240.0),
    });
    m.add_state(State {
        name: "Wave".into(),
        motion: StateMotion::Layered(LayeredMotion {
            base: IDLE,
            layers: vec![LayerMotion::new(JUMP, 0.5), LayerMotion { additive: true, ..LayerMotion::new(RUN, 0.25) }],
        }),
        position: Vec2::new(-200.0, 120.5),
    });
    let plant = m.add_event(WALK, "plant", 0.5);
    m.add_event(RUN, "plant", 0.375);
    m.add_transition(StateTransition {
        easing: Easing::Smoothstep,
        priority: 2,
        ..edge(idle, walk, 0.25, vec![Condition::Float { param: l.speed, compare: Compare::Greater, value: 0.1 }])
    });
    m.add_transition(StateTransition {
        kind: TransitionKind::Inertialize,
        decay: anim::OffsetDecay::CriticallyDamped,
        sync: true,
        interruption: Interruption::Source,
        easing: Easing::EaseInOutSine,
        ..edge(walk, run, 0.2, vec![Condition::Float { param: l.speed, compare: Compare::GreaterOrEqual, value: 2.0 }])
    });
    m.add_transition(edge(
        walk,
        idle,
        0.3,
        vec![Condition::Float { param: l.speed, compare: Compare::LessOrEqual, value: 0.1 }, Condition::Event(plant)],
    ));
    m.add_transition(StateTransition {
        kind: TransitionKind::DeadBlend,
        half_life_secs: 0.05,
        ..edge(idle, jump, 0.125, vec![Condition::Trigger(l.jump)])
    });
    m.add_transition(StateTransition {
        at_end: true,
        interruption: Interruption::Both,
        ..edge(jump, idle, 0.2, vec![Condition::Bool { param: grounded, value: true }])
    });
    m.add_transition(StateTransition {
        conditions: vec![Condition::Bool { param: grounded, value: false }],
        priority: 0,
        ..StateTransition::new(TransitionFrom::Any, jump, 0.1)
    });
    m.add_transition(edge(idle, locomotion, 0.5, vec![]));
    m.validate().unwrap();
    l.machine
}

#[test]
fn godot_export_writes_the_resource_godot_reads() {
    let m = full_machine();
    let text = anim::state_machine::export_godot(&m, &CLIP_NAMES).unwrap();
    let sub_resources = text.matches("[sub_resource ").count();
    // 4 clip states + a layered state's tree of 6 (the tree, base, 2 layer clips, 2 mixes) + 3 + 3 blend points + 2 spaces + start + 7 transitions + 2 curves
    // (the two transitions that are not linear).
    assert_eq!(sub_resources, 4 + 6 + 6 + 2 + 1 + 7 + 2);
    let header = format!("[gd_resource type=\"AnimationNodeStateMachine\" load_steps={} format=3]", sub_resources + 1);
    assert!(text.starts_with(&header), "{}", &text[..80]);
    for line in [
        "animation = &\"Walk\"",
        "[sub_resource type=\"AnimationNodeBlendSpace1D\" id=\"AnimationNodeBlendSpace1D_s4\"]",
        "blend_point_1/pos = 1.5",
        "sync = true",
        "blend_point_2/pos = Vector2(0.0, 1.5)",
        "; Idle -> Jump: Godot holds one transition per pair of states; Idle -> Jump is * -> Jump's there.",
        "advance_expression = \"speed > 0.1\"",
        "advance_expression = \"speed <= 0.1 and event_plant\"",
        "advance_expression = \"not grounded\"",
        "advance_condition = &\"jump\"",
        "advance_condition = &\"grounded\"",
        "xfade_curve = SubResource(\"Curve_t0\")",
        "switch_mode = 2",
        "switch_mode = 1",
        "advance_mode = 1",
        "priority = 0",
        "states/Wave/position = Vector2(-200.0, 120.5)",
        "states/Wave/node = SubResource(\"AnimationNodeBlendTree_s6\")",
        "[sub_resource type=\"AnimationNodeBlend2\" id=\"AnimationNodeBlend2_s6_1\"]",
        "[sub_resource type=\"AnimationNodeAdd2\" id=\"AnimationNodeAdd2_s6_2\"]",
        "metadata/blend_amount = 0.25",
        "node_connections = [&\"mix1\", 0, &\"base\", &\"mix1\", 1, &\"layer1\", &\"mix2\", 0, &\"mix1\", &\"mix2\", 1, &\"layer2\", &\"output\", 0, &\"mix2\"]",
        "; Idle -> Jump: Godot has no dead blending; a cross-fade of the same length.",
    ] {
        assert!(text.lines().any(|l| l == line), "missing `{line}` in\n{text}");
    }
    let list = text.lines().find(|l| l.starts_with("transitions = [")).unwrap();
    assert!(list.starts_with("transitions = [\"Start\", \"Idle\", SubResource(\"AnimationNodeStateMachineTransition_start\"), \"Idle\", \"Walk\", SubResource(\"AnimationNodeStateMachineTransition_t0\")"), "{list}");
    // The any-state edge: one entry from each of the six other states; Idle -> Jump is its pair
    // (priority 0 before the trigger edge's 1), so the trigger edge has no entry.
    assert_eq!(list.matches("AnimationNodeStateMachineTransition_t5").count(), 6);
    assert_eq!(list.matches("AnimationNodeStateMachineTransition_t3\"").count(), 0);
    // Smoothstep sampled into the curve: at x = 0.5, y = 0.5 with slope 1.5.
    assert!(text.contains("Vector2(0.5, 0.5), 1.5"), "{text}");
}

/// Godot 4 itself reads every kind of state, condition and switch mode of the export as written
/// (`devtools::godot`: `tools/godot-check/check.gd` in the Godot `scripts/install-godot.sh`
/// unpacks; skipped without it, failing under `CI=true`).
#[test]
fn godot_reads_every_kind_of_state_condition_and_switch_mode_as_written() {
    let m = full_machine();
    let dir = devtools::TempDir::new("state-machine-godot");
    let tres = dir.write("full.tres", anim::state_machine::export_godot(&m, &CLIP_NAMES).unwrap().as_bytes());
    let glb = devtools::ci::repo_root().join("assets/mannequin.glb");
    let args = ["--glb", glb.to_str().unwrap(), "--auto", "Idle,Walk,speed=0.5", "--auto", "Idle,Walk,speed=0.05"];
    let Some(report) = devtools::godot::check(&tres, &args, &dir.path().join("home")) else { return };
    devtools::godot::assert_reads(&report, &m, &CLIP_NAMES);
    // The 2-D blend space has its points triangulated (Godot does it itself, a frame after loading).
    let strafe = devtools::godot::states(&report).into_iter().find(|s| s["name"] == "Strafe").unwrap();
    assert_eq!((strafe["class"].as_str(), strafe["triangles"].as_u64()), (Some("AnimationNodeBlendSpace2D"), Some(1)));
    // Sync, at end with a condition, an event in an expression.
    assert_eq!(devtools::godot::transition(&report, "Walk", "Run")["switch_mode"], 1);
    let back = devtools::godot::transition(&report, "Jump", "Idle");
    assert_eq!((back["switch_mode"].as_i64(), back["advance_condition"].as_str()), (Some(2), Some("grounded")));
    assert_eq!(
        devtools::godot::transition(&report, "Walk", "Idle")["advance_expression"],
        "speed <= 0.1 and event_plant"
    );
    assert_eq!(report["glb"]["missing"], serde_json::json!([]));
    // `speed > 0.1`: 0.5 takes Idle to Walk, 0.05 does not.
    let ran: Vec<&str> =
        report["glb"]["auto"].as_array().unwrap().iter().map(|a| a["current"].as_str().unwrap()).collect();
    assert_eq!(ran, ["Walk", "Idle"]);
}

#[test]
fn a_godot_export_imports_back_to_the_same_machine() {
    let m = full_machine();
    let text = anim::state_machine::export_godot(&m, &CLIP_NAMES).unwrap();
    let back = anim::state_machine::import_godot(&text, &CLIP_NAMES).unwrap();
    assert_eq!(back, m);
}

#[test]
fn a_layered_states_masks_and_painted_weights_survive_the_godot_round_trip() {
    let mut m = full_machine();
    let mut layered = m.states()[6].clone();
    let StateMotion::Layered(motion) = &mut layered.motion else { panic!("state 6 is layered") };
    motion.layers[0].mask = vec!["upper-body".into(), "Neck".into()];
    motion.layers[1].joint_weights = vec![
        anim::state_machine::PaintedJoint { joint: "Spine".into(), weight: 0.25, subtree: true },
        anim::state_machine::PaintedJoint { joint: "Head".into(), weight: 0.0, subtree: false },
    ];
    layered.name = "Masked".into();
    m.add_state(layered);
    m.validate().unwrap();
    let text = anim::state_machine::export_godot(&m, &CLIP_NAMES).unwrap();
    assert!(
        text.contains("; animtune layer_paint state=\"Masked\" layer=1 joint=\"Spine\" weight=0.25 subtree=true"),
        "{text}"
    );
    // Without the model the masks are not resolved to bones: no filter, and a comment saying so.
    assert!(text.contains("; Layer 1: its mask was not resolved to bones; over the whole body here."));
    assert_eq!(anim::state_machine::import_godot(&text, &CLIP_NAMES).unwrap(), m);
}

#[test]
fn godot_filters_hold_the_bones_a_layer_weighs_half_or_more() {
    let mut m = full_machine();
    let StateMotion::Layered(mut motion) = m.states()[6].motion.clone() else { panic!("state 6 is layered") };
    motion.layers[0].mask = vec!["Arm".into()];
    m.add_state(State { name: "Masked".into(), motion: StateMotion::Layered(motion), position: Vec2::ZERO });
    let masked = m.find_state("Masked").unwrap();
    let bones = |state, layer| {
        (state == masked && layer == 0).then(|| {
            [
                ("Skeleton3D:UpperArm.L", 1.0),
                ("Skeleton3D:Hand.L", 0.5),
                ("Skeleton3D:Hips", 0.25),
                ("Skeleton3D:Head", 0.0),
            ]
            .map(|(path, weight)| anim::state_machine::GodotBone { path: path.into(), weight })
            .to_vec()
        })
    };
    let text = anim::state_machine::export_godot_with_bones(&m, &CLIP_NAMES, &bones).unwrap();
    let blend = text.split("id=\"AnimationNodeBlend2_s7_1\"]\n").nth(1).unwrap();
    assert!(
        blend.starts_with("filter_enabled = true\nfilters = [NodePath(\"Skeleton3D:UpperArm.L\"), NodePath(\"Skeleton3D:Hand.L\")]\nmetadata/blend_amount = 0.5\n"),
        "{blend}"
    );
    assert!(
        text.contains("Weights between 0 and 1: Skeleton3D:Hand.L 0.5 (in), Skeleton3D:Hips 0.25 (out)."),
        "{text}"
    );
    assert_eq!(anim::state_machine::import_godot(&text, &CLIP_NAMES).unwrap(), m);
}

#[test]
fn a_godot_file_without_animtunes_comments_imports_what_godot_expresses() {
    let m = full_machine();
    let text = anim::state_machine::export_godot(&m, &CLIP_NAMES).unwrap();
    let resaved: String = text.lines().filter(|l| !l.starts_with(';')).map(|l| format!("{l}\n")).collect();
    let back = anim::state_machine::import_godot(&resaved, &CLIP_NAMES).unwrap();
    assert_eq!(back.states().len(), m.states().len());
    // The any-state edge becomes one edge from each other state; Idle -> Jump is the any-state
    // edge's (priority 0) there, so the trigger's own Idle -> Jump is not in what Godot holds.
    assert_eq!(back.transitions().len(), m.transitions().len() - 2 + 6);
    assert!(back.transitions().iter().all(|t| t.kind == TransitionKind::CrossFade));
    let t0 = &back.transitions()[0];
    assert_eq!((t0.easing, t0.duration_secs, t0.priority), (Easing::Smoothstep, 0.25, 2));
    assert_eq!(back.transitions()[1].easing, Easing::EaseInOutSine, "nearest easing to the sampled curve");
    assert!(back.transitions()[1].sync && back.transitions()[3].at_end);
    // Parameters inferred from the conditions: a float, a bool, the event as a bool.
    assert!(matches!(back.param(back.find_param("speed").unwrap()).unwrap().kind, ParamKind::Float(_)));
    assert!(back.find_param("jump").is_none(), "the trigger was on the Idle -> Jump edge Godot does not hold");
    assert!(matches!(back.param(back.find_param("grounded").unwrap()).unwrap().kind, ParamKind::Bool(_)));
    assert!(back.find_param("event_plant").is_some());
    // The layered state from Godot's blend tree: the base, each mix node's kind and weight.
    let StateMotion::Layered(wave) = &back.states()[6].motion else { panic!("{:?}", back.states()[6]) };
    assert_eq!(wave.base, IDLE);
    let layers: Vec<_> = wave.layers.iter().map(|l| (l.clip, l.weight, l.additive)).collect();
    assert_eq!(layers, [(JUMP, 0.5, false), (RUN, 0.25, true)]);
}

#[test]
fn godot_import_rejects_what_it_cannot_read_naming_it() {
    let m = full_machine();
    let text = anim::state_machine::export_godot(&m, &CLIP_NAMES).unwrap();
    let err = anim::state_machine::import_godot(&text, &["Idle", "Walk"]).unwrap_err();
    assert!(err.to_string().contains("animation \"Run\" is not one of the model's clips"), "{err}");
    let err = anim::state_machine::import_godot("[gd_scene format=3]\n", &CLIP_NAMES).unwrap_err();
    assert!(err.to_string().contains("[gd_resource"), "{err}");
    let broken = text.replace("SubResource(\"AnimationNodeAnimation_s1\")", "SubResource(\"nope\")");
    let err = anim::state_machine::import_godot(&broken, &CLIP_NAMES).unwrap_err();
    assert!(err.to_string().contains("no sub-resource \"nope\""), "{err}");

    // Cut anywhere, the text is refused or read, never a panic.
    for cut in (0..text.len()).filter(|c| text.is_char_boundary(*c)).step_by(11) {
        let _ = anim::state_machine::import_godot(&text[..cut], &CLIP_NAMES);
    }
    let mut bad = full_machine();
    bad.add_param("not", ParamKind::Bool(false));
    let err = anim::state_machine::export_godot(&bad, &CLIP_NAMES).unwrap_err();
    assert!(err.to_string().contains("parameter name \"not\""), "{err}");

    let mut bad = StateMachine::new();
    bad.add_state(clip_state("Start", IDLE));
    let err = anim::state_machine::export_godot(&bad, &CLIP_NAMES).unwrap_err();
    assert!(err.to_string().contains("Start and End are Godot's own states"), "{err}");
    let mut bad = StateMachine::new();
    bad.add_state(clip_state("Idle", ClipId::new(7)));
    let err = anim::state_machine::export_godot(&bad, &CLIP_NAMES).unwrap_err();
    assert!(err.to_string().contains("state \"Idle\" plays clip 7"), "{err}");
}

#[test]
fn bevy_export_writes_a_serialized_animation_graph_and_its_transitions() {
    use anim::state_machine::{BevyLayerMask, BevyMasks, Engine, engine_limitations, export_bevy};
    let m = full_machine();
    let out = export_bevy(&m, "models/hero.glb", &BevyMasks::default()).unwrap();
    let g = &out.graph_ron;
    // Root + 4 clips + (blend + 3) + (blend + 3) + (add + base + 2 layers).
    assert_eq!(g.matches("node_type:").count(), 1 + 4 + 4 + 4 + 4);
    assert_eq!(g.matches("Some((").count(), 4 + 4 + 4 + 4);
    assert!(g.contains("node_type: Clip(\"models/hero.glb#Animation1\"),"), "{g}");
    assert!(g.contains("node_type: Add,"));
    assert!(g.contains("weight: 0.25,"));
    assert!(g.contains("root: 0,\n    mask_groups: {},\n)"));
    let s = &out.transitions_ron;
    assert!(
        s.contains("(from: \"Idle\", to: \"Walk\", node: 2, duration_secs: 0.25, priority: 2, at_end: false, conditions: \"speed > 0.1\"),"),
        "{s}"
    );
    assert!(s.contains("(from: \"*\", to: \"Jump\", node: 4, duration_secs: 0.1,"));
    assert!(s.contains("// Walk -> Run: Bevy has no inertialization; a cross-fade of the same length."));
    assert!(s.contains("// Walk -> Run: Bevy has no phase sync; the target starts at its beginning."));
    assert!(engine_limitations(Engine::Godot).iter().any(|(what, _)| *what == "dead blending"));
    assert!(engine_limitations(Engine::Bevy).iter().any(|(what, _)| *what == "phase sync"));
    assert!(g.contains("// Node 5: Bevy has no phase sync; its clips play on the clock"), "{g}");
    // A layer's mask and painted weights: Bevy's mask groups have no weight between 0 and 1, so
    // the layer plays over the whole body and the comment keeps what it had.
    let mut masked = m.clone();
    let (id, mut layered) = masked
        .states()
        .iter()
        .enumerate()
        .find_map(|(i, s)| match &s.motion {
            StateMotion::Layered(l) => Some((anim::state_machine::StateId::new(u32::try_from(i).unwrap()), l.clone())),
            _ => None,
        })
        .unwrap();
    layered.layers[0].mask = vec!["upper-body".into(), "UpperLeg.L".into()];
    layered.layers[0].joint_weights =
        vec![anim::state_machine::PaintedJoint { joint: "UpperArm.L".into(), weight: 0.3, subtree: true }];
    masked.set_motion(id, StateMotion::Layered(layered));
    let g = export_bevy(&masked, "models/hero.glb", &BevyMasks::default()).unwrap().graph_ron;
    assert!(
        g.contains(": mask upper-body+UpperLeg.L, painted UpperArm.L and below 0.3; played over the whole body"),
        "{g}"
    );
    assert!(g.contains("root: 0,\n    mask_groups: {},\n)"));
    // Resolved masks become mask groups: nodes 2 and 3 (0.3 and 0) are left out by both layers,
    // which share group 0; node 1 (0.6) is animated; node 4 has no Bevy id.
    let ids: Vec<Option<String>> =
        (0..4).map(|i| Some(format!("00000000-0000-5000-8000-00000000000{i}"))).chain([None]).collect();
    let weights = vec![1.0, 0.6, 0.3, 0.0, 0.0];
    let layers = (0..2).map(|layer| BevyLayerMask { state: id, layer, node_weights: weights.clone() }).collect();
    let g = export_bevy(&masked, "models/hero.glb", &BevyMasks { target_ids: ids, layers }).unwrap().graph_ron;
    assert_eq!(g.matches("mask: 1,").count(), 2, "{g}");
    assert_eq!(g.matches("mask: 0,").count(), 1 + 4 + 4 + 4 + 2);
    assert!(
        g.contains(
            "    mask_groups: {\n        AnimationTargetId(\"00000000-0000-5000-8000-000000000002\"): 1,\n        \
             AnimationTargetId(\"00000000-0000-5000-8000-000000000003\"): 1,\n    },\n)"
        ),
        "{g}"
    );
    assert!(g.contains(": mask group 0, the 2 targets its layer leaves out."), "{g}");
    assert!(g.contains(": 2 targets painted between 0 and 1, written on at 0.5 and above, off below"), "{g}");
    // Past 64 distinct left-out sets the layer plays over the whole body, with a comment.
    let many: Vec<Option<String>> = (0..70).map(|i| Some(format!("id{i}"))).collect();
    let mut machine = StateMachine::new();
    let mut layers = Vec::new();
    let mut layer_list = Vec::new();
    for layer in 0..65 {
        let mut w = vec![1.0; 70];
        w[layer] = 0.0;
        layers.push(BevyLayerMask { state: StateId::new(0), layer, node_weights: w });
        layer_list.push(anim::state_machine::LayerMotion::new(WALK, 1.0));
    }
    machine.add_state(State {
        name: "Layered".to_owned(),
        motion: StateMotion::Layered(anim::state_machine::LayeredMotion { base: IDLE, layers: layer_list }),
        position: Vec2::ZERO,
    });
    let g = export_bevy(&machine, "hero.glb", &BevyMasks { target_ids: many, layers }).unwrap().graph_ron;
    assert!(g.contains("mask: 9223372036854775808,"), "group 63 used");
    assert!(g.contains("no mask group left (Bevy has 64); played over the whole body."), "{g}");
}

#[test]
fn steps_and_requests_allocate_nothing() {
    let m = full_machine();
    let speed = m.find_param("speed").unwrap();
    let grounded = m.find_param("grounded").unwrap();
    let jump = m.find_param("jump").unwrap();
    let (idle, locomotion) = (m.find_state("Idle").unwrap(), m.find_state("Locomotion").unwrap());
    let jump_state = m.find_state("Jump").unwrap();
    let mut rt = MachineRuntime::new(&m);
    let mut events = Vec::with_capacity(MachineRuntime::event_capacity(&m));
    let (mut transitions, mut fired) = (0, 0);
    let allocations = allocations_on_this_thread(|| {
        for i in 0..600 {
            events.clear();
            let speed_now = [0.0, 0.5, 3.0, 0.05][(i / 40) % 4];
            rt.set_float(&m, speed, speed_now).unwrap();
            rt.set_bool(&m, grounded, i % 97 > 3).unwrap();
            if i % 50 == 7 {
                rt.fire(&m, jump).unwrap();
            }
            if i % 150 == 149 {
                // Jump has an any-state edge; Locomotion an edge from Idle (only the error
                // of a request with no path allocates, for its message).
                rt.request(&m, jump_state, &DURATIONS).unwrap();
                if rt.output(&m).state == idle {
                    rt.request(&m, locomotion, &DURATIONS).unwrap();
                }
            }
            let out = rt.step(&m, 1.0 / 60.0, &DURATIONS, &mut events);
            transitions += usize::from(out.started.is_some());
            fired += events.len();
        }
    });
    assert_eq!(allocations, 0);
    assert!(transitions > 10 && fired >= 3, "{transitions} transitions, {fired} events: the run exercised the machine");
}

#[test]
fn removing_a_state_or_parameter_renumbers_what_refers_to_later_ones() {
    let mut l = locomotion();
    let [idle, walk, run, jump] = l.states;
    let grounded = l.machine.find_param("grounded").unwrap();
    l.machine.add_transition(edge(idle, walk, 0.25, vec![speed_over(&l, 0.1)]));
    l.machine.add_transition(edge(walk, run, 0.5, vec![Condition::Bool { param: grounded, value: true }]));
    l.machine.add_transition(edge(run, jump, 0.125, vec![Condition::Trigger(l.jump)]));
    l.machine.set_entry(run);
    assert!(l.machine.remove_state(walk));
    assert_eq!(l.machine.states().len(), 3);
    assert_eq!(l.machine.transitions().len(), 1, "Idle -> Walk and Walk -> Run went with Walk");
    let left = &l.machine.transitions()[0];
    assert_eq!(
        (left.from, left.to),
        (TransitionFrom::State(StateId::new(1)), StateId::new(2)),
        "Run -> Jump, moved down"
    );
    assert_eq!(l.machine.entry(), StateId::new(1), "the entry (Run) moved down with it");
    assert_eq!(l.machine.state(StateId::new(1)).unwrap().name, "Run");
    assert!(l.machine.validate().is_ok());
    // Removing `grounded` (id 1) moves `jump` (id 2) to 1 in Run -> Jump's trigger.
    assert!(l.machine.remove_param(grounded));
    assert_eq!(l.machine.transitions()[0].conditions, vec![Condition::Trigger(anim::state_machine::ParamId::new(1))]);
    assert_eq!(l.machine.param(anim::state_machine::ParamId::new(1)).unwrap().name, "jump");
    assert!(l.machine.remove_param(anim::state_machine::ParamId::new(1)));
    assert!(l.machine.transitions()[0].conditions.is_empty(), "the condition on the removed trigger went with it");
    assert!(l.machine.remove_transition(anim::state_machine::TransitionId::new(0)));
    assert!(!l.machine.remove_transition(anim::state_machine::TransitionId::new(0)));
    assert!(!l.machine.remove_state(StateId::new(9)));
    assert!(l.machine.validate().is_ok());
}

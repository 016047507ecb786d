//! The State machine section on real rigs and as an editor: the drive keys find `RobotExpressive`'s
//! Walking/Running/Idle and can be bound to other states; parameters bound to keys; the forms
//! add and remove states, parameters and transitions and edit a transition, each edit one undo
//! step, saved in the profile and restored when the model opens again; an invalid edit is
//! refused with the reason in the status bar.

use anim::state_machine::{Condition, ParamKind, StateTransition, TransitionFrom};
use egui::Key;
use egui_kittest::kittest::Queryable as _;

use super::{config_dir, shared_model, viewer, whole};
use crate::ui::{ModelSource, Panel, Viewer};

fn active(viewer: &Viewer) -> String {
    viewer.stage.machine().state_name(viewer.stage.machine().output().state)
}

fn robot() -> Option<Viewer> {
    let path = shared_model("RobotExpressive/RobotExpressive.glb")?;
    let model = anim::import::load_path(&path).expect("RobotExpressive");
    Some(Viewer::new(model, ModelSource::file(&path)))
}

#[test]
fn on_robot_expressive_w_walks_shift_w_runs_and_release_idles() {
    let Some(viewer) = robot() else { return };
    let mut harness = machine_section(viewer, 2600.0);
    assert_eq!(active(harness.state()), "Dance", "the first clip is the entry");
    harness.get_by_label("Keys (3D view, not while typing): hold W: Walking, Shift+W: Running, release: Idle.");
    harness.key_down(Key::W);
    harness.step();
    assert_eq!(active(harness.state()), "Walking", "W requests Walking");
    let t = harness.state().stage.machine().output().transition.expect("a transition into Walking");
    assert!((t.duration_secs - crate::stage::tuning::DEFAULT_FADE_SECS).abs() < 1e-6, "{}", t.duration_secs);
    harness.event(egui::Event::ModifiersChanged(egui::Modifiers::SHIFT));
    harness.step();
    assert_eq!(active(harness.state()), "Running");
    harness.event(egui::Event::ModifiersChanged(egui::Modifiers::NONE));
    harness.key_up(Key::W);
    harness.step();
    assert_eq!(active(harness.state()), "Idle", "release: Idle");
}

#[test]
fn a_drive_key_rebound_in_its_combo_box_requests_the_chosen_state() {
    let viewer = viewer();
    let mut harness = machine_section(viewer, 2600.0);
    pick(&mut harness, "W drives", "Jump");
    assert_eq!(harness.state().stage.tuning.machine_keys.drive.walk.as_deref(), Some("Jump"));
    harness.get_by_label("Keys (3D view, not while typing): hold W: Jump, Shift+W: Run, release: Idle.");
    harness.key_down(Key::W);
    harness.step();
    assert_eq!(active(harness.state()), "Jump", "W now requests Jump");
}

#[test]
fn a_bool_bound_to_a_key_holds_it_true_and_its_transition_runs() {
    let mut viewer = viewer();
    let (idle, walk) = (state(&viewer, "Idle"), state(&viewer, "Walk"));
    viewer
        .stage
        .edit_machine(|m| {
            let moving = m.add_param("moving", ParamKind::Bool(false));
            m.add_transition(StateTransition {
                conditions: vec![Condition::Bool { param: moving, value: true }],
                ..StateTransition::new(TransitionFrom::State(idle), walk, 0.4)
            });
            m.add_transition(StateTransition {
                conditions: vec![Condition::Bool { param: moving, value: false }],
                ..StateTransition::new(TransitionFrom::State(walk), idle, 0.2)
            });
        })
        .expect("valid");
    let mut harness = machine_section(viewer, 2600.0);
    harness.get_by_label("key").click();
    harness.run();
    harness.get_by_label("M").click();
    harness.run();
    harness.get_by_label("held: true");
    harness.key_down(Key::M);
    harness.step();
    harness.state_mut().step(1.0 / 60.0);
    assert_eq!(active(harness.state()), "Walk", "M held: moving is true, Idle -> Walk");
    let t = harness.state().stage.machine().output().transition.expect("running");
    assert!((t.duration_secs - 0.4).abs() < 1e-6);
    for _ in 0..30 {
        harness.state_mut().step(1.0 / 60.0);
    }
    harness.key_up(Key::M);
    harness.step();
    harness.state_mut().step(1.0 / 60.0);
    assert_eq!(active(harness.state()), "Idle", "released: moving is false, Walk -> Idle");
}

fn state(viewer: &Viewer, name: &str) -> anim::state_machine::StateId {
    viewer.stage.machine().machine().find_state(name).unwrap_or_else(|| panic!("no state {name}"))
}

#[test]
fn form_edits_are_undo_steps_saved_in_the_profile_and_restored() {
    let profiles = config_dir("machine-edit");
    let viewer = viewer().with_config_dir(Some(profiles.clone()));
    let mut harness = machine_forms(viewer, 3600.0);
    harness.get_by_label("Remove state Jump").click();
    harness.run();
    assert_eq!(harness.state().stage.machine().machine().states().len(), 7, "Jump removed");
    assert!(harness.state().stage.machine().machine().find_state("Jump").is_none());
    // A parameter added by name.
    type_name(&mut harness, "speed");
    harness.get_by_label("Add parameter").click();
    harness.run();
    assert_eq!(
        harness.state().stage.machine().machine().find_param("speed").map(anim::state_machine::ParamId::index),
        Some(0)
    );
    // The same name again is refused, with the validation's reason in the status bar.
    type_name(&mut harness, "speed");
    harness.get_by_label("Add parameter").click();
    harness.run();
    harness.get_by_label(
        "State machine: edit not applied: the machine would not be valid: two parameters are named \"speed\"",
    );
    assert_eq!(harness.state().stage.machine().machine().params().len(), 1, "the old machine stays");
    // A transition from Any to Run, then its duration edited in its form.
    harness.get_by_label("Add transition").click();
    harness.run();
    let count = harness.state().stage.machine().machine().transitions().len();
    let last = harness.state().stage.machine().machine().transitions()[count - 1].clone();
    assert_eq!((last.from, last.duration_secs), (TransitionFrom::Any, crate::stage::tuning::DEFAULT_FADE_SECS));
    assert_eq!(harness.state().stage.history.undo_steps(), 3, "three edits, three steps");
    harness.state_mut().save_on_exit();
    // Reopening the model restores the edited machine.
    let again = viewer_again(&profiles);
    assert_eq!(again.stage.machine().machine(), harness.state().stage.machine().machine(), "restored from the profile");
    assert!(!again.stage.machine().is_from_table());
    // Ctrl+Z takes the edits back one at a time.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, Key::Z);
    harness.run();
    assert_eq!(harness.state().stage.machine().machine().transitions().len(), count - 1);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, Key::Z);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, Key::Z);
    harness.run();
    assert_eq!(harness.state().stage.machine().machine().states().len(), 8, "Jump is back");
    assert!(harness.state().stage.machine().is_from_table());
    harness.key_press_modifiers(egui::Modifiers::COMMAND | egui::Modifiers::SHIFT, Key::Z);
    harness.run();
    assert_eq!(harness.state().stage.machine().machine().states().len(), 7, "redo removes Jump again");
    let _ = std::fs::remove_dir_all(profiles.parent().expect("config"));
}

/// Type `name` into the new parameter's name field (the last text field of the side panel).
fn type_name(harness: &mut egui_kittest::Harness<'_, Viewer>, name: &str) {
    harness.get_all_by_role(egui::accesskit::Role::TextInput).last().expect("the name field").click();
    harness.run();
    harness.get_all_by_role(egui::accesskit::Role::TextInput).last().expect("the name field").type_text(name);
    harness.run();
}

fn viewer_again(profiles: &std::path::Path) -> Viewer {
    viewer().with_config_dir(Some(profiles.to_path_buf()))
}

#[test]
fn a_transitions_form_edits_its_duration_and_a_machine_without_one_in_the_profile_is_built() {
    let profiles = config_dir("machine-none");
    let fresh = viewer().with_config_dir(Some(profiles.clone()));
    assert!(fresh.stage.machine().is_from_table(), "no machine saved: built from the table");
    assert_eq!(fresh.stage.machine().machine().transitions().len(), 8, "an any-state edge per clip");
    let mut viewer = fresh;
    let idle = state(&viewer, "Idle");
    let walk = state(&viewer, "Walk");
    viewer
        .stage
        .edit_machine(|m| {
            m.add_transition(StateTransition::new(TransitionFrom::State(idle), walk, 0.5));
        })
        .expect("valid");
    let t = crate::stage::machine_edit::MachineEdit::SetTransition(
        anim::state_machine::TransitionId::new(8),
        Box::new(StateTransition {
            duration_secs: 1.25,
            priority: 0,
            ..StateTransition::new(TransitionFrom::State(idle), walk, 0.5)
        }),
    );
    viewer.apply_machine_action(crate::ui::machine::MachineAction::Edit(t));
    assert_eq!(viewer.stage.machine().machine().transitions()[8].duration_secs, 1.25);
    viewer.save_on_exit();
    let text = std::fs::read_to_string(viewer.profile.path().expect("a profile")).expect("saved");
    let profile: crate::profile::TuningProfile = serde_json::from_str(&text).expect("a profile");
    let machine = profile.machine.expect("the machine is saved");
    let saved = machine.transitions.iter().find(|t| t.from == "Idle" && t.to == "Walk").expect("Idle -> Walk");
    assert_eq!((saved.fade.duration_secs, saved.priority), (1.25, 0));
    assert_eq!(machine.states.len(), 8);
    let _ = std::fs::remove_dir_all(profiles.parent().expect("config"));
}

#[test]
fn drive_picks_and_key_bindings_are_undo_steps_saved_in_the_profile_and_restored() {
    use crate::stage::machine_edit::{BindingEffect, ParamBinding};
    let profiles = config_dir("machine-keys");
    let mut viewer = viewer().with_config_dir(Some(profiles.clone()));
    viewer.stage.edit_machine(|m| _ = m.add_param("crouch", ParamKind::Bool(false))).expect("valid");
    let mut harness = machine_section(viewer, 2600.0);
    pick(&mut harness, "W drives", "Jump");
    harness.get_by_label("key").click();
    harness.run();
    harness.get_by_label("M").click();
    harness.run();
    let keys = harness.state().stage.tuning.machine_keys.clone();
    assert_eq!(keys.drive.walk.as_deref(), Some("Jump"));
    assert_eq!(keys.bindings, vec![ParamBinding::new("crouch", "M", BindingEffect::Hold)]);
    harness.state_mut().save_on_exit();
    let text = std::fs::read_to_string(harness.state().profile.path().expect("a profile")).expect("saved");
    assert!(text.contains("\"walk\": \"Jump\"") && text.contains("\"param\": \"crouch\""), "{text}");
    // Reopened: the same picks and bindings, and W requests Jump there too.
    let again = viewer_again(&profiles);
    assert_eq!(again.stage.tuning.machine_keys, keys, "restored from the profile");
    let mut reopened = machine_section(again, 2600.0);
    reopened.key_down(Key::W);
    reopened.step();
    assert_eq!(active(reopened.state()), "Jump", "W requests the saved pick");
    // Ctrl+Z takes the binding back, then the pick.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, Key::Z);
    harness.run();
    assert!(harness.state().stage.tuning.machine_keys.bindings.is_empty(), "the binding undone");
    assert_eq!(harness.state().stage.tuning.machine_keys.drive.walk.as_deref(), Some("Jump"));
    harness.key_press_modifiers(egui::Modifiers::COMMAND, Key::Z);
    harness.run();
    assert_eq!(harness.state().stage.tuning.machine_keys.drive.walk, None, "the pick undone");
    let _ = std::fs::remove_dir_all(profiles.parent().expect("config"));
}

#[test]
fn states_and_parameters_renamed_in_the_forms_take_their_references_along() {
    use crate::stage::machine_edit::{BindingEffect, ParamBinding};
    let mut viewer = viewer();
    let walk = state(&viewer, "Walk");
    viewer.stage.edit_machine(|m| _ = m.add_param("speed", ParamKind::Float(0.0))).expect("valid");
    viewer.stage.edit_tuning(|t| {
        t.machine_keys.drive.walk = Some("Walk".to_owned());
        t.machine_keys.bindings.push(ParamBinding::new("speed", "E", BindingEffect::SetFloat { value: 2.5 }));
    });
    let before = viewer.stage.machine().machine().transitions().iter().filter(|t| t.to == walk).count();
    viewer.machine_panel.forms.rename_state = (walk, "Stroll".to_owned());
    viewer.machine_panel.forms.rename_param = (anim::state_machine::ParamId::new(0), "pace".to_owned());
    let mut harness = machine_forms(viewer, 6000.0);
    harness.get_by_label("Rename state").click();
    harness.run();
    let machine = harness.state().stage.machine().machine().clone();
    assert_eq!(machine.find_state("Stroll"), Some(walk), "the same state, renamed");
    assert_eq!(machine.transitions().iter().filter(|t| t.to == walk).count(), before, "its transitions kept");
    assert_eq!(harness.state().stage.tuning.machine_keys.drive.walk.as_deref(), Some("Stroll"), "W's pick follows");
    harness.get_by_label("Rename parameter").click();
    harness.run();
    assert_eq!(
        harness.state().stage.machine().machine().param(anim::state_machine::ParamId::new(0)).map(|p| p.name.as_str()),
        Some("pace")
    );
    assert_eq!(harness.state().stage.tuning.machine_keys.bindings[0].param, "pace", "its key follows");
    // A name already taken: refused with the validation's reason; the old names stay.
    harness.state_mut().machine_panel.forms.rename_state = (walk, "Idle".to_owned());
    harness.run();
    harness.get_by_label("Rename state").click();
    harness.run();
    harness
        .get_by_label("State machine: edit not applied: the machine would not be valid: two states are named \"Idle\"");
    assert_eq!(harness.state().stage.machine().machine().find_state("Stroll"), Some(walk));
    assert_eq!(harness.state().stage.tuning.machine_keys.drive.walk.as_deref(), Some("Stroll"));
}

#[test]
fn blend_space_and_layered_states_and_clip_events_are_added_and_edited_in_the_forms() {
    use anim::state_machine::{BlendSpaceMotion, BlendSpacePoint, LayerMotion, LayeredMotion, StateMotion};
    let mut viewer = viewer();
    let clip = |v: &Viewer, name: &str| v.stage.model().find_clip(name).expect("clip");
    let (idle, walk, run, wave) =
        (clip(&viewer, "Idle"), clip(&viewer, "Walk"), clip(&viewer, "Run"), clip(&viewer, "Wave"));
    viewer.stage.edit_machine(|m| _ = m.add_param("speed", ParamKind::Float(1.4))).expect("valid");
    let speed = anim::state_machine::ParamId::new(0);
    viewer.machine_panel.forms.new_motion_name = "Locomotion".to_owned();
    viewer.machine_panel.forms.new_motion = Some(StateMotion::BlendSpace(BlendSpaceMotion {
        name: String::new(),
        two_d: false,
        points: vec![
            BlendSpacePoint { clip: walk, position: glam::Vec2::new(1.4, 0.0) },
            BlendSpacePoint { clip: run, position: glam::Vec2::new(3.4, 0.0) },
        ],
        x_param: Some(speed),
        y_param: None,
        phase_sync: true,
    }));
    let mut harness = machine_forms(viewer, 7000.0);
    harness.get_by_label("Add blend-space state").click();
    harness.run();
    let machine = harness.state().stage.machine().machine().clone();
    let id = machine.find_state("Locomotion").expect("the blend-space state");
    let StateMotion::BlendSpace(space) = &machine.state(id).expect("state").motion else { panic!("a blend space") };
    assert_eq!((space.name.as_str(), space.x_param, space.points.len()), ("Locomotion", Some(speed), 2));
    assert_eq!((space.points[0].position.x, space.points[1].position.x), (1.4, 3.4));
    harness.get_by_label("Locomotion: blend space on speed: Walk @ 1.40, Run @ 3.40");
    // A layered state: Idle under Wave at 0.5 on the upper body.
    harness.state_mut().machine_panel.forms.new_motion_name = "Wave layered".to_owned();
    let layered = LayeredMotion {
        base: idle,
        layers: vec![LayerMotion {
            clip: wave,
            weight: 0.5,
            additive: false,
            mask: vec!["upper-body".to_owned()],
            joint_weights: Vec::new(),
        }],
    };
    harness.state_mut().machine_panel.forms.new_motion = Some(StateMotion::Layered(layered.clone()));
    harness.run();
    harness.get_by_label("Add layered state").click();
    harness.run();
    let machine = harness.state().stage.machine().machine().clone();
    let id = machine.find_state("Wave layered").expect("the layered state");
    assert_eq!(machine.state(id).map(|s| &s.motion), Some(&StateMotion::Layered(layered.clone())));
    // A mask naming no joint or region: refused with the reason, the machine unchanged.
    let bad = LayeredMotion {
        layers: vec![LayerMotion { mask: vec!["tail-fin".to_owned()], ..layered.layers[0].clone() }],
        ..layered
    };
    harness.state_mut().apply_machine_action(crate::ui::machine::MachineAction::Edit(
        crate::stage::machine_edit::MachineEdit::SetMotion(id, StateMotion::Layered(bad)),
    ));
    harness.run();
    let error = harness.state().error.clone().expect("refused");
    assert!(
        error.starts_with(
            "State machine: edit not applied: the machine would not be valid: state \"Wave layered\": mask:"
        ),
        "{error}"
    );
    assert_eq!(harness.state().stage.machine().machine(), &machine);
    // A clip event: step on Walk at 0.5 s, renamed, then removed.
    harness.state_mut().machine_panel.forms.new_event = (walk.index(), "step".to_owned(), 0.5);
    harness.run();
    harness.get_by_label("Add event").click();
    harness.run();
    let events = harness.state().stage.machine().machine().events().to_vec();
    assert_eq!(events.len(), 1);
    assert_eq!((events[0].clip, events[0].name.as_str(), events[0].time_secs), (walk, "step", 0.5));
    harness.get_by_label("Remove event step").click();
    harness.run();
    assert!(harness.state().stage.machine().machine().events().is_empty());
    assert_eq!(harness.state().stage.history.undo_steps(), 5, "param, two states, the event added, removed");
}

#[test]
fn a_two_d_blend_space_and_a_joint_mask_are_edited_in_the_forms() {
    use anim::state_machine::{BlendSpaceMotion, BlendSpacePoint, LayerMotion, LayeredMotion, State, StateMotion};
    let mut viewer = viewer();
    let clip = |v: &Viewer, name: &str| v.stage.model().find_clip(name).expect("clip");
    let (idle, walk, run, wave) =
        (clip(&viewer, "Idle"), clip(&viewer, "Walk"), clip(&viewer, "Run"), clip(&viewer, "Wave"));
    // A joint of the arm, by its node name.
    let model = viewer.stage.model();
    let joint = model
        .node_ids()
        .filter_map(|id| model.node(id).and_then(|n| n.name.clone()))
        .find(|n| n.to_lowercase().contains("arm"))
        .expect("an arm joint");
    viewer
        .stage
        .edit_machine(|m| {
            let x = m.add_param("x", ParamKind::Float(0.0));
            m.add_param("y", ParamKind::Float(0.0));
            let point = |clip, x, y| BlendSpacePoint { clip, position: glam::Vec2::new(x, y) };
            let motion = StateMotion::BlendSpace(BlendSpaceMotion {
                name: "Steer".to_owned(),
                two_d: true,
                points: vec![point(idle, 0.0, 0.0), point(walk, 1.4, 0.0), point(run, 1.4, 1.0)],
                x_param: Some(x),
                y_param: None,
                phase_sync: true,
            });
            m.add_state(State { name: "Steer".to_owned(), motion, position: glam::Vec2::ZERO });
            let layer =
                LayerMotion { clip: wave, weight: 0.5, additive: false, mask: Vec::new(), joint_weights: Vec::new() };
            let motion = StateMotion::Layered(LayeredMotion { base: idle, layers: vec![layer] });
            m.add_state(State { name: "Waving".to_owned(), motion, position: glam::Vec2::ZERO });
        })
        .expect("valid");
    let mut harness = machine_section(viewer, 7000.0);
    let steps = harness.state().stage.history.undo_steps();
    harness.get_by_label("Edit the machine").click();
    harness.run();
    harness
        .get_by_label(
            "Steer: 2-D blend space on x, no parameter: Idle @ (0.00, 0.00), Walk @ (1.40, 0.00), Run @ (1.40, 1.00)",
        )
        .click();
    harness.run();
    pick(&mut harness, "y driven by", "y");
    let machine = harness.state().stage.machine().machine().clone();
    let steer = machine.find_state("Steer").expect("Steer");
    let StateMotion::BlendSpace(space) = &machine.state(steer).expect("state").motion else { panic!("a blend space") };
    assert_eq!((space.two_d, space.y_param), (true, machine.find_param("y")), "y drives the second axis");
    harness
        .get_by_label("Steer: 2-D blend space on x, y: Idle @ (0.00, 0.00), Walk @ (1.40, 0.00), Run @ (1.40, 1.00)");
    // The layer's mask: the arm joint and its subtree.
    harness.get_by_label("Waving: Idle + Wave (0.50, whole body)").click();
    harness.run();
    // The mask's combo sits at the end of a row wider than the panel: clicked through
    // accessibility.
    harness.get_by_label("add to mask").click_accesskit();
    harness.run();
    harness.get_by_label(&format!("{joint} and below")).click_accesskit();
    harness.run();
    let machine = harness.state().stage.machine().machine().clone();
    let waving = machine.find_state("Waving").expect("Waving");
    let StateMotion::Layered(layered) = &machine.state(waving).expect("state").motion else { panic!("layered") };
    assert_eq!(layered.layers[0].mask, vec![joint.clone()]);
    harness.get_by_label(&format!("Waving: Idle + Wave (0.50, {joint})"));
    assert_eq!(harness.state().stage.history.undo_steps(), steps + 2, "two edits, two undo steps");
    assert_eq!(harness.state().stage.machine().play_problem(), None, "both states build on stage");
}

/// A viewer whose machine has a layered state "Waving": Idle under Wave at 0.5, whole body.
fn waving_viewer() -> Viewer {
    use anim::state_machine::{LayerMotion, LayeredMotion, State, StateMotion};
    let mut viewer = viewer();
    let clip = |v: &Viewer, name: &str| v.stage.model().find_clip(name).expect("clip");
    let (idle, wave) = (clip(&viewer, "Idle"), clip(&viewer, "Wave"));
    viewer
        .stage
        .edit_machine(|m| {
            let motion = StateMotion::Layered(LayeredMotion { base: idle, layers: vec![LayerMotion::new(wave, 0.5)] });
            m.add_state(State { name: "Waving".to_owned(), motion, position: glam::Vec2::ZERO });
        })
        .expect("valid");
    viewer
}

/// The first layer of state "Waving".
fn waving_layer(viewer: &Viewer) -> anim::state_machine::LayerMotion {
    use anim::state_machine::StateMotion;
    let machine = viewer.stage.machine().machine();
    let waving = machine.find_state("Waving").expect("Waving");
    let StateMotion::Layered(layered) = &machine.state(waving).expect("state").motion else { panic!("layered") };
    layered.layers[0].clone()
}

#[test]
fn a_layers_mask_is_a_list_of_regions_and_joints_added_removed_and_undone_in_the_form() {
    let mut harness = machine_forms(waving_viewer(), 7000.0);
    let steps = harness.state().stage.history.undo_steps();
    harness.get_by_label("Waving: Idle + Wave (0.50, whole body)").click();
    harness.run();
    harness.get_by_label("mask: whole body");
    // Two entries: a region, then a joint and everything below it.
    for item in ["upper-body", "UpperArm.L and below"] {
        // A pick through accessibility leaves the list open: open it only when it is closed.
        if harness.query_by_label(item).is_none() {
            harness.get_by_label("add to mask").click_accesskit();
            harness.run();
        }
        harness.get_by_label(item).click_accesskit();
        harness.run();
    }
    assert_eq!(waving_layer(harness.state()).mask, ["upper-body", "UpperArm.L"]);
    harness.get_by_label("Waving: Idle + Wave (0.50, upper-body+UpperArm.L)");
    assert_eq!(harness.state().stage.machine().play_problem(), None, "the mask resolves on stage");
    // Remove the region: the joint stays.
    harness.get_by_label("Remove upper-body from mask").click_accesskit();
    harness.run();
    assert_eq!(waving_layer(harness.state()).mask, ["UpperArm.L"]);
    assert_eq!(harness.state().stage.history.undo_steps(), steps + 3, "three edits, three undo steps");
    // Ctrl+Z: the region is back.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, Key::Z);
    harness.run();
    assert_eq!(waving_layer(harness.state()).mask, ["upper-body", "UpperArm.L"]);
    harness.get_by_label("Remove UpperArm.L and below from mask");
}

#[test]
fn a_joint_weight_painted_in_a_layered_states_form_weighs_its_subtree_on_stage() {
    use anim::state_machine::PaintedJoint;
    let mut harness = machine_forms(waving_viewer(), 7000.0);
    let steps = harness.state().stage.history.undo_steps();
    harness.get_by_label("Waving: Idle + Wave (0.50, whole body)").click();
    harness.run();
    harness.get_by_label("paint joint").click_accesskit();
    harness.run();
    harness.get_all_by_label("UpperArm.L").last().expect("the joint in the list").click_accesskit();
    harness.run();
    harness.state_mut().machine_panel.forms.paint.weight = 0.3;
    harness.run();
    harness.get_by_label("Paint with subtree").click_accesskit();
    harness.run();
    let layer = waving_layer(harness.state());
    assert_eq!(layer.joint_weights, [PaintedJoint { joint: "UpperArm.L".to_owned(), weight: 0.3, subtree: true }]);
    harness.get_by_label("painted: UpperArm.L and below at 0.30");
    harness.get_by_label("Waving: Idle + Wave (0.50, whole body, 1 painted)");
    // What the stage plays: the whole body at 1, the left arm down to the hand at 0.3.
    let model = harness.state().stage.model();
    let weights = crate::stage::machine_play::layer_spec(&layer).mask_weights(model).expect("resolves");
    let node = |name: &str| model.find_node(name).expect("joint").index();
    assert_eq!((weights[node("Hand.L")], weights[node("UpperArm.L")], weights[node("Hand.R")]), (0.3, 0.3, 1.0));
    assert_eq!(harness.state().stage.machine().play_problem(), None);
    assert_eq!(harness.state().stage.history.undo_steps(), steps + 1, "one edit, one undo step");
    // Ctrl+Z takes the paint back.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, Key::Z);
    harness.run();
    assert!(waving_layer(harness.state()).joint_weights.is_empty());
}

#[test]
fn a_blend_space_states_phase_sync_is_switched_off_in_its_form_and_undone() {
    use anim::state_machine::{BlendSpaceMotion, BlendSpacePoint, State, StateMotion};
    let mut viewer = viewer();
    let clip = |v: &Viewer, name: &str| v.stage.model().find_clip(name).expect("clip");
    let (walk, run) = (clip(&viewer, "Walk"), clip(&viewer, "Run"));
    viewer
        .stage
        .edit_machine(|m| {
            let speed = m.add_param("speed", ParamKind::Float(2.4));
            let point = |clip, x| BlendSpacePoint { clip, position: glam::Vec2::new(x, 0.0) };
            let motion = StateMotion::BlendSpace(BlendSpaceMotion {
                name: "Locomotion".to_owned(),
                two_d: false,
                points: vec![point(walk, 1.4), point(run, 3.4)],
                x_param: Some(speed),
                y_param: None,
                phase_sync: true,
            });
            m.add_state(State { name: "Locomotion".to_owned(), motion, position: glam::Vec2::ZERO });
        })
        .expect("valid");
    let sync = |viewer: &Viewer| {
        let machine = viewer.stage.machine().machine();
        let id = machine.find_state("Locomotion").expect("Locomotion");
        let StateMotion::BlendSpace(space) = &machine.state(id).expect("state").motion else { panic!("blend space") };
        space.phase_sync
    };
    let mut harness = machine_forms(viewer, 7000.0);
    harness.get_by_label("Locomotion: blend space on speed: Walk @ 1.40, Run @ 3.40").click();
    harness.run();
    harness.get_by_label("phase sync").click();
    harness.run();
    assert!(!sync(harness.state()), "the checkbox turned it off");
    harness.get_by_label("Locomotion: blend space on speed: Walk @ 1.40, Run @ 3.40, no phase sync");
    harness.key_press_modifiers(egui::Modifiers::COMMAND, Key::Z);
    harness.run();
    assert!(sync(harness.state()), "Ctrl+Z turns it back on");
}

#[test]
fn a_condition_on_a_clip_event_is_added_and_switched_in_the_transition_form() {
    use anim::state_machine::{Compare, EventId, TransitionId};
    let viewer = viewer();
    let walk = viewer.stage.model().find_clip("Walk").expect("Walk");
    let mut harness = machine_forms(viewer, 3600.0);
    harness.state_mut().machine_panel.forms.new_event = (walk.index(), "step".to_owned(), 0.5);
    harness.run();
    harness.get_by_label("Add event").click();
    harness.run();
    let conditions =
        |h: &egui_kittest::Harness<'_, Viewer>| h.state().stage.machine().machine().transitions()[0].conditions.clone();
    assert!(conditions(&harness).is_empty());
    // With no parameter, a new condition is on the clip event.
    harness.state_mut().machine_panel.forms.select_transition(TransitionId::new(0));
    harness.run();
    harness.get_by_label("Add condition").click();
    harness.run();
    assert_eq!(conditions(&harness), vec![Condition::Event(EventId::new(0))]);
    harness.get_by_label("fired");
    // A parameter added, the condition switched to it and back to the event in its combo box.
    type_name(&mut harness, "speed");
    harness.get_by_label("Add parameter").click();
    harness.run();
    harness.state_mut().machine_panel.forms.select_transition(TransitionId::new(0));
    harness.run();
    pick(&mut harness, "condition on", "speed");
    let speed = anim::state_machine::ParamId::new(0);
    assert_eq!(conditions(&harness), vec![Condition::Float { param: speed, compare: Compare::Greater, value: 0.5 }]);
    harness.get_by_label("condition on").click();
    harness.run();
    harness.get_by_label("event step (Walk)").click();
    harness.run();
    assert_eq!(conditions(&harness), vec![Condition::Event(EventId::new(0))]);
    assert_eq!(harness.state().stage.history.undo_steps(), 5, "event, condition, parameter, two switches");
}

/// The whole window `height` tall with the State machine section in front, one frame run.
fn machine_section(mut viewer: Viewer, height: f32) -> egui_kittest::Harness<'static, Viewer> {
    viewer.focus_panel = Some(Panel::StateMachine);
    let mut harness = whole(viewer, [1280.0, height]);
    harness.run();
    harness
}

/// [`machine_section`] with its edit forms open.
fn machine_forms(viewer: Viewer, height: f32) -> egui_kittest::Harness<'static, Viewer> {
    let mut harness = machine_section(viewer, height);
    harness.get_by_label("Edit the machine").click();
    harness.run();
    harness
}

/// Open the combo box labelled `combo` and choose `item` in it.
fn pick(harness: &mut egui_kittest::Harness<'_, Viewer>, combo: &str, item: &str) {
    harness.get_by_label(combo).click();
    harness.run();
    harness.get_all_by_label(item).last().expect("the item in the list").click();
    harness.run();
}

#[test]
fn the_state_machine_section_exports_the_machine_to_godot_and_bevy_files() {
    let mut viewer = viewer();
    viewer.file.dialogs = crate::ui::file_menu::Dialogs::Unavailable;
    let mut harness = machine_section(viewer, 2600.0);
    let dir = std::env::temp_dir().join(format!("animtune-machine-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp folder");

    // Godot: the button asks where (the path field, with a .tres suggested), Export writes it.
    harness.get_by_label("Export to Godot…").click();
    harness.run();
    assert_eq!(harness.state().file.purpose, crate::ui::file_menu::PathPurpose::ExportGodot);
    assert!(harness.state().file.path.ends_with("Mannequin.tres"), "{}", harness.state().file.path);
    let tres = dir.join("loco.tres");
    harness.state_mut().file.path = tres.display().to_string();
    harness.run();
    harness.get_by_label("Export").click();
    harness.run();
    let text = std::fs::read_to_string(&tres).expect("the .tres was written");
    assert!(text.starts_with("[gd_resource type=\"AnimationNodeStateMachine\""), "{}", &text[..80.min(text.len())]);
    for state in harness.state().stage.machine().machine().states() {
        assert!(text.contains(&format!("states/{}/node", state.name)), "state {} in the .tres", state.name);
    }
    // The same text the command line writes (one export function).
    let cli = dir.join("cli.tres");
    harness.state().stage.export_godot(&cli).expect("the stage's export");
    let expected = std::fs::read_to_string(&cli).expect("read");
    assert_eq!(text, expected);
    let message = harness.state().file.message.clone().unwrap_or_default();
    assert!(message.contains("exported to Godot"), "{message}");

    // Bevy: the graph and its transitions sidecar beside it.
    harness.get_by_label("Export to Bevy…").click();
    harness.run();
    assert_eq!(harness.state().file.purpose, crate::ui::file_menu::PathPurpose::ExportBevy);
    let graph = dir.join("loco.animgraph.ron");
    harness.state_mut().file.path = graph.display().to_string();
    harness.run();
    harness.get_by_label("Export").click();
    harness.run();
    let ron = std::fs::read_to_string(&graph).expect("the .animgraph.ron was written");
    assert!(ron.contains("mannequin.glb#Animation"), "the graph names the model's clips");
    let sidecar = std::fs::read_to_string(dir.join("loco.transitions.ron")).expect("the sidecar beside it");
    assert!(sidecar.contains("duration_secs"), "{sidecar}");
    assert!(harness.state().error.is_none(), "{:?}", harness.state().error);
    let _ = std::fs::remove_dir_all(&dir);
}

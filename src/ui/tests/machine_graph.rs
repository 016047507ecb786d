//! The state machine's graph window: a node per state plus "Any state", a wire per source →
//! target pair; a wire connected in the graph is a transition the machine then takes, one undo
//! step that Ctrl+Z takes back; the active state's header is the highlighted one; a node's name
//! selects the state in the forms.

use anim::state_machine::{StateId, TransitionFrom, TransitionId};
use egui::Key;
use egui_kittest::kittest::Queryable as _;

use super::{shared_model, viewer, whole};
use crate::ui::{ModelSource, Viewer};

fn state(viewer: &Viewer, name: &str) -> StateId {
    viewer.stage.machine().machine().find_state(name).unwrap_or_else(|| panic!("no state {name}"))
}

/// A harness on `viewer` with the graph window open, drawn once.
fn with_graph(mut viewer: Viewer) -> egui_kittest::Harness<'static, Viewer> {
    viewer.machine_panel.graph.open = true;
    let mut harness = whole(viewer, [1280.0, 900.0]);
    harness.run();
    harness
}

#[test]
fn the_built_in_machine_is_nine_nodes_and_eight_wires_with_the_entry_highlighted() {
    let harness = with_graph(viewer());
    let v = harness.state();
    let machine = v.stage.machine().machine();
    assert_eq!(machine.states().len(), 8);
    assert_eq!(machine.transitions().len(), 8, "an any-state edge into each clip");
    let graph = &v.machine_panel.graph;
    assert_eq!(graph.node_count(), 9, "eight states and Any");
    assert_eq!(graph.wire_count(), 8, "Any -> each state");
    assert_eq!(graph.highlighted(), Some(machine.entry()), "the active state is the entry");
    harness.get_by_label("Any state");
    harness.get_by_label("from every state");
}

#[test]
fn a_wire_connected_in_the_graph_is_a_transition_the_machine_takes_and_ctrl_z_removes() {
    let mut harness = with_graph(viewer());
    let (idle, walk) = (state(harness.state(), "Idle"), state(harness.state(), "Walk"));
    harness.state_mut().request_state(idle);
    harness.state_mut().step(1.0);
    harness.run();
    assert_eq!(harness.state().machine_panel.graph.highlighted(), Some(idle));
    let steps = harness.state().stage.history.undo_steps();
    let graph = &harness.state().machine_panel.graph;
    let (from, to) = (graph.out_pin(TransitionFrom::State(idle)).expect("Idle"), graph.in_pin(walk).expect("Walk"));
    let action = graph.connect_action(from, to).expect("two states");
    harness.state_mut().apply_machine_action(action);
    harness.run();
    let v = harness.state();
    let added = v.stage.machine().machine().transitions().last().expect("a transition").clone();
    assert_eq!((added.from, added.to), (TransitionFrom::State(idle), walk));
    assert!((added.duration_secs - crate::stage::tuning::DEFAULT_FADE_SECS).abs() < 1e-6);
    assert_eq!(v.stage.machine().machine().transitions().len(), 9);
    assert_eq!(v.machine_panel.graph.wire_count(), 9, "the new wire Idle -> Walk");
    assert_eq!(v.machine_panel.graph.node_count(), 9);
    assert_eq!(v.stage.history.undo_steps(), steps + 1, "one undo step");
    // The machine takes the new edge (a state's own edge before the any-state one).
    harness.state_mut().request_state(walk);
    let t = harness.state().stage.machine().output().transition.expect("Idle -> Walk running");
    assert_eq!((t.transition, t.from, t.to), (TransitionId::new(8), idle, walk));
    harness.state_mut().step(0.1);
    harness.run();
    assert_eq!(harness.state().machine_panel.graph.highlighted(), Some(walk), "Walk is active now");
    let t = harness.state().stage.machine().output().transition.expect("still running");
    harness.get_by_label(&format!("entering {:.2} / {:.2} s", t.elapsed_secs, t.duration_secs));
    harness.get_by_label(&format!("leaving {:.2} / {:.2} s", t.elapsed_secs, t.duration_secs));
    // Ctrl+Z takes the graph edit back: the wire goes.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, Key::Z);
    harness.run();
    let v = harness.state();
    assert_eq!(v.stage.machine().machine().transitions().len(), 8);
    assert_eq!(v.machine_panel.graph.wire_count(), 8);
    assert!(v.stage.machine().is_from_table(), "back to the table's machine");
}

#[test]
fn disconnecting_a_wire_removes_its_transition() {
    let mut harness = with_graph(viewer());
    let run = state(harness.state(), "Run");
    let graph = &harness.state().machine_panel.graph;
    let (from, to) = (graph.out_pin(TransitionFrom::Any).expect("Any"), graph.in_pin(run).expect("Run"));
    let action = graph.disconnect_action(harness.state().stage.machine().machine(), from, to).expect("Any -> Run");
    harness.state_mut().apply_machine_action(action);
    harness.run();
    let v = harness.state();
    assert_eq!(v.stage.machine().machine().transitions().len(), 7);
    assert!(v.stage.machine().machine().transitions().iter().all(|t| t.to != run));
    assert_eq!((v.machine_panel.graph.wire_count(), v.machine_panel.graph.node_count()), (7, 9));
}

#[test]
fn robot_expressive_has_a_node_per_state() {
    let Some(path) = shared_model("RobotExpressive/RobotExpressive.glb") else { return };
    let model = anim::import::load_path(&path).expect("RobotExpressive");
    let harness = with_graph(Viewer::new(model, ModelSource::file(&path)));
    let v = harness.state();
    let states = v.stage.machine().machine().states().len();
    assert_eq!(states, 14, "one state per clip");
    assert_eq!(v.machine_panel.graph.node_count(), states + 1);
    assert_eq!(v.machine_panel.graph.wire_count(), states);
    harness.get_by_label("clip Dance");
}

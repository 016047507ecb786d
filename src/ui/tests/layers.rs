//! The Layers and Blend space sections: a layer added from its combo box plays over the clip
//! (the Wave on the masked upper body exactly, the Walk on the legs), its mask shows as heat,
//! the change is undone with the keyboard and kept in the profile; the blend space set up from
//! its button plays in place of the clip, its corner exactly the corner's clip.

use anim::{ClipCursor, NodeId, SampleSettings, SoaPose};
use egui_kittest::kittest::Queryable as _;

use super::{clip, node, viewer, whole};
use crate::stage::layers::LayerSpec;

/// `clip` of the built-in character sampled at `time_secs`.
fn sampled(viewer: &crate::ui::Viewer, clip: anim::ClipId, time_secs: f32) -> SoaPose {
    let model = &viewer.stage.model();
    let mut pose = model.rest_pose();
    let c = model.clip(clip).expect("clip");
    c.sample(time_secs, &mut ClipCursor::new(c), &SampleSettings::default(), &mut pose);
    pose
}

#[test]
fn a_layer_added_in_the_section_plays_over_the_clip_shows_its_mask_and_undoes() {
    let mut viewer = viewer();
    let walk = clip(&viewer, "Walk");
    viewer.stage.transport.select_clip(walk);
    viewer.stage.transport.seek(0.4);
    let mut harness = whole(viewer, [1280.0, 3200.0]);
    harness.run();
    harness.get_by_label("Layers").click();
    harness.run();
    harness.get_by_label("add a layer").click();
    harness.run();
    harness.get_all_by_label("Wave").last().expect("Wave in the list").click();
    harness.run();
    assert_eq!(harness.state().stage.tuning.clip_extras.layers, vec![LayerSpec::new("Wave")]);
    // The mask: the upper body (an anatomy region), from the region list.
    harness.get_by_label("add to mask").click();
    harness.run();
    harness.get_by_label("upper-body").click();
    harness.run();
    harness.get_by_label("mask heat").click();
    harness.run();
    harness.run();
    let v = harness.state();
    assert_eq!(v.stage.tuning.clip_extras.layers[0].mask, ["upper-body"]);
    let (wave, time) = (clip(v, "Wave"), v.stage.transport.time_secs());
    let (wave_pose, walk_pose) = (sampled(v, wave, time), sampled(v, walk, time));
    let heat = v.stage.frame().joint_heat();
    let mut checked = 0;
    for name in ["UpperArm.L", "Head", "UpperLeg.R", "LowerLeg.L"] {
        let Some(n) = v.stage.model().nodes().iter().position(|x| x.name.as_deref() == Some(name)) else { continue };
        let id = NodeId::from_index(n);
        let upper = !name.contains("Leg");
        let expected = if upper { wave_pose.transform(id) } else { walk_pose.transform(id) };
        assert_eq!(v.stage.frame().animated().transform(id), expected, "{name}");
        assert_eq!(heat.get(n).copied(), Some(if upper { 1.0 } else { 0.0 }), "{name}'s heat");
        checked += 1;
    }
    assert!(checked >= 3, "the built-in character's joint names changed");
    assert_ne!(wave_pose.transform(node(v, "UpperArm.L")), walk_pose.transform(node(v, "UpperArm.L")));
    // In the profile, by name.
    let profile = v.profile.profile_of(&v.stage.tuning, v.stage.model());
    assert_eq!(profile.layers[0].to_arg(), "Wave:mask=upper-body");
    // Undo removes the mask, then the layer.
    for _ in 0..2 {
        harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
        harness.run();
    }
    assert!(harness.state().stage.tuning.clip_extras.layers.is_empty());
    harness.run();
    let v = harness.state();
    let time = v.stage.transport.time_secs();
    let arm = node(v, "UpperArm.L");
    assert_eq!(v.stage.frame().animated().transform(arm), sampled(v, walk, time).transform(arm));
}

#[test]
fn the_blend_space_plays_in_place_of_the_clip_and_its_corner_is_the_clip() {
    let mut harness = whole(viewer(), [1280.0, 3200.0]);
    harness.run();
    harness.get_by_label("Blend space").click();
    harness.run();
    harness.get_by_label("Set up a blend space").click();
    harness.run();
    {
        let space = harness.state().stage.tuning.clip_extras.blend_space.clone().expect("a blend space");
        let clips: Vec<&str> = space.space.points.iter().map(|p| p.clip.as_str()).collect();
        assert_eq!(clips, ["Walk", "Run"]);
    }
    harness.get_by_label("play the blend space").click();
    harness.run();
    harness.get_by_label_contains("weights: Walk 0.50, Run 0.50");
    // At the Run's own position: the Run exactly, at its own rate.
    harness.state_mut().stage.tuning.clip_extras.blend_space.as_mut().unwrap().at = [1.0, 0.0];
    for _ in 0..5 {
        harness.state_mut().advance(1.0 / 60.0);
        harness.run();
    }
    let v = harness.state();
    let player = v.stage.frame().layers.player().expect("the blend space is built");
    assert_eq!(player.weights(), &[0.0, 1.0]);
    assert_eq!(player.playback_rate(), 1.0);
    let run = clip(v, "Run");
    let expected = sampled(v, run, player.clip_time_secs(1));
    let knee = node(v, "LowerLeg.L");
    assert_eq!(v.stage.frame().animated().transform(knee), expected.transform(knee));
    harness.get_by_label_contains("mm over 2 s, joint acceleration");
}

#[test]
fn a_mask_weight_set_in_the_joint_tree_paints_the_subtree_undoes_and_is_saved_by_name() {
    let mut viewer = viewer();
    let layer = LayerSpec::parse("Wave:mask=left-arm").expect("spec");
    viewer.stage.edit_tuning(|t| t.clip_extras.layers = vec![layer]);
    let model = viewer.stage.model();
    let arm = crate::stage::layers::region_mask(model, crate::stage::layers::AnatomyRegion::LeftArm);
    let in_arm = |n: usize| arm.get(NodeId::from_index(n)) > 0.0;
    // The region's root: in the arm, its parent not.
    let root = (0..model.nodes().len())
        .find(|&n| in_arm(n) && model.hierarchy.parent(NodeId::from_index(n)).is_none_or(|p| !in_arm(p.index())))
        .map(NodeId::from_index)
        .expect("the built-in character has a left arm");
    let arm_nodes = arm.count_on();
    assert!(arm_nodes >= 3, "shoulder or upper arm, forearm, hand: {arm_nodes}");
    let mut harness = whole(viewer, [1280.0, 3200.0]);
    harness.run();
    harness.get_by_label("Layers").click();
    harness.run();
    harness.get_by_label("paint in joint tree").click();
    harness.run();
    assert_eq!(harness.state().stage.frame().layers.mask_in_tree, Some(0));
    harness.get_by_label("Joints").click();
    harness.run();
    harness.state_mut().stage.select_joint(Some(root));
    harness.run();
    harness.get_by_label_contains("at 1.00; set to");
    harness.get_by_label("0.5").click();
    harness.run();
    harness.get_by_label("Set with subtree").click();
    harness.run();
    harness.run();
    harness.get_by_label_contains("at 0.50; set to");
    let mask =
        |v: &crate::ui::Viewer| v.stage.tuning.clip_extras.layers[0].mask_weights(v.stage.model()).expect("resolves");
    let expect = |weights: &[f32], on_arm: f32| {
        for (n, &w) in weights.iter().enumerate() {
            assert_eq!(w, if in_arm(n) { on_arm } else { 0.0 }, "node {n}");
        }
    };
    expect(&mask(harness.state()), 0.5);
    // The layer plays with it: the live mask heat reads the same.
    let mut heat = Vec::new();
    harness.state().stage.frame().layers.mask_heat(&mut heat);
    expect(&heat, 0.5);
    // In the profile by joint name.
    let v = harness.state();
    let profile = v.profile.profile_of(&v.stage.tuning, v.stage.model());
    let painted = &profile.layers[0].joint_weights;
    assert_eq!(painted.len(), 1);
    assert_eq!(Some(painted[0].joint.as_str()), v.stage.model()[root].name.as_deref());
    assert!(painted[0].subtree);
    // Undo: back to the region at 1; redo: 0.5 again.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run();
    expect(&mask(harness.state()), 1.0);
    harness.key_press_modifiers(egui::Modifiers::COMMAND | egui::Modifiers::SHIFT, egui::Key::Z);
    harness.run();
    expect(&mask(harness.state()), 0.5);
}

#[test]
fn fade_to_blend_space_transitions_into_it_and_t_fades_back_out() {
    let mut viewer = viewer();
    let idle = clip(&viewer, "Idle");
    viewer.stage.transport.select_clip(idle);
    let mut harness = whole(viewer, [1280.0, 3200.0]);
    harness.run();
    harness.get_by_label("Blend space").click();
    harness.run();
    harness.get_by_label("Set up a blend space").click();
    harness.run();
    harness.get_by_label("Fade to blend space").click();
    harness.run();
    {
        let v = harness.state();
        assert!(v.stage.transport.is_fading(), "the button starts a transition");
        assert!(v.stage.transport.fader().plays_blend_space(), "into the blend space");
        assert!(v.stage.tuning.clip_extras.blend_space.as_ref().is_some_and(|b| b.active));
    }
    for _ in 0..40 {
        harness.state_mut().advance(1.0 / 60.0);
        harness.run();
    }
    assert!(harness.state().stage.blend_space_on_screen(), "after the fade the blend space plays");
    // T: from the blend space to the fade target.
    harness.state_mut().stage.set_fade_target(idle);
    harness.state_mut().trigger_fade();
    harness.run();
    let v = harness.state();
    assert!(v.stage.transport.is_fading() && !v.stage.transport.fader().plays_blend_space());
    assert!(v.stage.tuning.clip_extras.blend_space.as_ref().is_some_and(|b| !b.active));
}

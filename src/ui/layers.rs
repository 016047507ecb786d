//! The Layers section: layers over what plays (a clip, a transition, the blend space), each
//! from any clip, override or additive (with its reference pose), with a weight, a ramp-in
//! time and a mask of joints (the selected joint's subtree, or an anatomy region), the mask
//! shown as heat on the mesh. Layers live in the tuning (`crate::stage::layers::LayerSpec`), so
//! they are undoable and saved in the model's profile; `crate::stage::layer_play` plays them.

use anim::Model;

use crate::stage::layer_play::LayerPlay;
use crate::stage::layers::{AnatomyRegion, LayerSpec};
use crate::stage::tuning::Tuning;

/// The section: add, edit and remove layers in `tuning`; `selected` is the selected joint (its
/// subtree can be added to a mask); `play` holds the mask-heat switch; `weights_shown`: each
/// layer's weight in the frame on screen (`Stage::shown`), recorded `rewound_secs` before live
/// while rewound. Returns true when a layer changed.
pub fn layers_ui(
    ui: &mut egui::Ui,
    model: &Model,
    tuning: &mut Tuning,
    play: &mut LayerPlay,
    selected: Option<anim::NodeId>,
    (weights_shown, rewound_secs): (&[f32], Option<f64>),
) -> bool {
    let names: Vec<String> = model.clips().iter().enumerate().map(|(i, c)| c.display_name(i)).collect();
    let mut changed = false;
    let layers = &mut tuning.clip_extras.layers;
    let mut remove = None;
    for (i, layer) in layers.iter_mut().enumerate() {
        ui.separator();
        ui.push_id(("layer", i), |ui| {
            ui.horizontal(|ui| {
                ui.label(format!("Layer {}", i + 1));
                egui::ComboBox::from_label("clip").selected_text(layer.clip.as_str()).show_ui(ui, |ui| {
                    for name in &names {
                        changed |= ui.selectable_value(&mut layer.clip, name.clone(), name).changed();
                    }
                });
                if ui.button("Remove").on_hover_text("Remove this layer").clicked() {
                    remove = Some(i);
                }
            });
            let mut additive = layer.additive.is_some();
            if ui
                .checkbox(&mut additive, "additive")
                .on_hover_text("Add the layer's difference from a reference pose instead of replacing the pose")
                .changed()
            {
                layer.additive = additive.then_some(None);
                changed = true;
            }
            if let Some(reference) = &mut layer.additive {
                changed |= reference_ui(ui, reference, &names);
            }
            changed |= ui.add(egui::Slider::new(&mut layer.weight, 0.0..=1.0).text("weight")).changed();
            changed |= ui
                .add(egui::Slider::new(&mut layer.ramp_secs, 0.0..=2.0).text("ramp in (s)"))
                .on_hover_text("Seconds the weight takes to ease in from 0 (smoothstep)")
                .changed();
            ui.horizontal_wrapped(|ui| {
                let mask = if layer.mask.is_empty() { "whole body".to_owned() } else { layer.mask.join(" + ") };
                ui.label(format!("mask: {mask}"));
            });
            ui.horizontal(|ui| {
                // By name (what the spec resolves), by index when unnamed.
                let joint =
                    selected.and_then(|n| model.node(n).map(|node| node.name.clone().unwrap_or_else(|| n.to_string())));
                if ui
                    .add_enabled(joint.is_some(), egui::Button::new("+ selected joint"))
                    .on_hover_text("Add the selected joint and everything below it to the mask")
                    .clicked()
                    && let Some(joint) = joint
                    && !layer.mask.contains(&joint)
                {
                    layer.mask.push(joint);
                    changed = true;
                }
                egui::ComboBox::from_label("add to mask").selected_text("region…").show_ui(ui, |ui| {
                    for region in AnatomyRegion::ALL {
                        if ui.selectable_label(false, region.name()).clicked() {
                            layer.mask.push(region.name().to_owned());
                            changed = true;
                        }
                    }
                });
                if ui.add_enabled(!layer.mask.is_empty(), egui::Button::new("Whole body")).clicked() {
                    layer.mask.clear();
                    changed = true;
                }
            });
            let mut in_tree = play.mask_in_tree == Some(i);
            if ui
                .checkbox(&mut in_tree, "paint in joint tree")
                .on_hover_text("Show this layer's mask weight on each row of the joint tree and set it there")
                .changed()
            {
                play.mask_in_tree = in_tree.then_some(i);
            }
            if !layer.joint_weights.is_empty() {
                ui.horizontal(|ui| {
                    ui.label(format!("{} joint weight(s) painted", layer.joint_weights.len()));
                    if ui.small_button("Clear painted").clicked() {
                        layer.joint_weights.clear();
                        changed = true;
                    }
                });
            }
            let weight = weights_shown.get(i).copied().unwrap_or(0.0);
            let weight = match rewound_secs {
                Some(secs) => format!("weight {weight:.2} ({})", super::rewind::rewound_label(secs)),
                None => format!("weight now {weight:.2}"),
            };
            ui.weak(format!("{weight}; --layer {}", layer.to_arg()));
        });
    }
    if let Some(i) = remove {
        layers.remove(i);
        play.mask_in_tree = None;
        changed = true;
    }
    ui.separator();
    ui.horizontal(|ui| {
        egui::ComboBox::from_label("add a layer").selected_text("clip…").show_ui(ui, |ui| {
            for name in &names {
                if ui.selectable_label(false, name).clicked() {
                    layers.push(LayerSpec::new(name.clone()));
                    changed = true;
                }
            }
        });
        ui.checkbox(&mut play.show_mask_heat, "mask heat")
            .on_hover_text("Paint each joint's layer weight on the mesh (red: fully the layer)");
    });
    if let Some(error) = play.error() {
        ui.colored_label(egui::Color32::from_rgb(230, 120, 90), error);
    }
    if layers.is_empty() {
        ui.weak(
            "Layers play over the clip, a transition or the blend space: a Wave on the upper body, an additive breath.",
        );
    }
    changed
}

/// The additive reference: the clip's first frame, a time of it, or another clip's first frame.
fn reference_ui(ui: &mut egui::Ui, reference: &mut Option<String>, clips: &[String]) -> bool {
    let mut changed = false;
    let time = reference.as_deref().and_then(|r| r.parse::<f32>().ok());
    let shown = match (reference.as_deref(), time) {
        (None, _) => "first frame".to_owned(),
        (Some(_), Some(t)) => format!("at {t:.2} s"),
        (Some(clip), None) => format!("{clip}'s first frame"),
    };
    ui.horizontal(|ui| {
        egui::ComboBox::from_label("reference").selected_text(shown).show_ui(ui, |ui| {
            if ui.selectable_label(reference.is_none(), "first frame").clicked() {
                *reference = None;
                changed = true;
            }
            if ui.selectable_label(time.is_some(), "a time").clicked() && time.is_none() {
                *reference = Some("0".to_owned());
                changed = true;
            }
            for clip in clips {
                if ui.selectable_label(reference.as_deref() == Some(clip), format!("{clip}'s first frame")).clicked() {
                    *reference = Some(clip.clone());
                    changed = true;
                }
            }
        });
        if let Some(mut t) = time
            && ui.add(egui::DragValue::new(&mut t).speed(0.01).range(0.0..=1000.0).suffix(" s")).changed()
        {
            *reference = Some(format!("{t}"));
            changed = true;
        }
    });
    changed
}

//! `animtune sample`: local transforms of every animated node at given times, sampled into the
//! runtime pose (the same job the viewer, crowds and `bench` run) and read back per node.

use std::fmt::Write as _;

use anim::{ClipCursor, ClipId, InterpolationOverride, LayerStack, Model, SampleSettings};
use serde::Serialize;

/// The sampled clip, in the exact JSON shape scripts rely on.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SampleReport {
    /// Clip name (`animation_<index>` when unnamed).
    pub clip: String,
    /// One entry per requested time, in the order given.
    pub samples: Vec<TimeSample>,
}

/// One `KHR_animation_pointer` property at one time.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PointerSample {
    /// The JSON pointer as written in the file.
    pub pointer: String,
    /// Its value (1 to 4 numbers; visibility is 0 or 1).
    pub value: Vec<f32>,
}

/// All animated nodes at one time.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TimeSample {
    /// The requested time, as given.
    pub time: f64,
    /// Every node the clip animates, ascending.
    pub nodes: Vec<NodeSample>,
    /// The clip's `KHR_animation_pointer` properties (materials, texture transforms,
    /// visibility) in channel order; only for clips that have them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointers: Option<Vec<PointerSample>>,
}

/// One node's local transform.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct NodeSample {
    /// glTF node index.
    pub node: usize,
    /// Local translation.
    pub translation: [f32; 3],
    /// Local rotation `[x, y, z, w]`.
    pub rotation: [f32; 4],
    /// Local scale.
    pub scale: [f32; 3],
    /// Morph weights, only for nodes whose weights the clip animates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weights: Option<Vec<f32>>,
}

impl SampleReport {
    /// Sample clip `clip` of `model` at each time (clamped to `[0, clip end]`).
    pub fn new(model: &Model, clip_id: ClipId, times: &[f64], mode: InterpolationOverride) -> Self {
        Self::with_layers(model, clip_id, times, mode, None)
    }

    /// [`Self::new`] with `layers` applied over the clip at each time (each layer's clip at the
    /// same time, looped to its length); the nodes listed are those the clip or any layer
    /// animates.
    pub fn with_layers(
        model: &Model,
        clip_id: ClipId,
        times: &[f64],
        mode: InterpolationOverride,
        mut layers: Option<LayerStack>,
    ) -> Self {
        let clip = &model[clip_id];
        let settings = SampleSettings::with_mode(mode);
        let rest = model.rest_pose();
        let mut pose = rest.clone();
        let mut cursor = ClipCursor::new(clip);
        let mut nodes = clip.animated_nodes();
        if let Some(stack) = &layers {
            nodes.extend(stack.descs().filter_map(|d| model.clip(d.clip)).flat_map(anim::Clip::animated_nodes));
            nodes.sort_unstable();
            nodes.dedup();
        }
        let weighted: Vec<_> =
            clip.tracks().iter().filter(|t| t.property() == anim::Property::Weights).map(|t| t.node).collect();
        let pointer_tracks = model.clip_pointer_tracks(clip_id);
        let end_secs = clip.end_secs();
        let samples = times
            .iter()
            .map(|&time| {
                let t = (time as f32).clamp(0.0, end_secs);
                pose.copy_from(&rest);
                clip.sample(t, &mut cursor, &settings, &mut pose);
                if let Some(stack) = &mut layers {
                    stack.apply(model, &settings, t, &mut pose);
                }
                // The node-indexed view of the blocks.
                let nodes = nodes
                    .iter()
                    .map(|&node| {
                        let local = pose.transform(node);
                        NodeSample {
                            node: node.index(),
                            translation: local.translation.to_array(),
                            rotation: local.rotation.to_array(),
                            scale: local.scale.to_array(),
                            weights: weighted.contains(&node).then(|| model.node_weights(node, &pose).to_vec()),
                        }
                    })
                    .collect();
                let pointers = (!pointer_tracks.is_empty()).then(|| {
                    pointer_tracks
                        .iter()
                        .map(|track| {
                            let mut value = [0.0; 4];
                            track.sample(t, &mut value);
                            PointerSample {
                                pointer: track.pointer.clone(),
                                value: value[..track.components()].to_vec(),
                            }
                        })
                        .collect()
                });
                TimeSample { time, nodes, pointers }
            })
            .collect();
        Self { clip: clip.display_name(clip_id.index()), samples }
    }

    /// Human-readable rendering.
    pub fn to_text(&self, model: &Model) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "clip \"{}\"", self.clip);
        let v = |x: &[f32]| x.iter().map(|c| format!("{c:9.5}")).collect::<Vec<_>>().join(" ");
        for sample in &self.samples {
            let _ = writeln!(s, "t = {} s", sample.time);
            for n in &sample.nodes {
                let name = model.nodes()[n.node].name.as_deref().unwrap_or("");
                let _ = writeln!(s, "  node {:3} {name}", n.node);
                let _ = writeln!(s, "    translation {}", v(&n.translation));
                let _ = writeln!(s, "    rotation    {}", v(&n.rotation));
                let _ = writeln!(s, "    scale       {}", v(&n.scale));
                if let Some(w) = &n.weights {
                    let _ = writeln!(s, "    weights     {}", v(w));
                }
            }
            for p in sample.pointers.iter().flatten() {
                let _ = writeln!(s, "  pointer {} = {}", p.pointer, v(&p.value));
            }
        }
        s
    }
}

/// The layer stack of `specs` on `model` (`None` without layers), references sampled with
/// `settings`.
///
/// # Errors
/// An unknown clip, joint or region, named in the message with the layer it is in.
pub fn layer_stack(
    model: &Model,
    settings: &SampleSettings,
    specs: &[crate::stage::layers::LayerSpec],
) -> anyhow::Result<Option<LayerStack>> {
    if specs.is_empty() {
        return Ok(None);
    }
    let mut descs = Vec::with_capacity(specs.len());
    for spec in specs {
        descs.push(spec.resolve(model).map_err(|e| anyhow::anyhow!("--layer {}: {e}", spec.to_arg()))?);
    }
    Ok(Some(LayerStack::new(model, settings, descs)?))
}

/// Parse `T1,T2,...` into finite times.
pub fn parse_times(text: &str) -> Result<Vec<f64>, String> {
    text.split(',')
        .map(|part| {
            let part = part.trim();
            let t: f64 = part.parse().map_err(|_| format!("\"{part}\" is not a number"))?;
            if t.is_finite() { Ok(t) } else { Err(format!("time \"{part}\" is not finite")) }
        })
        .collect()
}

//! `animtune info`: what a model contains.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use anim::{Model, Property};
use serde::Serialize;

/// Summary of a model.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct InfoReport {
    /// Where the model came from.
    pub source: String,
    /// Scenes with their root nodes.
    pub scenes: Vec<SceneInfo>,
    /// The default scene, if the file names one.
    pub default_scene: Option<usize>,
    /// Number of nodes.
    pub node_count: usize,
    /// Skins.
    pub skins: Vec<SkinInfo>,
    /// Meshes.
    pub meshes: Vec<MeshInfo>,
    /// Animations.
    pub animations: Vec<AnimationInfo>,
    /// Every extension the file uses and what animtune did with it.
    pub extensions: Vec<ExtensionInfo>,
    /// Import times (`--timings`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_timings: Option<LoadTimings>,
}

/// How long importing the model takes: the file read and every buffer, decoder and accessor,
/// as the command line and the viewer load it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LoadTimings {
    /// Imports timed.
    pub runs: usize,
    /// Median milliseconds.
    pub median_ms: f64,
    /// Fastest milliseconds.
    pub min_ms: f64,
}

impl LoadTimings {
    /// Import `path` (or the built-in character) `runs` times.
    ///
    /// # Errors
    /// When the model does not load.
    pub fn measure(path: Option<&std::path::Path>, limits: &anim::import::Limits, runs: usize) -> anyhow::Result<Self> {
        let mut ms: Vec<f64> = (0..runs.max(1))
            .map(|_| {
                let start = std::time::Instant::now();
                let model = match path {
                    Some(path) => super::load_model_with_limits(path, limits)?,
                    None => decode::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None, limits)?,
                };
                std::hint::black_box(model);
                Ok(start.elapsed().as_secs_f64() * 1e3)
            })
            .collect::<anyhow::Result<_>>()?;
        ms.sort_by(f64::total_cmp);
        Ok(Self { runs: ms.len(), median_ms: ms[ms.len() / 2], min_ms: ms[0] })
    }
}

/// One glTF extension the file uses.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ExtensionInfo {
    /// The extension's name.
    pub name: String,
    /// Listed in `extensionsRequired`.
    pub required: bool,
    /// `decoded`, `applied` or `ignored` (loaded without it, with the note as the warning).
    pub status: &'static str,
    /// What was done with it, or why it was ignored.
    pub note: String,
}

/// One scene.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SceneInfo {
    /// Scene index.
    pub index: usize,
    /// Scene name.
    pub name: Option<String>,
    /// Root node indices.
    pub roots: Vec<usize>,
}

/// One skin.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SkinInfo {
    /// Skin index.
    pub index: usize,
    /// Skin name.
    pub name: Option<String>,
    /// Number of joints.
    pub joint_count: usize,
}

/// One mesh.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MeshInfo {
    /// Mesh index.
    pub index: usize,
    /// Mesh name.
    pub name: Option<String>,
    /// Number of primitives.
    pub primitive_count: usize,
    /// Vertices over all primitives.
    pub vertex_count: usize,
    /// Morph targets.
    pub morph_target_count: usize,
}

/// One animation clip.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AnimationInfo {
    /// Clip index.
    pub index: usize,
    /// Name (`animation_<index>` when unnamed).
    pub name: String,
    /// Seconds from 0 to the last key.
    pub duration_secs: f32,
    /// First key time.
    pub start_secs: f32,
    /// Channels per animated path.
    pub channels: BTreeMap<&'static str, usize>,
    /// Interpolation modes used (glTF spelling).
    pub interpolations: Vec<&'static str>,
    /// Distinct key timelines after sharing.
    pub timelines: usize,
}

impl InfoReport {
    /// Summarize `model`, loaded from `source`.
    pub fn new(model: &Model, source: &str) -> Self {
        Self {
            source: source.to_owned(),
            scenes: model
                .scenes()
                .iter()
                .enumerate()
                .map(|(index, s)| SceneInfo {
                    index,
                    name: s.name.clone(),
                    roots: s.roots.iter().map(|r| r.index()).collect(),
                })
                .collect(),
            default_scene: model.default_scene,
            node_count: model.nodes().len(),
            skins: model
                .skins()
                .iter()
                .enumerate()
                .map(|(index, s)| SkinInfo { index, name: s.name.clone(), joint_count: s.joints.len() })
                .collect(),
            meshes: model
                .meshes()
                .iter()
                .enumerate()
                .map(|(index, m)| MeshInfo {
                    index,
                    name: m.name.clone(),
                    primitive_count: m.primitives.len(),
                    vertex_count: m.primitives.iter().map(|p| p.positions.len()).sum(),
                    morph_target_count: m.target_count(),
                })
                .collect(),
            animations: model
                .clips()
                .iter()
                .enumerate()
                .map(|(index, clip)| AnimationInfo {
                    index,
                    name: clip.display_name(index),
                    duration_secs: clip.duration_secs(),
                    start_secs: clip.start_secs(),
                    channels: [Property::Translation, Property::Rotation, Property::Scale, Property::Weights]
                        .into_iter()
                        .map(|p| (p.gltf_name(), clip.track_count(p)))
                        .collect(),
                    interpolations: clip.interpolations().iter().map(|i| i.gltf_name()).collect(),
                    timelines: clip.timelines().len(),
                })
                .collect(),
            extensions: model
                .extensions
                .iter()
                .map(|e| ExtensionInfo {
                    name: e.name.clone(),
                    required: e.required,
                    status: e.status.as_str(),
                    note: e.note.clone(),
                })
                .collect(),
            load_timings: None,
        }
    }

    /// Human-readable rendering.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let opt = |n: &Option<String>| n.as_deref().map(|n| format!(" \"{n}\"")).unwrap_or_default();
        let _ = writeln!(s, "{}", self.source);
        let _ = writeln!(s, "  nodes: {}", self.node_count);
        let _ = writeln!(s, "  scenes: {}", self.scenes.len());
        for scene in &self.scenes {
            let default = if self.default_scene == Some(scene.index) { " (default)" } else { "" };
            let _ = writeln!(s, "    {}{}{default}: {} root node(s)", scene.index, opt(&scene.name), scene.roots.len());
        }
        let _ = writeln!(s, "  skins: {}", self.skins.len());
        for skin in &self.skins {
            let _ = writeln!(s, "    {}{}: {} joints", skin.index, opt(&skin.name), skin.joint_count);
        }
        let _ = writeln!(s, "  meshes: {}", self.meshes.len());
        for mesh in &self.meshes {
            let _ = writeln!(
                s,
                "    {}{}: {} primitive(s), {} vertices, {} morph target(s)",
                mesh.index,
                opt(&mesh.name),
                mesh.primitive_count,
                mesh.vertex_count,
                mesh.morph_target_count
            );
        }
        let _ = writeln!(s, "  extensions: {}", self.extensions.len());
        for e in &self.extensions {
            let required = if e.required { " (required)" } else { "" };
            let warning = if e.status == "ignored" { "warning: " } else { "" };
            let _ = writeln!(s, "    {}{required}: {warning}{}: {}", e.name, e.status, e.note);
        }
        if let Some(t) = &self.load_timings {
            let _ = writeln!(s, "  import: {:.2} ms median, {:.2} ms fastest ({} runs)", t.median_ms, t.min_ms, t.runs);
        }
        let _ = writeln!(s, "  animations: {}", self.animations.len());
        for a in &self.animations {
            let channels: Vec<String> =
                a.channels.iter().filter(|(_, n)| **n > 0).map(|(p, n)| format!("{n} {p}")).collect();
            let _ = writeln!(
                s,
                "    {} \"{}\": {:.3} s, channels: {} [{}], {}",
                a.index,
                a.name,
                a.duration_secs,
                a.channels.values().sum::<usize>(),
                channels.join(", "),
                if a.interpolations.is_empty() { "no keys".to_owned() } else { a.interpolations.join("+") }
            );
        }
        s
    }
}

//! The headless commands: each builds a serializable report from the core, printed as text or
//! JSON by `main.rs`.

pub mod bake;
pub mod bench;
pub mod blend_space;
pub mod graph;
pub mod info;
pub mod ragdoll;
pub mod record;
pub mod render;
pub mod retarget;
pub mod sample;
pub mod soak;
pub mod transition;

use std::path::Path;

use anyhow::Context as _;

/// Output format of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// Human-readable text.
    #[default]
    Text,
    /// Machine-readable JSON.
    Json,
}

/// Import resource limits of the commands that load a model (defaults: [`anim::import::Limits`]).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LimitArgs {
    /// Largest model, buffer or image file read, in MiB [default: 2048].
    #[arg(long, value_name = "MIB")]
    pub max_file_mib: Option<u64>,
    /// Most components decoded from one accessor (elements × components) [default: 2^28].
    #[arg(long, value_name = "N")]
    pub max_accessor_elements: Option<u64>,
    /// Most nodes [default: 2^20].
    #[arg(long, value_name = "N")]
    pub max_nodes: Option<usize>,
    /// Most animation keys over all clips [default: 2^26].
    #[arg(long, value_name = "N")]
    pub max_keys: Option<u64>,
    /// Most vertices over all mesh primitives [default: 2^26].
    #[arg(long, value_name = "N")]
    pub max_vertices: Option<u64>,
    /// Most vertex indices over all mesh primitives [default: 2^28].
    #[arg(long, value_name = "N")]
    pub max_indices: Option<u64>,
    /// Largest image, in MiB [default: 256].
    #[arg(long, value_name = "MIB")]
    pub max_image_mib: Option<u64>,
    /// Most pixels (width × height) of a KTX2 image, checked at import before it is
    /// transcoded [default: 2^26].
    #[arg(long, value_name = "N")]
    pub max_image_pixels: Option<u64>,
    /// Deepest node hierarchy, a root having depth 1 [default: 1024].
    #[arg(long, value_name = "N")]
    pub max_node_depth: Option<usize>,
    /// Most joints in one skin [default: 65536].
    #[arg(long, value_name = "N")]
    pub max_skin_joints: Option<usize>,
    /// Largest magnitude of a number that feeds transforms (node transforms, inverse bind
    /// matrices, key times and values, positions, normals, morph deltas, weights); `inf`
    /// turns the check off [default: 1e9].
    #[arg(long, value_name = "X", value_parser = parse_max_abs_value)]
    pub max_abs_value: Option<f32>,
}

/// Parse `--max-abs-value`: a positive number (`inf` allowed).
///
/// # Errors
/// A message when the text is not a number greater than 0.
pub fn parse_max_abs_value(text: &str) -> Result<f32, String> {
    match text.trim().parse::<f32>() {
        Ok(x) if x > 0.0 => Ok(x),
        _ => Err(format!("\"{text}\" is not a number greater than 0")),
    }
}

impl LimitArgs {
    /// The default limits with every given flag applied.
    pub fn limits(&self) -> anim::import::Limits {
        let mut limits = anim::import::Limits::default();
        let mib = |m: u64| m.saturating_mul(1 << 20);
        if let Some(v) = self.max_file_mib {
            limits.max_file_bytes = mib(v);
        }
        if let Some(v) = self.max_accessor_elements {
            limits.max_accessor_components = v;
        }
        if let Some(v) = self.max_nodes {
            limits.max_nodes = v;
        }
        if let Some(v) = self.max_keys {
            limits.max_total_keys = v;
        }
        if let Some(v) = self.max_vertices {
            limits.max_total_vertices = v;
        }
        if let Some(v) = self.max_indices {
            limits.max_total_indices = v;
        }
        if let Some(v) = self.max_image_mib {
            limits.max_image_bytes = mib(v);
        }
        if let Some(v) = self.max_image_pixels {
            limits.max_image_pixels = v;
        }
        if let Some(v) = self.max_node_depth {
            limits.max_node_depth = v;
        }
        if let Some(v) = self.max_skin_joints {
            limits.max_skin_joints = v;
        }
        if let Some(v) = self.max_abs_value {
            limits.max_abs_value = v;
        }
        limits
    }
}

/// Import a model file, with the file named in the error.
pub fn load_model(path: &Path) -> anyhow::Result<anim::Model> {
    load_model_with_limits(path, &anim::import::Limits::default())
}

/// [`load_model`] under explicit import limits.
pub fn load_model_with_limits(path: &Path, limits: &anim::import::Limits) -> anyhow::Result<anim::Model> {
    decode::load_path(path, limits).with_context(|| format!("cannot load {}", path.display()))
}

/// Import `path`, or the built-in default character when there is none. Returns the model and
/// a label for reports.
pub fn load_model_or_default(path: Option<&Path>) -> anyhow::Result<(anim::Model, String)> {
    load_model_or_default_with_limits(path, &anim::import::Limits::default())
}

/// [`load_model_or_default`] under explicit import limits (for `path`; the built-in character
/// is trusted).
pub fn load_model_or_default_with_limits(
    path: Option<&Path>,
    limits: &anim::import::Limits,
) -> anyhow::Result<(anim::Model, String)> {
    match path {
        Some(path) => Ok((load_model_with_limits(path, limits)?, path.display().to_string())),
        None => {
            let model = anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None)
                .context("the built-in default character failed to load")?;
            Ok((model, crate::mannequin::DEFAULT_MODEL_LABEL.to_owned()))
        }
    }
}

/// Find a clip by name or index, with the available clips listed in the error.
pub fn find_clip(model: &anim::Model, name_or_index: &str) -> anyhow::Result<anim::ClipId> {
    // An unnamed clip is shown as `animation_<index>`, so that name finds it too.
    let shown_name = || {
        let shown = |(i, c): &(usize, &anim::Clip)| c.name().is_none() && c.display_name(*i) == name_or_index;
        model.clips().iter().enumerate().position(|e| shown(&e)).map(anim::ClipId::from_index)
    };
    model.find_clip(name_or_index).or_else(shown_name).with_context(|| {
        let names: Vec<String> =
            model.clips().iter().enumerate().map(|(i, c)| format!("{i}: {}", c.display_name(i))).collect();
        if names.is_empty() {
            format!("clip \"{name_or_index}\" not found: the model has no animations")
        } else {
            format!("clip \"{name_or_index}\" not found; clips are: {}", names.join(", "))
        }
    })
}

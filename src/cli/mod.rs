//! The headless commands: each builds a serializable report from the core, printed as text or
//! JSON by `main.rs`.

pub mod bench;
pub mod info;
pub mod ragdoll;
pub mod render;
pub mod sample;

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

/// Import a model file, with the file named in the error.
pub fn load_model(path: &Path) -> anyhow::Result<anim::Model> {
    anim::import::load_path(path).with_context(|| format!("cannot load {}", path.display()))
}

/// Import `path`, or the built-in default character when there is none. Returns the model and
/// a label for reports.
pub fn load_model_or_default(path: Option<&Path>) -> anyhow::Result<(anim::Model, String)> {
    match path {
        Some(path) => Ok((load_model(path)?, path.display().to_string())),
        None => {
            let model = anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None)
                .context("the built-in default character failed to load")?;
            Ok((model, crate::mannequin::DEFAULT_MODEL_LABEL.to_owned()))
        }
    }
}

/// Find a clip by name or index, with the available clips listed in the error.
pub fn find_clip(model: &anim::Model, name_or_index: &str) -> anyhow::Result<usize> {
    // An unnamed clip is shown as `animation_<index>`, so that name finds it too.
    let shown_name =
        || model.clips.iter().enumerate().position(|(i, c)| c.name.is_none() && c.display_name(i) == name_or_index);
    model.find_clip(name_or_index).or_else(shown_name).with_context(|| {
        let names: Vec<String> =
            model.clips.iter().enumerate().map(|(i, c)| format!("{i}: {}", c.display_name(i))).collect();
        if names.is_empty() {
            format!("clip \"{name_or_index}\" not found: the model has no animations")
        } else {
            format!("clip \"{name_or_index}\" not found; clips are: {}", names.join(", "))
        }
    })
}

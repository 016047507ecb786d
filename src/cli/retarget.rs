//! `animtune retarget`: clips of one humanoid played on another ([`crate::retarget`]), written
//! into a copy of the target with the target's own clips kept, read back and measured.

use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::retarget::clip::{FileBytes, Options, retarget_to_file};
use crate::retarget::{Mapping, Skeleton};

/// Arguments of `animtune retarget`.
#[derive(Debug, Clone, clap::Args)]
pub struct RetargetArgs {
    /// The .glb or .gltf file whose clips are retargeted (omitted or `builtin`: the built-in
    /// character).
    pub source: Option<PathBuf>,
    /// Clip names or indices, comma-separated.
    #[arg(long, value_delimiter = ',', required = true)]
    pub clip: Vec<String>,
    /// The rig the clips are put on (`builtin`: the built-in character).
    #[arg(long)]
    pub onto: PathBuf,
    /// Output file (always a self-contained .glb): the target with the clips added.
    #[arg(long)]
    pub out: PathBuf,
    /// Leave the feet where the transferred pose puts them (no two-bone IK during stance).
    #[arg(long)]
    pub no_foot_ik: bool,
    /// Output format of the report.
    #[arg(long, value_enum, default_value_t)]
    pub format: super::Format,
    /// Import limits.
    #[command(flatten)]
    pub limits: super::LimitArgs,
}

/// `builtin` (any case) or no path: the built-in character.
fn is_builtin(path: Option<&Path>) -> bool {
    path.is_none_or(|p| p.as_os_str().eq_ignore_ascii_case("builtin"))
}

/// A model's file bytes, folder and import: the built-in character's embedded bytes or a file.
fn read(path: Option<&Path>, limits: &anim::import::Limits) -> anyhow::Result<(Vec<u8>, Option<PathBuf>, anim::Model)> {
    match path.filter(|p| !is_builtin(Some(p))) {
        None => {
            let bytes = crate::mannequin::DEFAULT_MODEL_GLB.to_vec();
            let (model, _) = super::load_model_or_default_with_limits(None, limits)?;
            Ok((bytes, None, model))
        }
        Some(path) => {
            let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            let model = super::load_model_with_limits(path, limits)?;
            Ok((bytes, path.parent().map(Path::to_path_buf), model))
        }
    }
}

/// Run `animtune retarget`: writes `--out` and returns the report, printed as text or JSON.
///
/// # Errors
/// When a model does not load or is not a humanoid the anatomy recognises, a clip does not
/// exist, or the output cannot be written or read back.
pub fn run(args: &RetargetArgs) -> anyhow::Result<String> {
    let limits = args.limits.limits();
    let (_, _, source) = read(args.source.as_deref(), &limits)?;
    let (target_bytes, target_dir, target) = read(Some(&args.onto), &limits)?;
    let source_skeleton = Skeleton::new(&source).context("the source")?;
    let target_skeleton = Skeleton::new(&target).context("the target (--onto)")?;
    anyhow::ensure!(
        source_skeleton.is_humanoid(),
        "the source is not a humanoid the anatomy recognises (hips, two legs with feet)"
    );
    anyhow::ensure!(
        target_skeleton.is_humanoid(),
        "the target is not a humanoid the anatomy recognises (hips, two legs with feet)"
    );
    let clips = args.clip.iter().map(|c| super::find_clip(&source, c.trim())).collect::<anyhow::Result<Vec<_>>>()?;
    let mapping = Mapping::automatic(&source_skeleton, &target_skeleton);
    let written = retarget_to_file(
        (&source, &source_skeleton),
        (&target, &target_skeleton),
        FileBytes { bytes: &target_bytes, base_dir: target_dir.as_deref() },
        &mapping,
        &clips,
        Options { foot_ik: !args.no_foot_ik },
        &limits,
    )?;
    std::fs::write(&args.out, &written.glb).with_context(|| format!("cannot write {}", args.out.display()))?;
    Ok(match args.format {
        super::Format::Text => written.report.to_text(),
        super::Format::Json => serde_json::to_string_pretty(&written.report)? + "\n",
    })
}

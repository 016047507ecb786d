//! The built-in default character, embedded so that animtune opens it from any directory. Its
//! generator is development tooling (`crates/devtools`, `cargo xtask generate mannequin`), not
//! part of the shipped binary.

/// The default character as checked in (`assets/mannequin.glb`).
pub const DEFAULT_MODEL_GLB: &[u8] = include_bytes!("../assets/mannequin.glb");

/// How the default character is named where a file path would be shown.
pub const DEFAULT_MODEL_LABEL: &str = "built-in default character (assets/mannequin.glb)";

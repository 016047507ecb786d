//! animtune: preview, compare and tune glTF character animation.
//!
//! The pure animation core lives in the `anim` crate (`crates/anim`); this crate holds the
//! headless command line and, as they land, the renderer, physics and viewer.

pub mod ab;
pub mod app;
pub mod args;
pub mod bake;
pub mod cli;
pub mod crowd;
pub mod mannequin;
pub mod motion;
pub mod physics;
pub mod process;
pub mod profile;
pub mod record;
pub mod render;
pub mod retarget;
pub mod stage;
pub mod transitions;
pub mod ui;
pub mod watch;

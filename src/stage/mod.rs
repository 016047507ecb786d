//! The character on stage, without egui, winit or wgpu: the state the viewer's panels read and
//! change — every tunable and its undo history ([`tuning`]), the selected joint and channel
//! ([`selection`]), the pose jobs the frame and the compare view share ([`sampling`]), models
//! loaded in the background ([`loading`]) and frame statistics ([`stats`]). It sits above the
//! renderer and the physics and below the UI and the command line: `crate::profile` and
//! `crate::cli` take their types from here, never from `crate::ui`.

pub mod loading;
pub mod sampling;
pub mod selection;
pub mod stats;
pub mod tuning;

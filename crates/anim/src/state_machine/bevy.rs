//! Bevy.

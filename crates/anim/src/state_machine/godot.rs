//! Godot 4.

//! The viewer's keyboard shortcuts: one table, read by the viewer's input handling
//! (`Viewer::shortcuts_ui`) and printed into `docs/reference/shortcuts.md` by the reference test
//! (`tests/docs_reference.rs`), so the two cannot disagree.

use egui::{Key, Modifiers};

/// What a shortcut does in the viewer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShortcutAction {
    /// Quit (the profile is saved).
    Quit,
    /// Open a model (File ▸ Open…).
    Open,
    /// Redo a tuning change.
    Redo,
    /// Undo a tuning change.
    Undo,
    /// Play / pause.
    PlayPause,
    /// One frame back.
    StepBack,
    /// One frame forward.
    StepForward,
    /// First frame.
    FirstFrame,
    /// Last frame.
    LastFrame,
    /// Frame the camera on what is drawn.
    FrameCamera,
    /// Leave the rewind: back to the live state (only while rewound).
    ResumeLive,
    /// Trigger the transition to the Cross-fade panel's target.
    Transition,
    /// Toggle the skeleton overlay.
    Skeleton,
    /// Hand off to the ragdoll.
    GoLimp,
    /// Get up from the ragdoll.
    GetUp,
    /// Toggle the Stats overlay.
    Stats,
    /// Look at the character from a side (Blender's numpad views).
    View(ViewAngle),
    /// Drive the state machine while the key is held (see [`ShortcutAction::is_held`]).
    Drive(Gait),
}

impl ShortcutAction {
    /// True for a key that acts while held and again on release (the state machine's drive
    /// keys, read by `Viewer::drive_ui`), not once on a press.
    pub fn is_held(self) -> bool {
        matches!(self, Self::Drive(_))
    }
}

/// The gait a drive key asks the state machine for: the state of that name (any case), with
/// Idle on release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gait {
    /// The state called Walk.
    Walk,
    /// The state called Run.
    Run,
}

impl Gait {
    /// The state it requests, by name (matched ignoring case).
    pub fn state_name(self) -> &'static str {
        match self {
            Self::Walk => "Walk",
            Self::Run => "Run",
        }
    }
}

/// The state the drive keys return to when released (matched ignoring case).
pub const DRIVE_REST_STATE: &str = "Idle";

/// The key held to walk (with Shift: run).
pub const DRIVE_KEY: Key = Key::W;

/// Where a view shortcut puts the camera, relative to the way the character faces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewAngle {
    /// In front of the character, looking at its face.
    Front,
    /// Behind it.
    Back,
    /// On its right.
    Right,
    /// On its left.
    Left,
    /// Above it, looking down.
    Top,
}

/// One shortcut: the key chords that trigger it and what it does.
#[derive(Debug, Clone, Copy)]
pub struct Shortcut {
    /// What it does.
    pub action: ShortcutAction,
    /// Key chords, any of which triggers it, tried in order (`Modifiers::COMMAND` is Ctrl, ⌘ on
    /// macOS).
    pub keys: &'static [(Modifiers, Key)],
    /// Also while a text field has the keyboard (otherwise the key goes to the field).
    pub in_text_fields: bool,
    /// What it does, as the reference says it.
    pub description: &'static str,
}

const CTRL: Modifiers = Modifiers::COMMAND;
const CTRL_SHIFT: Modifiers = Modifiers::COMMAND.plus(Modifiers::SHIFT);
const NONE: Modifiers = Modifiers::NONE;
const SHIFT: Modifiers = Modifiers::SHIFT;

/// Every keyboard shortcut of the viewer, in the order the viewer tries them (Ctrl+Shift+Z before
/// Ctrl+Z, which would also match it). Held keys ([`ShortcutAction::is_held`]) are not tried
/// on a press: `Viewer::drive_ui` reads whether they are down each frame.
pub const SHORTCUTS: &[Shortcut] = &[
    Shortcut {
        action: ShortcutAction::Quit,
        keys: &[(CTRL, Key::Q)],
        in_text_fields: true,
        description: "Quit (the profile is saved)",
    },
    Shortcut {
        action: ShortcutAction::Open,
        keys: &[(CTRL, Key::O)],
        in_text_fields: true,
        description: "Open a model (File ▸ Open…)",
    },
    Shortcut {
        action: ShortcutAction::Redo,
        keys: &[(CTRL_SHIFT, Key::Z), (CTRL, Key::Y)],
        in_text_fields: false,
        description: "Redo a tuning change",
    },
    Shortcut {
        action: ShortcutAction::Undo,
        keys: &[(CTRL, Key::Z)],
        in_text_fields: false,
        description: "Undo a tuning change",
    },
    Shortcut {
        action: ShortcutAction::PlayPause,
        keys: &[(NONE, Key::Space)],
        in_text_fields: false,
        description: "Play / pause (with loop off, Play at the end restarts)",
    },
    Shortcut {
        action: ShortcutAction::StepBack,
        keys: &[(NONE, Key::ArrowLeft)],
        in_text_fields: false,
        description: "Step one frame of the clip's frame rate back (pauses); while rewound, one recorded frame back (older)",
    },
    Shortcut {
        action: ShortcutAction::StepForward,
        keys: &[(NONE, Key::ArrowRight)],
        in_text_fields: false,
        description: "Step one frame of the clip's frame rate forward (pauses); during a transition, the transition advances one frame; while rewound, one recorded frame forward (towards live, stopping at the newest)",
    },
    Shortcut {
        action: ShortcutAction::ResumeLive,
        keys: &[(NONE, Key::Escape)],
        in_text_fields: false,
        description: "While rewound: back to the live state, the clock resuming where it held (as the rewind bar's Live); otherwise Esc closes menus as usual",
    },
    Shortcut {
        action: ShortcutAction::FirstFrame,
        keys: &[(NONE, Key::Home)],
        in_text_fields: false,
        description: "First frame",
    },
    Shortcut {
        action: ShortcutAction::LastFrame,
        keys: &[(NONE, Key::End)],
        in_text_fields: false,
        description: "Last frame",
    },
    Shortcut {
        action: ShortcutAction::FrameCamera,
        keys: &[(NONE, Key::F)],
        in_text_fields: false,
        description: "Frame what is drawn now (the whole clip's motion, or the ragdoll where it lies)",
    },
    Shortcut {
        action: ShortcutAction::Transition,
        keys: &[(NONE, Key::T)],
        in_text_fields: false,
        description: "Transition from what is on screen to the clip chosen in the Cross-fade panel, with the pair's tuned kind",
    },
    Shortcut {
        action: ShortcutAction::Skeleton,
        keys: &[(NONE, Key::K)],
        in_text_fields: false,
        description: "Toggle the skeleton overlay",
    },
    Shortcut {
        action: ShortcutAction::GoLimp,
        keys: &[(NONE, Key::R)],
        in_text_fields: false,
        description: "Go limp: hand off to the ragdoll (Ragdoll panel)",
    },
    Shortcut {
        action: ShortcutAction::GetUp,
        keys: &[(NONE, Key::G)],
        in_text_fields: false,
        description: "Get up: face up or face down as the body lies, through key poses into the get-up clip",
    },
    Shortcut {
        action: ShortcutAction::Stats,
        keys: &[(NONE, Key::F3)],
        in_text_fields: false,
        description: "Toggle the Stats overlay (CPU ms per frame, frames per second, resident memory)",
    },
    Shortcut {
        action: ShortcutAction::View(ViewAngle::Front),
        keys: &[(NONE, Key::Num1)],
        in_text_fields: false,
        description: "Front view: the camera in front of the character, whichever way its file faces (numpad 1 as in Blender)",
    },
    Shortcut {
        action: ShortcutAction::View(ViewAngle::Back),
        keys: &[(CTRL, Key::Num1)],
        in_text_fields: false,
        description: "Back view",
    },
    Shortcut {
        action: ShortcutAction::View(ViewAngle::Right),
        keys: &[(NONE, Key::Num3)],
        in_text_fields: false,
        description: "Right view: the camera on the character's right",
    },
    Shortcut {
        action: ShortcutAction::View(ViewAngle::Left),
        keys: &[(CTRL, Key::Num3)],
        in_text_fields: false,
        description: "Left view",
    },
    Shortcut {
        action: ShortcutAction::View(ViewAngle::Top),
        keys: &[(NONE, Key::Num7)],
        in_text_fields: false,
        description: "Top view, front at the bottom (there is no bottom view: the camera stays above the ground)",
    },
    Shortcut {
        action: ShortcutAction::Drive(Gait::Walk),
        keys: &[(NONE, DRIVE_KEY)],
        in_text_fields: false,
        description: "Hold to walk: the state machine goes to its Walk state through its own transition; release to go back to Idle (only when the machine has states named Idle and Walk, any case)",
    },
    Shortcut {
        action: ShortcutAction::Drive(Gait::Run),
        keys: &[(SHIFT, DRIVE_KEY)],
        in_text_fields: false,
        description: "Hold to run (or press Shift while W is held): the Run state; letting go of Shift walks again, of W goes back to Idle",
    },
];

/// A key chord as the reference writes it: `Ctrl+Shift+Z`, `Space`, `←`.
#[must_use]
pub fn chord_label(modifiers: Modifiers, key: Key) -> String {
    let mut label = String::new();
    if modifiers.command || modifiers.ctrl {
        label.push_str("Ctrl+");
    }
    if modifiers.alt {
        label.push_str("Alt+");
    }
    if modifiers.shift {
        label.push_str("Shift+");
    }
    label.push_str(match key {
        Key::ArrowLeft => "←",
        Key::ArrowRight => "→",
        Key::ArrowUp => "↑",
        Key::ArrowDown => "↓",
        other => other.name(),
    });
    label
}

/// The shortcut reference (`docs/reference/shortcuts.md`), printed from [`SHORTCUTS`].
#[must_use]
pub fn reference_markdown() -> String {
    let mut out = String::from(
        "# Keyboard shortcuts\n\n\
         Generated from the viewer's own table (`SHORTCUTS` in `src/ui/shortcuts.rs`) by \
         `tests/docs_reference.rs`; do not edit by hand. Ctrl is ⌘ on macOS.\n\n\
         | Keys | Action | While typing in a text field |\n|---|---|---|\n",
    );
    for shortcut in SHORTCUTS {
        let keys: Vec<String> = shortcut.keys.iter().map(|&(m, k)| chord_label(m, k)).collect();
        let typing = if shortcut.in_text_fields { "works" } else { "goes to the field" };
        out.push_str(&format!("| {} | {} | {typing} |\n", keys.join(" or "), shortcut.description));
    }
    out.push_str(
        "\nThe mouse, the menus and the start-up flags: [Preview a model's clips](../preview.md#mouse-and-menus).\n",
    );
    out
}

//! The keys that drive the state machine, as tuning: the drive keys' picks (`DriveSlot`,
//! `DriveTargets`) and the parameters' key bindings (`ParamBinding`, `BindingEffect`), by state,
//! parameter and key name (`MachineKeys`, saved in the profile, undoable).

use anim::state_machine::ParamKind;

/// One of the three states the drive keys request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriveSlot {
    /// Where releasing the keys goes (Idle).
    Rest,
    /// W held (Walk).
    Walk,
    /// Shift+W held (Run).
    Run,
}

impl DriveSlot {
    /// Every slot, in the order the section lists them.
    pub const ALL: [Self; 3] = [Self::Walk, Self::Run, Self::Rest];

    /// The words a state's name must contain one of (whole words, any case), most plain first.
    pub fn words(self) -> &'static [&'static str] {
        match self {
            Self::Rest => &["idle", "stand", "standing", "rest"],
            Self::Walk => &["walk", "walking"],
            Self::Run => &["run", "running", "jog", "jogging", "sprint", "sprinting"],
        }
    }

    /// `walk`, `run` or `rest`, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::Rest => "rest",
            Self::Walk => "walk",
            Self::Run => "run",
        }
    }
}

/// The user's choice of state per drive slot, by state name (`None`: found by name).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DriveTargets {
    /// Release.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rest: Option<String>,
    /// W.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub walk: Option<String>,
    /// Shift+W.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
}

impl DriveTargets {
    /// The chosen state's name for `slot`.
    pub fn get(&self, slot: DriveSlot) -> Option<&str> {
        match slot {
            DriveSlot::Rest => self.rest.as_deref(),
            DriveSlot::Walk => self.walk.as_deref(),
            DriveSlot::Run => self.run.as_deref(),
        }
    }

    /// Choose `state` (by name) for `slot`, or `None` to find it by name again.
    pub fn set(&mut self, slot: DriveSlot, state: Option<String>) {
        match slot {
            DriveSlot::Rest => self.rest = state,
            DriveSlot::Walk => self.walk = state,
            DriveSlot::Run => self.run = state,
        }
    }

    /// No slot chosen.
    pub fn is_empty(&self) -> bool {
        DriveSlot::ALL.iter().all(|&slot| self.get(slot).is_none())
    }
}

/// How a parameter's key acts.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "effect", rename_all = "kebab-case")]
pub enum BindingEffect {
    /// A bool: true while held, false on release.
    Hold,
    /// A trigger: fired on each press.
    Fire,
    /// A float: `value` while held, its starting value on release.
    SetFloat {
        /// The value held.
        value: f32,
    },
}

impl BindingEffect {
    /// The effect that fits a parameter of `kind` (a float: held at 1, or its start + 1).
    pub fn for_kind(kind: ParamKind) -> Self {
        match kind {
            ParamKind::Float(start) => Self::SetFloat { value: if start == 1.0 { start + 1.0 } else { 1.0 } },
            ParamKind::Bool(_) => Self::Hold,
            ParamKind::Trigger => Self::Fire,
        }
    }
}

/// A parameter bound to a key, both by name (the parameter's name survives edits that
/// renumber; the key is egui's name of it, `E`, `2`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ParamBinding {
    /// The parameter.
    pub param: String,
    /// The key (no modifier), as `egui::Key::name` writes it.
    pub key: String,
    /// What the key does.
    #[serde(flatten)]
    pub effect: BindingEffect,
}

impl ParamBinding {
    /// `param` bound to the key named `key` with `effect`.
    pub fn new(param: &str, key: &str, effect: BindingEffect) -> Self {
        Self { param: param.to_owned(), key: key.to_owned(), effect }
    }
}

/// The keys that drive the machine — the states the drive keys request and the parameters'
/// key bindings — by state and parameter name: part of the tuning (saved in the profile, undone
/// with Ctrl+Z) and following renames (the machine edits `RenameState` and `RenameParam`).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MachineKeys {
    /// The states the drive keys request, when picked.
    #[serde(default, skip_serializing_if = "DriveTargets::is_empty")]
    pub drive: DriveTargets,
    /// The parameters bound to keys (one binding per key).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bindings: Vec<ParamBinding>,
}

impl MachineKeys {
    /// Nothing picked, nothing bound.
    pub fn is_empty(&self) -> bool {
        self.drive.is_empty() && self.bindings.is_empty()
    }

    /// A state renamed `old` → `new`: the drive keys that picked it follow.
    pub fn rename_state(&mut self, old: &str, new: &str) {
        for slot in DriveSlot::ALL {
            if self.drive.get(slot) == Some(old) {
                self.drive.set(slot, Some(new.to_owned()));
            }
        }
    }

    /// A parameter renamed `old` → `new`: its bindings follow.
    pub fn rename_param(&mut self, old: &str, new: &str) {
        for binding in self.bindings.iter_mut().filter(|b| b.param == old) {
            new.clone_into(&mut binding.param);
        }
    }
}

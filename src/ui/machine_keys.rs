//! The keys that drive the state machine: which states the drive keys (W, Shift+W, release)
//! request — found on real rigs by name ([`drive_rank`]: `Walking`, `Run_Forward`, `idle_01`,
//! `CharacterArmature|Walk`…) or picked by the user ([`DriveTargets`]) — and the parameters'
//! own key bindings ([`ParamBinding`]: a bool true while held, a trigger fired on a press, a
//! float set to a chosen value while held and back to its start on release). Every per-frame
//! check here allocates nothing.

use anim::state_machine::{ParamId, ParamKind, StateId, StateMachine};

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
}

/// The words of a state name: after the last `|` (armature prefixes such as
/// `CharacterArmature|`), split at anything not a letter or digit and where lower case turns
/// upper (`WalkJump` is Walk, Jump). No allocation.
fn words(name: &str) -> impl Iterator<Item = &str> {
    let name = name.rsplit('|').next().unwrap_or(name);
    let bytes = name.as_bytes();
    let mut start = 0;
    let mut i = 0;
    std::iter::from_fn(move || {
        while i <= bytes.len() {
            let at = i;
            i += 1;
            let end = at == bytes.len();
            let sep = !end && !bytes[at].is_ascii_alphanumeric();
            let camel = !end && at > start && bytes[at].is_ascii_uppercase() && bytes[at - 1].is_ascii_lowercase();
            if end || sep || camel {
                let word = &name[start..at];
                start = if camel { at } else { at + 1 };
                if !word.is_empty() {
                    return Some(word);
                }
            }
        }
        None
    })
}

/// How well `name` fits `slot`, lower is better: `None` when no word of it is one of the
/// slot's words; else (words in the name, which of the slot's words, the name's length), so
/// the shortest, plainest name wins (`Walking` before `WalkJump`, `Idle` before `Standing`).
pub fn drive_rank(name: &str, slot: DriveSlot) -> Option<(usize, usize, usize)> {
    let wanted = slot.words();
    let best = words(name).filter_map(|w| wanted.iter().position(|x| x.eq_ignore_ascii_case(w))).min()?;
    Some((words(name).count(), best, name.len()))
}

/// The state of `machine` that fits `slot` best ([`drive_rank`]); no allocation.
pub fn find_drive_state(machine: &StateMachine, slot: DriveSlot) -> Option<StateId> {
    let index = machine
        .states()
        .iter()
        .enumerate()
        .filter_map(|(i, s)| drive_rank(&s.name, slot).map(|rank| (rank, i)))
        .min()?
        .1;
    Some(StateId::new(u32::try_from(index).ok()?))
}

/// The user's choice of state per drive slot, by state name (`None`: found by name).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DriveTargets {
    /// Release.
    pub rest: Option<String>,
    /// W.
    pub walk: Option<String>,
    /// Shift+W.
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

    /// The state `slot` drives in `machine`: the chosen one while it exists, else found by
    /// name. No allocation.
    pub fn state(&self, machine: &StateMachine, slot: DriveSlot) -> Option<StateId> {
        self.get(slot).and_then(|name| machine.find_state(name)).or_else(|| find_drive_state(machine, slot))
    }
}

/// What a parameter's key asks for (the section turns it into a `MachineAction`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamChange {
    /// Set a float.
    SetFloat(ParamId, f32),
    /// Set a bool.
    SetBool(ParamId, bool),
    /// Fire a trigger.
    Fire(ParamId),
}

/// How a parameter's key acts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BindingEffect {
    /// A bool: true while held, false on release.
    Hold,
    /// A trigger: fired on each press.
    Fire,
    /// A float: this value while held, its starting value on release.
    SetFloat(f32),
}

/// A parameter bound to a key (by the parameter's name, so it survives edits that renumber).
#[derive(Debug, Clone, PartialEq)]
pub struct ParamBinding {
    /// The parameter.
    pub param: String,
    /// The key (no modifier).
    pub key: egui::Key,
    /// What the key does.
    pub effect: BindingEffect,
    /// Held as of the last frame.
    held: bool,
}

impl ParamBinding {
    /// `param` bound to `key` with `effect`.
    pub fn new(param: &str, key: egui::Key, effect: BindingEffect) -> Self {
        Self { param: param.to_owned(), key, effect, held: false }
    }

    /// The effect that fits a parameter of `kind` (a float: held at 1, or its start + 1).
    pub fn effect_for(kind: ParamKind) -> BindingEffect {
        match kind {
            ParamKind::Float(start) => BindingEffect::SetFloat(if start == 1.0 { start + 1.0 } else { 1.0 }),
            ParamKind::Bool(_) => BindingEffect::Hold,
            ParamKind::Trigger => BindingEffect::Fire,
        }
    }

    /// This frame: `down` says whether the key is held. Returns what to do when that changed
    /// (a press or a release; a trigger only on a press). No allocation.
    pub fn update(&mut self, down: bool, machine: &StateMachine) -> Option<ParamChange> {
        if down == self.held {
            return None;
        }
        self.held = down;
        let id: ParamId = machine.find_param(&self.param)?;
        let kind = machine.param(id)?.kind;
        match (self.effect, kind, down) {
            (BindingEffect::Hold, ParamKind::Bool(_), held) => Some(ParamChange::SetBool(id, held)),
            (BindingEffect::Fire, ParamKind::Trigger, true) => Some(ParamChange::Fire(id)),
            (BindingEffect::SetFloat(value), ParamKind::Float(_), true) => Some(ParamChange::SetFloat(id, value)),
            (BindingEffect::SetFloat(_), ParamKind::Float(start), false) => Some(ParamChange::SetFloat(id, start)),
            _ => None,
        }
    }
}

/// Keys a parameter may be bound to: letters and digits that no shortcut uses alone.
pub fn bindable_keys() -> impl Iterator<Item = egui::Key> {
    use egui::Key;
    const KEYS: [Key; 19] = [
        Key::B,
        Key::C,
        Key::D,
        Key::E,
        Key::H,
        Key::I,
        Key::J,
        Key::K,
        Key::M,
        Key::N,
        Key::P,
        Key::U,
        Key::V,
        Key::X,
        Key::Num2,
        Key::Num4,
        Key::Num5,
        Key::Num6,
        Key::Num8,
    ];
    KEYS.into_iter().filter(|&key| {
        !super::shortcuts::SHORTCUTS
            .iter()
            .any(|s| s.keys.iter().any(|&(m, k)| k == key && (m.is_none() || m == egui::Modifiers::SHIFT)))
    })
}

#[cfg(test)]
mod tests {
    use anim::ClipId;
    use anim::state_machine::{State, StateMotion};

    use super::*;

    fn machine(names: &[&str]) -> StateMachine {
        let mut m = StateMachine::new();
        for (i, name) in names.iter().enumerate() {
            let motion = StateMotion::Clip(ClipId::from_index(i));
            m.add_state(State { name: (*name).to_owned(), motion, position: glam::Vec2::ZERO });
        }
        m
    }

    fn found(m: &StateMachine, slot: DriveSlot) -> Option<&str> {
        find_drive_state(m, slot).and_then(|id| m.state(id)).map(|s| s.name.as_str())
    }

    #[test]
    fn real_rigs_state_names_find_their_drive_states() {
        // RobotExpressive's clips.
        let robot = machine(&[
            "Dance", "Death", "Idle", "Jump", "No", "Punch", "Running", "Sitting", "Standing", "ThumbsUp", "Walking",
            "WalkJump", "Wave", "Yes",
        ]);
        assert_eq!(found(&robot, DriveSlot::Walk), Some("Walking"), "not WalkJump (two words)");
        assert_eq!(found(&robot, DriveSlot::Run), Some("Running"));
        assert_eq!(found(&robot, DriveSlot::Rest), Some("Idle"), "idle before stand");
        let mixamo = machine(&["CharacterArmature|Run_Forward", "idle_01", "walk_loop", "CharacterArmature|Walk"]);
        assert_eq!(found(&mixamo, DriveSlot::Walk), Some("CharacterArmature|Walk"), "one word after the prefix");
        assert_eq!(found(&mixamo, DriveSlot::Run), Some("CharacterArmature|Run_Forward"));
        assert_eq!(found(&mixamo, DriveSlot::Rest), Some("idle_01"));
        let none = machine(&["Rune", "Walker", "Sidle"]);
        assert_eq!(found(&none, DriveSlot::Run), None, "Rune is not run");
        assert_eq!(found(&none, DriveSlot::Walk), None, "Walker is not a walk word");
        assert_eq!(found(&none, DriveSlot::Rest), None, "Sidle is not idle");
        assert_eq!(drive_rank("Jog", DriveSlot::Run), Some((1, 2, 3)));
        assert_eq!(drive_rank("Armature|Sprint_Fast", DriveSlot::Run), Some((2, 4, 20)));
    }

    #[test]
    fn a_chosen_state_wins_while_it_exists() {
        let m = machine(&["Idle", "Walking", "Sneak"]);
        let mut targets = DriveTargets::default();
        assert_eq!(targets.state(&m, DriveSlot::Walk), Some(StateId::new(1)));
        targets.set(DriveSlot::Walk, Some("Sneak".to_owned()));
        assert_eq!(targets.state(&m, DriveSlot::Walk), Some(StateId::new(2)));
        targets.set(DriveSlot::Walk, Some("Gone".to_owned()));
        assert_eq!(targets.state(&m, DriveSlot::Walk), Some(StateId::new(1)), "a removed choice: found by name");
    }

    #[test]
    fn a_binding_acts_on_press_and_release_by_kind() {
        let mut m = machine(&["Idle"]);
        let speed = m.add_param("speed", ParamKind::Float(0.25));
        let crouch = m.add_param("crouch", ParamKind::Bool(false));
        let hop = m.add_param("hop", ParamKind::Trigger);
        let mut float = ParamBinding::new("speed", egui::Key::E, BindingEffect::SetFloat(2.5));
        assert_eq!(float.update(true, &m), Some(ParamChange::SetFloat(speed, 2.5)));
        assert_eq!(float.update(true, &m), None, "held: once");
        assert_eq!(float.update(false, &m), Some(ParamChange::SetFloat(speed, 0.25)), "release: its start");
        let mut held = ParamBinding::new("crouch", egui::Key::C, BindingEffect::Hold);
        assert_eq!(held.update(true, &m), Some(ParamChange::SetBool(crouch, true)));
        assert_eq!(held.update(false, &m), Some(ParamChange::SetBool(crouch, false)));
        let mut fire = ParamBinding::new("hop", egui::Key::J, BindingEffect::Fire);
        assert_eq!(fire.update(true, &m), Some(ParamChange::Fire(hop)));
        assert_eq!(fire.update(false, &m), None, "a trigger does nothing on release");
        assert!(bindable_keys().all(|k| ![egui::Key::W, egui::Key::T, egui::Key::K].contains(&k)), "shortcuts");
        assert_eq!(bindable_keys().count(), 18, "B C D E H I J M N P U V X 2 4 5 6 8");
    }
}

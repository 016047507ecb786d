//! The keys that drive the state machine: which states the drive keys (W, Shift+W, release)
//! request — found on real rigs by name ([`drive_rank`]: `Walking`, `Run_Forward`, `idle_01`,
//! `CharacterArmature|Walk`…) or picked by the user ([`DriveTargets`]) — and the parameters'
//! own key bindings ([`ParamBinding`]: a bool true while held, a trigger fired on a press, a
//! float set to a chosen value while held and back to its start on release). The picks and
//! bindings are the tuning's (`Tuning::machine_keys`: saved in the profile, undoable); this
//! file finds and applies them. Every per-frame check here allocates nothing.

use anim::state_machine::{ParamId, ParamKind, StateId, StateMachine};

pub use crate::stage::machine_edit::{BindingEffect, DriveSlot, DriveTargets, ParamBinding};

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

/// The state `slot` drives in `machine`: the one chosen in `targets` while it exists, else
/// found by name. No allocation.
pub fn drive_state(targets: &DriveTargets, machine: &StateMachine, slot: DriveSlot) -> Option<StateId> {
    targets.get(slot).and_then(|name| machine.find_state(name)).or_else(|| find_drive_state(machine, slot))
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

/// What `binding` asks for when its key went from `was_down` to `down` (a press or a
/// release; a trigger only on a press); nothing when it did not change or the parameter is
/// gone or of another kind. No allocation.
pub fn binding_change(
    binding: &ParamBinding,
    was_down: bool,
    down: bool,
    machine: &StateMachine,
) -> Option<ParamChange> {
    if down == was_down {
        return None;
    }
    let id: ParamId = machine.find_param(&binding.param)?;
    let kind = machine.param(id)?.kind;
    match (binding.effect, kind, down) {
        (BindingEffect::Hold, ParamKind::Bool(_), held) => Some(ParamChange::SetBool(id, held)),
        (BindingEffect::Fire, ParamKind::Trigger, true) => Some(ParamChange::Fire(id)),
        (BindingEffect::SetFloat { value }, ParamKind::Float(_), true) => Some(ParamChange::SetFloat(id, value)),
        (BindingEffect::SetFloat { .. }, ParamKind::Float(start), false) => Some(ParamChange::SetFloat(id, start)),
        _ => None,
    }
}

/// The bit of `key` in a mask of held bindable keys (`None`: not a bindable key).
pub fn key_bit(key: egui::Key) -> Option<u32> {
    KEYS.iter().position(|&k| k == key).map(|i| 1 << i)
}

/// Letters and digits a parameter may be bound to, before the shortcuts are taken out.
const KEYS: [egui::Key; 19] = [
    egui::Key::B,
    egui::Key::C,
    egui::Key::D,
    egui::Key::E,
    egui::Key::H,
    egui::Key::I,
    egui::Key::J,
    egui::Key::K,
    egui::Key::M,
    egui::Key::N,
    egui::Key::P,
    egui::Key::U,
    egui::Key::V,
    egui::Key::X,
    egui::Key::Num2,
    egui::Key::Num4,
    egui::Key::Num5,
    egui::Key::Num6,
    egui::Key::Num8,
];

/// Keys a parameter may be bound to: letters and digits that no shortcut uses alone.
pub fn bindable_keys() -> impl Iterator<Item = egui::Key> {
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
        assert_eq!(drive_state(&targets, &m, DriveSlot::Walk), Some(StateId::new(1)));
        targets.set(DriveSlot::Walk, Some("Sneak".to_owned()));
        assert_eq!(drive_state(&targets, &m, DriveSlot::Walk), Some(StateId::new(2)));
        targets.set(DriveSlot::Walk, Some("Gone".to_owned()));
        assert_eq!(drive_state(&targets, &m, DriveSlot::Walk), Some(StateId::new(1)), "a removed choice: by name");
    }

    #[test]
    fn a_binding_acts_on_press_and_release_by_kind() {
        let mut m = machine(&["Idle"]);
        let speed = m.add_param("speed", ParamKind::Float(0.25));
        let crouch = m.add_param("crouch", ParamKind::Bool(false));
        let hop = m.add_param("hop", ParamKind::Trigger);
        let float = ParamBinding::new("speed", "E", BindingEffect::SetFloat { value: 2.5 });
        assert_eq!(binding_change(&float, false, true, &m), Some(ParamChange::SetFloat(speed, 2.5)));
        assert_eq!(binding_change(&float, true, true, &m), None, "held: once");
        assert_eq!(binding_change(&float, true, false, &m), Some(ParamChange::SetFloat(speed, 0.25)), "its start");
        let held = ParamBinding::new("crouch", "C", BindingEffect::Hold);
        assert_eq!(binding_change(&held, false, true, &m), Some(ParamChange::SetBool(crouch, true)));
        assert_eq!(binding_change(&held, true, false, &m), Some(ParamChange::SetBool(crouch, false)));
        let fire = ParamBinding::new("hop", "J", BindingEffect::Fire);
        assert_eq!(binding_change(&fire, false, true, &m), Some(ParamChange::Fire(hop)));
        assert_eq!(binding_change(&fire, true, false, &m), None, "a trigger does nothing on release");
        assert_eq!(BindingEffect::for_kind(ParamKind::Float(1.0)), BindingEffect::SetFloat { value: 2.0 });
        assert_eq!(key_bit(egui::Key::C), Some(2));
        assert!(bindable_keys().all(|k| ![egui::Key::W, egui::Key::T, egui::Key::K].contains(&k)), "shortcuts");
        assert_eq!(bindable_keys().count(), 18, "B C D E H I J M N P U V X 2 4 5 6 8");
    }
}

//! The side panel's sections: [`Panel`] (the section `--panel` opens), the collapsible
//! section with scroll-to, and which section the user is at.

/// A section of the side panel, for opening the viewer on it (`--panel`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Panel {
    /// Profile (model, tuning profile, undo/redo).
    Profile,
    /// Clips.
    Clips,
    /// Interpolation (overrides, spaces, easing, Bake to file).
    Interpolation,
    /// The joint tree.
    Joints,
    /// Curves.
    Curves,
    /// Cross-fade.
    CrossFade,
    /// The state machine (states, running transition, parameters, drive keys).
    StateMachine,
    /// Compare (two modes, or two files).
    Compare,
    /// Ragdoll.
    Ragdoll,
    /// Crowd.
    Crowd,
    /// Record clip.
    Record,
}

impl Panel {
    /// Every section, in the side panel's order.
    pub const ALL: [Self; 11] = [
        Self::Profile,
        Self::Clips,
        Self::Interpolation,
        Self::Joints,
        Self::Curves,
        Self::CrossFade,
        Self::StateMachine,
        Self::Compare,
        Self::Ragdoll,
        Self::Crowd,
        Self::Record,
    ];

    /// Its name on the command line (`curves`, `cross-fade`, …).
    pub fn name(self) -> &'static str {
        match self {
            Self::Profile => "profile",
            Self::Clips => "clips",
            Self::Interpolation => "interpolation",
            Self::Joints => "joints",
            Self::Curves => "curves",
            Self::CrossFade => "cross-fade",
            Self::StateMachine => "state-machine",
            Self::Compare => "compare",
            Self::Ragdoll => "ragdoll",
            Self::Crowd => "crowd",
            Self::Record => "record",
        }
    }

    /// The section called `name`.
    ///
    /// # Errors
    /// An unknown name, with the known ones listed.
    pub fn from_name(name: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|p| p.name() == name).ok_or_else(|| {
            let names: Vec<&str> = Self::ALL.iter().map(|p| p.name()).collect();
            format!("unknown panel \"{name}\" (expected one of: {})", names.join(", "))
        })
    }
}

/// A section of the side panel as it was drawn: open or not, and where its header starts.
#[derive(Debug, Clone, Copy)]
pub(super) struct SectionShown {
    panel: Panel,
    open: bool,
    default_open: bool,
    header_top: f32,
}

/// A collapsible section of the side panel: open (and scrolled to) when it is `focus`; what was
/// drawn is added to `shown`.
pub(super) fn section(
    ui: &mut egui::Ui,
    (focus, shown): (Option<Panel>, &mut Vec<SectionShown>),
    panel: Panel,
    title: &str,
    default_open: bool,
    add_contents: impl FnOnce(&mut egui::Ui),
) {
    let mut header = egui::CollapsingHeader::new(title).default_open(default_open);
    if focus == Some(panel) {
        header = header.open(Some(true));
    }
    let response = header.show(ui, add_contents);
    if focus == Some(panel) {
        response.header_response.scroll_to_me(Some(egui::Align::TOP));
    }
    shown.push(SectionShown {
        panel,
        open: response.body_response.is_some(),
        default_open,
        header_top: response.header_response.rect.top(),
    });
}

/// The section the user is at, for `--panel`: when the side panel is scrolled, the open section
/// at the top of its view (the last header at or above the view's top; scrolled to the end, where
/// `--panel` cannot bring a header to the top, the first header in view); else a section closed
/// by default that the user opened; else none (nothing specific: the panel as it opens).
pub(super) fn panel_in_view(shown: &[SectionShown], scroll: &egui::scroll_area::ScrollAreaOutput<()>) -> Option<Panel> {
    /// A header this close to the view's top counts as at the top (item spacing).
    const SLACK_PX: f32 = 8.0;
    let offset = scroll.state.offset.y.clamp(0.0, (scroll.content_size.y - scroll.inner_rect.height()).max(0.0));
    let view_top = scroll.inner_rect.top();
    let at_end = offset >= scroll.content_size.y - scroll.inner_rect.height() - 1.0;
    let top = if at_end {
        shown.iter().find(|s| s.header_top >= view_top - SLACK_PX)
    } else {
        shown.iter().rev().find(|s| s.header_top <= view_top + SLACK_PX)
    };
    if offset > 0.5
        && let Some(top) = top
        && top.open
    {
        return Some(top.panel);
    }
    shown.iter().find(|s| s.open && !s.default_open).map(|s| s.panel)
}

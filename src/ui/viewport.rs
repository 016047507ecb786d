//! The 3D view widget: shows the frame the GPU bridge rendered, owns the orbit camera, turns
//! mouse input into camera moves and clicks into [`ViewClick`]s (which half of a split view, where),
//! from which the viewer picks the joint drawn there.

use crate::render::{Aabb, OrbitCamera};

use super::shortcuts::ViewAngle;
use crate::stage::frame::ViewClick;

/// What the 3D view shows, for its labels and clicks: one view, two side by side, or one with a
/// ghost over it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewLabels {
    /// One view, no label.
    One,
    /// Two views side by side, named.
    Split([String; 2]),
    /// One view with a second pose over it, described.
    Overlay(String),
}

/// The 3D view in the central panel.
#[derive(Debug)]
pub struct ViewportPanel {
    /// The orbit camera.
    pub camera: OrbitCamera,
    /// The texture holding the last rendered frame (set by the GPU bridge; `None` before the
    /// first frame or without a GPU).
    pub texture: Option<egui::TextureId>,
    /// Size the view wants, in physical pixels (read by the GPU bridge).
    pub size_pixels: [u32; 2],
    /// Height of the ground drawn under the model: the camera's eye stays above it.
    pub floor_y: f32,
    /// Where the view's labels were painted last frame (`Rect::NOTHING` where there is none):
    /// what the Stats overlay keeps clear of.
    pub label_rects: [egui::Rect; 2],
    /// Where the view was laid out last frame.
    pub rect: egui::Rect,
    /// The yaw that looks at the character's front (0 for glTF's +Z front): framing starts
    /// from a three-quarter front view, and the view shortcuts turn from it.
    pub front_yaw_rad: f32,
}

impl Default for ViewportPanel {
    fn default() -> Self {
        Self {
            camera: OrbitCamera::default(),
            texture: None,
            size_pixels: [0, 0],
            floor_y: 0.0,
            label_rects: [egui::Rect::NOTHING; 2],
            rect: egui::Rect::NOTHING,
            front_yaw_rad: 0.0,
        }
    }
}

impl ViewportPanel {
    /// Width over height of the view (16:9 before the first layout).
    pub fn aspect(&self) -> f32 {
        match self.size_pixels {
            [w, h] if w > 0 && h > 0 => w as f32 / h as f32,
            _ => 16.0 / 9.0,
        }
    }

    /// Aim the camera at `bounds` (a unit cube around the origin when empty) for views of
    /// `aspect`, from the default angle.
    pub fn frame_bounds(&mut self, bounds: Aabb, aspect: f32) {
        let bounds = if bounds.is_empty() || !bounds.min.is_finite() || !bounds.max.is_finite() {
            Aabb { min: glam::Vec3::splat(-1.0), max: glam::Vec3::splat(1.0) }
        } else {
            bounds
        };
        let mut camera = OrbitCamera { yaw_rad: self.front_yaw_rad + 0.6, pitch_rad: 0.22, ..OrbitCamera::default() };
        camera.frame(&bounds, aspect, 1.15);
        self.camera = camera;
    }

    /// Face the model on screen facing `facing` (horizontal, model space; `None`: glTF's +Z).
    pub fn set_facing(&mut self, facing: Option<glam::Vec3>) {
        self.front_yaw_rad = facing.map_or(0.0, |f| f.x.atan2(f.z));
    }

    /// Turn the camera to look from `angle` of the character, keeping its target and distance.
    pub fn look_from(&mut self, angle: ViewAngle) {
        use std::f32::consts::{FRAC_PI_2, PI};
        let (yaw, pitch) = match angle {
            ViewAngle::Front => (0.0, 0.0),
            ViewAngle::Back => (PI, 0.0),
            ViewAngle::Right => (-FRAC_PI_2, 0.0),
            ViewAngle::Left => (FRAC_PI_2, 0.0),
            ViewAngle::Top => (0.0, OrbitCamera::MAX_PITCH_RAD),
        };
        self.camera.yaw_rad = (self.front_yaw_rad + yaw).rem_euclid(std::f32::consts::TAU);
        self.camera.pitch_rad = pitch;
        self.camera.keep_above(self.floor_y);
    }

    /// Aspect of one view: half the width when the view is split (two modes or two files).
    pub fn view_aspect(&self, split: bool) -> f32 {
        if split { self.aspect() * 0.5 } else { self.aspect() }
    }

    /// Fill the available space with the 3D view and handle orbit (left drag), pan (middle drag
    /// or shift + left drag) and zoom (wheel). Returns a click (to pick a joint with; the
    /// viewer knows what each half shows), if any, and the view's rect (for overlays).
    pub fn viewport_ui(&mut self, ui: &mut egui::Ui, labels: &ViewLabels) -> (Option<ViewClick>, egui::Rect) {
        let split = matches!(labels, ViewLabels::Split(_));
        let (rect, response) = ui.allocate_exact_size(ui.available_size(), egui::Sense::click_and_drag());
        let pixels_per_point = ui.ctx().pixels_per_point();
        self.size_pixels =
            [(rect.width() * pixels_per_point).round() as u32, (rect.height() * pixels_per_point).round() as u32];
        let painter = ui.painter_at(rect);
        match self.texture {
            Some(texture) => {
                let uv = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
                painter.image(texture, rect, uv, egui::Color32::WHITE);
            }
            None => {
                painter.rect_filled(rect, 0.0, egui::Color32::from_gray(30));
                painter.text(
                    rect.center(),
                    egui::Align2::CENTER_CENTER,
                    "3D view (no GPU frame yet)",
                    egui::FontId::proportional(16.0),
                    egui::Color32::GRAY,
                );
            }
        }
        self.rect = rect;
        self.label_rects = [egui::Rect::NOTHING; 2];
        match labels {
            ViewLabels::Split(names) => {
                let half = rect.width() * 0.5;
                let font = egui::FontId::proportional(15.0);
                for (i, name) in names.iter().enumerate() {
                    let at = rect.left_top() + egui::vec2(half * i as f32 + 8.0, 8.0);
                    self.label_rects[i] =
                        painter.text(at, egui::Align2::LEFT_TOP, name, font.clone(), egui::Color32::WHITE);
                }
                painter.vline(rect.center().x, rect.y_range(), egui::Stroke::new(2.0, egui::Color32::from_gray(20)));
            }
            ViewLabels::Overlay(label) => {
                let at = rect.left_top() + egui::vec2(8.0, 8.0);
                self.label_rects[0] = painter.text(
                    at,
                    egui::Align2::LEFT_TOP,
                    label,
                    egui::FontId::proportional(15.0),
                    egui::Color32::WHITE,
                );
            }
            ViewLabels::One => {}
        }
        let hint = "click: select joint · drag: orbit · shift/middle drag: pan · wheel: zoom · F: frame · K: skeleton · F3: stats";
        painter.text(
            rect.left_bottom() + egui::vec2(8.0, -6.0),
            egui::Align2::LEFT_BOTTOM,
            hint,
            egui::FontId::proportional(12.0),
            egui::Color32::from_gray(170),
        );

        let mut click = None;
        if response.clicked()
            && let Some(pointer) = response.interact_pointer_pos()
        {
            let view_width = if split { rect.width() * 0.5 } else { rect.width() };
            let mut local = pointer - rect.left_top();
            let right_view = split && local.x >= view_width;
            if right_view {
                local.x -= view_width;
            }
            click = Some(ViewClick {
                position_px: glam::Vec2::new(local.x, local.y),
                view_size_px: glam::Vec2::new(view_width, rect.height()),
                right_view,
            });
        }
        let delta = response.drag_delta();
        let shift = ui.input(|i| i.modifiers.shift);
        let height = rect.height().max(1.0);
        if response.dragged_by(egui::PointerButton::Middle)
            || (shift && response.dragged_by(egui::PointerButton::Primary))
        {
            self.camera.pan(-delta.x / height, delta.y / height);
        } else if response.dragged_by(egui::PointerButton::Primary) {
            self.camera.orbit(-delta.x * 0.01, delta.y * 0.01);
        }
        if response.hovered() {
            let scroll = ui.input(|i| i.smooth_scroll_delta.y);
            if scroll != 0.0 {
                self.camera.zoom((-scroll * 0.002).exp());
            }
        }
        self.camera.keep_above(self.floor_y);
        (click, rect)
    }
}

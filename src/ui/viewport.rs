//! The 3D view widget: shows the frame the GPU bridge rendered, and turns mouse input into
//! camera moves.

use super::ViewerState;
use super::state::CompareLayout;

/// The 3D view in the central panel.
#[derive(Debug, Default)]
pub struct ViewportPanel {
    /// The texture holding the last rendered frame (set by the GPU bridge; `None` before the
    /// first frame or without a GPU).
    pub texture: Option<egui::TextureId>,
    /// Size the view wants, in physical pixels (read by the GPU bridge).
    pub size_pixels: [u32; 2],
}

impl ViewportPanel {
    /// Width over height of the view (16:9 before the first layout).
    pub fn aspect(&self) -> f32 {
        match self.size_pixels {
            [w, h] if w > 0 && h > 0 => w as f32 / h as f32,
            _ => 16.0 / 9.0,
        }
    }

    /// Fill the available space with the 3D view and handle orbit (left drag), pan (middle drag
    /// or shift + left drag) and zoom (wheel).
    pub fn viewport_ui(&mut self, ui: &mut egui::Ui, state: &mut ViewerState) {
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
        match state.compare {
            Some(compare) if compare.layout == CompareLayout::Split => {
                let half = rect.width() * 0.5;
                let font = egui::FontId::proportional(15.0);
                for (i, mode) in [compare.left, compare.right].into_iter().enumerate() {
                    let at = rect.left_top() + egui::vec2(half * i as f32 + 8.0, 8.0);
                    painter.text(at, egui::Align2::LEFT_TOP, mode.name(), font.clone(), egui::Color32::WHITE);
                }
                painter.vline(rect.center().x, rect.y_range(), egui::Stroke::new(2.0, egui::Color32::from_gray(20)));
            }
            Some(compare) => {
                let label = format!("solid: {} / ghost: {}", compare.left.name(), compare.right.name());
                let at = rect.left_top() + egui::vec2(8.0, 8.0);
                painter.text(at, egui::Align2::LEFT_TOP, label, egui::FontId::proportional(15.0), egui::Color32::WHITE);
            }
            None => {}
        }
        let hint = "click: select joint · drag: orbit · shift/middle drag: pan · wheel: zoom · F: frame · K: skeleton";
        painter.text(
            rect.left_bottom() + egui::vec2(8.0, -6.0),
            egui::Align2::LEFT_BOTTOM,
            hint,
            egui::FontId::proportional(12.0),
            egui::Color32::from_gray(170),
        );

        if response.clicked()
            && let Some(pointer) = response.interact_pointer_pos()
        {
            let split = state.compare.is_some_and(|c| c.layout == CompareLayout::Split);
            let view_width = if split { rect.width() * 0.5 } else { rect.width() };
            let mut local = pointer - rect.left_top();
            if split && local.x >= view_width {
                local.x -= view_width;
            }
            let view = glam::Vec2::new(view_width, rect.height());
            if let Some(joint) = state.pick_joint(glam::Vec2::new(local.x, local.y), view, 14.0) {
                state.selected_joint = Some(joint);
            }
        }
        let delta = response.drag_delta();
        let shift = ui.input(|i| i.modifiers.shift);
        let height = rect.height().max(1.0);
        if response.dragged_by(egui::PointerButton::Middle)
            || (shift && response.dragged_by(egui::PointerButton::Primary))
        {
            state.camera.pan(-delta.x / height, delta.y / height);
        } else if response.dragged_by(egui::PointerButton::Primary) {
            state.camera.orbit(-delta.x * 0.01, delta.y * 0.01);
        }
        if response.hovered() {
            let scroll = ui.input(|i| i.smooth_scroll_delta.y);
            if scroll != 0.0 {
                state.camera.zoom((-scroll * 0.002).exp());
            }
        }
    }
}

//! Orbit camera: orbit, pan, zoom and framing as pure glam maths (no GPU, unit tested).
//!
//! World frame: glTF's, right-handed, +Y up. Clip space: wgpu's, depth in `[0, 1]`.

use glam::{Mat4, Vec3};

/// Axis-aligned bounding box in the world frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    /// Smallest corner.
    pub min: Vec3,
    /// Largest corner.
    pub max: Vec3,
}

impl Aabb {
    /// The empty box (grows from nothing with [`Aabb::extend`]).
    pub const EMPTY: Self = Self { min: Vec3::INFINITY, max: Vec3::NEG_INFINITY };

    /// True when no point was added.
    pub fn is_empty(&self) -> bool {
        self.min.cmpgt(self.max).any()
    }

    /// Grow to include `point`.
    pub fn extend(&mut self, point: Vec3) {
        self.min = self.min.min(point);
        self.max = self.max.max(point);
    }

    /// Grow to include another box.
    pub fn union(&mut self, other: &Self) {
        if !other.is_empty() {
            self.extend(other.min);
            self.extend(other.max);
        }
    }

    /// Centre point (origin for an empty box).
    pub fn center(&self) -> Vec3 {
        if self.is_empty() { Vec3::ZERO } else { (self.min + self.max) * 0.5 }
    }

    /// Radius of the bounding sphere around [`Aabb::center`] (0 for an empty box).
    pub fn radius(&self) -> f32 {
        if self.is_empty() { 0.0 } else { (self.max - self.min).length() * 0.5 }
    }
}

/// A camera orbiting a target point: yaw around +Y, pitch above the horizon, distance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrbitCamera {
    /// The point looked at, in the world frame.
    pub target: Vec3,
    /// Rotation around +Y in radians; 0 looks along −Z (camera on the +Z side).
    pub yaw_rad: f32,
    /// Elevation in radians; positive looks down from above. Clamped to ±[`OrbitCamera::MAX_PITCH_RAD`].
    pub pitch_rad: f32,
    /// Distance from the target, in world units (metres for glTF).
    pub distance: f32,
    /// Vertical field of view in radians.
    pub fov_y_rad: f32,
}

impl Default for OrbitCamera {
    fn default() -> Self {
        Self { target: Vec3::ZERO, yaw_rad: 0.5, pitch_rad: 0.25, distance: 3.0, fov_y_rad: 35f32.to_radians() }
    }
}

impl OrbitCamera {
    /// Largest pitch magnitude: just short of straight up or down, so the view stays defined.
    pub const MAX_PITCH_RAD: f32 = 1.55;
    /// Smallest distance to the target.
    pub const MIN_DISTANCE: f32 = 1e-3;

    /// Unit vector from the target towards the eye.
    pub fn eye_direction(&self) -> Vec3 {
        let (sin_yaw, cos_yaw) = self.yaw_rad.sin_cos();
        let (sin_pitch, cos_pitch) = self.pitch_rad.sin_cos();
        Vec3::new(sin_yaw * cos_pitch, sin_pitch, cos_yaw * cos_pitch)
    }

    /// Eye position in the world frame.
    pub fn eye(&self) -> Vec3 {
        self.target + self.eye_direction() * self.distance
    }

    /// Camera right and up axes in the world frame.
    pub fn right_up(&self) -> (Vec3, Vec3) {
        let forward = -self.eye_direction();
        let right = forward.cross(Vec3::Y).normalize_or(Vec3::X);
        (right, right.cross(forward))
    }

    /// Near and far clip distances derived from the distance (keeps depth precision useful).
    pub fn near_far(&self) -> (f32, f32) {
        (self.distance * 0.01, self.distance * 100.0)
    }

    /// `view_from_world`: right-handed look-at.
    pub fn view_from_world(&self) -> Mat4 {
        glam::camera::rh::view::look_at_mat4(self.eye(), self.target, Vec3::Y)
    }

    /// `clip_from_view`: perspective with depth in `[0, 1]` for a viewport of `aspect` = width / height.
    pub fn clip_from_view(&self, aspect: f32) -> Mat4 {
        let (near, far) = self.near_far();
        glam::camera::rh::proj::directx::perspective(self.fov_y_rad, aspect.max(1e-6), near, far)
    }

    /// `clip_from_world` for a viewport of `aspect` = width / height.
    pub fn clip_from_world(&self, aspect: f32) -> Mat4 {
        self.clip_from_view(aspect) * self.view_from_world()
    }

    /// Orbit by yaw and pitch deltas in radians (pitch clamped).
    pub fn orbit(&mut self, delta_yaw_rad: f32, delta_pitch_rad: f32) {
        self.yaw_rad = (self.yaw_rad + delta_yaw_rad).rem_euclid(std::f32::consts::TAU);
        self.pitch_rad = (self.pitch_rad + delta_pitch_rad).clamp(-Self::MAX_PITCH_RAD, Self::MAX_PITCH_RAD);
    }

    /// Pan the target in the view plane by fractions of the viewport height (`+x` right, `+y` up),
    /// so a drag over the full height moves the target by the visible height at the target.
    pub fn pan(&mut self, delta_x_fraction: f32, delta_y_fraction: f32) {
        let visible_height = 2.0 * self.distance * (self.fov_y_rad * 0.5).tan();
        let (right, up) = self.right_up();
        self.target += (right * delta_x_fraction + up * delta_y_fraction) * visible_height;
    }

    /// Zoom: multiply the distance by `factor` (`< 1` moves closer). Non-positive factors are ignored.
    pub fn zoom(&mut self, factor: f32) {
        if factor > 0.0 && factor.is_finite() {
            self.distance = (self.distance * factor).max(Self::MIN_DISTANCE);
        }
    }

    /// Keep the eye above the floor at height `floor_y` (by at least 1% of the distance): the
    /// target is raised to the floor when it was panned under it, and the pitch to the lowest
    /// angle that keeps the eye above it. Looking up from below the ground shows nothing a user
    /// wants.
    pub fn keep_above(&mut self, floor_y: f32) {
        if !floor_y.is_finite() {
            return;
        }
        self.target.y = self.target.y.max(floor_y);
        let lowest_eye = floor_y + 0.01 * self.distance;
        let sin_min = ((lowest_eye - self.target.y) / self.distance.max(Self::MIN_DISTANCE)).clamp(-1.0, 1.0);
        let min_pitch = sin_min.asin().min(Self::MAX_PITCH_RAD);
        self.pitch_rad = self.pitch_rad.max(min_pitch);
    }

    /// True when every corner of `bounds` projects inside a view of `aspect`.
    pub fn sees(&self, bounds: &Aabb, aspect: f32) -> bool {
        let clip_from_world = self.clip_from_world(aspect);
        (0..8).all(|i| {
            let corner = Vec3::new(
                if i & 1 == 0 { bounds.min.x } else { bounds.max.x },
                if i & 2 == 0 { bounds.min.y } else { bounds.max.y },
                if i & 4 == 0 { bounds.min.z } else { bounds.max.z },
            );
            let clip = clip_from_world * corner.extend(1.0);
            clip.w > 0.0 && clip.x.abs() <= clip.w && clip.y.abs() <= clip.w
        })
    }

    /// Aim at the box centre and set the distance so all eight corners fit a viewport of
    /// `aspect` (with `margin` ≥ 1 extra room), keeping yaw and pitch. An empty box changes nothing.
    pub fn frame(&mut self, bounds: &Aabb, aspect: f32, margin: f32) {
        if bounds.is_empty() {
            return;
        }
        self.target = bounds.center();
        let tan_half_y = (self.fov_y_rad * 0.5).tan() / margin.max(1.0);
        let tan_half_x = tan_half_y * aspect.max(1e-6);
        let back = self.eye_direction();
        let (right, up) = self.right_up();
        // A corner at view coordinates (x, y) and depth `distance - c·back` fits when
        // |x| ≤ depth·tan_half_x and |y| ≤ depth·tan_half_y.
        let mut distance = Self::MIN_DISTANCE;
        for i in 0..8 {
            let corner = Vec3::new(
                if i & 1 == 0 { bounds.min.x } else { bounds.max.x },
                if i & 2 == 0 { bounds.min.y } else { bounds.max.y },
                if i & 4 == 0 { bounds.min.z } else { bounds.max.z },
            ) - self.target;
            let along = corner.dot(back);
            distance = distance
                .max(along + corner.dot(right).abs() / tan_half_x)
                .max(along + corner.dot(up).abs() / tan_half_y);
        }
        // Keep the near plane (1% of the distance) in front of the box.
        self.distance = distance.max(bounds.radius() * 1.05);
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec4Swizzles as _;

    use super::*;

    fn project(camera: &OrbitCamera, aspect: f32, point: Vec3) -> Vec3 {
        let clip = camera.clip_from_world(aspect) * point.extend(1.0);
        clip.xyz() / clip.w
    }

    #[test]
    fn target_projects_to_centre() {
        let camera = OrbitCamera { target: Vec3::new(1.0, 2.0, 3.0), ..OrbitCamera::default() };
        let ndc = project(&camera, 1.5, camera.target);
        assert!(ndc.x.abs() < 1e-5 && ndc.y.abs() < 1e-5);
        assert!(ndc.z > 0.0 && ndc.z < 1.0);
    }

    #[test]
    fn eye_is_at_distance_and_yaw_zero_looks_down_minus_z() {
        let camera = OrbitCamera { yaw_rad: 0.0, pitch_rad: 0.0, distance: 5.0, ..OrbitCamera::default() };
        assert!(camera.eye().abs_diff_eq(Vec3::new(0.0, 0.0, 5.0), 1e-5));
        // +X is on the right of the image, +Y up.
        assert!(project(&camera, 1.0, Vec3::X).x > 0.0);
        assert!(project(&camera, 1.0, Vec3::Y).y > 0.0);
    }

    #[test]
    fn the_eye_stays_above_the_floor_however_far_the_camera_orbits_down_or_pans_under() {
        let mut camera = OrbitCamera { target: Vec3::new(0.0, 0.9, 0.0), distance: 4.0, ..OrbitCamera::default() };
        camera.orbit(0.0, -3.0);
        assert!(camera.eye().y < 0.0, "without the floor the eye goes under it: {}", camera.eye().y);
        camera.keep_above(0.0);
        assert!(camera.eye().y >= 0.04 - 1e-4 && camera.eye().y < 0.05, "eye at {}", camera.eye().y);
        // Panned under the floor: the target comes back up to it.
        camera.target.y = -2.0;
        camera.keep_above(-0.5);
        assert_eq!(camera.target.y, -0.5);
        assert!(camera.eye().y >= -0.5 + 0.04 - 1e-4);
        // A camera above it is left alone.
        let high = OrbitCamera { pitch_rad: 0.4, ..OrbitCamera::default() };
        let mut kept = high;
        kept.keep_above(0.0);
        assert_eq!(kept, high);
    }

    #[test]
    fn a_framed_box_is_seen_and_one_beside_it_is_not() {
        let bounds = Aabb { min: Vec3::new(-0.3, 0.0, -0.2), max: Vec3::new(0.3, 1.8, 0.2) };
        let mut camera = OrbitCamera::default();
        camera.frame(&bounds, 1.5, 1.15);
        assert!(camera.sees(&bounds, 1.5));
        let beside = Aabb { min: bounds.min + Vec3::new(0.0, 3.0, 0.0), max: bounds.max + Vec3::new(0.0, 3.0, 0.0) };
        assert!(!camera.sees(&beside, 1.5));
    }

    #[test]
    fn orbit_clamps_pitch_and_wraps_yaw() {
        let mut camera = OrbitCamera::default();
        camera.orbit(std::f32::consts::TAU + 0.1, 10.0);
        assert!((camera.pitch_rad - OrbitCamera::MAX_PITCH_RAD).abs() < 1e-6);
        assert!((camera.yaw_rad - (OrbitCamera::default().yaw_rad + 0.1)).abs() < 1e-4);
        camera.orbit(0.0, -20.0);
        assert!((camera.pitch_rad + OrbitCamera::MAX_PITCH_RAD).abs() < 1e-6);
        assert!(camera.view_from_world().is_finite());
    }

    #[test]
    fn pan_moves_target_in_view_plane() {
        let mut camera = OrbitCamera::default();
        let before = camera;
        camera.pan(0.5, 0.0);
        let moved = camera.target - before.target;
        assert!(moved.dot(before.eye_direction()).abs() < 1e-5);
        // The old target now appears left of centre.
        assert!(project(&camera, 1.0, before.target).x < -0.1);
        // Pan up by a full viewport height: the old target sits at the bottom edge.
        let mut camera = before;
        camera.pan(0.0, 0.5);
        assert!((project(&camera, 1.0, before.target).y + 1.0).abs() < 1e-3);
    }

    #[test]
    fn zoom_scales_distance_and_rejects_bad_factors() {
        let mut camera = OrbitCamera::default();
        camera.zoom(0.5);
        assert!((camera.distance - 1.5).abs() < 1e-6);
        camera.zoom(0.0);
        camera.zoom(f32::NAN);
        assert!((camera.distance - 1.5).abs() < 1e-6);
        camera.zoom(1e-9);
        assert!(camera.distance >= OrbitCamera::MIN_DISTANCE);
    }

    #[test]
    fn frame_fits_box_corners_inside_viewport() {
        let bounds = Aabb { min: Vec3::new(-0.3, 0.0, -0.2), max: Vec3::new(0.4, 1.8, 0.3) };
        for aspect in [0.5, 1.0, 2.0] {
            let mut camera = OrbitCamera::default();
            camera.frame(&bounds, aspect, 1.05);
            let mut widest = 0.0f32;
            for i in 0..8 {
                let corner = Vec3::new(
                    if i & 1 == 0 { bounds.min.x } else { bounds.max.x },
                    if i & 2 == 0 { bounds.min.y } else { bounds.max.y },
                    if i & 4 == 0 { bounds.min.z } else { bounds.max.z },
                );
                let ndc = project(&camera, aspect, corner);
                assert!(ndc.x.abs() <= 1.0 && ndc.y.abs() <= 1.0, "aspect {aspect}: {ndc}");
                widest = widest.max(ndc.x.abs()).max(ndc.y.abs());
            }
            // Tight: some corner reaches the margin.
            assert!(widest > 0.9, "aspect {aspect}: loose framing ({widest})");
        }
    }

    #[test]
    fn aabb_union_and_empty() {
        let mut a = Aabb::EMPTY;
        assert!(a.is_empty());
        assert_eq!(a.radius(), 0.0);
        a.union(&Aabb::EMPTY);
        assert!(a.is_empty());
        a.extend(Vec3::ONE);
        a.union(&Aabb { min: Vec3::ZERO, max: Vec3::ZERO });
        assert_eq!(a.center(), Vec3::splat(0.5));
    }
}

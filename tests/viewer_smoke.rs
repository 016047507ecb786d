//! Smoke test of the real viewer window: runs the binary under Xvfb (software Vulkan), presses
//! Space with xdotool, takes a screenshot and checks that the 3D view and the side panel drew.
//! Skipped with a note when Xvfb, xdotool or imagemagick are missing; fails under `CI=true`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Spread of the grey level over a region (0 for a uniform colour).
fn luma_stats(image: &image::RgbImage, x0: u32, y0: u32, x1: u32, y1: u32) -> (f64, f64, usize) {
    let mut values = Vec::new();
    let mut distinct = std::collections::HashSet::new();
    for y in y0..y1.min(image.height()) {
        for x in x0..x1.min(image.width()) {
            let p = image.get_pixel(x, y).0;
            distinct.insert(p);
            values.push(0.299 * f64::from(p[0]) + 0.587 * f64::from(p[1]) + 0.114 * f64::from(p[2]));
        }
    }
    let mean = values.iter().sum::<f64>() / values.len().max(1) as f64;
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / values.len().max(1) as f64;
    (mean, variance.sqrt(), distinct.len())
}

#[test]
fn viewer_window_draws_the_model_and_the_panels() {
    if !devtools::ci::have_tools(&["xvfb-run", "xauth", "xdotool", "import", "convert"], "the viewer smoke test") {
        return;
    }
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("viewer_smoke");
    std::fs::create_dir_all(&out_dir).expect("temp dir");
    let screenshot = out_dir.join("viewer.png");
    let _ = std::fs::remove_file(&screenshot);
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/mannequin.glb");
    let script = r#"
        "$BIN" "$MODEL" >"$OUT/viewer.log" 2>&1 &
        pid=$!
        for i in $(seq 1 120); do
            window=$(xdotool search --name animtune 2>/dev/null | head -n1)
            [ -n "$window" ] && break
            kill -0 $pid 2>/dev/null || { echo "viewer exited early"; cat "$OUT/viewer.log"; exit 3; }
            sleep 0.5
        done
        [ -n "$window" ] || { echo "no window"; cat "$OUT/viewer.log"; kill $pid; exit 4; }
        # The first GPU frame takes a while on a loaded machine: wait (up to a minute) until the
        # 3D view holds a rendered image (thousands of colours), not the placeholder text.
        for i in $(seq 1 60); do
            import -window root "$OUT/before-space.png"
            colours=$(convert "$OUT/before-space.png" -crop 760x520+40+80 -format '%k' info: 2>/dev/null || echo 0)
            [ "$colours" -gt 1000 ] 2>/dev/null && break
            sleep 1
        done
        sleep 1
        import -window root "$OUT/before-space.png"
        xdotool windowfocus --sync "$window" 2>/dev/null
        xdotool key --window "$window" space
        sleep 2
        kill -0 $pid 2>/dev/null || { echo "viewer died after Space"; cat "$OUT/viewer.log"; exit 5; }
        import -window root "$OUT/viewer.png"
        # The viewer destroys its GPU device at 9 s (ANIMTUNE_SIMULATE_DEVICE_LOSS_SECS) and
        # must rebuild it and keep drawing.
        # Wait (up to a minute) for the rebuilt device, then two seconds of drawing on it.
        for i in $(seq 1 60); do
            grep -q "recovered on a new device" "$OUT/viewer.log" 2>/dev/null && break
            kill -0 $pid 2>/dev/null || break
            sleep 1
        done
        sleep 2
        kill -0 $pid 2>/dev/null || { echo "viewer died after the device loss"; cat "$OUT/viewer.log"; exit 6; }
        import -window root "$OUT/after-loss.png"
        kill $pid
        wait $pid 2>/dev/null
        exit 0
    "#;
    let output = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x720x24", "sh", "-c", script])
        .env("BIN", env!("CARGO_BIN_EXE_animtune"))
        .env("MODEL", &model)
        .env("OUT", &out_dir)
        // Tuning profiles go to a scratch folder, not the user's configuration.
        .env("XDG_CONFIG_HOME", out_dir.join("config"))
        .env("ANIMTUNE_SIMULATE_DEVICE_LOSS_SECS", "9")
        .output()
        .expect("run xvfb-run");
    assert!(
        output.status.success(),
        "viewer run failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let image = image::open(&screenshot).expect("screenshot").to_rgb8();
    assert_eq!((image.width(), image.height()), (1280, 720));
    // The 3D view: left of the side panel, between the top bar and the transport bar.
    let (_, view_spread, view_colours) = luma_stats(&image, 40, 80, 800, 600);
    // A shaded, lit character on a ground grid has thousands of colours; the placeholder a few.
    assert!(
        view_spread > 4.0 && view_colours > 1000,
        "3D view looks uniform: spread {view_spread}, {view_colours} colours"
    );
    // The side panel: egui's dark panel fill with lighter text on it.
    let (panel_mean, panel_spread, _) = luma_stats(&image, 960, 60, 1270, 700);
    assert!(panel_mean > 10.0 && panel_mean < 90.0, "side panel is not an egui dark panel: mean {panel_mean}");
    assert!(panel_spread > 8.0, "side panel has no text or widgets: spread {panel_spread}");
    // Space paused playback: the transport's Play/Pause button (bottom left, above the timeline,
    // the rewind bar and the status bar: y 584–606 at 1280×720) changed.
    let before = image::open(out_dir.join("before-space.png")).expect("first screenshot").to_rgb8();
    let button_changed = (4..66).any(|x| (578..612).any(|y| before.get_pixel(x, y) != image.get_pixel(x, y)));
    assert!(button_changed, "pressing Space did not toggle the Pause button");

    // Device loss: the log says it recovered, and the 3D view and panels still draw.
    let log = std::fs::read_to_string(out_dir.join("viewer.log")).unwrap_or_default();
    assert!(log.contains("recovered on a new device"), "no recovery after the device loss:\n{log}");
    let after = image::open(out_dir.join("after-loss.png")).expect("screenshot after the loss").to_rgb8();
    let (_, spread, colours) = luma_stats(&after, 40, 80, 800, 600);
    assert!(spread > 4.0 && colours > 1000, "3D view after recovery: spread {spread}, {colours} colours");
    let (panel_mean, _, _) = luma_stats(&after, 960, 60, 1270, 700);
    assert!(panel_mean > 10.0 && panel_mean < 90.0, "side panel after recovery: mean {panel_mean}");
}

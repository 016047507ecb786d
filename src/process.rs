//! What the running process uses: resident memory, read by `soak` and the viewer's statistics.

/// Resident memory of this process in KiB (Linux `/proc/self/status` `VmRSS`); `None` where the
/// platform does not say.
pub fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.trim_start_matches("VmRSS:").trim().trim_end_matches("kB").trim().parse().ok()
}

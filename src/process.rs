//! What the running process uses: resident memory, read by `soak` and the viewer's statistics,
//! and CPU time, read by `bench --crowd`.

#[cfg(target_os = "linux")]
use rustix::time::{ClockId, clock_gettime};

/// Resident memory of this process in KiB (Linux `/proc/self/status` `VmRSS`); `None` where the
/// platform does not say.
pub fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.trim_start_matches("VmRSS:").trim().trim_end_matches("kB").trim().parse().ok()
}

/// CPU time every thread of this process has run so far (Linux: the process CPU clock, to the
/// nanosecond); `None` where the platform does not say.
pub fn cpu_time() -> Option<std::time::Duration> {
    #[cfg(target_os = "linux")]
    {
        let t = clock_gettime(ClockId::ProcessCPUTime);
        Some(std::time::Duration::new(u64::try_from(t.tv_sec).ok()?, u32::try_from(t.tv_nsec).ok()?))
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

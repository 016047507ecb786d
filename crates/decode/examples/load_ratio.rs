//! Import time of compressed files against their originals, interleaved in one process so a
//! busy machine slows both alike: `cargo run --release -p animtune-decode --example load_ratio
//! -- ORIGINAL VARIANT [VARIANT...]` imports the files in turn, 12 rounds of 5 imports each
//! (the first of each 5 warms the allocator and caches and is not counted), and prints each
//! file's median and its ratio to the original.

use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let files: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    let Some((original, variants)) = files.split_first() else {
        eprintln!("usage: load_ratio ORIGINAL VARIANT [VARIANT...]");
        std::process::exit(2);
    };
    let limits = anim::import::Limits::default();
    let all: Vec<&PathBuf> = std::iter::once(original).chain(variants).collect();
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); all.len()];
    for _ in 0..12 {
        for (file, samples) in all.iter().zip(&mut times) {
            for run in 0..5 {
                let start = Instant::now();
                let model = decode::load_path(file, &limits).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
                let elapsed = start.elapsed().as_secs_f64() * 1e3;
                std::hint::black_box(model);
                if run > 0 {
                    samples.push(elapsed);
                }
            }
        }
    }
    let medians: Vec<f64> = times
        .iter_mut()
        .map(|t| {
            t.sort_by(f64::total_cmp);
            t[t.len() / 2]
        })
        .collect();
    for (file, median) in all.iter().zip(&medians) {
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        println!("{name:60} {median:8.3} ms  {:.2}x", median / medians[0]);
    }
}

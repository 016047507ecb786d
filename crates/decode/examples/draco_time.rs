//! Time of draco-core's own decode of raw Draco streams (`.drc`, e.g. a glTF primitive's
//! `KHR_draco_mesh_compression` buffer view written out), with nothing of the import around it:
//! `cargo run --release -p animtune-decode --example draco_time -- FILE.drc [FILE.drc...]` decodes
//! the files in turn, 15 rounds of 9 decodes each (the first of each 9 not counted), and prints
//! each file's median and fastest decode. Where `load_ratio` answers how an import compares with
//! its uncompressed form, this one isolates the decoder (for profiling it, or comparing builds).

use std::path::PathBuf;
use std::time::Instant;

use draco_core::{DecoderBuffer, Mesh, MeshDecoder};

fn main() {
    let files: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    if files.is_empty() {
        eprintln!("usage: draco_time FILE.drc [FILE.drc...]");
        std::process::exit(2);
    }
    let streams: Vec<Vec<u8>> =
        files.iter().map(|file| std::fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))).collect();
    let mut times_ms: Vec<Vec<f64>> = vec![Vec::new(); streams.len()];
    for _ in 0..15 {
        for ((stream, samples), file) in streams.iter().zip(&mut times_ms).zip(&files) {
            for run in 0..9 {
                let start = Instant::now();
                let mut mesh = Mesh::new();
                let mut buffer = DecoderBuffer::new(stream);
                MeshDecoder::new().decode(&mut buffer, &mut mesh).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
                let elapsed = start.elapsed().as_secs_f64() * 1e3;
                std::hint::black_box(mesh);
                if run > 0 {
                    samples.push(elapsed);
                }
            }
        }
    }
    for (file, samples) in files.iter().zip(&mut times_ms) {
        samples.sort_by(f64::total_cmp);
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        println!("{name:40} median {:7.3} ms  fastest {:7.3} ms", samples[samples.len() / 2], samples[0]);
    }
}

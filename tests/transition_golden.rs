//! Golden figures of `animtune transition` (issue 22 item 3): the JSON report of every kind on
//! the built-in character and on the clip pairs of every shared model with clips, at two trigger
//! times, compared with `tests/golden/transition_figures.json` within 1e-6 (relative above 1).
//! It holds the cross-fader's behaviour while its parts move: a change that moves a figure
//! fails here, and a deliberate change of the figures rewrites the file in its own commit
//! (`ANIMTUNE_BLESS=1 cargo test --test transition_golden`).
//!
//! Pairs: every ordered pair (a clip to itself too) of a model with at most two clips; with
//! more, each clip to the next one (the last to the first). On Walk→Run of the built-in
//! character and of Fox also phase sync, speed matching, in-place root motion and the
//! critically damped decay. The shared models are skipped with a message when missing (failed
//! under `CI=true`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::Parser as _;
use serde_json::Value;

/// The golden file, relative to the repository root.
const GOLDEN: &str = "tests/golden/transition_figures.json";

/// Trigger times, as fractions of the source clip.
const TRIGGERS: [f32; 2] = [0.3, 0.7];

/// Largest difference allowed, relative to the golden value when it is above 1.
const TOLERANCE: f64 = 1e-6;

/// Most clips for which every ordered pair is measured.
const ALL_PAIRS_UP_TO: usize = 2;

const KINDS: [&str; 3] = ["crossfade", "inertialize", "dead-blend"];

/// Extra settings measured on the pairs named in [`EXTRA_PAIRS`].
const EXTRAS: [&[&str]; 4] =
    [&["--sync", "phase"], &["--match-speed"], &["--root-motion", "in-place"], &["--decay", "critically-damped"]];

/// `(model label, from, to)` measured with every [`EXTRAS`] too.
const EXTRA_PAIRS: [(&str, &str, &str); 2] = [("built-in", "Walk", "Run"), ("Fox/Fox.glb", "Walk", "Run")];

/// One `animtune transition` command line (without the model) and the key it is stored under.
struct Case {
    key: String,
    args: Vec<String>,
}

/// The models measured: the built-in character, then every shared model folder's own file (its
/// folder name + `.glb`/`.gltf`) that has clips.
fn models() -> Vec<(String, Option<PathBuf>)> {
    let mut models = vec![("built-in".to_owned(), None)];
    let Some(dir) = devtools::ci::shared_models("the transition golden figures on the shared models") else {
        return models;
    };
    let mut folders: Vec<PathBuf> =
        std::fs::read_dir(&dir).unwrap().filter_map(|e| Some(e.ok()?.path())).filter(|p| p.is_dir()).collect();
    folders.sort();
    for folder in folders {
        let name = folder.file_name().unwrap().to_string_lossy().into_owned();
        for ext in ["glb", "gltf"] {
            let path = folder.join(format!("{name}.{ext}"));
            if path.is_file() {
                models.push((format!("{name}/{name}.{ext}"), Some(path)));
            }
        }
    }
    models
}

/// The cases of one model: its pairs × kinds, plus the extras.
fn cases(label: &str, model: &anim::Model) -> Vec<Case> {
    let names: Vec<String> = (0..model.clips().len()).map(|i| model.clips()[i].display_name(i)).collect();
    let n = names.len();
    let pairs: Vec<(usize, usize)> = if n <= ALL_PAIRS_UP_TO {
        (0..n).flat_map(|a| (0..n).map(move |b| (a, b))).collect()
    } else {
        (0..n).map(|a| (a, (a + 1) % n)).collect()
    };
    let mut cases = Vec::new();
    let mut push = |from: usize, to: usize, kind: &str, extra: &[&str]| {
        let secs = model.clips()[from].end_secs();
        let at: Vec<String> = TRIGGERS.iter().map(|f| format!("{:.4}", f * secs)).collect();
        // Clips are given by index: names may be missing or repeated.
        let mut args: Vec<String> = ["--from", &from.to_string(), "--to", &to.to_string(), "--kind", kind, "--at"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        args.push(at.join(","));
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        let key = format!("{label} {}→{} {kind} at {}{}", names[from], names[to], at.join(","), {
            let extra = extra.join(" ");
            if extra.is_empty() { extra } else { format!(" {extra}") }
        });
        cases.push(Case { key, args });
    };
    for &(from, to) in &pairs {
        for kind in KINDS {
            push(from, to, kind, &[]);
        }
    }
    for (model_label, from, to) in EXTRA_PAIRS {
        let find = |name: &str| names.iter().position(|n| n == name);
        if model_label == label
            && let (Some(from), Some(to)) = (find(from), find(to))
        {
            for kind in KINDS {
                for extra in EXTRAS {
                    push(from, to, kind, extra);
                }
            }
        }
    }
    cases
}

/// `animtune transition` parsed and run as the binary does, its JSON report parsed.
fn run(model: Option<&Path>, args: &[String]) -> Value {
    let mut line: Vec<String> = vec!["animtune".into(), "transition".into()];
    line.extend(model.map(|p| p.display().to_string()));
    line.extend(args.iter().cloned());
    line.extend(["--format".into(), "json".into()]);
    let parsed = animtune::args::Args::try_parse_from(&line).unwrap_or_else(|e| panic!("{line:?}: {e}"));
    let Some(animtune::args::Command::Transition(transition)) = parsed.command else {
        panic!("{line:?}: not transition")
    };
    let text = animtune::cli::transition::run(&transition).unwrap_or_else(|e| panic!("{line:?}: {e:#}"));
    serde_json::from_str(&text).unwrap()
}

/// Every difference between `got` and `want` beyond the tolerance, as `path: got vs want`.
fn differences(path: &str, got: &Value, want: &Value, out: &mut Vec<String>) {
    match (got, want) {
        (Value::Number(g), Value::Number(w)) => {
            let (g, w) = (g.as_f64().unwrap(), w.as_f64().unwrap());
            if (g - w).abs() > TOLERANCE * w.abs().max(1.0) {
                out.push(format!("{path}: {g} vs {w}"));
            }
        }
        (Value::Array(g), Value::Array(w)) if g.len() == w.len() => {
            for (i, (g, w)) in g.iter().zip(w).enumerate() {
                differences(&format!("{path}[{i}]"), g, w, out);
            }
        }
        (Value::Object(g), Value::Object(w)) if g.keys().eq(w.keys()) => {
            for (k, w) in w {
                differences(&format!("{path}.{k}"), &g[k], w, out);
            }
        }
        _ if got == want => {}
        _ => out.push(format!("{path}: {got} vs {want}")),
    }
}

#[test]
fn transition_figures_match_the_golden_file() {
    let started = std::time::Instant::now();
    let mut figures = BTreeMap::new();
    let models = models();
    let shared = models.len() > 1;
    for (label, path) in models {
        let (model, _) = animtune::cli::load_model_or_default(path.as_deref()).unwrap();
        if model.clips().is_empty() {
            continue;
        }
        for case in cases(&label, &model) {
            let report = run(path.as_deref(), &case.args);
            assert!(figures.insert(case.key.clone(), report).is_none(), "{} twice", case.key);
        }
    }
    println!("{} reports in {:.1} s", figures.len(), started.elapsed().as_secs_f32());
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(GOLDEN);
    if std::env::var_os("ANIMTUNE_BLESS").is_some() {
        let text = serde_json::to_string_pretty(&figures).unwrap() + "\n";
        std::fs::write(&file, text).unwrap();
        println!("wrote {}", file.display());
        return;
    }
    let golden: BTreeMap<String, Value> =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display())))
            .unwrap();
    let mut problems = Vec::new();
    for (key, want) in &golden {
        match figures.get(key) {
            Some(got) => differences(key, got, want, &mut problems),
            // Without the shared models only the built-in character is measured.
            None if !shared && !key.starts_with("built-in ") => {}
            None => problems.push(format!("{key}: not measured")),
        }
    }
    for key in figures.keys().filter(|k| !golden.contains_key(*k)) {
        problems.push(format!("{key}: not in the golden file (ANIMTUNE_BLESS=1 adds it)"));
    }
    assert!(problems.is_empty(), "{} differences from {GOLDEN}:\n{}", problems.len(), problems.join("\n"));
}

//! The references in `docs/reference/` are generated from the code, and this test holds them to
//! it: the command-line reference from the clap definitions (`animtune::args::Args`, through
//! clap-markdown), the JSON Schemas of the commands' reports from their serde types (schemars,
//! the `schema` feature this test build turns on), and the keyboard shortcuts from the table the
//! viewer reads (`animtune::ui::shortcuts::SHORTCUTS`). A checked-in file that differs from what
//! the code generates fails; `ANIMTUNE_BLESS=1 cargo test --test docs_reference` rewrites them.
//! It also runs real commands on the built-in character and checks their JSON against the schemas.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn bless() -> bool {
    std::env::var_os("ANIMTUNE_BLESS").is_some_and(|v| v == "1")
}

/// Compare `generated` with the checked-in file (or write it when blessing); a mismatch names the
/// first differing line.
fn check_generated(relative: &str, generated: &str) -> Result<(), String> {
    let path = root().join(relative);
    if bless() {
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("create the reference folder");
        std::fs::write(&path, generated).expect("write the reference");
        return Ok(());
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    if current == generated {
        return Ok(());
    }
    let line = current
        .lines()
        .zip(generated.lines())
        .position(|(a, b)| a != b)
        .map_or_else(|| current.lines().count().min(generated.lines().count()) + 1, |i| i + 1);
    Err(format!(
        "{relative} differs from what the code generates (first difference at line {line}); \
         regenerate with `ANIMTUNE_BLESS=1 cargo test --test docs_reference`"
    ))
}

fn cli_markdown() -> String {
    let options = clap_markdown::MarkdownOptions::new().title("Command-line reference".to_owned()).show_footer(false);
    let body = clap_markdown::help_markdown_custom::<animtune::args::Args>(&options);
    let note = "Generated from the clap definitions (`src/args.rs` and the argument structs in `src/cli/`) by \
                `tests/docs_reference.rs`; do not edit by hand. The JSON each command prints is described \
                by the schemas in [`schema/`](schema/).\n\n";
    match body.split_once('\n') {
        Some((title, rest)) => format!("{title}\n\n{note}{}", rest.trim_start()),
        None => body,
    }
}

/// The schema file of each command's JSON output.
fn schemas() -> Vec<(&'static str, schemars::Schema)> {
    use animtune::cli;
    vec![
        ("info", schemars::schema_for!(cli::info::InfoReport)),
        ("sample", schemars::schema_for!(cli::sample::SampleReport)),
        ("bench", schemars::schema_for!(cli::bench::BenchReport)),
        ("bench-crowd", schemars::schema_for!(cli::bench::CrowdBenchReport)),
        ("ragdoll", schemars::schema_for!(cli::ragdoll::RagdollReport)),
        ("transition", schemars::schema_for!(animtune::transitions::TransitionReport)),
        ("blend-space", schemars::schema_for!(cli::blend_space::BlendSpaceReport)),
        ("transition-table", schemars::schema_for!(cli::transition::TableReport)),
        ("transition-export", schemars::schema_for!(cli::transition::TransitionExport)),
        ("graph", schemars::schema_for!(cli::graph::GraphReport)),
        ("record", schemars::schema_for!(animtune::record::RecordReport)),
        ("bake", schemars::schema_for!(cli::bake::BakeReport)),
        ("retarget", schemars::schema_for!(animtune::retarget::clip::RetargetReport)),
        ("soak", schemars::schema_for!(cli::soak::SoakReport)),
        ("viewer-stats", schemars::schema_for!(animtune::stage::stats::StatsReport)),
    ]
}

fn schema_json(schema: &schemars::Schema) -> String {
    serde_json::to_string_pretty(schema).expect("a schema serializes") + "\n"
}

#[test]
fn generated_references_are_current() {
    let mut failures = Vec::new();
    let mut check = |relative: &str, text: &str| {
        if let Err(e) = check_generated(relative, text) {
            failures.push(e);
        }
    };
    check("docs/reference/cli.md", &cli_markdown());
    check("docs/reference/shortcuts.md", &animtune::ui::shortcuts::reference_markdown());
    let schemas = schemas();
    for (name, schema) in &schemas {
        check(&format!("docs/reference/schema/{name}.json"), &schema_json(schema));
    }
    // No stale schema of a command that no longer has one.
    let folder = root().join("docs/reference/schema");
    for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        if !schemas.iter().any(|(name, _)| format!("{name}.json") == file) {
            if bless() {
                std::fs::remove_file(entry.path()).expect("remove a stale schema");
            } else {
                failures.push(format!("docs/reference/schema/{file} is generated by nothing"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The shortcut reference lists every chord of the viewer's table once, and the table has no chord
/// twice (the viewer would only ever run the first).
#[test]
fn shortcut_table_has_each_chord_once() {
    use animtune::ui::shortcuts::{SHORTCUTS, chord_label};
    let mut seen = std::collections::BTreeSet::new();
    for shortcut in SHORTCUTS {
        for &(modifiers, key) in shortcut.keys {
            let label = chord_label(modifiers, key);
            assert!(seen.insert(label.clone()), "{label} is in the shortcut table twice");
        }
    }
    let reference = animtune::ui::shortcuts::reference_markdown();
    for label in &seen {
        assert!(reference.contains(label.as_str()), "{label} missing from the shortcut reference");
    }
    assert!(seen.contains("Ctrl+Shift+Z") && seen.contains("F3") && seen.contains("Space"), "{seen:?}");
}

/// Resolve a `$ref` such as `#/$defs/TriggerMetrics` within the schema's root.
fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => {
            let pointer = reference.trim_start_matches('#');
            root.pointer(pointer).unwrap_or_else(|| panic!("{reference} does not resolve"))
        }
        None => schema,
    }
}

/// Check `value` against `schema` for what the reference promises: every key an object prints is a
/// property of its schema, every required property is printed, and the JSON types match
/// (recursively through arrays, `anyOf`/`oneOf` alternatives and `$ref`s). Returns the problems.
fn check_value(root: &Value, schema: &Value, value: &Value, at: &str, problems: &mut Vec<String>) {
    let schema = resolve(root, schema);
    if let Some(alternatives) = schema.get("anyOf").or_else(|| schema.get("oneOf")).and_then(Value::as_array) {
        let fits = alternatives.iter().any(|alternative| {
            let mut inner = Vec::new();
            check_value(root, alternative, value, at, &mut inner);
            inner.is_empty()
        });
        if !fits {
            problems.push(format!("{at}: {value} fits none of the schema's alternatives"));
        }
        return;
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let actual = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let type_fits = types.is_empty() || types.contains(&actual) || (actual == "integer" && types.contains(&"number"));
    if !type_fits {
        problems.push(format!("{at}: a {actual}, the schema says {types:?}"));
        return;
    }
    match value {
        Value::Object(map) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            if let Some(properties) = properties {
                for (key, inner) in map {
                    match properties.get(key) {
                        Some(property) => check_value(root, property, inner, &format!("{at}.{key}"), problems),
                        None => problems.push(format!("{at}: key `{key}` is not in the schema")),
                    }
                }
            } else if let Some(additional) = schema.get("additionalProperties").filter(|a| a.is_object()) {
                for (key, inner) in map {
                    check_value(root, additional, inner, &format!("{at}.{key}"), problems);
                }
            }
            for required in schema.get("required").and_then(Value::as_array).into_iter().flatten() {
                let key = required.as_str().unwrap_or_default();
                if !map.contains_key(key) {
                    problems.push(format!("{at}: required key `{key}` is missing"));
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    check_value(root, item_schema, item, &format!("{at}[{i}]"), problems);
                }
            }
        }
        _ => {}
    }
}

/// Run `animtune ARGS` and parse its stdout as JSON.
fn run_json(args: &[&str], cwd: &Path) -> Value {
    let output =
        Command::new(env!("CARGO_BIN_EXE_animtune")).args(args).current_dir(cwd).output().expect("run animtune");
    assert!(output.status.success(), "animtune {args:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("animtune {args:?} printed no JSON: {e}"))
}

/// What the commands print on the built-in character fits the checked-in schemas: every key is in
/// the schema, every required key is printed, every value has the schema's type.
#[test]
fn command_output_matches_the_schemas() {
    let temp = devtools::TempDir::new("docs-reference");
    let baked = temp.path().join("walk-linear.glb");
    let baked = baked.to_str().expect("a UTF-8 temp path");
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("info", vec!["info", "--format", "json"]),
        ("sample", vec!["sample", "--clip", "Walk", "--times", "0.1,0.5", "--format", "json"]),
        ("transition", vec!["transition", "--from", "Walk", "--to", "Run", "--at", "0.3", "--format", "json"]),
        ("soak", vec!["soak", "--seconds", "1", "--format", "json"]),
        ("graph", vec!["graph", "--play", "Idle,Walk@0.5,Run@1", "--format", "json"]),
        (
            "blend-space",
            vec![
                "blend-space",
                "--clip",
                "Walk=0",
                "--clip",
                "Run=1",
                "--at",
                "0.5",
                "--seconds",
                "1",
                "--format",
                "json",
            ],
        ),
        (
            "ragdoll",
            vec![
                "ragdoll",
                "--clip",
                "Walk",
                "--seconds",
                "0.5",
                "--get-up",
                "Idle",
                "--get-up-secs",
                "0.5",
                "--format",
                "json",
            ],
        ),
        (
            "bake",
            vec![
                "bake",
                "assets/mannequin.glb",
                "--clip",
                "Walk",
                "--interpolation",
                "linear",
                "--out",
                baked,
                "--format",
                "json",
            ],
        ),
    ];
    // The schemas as generated (`generated_references_are_current` holds the checked-in files
    // to them).
    let schemas = schemas();
    let mut problems = Vec::new();
    for (name, args) in &cases {
        let generated = &schemas.iter().find(|(n, _)| n == name).expect("a schema per case").1;
        let schema = serde_json::to_value(generated).expect("a schema is JSON");
        let output = run_json(args, &root());
        assert!(output.as_object().is_some_and(|o| !o.is_empty()), "animtune {name} printed an empty object");
        check_value(&schema, &schema, &output, name, &mut problems);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The checker itself: a key the schema does not have, a missing required key and a wrong type
/// are each found.
#[test]
fn schema_check_finds_extra_missing_and_mistyped_keys() {
    let schema = serde_json::to_value(schemars::schema_for!(animtune::cli::bench::BenchReport)).expect("schema");
    let good = serde_json::json!({"joints": 64, "results": [{"operation": "blend", "median_ns_per_joint": 1.3, "min_ns_per_joint": 1.2, "max_ns_per_joint": 1.5}]});
    let mut problems = Vec::new();
    check_value(&schema, &schema, &good, "bench", &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    for (bad, expected) in [
        (serde_json::json!({"joints": 64, "results": [], "extra": 1}), "`extra` is not in the schema"),
        (serde_json::json!({"results": []}), "required key `joints`"),
        (serde_json::json!({"joints": "64", "results": []}), "a string"),
    ] {
        let mut problems = Vec::new();
        check_value(&schema, &schema, &bad, "bench", &mut problems);
        assert!(problems.iter().any(|p| p.contains(expected)), "{bad}: {problems:?}");
    }
}

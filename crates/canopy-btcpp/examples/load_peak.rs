//! The heap a tree file's load peaks at, against the file's size: the
//! figure `docs/limits-and-soundness.md` gives for XML and JSON files.
//!
//! ```text
//! cargo run --release -p canopy-btcpp --example load_peak -- FILE…
//! cargo run --release -p canopy-btcpp --example load_peak -- --named-fallbacks 63000 named.xml
//! cargo run --release -p canopy-btcpp --example load_peak -- --named-fallbacks 39000 named.json
//! ```
//!
//! Each FILE (`.xml`, `.json`, `.ron`) is loaded with canopy's built-in
//! node types, and the most heap bytes live at once while it loaded are
//! printed beside the file's size, with what the built tree keeps. With
//! `--named-fallbacks N FILE`, FILE is first written: N Fallbacks (in
//! JSON, Selectors) of eight leaves, each leaf named with its number in
//! hexadecimal, under Sequences of at most 30,000 children, without spaces —
//! nearly the most nodes per byte a file of named nodes holds, the shape whose
//! load took 22 times an XML file's size and 19 times a JSON file's. The
//! counts come from `canopy_counting`, the counting allocator the memory
//! tests use (requested bytes: what the allocator rounds them up to, and
//! keeps of what was freed, is left out; `/usr/bin/time -f %M` shows the
//! process's resident peak with them).

use canopy_btcpp::{XmlOptions, load_any};
use canopy_counting::{Counting, reset_peak, stats};
use canopy_data::Registry;

#[global_allocator]
static ALLOC: Counting = Counting;

/// The text of `fallbacks` named Fallbacks, as XML or as JSON.
fn named_fallbacks(fallbacks: usize, json: bool) -> String {
    let mut groups = Vec::new();
    for group in (0..fallbacks).collect::<Vec<_>>().chunks(30_000) {
        let mut text = String::new();
        for (i, &f) in group.iter().enumerate() {
            let leaves: Vec<String> = (0..8)
                .map(|l| {
                    let name = format!("{:x}", f * 8 + l);
                    if json {
                        format!(r#"{{"type":"AlwaysFailure","name":"{name}"}}"#)
                    } else {
                        format!(r#"<AlwaysFailure name="{name}"/>"#)
                    }
                })
                .collect();
            if json {
                let comma = if i > 0 { "," } else { "" };
                text.push_str(&format!(
                    r#"{comma}{{"type":"Selector","children":[{}]}}"#,
                    leaves.join(",")
                ));
            } else {
                text.push_str(&format!("<Fallback>{}</Fallback>", leaves.concat()));
            }
        }
        groups.push(if json {
            format!(r#"{{"type":"Sequence","children":[{text}]}}"#)
        } else {
            format!("<Sequence>{text}</Sequence>")
        });
    }
    if json {
        format!(
            r#"{{"tree":{{"type":"Sequence","children":[{}]}}}}"#,
            groups.join(",")
        )
    } else {
        format!(
            "<root BTCPP_format=\"4\" main_tree_to_execute=\"M\"><BehaviorTree ID=\"M\">\
             <Sequence>{}</Sequence></BehaviorTree></root>",
            groups.concat()
        )
    }
}

fn usage() -> ! {
    eprintln!("usage: load_peak FILE…  |  load_peak --named-fallbacks N FILE.xml|FILE.json");
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let files: Vec<String> = match args.first().map(String::as_str) {
        None => usage(),
        Some("--named-fallbacks") => {
            let (Some(n), Some(file)) = (args.get(1).and_then(|n| n.parse().ok()), args.get(2))
            else {
                usage()
            };
            let text = named_fallbacks(n, file.ends_with(".json"));
            if let Err(e) = std::fs::write(file, text) {
                eprintln!("{file}: {e}");
                std::process::exit(1);
            }
            vec![file.clone()]
        }
        Some(_) => args,
    };
    let registry = Registry::<(), ()>::new();
    for file in files {
        let size = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
        let before = stats();
        reset_peak();
        match load_any(&registry, &file, &XmlOptions::default()) {
            Ok(tree) => {
                let after = stats();
                let peak = after.peak_bytes - before.live_bytes;
                let kept = after.live_bytes - before.live_bytes;
                println!(
                    "{file}: {size} bytes, {} nodes: load peak {peak} bytes ({:.1}× the file); \
                     the tree keeps {kept} ({:.1}×)",
                    tree.len(),
                    peak as f64 / size.max(1) as f64,
                    kept as f64 / size.max(1) as f64,
                );
            }
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
    }
}

//! Every seed of every fuzz target (`fuzz/seeds/<target>/*`) through the target's body, on
//! stable: the corpora are regression tests, and a crash the fuzzer found stays fixed
//! (its input is committed as a seed).

use std::path::{Path, PathBuf};

use lossrec_fuzz::TARGETS;

fn seeds_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds")
}

#[test]
fn every_seed_of_every_target_passes() {
    for t in TARGETS {
        let dir = seeds_dir().join(t.name);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert!(
            !files.is_empty(),
            "no seeds for {} in {}",
            t.name,
            dir.display()
        );
        for f in files {
            let data = std::fs::read(&f).unwrap();
            let r = std::panic::catch_unwind(|| (t.run)(&data));
            assert!(r.is_ok(), "{} failed on seed {}", t.name, f.display());
        }
    }
}

/// Every target has a `fuzz_target!` file and a `[[bin]]` in fuzz/Cargo.toml.
#[test]
fn every_target_is_built_by_cargo_fuzz() {
    let manifest = std::fs::read_to_string(seeds_dir().join("../Cargo.toml")).unwrap();
    for t in TARGETS {
        let file = seeds_dir().join(format!("../fuzz_targets/{}.rs", t.name));
        assert!(file.exists(), "{} missing", file.display());
        assert!(
            manifest.contains(&format!("name = \"{}\"", t.name)),
            "fuzz/Cargo.toml has no [[bin]] {}",
            t.name
        );
    }
}

//! Error messages in the scenario's words: serde's Rust type names become what a
//! scenario author wrote (`expected a number, got "10"`), and every unknown name —
//! key, axis, preset, model, value — gets the closest valid one ("did you mean").

/// The most characters of the author's text a message quotes (a value, a key, a path).
pub const QUOTE_MAX: usize = 80;
/// The longest run of a message outside quotes: the parser's own words are shorter, so a
/// longer run is the author's text that a stray quote mark inside it left unquoted.
const PLAIN_MAX: usize = 400;

/// `text` whole when short, else its first [`QUOTE_MAX`] characters, `…` and its length.
pub fn short(text: &str) -> String {
    match text.char_indices().nth(QUOTE_MAX) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}… ({} characters)", &text[..cut], text.chars().count()),
    }
}

/// `message` with every run quoted in backticks or double quotes longer than
/// [`QUOTE_MAX`] characters cut to its first [`QUOTE_MAX`], `…` and, after the quote, its
/// full length: `rtt_ms = "<100 MB>"` must not make a 100 MB message (issue 26 item 8).
fn shorten_quotes(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(4 * PLAIN_MAX));
    let mut inside: Option<char> = None;
    let mut run = 0usize;
    let mut cut_len = None;
    let mut escaped = false;
    for c in message.chars() {
        // serde quotes a string as Rust would: `\"` inside it does not close it.
        let closes = inside == Some(c) && !escaped;
        escaped = inside == Some('"') && c == '\\' && !escaped;
        let opens = inside.is_none() && matches!(c, '`' | '"');
        if closes || opens {
            // A cut run's length follows its closing quote, or precedes the next opening.
            let note = cut_len.take().map(|n| format!(" ({n} characters)"));
            if opens {
                out.push_str(note.as_deref().unwrap_or_default());
            }
            out.push(c);
            if closes {
                out.push_str(note.as_deref().unwrap_or_default());
            }
            inside = if opens { Some(c) } else { None };
            run = 0;
            continue;
        }
        run += 1;
        let max = if inside.is_some() {
            QUOTE_MAX
        } else {
            PLAIN_MAX
        };
        match run.cmp(&max) {
            std::cmp::Ordering::Less | std::cmp::Ordering::Equal => out.push(c),
            std::cmp::Ordering::Greater => {
                if run == max + 1 {
                    out.push('…');
                }
                cut_len = Some(run);
            }
        }
    }
    if let Some(n) = cut_len {
        out.push_str(&format!(" ({n} characters)"));
    }
    out
}

/// Rewrites one message (see the module doc).
pub fn plain(message: &str) -> String {
    let m = types(&shorten_quotes(message));
    match suggestion(&m) {
        Some(s) => format!("{m}; did you mean `{s}`?"),
        None => m,
    }
}

/// `invalid type: string "10", expected f64` → `expected a number, got "10"`.
fn types(m: &str) -> String {
    // serde's check of an integer past u64 (`u64 value was too large`); the key's own
    // range is reported when the number can be read.
    if let Some(t) = m.strip_suffix(" value was too large") {
        if matches!(t, "u64" | "u32" | "u16" | "u8" | "usize" | "i64" | "i32") {
            return "a whole number too large to read".to_string();
        }
    }
    let Some(rest) = m
        .strip_prefix("invalid type: ")
        .or_else(|| m.strip_prefix("invalid value: "))
    else {
        return m.to_string();
    };
    let Some((got, want)) = rest.rsplit_once(", expected ") else {
        return m.to_string();
    };
    let want = match want.trim() {
        "f64" | "f32" => "a number",
        "u64" | "u32" | "u16" | "u8" | "usize" if got.contains("integer `-") => {
            "a whole number (0 or more)"
        }
        "u64" | "u32" | "u16" | "u8" | "usize" | "i64" | "i32" => "a whole number",
        "a boolean" | "bool" => "true or false",
        "a string" | "string" => "a string (in quotes)",
        w if w.starts_with("a sequence") => "a list [..]",
        w if w.starts_with("struct ") || w.starts_with("a map") => "a table",
        w => w,
    };
    // toml reads an integer past i64 as i128 and says `… as i128`.
    let got = match got
        .split_once(" as i128")
        .or_else(|| got.split_once(" as u128"))
    {
        Some((n, _)) => format!("{n} (too large)"),
        None => got.to_string(),
    };
    let got = match got.as_str() {
        "sequence" => "an array [..]".to_string(),
        "map" => "a table".to_string(),
        _ => got,
    };
    // serde names the kind of value before it (`string "10"`); the value is the author's.
    let kinds = ["string ", "integer ", "floating point ", "boolean "];
    let got = kinds
        .iter()
        .find_map(|k| got.strip_prefix(k))
        .map_or(got.as_str(), |v| v);
    format!("expected {want}, got {got}")
}

/// The valid name closest to the unknown one named in `m`, if one is close.
fn suggestion(m: &str) -> Option<String> {
    let start = m.find("unknown ").or_else(|| m.find("bad value "))?;
    let rest = &m[start..];
    let a = rest.find('`')? + 1;
    let b = a + rest[a..].find('`')?;
    let word = &rest[a..b];
    let tail = &rest[b + 1..];
    let list = tail
        .split_once("expected one of ")
        .or_else(|| tail.split_once(": "))?
        .1;
    let best = list
        .split(',')
        .map(|c| c.trim().trim_matches('`').trim())
        .filter(|c| !c.is_empty() && *c != word)
        .map(|c| {
            // A prefix (`rtt` for `rtt_ms`) counts as close however short.
            let prefix = c.starts_with(word) || word.starts_with(c);
            let s = strsim::normalized_damerau_levenshtein(word, c);
            (if prefix { s.max(0.7) } else { s }, c)
        })
        .filter(|(score, _)| *score >= 0.6)
        .max_by(|x, y| x.0.total_cmp(&y.0))?;
    Some(best.1.to_string())
}

#[cfg(test)]
mod tests {
    use super::{plain, shorten_quotes};

    #[test]
    fn long_quoted_text_is_cut_to_a_prefix_and_its_length() {
        let a = "a".repeat(100);
        assert_eq!(
            shorten_quotes(&format!("got \"{a}\", expected `{a}`")),
            format!(
                "got \"{}…\" (100 characters), expected `{}…` (100 characters)",
                &a[..80],
                &a[..80]
            )
        );
        // An escaped quote stays inside; a short value is whole.
        let e = format!("\"{}\\\"{}\" and `b`", "x".repeat(40), "y".repeat(60));
        let out = shorten_quotes(&e);
        assert!(out.ends_with("…\" (102 characters) and `b`"), "{out}");
        // Text outside quotes is cut only past 400 characters.
        let long = "z".repeat(1000);
        assert_eq!(
            shorten_quotes(&long),
            format!("{}… (1000 characters)", &long[..400])
        );
    }

    #[test]
    fn scenario_words_not_rust_types() {
        assert_eq!(
            plain("invalid type: string \"10\", expected f64"),
            "expected a number, got \"10\""
        );
        assert_eq!(
            plain("invalid type: floating point `1.5`, expected u64"),
            "expected a whole number, got `1.5`"
        );
        assert_eq!(
            plain("invalid value: integer `-1`, expected u64"),
            "expected a whole number (0 or more), got `-1`"
        );
        // The kind of value is serde's prefix; the value itself is the author's and is
        // quoted as written (the fuzzer found "string " dropped from inside it).
        assert_eq!(
            plain("invalid type: string \"a string of integer \", expected u64"),
            "expected a whole number, got \"a string of integer \""
        );
        assert_eq!(
            plain("invalid type: sequence, expected f64"),
            "expected a number, got an array [..]"
        );
        assert_eq!(
            plain("invalid type: map, expected f64"),
            "expected a number, got a table"
        );
        // toml reads integers past i64 as i128 and says so (found by the fuzzer).
        assert_eq!(
            plain("invalid type: integer `111111116344259371037126` as i128, expected u64"),
            "expected a whole number, got `111111116344259371037126` (too large)"
        );
        // …and one between i64::MAX and u64::MAX through serde's own check (fuzzer too).
        assert_eq!(
            plain("u64 value was too large"),
            "a whole number too large to read"
        );
    }

    #[test]
    fn closest_name() {
        assert_eq!(
            plain("unknown field `rtt`, expected one of `rtt_ms`, `delay_ms`"),
            "unknown field `rtt`, expected one of `rtt_ms`, `delay_ms`; did you mean `rtt_ms`?"
        );
        assert!(
            plain("unknown preset `linux-clasic`; valid presets: rfc, linux-classic")
                .ends_with("did you mean `linux-classic`?")
        );
        assert!(
            plain("unknown loss model `bernouli`; valid: none, bernoulli, tail")
                .ends_with("did you mean `bernoulli`?")
        );
        assert_eq!(
            plain("unknown axis `zzz`; valid axes: cc, mss"),
            "unknown axis `zzz`; valid axes: cc, mss"
        );
    }
}

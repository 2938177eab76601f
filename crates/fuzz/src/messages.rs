//! User-facing error messages speak the user's language: no Rust type names (`u64`,
//! `Option<…>`, `RawLink`, paths with `::`) unless the user wrote them.

/// The first internal name in `message` that `input` does not contain, if any.
pub fn internal_name<'m>(message: &'m str, input: &str) -> Option<&'m str> {
    const PRIMITIVES: &[&str] = &[
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
        "f32", "f64",
    ];
    for fragment in [
        "::", "Option<", "Vec<", "Some(", "String", "HashMap", "BTreeMap",
    ] {
        if message.contains(fragment) && !input.contains(fragment) {
            return Some(fragment);
        }
    }
    message
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !input.contains(*w))
        .find(|w| PRIMITIVES.contains(w) || is_camel_case(w))
}

/// `RawLink`, `ScenarioError`: an upper-case letter, lower-case ones, another upper-case.
/// Acronyms (`TCP`, `RFC`) and capitalised words (`Linux`) are not.
fn is_camel_case(w: &str) -> bool {
    let b = w.as_bytes();
    if b.len() < 4 || !b[0].is_ascii_uppercase() {
        return false;
    }
    b.windows(2)
        .skip(1)
        .any(|p| p[0].is_ascii_lowercase() && p[1].is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::internal_name;

    #[test]
    fn finds_rust_names_not_the_users() {
        assert_eq!(internal_name("expected u64", ""), Some("u64"));
        assert_eq!(internal_name("bad RawLink value", ""), Some("RawLink"));
        assert_eq!(internal_name("lossrec::Config", ""), Some("::"));
        assert_eq!(internal_name("unknown key `FooBar`", "FooBar = 1"), None);
        assert_eq!(internal_name("RFC 5681: TCP Linux DupACK", "DupACK"), None);
        assert_eq!(internal_name("must be in [0, 1]", ""), None);
    }
}

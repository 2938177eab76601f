//! RFC 6675 §5 rate reduction (placeholder).

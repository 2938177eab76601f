//! RFC 6675 duplicate-ACK threshold loss detection (placeholder).

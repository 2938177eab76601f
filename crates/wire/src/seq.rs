//! 32-bit TCP sequence numbers ↔ 64-bit stream offsets.
//!
//! RFC 9293 §3.4 (formerly RFC 793 §3.3): sequence numbers are 32-bit and all
//! arithmetic on them is modulo 2^32. The SYN occupies the initial sequence
//! number (ISN), so the first data byte is ISN + 1. Inside lossrec everything
//! is a `u64` stream offset that never wraps; this module is the only place
//! where the 32-bit wrap happens.
//!
//! Mapping: stream offset `x` ↔ sequence number `ISN + 1 + x (mod 2^32)`.
//! The FIN after `n` data bytes has offset `n` and its ACK is `wrap(isn, n + 1)`,
//! so FIN needs no special case. The SYN itself (sequence number ISN) would be
//! offset −1, which a `u64` cannot hold; see [`unwrap`].

/// 2^32, the sequence space size.
const SPACE: u64 = 1 << 32;

/// The 32-bit sequence number of stream offset `offset` in a connection whose
/// initial sequence number is `isn`: `isn + 1 + offset (mod 2^32)`.
///
/// ```
/// use lossrec_wire::seq::wrap;
/// assert_eq!(wrap(1000, 0), 1001);
/// assert_eq!(wrap(u32::MAX, 0), 0); // ISN+1 wraps
/// assert_eq!(wrap(0, (1 << 32) + 5), 6);
/// ```
#[inline]
pub fn wrap(isn: u32, offset: u64) -> u32 {
    // Truncating `offset` to u32 is the modulo-2^32 reduction.
    isn.wrapping_add(1).wrapping_add(offset as u32)
}

/// The stream offset of sequence number `seq` that is closest to the reference
/// offset `near` (typically `snd_una` or `rcv_nxt` as an offset).
///
/// Every `x` with `|x - near| < 2^31` round-trips: `unwrap(isn, wrap(isn, x), near) == x`.
/// At exactly 2^31 away the two candidates are equally far; the lower one is
/// returned (as RFC 1982-style serial comparison leaves that case undefined).
///
/// Offsets are never negative, so when the closest candidate would be below
/// zero the next one up (2^32 higher) is returned. In particular `seq == isn`,
/// the SYN's own sequence number (offset −1), unwraps to `2^32 − 1` when `near`
/// is small: callers recognise the SYN by its flag, not by its offset. An
/// acknowledgment of the SYN alone (`isn + 1`) unwraps to offset 0.
///
/// ```
/// use lossrec_wire::seq::{unwrap, wrap};
/// let isn = u32::MAX - 10;
/// let x = 5_000_000_000u64; // past one wrap of the sequence space
/// assert_eq!(unwrap(isn, wrap(isn, x), x - 1_000_000), x);
/// assert_eq!(unwrap(isn, isn.wrapping_add(1), 0), 0);
/// assert_eq!(unwrap(isn, isn, 0), (1 << 32) - 1); // the SYN
/// ```
#[inline]
pub fn unwrap(isn: u32, seq: u32, near: u64) -> u64 {
    // Offset modulo 2^32, then the signed distance from `near` (mod 2^32),
    // picked in (-2^31, 2^31].
    let rel = seq.wrapping_sub(isn).wrapping_sub(1);
    let diff = rel.wrapping_sub(near as u32) as i32;
    if diff >= 0 {
        match near.checked_add(diff as u64) {
            Some(x) => x,
            // Beyond u64::MAX: the only representable candidate is below.
            None => near - (SPACE - diff as u64),
        }
    } else {
        let back = u64::from(diff.unsigned_abs());
        match near.checked_sub(back) {
            Some(x) => x,
            // Would be negative: the nearest non-negative candidate is above.
            None => near + (SPACE - back),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn wrap_basics() {
        assert_eq!(wrap(0, 0), 1);
        assert_eq!(wrap(100, 99), 200);
        assert_eq!(wrap(u32::MAX, 0), 0);
        assert_eq!(wrap(u32::MAX - 1, 1), 0);
        assert_eq!(wrap(7, SPACE), 8);
    }

    #[test]
    fn unwrap_across_wrap() {
        let isn = 0xFFFF_FF00;
        // Offset 0x100 is exactly where seq wraps past zero.
        assert_eq!(wrap(isn, 0xFF), 0);
        assert_eq!(unwrap(isn, 0, 0xF0), 0xFF);
        assert_eq!(unwrap(isn, 5, 0xF0), 0x104);
        // Second lap.
        assert_eq!(unwrap(isn, wrap(isn, SPACE + 3), SPACE), SPACE + 3);
    }

    #[test]
    fn unwrap_syn_and_its_ack() {
        let isn = 12345;
        assert_eq!(unwrap(isn, isn + 1, 0), 0);
        assert_eq!(unwrap(isn, isn, 0), SPACE - 1);
        // Far into the stream the SYN's number is just another lap's offset.
        assert_eq!(unwrap(isn, isn, 3 * SPACE), 3 * SPACE - 1);
    }

    #[test]
    fn unwrap_tie_and_extremes() {
        // Exactly 2^31 away: lower candidate.
        assert_eq!(unwrap(0, wrap(0, 3 * SPACE / 2), SPACE), SPACE / 2);
        assert_eq!(unwrap(9, wrap(9, u64::MAX), u64::MAX - 5), u64::MAX);
        // Closest candidate above u64::MAX is not representable.
        assert_eq!(
            unwrap(0, wrap(0, u64::MAX).wrapping_add(1), u64::MAX),
            u64::MAX - SPACE + 1
        );
    }

    proptest! {
        #[test]
        fn unwrap_inverts_wrap(isn: u32, near: u64, delta in -(1i64 << 31) + 1..(1i64 << 31)) {
            let x = near as i128 + delta as i128;
            prop_assume!(x >= 0 && x <= u64::MAX as i128);
            let x = x as u64;
            prop_assert_eq!(unwrap(isn, wrap(isn, x), near), x);
        }

        #[test]
        fn unwrap_is_congruent_and_near(isn: u32, seq: u32, near: u64) {
            let x = unwrap(isn, seq, near);
            prop_assert_eq!(wrap(isn, x), seq);
            prop_assert!(x.abs_diff(near) < SPACE);
        }
    }
}

//! TCP option layout (RFC 9293 §3.1/§3.2, RFC 2018 §2–3, RFC 7323 §2.2, §3.2).
//!
//! Encoding follows Linux's `tcp_options_write` so captures look like real
//! ones: `mss`, then `sackOK,TS` (or `nop,nop,TS`, or `nop,nop,sackOK`), then
//! `nop,wscale`, then `nop,nop,sack …`. Every group is a multiple of 4 bytes,
//! so no end-of-list padding is needed and 4-byte fields stay aligned
//! (RFC 7323 Appendix A recommends the `nop,nop,TS` layout).

use crate::error::WireError;
use crate::segment::{SackBlock, SackList, TcpOptions, Timestamps};

/// Maximum TCP option space: data offset 15 words − 5 fixed words.
pub(crate) const MAX_LEN: usize = 40;

const EOL: u8 = 0;
const NOP: u8 = 1;
const KIND_MSS: u8 = 2;
const KIND_WSCALE: u8 = 3;
const KIND_SACK_PERMITTED: u8 = 4;
const KIND_SACK: u8 = 5;
const KIND_TIMESTAMPS: u8 = 8;

/// Bytes of everything but the SACK blocks.
fn fixed_len(o: &TcpOptions) -> usize {
    let mss = if o.mss.is_some() { 4 } else { 0 };
    // TS is 10 bytes; sackOK (2) or two NOPs fill it to 12.
    let ts_sack = match (o.timestamps.is_some(), o.sack_permitted) {
        (true, _) => 12,
        (false, true) => 4,
        (false, false) => 0,
    };
    let ws = if o.window_scale.is_some() { 4 } else { 0 };
    mss + ts_sack + ws
}

pub(crate) fn max_sack_blocks(o: &TcpOptions) -> usize {
    // nop,nop,kind,len then 8 bytes a block.
    ((MAX_LEN - fixed_len(o)).saturating_sub(4) / 8).min(SackList::MAX)
}

fn sack_blocks_written(o: &TcpOptions) -> usize {
    o.sack.len().min(max_sack_blocks(o))
}

pub(crate) fn encoded_len(o: &TcpOptions) -> usize {
    let n = sack_blocks_written(o);
    fixed_len(o) + if n > 0 { 4 + 8 * n } else { 0 }
}

/// Writes the options into `buf`, returns the length used (multiple of 4).
pub(crate) fn write(o: &TcpOptions, buf: &mut [u8; MAX_LEN]) -> usize {
    let mut w = Writer { buf, at: 0 };
    if let Some(mss) = o.mss {
        w.put(&[KIND_MSS, 4]);
        w.put(&mss.to_be_bytes());
    }
    match (o.timestamps, o.sack_permitted) {
        (Some(ts), sack_ok) => {
            if sack_ok {
                w.put(&[KIND_SACK_PERMITTED, 2]);
            } else {
                w.put(&[NOP, NOP]);
            }
            w.put(&[KIND_TIMESTAMPS, 10]);
            w.put(&ts.val.to_be_bytes());
            w.put(&ts.ecr.to_be_bytes());
        }
        (None, true) => w.put(&[NOP, NOP, KIND_SACK_PERMITTED, 2]),
        (None, false) => {}
    }
    if let Some(shift) = o.window_scale {
        w.put(&[NOP, KIND_WSCALE, 3, shift]);
    }
    let n = sack_blocks_written(o);
    if n > 0 {
        w.put(&[NOP, NOP, KIND_SACK, (2 + 8 * n) as u8]);
        for b in &o.sack.as_slice()[..n] {
            w.put(&b.left.to_be_bytes());
            w.put(&b.right.to_be_bytes());
        }
    }
    w.at
}

struct Writer<'b> {
    buf: &'b mut [u8; MAX_LEN],
    at: usize,
}

impl Writer<'_> {
    fn put(&mut self, bytes: &[u8]) {
        // Lengths are bounded by construction (fixed_len + SACK ≤ 40).
        self.buf[self.at..self.at + bytes.len()].copy_from_slice(bytes);
        self.at += bytes.len();
    }
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

/// Parses an options area. Unknown kinds with a sane length are skipped
/// (RFC 9293 §3.1); parsing stops at End of Option List. A later duplicate of
/// a known option overrides an earlier one. Public as [`crate::decode_tcp_options`] for
/// readers that slice IPv6 or link layers themselves (`lossrec-capture`).
pub fn parse(bytes: &[u8]) -> Result<TcpOptions, WireError> {
    let mut o = TcpOptions::default();
    let mut i = 0;
    while i < bytes.len() {
        let kind = bytes[i];
        match kind {
            EOL => break,
            NOP => {
                i += 1;
                continue;
            }
            _ => {}
        }
        let len = *bytes
            .get(i + 1)
            .ok_or(WireError::TruncatedOption { kind })?;
        if len < 2 {
            return Err(WireError::BadOptionLen { kind, len });
        }
        let end = i + usize::from(len);
        if end > bytes.len() {
            return Err(WireError::TruncatedOption { kind });
        }
        let body = &bytes[i + 2..end];
        let bad = WireError::BadOptionLen { kind, len };
        match kind {
            KIND_MSS => {
                if len != 4 {
                    return Err(bad);
                }
                o.mss = Some(u16::from_be_bytes([body[0], body[1]]));
            }
            KIND_WSCALE => {
                if len != 3 {
                    return Err(bad);
                }
                // Values above 14 are kept as sent; RFC 7323 §2.3 says the
                // receiver of the SYN clamps them.
                o.window_scale = Some(body[0]);
            }
            KIND_SACK_PERMITTED => {
                if len != 2 {
                    return Err(bad);
                }
                o.sack_permitted = true;
            }
            KIND_SACK => {
                // RFC 2018 §3: length 8n + 2 with 1 ≤ n ≤ 4.
                if !matches!(len, 10 | 18 | 26 | 34) {
                    return Err(bad);
                }
                o.sack.clear();
                for c in body.chunks_exact(8) {
                    o.sack.push(SackBlock::new(be32(&c[..4]), be32(&c[4..])));
                }
            }
            KIND_TIMESTAMPS => {
                if len != 10 {
                    return Err(bad);
                }
                o.timestamps = Some(Timestamps {
                    val: be32(&body[..4]),
                    ecr: be32(&body[4..]),
                });
            }
            _ => {}
        }
        i = end;
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(o: &TcpOptions) -> Vec<u8> {
        let mut buf = [0u8; MAX_LEN];
        let n = write(o, &mut buf);
        assert_eq!(n, encoded_len(o));
        buf[..n].to_vec()
    }

    fn syn_opts() -> TcpOptions {
        TcpOptions {
            mss: Some(1448),
            window_scale: Some(7),
            sack_permitted: true,
            timestamps: Some(Timestamps { val: 1, ecr: 0 }),
            ..Default::default()
        }
    }

    #[test]
    fn linux_syn_layout() {
        // mss 1448,sackOK,TS val 1 ecr 0,nop,wscale 7
        let bytes = enc(&syn_opts());
        assert_eq!(
            bytes,
            [2, 4, 0x05, 0xa8, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7]
        );
        assert_eq!(parse(&bytes).unwrap(), syn_opts());
    }

    #[test]
    fn no_ts_layouts() {
        let o = TcpOptions {
            mss: Some(536),
            sack_permitted: true,
            window_scale: Some(0),
            ..Default::default()
        };
        assert_eq!(enc(&o), [2, 4, 2, 24, 1, 1, 4, 2, 1, 3, 3, 0]);
        let o = TcpOptions {
            timestamps: Some(Timestamps { val: 5, ecr: 6 }),
            ..Default::default()
        };
        assert_eq!(enc(&o), [1, 1, 8, 10, 0, 0, 0, 5, 0, 0, 0, 6]);
    }

    #[test]
    fn sack_blocks_capacity() {
        let four = SackList::from_slice(&[
            SackBlock::new(1, 2),
            SackBlock::new(3, 4),
            SackBlock::new(5, 6),
            SackBlock::new(7, 8),
        ]);
        let mut o = TcpOptions {
            sack: four,
            ..Default::default()
        };
        assert_eq!(o.max_sack_blocks(), 4);
        assert_eq!(encoded_len(&o), 36);
        assert_eq!(parse(&enc(&o)).unwrap(), o);
        o.timestamps = Some(Timestamps { val: 9, ecr: 10 });
        assert_eq!(o.max_sack_blocks(), 3);
        let bytes = enc(&o);
        assert_eq!(bytes.len(), 40);
        assert_eq!(&bytes[12..16], &[1, 1, 5, 26]);
        let back = parse(&bytes).unwrap();
        assert_eq!(back.sack.as_slice(), &four.as_slice()[..3]);
        // A full SYN leaves room for two blocks only.
        let mut syn = syn_opts();
        syn.sack = four;
        assert_eq!(syn.max_sack_blocks(), 2);
        assert_eq!(enc(&syn).len(), 40);
    }

    #[test]
    fn parse_skips_unknown_and_stops_at_eol() {
        // Unknown kind 30 (MPTCP) with 4 bytes, then MSS, EOL, junk.
        let bytes = [30, 4, 0xaa, 0xbb, 2, 4, 1, 0, 0, 99, 99, 99];
        let o = parse(&bytes).unwrap();
        assert_eq!(o.mss, Some(256));
    }

    #[test]
    fn parse_errors() {
        use WireError::*;
        assert_eq!(parse(&[2]), Err(TruncatedOption { kind: 2 }));
        assert_eq!(parse(&[2, 4, 0]), Err(TruncatedOption { kind: 2 }));
        assert_eq!(parse(&[2, 3, 0]), Err(BadOptionLen { kind: 2, len: 3 }));
        assert_eq!(parse(&[99, 1]), Err(BadOptionLen { kind: 99, len: 1 }));
        assert_eq!(parse(&[3, 2]), Err(BadOptionLen { kind: 3, len: 2 }));
        assert_eq!(parse(&[4, 3, 0]), Err(BadOptionLen { kind: 4, len: 3 }));
        assert_eq!(parse(&[5, 2]), Err(BadOptionLen { kind: 5, len: 2 }));
        assert_eq!(
            parse(&[5, 9, 0, 0, 0, 0, 0, 0, 0]),
            Err(BadOptionLen { kind: 5, len: 9 })
        );
        assert_eq!(
            parse(&[8, 8, 0, 0, 0, 0, 0, 0]),
            Err(BadOptionLen { kind: 8, len: 8 })
        );
    }
}

//! Resolution against negotiation: what SACK and timestamps rule out.

use super::*;

#[test]
fn options_land_in_their_variant() {
    let mut c = Config::linux_3_17_rtor();
    c.set("rrthresh", "7").unwrap();
    let a = c.resolve(true, true);
    assert_eq!(a.rto_timer, RtoRearm::Restart { rrthresh: 7 });
    assert!(matches!(
        a.early_retransmit,
        ErMode::On {
            rule: ErRule::Segments,
            delayed: true,
            disable_on_reordering: true,
            rate_cap_percent: 0
        }
    ));
    // rrthresh is meaningless with the RFC 6298 timer: it cannot be read there.
    c.set("rto_timer", "rfc6298").unwrap();
    assert_eq!(c.resolve(true, true).rto_timer, RtoRearm::Rfc6298);
}

#[test]
fn negotiation_resolves_away_what_needs_missing_options() {
    let a = Config::linux().resolve(false, false);
    assert_eq!(
        a.loss_detection,
        Detection::DupThresh {
            rule: DupThreshRule::Rfc6675
        }
    );
    assert_eq!(a.probe, Probing::None);
    let mut c = Config::reno_sack_eifel();
    assert!(c.resolve(true, false).detection_unavailable);
    assert_eq!(
        c.resolve(true, false).spurious_detection,
        SpuriousDetector::None
    );
    c.set("spurious_detection", "frto").unwrap();
    assert_eq!(
        c.resolve(false, true).spurious_detection,
        SpuriousDetector::Frto { sack: false }
    );
}

//! Hostile input: garbage text and random peers never panic the parser or the runner, and
//! every run ends.

use lossrec_script::{run_script, ScriptOptions};
use proptest::prelude::*;

const OPEN: &str = "\
0   socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
+0  listen(3, 1) = 0
+0  < S 0:0(0) win 32792 <mss 1000,sackOK,nop,nop,nop,wscale 7>
+0  > S. 0:0(0) ack 1 <...>
+.1 < . 1:1(0) ack 1 win 257
+0  accept(3, ..., ...) = 4
+0  write(4, ..., 30000) = 30000
+0  > . 1:10001(10000) ack 1
";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn garbage_never_panics(text in "[-+0-9.:()<>%{}`*~ ,SPF.a-z_\\n]{0,200}") {
        let _ = run_script(&text, "g.pkt", &ScriptOptions::default());
    }

    /// Random ACKs (any cumulative value, SACK blocks anywhere, windows, times) and
    /// `*` expectations: the run ends with a verdict, and an engine panic is reported as
    /// a failure rather than escaping.
    #[test]
    fn random_peer_terminates(acks in prop::collection::vec(
        (0u32..40, 0u32..30_000, 0u32..30_000, 0u32..500, any::<bool>()), 1..12)) {
        let mut s = OPEN.to_string();
        for (dt, ack, sack, win, star) in acks {
            let (a, b) = (sack.min(ack + 5000), sack.max(ack + 5000));
            s += &format!("+.{dt:02} < . 1:1(0) ack {ack} win {win} <sack {a}:{b},nop,nop>\n");
            if star {
                s += "* > . 1:1001(1000) ack 1\n";
            }
        }
        let r = run_script(&s, "p.pkt", &ScriptOptions::default());
        let text = r.to_string();
        prop_assert!(r.passed || !r.failures.is_empty());
        prop_assert!(!text.contains("the engine panicked"), "{}\n{}", s, text);
    }
}

//! The RTT estimator's u64 step against its u128 definition.

use super::*;

proptest::proptest! {
    /// The u64 step gives what the u128 step gives over its whole range, edges
    /// included.
    #[test]
    fn u64_step_is_the_u128_step(
        old in proptest::prop_oneof![0..SMALL, SMALL - 1_000..SMALL],
        var in proptest::prop_oneof![0..SMALL, SMALL - 1_000..SMALL],
        r in proptest::prop_oneof![0..SMALL, SMALL - 1_000..SMALL],
    ) {
        let (s, v) = step_u64(old, var, r);
        proptest::prop_assert_eq!(
            (u128::from(s), u128::from(v)),
            step_u128(u128::from(old), u128::from(var), u128::from(r))
        );
    }
}

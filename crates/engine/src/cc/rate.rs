//! Delivery rate estimation (draft-cheng-iccrg-delivery-rate-estimation-00; Linux
//! `net/ipv4/tcp_rate.c`), the input of BBR: every transmission records how much had
//! been delivered when it left; when it is delivered, the data delivered since, divided by
//! the longer of the send and the ACK interval, is a sample of the delivery rate.
//!
//! Counts are segments, as Linux counts packets (`tp->delivered`).

use crate::time::{Duration, Instant};

/// What a transmission records when it leaves (Linux `tcp_skb_cb::tx`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TxState {
    /// `tp->delivered` when it was sent.
    pub delivered: u64,
    /// `tp->delivered_mstamp` when it was sent.
    pub delivered_time: Instant,
    /// `tp->first_tx_mstamp`: the send time of the first transmission of the interval.
    pub first_tx_time: Instant,
    /// Sent while the connection was application-limited.
    pub app_limited: bool,
}

/// One ACK's rate sample (Linux `struct rate_sample`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RateSample {
    /// `tp->delivered` when the newest delivered segment was sent; `None` when this ACK
    /// delivered nothing that was stamped.
    pub prior_delivered: Option<u64>,
    /// `tp->delivered_mstamp` then.
    pub prior_time: Instant,
    /// Segments delivered over the interval, if the sample is valid.
    pub delivered: Option<u64>,
    /// max(send interval, ACK interval); `None` when invalid (or shorter than min RTT).
    pub interval: Option<Duration>,
    /// Segments newly delivered (ACKed or SACKed) by this ACK (`acked_sacked`).
    pub acked_sacked: u64,
    /// Segments newly marked lost on this ACK.
    pub losses: u64,
    /// The newest delivered segment was sent while application-limited.
    pub is_app_limited: bool,
    /// The RTT sample of this ACK (`ca_rtt_us`), if any.
    pub rtt: Option<Duration>,
    /// Segments in flight before the ACK.
    pub prior_in_flight: u64,
    /// The send interval of the newest delivered segment (`rs->interval_us` before
    /// `tcp_rate_gen` takes the max of it and the ACK interval).
    pub send_elapsed: Duration,
}

/// The connection's delivery counters (Linux `tp->delivered`, `delivered_mstamp`,
/// `first_tx_mstamp`, `app_limited`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Rate {
    /// `tp->delivered`: segments ever delivered (ACKed or SACKed for the first time).
    pub delivered: u64,
    /// `tp->delivered_mstamp`: when `delivered` last grew, or when sending restarted
    /// with nothing in flight.
    pub delivered_time: Instant,
    first_tx_time: Instant,
    /// The `delivered` count at which the application-limited period ends (0: not limited).
    app_limited: u64,
}

impl Rate {
    /// `tcp_rate_skb_sent`: a transmission leaves at `now`; with nothing in flight the
    /// interval restarts here.
    pub fn on_send(&mut self, now: Instant, nothing_in_flight: bool) -> TxState {
        if nothing_in_flight {
            self.first_tx_time = now;
            self.delivered_time = now;
        }
        TxState {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_tx_time: self.first_tx_time,
            app_limited: self.app_limited != 0,
        }
    }

    /// `tcp_rate_skb_delivered` for the most recently sent segment this ACK delivered,
    /// sent at `sent` with `tx`.
    pub fn on_delivered(&mut self, rs: &mut RateSample, tx: TxState, sent: Instant) {
        if rs.prior_delivered.is_some_and(|p| tx.delivered <= p) {
            return;
        }
        rs.prior_delivered = Some(tx.delivered);
        rs.prior_time = tx.delivered_time;
        rs.is_app_limited = tx.app_limited;
        rs.send_elapsed = sent.saturating_duration_since(tx.first_tx_time);
        // The next interval starts with this segment's transmission.
        self.first_tx_time = sent;
    }

    /// `tcp_rate_gen`: after the ACK was processed, `delivered` segments were newly
    /// delivered and `lost` newly marked lost; finishes `rs`. `min_rtt` is the connection's
    /// windowed min RTT: a shorter interval would over-estimate the rate.
    pub fn on_ack(
        &mut self,
        now: Instant,
        delivered: u64,
        lost: u64,
        min_rtt: Option<Duration>,
        rs: &mut RateSample,
    ) {
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        if delivered > 0 {
            self.delivered_time = now;
        }
        rs.acked_sacked = delivered;
        rs.losses = lost;
        let Some(prior) = rs.prior_delivered else {
            rs.delivered = None;
            rs.interval = None;
            return;
        };
        rs.delivered = Some(self.delivered - prior);
        let ack_elapsed = now.saturating_duration_since(rs.prior_time);
        let interval = rs.send_elapsed.max(ack_elapsed);
        // "Normally we expect interval_us >= min-rtt": a shorter one is not trusted.
        rs.interval = (interval > Duration::ZERO && min_rtt.is_none_or(|m| interval >= m))
            .then_some(interval);
    }

    /// Counts `n` segments delivered (ACKed or SACKed for the first time).
    pub fn note_delivered(&mut self, n: u64) {
        self.delivered += n;
    }

    /// `tcp_rate_check_app_limited`, called when the application writes: with less than a
    /// segment unsent, cwnd not full and every lost segment retransmitted, samples from
    /// now until what is in flight is delivered describe the application, not the path.
    pub fn check_app_limited(
        &mut self,
        unsent_below_mss: bool,
        in_flight: u64,
        cwnd: u64,
        lost_unrepaired: bool,
    ) {
        if unsent_below_mss && in_flight < cwnd && !lost_unrepaired {
            self.mark_app_limited(in_flight);
        }
    }

    /// Marks the connection application-limited until `in_flight` more segments are
    /// delivered (also BBR's PROBE_RTT: "ignore low rate samples during this mode").
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }

    /// Whether samples are currently application-limited.
    pub fn is_app_limited(&self) -> bool {
        self.app_limited != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Instant {
        Instant::from_millis(v)
    }

    /// Ten segments sent back to back at t = 0, ACKed one per ms from t = 100 ms: the
    /// sample on the last ACK is 10 segments over max(send elapsed 0, ACK elapsed 109 ms)
    /// (draft §3.3).
    #[test]
    fn samples_the_delivery_rate() {
        let mut r = Rate::default();
        let tx: Vec<TxState> = (0..10).map(|i| r.on_send(ms(0), i == 0)).collect();
        let mut last = RateSample::default();
        for (i, t) in tx.iter().enumerate() {
            let now = ms(100 + i as u64);
            let mut rs = RateSample::default();
            r.on_delivered(&mut rs, *t, ms(0));
            r.note_delivered(1);
            r.on_ack(now, 1, 0, Some(Duration::from_millis(100)), &mut rs);
            last = rs;
        }
        // The last ACK: delivered 10 since t = 0 (prior_delivered 0), over 109 ms.
        assert_eq!(last.delivered, Some(10));
        assert_eq!(last.interval, Some(Duration::from_millis(109)));
        // A sample whose interval is below min RTT is not valid.
        let t = r.on_send(ms(200), true);
        let mut rs = RateSample::default();
        r.on_delivered(&mut rs, t, ms(200));
        r.note_delivered(1);
        r.on_ack(ms(250), 1, 0, Some(Duration::from_millis(100)), &mut rs);
        assert_eq!(rs.interval, None);
    }

    #[test]
    fn app_limited_until_in_flight_is_delivered() {
        let mut r = Rate::default();
        r.check_app_limited(true, 3, 10, false);
        assert!(r.is_app_limited());
        let t = r.on_send(ms(0), false);
        assert!(t.app_limited);
        r.note_delivered(4);
        let mut rs = RateSample::default();
        r.on_ack(ms(10), 4, 0, None, &mut rs);
        assert!(!r.is_app_limited(), "delivered 4 > 0 + 3");
        r.check_app_limited(true, 10, 10, false);
        assert!(!r.is_app_limited(), "cwnd-limited");
    }
}

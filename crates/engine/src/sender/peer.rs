//! The peer's receive window as the sender sees it (RFC 9293 §3.8.6 SND.WND, RFC 7323
//! §2.3 window scale) and the persist timer's back-off while it is zero (RFC 9293
//! §3.8.6.1, Linux `icsk_backoff` under `tcp_probe_timer`).

/// The peer's window.
#[derive(Clone, Debug)]
pub(super) struct PeerWindow {
    /// SND.WND: the window the last acceptable ACK announced (capped, `ack::MAX_WINDOW`).
    pub window: u64,
    /// Window scale the peer offered on its SYN (echoed on our SYN-ACK).
    pub scale: Option<u8>,
    /// The largest window announced (Linux `max_window`).
    pub max_window: u64,
    /// Zero-window probes sent since the window last opened (Linux `icsk_backoff` while
    /// the persist timer runs).
    pub persist_backoff: u32,
}

impl PeerWindow {
    /// Before any ACK: `window`, as large as any peer could announce.
    pub fn new(window: u64) -> PeerWindow {
        PeerWindow {
            window,
            scale: None,
            max_window: 0,
            persist_backoff: 0,
        }
    }
}

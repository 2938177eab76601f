//! The min-RTT filter (Linux `lib/win_minmax.c`), on its own: it keeps three samples and
//! knows nothing of the estimator.

use crate::time::{Duration, Instant};

/// Kathleen Nichols' windowed min filter, as Linux `minmax_running_min` (lib/win_minmax.c):
/// the best, second-best and third-best samples from successive sub-windows, so the min
/// over the last `win` is known in O(1) memory.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct WindowedMin {
    /// `s[0]` is the current min; `s[1]`, `s[2]` later, larger candidates. Empty before
    /// the first sample (Linux starts from ~0U, which any sample replaces).
    s: Option<[(Instant, Duration); 3]>,
}

impl WindowedMin {
    /// No samples yet.
    pub fn new() -> Self {
        WindowedMin { s: None }
    }

    /// The min over the window, if any sample was taken.
    pub fn get(&self) -> Option<Duration> {
        self.s.map(|s| s[0].1)
    }

    /// The three kept samples (time, value), best first.
    pub fn samples(&self) -> Option<[(Instant, Duration); 3]> {
        self.s
    }

    /// Forgets everything and keeps `v` taken at `t` (`minmax_reset`).
    pub fn reset(&mut self, t: Instant, v: Duration) -> Duration {
        self.s = Some([(t, v); 3]);
        v
    }

    /// Takes sample `v` at `t` and returns the min over the window `win` ending at `t`.
    pub fn update(&mut self, win: Duration, t: Instant, v: Duration) -> Duration {
        let Some(mut s) = self.s else {
            return self.reset(t, v);
        };
        // New min, or nothing left in the window: forget earlier samples.
        if v <= s[0].1 || t - s[2].0 > win {
            return self.reset(t, v);
        }
        let val = (t, v);
        if v <= s[1].1 {
            s[1] = val;
            s[2] = val;
        } else if v <= s[2].1 {
            s[2] = val;
        }
        // minmax_subwin_update: as time passes, promote the 2nd and 3rd choices.
        let dt = t - s[0].0;
        if dt > win {
            // The best sample aged out: the 2nd becomes the best, the 3rd the 2nd, and
            // perhaps once more if the new best is also out of the window.
            s = [s[1], s[2], val];
            if t - s[0].0 > win {
                s = [s[1], s[2], val];
            }
        } else if s[1].0 == s[0].0 && dt > win / 4 {
            // A quarter window passed without a new 2nd choice: take one from now.
            s[1] = val;
            s[2] = val;
        } else if s[2].0 == s[1].0 && dt > win / 2 {
            // Half a window passed without a new 3rd choice.
            s[2] = val;
        }
        self.s = Some(s);
        s[0].1
    }
}

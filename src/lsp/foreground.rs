//! The work the user waits for comes first. While a large message is read
//! and handled (the editor opening a big report), the search for reports
//! starts reading no file. Otherwise it would read and analyse, from disk
//! and at the same time, the very report being opened: twice the CPU and
//! the memory of the open, on a machine with two cores. Once the message is
//! handled, the document is open, and the search leaves it to the editor.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// The large messages being read or handled now.
#[derive(Default)]
pub struct Foreground {
    counts: Mutex<Counts>,
    idle: Condvar,
}

#[derive(Default)]
struct Counts {
    busy: usize,
    /// How many have entered so far: which stall a wait gave up on.
    entered: u64,
    /// `entered` when a wait last reached its bound: that stall is waited
    /// for no more, until another large message comes.
    given_up_at: Option<u64>,
}

/// One large message being read or handled, until dropped.
pub struct Busy(Arc<Foreground>);

impl Foreground {
    pub fn enter(self: &Arc<Self>) -> Busy {
        let mut counts = lock(&self.counts);
        counts.busy += 1;
        counts.entered += 1;
        Busy(self.clone())
    }

    /// Whether a large message is being read or handled, and not one a
    /// wait already gave up on.
    pub fn is_busy(&self) -> bool {
        let counts = lock(&self.counts);
        counts.busy > 0 && counts.given_up_at != Some(counts.entered)
    }

    /// Waits until no large message is being read or handled, at most
    /// `bound`: a client that stops in the middle of a message must not
    /// stop the search for good, nor hold each file it reads for `bound`.
    pub fn wait(&self, bound: Duration) {
        let until = Instant::now() + bound;
        let mut counts = lock(&self.counts);
        while counts.busy > 0 && counts.given_up_at != Some(counts.entered) {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                counts.given_up_at = Some(counts.entered);
                break;
            }
            counts = match self.idle.wait_timeout(counts, left) {
                Ok((counts, _)) => counts,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }
}

/// The counts, even after a panic while they were held (they are numbers).
fn lock(counts: &Mutex<Counts>) -> MutexGuard<'_, Counts> {
    counts.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Drop for Busy {
    fn drop(&mut self) {
        let mut counts = lock(&self.0.counts);
        counts.busy = counts.busy.saturating_sub(1);
        if counts.busy == 0 {
            self.0.idle.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_ends_when_the_last_message_is_handled() {
        let foreground = Arc::new(Foreground::default());
        assert!(!foreground.is_busy());
        let (first, second) = (foreground.enter(), foreground.enter());
        let (entered, waiting) = std::sync::mpsc::channel();
        let waiter = {
            let foreground = foreground.clone();
            std::thread::spawn(move || {
                entered.send(()).unwrap();
                let started = Instant::now();
                foreground.wait(Duration::from_secs(60));
                started.elapsed()
            })
        };
        waiting.recv().unwrap();
        drop(first);
        assert!(foreground.is_busy(), "one is still being handled");
        drop(second);
        // Woken by the last drop, not by the bound (generous: a loaded
        // machine), or it never had to wait.
        assert!(waiter.join().unwrap() < Duration::from_secs(30));
        assert!(!foreground.is_busy());
    }

    #[test]
    fn a_stall_is_waited_for_once_and_the_next_message_again() {
        let foreground = Arc::new(Foreground::default());
        let _stuck = foreground.enter();
        foreground.wait(Duration::from_millis(1));
        // Given up on: the next file is read at once.
        assert!(!foreground.is_busy());
        let started = Instant::now();
        foreground.wait(Duration::from_secs(60));
        assert!(started.elapsed() < Duration::from_secs(30));
        // Another large message is waited for again.
        let _next = foreground.enter();
        assert!(foreground.is_busy());
    }
}

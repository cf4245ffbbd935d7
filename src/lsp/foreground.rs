//! The work the user waits for comes first. While a large message is read
//! and handled (the editor opening a big report), the search for reports
//! starts reading no file. Otherwise it would read and analyse, from disk
//! and at the same time, the very report being opened: twice the CPU and
//! the memory of the open, on a machine with two cores. Once the message is
//! handled, the document is open, and the search leaves it to the editor.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// How many large messages are being read or handled now.
#[derive(Default)]
pub struct Foreground {
    busy: Mutex<usize>,
    idle: Condvar,
}

/// One large message being read or handled, until dropped.
pub struct Busy(Arc<Foreground>);

impl Foreground {
    pub fn enter(self: &Arc<Self>) -> Busy {
        *lock(&self.busy) += 1;
        Busy(self.clone())
    }

    /// Whether a large message is being read or handled.
    pub fn is_busy(&self) -> bool {
        *lock(&self.busy) > 0
    }

    /// Waits until no large message is being read or handled, at most
    /// `bound`: a client that stops in the middle of a message must not
    /// stop the search for good.
    pub fn wait(&self, bound: Duration) {
        let until = Instant::now() + bound;
        let mut busy = lock(&self.busy);
        while *busy > 0 {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            busy = match self.idle.wait_timeout(busy, left) {
                Ok((busy, _)) => busy,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }
}

/// The count, even after a panic while it was held (it is only a number).
fn lock(busy: &Mutex<usize>) -> MutexGuard<'_, usize> {
    busy.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Drop for Busy {
    fn drop(&mut self) {
        let mut busy = lock(&self.0.busy);
        *busy = busy.saturating_sub(1);
        if *busy == 0 {
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
                foreground.wait(Duration::from_secs(600))
            })
        };
        waiting.recv().unwrap();
        drop(first);
        assert!(foreground.is_busy(), "one is still being handled");
        drop(second);
        // Woken by the last drop (not the bound, ten minutes away), or
        // never had to wait.
        waiter.join().unwrap();
        assert!(!foreground.is_busy());
    }

    #[test]
    fn a_message_that_never_ends_holds_the_wait_only_to_its_bound() {
        let foreground = Arc::new(Foreground::default());
        let _stuck = foreground.enter();
        foreground.wait(Duration::from_millis(1));
        assert!(foreground.is_busy());
    }
}

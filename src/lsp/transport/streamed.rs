//! A large body lifted ([`Lifting`]) as it comes, on a thread beside the
//! reads: the reads and the unescaping take turns with no wait on each
//! other, and the body is decoded about when its last byte is read, not
//! after. Unescaping on the reading thread itself slowed the reads by as
//! much as it took (BENCHMARKS.md). Where no thread can be had, the
//! reader lifts each piece itself.

use tokio::sync::{mpsc, oneshot};

use super::large::{Lifted, Lifting, NotLifted};

/// How many bytes a read asks for.
pub const READ_BYTES: usize = 64 * 1024;

/// How many read pieces may wait for the lifting thread: beyond that the
/// reads wait, and so, through the pipe, does the client.
const PIECES_IN_FLIGHT: usize = 16;

/// Why a body is refused when the lifting thread ended without a word (a
/// bug there, which its panic message tells).
const LOST: &str = "the message could not be decoded (report-lsp's decoding thread failed)";

/// A large body being read.
pub struct Streamed {
    /// How many of its bytes have not been read yet.
    pub left: usize,
    lift: Lift,
}

enum Lift {
    Beside {
        /// Read pieces, with how many of their bytes are the body's.
        pieces: mpsc::Sender<(Vec<u8>, usize)>,
        /// Pieces the thread is done with, to read into again.
        spare: std::sync::mpsc::Receiver<Vec<u8>>,
        lifted: oneshot::Receiver<Result<Lifted, NotLifted>>,
    },
    Here(Lifting),
}

impl Streamed {
    /// A body of `length` bytes, none read yet; lifted `beside` the reads
    /// where a thread can be had.
    pub fn start(length: usize, beside: bool) -> Streamed {
        if !beside {
            return Streamed {
                left: length,
                lift: Lift::Here(Lifting::new(length)),
            };
        }
        let (pieces, mut pieces_out) = mpsc::channel::<(Vec<u8>, usize)>(PIECES_IN_FLIGHT);
        let (spare_in, spare) = std::sync::mpsc::channel();
        let (done, lifted) = oneshot::channel();
        let thread = std::thread::Builder::new()
            .name("report-lsp-lift".into())
            .spawn(move || {
                let mut lifting = Lifting::new(length);
                while let Some((piece, len)) = pieces_out.blocking_recv() {
                    lifting.feed(&piece[..len]);
                    let _ = spare_in.send(piece);
                }
                let _ = done.send(lifting.finish());
            });
        let lift = match thread {
            Ok(_) => Lift::Beside {
                pieces,
                spare,
                lifted,
            },
            Err(_) => Lift::Here(Lifting::new(length)),
        };
        Streamed { left: length, lift }
    }

    /// The first `len` bytes of `piece` are the body's next: `piece` is
    /// then a buffer to read the next ones into.
    pub async fn feed(&mut self, piece: &mut Vec<u8>, len: usize) {
        self.left -= len;
        match &mut self.lift {
            Lift::Beside { pieces, spare, .. } => {
                let mut next = spare.try_recv().unwrap_or_default();
                next.resize(READ_BYTES, 0);
                let full = std::mem::replace(piece, next);
                // A thread that ended has its end told by `finish`.
                let _ = pieces.send((full, len)).await;
            }
            Lift::Here(lifting) => lifting.feed(&piece[..len]),
        }
    }

    /// The body, all read, lifted.
    pub async fn finish(self) -> Result<Lifted, NotLifted> {
        match self.lift {
            Lift::Beside { pieces, lifted, .. } => {
                drop(pieces);
                lifted
                    .await
                    .unwrap_or_else(|_| Err(NotLifted::Broken(LOST.to_string())))
            }
            Lift::Here(lifting) => lifting.finish(),
        }
    }
}

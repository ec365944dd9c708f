//! Running the games of a transcript, in one thread or many, and handing
//! their outcomes to a consumer in the file's order.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};

use super::chunks;
use super::game::Batch;
use super::reader::{Consumer, Mode, Outcomes, Top, TopState, Worker, check_batch};
use crate::reporter::{CheckError, InputError};

/// The next games, for the calling thread to hand out or already checked.
pub(super) enum Next<M: Mode> {
    Hand(Batch),
    Checked(Outcomes<M>),
}

/// Reads the transcript at `path`, checking its games with `jobs` threads
/// and giving the outcomes to `consumer` in the file's order.
///
/// With one job the calling thread checks each game as it reads it, with
/// no scan for a game of the plain shape. With more, the games are found
/// and checked in parallel in pieces of the file ([`chunks`]); for a file
/// where that does not pay (most games not of the plain shape, or the
/// header after games whose end was not found in pieces, [`skip`]), the
/// calling thread scans games and hands them out in batches
/// ([`drive_batches`]).
pub(super) fn drive<C: Consumer>(
    path: &Path,
    source: &str,
    jobs: usize,
    consumer: &mut C,
) -> Result<(), CheckError> {
    drive_with(path, source, jobs, chunks::Chunking::FILE, consumer).map(|_| ())
}

/// [`drive`], the file cut into pieces as `chunking` says: how the pieces
/// went.
pub(super) fn drive_with<C: Consumer>(
    path: &Path,
    source: &str,
    jobs: usize,
    chunking: chunks::Chunking,
    consumer: &mut C,
) -> Result<chunks::Tally, CheckError> {
    let mut top = Top::open(path, source)?;
    top.sharing = Some((jobs, chunking.skip));
    top.try_end = chunking.from_end;
    let header = top.header()?;
    let mode = match consumer.header(header) {
        Ok(mode) => mode,
        Err(abort) => return abort.into_result().map(|()| chunks::Tally::default()),
    };
    let mut tally = chunks::Tally {
        skipped: top.shared,
        from_end: top.from_end,
        ..chunks::Tally::default()
    };
    let stop = AtomicBool::new(false);
    if jobs <= 1 {
        let mut worker = Worker::open(path, source)?;
        while let Some(outcomes) = top.checked_batch(&mode, &mut worker, &stop)? {
            for outcome in outcomes {
                if let Err(abort) = consumer.game(&mode, outcome?) {
                    return abort.into_result().map(|()| chunks::Tally::default());
                }
            }
        }
        return Ok(tally);
    }
    if let TopState::Games { .. } = top.state {
        let run = chunks::Run {
            path,
            source,
            jobs,
            chunking,
        };
        if run.drive(&mut top, &mode, consumer, &mut tally)? == chunks::Flow::Done {
            return Ok(tally);
        }
    }
    drive_batches(&mut top, &mode, path, source, jobs, consumer)?;
    Ok(tally)
}

/// Checks the rest of the games with `jobs` threads: while another thread
/// has fewer than two batches, the calling thread scans the next games
/// and hands them to it as a batch, with their bytes; otherwise it checks
/// the next games itself as it reads them.
pub(super) fn drive_batches<C: Consumer>(
    top: &mut Top,
    mode: &C::Mode,
    path: &Path,
    source: &str,
    jobs: usize,
    consumer: &mut C,
) -> Result<(), CheckError> {
    let stop = AtomicBool::new(false);
    // The calling thread checks games too, as it reads them, while every
    // other thread has batches to check: `jobs` threads in all, on `jobs`
    // cores.
    let mut own = Worker::open(path, source)?;
    let workers = (1..jobs)
        .map(|_| Worker::open(path, source))
        .collect::<Result<Vec<_>, _>>()?;
    // Each other thread has one batch being checked and one waiting.
    let ahead = 2 * (jobs - 1);
    let (job_tx, job_rx) = mpsc::sync_channel::<Batch>(ahead);
    let job_rx = Mutex::new(job_rx);
    std::thread::scope(|s| {
        // Owned here, so that it is dropped (and the threads end) however
        // this closure ends, a panic included.
        let job_tx = job_tx;
        let (result_tx, result_rx) = mpsc::channel::<Answer<<C::Mode as Mode>::Outcome>>();
        for worker in workers {
            let (job_rx, result_tx, stop) = (&job_rx, result_tx.clone(), &stop);
            s.spawn(move || check_batches(mode, worker, job_rx, &result_tx, stop));
        }
        drop(result_tx);
        // Batches handed out at most this far ahead of the one reported
        // next: memory stays a few batches per thread.
        let window = jobs * 8;
        // Byte buffers of batches done, for the next ones.
        let mut pool: Vec<Vec<u8>> = Vec::new();
        let (mut sent, mut next) = (0, 0);
        // Batches handed to the other threads and not answered yet.
        let mut handed = 0;
        let mut scanned = false;
        let mut scan_error = None;
        let mut waiting = BTreeMap::new();
        let result = 'run: loop {
            while !scanned && sent < next + window {
                while let Ok(answer) = result_rx.try_recv() {
                    answered(answer, &mut handed, &mut pool, &mut waiting);
                }
                let found = if handed < ahead {
                    top.next_batch(sent, pool.pop().unwrap_or_default())
                        .map(|batch| batch.map(Next::<C::Mode>::Hand))
                } else {
                    // Every other thread is busy: check the next games
                    // here, as they are read.
                    top.checked_batch(mode, &mut own, &stop)
                        .map(|outcomes| outcomes.map(Next::Checked))
                };
                match found {
                    Ok(Some(Next::Hand(batch))) => {
                        sent += 1;
                        handed += 1;
                        if let Err(mpsc::TrySendError::Full(batch)) = job_tx.try_send(batch) {
                            // Not expected (the channel holds `ahead`).
                            handed -= 1;
                            let outcomes = check_batch(mode, &mut own, &batch, &stop);
                            waiting.insert(batch.seq, outcomes);
                            pool.push(batch.bytes);
                        }
                    }
                    Ok(Some(Next::Checked(outcomes))) => {
                        waiting.insert(sent, outcomes);
                        sent += 1;
                    }
                    Ok(None) => scanned = true,
                    Err(e) => {
                        scan_error = Some(e);
                        scanned = true;
                    }
                }
                if waiting.contains_key(&next) {
                    break;
                }
            }
            if next == sent && scanned {
                break scan_error.map_or(Ok(()), |e| Err(CheckError::Input(e)));
            }
            // Once nothing more can be read (every game read, or as far
            // ahead as the window allows), a batch no other thread has taken
            // yet is checked here rather than waited for; before that, the
            // games still to read are this thread's share. The lock is held
            // by a thread only while it waits for a batch, when none is
            // queued.
            let idle = scanned || sent >= next + window;
            let queued = idle
                .then(|| job_rx.try_lock().ok().and_then(|rx| rx.try_recv().ok()))
                .flatten();
            if let Some(batch) = queued {
                handed -= 1;
                let outcomes = check_batch(mode, &mut own, &batch, &stop);
                waiting.insert(batch.seq, outcomes);
                pool.push(batch.bytes);
            } else if !waiting.contains_key(&next) {
                // The next batch to report is another thread's: wait for
                // any answer (it gives back a buffer, and perhaps `next`).
                let answer = result_rx
                    .recv()
                    .expect("a worker answers every batch it takes");
                answered(answer, &mut handed, &mut pool, &mut waiting);
            }
            while let Ok(answer) = result_rx.try_recv() {
                answered(answer, &mut handed, &mut pool, &mut waiting);
            }
            while let Some(outcomes) = waiting.remove(&next) {
                next += 1;
                for outcome in outcomes {
                    let outcome = match outcome {
                        Ok(outcome) => outcome,
                        Err(e) => break 'run Err(CheckError::Input(e)),
                    };
                    if let Err(abort) = consumer.game(mode, outcome) {
                        break 'run abort.into_result();
                    }
                }
            }
        };
        stop.store(true, Ordering::Relaxed);
        drop(job_tx);
        result
    })
}

/// Another thread's answer: the batch's place, its outcomes (or the
/// thread's panic) and the batch's byte buffer.
pub(super) type Answer<O> = (
    usize,
    std::thread::Result<Vec<Result<O, InputError>>>,
    Vec<u8>,
);

/// Takes in another thread's answer: one batch fewer handed out, its
/// buffer for the next batch, its outcomes waiting for their turn (a
/// panic goes on here).
/// Another thread's part of [`drive_batches`]: checks the batches it
/// takes from `jobs` with `worker` and sends their outcomes back, until
/// the jobs end or nobody listens; once `stop` is set it takes batches
/// without checking them.
fn check_batches<M: Mode>(
    mode: &M,
    mut worker: Worker,
    jobs: &Mutex<mpsc::Receiver<Batch>>,
    results: &mpsc::Sender<Answer<M::Outcome>>,
    stop: &AtomicBool,
) {
    loop {
        let job = jobs.lock().map(|rx| rx.recv());
        let Ok(Ok(batch)) = job else { break };
        if stop.load(Ordering::Relaxed) {
            continue;
        }
        // A panic (a bug) goes to the calling thread, which would
        // otherwise wait for this batch for ever.
        let outcomes = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            check_batch(mode, &mut worker, &batch, stop)
        }));
        if outcomes.is_err() {
            // Skip the rest, so the job channel never fills.
            stop.store(true, Ordering::Relaxed);
        }
        if results.send((batch.seq, outcomes, batch.bytes)).is_err() {
            break;
        }
    }
}

pub(super) fn answered<O>(
    (seq, outcomes, bytes): Answer<O>,
    handed: &mut usize,
    pool: &mut Vec<Vec<u8>>,
    waiting: &mut BTreeMap<usize, Vec<Result<O, InputError>>>,
) {
    *handed -= 1;
    pool.push(bytes);
    let outcomes = outcomes.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    waiting.insert(seq, outcomes);
}
